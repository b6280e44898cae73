//! JSON with Python's `json.loads` rules (AWorld reads manifests with it):
//! `NaN`/`Infinity` accepted, a BOM refused, control characters in strings
//! refused, duplicate keys kept (lookups take the last), and Python's error
//! wording with `line L column C (char N)` positions.

use std::borrow::Cow;

use super::SyntaxError;
use crate::manifest::doc::{Entry, Node, Value};

/// Python's C scanner raises `RecursionError` when the interpreter's recursion
/// limit (1,000 frames, less the caller's own) runs out: 991 nested containers
/// pass under the parity harness, 992 fail. The host's exact limit depends on
/// its call stack (a few frames either way), so the parity sweep avoids 950–1,000.
const MAX_DEPTH: usize = 991;

/// Python's `int()` refuses decimal strings longer than this (`sys.get_int_max_str_digits()`).
const MAX_INT_DIGITS: usize = 4300;

/// Parse JSON text into a [`Node`] tree.
///
/// The parser recurses once per container; text that could nest deeply is
/// parsed on a thread with a stack big enough for [`MAX_DEPTH`] levels.
pub fn parse_json(text: &str) -> Result<Node<'_>, SyntaxError> {
    if text.bytes().filter(|b| matches!(b, b'[' | b'{')).count() <= 64 {
        return parse(text);
    }
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(s, || parse(text))
            .map_or_else(
                |_| parse(text),
                |h| h.join().expect("the JSON parser does not panic"),
            )
    })
}

fn parse(text: &str) -> Result<Node<'_>, SyntaxError> {
    let mut p = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    if text.starts_with('\u{feff}') {
        return Err(p.error("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0));
    }
    p.skip_ws();
    let node = p.value()?;
    p.skip_ws();
    if p.pos < p.bytes.len() {
        return Err(p.error("Extra data", p.pos));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// A Python-style error at byte `at`: `msg: line L column C (char N)`.
    fn error(&self, msg: &str, at: usize) -> SyntaxError {
        let at = at.min(self.text.len());
        let before = &self.text[..at];
        let char_index = before.chars().count();
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        let end = self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8());
        SyntaxError {
            exception: None,
            message: msg.to_owned(),
            display: format!("{msg}: line {line} column {col} (char {char_index})"),
            span: Some(at..end),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        let rest = &self.text[start..];
        let value = match self.bytes.get(start) {
            Some(b'{') => return self.nested("object", Self::object),
            Some(b'[') => return self.nested("array", Self::array),
            Some(b'"') => Value::Str(self.string()?),
            Some(b'-' | b'0'..=b'9') if !rest.starts_with("-Infinity") => return self.number(),
            _ => {
                let keywords: [(&str, Value); 6] = [
                    ("null", Value::Null),
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("NaN", Value::Float(f64::NAN)),
                    ("Infinity", Value::Float(f64::INFINITY)),
                    ("-Infinity", Value::Float(f64::NEG_INFINITY)),
                ];
                let Some((word, v)) = keywords.into_iter().find(|(w, _)| rest.starts_with(w))
                else {
                    return Err(self.error("Expecting value", start));
                };
                self.pos += word.len();
                v
            }
        };
        Ok(Node {
            span: start..self.pos,
            value,
        })
    }

    fn nested(
        &mut self,
        kind: &str,
        f: fn(&mut Self) -> Result<Node<'a>, SyntaxError>,
    ) -> Result<Node<'a>, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            // `RecursionError` has no position.
            let mut e = self.error("", self.pos);
            e.message = format!(
                "maximum recursion depth exceeded while decoding a JSON {kind} from a unicode string"
            );
            e.display = e.message.clone();
            return Err(e);
        }
        let node = f(self);
        self.depth -= 1;
        node
    }

    fn object(&mut self) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut entries = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Node {
                span: start..self.pos,
                value: Value::Table(entries),
            });
        }
        loop {
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error(
                    "Expecting property name enclosed in double quotes",
                    self.pos,
                ));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = key_start..self.pos;
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error("Expecting ':' delimiter", self.pos));
            }
            self.pos += 1;
            self.skip_ws();
            let node = self.value()?;
            entries.push(Entry {
                key,
                key_span,
                node,
            });
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Node {
                        span: start..self.pos,
                        value: Value::Table(entries),
                    });
                }
                _ => return Err(self.error("Expecting ',' delimiter", self.pos)),
            }
        }
    }

    fn array(&mut self) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Node {
                span: start..self.pos,
                value: Value::Array(items),
            });
        }
        loop {
            items.push(self.value()?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => {
                    self.pos += 1;
                    self.skip_ws();
                }
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Node {
                        span: start..self.pos,
                        value: Value::Array(items),
                    });
                }
                _ => return Err(self.error("Expecting ',' delimiter", self.pos)),
            }
        }
    }

    fn number(&mut self) -> Result<Node<'a>, SyntaxError> {
        let start = self.pos;
        let b = self.bytes;
        let mut i = start;
        if b.get(i) == Some(&b'-') {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            _ => return Err(self.error("Expecting value", start)),
        }
        let mut float = false;
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            float = true;
            i += 1;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if b.get(j).is_some_and(u8::is_ascii_digit) {
                float = true;
                i = j;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
        }
        let text = &self.text[start..i];
        let digits = text.trim_start_matches('-').len();
        if !float && digits > MAX_INT_DIGITS {
            // `int(s)` raises a ValueError that escapes `json.loads` unpositioned.
            let mut e = self.error("", start);
            e.span = Some(start..i);
            e.message = format!(
                "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
            );
            e.display = e.message.clone();
            return Err(e);
        }
        self.pos = i;
        let value = if float {
            Value::Float(text.parse().unwrap_or(f64::NAN))
        } else {
            // Python ints are unbounded; past i64 keep the exact text.
            text.parse::<i64>()
                .map_or_else(|_| Value::BigInt(text.to_owned()), Value::Int)
        };
        Ok(Node {
            span: start..i,
            value,
        })
    }

    /// A string, borrowed from the text unless it holds an escape.
    fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        // Owned from the first escape on.
        let mut decoded: Option<String> = None;
        loop {
            // A run with nothing to decode (no quote, backslash or control character) is
            // taken whole; it ends at an ASCII byte, so on a character boundary.
            let run = self.bytes[self.pos..]
                .iter()
                .position(|b| matches!(b, b'"' | b'\\' | 0..0x20))
                .unwrap_or(self.bytes.len() - self.pos);
            let text: &'a str = &self.text[self.pos..self.pos + run];
            self.pos += run;
            match self.bytes.get(self.pos) {
                None => return Err(self.error("Unterminated string starting at", start)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(match decoded {
                        None => Cow::Borrowed(text),
                        Some(mut out) => {
                            out.push_str(text);
                            Cow::Owned(out)
                        }
                    });
                }
                Some(b'\\') => {
                    let out = decoded.get_or_insert_with(String::new);
                    out.push_str(text);
                    let esc_at = self.pos;
                    self.pos += 1;
                    let Some(e) = self.bytes.get(self.pos).copied() else {
                        return Err(self.error("Unterminated string starting at", start));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape(esc_at)?),
                        _ => return Err(self.error("Invalid \\escape", esc_at)),
                    }
                }
                Some(_) => {
                    return Err(self.error("Invalid control character at", self.pos));
                }
            }
        }
    }

    /// Four hex digits after `\u` (at byte `u_at`). Python reports the error at
    /// the `u`, and also when the digits would end the text (`end >= len`).
    fn hex4(&mut self, u_at: usize) -> Result<u32, SyntaxError> {
        let digits = self
            .text
            .get(self.pos..self.pos + 4)
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .filter(|_| self.pos + 4 < self.bytes.len());
        let Some(digits) = digits else {
            return Err(self.error("Invalid \\uXXXX escape", u_at));
        };
        self.pos += 4;
        Ok(u32::from_str_radix(digits, 16).unwrap_or(0))
    }

    /// `\uXXXX`, joining surrogate pairs; a lone surrogate (legal in Python) is kept as
    /// its [`crate::manifest::pyval::surrogate`] stand-in, as the YAML reader keeps
    /// PyYAML's: the host fails on it where it encodes the string (a path, issue #42).
    fn unicode_escape(&mut self, esc_at: usize) -> Result<char, SyntaxError> {
        let hi = self.hex4(esc_at + 1)?;
        // Python tries a pair only when a character follows it (`end + 6 < len`).
        if (0xD800..0xDC00).contains(&hi)
            && self.text[self.pos..].starts_with("\\u")
            && self.bytes.len() > self.pos + 6
        {
            let save = self.pos;
            self.pos += 2;
            let lo = self.hex4(save + 1)?;
            if (0xDC00..0xE000).contains(&lo) {
                return Ok(
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        .unwrap_or('\u{fffd}'),
                );
            }
            self.pos = save;
        }
        Ok(char::from_u32(hi).unwrap_or_else(|| crate::manifest::pyval::surrogate(hi)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_duplicates() {
        let text = r#"{"id": "a", "n": [1, 2.5, -3e2], "id": "b"}"#;
        let root = parse_json(text).unwrap();
        assert_eq!(
            root.get("id").unwrap().node.as_str(),
            Some("b"),
            "last duplicate wins"
        );
        let n = &root.get("n").unwrap().node;
        assert_eq!(&text[n.span.clone()], "[1, 2.5, -3e2]");
        let Value::Array(items) = &n.value else {
            panic!()
        };
        assert_eq!(items[0].value, Value::Int(1));
        assert_eq!(items[2].value, Value::Float(-300.0));
        assert_eq!(
            &text[root.as_table().unwrap()[0].key_span.clone()],
            "\"id\""
        );
    }

    #[test]
    fn python_extensions_and_errors() {
        assert!(matches!(parse_json("NaN").unwrap().value, Value::Float(x) if x.is_nan()));
        assert_eq!(
            parse_json("-Infinity").unwrap().value,
            Value::Float(f64::NEG_INFINITY)
        );
        let e = parse_json("").unwrap_err();
        assert_eq!(e.display, "Expecting value: line 1 column 1 (char 0)");
        let e = parse_json("{\"a\": 1,}").unwrap_err();
        assert_eq!(
            e.display,
            "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"
        );
        let e = parse_json("{\"a\" 1}").unwrap_err();
        assert_eq!(e.message, "Expecting ':' delimiter");
        let e = parse_json("[1 2]").unwrap_err();
        assert_eq!(e.message, "Expecting ',' delimiter");
        let e = parse_json("{} x").unwrap_err();
        assert_eq!(e.display, "Extra data: line 1 column 4 (char 3)");
        let e = parse_json("\u{feff}{}").unwrap_err();
        assert!(e.display.starts_with("Unexpected UTF-8 BOM"));
        let e = parse_json("\"a\nb\"").unwrap_err();
        assert_eq!(e.message, "Invalid control character at");
        let e = parse_json("// c\n{}").unwrap_err();
        assert_eq!(e.message, "Expecting value");
    }

    #[test]
    fn escapes() {
        let root = parse_json(r#""\u00e9\ud83d\ude00\n""#).unwrap();
        assert_eq!(root.as_str(), Some("é😀\n"));
        assert_eq!(
            parse_json(r#""\x""#).unwrap_err().message,
            "Invalid \\escape"
        );
    }

    #[test]
    fn python_int_digit_limit_and_escape_positions() {
        let e = parse_json(&format!("[1, -{}]", "9".repeat(4301))).unwrap_err();
        assert_eq!(
            e.display,
            "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"
        );
        assert!(parse_json(&format!("[{}]", "9".repeat(4300))).is_ok());
        // The position is the `u`, as in `json.loads`.
        let e = parse_json(r#"["\u12G4"]"#).unwrap_err();
        assert_eq!(
            e.display,
            r"Invalid \uXXXX escape: line 1 column 4 (char 3)"
        );
        let e = parse_json(r#"["\ud800\u12G4"]"#).unwrap_err();
        assert_eq!(
            e.display,
            r"Invalid \uXXXX escape: line 1 column 10 (char 9)"
        );
        // Digits that would end the text are an escape error, not an unterminated string.
        let e = parse_json(r#""\u0041"#).unwrap_err();
        assert_eq!(
            e.display,
            r"Invalid \uXXXX escape: line 1 column 3 (char 2)"
        );
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(100_000);
        let e = parse_json(&deep).unwrap_err();
        assert_eq!(
            e.display,
            "maximum recursion depth exceeded while decoding a JSON array from a unicode string"
        );
        // Python's recursion limit, not an arbitrary 512, bounds what AWorld reads.
        let ok = format!("{}{}", "[".repeat(991), "]".repeat(991));
        assert!(parse_json(&ok).is_ok());
        let e = parse_json(&format!(
            "{{\"a\": {}1{}}}",
            "[".repeat(991),
            "]".repeat(991)
        ))
        .unwrap_err();
        assert!(
            e.display.starts_with("maximum recursion depth exceeded"),
            "{}",
            e.display
        );
    }
}
