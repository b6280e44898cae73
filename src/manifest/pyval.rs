//! Python value semantics for hosts written in Python (AWorld, protoAgent):
//! truthiness, `str()`, and type names, applied to the format-neutral tree.

use super::doc::{Node, Value};

/// Python's truthiness (`bool(v)`).
pub fn truthy(node: &Node) -> bool {
    match &node.value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(x) => *x != 0.0,
        Value::Str(s) | Value::Datetime(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Table(t) => !t.is_empty(),
    }
}

/// Python's `str(v)` for scalars; containers render like Python's `repr`.
pub fn py_str(node: &Node) -> String {
    match &node.value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => float_str(*x),
        Value::Str(s) | Value::Datetime(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(py_repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Table(_) => {
            let parts: Vec<String> = dict_items(node)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), py_repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// Python's `repr(v)`: strings quoted, the rest as `str`.
pub fn py_repr(node: &Node) -> String {
    match &node.value {
        Value::Str(s) => repr_str(s),
        _ => py_str(node),
    }
}

/// Python's `repr()` of a string: single quotes unless the text holds one.
pub fn repr_str(s: &str) -> String {
    let escaped = s.replace('\\', "\\\\").replace('\n', "\\n");
    if s.contains('\'') && !s.contains('"') {
        format!("\"{escaped}\"")
    } else {
        format!("'{}'", escaped.replace('\'', "\\'"))
    }
}

fn float_str(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// Python's type name (`type(v).__name__`) for a JSON/YAML value.
pub fn type_name(node: &Node) -> &'static str {
    match &node.value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) | Value::Datetime(_) => "str",
        Value::Array(_) => "list",
        Value::Table(_) => "dict",
    }
}

/// Python dict semantics over a table's entries: each key once, at the position
/// of its first occurrence, holding its last value.
pub fn dict_items(node: &Node) -> Vec<(&str, &Node)> {
    let Value::Table(entries) = &node.value else {
        return Vec::new();
    };
    let mut out: Vec<(&str, &Node)> = Vec::with_capacity(entries.len());
    for e in entries {
        match out.iter_mut().find(|(k, _)| *k == e.key) {
            Some(slot) => slot.1 = &e.node,
            None => out.push((&e.key, &e.node)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(value: Value) -> Node {
        Node { span: 0..0, value }
    }

    #[test]
    fn python_strings() {
        assert_eq!(py_str(&n(Value::Float(1.0))), "1.0");
        assert_eq!(py_str(&n(Value::Float(0.5))), "0.5");
        assert_eq!(py_str(&n(Value::Bool(true))), "True");
        assert_eq!(py_str(&n(Value::Null)), "None");
        assert_eq!(
            py_str(&n(Value::Array(vec![
                n(Value::Str("a".into())),
                n(Value::Int(2))
            ]))),
            "['a', 2]"
        );
    }

    #[test]
    fn truthiness() {
        assert!(!truthy(&n(Value::Str(String::new()))));
        assert!(
            truthy(&n(Value::Str("false".into()))),
            "a quoted \"false\" is true"
        );
        assert!(!truthy(&n(Value::Int(0))));
        assert!(!truthy(&n(Value::Array(vec![]))));
    }
}
