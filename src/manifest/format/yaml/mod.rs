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

mod compose;
mod construct;
mod resolve;
mod scalar;
#[cfg(test)]
mod tests;

use compose::*;
use construct::*;
use resolve::*;
use scalar::*;

/// Nodes an alias may expand to, in total, before the document is refused.
pub(super) const ALIAS_BUDGET: usize = 100_000;

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
pub(super) fn pyyaml_reader_refusal(text: &str) -> Option<SyntaxError> {
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

pub(super) fn lone_cr_to_lf(text: &str) -> String {
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
pub(super) fn yaml11_breaks(text: &str, flow_quoted: &[Span]) -> String {
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
pub(super) fn pyyaml_scanner_refusal(
    text: &str,
    quoted: &[(Span, bool)],
) -> Result<(), SyntaxError> {
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
pub(super) fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{85}')
        || ('\u{20}'..='\u{7e}').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
        || ('\u{10000}'..='\u{10ffff}').contains(&c)
}

pub(super) fn error_at(text: &str, message: &str, at: usize) -> SyntaxError {
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    SyntaxError {
        message: message.to_owned(),
        display: message.to_owned(),
        span: Some(at..end),
        exception: None,
    }
}
