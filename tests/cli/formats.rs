//! `--format human|json|github`: the same verdict and exit code in every format.

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::*;

const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

#[test]
fn every_format_exits_alike() {
    let dir = aoe_root(BROKEN);
    for format in ["human", "json", "github"] {
        let (code, stdout, stderr) = Plugins::new()
            .args(["validate", "--format", format, "--path"])
            .arg(dir.path())
            .run()
            .parts();
        assert_eq!(code, 1, "{format}");
        assert!(stderr.is_empty(), "{format}: {stderr}");
        assert!(
            stdout.contains("unknown variant `sidebar`"),
            "{format}: {stdout}"
        );
    }
}

#[test]
fn human_output_is_plain_without_a_terminal() {
    let dir = aoe_root(BROKEN);
    let (_, stdout, _) = Plugins::new()
        .args(["validate", "--path", "."])
        .current_dir(dir.path())
        .run()
        .parts();
    let expected = "\
plugins::aoe::unknown_variant

  × unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`,
  │ `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[aoe-plugin.toml:7:8]
 6 │ [[ui]]
 7 │ slot = \"sidebar\"
   ·        ─────────
 8 │ id = \"s\"
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.x` 1.0.0 at . (1 error)
";
    assert_eq!(stdout, expected);
    assert!(
        !stdout.contains('\u{1b}'),
        "no escape codes without a terminal"
    );
    let (_, colored, _) = Plugins::new()
        .args(["validate", "--color", "always", "--path", "."])
        .current_dir(dir.path())
        .run()
        .parts();
    assert!(colored.contains('\u{1b}'), "--color always forces color");
}

#[test]
fn json_is_one_document_with_positions() {
    let dir = aoe_root(BROKEN);
    let (_, stdout, _) = Plugins::new()
        .args(["validate", "--format", "json", "--path", "."])
        .current_dir(dir.path())
        .run()
        .parts();
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["format_version"], 1);
    assert_eq!(doc["valid"], false);
    assert_eq!(doc["aoe_api"], 15);
    assert_eq!(
        doc["summary"],
        serde_json::json!({"plugins": 1, "valid": 0, "invalid": 1, "errors": 1, "warnings": 0})
    );
    let p = &doc["plugins"][0];
    assert_eq!(p["dialect"], "aoe");
    assert_eq!(p["id"], "dev.example.x");
    assert_eq!(p["manifest"], "aoe-plugin.toml");
    assert_eq!(p["host"]["verdict"], "parse");
    assert!(
        p["host"]["message"]
            .as_str()
            .unwrap()
            .starts_with("manifest is not valid TOML: TOML parse error at line 7, column 8")
    );
    assert_eq!(
        p["skipped"],
        "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    );
    let label = &p["diagnostics"][0]["labels"][0];
    assert_eq!(
        (
            label["line"].as_u64(),
            label["column"].as_u64(),
            label["end_column"].as_u64()
        ),
        (Some(7), Some(8), Some(17))
    );
}

#[test]
fn github_annotations_point_at_the_line() {
    let dir = aoe_root(BROKEN);
    let (_, stdout, _) = Plugins::new()
        .args(["validate", "--format", "github", "--path", "."])
        .current_dir(dir.path())
        .run()
        .parts();
    let mut lines = stdout.lines();
    assert_eq!(
        lines.next().unwrap(),
        "::error file=aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`"
    );
    assert_eq!(
        lines.next().unwrap(),
        "::notice file=aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    );
    assert_eq!(
        lines.next().unwrap(),
        "1 plugin: 0 valid, 1 invalid; 1 error"
    );
}

#[test]
fn warnings_are_github_warnings_with_help() {
    let text = CLEAN_AOE.replace("version = \"0.1.0\"", "version = \"v1\"");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    let (code, stdout, _) = Plugins::new()
        .args(["validate", "--format", "github", "--path", "."])
        .current_dir(dir.path())
        .run()
        .parts();
    assert_eq!(code, 0);
    let first = stdout.lines().next().unwrap();
    assert!(first.starts_with("::warning file=aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::"), "{first}");
    assert!(first.contains("%0Ahelp: "), "{first}");
}

#[test]
fn quiet_hides_clean_plugins() {
    let dir = clean_aoe_root();
    let (code, stdout, _) = Plugins::new()
        .args(["validate", "-q", "--path"])
        .arg(dir.path())
        .run()
        .parts();
    assert_eq!((code, stdout.as_str()), (0, ""));
}

/// `--format json` matches docs/schema/output/validate.json for every dialect
/// and a missing manifest, and a did-you-mean's `fixes`, applied at their
/// byte offsets, fix the manifest.
#[test]
fn json_matches_its_schema_and_its_fixes_fix() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/validate.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let aoe = t.join("aoe/aoe-plugin.toml");
    std::fs::create_dir_all(t.join("aoe/bin")).unwrap();
    std::fs::write(t.join("aoe/bin/worker"), "#!/bin/sh\n").unwrap();
    let broken = CLEAN_AOE
        .replace(
            "[\"runtime.worker\"]",
            "[\"runtime.workr\", \"notificatons\"]",
        )
        .replace("[[commands]]", "[[commands]]\n'descripton' = \"é\"");
    std::fs::write(&aoe, &broken).unwrap();
    std::fs::create_dir_all(t.join("aw/.aworld-plugin")).unwrap();
    std::fs::write(
        t.join("aw/.aworld-plugin/plugin.json"),
        "{\"id\": \"a\", \"version\": \"1\", \"entrypoints\": {\"comands\": [{\"id\": \"x\", \"target\": \"x.py\"}]}}\n",
    )
    .unwrap();
    std::fs::write(t.join("aw/x.py"), "").unwrap();
    std::fs::create_dir_all(t.join("pa")).unwrap();
    std::fs::write(
        t.join("pa/protoagent.plugin.yaml"),
        "id: demo\nname: Demo\nversion: \"1.0\"\ndescripton: Hi\n",
    )
    .unwrap();
    std::fs::write(
        t.join("pa/__init__.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    std::fs::create_dir_all(t.join("empty")).unwrap();
    let json = |paths: &[&str]| -> serde_json::Value {
        let mut cmd = Plugins::new();
        cmd.args(["validate", "--format", "json"]).current_dir(t);
        for p in paths {
            cmd.args(["--path", p]);
        }
        let (_, stdout, stderr) = cmd.run().parts();
        let doc: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
        let problems: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(problems.is_empty(), "{problems:#?}\n{doc:#}");
        doc
    };
    // A rename to a key the table already has is no fix: it would make a duplicate.
    std::fs::create_dir_all(t.join("dup")).unwrap();
    std::fs::write(
        t.join("dup/protoagent.plugin.yaml"),
        "id: demo\nname: Demo\nversion: \"1.0\"\ndescription: a\ndescripton: b\n",
    )
    .unwrap();
    std::fs::write(
        t.join("dup/__init__.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    let dup = json(&["dup"]);
    let d = &dup["plugins"][0]["diagnostics"][0];
    assert_eq!(
        (&d["code"], &d["help"], &d["fixes"]),
        (
            &serde_json::json!("plugins::protoagent::unknown_key"),
            &serde_json::json!("did you mean `description`?"),
            &serde_json::json!([])
        )
    );
    let doc = json(&["aoe", "aw", "pa", "empty"]);
    // Every fix, as `code: old -> new`.
    let mut fixes = String::new();
    for p in doc["plugins"].as_array().unwrap() {
        let text =
            std::fs::read_to_string(t.join(p["manifest"].as_str().unwrap())).unwrap_or_default();
        for d in p["diagnostics"].as_array().unwrap() {
            for f in d["fixes"].as_array().unwrap() {
                let span = usize::try_from(f["start"].as_u64().unwrap()).unwrap()
                    ..usize::try_from(f["end"].as_u64().unwrap()).unwrap();
                fixes.push_str(&format!(
                    "{} {}:{}: {} -> {}\n",
                    d["code"].as_str().unwrap(),
                    f["line"],
                    f["column"],
                    &text[span],
                    f["replacement"].as_str().unwrap()
                ));
            }
        }
    }
    assert_data_eq!(
        fixes,
        str![[r#"
plugins::aoe::unknown_capability 6:18: runtime.workr -> runtime.worker
plugins::aoe::unknown_capability 6:35: notificatons -> notifications
plugins::aoe::ignored_key 9:2: descripton -> description
plugins::aworld::unknown_kind 1:46: comands -> commands
plugins::protoagent::unknown_key 4:1: descripton -> description

"#]]
        .raw()
    );
    // Applied (last first, so offsets hold), the fixed diagnostics are gone.
    for p in doc["plugins"].as_array().unwrap() {
        let manifest = t.join(p["manifest"].as_str().unwrap());
        let Ok(mut text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let mut edits: Vec<(usize, usize, String)> = p["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d["fixes"].as_array().unwrap().clone())
            .map(|f| {
                (
                    usize::try_from(f["start"].as_u64().unwrap()).unwrap(),
                    usize::try_from(f["end"].as_u64().unwrap()).unwrap(),
                    f["replacement"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        edits.sort_by_key(|e| std::cmp::Reverse(e.0));
        for (a, b, new) in edits {
            text.replace_range(a..b, &new);
        }
        std::fs::write(&manifest, text).unwrap();
    }
    let doc = json(&["aoe", "aw", "pa"]);
    let left: Vec<&str> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["diagnostics"].as_array().unwrap())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_data_eq!(left.join("\n"), str![""].raw());
}
