//! `--format sarif`: one SARIF 2.1.0 log for the run, for GitHub code scanning
//! and editors that read SARIF. Rules come from the code table, with each
//! code's section of `docs/diagnostics.md` as their help.

use serde_json::{Value, json};

use super::{HOLE, Lines, Sink, Spool};
use crate::diagnostic::{Code, Diagnostic, Label, Severity, documentation};
use crate::validate::PluginReport;

/// The schema the log declares (SchemaStore's copy of the OASIS schema).
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The `uriBaseId` artifact paths are relative to.
pub const SRCROOT: &str = "%SRCROOT%";

/// The areas whose codes `validate` reports; the rest (install, git, ...)
/// are operational errors that never become results.
const VALIDATE_AREAS: &[&str] = &["file", "syntax", "aoe", "aworld", "protoagent"];

/// Where artifact paths are relative to.
pub struct Base {
    /// `file://` URI of the directory `%SRCROOT%` stands for, ending in `/`.
    pub uri: String,
}

/// Where a report's manifest is, as a URI reference.
pub struct Artifact {
    /// Percent-encoded: relative to `%SRCROOT%`, or an absolute `file://` URI.
    pub uri: String,
    pub relative: bool,
}

impl Artifact {
    /// A path relative to the base, with `/` separators.
    pub fn relative(path: &str) -> Self {
        Artifact {
            uri: encode_uri(path),
            relative: true,
        }
    }

    /// An absolute path outside the base.
    pub fn absolute(path: &std::path::Path) -> Self {
        let mut uri = directory_uri(path);
        uri.pop();
        Artifact {
            uri,
            relative: false,
        }
    }
}

/// Render the run as one SARIF log; `artifact` locates a report's manifest.
pub fn render(
    reports: &[PluginReport],
    base: &Base,
    artifact: impl Fn(&PluginReport) -> Artifact,
) -> String {
    let base = Base {
        uri: base.uri.clone(),
    };
    let mut stream = SarifStream::new(base);
    for r in reports {
        stream
            .push(r, &artifact(r))
            .expect("a spool in memory does not fail");
    }
    let mut out = String::new();
    let mut sink = |s: &str| {
        out.push_str(s);
        Ok(())
    };
    stream
        .finish(&mut sink)
        .expect("rendering into a String does not fail");
    out
}

/// The SARIF log, one report at a time: results and notes wait in a
/// [`Spool`] each, since the notes come first in the log.
pub struct SarifStream {
    rules: Vec<Code>,
    base: Base,
    results: Spool,
    notes: Spool,
}

impl SarifStream {
    pub fn new(base: Base) -> Self {
        SarifStream {
            rules: Code::ALL
                .iter()
                .copied()
                .filter(|c| VALIDATE_AREAS.contains(&area(*c)))
                .collect(),
            base,
            results: Spool::at_depth(RESULTS_DEPTH),
            notes: Spool::at_depth(NOTES_DEPTH),
        }
    }

    /// Add one report, whose manifest is at `uri`.
    pub fn push(&mut self, r: &PluginReport, uri: &Artifact) -> std::io::Result<()> {
        let text = r.source.as_deref().unwrap_or_default();
        let lines = Lines::new(text);
        for d in &r.outcome.diagnostics {
            let mut result = json!({
                "ruleId": d.code.as_str(),
                "level": level(d.severity),
                "message": { "text": message(d) },
                "locations": [location(uri, &lines, d.labels.first())],
            });
            if let Some(i) = self.rules.iter().position(|c| *c == d.code) {
                result["ruleIndex"] = json!(i);
            }
            if d.labels.len() > 1 {
                result["relatedLocations"] = d.labels[1..]
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let mut loc = location(uri, &lines, Some(l));
                        loc["id"] = json!(i + 1);
                        loc
                    })
                    .collect();
            }
            let fixes: Vec<Value> = d
                .fixes
                .iter()
                .filter_map(|f| f.edit(text))
                .map(|(span, replacement)| fix(uri, &lines, span, &replacement))
                .collect();
            if !fixes.is_empty() {
                result["fixes"] = Value::Array(fixes);
            }
            self.results.push_pretty(",\n", &result)?;
        }
        if let Some(note) = super::human::skipped_note(r) {
            let note = json!({
                "level": "note",
                "message": { "text": note },
                "locations": [location(uri, &lines, None)],
            });
            self.notes.push_pretty(",\n", &note)?;
        }
        Ok(())
    }

    pub fn finish(self, sink: &mut Sink<'_>) -> std::io::Result<()> {
        let mut invocation = json!({ "executionSuccessful": true });
        let mut spools = Vec::new();
        if !self.notes.is_empty() {
            invocation["toolExecutionNotifications"] = json!([HOLE]);
            spools.push(self.notes);
        }
        let results = if self.results.is_empty() {
            json!([])
        } else {
            spools.push(self.results);
            json!([HOLE])
        };
        let log = json!({
            "$schema": SCHEMA_URI,
            "version": "2.1.0",
            "runs": [{
                "tool": { "driver": driver(&self.rules) },
                "invocations": [invocation],
                "originalUriBaseIds": { SRCROOT: { "uri": self.base.uri } },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }],
        });
        let mut skeleton = pretty(&log);
        skeleton.push('\n');
        super::splice(&skeleton, spools, sink)
    }
}

/// How deep the items of `runs[0].results` are, and those of
/// `runs[0].invocations[0].toolExecutionNotifications`.
const RESULTS_DEPTH: usize = 4;
const NOTES_DEPTH: usize = 6;

fn pretty(value: &Value) -> String {
    super::pretty(value)
}

fn driver(rules: &[Code]) -> Value {
    let mut driver = json!({
        "name": "plugins",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "rules": rules.iter().map(|c| rule(*c)).collect::<Vec<_>>(),
    });
    if let Some(repo) = crate::upstream::repository() {
        driver["informationUri"] = json!(repo);
    }
    driver
}

fn rule(code: Code) -> Value {
    let section = documentation(code).unwrap_or(code.description());
    let mut rule = json!({
        "id": code.as_str(),
        "shortDescription": { "text": sentence(code.description()) },
        "fullDescription": { "text": first_paragraph(section) },
        "help": { "text": section, "markdown": section },
        "defaultConfiguration": { "level": level(code.default_severity()) },
        "properties": { "tags": [area(code)] },
    });
    if let Some(doc) = crate::upstream::file_url("docs/diagnostics.md") {
        rule["helpUri"] = json!(format!("{doc}#{}", anchor(code)));
    }
    rule
}

/// `aoe` in `plugins::aoe::unknown_key`.
fn area(code: Code) -> &'static str {
    code.as_str().split("::").nth(1).unwrap_or_default()
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn message(d: &Diagnostic) -> String {
    match &d.help {
        Some(help) => format!("{}\nhelp: {help}", d.message),
        None => d.message.clone(),
    }
}

/// A location in the artifact, with a region when the label has one.
fn location(artifact: &Artifact, lines: &Lines<'_>, label: Option<&Label>) -> Value {
    let mut physical = json!({ "artifactLocation": { "uri": artifact.uri } });
    if artifact.relative {
        physical["artifactLocation"]["uriBaseId"] = json!(SRCROOT);
    }
    let mut location = json!({});
    if let Some(label) = label.filter(|_| !lines.text().is_empty()) {
        let ((start_line, start_column), (end_line, end_column)) = lines.line_cols(&label.span);
        physical["region"] = json!({
            "startLine": start_line,
            "startColumn": start_column,
            "endLine": end_line,
            "endColumn": end_column,
        });
        if let Some(t) = &label.text {
            location["message"] = json!({ "text": t });
        }
    }
    location["physicalLocation"] = physical;
    location
}

/// A SARIF `fix`: one replacement in the manifest.
fn fix(
    artifact: &Artifact,
    lines: &Lines<'_>,
    span: crate::diagnostic::Span,
    replacement: &str,
) -> Value {
    let mut location = json!({ "uri": artifact.uri });
    if artifact.relative {
        location["uriBaseId"] = json!(SRCROOT);
    }
    let ((start_line, start_column), (end_line, end_column)) = lines.line_cols(&span);
    json!({
        "description": { "text": format!("Replace with `{replacement}`") },
        "artifactChanges": [{
            "artifactLocation": location,
            "replacements": [{
                "deletedRegion": {
                    "startLine": start_line,
                    "startColumn": start_column,
                    "endLine": end_line,
                    "endColumn": end_column,
                },
                "insertedContent": { "text": replacement },
            }],
        }],
    })
}

fn first_paragraph(section: &str) -> String {
    section
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .trim()
        .replace('\n', " ")
}

/// A description as a sentence: capitalised, ending in a full stop.
fn sentence(s: &str) -> String {
    let mut chars = s.chars();
    let mut out: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    if !out.ends_with('.') {
        out.push('.');
    }
    out
}

/// GitHub's anchor for a `### \`code\`` heading: lowercase, punctuation other
/// than `-` and `_` dropped.
fn anchor(code: Code) -> String {
    code.as_str()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// Percent-encode a relative path for a URI reference (RFC 3986), keeping `/`.
pub fn encode_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `file://` URI for an absolute directory, ending in `/`.
pub fn directory_uri(dir: &std::path::Path) -> String {
    let s = dir.to_string_lossy().replace('\\', "/");
    // Windows paths (`C:/x`) need a leading slash: `file:///C:/x/`.
    let s = if s.starts_with('/') {
        s
    } else {
        format!("/{s}")
    };
    let mut uri = format!("file://{}", encode_uri(&s));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_validate_code_has_a_doc_section() {
        for code in Code::ALL
            .iter()
            .filter(|c| VALIDATE_AREAS.contains(&area(**c)))
        {
            let section = documentation(*code).unwrap_or_else(|| panic!("{code}"));
            assert!(!first_paragraph(section).is_empty(), "{code}");
            assert!(!section.contains("\n### "), "{code}");
        }
        assert_eq!(
            first_paragraph(documentation(Code::FileNotRegular).unwrap()),
            "The manifest path is a directory (or a socket, FIFO, device)."
        );
    }

    #[test]
    fn uris_and_anchors() {
        assert_eq!(encode_uri("a b/é#.toml"), "a%20b/%C3%A9%23.toml");
        assert_eq!(
            directory_uri(std::path::Path::new("/w/my repo")),
            "file:///w/my%20repo/"
        );
        assert_eq!(anchor(Code::AoeUnknownKey), "pluginsaoeunknown_key");
        assert_eq!(sentence("a key"), "A key.");
    }
}
