//! JSON Schema validation over the spanned tree, with errors mapped back to pointers.
//!
//! Each dialect ships a schema (printed by `plugins schema`) and compiles it
//! once; this module runs it over the [`Node`] tree and reports each problem
//! against the pointer of the offending value, so callers can label the bytes.

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::paths::LocationSegment;
use serde_json::Value as Json;

use super::doc::{Node, Pointer, Seg};
use super::instance::{At, Doc};

/// What a schema error says, reduced to what diagnostics need.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    /// A key the schema does not allow here.
    Unknown(String),
    /// A required key is absent.
    Missing(String),
    /// The value has the wrong JSON type; the expected type names.
    Type(Vec<String>),
    /// The value is not in an enumerated set.
    Enum(Vec<String>),
    /// A string does not match a pattern or length bound.
    Shape,
    /// A number is out of range.
    Range,
    /// Anything else, with the validator's message.
    Other(String),
}

/// One schema violation at a pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct SchemaError {
    pub at: Pointer,
    pub problem: Problem,
}

/// Compile a schema; a failure is a bug in `plugins`, so it panics with the reason.
///
/// The built-in schemas declare 2020-12 but use only keywords that mean the same in draft 7
/// (a test walks them), so they are compiled as draft 7: checking a schema against draft 7's
/// meta-schema costs a fraction of 2020-12's vocabularies, which was most of the compile and
/// a quarter of validating one root per process (3.6 ms to 2.7 ms of CPU for one aoe root).
///
/// It validates the spanned tree in place ([`super::instance`]).
pub fn compile(schema: &Json) -> Validator {
    jsonschema::options_for::<Doc>()
        .with_draft(jsonschema::Draft::Draft7)
        .build(schema)
        .unwrap_or_else(|e| panic!("built-in schema does not compile: {e}"))
}

/// A compiled schema ([`compile`]).
pub type Validator = jsonschema::Validator<Doc>;

/// Every violation of `validator` in `root`, in the order the validator reports them (fixed
/// by the schema and the document), with repeats next to each other dropped.
pub fn validate(validator: &Validator, root: &Node) -> Vec<SchemaError> {
    let mut out = Vec::new();
    for error in validator.iter_errors(At::Node(root)) {
        let at = Pointer(
            error
                .instance_path()
                .iter()
                .map(|seg| match seg {
                    LocationSegment::Property(p) => Seg::Key(p.into_owned().into()),
                    LocationSegment::Index(i) => Seg::Index(i),
                })
                .collect(),
        );
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                for key in unexpected {
                    out.push(SchemaError {
                        at: at.join(key.clone()),
                        problem: Problem::Unknown(key.clone()),
                    });
                }
            }
            ValidationErrorKind::Required { property } => {
                let key = property.as_str().unwrap_or_default().to_owned();
                out.push(SchemaError {
                    at: at.join(key.clone()),
                    problem: Problem::Missing(key),
                });
            }
            kind => out.push(SchemaError {
                problem: problem_of(kind, &error.to_string()),
                at,
            }),
        }
    }
    out.dedup();
    out
}

fn problem_of(kind: &ValidationErrorKind, message: &str) -> Problem {
    match kind {
        ValidationErrorKind::Type { kind } => Problem::Type(match kind {
            TypeKind::Single(t) => vec![t.to_string()],
            TypeKind::Multiple(set) => set.iter().map(|t| t.to_string()).collect(),
        }),
        ValidationErrorKind::Enum { options } => Problem::Enum(
            options
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        ),
        ValidationErrorKind::Constant { expected_value } => Problem::Enum(
            expected_value
                .as_str()
                .map(|s| vec![s.to_owned()])
                .unwrap_or_default(),
        ),
        ValidationErrorKind::Pattern { .. }
        | ValidationErrorKind::MaxLength { .. }
        | ValidationErrorKind::MinLength { .. } => Problem::Shape,
        ValidationErrorKind::Minimum { .. } | ValidationErrorKind::Maximum { .. } => Problem::Range,
        _ => Problem::Other(message.to_owned()),
    }
}

/// The sub-schema describing the value at `pointer`, following `properties`
/// and `items` (enough for the flat schemas `plugins` ships).
pub fn sub_schema<'s>(schema: &'s Json, pointer: &Pointer) -> Option<&'s Json> {
    let mut s = schema;
    for seg in &pointer.0 {
        s = match seg {
            Seg::Key(k) => s.get("properties")?.get(k.as_ref())?,
            Seg::Index(_) => s.get("items")?,
        };
    }
    Some(s)
}

/// The keys a table schema declares, and whether it rejects others.
pub fn declared_keys(schema: &Json) -> Option<(Vec<&str>, bool)> {
    let props = schema.get("properties")?.as_object()?;
    let closed = schema.get("additionalProperties") == Some(&Json::Bool(false));
    Some((props.keys().map(String::as_str).collect(), closed))
}

/// Every sub-schema that may describe the value at `pointer`, for editors:
/// `properties`, then `additionalProperties` for keys not declared, `items`,
/// through local `$ref`s and the branches of `allOf`/`anyOf`/`oneOf` and
/// `then`/`else`.
pub fn sub_schemas<'s>(schema: &'s Json, pointer: &Pointer) -> Vec<&'s Json> {
    let mut here = Vec::new();
    expand(schema, schema, 0, &mut here);
    for seg in &pointer.0 {
        let mut next = Vec::new();
        for s in here {
            let child = match seg {
                Seg::Key(k) => s
                    .get("properties")
                    .and_then(|p| p.get(k.as_ref()))
                    .or_else(|| s.get("additionalProperties").filter(|a| a.is_object())),
                Seg::Index(_) => s.get("items").filter(|i| i.is_object()),
            };
            if let Some(child) = child {
                expand(schema, child, 0, &mut next);
            }
        }
        here = next;
    }
    here
}

/// `s` and the schemas it is made of, local `$ref`s followed (a bounded depth).
fn expand<'s>(root: &'s Json, s: &'s Json, depth: usize, out: &mut Vec<&'s Json>) {
    if depth > 8 {
        return;
    }
    if let Some(r) = s.get("$ref").and_then(Json::as_str) {
        if let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p)) {
            expand(root, target, depth + 1, out);
        }
        return;
    }
    out.push(s);
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in s.get(key).and_then(Json::as_array).into_iter().flatten() {
            expand(root, branch, depth + 1, out);
        }
    }
    for key in ["then", "else"] {
        if let Some(branch) = s.get(key) {
            expand(root, branch, depth + 1, out);
        }
    }
}

/// The first `description` among `schemas`.
pub fn description<'s>(schemas: &[&'s Json]) -> Option<&'s str> {
    schemas
        .iter()
        .find_map(|s| s.get("description").and_then(Json::as_str))
}

/// The keys the schemas declare for a table, each with its description,
/// in declaration order, without repeats.
pub fn properties<'s>(schemas: &[&'s Json]) -> Vec<(&'s str, Option<&'s str>)> {
    let mut out: Vec<(&str, Option<&str>)> = Vec::new();
    for s in schemas {
        for (key, prop) in s
            .get("properties")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            let text = prop.get("description").and_then(Json::as_str);
            match out.iter_mut().find(|(k, _)| k == key) {
                Some(seen) => seen.1 = seen.1.or(text),
                None => out.push((key, text)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptr;
    use serde_json::json;

    /// Keywords whose meaning is the same in draft 7 and 2020-12 ([`compile`] builds the
    /// 2020-12 built-in schemas as draft 7). Not here: `$ref` (draft 7 ignores its
    /// siblings), `format` (draft 7 asserts it), `items` as an array, `$defs`/`dependencies`.
    const SAME_IN_DRAFT_7: &[&str] = &[
        "$schema",
        "$id",
        "$comment",
        "title",
        "description",
        "default",
        "examples",
        "type",
        "enum",
        "const",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "required",
        "minProperties",
        "maxProperties",
        "items",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
    ];

    fn draft_7_keywords_only(schema: &Json, at: &str, bad: &mut Vec<String>) {
        let Some(obj) = schema.as_object() else {
            return;
        };
        for (key, value) in obj {
            if !SAME_IN_DRAFT_7.contains(&key.as_str()) {
                bad.push(format!("{at}/{key}"));
                continue;
            }
            let here = format!("{at}/{key}");
            match key.as_str() {
                "properties" | "patternProperties" => {
                    for (name, sub) in value.as_object().into_iter().flatten() {
                        draft_7_keywords_only(sub, &format!("{here}/{name}"), bad);
                    }
                }
                "anyOf" | "oneOf" | "allOf" => {
                    for (i, sub) in value.as_array().into_iter().flatten().enumerate() {
                        draft_7_keywords_only(sub, &format!("{here}/{i}"), bad);
                    }
                }
                "items" if value.is_array() => bad.push(format!("{here} (an array)")),
                "items"
                | "additionalProperties"
                | "propertyNames"
                | "not"
                | "if"
                | "then"
                | "else" => draft_7_keywords_only(value, &here, bad),
                _ => {}
            }
        }
    }

    #[test]
    fn built_in_schemas_mean_the_same_compiled_as_draft_7() {
        let schemas = [
            (
                "aoe api 12",
                crate::host::testing::aoe::schema(crate::host::testing::aoe::Profile::H12),
            ),
            (
                "aoe api 15",
                crate::host::testing::aoe::schema(crate::host::testing::aoe::Profile::H15),
            ),
            (
                "aworld",
                serde_json::from_str(crate::host::testing::aworld::SCHEMA).unwrap(),
            ),
            (
                "protoagent",
                serde_json::from_str(crate::host::testing::protoagent::SCHEMA).unwrap(),
            ),
        ];
        for (name, schema) in schemas {
            let mut bad = Vec::new();
            draft_7_keywords_only(&schema, "", &mut bad);
            assert!(bad.is_empty(), "{name}: not the same in draft 7: {bad:?}");
            // Still a valid 2020-12 schema, as declared.
            assert!(jsonschema::meta::is_valid(&schema), "{name}");
        }
        // The walk can fail.
        let mut bad = Vec::new();
        draft_7_keywords_only(
            &json!({"properties": {"a": {"$ref": "#/x"}}, "items": [{}]}),
            "",
            &mut bad,
        );
        bad.sort();
        assert_eq!(bad, ["/items (an array)", "/properties/a/$ref"]);
    }

    #[test]
    fn sub_schemas_follow_refs_branches_and_open_maps() {
        let schema = json!({
            "$defs": { "ep": { "properties": { "id": { "description": "the id" } } } },
            "properties": {
                "kinds": { "additionalProperties": { "type": "array", "items": { "$ref": "#/$defs/ep" } } },
                "x": { "anyOf": [{ "properties": { "a": {} } }, { "properties": { "b": { "description": "b" } } }] },
                "loop": { "$ref": "#/properties/loop" }
            }
        });
        let at = |p| sub_schemas(&schema, &p);
        assert_eq!(
            description(&at(ptr!["kinds", "commands", 0, "id"])),
            Some("the id")
        );
        let keys: Vec<&str> = properties(&at(ptr!["x"])).iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert!(at(ptr!["nope", "deeper"]).is_empty());
        // A $ref to itself ends, with nothing.
        assert!(at(ptr!["loop"]).is_empty());
    }
}
