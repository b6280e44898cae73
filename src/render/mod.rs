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
    /// What is not in `file` yet: written in pieces of [`SPOOL_BUFFER`] bytes. UTF-8:
    /// everything pushed is text or serde_json's output.
    buffer: Vec<u8>,
    items: usize,
    /// The indent each item is pushed after ([`Spool::at_depth`]), `None` when the items
    /// are indented as they are drained.
    indent: Option<&'static str>,
}

const SPOOL_BUFFER: usize = 64 * 1024;

impl Default for Spool {
    fn default() -> Self {
        Spool {
            file: tempfile::spooled_tempfile(1 << 20),
            buffer: Vec::new(),
            items: 0,
            indent: None,
        }
    }
}

impl Spool {
    /// A spool of pretty JSON items written at `depth` ([`pretty_at`]): each item goes in
    /// after the indent of that depth, so the spool is drained as it is, not re-read line
    /// by line to indent it (that was 8% of a `validate -r --format json` run over
    /// AWorld's corpus; docs/PERFORMANCE.md, issue 43).
    pub fn at_depth(depth: usize) -> Spool {
        Spool {
            indent: Some(&SPACES[..2 * depth]),
            ..Spool::default()
        }
    }

    /// Append one item, after `separator` unless it is the first.
    pub fn push(&mut self, separator: &str, item: &str) -> std::io::Result<()> {
        self.start_item(separator);
        self.buffer.extend_from_slice(item.as_bytes());
        self.flush_full()
    }

    /// Append `value` as [`pretty_at`] writes it at the spool's depth, serialized straight
    /// into the spool (not into a string of its own first, then copied).
    pub fn push_pretty(
        &mut self,
        separator: &str,
        value: &impl serde::Serialize,
    ) -> std::io::Result<()> {
        self.start_item(separator);
        let depth = self.indent.map_or(0, |indent| indent.len() / 2);
        pretty_into(&mut self.buffer, value, depth);
        self.flush_full()
    }

    /// The separator (unless this is the first item) and the indent before an item.
    fn start_item(&mut self, separator: &str) {
        if self.items > 0 {
            self.buffer.extend_from_slice(separator.as_bytes());
        }
        self.items += 1;
        if let Some(indent) = self.indent {
            self.buffer.extend_from_slice(indent.as_bytes());
        }
    }

    /// Hand a full buffer on to the file.
    fn flush_full(&mut self) -> std::io::Result<()> {
        if self.buffer.len() >= SPOOL_BUFFER {
            self.file.write_all(&self.buffer)?;
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
        self.file.write_all(&self.buffer)?;
        self.buffer = Vec::new();
        if let Some(pushed) = self.indent {
            assert_eq!(
                pushed, indent,
                "a spool's items are indented for their hole"
            );
            return self.copy(sink);
        }
        let mut chunk: Vec<u8> = Vec::with_capacity(SPOOL_BUFFER + indent.len());
        let mut line_start = true;
        self.each_block(|block| {
            let mut rest = block;
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
            Ok(())
        })?;
        sink(utf8(&chunk)?)
    }

    /// Write everything held to `sink` as it is, in pieces that end at a line break (so a
    /// character never straddles two).
    fn copy(self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        // What follows the last line break read so far: less than a line.
        let mut carry: Vec<u8> = Vec::new();
        self.each_block(|read| {
            match memchr::memrchr(b'\n', read) {
                None => carry.extend_from_slice(read),
                Some(i) => {
                    if carry.is_empty() {
                        sink(utf8(&read[..=i])?)?;
                    } else {
                        carry.extend_from_slice(&read[..=i]);
                        sink(utf8(&carry)?)?;
                        carry.clear();
                    }
                    carry.extend_from_slice(&read[i + 1..]);
                }
            }
            Ok(())
        })?;
        sink(utf8(&carry)?)
    }

    /// Everything written to the file, from its start, to `f` a block at a time. A block
    /// is no larger than what is held: zeroing 64 KiB for a one-plugin report was a tenth of
    /// its page faults (docs/PERFORMANCE.md, issue 43).
    fn each_block(
        mut self,
        mut f: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let held = self.file.stream_position()?;
        self.file.seek(SeekFrom::Start(0))?;
        let mut block =
            vec![0u8; usize::try_from(held).map_or(SPOOL_BUFFER, |h| h.min(SPOOL_BUFFER))];
        loop {
            match self.file.read(&mut block) {
                Ok(0) => return Ok(()),
                Ok(n) => f(&block[..n])?,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
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

/// A report as the printer shows it ([`crate::printer::Printer::report_text`]): where it
/// came from (its root and manifest path, a source's label after an install) is what
/// `plugins` says about a source, so it is redacted as all such text is; the host's message,
/// the diagnostics about the manifest and the quotes of it are the host's and the file's
/// words and stay as they are (issue #42: a description reading `KEY=VALUE` is not a
/// credential query). Borrowed when there is nothing to hide.
pub fn shown(r: &PluginReport) -> std::borrow::Cow<'_, PluginReport> {
    let hide = |p: &Path| {
        let text = lossy(p);
        let shown = crate::auth::redact(&text);
        (shown != text).then(|| std::path::PathBuf::from(shown))
    };
    match (hide(&r.root), hide(&r.manifest)) {
        (None, None) => std::borrow::Cow::Borrowed(r),
        (root, manifest) => {
            let mut r = r.clone();
            if let Some(root) = root {
                r.root = root;
            }
            if let Some(manifest) = manifest {
                r.manifest = manifest;
            }
            std::borrow::Cow::Owned(r)
        }
    }
}

/// A path as shown to users: relative paths stay as given, `./` is dropped.
pub fn display_path(path: &Path) -> String {
    let s = lossy(path).replace('\\', "/");
    match s.strip_prefix("./") {
        Some(rest) => rest.to_owned(),
        None => s,
    }
}

/// `path.to_string_lossy()`, checked the fast way first: a path is nearly always UTF-8, and
/// the lossy walk costs several times the check (every report shows two paths).
fn lossy(path: &Path) -> std::borrow::Cow<'_, str> {
    path.to_str()
        .map_or_else(|| path.to_string_lossy(), std::borrow::Cow::Borrowed)
}

/// Where each line of a text starts, for the 1-based line and column of many offsets: each
/// found in time logarithmic in the lines and linear in its own line's length. A report
/// labels every finding of a manifest, and a hostile manifest may have a hundred thousand;
/// a manifest with none costs nothing (the starts are found on the first question).
pub struct Lines<'a> {
    text: &'a str,
    /// The byte offset of each line's start (the first is 0).
    starts: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Lines<'a> {
        Lines {
            text,
            starts: std::cell::OnceCell::new(),
        }
    }

    /// The text the lines are of.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let starts = self.starts.get_or_init(|| {
            let bytes = self.text.as_bytes();
            // Counted first, so the starts are collected without growing (and copying).
            let mut starts = Vec::with_capacity(1 + memchr::memchr_iter(b'\n', bytes).count());
            starts.push(0);
            starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
            starts
        });
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = starts.partition_point(|s| *s <= offset);
        let col = self.text[starts[line - 1]..offset].chars().count() + 1;
        (line, col)
    }

    /// [`Lines::line_col`] of both ends of a span.
    pub fn line_cols(&self, span: &std::ops::Range<usize>) -> ((usize, usize), (usize, usize)) {
        (self.line_col(span.start), self.line_col(span.end))
    }
}

/// `n` and `word`, plural unless `n` is 1: `1 error`, `2 errors`, `0 plugins`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// `value` as `serde_json::to_string_pretty` writes it, byte for byte, through [`Pretty`].
pub(crate) fn pretty(value: &impl serde::Serialize) -> String {
    pretty_at(value, 0)
}

/// [`pretty`], as it reads when nested `depth` levels deep in a pretty document: each line
/// after the first indented two spaces more a level (the first line's indent is the
/// caller's, [`Spool::at_depth`]).
pub(crate) fn pretty_at(value: &impl serde::Serialize, depth: usize) -> String {
    let mut out = Vec::with_capacity(4096);
    pretty_into(&mut out, value, depth);
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// [`pretty_at`], appended to `out`.
fn pretty_into(out: &mut Vec<u8>, value: &impl serde::Serialize, depth: usize) {
    let formatter = Pretty {
        depth,
        has_value: false,
    };
    let mut ser = serde_json::Serializer::with_formatter(out, formatter);
    value.serialize(&mut ser).expect("report serializes");
}

/// The indent of up to 16 levels, as deep as [`Spool::at_depth`] goes (the reports nest
/// their items 2, 4 and 6 deep).
const SPACES: &str = "                                ";

/// serde_json's `PrettyFormatter` with its two-space indent, writing each line break and
/// the indent after it as one slice: the original writes the indent once per level, and
/// every write into the buffer is a call to `memcpy` (4% of a `validate -r --format json`
/// run's instructions over AWorld's corpus, 1.4% over aoe's).
#[derive(Default)]
struct Pretty {
    depth: usize,
    has_value: bool,
}

impl Pretty {
    /// `[` or `{`: one level deeper, nothing in it yet.
    #[inline]
    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// `]` or `}`: on a line of its own unless the array or object is empty.
    #[inline]
    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.line(w, false)?;
        }
        w.write_all(bracket)
    }

    /// A line break, then the indent of the current depth.
    #[inline]
    fn line<W: ?Sized + std::io::Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        const SPACES: &[u8; 129] = &{
            let mut b = [b' '; 129];
            b[0] = b'\n';
            b
        };
        if comma {
            w.write_all(b",")?;
        }
        match SPACES.get(..1 + 2 * self.depth) {
            Some(run) => w.write_all(run),
            None => {
                w.write_all(b"\n")?;
                (0..self.depth).try_for_each(|_| w.write_all(b"  "))
            }
        }
    }
}

impl serde_json::ser::Formatter for Pretty {
    #[inline]
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    #[inline]
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    #[inline]
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }

    #[inline]
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    #[inline]
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    #[inline]
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    #[inline]
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.line(w, !first)
    }

    #[inline]
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    #[inline]
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spliced_document_is_what_serde_json_prints_whole() {
        // Past the spool's 1 MiB in memory, so the temporary file is used too; multi-byte
        // characters and one item longer than a read block, so pieces end at line breaks.
        let mut items: Vec<serde_json::Value> = (0..6000)
            .map(|i| serde_json::json!({ "i": i, "text": "x\ny é€ ".repeat(40), "list": [1, [], {}] }))
            .collect();
        items.insert(10, serde_json::json!(["é".repeat(100_000)]));
        let doc = |items: serde_json::Value, notes: serde_json::Value| serde_json::json!({ "head": { "n": 1 }, "deep": [{ "notes": notes }], "items": items });
        let whole = serde_json::to_string_pretty(&doc(
            serde_json::Value::from(items.clone()),
            serde_json::json!(["a", {"b": [2]}]),
        ))
        .unwrap();
        let skeleton = serde_json::to_string_pretty(&doc(
            serde_json::json!([HOLE]),
            serde_json::json!([HOLE]),
        ))
        .unwrap();
        // Items indented as the spool is drained, and items pushed already indented.
        for (items_depth, notes_depth) in [(None, None), (Some(2), Some(4))] {
            let spool = |depth: Option<usize>| depth.map_or_else(Spool::default, Spool::at_depth);
            let text =
                |v: &serde_json::Value, depth: Option<usize>| pretty_at(v, depth.unwrap_or(0));
            let (mut spool_, mut notes) = (spool(items_depth), spool(notes_depth));
            for item in &items {
                spool_.push(",\n", &text(item, items_depth)).unwrap();
            }
            notes
                .push(",\n", &text(&serde_json::json!("a"), notes_depth))
                .unwrap();
            notes
                .push(",\n", &text(&serde_json::json!({"b": [2]}), notes_depth))
                .unwrap();
            let mut out = String::new();
            splice(&skeleton, vec![notes, spool_], &mut |s: &str| {
                out.push_str(s);
                Ok(())
            })
            .unwrap();
            assert!(out.len() > 1 << 20);
            assert!(
                out == whole,
                "the spliced document differs ({items_depth:?})"
            );
        }
    }

    /// The line and column of `offset`, counted from the start of `text`: what
    /// [`Lines`] must agree with.
    fn line_col(text: &str, offset: usize) -> (usize, usize) {
        let before = &text[..floor_char_boundary(text, offset.min(text.len()))];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, col)
    }

    #[test]
    fn both_ends_count_as_each_alone() {
        let texts = ["", "a = 1\né = \"x\"\n", "\n\nk\n─╭ = 2\r\nv", "ééé\n"];
        for t in texts {
            for start in 0..=t.len() + 1 {
                for end in 0..=t.len() + 1 {
                    assert_eq!(
                        Lines::new(t).line_cols(&(start..end)),
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
        let lines = Lines::new(t);
        assert_eq!(lines.line_col(0), (1, 1));
        assert_eq!(lines.line_col(6), (2, 1));
        assert_eq!(lines.line_col(t.find('=').unwrap()), (1, 3));
        let second_eq = t.rfind('=').unwrap();
        assert_eq!(lines.line_col(second_eq), (2, 3));
    }

    /// A value of every shape: nested up to `depth` levels, empty and full arrays and
    /// objects, and strings to escape. (The test's `deep` value goes past the 64 levels
    /// `Pretty` writes from one slice.)
    fn value(seed: &mut u64, depth: usize) -> serde_json::Value {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let pick = (*seed >> 33) % 8;
        let n = ((*seed >> 40) % 4) as usize;
        match pick {
            _ if depth == 0 => serde_json::json!("leaf \"quoted\"\n\t\u{1}é"),
            0 => serde_json::Value::Null,
            1 => serde_json::json!(*seed % 1000),
            2 => serde_json::json!(-1.5),
            3 => serde_json::json!(format!("s{}\\{}", *seed % 7, "\u{7f}")),
            4 | 5 => serde_json::Value::Array((0..n).map(|_| value(seed, depth - 1)).collect()),
            _ => serde_json::Value::Object(
                (0..n)
                    .map(|i| (format!("k{i}\"\n"), value(seed, depth - 1)))
                    .collect(),
            ),
        }
    }

    #[test]
    fn pretty_writes_what_serde_json_writes() {
        let mut seed = 7;
        for round in 0..3000 {
            let v = value(&mut seed, 1 + round % 9);
            assert_eq!(pretty(&v), serde_json::to_string_pretty(&v).unwrap(), "{v}");
        }
        let mut deep = serde_json::json!([]);
        for i in 0..70 {
            deep = if i % 2 == 0 {
                serde_json::json!([1, deep, {}])
            } else {
                serde_json::json!({ "a": deep, "b": [] })
            };
        }
        assert_eq!(pretty(&deep), serde_json::to_string_pretty(&deep).unwrap());
    }
}
