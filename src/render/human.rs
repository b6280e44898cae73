//! Human output: miette's graphical reports plus cargo-style status lines.

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use super::display_path;
use crate::diagnostic::{Diagnostic, Severity};
use crate::validate::PluginReport;

/// How to draw.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

/// A manifest's text as miette reads it: what `NamedSource<String>` gives, without
/// rescanning the text from its first byte for every label and context.
///
/// miette's own reading walks from byte 0 to the end of each span's context, for each
/// of the several reads a report makes per label; on a `validate -r` report that was
/// the largest single cost of the human output. The line starts are found once here,
/// and miette's own reading runs from the start of a line far enough before the span
/// (one more line than its context, so none of its per-byte decisions about the span
/// can differ), with line numbers and offsets shifted back. A test compares every
/// field with `NamedSource`'s on texts with `\n`, `\r\n` and lone `\r` endings.
pub struct Source {
    name: String,
    text: String,
    /// Where each line starts, as miette counts lines (`\n`, `\r\n` or a lone `\r`).
    starts: Vec<usize>,
}

impl Source {
    pub fn new(name: String, text: String) -> Source {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut at = 0;
        while let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[at..]).map(|i| at + i) {
            at = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i + 2
            } else {
                i + 1
            };
            starts.push(at);
        }
        Source { name, text, starts }
    }
}

impl SourceCode for Source {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // The line holding the span's start, and the line `context_lines_before + 1`
        // lines above it: lines before that one only move the numbers.
        let line = self.starts.partition_point(|s| *s <= span.offset()) - 1;
        let skipped = line.saturating_sub(context_lines_before.saturating_add(1));
        let from = self.starts[skipped];
        let inner = <[u8] as SourceCode>::read_span(
            &self.text.as_bytes()[from..],
            &SourceSpan::new((span.offset() - from).into(), span.len()),
            context_lines_before,
            context_lines_after,
        )?;
        let at = SourceSpan::new((inner.span().offset() + from).into(), inner.span().len());
        Ok(Box::new(
            MietteSpanContents::new_named(
                self.name.clone(),
                inner.data(),
                at,
                inner.line() + skipped,
                inner.column(),
                inner.line_count() + skipped,
            )
            .with_language("toml"),
        ))
    }
}

struct Shown<'a> {
    d: &'a Diagnostic,
    src: Option<&'a Source>,
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for Shown<'_> {}

impl miette::Diagnostic for Shown<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.d.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.d
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.src.map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.src?;
        Some(Box::new(self.d.labels.iter().enumerate().map(|(i, l)| {
            let span = (l.span.start, l.span.end - l.span.start);
            if i == 0 {
                LabeledSpan::new_primary_with_span(l.text.clone(), span)
            } else {
                LabeledSpan::new_with_span(l.text.clone(), span)
            }
        })))
    }
}

/// The miette handler every graphical report uses. Words never break at
/// hyphens, so codes and `kebab-case` names stay whole.
pub fn handler(style: Style) -> GraphicalReportHandler {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_break_words(false)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_word_separator(textwrap::WordSeparator::Custom(words))
}

/// The punctuation, besides letters, digits and spaces, of the lines [`words`] splits
/// itself.
const PLAIN_PUNCTUATION: &[u8] = b"\"#&'*<=>@^_`~.,:;()[]-/";

/// Whether [`plain_words`] splits `line` as the Unicode line-breaking rules (UAX #14, as
/// textwrap applies them) do: it holds only letters, digits, spaces and
/// [`PLAIN_PUNCTUATION`], no space before `.` `,` `:` `;` `)` `]` `/` (no break before
/// those), no space after `(` `[` and none of `.` `,` `:` `;` `)` `]` before them (no
/// break after an opening bracket, a break before one that follows closing punctuation),
/// and it does not end in `-` (textwrap then drops the line's last break).
fn plain(line: &str) -> bool {
    let b = line.as_bytes();
    for (i, c) in b.iter().enumerate() {
        if !(c.is_ascii_alphanumeric() || *c == b' ' || PLAIN_PUNCTUATION.contains(c)) {
            return false;
        }
        let prev = if i > 0 { b[i - 1] } else { 0 };
        let next = b.get(i + 1).copied().unwrap_or(0);
        let breaks_elsewhere = match c {
            b'.' | b',' | b':' | b';' | b')' | b']' | b'/' => prev == b' ',
            b'(' | b'[' => next == b' ' || b".,:;)]".contains(&prev),
            _ => false,
        };
        if breaks_elsewhere {
            return false;
        }
    }
    !line.ends_with('-')
}

/// The words of a [`plain`] line: each runs to the end of the spaces after it, or ends
/// after a `/` that a letter, an opening bracket or other alphabetic punctuation follows
/// (a path's `/`).
fn plain_words(line: &str) -> impl Iterator<Item = textwrap::core::Word<'_>> + '_ {
    let b = line.as_bytes();
    let ends = (1..b.len())
        .filter(move |i| {
            let (prev, next) = (b[i - 1], b[*i]);
            (prev == b' ' && next != b' ')
                || (prev == b'/'
                    && (next.is_ascii_alphabetic() || b"#&*<=>@^_`~([".contains(&next)))
        })
        .chain((!line.is_empty()).then_some(line.len()));
    let mut start = 0;
    ends.map(move |end| {
        let word = textwrap::core::Word::from(&line[start..end]);
        start = end;
        word
    })
}

/// The words miette wraps a line at: textwrap's Unicode line breaking, which costs a
/// line-break segmenter per line (most of the human output's wrapping), taken only for
/// lines that are not [`plain`]; those are split by [`plain_words`], which gives the same
/// words. A test compares the two on every short string of each line-breaking class
/// involved, and on random lines.
fn words(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
    if plain(line) {
        Box::new(plain_words(line))
    } else {
        textwrap::WordSeparator::UnicodeBreakProperties.find_words(line)
    }
}

/// Render one diagnostic against its (optional) source.
pub fn diagnostic(d: &Diagnostic, src: Option<&Source>, style: Style) -> String {
    let mut out = String::new();
    render_with(&handler(style), d, src, &mut out);
    out
}

fn render_with(
    handler: &GraphicalReportHandler,
    d: &Diagnostic,
    src: Option<&Source>,
    out: &mut String,
) {
    let shown = Shown { d, src };
    // Rendering into a String cannot fail.
    let _ = handler.render_report(out, &shown);
}

/// Everything for one plugin: its diagnostics, then a status line.
pub fn report(r: &PluginReport, style: Style) -> String {
    let mut out = String::new();
    if !r.outcome.diagnostics.is_empty() {
        let src = r
            .source
            .as_ref()
            .map(|text| Source::new(display_path(&r.manifest), text.clone()));
        let handler = handler(style);
        for d in &r.outcome.diagnostics {
            render_with(&handler, d, src.as_ref(), &mut out);
        }
    }
    if let Some(note) = skipped_note(r) {
        let options = textwrap::Options::new(style.width.saturating_sub(2))
            .initial_indent("  note: ")
            .subsequent_indent("        ")
            .break_words(false)
            .word_separator(textwrap::WordSeparator::Custom(words))
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        for line in textwrap::wrap(&note, options) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(&status_line(r));
    out.push('\n');
    out
}

/// Where validation stopped early, as the host does: what else would have been checked.
pub fn skipped_note(r: &PluginReport) -> Option<String> {
    r.outcome
        .skipped
        .map(|what| format!("further checks skipped until this is fixed: {what}"))
}

fn status_line(r: &PluginReport) -> String {
    let what = match (&r.outcome.id, r.dialect) {
        (Some(id), Some(d)) => match &r.outcome.version {
            Some(v) => format!("{d} plugin `{id}` {v}"),
            None => format!("{d} plugin `{id}`"),
        },
        (None, Some(d)) => format!("{d} plugin"),
        _ => "plugin".to_owned(),
    };
    let counts = match (r.errors(), r.warnings()) {
        (0, 0) => String::new(),
        (e, w) => format!(" ({})", count_phrase(e, w)),
    };
    let verb = if r.is_valid() { "Valid" } else { "Invalid" };
    format!("{verb:>9} {what} at {}{counts}", display_path(&r.root))
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn count_phrase(errors: usize, warnings: usize) -> String {
    match (errors, warnings) {
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

/// The closing line for a run.
pub fn summary(reports: &[PluginReport]) -> String {
    summary_of(&super::Tally::of(reports))
}

/// The closing line for a run, from its counts.
pub fn summary_of(t: &super::Tally) -> String {
    let tally = if t.errors + t.warnings == 0 {
        String::new()
    } else {
        format!("; {}", count_phrase(t.errors, t.warnings))
    };
    format!(
        "{}: {} valid, {} invalid{tally}",
        plural(t.plugins, "plugin"),
        t.plugins - t.invalid,
        t.invalid
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`words`] gives the words textwrap's Unicode line breaking gives: on every string of
    /// up to four characters drawn from one or two of each line-breaking class the plain
    /// lines hold (and the punctuation that makes a line not plain), and on random lines of
    /// every allowed character. (A release run of the same comparison over all 5.5 million
    /// plain strings of up to five such characters found no difference either.)
    #[test]
    fn plain_lines_split_at_spaces_as_unicode_line_breaking_does() {
        let unicode = |s: &str| -> Vec<(String, String, String)> {
            textwrap::WordSeparator::UnicodeBreakProperties
                .find_words(s)
                .map(|w| {
                    (
                        w.word.to_owned(),
                        w.whitespace.to_owned(),
                        w.penalty.to_owned(),
                    )
                })
                .collect()
        };
        let ours = |s: &str| -> Vec<(String, String, String)> {
            words(s)
                .map(|w| {
                    (
                        w.word.to_owned(),
                        w.whitespace.to_owned(),
                        w.penalty.to_owned(),
                    )
                })
                .collect()
        };
        let classes: Vec<char> = "a1 \"#.,:;()[]-`'=_&~Z/?!}|".chars().collect();
        let mut plain = 0;
        let mut check = |s: &str| {
            plain += usize::from(super::plain(s));
            assert_eq!(ours(s), unicode(s), "{s:?}");
        };
        let n = classes.len();
        for len in 1..=4u32 {
            for mut i in 0..n.pow(len) {
                let mut s = String::new();
                for _ in 0..len {
                    s.push(classes[i % n]);
                    i /= n;
                }
                check(&s);
            }
        }
        let every: Vec<char> = ('a'..='z')
            .chain('A'..='Z')
            .chain('0'..='9')
            .chain(" ".chars())
            .chain(PLAIN_PUNCTUATION.iter().map(|b| char::from(*b)))
            .collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 60) as usize;
            let s: String = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    every[(x % every.len() as u64) as usize]
                })
                .collect();
            check(&s);
        }
        assert!(plain > 100_000, "{plain}");
    }

    /// Every field miette reads from a span (bytes, span, line, column, line count, name,
    /// language), or its error, is what `NamedSource<String>` gives: for every span of
    /// texts ending lines each way, at the contexts miette asks for and more.
    #[test]
    fn source_reads_spans_as_named_source_does() {
        let texts = [
            "",
            "a",
            "id = \"x\"\nversion = \"1\"\n\n[runtime]\nkind = \"command\"\n",
            "a\r\nbb\r\n\r\nccc\rdd\r\n",
            "\n\n\nx = 1\n\n",
            "\r\r\n\n\rlast",
            "k = \"é─╭\"\nv = 2\r\nw\n",
        ];
        let mut checked = 0;
        for text in texts {
            let ours = Source::new("m.toml".into(), text.to_owned());
            let theirs = miette::NamedSource::new("m.toml", text.to_owned()).with_language("toml");
            // Spans inside the text: miette's own reading panics on some past its end.
            for start in 0..=text.len() {
                for len in 0..=(text.len() - start) {
                    let span = SourceSpan::new(start.into(), len);
                    for (before, after) in [(0, 0), (1, 1), (2, 2), (0, 3), (3, 0)] {
                        let a = ours.read_span(&span, before, after);
                        let b = theirs.read_span(&span, before, after);
                        let what = format!("{text:?} {start}+{len} context {before}/{after}");
                        match (a, b) {
                            (Ok(a), Ok(b)) => {
                                assert_eq!(a.data(), b.data(), "{what}");
                                assert_eq!(a.span(), b.span(), "{what}");
                                assert_eq!(a.line(), b.line(), "{what}");
                                assert_eq!(a.column(), b.column(), "{what}");
                                assert_eq!(a.line_count(), b.line_count(), "{what}");
                                assert_eq!(a.name(), b.name(), "{what}");
                                assert_eq!(a.language(), b.language(), "{what}");
                            }
                            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                            (a, b) => panic!("{what}: {:?} vs {:?}", a.is_ok(), b.is_ok()),
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 2_000, "{checked}");
    }
}
