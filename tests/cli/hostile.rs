//! Hostile names, trees and sources: nothing outside the home is read, written
//! or deleted because of them, and sources are only ever read.

use std::path::Path;
use std::time::Duration;

use snapbox::{IntoData, assert_data_eq, str};

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
        "../../somewhere",
        outside.to_str().unwrap(),
        "",
        ".",
        "..",
        ".hidden",
        "x/..",
        "x\\..",
        "a\nb",
    ];
    for id in ids {
        let (code, stdout, stderr) = Plugins::new()
            .args(["remove", id, "--home"])
            .arg(&home)
            .env("NO_COLOR", "1")
            .run()
            .parts();
        assert_eq!(code, 2, "{id:?}: {stdout}{stderr}");
        assert!(
            stderr.starts_with("plugins::install::unsafe_name"),
            "{id:?}: {stderr}"
        );
    }
    assert_eq!(tree_state(tmp.path()), before, "nothing was deleted");
    let (_, _, stderr) = Plugins::new()
        .args(["remove", "../../somewhere", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_data_eq!(
        stderr,
        str![[r#"
plugins::install::unsafe_name

  × plugin id "../../somewhere" cannot name a plugin directory: it contains a path separator (`/`
  │ or `\`)
  help: `plugins list` shows the ids of installed plugins

"#]]
        .raw()
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

    let (code, stdout, stderr) = Plugins::new()
        .args(["verify", "--json", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 1, "{stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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
    for args in [&["info", "../../outside"][..], &["remove", "../../outside"]] {
        let (code, _, stderr) = Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .run()
            .parts();
        assert_eq!(code, 2, "{args:?}");
        assert!(
            stderr.starts_with("plugins::install::unsafe_name"),
            "{stderr}"
        );
    }
    let (code, stdout, _) = Plugins::new()
        .args(["list", "--json", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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
    for (i, id) in ["../../escaped", abs.to_str().unwrap(), ".hidden", ""]
        .iter()
        .enumerate()
    {
        let src = tmp.path().join(format!("src-{i}"));
        std::fs::create_dir_all(src.join(".aworld-plugin")).unwrap();
        std::fs::write(
            src.join(".aworld-plugin/plugin.json"),
            serde_json::json!({"id": id, "version": "1.0.0"}).to_string(),
        )
        .unwrap();
        let (code, stdout, _) = Plugins::new()
            .args(["validate", "--format", "json", "--path"])
            .arg(&src)
            .run()
            .parts();
        assert_eq!(code, 0, "the host accepts it: {stdout}");
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
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
    for (i, source) in [repo.url(), repo.dir.display().to_string()]
        .iter()
        .enumerate()
    {
        let home = tmp.path().join(format!("home-{i}"));
        let (code, stdout, stderr) = Plugins::new()
            .args(["install", source, "--yes", "--home"])
            .arg(&home)
            .deadline(Duration::from_secs(60))
            .run()
            .parts();
        assert_eq!(code, 2, "{source}: {stdout}{stderr}");
        assert!(
            stderr.contains("plugins::install::unsafe_tree"),
            "{source}: {stderr}"
        );
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
    let (code, _, stderr) = Plugins::new()
        .args(["install", src.to_str().unwrap(), "--yes", "--home"])
        .arg(&home)
        .deadline(Duration::from_secs(60))
        .run()
        .parts();
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("plugins::install::invalid"), "{stderr}");
    assert!(!stderr.contains("unsafe_tree"), "{stderr}");
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
    let (code, stdout, stderr) = cmd
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .env("HOME", &home)
        .env("NO_COLOR", "1")
        .run()
        .parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
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
      Copied (left out 2 git-ignored entries)

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
    for source in ["gh:../x", "gh:acme/..", "gh:a/b\\..\\..", "gh:-x/y"] {
        let tmp = tempfile::tempdir().unwrap();
        let (code, _, stderr) = Plugins::new()
            .args(["install", source, "--yes", "--home"])
            .arg(tmp.path().join("home"))
            .env("PLUGINS_GH_BASE", tmp.path().join("base"))
            .run()
            .parts();
        assert_eq!(code, 2, "{source}: {stderr}");
        assert!(stderr.contains("is not a GitHub repository"), "{stderr}");
    }
    let (_, _, stderr) = Plugins::new()
        .args(["install", "gh:../x", "--home", "/nonexistent"])
        .run()
        .parts();
    assert_data_eq!(
        stderr,
        str![[r#"
plugins::usage::invalid_argument

  × "gh:../x" is not a GitHub repository: owners are letters, digits and `-`, repositories
  │ letters, digits, `-`, `_` and `.`

"#]]
        .raw()
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
    let (code, stdout, stderr) = cmd
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .env("HOME", tmp.path())
        .env("NO_COLOR", "1")
        .run()
        .parts();
    std::process::Command::new("chmod")
        .args(["-R", "u+w"])
        .arg(&home)
        .status()
        .unwrap();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Up to date dev.example.pinned"), "{stdout}");
}
