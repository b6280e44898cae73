//! Raw nodes to values: tags to constructors, merge keys, the alias budget.

use super::*;

/// PyYAML's `construct_object` for the safe constructor.
pub(super) fn construct(raw: &Raw, budget: &mut usize) -> Result<Node<'static>, SyntaxError> {
    *budget = budget.checked_sub(1).ok_or_else(|| {
        constructor_error(
            "alias expansion budget exceeded (a billion-laughs document?)".to_owned(),
            raw.span(),
        )
    })?;
    let span = raw.span();
    let tag = resolved_tag(raw);
    let Some(kind) = tag.strip_prefix(CORE) else {
        return Err(undefined(&tag, span));
    };
    let value = match (kind, raw) {
        (
            "str" | "null" | "bool" | "int" | "float" | "binary" | "timestamp",
            Raw::Map { pairs, .. },
        ) if pairs.iter().any(
            |(k, _)| matches!(k, Raw::Scalar { value, plain: true, tag: None, .. } if value == "="),
        ) =>
        {
            return equals_value(kind, pairs, span, budget);
        }
        (
            "str" | "null" | "bool" | "int" | "float" | "binary" | "timestamp",
            Raw::Seq { .. } | Raw::Map { .. },
        ) => {
            return Err(constructor_error(
                format!("expected a scalar node, but found {}", raw.kind()),
                span,
            ));
        }
        ("str", Raw::Scalar { value, .. }) => Value::Str(value.clone().into()),
        ("null", Raw::Scalar { .. }) => Value::Null,
        ("bool", Raw::Scalar { value, .. }) => construct_bool(value, &span)?,
        ("int", Raw::Scalar { value, .. }) => construct_int(value, &span)?,
        ("float", Raw::Scalar { value, .. }) => construct_float(value, &span)?,
        ("binary", Raw::Scalar { value, .. }) => construct_binary(value, &span)?,
        ("timestamp", Raw::Scalar { value, .. }) => {
            Value::Datetime(construct_timestamp(value, &span)?)
        }
        ("seq", Raw::Seq { items, .. }) => Value::Array(
            items
                .iter()
                .map(|i| construct(i, budget))
                .collect::<Result<_, _>>()?,
        ),
        ("seq", _) => {
            return Err(constructor_error(
                format!("expected a sequence node, but found {}", raw.kind()),
                span,
            ));
        }
        ("omap" | "pairs", Raw::Seq { items, .. }) => construct_pairs(items, budget)?,
        ("omap" | "pairs", _) => {
            return Err(constructor_error(
                format!("expected a sequence, but found {}", raw.kind()),
                span,
            ));
        }
        ("map" | "set", Raw::Map { .. }) => return mapping(raw, budget),
        ("map" | "set", _) => {
            return Err(constructor_error(
                format!("expected a mapping node, but found {}", raw.kind()),
                span,
            ));
        }
        _ => return Err(undefined(&tag, span)),
    };
    Ok(Node { span, value })
}

/// SafeConstructor.construct_scalar reading a mapping's `=` value as the scalar of the
/// tag `kind`.
fn equals_value(
    kind: &str,
    pairs: &[(Raw, Raw)],
    span: Span,
    budget: &mut usize,
) -> Result<Node<'static>, SyntaxError> {
    let (_, v) = pairs
        .iter()
        .find(
            |(k, _)| matches!(k, Raw::Scalar { value, plain: true, tag: None, .. } if value == "="),
        )
        .unwrap();
    let mut inner = v.clone();
    if let Raw::Scalar { tag, plain, .. } = &mut inner {
        *tag = Some(tag.clone().unwrap_or_else(|| format!("{CORE}{kind}")));
        *plain = false;
    }
    construct(&inner, budget).map(|n| Node {
        span,
        value: n.value,
    })
}

/// `!!omap` and `!!pairs`: a list of (key, value) tuples, rendered as such by `str()`.
fn construct_pairs(items: &[Raw], budget: &mut usize) -> Result<Value<'static>, SyntaxError> {
    let mut out = Vec::new();
    for item in items {
        let Raw::Map { pairs, .. } = item else {
            return Err(constructor_error(
                format!("expected a mapping of length 1, but found {}", item.kind()),
                item.span(),
            ));
        };
        if pairs.len() != 1 {
            return Err(constructor_error(
                format!(
                    "expected a single mapping item, but found {} items",
                    pairs.len()
                ),
                item.span(),
            ));
        }
        let k = construct(&pairs[0].0, budget)?;
        let v = construct(&pairs[0].1, budget)?;
        out.push(Node {
            span: item.span(),
            value: Value::Array(vec![k, v]),
        });
    }
    Ok(Value::Array(out))
}

pub(super) fn undefined(tag: &str, span: Span) -> SyntaxError {
    constructor_error(
        format!(
            "could not determine a constructor for the tag {}",
            crate::manifest::pyval::repr_str(tag)
        ),
        span,
    )
}

/// `flatten_mapping`: `<<` merges (mappings or lists of them) go first, so
/// the mapping's own keys win; then `construct_mapping` with its hashability check.
pub(super) fn flatten(pairs: &[(Raw, Raw)], span: &Span) -> Result<Vec<(Raw, Raw)>, SyntaxError> {
    let mut merged: Vec<(Raw, Raw)> = Vec::new();
    let mut own = Vec::new();
    for (k, v) in pairs {
        if resolved_tag(k) == format!("{CORE}merge") {
            match v {
                Raw::Map { pairs: sub, .. } => merged.extend(flatten(sub, &v.span())?),
                Raw::Seq { items, .. } => {
                    let mut subs = Vec::new();
                    for item in items {
                        let Raw::Map { pairs: sub, .. } = item else {
                            return Err(constructor_error(
                                format!(
                                    "expected a mapping for merging, but found {}",
                                    item.kind()
                                ),
                                item.span(),
                            ));
                        };
                        subs.push(flatten(sub, &item.span())?);
                    }
                    for sub in subs.into_iter().rev() {
                        merged.extend(sub);
                    }
                }
                Raw::Scalar { .. } => {
                    let _ = span;
                    return Err(constructor_error(
                        "expected a mapping or list of mappings for merging, but found scalar"
                            .to_owned(),
                        v.span(),
                    ));
                }
            }
        } else {
            own.push((k.clone(), v.clone()));
        }
    }
    merged.extend(own);
    Ok(merged)
}

pub(super) fn mapping(raw: &Raw, budget: &mut usize) -> Result<Node<'static>, SyntaxError> {
    let Raw::Map { pairs, span, .. } = raw else {
        unreachable!("mapping() is called on mappings");
    };
    let pairs = flatten(pairs, span)?;
    let mut entries = Vec::with_capacity(pairs.len());
    for (k, v) in &pairs {
        // A `=` key is read as the string "=".
        let key = match k {
            Raw::Scalar {
                value,
                plain: true,
                tag: None,
                span,
            } if value == "=" => Node {
                span: span.clone(),
                value: Value::Str("=".into()),
            },
            _ => construct(k, budget)?,
        };
        if matches!(key.value, Value::Table(_) | Value::Array(_)) {
            return Err(constructor_error(
                "found unhashable key".to_owned(),
                key.span,
            ));
        }
        let node = construct(v, budget)?;
        let text = match &key.value {
            Value::Str(s) => s.clone(),
            _ => crate::manifest::pyval::py_str(&key).into(),
        };
        entries.push(Entry {
            key: text,
            key_span: key.span,
            node,
        });
    }
    Ok(Node {
        span: span.clone(),
        value: Value::Table(entries),
    })
}
