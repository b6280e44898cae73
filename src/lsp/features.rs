//! Requests about an open document: code actions (the did-you-mean fixes the
//! diagnostics carry), hover and key completion.
//!
//! Each answers from the document's text and its last validation, never
//! panics on what the client sends: a request for a document that is not
//! open (or not a manifest) gets an empty result, a malformed position an
//! `InvalidParams` error, and a position past the text is its end.

use serde_json::{Value, json};

use super::convert::LineIndex;
use super::{Document, Text};
use crate::diagnostic::{Span, documentation};
use crate::dialect::Dialect;
use crate::host::ValidateOptions;
use crate::manifest::doc::{Node, Pointer, Value as Tree};
use crate::manifest::{Format, format, schema};

/// A request whose params do not say what it is about: answered with JSON-RPC's
/// `InvalidParams` and this text.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct InvalidParams(String);

/// A position's line and UTF-16 column, from `params` at `pointer`.
pub(super) fn position(params: &Value, pointer: &str) -> Result<(usize, usize), InvalidParams> {
    let p = params.pointer(pointer);
    let field = |key: &str| {
        p.and_then(|p| p.get(key))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    match (field("line"), field("character")) {
        (Some(line), Some(character)) => Ok((line, character)),
        _ => Err(InvalidParams(format!(
            "{pointer} must be a position with non-negative integer `line` and `character`"
        ))),
    }
}

fn uri(params: &Value) -> &str {
    params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The document's text, if it is open and kept.
pub(super) fn kept(doc: Option<&Document>) -> Option<(&Document, &str)> {
    let doc = doc?;
    match &doc.text {
        Text::Kept(text) => Some((doc, text.as_str())),
        Text::TooLarge(_) => None,
    }
}

/// At most 60 characters of `s`, for titles.
fn short(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// `textDocument/codeAction`: a `quickfix` for each exact fix of a diagnostic
/// that touches the requested range (on its label or on the fix's own bytes).
pub(super) fn code_actions(doc: Option<&Document>, params: &Value) -> Result<Value, InvalidParams> {
    let Some((doc, text)) = kept(doc) else {
        return Ok(json!([]));
    };
    let start = position(params, "/range/start")?;
    let end = position(params, "/range/end")?;
    if let Some(only) = params.pointer("/context/only").and_then(Value::as_array)
        && !only
            .iter()
            .any(|k| matches!(k.as_str(), Some("quickfix" | "")))
    {
        return Ok(json!([]));
    }
    let index = LineIndex::new(text);
    let (a, b) = (index.offset(start.0, start.1), index.offset(end.0, end.1));
    let (a, b) = (a.min(b), a.max(b));
    let touches = |s: &Span| s.start <= b && a <= s.end;
    let uri = uri(params);
    let mut actions = Vec::new();
    for found in &doc.found {
        let on_label = touches(&found.span);
        for (span, new) in &found.edits {
            if !(on_label || touches(span)) {
                continue;
            }
            let old = text.get(span.clone()).unwrap_or_default();
            actions.push(json!({
                "title": format!("Replace `{}` with `{}`", short(old), short(new)),
                "kind": "quickfix",
                "diagnostics": [found.lsp],
                "isPreferred": found.edits.len() == 1,
                "edit": { "changes": { uri: [{ "range": index.range(span), "newText": new }] } },
            }));
        }
    }
    Ok(Value::Array(actions))
}

/// `textDocument/hover`: over a diagnostic, its code's documentation (its
/// section of docs/diagnostics.md); over a key, the schema's description of it.
pub(super) fn hover(
    doc: Option<&Document>,
    params: &Value,
    opts: &ValidateOptions,
) -> Result<Value, InvalidParams> {
    let Some((doc, text)) = kept(doc) else {
        return Ok(Value::Null);
    };
    let (line, character) = position(params, "/position")?;
    let index = LineIndex::new(text);
    let at = index.offset(line, character);
    let mut parts = Vec::new();
    let mut range: Option<Span> = None;
    for found in doc
        .found
        .iter()
        .filter(|f| f.span.start <= at && at <= f.span.end)
    {
        // One section per code, even where several diagnostics share it.
        let code = found.code;
        let heading = format!("**`{code}`**");
        if parts.iter().any(|p: &String| p.starts_with(&heading)) {
            continue;
        }
        let severity = if found.lsp["severity"] == 1 {
            "error"
        } else {
            "warning"
        };
        let body = documentation(code).unwrap_or(code.description());
        parts.push(format!("{heading} ({severity})\n\n{body}"));
        range.get_or_insert(found.span.clone());
    }
    if let Some((pointer, span)) = parse(doc.dialect, text).and_then(|root| key_at(&root, at)) {
        let schema = dialect_schema(doc.dialect, opts);
        let schemas = schema::sub_schemas(&schema, &pointer);
        if let Some(description) = schema::description(&schemas) {
            parts.push(format!("**`{}`**: {description}", pointer.dotted()));
            range.get_or_insert(span);
        }
    }
    let Some(range) = range else {
        return Ok(Value::Null);
    };
    Ok(json!({
        "contents": { "kind": "markdown", "value": parts.join("\n\n---\n\n") },
        "range": index.range(&range),
    }))
}

/// The manifest's tree, when its text parses.
pub(super) fn parse(dialect: Dialect, text: &str) -> Option<Node<'_>> {
    match dialect.spec().format {
        Format::Toml => format::parse_toml(text).ok(),
        Format::Json => format::parse_json(text).ok(),
        Format::Yaml => format::parse_yaml(text).ok(),
    }
}

/// The dialect's JSON Schema, as `plugins schema` prints it (aoe at the
/// server's `--aoe-api`).
pub(super) fn dialect_schema(dialect: Dialect, opts: &ValidateOptions) -> Value {
    crate::host::schema(dialect, &opts.host)
}

/// The key whose bytes hold `at`, as a pointer, and its span. (Every key is
/// looked at: a TOML table's span need not cover the keys under its header.)
fn key_at(node: &Node, at: usize) -> Option<(Pointer, Span)> {
    let hit = |span: &Span| !span.is_empty() && span.start <= at && at <= span.end;
    match &node.value {
        Tree::Table(entries) => entries.iter().find_map(|e| {
            if hit(&e.key_span) {
                return Some((Pointer::default().join(e.key.clone()), e.key_span.clone()));
            }
            let (below, span) = key_at(&e.node, at)?;
            let mut pointer = Pointer::default().join(e.key.clone());
            pointer.0.extend(below.0);
            Some((pointer, span))
        }),
        Tree::Array(items) => items.iter().enumerate().find_map(|(i, item)| {
            let (below, span) = key_at(item, at)?;
            let mut pointer = Pointer::default().join(i);
            pointer.0.extend(below.0);
            Some((pointer, span))
        }),
        _ => None,
    }
}
