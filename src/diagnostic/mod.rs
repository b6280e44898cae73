//! Diagnostics as data: what went wrong, where (byte spans), and how to fix it.
//!
//! Domain modules produce [`Diagnostic`] values; only the renderers in
//! `crate::render` turn them into text.

mod code;

pub use code::Code;

use std::ops::Range;

/// A byte range into a manifest's source text.
pub type Span = Range<usize>;

/// How bad a diagnostic is. `--strict` promotes warnings to errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

/// One labelled byte range.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Label {
    pub span: Span,
    pub text: Option<String>,
}

/// One finding about a plugin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's default severity and no labels.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            severity: code.default_severity(),
            message: message.into(),
            labels: Vec::new(),
            help: None,
        }
    }

    #[must_use]
    pub fn with_label(mut self, span: Span, text: impl Into<Option<String>>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
        });
        self
    }

    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Where the first label starts, for sorting diagnostics in source order.
    pub fn offset(&self) -> usize {
        self.labels.first().map_or(0, |l| l.span.start)
    }
}

/// The closest candidate to `word`, if one is close enough to be a likely typo,
/// or else the only candidate that is a prefix of `word` or that `word` is a
/// prefix of (`network` → `net`, `desc` → `description`). Prefixes shorter than
/// three characters, and prefixes several candidates share, suggest nothing.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(score, _)| *score > 0.9)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c);
    if close.is_some() {
        return close;
    }
    let mut prefixed = candidates.into_iter().filter(|c| {
        c.len().min(word.len()) >= 3 && *c != word && (word.starts_with(c) || c.starts_with(word))
    });
    match (prefixed.next(), prefixed.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_keys_only() {
        let keys = ["command", "platforms"];
        assert_eq!(did_you_mean("platform", keys), Some("platforms"));
        assert_eq!(did_you_mean("comand", keys), Some("command"));
        assert_eq!(did_you_mean("zzz", keys), None);
    }

    #[test]
    fn suggests_a_unique_prefix() {
        let caps = ["net", "notifications", "clipboard.read", "clipboard.write"];
        assert_eq!(did_you_mean("network", caps), Some("net"));
        assert_eq!(did_you_mean("notif", caps), Some("notifications"));
        // Shared or too short prefixes suggest nothing.
        assert_eq!(did_you_mean("clip", caps), None);
        assert_eq!(did_you_mean("no", caps), None);
    }
}
