//! protoAgent rules one by one, and hostile YAML.

use std::path::Path;

use serde_json::Value;
use snapbox::str;

use crate::support::*;

/// A plugin dir holding `yaml` as its manifest and an `__init__.py`.
fn plugin(yaml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("protoagent.plugin.yaml"), yaml).unwrap();
    std::fs::write(
        dir.path().join("__init__.py"),
        "def register(registry):\n    pass\n",
    )
    .unwrap();
    dir
}

fn validate(root: &Path, extra: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = Plugins::new()
        .args(["validate", "--format", "json", "--path"])
        .arg(root)
        .args(extra)
        .run()
        // parts: one call per case of a table, each judged by the JSON report's fields.
        .parts();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let doc: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, doc["plugins"][0].clone())
}

#[test]
fn load_manifest_refusals() {
    for (yaml, code, message) in [
        (
            "- id: x\n",
            "plugins::protoagent::not_mapping",
            "manifest is not a mapping",
        ),
        (
            "id: demo\n",
            "plugins::protoagent::missing_id_name",
            "manifest missing required name",
        ),
        (
            "id: '  '\nname: Demo\n",
            "plugins::protoagent::missing_id_name",
            "manifest missing required id",
        ),
        (
            "id: my.plugin\nname: Demo\n",
            "plugins::protoagent::invalid_id",
            "invalid or reserved plugin id 'my.plugin' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route",
        ),
        (
            "id: CATALOG\nname: Demo\n",
            "plugins::protoagent::invalid_id",
            "invalid or reserved plugin id 'CATALOG' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route",
        ),
    ] {
        let dir = plugin(yaml);
        let (code_, p) = validate(dir.path(), &[]);
        assert_eq!(code_, 1, "{yaml}");
        assert_eq!(p["host"]["verdict"], "invalid");
        assert_eq!(
            (
                p["diagnostics"][0]["code"].as_str(),
                p["diagnostics"][0]["message"].as_str()
            ),
            (Some(code), Some(message)),
            "{yaml}"
        );
    }
    let dir = plugin("id: 'my.plugin'\nname: Demo\n");
    let (_, p) = validate(dir.path(), &[]);
    let name = dir.path().file_name().unwrap().to_str().unwrap();
    assert_eq!(
        p["host"]["message"],
        format!(
            "[plugins] {name}: invalid or reserved plugin id 'my.plugin' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route; skipping"
        )
    );
}

#[test]
fn entry_module_rules() {
    let yaml = "id: demo\nname: Demo\nentrypoint: main.py\n";
    let dir = plugin(yaml);
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(
        code, 1,
        "a set entrypoint does not fall back to __init__.py"
    );
    assert_eq!(
        diags(&p, yaml)[0],
        (
            "plugins::protoagent::entrypoint".into(),
            "no entry module (expected __init__.py or plugin.py)".into(),
            "main.py".into()
        )
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("protoagent.plugin.yaml"),
        "id: demo\nname: Demo\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("plugin.py"), "").unwrap();
    assert_eq!(
        validate(dir.path(), &["--strict"]).0,
        0,
        "plugin.py is the second default"
    );

    // An entry point that is a symlink loop: no panic, a clear error and the escape lint.
    let yaml = "id: demo\nname: Demo\nentrypoint: loop.py\n";
    let dir = plugin(yaml);
    std::os::unix::fs::symlink("loop.py", dir.path().join("loop.py")).unwrap();
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(code, 1);
    let codes: Vec<String> = diags(&p, yaml).into_iter().map(|d| d.0).collect();
    assert!(
        codes.contains(&"plugins::protoagent::entrypoint".to_owned()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"plugins::protoagent::entrypoint_escapes".to_owned()),
        "{codes:?}"
    );
}

/// `entrypoint: null` (also `~`, `Null` and an empty value) is `str(None)`, the file
/// `None`: the host looks for it, does not fall back to `__init__.py`, and loads nothing
/// (`loader._entry_file` in the hosts' venv agrees:
/// `parity::entrypoint_nulls_and_yaml_edge_shapes_are_judged_as_the_host_does`).
/// Only `''` falls back.
#[test]
fn a_null_entrypoint_is_the_file_none() {
    for value in ["null", "~", "Null", ""] {
        let yaml = format!("id: demo\nname: Demo\nentrypoint: {value}\n");
        let dir = plugin(&yaml);
        let (code, p) = validate(dir.path(), &[]);
        assert_eq!(code, 1, "{yaml}");
        assert_eq!(
            diags(&p, &yaml)[0].0,
            "plugins::protoagent::entrypoint",
            "{yaml}"
        );
        // A file named `None` is what the host imports.
        std::fs::write(dir.path().join("None"), "").unwrap();
        assert_eq!(validate(dir.path(), &["--strict"]).0, 0, "{yaml}");
    }
    let dir = plugin("id: demo\nname: Demo\nentrypoint: ''\n");
    assert_eq!(validate(dir.path(), &["--strict"]).0, 0, "'' falls back");

    let dir = plugin("id: demo\nname: Demo\nentrypoint: ~\n");
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::entrypoint

  × no entry module (expected __init__.py or plugin.py)
   ╭─[protoagent.plugin.yaml:3:13]
 2 │ name: Demo
 3 │ entrypoint: ~
   ·             ┬
   ·             ╰── read as the file `None`, which does not exist
   ╰────
  help: the host reads a null `entrypoint` as the file `None` (`str(None)`), which does not exist,
        and does not fall back to __init__.py; remove the key or set it to ''
  Invalid protoagent plugin `demo` 0.0.0 at . (1 error)

"#]]
    );
}

#[test]
fn coercions_and_unknown_keys() {
    let yaml = "id: demo\nname: Demo\nenabled: \"false\"\nrequires_env: API_KEY\nsettngs: []\nsettings:\n  - key: k\n    lable: K\n    type: password\nviews:\n  - id: v\n    path: http://localhost:8080/x\n";
    let dir = plugin(yaml);
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(code, 0, "the host accepts all of this");
    let ds = diags(&p, yaml);
    let find = |c: &str| {
        ds.iter()
            .find(|d| d.0 == c)
            .unwrap_or_else(|| panic!("no {c}: {ds:#?}"))
            .clone()
    };
    assert_eq!(
        find("plugins::protoagent::truthy_string").1,
        "`enabled` is a str, which Python's bool() reads as true"
    );
    assert_eq!(
        find("plugins::protoagent::ignored_value").1,
        "`requires_env` is a str, not a list, so the host ignores it"
    );
    assert_eq!(find("plugins::protoagent::setting").2, "password");
    assert_eq!(
        find("plugins::protoagent::view_origin").1,
        "view 'v' path 'http://localhost:8080/x' is not same-origin relative — a scheme/host breaks the fleet proxy + the postMessage token handshake; use a relative path"
    );
    let unknown: Vec<&str> = ds
        .iter()
        .filter(|d| d.0 == "plugins::protoagent::unknown_key")
        .map(|d| d.2.as_str())
        .collect();
    assert_eq!(unknown, ["settngs", "lable"]);
    assert_eq!(
        p["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["message"].as_str().unwrap().contains("`lable`"))
            .unwrap()["help"],
        "did you mean `label`?"
    );
    assert_eq!(validate(dir.path(), &["--strict"]).0, 1);
}

#[test]
fn requires_env_reads_the_environment() {
    let dir = plugin("id: demo\nname: Demo\nrequires_env: [PLUGINS_TEST_NEEDED_VAR]\n");
    let (_, p) = validate(dir.path(), &[]);
    assert_eq!(
        p["diagnostics"][0]["code"],
        "plugins::protoagent::requires_env"
    );
    assert_eq!(
        p["diagnostics"][0]["message"],
        "missing env: PLUGINS_TEST_NEEDED_VAR"
    );
    Plugins::new()
        .args(["validate", "--strict", "--path"])
        .arg(dir.path())
        .env("PLUGINS_TEST_NEEDED_VAR", "x")
        .tmp(dir.path())
        .run()
        .expect(
            0,
            str![[r#"
    Valid protoagent plugin `demo` 0.0.0 at [TMP]

"#]],
            str![],
        );
}

#[test]
fn host_version_is_pep440_for_protoagent() {
    let dir = plugin("id: demo\nname: Demo\nmin_protoagent_version: '1.0'\n");
    assert_eq!(validate(dir.path(), &["--host-version", "1.0.0"]).0, 0);
    let (code, p) = validate(dir.path(), &["--host-version", "1.0rc1"]);
    assert_eq!(code, 1);
    assert_eq!(
        p["diagnostics"][0]["code"],
        "plugins::protoagent::host_version"
    );
    assert_eq!(
        p["diagnostics"][0]["message"],
        "requires protoAgent >= 1.0 but this host is 1.0rc1"
    );
    Plugins::new()
        .args(["validate", "--host-version", "banana", "--path"])
        .arg(dir.path())
        .tmp(dir.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
plugins::usage::invalid_argument

  × --host-version "banana" is neither a semver (aoe) nor a PEP 440 (protoAgent) version

"#]],
        );
}

#[test]
fn hostile_yaml() {
    let mut bomb = String::from(
        "id: demo\nname: Demo\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        bomb.push_str(&format!(
            "{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(",")
        ));
    }
    let cases = [
        ("billion laughs", bomb),
        (
            "deep nesting",
            format!(
                "id: demo\nname: Demo\nx: {}{}\n",
                "[".repeat(5000),
                "]".repeat(5000)
            ),
        ),
        (
            "tab indentation",
            "id: demo\nname: Demo\nconfig:\n\tkey: 1\n".to_owned(),
        ),
        ("unclosed flow", "id: demo\nname: [Demo\n".to_owned()),
    ];
    for (what, yaml) in cases {
        let dir = plugin(&yaml);
        let start = std::time::Instant::now();
        let (code, p) = validate(dir.path(), &[]);
        assert_eq!(code, 1, "{what}");
        assert_eq!(
            p["diagnostics"][0]["code"], "plugins::syntax::yaml",
            "{what}"
        );
        assert_eq!(p["host"]["verdict"], "parse", "{what}");
        assert!(start.elapsed().as_secs() < 30, "{what} is refused promptly");
    }
    let yaml = "id: demo\nname: Demo\nname: Again\n";
    let dir = plugin(yaml);
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(code, 0, "PyYAML keeps the last duplicate");
    assert_eq!(
        diags(&p, yaml)[0],
        (
            "plugins::protoagent::duplicate_key".into(),
            "duplicate key `name`; the last one wins".into(),
            "name".into()
        )
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("protoagent.plugin.yaml"),
        b"id: demo\nname: \xff\n",
    )
    .unwrap();
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(
        (code, p["diagnostics"][0]["code"].as_str()),
        (1, Some("plugins::file::not_utf8"))
    );
}

#[test]
fn all_three_dialects_in_one_run() {
    let parent = tempfile::tempdir().unwrap();
    let aoe = parent.path().join("a-aoe");
    std::fs::create_dir_all(aoe.join("bin")).unwrap();
    std::fs::write(aoe.join("aoe-plugin.toml"), CLEAN_AOE).unwrap();
    std::fs::write(aoe.join("bin/worker"), "").unwrap();
    let aworld = parent.path().join("b-aworld/.aworld-plugin");
    std::fs::create_dir_all(&aworld).unwrap();
    std::fs::write(aworld.join("plugin.json"), r#"{"id": "w", "version": "1"}"#).unwrap();
    let proto = parent.path().join("c-proto");
    std::fs::create_dir_all(&proto).unwrap();
    std::fs::write(proto.join("protoagent.plugin.yaml"), "id: p\nname: P\n").unwrap();
    std::fs::write(proto.join("__init__.py"), "").unwrap();
    let ran = Plugins::new()
        .args(["validate", "-r", "--strict", "--format", "json", "--path"])
        .arg(parent.path())
        .tmp(parent.path())
        .run();
    ran.expect(
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
      "root": "[TMP]/a-aoe",
      "manifest": "[TMP]/a-aoe/aoe-plugin.toml",
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
    },
    {
      "root": "[TMP]/b-aworld",
      "manifest": "[TMP]/b-aworld/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "w",
      "version": "1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:d62bde85fa805708de6d3cfe85450c7946cead2ccb7ff838aede4ba4309d3ddd",
      "diagnostics": [],
      "skipped": null
    },
    {
      "root": "[TMP]/c-proto",
      "manifest": "[TMP]/c-proto/protoagent.plugin.yaml",
      "dialect": "protoagent",
      "id": "p",
      "version": "0.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:a8b6d4deba8d23d1b1150175fe6edeb11811393a1822f164525daba3bbde6d74",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
        str![],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let dialects: Vec<&str> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["dialect"].as_str().unwrap())
        .collect();
    assert_eq!(dialects, ["aoe", "aworld", "protoagent"]);
}

#[test]
fn a_quoted_flag_gets_the_fix_the_author_meant() {
    let dir = plugin("id: demo\nname: Demo\nenabled: \"false\"\nbuiltin: \"yes\"\ntest: maybe\n");
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::truthy_string

  ⚠ `enabled` is a str, which Python's bool() reads as true
   ╭─[protoagent.plugin.yaml:3:10]
 2 │ name: Demo
 3 │ enabled: "false"
   ·          ───────
 4 │ builtin: "yes"
   ╰────
  help: write `enabled: false` (unquoted); as written, the host treats it as true
plugins::protoagent::truthy_string

  ⚠ `builtin` is a str, which Python's bool() reads as true
   ╭─[protoagent.plugin.yaml:4:10]
 3 │ enabled: "false"
 4 │ builtin: "yes"
   ·          ─────
 5 │ test: maybe
   ╰────
  help: write `builtin: true` (unquoted)
plugins::protoagent::truthy_string

  ⚠ `test` is a str, which Python's bool() reads as true
   ╭─[protoagent.plugin.yaml:5:7]
 4 │ builtin: "yes"
 5 │ test: maybe
   ·       ─────
   ╰────
  help: write `test: true` or `test: false` (unquoted); as written, the host treats it as true
    Valid protoagent plugin `demo` 0.0.0 at . (3 warnings)

"#]]
    );
}

#[test]
fn requires_pip_entries_install_deps_refuses_are_linted() {
    let dir = plugin(
        "id: demo\nname: Demo\nrequires_pip:\n  - requests>=2\n  - git+https://github.com/acme/client.git\n  - pkg: --extra-index-url=https://x\n    optional: true\n",
    );
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0, "the host loads it; only install-deps refuses");
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::pip_spec

  ⚠ requires_pip entry "git+https://github.com/acme/client.git" is a VCS/URL/direct reference,
  │ which is not allowed
   ╭─[protoagent.plugin.yaml:5:5]
 4 │   - requests>=2
 5 │   - git+https://github.com/acme/client.git
   ·     ──────────────────────────────────────
 6 │   - pkg: --extra-index-url=https://x
   ╰────
  help: `install-deps` and `plugins install --deps` refuse it and install none of the deps;
        require a package by name from an index (like `mypkg>=1.2`), or vendor the code in the
        plugin
plugins::protoagent::pip_spec

  ⚠ requires_pip entry "--extra-index-url=https://x" looks like a pip option, not a package
   ╭─[protoagent.plugin.yaml:6:10]
 5 │   - git+https://github.com/acme/client.git
 6 │   - pkg: --extra-index-url=https://x
   ·          ───────────────────────────
 7 │     optional: true
   ╰────
  help: `install-deps` and `plugins install --deps` refuse it and install none of the deps;
        require a package by name from an index (like `mypkg>=1.2`), or vendor the code in the
        plugin
    Valid protoagent plugin `demo` 0.0.0 at . (2 warnings)

"#]]
    );
    assert_eq!(validate_screen(dir.path(), &["--strict"]).0, 1);
    let allow = ["--strict", "-A", "plugins::protoagent::pip_spec"];
    assert_eq!(validate_screen(dir.path(), &allow).0, 0);
}

/// (code, labelled text) of every diagnostic whose code is one of `codes`.
fn labelled(root: &Path, yaml: &str, extra: &[&str], codes: &[&str]) -> Vec<(String, String)> {
    let (_, p) = validate(root, extra);
    diags(&p, yaml)
        .into_iter()
        .filter(|d| codes.contains(&d.0.as_str()))
        .map(|d| (d.0, d.2))
        .collect()
}

#[test]
fn settings_tabs_and_setting_tabs_as_0218_reads_them() {
    let yaml = "id: demo
name: Demo
settings_tabs:
  - general
  - {id: '-bad', label: Bad}
  - {id: general, label: General, apply: true}
  - {id: general, label: Again}
  - {id: live, label: Live, apply: LIVE}
  - {id: page, label: Page, path: /api/plugins/demo/settings}
  - {id: raw, label: Raw, path: /plugins/demo/%2e%2e/x}
  - {id: own, label: Own, path: '/plugins/demo/cfg?tab=1'}
settings:
  - {key: token, tab: advanced}
  - {key: theme, tab: own}
  - {key: mode, tab: ' live '}
";
    let dir = plugin(yaml);
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0, "the host loads it, without the dropped tabs");
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::settings_tab

  ⚠ settings_tabs entry must be a mapping — ignored
   ╭─[protoagent.plugin.yaml:4:5]
 3 │ settings_tabs:
 4 │   - general
   ·     ───────
 5 │   - {id: '-bad', label: Bad}
   ╰────
plugins::protoagent::settings_tab

  ⚠ settings_tabs entry needs a safe id and non-empty label — ignored
   ╭─[protoagent.plugin.yaml:5:10]
 4 │   - general
 5 │   - {id: '-bad', label: Bad}
   ·          ──────
 6 │   - {id: general, label: General, apply: true}
   ╰────
  help: a tab needs an `id` matching ^[A-Za-z0-9][A-Za-z0-9_-]*$ and a non-empty `label`
plugins::protoagent::settings_tab_apply

  ⚠ settings tab 'general' apply True is not 'live' — ignored (the tab keeps save-then-apply)
   ╭─[protoagent.plugin.yaml:6:42]
 5 │   - {id: '-bad', label: Bad}
 6 │   - {id: general, label: General, apply: true}
   ·                                          ────
 7 │   - {id: general, label: Again}
   ╰────
  help: write `apply: live`, or leave `apply` out for save-then-apply
plugins::protoagent::settings_tab

  ⚠ duplicate settings tab id 'general' — keeping first
   ╭─[protoagent.plugin.yaml:7:10]
 6 │   - {id: general, label: General, apply: true}
 7 │   - {id: general, label: Again}
   ·          ───────
 8 │   - {id: live, label: Live, apply: LIVE}
   ╰────
plugins::protoagent::settings_tab_path

  ⚠ settings tab 'page' Configure path '/api/plugins/demo/settings' must be a same-origin page
  │ under /plugins/demo/... — ignored
    ╭─[protoagent.plugin.yaml:9:35]
  8 │   - {id: live, label: Live, apply: LIVE}
  9 │   - {id: page, label: Page, path: /api/plugins/demo/settings}
    ·                                   ──────────────────────────
 10 │   - {id: raw, label: Raw, path: /plugins/demo/%2e%2e/x}
    ╰────
  help: the whole tab is dropped; point `path` at a page of this plugin,
        like /plugins/demo/settings (no `..`, no backslash)
plugins::protoagent::settings_tab_path

  ⚠ settings tab 'raw' Configure path '/plugins/demo/%2e%2e/x' must be a same-origin page
  │ under /plugins/demo/... — ignored
    ╭─[protoagent.plugin.yaml:10:33]
  9 │   - {id: page, label: Page, path: /api/plugins/demo/settings}
 10 │   - {id: raw, label: Raw, path: /plugins/demo/%2e%2e/x}
    ·                                 ──────────────────────
 11 │   - {id: own, label: Own, path: '/plugins/demo/cfg?tab=1'}
    ╰────
  help: the whole tab is dropped; point `path` at a page of this plugin,
        like /plugins/demo/settings (no `..`, no backslash)
plugins::protoagent::setting_tab

  ⚠ setting 'token' references unknown settings tab 'advanced' — using Configuration
    ╭─[protoagent.plugin.yaml:13:23]
 12 │ settings:
 13 │   - {key: token, tab: advanced}
    ·                       ────────
 14 │   - {key: theme, tab: own}
    ╰────
  help: declared tabs: general, live, own
plugins::protoagent::setting_tab

  ⚠ setting 'theme' cannot target path-backed settings tab 'own' — using Configuration
    ╭─[protoagent.plugin.yaml:14:23]
 13 │   - {key: token, tab: advanced}
 14 │   - {key: theme, tab: own}
    ·                       ───
 15 │   - {key: mode, tab: ' live '}
    ╰────
  help: a tab with a `path` shows the plugin's own page; target a tab without `path`
    Valid protoagent plugin `demo` 0.0.0 at . (8 warnings)

"#]]
    );
    let codes = [
        "plugins::protoagent::settings_tab",
        "plugins::protoagent::settings_tab_apply",
        "plugins::protoagent::settings_tab_path",
        "plugins::protoagent::setting_tab",
    ];
    assert_eq!(
        labelled(dir.path(), yaml, &[], &codes),
        [
            (codes[0], "general"),
            (codes[0], "'-bad'"),
            (codes[1], "true"),
            (codes[0], "general"),
            (codes[2], "/api/plugins/demo/settings"),
            (codes[2], "/plugins/demo/%2e%2e/x"),
            (codes[3], "advanced"),
            (codes[3], "own"),
        ]
        .map(|(c, t)| (c.to_owned(), t.to_owned()))
    );
}

#[test]
fn views_palettes_and_derived_public_paths() {
    let yaml = "id: demo
name: Demo
views:
  - {id: v, path: 'http://localhost:8080/x', palette: true}
  - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
  - {id: q, path: /plugins/demo/q, palette: {path: '//cdn/x'}}
  - {id: u, path: /api/plugins/demo/upd%61te}
  - {id: i, path: '/plugins/demo/v%69ew?q=1#f', palette: inline}
";
    let dir = plugin(yaml);
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::view_origin

  ⚠ view 'v' path 'http://localhost:8080/x' is not same-origin relative — a scheme/host breaks the
  │ fleet proxy + the postMessage token handshake; use a relative path
   ╭─[protoagent.plugin.yaml:4:19]
 3 │ views:
 4 │   - {id: v, path: 'http://localhost:8080/x', palette: true}
   ·                   ─────────────────────────
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
   ╰────
  help: use a path such as /plugins/<id>/view, without a scheme, host or port
plugins::protoagent::public_path

  ⚠ public_path 'http://localhost:8080/x' is outside the plugin namespace (/plugins/demo/…
  │ or /api/plugins/demo/…) — ignored
   ╭─[protoagent.plugin.yaml:4:19]
 3 │ views:
 4 │   - {id: v, path: 'http://localhost:8080/x', palette: true}
   ·                   ─────────────────────────
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
   ╰────
  help: paths must start with /plugins/demo/ or /api/plugins/demo/ (the trailing slash counts)
plugins::protoagent::view_palette

  ⚠ view 'v' palette True is neither the literal 'inline' nor a {path: …} mapping — the console
  │ reads only those two, so the inline morph is dropped (the view itself still loads, and is
  │ already a palette entry without opting in — `palette` only ever selects the inline morph)
   ╭─[protoagent.plugin.yaml:4:55]
 3 │ views:
 4 │   - {id: v, path: 'http://localhost:8080/x', palette: true}
   ·                                                       ────
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
   ╰────
  help: write `palette: inline`, or `palette: {path: /plugins/<id>/…}` for a different page
plugins::protoagent::view_palette

  ⚠ view 'w' palette {'path': '  '} is neither the literal 'inline' nor a {path: …} mapping — the
  │ console reads only those two, so the inline morph is dropped (the view itself still loads, and
  │ is already a palette entry without opting in — `palette` only ever selects the inline morph)
   ╭─[protoagent.plugin.yaml:5:45]
 4 │   - {id: v, path: 'http://localhost:8080/x', palette: true}
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
   ·                                             ────────────
 6 │   - {id: q, path: /plugins/demo/q, palette: {path: '//cdn/x'}}
   ╰────
  help: write `palette: inline`, or `palette: {path: /plugins/<id>/…}` for a different page
plugins::protoagent::view_palette

  ⚠ view 'q' palette path '//cdn/x' is not same-origin relative — a scheme/host breaks the fleet
  │ proxy + the postMessage token handshake; use a relative path
   ╭─[protoagent.plugin.yaml:6:52]
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
 6 │   - {id: q, path: /plugins/demo/q, palette: {path: '//cdn/x'}}
   ·                                                    ─────────
 7 │   - {id: u, path: /api/plugins/demo/upd%61te}
   ╰────
plugins::protoagent::public_path

  ⚠ public_path '//cdn/x' is outside the plugin namespace (/plugins/demo/… or /api/plugins/demo/…)
  │ — ignored
   ╭─[protoagent.plugin.yaml:6:52]
 5 │   - {id: w, path: /plugins/demo/w, palette: {path: '  '}}
 6 │   - {id: q, path: /plugins/demo/q, palette: {path: '//cdn/x'}}
   ·                                                    ─────────
 7 │   - {id: u, path: /api/plugins/demo/upd%61te}
   ╰────
  help: paths must start with /plugins/demo/ or /api/plugins/demo/ (the trailing slash counts)
plugins::protoagent::core_route

  ⚠ public_path '/api/plugins/demo/update' is a core operator route (plugin update / enable) —
  │ ignored
   ╭─[protoagent.plugin.yaml:7:19]
 6 │   - {id: q, path: /plugins/demo/q, palette: {path: '//cdn/x'}}
 7 │   - {id: u, path: /api/plugins/demo/upd%61te}
   ·                   ──────────────────────────
 8 │   - {id: i, path: '/plugins/demo/v%69ew?q=1#f', palette: inline}
   ╰────
  help: /api/plugins/demo/update and /api/plugins/demo/enabled stay behind the operator
        credential; declare the plugin's own routes instead
    Valid protoagent plugin `demo` 0.0.0 at . (7 warnings)

"#]]
    );
    let codes = [
        "plugins::protoagent::view_origin",
        "plugins::protoagent::view_palette",
        "plugins::protoagent::public_path",
        "plugins::protoagent::core_route",
    ];
    assert_eq!(
        labelled(dir.path(), yaml, &[], &codes),
        [
            (codes[0], "'http://localhost:8080/x'"),
            (codes[2], "'http://localhost:8080/x'"),
            (codes[1], "true"),
            (codes[1], "{path: '  '}"),
            (codes[1], "'//cdn/x'"),
            (codes[2], "'//cdn/x'"),
            (codes[3], "/api/plugins/demo/upd%61te"),
        ]
        .map(|(c, t)| (c.to_owned(), t.to_owned()))
    );
}

#[test]
fn core_routes_and_federation_paths() {
    let yaml = "id: demo
name: Demo
public_paths:
  - /api/plugins/demo/update
  - /api/plugins/demo/enabled/
  - /api/plugins/demo/Update
  - /api/plugins/demo/upd%61te
  - /api/plugins/demo/
federation_paths:
  - /api/plugins/demo/sync/
  - /api/plugins/demo/update
  - /api/sync/
";
    let dir = plugin(yaml);
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::core_route

  ⚠ public_path '/api/plugins/demo/update' is a core operator route (plugin update / enable) —
  │ ignored
   ╭─[protoagent.plugin.yaml:4:5]
 3 │ public_paths:
 4 │   - /api/plugins/demo/update
   ·     ────────────────────────
 5 │   - /api/plugins/demo/enabled/
   ╰────
  help: /api/plugins/demo/update and /api/plugins/demo/enabled stay behind the operator
        credential; declare the plugin's own routes instead
plugins::protoagent::core_route

  ⚠ public_path '/api/plugins/demo/enabled/' is a core operator route (plugin update / enable) —
  │ ignored
   ╭─[protoagent.plugin.yaml:5:5]
 4 │   - /api/plugins/demo/update
 5 │   - /api/plugins/demo/enabled/
   ·     ──────────────────────────
 6 │   - /api/plugins/demo/Update
   ╰────
  help: /api/plugins/demo/update and /api/plugins/demo/enabled stay behind the operator
        credential; declare the plugin's own routes instead
plugins::protoagent::core_route

  ⚠ federation_path '/api/plugins/demo/update' is a core operator route (plugin update / enable) —
  │ ignored
    ╭─[protoagent.plugin.yaml:11:5]
 10 │   - /api/plugins/demo/sync/
 11 │   - /api/plugins/demo/update
    ·     ────────────────────────
 12 │   - /api/sync/
    ╰────
  help: /api/plugins/demo/update and /api/plugins/demo/enabled stay behind the operator
        credential; declare the plugin's own routes instead
plugins::protoagent::federation_path

  ⚠ federation_path '/api/sync/' is outside the plugin namespace (/plugins/demo/…
  │ or /api/plugins/demo/…) — ignored
    ╭─[protoagent.plugin.yaml:12:5]
 11 │   - /api/plugins/demo/update
 12 │   - /api/sync/
    ·     ──────────
    ╰────
  help: paths must start with /plugins/demo/ or /api/plugins/demo/ (the trailing slash counts)
    Valid protoagent plugin `demo` 0.0.0 at . (4 warnings)

"#]]
    );
    let codes = [
        "plugins::protoagent::core_route",
        "plugins::protoagent::federation_path",
    ];
    assert_eq!(
        labelled(dir.path(), yaml, &[], &codes),
        [
            (codes[0], "/api/plugins/demo/update"),
            (codes[0], "/api/plugins/demo/enabled/"),
            (codes[0], "/api/plugins/demo/update"),
            (codes[1], "/api/sync/"),
        ]
        .map(|(c, t)| (c.to_owned(), t.to_owned()))
    );
}

#[test]
fn commands_that_cannot_run_are_dropped_whole() {
    let yaml = "id: demo
name: Demo
views:
  - {id: board, path: /plugins/demo/board}
  - {id: pill, path: /plugins/demo/pill, utility: {}}
commands:
  - open
  - {id: 'a b', title: Spaces}
  - {id: refresh, title: Refresh}
  - {id: go, title: Go, action: {type: navigate, view: board}}
  - {id: go, title: Again, action: {type: navigate, view: board}}
  - {id: nav, title: Nav, action: {type: Navigate}}
  - {id: pill, title: Pill, action: {type: open_view, view: pill}}
  - {id: gone, title: Gone, action: {type: navigate, view: nope}}
  - {id: cfg, title: Config, action: {type: tool, route: '%2e%2e/config'}}
  - {id: put, title: Put, action: {type: tool, route: items, method: FETCH}}
  - {id: port, title: Port, action: {type: tool, route: 'v:2'}}
  - {id: wipe, title: Wipe, action: {type: emit, topic: other.wipe}}
  - {id: data, title: Data, action: {type: emit, topic: done, data: [1]}}
  - {id: empty, title: Empty, action: {type: command}}
  - {id: find, title: Find, provider: {route: search}}
  - {id: loop1, title: L1, action: {type: command, command: loop2}}
  - {id: loop2, title: L2, action: {type: command, command: loop1}}
  - {id: far, title: Far, action: {type: command, command: elsewhere}}
  - {id: ok, title: OK, action: {type: command, command: go}}
";
    let dir = plugin(yaml);
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::command

  ⚠ commands entry must be a mapping — ignored
   ╭─[protoagent.plugin.yaml:7:5]
 6 │ commands:
 7 │   - open
   ·     ────
 8 │   - {id: 'a b', title: Spaces}
   ╰────
plugins::protoagent::command

  ⚠ commands entry (id 'a b', title 'Spaces') needs a safe id (^[A-Za-z0-9][A-Za-z0-9_-]*$) and a
  │ non-empty title — ignored
   ╭─[protoagent.plugin.yaml:8:5]
 7 │   - open
 8 │   - {id: 'a b', title: Spaces}
   ·     ──────────────────────────
 9 │   - {id: refresh, title: Refresh}
   ╰────
plugins::protoagent::command

  ⚠ command 'refresh' declares neither an action nor a provider — there is nothing for the palette
  │ to run; ignored
    ╭─[protoagent.plugin.yaml:9:10]
  8 │   - {id: 'a b', title: Spaces}
  9 │   - {id: refresh, title: Refresh}
    ·          ───────
 10 │   - {id: go, title: Go, action: {type: navigate, view: board}}
    ╰────
plugins::protoagent::command

  ⚠ duplicate command id 'go' — keeping first
    ╭─[protoagent.plugin.yaml:11:10]
 10 │   - {id: go, title: Go, action: {type: navigate, view: board}}
 11 │   - {id: go, title: Again, action: {type: navigate, view: board}}
    ·          ──
 12 │   - {id: nav, title: Nav, action: {type: Navigate}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'nav' action type 'Navigate' is not one of navigate, open_view, tool, emit, command —
  │ dropped
    ╭─[protoagent.plugin.yaml:12:42]
 11 │   - {id: go, title: Again, action: {type: navigate, view: board}}
 12 │   - {id: nav, title: Nav, action: {type: Navigate}}
    ·                                          ────────
 13 │   - {id: pill, title: Pill, action: {type: open_view, view: pill}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'pill' action targets view 'pill', which is a chat-slot claimant or a utility widget —
  │ the console gives those no rail/dock surface, so there is nowhere for the row to go; dropped
    ╭─[protoagent.plugin.yaml:13:61]
 12 │   - {id: nav, title: Nav, action: {type: Navigate}}
 13 │   - {id: pill, title: Pill, action: {type: open_view, view: pill}}
    ·                                                             ────
 14 │   - {id: gone, title: Gone, action: {type: navigate, view: nope}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'gone' action targets view 'nope', which this manifest does not declare — a command
  │ may only open its own plugin's views; dropped
    ╭─[protoagent.plugin.yaml:14:60]
 13 │   - {id: pill, title: Pill, action: {type: open_view, view: pill}}
 14 │   - {id: gone, title: Gone, action: {type: navigate, view: nope}}
    ·                                                            ────
 15 │   - {id: cfg, title: Config, action: {type: tool, route: '%2e%2e/config'}}
    ╰────
plugins::protoagent::command_route

  ⚠ command 'cfg' action route '%2e%2e/config' contains a '..' segment — it must be a relative
  │ route inside /api/plugins/demo/… (the console calls it with the operator bearer attached);
  │ dropped
    ╭─[protoagent.plugin.yaml:15:58]
 14 │   - {id: gone, title: Gone, action: {type: navigate, view: nope}}
 15 │   - {id: cfg, title: Config, action: {type: tool, route: '%2e%2e/config'}}
    ·                                                          ───────────────
 16 │   - {id: put, title: Put, action: {type: tool, route: items, method: FETCH}}
    ╰────
  help: write a route relative to /api/plugins/demo/, like `search` or `items/refresh`
plugins::protoagent::command_action

  ⚠ command 'put' action method 'FETCH' is not one of GET, POST, PUT, PATCH, DELETE — dropped
    ╭─[protoagent.plugin.yaml:16:70]
 15 │   - {id: cfg, title: Config, action: {type: tool, route: '%2e%2e/config'}}
 16 │   - {id: put, title: Put, action: {type: tool, route: items, method: FETCH}}
    ·                                                                      ─────
 17 │   - {id: port, title: Port, action: {type: tool, route: 'v:2'}}
    ╰────
plugins::protoagent::command_route

  ⚠ command 'port' action route 'v:2' carries a scheme, host or port — it must be a relative route
  │ inside /api/plugins/demo/… (the console calls it with the operator bearer attached); dropped
    ╭─[protoagent.plugin.yaml:17:57]
 16 │   - {id: put, title: Put, action: {type: tool, route: items, method: FETCH}}
 17 │   - {id: port, title: Port, action: {type: tool, route: 'v:2'}}
    ·                                                         ─────
 18 │   - {id: wipe, title: Wipe, action: {type: emit, topic: other.wipe}}
    ╰────
  help: write a route relative to /api/plugins/demo/, like `search` or `items/refresh`
plugins::protoagent::command_topic

  ⚠ command 'wipe' emit topic 'other.wipe' is outside the plugin's own namespace (use a bare name,
  │ or prefix it with 'demo.') — dropped
    ╭─[protoagent.plugin.yaml:18:57]
 17 │   - {id: port, title: Port, action: {type: tool, route: 'v:2'}}
 18 │   - {id: wipe, title: Wipe, action: {type: emit, topic: other.wipe}}
    ·                                                         ──────────
 19 │   - {id: data, title: Data, action: {type: emit, topic: done, data: [1]}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'data' action data must be a mapping — dropped
    ╭─[protoagent.plugin.yaml:19:69]
 18 │   - {id: wipe, title: Wipe, action: {type: emit, topic: other.wipe}}
 19 │   - {id: data, title: Data, action: {type: emit, topic: done, data: [1]}}
    ·                                                                     ───
 20 │   - {id: empty, title: Empty, action: {type: command}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'empty' action needs the id of the command to run — dropped
    ╭─[protoagent.plugin.yaml:20:39]
 19 │   - {id: data, title: Data, action: {type: emit, topic: done, data: [1]}}
 20 │   - {id: empty, title: Empty, action: {type: command}}
    ·                                       ───────────────
 21 │   - {id: find, title: Find, provider: {route: search}}
    ╰────
plugins::protoagent::command_action

  ⚠ command 'find' provider declares no result_action — its result rows would have nothing to run
  │ when they are picked; dropped
    ╭─[protoagent.plugin.yaml:21:39]
 20 │   - {id: empty, title: Empty, action: {type: command}}
 21 │   - {id: find, title: Find, provider: {route: search}}
    ·                                       ───────────────
 22 │   - {id: loop1, title: L1, action: {type: command, command: loop2}}
    ╰────
plugins::protoagent::command_chain

  ⚠ command 'loop1' chain does not end — it loops, or leads only into commands that were
  │ themselves dropped; a command may only run another command this manifest declares, and the
  │ chain has to terminate; dropped
    ╭─[protoagent.plugin.yaml:22:10]
 21 │   - {id: find, title: Find, provider: {route: search}}
 22 │   - {id: loop1, title: L1, action: {type: command, command: loop2}}
    ·          ─────
 23 │   - {id: loop2, title: L2, action: {type: command, command: loop1}}
    ╰────
  help: a `type: command` action must name another command of this manifest, and the chain has to
        reach a command that runs something else
plugins::protoagent::command_chain

  ⚠ command 'loop2' chain does not end — it loops, or leads only into commands that were
  │ themselves dropped; a command may only run another command this manifest declares, and the
  │ chain has to terminate; dropped
    ╭─[protoagent.plugin.yaml:23:10]
 22 │   - {id: loop1, title: L1, action: {type: command, command: loop2}}
 23 │   - {id: loop2, title: L2, action: {type: command, command: loop1}}
    ·          ─────
 24 │   - {id: far, title: Far, action: {type: command, command: elsewhere}}
    ╰────
  help: a `type: command` action must name another command of this manifest, and the chain has to
        reach a command that runs something else
plugins::protoagent::command_chain

  ⚠ command 'far' chain does not end — it names elsewhere, which this manifest does not declare; a
  │ command may only run another command this manifest declares, and the chain has to terminate;
  │ dropped
    ╭─[protoagent.plugin.yaml:24:10]
 23 │   - {id: loop2, title: L2, action: {type: command, command: loop1}}
 24 │   - {id: far, title: Far, action: {type: command, command: elsewhere}}
    ·          ───
 25 │   - {id: ok, title: OK, action: {type: command, command: go}}
    ╰────
  help: a `type: command` action must name another command of this manifest, and the chain has to
        reach a command that runs something else
    Valid protoagent plugin `demo` 0.0.0 at . (17 warnings)

"#]]
    );
    let codes = [
        "plugins::protoagent::command",
        "plugins::protoagent::command_action",
        "plugins::protoagent::command_route",
        "plugins::protoagent::command_topic",
        "plugins::protoagent::command_chain",
    ];
    let got: Vec<(String, String)> = labelled(dir.path(), yaml, &[], &codes);
    let want: Vec<(String, String)> = [
        (codes[0], "open"),
        (codes[0], "{id: 'a b', title: Spaces}"),
        (codes[0], "refresh"),
        (codes[0], "go"),
        (codes[1], "Navigate"),
        (codes[1], "pill"),
        (codes[1], "nope"),
        (codes[2], "'%2e%2e/config'"),
        (codes[1], "FETCH"),
        (codes[2], "'v:2'"),
        (codes[3], "other.wipe"),
        (codes[1], "[1]"),
        (codes[1], "{type: command}"),
        (codes[1], "{route: search}"),
        (codes[4], "loop1"),
        (codes[4], "loop2"),
        (codes[4], "far"),
    ]
    .iter()
    .map(|(c, t)| ((*c).to_owned(), (*t).to_owned()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn runtimes_supersedes_and_enables() {
    let yaml = "id: demo
name: Demo
requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
supersedes:
  - https://github.com/acme/demo-plugin
  - git@github.com:ACME/demo-plugin.git
  - file:///src/demo
  - 'https://github.com/acme/*'
  - github.com/acme/demo
  - 7
enables: [demo, a.b, ' helper ', '-x']
";
    let dir = plugin(yaml);
    let (code, screen) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::requires_runtimes

  ⚠ requires_runtimes.node spec 20.6 is not a version floor ('>=N[.N[.N]]' or 'N[.N[.N]]') —
  │ ignored
   ╭─[protoagent.plugin.yaml:3:27]
 2 │ name: Demo
 3 │ requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
   ·                           ────
 4 │ supersedes:
   ╰────
  help: write a floor such as ">=20" or ">=20.6" (quoted; a YAML float like 20.6 is refused)
plugins::protoagent::unknown_key

  ⚠ unknown key `python` in requires_runtimes is ignored by the host
   ╭─[protoagent.plugin.yaml:3:33]
 2 │ name: Demo
 3 │ requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
   ·                                 ──────
 4 │ supersedes:
   ╰────
plugins::protoagent::requires_runtimes

  ⚠ requires_runtimes names unknown runtime 'python' (known: node) — ignored
   ╭─[protoagent.plugin.yaml:3:33]
 2 │ name: Demo
 3 │ requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
   ·                                 ──────
 4 │ supersedes:
   ╰────
plugins::protoagent::unknown_key

  ⚠ unknown key `NODE` in requires_runtimes is ignored by the host
   ╭─[protoagent.plugin.yaml:3:46]
 2 │ name: Demo
 3 │ requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
   ·                                              ────
 4 │ supersedes:
   ╰────
plugins::protoagent::bundled_only

  ⚠ `supersedes` is honoured only on a plugin bundled with protoAgent; installed from git, it is
  │ parsed and ignored
   ╭─[protoagent.plugin.yaml:4:1]
 3 │ requires_runtimes: {node: 20.6, python: '3', NODE: '>= v20'}
 4 │ supersedes:
   · ──────────
 5 │   - https://github.com/acme/demo-plugin
   ╰────
  help: it cannot retire the listed repositories' copies from a third-party plugin; leave it out
        unless this manifest ships in protoAgent's own plugins/ tree
plugins::protoagent::supersedes

  ⚠ supersedes entry 'file:///src/demo' uses file:// (expected https, http, ssh or git) — ignored
   ╭─[protoagent.plugin.yaml:7:5]
 6 │   - git@github.com:ACME/demo-plugin.git
 7 │   - file:///src/demo
   ·     ────────────────
 8 │   - 'https://github.com/acme/*'
   ╰────
  help: name one remote git repository, like https://github.com/<owner>/<repo> or
        git@github.com:<owner>/<repo>.git
plugins::protoagent::supersedes

  ⚠ supersedes entry 'https://github.com/acme/*' carries a glob character or whitespace (it must
  │ name one exact repo) — ignored
   ╭─[protoagent.plugin.yaml:8:5]
 7 │   - file:///src/demo
 8 │   - 'https://github.com/acme/*'
   ·     ───────────────────────────
 9 │   - github.com/acme/demo
   ╰────
  help: name one remote git repository, like https://github.com/<owner>/<repo> or
        git@github.com:<owner>/<repo>.git
plugins::protoagent::supersedes

  ⚠ supersedes entry 'github.com/acme/demo' is not a remote git URL naming a repository — ignored
    ╭─[protoagent.plugin.yaml:9:5]
  8 │   - 'https://github.com/acme/*'
  9 │   - github.com/acme/demo
    ·     ────────────────────
 10 │   - 7
    ╰────
  help: name one remote git repository, like https://github.com/<owner>/<repo> or
        git@github.com:<owner>/<repo>.git
plugins::protoagent::supersedes

  ⚠ supersedes entry 7 is empty or not a string — ignored
    ╭─[protoagent.plugin.yaml:10:5]
  9 │   - github.com/acme/demo
 10 │   - 7
    ·     ─
 11 │ enables: [demo, a.b, ' helper ', '-x']
    ╰────
  help: name one remote git repository, like https://github.com/<owner>/<repo> or
        git@github.com:<owner>/<repo>.git
plugins::protoagent::bundled_only

  ⚠ `enables` is honoured only on a plugin bundled with protoAgent; installed from git, it is
  │ parsed and ignored
    ╭─[protoagent.plugin.yaml:11:1]
 10 │   - 7
 11 │ enables: [demo, a.b, ' helper ', '-x']
    · ───────
    ╰────
  help: it cannot turn the listed plugins on from a third-party plugin; leave it out unless this
        manifest ships in protoAgent's own plugins/ tree
plugins::protoagent::enables

  ⚠ enables entry 'demo' is not another plugin's id — dropped
    ╭─[protoagent.plugin.yaml:11:11]
 10 │   - 7
 11 │ enables: [demo, a.b, ' helper ', '-x']
    ·           ────
    ╰────
  help: name another plugin by its id; a plugin cannot enable itself
plugins::protoagent::enables

  ⚠ enables entry '-x' is not another plugin's id — dropped
    ╭─[protoagent.plugin.yaml:11:34]
 10 │   - 7
 11 │ enables: [demo, a.b, ' helper ', '-x']
    ·                                  ────
    ╰────
  help: name another plugin by its id; a plugin cannot enable itself
    Valid protoagent plugin `demo` 0.0.0 at . (12 warnings)

"#]]
    );
    let codes = [
        "plugins::protoagent::requires_runtimes",
        "plugins::protoagent::supersedes",
        "plugins::protoagent::enables",
    ];
    assert_eq!(
        labelled(dir.path(), yaml, &[], &codes),
        [
            (codes[0], "20.6"),
            (codes[0], "python"),
            (codes[1], "file:///src/demo"),
            (codes[1], "'https://github.com/acme/*'"),
            (codes[1], "github.com/acme/demo"),
            (codes[1], "7"),
            (codes[2], "demo"),
            (codes[2], "'-x'"),
        ]
        .map(|(c, t)| (c.to_owned(), t.to_owned()))
    );
    // Shapes the host refuses whole.
    let yaml = "id: demo\nname: Demo\nrequires_runtimes: [node]\nsupersedes: {a: 1}\nenables: 7\n";
    let dir = plugin(yaml);
    let (_, p) = validate(dir.path(), &[]);
    let got: Vec<(String, String)> = diags(&p, yaml).into_iter().map(|d| (d.0, d.1)).collect();
    assert_eq!(
        got,
        [
            (
                codes[0],
                "requires_runtimes must be a mapping like {node: '>=20'} — ignored"
            ),
            (codes[1], "supersedes must be a list of git URLs — ignored"),
            (codes[2], "enables must be a list of plugin ids — ignored"),
        ]
        .map(|(c, t)| (c.to_owned(), t.to_owned()))
    );
}

/// The keys and rules protoAgent 0.218 added, read by the 0.145 profile and the default.
#[test]
fn host_profiles_0145_and_0218() {
    let yaml = "id: demo
name: Demo
settings_tabs: [{id: general, label: General}]
settings: [{key: token, tab: general}]
views: [{id: v, path: '/api/plugins/demo/update?x', palette: true}]
commands: [{id: go, title: Go, action: {type: navigate, view: v}}]
public_paths: [/api/plugins/demo/enabled]
federation_paths: [/api/plugins/demo/sync/]
requires_runtimes: {node: '>=20'}
supersedes: [https://github.com/acme/demo-plugin]
enables: [helper]
";
    let dir = plugin(yaml);
    let codes = |extra: &[&str]| -> Vec<(String, String)> {
        let (code, p) = validate(dir.path(), extra);
        assert_eq!(code, 0, "{extra:?}");
        diags(&p, yaml).into_iter().map(|d| (d.0, d.2)).collect()
    };
    let pairs = |xs: &[(&str, &str)]| -> Vec<(String, String)> {
        xs.iter()
            .map(|(c, t)| ((*c).to_owned(), (*t).to_owned()))
            .collect()
    };
    let unknown = "plugins::protoagent::unknown_key";
    assert_eq!(
        codes(&["--host-version", "0.145.0"]),
        pairs(&[
            (unknown, "settings_tabs"),
            (unknown, "tab"),
            (unknown, "commands"),
            (unknown, "federation_paths"),
            (unknown, "requires_runtimes"),
            (unknown, "supersedes"),
            (unknown, "enables"),
        ]),
        "0.145 ignores the new keys, keeps core routes and palettes"
    );
    // Diagnostics are listed by position; `plugins::host::testing::protoagent::host_log`
    // keeps the host's order (the parity test compares it).
    let want = pairs(&[
        (
            "plugins::protoagent::core_route",
            "'/api/plugins/demo/update?x'",
        ),
        ("plugins::protoagent::view_palette", "true"),
        (
            "plugins::protoagent::core_route",
            "/api/plugins/demo/enabled",
        ),
        ("plugins::protoagent::bundled_only", "supersedes"),
        ("plugins::protoagent::bundled_only", "enables"),
    ]);
    assert_eq!(codes(&[]), want, "the newest profile is the default");
    assert_eq!(codes(&["--host-version", "0.218.1"]), want);
    let dir145 = plugin(yaml);
    let (_, screen) = validate_screen(dir145.path(), &["--host-version", "0.145.0"]);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::protoagent::unknown_key

  ⚠ unknown key `settings_tabs` in the manifest is ignored by protoAgent 0.145
   ╭─[protoagent.plugin.yaml:3:1]
 2 │ name: Demo
 3 │ settings_tabs: [{id: general, label: General}]
   · ─────────────
 4 │ settings: [{key: token, tab: general}]
   ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `tab` in settings[0] is ignored by protoAgent 0.145
   ╭─[protoagent.plugin.yaml:4:25]
 3 │ settings_tabs: [{id: general, label: General}]
 4 │ settings: [{key: token, tab: general}]
   ·                         ───
 5 │ views: [{id: v, path: '/api/plugins/demo/update?x', palette: true}]
   ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `commands` in the manifest is ignored by protoAgent 0.145
   ╭─[protoagent.plugin.yaml:6:1]
 5 │ views: [{id: v, path: '/api/plugins/demo/update?x', palette: true}]
 6 │ commands: [{id: go, title: Go, action: {type: navigate, view: v}}]
   · ────────
 7 │ public_paths: [/api/plugins/demo/enabled]
   ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `federation_paths` in the manifest is ignored by protoAgent 0.145
   ╭─[protoagent.plugin.yaml:8:1]
 7 │ public_paths: [/api/plugins/demo/enabled]
 8 │ federation_paths: [/api/plugins/demo/sync/]
   · ────────────────
 9 │ requires_runtimes: {node: '>=20'}
   ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `requires_runtimes` in the manifest is ignored by protoAgent 0.145
    ╭─[protoagent.plugin.yaml:9:1]
  8 │ federation_paths: [/api/plugins/demo/sync/]
  9 │ requires_runtimes: {node: '>=20'}
    · ─────────────────
 10 │ supersedes: [https://github.com/acme/demo-plugin]
    ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `supersedes` in the manifest is ignored by protoAgent 0.145
    ╭─[protoagent.plugin.yaml:10:1]
  9 │ requires_runtimes: {node: '>=20'}
 10 │ supersedes: [https://github.com/acme/demo-plugin]
    · ──────────
 11 │ enables: [helper]
    ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
plugins::protoagent::unknown_key

  ⚠ unknown key `enables` in the manifest is ignored by protoAgent 0.145
    ╭─[protoagent.plugin.yaml:11:1]
 10 │ supersedes: [https://github.com/acme/demo-plugin]
 11 │ enables: [helper]
    · ───────
    ╰────
  help: protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules
    Valid protoagent plugin `demo` 0.0.0 at . (7 warnings)

"#]]
    );
}

/// A bundled id loads (the manifest is valid) but the installer refuses it: validate warns
/// in install's code and words, so `--strict` fails, per the host profile.
#[test]
fn a_bundled_id_is_an_install_refusal() {
    let dir = plugin("id: notes\nname: Notes\n");
    let (code, p) = validate(dir.path(), &[]);
    assert_eq!(code, 0, "the host loads it: a warning");
    assert_eq!(p["host"]["verdict"], "valid");
    let (code, screen) = validate_screen(dir.path(), &["--strict"]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::install::builtin

  × plugin id 'notes' is a built-in — cannot install over it.
   ╭─[protoagent.plugin.yaml:1:5]
 1 │ id: notes
   ·     ──┬──
   ·       ╰── protoAgent 0.218 ships a plugin with this id
 2 │ name: Notes
   ╰────
  help: `protoagent plugin install` refuses it and runs its own bundled copy; choose another id
        (for a fork, e.g. with a suffix)
  Invalid protoagent plugin `notes` 0.0.0 at . (1 error)

"#]]
    );
    // 0.218's additions are bundled only under 0.218.
    let dir = plugin("id: cowork\nname: Cowork\n");
    let warned = |extra: &[&str]| {
        let (_, p) = validate(dir.path(), extra);
        p["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "plugins::install::builtin")
    };
    assert!(warned(&[]));
    assert!(!warned(&["--host-version", "0.145"]));
    assert_eq!(
        validate(dir.path(), &["--strict", "--host-version", "0.145"]).0,
        0
    );
    // protoAgent's own bundled tree: `--bundled`.
    assert!(!warned(&["--bundled"]));
    assert_eq!(validate(dir.path(), &["--strict", "--bundled"]).0, 0);
}
