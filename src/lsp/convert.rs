//! Between the validator's byte spans and the protocol's positions (lines and
//! UTF-16 code units), and from a [`PluginReport`] to LSP diagnostics.

use serde_json::{Value, json};

use crate::diagnostic::{Code, Diagnostic, Severity, Span};
use crate::validate::PluginReport;

/// Where each line starts in a text; lines end at `\n`, `\r\n` or a lone `\r`,
/// as the protocol counts them.
pub(crate) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, b) in bytes.iter().enumerate() {
            match b {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
        }
        Self { text, starts }
    }

    /// The position of a byte offset: zero-based line and UTF-16 column. An
    /// offset inside a character counts from that character's start.
    pub(crate) fn position(&self, offset: usize) -> Value {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|s| *s <= offset) - 1;
        let character: usize = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
        json!({ "line": line, "character": character })
    }

    pub(crate) fn range(&self, span: &Span) -> Value {
        json!({ "start": self.position(span.start), "end": self.position(span.end.max(span.start)) })
    }

    /// The byte offset of a position; past the end of a line is its end, past
    /// the last line is the end of the text.
    pub(crate) fn offset(&self, line: usize, character: usize) -> usize {
        let Some(start) = self.starts.get(line).copied() else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        let line_text = self.text[start..end].trim_end_matches(['\n', '\r']);
        let mut units = 0;
        for (i, c) in line_text.char_indices() {
            if units >= character {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line_text.len()
    }
}

/// The documentation of a code on the web, when the crate names its repository.
fn code_href(code: Code) -> Option<String> {
    let doc = crate::upstream::file_url("docs/diagnostics.md")?;
    let anchor: String = code
        .as_str()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    Some(format!("{doc}#{anchor}"))
}

/// One validator diagnostic as an LSP `Diagnostic`: the first label is the
/// range, the others are related information; the first label's text and
/// the help follow the message.
fn diagnostic(d: &Diagnostic, index: &LineIndex<'_>, uri: &str) -> Value {
    let primary = d.labels.first();
    let mut message = d.message.clone();
    if let Some(text) = primary.and_then(|l| l.text.as_deref())
        && text != d.message
    {
        message.push('\n');
        message.push_str(text);
    }
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let mut out = json!({
        "range": index.range(&primary.map_or(0..0, |l| l.span.clone())),
        "severity": match d.severity { Severity::Error => 1, Severity::Warning => 2 },
        "code": d.code.as_str(),
        "source": "plugins",
        "message": message,
    });
    if let Some(href) = code_href(d.code) {
        out["codeDescription"] = json!({ "href": href });
    }
    let related: Vec<Value> = d
        .labels
        .iter()
        .skip(1)
        .map(|l| {
            json!({
                "location": { "uri": uri, "range": index.range(&l.span) },
                "message": l.text.clone().unwrap_or_else(|| d.message.clone()),
            })
        })
        .collect();
    if !related.is_empty() {
        out["relatedInformation"] = Value::Array(related);
    }
    out
}

/// One published diagnostic and what the server needs to answer requests
/// about it later, in bytes of the text it was found in.
pub(crate) struct Found {
    /// The LSP `Diagnostic` as published.
    pub(crate) lsp: Value,
    pub(crate) code: Code,
    /// The first label's bytes.
    pub(crate) span: Span,
    /// Exact edits that fix it: the bytes to replace and their replacement.
    pub(crate) edits: Vec<(Span, String)>,
}

/// Every diagnostic of a report on the document `uri` whose text is `text`.
pub(crate) fn diagnostics(report: &PluginReport, text: &str, uri: &str) -> Vec<Found> {
    // Spans index the text the validator read (a lossy one if it refused it).
    let source = report.source.as_deref().unwrap_or(text);
    let index = LineIndex::new(source);
    let mut out: Vec<Found> = report
        .outcome
        .diagnostics
        .iter()
        .map(|d| Found {
            lsp: diagnostic(d, &index, uri),
            code: d.code,
            span: d.labels.first().map_or(0..0, |l| l.span.clone()),
            // Edits only apply to the text the client has.
            edits: if source == text {
                d.fixes.iter().filter_map(|f| f.edit(text)).collect()
            } else {
                Vec::new()
            },
        })
        .collect();
    // Where the host stops, say what it did not check yet, on the error that stopped it.
    let stopped = report
        .outcome
        .diagnostics
        .iter()
        .position(Diagnostic::is_error);
    if let (Some(note), Some(i)) = (crate::render::human::skipped_note(report), stopped)
        && let Some(Value::String(message)) = out[i].lsp.get_mut("message")
    {
        message.push_str("\nnote: ");
        message.push_str(&note);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(index: &LineIndex<'_>, offset: usize) -> (u64, u64) {
        let p = index.position(offset);
        (
            p["line"].as_u64().unwrap(),
            p["character"].as_u64().unwrap(),
        )
    }

    #[test]
    fn positions_count_utf16_code_units() {
        // é is 2 bytes and 1 unit; 😀 is 4 bytes and 2 units.
        let text = "a = 1\r\né = \"😀x\"\rlast";
        let index = LineIndex::new(text);
        assert_eq!(pos(&index, 0), (0, 0));
        assert_eq!(pos(&index, 5), (0, 5)); // the \r of \r\n ends line 0
        assert_eq!(pos(&index, 7), (1, 0));
        let x = text.find('x').unwrap();
        assert_eq!(pos(&index, x), (1, 7));
        assert_eq!(pos(&index, x - 2), (1, 5)); // inside 😀: its start
        assert_eq!(pos(&index, text.find("last").unwrap()), (2, 0));
        assert_eq!(pos(&index, 10_000), (2, 4));
        // And back.
        assert_eq!(index.offset(1, 7), x);
        assert_eq!(index.offset(1, 99), x + 2);
        assert_eq!(index.offset(9, 0), text.len());
    }
}
