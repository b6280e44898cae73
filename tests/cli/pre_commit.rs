//! `.pre-commit-hooks.yaml`, run by the real `pre-commit try-repo` on a sample
//! plugin repository. Slow and needs pre-commit from PyPI, so it runs only with
//! `PLUGINS_SLOW_TESTS=1` (`.ci/run` sets it and installs pre-commit into a
//! virtualenv under `target/`, named by `PLUGINS_PRE_COMMIT`).

use std::path::Path;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::hooks::{hook_runner, slow_pre_commit};
use crate::support::*;

fn try_repo(pre_commit: &Path, sample: &Path, hooks: &Path, home: &Path) -> (i32, String) {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let (code, stdout, stderr) = run(hook_runner(pre_commit, sample, home)
        .arg(hooks)
        .args(["plugins-validate-system", "--all-files"])
        .env("PATH", path));
    assert_eq!(stderr, "", "pre-commit try-repo failed to run");
    (code, stdout)
}

#[test]
fn pre_commit_try_repo_validates_the_changed_manifests() {
    let Some(pre_commit) = slow_pre_commit() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // The hooks repository: this checkout's hook definitions, committed.
    let hooks = Repo::init(&tmp.path().join("hooks"));
    hooks.file(
        ".pre-commit-hooks.yaml",
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
        )
        .unwrap(),
    );
    hooks.commit("hooks");
    // A plugin repository with a valid aoe plugin and an invalid protoAgent one.
    let sample = Repo::init(&tmp.path().join("sample"));
    sample
        .file("good/aoe-plugin.toml", CLEAN_AOE)
        .executable("good/bin/worker", "#!/bin/sh\n")
        .file(
            "bad/protoagent.plugin.yaml",
            "id: demo\nname: Demo\nenabled: maybe\n",
        )
        .file("bad/__init__.py", "")
        .file("README.md", "not a manifest\n");
    sample.commit("plugins");
    let home = tmp.path().join("pre-commit-home");
    let (code, stdout) = try_repo(&pre_commit, &sample.dir, &hooks.dir, &home);
    let stdout = stdout
        .lines()
        .map(|l| match l.split_once("rev: ") {
            Some((indent, _)) => format!("{indent}rev: [REV]"),
            None => l.replace(&hooks.dir.display().to_string(), "[HOOKS]"),
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(code, 1);
    assert_data_eq!(
        stdout,
        str![[r#"
===============================================================================
Using config:
===============================================================================
repos:
-   repo: ../hooks
    rev: [REV]
    hooks:
    -   id: plugins-validate-system
===============================================================================
[INFO] Initializing environment for ../hooks.
plugins validate.........................................................Failed
- hook id: plugins-validate-system
- exit code: 1

plugins::protoagent::truthy_string

  × `enabled` is a str, which Python's bool() reads as true
   ╭─[bad/protoagent.plugin.yaml:3:10]
 2 │ name: Demo
 3 │ enabled: maybe
   ·          ─────
   ╰────
  help: write `enabled: true` or `enabled: false` (unquoted); as written, the host treats it as
        true
  Invalid protoagent plugin `demo` 0.0.0 at bad (1 error)
    Valid aoe plugin `dev.example.hello` 0.1.0 at good
2 plugins: 1 valid, 1 invalid; 1 error

"#]]
        .raw()
    );

    // Fixed, the hook passes.
    sample.file(
        "bad/protoagent.plugin.yaml",
        "id: demo\nname: Demo\nenabled: true\n",
    );
    sample.commit("fix");
    let (code, stdout) = try_repo(&pre_commit, &sample.dir, &hooks.dir, &home);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("plugins validate...") && stdout.contains("Passed"),
        "{stdout}"
    );
}

/// What the hook runs, without pre-commit: manifest paths where ids go.
#[test]
fn manifest_files_given_as_plugin_ids_are_validated_as_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("good/bin")).unwrap();
    std::fs::write(root.join("good/aoe-plugin.toml"), CLEAN_AOE).unwrap();
    std::fs::write(root.join("good/bin/worker"), "#!/bin/sh\n").unwrap();
    std::fs::create_dir_all(root.join("bad/.aworld-plugin")).unwrap();
    std::fs::write(root.join("bad/.aworld-plugin/plugin.json"), "{\"id\": 1}").unwrap();
    let (code, stdout) = validate_screen(
        root,
        &[
            "--strict",
            "good/aoe-plugin.toml",
            "bad/.aworld-plugin/plugin.json",
        ],
    );
    assert_eq!(code, 1);
    assert_data_eq!(
        stdout,
        str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at good
plugins::aworld::missing_field

  × missing required field: version
   ╭─[bad/.aworld-plugin/plugin.json:1:1]
 1 │ {"id": 1}
   · ┬
   · ╰── in this object
   ╰────
plugins::aworld::schema

  × `id` should be string per plugin.schema.json
   ╭─[bad/.aworld-plugin/plugin.json:1:8]
 1 │ {"id": 1}
   ·        ─
   ╰────
  help: the host never applies plugin.schema.json, so it accepts this; editors and other tools do
        not
  note: further checks skipped until this is fixed: the loader's later checks, the target
        containment check and lints
  Invalid aworld plugin `1` at bad (2 errors)
2 plugins: 1 valid, 1 invalid; 2 errors

"#]]
        .raw()
    );
    // A manifest path that does not exist is reported as a missing path, not as an id.
    Plugins::new()
        .args(["validate", "--home"])
        .arg(root)
        .arg("missing/aoe-plugin.toml")
        .current_dir(root)
        .tmp(root)
        .run()
        .expect(
            2,
            str![],
            str![[r#"
plugins::usage::path_not_found

  × path `missing/aoe-plugin.toml` does not exist

"#]],
        );
}
