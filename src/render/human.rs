//! Human output: miette's graphical reports plus cargo-style status lines.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};

use super::display_path;
use crate::diagnostic::{Diagnostic, Severity};
use crate::validate::PluginReport;

/// How to draw.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

struct Shown<'a> {
    d: &'a Diagnostic,
    src: Option<&'a NamedSource<String>>,
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
}

/// Render one diagnostic against its (optional) source.
pub fn diagnostic(d: &Diagnostic, src: Option<&NamedSource<String>>, style: Style) -> String {
    let mut out = String::new();
    render_with(&handler(style), d, src, &mut out);
    out
}

fn render_with(
    handler: &GraphicalReportHandler,
    d: &Diagnostic,
    src: Option<&NamedSource<String>>,
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
        let src = r.source.as_ref().map(|text| {
            NamedSource::new(display_path(&r.manifest), text.clone()).with_language("toml")
        });
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
