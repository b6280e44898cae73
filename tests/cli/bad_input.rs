//! Bad input never panics: each gets a clear diagnostic and exit code 1.

use std::os::unix::fs::PermissionsExt;

use snapbox::{assert_data_eq, str};

use crate::support::*;

/// Run `validate --format json` on a root, its stdout against `expected` (the root as
/// `[ROOT]`) and stderr empty, and return (exit code, first diagnostic code, message).
#[track_caller]
fn first_diagnostic(
    root: &std::path::Path,
    expected: snapbox::data::Inline,
) -> (i32, String, String) {
    let ran = Plugins::new()
        .redact("[ROOT]", root)
        .args(["validate", "--format", "json", "--path"])
        .arg(root)
        .run();
    ran.streams_eq(expected, str![""]);
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).expect("json output");
    let code = ran.code;
    let d = &doc["plugins"][0]["diagnostics"][0];
    (
        code,
        d["code"].as_str().unwrap().to_owned(),
        d["message"].as_str().unwrap().to_owned(),
    )
}

#[test]
fn invalid_utf8_is_labelled_at_the_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("aoe-plugin.toml"),
        b"id = \"a\"\nname = \"\xff\xfe\"\n",
    )
    .unwrap();
    let ran = Plugins::new()
        .redact("[ROOT]", dir.path())
        .args(["validate", "--format", "json", "--path"])
        .arg(dir.path())
        .run();
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
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
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
              "start": 17,
              "end": 18,
              "line": 2,
              "column": 9,
              "end_line": 2,
              "end_column": 9,
              "text": "invalid byte at offset 17"
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
        str![""],
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let d = &doc["plugins"][0]["diagnostics"][0];
    assert_eq!(d["code"], "plugins::file::not_utf8");
    assert_eq!(d["message"], "aoe-plugin.toml is not valid UTF-8");
    assert_eq!(d["labels"][0]["start"], 17);
    assert_eq!(d["labels"][0]["line"], 2);
}

#[test]
fn a_manifest_over_one_mib_is_refused_unread() {
    let big = format!("id = \"a.b\"\n# {}\n", "x".repeat(1024 * 1024));
    let dir = aoe_root(&big);
    let (code, diag, message) = first_diagnostic(
        dir.path(),
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
        "message": "aoe-plugin.toml is 1048590 bytes; manifests over 1048576 bytes (1 MiB) are refused"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::too_large",
          "severity": "error",
          "message": "aoe-plugin.toml is 1048590 bytes; manifests over 1048576 bytes (1 MiB) are refused",
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
    assert_eq!((code, diag.as_str()), (1, "plugins::file::too_large"));
    assert!(message.contains("1 MiB"), "{message}");
}

#[test]
fn toml_nesting_bombs_are_syntax_errors() {
    for bomb in [
        format!("a = {}{}", "[".repeat(50_000), "]".repeat(50_000)),
        format!("a = {}1{}", "{ b = ".repeat(20_000), " }".repeat(20_000)),
        format!("{} = 1", vec!["k"; 50_000].join(".")),
        format!("[{}]", vec!["t"; 50_000].join(".")),
    ] {
        let dir = aoe_root(&bomb);
        let (code, stdout, stderr) = Plugins::new()
            .args(["validate", "--format", "json", "--path"])
            .arg(dir.path())
            .run()
            // parts: the host's message quotes the bomb's line (over 100,000 characters for two).
            .parts();
        assert!(stderr.is_empty(), "{stderr}");
        let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json output");
        let diag = doc["plugins"][0]["diagnostics"][0]["code"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!((code, diag.as_str()), (1, "plugins::syntax::toml"));
    }
}

#[test]
fn a_symlinked_manifest_is_read_like_any_symlink_in_the_tree() {
    // One rule for every symlink in an aoe tree: the host's validate reads through it, its
    // install refuses it (the tree hash), so it is the same warning wherever it is.
    let dir = clean_aoe_root();
    let real = dir.path().join("real.toml");
    std::fs::rename(dir.path().join("aoe-plugin.toml"), &real).unwrap();
    std::os::unix::fs::symlink("real.toml", dir.path().join("aoe-plugin.toml")).unwrap();
    std::os::unix::fs::symlink("real.toml", dir.path().join("other-link")).unwrap();
    let (code, out) = validate_screen(dir.path(), &[]);
    assert_eq!(code, 0, "{out}");
    assert_data_eq!(
        out,
        str![[r#"
plugins::aoe::symlink

  ⚠ plugin tree contains a symlink (aoe-plugin.toml); symlinks are not allowed in a hashed tree
   ╭─[aoe-plugin.toml:1:1]
 1 │ id = "dev.example.hello"
   · ▲
 2 │ name = "Hello"
   ╰────
  help: replace it with a copy of the file, or create it in a build step
plugins::aoe::symlink

  ⚠ plugin tree contains a symlink (other-link); symlinks are not allowed in a hashed tree
   ╭─[aoe-plugin.toml:1:1]
 1 │ id = "dev.example.hello"
   · ▲
 2 │ name = "Hello"
   ╰────
  help: replace it with a copy of the file, or create it in a build step
    Valid aoe plugin `dev.example.hello` 0.1.0 at . (2 warnings)

"#]]
    );
    // And install refuses it, as aoe does.
    let home = tempfile::tempdir().unwrap();
    Plugins::new()
        .redact("[ROOT]", dir.path())
        .redact("[HOME]", home.path())
        // Unwrapped: where the report wraps depends on the temp dir's length.
        .env("COLUMNS", "400")
        .arg("install")
        .arg(dir.path())
        .args(["--yes", "--home"])
        .arg(home.path())
        .run()
        .expect(
            1,
            str![[r#"
plugins::aoe::symlink

  ⚠ plugin tree contains a symlink (aoe-plugin.toml); symlinks are not allowed in a hashed tree
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
 1 │ id = "dev.example.hello"
   · ▲
 2 │ name = "Hello"
   ╰────
  help: replace it with a copy of the file, or create it in a build step
plugins::aoe::symlink

  ⚠ plugin tree contains a symlink (other-link); symlinks are not allowed in a hashed tree
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
 1 │ id = "dev.example.hello"
   · ▲
 2 │ name = "Hello"
   ╰────
  help: replace it with a copy of the file, or create it in a build step
    Valid aoe plugin `dev.example.hello` 0.1.0 at [ROOT] (2 warnings)

"#]],
            str![[r#"
    Fetching [ROOT]
      Copied 2 files, 245 bytes
plugins::install::invalid

  × refusing to install: dev.example.hello would be refused by its host's installer (the warning above)
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
        );
}

#[test]
fn a_manifest_that_is_a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("aoe-plugin.toml")).unwrap();
    let (code, diag, message) = first_diagnostic(
        dir.path(),
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
        "message": "aoe-plugin.toml is not a regular file"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::not_regular",
          "severity": "error",
          "message": "aoe-plugin.toml is not a regular file",
          "help": "`[ROOT]/aoe-plugin.toml` must be a file",
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
    assert_eq!((code, diag.as_str()), (1, "plugins::file::not_regular"));
    assert_eq!(message, "aoe-plugin.toml is not a regular file");
}

#[test]
fn an_unreadable_manifest_is_reported() {
    let dir = clean_aoe_root();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let manifest = dir.path().join("aoe-plugin.toml");
    std::fs::set_permissions(&manifest, std::fs::Permissions::from_mode(0o000)).unwrap();
    // root reads anything: drop to `nobody` for the run when we are root.
    let is_root = run(std::process::Command::new("id").arg("-u")).1.trim() == "0";
    // A copy of the binary in a world-readable dir, wherever the checkout lives.
    let bin_dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(bin_dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let bin = bin_dir.path().join("plugins");
    crate::support::copy_binary(&bin);
    let mut cmd = if is_root {
        Plugins::under(
            "setpriv",
            [
                "--reuid=65534".as_ref(),
                "--regid=65534".as_ref(),
                "--clear-groups".as_ref(),
                bin.as_os_str(),
            ],
        )
    } else {
        Plugins::new()
    };
    let ran = cmd
        .redact("[ROOT]", dir.path())
        .args(["validate", "--format", "json", "--path"])
        .arg(dir.path())
        .run();
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
      "root": "[ROOT]",
      "manifest": "[ROOT]/aoe-plugin.toml",
      "dialect": "aoe",
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "cannot read aoe-plugin.toml: Permission denied (os error 13)"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::unreadable",
          "severity": "error",
          "message": "cannot read aoe-plugin.toml: Permission denied (os error 13)",
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
        str![""],
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["diagnostics"][0]["code"],
        "plugins::file::unreadable"
    );
}

#[test]
fn a_missing_manifest_names_what_was_looked_for() {
    let dir = tempfile::tempdir().unwrap();
    let (code, diag, message) = first_diagnostic(
        dir.path(),
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
      "manifest": "[ROOT]",
      "dialect": null,
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "file",
        "message": "no plugin manifest at [ROOT]"
      },
      "manifest_hash": null,
      "diagnostics": [
        {
          "code": "plugins::file::missing",
          "severity": "error",
          "message": "no plugin manifest at [ROOT]",
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
    assert_eq!((code, diag.as_str()), (1, "plugins::file::missing"));
    assert!(message.starts_with("no plugin manifest at "), "{message}");
}

#[test]
fn a_nonexistent_path_cannot_run() {
    Plugins::new()
        .args(["validate", "--path", "/nonexistent/plugin"])
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::usage::path_not_found

  × path `/nonexistent/plugin` does not exist

"#]],
        );
}

#[test]
fn binary_garbage_and_empty_files_do_not_panic() {
    for (bytes, stdout) in [
        (
            &b""[..],
            str![[r#"
plugins::aoe::missing_key

  × missing field `id`
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
   ╰────
plugins::aoe::missing_key

  × missing field `name`
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
   ╰────
plugins::aoe::missing_key

  × missing field `version`
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
   ╰────
plugins::aoe::missing_key

  × missing field `api_version`
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin at [ROOT] (4 errors)

"#]],
        ),
        (
            b"\0\0\0",
            str![[r#"
plugins::syntax::toml

  × key with no value, expected `=`
   ╭─[[ROOT]/aoe-plugin.toml:1:4]
 1 │ \u0000\u0000\u0000
   ╰────
  note: further checks skipped until this is fixed: the structural and semantic passes, install
        refusals and lints
  Invalid aoe plugin at [ROOT] (1 error)

"#]],
        ),
        (
            b"[[[",
            str![[r#"
plugins::syntax::toml

  × unquoted keys cannot be empty, expected letters, numbers, `-`, `_`
   ╭─[[ROOT]/aoe-plugin.toml:1:3]
 1 │ [[[
   ·   ▲
   ╰────
  note: further checks skipped until this is fixed: the structural and semantic passes, install
        refusals and lints
  Invalid aoe plugin at [ROOT] (1 error)

"#]],
        ),
        (
            b"id = \"\x00\"",
            str![[r#"
plugins::syntax::toml

  × invalid basic string, expected non-double-quote visible characters, `\`
   ╭─[[ROOT]/aoe-plugin.toml:1:7]
 1 │ id = "\u0000"
   ·       ─
   ╰────
  note: further checks skipped until this is fixed: the structural and semantic passes, install
        refusals and lints
  Invalid aoe plugin at [ROOT] (1 error)

"#]],
        ),
        (
            b"=\n=\n",
            str![[r#"
plugins::syntax::toml

  × unquoted keys cannot be empty, expected letters, numbers, `-`, `_`
   ╭─[[ROOT]/aoe-plugin.toml:1:1]
 1 │ =
   · ▲
 2 │ =
   ╰────
  note: further checks skipped until this is fixed: the structural and semantic passes, install
        refusals and lints
  Invalid aoe plugin at [ROOT] (1 error)

"#]],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("aoe-plugin.toml"), bytes).unwrap();
        Plugins::new()
            .redact("[ROOT]", dir.path())
            .args(["validate", "--path"])
            .arg(dir.path())
            .run()
            .expect(1, stdout, str![""]);
    }
}

#[test]
fn an_unrendered_template_is_a_syntax_error_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let aoe = dir.path().join("aoe");
    std::fs::create_dir(&aoe).unwrap();
    std::fs::write(
        aoe.join("aoe-plugin.toml"),
        "id = \"{{ cookiecutter.plugin_id }}\"\nname = \"{{ cookiecutter.plugin_name }}\"\nversion = \"0.1.0\"\napi_version = {{ cookiecutter.aoe_api_version }}\n",
    )
    .unwrap();
    let aworld = dir.path().join("aworld/.aworld-plugin");
    std::fs::create_dir_all(&aworld).unwrap();
    std::fs::write(
        aworld.join("plugin.json"),
        "{\n  \"id\": \"x\",\n  \"version\": \"1\"{% if hooks %},\n  \"entrypoints\": {}{% endif %}\n}\n",
    )
    .unwrap();
    let proto = dir.path().join("protoagent");
    std::fs::create_dir(&proto).unwrap();
    std::fs::write(
        proto.join("protoagent.plugin.yaml"),
        "id: {{ cookiecutter.id }}\nname: {{ cookiecutter.name }}\n",
    )
    .unwrap();
    let (code, screen) = validate_screen(dir.path(), &["-r"]);
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
plugins::syntax::toml

  × missing key for inline table element, expected key
   ╭─[aoe/aoe-plugin.toml:4:16]
 3 │ version = "0.1.0"
 4 │ api_version = {{ cookiecutter.aoe_api_version }}
   ·                ▲
   ╰────
  help: this looks like an unrendered template (`{{ cookiecutter.aoe_api_version }}`): render it
        first (`cookiecutter <template>`), then validate the generated plugin
  note: further checks skipped until this is fixed: the structural and semantic passes, install
        refusals and lints
  Invalid aoe plugin at aoe (1 error)
plugins::syntax::json

  × Expecting ',' delimiter: line 3 column 17 (char 31)
   ╭─[aworld/.aworld-plugin/plugin.json:3:17]
 2 │   "id": "x",
 3 │   "version": "1"{% if hooks %},
   ·                 ─
 4 │   "entrypoints": {}{% endif %}
   ╰────
  help: this looks like an unrendered template (`{% if hooks %}`): render it first with its
        generator, then validate the generated plugin
  note: further checks skipped until this is fixed: the loader, the target containment check and
        lints
  Invalid aworld plugin at aworld (1 error)
plugins::syntax::yaml

  × found unhashable key
   ╭─[protoagent/protoagent.plugin.yaml:1:6]
 1 │ id: {{ cookiecutter.id }}
   ·      ───────────────────
 2 │ name: {{ cookiecutter.name }}
   ╰────
  help: this looks like an unrendered template (`{{ cookiecutter.id }}`): render it first
        (`cookiecutter <template>`), then validate the generated plugin
  note: further checks skipped until this is fixed: the load gates (entry module,
        min_protoagent_version, requires_env) and lints
  Invalid protoagent plugin at protoagent (1 error)
3 plugins: 0 valid, 3 invalid; 3 errors

"#]]
    );
}

/// Manifests are opened before they are stat'ed: a FIFO (or a symlink to one,
/// which the Python hosts follow) must be refused, not waited on.
#[test]
fn a_manifest_that_is_a_fifo_is_refused_without_blocking() {
    for (manifest, through_symlink) in [
        ("aoe-plugin.toml", false),
        (".aworld-plugin/plugin.json", true),
        ("protoagent.plugin.yaml", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(manifest);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let fifo = if through_symlink {
            dir.path().join("pipe")
        } else {
            path.clone()
        };
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        if through_symlink {
            std::os::unix::fs::symlink(&fifo, &path).unwrap();
        }
        let mut child = Plugins::new()
            .args(["validate", "--format", "json", "--path"])
            .arg(dir.path())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{manifest}: validate waits on a FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{manifest}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let d = &doc["plugins"][0]["diagnostics"][0];
        assert_eq!(d["code"], "plugins::file::not_regular", "{manifest}: {d}");
    }
}

/// A file-size cap that is no number is refused by name, not taken as the default.
#[test]
fn an_invalid_max_file_mib_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    for value in ["0", "-1", "abc", ""] {
        Plugins::new()
            .args(["list", "--home"])
            .arg(tmp.path())
            .env("PLUGINS_MAX_FILE_MIB", value)
            .env("COLUMNS", "200")
            .run()
            .redact("[VALUE]", format!("{value:?}"))
            .code(2)
            .stdout_eq("")
            .stderr_eq(snapbox::str![[r#"
plugins::usage::invalid_argument

  × PLUGINS_MAX_FILE_MIB=[VALUE] is not a whole number of MiB above 0 (the largest file a git source may hold); set one, or unset it for the default, 100

"#]]);
    }
    Plugins::new()
        .args(["list", "--home"])
        .arg(tmp.path())
        .env("PLUGINS_MAX_FILE_MIB", "5")
        .run()
        .success();
}

/// `--allowed-signers` naming something that is no regular file says what it is.
#[test]
fn allowed_signers_that_is_no_regular_file_says_what_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("fifo");
    crate::support::mkfifo(&fifo);
    let cases = [
        (fifo.display().to_string(), "a FIFO"),
        ("/dev/zero".to_owned(), "a character device"),
        (tmp.path().display().to_string(), "a directory"),
    ];
    for (file, kind) in cases {
        let ran = Plugins::new()
            .args(["install", "/nonexistent", "--allowed-signers", &file])
            .run();
        ran.code(2);
        assert!(
            ran.stderr.contains(&format!(
                "--allowed-signers {file}: it is {kind}, not a regular file"
            )),
            "{}",
            ran.stderr
        );
    }
}

/// A lock row whose `subdir` leaves the repository is a failed check that says why, not
/// "not from git".
#[test]
fn a_row_with_a_subdir_out_of_the_repository_is_a_failed_check() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("plugins.lock"),
        "lock_version = 2\n[plugins.\"x.y\"]\nsource = \"gh:acme/x\"\nrequested_ref = \"main\"\nref_kind = \"branch\"\nresolved_commit = \"0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9\"\nversion = \"1\"\nmanifest_hash = \"\"\ntree_hash = \"\"\nsubdir = \"../../etc\"\n",
    )
    .unwrap();
    Plugins::new()
        .args(["outdated", "--home"])
        .arg(tmp.path())
        .env("COLUMNS", "300")
        .run()
        .code(1)
        .stdout_eq(snapbox::str![[r#"
x.y                              main @ 0d6f91b0d6            check failed: the lock's row cannot be checked: subdirectory "../../etc" is not a relative path inside the repository (no `..`, absolute or empty parts)

"#]]);
}
