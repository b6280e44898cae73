//! YAML, parsed with serde-saphyr into the spanned tree.
//!
//! protoAgent reads manifests with PyYAML's `safe_load`; serde-saphyr accepts
//! the same YAML 1.1 scalars (`yes`/`no` booleans included) and, unlike PyYAML,
//! bounds alias expansion and depth, so a billion-laughs manifest is a clear
//! error instead of an out-of-memory kill. Duplicate keys are kept (lookups take
//! the last, as PyYAML does) so they can be linted.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Spanned, options::DuplicateKeyPolicy};

use super::SyntaxError;
use crate::diagnostic::Span;
use crate::manifest::doc::{Entry, Node, Value};

/// Parse YAML text (one document; empty means an empty mapping's absence: null).
pub fn parse_yaml(text: &str) -> Result<Node, SyntaxError> {
    let mut options = serde_saphyr::Options::default();
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.with_snippet = false;
    if text.trim().is_empty() {
        return Ok(Node {
            span: 0..0,
            value: Value::Null,
        });
    }
    serde_saphyr::from_str_with_options::<SNode>(text, options)
        .map(|n| n.0)
        .map_err(|e| {
            let span = e.location().and_then(|l| byte_span(&l, text));
            let message = e.to_string();
            let first = message.lines().next().unwrap_or_default().to_owned();
            SyntaxError {
                exception: None,
                message: first,
                display: message,
                span,
            }
        })
}

fn byte_span(loc: &serde_saphyr::Location, text: &str) -> Option<Span> {
    let span = loc.span();
    let start = usize::try_from(span.byte_offset()?).ok()?.min(text.len());
    let len = usize::try_from(span.byte_len().unwrap_or(0)).ok()?;
    Some(start..(start + len).min(text.len()))
}

/// A node with its span.
struct SNode(Node);

impl<'de> Deserialize<'de> for SNode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Shape>::deserialize(d)?;
        let span = loc_span(&spanned.referenced);
        Ok(SNode(Node {
            span,
            value: spanned.value.0,
        }))
    }
}

fn loc_span(loc: &serde_saphyr::Location) -> Span {
    let span = loc.span();
    let start = span
        .byte_offset()
        .and_then(|o| usize::try_from(o).ok())
        .unwrap_or(0);
    let len = span
        .byte_len()
        .and_then(|o| usize::try_from(o).ok())
        .unwrap_or(0);
    start..start + len
}

/// A value without its span.
struct Shape(Value);

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Shape, E> {
        Ok(Shape(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Shape, E> {
        Ok(Shape(Value::Int(v)))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Shape, E> {
        Ok(Shape(
            i64::try_from(v).map_or(Value::Float(v as f64), Value::Int),
        ))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Shape, E> {
        Ok(Shape(
            i64::try_from(v).map_or(Value::Float(v as f64), Value::Int),
        ))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Shape, E> {
        Ok(Shape(
            i64::try_from(v).map_or(Value::Float(v as f64), Value::Int),
        ))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Shape, E> {
        Ok(Shape(Value::Float(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Shape, E> {
        Ok(Shape(Value::Str(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Shape, E> {
        Ok(Shape(Value::Str(v)))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Shape, E> {
        Ok(Shape(Value::Str(String::from_utf8_lossy(v).into_owned())))
    }

    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape(Value::Null))
    }

    fn visit_none<E>(self) -> Result<Shape, E> {
        Ok(Shape(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut items = Vec::new();
        while let Some(SNode(n)) = seq.next_element()? {
            items.push(n);
        }
        Ok(Shape(Value::Array(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut entries = Vec::new();
        while let Some(SNode(key)) = map.next_key()? {
            // PyYAML's `construct_mapping` refuses keys Python cannot hash.
            if matches!(key.value, Value::Table(_) | Value::Array(_)) {
                return Err(de::Error::custom("found unhashable key"));
            }
            let SNode(node) = map.next_value()?;
            let text = match &key.value {
                Value::Str(s) => s.clone(),
                _ => crate::manifest::pyval::py_str(&key),
            };
            entries.push(Entry {
                key: text,
                key_span: key.span,
                node,
            });
        }
        Ok(Shape(Value::Table(entries)))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<Shape, A::Error> {
        Err(de::Error::custom(
            "tagged enums are not supported in manifests",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_scalars_and_duplicates() {
        let text = "id: hello\nversion: 1.0\nenabled: yes\nlist:\n  - a\n  - 2\nid: again\n";
        let root = parse_yaml(text).unwrap();
        let id = root.get("id").unwrap();
        assert_eq!(
            id.node.as_str(),
            Some("again"),
            "last duplicate wins, as PyYAML"
        );
        assert_eq!(&text[id.key_span.clone()], "id");
        assert_eq!(&text[id.node.span.clone()], "again");
        assert_eq!(root.get("version").unwrap().node.value, Value::Float(1.0));
        assert_eq!(
            root.get("enabled").unwrap().node.value,
            Value::Bool(true),
            "YAML 1.1 booleans"
        );
        assert_eq!(
            root.as_table().unwrap().len(),
            5,
            "duplicates are kept for linting"
        );
    }

    #[test]
    fn billion_laughs_is_refused() {
        let mut text = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
            let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
            let refs = vec![format!("*{prev}"); 9].join(",");
            text.push_str(&format!("{name}: &{name} [{refs}]\n"));
        }
        let e = parse_yaml(&text).unwrap_err();
        assert!(
            e.message.contains("budget") || e.message.contains("alias"),
            "{}",
            e.message
        );
    }

    #[test]
    fn unhashable_keys_are_errors_as_in_pyyaml() {
        for text in ["id: {{ cookiecutter.id }}\n", "? [a, b]\n: 1\n"] {
            let e = parse_yaml(text).unwrap_err();
            assert!(
                e.message.starts_with("found unhashable key"),
                "{text}: {e:?}"
            );
        }
    }

    #[test]
    fn deep_nesting_and_tabs_are_errors() {
        let deep = format!("a: {}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_yaml(&deep).is_err());
        assert!(parse_yaml("a:\n\tb: 1\n").is_err());
    }
}
