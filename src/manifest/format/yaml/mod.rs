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

use std::borrow::Cow;

use super::SyntaxError;
use crate::diagnostic::Span;
use crate::manifest::doc::{Entry, Node, Value};

mod compose;
mod construct;
mod names;
mod reader;
mod resolve;
mod scalar;
#[cfg(test)]
mod tests;

use compose::*;
use construct::*;
use names::*;
use reader::*;
use resolve::*;
use scalar::*;

/// Nodes an alias may expand to, in total, before the document is refused.
pub(super) const ALIAS_BUDGET: usize = 100_000;

/// Nodes `text`'s document may construct: what the text itself holds (at most two per byte,
/// an empty key and its empty value in `?\n`) and what aliases expand to (the composer stops
/// those at [`ALIAS_BUDGET`]). A large document without aliases is never refused as a bomb.
fn construct_budget(text: &str) -> usize {
    ALIAS_BUDGET + 2 * text.len()
}

/// Parse YAML text (one document; empty means an empty mapping's absence: null).
pub fn parse_yaml(text: &str) -> Result<Node<'static>, SyntaxError> {
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
        breaks = with_yaml11_breaks(text);
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
    let mut budget = construct_budget(text);
    let mut node = construct(&raw, &mut budget).map_err(|mut e| {
        breaks.restore_error(&mut e);
        e
    })?;
    breaks.restore(&mut node);
    if stand_ins {
        restore_surrogates(&mut node);
    }
    if bom2 {
        restore_bom(&mut node, stand_in);
    }
    Ok(node)
}

/// `text` with YAML 1.1's line breaks (U+0085, U+2028, U+2029) made the breaks the event
/// parser reads ([`yaml11_breaks`]), except inside its quoted flow scalars, found by a
/// first reading.
fn with_yaml11_breaks(text: &str) -> String {
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
    yaml11_breaks(text, &flow_quoted)
}

/// Put the second BOM back where its `stand_in` was read: at the start of the document's
/// first key, or of its string.
fn restore_bom(node: &mut Node<'_>, stand_in: char) {
    let restore = |s: &mut Cow<'_, str>| {
        if let Some(rest) = s.strip_prefix(stand_in) {
            *s = Cow::Owned(format!("\u{feff}{rest}"));
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

/// [`compose`] and the tab check, read as PyYAML's scanner reads two things the event
/// parser refuses: a comment right after a token (`[a, b]#c`, `"x"#c`: PyYAML needs no
/// blank before `#`), blanked out and parsed again, and a `\U` escape beyond U+10FFFF,
/// which is `chr()`'s exception escaping PyYAML once its scanner gets there (read as
/// U+FFFD meanwhile, so an earlier error wins). Returns the text the events were read from.
///
/// An anchor or alias name PyYAML ends on `:` or `?` gets a space there (and in a flow
/// collection one after the indicator too, [`names::NAME_BREAK_FLOW`]), so the event
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
            names::NAME_BREAK,
            names::NAME_BREAK_FLOW,
            names::NAME_BREAK_EMPTY_KEY,
        ]
        .contains(&e.message.as_str());
        if name_break && retries > 0 {
            retries -= 1;
            let mut t = text.into_owned();
            if e.message == names::NAME_BREAK_FLOW {
                // After the one-byte indicator, before the space goes in front of it.
                breaks.insert(&mut t, at + 1, ' ');
            }
            if e.message == names::NAME_BREAK_EMPTY_KEY {
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

pub(super) fn error_at(text: &str, message: &str, at: usize) -> SyntaxError {
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    SyntaxError {
        message: message.to_owned(),
        display: message.to_owned(),
        span: Some(at..end),
        exception: None,
    }
}
