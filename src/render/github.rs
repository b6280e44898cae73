//! `--format github`: workflow commands, so Actions annotates the diff, and a
//! Markdown job summary. See "Workflow commands for GitHub Actions":
//! `::error file=…,line=…,col=…::message`.

use super::{Lines, Sink, Spool, Tally, plural};
use crate::diagnostic::{Diagnostic, Severity};
use crate::validate::PluginReport;

/// GitHub shows at most this many annotations of each kind (error, warning,
/// notice) per step and drops the rest silently.
pub const ANNOTATIONS_PER_KIND: usize = 10;

/// Escape a message (`%`, CR, LF).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value (also `:` and `,`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Annotations left per kind, and what went over.
#[derive(Default)]
struct Budget {
    used: [usize; 3],
    /// The plain lines of what went over, one per line.
    over: Spool,
    over_counts: [usize; 3],
}

impl Budget {
    /// Take one annotation of `kind` (0 error, 1 warning, 2 notice); `false`
    /// once the kind's cap is reached.
    fn take(&mut self, kind: usize) -> bool {
        self.used[kind] += 1;
        if self.used[kind] <= ANNOTATIONS_PER_KIND {
            return true;
        }
        self.over_counts[kind] += 1;
        false
    }
}

/// One workflow command per diagnostic, up to GitHub's caps; the rest as plain
/// log lines in a group, then a line saying how many were not annotated.
/// `file` names a report's manifest as the annotation's `file=` (relative to
/// the repository root, so annotations land under any `working-directory:`).
pub fn render(reports: &[PluginReport], file: impl Fn(&PluginReport) -> String) -> String {
    let mut stream = GithubStream::default();
    let mut out = String::new();
    for r in reports {
        out.push_str(
            &stream
                .push(r, &file(r))
                .expect("a spool in memory does not fail"),
        );
    }
    let mut sink = |s: &str| {
        out.push_str(s);
        Ok(())
    };
    stream
        .finish(&mut sink)
        .expect("rendering into a String does not fail");
    out
}

/// The workflow commands, one report at a time: annotations are written at
/// once, what goes over GitHub's caps waits in a [`Spool`] for the group at the end.
#[derive(Default)]
pub struct GithubStream {
    budget: Budget,
    tally: Tally,
}

impl GithubStream {
    /// The annotations for one report, whose manifest is `file`.
    pub fn push(&mut self, r: &PluginReport, file: &str) -> std::io::Result<String> {
        self.tally.add(r);
        let budget = &mut self.budget;
        let mut out = String::new();
        let text = r.source.as_deref().unwrap_or_default();
        let lines = Lines::new(text);
        for d in &r.outcome.diagnostics {
            let (kind, index) = match d.severity {
                Severity::Error => ("error", 0),
                Severity::Warning => ("warning", 1),
            };
            let position = d
                .labels
                .first()
                .filter(|_| !text.is_empty())
                .map(|label| lines.line_cols(&label.span));
            if !budget.take(index) {
                budget
                    .over
                    .push("\n", &plain_line(file, position, kind, d))?;
                continue;
            }
            let mut props = vec![format!("file={}", escape_property(file))];
            if let Some(((line, col), (end_line, end_col))) = position {
                props.push(format!("line={line}"));
                props.push(format!("col={col}"));
                if end_line == line && end_col > col {
                    props.push(format!("endColumn={end_col}"));
                } else if end_line > line {
                    props.push(format!("endLine={end_line}"));
                }
            }
            props.push(format!("title={}", escape_property(d.code.as_str())));
            out.push_str(&format!(
                "::{kind} {}::{}\n",
                props.join(","),
                escape_data(&message(d))
            ));
        }
        if let Some(note) = super::human::skipped_note(r) {
            if budget.take(2) {
                out.push_str(&format!(
                    "::notice file={}::{}\n",
                    escape_property(file),
                    escape_data(&note)
                ));
            } else {
                budget
                    .over
                    .push("\n", &indent(&format!("{file}: note: {note}")))?;
            }
        }
        Ok(out)
    }

    /// The group of what was not annotated, and the summary line.
    pub fn finish(self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        let budget = self.budget;
        if !budget.over.is_empty() {
            let [errors, warnings, notices] = budget.over_counts;
            let mut what = Vec::new();
            for (n, word) in [(errors, "error"), (warnings, "warning"), (notices, "note")] {
                if n > 0 {
                    what.push(plural(n, word));
                }
            }
            let what = match what.as_slice() {
                [rest @ .., last] if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => what.join(""),
            };
            sink(&format!("::group::Not annotated: {what}\n"))?;
            budget.over.drain("", sink)?;
            sink("\n::endgroup::\n")?;
            sink(&format!(
                "note: GitHub annotates at most {ANNOTATIONS_PER_KIND} errors, \
                 {ANNOTATIONS_PER_KIND} warnings and {ANNOTATIONS_PER_KIND} notes per step; \
                 {what} are listed in the group above instead\n"
            ))?;
        }
        sink(&super::human::summary_of(&self.tally))?;
        sink("\n")
    }
}

fn message(d: &Diagnostic) -> String {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    message
}

/// `file:line:col: error plugins::area::kind: message`, as compilers print.
fn plain_line(
    file: &str,
    position: Option<((usize, usize), (usize, usize))>,
    kind: &str,
    d: &Diagnostic,
) -> String {
    let at = match position {
        Some(((line, col), _)) => format!("{file}:{line}:{col}"),
        None => file.to_owned(),
    };
    indent(&format!("{at}: {kind} {}: {}", d.code, message(d)))
}

/// Continuation lines are indented, so no line of a message can start a
/// workflow command (`::`).
fn indent(s: &str) -> String {
    s.replace('\r', "").replace('\n', "\n    ")
}

/// The job summary, one report at a time: the table rows and the diagnostics
/// wait in a [`Spool`] each.
#[derive(Default)]
pub struct JobSummary {
    rows: Spool,
    details: Spool,
    tally: Tally,
}

impl JobSummary {
    /// Add one report, whose manifest is `file`.
    pub fn push(&mut self, r: &PluginReport, file: &str) -> std::io::Result<()> {
        self.tally.add(r);
        let plugin = match (&r.outcome.id, &r.outcome.version) {
            (Some(id), Some(v)) => format!("{} {}", cell(&code(id)), cell(&html(v))),
            (Some(id), None) => cell(&code(id)),
            _ => "—".to_owned(),
        };
        let dialect = r.dialect.map_or("—".to_owned(), |d| d.to_string());
        let verdict = if r.is_valid() {
            "✅ valid"
        } else {
            "❌ invalid"
        };
        self.rows.push(
            "",
            &format!(
                "| {plugin} | {dialect} | {} | {verdict} | {} | {} |\n",
                cell(&code(file)),
                r.errors(),
                r.warnings()
            ),
        )?;
        let text = r.source.as_deref().unwrap_or_default();
        let lines = Lines::new(text);
        for d in &r.outcome.diagnostics {
            let at = match d.labels.first().filter(|_| !text.is_empty()) {
                Some(l) => {
                    let (line, col) = lines.line_col(l.span.start);
                    format!("{file}:{line}:{col}")
                }
                None => file.to_owned(),
            };
            let mark = if d.is_error() { "❌" } else { "⚠️" };
            self.details.push(
                "",
                &format!(
                    "- {mark} {} {}: {}\n",
                    code(&at),
                    code(d.code.as_str()),
                    html(&d.message).replace('\n', " ")
                ),
            )?;
        }
        Ok(())
    }

    pub fn finish(self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        sink("\n### `plugins validate`\n\n")?;
        sink("| plugin | dialect | manifest | verdict | errors | warnings |\n")?;
        sink("|---|---|---|---|---:|---:|\n")?;
        self.rows.drain("", sink)?;
        sink(&format!("\n{}\n", super::human::summary_of(&self.tally)))?;
        if !self.details.is_empty() {
            sink("\n<details><summary>Diagnostics</summary>\n\n")?;
            self.details.drain("", sink)?;
            sink("\n</details>\n")?;
        }
        sink("\n")
    }
}

/// Inline code that survives any content: fenced with more backticks than
/// it contains.
fn code(s: &str) -> String {
    let longest = s
        .split(|c| c != '`')
        .map(str::len)
        .max()
        .unwrap_or_default();
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A table cell: `|` escaped (GitHub unescapes it inside code spans too).
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// Text from a manifest never becomes markup.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(indent("a\n::error::x"), "a\n    ::error::x");
        assert_eq!(cell(&code("a|b")), "`a\\|b`");
        assert_eq!(code("x`y"), "``x`y``");
        assert_eq!(code("`y"), "`` `y ``");
        assert_eq!(html("<b>&"), "&lt;b&gt;&amp;");
    }
}
