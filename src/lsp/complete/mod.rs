//! `textDocument/completion`: the keys the dialect's JSON Schema declares
//! for the table (TOML), mapping (YAML) or object (JSON) at the cursor, with
//! their descriptions, less the keys already there.
//!
//! The text is read as it is being typed, so usually does not parse: where
//! the cursor is comes from the lines above it (TOML headers, YAML indentation)
//! or a scan of JSON's brackets and strings, not from the parsed tree.

use serde_json::{Value, json};

use super::Document;
use super::convert::LineIndex;
use super::features::{dialect_schema, kept, position};
use crate::host::ValidateOptions;
use crate::manifest::doc::{Pointer, Seg};
use crate::manifest::{Format, schema};

/// Where keys are being completed.
#[derive(Debug, Default, PartialEq)]
struct Place {
    /// The keys from the root to the table; lists as index 0.
    path: Vec<Seg>,
    /// Keys the table already has.
    present: Vec<String>,
    /// JSON, outside a string: the key needs its quotes.
    quote: bool,
}

pub(super) fn completion(
    doc: Option<&Document>,
    params: &Value,
    opts: &ValidateOptions,
) -> Result<Value, super::features::InvalidParams> {
    let Some((doc, text)) = kept(doc) else {
        return Ok(json!([]));
    };
    let (line, character) = position(params, "/position")?;
    let at = LineIndex::new(text).offset(line, character);
    let place = match doc.dialect.spec().format {
        Format::Toml => toml_place(text, at),
        Format::Yaml => yaml_place(text, at),
        Format::Json => json_place(text, at),
    };
    let Some(place) = place else {
        return Ok(json!([]));
    };
    let schema = dialect_schema(doc.dialect, opts);
    let schemas = schema::sub_schemas(&schema, &list_aware(&schema, place.path));
    let items: Vec<Value> = schema::properties(&schemas)
        .into_iter()
        .filter(|(key, _)| !place.present.iter().any(|p| p == key))
        .map(|(key, description)| {
            let mut item = json!({ "label": key, "kind": 10 }); // Property
            if let Some(d) = description {
                item["documentation"] = json!({ "kind": "markdown", "value": d });
            }
            if place.quote {
                item["insertText"] = json!(format!("\"{key}\""));
            }
            item
        })
        .collect();
    Ok(json!({ "isIncomplete": false, "items": items }))
}

/// `path` with an index after each key whose schema is a list of tables, as
/// TOML's `[commands.action]` is the action of the last `[[commands]]`.
fn list_aware(schema: &Value, path: Vec<Seg>) -> Pointer {
    let mut out = Pointer::default();
    let mut segs = path.into_iter().peekable();
    while let Some(seg) = segs.next() {
        out.0.push(seg);
        let list = schema::sub_schemas(schema, &out)
            .iter()
            .any(|s| s.get("items").is_some_and(Value::is_object) && s.get("properties").is_none());
        if list && !matches!(segs.peek(), Some(Seg::Index(_))) {
            out.0.push(Seg::Index(0));
        }
    }
    out
}

/// The line holding `at`: its start, and the text before `at`.
fn line_before(text: &str, at: usize) -> (usize, &str) {
    let start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    (start, &text[start..at])
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A TOML key's segments (`a."b.c"` → `a`, `b.c`), unescaped loosely.
fn toml_segments(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    for c in key.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '.') => out.push(std::mem::take(&mut current).trim().to_owned()),
            (_, c) => current.push(c),
        }
    }
    out.push(current.trim().to_owned());
    out
}

/// The first key of a `key = value` line, if it is one.
fn toml_line_key(line: &str) -> Option<String> {
    let line = line.trim_start();
    if line.starts_with(['#', '[']) {
        return None;
    }
    let eq = line.find('=')?;
    toml_segments(&line[..eq]).into_iter().next()
}

fn toml_place(text: &str, at: usize) -> Option<Place> {
    let (line_start, before) = line_before(text, at);
    let typed = before.trim_start();
    if let Some(header) = typed.strip_prefix('[') {
        // A header being typed: the tables under the dotted prefix.
        let header = header.strip_prefix('[').unwrap_or(header);
        let mut segs = toml_segments(header);
        segs.pop();
        return Some(Place {
            path: segs.into_iter().map(Seg::from).collect(),
            ..Place::default()
        });
    }
    if !typed.chars().all(is_key_char) {
        return None; // After the key: a value is being typed.
    }
    let header = |line: &str| {
        let l = line.trim();
        let inner = l
            .strip_prefix("[[")
            .and_then(|l| l.split("]]").next())
            .or_else(|| l.strip_prefix('[').and_then(|l| l.split(']').next()))?;
        Some(toml_segments(inner))
    };
    // The table: the nearest header above; its keys run to the next header.
    let mut path = Vec::new();
    let mut present = Vec::new();
    for line in text[..line_start].lines().rev() {
        if let Some(segs) = header(line) {
            path = segs;
            break;
        }
        present.extend(toml_line_key(line));
    }
    for line in text[at..].lines().skip(1) {
        if header(line).is_some() {
            break;
        }
        present.extend(toml_line_key(line));
    }
    Some(Place {
        path: path.into_iter().map(Seg::from).collect(),
        present,
        quote: false,
    })
}

/// A YAML line's shape: the indent of its `- ` (if it starts an item), the
/// indent of its content, its key (if it is `key:` …) and whether a value
/// follows the colon on the line.
struct YamlLine {
    dash: Option<usize>,
    indent: usize,
    key: Option<String>,
    has_value: bool,
}

fn yaml_line(line: &str) -> Option<YamlLine> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.trim().is_empty() || trimmed.starts_with('#') {
        return None;
    }
    let lead = line.len() - trimmed.len();
    let (dash, indent, rest) = match trimmed.strip_prefix("- ") {
        Some(rest) => {
            let inner = rest.trim_start_matches(' ');
            (Some(lead), lead + 2 + rest.len() - inner.len(), inner)
        }
        None => (None, lead, trimmed),
    };
    let (key, value) = match rest
        .find(": ")
        .or_else(|| rest.trim_end().strip_suffix(':').map(str::len))
    {
        Some(i) => (
            Some(rest[..i].trim().trim_matches(['"', '\'']).to_owned()),
            rest[i + 1..].trim(),
        ),
        None => (None, ""),
    };
    Some(YamlLine {
        dash,
        indent,
        has_value: !value.is_empty() && !value.starts_with('#'),
        key,
    })
}

fn yaml_place(text: &str, at: usize) -> Option<Place> {
    let (line_start, before) = line_before(text, at);
    let lead = before.len() - before.trim_start_matches(' ').len();
    let typed = &before[lead..];
    let (item, typed) = match typed.strip_prefix("- ") {
        Some(rest) => (true, rest),
        None => (false, typed),
    };
    if !typed.chars().all(is_key_char) {
        return None;
    }
    let mut indent = if item { lead + 2 } else { lead };
    let mut path = Vec::new();
    let mut present = Vec::new();
    // Keys after the cursor in the same mapping (up to the next item or a shallower line).
    if !item {
        for line in text[at..].lines().skip(1).filter_map(yaml_line) {
            if line.indent < indent || line.dash.is_some_and(|d| d < indent) {
                break;
            }
            if line.indent == indent && line.dash.is_none() {
                present.extend(line.key);
            }
        }
    }
    // Upwards: siblings, then each parent.
    let mut level = 0; // 0: the cursor's mapping
    let mut in_list = item; // The mapping is an item: its parent key may sit at its dash's indent.
    if item {
        path.push(Seg::Index(0));
        indent = lead;
    }
    for line in text[..line_start].lines().rev().filter_map(yaml_line) {
        if indent == 0 && level > 0 && !in_list {
            break;
        }
        if level == 0 && !in_list && line.indent == indent {
            present.extend(line.key.clone());
            if let Some(dash) = line.dash {
                path.push(Seg::Index(0));
                indent = dash;
                in_list = true;
            }
            continue;
        }
        let parent = if in_list {
            line.dash.is_none() && line.indent <= indent
        } else {
            line.indent < indent
        };
        if !parent {
            continue;
        }
        let key = line.key.filter(|_| !line.has_value)?;
        path.push(Seg::from(key));
        level += 1;
        match line.dash {
            Some(dash) => {
                path.push(Seg::Index(0));
                indent = dash;
                in_list = true;
            }
            None => {
                indent = line.indent;
                in_list = false;
            }
        }
    }
    path.reverse();
    Some(Place {
        path,
        present,
        quote: false,
    })
}

/// JSON's strings (with their quotes; an unterminated one runs past the end)
/// and punctuation, in order; everything else is skipped.
fn json_tokens(text: &str) -> Vec<(u8, std::ops::Range<usize>)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                // Past the closing quote, or one past the end when there is none.
                i += 1;
                out.push((b'"', start..i));
                continue;
            }
            b @ (b'{' | b'}' | b'[' | b']' | b',') => out.push((b, i..i + 1)),
            _ => {}
        }
        i += 1;
    }
    out
}

/// One open JSON container.
enum Frame {
    /// Where it starts, the last key read, and whether a key comes next.
    Object(usize, Option<String>, bool),
    /// Which item is open.
    Array(usize),
}

/// Apply one token to the open containers; a string read as a key is returned.
fn json_step(
    stack: &mut Vec<Frame>,
    text: &str,
    token: &(u8, std::ops::Range<usize>),
) -> Option<String> {
    match token.0 {
        b'"' => {
            if let Some(Frame::Object(_, key, expect)) = stack.last_mut()
                && *expect
            {
                let (start, end) = (token.1.start, token.1.end);
                let inner = start + 1..(end - 1).min(text.len()).max(start + 1);
                let name = text.get(inner).unwrap_or_default().to_owned();
                *key = Some(name.clone());
                *expect = false;
                return Some(name);
            }
        }
        b'{' => stack.push(Frame::Object(token.1.start, None, true)),
        b'[' => stack.push(Frame::Array(0)),
        b'}' | b']' => {
            stack.pop();
        }
        _ => match stack.last_mut() {
            Some(Frame::Object(_, _, expect)) => *expect = true,
            Some(Frame::Array(index)) => *index += 1,
            None => {}
        },
    }
    None
}

fn json_place(text: &str, at: usize) -> Option<Place> {
    let tokens = json_tokens(text);
    // The containers open at the cursor, and the string it is in, if any.
    let mut stack = Vec::new();
    let mut typing = None;
    for token in tokens.iter().take_while(|t| t.1.start < at) {
        if token.0 == b'"' && at < token.1.end {
            typing = Some(token.1.start);
            break;
        }
        json_step(&mut stack, text, token);
    }
    let Some(Frame::Object(target, _, true)) = stack.last() else {
        return None; // Not where a key goes.
    };
    let target = *target;
    let mut path = Vec::new();
    for frame in &stack[..stack.len() - 1] {
        match frame {
            Frame::Object(_, key, _) => path.push(Seg::from(key.clone()?)),
            Frame::Array(index) => path.push(Seg::Index(*index)),
        }
    }
    // The keys the object has, before and after the cursor.
    let mut present = Vec::new();
    let mut stack = Vec::new();
    for token in &tokens {
        let in_target =
            matches!(stack.last(), Some(Frame::Object(start, _, _)) if *start == target);
        let key = json_step(&mut stack, text, token);
        if in_target && Some(token.1.start) != typing {
            present.extend(key);
        }
    }
    Some(Place {
        path,
        present,
        quote: typing.is_none(),
    })
}

#[cfg(test)]
mod tests;
