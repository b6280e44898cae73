//! `--format json`: one document for the whole run.

use serde::Serialize;
use serde::ser::SerializeStruct as _;

use super::{HOLE, Lines, Sink, Spool, Tally, display_path};
use crate::diagnostic::{Code, Severity};
use crate::dialect::Dialect;
use crate::manifest::HostClass;
use crate::validate::PluginReport;

/// Bumped when a field changes meaning or disappears; additions keep it.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<P> {
    format_version: u32,
    valid: bool,
    aoe_api: u32,
    summary: Summary,
    plugins: P,
}

#[derive(Serialize)]
struct Summary {
    plugins: usize,
    valid: usize,
    invalid: usize,
    errors: usize,
    warnings: usize,
}

#[derive(Serialize)]
struct Plugin<'a> {
    root: String,
    manifest: String,
    dialect: Option<Dialect>,
    id: Option<&'a str>,
    version: Option<&'a str>,
    valid: bool,
    host: Host<'a>,
    manifest_hash: Option<&'a str>,
    diagnostics: Vec<Diag<'a>>,
    /// Set when validation stopped early, as the host does.
    skipped: Option<String>,
}

#[derive(Serialize)]
struct Host<'a> {
    verdict: HostClass,
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct Diag<'a> {
    code: Code,
    severity: Severity,
    message: &'a str,
    help: Option<&'a str>,
    labels: Vec<Label<'a>>,
    /// Exact edits that fix it (a did-you-mean with one answer).
    fixes: Vec<Fix>,
}

struct Fix {
    at: Place,
    replacement: String,
}

struct Label<'a> {
    at: Place,
    text: Option<&'a str>,
}

// Written out rather than `#[serde(flatten)]`ed: flattening serializes through a map,
// and every label of a `validate -r` report went that slow way. The fields and their order
// are the same.
impl Serialize for Label<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Label", 7)?;
        self.at.fields(&mut s)?;
        s.serialize_field("text", &self.text)?;
        s.end()
    }
}

impl Serialize for Fix {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Fix", 7)?;
        self.at.fields(&mut s)?;
        s.serialize_field("replacement", &self.replacement)?;
        s.end()
    }
}

/// Where a label or a fix is: byte offsets and 1-based lines and columns of both ends.
struct Place {
    start: usize,
    end: usize,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

impl Place {
    /// Its fields, first in a label's or a fix's object.
    fn fields<S: serde::ser::SerializeStruct>(&self, s: &mut S) -> Result<(), S::Error> {
        s.serialize_field("start", &self.start)?;
        s.serialize_field("end", &self.end)?;
        s.serialize_field("line", &self.line)?;
        s.serialize_field("column", &self.column)?;
        s.serialize_field("end_line", &self.end_line)?;
        s.serialize_field("end_column", &self.end_column)
    }

    fn of(lines: &Lines<'_>, span: &std::ops::Range<usize>) -> Place {
        let ((line, column), (end_line, end_column)) = lines.line_cols(span);
        Place {
            start: span.start,
            end: span.end,
            line,
            column,
            end_line,
            end_column,
        }
    }
}

/// Render the run as pretty JSON.
pub fn render(reports: &[PluginReport], aoe_api: u32) -> String {
    let mut stream = JsonStream::new(aoe_api);
    let mut out = String::new();
    let mut sink = |s: &str| {
        out.push_str(s);
        Ok(())
    };
    for r in reports {
        stream.push(r).expect("a spool in memory does not fail");
    }
    stream
        .finish(&mut sink)
        .expect("rendering into a String does not fail");
    out
}

/// How deep the items of the document's `plugins` array are.
const PLUGINS_DEPTH: usize = 2;

/// The JSON document, one report at a time: the summary comes first, so the
/// plugins wait in a [`Spool`] until the last one is in.
pub struct JsonStream {
    aoe_api: u32,
    tally: Tally,
    plugins: Spool,
}

impl JsonStream {
    pub fn new(aoe_api: u32) -> Self {
        JsonStream {
            aoe_api,
            tally: Tally::default(),
            plugins: Spool::at_depth(PLUGINS_DEPTH),
        }
    }

    pub fn push(&mut self, r: &PluginReport) -> std::io::Result<()> {
        self.tally.add(r);
        self.plugins.push_pretty(",\n", &plugin(r))
    }

    pub fn finish(self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        let t = self.tally;
        let summary = Summary {
            plugins: t.plugins,
            valid: t.plugins - t.invalid,
            invalid: t.invalid,
            errors: t.errors,
            warnings: t.warnings,
        };
        let doc = |plugins| Document {
            format_version: FORMAT_VERSION,
            valid: t.invalid == 0,
            aoe_api: self.aoe_api,
            summary,
            plugins,
        };
        let holes: &[&str] = if self.plugins.is_empty() {
            &[]
        } else {
            &[HOLE]
        };
        let mut skeleton = serde_json::to_string_pretty(&doc(holes)).expect("report serializes");
        skeleton.push('\n');
        super::splice(&skeleton, vec![self.plugins], sink)
    }
}

fn plugin(r: &PluginReport) -> Plugin<'_> {
    let text = r.source.as_deref().unwrap_or_default();
    let lines = Lines::new(text);
    Plugin {
        root: display_path(&r.root),
        manifest: display_path(&r.manifest),
        dialect: r.dialect,
        id: r.outcome.id.as_deref(),
        version: r.outcome.version.as_deref(),
        valid: r.is_valid(),
        host: Host {
            verdict: r.outcome.class,
            message: r.outcome.host_message.as_deref(),
        },
        manifest_hash: r.manifest_hash.as_deref(),
        diagnostics: r
            .outcome
            .diagnostics
            .iter()
            .map(|d| Diag {
                code: d.code,
                severity: d.severity,
                message: &d.message,
                help: d.help.as_deref(),
                labels: d
                    .labels
                    .iter()
                    .map(|l| Label {
                        at: Place::of(&lines, &l.span),
                        text: l.text.as_deref(),
                    })
                    .collect(),
                fixes: d
                    .fixes
                    .iter()
                    .filter_map(|f| f.edit(text))
                    .map(|(span, replacement)| Fix {
                        at: Place::of(&lines, &span),
                        replacement,
                    })
                    .collect(),
            })
            .collect(),
        skipped: super::human::skipped_note(r),
    }
}
