//! Human output: miette's graphical reports plus cargo-style status lines. The words and
//! wrapping miette's textwrap would find are in `wrap.rs`, the reports drawn without miette
//! (the same bytes, sooner) in `layout.rs`.

use std::fmt;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

mod layout;
mod wrap;

use layout::draw;
#[cfg(test)]
use wrap::{PLAIN_PUNCTUATION, plain};
use wrap::{prewrap, words};

use super::{display_path, plural};
use crate::diagnostic::{Diagnostic, Severity};
use crate::validate::PluginReport;

/// How to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
pub struct Source<'t> {
    name: String,
    text: &'t str,
    /// Where each line starts, as miette counts lines (`\n`, `\r\n` or a lone `\r`).
    starts: Vec<usize>,
    /// Whether a line ends in `\r` (then [`Source::context`] leaves it to miette).
    has_cr: bool,
}

impl<'t> Source<'t> {
    pub fn new(name: String, text: &'t str) -> Source<'t> {
        let bytes = text.as_bytes();
        let has_cr = memchr::memchr(b'\r', bytes).is_some();
        let mut starts = vec![0];
        if has_cr {
            let mut at = 0;
            while let Some(i) = memchr::memchr2(b'\n', b'\r', &bytes[at..]).map(|i| at + i) {
                at = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                    i + 2
                } else {
                    i + 1
                };
                starts.push(at);
            }
        } else {
            // Only `\n` ends a line: one pass over the text, not a search per line.
            starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        }
        Source {
            name,
            text,
            starts,
            has_cr,
        }
    }
}

impl SourceCode for Source<'_> {
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

/// One diagnostic as miette reads it: its message and help are given separately, so
/// text already wrapped ([`prewrap`]) can stand in for the diagnostic's own.
struct Shown<'a> {
    d: &'a Diagnostic,
    message: &'a str,
    help: Option<&'a str>,
    src: Option<&'a Source<'a>>,
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
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
        self.help.map(|h| Box::new(h) as Box<dyn fmt::Display>)
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
    GraphicalReportHandler::new_themed(theme(style))
        .with_width(style.width)
        .with_links(false)
        .with_break_words(false)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_word_separator(textwrap::WordSeparator::Custom(words))
}

fn theme(style: Style) -> GraphicalTheme {
    if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    }
}

/// The help's indents, as miette draws them: its first line's and the rest's.
const HELP_INDENTS: (&str, &str) = ("  help: ", "        ");

/// Render one diagnostic against its (optional) source.
pub fn diagnostic(d: &Diagnostic, src: Option<&Source>, style: Style) -> String {
    let mut out = String::new();
    render_with(&Handlers::new(style), d, src, &mut out);
    out
}

/// The ways a report is drawn: by miette's handler, which wraps the message and the help
/// itself (textwrap's `fill`, most of the cost of a human report's text); when [`prewrap`]
/// has wrapped both already, by the same handler with its wrapping off, which only puts
/// each line after its indent; and, for the shapes [`draw`] knows, without miette. The
/// lines and indents are the same. miette's handlers are built when first needed.
struct Handlers {
    style: Style,
    wrapping: std::cell::OnceCell<GraphicalReportHandler>,
    prewrapped: std::cell::OnceCell<GraphicalReportHandler>,
    /// The theme's characters, for the reports drawn here ([`draw`]), and the message's
    /// indents: an error's first line's, a warning's, and the rest's.
    chars: miette::ThemeCharacters,
    indents: [String; 3],
    /// The width miette wraps the message and the help to.
    width: usize,
    /// The widths of the message's indents (the first line's, after an error's or a
    /// warning's icon, and the rest's, after the bar) and the help's.
    error: (usize, usize),
    warning: (usize, usize),
    help: (usize, usize),
}

impl Handlers {
    fn new(style: Style) -> Handlers {
        let chars = theme(style).characters;
        let indents = [
            format!("  {} ", chars.error),
            format!("  {} ", chars.warning),
            format!("  {} ", chars.vbar),
        ];
        let width = |s: &str| textwrap::core::display_width(s);
        let rest = width(&indents[2]);
        let error = (width(&indents[0]), rest);
        let warning = (width(&indents[1]), rest);
        Handlers {
            style,
            wrapping: std::cell::OnceCell::new(),
            prewrapped: std::cell::OnceCell::new(),
            chars,
            indents,
            width: style.width.saturating_sub(2),
            error,
            warning,
            help: (width(HELP_INDENTS.0), width(HELP_INDENTS.1)),
        }
    }

    /// The handlers for `style`, made once per thread for a run's reports.
    fn for_style(style: Style) -> std::rc::Rc<Handlers> {
        thread_local! {
            static LAST: std::cell::RefCell<Option<std::rc::Rc<Handlers>>> =
                const { std::cell::RefCell::new(None) };
        }
        LAST.with_borrow_mut(|last| match last {
            Some(h) if h.style == style => std::rc::Rc::clone(h),
            _ => std::rc::Rc::clone(last.insert(std::rc::Rc::new(Handlers::new(style)))),
        })
    }

    fn wrapping(&self) -> &GraphicalReportHandler {
        self.wrapping.get_or_init(|| handler(self.style))
    }

    fn prewrapped(&self) -> &GraphicalReportHandler {
        self.prewrapped
            .get_or_init(|| handler(self.style).with_wrap_lines(false))
    }
}

fn render_with(h: &Handlers, d: &Diagnostic, src: Option<&Source>, out: &mut String) {
    let indents = match d.severity {
        Severity::Error => h.error,
        Severity::Warning => h.warning,
    };
    let message = prewrap(&d.message, h.width, indents);
    let help = match &d.help {
        None => Some(None),
        Some(help) => prewrap(help, h.width, h.help).map(Some),
    };
    let (handler, message, help) = match (&message, &help) {
        (Some(message), Some(help)) => {
            if draw(h, d, message, help.as_deref(), src, out) {
                return;
            }
            (h.prewrapped(), message.as_str(), help.as_deref())
        }
        _ => (h.wrapping(), d.message.as_str(), d.help.as_deref()),
    };
    let shown = Shown {
        d,
        message,
        help,
        src,
    };
    // Rendering into a String cannot fail.
    let _ = handler.render_report(out, &shown);
}

/// `text`'s lines, the first after `first` and the rest after `rest`, each ending in `\n`.
fn indented(out: &mut String, text: &str, first: &str, rest: &str) {
    for (i, line) in text.split('\n').enumerate() {
        out.push_str(if i == 0 { first } else { rest });
        out.push_str(line);
        out.push('\n');
    }
}

/// Everything for one plugin: its diagnostics, then a status line.
pub fn report(r: &PluginReport, style: Style) -> String {
    let mut out = String::new();
    if !r.outcome.diagnostics.is_empty() {
        let src = r
            .source
            .as_ref()
            .map(|text| Source::new(display_path(&r.manifest), text));
        let handlers = Handlers::for_style(style);
        for d in &r.outcome.diagnostics {
            render_with(&handlers, d, src.as_ref(), &mut out);
        }
    }
    if let Some(note) = skipped_note(r) {
        note_lines(&note, style.width, &mut out);
    }
    out.push_str(&status_line(r));
    out.push('\n');
    out
}

/// `note` after `  note: `, wrapped to `width` as textwrap's `wrap` wraps it (by
/// [`prewrap`] when it can), each line ending in `\n`.
fn note_lines(note: &str, width: usize, out: &mut String) {
    let width = width.saturating_sub(2);
    match prewrap(note, width, (8, 8)) {
        Some(lines) => indented(out, &lines, "  note: ", "        "),
        None => {
            let options = textwrap::Options::new(width)
                .initial_indent("  note: ")
                .subsequent_indent("        ")
                .break_words(false)
                .word_separator(textwrap::WordSeparator::Custom(words))
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            for line in textwrap::wrap(note, options) {
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
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
    use crate::diagnostic::Code;

    /// [`words`] gives the words textwrap's Unicode line breaking gives, a path or URL kept
    /// whole ([`super::wrap::whole_paths`]): on every string of
    /// up to four characters drawn from one or two of each line-breaking class the plain
    /// lines hold (and the punctuation that makes a line not plain), and on random lines of
    /// every allowed character.
    #[test]
    fn plain_lines_split_at_spaces_as_unicode_line_breaking_does() {
        let unicode = |s: &str| -> Vec<(String, String, String)> {
            let words = textwrap::WordSeparator::UnicodeBreakProperties.find_words(s);
            super::wrap::whole_paths(s, words)
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
            let ours = Source::new("m.toml".into(), text);
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

    /// `Source::context` reads what miette's `read_span(span, 1, 1)` reads, for every span
    /// within one line of texts of every shape without `\r`, and declines every other.
    #[test]
    fn context_is_what_miette_reads() {
        let mut seed = 11u64;
        let mut next = move |n: usize| -> usize {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as usize) % n.max(1)
        };
        const PIECES: &[&str] = &["a", "bc", " ", "\n", "\n", "\n\n", "é", "\r"];
        let mut read = 0;
        for _ in 0..3_000 {
            let pieces = if next(5) == 0 { PIECES } else { &PIECES[..7] };
            let text: String = (0..next(25)).map(|_| pieces[next(pieces.len())]).collect();
            let src = Source::new("m".into(), &text);
            for start in 0..text.len() {
                for end in start + 1..=text.len() {
                    let (Some(ours), true) =
                        (src.context(start, end), text.is_char_boundary(start))
                    else {
                        continue;
                    };
                    let span = SourceSpan::new(start.into(), end - start);
                    let theirs = src.read_span(&span, 1, 1).unwrap();
                    let theirs = (
                        std::str::from_utf8(theirs.data()).unwrap(),
                        theirs.span().offset(),
                        theirs.line(),
                    );
                    assert_eq!(ours, theirs, "{text:?} {start}..{end}");
                    read += 1;
                }
            }
            let within_a_line = |start: usize, end: usize| !text[start..end].contains('\n');
            for start in 0..text.len() {
                for end in start + 1..=text.len() {
                    if text.is_char_boundary(start) && text.is_char_boundary(end) {
                        assert_eq!(
                            src.context(start, end).is_some(),
                            !text.contains('\r') && within_a_line(start, end),
                            "{text:?} {start}..{end}"
                        );
                    }
                }
            }
        }
        assert!(read > 10_000, "{read}");
    }

    /// Reports drawn here ([`draw`]) and through miette's unwrapping handler (text
    /// [`prewrap`]ped) are, byte for byte, what miette's own wrapping handler draws: on
    /// random reports of every shape (no label, one or two labels, spans on one line, over
    /// lines, empty or past a line's end; texts with tabs, `\r`, non-ASCII, empty lines,
    /// no final newline; messages and help of one or more lines, plain or not; every
    /// width from 1; both severities; with and without color).
    #[test]
    fn reports_are_drawn_as_miette_draws_them() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move |n: usize| -> usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let pick = |next: &mut dyn FnMut(usize) -> usize, from: &[&str]| -> String {
            from[next(from.len())].to_owned()
        };
        // The first of each list are what the fast paths take; a round draws from the rest
        // too only now and then.
        const SOURCE: &[&str] = &[
            "a",
            "id",
            " ",
            "=",
            "\"x\"",
            "[t]",
            "# c",
            ".",
            "1",
            "\n",
            "\n",
            "\n",
            "version = \"1.0\"",
            "{",
            "}",
            "\t",
            "é",
            "\r\n",
            "\r",
        ];
        const WORDS: &[&str] = &[
            "the",
            "plugin",
            "id",
            "`x`",
            "\"aoe.web\"",
            "a/b/c",
            "path/to/file.png",
            "(see",
            "docs)",
            "x,",
            "y.",
            "averyveryverylongwordthatdoesnotfit",
            "e.g.",
            "-",
            "{{",
            " / ",
            "é",
            "  ",
            "\n",
            "sha256:4b86786a52854b908e7f6279568d09eb1b8761089e3e706bb7c5d0c42e39fde7",
        ];
        let mut drawn = 0;
        let mut prewrapped = 0;
        for round in 0..10_000 {
            let source = if next(4) == 0 { SOURCE } else { &SOURCE[..15] };
            let text: String = (0..next(40)).map(|_| pick(&mut next, source)).collect();
            let wild = next(4) == 0;
            let words = |next: &mut dyn FnMut(usize) -> usize| -> String {
                let from = if wild || next(10) == 0 {
                    WORDS
                } else {
                    &WORDS[..13]
                };
                let n = 1 + next(25);
                let mut t = String::new();
                for i in 0..n {
                    if i > 0 {
                        t.push(' ');
                    }
                    t.push_str(&pick(next, from));
                }
                if next(6) == 0 {
                    t.push('\n');
                    t.push_str(&pick(next, from));
                }
                t
            };
            let code = Code::ALL[next(Code::ALL.len())];
            let mut d = Diagnostic::new(code, words(&mut next));
            if next(2) == 0 {
                d = d.with_severity(Severity::Warning);
            }
            if next(3) > 0 {
                d = d.with_help(words(&mut next));
            }
            for _ in 0..[0, 1, 1, 1, 1, 2][next(6)] {
                let len = text.len();
                let start = next(len + 1);
                let mut end = start + [0, 1, 1, 2, 3, 5, 8, 30][next(8)];
                end = end.min(len);
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                let mut start = start;
                while !text.is_char_boundary(start) {
                    start -= 1;
                }
                let label = match next(3) {
                    0 => None,
                    1 => Some(String::new()),
                    _ => Some(words(&mut next)),
                };
                d = d.with_label(start..end, label);
            }
            let style = Style {
                color: next(4) == 0,
                width: 1 + next(130),
            };
            let src = Source::new(format!("p{round}/m.toml"), &text);
            let src = (next(8) > 0).then_some(&src);
            let mut theirs = String::new();
            let shown = Shown {
                d: &d,
                message: &d.message,
                help: d.help.as_deref(),
                src,
            };
            handler(style).render_report(&mut theirs, &shown).unwrap();
            let h = Handlers::new(style);
            let mut ours = String::new();
            render_with(&h, &d, src, &mut ours);
            assert_eq!(ours, theirs, "{d:?} {style:?} {text:?}");
            // Count the ways it was drawn.
            let indents = if d.is_error() { h.error } else { h.warning };
            let message = prewrap(&d.message, h.width, indents);
            let help = d.help.as_deref().map(|t| prewrap(t, h.width, h.help));
            if let (Some(message), None | Some(Some(_))) = (&message, &help) {
                prewrapped += 1;
                let help = help.flatten();
                drawn += usize::from(draw(
                    &h,
                    &d,
                    message,
                    help.as_deref(),
                    src,
                    &mut String::new(),
                ));
            }
        }
        assert!(
            drawn > 2_000 && prewrapped > drawn + 3_000,
            "{drawn} {prewrapped}"
        );
    }

    /// A skipped-checks note is wrapped as textwrap's `wrap` wraps it, at every width, for
    /// every note validation writes and for ones [`prewrap`] leaves to textwrap.
    #[test]
    fn notes_are_wrapped_as_textwrap_wraps_them() {
        let notes = [
            "further checks skipped until this is fixed: the schema, the semantic checks and the lints",
            "further checks skipped until this is fixed: the loader's checks (entry points, paths)",
            "further checks skipped until this is fixed: everything",
            "a/b/c/d e.g. (x) [y] sha256:0123456789abcdef0123456789abcdef",
            "not plain: é and a  double space",
            " leading space",
            "two\nlines",
            "",
        ];
        for note in notes {
            for width in 0..140 {
                let mut ours = String::new();
                note_lines(note, width, &mut ours);
                let options = textwrap::Options::new(width.saturating_sub(2))
                    .initial_indent("  note: ")
                    .subsequent_indent("        ")
                    .break_words(false)
                    .word_separator(textwrap::WordSeparator::Custom(words))
                    .word_splitter(textwrap::WordSplitter::NoHyphenation);
                let theirs: String = textwrap::wrap(note, options)
                    .iter()
                    .map(|l| format!("{l}\n"))
                    .collect();
                assert_eq!(ours, theirs, "{note:?} at {width}");
            }
        }
    }
}
