//! TOML, parsed with the `toml` crate (the parser aoe itself uses).

use ::toml::Spanned;
use ::toml::de::{DeTable, DeValue};

use super::SyntaxError;
use crate::diagnostic::Span;
use crate::manifest::doc::{Entry, Node, Value};

/// Parse TOML into a [`Node`] tree. The `toml` crate bounds nesting depth, so a
/// nesting bomb is a syntax error here, not a stack overflow.
pub fn parse_toml(text: &str) -> Result<Node<'_>, SyntaxError> {
    parse_toml_table(text).map(|(node, _)| node)
}

/// Parse TOML into a [`Node`] tree, and keep the parsed document, from which
/// `toml`'s serde deserializer builds typed values without parsing again.
pub fn parse_toml_table(text: &str) -> Result<(Node<'_>, Spanned<DeTable<'_>>), SyntaxError> {
    let table = DeTable::parse(text).map_err(|e| SyntaxError {
        exception: None,
        message: e.message().trim_end().to_owned(),
        display: e.to_string(),
        span: e.span(),
    })?;
    let span = 0..text.len();
    let node = Node {
        span,
        value: Value::Table(convert_table(table.get_ref(), text)),
    };
    Ok((node, table))
}

fn convert_table<'t>(table: &DeTable<'t>, text: &str) -> Vec<Entry<'t>> {
    let mut entries: Vec<Entry> = table
        .iter()
        .map(|(k, v)| Entry {
            key: k.get_ref().clone(),
            key_span: k.span(),
            node: convert_value(v.get_ref(), v.span(), text),
        })
        .collect();
    // `DeTable` orders keys alphabetically; diagnostics read better in source order.
    entries.sort_by_key(|e| e.key_span.start);
    entries
}

fn convert_value<'t>(value: &DeValue<'t>, span: Span, text: &str) -> Node<'t> {
    let value = match value {
        DeValue::String(s) => Value::Str(s.clone()),
        // Past i64 an integer is kept as its text: `toml::Value` (and so aoe's
        // `api_version` pre-check) cannot hold it, the typed parse reads it where it goes.
        DeValue::Integer(i) => parse_int(i.as_str(), i.radix())
            .map_or_else(|| Value::BigInt(decimal(i.as_str(), i.radix())), Value::Int),
        DeValue::Float(f) => Value::Float(parse_float(f.as_str())),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| convert_value(item.get_ref(), item.span(), text))
                .collect(),
        ),
        DeValue::Table(t) => Value::Table(convert_table(t, text)),
    };
    Node { span, value }
}

fn parse_int(digits: &str, radix: u32) -> Option<i64> {
    let cleaned: String = digits.chars().filter(|c| *c != '_').collect();
    i64::from_str_radix(&cleaned, radix).ok()
}

/// The decimal text of an integer literal's digits (`_` dropped, no `+`).
fn decimal(digits: &str, radix: u32) -> String {
    let cleaned: String = digits.chars().filter(|c| *c != '_').collect();
    if radix == 10 {
        return cleaned.trim_start_matches('+').to_owned();
    }
    u128::from_str_radix(&cleaned, radix).map_or(cleaned, |n| n.to_string())
}

fn parse_float(text: &str) -> f64 {
    let cleaned: String = text.chars().filter(|c| *c != '_').collect();
    match cleaned.as_str() {
        "inf" | "+inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" | "+nan" | "-nan" => f64::NAN,
        other => other.parse().unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "id = \"a.b\"\n[runtime]\nkind = \"command\"\n";
        let root = parse_toml(text).unwrap();
        let id = root.get("id").unwrap();
        assert_eq!(&text[id.key_span.clone()], "id");
        assert_eq!(&text[id.node.span.clone()], "\"a.b\"");
        let kind = root.get("runtime").unwrap().node.get("kind").unwrap();
        assert_eq!(&text[kind.node.span.clone()], "\"command\"");
    }

    #[test]
    fn integers_in_other_radixes() {
        let root = parse_toml("a = 0x1_F\nb = -12\nc = 1_000").unwrap();
        let get = |k| root.get(k).unwrap().node.value.clone();
        assert_eq!(get("a"), Value::Int(31));
        assert_eq!(get("b"), Value::Int(-12));
        assert_eq!(get("c"), Value::Int(1000));
    }

    #[test]
    fn nesting_bomb_is_a_syntax_error() {
        let deep = format!("a = {}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_toml(&deep).is_err());
        let dotted = format!("{} = 1", vec!["k"; 100_000].join("."));
        assert!(parse_toml(&dotted).is_err());
    }
}
