//! PyYAML's `SafeConstructor` for scalars: timestamps, ints, floats,
//! booleans and binary, with the exceptions it raises.

use super::*;

pub(super) fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// `repr(datetime.timedelta(...))` for a whole number of seconds.
pub(super) fn timedelta_repr(total: i64) -> String {
    let days = total.div_euclid(86_400);
    let seconds = total.rem_euclid(86_400);
    match (days, seconds) {
        (0, 0) => "datetime.timedelta(0)".to_owned(),
        (0, s) => format!("datetime.timedelta(seconds={s})"),
        (d, 0) => format!("datetime.timedelta(days={d})"),
        (d, s) => format!("datetime.timedelta(days={d}, seconds={s})"),
    }
}

/// `construct_yaml_timestamp`, then `str()` of the date or datetime.
pub(super) fn construct_timestamp(value: &str, span: &Span) -> Result<String, SyntaxError> {
    let Some(p) = timestamp_parts(value) else {
        return Err(raise(
            "AttributeError",
            "'NoneType' object has no attribute 'groupdict'".to_owned(),
            span.clone(),
        ));
    };
    let value_error = |m: String| raise("ValueError", m, span.clone());
    let check_date = || -> Result<(), SyntaxError> {
        if !(1..=9999).contains(&p.year) {
            return Err(value_error(format!("year {} is out of range", p.year)));
        }
        if !(1..=12).contains(&p.month) {
            return Err(value_error("month must be in 1..12".to_owned()));
        }
        if p.day < 1 || p.day > days_in_month(p.year, p.month) {
            return Err(value_error("day is out of range for month".to_owned()));
        }
        Ok(())
    };
    let Some((hour, minute, second, fraction)) = &p.time else {
        check_date()?;
        return Ok(format!("{:04}-{:02}-{:02}", p.year, p.month, p.day));
    };
    // The timezone is built before the datetime, so its error comes first.
    let offset = match p.tz {
        Some(Some((sign, h, m))) => {
            let total = sign * (h * 3600 + m * 60);
            if total.abs() >= 86_400 {
                return Err(value_error(format!(
                    "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not {}.",
                    timedelta_repr(total)
                )));
            }
            Some(total)
        }
        Some(None) => Some(0),
        None => None,
    };
    check_date()?;
    if !(0..=23).contains(hour) {
        return Err(value_error("hour must be in 0..23".to_owned()));
    }
    if !(0..=59).contains(minute) {
        return Err(value_error("minute must be in 0..59".to_owned()));
    }
    if !(0..=59).contains(second) {
        return Err(value_error("second must be in 0..59".to_owned()));
    }
    let mut out = format!(
        "{:04}-{:02}-{:02} {hour:02}:{minute:02}:{second:02}",
        p.year, p.month, p.day
    );
    let mut micro: String = fraction.chars().take(6).collect();
    while !micro.is_empty() && micro.len() < 6 {
        micro.push('0');
    }
    if !micro.is_empty() && micro != "000000" {
        out.push('.');
        out.push_str(&micro);
    }
    if let Some(total) = offset {
        let sign = if total < 0 { '-' } else { '+' };
        let a = total.abs();
        out.push_str(&format!("{sign}{:02}:{:02}", a / 3600, (a % 3600) / 60));
    }
    Ok(out)
}

/// Python's `int(s, base)` for PyYAML's already-validated digits.
pub(super) fn big_int(sign: i64, digits: &str, base: u32) -> Value<'static> {
    if let Ok(v) = i64::from_str_radix(digits, base) {
        return Value::Int(sign * v);
    }
    // Past i64: the exact decimal text, as `str()` prints it.
    let mut acc: Vec<u32> = vec![0]; // base 1e9 limbs, little-endian
    for c in digits.chars() {
        let mut carry = c.to_digit(base).unwrap_or(0) as u64;
        for limb in &mut acc {
            let v = u64::from(*limb) * u64::from(base) + carry;
            *limb = (v % 1_000_000_000) as u32;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            acc.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
    }
    let mut text = if sign < 0 {
        "-".to_owned()
    } else {
        String::new()
    };
    text.push_str(&acc.last().copied().unwrap_or(0).to_string());
    for limb in acc.iter().rev().skip(1) {
        text.push_str(&format!("{limb:09}"));
    }
    Value::BigInt(text)
}

pub(super) fn construct_int(value: &str, span: &Span) -> Result<Value<'static>, SyntaxError> {
    let v = value.replace('_', "");
    let invalid = |base: u32, s: &str| {
        raise(
            "ValueError",
            format!(
                "invalid literal for int() with base {base}: {}",
                crate::manifest::pyval::repr_str(s)
            ),
            span.clone(),
        )
    };
    if v.is_empty() {
        return Err(raise(
            "IndexError",
            "string index out of range".to_owned(),
            span.clone(),
        ));
    }
    let sign = if v.starts_with('-') { -1 } else { 1 };
    let u = v.strip_prefix(['-', '+']).unwrap_or(&v);
    if u == "0" {
        return Ok(Value::Int(0));
    }
    let ok = |s: &str, base: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(base));
    if let Some(b) = u.strip_prefix("0b") {
        return if ok(b, 2) {
            Ok(big_int(sign, b, 2))
        } else {
            Err(invalid(2, b))
        };
    }
    if let Some(x) = u.strip_prefix("0x") {
        return if ok(x, 16) {
            Ok(big_int(sign, x, 16))
        } else {
            Err(invalid(16, x))
        };
    }
    if u.starts_with('0') {
        return if ok(u, 8) {
            Ok(big_int(sign, u, 8))
        } else {
            Err(invalid(8, u))
        };
    }
    if u.contains(':') {
        let mut total: i128 = 0;
        for part in u.split(':') {
            let Ok(d) = part.parse::<i128>() else {
                return Err(invalid(10, part));
            };
            total = total.saturating_mul(60).saturating_add(d);
        }
        let total = total * i128::from(sign);
        return Ok(
            i64::try_from(total).map_or_else(|_| Value::BigInt(total.to_string()), Value::Int)
        );
    }
    if ok(u, 10) {
        if u.len() > 4300 {
            return Err(raise(
                "ValueError",
                format!(
                    "Exceeds the limit (4300 digits) for integer string conversion: value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
                    u.len()
                ),
                span.clone(),
            ));
        }
        Ok(big_int(sign, u, 10))
    } else {
        Err(invalid(10, u))
    }
}

/// Python's `float(s)` for what PyYAML hands it.
pub(super) fn py_float(s: &str) -> Option<f64> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        let neg = lower.starts_with('-');
        let v = if unsigned == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Some(if neg { -v } else { v });
    }
    if t.is_empty()
        || !t
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

pub(super) fn construct_float(value: &str, span: &Span) -> Result<Value<'static>, SyntaxError> {
    let v = value.replace('_', "").to_lowercase();
    if v.is_empty() {
        return Err(raise(
            "IndexError",
            "string index out of range".to_owned(),
            span.clone(),
        ));
    }
    let sign = if v.starts_with('-') { -1.0 } else { 1.0 };
    let u = v.strip_prefix(['-', '+']).unwrap_or(&v);
    let cannot = |s: &str| {
        raise(
            "ValueError",
            format!(
                "could not convert string to float: {}",
                crate::manifest::pyval::repr_str(s)
            ),
            span.clone(),
        )
    };
    if u == ".inf" {
        return Ok(Value::Float(sign * f64::INFINITY));
    }
    if u == ".nan" {
        return Ok(Value::Float(f64::NAN));
    }
    if u.contains(':') {
        let mut total = 0.0;
        for part in u.split(':') {
            let d = py_float(part).ok_or_else(|| cannot(part))?;
            total = total * 60.0 + d;
        }
        return Ok(Value::Float(sign * total));
    }
    py_float(u)
        .map(|f| Value::Float(sign * f))
        .ok_or_else(|| cannot(u))
}

pub(super) fn construct_bool(value: &str, span: &Span) -> Result<Value<'static>, SyntaxError> {
    match value.to_lowercase().as_str() {
        "yes" | "true" | "on" => Ok(Value::Bool(true)),
        "no" | "false" | "off" => Ok(Value::Bool(false)),
        other => Err(raise(
            "KeyError",
            crate::manifest::pyval::repr_str(other),
            span.clone(),
        )),
    }
}

/// `str(bytes)` of base64-decoded text (`!!binary`).
pub(super) fn construct_binary(value: &str, span: &Span) -> Result<Value<'static>, SyntaxError> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if !value.is_ascii() {
        return Err(constructor_error(
            "failed to convert base64 data into ascii".to_owned(),
            span.clone(),
        ));
    }
    // `base64.decodebytes` skips characters outside the alphabet.
    let sextets: Vec<u8> = value
        .bytes()
        .take_while(|b| *b != b'=')
        .filter_map(|b| ALPHABET.iter().position(|a| *a == b).map(|p| p as u8))
        .collect();
    if sextets.len() % 4 == 1 {
        return Err(constructor_error(
            "failed to decode base64 data: Incorrect padding".to_owned(),
            span.clone(),
        ));
    }
    let mut bytes = Vec::new();
    for chunk in sextets.chunks(4) {
        let mut n: u32 = 0;
        for (i, s) in chunk.iter().enumerate() {
            n |= u32::from(*s) << (18 - 6 * i);
        }
        let count = chunk.len() * 6 / 8;
        for i in 0..count {
            bytes.push((n >> (16 - 8 * i)) as u8);
        }
    }
    let mut out = String::from("b'");
    for b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    Ok(Value::Str(out.into()))
}
