//! `--format github`: workflow commands, so Actions annotates the diff.
//! See "Workflow commands for GitHub Actions": `::error file=…,line=…,col=…::message`.

use super::{display_path, line_col};
use crate::diagnostic::Severity;
use crate::validate::PluginReport;

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

/// One workflow command per diagnostic.
pub fn render(reports: &[PluginReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let file = display_path(&r.manifest);
        let text = r.source.as_deref().unwrap_or_default();
        for d in &r.outcome.diagnostics {
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let mut props = vec![format!("file={}", escape_property(&file))];
            if let (Some(label), false) = (d.labels.first(), text.is_empty()) {
                let (line, col) = line_col(text, label.span.start);
                let (end_line, end_col) = line_col(text, label.span.end);
                props.push(format!("line={line}"));
                props.push(format!("col={col}"));
                if end_line == line && end_col > col {
                    props.push(format!("endColumn={end_col}"));
                } else if end_line > line {
                    props.push(format!("endLine={end_line}"));
                }
            }
            props.push(format!("title={}", escape_property(d.code.as_str())));
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            out.push_str(&format!(
                "::{kind} {}::{}\n",
                props.join(","),
                escape_data(&message)
            ));
        }
        if let Some(note) = super::human::skipped_note(r) {
            out.push_str(&format!(
                "::notice file={}::{}\n",
                escape_property(&file),
                escape_data(&note)
            ));
        }
    }
    out.push_str(&super::human::summary(reports));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
