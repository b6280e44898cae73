//! aoe's schema evaluated as data (`manifest::subset`) gives the diagnostics the compiled
//! `jsonschema` validator gives, as the report shows them: on the shared corpus, inline seeds
//! and seeded mutations of both, for every host profile.

use serde_json::{Value, json};

use super::profile::Profile;
use super::structural_finding;
use crate::diagnostic::{Diagnostic, Severity};
use crate::manifest::doc::Node;
use crate::manifest::format::parse_toml;
use crate::manifest::mutate::{Rng, corpus, mutate};
use crate::manifest::static_json::StaticJson;
use crate::manifest::{schema as json_schema, subset};

const SEEDS: [&str; 6] = [
    "id = \"dev.x.y\"\nname = \"Y\"\nversion = \"1\"\napi_version = 9\n",
    "id = \"Bad..Id\"\nname = 5\napi_version = -1\nextra = 1\n[runtime]\nkind = \"command\"\n",
    "id = \"a.b\"\nversion = 1.0\napi_version = 1.0\n[runtime]\nkind = \"release-binary\"\ncommand = 1\n[[keybinds]]\nkey = 3\n",
    "id = 1979-05-27T07:32:00Z\nname = inf\nversion = nan\napi_version = 99999999999999999999\n[[settings]]\nkey = \"k\"\ntype = \"nope\"\nmin_items = -2\n[[settings.fields]]\nkey = 1\ntype = \"bool\"\n",
    "id = \"x.yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\"\nname = \"n\"\nversion = \"v\"\napi_version = 4294967296\n[[ui]]\nslot = \"nowhere\"\n[[commands]]\nid = \"c\"\n[commands.action]\nkind = \"x\"\nslot = 1\n[[screenshots]]\npath = \"p\"\nextra = true\n",
    "id = \"é.a\"\nname = \"n\"\nversion = \"v\"\napi_version = 1\nstatus = [{ label = 1 }]\nthemes = [{}]\n[runtime]\nbuild = [{ command = \"x\", platforms = [1] }]\n",
];

fn values() -> Vec<Value> {
    vec![
        json!(true),
        json!(0),
        json!(-1),
        json!(7),
        json!(4_294_967_295_u64),
        json!(4_294_967_296_u64),
        json!(1.0),
        json!(1.5),
        json!(""),
        json!("x"),
        json!("Dev.X"),
        json!("dev.example.ok"),
        json!("command"),
        json!("release-binary"),
        json!("browser_open"),
        json!("sidebar"),
        json!("bool"),
        json!([]),
        json!(["a"]),
        json!([1, 2]),
        json!({}),
        json!({"id": ""}),
        json!({"kind": "command"}),
        json!({"kind": "release-binary", "asset": 1}),
        json!([{"id": "a"}, {}, {"key": "k", "type": "select"}]),
        json!([{"command": ["x"], "platforms": ["linux"]}, {"command": 1}]),
    ]
}

const KEYS: [&str; 16] = [
    "id",
    "name",
    "version",
    "api_version",
    "runtime",
    "kind",
    "command",
    "asset",
    "settings",
    "type",
    "key",
    "slot",
    "min_items",
    "commands",
    "extra",
    "fields",
];

/// The schema's diagnostics as the report shows them: resolved to the bytes they label and
/// in source order (`validate::apply_policy` sorts them so, stably).
fn seen(
    errors: Vec<json_schema::SchemaError>,
    doc: &Node,
    schema: &'static StaticJson,
    profile: Profile,
) -> Vec<String> {
    let at = crate::manifest::doc::Locator::new(doc);
    let mut diagnostics: Vec<Diagnostic> = errors
        .into_iter()
        .map(|e| structural_finding(e, &at, schema, profile).resolve(&at, Severity::Error))
        .collect();
    diagnostics.sort_by_key(Diagnostic::offset);
    diagnostics.iter().map(|d| format!("{d:?}")).collect()
}

#[test]
fn the_schema_uses_only_keywords_the_subset_evaluates() {
    for profile in [Profile::H12, Profile::H15] {
        let schema = super::schema::build(profile);
        assert_eq!(subset::unsupported(&schema), Vec::<String>::new());
    }
    // The id pattern is matched by code, not by a regex compiled per process.
    assert!(subset::written_out(super::schema::ID_PATTERN).is_some());
}

#[test]
fn the_subset_reports_what_jsonschema_reports() {
    let pool = values();
    let mut texts: Vec<String> = SEEDS.iter().map(|s| (*s).to_owned()).collect();
    let corpus = corpus("aoe", "aoe-plugin.toml");
    assert!(
        corpus.is_empty() || corpus.len() >= 30,
        "{} corpus manifests",
        corpus.len()
    );
    // Without the corpus (a clone alone), the inline seeds carry the whole sweep.
    let per_seed = if corpus.is_empty() { 120 } else { 60 };
    texts.extend(corpus);
    let mut rng = Rng(43);
    let mut mutated = Vec::new();
    for seed in &texts {
        let Ok(parsed) = toml::from_str::<Value>(seed) else {
            continue;
        };
        for _ in 0..per_seed {
            let mut doc = parsed.clone();
            for _ in 0..=rng.below(3) {
                mutate(&mut doc, &mut rng, &pool, &KEYS);
            }
            if let Ok(text) = toml::to_string(&doc) {
                mutated.push(text);
            }
        }
    }
    texts.extend(mutated);
    for profile in [Profile::H12, Profile::H15] {
        let compiled = json_schema::compile(&super::schema::build(profile));
        let schema = super::constraints(profile);
        let (mut compared, mut with_errors) = (0, 0);
        for text in &texts {
            let Ok(doc) = parse_toml(text) else {
                continue;
            };
            let expected = json_schema::validate(&compiled, &doc);
            with_errors += usize::from(!expected.is_empty());
            assert_eq!(
                seen(subset::validate(schema, &doc), &doc, schema, profile),
                seen(expected, &doc, schema, profile),
                "{text}"
            );
            compared += 1;
        }
        assert!(compared >= 400, "{compared} compared");
        assert!(
            with_errors * 3 >= compared,
            "{with_errors} of {compared} with errors"
        );
    }
}

/// The constraints the structural findings and the ignored-keys lint evaluate
/// (`schema_constraints.rs`, compiled in) are those of the schema `plugins schema aoe`
/// prints, for each host profile.
/// `SNAPSHOTS=overwrite` writes the file.
#[test]
fn the_compiled_constraints_are_the_schemas() {
    let [h12, h15] =
        [Profile::H12, Profile::H15].map(|p| subset::constraints(&super::schema::build(p)));
    crate::manifest::static_json::check_compiled(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/host/aoe/manifest/schema_constraints.rs"
        ),
        "The constraints of aoe's manifest schema (`plugins schema aoe`) per host profile",
        "host::aoe::manifest::tests::the_compiled_constraints_are_the_schemas",
        &[
            ("H12", &h12, &super::schema_constraints::H12),
            ("H15", &h15, &super::schema_constraints::H15),
        ],
    );
}
