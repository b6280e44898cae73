//! `plugins validate` on aoe plugins: spans, lints, flags and exit codes.

use std::path::Path;

use serde_json::Value;

use snapbox::str;

use crate::support::*;

/// `validate --format json` with extra args, its stdout against `expected` (the root as
/// `[ROOT]`, its parent as `[PARENT]`) and stderr empty; returns (exit, the single plugin's JSON).
#[track_caller]
fn validate_json(root: &Path, extra: &[&str], expected: snapbox::data::Inline) -> (i32, Value) {
    let ran = Plugins::new()
        .redact("[ROOT]", root)
        .redact("[PARENT]", root.parent().unwrap())
        .args(["validate", "--format", "json", "--path"])
        .arg(root)
        .args(extra)
        .run();
    ran.streams_eq(expected, str![""]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    (ran.code, doc["plugins"][0].clone())
}

/// [`validate_json`] for a table of cases, judged against the host's own message.
fn host_json(root: &Path, extra: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = Plugins::new()
        .args(["validate", "--format", "json", "--path"])
        .arg(root)
        .args(extra)
        .run()
        // parts: one call per case of a table, each compared with the host's own message.
        .parts();
    assert!(stderr.is_empty(), "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    (code, doc["plugins"][0].clone())
}

fn find<'a>(ds: &'a [(String, String, String)], code: &str) -> &'a (String, String, String) {
    ds.iter()
        .find(|d| d.0 == code)
        .unwrap_or_else(|| panic!("no {code} in {ds:#?}"))
}

fn with(extra: &str) -> String {
    format!("{CLEAN_AOE}{extra}")
}

#[test]
fn a_clean_plugin_is_valid_and_silent() {
    let dir = clean_aoe_root();
    Plugins::new()
        .redact("[ROOT]", dir.path())
        .args(["validate", "--path"])
        .arg(dir.path())
        .run()
        .expect(
            0,
            str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at [ROOT]

"#]],
            str![[""]],
        );
    let (code, plugin) = validate_json(
        dir.path(),
        &["--strict"],
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
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:29f0c492bf428c60f846d7d8fc6d3a1d4c16337b3eeb827d095b6e1310689ff6",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
    );
    assert_eq!(code, 0);
    assert_eq!(plugin["diagnostics"], Value::Array(vec![]));
    assert_eq!(plugin["host"]["verdict"], "valid");
    assert!(
        plugin["manifest_hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
}

#[test]
fn the_default_path_is_the_current_directory() {
    let dir = clean_aoe_root();
    Plugins::new()
        .arg("validate")
        .current_dir(dir.path())
        .run()
        .expect(
            0,
            str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at .

"#]],
            str![[""]],
        );
}

/// `plugins validate .` (or `./dir`, `../x`): a path no plugin id can be is a path, where it
/// exists; a directory named like an id stays an id.
#[test]
fn a_path_no_id_can_be_is_a_path() {
    let tmp = tempfile::tempdir().unwrap();
    let parent = tmp.path();
    let root = parent.join("hello");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("aoe-plugin.toml"), CLEAN_AOE).unwrap();
    std::fs::write(root.join("bin/worker"), "#!/bin/sh\n").unwrap();
    let validate = |dir: &Path, args: &[&str]| {
        let mut cmd = Plugins::new();
        cmd.arg("validate")
            .args(args)
            .arg("--home")
            .arg(parent.join("home"))
            .current_dir(dir);
        cmd.run()
    };
    validate(&root, &["."]).expect(
        0,
        str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at .

"#]],
        str![[""]],
    );
    validate(parent, &["./hello"]).expect(
        0,
        str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at hello

"#]],
        str![[""]],
    );
    validate(parent, &["hello"]).expect(
        2,
        str![[""]],
        str![[r#"
plugins::usage::not_installed

  × plugin `hello` is not installed in `[..]/home`
  help: pass `--home DIR` or set PLUGINS_HOME to the directory that holds `plugins/<id>/`

"#]],
    );
    validate(parent, &["./missing"]).expect(
        2,
        str![[""]],
        str![[r#"
plugins::usage::path_not_found

  × path `./missing` does not exist

"#]],
    );
}

#[test]
fn unknown_top_level_key_labels_the_key_and_suggests() {
    let text = CLEAN_AOE.replace("description =", "descripton =");
    let dir = aoe_root(&text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 5, column 1\n  |\n5 | descripton = \"Says hello.\"\n  | ^^^^^^^^^^\nunknown field `descripton`, expected one of `id`, `name`, `version`, `api_version`, `description`, `screenshots`, `icon`, `icon_asset`, `capabilities`, `commands`, `keybinds`, `settings`, `setting_defaults`, `themes`, `status`, `ui`, `runtime`, `aoe_version`\n"
      },
      "manifest_hash": "sha256:2695af8ad52d926fdb384b8ba0e449b53bf4241ae6fabbacd89a990f38672819",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_key",
          "severity": "error",
          "message": "unknown field `descripton`, expected one of `id`, `name`, `version`, `api_version`, `description`, `screenshots`, `icon`, `icon_asset`, `capabilities`, `commands`, `keybinds`, `settings`, `setting_defaults`, `themes`, `status`, `ui`, `runtime`, `aoe_version`",
          "help": "did you mean `description`?",
          "labels": [
            {
              "start": 75,
              "end": 85,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 11,
              "text": "unknown key"
            }
          ],
          "fixes": [
            {
              "start": 75,
              "end": 85,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 11,
              "replacement": "description"
            }
          ]
        }
      ],
      "skipped": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    }
  ]
}

"#]],
    );
    assert_eq!(code, 1);
    let ds = diags(&plugin, &text);
    let d = find(&ds, "plugins::aoe::unknown_key");
    assert_eq!(d.2, "descripton");
    assert!(
        d.1.starts_with("unknown field `descripton`, expected one of `id`, `name`"),
        "{}",
        d.1
    );
    assert_eq!(
        plugin["diagnostics"][0]["help"],
        "did you mean `description`?"
    );
    assert_eq!(plugin["host"]["verdict"], "parse");
}

#[test]
fn nested_unknown_keys_are_lints_except_in_strict_tables() {
    let text = with("\n[[ui]]\nslot = \"pane\"\nid = \"p\"\ntitle = \"ignored\"\n");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:c248a9166ac1f874cdc1a9483171e2499a63e84fed28e73cdf1b11f115bccd96",
      "diagnostics": [
        {
          "code": "plugins::aoe::ignored_key",
          "severity": "warning",
          "message": "unknown key `title` in ui[0] is ignored by the host",
          "help": null,
          "labels": [
            {
              "start": 266,
              "end": 271,
              "line": 19,
              "column": 1,
              "end_line": 19,
              "end_column": 6,
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
    assert_eq!(code, 0, "the host ignores unknown keys in [[ui]]");
    let ds = diags(&plugin, &text);
    assert_eq!(find(&ds, "plugins::aoe::ignored_key").2, "title");
    let (code, _) = validate_json(
        dir.path(),
        &["--strict"],
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
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:c248a9166ac1f874cdc1a9483171e2499a63e84fed28e73cdf1b11f115bccd96",
      "diagnostics": [
        {
          "code": "plugins::aoe::ignored_key",
          "severity": "error",
          "message": "unknown key `title` in ui[0] is ignored by the host",
          "help": null,
          "labels": [
            {
              "start": 266,
              "end": 271,
              "line": 19,
              "column": 1,
              "end_line": 19,
              "end_column": 6,
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
    assert_eq!(code, 1, "--strict fails on the lint");
    let (code, plugin) = validate_json(
        dir.path(),
        &["--strict", "-A", "plugins::aoe::ignored_key"],
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
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:c248a9166ac1f874cdc1a9483171e2499a63e84fed28e73cdf1b11f115bccd96",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
    );
    assert_eq!(
        (code, plugin["diagnostics"].as_array().unwrap().len()),
        (0, 0),
        "--allow drops it"
    );

    // [[runtime.build]] denies unknown fields, as the host does.
    let text = CLEAN_AOE.to_owned()
        + "\n[[runtime.build]]\ncommand = [\"make\"]\nplatform = [\"linux\"]\n";
    let dir = aoe_root(&text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 12, column 1\n   |\n12 | [runtime]\n   | ^^^^^^^^^\nunknown field `platform`, expected `command` or `platforms`\n"
      },
      "manifest_hash": "sha256:e6f6f8880579e93a7390d9fbb48d1d6a917ea8375a328ee35366b50195b6033f",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_key",
          "severity": "error",
          "message": "unknown field `platform`, expected `command` or `platforms`",
          "help": "did you mean `platforms`?",
          "labels": [
            {
              "start": 273,
              "end": 281,
              "line": 18,
              "column": 1,
              "end_line": 18,
              "end_column": 9,
              "text": "unknown key"
            }
          ],
          "fixes": [
            {
              "start": 273,
              "end": 281,
              "line": 18,
              "column": 1,
              "end_line": 18,
              "end_column": 9,
              "replacement": "platforms"
            }
          ]
        }
      ],
      "skipped": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    }
  ]
}

"#]],
    );
    assert_eq!(code, 1);
    let ds = diags(&plugin, &text);
    let d = find(&ds, "plugins::aoe::unknown_key");
    assert_eq!(
        d.1,
        "unknown field `platform`, expected `command` or `platforms`"
    );
    assert_eq!(
        plugin["diagnostics"][0]["help"],
        "did you mean `platforms`?"
    );
}

#[test]
fn missing_keys_label_the_parent_table() {
    let text = "id = \"a.b\"\nname = \"x\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[commands]]\ntitle = \"t\"\n";
    let dir = aoe_root(text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
      "id": "a.b",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 6, column 1\n  |\n6 | [[commands]]\n  | ^^^^^^^^^^^^\nmissing field `id`\n"
      },
      "manifest_hash": "sha256:d87bcb456caf18a251736962bff9d5120881761f849e0edbebf02a21883bfb1e",
      "diagnostics": [
        {
          "code": "plugins::aoe::missing_key",
          "severity": "error",
          "message": "missing field `id`",
          "help": null,
          "labels": [
            {
              "start": 58,
              "end": 70,
              "line": 6,
              "column": 1,
              "end_line": 6,
              "end_column": 13,
              "text": "`id` is required in commands[0]"
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
    );
    assert_eq!(code, 1);
    let ds = diags(&plugin, text);
    let d = find(&ds, "plugins::aoe::missing_key");
    assert_eq!(d.1, "missing field `id`");
    assert_eq!(d.2, "[[commands]]");
}

#[test]
fn semantic_errors_label_values_and_keep_the_host_order() {
    let text = "id = \"a.b\"\nname = \"\"\nversion = \"1.0.0\"\napi_version = 3\nicon = \"Bad Icon\"\n\n[[status]]\nid = \"s\"\n";
    let dir = aoe_root(text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
        str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 0,
    "invalid": 1,
    "errors": 4,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "a.b",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "invalid",
        "message": "manifest is invalid:\nname must not be empty\nicon \"Bad Icon\" must be a lucide kebab-case icon name\nstatus contributions require api_version >= 4\nicon requires api_version >= 7"
      },
      "manifest_hash": "sha256:9c9fe0ee55e88b476fde3717a5d3ed562332c282548efaae3d2f65375e1bb381",
      "diagnostics": [
        {
          "code": "plugins::aoe::empty",
          "severity": "error",
          "message": "name must not be empty",
          "help": null,
          "labels": [
            {
              "start": 18,
              "end": 20,
              "line": 2,
              "column": 8,
              "end_line": 2,
              "end_column": 10,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::api_gate",
          "severity": "error",
          "message": "icon requires api_version >= 7",
          "help": "set `api_version = 7` or higher (hosts before that version refuse it)",
          "labels": [
            {
              "start": 55,
              "end": 59,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 5,
              "text": null
            },
            {
              "start": 53,
              "end": 54,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version is 3"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::icon",
          "severity": "error",
          "message": "icon \"Bad Icon\" must be a lucide kebab-case icon name",
          "help": "lowercase words joined by single hyphens, e.g. \"git-branch\"",
          "labels": [
            {
              "start": 62,
              "end": 72,
              "line": 5,
              "column": 8,
              "end_line": 5,
              "end_column": 18,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::api_gate",
          "severity": "error",
          "message": "status contributions require api_version >= 4",
          "help": "set `api_version = 4` or higher (hosts before that version refuse it)",
          "labels": [
            {
              "start": 76,
              "end": 82,
              "line": 7,
              "column": 3,
              "end_line": 7,
              "end_column": 9,
              "text": null
            },
            {
              "start": 53,
              "end": 54,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version is 3"
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
    assert_eq!(code, 1);
    assert_eq!(
        plugin["host"]["message"],
        "manifest is invalid:\nname must not be empty\nicon \"Bad Icon\" must be a lucide kebab-case icon name\n\
         status contributions require api_version >= 4\nicon requires api_version >= 7"
    );
    let ds = diags(&plugin, text);
    assert_eq!(find(&ds, "plugins::aoe::empty").2, "\"\"");
    assert_eq!(find(&ds, "plugins::aoe::icon").2, "\"Bad Icon\"");
    let gate = plugin["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"] == "status contributions require api_version >= 4")
        .unwrap();
    assert_eq!(gate["labels"][1]["text"], "api_version is 3");
}

#[test]
fn api_version_too_new_reports_only_the_upgrade() {
    let text = "id = \"a.b\"\nname = \"x\"\nversion = \"1\"\napi_version = 14\nfuture_key = 1\n";
    let dir = aoe_root(text);
    let (code, plugin) = validate_json(
        dir.path(),
        &["--aoe-api", "12"],
        str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 12,
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
      "id": "a.b",
      "version": "1",
      "valid": false,
      "host": {
        "verdict": "unsupported",
        "message": "manifest targets api_version 14 but this host supports 1..=12; upgrade aoe"
      },
      "manifest_hash": "sha256:33e154e713af72a0e4c55e7785286046672ef6748e9d0948a8777c962f3d5c42",
      "diagnostics": [
        {
          "code": "plugins::aoe::unsupported_api_version",
          "severity": "error",
          "message": "manifest targets api_version 14 but this host supports 1..=12; upgrade aoe",
          "help": "aoe 1.19 supports it: validate with `--aoe-api 15`, or upgrade aoe",
          "labels": [
            {
              "start": 50,
              "end": 52,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 17,
              "text": "newer than api_version 12"
            }
          ],
          "fixes": []
        }
      ],
      "skipped": "further checks skipped until this is fixed: the structural and semantic passes, install refusals and lints"
    }
  ]
}

"#]],
    );
    assert_eq!(code, 1);
    let ds = diags(&plugin, text);
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].0, "plugins::aoe::unsupported_api_version");
    assert_eq!(
        ds[0].1,
        "manifest targets api_version 14 but this host supports 1..=12; upgrade aoe"
    );
    assert_eq!(ds[0].2, "14");
    // The H15 profile knows api 14 and so reaches the unknown key.
    let (_, plugin) = validate_json(
        dir.path(),
        &["--aoe-api", "15"],
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
      "id": "a.b",
      "version": "1",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 5, column 1\n  |\n5 | future_key = 1\n  | ^^^^^^^^^^\nunknown field `future_key`, expected one of `id`, `name`, `version`, `api_version`, `description`, `screenshots`, `icon`, `icon_asset`, `capabilities`, `commands`, `keybinds`, `settings`, `setting_defaults`, `themes`, `status`, `ui`, `runtime`, `aoe_version`\n"
      },
      "manifest_hash": "sha256:33e154e713af72a0e4c55e7785286046672ef6748e9d0948a8777c962f3d5c42",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_key",
          "severity": "error",
          "message": "unknown field `future_key`, expected one of `id`, `name`, `version`, `api_version`, `description`, `screenshots`, `icon`, `icon_asset`, `capabilities`, `commands`, `keybinds`, `settings`, `setting_defaults`, `themes`, `status`, `ui`, `runtime`, `aoe_version`",
          "help": null,
          "labels": [
            {
              "start": 53,
              "end": 63,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 11,
              "text": "unknown key"
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
    );
    assert_eq!(plugin["host"]["verdict"], "parse");
}

#[test]
fn profiles_differ_on_session_message() {
    let text = CLEAN_AOE
        .replace(
            "\"runtime.worker\"]",
            "\"runtime.worker\", \"session.message\"]",
        )
        .replace("api_version = 15", "api_version = 12");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    let (code, plugin) = validate_json(
        dir.path(),
        &["--aoe-api", "15"],
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
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "invalid",
        "message": "manifest is invalid:\nthe session.message capability requires api_version >= 15"
      },
      "manifest_hash": "sha256:4b5fe9f77906d11760ad95e360d7ed8021069eca3edfb4fa804c231dd27eb1bd",
      "diagnostics": [
        {
          "code": "plugins::aoe::api_gate",
          "severity": "error",
          "message": "the session.message capability requires api_version >= 15",
          "help": "set `api_version = 15` or higher (hosts before that version refuse it)",
          "labels": [
            {
              "start": 137,
              "end": 154,
              "line": 6,
              "column": 35,
              "end_line": 6,
              "end_column": 52,
              "text": null
            },
            {
              "start": 72,
              "end": 74,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 17,
              "text": "api_version is 12"
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
    assert_eq!(code, 1);
    assert_eq!(
        find(&diags(&plugin, &text), "plugins::aoe::api_gate").1,
        "the session.message capability requires api_version >= 15"
    );
    let (code, plugin) = validate_json(
        dir.path(),
        &["--aoe-api", "12"],
        str![[r#"
{
  "format_version": 1,
  "valid": true,
  "aoe_api": 12,
  "summary": {
    "plugins": 1,
    "valid": 1,
    "invalid": 0,
    "errors": 0,
    "warnings": 1
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:4b5fe9f77906d11760ad95e360d7ed8021069eca3edfb4fa804c231dd27eb1bd",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_capability",
          "severity": "warning",
          "message": "plugin requests capabilities this host does not support: session.message; upgrade aoe",
          "help": "did you mean: `session.message` → `session.create`",
          "labels": [
            {
              "start": 137,
              "end": 154,
              "line": 6,
              "column": 35,
              "end_line": 6,
              "end_column": 52,
              "text": "not a capability of aoe 1.14.0"
            }
          ],
          "fixes": [
            {
              "start": 138,
              "end": 153,
              "line": 6,
              "column": 36,
              "end_line": 6,
              "end_column": 51,
              "replacement": "session.create"
            }
          ]
        }
      ],
      "skipped": null
    }
  ]
}

"#]],
    );
    assert_eq!(
        code, 0,
        "valid on H12, where only install refuses the capability"
    );
    assert_eq!(
        find(&diags(&plugin, &text), "plugins::aoe::unknown_capability").1,
        "plugin requests capabilities this host does not support: session.message; upgrade aoe"
    );
}

#[test]
fn host_version_checks_aoe_version() {
    let text = CLEAN_AOE
        .to_owned()
        .replace("description", "aoe_version = \">=1.15, <2\"\ndescription");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    assert_eq!(
        validate_json(
            dir.path(),
            &["--host-version", "1.19.0"],
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
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:430cb135a9d7b3c5acbd5e7f928351b0356cd7e58e60e5c0e00e69295519bce4",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]]
        )
        .0,
        0
    );
    let (code, plugin) = validate_json(
        dir.path(),
        &["--host-version", "1.14.0"],
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
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:430cb135a9d7b3c5acbd5e7f928351b0356cd7e58e60e5c0e00e69295519bce4",
      "diagnostics": [
        {
          "code": "plugins::aoe::host_version",
          "severity": "error",
          "message": "plugin requires aoe >=1.15, <2; this host is 1.14.0",
          "help": "install refuses it and the host skips it at load",
          "labels": [
            {
              "start": 89,
              "end": 101,
              "line": 5,
              "column": 15,
              "end_line": 5,
              "end_column": 27,
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
    assert_eq!(code, 1);
    let d = find(&diags(&plugin, &text), "plugins::aoe::host_version").clone();
    assert_eq!(d.1, "plugin requires aoe >=1.15, <2; this host is 1.14.0");
    assert_eq!(d.2, "\">=1.15, <2\"");
    Plugins::new()
        .args(["validate", "--host-version", "one.two", "--path"])
        .arg(dir.path())
        .run()
        .expect(
            2,
            str![[""]],
            str![[r#"
plugins::usage::invalid_argument

  × --host-version "one.two" is neither a semver (aoe) nor a PEP 440 (protoAgent) version

"#]],
        );
}

#[test]
fn lints_for_what_breaks_at_run_time() {
    let text = r#"id = "dev.example.lints"
name = "Lints"
version = "one"
api_version = 1
capabilities = ["runtime.worker", "runtime.worker"]

[[keybinds]]
command = "go"
key = "Alt+K"

[[themes]]
name = "dracula"
path = "../themes/d.toml"

[[ui]]
slot = "pane"
id = "p"

[runtime]
kind = "command"
command = ["../outside/worker"]

[[runtime.build]]
command = ["/usr/bin/make"]
"#;
    let dir = aoe_root(text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
    "warnings": 9
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.lints",
      "version": "one",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:674d1a17a5cba79d285213568d9fcdf0e2c1e86d3c47a63b37e3debbbfe15dd2",
      "diagnostics": [
        {
          "code": "plugins::aoe::version_not_semver",
          "severity": "warning",
          "message": "version \"one\" is not a semantic version",
          "help": "the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\"",
          "labels": [
            {
              "start": 50,
              "end": 55,
              "line": 3,
              "column": 11,
              "end_line": 3,
              "end_column": 16,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::doc_gate",
          "severity": "warning",
          "message": "`capabilities` is documented as api_version >= 2; this manifest declares 1",
          "help": "the host does not enforce it, but set `api_version = 2` or higher to match the docs",
          "labels": [
            {
              "start": 72,
              "end": 84,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 13,
              "text": null
            },
            {
              "start": 70,
              "end": 71,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::duplicate",
          "severity": "warning",
          "message": "duplicate capability \"runtime.worker\"",
          "help": "the host does not reject it, but only one of them is reachable",
          "labels": [
            {
              "start": 106,
              "end": 122,
              "line": 5,
              "column": 35,
              "end_line": 5,
              "end_column": 51,
              "text": null
            },
            {
              "start": 88,
              "end": 104,
              "line": 5,
              "column": 17,
              "end_line": 5,
              "end_column": 33,
              "text": "first declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::keybind_chord",
          "severity": "warning",
          "message": "keybinds[0].key \"Alt+K\" cannot be parsed; the host skips it",
          "help": "chords are `Ctrl`/`Shift` plus one key: a single character or F1..F24, e.g. \"Ctrl+K\"",
          "labels": [
            {
              "start": 159,
              "end": 166,
              "line": 9,
              "column": 7,
              "end_line": 9,
              "end_column": 14,
              "text": "the `Alt` modifier is not supported (only Ctrl and Shift)"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::theme_name",
          "severity": "warning",
          "message": "theme name \"dracula\" collides with a builtin theme, so the host drops it",
          "help": "pick a distinct name, e.g. prefix it with your plugin's name",
          "labels": [
            {
              "start": 186,
              "end": 195,
              "line": 12,
              "column": 8,
              "end_line": 12,
              "end_column": 17,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::theme_path",
          "severity": "warning",
          "message": "themes[0].path \"../themes/d.toml\" contains `..`, so the host drops the theme",
          "help": null,
          "labels": [
            {
              "start": 203,
              "end": 221,
              "line": 13,
              "column": 8,
              "end_line": 13,
              "end_column": 26,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::doc_gate",
          "severity": "warning",
          "message": "the `pane` slot is documented as api_version >= 3; this manifest declares 1",
          "help": "the host does not enforce it, but set `api_version = 3` or higher to match the docs",
          "labels": [
            {
              "start": 237,
              "end": 243,
              "line": 16,
              "column": 8,
              "end_line": 16,
              "end_column": 14,
              "text": null
            },
            {
              "start": 70,
              "end": 71,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::entrypoint",
          "severity": "warning",
          "message": "runtime command program \"../outside/worker\" escapes the plugin directory; the host refuses to launch it",
          "help": "keep the worker inside the plugin, e.g. under `.aoe-build/`",
          "labels": [
            {
              "start": 292,
              "end": 311,
              "line": 21,
              "column": 12,
              "end_line": 21,
              "end_column": 31,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::build_program",
          "severity": "warning",
          "message": "runtime.build[0] program \"/usr/bin/make\" is an absolute path, which the host rejects when it runs the step",
          "help": "use a bare program name resolved on PATH, or a plugin-relative path",
          "labels": [
            {
              "start": 343,
              "end": 358,
              "line": 24,
              "column": 12,
              "end_line": 24,
              "end_column": 27,
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
    assert_eq!(code, 0, "all of these are accepted by the host");
    let ds = diags(&plugin, text);
    assert_eq!(find(&ds, "plugins::aoe::version_not_semver").2, "\"one\"");
    assert_eq!(
        find(&ds, "plugins::aoe::duplicate").1,
        "duplicate capability \"runtime.worker\""
    );
    assert_eq!(find(&ds, "plugins::aoe::keybind_chord").2, "\"Alt+K\"");
    assert_eq!(find(&ds, "plugins::aoe::theme_name").2, "\"dracula\"");
    assert!(
        find(&ds, "plugins::aoe::theme_path")
            .1
            .contains("contains `..`")
    );
    assert_eq!(find(&ds, "plugins::aoe::doc_gate").2, "capabilities");
    assert!(
        ds.iter()
            .any(|d| d.0 == "plugins::aoe::doc_gate" && d.2 == "\"pane\""),
        "{ds:#?}"
    );
    assert!(
        find(&ds, "plugins::aoe::entrypoint")
            .1
            .contains("escapes the plugin directory")
    );
    assert_eq!(
        find(&ds, "plugins::aoe::build_program").2,
        "\"/usr/bin/make\""
    );
    assert_eq!(
        validate_json(dir.path(), &["--deny-warnings"], str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 0,
    "invalid": 1,
    "errors": 9,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.lints",
      "version": "one",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:674d1a17a5cba79d285213568d9fcdf0e2c1e86d3c47a63b37e3debbbfe15dd2",
      "diagnostics": [
        {
          "code": "plugins::aoe::version_not_semver",
          "severity": "error",
          "message": "version \"one\" is not a semantic version",
          "help": "the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\"",
          "labels": [
            {
              "start": 50,
              "end": 55,
              "line": 3,
              "column": 11,
              "end_line": 3,
              "end_column": 16,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::doc_gate",
          "severity": "error",
          "message": "`capabilities` is documented as api_version >= 2; this manifest declares 1",
          "help": "the host does not enforce it, but set `api_version = 2` or higher to match the docs",
          "labels": [
            {
              "start": 72,
              "end": 84,
              "line": 5,
              "column": 1,
              "end_line": 5,
              "end_column": 13,
              "text": null
            },
            {
              "start": 70,
              "end": 71,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::duplicate",
          "severity": "error",
          "message": "duplicate capability \"runtime.worker\"",
          "help": "the host does not reject it, but only one of them is reachable",
          "labels": [
            {
              "start": 106,
              "end": 122,
              "line": 5,
              "column": 35,
              "end_line": 5,
              "end_column": 51,
              "text": null
            },
            {
              "start": 88,
              "end": 104,
              "line": 5,
              "column": 17,
              "end_line": 5,
              "end_column": 33,
              "text": "first declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::keybind_chord",
          "severity": "error",
          "message": "keybinds[0].key \"Alt+K\" cannot be parsed; the host skips it",
          "help": "chords are `Ctrl`/`Shift` plus one key: a single character or F1..F24, e.g. \"Ctrl+K\"",
          "labels": [
            {
              "start": 159,
              "end": 166,
              "line": 9,
              "column": 7,
              "end_line": 9,
              "end_column": 14,
              "text": "the `Alt` modifier is not supported (only Ctrl and Shift)"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::theme_name",
          "severity": "error",
          "message": "theme name \"dracula\" collides with a builtin theme, so the host drops it",
          "help": "pick a distinct name, e.g. prefix it with your plugin's name",
          "labels": [
            {
              "start": 186,
              "end": 195,
              "line": 12,
              "column": 8,
              "end_line": 12,
              "end_column": 17,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::theme_path",
          "severity": "error",
          "message": "themes[0].path \"../themes/d.toml\" contains `..`, so the host drops the theme",
          "help": null,
          "labels": [
            {
              "start": 203,
              "end": 221,
              "line": 13,
              "column": 8,
              "end_line": 13,
              "end_column": 26,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::doc_gate",
          "severity": "error",
          "message": "the `pane` slot is documented as api_version >= 3; this manifest declares 1",
          "help": "the host does not enforce it, but set `api_version = 3` or higher to match the docs",
          "labels": [
            {
              "start": 237,
              "end": 243,
              "line": 16,
              "column": 8,
              "end_line": 16,
              "end_column": 14,
              "text": null
            },
            {
              "start": 70,
              "end": 71,
              "line": 4,
              "column": 15,
              "end_line": 4,
              "end_column": 16,
              "text": "api_version declared here"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::entrypoint",
          "severity": "error",
          "message": "runtime command program \"../outside/worker\" escapes the plugin directory; the host refuses to launch it",
          "help": "keep the worker inside the plugin, e.g. under `.aoe-build/`",
          "labels": [
            {
              "start": 292,
              "end": 311,
              "line": 21,
              "column": 12,
              "end_line": 21,
              "end_column": 31,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::build_program",
          "severity": "error",
          "message": "runtime.build[0] program \"/usr/bin/make\" is an absolute path, which the host rejects when it runs the step",
          "help": "use a bare program name resolved on PATH, or a plugin-relative path",
          "labels": [
            {
              "start": 343,
              "end": 358,
              "line": 24,
              "column": 12,
              "end_line": 24,
              "end_column": 27,
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

"#]]).0,
        1
    );
}

#[test]
fn release_binary_lints_and_install_refusals() {
    let text = r#"id = "dev.example.rb"
name = "RB"
version = "1.0.0"
api_version = 12

[runtime]
kind = "release-binary"
asset = "worker-${target}.tar.gz"
build = []
"#;
    let dir = aoe_root(text);
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
    "warnings": 4
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.rb",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:450c4870afacdc153c272578551b62b224ca4e277b56f5f0bada959d823fd524",
      "diagnostics": [
        {
          "code": "plugins::aoe::archive_without_bin",
          "severity": "warning",
          "message": "a release-binary archive asset must set `bin`",
          "help": "set `bin` to the executable's path inside the archive",
          "labels": [
            {
              "start": 112,
              "end": 137,
              "line": 8,
              "column": 9,
              "end_line": 8,
              "end_column": 34,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::asset_template",
          "severity": "warning",
          "message": "`${target}` is documented but the host does not substitute it in `asset`",
          "help": "use `${os}` and `${arch}` (and `${version}`), which the host does substitute",
          "labels": [
            {
              "start": 112,
              "end": 137,
              "line": 8,
              "column": 9,
              "end_line": 8,
              "end_column": 34,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::asset_template",
          "severity": "warning",
          "message": "a templated `asset` without `bin` installs but cannot launch: install writes the rendered name, launch looks for the template",
          "help": "set `bin` to the installed executable's name",
          "labels": [
            {
              "start": 112,
              "end": 137,
              "line": 8,
              "column": 9,
              "end_line": 8,
              "end_column": 34,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::ignored_key",
          "severity": "warning",
          "message": "`build` has no effect on a `release-binary` runtime and is ignored by the host",
          "help": null,
          "labels": [
            {
              "start": 138,
              "end": 143,
              "line": 9,
              "column": 1,
              "end_line": 9,
              "end_column": 6,
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
    assert_eq!(code, 0);
    let ds = diags(&plugin, text);
    assert_eq!(
        find(&ds, "plugins::aoe::archive_without_bin").1,
        "a release-binary archive asset must set `bin`"
    );
    assert!(
        ds.iter()
            .filter(|d| d.0 == "plugins::aoe::asset_template")
            .count()
            == 2,
        "{ds:#?}"
    );
    assert_eq!(find(&ds, "plugins::aoe::ignored_key").2, "build");

    let text = text.replace("build = []", "bin = \"../escape\"");
    let dir = aoe_root(&text);
    let (_, plugin) = validate_json(
        dir.path(),
        &[],
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
    "warnings": 2
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.rb",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:7039c97a0eb6bbb8016ce5c9f9e130d14606db4575e39ba5af2ef0f3865c03aa",
      "diagnostics": [
        {
          "code": "plugins::aoe::asset_template",
          "severity": "warning",
          "message": "`${target}` is documented but the host does not substitute it in `asset`",
          "help": "use `${os}` and `${arch}` (and `${version}`), which the host does substitute",
          "labels": [
            {
              "start": 112,
              "end": 137,
              "line": 8,
              "column": 9,
              "end_line": 8,
              "end_column": 34,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::bin_path",
          "severity": "warning",
          "message": "plugin path \"../escape\" must be a relative path inside the plugin (no absolute path or `..`)",
          "help": null,
          "labels": [
            {
              "start": 144,
              "end": 155,
              "line": 9,
              "column": 7,
              "end_line": 9,
              "end_column": 18,
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
    assert_eq!(
        find(&diags(&plugin, &text), "plugins::aoe::bin_path").1,
        "plugin path \"../escape\" must be a relative path inside the plugin (no absolute path or `..`)"
    );
}

#[test]
fn tree_refusals_symlinks_and_shipped_build_dir() {
    let dir = clean_aoe_root();
    std::fs::create_dir(dir.path().join(".aoe-build")).unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", dir.path().join("assets/escape")).unwrap();
    std::os::unix::fs::symlink("../bin/worker", dir.path().join("assets/inside")).unwrap();
    // Symlinks under .git and the root .aoe-build are not part of the hashed tree.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::os::unix::fs::symlink("/", dir.path().join(".git/ignored")).unwrap();
    std::os::unix::fs::symlink("/", dir.path().join(".aoe-build/ignored")).unwrap();
    let (code, plugin) = validate_json(
        dir.path(),
        &[],
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
    "warnings": 3
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:29f0c492bf428c60f846d7d8fc6d3a1d4c16337b3eeb827d095b6e1310689ff6",
      "diagnostics": [
        {
          "code": "plugins::aoe::shipped_build_dir",
          "severity": "warning",
          "message": "plugin source ships the reserved build-output directory \".aoe-build\"; it must only be produced by build steps, not committed",
          "help": "delete `.aoe-build/` from the repository and add it to .gitignore",
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::symlink",
          "severity": "warning",
          "message": "plugin tree contains a symlink (assets/escape); symlinks are not allowed in a hashed tree",
          "help": "it also points outside the plugin directory",
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::symlink",
          "severity": "warning",
          "message": "plugin tree contains a symlink (assets/inside); symlinks are not allowed in a hashed tree",
          "help": "replace it with a copy of the file, or create it in a build step",
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
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
    assert_eq!(code, 0, "only install refuses these");
    let all = plugin["diagnostics"].as_array().unwrap();
    let messages: Vec<&str> = all.iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        [
            "plugin source ships the reserved build-output directory \".aoe-build\"; it must only be produced by build steps, not committed",
            "plugin tree contains a symlink (assets/escape); symlinks are not allowed in a hashed tree",
            "plugin tree contains a symlink (assets/inside); symlinks are not allowed in a hashed tree",
        ]
    );
    assert_eq!(
        all[1]["help"],
        "it also points outside the plugin directory"
    );
    assert_ne!(all[2]["help"], all[1]["help"]);
}

#[test]
fn entrypoint_symlink_escape_is_caught() {
    let dir = aoe_root(CLEAN_AOE);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("worker"), "").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("bin")).unwrap();
    let (_, plugin) = validate_json(
        dir.path(),
        &[],
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
    "warnings": 2
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:29f0c492bf428c60f846d7d8fc6d3a1d4c16337b3eeb827d095b6e1310689ff6",
      "diagnostics": [
        {
          "code": "plugins::aoe::symlink",
          "severity": "warning",
          "message": "plugin tree contains a symlink (bin); symlinks are not allowed in a hashed tree",
          "help": "it also points outside the plugin directory",
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::entrypoint",
          "severity": "warning",
          "message": "runtime command program \"./bin/worker\" resolves outside the plugin directory (through a symlink)",
          "help": null,
          "labels": [
            {
              "start": 219,
              "end": 233,
              "line": 14,
              "column": 12,
              "end_line": 14,
              "end_column": 26,
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
    let ds = diags(&plugin, CLEAN_AOE);
    assert!(
        find(&ds, "plugins::aoe::entrypoint")
            .1
            .contains("resolves outside the plugin directory"),
        "{ds:#?}"
    );
}

#[test]
fn reserved_namespace_can_be_asserted_featured() {
    let text = CLEAN_AOE.replace("dev.example.hello", "agent-of-empires.hello");
    let dir = aoe_root(&text);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "").unwrap();
    let (code, plugin) = validate_json(
        dir.path(),
        &["--strict"],
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
      "id": "agent-of-empires.hello",
      "version": "0.1.0",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:613ff683356eacc966f7e8cdb406364b7f10b7300a212942ef8ad3b8d3d07384",
      "diagnostics": [
        {
          "code": "plugins::aoe::reserved_namespace",
          "severity": "error",
          "message": "plugin id \"agent-of-empires.hello\" uses a reserved namespace (aoe.* / agent-of-empires.*); only a featured-verified plugin may claim one",
          "help": "only a plugin of aoe's featured index, at a tree hash the index pins, may claim it; choose your own namespace, e.g. \"dev.example.name\"",
          "labels": [
            {
              "start": 5,
              "end": 29,
              "line": 1,
              "column": 6,
              "end_line": 1,
              "end_column": 30,
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
    assert_eq!(code, 1);
    assert_eq!(
        find(&diags(&plugin, &text), "plugins::aoe::reserved_namespace").2,
        "\"agent-of-empires.hello\""
    );
    assert_eq!(
        validate_json(
            dir.path(),
            &["--strict", "--featured"],
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
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "agent-of-empires.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:613ff683356eacc966f7e8cdb406364b7f10b7300a212942ef8ad3b8d3d07384",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]]
        )
        .0,
        0
    );
}

#[test]
fn recursive_discovery_and_exit_codes() {
    let parent = tempfile::tempdir().unwrap();
    for (name, manifest) in [("b-bad", "id = \"Bad\""), ("a-good", CLEAN_AOE)] {
        let root = parent.path().join("plugins").join(name);
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("aoe-plugin.toml"), manifest).unwrap();
    }
    std::fs::create_dir_all(parent.path().join("plugins/node_modules/x")).unwrap();
    std::fs::write(
        parent.path().join("plugins/node_modules/x/aoe-plugin.toml"),
        "bad",
    )
    .unwrap();
    let ran = Plugins::new()
        .redact("[PARENT]", parent.path())
        .args(["validate", "-r", "--format", "json", "--path"])
        .arg(parent.path())
        .run();
    ran.expect(1, str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 2,
    "valid": 1,
    "invalid": 1,
    "errors": 4,
    "warnings": 1
  },
  "plugins": [
    {
      "root": "[PARENT]/plugins/a-good",
      "manifest": "[PARENT]/plugins/a-good/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "0.1.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:29f0c492bf428c60f846d7d8fc6d3a1d4c16337b3eeb827d095b6e1310689ff6",
      "diagnostics": [
        {
          "code": "plugins::aoe::entrypoint",
          "severity": "warning",
          "message": "runtime command program \"./bin/worker\" does not exist and no build step creates it",
          "help": "commit the program or add a `[[runtime.build]]` step that produces it",
          "labels": [
            {
              "start": 219,
              "end": 233,
              "line": 14,
              "column": 12,
              "end_line": 14,
              "end_column": 26,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": null
    },
    {
      "root": "[PARENT]/plugins/b-bad",
      "manifest": "[PARENT]/plugins/b-bad/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "Bad",
      "version": null,
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 1, column 6\n  |\n1 | id = \"Bad\"\n  |      ^^^^^\ninvalid plugin id \"Bad\": each dot-separated segment must start with a lowercase letter\n"
      },
      "manifest_hash": "sha256:0f12d1ac7a514ee86ba1576cdcc0b9fdc7ad589b5d8c1bc1fedf65c9c20d1885",
      "diagnostics": [
        {
          "code": "plugins::aoe::missing_key",
          "severity": "error",
          "message": "missing field `name`",
          "help": null,
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": "`name` is required in the top level"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::missing_key",
          "severity": "error",
          "message": "missing field `version`",
          "help": null,
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": "`version` is required in the top level"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::missing_key",
          "severity": "error",
          "message": "missing field `api_version`",
          "help": null,
          "labels": [
            {
              "start": 0,
              "end": 0,
              "line": 1,
              "column": 1,
              "end_line": 1,
              "end_column": 1,
              "text": "`api_version` is required in the top level"
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aoe::invalid_id",
          "severity": "error",
          "message": "invalid plugin id \"Bad\": each dot-separated segment must start with a lowercase letter",
          "help": "ids are dot-separated lowercase segments like \"dev.example.my-plugin\"",
          "labels": [
            {
              "start": 5,
              "end": 10,
              "line": 1,
              "column": 6,
              "end_line": 1,
              "end_column": 11,
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

"#]], str![[""]]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let roots: Vec<&str> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["root"].as_str().unwrap())
        .collect();
    assert_eq!(roots.len(), 2, "node_modules is skipped: {roots:?}");
    assert!(
        roots[0].ends_with("plugins/a-good") && roots[1].ends_with("plugins/b-bad"),
        "{roots:?}"
    );
    assert_eq!(doc["summary"]["invalid"], 1);
    assert_eq!(doc["valid"], false);

    let empty = tempfile::tempdir().unwrap();
    Plugins::new()
        .redact("[EMPTY]", empty.path())
        // Unwrapped: where the report wraps depends on the temp dir's length.
        .env("COLUMNS", "400")
        .args(["validate", "-r", "--path"])
        .arg(empty.path())
        .run()
        .expect(
            2,
            str![[""]],
            str![[r#"
plugins::usage::no_plugins

  × no plugin root found under `[EMPTY]`
  help: a plugin root holds aoe-plugin.toml, .aworld-plugin/plugin.json or protoagent.plugin.yaml

"#]],
        );
}

#[test]
fn a_manifest_file_path_names_its_root() {
    let dir = clean_aoe_root();
    Plugins::new()
        .redact("[ROOT]", dir.path())
        .args(["validate", "--path"])
        .arg(dir.path().join("aoe-plugin.toml"))
        .run()
        .expect(
            0,
            str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at [ROOT]

"#]],
            str![[""]],
        );
}

#[test]
fn installed_plugins_by_id_from_the_home() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("plugins/dev.example.hello");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("aoe-plugin.toml"), CLEAN_AOE).unwrap();
    std::fs::write(root.join("bin/worker"), "").unwrap();
    Plugins::new()
        .redact("[HOME]", home.path())
        .args(["validate", "dev.example.hello"])
        .env("PLUGINS_HOME", home.path())
        .run()
        .expect(
            0,
            str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at [HOME]/plugins/dev.example.hello

"#]],
            str![[""]],
        );
    Plugins::new()
        .redact("[HOME]", home.path())
        // Unwrapped: where the report wraps depends on the temp dir's length.
        .env("COLUMNS", "400")
        .args(["validate", "--home"])
        .arg(home.path())
        .arg("dev.example.nope")
        .run()
        .expect(
            2,
            str![[""]],
            str![[r#"
plugins::usage::not_installed

  × plugin `dev.example.nope` is not installed in `[HOME]`
  help: pass `--home DIR` or set PLUGINS_HOME to the directory that holds `plugins/<id>/`

"#]],
        );
}

#[test]
fn forced_dialect() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("protoagent.plugin.yaml"), "id: x\n").unwrap();
    let (code, plugin) = validate_json(
        dir.path(),
        &["--dialect", "aoe"],
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
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "no aoe-plugin.toml at [ROOT]/aoe-plugin.toml"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::missing",
          "severity": "error",
          "message": "no aoe-plugin.toml at [ROOT]/aoe-plugin.toml",
          "help": null,
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
    assert_eq!(code, 1);
    assert_eq!(plugin["diagnostics"][0]["code"], "plugins::file::missing");
    assert!(
        plugin["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("no aoe-plugin.toml at ")
    );
}

#[test]
fn an_unknown_capability_suggests_the_capability_it_starts_with() {
    let dir = clean_aoe_root();
    let text = CLEAN_AOE.replace("[\"runtime.worker\"]", "[\"runtime.worker\", \"network\"]");
    std::fs::write(dir.path().join("aoe-plugin.toml"), text).unwrap();
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::aoe::unknown_capability

  ⚠ plugin requests capabilities this host does not support: network; upgrade aoe
   ╭─[aoe-plugin.toml:6:35]
 5 │ description = "Says hello."
 6 │ capabilities = ["runtime.worker", "network"]
   ·                                   ────┬────
   ·                                       ╰── not a capability of aoe 1.19.0
 7 │ 
   ╰────
  help: did you mean: `network` → `net`
    Valid aoe plugin `dev.example.hello` 0.1.0 at . (1 warning)

"#]]
    );
}

#[test]
fn an_absolute_worker_program_gets_one_error_that_offers_system() {
    let dir =
        aoe_root(&CLEAN_AOE.replace("\"./bin/worker\"", "\"/usr/bin/python3\", \"worker.py\""));
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::aoe::runtime_command

  × runtime command program "/usr/bin/python3" must be a plugin-relative path (containing a
  │ separator, like ".venv/bin/worker"); set `system = true` to depend on a program from the host
  │ PATH instead
    ╭─[aoe-plugin.toml:14:12]
 13 │ kind = "command"
 14 │ command = ["/usr/bin/python3", "worker.py"]
    ·            ──────────────────
    ╰────
  help: to run the host's `python3` from PATH, write the bare name "python3" and add `system =
        true`; or point at a file inside the plugin, e.g. ".aoe-build/bin/worker"
  Invalid aoe plugin `dev.example.hello` 0.1.0 at . (1 error)

"#]]
    );

    // With `system = true` already set, the fix is the bare name.
    let dir = aoe_root(&CLEAN_AOE.replace(
        "command = [\"./bin/worker\"]",
        "system = true\ncommand = [\"/usr/bin/python3\"]",
    ));
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::aoe::runtime_command

  × runtime command program "/usr/bin/python3" has `system = true` but is a path; a system
  │ dependency must be a bare program name resolved on PATH (like "uv" or "python3")
    ╭─[aoe-plugin.toml:15:12]
 13 │ kind = "command"
 14 │ system = true
    ·          ──┬─
    ·            ╰── `system = true` set here
 15 │ command = ["/usr/bin/python3"]
    ·            ──────────────────
    ╰────
  help: write the bare name "python3", or drop `system = true` for a program inside the plugin
  Invalid aoe plugin `dev.example.hello` 0.1.0 at . (1 error)

"#]]
    );
}

#[test]
fn a_parse_error_says_the_semantic_pass_waits_for_it() {
    // An invalid id stops the host's parse; the empty name is a semantic error.
    let dir = aoe_root(
        &CLEAN_AOE
            .replace("dev.example.hello", "Dev.Hello")
            .replace("name = \"Hello\"", "name = \"\""),
    );
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::aoe::invalid_id

  × invalid plugin id "Dev.Hello": each dot-separated segment must start with a lowercase letter
   ╭─[aoe-plugin.toml:1:6]
 1 │ id = "Dev.Hello"
   ·      ───────────
 2 │ name = ""
   ╰────
  help: ids are dot-separated lowercase segments like "dev.example.my-plugin"
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `Dev.Hello` 0.1.0 at . (1 error)

"#]]
    );
}

#[test]
fn a_placeholder_id_is_linted_once_the_repository_has_a_remote() {
    use crate::support::git::git;
    let dir = clean_aoe_root();
    git(dir.path(), &["init", "-q"]);
    assert_eq!(
        validate_screen(dir.path(), &["--strict"]).0,
        0,
        "without a remote it is local work (and test fixtures stay clean)"
    );
    git(
        dir.path(),
        &["remote", "add", "origin", "git@github.com:Alice/hello.git"],
    );
    let (code, screen) = validate_screen(dir.path(), &["--strict"]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::aoe::placeholder_id

  × plugin id "dev.example.hello" keeps the placeholder namespace `dev.example`
   ╭─[aoe-plugin.toml:1:6]
 1 │ id = "dev.example.hello"
   ·      ───────────────────
 2 │ name = "Hello"
   ╰────
  help: use a namespace you own before publishing, e.g. "io.github.alice.hello" (from the remote
        git@github.com:Alice/hello.git)
  Invalid aoe plugin `dev.example.hello` 0.1.0 at . (1 error)

"#]]
    );
    let allow = ["--strict", "-A", "plugins::aoe::placeholder_id"];
    assert_eq!(validate_screen(dir.path(), &allow).0, 0);
    std::fs::write(
        dir.path().join("aoe-plugin.toml"),
        CLEAN_AOE.replace("dev.example.hello", "io.github.alice.hello"),
    )
    .unwrap();
    assert_eq!(validate_screen(dir.path(), &["--strict"]).0, 0);
}

/// The lines of aoe's own error text: each line of `manifest is invalid:`, or serde's message
/// (the last line) of `manifest is not valid TOML: …`.
fn host_lines(message: &str) -> Vec<String> {
    match message.strip_prefix("manifest is invalid:\n") {
        Some(rest) => rest.lines().map(str::to_owned).collect(),
        None => vec![message.trim_end().lines().last().unwrap_or("").to_owned()],
    }
}

#[test]
fn every_host_error_text_is_a_diagnostic_verbatim() {
    // Each replaces or adds one line of the clean manifest; serde's words (`sequence`, `map`,
    // `floating point`, `u32`, `internally tagged enum`) are the host's.
    let cases = [
        ("name = \"Hello\"", "name = [1]"),
        ("name = \"Hello\"", "name = { a = 1 }"),
        ("name = \"Hello\"", "name = 1.5"),
        ("api_version = 15", "api_version = \"x\""),
        ("api_version = 15", "api_version = -1"),
        (
            "capabilities = [\"runtime.worker\"]",
            "capabilities = \"runtime.worker\"",
        ),
        (
            "[runtime]\nkind = \"command\"\ncommand = [\"./bin/worker\"]",
            "runtime = 3",
        ),
        ("title = \"Greet\"", "title = 2"),
        ("title = \"Greet\"", "title = \"Greet\"\nhidden = \"yes\""),
        ("[runtime]", "[runtime]\nbuild = \"make\""),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\n[[ui]]\nslot = \"cardz\"\nid = \"x\"",
        ),
        (
            "version = \"0.1.0\"",
            "version = \"0.1.0\"\n[[keybinds]]\nkey = 5",
        ),
        ("version = \"0.1.0\"", "version = \"0.1.0\"\nsettings = {}"),
        (
            "capabilities = [\"runtime.worker\"]",
            "capabilities = [\"runtime.worker\", 7]",
        ),
    ];
    let mut rejected = 0;
    for (from, to) in cases {
        assert!(CLEAN_AOE.contains(from), "{from}");
        let text = CLEAN_AOE.replacen(from, to, 1);
        let dir = aoe_root(&text);
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        std::fs::write(dir.path().join("bin/worker"), "").unwrap();
        let (_, plugin) = host_json(dir.path(), &[]);
        let Some(message) = plugin["host"]["message"].as_str() else {
            continue;
        };
        rejected += 1;
        let ours: Vec<&str> = plugin["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap())
            .collect();
        for line in host_lines(message) {
            assert!(
                ours.contains(&line.as_str()),
                "{to:?}: the host says {line:?}; we say {ours:?}"
            );
        }
    }
    assert!(rejected >= 12, "the cases exercise rejections: {rejected}");
}

/// serde's words as aoe's own types produce them (spec `aoe.md` §2, §9, §12, §14; the host's
/// type names from `aoe-plugin-api/src/manifest.rs`): an enum lists every spelling, aliases
/// included (`bool`, `boolean`); a closed enum given another type is toml's `wanted string or
/// table`; a table of the wrong type names the host's struct or internally tagged enum. The
/// host stops at the first; each of these is that first error, and a later one in the same
/// manifest gets the same words from the structural pass.
#[test]
fn serde_words_are_the_hosts() {
    const SETTING_TYPES: &str = "expected one of `string`, `bool`, `boolean`, `integer`, `select`, `dynamic_select`, `object_list`, `cron`, `string_list`";
    let cases = [
        (
            "[[settings]]\nkey = \"k\"\ntype = \"boo\"",
            format!("unknown variant `boo`, {SETTING_TYPES}"),
        ),
        (
            "[[settings]]\nkey = \"k\"\ntype = \"object_list\"\n[[settings.fields]]\nkey = \"f\"\ntype = \"object_list\"",
            "unknown variant `object_list`, expected one of `string`, `bool`, `boolean`, `integer`, `select`, `dynamic_select`, `dynamic_multi_select`, `cron`, `string_list`".to_owned(),
        ),
        ("[[settings]]\nkey = \"k\"\ntype = 5", "wanted string or table".to_owned()),
        ("[[settings]]\nkey = \"k\"\noption_source = true", "wanted string or table".to_owned()),
        ("[[ui]]\nslot = 1\nid = \"x\"", "wanted string or table".to_owned()),
        ("[[ui]]\nslot = {}\nid = \"x\"", "wanted exactly 1 element, found 0 elements".to_owned()),
        ("[[ui]]\nslot = { pane = 1 }\nid = \"x\"", "expected table, found integer".to_owned()),
        ("commands = [1]", "invalid type: integer `1`, expected struct CommandContribution".to_owned()),
        ("keybinds = [\"k\"]", "invalid type: string \"k\", expected struct KeybindContribution".to_owned()),
        ("settings = [true]", "invalid type: boolean `true`, expected struct SettingContribution".to_owned()),
        (
            "settings = [{ key = \"k\", type = \"object_list\", fields = [1] }]",
            "invalid type: integer `1`, expected struct ObjectFieldContribution".to_owned(),
        ),
        ("themes = [\"t\"]", "invalid type: string \"t\", expected struct ThemeContribution".to_owned()),
        ("status = [1.5]", "invalid type: floating point `1.5`, expected struct StatusContribution".to_owned()),
        ("ui = [2]", "invalid type: integer `2`, expected struct UiContribution".to_owned()),
        (
            "[[commands]]\nid = \"c\"\naction = 3",
            "invalid type: integer `3`, expected internally tagged enum ClientAction".to_owned(),
        ),
        ("runtime = \"x\"", "invalid type: string \"x\", expected internally tagged enum RuntimeSpec".to_owned()),
    ];
    let base = "id = \"dev.example.a\"\nname = \"A\"\nversion = \"1.0.0\"\napi_version = 15\n";
    for (tail, want) in &cases {
        let dir = aoe_root(&format!("{base}{tail}\n"));
        let (code, plugin) = host_json(dir.path(), &[]);
        assert_eq!(code, 1, "{tail}");
        let message = plugin["host"]["message"].as_str().unwrap();
        assert_eq!(host_lines(message), std::slice::from_ref(want), "{tail}");
        assert!(
            plugin["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|d| d["message"] == *want),
            "{tail}: {plugin:#}"
        );
        // Second in line, after an unknown top-level key the host stops at: same words.
        let dir = aoe_root(&format!("{base}frobnicate = 1\n{tail}\n"));
        let (_, plugin) = host_json(dir.path(), &[]);
        let ours: Vec<&str> = plugin["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["message"].as_str().unwrap())
            .collect();
        assert!(ours.contains(&want.as_str()), "{tail}: {ours:?}");
    }
}

/// Validating a plugin reads nothing of the hosts' homes (no protoAgent instance config,
/// no lock): a one-plugin run in CI only opens what its own root holds.
#[test]
fn validating_reads_no_host_home() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let trace = tmp.path().join("trace");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aoe/hello");
    let status = Plugins::new()
        .args(["validate", "--path"])
        .arg(&root)
        .env("HOME", tmp.path())
        .env_remove("XDG_CONFIG_HOME")
        .wrapped_in(
            strace,
            [
                "-f".as_ref(),
                "-e".as_ref(),
                "trace=openat,open,stat,statx,newfstatat,access".as_ref(),
                "-o".as_ref(),
                trace.as_os_str(),
            ],
        )
        .stdout(std::process::Stdio::null())
        .status();
    assert!(status.success());
    let trace = std::fs::read_to_string(trace).unwrap();
    let home = tmp.path().display().to_string();
    let touched: Vec<&str> = trace.lines().filter(|l| l.contains(&home)).collect();
    assert!(
        touched.is_empty(),
        "validate looked into $HOME: {touched:#?}"
    );
}

/// Issue #42: the host's message, the diagnostics that are its lines and the quotes of the
/// manifest are shown as they are (`KEY=VALUE` in a description is not a credential query,
/// and `host.message` promises the host's bytes); what `plugins` says about where the plugin
/// is, a root named like a URL with a token in its query, is still redacted.
#[test]
fn the_hosts_words_and_the_manifests_quotes_are_not_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p?access_token=s3cr3tv4lue");
    std::fs::create_dir(&root).unwrap();
    let text = "id = \"dev.example.a\"\nname = \"A\"\nversion = \"1.0.0\"\napi_version = 15\n\
        keybinds = [\"Environment variables as KEY=VALUE, one per line\"]\n";
    std::fs::write(root.join("aoe-plugin.toml"), text).unwrap();
    Plugins::new()
        .args(["validate", "--path", "p?access_token=s3cr3tv4lue"])
        .current_dir(tmp.path())
        .run()
        .code(1)
        .stdout_eq(snapbox::str![[r#"
plugins::aoe::invalid_type

  × invalid type: string "Environment variables as KEY=VALUE, one per line", expected struct
  │ KeybindContribution
   ╭─[p?access_token=***:5:13]
 4 │ api_version = 15
 5 │ keybinds = ["Environment variables as KEY=VALUE, one per line"]
   ·             ──────────────────────────────────────────────────
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.a` 1.0.0 at p?access_token=*** (1 error)

"#]]);
    let (code, plugin) = validate_json(
        &root,
        &[],
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
      "root": "[PARENT]/p?access_token=***",
      "manifest": "[PARENT]/p?access_token=***",
      "dialect": "aoe",
      "id": "dev.example.a",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 5, column 13\n  |\n5 | keybinds = [\"Environment variables as KEY=VALUE, one per line\"]\n  |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\ninvalid type: string \"Environment variables as KEY=VALUE, one per line\", expected struct KeybindContribution\n"
      },
      "manifest_hash": "sha256:8ef26364247320a21d295480af8aaebe79ec15e826fcb8bf0912dd2cb6ff3076",
      "diagnostics": [
        {
          "code": "plugins::aoe::invalid_type",
          "severity": "error",
          "message": "invalid type: string \"Environment variables as KEY=VALUE, one per line\", expected struct KeybindContribution",
          "help": null,
          "labels": [
            {
              "start": 79,
              "end": 129,
              "line": 5,
              "column": 13,
              "end_line": 5,
              "end_column": 63,
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
    );
    assert_eq!(code, 1);
    let message = plugin["host"]["message"].as_str().unwrap();
    assert_eq!(
        host_lines(message),
        [
            "invalid type: string \"Environment variables as KEY=VALUE, one per line\", expected struct KeybindContribution"
        ]
    );
    assert!(
        message.contains("5 | keybinds = [\"Environment variables as KEY=VALUE, one per line\"]"),
        "{message}"
    );
    assert!(
        plugin["root"]
            .as_str()
            .unwrap()
            .ends_with("p?access_token=***"),
        "{plugin:#}"
    );
}
