//! A JSON Schema evaluator for the few keywords a lint schema uses, without compiling it.
//!
//! Compiling a schema with `jsonschema` checks it against its draft's meta-schema first, which
//! `jsonschema` does not let a caller skip: about 1.3 M instructions, half of validating one
//! AWorld root per process (docs/PERFORMANCE.md, issue 43). AWorld's `plugin.schema.json` is a
//! lint the host never applies, and it uses only `type`, `required`, `properties`,
//! `additionalProperties`, `items`, `enum` and `minLength`; this walks the schema as data for
//! those and reports what [`super::schema::validate`] reports, in its order (tests compare
//! both on the corpus and on seeded mutations). [`unsupported`] names any other keyword, so a
//! schema that grows one is caught by a test instead of being half-checked.

use serde_json::Value as Json;

use super::doc::{Entry, Node, Pointer, Seg, Value};
use super::schema::{Problem, SchemaError};

/// Keywords that only annotate: they constrain nothing.
const ANNOTATIONS: [&str; 5] = ["$schema", "$id", "title", "description", "examples"];

/// Every violation of `schema` in `root`, as [`super::schema::validate`] would report it.
pub fn validate(schema: &Json, root: &Node) -> Vec<SchemaError> {
    let mut out = Vec::new();
    check(schema, root, &At::Root, &mut out);
    out.dedup();
    out
}

/// The keywords of `schema` (and its sub-schemas) [`validate`] does not evaluate, as
/// `pointer: keyword`; empty for a schema it evaluates fully.
pub fn unsupported(schema: &Json) -> Vec<String> {
    let mut out = Vec::new();
    unsupported_at(schema, "", &mut out);
    out
}

fn unsupported_at(schema: &Json, at: &str, out: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        if !schema.is_boolean() {
            out.push(format!("{at}: not a schema"));
        }
        return;
    };
    for (key, value) in obj {
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "type" if value.as_str().is_some_and(|t| JSON_TYPES.contains(&t)) => {}
            "properties" => {
                for (name, sub) in value.as_object().into_iter().flatten() {
                    unsupported_at(sub, &format!("{at}/properties/{name}"), out);
                }
            }
            "additionalProperties" | "items" => unsupported_at(value, &format!("{at}/{key}"), out),
            "required" | "enum"
                if value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Json::is_string)) => {}
            "minLength" if value.is_u64() => {}
            k => out.push(format!("{at}: {k}")),
        }
    }
}

/// The `type` names evaluated: those whose instances [`matches`] tells apart exactly as
/// `jsonschema` does over the spanned tree (`super::instance`).
const JSON_TYPES: [&str; 5] = ["object", "array", "string", "boolean", "null"];

fn matches(ty: &str, node: &Node) -> bool {
    match ty {
        // A TOML datetime is an object to the schema (`super::instance`).
        "object" => matches!(node.value, Value::Table(_) | Value::Datetime(_)),
        "array" => matches!(node.value, Value::Array(_)),
        "string" => matches!(node.value, Value::Str(_)),
        "boolean" => matches!(node.value, Value::Bool(_)),
        "null" => matches!(node.value, Value::Null),
        _ => true,
    }
}

/// The last entry of each key, in the order keys first appear (a map's view of the table).
fn members(entries: &[Entry]) -> impl Iterator<Item = (&str, &Node)> {
    entries.iter().enumerate().filter_map(move |(i, e)| {
        let first = !entries[..i].iter().any(|o| o.key == e.key);
        first.then(|| (e.key.as_str(), last(entries, &e.key).unwrap_or(&e.node)))
    })
}

fn last<'a>(entries: &'a [Entry], key: &str) -> Option<&'a Node> {
    entries.iter().rev().find(|e| e.key == key).map(|e| &e.node)
}

/// Where a value is, built into a [`Pointer`] only for an error (most values have none).
enum At<'a> {
    Root,
    Key(&'a At<'a>, &'a str),
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn pointer(&self) -> Pointer {
        let mut segs = Vec::new();
        let mut here = self;
        loop {
            match here {
                At::Root => break,
                At::Key(up, k) => {
                    segs.push(Seg::Key((*k).to_owned().into()));
                    here = up;
                }
                At::Index(up, i) => {
                    segs.push(Seg::Index(*i));
                    here = up;
                }
            }
        }
        segs.reverse();
        Pointer(segs)
    }

    fn error(&self, problem: Problem) -> SchemaError {
        SchemaError {
            at: self.pointer(),
            problem,
        }
    }
}

fn check(schema: &Json, node: &Node, at: &At<'_>, out: &mut Vec<SchemaError>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (key, value) in obj {
        match key.as_str() {
            "type" => {
                if let Some(ty) = value.as_str()
                    && !matches(ty, node)
                {
                    out.push(at.error(Problem::Type(vec![ty.to_owned()])));
                }
            }
            "enum" => {
                let allowed = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Json::as_str);
                if !matches!(&node.value, Value::Str(s) if allowed.clone().any(|a| a == s)) {
                    out.push(at.error(Problem::Enum(allowed.map(str::to_owned).collect())));
                }
            }
            "minLength" => {
                if let (Value::Str(s), Some(min)) = (&node.value, value.as_u64())
                    && (s.chars().count() as u64) < min
                {
                    out.push(at.error(Problem::Shape));
                }
            }
            _ => children(obj, key, value, node, at, out),
        }
    }
}

/// The keywords that reach into a table's members or an array's items.
fn children(
    obj: &serde_json::Map<String, Json>,
    key: &str,
    value: &Json,
    node: &Node,
    at: &At<'_>,
    out: &mut Vec<SchemaError>,
) {
    match (key, &node.value) {
        ("required", Value::Table(entries)) => {
            for name in value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
            {
                if last(entries, name).is_none() {
                    out.push(At::Key(at, name).error(Problem::Missing(name.to_owned())));
                }
            }
        }
        ("properties", Value::Table(entries)) => {
            for (name, sub) in value.as_object().into_iter().flatten() {
                if let Some(child) = last(entries, name) {
                    check(sub, child, &At::Key(at, name), out);
                }
            }
        }
        ("additionalProperties", Value::Table(entries)) if value.is_object() => {
            let declared = obj.get("properties").and_then(Json::as_object);
            for (name, child) in members(entries) {
                if !declared.is_some_and(|d| d.contains_key(name)) {
                    check(value, child, &At::Key(at, name), out);
                }
            }
        }
        ("items", Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                check(value, item, &At::Index(at, i), out);
            }
        }
        _ => {}
    }
}
