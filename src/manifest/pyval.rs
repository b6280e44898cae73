//! Python value semantics for hosts written in Python (AWorld, protoAgent):
//! truthiness, `str()`, and type names, applied to the format-neutral tree.

use super::doc::{Node, Value};

/// Python's truthiness (`bool(v)`).
pub fn truthy(node: &Node) -> bool {
    match &node.value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::BigInt(_) => true,
        Value::Float(x) => *x != 0.0,
        Value::Str(s) => !s.is_empty(),
        Value::Datetime(s) => !s.is_empty(),
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
        Value::BigInt(i) => i.clone(),
        Value::Float(x) => float_str(*x),
        Value::Str(s) => s.to_string(),
        Value::Datetime(s) => s.clone(),
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

/// Python's `repr()` of a string: single quotes unless the text holds one
/// (and no double quote); `\\`, `\t`, `\n`, `\r` and non-printable characters escaped.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if surrogate_of(c).is_some() => {
                out.push_str(&format!("\\u{:04x}", surrogate_of(c).unwrap_or_default()));
            }
            c if !py_printable(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// The char standing for the lone surrogate `unit` (U+D800–U+DFFF), which a Rust
/// string cannot hold and PyYAML keeps (`"\ud800"`): U+10F800 + (unit − U+D800), in
/// private use. [`repr_str`] shows it as Python shows the surrogate.
pub fn surrogate(unit: u32) -> char {
    char::from_u32(0x10_f800 + (unit.clamp(0xd800, 0xdfff) - 0xd800)).unwrap_or('\u{fffd}')
}

/// The surrogate `c` stands for, if it is one of [`surrogate`]'s chars.
pub fn surrogate_of(c: char) -> Option<u32> {
    let n = u32::from(c);
    (0x10_f800..=0x10_ffff)
        .contains(&n)
        .then(|| n - 0x10_f800 + 0xd800)
}

/// `str.isprintable()` for the characters manifests hold: controls, the
/// C1 range, separators other than the space, and a few format characters
/// are not (a close approximation of Unicode's categories C* and Z* but Zs' space).
fn py_printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c, '\u{a0}' | '\u{ad}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{3000}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{fff9}'..='\u{fffb}' | '\u{e000}'..='\u{f8ff}' | '\u{fffe}' | '\u{ffff}'))
}

/// Python's `repr(float)`: the shortest round-trip digits, in positional
/// notation for decimal exponents -4..16 and scientific (`1e+300`, `1e-05`) otherwise.
fn float_str(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits: `d[.ddd]e<exp>`.
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exp + 1; // digits before the decimal point
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else if (point as usize) >= digits.len() {
        format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
    } else {
        let (a, b) = digits.split_at(point as usize);
        format!("{a}.{b}")
    };
    if neg { format!("-{body}") } else { body }
}

/// Python's type name (`type(v).__name__`) for a JSON/YAML value.
pub fn type_name(node: &Node) -> &'static str {
    match &node.value {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::BigInt(_) => "int",
        Value::Float(_) => "float",
        Value::Str(_) | Value::Datetime(_) => "str",
        Value::Array(_) => "list",
        Value::Table(_) => "dict",
    }
}

/// Python dict semantics over a table's entries: each key once, at the position
/// of its first occurrence, holding its last value.
pub fn dict_items<'a, 't>(node: &'a Node<'t>) -> Vec<(&'a str, &'a Node<'t>)> {
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
        for (x, want) in [
            (1e300, "1e+300"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-685230.15, "-685230.15"),
            (750.0, "750.0"),
        ] {
            assert_eq!(py_str(&n(Value::Float(x))), want, "{x}");
        }
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
        assert!(!truthy(&n(Value::Str("".into()))));
        assert!(
            truthy(&n(Value::Str("false".into()))),
            "a quoted \"false\" is true"
        );
        assert!(!truthy(&n(Value::Int(0))));
        assert!(!truthy(&n(Value::Array(vec![]))));
    }
}
