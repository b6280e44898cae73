//! PyYAML's implicit resolver: which tag a plain scalar gets; and the timestamp grammar
//! that the constructor (`scalar.rs`) reads too.

use super::*;

pub(super) const CORE: &str = "tag:yaml.org,2002:";

/// A Python exception escaping PyYAML (not a `YAMLError`).
pub(super) fn raise(exception: &'static str, message: String, span: Span) -> SyntaxError {
    SyntaxError {
        display: message.clone(),
        message,
        span: Some(span),
        exception: Some(exception),
    }
}

/// A PyYAML `ConstructorError` (a `YAMLError`: the host's "unreadable manifest").
pub(super) fn constructor_error(message: String, span: Span) -> SyntaxError {
    SyntaxError {
        display: message.clone(),
        message,
        span: Some(span),
        exception: None,
    }
}

/// The tag PyYAML resolves a node to.
pub(super) fn resolved_tag(raw: &Raw) -> String {
    match raw {
        // The non-specific `!` resolves like an untagged plain scalar, even
        // on a quoted one (PyYAML's parser sets `implicit = (True, False)`).
        Raw::Scalar { tag: Some(t), .. } if t != "!" => t.clone(),
        Raw::Scalar {
            value, plain, tag, ..
        } if *plain || tag.is_some() => {
            format!("{CORE}{}", implicit(value))
        }
        Raw::Scalar { .. } => format!("{CORE}str"),
        Raw::Seq { tag, .. } => match tag.as_deref() {
            Some(t) if t != "!" => t.to_owned(),
            _ => format!("{CORE}seq"),
        },
        Raw::Map { tag, .. } => match tag.as_deref() {
            Some(t) if t != "!" => t.to_owned(),
            _ => format!("{CORE}map"),
        },
    }
}

/// PyYAML's implicit resolvers for a plain scalar, in their order.
pub(super) fn implicit(v: &str) -> &'static str {
    let first = v.chars().next();
    let candidates: &[&str] = match first {
        None => &["null"],
        Some('y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O') => &["bool", "null"],
        Some('-' | '+') => &["float", "int"],
        Some('0'..='9') => &["float", "int", "timestamp"],
        Some('.') => &["float"],
        Some('<') => &["merge"],
        Some('~') => &["null"],
        Some('=') => &["value"],
        _ => &[],
    };
    for c in candidates {
        let hit = match *c {
            "bool" => is_bool(v),
            "null" => matches!(v, "" | "~" | "null" | "Null" | "NULL"),
            "float" => is_float(v),
            "int" => is_int(v),
            "timestamp" => is_timestamp(v),
            "merge" => v == "<<",
            "value" => v == "=",
            _ => false,
        };
        if hit {
            return c;
        }
    }
    "str"
}

pub(super) fn is_bool(v: &str) -> bool {
    matches!(
        v,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// Python's `$` also matches before one final newline; plain scalars never
/// end in one, so full-string matching is exact here.
pub(super) fn digits(s: &str, ok: impl Fn(char) -> bool) -> usize {
    s.char_indices()
        .find(|(_, c)| !ok(*c))
        .map_or(s.len(), |(i, _)| i)
}

pub(super) fn strip_sign(v: &str) -> &str {
    v.strip_prefix(['-', '+']).unwrap_or(v)
}

/// `(?::[0-5]?[0-9])+` at the start of `s`: how much it matches (greedy, whole groups).
pub(super) fn sexagesimal_tail(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while b.get(i) == Some(&b':') {
        let d1 = b.get(i + 1).copied();
        let d2 = b.get(i + 2).copied();
        match (d1, d2) {
            (Some(b'0'..=b'5'), Some(b'0'..=b'9')) => i += 3,
            (Some(b'0'..=b'9'), _) => i += 2,
            _ => break,
        }
    }
    i
}

pub(super) fn is_float(v: &str) -> bool {
    let is_digit_ = |c: char| c.is_ascii_digit() || c == '_';
    // \.(?:nan|NaN|NAN)
    if matches!(v, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let unsigned = strip_sign(v);
    // [-+]?\.(?:inf|Inf|INF)
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?   (no sign)
    if let Some(rest) = v.strip_prefix('.')
        && rest.starts_with(|c: char| c.is_ascii_digit())
    {
        let n = digits(rest, is_digit_);
        return exponent(&rest[n..]);
    }
    // [-+]?[0-9][0-9_]*  then  \.[0-9_]*(exp)?  or  (:[0-5]?[0-9])+\.[0-9_]*
    if !unsigned.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let n = digits(unsigned, is_digit_);
    let rest = &unsigned[n..];
    if let Some(frac) = rest.strip_prefix('.') {
        let m = digits(frac, is_digit_);
        return exponent(&frac[m..]);
    }
    let t = sexagesimal_tail(rest);
    if t > 0
        && let Some(frac) = rest[t..].strip_prefix('.')
    {
        return digits(frac, is_digit_) == frac.len();
    }
    false
}

/// `(?:[eE][-+][0-9]+)?$`
pub(super) fn exponent(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let Some(rest) = s.strip_prefix(['e', 'E']) else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(['-', '+']) else {
        return false;
    };
    !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit())
}

pub(super) fn is_int(v: &str) -> bool {
    let u = strip_sign(v);
    if let Some(b) = u.strip_prefix("0b") {
        return !b.is_empty() && b.chars().all(|c| matches!(c, '0' | '1' | '_'));
    }
    if let Some(x) = u.strip_prefix("0x") {
        return !x.is_empty() && x.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    if let Some(o) = u.strip_prefix('0') {
        // `0[0-7_]+` or the lone `0`
        return o.is_empty() || o.chars().all(|c| matches!(c, '0'..='7' | '_'));
    }
    if !u.starts_with(|c: char| matches!(c, '1'..='9')) {
        return false;
    }
    let n = digits(u, |c| c.is_ascii_digit() || c == '_');
    let rest = &u[n..];
    rest.is_empty() || (sexagesimal_tail(rest) == rest.len())
}

/// The implicit timestamp regex.
pub(super) fn is_timestamp(v: &str) -> bool {
    timestamp_parts(v).is_some_and(|p| p.implicit)
}

/// A timestamp's parts, as PyYAML's constructor reads them.
pub(super) struct Stamp {
    pub(super) year: i64,
    pub(super) month: i64,
    pub(super) day: i64,
    pub(super) time: Option<(i64, i64, i64, String)>,
    /// `None`: naive; `Some(None)`: `Z`; `Some(Some((sign, h, m)))`.
    pub(super) tz: Option<Option<(i64, i64, i64)>>,
    /// Whether the implicit resolver's (stricter) regex matches too.
    pub(super) implicit: bool,
}

pub(super) fn take_digits(s: &str, min: usize, max: usize) -> Option<(&str, &str)> {
    let n = digits(s, |c| c.is_ascii_digit()).min(max);
    (n >= min).then(|| (&s[..n], &s[n..]))
}

/// PyYAML's `timestamp_regexp` (the constructor's), noting whether the
/// implicit resolver's regex also matches.
pub(super) fn timestamp_parts(v: &str) -> Option<Stamp> {
    let (year, r) = take_digits(v, 4, 4)?;
    let r = r.strip_prefix('-')?;
    let (month, r) = take_digits(r, 1, 2)?;
    let r = r.strip_prefix('-')?;
    let (day, r) = take_digits(r, 1, 2)?;
    let date_only_implicit = month.len() == 2 && day.len() == 2;
    let num = |s: &str| s.parse::<i64>().unwrap_or(0);
    let mut stamp = Stamp {
        year: num(year),
        month: num(month),
        day: num(day),
        time: None,
        tz: None,
        implicit: date_only_implicit,
    };
    if r.is_empty() {
        return Some(stamp);
    }
    let r = if let Some(r) = r.strip_prefix(['T', 't']) {
        r
    } else {
        let n = digits(r, |c| c == ' ' || c == '\t');
        if n == 0 {
            return None;
        }
        &r[n..]
    };
    let (hour, r) = take_digits(r, 1, 2)?;
    let r = r.strip_prefix(':')?;
    let (minute, r) = take_digits(r, 2, 2)?;
    let r = r.strip_prefix(':')?;
    let (second, mut r) = take_digits(r, 2, 2)?;
    let mut fraction = String::new();
    if let Some(f) = r.strip_prefix('.') {
        let n = digits(f, |c| c.is_ascii_digit());
        fraction = f[..n].to_owned();
        r = &f[n..];
    }
    let n = digits(r, |c| c == ' ' || c == '\t');
    let tz_text = &r[n..];
    if tz_text.is_empty() {
        if n > 0 {
            return None;
        }
    } else if tz_text == "Z" {
        stamp.tz = Some(None);
    } else {
        let sign = if tz_text.starts_with('-') { -1 } else { 1 };
        let t = tz_text.strip_prefix(['-', '+'])?;
        let (h, t) = take_digits(t, 1, 2)?;
        let m = match t.strip_prefix(':') {
            Some(t) => {
                let (m, t) = take_digits(t, 2, 2)?;
                if !t.is_empty() {
                    return None;
                }
                num(m)
            }
            None if t.is_empty() => 0,
            None => return None,
        };
        stamp.tz = Some(Some((sign, num(h), m)));
    }
    stamp.time = Some((num(hour), num(minute), num(second), fraction));
    // The implicit regex: a date-time needs `YYYY-M?M-D?D` (no 2-digit
    // requirement), which the constructor's regex equally accepts.
    stamp.implicit = true;
    Some(stamp)
}
