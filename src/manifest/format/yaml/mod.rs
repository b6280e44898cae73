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
//! Also as PyYAML reads them: a comment right after a token (`[a, b]#c`), a
//! lone surrogate escape (`"\ud800"`, kept as a [`crate::manifest::pyval::surrogate`]
//! char), anchor names (ASCII letters, digits, `-`, `_`, ended by `:` or `?` too: `&id: x`
//! is an anchored empty key; one definition each), and
//! `:` where a flow node must start (an error).
//!
//! Deliberately unlike PyYAML (docs/PARITY.md): alias expansion is bounded (a
//! billion-laughs manifest is an error, where PyYAML builds shared references and
//! explodes only when the host stringifies one), so is nesting (255 levels, where
//! Python would hit its recursion limit near 1,000), and a recursive alias
//! (`&r [1, *r]`, a list holding itself) is refused rather than built.

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
    // The stand-in: a private-use character of the same length the text does not use.
    let stand_in = ('\u{e000}'..='\u{e0ff}').find(|c| !text.contains(*c));
    let bom2 = text.starts_with("\u{feff}\u{feff}") && stand_in.is_some();
    let stand_in = stand_in.unwrap_or('\u{e000}');
    let text = if bom2 {
        doubled = format!("\u{feff}{stand_in}{}", &text[6..]);
        doubled.as_str()
    } else {
        text
    };
    // PyYAML keeps a lone surrogate escape (`"\ud800"`) as the code unit: read each
    // through a private-use stand-in of the same length, restored once the value is built.
    let surrogates;
    let (text, stand_ins) = match surrogate_stand_ins(text) {
        Some(t) => {
            surrogates = t;
            (surrogates.as_str(), true)
        }
        None => (text, false),
    };
    let breaks;
    let text = if text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        let flow_quoted: Vec<Span> = composed(text)
            .map(|(_, (_, q), breaks)| {
                q.into_iter()
                    .filter(|(_, block)| !block)
                    .map(|(mut r, _)| {
                        breaks.span(&mut r);
                        r
                    })
                    .collect()
            })
            .unwrap_or_default();
        breaks = yaml11_breaks(text, &flow_quoted);
        breaks.as_str()
    } else {
        text
    };
    let (_, (raw, _), breaks) = composed(text)?;
    pyyaml_document_end(text)?;
    let Some(raw) = raw else {
        return Ok(Node {
            span: 0..0,
            value: Value::Null,
        });
    };
    let mut budget = ALIAS_BUDGET;
    let mut node = construct(&raw, &mut budget).map_err(|mut e| {
        breaks.restore_error(&mut e);
        e
    })?;
    breaks.restore(&mut node);
    if stand_ins {
        restore_surrogates(&mut node);
    }
    if bom2 {
        let restore = |s: &mut String| {
            if let Some(rest) = s.strip_prefix(stand_in) {
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

/// [`compose`] and the tab check, read as PyYAML's scanner reads two things the event
/// parser refuses: a comment right after a token (`[a, b]#c`, `"x"#c`: PyYAML needs no
/// blank before `#`), blanked out and parsed again, and a `\U` escape beyond U+10FFFF,
/// which is `chr()`'s exception escaping PyYAML once its scanner gets there (read as
/// U+FFFD meanwhile, so an earlier error wins). Returns the text the events were read from.
///
/// An anchor or alias name PyYAML ends on `:` or `?` gets a space there (and in a flow
/// collection one after the indicator too, [`compose::NAME_BREAK_FLOW`]), so the event
/// parser reads PyYAML's tokens: every span the result holds is moved back by
/// [`Breaks::original`].
fn composed(text: &str) -> Result<(std::borrow::Cow<'_, str>, Composed, Breaks), SyntaxError> {
    let mut breaks = Breaks::default();
    composed_with(text, &mut breaks)
        .map(|(t, c)| (t, c, breaks.clone()))
        .map_err(|mut e| {
            breaks.restore_error(&mut e);
            e
        })
}

/// Spaces [`composed`] inserted, as positions in the text it parsed (ascending).
#[derive(Clone, Debug, Default)]
pub(super) struct Breaks(Vec<usize>);

impl Breaks {
    /// Insert a space at `at` of `text` (which already holds the earlier ones).
    fn insert(&mut self, text: &mut String, at: usize, c: char) {
        text.insert(at, c);
        for p in &mut self.0 {
            if *p >= at {
                *p += 1;
            }
        }
        self.0.push(at);
        self.0.sort_unstable();
    }

    /// The offset in the original text of `at` in the text with the spaces.
    fn original(&self, at: usize) -> usize {
        at - self.0.iter().take_while(|p| **p < at).count()
    }

    fn span(&self, span: &mut Span) {
        *span = self.original(span.start)..self.original(span.end);
    }

    fn restore_error(&self, e: &mut SyntaxError) {
        if let Some(span) = &mut e.span {
            self.span(span);
        }
    }

    fn restore(&self, node: &mut Node) {
        if self.0.is_empty() {
            return;
        }
        self.span(&mut node.span);
        match &mut node.value {
            Value::Array(items) => items.iter_mut().for_each(|n| self.restore(n)),
            Value::Table(entries) => {
                for e in entries {
                    self.span(&mut e.key_span);
                    self.restore(&mut e.node);
                }
            }
            _ => {}
        }
    }
}

fn composed_with<'t>(
    text: &'t str,
    breaks: &mut Breaks,
) -> Result<(std::borrow::Cow<'t, str>, Composed), SyntaxError> {
    // Each retry parses again up to the next such comment: a bounded number of them.
    let mut retries = (8 * 1024 * 1024 / text.len().max(1)).max(64);
    let mut text = std::borrow::Cow::Borrowed(text);
    let mut raised: Option<SyntaxError> = None;
    let first = |e: SyntaxError, raised: Option<SyntaxError>| match raised {
        Some(r) if r.span.as_ref().map(|s| s.start) < e.span.as_ref().map(|s| s.start) => r,
        _ => e,
    };
    loop {
        let e = match compose(&text) {
            Ok(c) => {
                return match pyyaml_scanner_refusal(&text, &c.1) {
                    Err(tab) => Err(first(tab, raised)),
                    Ok(()) => match raised {
                        Some(r) => Err(r),
                        None => Ok((text, c)),
                    },
                };
            }
            Err(e) => e,
        };
        let at = e.span.as_ref().map_or(0, |s| s.start);
        let name_break = [
            compose::NAME_BREAK,
            compose::NAME_BREAK_FLOW,
            compose::NAME_BREAK_EMPTY_KEY,
        ]
        .contains(&e.message.as_str());
        if name_break && retries > 0 {
            retries -= 1;
            let mut t = text.into_owned();
            if e.message == compose::NAME_BREAK_FLOW {
                // After the one-byte indicator, before the space goes in front of it.
                breaks.insert(&mut t, at + 1, ' ');
            }
            if e.message == compose::NAME_BREAK_EMPTY_KEY {
                breaks.insert(&mut t, at, '~');
            }
            breaks.insert(&mut t, at, ' ');
            text = std::borrow::Cow::Owned(t);
            continue;
        }
        // Only after a flow indicator or a closing quote: after a block scalar's header
        // (`>-#`) PyYAML wants its indicators, and says so.
        if e.message == "comments must be separated from other tokens by whitespace"
            && text[at..].starts_with('#')
            && text[..at].ends_with([']', '}', ',', '"', '\''])
            && retries > 0
        {
            retries -= 1;
            let end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
            // As many spaces as the comment has bytes: every span stays where it was.
            let mut t = text.into_owned();
            t.replace_range(at..end, &" ".repeat(end - at));
            text = std::borrow::Cow::Owned(t);
            continue;
        }
        if e.message == "while parsing a quoted scalar, found invalid Unicode character escape code"
            && let Some(err) = chr_out_of_range(&text, at)
        {
            let escape = err.span.clone().unwrap_or(at..at);
            let mut t = text.into_owned();
            t.replace_range(escape, "\\U0000FFFD");
            text = std::borrow::Cow::Owned(t);
            raised = Some(raised.map_or(err.clone(), |r| first(err, Some(r))));
            continue;
        }
        return Err(first(e, raised));
    }
}

/// The first `\U` escape of the double-quoted scalar at `at` naming no code point:
/// PyYAML's `chr()` raises (`ValueError` past U+10FFFF, `OverflowError` past a C int).
fn chr_out_of_range(text: &str, at: usize) -> Option<SyntaxError> {
    let body = text.get(at..)?.strip_prefix('"')?;
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                let (_, kind) = chars.next()?;
                let value = (kind == 'U')
                    .then(|| body.get(i + 2..i + 10))
                    .flatten()
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                if let Some(v) = value.filter(|v| *v > 0x10ffff) {
                    let span = at + 1 + i..at + 1 + i + 10;
                    return Some(if v > 0x7fff_ffff {
                        raise(
                            "OverflowError",
                            "Python int too large to convert to C int".to_owned(),
                            span,
                        )
                    } else {
                        raise(
                            "ValueError",
                            "chr() arg not in range(0x110000)".to_owned(),
                            span,
                        )
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// Private-use stand-ins for lone surrogates while the event parser reads the text:
/// U+F000 + (s − U+D800), one per code unit, so `\ud83d\ude00` stays two as PyYAML keeps
/// it. `None` when the text has no surrogate escape in a double-quoted scalar, or uses
/// that private-use range itself (then the event parser's refusal stands).
fn surrogate_stand_ins(text: &str) -> Option<String> {
    // (offset of the backslash, escape length, value) of every `\u`/`\U` escape.
    let mut escapes = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let len = match b.get(i + 1) {
            Some(b'u') => 6,
            Some(b'U') => 10,
            _ => {
                i += 2;
                continue;
            }
        };
        if let Some(v) = text
            .get(i + 2..i + len)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
        {
            escapes.push((i, len, v));
        }
        i += 2;
    }
    let lone: Vec<(usize, usize, u32)> = escapes
        .iter()
        .copied()
        .filter(|(_, _, v)| (0xd800..=0xdfff).contains(v))
        .collect();
    if lone.is_empty()
        || escapes
            .iter()
            .any(|(_, _, v)| (0xf000..=0xf7ff).contains(v))
        || text.contains(|c| ('\u{f000}'..='\u{f7ff}').contains(&c))
    {
        return None;
    }
    let rewrite = |which: &[(usize, usize, u32)]| {
        let mut out = text.to_owned();
        for (at, len, v) in which {
            let hex = format!("{:0w$X}", v - 0xd800 + 0xf000, w = len - 2);
            out.replace_range(at + 2..at + len, &hex);
        }
        out
    };
    let all = rewrite(&lone);
    // Escapes mean something only in double-quoted scalars; elsewhere the text stays.
    let Ok((_, (_, mut quoted), breaks)) = composed(&all) else {
        return Some(all);
    };
    for (r, _) in &mut quoted {
        breaks.span(r);
    }
    let inside: Vec<(usize, usize, u32)> = lone
        .iter()
        .copied()
        .filter(|(at, ..)| {
            quoted
                .iter()
                .any(|(r, block)| !block && all[r.clone()].starts_with('"') && r.contains(at))
        })
        .collect();
    if inside.is_empty() {
        None
    } else if inside.len() == lone.len() {
        Some(all)
    } else {
        Some(rewrite(&inside))
    }
}

/// Lone surrogates back from their stand-ins, as [`crate::manifest::pyval::surrogate`]
/// chars (U+10F800 + (s − U+D800)): `repr()` shows them as Python does (`'\ud800'`).
fn restore_surrogates(node: &mut Node) {
    fn fix(s: &mut String) {
        if s.contains(|c| ('\u{f000}'..='\u{f7ff}').contains(&c)) {
            *s = s
                .chars()
                .map(|c| match u32::from(c) {
                    n @ 0xf000..=0xf7ff => crate::manifest::pyval::surrogate(n - 0xf000 + 0xd800),
                    _ => c,
                })
                .collect();
        }
    }
    match &mut node.value {
        Value::Str(s) => fix(s),
        Value::Array(items) => items.iter_mut().for_each(restore_surrogates),
        Value::Table(entries) => {
            for e in entries {
                fix(&mut e.key);
                restore_surrogates(&mut e.node);
            }
        }
        _ => {}
    }
}

/// PyYAML's parser on a `...` document-end marker (a line starting `...` and a blank):
/// before any content it is "expected the node content", and content after it is a
/// second document `safe_load` refuses, where the event parser starts a new one.
fn pyyaml_document_end(text: &str) -> Result<(), SyntaxError> {
    let marker = |l: &str, m: &str| {
        l.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\r']))
    };
    let blank = |l: &str| {
        let t = l.trim_start_matches([' ', '\t', '\r', '\u{feff}']);
        t.is_empty() || t.starts_with('#')
    };
    let mut at = 0;
    let mut started = false;
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let l = line.trim_end_matches('\n').trim_start_matches('\u{feff}');
        if marker(l, "...") {
            let after = lines.clone().any(|l| !blank(l.trim_end_matches('\n')));
            if !started {
                return Err(error_at(
                    text,
                    "while parsing a block node: expected the node content, but found '<document end>'",
                    at,
                ));
            }
            if after {
                return Err(error_at(
                    text,
                    "expected '<document start>' after the document end, but found more content",
                    at,
                ));
            }
            return Ok(());
        }
        if !blank(l) && !l.starts_with('%') {
            started = true;
        }
        at += line.len();
    }
    Ok(())
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
    // The only refusal is a tab: without one there is nothing to look for (the walk below
    // asks every quoted span about every character).
    if !text.contains('\t') {
        return Ok(());
    }
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
