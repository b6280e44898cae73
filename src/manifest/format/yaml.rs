//! YAML as protoAgent reads it: PyYAML's `safe_load` (YAML 1.1).
//!
//! The event parser is serde-saphyr's (`granit_parser`); building values is
//! ours and follows PyYAML's `Resolver` and `SafeConstructor` exactly:
//! - plain scalars resolve by PyYAML's regexes: `017` is 15 (octal), `08` and
//!   `1e3` are strings, `12:30` is 750 (sexagesimal), `1_000` is 1000,
//!   `yes`/`on` are booleans but `y`/`n` are strings, `~`/`null`/empty are None,
//!   `2001-01-01` is a date;
//! - explicit tags: the `!!` core tags PyYAML's safe constructor knows
//!   (`str int float bool null binary timestamp seq map set omap pairs`), and
//!   the non-specific `!`; any other tag (`!!python/…`, `!foo`) is PyYAML's
//!   "could not determine a constructor" error;
//! - unhashable keys (a list or mapping as key), `<<` merge keys, and
//!   duplicate keys (all kept so they can be linted; lookups take the last).
//!
//! Values the constructors cannot build raise Python exceptions PyYAML does not
//! wrap (`2001-13-45`: `ValueError: month must be in 1..12`; `!!bool maybe`:
//! `KeyError`); they come back as a [`SyntaxError`] with `exception` set.
//!
//! Deliberately unlike PyYAML: alias expansion is bounded (a billion-laughs
//! manifest is an error, not an out-of-memory kill) and so is nesting (255
//! levels, where Python would hit its recursion limit near 1,000).

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, ScanError, Span as PSpan, Tag};

use super::SyntaxError;
use crate::diagnostic::Span;
use crate::manifest::doc::{Entry, Node, Value};

/// Nodes an alias may expand to, in total, before the document is refused.
const ALIAS_BUDGET: usize = 100_000;

/// Parse YAML text (one document; empty means an empty mapping's absence: null).
pub fn parse_yaml(text: &str) -> Result<Node, SyntaxError> {
    if let Some(e) = pyyaml_reader_refusal(text) {
        return Err(e);
    }
    // The host reads with universal newlines: a lone CR is a `\n` (same length).
    let universal;
    let text = if text.contains('\r') {
        universal = lone_cr_to_lf(text);
        universal.as_str()
    } else {
        text
    };
    // PyYAML skips one BOM, at index 0; the event parser skips any in the
    // document prefix. A second one is content: read it as a private-use
    // character of the same length, restored once the value is built.
    let doubled;
    let bom2 = text.starts_with("\u{feff}\u{feff}") && !text.contains('\u{e000}');
    let text = if bom2 {
        doubled = format!("\u{feff}\u{e000}{}", &text[6..]);
        doubled.as_str()
    } else {
        text
    };
    let breaks;
    let text = if text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        let flow_quoted: Vec<Span> = compose(text)
            .map(|(_, q)| {
                q.into_iter()
                    .filter(|(_, block)| !block)
                    .map(|(r, _)| r)
                    .collect()
            })
            .unwrap_or_default();
        breaks = yaml11_breaks(text, &flow_quoted);
        breaks.as_str()
    } else {
        text
    };
    let (raw, quoted) = compose(text)?;
    pyyaml_scanner_refusal(text, &quoted)?;
    let Some(raw) = raw else {
        return Ok(Node {
            span: 0..0,
            value: Value::Null,
        });
    };
    let mut budget = ALIAS_BUDGET;
    let mut node = construct(&raw, &mut budget)?;
    if bom2 {
        let restore = |s: &mut String| {
            if let Some(rest) = s.strip_prefix('\u{e000}') {
                *s = format!("\u{feff}{rest}");
            }
        };
        match &mut node.value {
            Value::Table(entries) => {
                if let Some(e) = entries.iter_mut().find(|e| e.key_span.start == 3) {
                    restore(&mut e.key);
                }
            }
            Value::Str(s) if node.span.start == 3 => restore(s),
            _ => {}
        }
    }
    Ok(node)
}

/// What PyYAML's reader and scanner refuse that the event parser accepts.
fn pyyaml_reader_refusal(text: &str) -> Option<SyntaxError> {
    // PyYAML's Reader: only printable characters (a BOM only as the first).
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((at, c)) = body.char_indices().find(|(_, c)| !printable(*c)) {
        let at = at + (text.len() - body.len());
        return Some(error_at(
            text,
            &format!(
                "unacceptable character #x{:04x}: special characters are not allowed",
                u32::from(c)
            ),
            at,
        ));
    }
    None
}

fn lone_cr_to_lf(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '\r' && b.get(i + 1) != Some(&b'\n') {
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// YAML 1.1 line breaks the event parser reads as content: U+0085 becomes
/// `\r\n`, U+2028 and U+2029 ` \r\n` (same length, so spans hold), except
/// inside quoted scalars (`flow_quoted`), where PyYAML keeps them too.
fn yaml11_breaks(text: &str, flow_quoted: &[Span]) -> String {
    let inside = |at: usize| flow_quoted.iter().any(|r| r.start <= at && at < r.end);
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        match c {
            '\u{85}' if !inside(i) => out.push_str("\r\n"),
            '\u{2028}' | '\u{2029}' if !inside(i) => out.push_str(" \r\n"),
            c => out.push(c),
        }
    }
    out
}

/// A tab PyYAML's scanner refuses: anywhere but inside a quoted or block
/// scalar (`quoted`) or a comment. PyYAML skips only spaces between tokens
/// and ends plain scalars at tabs.
fn pyyaml_scanner_refusal(text: &str, quoted: &[(Span, bool)]) -> Result<(), SyntaxError> {
    let inside = |at: usize| quoted.iter().any(|(r, _)| r.start <= at && at < r.end);
    let mut comment = false;
    let mut prev = '\n';
    for (i, c) in text.char_indices() {
        if inside(i) {
            prev = c;
            continue;
        }
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => comment = false,
            '#' if matches!(prev, ' ' | '\t' | '\n' | '\r' | '\u{feff}') => comment = true,
            '\t' if !comment => {
                return Err(error_at(
                    text,
                    "found character '\\t' that cannot start any token",
                    i,
                ));
            }
            _ => {}
        }
        prev = c;
    }
    Ok(())
}

/// PyYAML's `Reader.NON_PRINTABLE` complement.
fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{85}')
        || ('\u{20}'..='\u{7e}').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
        || ('\u{10000}'..='\u{10ffff}').contains(&c)
}

fn error_at(text: &str, message: &str, at: usize) -> SyntaxError {
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    SyntaxError {
        message: message.to_owned(),
        display: message.to_owned(),
        span: Some(at..end),
        exception: None,
    }
}

/// A composed node, before construction (PyYAML's node graph).
#[derive(Clone, Debug)]
enum Raw {
    Scalar {
        value: String,
        plain: bool,
        tag: Option<String>,
        span: Span,
    },
    Seq {
        items: Vec<Raw>,
        tag: Option<String>,
        span: Span,
    },
    Map {
        pairs: Vec<(Raw, Raw)>,
        tag: Option<String>,
        span: Span,
    },
}

impl Raw {
    fn span(&self) -> Span {
        match self {
            Raw::Scalar { span, .. } | Raw::Seq { span, .. } | Raw::Map { span, .. } => {
                span.clone()
            }
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Raw::Scalar { .. } => "scalar",
            Raw::Seq { .. } => "sequence",
            Raw::Map { .. } => "mapping",
        }
    }
    fn size(&self) -> usize {
        match self {
            Raw::Scalar { .. } => 1,
            Raw::Seq { items, .. } => 1 + items.iter().map(Raw::size).sum::<usize>(),
            Raw::Map { pairs, .. } => {
                1 + pairs
                    .iter()
                    .map(|(k, v)| k.size() + v.size())
                    .sum::<usize>()
            }
        }
    }
}

fn byte_span(span: &PSpan) -> Span {
    let start = span.start.byte_offset().unwrap_or(0);
    let end = span.end.byte_offset().unwrap_or(start).max(start);
    start..end
}

fn full_tag(tag: &Tag) -> String {
    format!("{}{}", tag.handle(), tag.suffix())
}

fn scan_error(text: &str, e: &ScanError) -> SyntaxError {
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let message = e.info();
    let mut err = error_at(text, &message, at);
    err.display = e.to_string();
    err
}

/// Frames of the collection being composed.
enum Frame {
    /// Items, tag, anchor, start, and whether it is a flow sequence.
    Seq(Vec<Raw>, Option<String>, usize, usize, bool),
    /// Pairs, a pending key, tag, anchor, start, and whether it is a flow mapping.
    Map(
        Vec<(Raw, Raw)>,
        Option<Raw>,
        Option<String>,
        usize,
        usize,
        bool,
    ),
}

/// Composed document and the byte ranges of its quoted and block scalars
/// (`true` for block scalars).
type Composed = (Option<Raw>, Vec<(Span, bool)>);

/// Events into one document's node graph (`None` for an empty stream).
fn compose(text: &str) -> Result<Composed, SyntaxError> {
    // libyaml's (and so PyYAML's) readings: a BOM past the start is content,
    // and a block scalar ending the file gets no line feed.
    let options = serde_saphyr::granit_parser::options! {
        block_scalar_eof_without_line_feed: true,
        bom_inside_document_as_content: true,
    };
    let mut quoted: Vec<(Span, bool)> = Vec::new();
    let mut anchors: Vec<(usize, Raw)> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Raw> = None;
    let mut documents = 0;
    let mut expanded = 0usize;
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|e| scan_error(text, &e))?;
        let node = match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    let at = byte_span(&span).start;
                    return Err(error_at(
                        text,
                        "expected a single document in the stream",
                        at,
                    ));
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                let flow = stack.iter().any(|f| match f {
                    Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
                });
                match style {
                    ScalarStyle::Plain => {
                        // In flow context PyYAML ends a plain scalar at `?`,
                        // then finds a key indicator it cannot parse there.
                        let src = &text[byte_span(&span)];
                        if flow && let Some(q) = src.get(1..).and_then(|r| r.find('?')) {
                            return Err(error_at(
                                text,
                                "while parsing a flow node: found unexpected '?'",
                                byte_span(&span).start + 1 + q,
                            ));
                        }
                    }
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        quoted.push((byte_span(&span), false));
                    }
                    _ => quoted.push((byte_span(&span), true)),
                }
                let node = Raw::Scalar {
                    value: value.into_owned(),
                    plain: style == ScalarStyle::Plain,
                    tag: tag.map(|t| full_tag(&t)),
                    span: byte_span(&span),
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            Event::Alias(id) => {
                let node = anchors
                    .iter()
                    .rev()
                    .find(|(a, _)| *a == id)
                    .map(|(_, n)| n.clone())
                    .ok_or_else(|| {
                        error_at(text, "found undefined alias", byte_span(&span).start)
                    })?;
                expanded += node.size();
                if expanded > ALIAS_BUDGET {
                    return Err(error_at(
                        text,
                        "alias expansion budget exceeded (a billion-laughs document?)",
                        byte_span(&span).start,
                    ));
                }
                node
            }
            Event::SequenceStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                stack.push(Frame::Seq(
                    Vec::new(),
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::MappingStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                stack.push(Frame::Map(
                    Vec::new(),
                    None,
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end = byte_span(&span).end;
                let (node, anchor) = match stack.pop() {
                    Some(Frame::Seq(items, tag, anchor, start, _)) => (
                        Raw::Seq {
                            items,
                            tag,
                            span: start..end.max(start),
                        },
                        anchor,
                    ),
                    Some(Frame::Map(pairs, _, tag, anchor, start, _)) => (
                        Raw::Map {
                            pairs,
                            tag,
                            span: start..end.max(start),
                        },
                        anchor,
                    ),
                    None => continue,
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            _ => continue,
        };
        match stack.last_mut() {
            Some(Frame::Seq(items, ..)) => items.push(node),
            Some(Frame::Map(pairs, key, _, _, _, flow)) => match key.take() {
                Some(k) => pairs.push((k, node)),
                None => {
                    // An empty implicit key (`: 1` on its own line) is PyYAML's
                    // "expected <block end>, but found ':'".
                    if !*flow
                        && let Raw::Scalar {
                            plain: true,
                            tag: None,
                            span,
                            ..
                        } = &node
                        && span.is_empty()
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a block mapping: expected <block end>, but found ':'",
                            span.start,
                        ));
                    }
                    // PyYAML's simple keys are single-line, in flow mappings too.
                    if *flow
                        && let Raw::Scalar { span, .. } = &node
                        && text[span.clone()].contains(['\n', '\r'])
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a flow mapping: expected ',' or '}', but got a multi-line key",
                            span.start,
                        ));
                    }
                    *key = Some(node);
                }
            },
            None => root = Some(node),
        }
    }
    Ok((root, quoted))
}

const CORE: &str = "tag:yaml.org,2002:";

/// A Python exception escaping PyYAML (not a `YAMLError`).
fn raise(exception: &'static str, message: String, span: Span) -> SyntaxError {
    SyntaxError {
        display: message.clone(),
        message,
        span: Some(span),
        exception: Some(exception),
    }
}

/// A PyYAML `ConstructorError` (a `YAMLError`: the host's "unreadable manifest").
fn constructor_error(message: String, span: Span) -> SyntaxError {
    SyntaxError {
        display: message.clone(),
        message,
        span: Some(span),
        exception: None,
    }
}

/// The tag PyYAML resolves a node to.
fn resolved_tag(raw: &Raw) -> String {
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
fn implicit(v: &str) -> &'static str {
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

fn is_bool(v: &str) -> bool {
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
fn digits(s: &str, ok: impl Fn(char) -> bool) -> usize {
    s.char_indices()
        .find(|(_, c)| !ok(*c))
        .map_or(s.len(), |(i, _)| i)
}

fn strip_sign(v: &str) -> &str {
    v.strip_prefix(['-', '+']).unwrap_or(v)
}

/// `(?::[0-5]?[0-9])+` at the start of `s`: how much it matches (greedy, whole groups).
fn sexagesimal_tail(s: &str) -> usize {
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

fn is_float(v: &str) -> bool {
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
fn exponent(s: &str) -> bool {
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

fn is_int(v: &str) -> bool {
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
fn is_timestamp(v: &str) -> bool {
    timestamp_parts(v).is_some_and(|p| p.implicit)
}

struct Stamp {
    year: i64,
    month: i64,
    day: i64,
    time: Option<(i64, i64, i64, String)>,
    /// `None`: naive; `Some(None)`: `Z`; `Some(Some((sign, h, m)))`.
    tz: Option<Option<(i64, i64, i64)>>,
    /// Whether the implicit resolver's (stricter) regex matches too.
    implicit: bool,
}

fn take_digits(s: &str, min: usize, max: usize) -> Option<(&str, &str)> {
    let n = digits(s, |c| c.is_ascii_digit()).min(max);
    (n >= min).then(|| (&s[..n], &s[n..]))
}

/// PyYAML's `timestamp_regexp` (the constructor's), noting whether the
/// implicit resolver's regex also matches.
fn timestamp_parts(v: &str) -> Option<Stamp> {
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

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// `repr(datetime.timedelta(...))` for a whole number of seconds.
fn timedelta_repr(total: i64) -> String {
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
fn construct_timestamp(value: &str, span: &Span) -> Result<String, SyntaxError> {
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
fn big_int(sign: i64, digits: &str, base: u32) -> Value {
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

fn construct_int(value: &str, span: &Span) -> Result<Value, SyntaxError> {
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
fn py_float(s: &str) -> Option<f64> {
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

fn construct_float(value: &str, span: &Span) -> Result<Value, SyntaxError> {
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

fn construct_bool(value: &str, span: &Span) -> Result<Value, SyntaxError> {
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
fn construct_binary(value: &str, span: &Span) -> Result<Value, SyntaxError> {
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
    Ok(Value::Str(out))
}

/// PyYAML's `construct_object` for the safe constructor.
fn construct(raw: &Raw, budget: &mut usize) -> Result<Node, SyntaxError> {
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
            // SafeConstructor.construct_scalar reads a mapping's `=` value.
            let (_, v) = pairs
                .iter()
                .find(|(k, _)| matches!(k, Raw::Scalar { value, plain: true, tag: None, .. } if value == "="))
                .unwrap();
            let mut inner = v.clone();
            if let Raw::Scalar { tag, plain, .. } = &mut inner {
                *tag = Some(tag.clone().unwrap_or_else(|| format!("{CORE}{kind}")));
                *plain = false;
            }
            return construct(&inner, budget).map(|n| Node {
                span,
                value: n.value,
            });
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
        ("str", Raw::Scalar { value, .. }) => Value::Str(value.clone()),
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
        ("omap" | "pairs", Raw::Seq { items, .. }) => {
            // A list of (key, value) tuples; rendered as such by `str()`.
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
            Value::Array(out)
        }
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

fn undefined(tag: &str, span: Span) -> SyntaxError {
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
fn flatten(pairs: &[(Raw, Raw)], span: &Span) -> Result<Vec<(Raw, Raw)>, SyntaxError> {
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

fn mapping(raw: &Raw, budget: &mut usize) -> Result<Node, SyntaxError> {
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
                value: Value::Str("=".to_owned()),
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
            _ => crate::manifest::pyval::py_str(&key),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(text: &str) -> Value {
        parse_yaml(&format!("v: {text}\n"))
            .unwrap()
            .get("v")
            .unwrap()
            .node
            .value
            .clone()
    }

    fn str_of(text: &str) -> String {
        let root = parse_yaml(&format!("v: {text}\n")).unwrap();
        crate::manifest::pyval::py_str(&root.get("v").unwrap().node)
    }

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
    fn pyyaml_implicit_resolution() {
        for (text, want) in [
            ("017", "15"),
            ("08", "08"),
            ("0o17", "0o17"),
            ("0x1F", "31"),
            ("-0b101", "-5"),
            ("12:30", "750"),
            ("1:60", "1:60"),
            ("190:20:30", "685230"),
            ("1_000", "1000"),
            ("0_", "0"),
            ("1e3", "1e3"),
            ("1.0e+3", "1000.0"),
            ("1e+300", "1e+300"),
            ("1.0e+300", "1e+300"),
            ("685.230_15e+03", "685230.15"),
            ("12:30.5", "750.5"),
            ("+.5", "+.5"),
            (".5", "0.5"),
            ("1.", "1.0"),
            (".nan", "nan"),
            ("-.inf", "-inf"),
            ("y", "y"),
            ("n", "n"),
            ("yes", "True"),
            ("Off", "False"),
            ("tRUE", "tRUE"),
            ("~", "None"),
            ("null", "None"),
            ("nULL", "nULL"),
            ("", "None"),
            ("2001-01-01", "2001-01-01"),
            ("2001-1-1", "2001-1-1"),
            (
                "2001-12-14t21:59:43.10-05:00",
                "2001-12-14 21:59:43.100000-05:00",
            ),
            ("2001-12-15 2:59:43.1234567", "2001-12-15 02:59:43.123456"),
            ("2001-12-15T02:59:43.1Z", "2001-12-15 02:59:43.100000+00:00"),
            ("!!timestamp 2001-01-01", "2001-01-01"),
            ("!!str 017", "017"),
            ("!!int \"3\"", "3"),
            ("!!float 1", "1.0"),
            ("! 017", "15"),
            ("! \"017\"", "15"),
            ("!!binary aGVsbG8=", "b'hello'"),
            ("12345678901234567890", "12345678901234567890"),
            ("'017'", "017"),
            ("=", "="),
        ] {
            if text == "=" {
                continue;
            }
            assert_eq!(str_of(text), want, "{text}");
        }
        assert_eq!(scalar("017"), Value::Int(15));
        assert_eq!(scalar("1e3"), Value::Str("1e3".into()));
    }

    #[test]
    fn constructor_failures_escape_as_python_exceptions() {
        for (text, exception, message) in [
            ("2001-13-45", Some("ValueError"), "month must be in 1..12"),
            (
                "2001-02-29",
                Some("ValueError"),
                "day is out of range for month",
            ),
            (
                "1999-12-31T24:00:00Z",
                Some("ValueError"),
                "hour must be in 0..23",
            ),
            (
                "2001-12-14 21:59:43.10 +25:00",
                Some("ValueError"),
                "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not datetime.timedelta(days=1, seconds=3600).",
            ),
            ("!!bool maybe", Some("KeyError"), "'maybe'"),
            (
                "!!int 3.5",
                Some("ValueError"),
                "invalid literal for int() with base 10: '3.5'",
            ),
            (
                "!!float x",
                Some("ValueError"),
                "could not convert string to float: 'x'",
            ),
            (
                "!!timestamp x",
                Some("AttributeError"),
                "'NoneType' object has no attribute 'groupdict'",
            ),
            (
                "!!python/name:os.system",
                None,
                "could not determine a constructor for the tag 'tag:yaml.org,2002:python/name:os.system'",
            ),
            (
                "!foo bar",
                None,
                "could not determine a constructor for the tag '!foo'",
            ),
            (
                "=",
                None,
                "could not determine a constructor for the tag 'tag:yaml.org,2002:value'",
            ),
            (
                "!!str [a]",
                None,
                "expected a scalar node, but found sequence",
            ),
        ] {
            let e = parse_yaml(&format!("v: {text}\n")).unwrap_err();
            assert_eq!(
                (e.exception, e.message.as_str()),
                (exception, message),
                "{text}"
            );
        }
    }

    #[test]
    fn merge_keys_and_value_keys() {
        let root = parse_yaml("<<: {id: merged, name: m}\nid: own\n=: eq\n").unwrap();
        assert_eq!(root.get("id").unwrap().node.as_str(), Some("own"));
        assert_eq!(root.get("name").unwrap().node.as_str(), Some("m"));
        assert_eq!(root.get("=").unwrap().node.as_str(), Some("eq"));
        assert!(parse_yaml("<<: x\n").is_err());
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
        for text in ["id: {{ cookiecutter.id }}\n", "? [a, b]\n: 1\n", "[1]: x\n"] {
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

    #[test]
    fn scanner_refusals_as_in_pyyaml() {
        for text in [
            "k:\tv\n",
            "k: a\tb\n",
            "k: v\t# c\n",
            "k: [a,\tb]\n",
            "k: a\u{2028}b\n",
            "k: a\u{85}b\n",
            "k: a # x\u{2028}y\n",
            "k: { a\n  b: 1 }\n",
            "k: {\"a\n b\": 1}\n",
            "k: {a: LayoutDashboard?, b: 1}\n",
            "k: >-\n  wit\u{2029}h no\n",
            "id: evil\n: 1\n",
        ] {
            assert!(parse_yaml(text).is_err(), "{text:?}");
        }
        for text in [
            "k: |\n  \tx\n",
            "k: \"a\tb\"\n",
            "k: v # a\tb\n",
            "k: \"a\u{2028}b\"\n",
            "k:\n  a\u{2028}  b\n",
            "k: [a\n  b]\n",
            "id: a\rname: b\r",
            "k: [?a]\n",
            "k: >-\n  text\n# a\tcomment after a block scalar\n",
            "? \n: 1\n",
        ] {
            assert!(parse_yaml(text).is_ok(), "{text:?}: {:?}", parse_yaml(text));
        }
        // A second BOM is content: the key is "\u{feff}id", not `id`.
        let root = parse_yaml("\u{feff}\u{feff}id: x\n").unwrap();
        assert!(root.get("id").is_none());
        // U+0085 is a line break: `name` is a key of its own.
        let root = parse_yaml("id: a\n\u{85}name: b\n").unwrap();
        assert_eq!(root.get("name").unwrap().node.as_str(), Some("b"));
    }

    #[test]
    fn reader_refuses_non_printable() {
        let e = parse_yaml("id: a\u{7}b\n").unwrap_err();
        assert!(
            e.message.starts_with("unacceptable character #x0007"),
            "{}",
            e.message
        );
        assert!(parse_yaml("\u{feff}id: x\n").is_ok());
    }
}
