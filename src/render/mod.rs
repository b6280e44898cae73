//! Turn validation reports into text: miette graphics, one JSON document,
//! GitHub workflow commands, or a SARIF log. Rendering is pure (returns strings); `printer`
//! writes them.
//!
//! A `validate -r` run renders each report as soon as it is validated and drops
//! it: the per-format `*Stream` types take reports one at a time, write what
//! they can at once to a [`Sink`], keep counts in a [`Tally`], and hold what
//! belongs at the end of the document (the items of a JSON array whose summary
//! comes first) in a [`Spool`], so memory stays flat in the number of roots.

pub mod github;
pub mod human;
pub mod json;
pub mod sarif;

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::validate::PluginReport;

/// Where streamed output goes, one piece at a time, in order.
pub type Sink<'a> = dyn FnMut(&str) -> std::io::Result<()> + 'a;

/// What a run's closing line and JSON summary count, kept as reports stream by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub plugins: usize,
    pub invalid: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl Tally {
    pub fn add(&mut self, r: &PluginReport) {
        let errors = r.errors();
        self.plugins += 1;
        self.invalid += usize::from(errors > 0);
        self.errors += errors;
        self.warnings += r.outcome.diagnostics.len() - errors;
    }

    pub fn of(reports: &[PluginReport]) -> Tally {
        let mut tally = Tally::default();
        for r in reports {
            tally.add(r);
        }
        tally
    }
}

/// Text held for the end of a streamed document: in memory up to 1 MiB, then
/// in an anonymous temporary file.
pub struct Spool {
    file: tempfile::SpooledTempFile,
    /// What is not in `file` yet: written in pieces of [`SPOOL_BUFFER`] bytes.
    buffer: String,
    items: usize,
}

const SPOOL_BUFFER: usize = 64 * 1024;

impl Default for Spool {
    fn default() -> Self {
        Spool {
            file: tempfile::spooled_tempfile(1 << 20),
            buffer: String::new(),
            items: 0,
        }
    }
}

impl Spool {
    /// Append one item, after `separator` unless it is the first.
    pub fn push(&mut self, separator: &str, item: &str) -> std::io::Result<()> {
        if self.items > 0 {
            self.buffer.push_str(separator);
        }
        self.items += 1;
        self.buffer.push_str(item);
        if self.buffer.len() >= SPOOL_BUFFER {
            self.file.write_all(self.buffer.as_bytes())?;
            self.buffer.clear();
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// Write everything held to `sink`, every line prefixed by `indent`, with
    /// no newline after the last line.
    pub fn drain(mut self, indent: &str, sink: &mut Sink<'_>) -> std::io::Result<()> {
        self.file.write_all(self.buffer.as_bytes())?;
        self.buffer = String::new();
        self.file.seek(SeekFrom::Start(0))?;
        let mut block = vec![0u8; SPOOL_BUFFER];
        let mut chunk: Vec<u8> = Vec::with_capacity(SPOOL_BUFFER + indent.len());
        let mut line_start = true;
        loop {
            let n = match self.file.read(&mut block) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let mut rest = &block[..n];
            while !rest.is_empty() {
                if line_start {
                    chunk.extend_from_slice(indent.as_bytes());
                }
                let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
                chunk.extend_from_slice(&rest[..end]);
                line_start = rest[end - 1] == b'\n';
                rest = &rest[end..];
                // Handed on only after a newline: a character never straddles two pieces.
                if line_start && chunk.len() >= 60 * 1024 {
                    sink(utf8(&chunk)?)?;
                    chunk.clear();
                }
            }
        }
        sink(utf8(&chunk)?)
    }
}

/// The spooled bytes as text (they were all pushed as `&str`).
fn utf8(bytes: &[u8]) -> std::io::Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// The string a skeleton document holds where a spooled array's items go.
pub(crate) const HOLE: &str = "\u{0}items";

/// Write `skeleton` (pretty JSON in which each spooled array is `[HOLE]`) to
/// `sink` with each hole replaced by its spool's items, indented as
/// `serde_json`'s pretty printer indents them. An empty spool must be left out
/// of the skeleton (it prints as `[]`).
pub(crate) fn splice(
    skeleton: &str,
    mut spools: Vec<Spool>,
    sink: &mut Sink<'_>,
) -> std::io::Result<()> {
    let marker = serde_json::to_string(HOLE).expect("a string serializes");
    spools.reverse();
    let mut rest = skeleton;
    while let Some(at) = rest.find(&marker) {
        let line_start = rest[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent = &rest[line_start..at];
        sink(&rest[..line_start])?;
        let spool = spools.pop().expect("a spool for each hole");
        spool.drain(indent, sink)?;
        rest = &rest[at + marker.len()..];
    }
    sink(rest)
}

/// A path as shown to users: relative paths stay as given, `./` is dropped.
pub fn display_path(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    s.strip_prefix("./").map_or(s.clone(), str::to_owned)
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    // Counted as bytes (which the compiler vectorizes), not match by match: every label
    // of a `validate -r` report asks for both of its ends.
    let line = before.bytes().filter(|b| *b == b'\n').count() + 1;
    let line_start = memchr::memrchr(b'\n', before.as_bytes()).map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// [`line_col`] of both ends of a span; the end is counted on from the start, so a label
/// far down a large manifest is not counted from byte 0 twice.
pub fn line_cols(text: &str, span: &std::ops::Range<usize>) -> ((usize, usize), (usize, usize)) {
    let (line, col) = line_col(text, span.start);
    if span.end < span.start {
        return ((line, col), line_col(text, span.end));
    }
    let from = floor_char_boundary(text, span.start.min(text.len()));
    let between = &text[from..floor_char_boundary(text, span.end.min(text.len()))];
    let newlines = between.bytes().filter(|b| *b == b'\n').count();
    let end_col = match memchr::memrchr(b'\n', between.as_bytes()) {
        Some(i) => between[i + 1..].chars().count() + 1,
        None => col + between.chars().count(),
    };
    ((line, col), (line + newlines, end_col))
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spliced_document_is_what_serde_json_prints_whole() {
        // Past the spool's 1 MiB in memory, so the temporary file is used too.
        let items: Vec<serde_json::Value> = (0..6000)
            .map(|i| serde_json::json!({ "i": i, "text": "x\ny ".repeat(40), "list": [1, [], {}] }))
            .collect();
        let doc = |items: serde_json::Value, notes: serde_json::Value| serde_json::json!({ "head": { "n": 1 }, "deep": [{ "notes": notes }], "items": items });
        let whole = serde_json::to_string_pretty(&doc(
            serde_json::Value::from(items.clone()),
            serde_json::json!(["a", "b"]),
        ))
        .unwrap();
        let (mut spool, mut notes) = (Spool::default(), Spool::default());
        for item in &items {
            spool
                .push(",\n", &serde_json::to_string_pretty(item).unwrap())
                .unwrap();
        }
        notes.push(",\n", "\"a\"").unwrap();
        notes.push(",\n", "\"b\"").unwrap();
        let skeleton = serde_json::to_string_pretty(&doc(
            serde_json::json!([HOLE]),
            serde_json::json!([HOLE]),
        ))
        .unwrap();
        let mut out = String::new();
        splice(&skeleton, vec![notes, spool], &mut |s: &str| {
            out.push_str(s);
            Ok(())
        })
        .unwrap();
        assert!(out.len() > 1 << 20);
        assert!(out == whole, "the spliced document differs");
    }

    #[test]
    fn both_ends_count_as_each_alone() {
        let texts = ["", "a = 1\né = \"x\"\n", "\n\nk\n─╭ = 2\r\nv", "ééé\n"];
        for t in texts {
            for start in 0..=t.len() + 1 {
                for end in 0..=t.len() + 1 {
                    assert_eq!(
                        line_cols(t, &(start..end)),
                        (line_col(t, start), line_col(t, end)),
                        "{t:?} {start}..{end}"
                    );
                }
            }
        }
    }

    #[test]
    fn line_col_counts_chars() {
        let t = "a = 1\né = \"x\"\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, t.find('=').unwrap()), (1, 3));
        let second_eq = t.rfind('=').unwrap();
        assert_eq!(line_col(t, second_eq), (2, 3));
    }
}
