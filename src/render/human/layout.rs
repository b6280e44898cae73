//! Reports drawn here, without miette, for the shapes whose layout is known to match
//! miette's byte for byte (`reports_are_drawn_as_miette_draws_them` compares them). The
//! layout is miette's own, not a host's: this is only a faster way to the same bytes for
//! the common reports of `validate -r`; every other shape goes through miette's handler.

use miette::{SourceCode, SourceSpan};

use super::{HELP_INDENTS, Handlers, Source, indented};
use crate::diagnostic::{Diagnostic, Severity};

/// One label's snippet as miette draws it, for a label [`draw`] can draw: the lines of
/// its context with their numbers, and where on its line the label is.
struct Snippet<'a> {
    /// The label's line and column, from 1.
    at: (usize, usize),
    /// The context's first line's number, from 1, and its lines without their `\n`.
    first: usize,
    lines: Vec<&'a str>,
    /// Which of `lines` the label is on, and its columns there (end exclusive).
    on: usize,
    columns: (usize, usize),
}

impl Source<'_> {
    /// What miette's `read_span(span, 1, 1)` reads for `start..end` when that lies within
    /// one line of a text with no `\r`, found from the line starts instead of by counting
    /// every byte before it (half of what a snippet cost): the line before the span's, the
    /// span's and the one after, as far as they exist (the last with its `\n`), where they
    /// start, and the first one's number from 0. `None` for any other span, and for any
    /// span of a text with a `\r` (which miette counts as a line break of its own).
    pub(super) fn context(&self, start: usize, end: usize) -> Option<(&str, usize, usize)> {
        if self.has_cr || end > self.text.len() || end <= start {
            return None;
        }
        let line = self.starts.partition_point(|s| *s <= start) - 1;
        // The span ends on its line's text, before the `\n` that ends it.
        let line_end = self.starts.get(line + 1).map_or(self.text.len(), |s| s - 1);
        if end > line_end {
            return None;
        }
        let from = line.checked_sub(1).map_or(0, |before| self.starts[before]);
        let to = self
            .starts
            .get(line + 2)
            .copied()
            .unwrap_or(self.text.len());
        Some((self.text.get(from..to)?, from, line.saturating_sub(1)))
    }

    /// The snippet of `label` when it is one [`draw`] draws as miette would: a span of at
    /// least one character within one line, its context (a line each side, as miette
    /// reads it) printable ASCII, so every character is one column wide, and a label text
    /// of one line; `None` for any other.
    fn snippet(&self, label: &crate::diagnostic::Label) -> Option<Snippet<'_>> {
        let (start, end) = (label.span.start, label.span.end);
        if end <= start || label.text.as_deref().is_some_and(|t| t.contains('\n')) {
            return None;
        }
        let (data, context_offset, context_line) = match self.context(start, end) {
            Some(found) => found,
            None if self.has_cr => {
                let span = SourceSpan::new(start.into(), end - start);
                let context = self.read_span(&span, 1, 1).ok()?;
                let data = std::str::from_utf8(context.data()).ok()?;
                (data, context.span().offset(), context.line())
            }
            None => return None,
        };
        if !data
            .bytes()
            .all(|b| b == b'\n' || (b' '..=b'~').contains(&b))
        {
            return None;
        }
        let mut offset = context_offset;
        let mut lines = Vec::with_capacity(3);
        let mut on = None;
        for line in data.split_inclusive('\n') {
            let text = line.strip_suffix('\n').unwrap_or(line);
            if (offset..offset + line.len()).contains(&start) {
                // The span ends on its line's text (not on or past its `\n`).
                if end > offset + text.len() {
                    return None;
                }
                on = Some((lines.len(), (start - offset, end - offset)));
            }
            lines.push(text);
            offset += line.len();
        }
        let (on, columns) = on?;
        let first = context_line + 1;
        Some(Snippet {
            // Where miette's reading of the span alone puts it: its line counted as the
            // context's are, its column in characters, which are bytes here.
            at: (first + on, columns.0 + 1),
            first,
            lines,
            on,
            columns,
        })
    }
}

/// Draw `d` as miette's graphical handler with its wrapping off draws it, with `message`
/// and `help` already [`prewrap`]ped, when its shape is one drawn here: no color, and no
/// source (miette then draws no label), no label, or one label whose [`Source::snippet`]
/// is drawn here. Returns whether it drew;
/// when not, nothing was written. Drawing here costs under a third of the instructions
/// miette's drawing does (13,000 against 46,000 a report over AWorld's corpus; most of
/// miette's are its line splitting, width counting and formatting); a test compares the
/// two on random reports of every shape drawn here.
pub(super) fn draw(
    h: &Handlers,
    d: &Diagnostic,
    message: &str,
    help: Option<&str>,
    src: Option<&Source>,
    out: &mut String,
) -> bool {
    if h.style.color {
        return false;
    }
    let snippet = match (src, d.labels.as_slice()) {
        (None, _) | (Some(_), []) => None,
        (Some(src), [label]) => match src.snippet(label) {
            Some(snippet) => Some((src, label, snippet)),
            None => return false,
        },
        _ => return false,
    };
    let c = &h.chars;
    let first = match d.severity {
        Severity::Error => &h.indents[0],
        Severity::Warning => &h.indents[1],
    };
    out.push_str(d.code.as_str());
    out.push_str("\n\n");
    indented(out, message, first, &h.indents[2]);
    if let Some((src, label, s)) = snippet {
        draw_snippet(out, c, src, label, &s);
    }
    if let Some(help) = help {
        indented(out, help, HELP_INDENTS.0, HELP_INDENTS.1);
    }
    true
}

/// A label's snippet as miette draws it: the source's name and the label's line and
/// column, the context's numbered lines, the underline and the label's text.
fn draw_snippet(
    out: &mut String,
    c: &miette::ThemeCharacters,
    src: &Source,
    label: &crate::diagnostic::Label,
    s: &Snippet<'_>,
) {
    let last = s.first + s.lines.len() - 1;
    let width = digits(last);
    let pad = width + 2;
    // The gutter of a line that has no number.
    let no_number = |out: &mut String| {
        spaces(out, pad);
        out.push(c.vbar_break);
        out.push(' ');
    };
    spaces(out, pad);
    out.push(c.ltop);
    out.push(c.hbar);
    out.push('[');
    out.push_str(&src.name);
    out.push(':');
    number(out, s.at.0, 0);
    out.push(':');
    number(out, s.at.1, 0);
    out.push_str("]\n");
    for (i, text) in s.lines.iter().enumerate() {
        out.push(' ');
        number(out, s.first + i, width);
        out.push(' ');
        out.push(c.vbar);
        out.push(' ');
        out.push_str(text);
        out.push('\n');
        if i != s.on {
            continue;
        }
        let (start, end) = s.columns;
        let middle = (start + end) / 2;
        no_number(out);
        spaces(out, start);
        for _ in start..middle {
            out.push(c.underline);
        }
        out.push(if label.text.is_some() {
            c.underbar
        } else {
            c.underline
        });
        for _ in middle + 1..end {
            out.push(c.underline);
        }
        out.push('\n');
        if let Some(text) = &label.text {
            no_number(out);
            spaces(out, middle);
            out.push(c.lbot);
            out.push(c.hbar);
            out.push(c.hbar);
            out.push(' ');
            out.push_str(text);
            out.push('\n');
        }
    }
    spaces(out, pad);
    out.push(c.lbot);
    for _ in 0..4 {
        out.push(c.hbar);
    }
    out.push('\n');
}

fn spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// How many digits `n` has in decimal.
fn digits(n: usize) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// `n` in decimal, right-aligned in `width` columns (as `{n:width$}` writes it).
fn number(out: &mut String, n: usize, width: usize) {
    use std::fmt::Write as _;
    // Writing into a String cannot fail.
    let _ = write!(out, "{n:>width$}");
}
