//! `plugin.schema.json` evaluated without compiling it (`manifest::subset`) reports exactly
//! what the compiled `jsonschema` validator reports, in its order: on the shared corpus, on
//! inline seeds, and on seeded mutations of both.

use serde_json::{Value, json};

use super::schema_value;
use crate::diagnostic::{Diagnostic, Severity};
use crate::manifest::doc::Node;
use crate::manifest::format::parse_json;
use crate::manifest::mutate::{Rng, corpus, mutate};
use crate::manifest::{schema as json_schema, subset};

const SEEDS: [&str; 6] = [
    r#"{"id": "p", "version": "1.0.0"}"#,
    r#"{"id": "", "version": 1, "activation_scope": "team", "dependencies": [1, "a"], "entrypoints": {"commands": [{"id": ""}, {}, 3], "hooks": {}}}"#,
    r#"{"id": "p", "id": 3, "version": "1", "entrypoints": {"commands": [{"id": "a"}], "commands": 5}}"#,
    r#"{"id": "p", "version": "1", "name": null, "source": [], "policy": "x", "lifecycle": {}, "conflicts": "a"}"#,
    r#"{"id": "p", "version": "1", "entrypoints": {"tools": [{"id": "t", "target": 1, "scope": [], "visibility": {}, "description": 2, "metadata": [], "permissions": "x", "name": 1}]}}"#,
    r#"[1, 2]"#,
];

fn values() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(""),
        json!("x"),
        json!("é"),
        json!("workspace"),
        json!("global"),
        json!([]),
        json!(["a"]),
        json!([1, null]),
        json!({}),
        json!({"id": ""}),
        json!({"id": 1, "name": 2}),
        json!([{"id": "a"}, {}, "b", {"id": "b", "target": []}]),
        json!({"commands": [{"id": "a"}], "hooks": {}}),
        json!({"commands": [{"id": ""}], "tools": 1}),
    ]
}

const KEYS: [&str; 12] = [
    "id",
    "version",
    "name",
    "activation_scope",
    "entrypoints",
    "dependencies",
    "commands",
    "target",
    "metadata",
    "source",
    "extra",
    "scope",
];

/// The schema's findings as the report shows them: resolved to the bytes they label and in
/// source order (`validate::apply_policy` sorts them so, stably).
fn seen(errors: Vec<json_schema::SchemaError>, doc: &Node) -> Vec<String> {
    let at = crate::manifest::doc::Locator::new(doc);
    let mut diagnostics: Vec<Diagnostic> = super::lint::schema(errors)
        .into_iter()
        .map(|f| f.resolve(&at, Severity::Warning))
        .collect();
    diagnostics.sort_by_key(Diagnostic::offset);
    diagnostics.iter().map(|d| format!("{d:?}")).collect()
}

#[test]
fn the_schema_uses_only_keywords_the_subset_evaluates() {
    assert_eq!(subset::unsupported(schema_value()), Vec::<String>::new());
}

#[test]
fn the_subset_reports_what_jsonschema_reports() {
    let compiled = json_schema::compile(schema_value());
    let pool = values();
    let mut texts: Vec<String> = SEEDS.iter().map(|s| (*s).to_owned()).collect();
    let corpus = corpus("aworld", ".aworld-plugin/plugin.json");
    assert!(
        corpus.is_empty() || corpus.len() >= 30,
        "{} corpus manifests",
        corpus.len()
    );
    texts.extend(corpus);
    let seeds = texts.clone();
    let mut rng = Rng(43);
    for seed in &seeds {
        let Ok(parsed) = serde_json::from_str::<Value>(seed) else {
            continue;
        };
        for _ in 0..80 {
            let mut doc = parsed.clone();
            for _ in 0..=rng.below(3) {
                mutate(&mut doc, &mut rng, &pool, &KEYS);
            }
            texts.push(doc.to_string());
        }
    }
    let (mut compared, mut with_errors) = (0, 0);
    for text in &texts {
        let Ok(doc) = parse_json(text) else {
            continue;
        };
        let expected = json_schema::validate(&compiled, &doc);
        with_errors += usize::from(!expected.is_empty());
        assert_eq!(
            seen(
                subset::validate(&super::schema_constraints::SCHEMA, &doc),
                &doc
            ),
            seen(expected, &doc),
            "{text}"
        );
        compared += 1;
    }
    // The sweep reaches both outcomes, and enough of each to mean something.
    assert!(compared >= 400, "{compared} compared");
    assert!(
        with_errors * 3 >= compared,
        "{with_errors} of {compared} with errors"
    );
}

/// The constraints the schema lint evaluates (`schema_constraints.rs`, compiled in) are
/// those of `plugin.schema.json`. `SNAPSHOTS=overwrite` writes the file.
#[test]
fn the_compiled_constraints_are_the_schemas() {
    crate::manifest::static_json::check_compiled(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/host/aworld/manifest/schema_constraints.rs"
        ),
        "The constraints of AWorld's `plugin.schema.json`",
        "host::aworld::manifest::tests::the_compiled_constraints_are_the_schemas",
        &[(
            "SCHEMA",
            &subset::constraints(schema_value()),
            &super::schema_constraints::SCHEMA,
        )],
    );
}
