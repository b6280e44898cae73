//! Hostile names, trees and sources: nothing outside the home is read, written
//! or deleted because of them, and sources are only ever read.

use std::path::Path;
use std::time::Duration;

use snapbox::{IntoData, str};

use crate::support::git::Repo;
use crate::support::*;

/// Every path under `dir` with its kind and contents, to show nothing changed.
fn tree_state(dir: &Path) -> Vec<(String, String)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                out.push((rel, "dir".into()));
                walk(root, &path, out);
            } else if meta.is_symlink() {
                out.push((rel, format!("-> {:?}", std::fs::read_link(&path).unwrap())));
            } else if meta.is_file() {
                let data = std::fs::read(&path).unwrap();
                out.push((rel, plugins::hash::bytes(&data)));
            } else {
                out.push((rel, "special".into()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn remove_refuses_every_name_that_is_not_one_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("H");
    std::fs::create_dir_all(home.join("plugins/x")).unwrap();
    std::fs::write(home.join("plugins/x/f"), "x").unwrap();
    std::fs::create_dir_all(tmp.path().join("somewhere")).unwrap();
    std::fs::write(tmp.path().join("somewhere/keep"), "keep").unwrap();
    let before = tree_state(tmp.path());
    let outside = tmp.path().join("somewhere");
    let ids = [
        (
            "../../somewhere",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "../../somewhere" cannot name a plugin directory: it contains a path separator (`/`
  │ or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            outside.to_str().unwrap(),
            str![[r#"
plugins::install::unsafe_name

  × plugin id "[TMP]/somewhere" cannot name a plugin directory: it contains a path
  │ separator (`/` or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            "",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "" cannot name a plugin directory: it is empty
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            ".",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "." cannot name a plugin directory: `.` and `..` name directories, not plugins
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            "..",
            str![[r#"
plugins::install::unsafe_name

  × plugin id ".." cannot name a plugin directory: `.` and `..` name directories, not plugins
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            ".hidden",
            str![[r#"
plugins::install::unsafe_name

  × plugin id ".hidden" cannot name a plugin directory: it starts with a dot (hosts skip hidden
  │ directories)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            "x/..",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "x/.." cannot name a plugin directory: it contains a path separator (`/` or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            "x\\..",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "x\\.." cannot name a plugin directory: it contains a path separator (`/` or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            "a\nb",
            str![[r#"
plugins::install::unsafe_name

  × plugin id "a\nb" cannot name a plugin directory: it contains a control character ('\n')
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
    ];
    for (id, stderr) in ids {
        Plugins::new()
            .args(["remove", id, "--home"])
            .arg(&home)
            .env("NO_COLOR", "1")
            .tmp(tmp.path())
            .run()
            .expect(2, str![""], stderr);
    }
    assert_eq!(tree_state(tmp.path()), before, "nothing was deleted");
    Plugins::new()
        .args(["remove", "../../somewhere", "--home"])
        .arg(&home)
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::install::unsafe_name

  × plugin id "../../somewhere" cannot name a plugin directory: it contains a path separator (`/`
  │ or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]]
            .raw(),
        );
}

#[test]
fn a_hostile_lock_entry_is_an_error_never_a_path() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home/H");
    std::fs::create_dir_all(home.join("plugins")).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        "lock_version = 2\n\n[plugins.\"../../outside\"]\nsource = \"gh:acme/x\"\nversion = \"1.0.0\"\nmanifest_hash = \"sha256:00\"\ntree_hash = \"sha256:00\"\nresolved_commit = \"0000000000000000000000000000000000000000\"\n",
    )
    .unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    let before = tree_state(tmp.path());

    let verify = Plugins::new()
        .args(["verify", "--json", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run();
    verify.expect(1, str![[r#"
{
  "format_version": 1,
  "ok": false,
  "unverifiable": 0,
  "plugins": [
    {
      "id": "../../outside",
      "ok": false,
      "status": "invalid",
      "code": "plugins::lock::unsafe_id",
      "problems": [
        "[TMP]/home/H/plugins.lock: the entry \"../../outside\" cannot name a plugin directory: it contains a path separator (`/` or `\\`)"
      ]
    }
  ]
}

"#]], str![[""]]);
    let doc: serde_json::Value = serde_json::from_str(&verify.stdout).unwrap();
    assert_redacted(
        &serde_json::to_string_pretty(&doc["plugins"]).unwrap(),
        &[("[TMP]", tmp.path().display().to_string())],
        str![[r#"
[
  {
    "id": "../../outside",
    "ok": false,
    "status": "invalid",
    "code": "plugins::lock::unsafe_id",
    "problems": [
      "[TMP]/home/H/plugins.lock: the entry \"../../outside\" cannot name a plugin directory: it contains a path separator (`/` or `\\`)"
    ]
  }
]
"#]]
        .raw()
    );

    Plugins::new()
        .args(["sync", "--yes", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .code(2)
        .stderr_eq(str![[r#"
plugins::lock::unsafe_id

  × [TMP]/home/H/plugins.lock: the entry "../../outside" cannot name a plugin directory: it contains a path separator (`/` or `\`)
  help: nothing was read or deleted for it; remove the entry from [TMP]/home/H/plugins.lock by hand

"#]]
        .raw()
    );
    for (args, stderr) in [
        (
            &["info", "../../outside"][..],
            str![[r#"
plugins::install::unsafe_name

  × plugin id "../../outside" cannot name a plugin directory: it contains a path separator (`/` or
  │ `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
        (
            &["remove", "../../outside"],
            str![[r#"
plugins::install::unsafe_name

  × plugin id "../../outside" cannot name a plugin directory: it contains a path separator (`/` or
  │ `\`)
  help: `plugins list` shows the ids of installed plugins

"#]],
        ),
    ] {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .tmp(tmp.path())
            .run()
            .expect(2, str![""], stderr);
    }
    let list = Plugins::new()
        .args(["list", "--json", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run();
    list.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "../../outside",
      "dialect": "aoe",
      "version": "1.0.0",
      "source": "gh:acme/x",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "0000000000000000000000000000000000000000",
      "home": "[TMP]/home/H",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![[""]],
    );
    let doc: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(
        doc["plugins"][0]["present"], false,
        "never looked up outside"
    );
    let mut after = tree_state(tmp.path());
    // `sync` took the home lock (its guard file is in the home).
    after.retain(|(p, _)| p != "home/H/.plugins.guard");
    assert_eq!(after, before, "nothing changed anywhere");
}

#[test]
fn aworld_ids_that_cannot_be_directories_warn_and_never_install() {
    let tmp = tempfile::tempdir().unwrap();
    let abs = tmp.path().join("abs");
    let ids = [
        (
            "../../escaped",
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
      "root": "[TMP]/src-0",
      "manifest": "[TMP]/src-0/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "../../escaped",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:0c0a53805852ee32b4882f9422d786487c6f66e87c5140ba29ff11eb9b7390ce",
      "diagnostics": [
        {
          "code": "plugins::aworld::id_not_installable",
          "severity": "warning",
          "message": "plugin id \"../../escaped\" cannot be a directory name: it contains a path separator (`/` or `\\`)",
          "help": "`plugins install` refuses it; use letters, digits, `-`, `_` and `.` (not first)",
          "labels": [
            {
              "start": 6,
              "end": 21,
              "line": 1,
              "column": 7,
              "end_line": 1,
              "end_column": 22,
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
        ),
        (
            abs.to_str().unwrap(),
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
      "root": "[TMP]/src-1",
      "manifest": "[TMP]/src-1/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "[TMP]/abs",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:[..]",
      "diagnostics": [
        {
          "code": "plugins::aworld::id_not_installable",
          "severity": "warning",
          "message": "plugin id \"[TMP]/abs\" cannot be a directory name: it contains a path separator (`/` or `\\`)",
          "help": "`plugins install` refuses it; use letters, digits, `-`, `_` and `.` (not first)",
          "labels": [
            {
              "start": 6,
              "end": [..],
              "line": 1,
              "column": 7,
              "end_line": 1,
              "end_column": [..],
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
        ),
        (
            ".hidden",
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
      "root": "[TMP]/src-2",
      "manifest": "[TMP]/src-2/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": ".hidden",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:e4e58e8a42a512dc3d1feb0ccca8fec5563ffc42dea262fe4bb905eee9a082e2",
      "diagnostics": [
        {
          "code": "plugins::aworld::id_not_installable",
          "severity": "warning",
          "message": "plugin id \".hidden\" cannot be a directory name: it starts with a dot (hosts skip hidden directories)",
          "help": "`plugins install` refuses it; use letters, digits, `-`, `_` and `.` (not first)",
          "labels": [
            {
              "start": 6,
              "end": 15,
              "line": 1,
              "column": 7,
              "end_line": 1,
              "end_column": 16,
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
        ),
        (
            "",
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
      "root": "[TMP]/src-3",
      "manifest": "[TMP]/src-3/.aworld-plugin/plugin.json",
      "dialect": "aworld",
      "id": "",
      "version": "1.0.0",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:71e83fd4b8e2ad5c8816a5510fa9ffe25e01ece9529813422bf6a83f919084e6",
      "diagnostics": [
        {
          "code": "plugins::aworld::id_not_installable",
          "severity": "warning",
          "message": "plugin id \"\" cannot be a directory name: it is empty",
          "help": "`plugins install` refuses it; use letters, digits, `-`, `_` and `.` (not first)",
          "labels": [
            {
              "start": 6,
              "end": 8,
              "line": 1,
              "column": 7,
              "end_line": 1,
              "end_column": 9,
              "text": null
            }
          ],
          "fixes": []
        },
        {
          "code": "plugins::aworld::schema",
          "severity": "warning",
          "message": "`id` must not be empty per plugin.schema.json",
          "help": "the host never applies plugin.schema.json, so it accepts this; editors and other tools do not",
          "labels": [
            {
              "start": 6,
              "end": 8,
              "line": 1,
              "column": 7,
              "end_line": 1,
              "end_column": 9,
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
        ),
    ];
    for (i, (id, report)) in ids.into_iter().enumerate() {
        let src = tmp.path().join(format!("src-{i}"));
        std::fs::create_dir_all(src.join(".aworld-plugin")).unwrap();
        std::fs::write(
            src.join(".aworld-plugin/plugin.json"),
            serde_json::json!({"id": id, "version": "1.0.0"}).to_string(),
        )
        .unwrap();
        // The host accepts it, with a warning.
        let ran = Plugins::new()
            .args(["validate", "--format", "json", "--path"])
            .arg(&src)
            .tmp(tmp.path())
            .run();
        ran.expect(0, report, str![""]);
        let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
        let codes: Vec<_> = doc["plugins"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap().to_owned())
            .collect();
        assert!(
            codes.contains(&"plugins::aworld::id_not_installable".to_owned()),
            "{id:?}: {codes:?}"
        );
        let before = tree_state(tmp.path());
        let home = tmp.path().join(format!("home-{i}"));
        let (code, _, stderr) = install(&home, &[src.to_str().unwrap()]);
        assert_eq!(code, 2, "{id:?}: {stderr}");
        assert!(
            stderr.contains("plugins::install::unsafe_name"),
            "{id:?}: {stderr}"
        );
        let mut after = tree_state(tmp.path());
        after.retain(|(p, _)| !p.starts_with(&format!("home-{i}")));
        assert_eq!(after, before, "{id:?}: nothing outside the home");
        assert!(
            tree_state(&home)
                .iter()
                .all(|(p, _)| !p.contains("escaped")),
            "{id:?}"
        );
    }
}

#[test]
fn backslash_names_are_refused_before_anything_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.file("..\\..\\..\\..\\..\\..\\dev\\zero", "");
    repo.commit("hostile");
    let sources = [
        (
            repo.url(),
            str![[r#"
    Fetching file://[TMP]/repo
plugins::install::unsafe_tree

  × the commit's tree has an entry no host can install: "..\\..\\..\\..\\..\\..\\dev\\zero"

"#]],
        ),
        (
            repo.dir.display().to_string(),
            str![[r#"
    Fetching [TMP]/repo
plugins::install::unsafe_tree

  × refusing to install: "..\\..\\..\\..\\..\\..\\dev\\zero" has a `\` in its name, which hosts on Windows (and git there) refuse
  help: remove or rename the entry in the plugin's source

"#]],
        ),
    ];
    for (i, (source, stderr)) in sources.into_iter().enumerate() {
        let home = tmp.path().join(format!("home-{i}"));
        Plugins::new()
            .args(["install", &source, "--yes", "--home"])
            .arg(&home)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .deadline(Duration::from_secs(60))
            .run()
            .expect(2, str![""], stderr);
        assert!(!home.join("plugins.lock").exists());
    }
}

#[test]
fn special_files_in_a_local_source_are_refused_unopened() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(src.join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let home = tmp.path().join("home");
    Plugins::new()
        .args(["install", src.to_str().unwrap(), "--yes", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .deadline(Duration::from_secs(60))
        .run()
        .code(2)
        .stderr_eq(
            str![[r#"
    Fetching [TMP]/src
plugins::install::unsafe_tree

  × refusing to install: pipe is a FIFO; a plugin tree holds only files, directories and symlinks
  help: remove or rename the entry in the plugin's source

"#]]
            .raw(),
        );
    assert!(!home.join("plugins.lock").exists());

    // A source without a valid manifest is refused before any of it is copied
    // (the FIFO would otherwise be reached first).
    std::fs::write(src.join("aoe-plugin.toml"), "id = 1\n").unwrap();
    Plugins::new()
        .args(["install", src.to_str().unwrap(), "--yes", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .deadline(Duration::from_secs(60))
        .run()
        .expect(1, str![[r#"
plugins::aoe::missing_key

  × missing field `name`
   ╭─[[TMP]/src/aoe-plugin.toml:1:1]
 1 │ id = 1
   · ▲
   · ╰── `name` is required in the top level
   ╰────
plugins::aoe::missing_key

  × missing field `version`
   ╭─[[TMP]/src/aoe-plugin.toml:1:1]
 1 │ id = 1
   · ▲
   · ╰── `version` is required in the top level
   ╰────
plugins::aoe::missing_key

  × missing field `api_version`
   ╭─[[TMP]/src/aoe-plugin.toml:1:1]
 1 │ id = 1
   · ▲
   · ╰── `api_version` is required in the top level
   ╰────
plugins::aoe::invalid_type

  × invalid type: integer `1`, expected a string
   ╭─[[TMP]/src/aoe-plugin.toml:1:6]
 1 │ id = 1
   ·      ─
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin at [TMP]/src (4 errors)

"#]], str![[r#"
    Fetching [TMP]/src
plugins::install::invalid

  × refusing to install: the plugin is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
}

#[test]
fn local_git_sources_are_only_read() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    // Uncommitted work in the source: it must survive, and not be installed.
    repo.file("aoe-plugin.toml", &static_aoe("9.9.9"));
    let before = tree_state(&repo.dir);

    let (code, stdout, stderr) = install(&tmp.path().join("h0"), &[&repo.url()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        tree_state(&repo.dir),
        before,
        "index, work tree and refs unchanged"
    );
    let installed = std::fs::read_to_string(
        tmp.path()
            .join("h0/plugins/dev.example.pinned/aoe-plugin.toml"),
    )
    .unwrap();
    assert!(installed.contains("\"1.0.0\""), "the committed tree");

    // Twenty concurrent installs from the one repository all succeed.
    let url = repo.url();
    let handles: Vec<_> = (1..=20)
        .map(|i| {
            let home = tmp.path().join(format!("h{i}"));
            let url = url.clone();
            std::thread::spawn(move || install(&home, &[&url]))
        })
        .collect();
    for h in handles {
        let (code, stdout, stderr) = h.join().unwrap();
        assert_eq!(code, 0, "{stdout}{stderr}");
    }
    assert_eq!(tree_state(&repo.dir), before);
}

/// The binary, run as `nobody` when the tests run as root (permissions do not
/// bind root), owning `owned`; else as the current user. The binary is copied
/// into `dir` (which must be world-readable) so `nobody` can run it.
fn as_unprivileged(dir: &Path, owned: &[&Path]) -> Plugins {
    let bin = dir.join("plugins");
    crate::support::copy_binary(&bin);
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !is_root {
        return Plugins::under(&bin, [""; 0]);
    }
    let ok = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .args(owned)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    Plugins::under(
        "setpriv",
        [
            "--reuid=65534".as_ref(),
            "--regid=65534".as_ref(),
            "--clear-groups".as_ref(),
            bin.as_os_str(),
        ],
    )
}

#[test]
fn a_read_only_source_repository_can_be_installed_from() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let status = std::process::Command::new("chmod")
        .args(["-R", "a-w,a+rX"])
        .arg(&repo.dir)
        .status()
        .unwrap();
    assert!(status.success());
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // `nobody` owns the home and the (read-only) repository, as a user owns
    // a checkout on a read-only mount.
    let mut cmd = as_unprivileged(tmp.path(), &[&home, &repo.dir]);
    let before = tree_state(&repo.dir);
    cmd.args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .env("HOME", &home)
        .env("NO_COLOR", "1")
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 98dbc36b17da

"#]],
        );
    assert!(
        home.join("plugins/dev.example.pinned/aoe-plugin.toml")
            .is_file()
    );
    assert_eq!(tree_state(&repo.dir), before);
    std::process::Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(&repo.dir)
        .status()
        .unwrap();
}

#[test]
fn git_ignored_build_output_is_left_out_of_a_local_install() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.file(".gitignore", "target/\n*.log\n");
    repo.commit("v1");
    repo.file("target/debug/big", "build output");
    repo.file("run.log", "log");
    repo.file("notes.txt", "kept: not ignored, though uncommitted");
    let home = tmp.path().join("home");
    Plugins::new()
        .args(["install", repo.dir.to_str().unwrap(), "--yes"])
        .home(&home)
        .tmp(tmp.path())
        .run()
        .success()
        .stderr_eq(
            str![[r#"
    Fetching [TMP]/repo
      Copied 3 files, 154 bytes (left out 2 git-ignored entries)

"#]]
            .raw(),
        );
    let installed: Vec<String> = tree_state(&home.join("plugins/dev.example.pinned"))
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(installed, [".gitignore", "aoe-plugin.toml", "notes.txt"]);
}

#[test]
fn gh_sources_stay_below_the_clone_base() {
    let sources = [
        (
            "gh:../x",
            str![[r#"
plugins::usage::invalid_argument

  × "gh:../x" is not a GitHub repository: owners are letters, digits and `-`, repositories letters, digits, `-`, `_` and `.`

"#]],
        ),
        (
            "gh:acme/..",
            str![[r#"
plugins::usage::invalid_argument

  × "gh:acme/.." is not a GitHub repository: owners are letters, digits and `-`, repositories letters, digits, `-`, `_` and `.`

"#]],
        ),
        (
            "gh:a/b\\..\\..",
            str![[r#"
plugins::usage::invalid_argument

  × "gh:a/b\\..\\.." is not a GitHub repository: owners are letters, digits and `-`, repositories letters, digits, `-`, `_` and `.`

"#]],
        ),
        (
            "gh:-x/y",
            str![[r#"
plugins::usage::invalid_argument

  × "gh:-x/y" is not a GitHub repository: owners are letters, digits and `-`, repositories letters, digits, `-`, `_` and `.`

"#]],
        ),
    ];
    for (source, stderr) in sources {
        let tmp = tempfile::tempdir().unwrap();
        Plugins::new()
            .args(["install", source, "--yes", "--home"])
            .arg(tmp.path().join("home"))
            .env("PLUGINS_GH_BASE", tmp.path().join("base"))
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run()
            .expect(2, str![""], stderr);
    }
    Plugins::new()
        .args(["install", "gh:../x", "--home", "/nonexistent"])
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::usage::invalid_argument

  × "gh:../x" is not a GitHub repository: owners are letters, digits and `-`, repositories
  │ letters, digits, `-`, `_` and `.`

"#]]
            .raw(),
        );
}

#[test]
fn an_up_to_date_install_into_a_read_only_home_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    let (code, o, e) = install(&home, &[&repo.url()]);
    assert_eq!(code, 0, "{o}{e}");
    // `nobody` owns the read-only home.
    let mut cmd = as_unprivileged(tmp.path(), &[&home, &repo.dir]);
    let ok = std::process::Command::new("chmod")
        .args(["-R", "a-w"])
        .arg(&home)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let ran = cmd
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .env("HOME", tmp.path())
        .env("NO_COLOR", "1")
        .tmp(tmp.path())
        .run();
    std::process::Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(&home)
        .status()
        .unwrap();
    ran.expect(
        0,
        str![[r#"
  Up to date dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 98dbc36b17da

"#]],
    );
}
