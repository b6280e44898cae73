//! `--format human|json|github`: the same verdict and exit code in every format.

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::*;

const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

#[test]
fn every_format_exits_alike() {
    let dir = aoe_root(BROKEN);
    for (format, stdout) in [
        (
            "human",
            str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`,
  │ `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[ROOT]/aoe-plugin.toml:7:8]
 6 │ [[ui]]
 7 │ slot = "sidebar"
   ·        ─────────
 8 │ id = "s"
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.x` 1.0.0 at [ROOT] (1 error)

"#]],
        ),
        (
            "json",
            str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 0,
    "invalid": 1,
    "errors": 1,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.x",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 7, column 8\n  |\n7 | slot = \"sidebar\"\n  |        ^^^^^^^^^\nunknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`\n"
      },
      "manifest_hash": "sha256:8704905407af3b564659fc9dcec82896394b8b9c7eb5afbc83117de01246a48a",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_variant",
          "severity": "error",
          "message": "unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`",
          "help": null,
          "labels": [
            {
              "start": 82,
              "end": 91,
              "line": 7,
              "column": 8,
              "end_line": 7,
              "end_column": 17,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    }
  ]
}

"#]],
        ),
        (
            "github",
            str![[r#"
::error file=[ROOT]/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=[ROOT]/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error

"#]],
        ),
    ] {
        let ran = Plugins::new()
            .redact("[ROOT]", dir.path())
            .args(["validate", "--format", format, "--path"])
            .arg(dir.path())
            .run();
        ran.expect(1, stdout, str![""]);
        assert!(
            ran.stdout.contains("unknown variant `sidebar`"),
            "{format}: {}",
            ran.stdout
        );
    }
}

#[test]
fn human_output_is_plain_without_a_terminal() {
    let dir = aoe_root(BROKEN);
    let ran = Plugins::new()
        .args(["validate", "--path", "."])
        .current_dir(dir.path())
        .run();
    ran.expect(
        1,
        str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`,
  │ `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[aoe-plugin.toml:7:8]
 6 │ [[ui]]
 7 │ slot = "sidebar"
   ·        ─────────
 8 │ id = "s"
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.x` 1.0.0 at . (1 error)

"#]],
        str![""],
    );
    let stdout = &ran.stdout;
    assert!(
        !stdout.contains('\u{1b}'),
        "no escape codes without a terminal"
    );
    let (_, colored, _) = Plugins::new()
        .args(["validate", "--color", "always", "--path", "."])
        .current_dir(dir.path())
        .run()
        // parts: the escape codes --color always writes are the point (not a snapshot's text).
        .parts();
    assert!(colored.contains('\u{1b}'), "--color always forces color");
}

#[test]
fn json_is_one_document_with_positions() {
    let dir = aoe_root(BROKEN);
    let ran = Plugins::new()
        .args(["validate", "--format", "json", "--path", "."])
        .current_dir(dir.path())
        .run();
    ran.expect(1, str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 0,
    "invalid": 1,
    "errors": 1,
    "warnings": 0
  },
  "plugins": [
    {
      "root": ".",
      "manifest": "aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.x",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 7, column 8\n  |\n7 | slot = \"sidebar\"\n  |        ^^^^^^^^^\nunknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`\n"
      },
      "manifest_hash": "sha256:8704905407af3b564659fc9dcec82896394b8b9c7eb5afbc83117de01246a48a",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_variant",
          "severity": "error",
          "message": "unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`",
          "help": null,
          "labels": [
            {
              "start": 82,
              "end": 91,
              "line": 7,
              "column": 8,
              "end_line": 7,
              "end_column": 17,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    }
  ]
}

"#]], str![""]);
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
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
    Plugins::new()
        .args(["validate", "--format", "github", "--path", "."])
        .current_dir(dir.path())
        .run()
        .expect(1, str![[r#"
::error file=aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error

"#]], str![""]);
}

#[test]
fn warnings_are_github_warnings_with_help() {
    let text = CLEAN_AOE.replace("version = \"0.1.0\"", "version = \"v1\"");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    let ran = Plugins::new()
        .args(["validate", "--format", "github", "--path", "."])
        .current_dir(dir.path())
        .run();
    ran.expect(0, str![[r#"
::warning file=aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
1 plugin: 1 valid, 0 invalid; 1 warning

"#]], str![""]);
    let first = ran.stdout.lines().next().unwrap();
    assert!(first.starts_with("::warning file=aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::"), "{first}");
    assert!(first.contains("%0Ahelp: "), "{first}");
}

#[test]
fn quiet_hides_clean_plugins() {
    let dir = clean_aoe_root();
    Plugins::new()
        .args(["validate", "-q", "--path"])
        .arg(dir.path())
        .run()
        .expect(0, str![""], str![[""]]);
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
    let json = |paths: &[&str], code: i32, expected: snapbox::data::Inline| -> serde_json::Value {
        let mut cmd = Plugins::new();
        cmd.args(["validate", "--format", "json"]).current_dir(t);
        for p in paths {
            cmd.args(["--path", p]);
        }
        let ran = cmd.run();
        ran.expect(code, expected, str![""]);
        let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
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
    let dup = json(
        &["dup"],
        0,
        str![[r#"
{
  "format_version": 1,
  "valid": true,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 1,
    "invalid": 0,
    "errors": 0,
    "warnings": 1
  },
  "plugins": [
    {
      "root": "dup",
      "manifest": "dup/protoagent.plugin.yaml",
      "dialect": "protoagent",
      "id": "demo",
      "version": "1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:2dc92a11ee1376cec729246d55402be8ec6fa430457e5943f047ed9a1c2ba601",
      "diagnostics": [
        {
          "code": "plugins::protoagent::unknown_key",
          "severity": "warning",
          "message": "unknown key `descripton` in the manifest is ignored by the host",
          "help": "did you mean `description`?",
          "labels": [
            {
              "start": 50,
              "end": 60,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 11,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": null
    }
  ]
}

"#]],
    );
    let d = &dup["plugins"][0]["diagnostics"][0];
    assert_eq!(
        (&d["code"], &d["help"], &d["fixes"]),
        (
            &serde_json::json!("plugins::protoagent::unknown_key"),
            &serde_json::json!("did you mean `description`?"),
            &serde_json::json!([])
        )
    );
    let doc = json(
        &["aoe", "aw", "pa", "empty"],
        1,
        str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 4,
    "valid": 3,
    "invalid": 1,
    "errors": 1,
    "warnings": 4
  },
  "plugins": [
    {
      "root": "aoe",
      "manifest": "aoe/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:6444d96cc538bcbc113db3e4258d23e6d94c3882588a2b9913fd370d3187d5d1",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_capability",
          "severity": "warning",
          "message": "plugin requests capabilities this host does not support: runtime.workr, notificatons; upgrade aoe",
          "help": "did you mean: `runtime.workr` → `runtime.worker`, `notificatons` → `notifications`",
          "labels": [
            {
              "start": 119,
              "end": 134,
              "line": 6,
              "column": 17,
              "end_line": 6,
              "end_column": 32,
              "text": "not a capability of aoe 1.19.0"
            },
            {
              "start": 136,
              "end": 150,
              "line": 6,
              "column": 34,
              "end_line": 6,
              "end_column": 48,
              "text": "also unknown"
            }
          ],
          "fixes": [
            {
              "start": 120,
              "end": 133,
              "line": 6,
              "column": 18,
              "end_line": 6,
              "end_column": 31,
              "replacement": "runtime.worker"
            },
            {
              "start": 137,
              "end": 149,
              "line": 6,
              "column": 35,
              "end_line": 6,
              "end_column": 47,
              "replacement": "notifications"
            }
          ]
        },
        {
          "code": "plugins::aoe::ignored_key",
          "severity": "warning",
          "message": "unknown key `descripton` in commands[0] is ignored by the host",
          "help": "did you mean `description`?",
          "labels": [
            {
              "start": 166,
              "end": 178,
              "line": 9,
              "column": 1,
              "end_line": 9,
              "end_column": 13,
              "text": null
            }
          ],
          "fixes": [
            {
              "start": 167,
              "end": 177,
              "line": 9,
              "column": 2,
              "end_line": 9,
              "end_column": 12,
              "replacement": "description"
            }
          ]
        }
      ],
      "skipped": null
    },
    {
      "root": "aw",
      "manifest": "aw/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "a",
      "version": "1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:a875859deed2e74c192825b689bde3fde73ee2f729ffd3cda63655a4deea8af3",
      "diagnostics": [
        {
          "code": "plugins::aworld::unknown_kind",
          "severity": "warning",
          "message": "entrypoint kind `comands` has no loader in the host; it is only indexed",
          "help": "did you mean `commands`?",
          "labels": [
            {
              "start": 44,
              "end": 53,
              "line": 1,
              "column": 45,
              "end_line": 1,
              "end_column": 54,
              "text": null
            }
          ],
          "fixes": [
            {
              "start": 45,
              "end": 52,
              "line": 1,
              "column": 46,
              "end_line": 1,
              "end_column": 53,
              "replacement": "commands"
            }
          ]
        }
      ],
      "skipped": null
    },
    {
      "root": "pa",
      "manifest": "pa/protoagent.plugin.yaml",
      "dialect": "protoagent",
      "id": "demo",
      "version": "1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:be48e786e496f5cdabaf8292b7b91e94e6dd98763bfe073ebca754fb48a35c4e",
      "diagnostics": [
        {
          "code": "plugins::protoagent::unknown_key",
          "severity": "warning",
          "message": "unknown key `descripton` in the manifest is ignored by the host",
          "help": "did you mean `description`?",
          "labels": [
            {
              "start": 35,
              "end": 45,
              "line": 4,
              "column": 1,
              "end_line": 4,
              "end_column": 11,
              "text": null
            }
          ],
          "fixes": [
            {
              "start": 35,
              "end": 45,
              "line": 4,
              "column": 1,
              "end_line": 4,
              "end_column": 11,
              "replacement": "description"
            }
          ]
        }
      ],
      "skipped": null
    },
    {
      "root": "empty",
      "manifest": "empty",
      "dialect": null,
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "no plugin manifest at empty"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::missing",
          "severity": "error",
          "message": "no plugin manifest at empty",
          "help": "looked for aoe-plugin.toml, .aworld-plugin/plugin.json, protoagent.plugin.yaml; pass `--recursive` to search below it",
          "labels": [],
          "fixes": []
        }
      ],
      "skipped": null
    }
  ]
}

"#]],
    );
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
    let doc = json(
        &["aoe", "aw", "pa"],
        0,
        str![[r#"
{
  "format_version": 1,
  "valid": true,
  "aoe_api": 15,
  "summary": {
    "plugins": 3,
    "valid": 3,
    "invalid": 0,
    "errors": 0,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "aoe",
      "manifest": "aoe/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:53f8d0aaf97a53323b1825a328e3cbd52c0e3c1143d889d61c737a4bfa626783",
      "diagnostics": [],
      "skipped": null
    },
    {
      "root": "aw",
      "manifest": "aw/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "a",
      "version": "1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:c04f48fb7fd601838f79bf6d74c8add64b37c175aa9ed04dc870dc7d9f97cc71",
      "diagnostics": [],
      "skipped": null
    },
    {
      "root": "pa",
      "manifest": "pa/protoagent.plugin.yaml",
      "dialect": "protoagent",
      "id": "demo",
      "version": "1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:497bdb67341a884571025b39573fae992b1423a52b2ce1f13ea0c272a23d6308",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
    );
    let left: Vec<&str> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["diagnostics"].as_array().unwrap())
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_data_eq!(left.join("\n"), str![""].raw());
}
