//! protoAgent rules one by one, and hostile YAML.

use std::path::Path;

use serde_json::Value;

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
    let (code, stdout, stderr) = run(plugins()
        .args(["validate", "--format", "json", "--path"])
        .arg(root)
        .args(extra));
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
    assert!(
        find("plugins::protoagent::view")
            .1
            .contains("not same-origin relative")
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
    let (code, stdout, _) = run(plugins()
        .args(["validate", "--strict", "--path"])
        .arg(dir.path())
        .env("PLUGINS_TEST_NEEDED_VAR", "x"));
    assert_eq!(code, 0, "{stdout}");
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
    let (code, _, stderr) = run(plugins()
        .args(["validate", "--host-version", "banana", "--path"])
        .arg(dir.path()));
    assert_eq!(code, 2, "{stderr}");
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
    let (code, stdout, _) = run(plugins()
        .args(["validate", "-r", "--strict", "--format", "json", "--path"])
        .arg(parent.path()));
    assert_eq!(code, 0, "{stdout}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
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
