//! Diagnostics as data: what went wrong, where (byte spans), and how to fix it.
//!
//! Domain modules produce [`Diagnostic`] values; only the renderers in
//! `crate::render` turn them into text.

mod code;

pub use code::Code;

use std::collections::HashMap;
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
    /// Exact replacements that fix it (a did-you-mean made an edit), for
    /// `--format json`/`sarif` and the language server's code actions.
    /// (A boxed slice: diagnostics travel in `Err`s, which stay small.)
    pub fixes: Box<[Fix]>,
}

/// A suggested edit: the key or scalar at `span` should read `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub span: Span,
    pub text: String,
    /// `text` is the new content of a key or string, which keeps the quotes
    /// the source has around it (or gets them if it cannot stand bare);
    /// otherwise it replaces the span's bytes as they are.
    pub requote: bool,
}

impl Fix {
    /// The edit on `source` (the text the spans index): the byte range to
    /// replace and what goes there, or `None` when the span does not fit the
    /// source or the text cannot be written there without escaping.
    pub fn edit(&self, source: &str) -> Option<(Span, String)> {
        let old = source.get(self.span.clone())?;
        if !self.requote {
            return Some((self.span.clone(), self.text.clone()));
        }
        let quoted = |q: char| old.len() >= 2 && old.starts_with(q) && old.ends_with(q);
        let inner = self.span.start + 1..self.span.end - 1;
        if quoted('"') {
            let plain = !self
                .text
                .chars()
                .any(|c| c == '"' || c == '\\' || c.is_control());
            return plain.then(|| (inner, self.text.clone()));
        }
        if quoted('\'') {
            let plain = !self.text.chars().any(|c| c == '\'' || c.is_control());
            return plain.then(|| (inner, self.text.clone()));
        }
        if bare_safe(&self.text) {
            Some((self.span.clone(), self.text.clone()))
        } else {
            let quoted = serde_json::to_string(&self.text).ok()?;
            Some((self.span.clone(), quoted))
        }
    }
}

/// Whether `text` reads as the same string bare as a TOML key and a YAML
/// plain scalar: a name of letters, digits, `_` and `-` that YAML does not
/// take for a boolean or null.
fn bare_safe(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "y" | "n" | "null"
        )
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
            fixes: Box::default(),
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

    /// A fix: the key or scalar at `span` should read `text` (quotes kept).
    #[must_use]
    pub fn with_fix(mut self, span: Span, text: impl Into<String>) -> Self {
        let mut fixes = std::mem::take(&mut self.fixes).into_vec();
        fixes.push(Fix {
            span,
            text: text.into(),
            requote: true,
        });
        self.fixes = fixes.into_boxed_slice();
        self
    }

    /// A fix whose `text` replaces the span's bytes as they are (quotes included).
    #[must_use]
    pub fn with_raw_fix(mut self, span: Span, text: impl Into<String>) -> Self {
        let mut fixes = std::mem::take(&mut self.fixes).into_vec();
        fixes.push(Fix {
            span,
            text: text.into(),
            requote: false,
        });
        self.fixes = fixes.into_boxed_slice();
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

const DIAGNOSTICS_MD: &str = include_str!("../../docs/diagnostics.md");

/// A code's documentation: its section of `docs/diagnostics.md` (under its
/// `### \`code\`` heading), trimmed. SARIF rules and the language server's
/// hover show it.
pub fn documentation(code: Code) -> Option<&'static str> {
    // Every section found in one pass over the file: a SARIF log names every rule, and
    // searching the 100 KB file once per code was 11 M instructions, four times a whole
    // one-root `validate` (issue 43).
    static SECTIONS: std::sync::LazyLock<HashMap<&'static str, &'static str>> =
        std::sync::LazyLock::new(|| sections(DIAGNOSTICS_MD));
    SECTIONS.get(code.as_str()).copied()
}

/// Each `` ### `code` `` heading's code and its section: what follows the heading up to the
/// next `###` or `##` heading, trimmed (the first, if a code has two). One pass, line by
/// line.
fn sections(md: &str) -> HashMap<&str, &str> {
    let mut out = HashMap::new();
    // The code whose section is being read, and where its section starts.
    let mut open: Option<(&str, usize)> = None;
    let mut at = 0;
    for line in md.split_inclusive('\n') {
        if line.starts_with("### ") || line.starts_with("## ") {
            if let Some((code, start)) = open.take() {
                out.entry(code).or_insert_with(|| md[start..at].trim());
            }
            open = line
                .strip_prefix("### `")
                .and_then(|rest| rest.strip_suffix("`\n"))
                .filter(|code| !code.contains('`'))
                .map(|code| (code, at + line.len()));
        }
        at += line.len();
    }
    if let Some((code, start)) = open {
        out.entry(code).or_insert_with(|| md[start..].trim());
    }
    out
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
        .filter(|c| may_be_close(word, c))
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

/// Whether `a` and `b` can score above 0.9 in Jaro-Winkler, from what they are made of.
/// Jaro is `(m/|a| + m/|b| + (m-t)/m) / 3` with `m` matched characters, each matched once
/// on each side: at most the shorter length, and at most the characters the two share
/// (counted with repeats). Winkler adds at most `0.4 * (1 - jaro)` (a prefix of up to 4,
/// scaled by 0.1), so above 0.9 needs Jaro above 5/6. Each Jaro-Winkler costs thousands of
/// instructions, and a manifest of fuzzed keys asks for each key against every candidate
/// (issue 43).
fn may_be_close(a: &str, b: &str) -> bool {
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la == 0 || lb == 0 {
        return true;
    }
    let m = la.min(lb).min(shared(a, b)) as f64;
    // A bound below 5/6 with room for rounding: what it drops cannot score above 0.9.
    (m / la as f64 + m / lb as f64 + 1.0) / 3.0 >= 0.83
}

/// How many characters `a` and `b` share, counted with repeats (ASCII; otherwise no bound).
fn shared(a: &str, b: &str) -> usize {
    if !a.is_ascii() || !b.is_ascii() {
        return usize::MAX;
    }
    let mut counts = [0u32; 128];
    for c in a.bytes() {
        counts[usize::from(c)] += 1;
    }
    b.bytes()
        .filter(|c| {
            let n = &mut counts[usize::from(*c)];
            let there = *n > 0;
            *n = n.saturating_sub(1);
            there
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_drops_no_close_word() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdef",
            "abcdefg",
            "abcdefgh",
            "abcdefghij",
            "abcdefghijklmnop",
            "abcdefghijklmnopqrstuvwx",
            "network",
            "net",
            "networks",
            "description",
            "desc",
            "session.message",
            "session.messages",
            "xbcdefgh",
        ];
        for a in words {
            for b in words {
                if strsim::jaro_winkler(a, b) > 0.9 {
                    assert!(may_be_close(a, b), "{a:?} {b:?}");
                }
            }
        }
        // Every word against each of its one- and two-letter edits, and anagrams.
        let letters = ['a', 'e', 'k', 'z', '.', '-', 'é'];
        for w in words {
            let chars: Vec<char> = w.chars().collect();
            let mut edits = vec![chars.iter().rev().collect::<String>()];
            for i in 0..=chars.len() {
                for l in letters {
                    let mut c = chars.clone();
                    c.insert(i, l);
                    edits.push(c.iter().collect());
                    if i < chars.len() {
                        let mut c = chars.clone();
                        c[i] = l;
                        edits.push(c.iter().collect());
                        c.remove(i);
                        edits.push(c.iter().collect());
                        if i + 1 < chars.len() {
                            let mut c = chars.clone();
                            c.swap(i, i + 1);
                            c[0] = l;
                            edits.push(c.iter().collect());
                        }
                    }
                }
            }
            for e in &edits {
                if strsim::jaro_winkler(w, e) > 0.9 {
                    assert!(may_be_close(w, e), "{w:?} {e:?}");
                }
            }
        }
        // And it does drop: 4 characters against 10, or words with nothing in common.
        assert!(!may_be_close("abcd", "abcdefghij"));
        assert!(!may_be_close("network", "zzzzzzz"));
    }

    /// The one-pass index gives each code the section a search for its heading gives.
    #[test]
    fn each_code_has_the_section_under_its_heading() {
        let search = |code: Code| {
            let heading = format!("### `{code}`\n");
            let start = DIAGNOSTICS_MD.find(&heading)? + heading.len();
            let rest = &DIAGNOSTICS_MD[start..];
            let end = ["\n### ", "\n## "]
                .iter()
                .filter_map(|h| rest.find(h))
                .min()
                .unwrap_or(rest.len());
            Some(rest[..end].trim())
        };
        for code in Code::ALL {
            assert_eq!(documentation(*code), search(*code), "{code}");
            assert!(documentation(*code).is_some(), "{code} is documented");
        }
    }

    #[test]
    fn suggests_close_keys_only() {
        let keys = ["command", "platforms"];
        assert_eq!(did_you_mean("platform", keys), Some("platforms"));
        assert_eq!(did_you_mean("comand", keys), Some("command"));
        assert_eq!(did_you_mean("zzz", keys), None);
    }

    #[test]
    fn fixes_keep_the_quotes_they_replace_inside() {
        let fix = |src: &str, span: Span, text: &str| {
            Fix {
                span,
                text: text.into(),
                requote: true,
            }
            .edit(src)
            .map(|(span, text)| {
                let mut out = src.to_owned();
                out.replace_range(span, &text);
                out
            })
        };
        assert_eq!(
            fix("platform = 1", 0..8, "platforms").unwrap(),
            "platforms = 1"
        );
        assert_eq!(fix("\"a\" = 1", 0..3, "b").unwrap(), "\"b\" = 1");
        assert_eq!(fix("k: 'a'", 3..6, "b").unwrap(), "k: 'b'");
        // Bare text that would read differently bare gets quotes.
        assert_eq!(fix("k = 1", 0..1, "a.b").unwrap(), "\"a.b\" = 1");
        assert_eq!(fix("k: x", 3..4, "true").unwrap(), "k: \"true\"");
        // Text a quoted string cannot hold unescaped, and spans off the source.
        assert_eq!(fix("\"a\"", 0..3, "b\"c"), None);
        assert_eq!(fix("'a'", 0..3, "b'c"), None);
        assert_eq!(fix("é", 1..2, "x"), None);
        assert_eq!(fix("ab", 1..9, "x"), None);
        let literal = Fix {
            span: 3..9,
            text: "true".into(),
            requote: false,
        };
        assert_eq!(literal.edit("k: \"true\""), Some((3..9, "true".to_owned())));
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
