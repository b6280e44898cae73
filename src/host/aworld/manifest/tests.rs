//! `plugin.schema.json` evaluated without compiling it (`manifest::subset`) reports exactly
//! what the compiled `jsonschema` validator reports, in its order: on the shared corpus, on
//! inline seeds, and on seeded mutations of both.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::schema_value;
use crate::diagnostic::{Diagnostic, Severity};
use crate::manifest::doc::Node;
use crate::manifest::format::parse_json;
use crate::manifest::{schema as json_schema, subset};

const SEEDS: [&str; 6] = [
    r#"{"id": "p", "version": "1.0.0"}"#,
    r#"{"id": "", "version": 1, "activation_scope": "team", "dependencies": [1, "a"], "entrypoints": {"commands": [{"id": ""}, {}, 3], "hooks": {}}}"#,
    r#"{"id": "p", "id": 3, "version": "1", "entrypoints": {"commands": [{"id": "a"}], "commands": 5}}"#,
    r#"{"id": "p", "version": "1", "name": null, "source": [], "policy": "x", "lifecycle": {}, "conflicts": "a"}"#,
    r#"{"id": "p", "version": "1", "entrypoints": {"tools": [{"id": "t", "target": 1, "scope": [], "visibility": {}, "description": 2, "metadata": [], "permissions": "x", "name": 1}]}}"#,
    r#"[1, 2]"#,
];

/// splitmix64: seedable and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

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

/// Every container in `v`, as JSON pointers.
fn containers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            out.push(at.clone());
            for (k, c) in o {
                containers(c, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            out.push(at.clone());
            for (i, c) in a.iter().enumerate() {
                containers(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// One mutation: a member set, replaced or removed, or an item added, somewhere in `doc`.
fn mutate(doc: &mut Value, rng: &mut Rng, pool: &[Value]) {
    let mut places = Vec::new();
    containers(doc, String::new(), &mut places);
    let at = places[rng.below(places.len())].clone();
    let value = pool[rng.below(pool.len())].clone();
    match doc.pointer_mut(&at) {
        Some(Value::Object(o)) => {
            let key = if !o.is_empty() && rng.below(2) == 0 {
                o.keys()
                    .nth(rng.below(o.len()))
                    .cloned()
                    .unwrap_or_default()
            } else {
                KEYS[rng.below(KEYS.len())].to_owned()
            };
            if rng.below(4) == 0 {
                o.remove(&key);
            } else {
                o.insert(key, value);
            }
        }
        Some(Value::Array(a)) => {
            if !a.is_empty() && rng.below(2) == 0 {
                let i = rng.below(a.len());
                a[i] = value;
            } else {
                a.push(value);
            }
        }
        _ => {}
    }
}

// The test's own switches (not the program's environment) and its one `skipped` line.
#[allow(clippy::disallowed_methods, clippy::print_stderr)]
fn corpus() -> Vec<String> {
    let dir = std::env::var_os("PLUGINS_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join("aworld");
    let Ok(entries) = fs_err::read_dir(&dir) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "no corpus at {}",
            dir.display()
        );
        eprintln!(
            "skipped the aworld corpus part: no corpus at {}",
            dir.display()
        );
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| fs_err::read_to_string(e.path().join(".aworld-plugin/plugin.json")).ok())
        .collect();
    out.sort();
    out
}

/// The schema's findings as the report shows them: resolved to the bytes they label and in
/// source order (`validate::apply_policy` sorts them so, stably).
fn seen(errors: Vec<json_schema::SchemaError>, doc: &Node) -> Vec<String> {
    let mut diagnostics: Vec<Diagnostic> = super::lint::schema(errors)
        .into_iter()
        .map(|f| f.resolve(doc, Severity::Warning))
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
    let corpus = corpus();
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
                mutate(&mut doc, &mut rng, &pool);
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
            seen(subset::validate(schema_value(), &doc), &doc),
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
