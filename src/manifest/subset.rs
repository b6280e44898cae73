//! A JSON Schema evaluator for the keywords the built-in schemas use, without compiling them.
//!
//! Compiling a schema with `jsonschema` checks it against its draft's meta-schema first, which
//! `jsonschema` does not let a caller skip: about 1.3 M instructions, half of validating one
//! AWorld root per process, and more for an aoe root the typed parse rejects
//! (docs/PERFORMANCE.md, issue 43). AWorld's `plugin.schema.json` (a lint the host never
//! applies) and aoe's generated schema (whose errors are the diagnostics of a manifest the
//! host's typed parse rejects) use only `type`, `required`, `properties`,
//! `additionalProperties`, `items`, `enum`, `const`, `minLength`, `maxLength`, `pattern`,
//! `minimum`, `maximum`, `allOf` and `if`/`then`/`else`; this walks the schema as data for
//! those and reports what [`super::schema::validate`] reports, as the report shows it (tests
//! compare both on each corpus and on seeded mutations). The schema it walks is compiled in:
//! its [`constraints`] as a [`StaticJson`] each host folder holds, since building or parsing
//! it per process cost more than the walk. [`unsupported`] names any other
//! keyword, so a schema that grows one is caught by a test instead of being half-checked.

use serde_json::Value as Json;

use super::doc::{Entry, Node, Pointer, Seg, Value};
use super::schema::{Problem, SchemaError};
use super::static_json::StaticJson;

/// Keywords that only annotate: they constrain nothing.
const ANNOTATIONS: [&str; 6] = [
    "$schema",
    "$id",
    "title",
    "description",
    "examples",
    "default",
];

/// Every violation of `schema` in `root`, as [`super::schema::validate`] would report it.
/// `schema` is compiled in: the [`constraints`] of a built-in schema.
pub fn validate(schema: &StaticJson, root: &Node) -> Vec<SchemaError> {
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

/// `schema` without its annotations: the keywords [`validate`] evaluates, what a host
/// folder compiles in (`crate::manifest::static_json`). Names under `properties` are kept
/// whatever they are.
pub fn constraints(schema: &Json) -> Json {
    let Some(obj) = schema.as_object() else {
        return schema.clone();
    };
    let kept = obj
        .iter()
        .filter(|(key, _)| !ANNOTATIONS.contains(&key.as_str()))
        .map(|(key, value)| {
            let value = match (key.as_str(), value) {
                ("properties", Json::Object(props)) => Json::Object(
                    props
                        .iter()
                        .map(|(name, sub)| (name.clone(), constraints(sub)))
                        .collect(),
                ),
                ("additionalProperties" | "items" | "if" | "then" | "else", _) => {
                    constraints(value)
                }
                ("allOf", Json::Array(subs)) => subs.iter().map(constraints).collect(),
                _ => value.clone(),
            };
            (key.clone(), value)
        })
        .collect();
    Json::Object(kept)
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
            "additionalProperties" | "items" | "if" | "then" | "else" => {
                unsupported_at(value, &format!("{at}/{key}"), out);
            }
            "allOf" => {
                for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                    unsupported_at(sub, &format!("{at}/allOf/{i}"), out);
                }
            }
            "const" if value.is_string() => {}
            "pattern" if value.as_str().is_some_and(|p| regex::Regex::new(p).is_ok()) => {}
            "maxLength" if value.is_u64() => {}
            "minimum" | "maximum" if value.is_number() => {}
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
const JSON_TYPES: [&str; 7] = [
    "object", "array", "string", "boolean", "null", "integer", "number",
];

fn matches(ty: &str, node: &Node) -> bool {
    match ty {
        // A TOML datetime is an object to the schema (`super::instance`).
        "object" => matches!(node.value, Value::Table(_) | Value::Datetime(_)),
        "array" => matches!(node.value, Value::Array(_)),
        "string" => matches!(node.value, Value::Str(_)),
        "boolean" => matches!(node.value, Value::Bool(_)),
        "null" => {
            matches!(node.value, Value::Null)
                || matches!(node.value, Value::Float(_) | Value::BigInt(_))
                    && number(node).is_none()
        }
        "number" => number(node).is_some(),
        "integer" => number(node).is_some_and(|n| n.is_integer),
        _ => true,
    }
}

/// A number as the schema sees it (`super::instance`): TOML's `nan` and `inf` are none.
struct Number {
    value: f64,
    /// An integer to the schema: no fractional part (`1.0` is one, as in draft 7).
    is_integer: bool,
}

fn number(node: &Node) -> Option<Number> {
    #[allow(clippy::cast_precision_loss)] // as `serde_json::Number::as_f64` converts it
    match &node.value {
        Value::Int(i) => Some(Number {
            value: *i as f64,
            is_integer: true,
        }),
        Value::BigInt(text) => text
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(|value| Number {
                value,
                is_integer: value.fract() == 0.0,
            }),
        Value::Float(x) if x.is_finite() => Some(Number {
            value: *x,
            is_integer: x.fract() == 0.0,
        }),
        _ => None,
    }
}

/// Whether `text` matches `pattern`: by its [`WRITTEN_OUT`] matcher, else by a regex
/// compiled once for the process (the built-in schemas have few).
fn pattern_matches(pattern: &str, text: &str) -> bool {
    if let Some(matches) = written_out(pattern) {
        return matches(text);
    }
    static SEEN: std::sync::Mutex<Vec<(String, regex::Regex)>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !seen.iter().any(|(p, _)| p == pattern) {
        match regex::Regex::new(pattern) {
            Ok(re) => seen.push((pattern.to_owned(), re)),
            // `unsupported` refuses such a schema; nothing to check against.
            Err(_) => return true,
        }
    }
    seen.iter().any(|(p, re)| p == pattern && re.is_match(text))
}

/// Patterns of the built-in schemas matched by code rather than by a compiled regex:
/// compiling one costs about 130 K instructions, a tenth of validating one aoe root the
/// host's typed parse rejects (docs/PERFORMANCE.md, issue 43). Each matcher is checked
/// against the regex on every string of its alphabet up to a length (`tests`).
const WRITTEN_OUT: &[(&str, Matcher)] = &[(r"^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$", dotted_kebab)];

/// Whether a text matches a pattern.
type Matcher = fn(&str) -> bool;

/// The matcher [`WRITTEN_OUT`] holds for `pattern`, if any.
pub fn written_out(pattern: &str) -> Option<Matcher> {
    WRITTEN_OUT
        .iter()
        .find(|(p, _)| *p == pattern)
        .map(|(_, matches)| *matches)
}

/// `^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$`: dot-separated segments, each a lowercase letter
/// then lowercase letters, digits and hyphens.
fn dotted_kebab(text: &str) -> bool {
    text.split('.').all(|segment| {
        let mut bytes = segment.bytes();
        bytes.next().is_some_and(|b| b.is_ascii_lowercase())
            && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    })
}

/// The last entry of each key, in the order keys first appear (a map's view of the table),
/// in time linear in the entries: a hostile table may hold a hundred thousand keys. A
/// small table is searched instead of hashed, which allocates nothing but the answer.
fn members<'a>(entries: &'a [Entry<'a>]) -> Vec<(&'a str, &'a Node<'a>)> {
    /// Up to this many entries, searching is cheaper than hashing.
    const SEARCHED: usize = 16;
    if entries.len() <= SEARCHED {
        return entries
            .iter()
            .enumerate()
            .filter(|(i, e)| !entries[..*i].iter().any(|earlier| earlier.key == e.key))
            .map(|(_, e)| {
                let last = entries.iter().rev().find(|later| later.key == e.key);
                (e.key.as_ref(), &last.unwrap_or(e).node)
            })
            .collect();
    }
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut out: Vec<(&str, &Node)> = Vec::new();
    for e in entries {
        match at.get(e.key.as_ref()) {
            Some(&i) => out[i].1 = &e.node,
            None => {
                at.insert(&e.key, out.len());
                out.push((&e.key, &e.node));
            }
        }
    }
    out
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

fn check(schema: &StaticJson, node: &Node, at: &At<'_>, out: &mut Vec<SchemaError>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    for (key, value) in obj {
        match *key {
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
                    .filter_map(StaticJson::as_str);
                if !matches!(&node.value, Value::Str(s) if allowed.clone().any(|a| a == s)) {
                    out.push(at.error(Problem::Enum(allowed.map(str::to_owned).collect())));
                }
            }
            "const" => {
                if !matches!(&node.value, Value::Str(s) if value.as_str() == Some(s)) {
                    let expected = value.as_str().map(str::to_owned).into_iter().collect();
                    out.push(at.error(Problem::Enum(expected)));
                }
            }
            _ => {
                if let Some(problem) = scalar(key, value, node) {
                    out.push(at.error(problem));
                } else {
                    children(schema, key, value, node, at, out);
                }
            }
        }
    }
}

/// What a keyword on a string or a number finds wrong with `node`, if anything.
fn scalar(key: &str, value: &StaticJson, node: &Node) -> Option<Problem> {
    let text = || match &node.value {
        Value::Str(s) => Some(s.as_ref()),
        _ => None,
    };
    let bad = match key {
        "minLength" => text()
            .zip(value.as_u64())
            .is_some_and(|(s, n)| (s.chars().count() as u64) < n),
        "maxLength" => text()
            .zip(value.as_u64())
            .is_some_and(|(s, n)| (s.chars().count() as u64) > n),
        "pattern" => text()
            .zip(value.as_str())
            .is_some_and(|(s, p)| !pattern_matches(p, s)),
        "minimum" | "maximum" => {
            let (Some(n), Some(limit)) = (number(node), value.as_f64()) else {
                return None;
            };
            let out = if key == "minimum" {
                n.value < limit
            } else {
                n.value > limit
            };
            return out.then_some(Problem::Range);
        }
        _ => return None,
    };
    bad.then_some(Problem::Shape)
}

/// The keywords that reach into a table's members or an array's items.
fn children(
    schema: &StaticJson,
    key: &str,
    value: &StaticJson,
    node: &Node,
    at: &At<'_>,
    out: &mut Vec<SchemaError>,
) {
    match (key, &node.value) {
        ("required", Value::Table(_)) => {
            for name in value
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(StaticJson::as_str)
            {
                if node.get(name).is_none() {
                    out.push(At::Key(at, name).error(Problem::Missing(name.to_owned())));
                }
            }
        }
        ("properties", Value::Table(_)) => {
            for (name, sub) in value.as_object().into_iter().flatten() {
                if let Some(child) = node.get(name).map(|e| &e.node) {
                    check(sub, child, &At::Key(at, name), out);
                }
            }
        }
        ("additionalProperties", Value::Table(entries)) if *value == StaticJson::Bool(false) => {
            for (name, _) in members(entries) {
                if !declares(schema, name) {
                    out.push(At::Key(at, name).error(Problem::Unknown(name.to_owned())));
                }
            }
        }
        ("additionalProperties", Value::Table(entries)) if value.is_object() => {
            for (name, child) in members(entries) {
                if !declares(schema, name) {
                    check(value, child, &At::Key(at, name), out);
                }
            }
        }
        ("allOf", _) => {
            for sub in value.as_array().into_iter().flatten() {
                check(sub, node, at, out);
            }
        }
        ("if", _) => {
            let mut found = Vec::new();
            check(value, node, at, &mut found);
            let branch = if found.is_empty() { "then" } else { "else" };
            if let Some(sub) = schema.get(branch) {
                check(sub, node, at, out);
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

/// Whether `schema` declares `name` under `properties`.
fn declares(schema: &StaticJson, name: &str) -> bool {
    schema.get("properties").and_then(|p| p.get(name)).is_some()
}

#[cfg(test)]
mod tests {
    /// Each written-out matcher agrees with its regex on every string of the pattern's
    /// alphabet (and a letter outside it) up to five characters, and on longer samples.
    #[test]
    fn written_out_matchers_are_their_regexes() {
        for (pattern, matches) in super::WRITTEN_OUT {
            let re = regex::Regex::new(pattern).unwrap();
            let alphabet = ['a', 'z', '0', '9', '-', '.', 'A', '_', 'é', '\n'];
            let mut strings = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..5 {
                last = last
                    .iter()
                    .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                    .collect();
                strings.extend(last.iter().cloned());
            }
            strings.extend(
                [
                    "aoe.x-1.y",
                    "a..b",
                    "a.",
                    ".a",
                    "a.1b",
                    "ab-.c-d",
                    "x\n",
                    "a.b.c.d.e.f.g",
                ]
                .map(str::to_owned),
            );
            for s in &strings {
                assert_eq!(matches(s), re.is_match(s), "{pattern} on {s:?}");
            }
        }
    }
}
