//! Source formats: parse text into the spanned [`Node`] tree.
//!
//! Each adapter reproduces its host's parser where it matters for the verdict
//! (TOML: the `toml` crate aoe uses; JSON: Python's `json.loads`, as AWorld;
//! YAML: a safe, alias-bounded parser standing in for PyYAML's `safe_load`).

mod json;
mod toml;
mod yaml;

pub use self::json::parse_json;
pub use self::toml::parse_toml;
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
}
