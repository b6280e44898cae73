//! What editor linters need: `--stdin --stdin-filename PATH` (an unsaved
//! buffer reported as the file) and finding the plugin root from any
//! directory inside it.

use std::path::Path;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

/// Run with `input` on stdin: (exit code, stdout, stderr).
fn run_with_stdin(cmd: &mut Plugins, input: &[u8]) -> (i32, String, String) {
    cmd.stdin_bytes(input).run().parts()
}

fn stdin_validate(cwd: &Path, args: &[&str], input: &[u8]) -> (i32, String, String) {
    run_with_stdin(
        Plugins::new()
            .args(["validate", "--stdin"])
            .args(args)
            .current_dir(cwd),
        input,
    )
}

#[test]
fn stdin_is_reported_as_the_named_file() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("kanban");
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/worker"), "#!/bin/sh\n").unwrap();
    // On disk the manifest is broken; the editor's buffer is not (yet).
    std::fs::write(root.join("aoe-plugin.toml"), BROKEN).unwrap();
    let buffer = CLEAN_AOE.replace("version = \"0.1.0\"", "version = \"v1\"");
    let (code, stdout, stderr) = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "kanban/aoe-plugin.toml"],
        buffer.as_bytes(),
    );
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
plugins::aoe::version_not_semver

  ⚠ version "v1" is not a semantic version
   ╭─[kanban/aoe-plugin.toml:3:11]
 2 │ name = "Hello"
 3 │ version = "v1"
   ·           ────
 4 │ api_version = 15
   ╰────
  help: the host does not check it, but updates and the featured index compare versions as semver,
        e.g. "1.2.0"
    Valid aoe plugin `dev.example.hello` v1 at kanban (1 warning)

"#]]
        .raw()
    );

    // JSON for linters, and --strict as usual.
    let (code, stdout, _) = stdin_validate(
        tmp.path(),
        &[
            "--stdin-filename",
            "kanban/aoe-plugin.toml",
            "--strict",
            "--format",
            "json",
        ],
        buffer.as_bytes(),
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let p = &doc["plugins"][0];
    assert_eq!(
        (&p["root"], &p["manifest"], &p["manifest_hash"]),
        (
            &serde_json::json!("kanban"),
            &serde_json::json!("kanban/aoe-plugin.toml"),
            &serde_json::json!(plugins::hash::bytes(buffer.as_bytes()))
        )
    );
    assert_eq!(
        diags(p, &buffer),
        [(
            "plugins::aoe::version_not_semver".to_owned(),
            "version \"v1\" is not a semantic version".to_owned(),
            "\"v1\"".to_owned()
        )]
    );
}

#[test]
fn stdin_with_another_file_name_needs_a_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "/tmp/nvim.1234/manifest.yaml"],
        b"id: demo\nname: Demo\n",
    );
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_data_eq!(
        stderr,
        str![[r#"
plugins::usage::invalid_argument

  × `--stdin-filename /tmp/nvim.1234/manifest.yaml` does not end in a manifest name
  help: name the file (`aoe-plugin.toml`, `.aworld-plugin/plugin.json`, `protoagent.plugin.yaml`)
        or pass `--dialect`

"#]]
        .raw()
    );
    // With --dialect, the file's directory is the plugin root.
    std::fs::write(tmp.path().join("__init__.py"), "").unwrap();
    let name = tmp.path().join("buffer.yaml");
    let (code, stdout, _) = stdin_validate(
        tmp.path(),
        &[
            "--dialect",
            "protoagent",
            "--stdin-filename",
            name.to_str().unwrap(),
            "--format",
            "json",
        ],
        b"id: demo\nname: Demo\nenabled: maybe\n",
    );
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::protoagent::truthy_string"
    );
    assert_eq!(
        doc["plugins"][0]["root"].as_str(),
        tmp.path().to_str(),
        "the buffer's directory"
    );
}

#[test]
fn stdin_bytes_get_the_file_checks() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, stdout, _) = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--format", "json"],
        b"name = \"caf\xe9\"\n",
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::file::not_utf8"
    );
    let big = vec![b'#'; 1024 * 1024 + 1];
    let (code, stdout, _) = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--format", "json"],
        &big,
    );
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::file::too_large"
    );
}

#[test]
fn stdin_takes_no_paths_and_needs_a_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, stderr) = stdin_validate(tmp.path(), &["--path", "."], b"");
    assert_eq!(code, 2);
    assert!(stderr.starts_with("error: "), "{stderr}");
    let (code, _, stderr) = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--path", "."],
        b"",
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot be used with '--path <PATH>'"),
        "{stderr}"
    );
}

#[test]
fn validate_finds_the_plugin_root_above_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("plugins/broken/aoe-plugin.toml", BROKEN)
        .file("plugins/broken/src/deep/x.py", "");
    let (code, stdout) = validate_screen(&repo.dir.join("plugins/broken/src/deep"), &[]);
    assert_eq!(code, 1);
    assert_data_eq!(
        stdout,
        str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`,
  │ `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[../../aoe-plugin.toml:7:8]
 6 │ [[ui]]
 7 │ slot = "sidebar"
   ·        ─────────
 8 │ id = "s"
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.x` 1.0.0 at ../.. (1 error)

"#]]
        .raw()
    );

    // Not past the repository root: a manifest above it is not this repository's.
    std::fs::write(tmp.path().join("aoe-plugin.toml"), BROKEN).unwrap();
    let (code, stdout) = validate_screen(&repo.dir.join("plugins"), &["--format", "json"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (
            &doc["plugins"][0]["root"],
            &doc["plugins"][0]["diagnostics"][0]["code"]
        ),
        (
            &serde_json::json!("."),
            &serde_json::json!("plugins::file::missing")
        )
    );
}
