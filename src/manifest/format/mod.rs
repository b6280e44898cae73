//! Source formats: parse text into the spanned [`Node`] tree.
//!
//! Each adapter reproduces its host's parser where it matters for the verdict
//! (TOML: the `toml` crate aoe uses; JSON: Python's `json.loads`, as AWorld;
//! YAML: a safe, alias-bounded parser standing in for PyYAML's `safe_load`).

mod json;
mod toml;
mod yaml;

pub use self::json::parse_json;
pub use self::toml::{parse_toml, parse_toml_table};
pub use self::yaml::parse_yaml;

use crate::diagnostic::Span;

/// A manifest's serialization format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
    Yaml,
}

/// A syntax error with the parser's message and, where known, its span.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    /// The parser's message without location prefix.
    pub message: String,
    /// The parser's full `Display` text (what hosts embed in their errors).
    pub display: String,
    pub span: Option<Span>,
    /// The Python exception type when the host's parser raises something its
    /// caller does not catch (PyYAML's constructors: `ValueError` for
    /// `2001-13-45`, `KeyError` for `!!bool maybe`): not a syntax error to the
    /// host, but the same failure to load.
    pub exception: Option<&'static str>,
}

/// A help for a syntax error in what looks like an unrendered Jinja or
/// cookiecutter template (`{{ cookiecutter.x }}`, `{% if … %}`): hosts read
/// the rendered plugin, never the template. The marker quoted is the first on
/// the error's line (at byte `at`), else the first in the file.
pub fn template_help(text: &str, at: Option<usize>) -> Option<String> {
    let line_start = at.map_or(0, |at| {
        text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1)
    });
    let marker = find_marker(&text[line_start..])
        .filter(|m| !m.1)
        .or_else(|| find_marker(text))?
        .0;
    let how = if text.contains("cookiecutter") {
        "(`cookiecutter <template>`)"
    } else {
        "with its generator"
    };
    Some(format!(
        "this looks like an unrendered template (`{marker}`): render it first {how}, then validate the generated plugin"
    ))
}

/// The first `{{ … }}` or `{% … %}` on one line, and whether a newline came before it.
fn find_marker(text: &str) -> Option<(&str, bool)> {
    [("{{", "}}"), ("{%", "%}")]
        .iter()
        .filter_map(|(open, close)| {
            let start = text.find(open)?;
            let len = text[start..].find(close)? + close.len();
            let marker = &text[start..start + len];
            (!marker.contains('\n') && marker.chars().count() <= 60)
                .then(|| (start, marker, text[..start].contains('\n')))
        })
        .min_by_key(|(start, _, _)| *start)
        .map(|(_, marker, later_line)| (marker, later_line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_markers() {
        let text = "id = {{ cookiecutter.plugin_id }}\napi = {{ cookiecutter.api }}\n";
        let help = template_help(text, None).unwrap();
        assert!(help.contains("`{{ cookiecutter.plugin_id }}`"), "{help}");
        assert!(help.contains("`cookiecutter <template>`"), "{help}");
        // The marker on the error's line is the one quoted.
        let help = template_help(text, Some(text.rfind('{').unwrap())).unwrap();
        assert!(help.contains("`{{ cookiecutter.api }}`"), "{help}");
        assert!(template_help("{% if x %}\nid = 1\n{% endif %}", Some(12)).is_some());
        assert_eq!(template_help("id = \"a{b}\"\n{{\n", None), None);
        assert_eq!(template_help("id = 1 }}", None), None);
    }
}
