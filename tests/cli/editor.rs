//! What editor linters need: `--stdin --stdin-filename PATH` (an unsaved
//! buffer reported as the file) and finding the plugin root from any
//! directory inside it.

use std::path::Path;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

/// `validate --stdin <args>` in `cwd` with `input` on stdin; `cwd` shows as `[TMP]`.
fn stdin_validate(cwd: &Path, args: &[&str], input: &[u8]) -> Ran {
    Plugins::new()
        .args(["validate", "--stdin"])
        .args(args)
        .current_dir(cwd)
        .tmp(cwd)
        .stdin_bytes(input)
        .run()
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
    stdin_validate(
        tmp.path(),
        &["--stdin-filename", "kanban/aoe-plugin.toml"],
        buffer.as_bytes(),
    )
    .expect(
        0,
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

"#]],
        "",
    );

    // JSON for linters, and --strict as usual.
    let ran = stdin_validate(
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
      "root": "kanban",
      "manifest": "kanban/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "v1",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:b85a39f39e602eca44b5a98a1887d8281fbeccfe24b8c79f85f36575df0e84bc",
      "diagnostics": [
        {
          "code": "plugins::aoe::version_not_semver",
          "severity": "error",
          "message": "version \"v1\" is not a semantic version",
          "help": "the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\"",
          "labels": [
            {
              "start": 50,
              "end": 54,
              "line": 3,
              "column": 11,
              "end_line": 3,
              "end_column": 15,
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

"#]], "");
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
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
    stdin_validate(
        tmp.path(),
        &["--stdin-filename", "/tmp/nvim.1234/manifest.yaml"],
        b"id: demo\nname: Demo\n",
    )
    .expect(
        2,
        "",
        str![[r#"
plugins::usage::invalid_argument

  × `--stdin-filename /tmp/nvim.1234/manifest.yaml` does not end in a manifest name
  help: name the file (`aoe-plugin.toml`, `.aworld-plugin/plugin.json`, `protoagent.plugin.yaml`)
        or pass `--dialect`

"#]],
    );
    // With --dialect, the file's directory is the plugin root.
    std::fs::write(tmp.path().join("__init__.py"), "").unwrap();
    let name = tmp.path().join("buffer.yaml");
    let ran = stdin_validate(
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
    ran.expect(0, str![[r#"
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
      "root": "[TMP]",
      "manifest": "[TMP]/buffer.yaml",
      "dialect": "protoagent",
      "id": "demo",
      "version": "0.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:c7d0e20e9a09b259dc0a5eb328a34247f83e311923b17e85b9424485aecc8d65",
      "diagnostics": [
        {
          "code": "plugins::protoagent::truthy_string",
          "severity": "warning",
          "message": "`enabled` is a str, which Python's bool() reads as true",
          "help": "write `enabled: true` or `enabled: false` (unquoted); as written, the host treats it as true",
          "labels": [
            {
              "start": 29,
              "end": 34,
              "line": 3,
              "column": 10,
              "end_line": 3,
              "end_column": 15,
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

"#]], "");
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
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
    let ran = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--format", "json"],
        b"name = \"caf\xe9\"\n",
    );
    ran.expect(
        1,
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
      "root": ".",
      "manifest": "aoe-plugin.toml",
      "dialect": "aoe",
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "aoe-plugin.toml is not valid UTF-8"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::not_utf8",
          "severity": "error",
          "message": "aoe-plugin.toml is not valid UTF-8",
          "help": "save the file as UTF-8",
          "labels": [
            {
              "start": 11,
              "end": 12,
              "line": 1,
              "column": 12,
              "end_line": 1,
              "end_column": 12,
              "text": "invalid byte at offset 11"
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
        "",
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::file::not_utf8"
    );
    let big = vec![b'#'; 1024 * 1024 + 1];
    let ran = stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--format", "json"],
        &big,
    );
    ran.expect(
        1,
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
      "root": ".",
      "manifest": "aoe-plugin.toml",
      "dialect": "aoe",
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "aoe-plugin.toml is over 1 MiB"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::too_large",
          "severity": "error",
          "message": "aoe-plugin.toml is over 1 MiB",
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
        "",
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::file::too_large"
    );
}

#[test]
fn stdin_takes_no_paths_and_needs_a_file_name() {
    let tmp = tempfile::tempdir().unwrap();
    stdin_validate(tmp.path(), &["--path", "."], b"").expect(
        2,
        "",
        str![[r#"
error: the argument '--stdin' cannot be used with '--path <PATH>'

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

For more information, try '--help'.

"#]],
    );
    stdin_validate(
        tmp.path(),
        &["--stdin-filename", "aoe-plugin.toml", "--path", "."],
        b"",
    )
    .expect(
        2,
        "",
        str![[r#"
error: the argument '--stdin' cannot be used with '--path <PATH>'

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

For more information, try '--help'.

"#]],
    );
    // Without the file name: the usage lines name both ways to call validate, and neither
    // puts a PLUGIN-ID beside --stdin.
    stdin_validate(tmp.path(), &[], b"").expect(
        2,
        "",
        str![[r#"
error: the following required arguments were not provided:
  --stdin-filename <PATH>

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

For more information, try '--help'.

"#]],
    );
    stdin_validate(tmp.path(), &["kanban"], b"").expect(
        2,
        "",
        str![[r#"
error: the argument '--stdin' cannot be used with '[PLUGIN-ID]...'

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

For more information, try '--help'.

"#]],
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
