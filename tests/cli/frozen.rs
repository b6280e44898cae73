//! The lock as a contract: `sync` installs the locked wheels (never resolving again), and
//! `sync --frozen` installs exactly the lock into a fleet of fresh homes — from a mirror
//! while the original server is down — or changes nothing.

use std::process::Command;

use crate::support::git::Repo;
use crate::support::net::KeepAliveServer;
use crate::support::pinned::{code_of, files, fresh, origin, plugins_in};
use crate::support::*;

/// How many homes the fleet test syncs (bench/fleet.sh does 20).
const FLEET: usize = 5;

/// What protoAgent's own loader and lock reader make of the home: the plugin loaded, its
/// deps present, the locked pins.
const LOAD_PY: &str = r#"
import types
config = types.SimpleNamespace(plugins_enabled=["deppy"], plugins_disabled=[], plugins_dir="", plugin_config={})
result = loader.load_plugins(config)
meta = [p for p in result.meta if p["id"] == "deppy"][0]
row = installer._lock_rows_by_id()["deppy"]
print(json.dumps({"loaded": meta["loaded"], "error": meta.get("error"), "deps_missing": meta["deps_missing"], "deps": [[d["name"], d["version"]] for d in row.get("deps", [])]}))
"#;

#[test]
fn plain_sync_installs_the_locked_wheels_and_never_resolves_again() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (index, _served, lock, daemon) = origin(&t, &py);
    let base = format!("git://127.0.0.1:{}", daemon.port);
    let row: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let row = &row["plugins"][0];
    assert_eq!(row["deps"][0]["version"], "1.0.0", "{lock}");
    // The profile the plugin was installed under, in keys protoAgent ignores.
    assert_eq!(row["host_version"], "0.218.1", "{lock}");
    // A newer demolib appears: a resolution would take it; the lock pins 1.0.0.
    wheel_with(&py, &index, "demolib", "1.1.0", "VERSION = '1.1.0'\n");
    let home = fresh(&t.join("second"), &lock);
    let (code, o, e) = plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &base)],
        &["sync", "--yes"],
    );
    assert_eq!(code, 0, "{o}{e}");
    assert!(
        home.join("plugin-deps/deppy/demolib-1.0.0.dist-info")
            .is_dir(),
        "{:?}",
        files(&home).keys().collect::<Vec<_>>()
    );
    let after = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(after.contains("\"version\": \"1.0.0\""), "{after}");
    assert!(!after.contains("1.1.0"), "{after}");
    // protoAgent's own loader runs it with its locked deps, and reads the lock as its own.
    let host = crate::support::protoagent::host(&py, &home, LOAD_PY);
    assert_eq!(host["loaded"], true, "{host}");
    assert_eq!(
        host["deps"],
        serde_json::json!([["demolib", "1.0.0"]]),
        "{host}"
    );

    // A pin pip cannot install as locked (its sha256 edited) fails plain sync too: it
    // never falls back to resolving.
    let edited = after.replace(row["deps"][0]["sha256"].as_str().unwrap(), &"0".repeat(64));
    let home = fresh(&t.join("third"), &edited);
    let (code, o, e) = plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &base)],
        &["sync", "--yes"],
    );
    assert_eq!(code, 2, "{o}{e}");
    assert_eq!(code_of(&e), "plugins::sync::locked_deps", "{e}");
    assert!(
        e.contains("deppy: the locked wheels demolib==1.0.0 cannot be installed as pinned"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        edited
    );
    assert!(!home.join("plugins/deppy").exists());
}

#[test]
fn a_fleet_syncs_frozen_from_a_mirror_while_the_origin_is_down_and_edited_locks_change_nothing() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (index, served, lock, daemon) = origin(&t, &py);
    let origin_files = files(&t.join("origin"));
    let dead = format!("git://127.0.0.1:{}", daemon.port);
    // The bundle is made while the origin is up: trees and wheels, as locked.
    let bundle = t.join("plugins-bundle.tar");
    let (code, o, e) = plugins_in(
        &t.join("origin"),
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &dead)],
        &[
            "bundle",
            "-o",
            bundle.to_str().unwrap(),
            "--python",
            py.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{o}{e}");
    assert!(o.starts_with("     Bundled 1 plugins ("), "{o}");
    // The same bundle as `--json`, against its schema.
    let again = t.join("plugins-bundle-2.tar");
    let (code, o, e) = plugins_in(
        &t.join("origin"),
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &dead)],
        &[
            "bundle",
            "-o",
            again.to_str().unwrap(),
            "--python",
            py.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(code, 0, "{o}{e}");
    let doc: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_matches_output_schema("bundle.json", &doc);
    assert_eq!(
        doc["bundle"]["plugins"].as_array().map(Vec::len),
        Some(1),
        "{doc:#}"
    );
    // The mirror: a copy of the served repositories on another server; the origin goes down.
    let mirror_dir = t.join("mirror");
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(&served)
            .arg(&mirror_dir)
            .status()
            .unwrap()
            .success()
    );
    let mirror = KeepAliveServer::start(&mirror_dir);
    drop(daemon);
    wheel_with(&py, &index, "demolib", "1.1.0", "VERSION = '1.1.0'\n");

    // With the origin down and no mirror, nothing can be fetched: nothing changes.
    let home = fresh(&t.join("down"), &lock);
    let (code, o, e) = plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &dead)],
        &["sync", "--frozen", "--yes"],
    );
    assert_eq!(code, 2, "{o}{e}");
    assert_eq!(code_of(&e), "plugins::sync::missing_commit", "{e}");
    assert!(
        e.contains("PLUGINS_GH_BASE"),
        "the way out names the mirror: {e}"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        lock
    );
    assert!(files(&home).is_empty());

    // The fleet: every home from the lock alone, through the mirror.
    let env = [("PLUGINS_GH_BASE", mirror.base.as_str())];
    for n in 0..FLEET {
        let home = fresh(&t.join(format!("fleet/{n}")), &lock);
        let (code, o, e) = plugins_in(&home, &index, &py, &env, &["sync", "--frozen", "--yes"]);
        assert_eq!(code, 0, "home {n}: {o}{e}");
        assert_eq!(o, "      Synced deppy 1.0.0\n");
        // The lock byte for byte, the files as the origin has them.
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            lock,
            "home {n}"
        );
        assert!(
            files(&home) == origin_files,
            "home {n} differs from the origin"
        );
        let (code, o, e) = plugins_in(&home, &index, &py, &env, &["verify"]);
        assert_eq!(code, 0, "home {n}: {o}{e}");
    }
    // The same through git's own `url.<mirror>.insteadOf` (the docs' other online route): the
    // lock names the dead origin, git's config sends the fetch to the mirror.
    let gitconfig = t.join("gitconfig");
    std::fs::write(
        &gitconfig,
        format!("[url \"{}/\"]\n\tinsteadOf = {dead}/\n", mirror.base),
    )
    .unwrap();
    let home = fresh(&t.join("insteadof"), &lock);
    let config = gitconfig.display().to_string();
    let via_git = [
        ("PLUGINS_GH_BASE", dead.as_str()),
        ("PLUGINS_GIT_FETCH_WITH_CLI", "1"),
        ("GIT_CONFIG_GLOBAL", config.as_str()),
    ];
    let (code, o, e) = plugins_in(&home, &index, &py, &via_git, &["sync", "--frozen", "--yes"]);
    assert_eq!(code, 0, "insteadOf: {o}{e}");
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        lock,
        "insteadOf"
    );
    assert!(files(&home) == origin_files, "insteadOf: the files differ");

    // (b) From the bundle, with no network at all: no git server, no pip index.
    let offline = [
        ("PLUGINS_GH_BASE", dead.as_str()),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("HTTP_PROXY", "http://127.0.0.1:9"),
        ("ALL_PROXY", "http://127.0.0.1:9"),
        ("PIP_FIND_LINKS", "/nonexistent"),
    ];
    let from = [
        "sync",
        "--frozen",
        "--yes",
        "--from",
        bundle.to_str().unwrap(),
    ];
    for n in 0..FLEET {
        let home = fresh(&t.join(format!("offline/{n}")), &lock);
        let (code, o, e) = plugins_in(&home, &index, &py, &offline, &from);
        assert_eq!(code, 0, "home {n}: {o}{e}");
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            lock,
            "home {n}"
        );
        assert!(
            files(&home) == origin_files,
            "home {n} differs from the origin"
        );
        let (code, o, e) = plugins_in(&home, &index, &py, &offline, &["verify"]);
        assert_eq!(code, 0, "home {n}: {o}{e}");
    }
    // A hostile archive (a path out, a link, a file the manifest does not hash) changes nothing.
    let variants = [
        (
            "escape",
            "t.addfile(tarfile.TarInfo('../evil'), io.BytesIO(b''))",
        ),
        (
            "link",
            "i = tarfile.TarInfo('trees/deppy/link'); i.type = tarfile.SYMTYPE; i.linkname = '/etc/passwd'; t.addfile(i)",
        ),
        (
            "edited",
            "data = b'import os'; i = tarfile.TarInfo('trees/deppy/__init__.py'); i.size = len(data); t.addfile(i, io.BytesIO(data))",
        ),
    ];
    for (what, add) in variants {
        let hostile = t.join(format!("{what}.tar"));
        let script = format!(
            "import io, sys, tarfile\nsrc = tarfile.open(sys.argv[1])\nt = tarfile.open(sys.argv[2], 'w')\nfor m in src.getmembers():\n    if '{what}' == 'edited' and m.name == 'trees/deppy/__init__.py':\n        continue\n    t.addfile(m, src.extractfile(m))\n{add}\nt.close()\n"
        );
        let out = Command::new(&py)
            .args(["-c", &script])
            .arg(&bundle)
            .arg(&hostile)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let home = fresh(&t.join(format!("hostile/{what}/home")), &lock);
        let from = [
            "sync",
            "--frozen",
            "--yes",
            "--from",
            hostile.to_str().unwrap(),
        ];
        let (code, o, e) = plugins_in(&home, &index, &py, &offline, &from);
        assert_eq!(code, 2, "{what}: {o}{e}");
        assert_eq!(code_of(&e), "plugins::sync::bundle", "{what}: {e}");
        assert!(files(&home).is_empty(), "{what}");
        assert!(
            !t.join("hostile/evil").exists() && !t.join("hostile").join(what).join("evil").exists()
        );
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            lock
        );
    }
    // The host itself loads what a fleet home holds.
    let host = crate::support::protoagent::host(&py, &t.join("fleet/0"), LOAD_PY);
    assert_eq!(host["loaded"], true, "{host}");
    assert_eq!(
        host["deps"],
        serde_json::json!([["demolib", "1.0.0"]]),
        "{host}"
    );

    // Each edit that would change the lock fails with its code; nothing in the home changes.
    let value: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = value.clone();
        f(&mut v["plugins"][0]);
        serde_json::to_string_pretty(&v).unwrap()
    };
    let cases: [(&str, String, &[&str]); 4] = [
        (
            "plugins::sync::locked_deps",
            edit(&|row| row["deps"][0]["version"] = "1.1.0".into()),
            &[],
        ),
        (
            "plugins::sync::tree_mismatch",
            edit(&|row| row["tree_hash"] = format!("sha256:{}", "1".repeat(64)).into()),
            &[],
        ),
        (
            "plugins::sync::missing_commit",
            edit(&|row| row["resolved_sha"] = "2".repeat(40).into()),
            &[],
        ),
        (
            "plugins::sync::profile_mismatch",
            lock.clone(),
            &["--host-version", "0.145.0"],
        ),
    ];
    for (want, edited, extra) in cases {
        assert!(
            edited != lock || !extra.is_empty(),
            "{want}: the edit applies"
        );
        let home = fresh(&t.join(format!("edited/{want}")), &edited);
        let mut args = vec!["sync", "--frozen", "--yes"];
        args.extend(extra);
        let (code, o, e) = plugins_in(&home, &index, &py, &env, &args);
        assert_eq!(code, 2, "{want}: {o}{e}");
        assert_eq!(code_of(&e), want, "{e}");
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            edited,
            "{want}"
        );
        assert!(
            files(&home).is_empty(),
            "{want}: {:?}",
            files(&home).keys().collect::<Vec<_>>()
        );
        let left: Vec<_> = std::fs::read_dir(&home)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(
            // The lock, and the home's own state: its lock guard, recovery and pip's log.
            left.iter()
                .all(|n| ["plugins.lock", ".plugins", ".plugins.guard", "logs"]
                    .contains(&n.to_str().unwrap())),
            "{want}: {left:?}"
        );
    }
}

/// A tree with a symbolic link (AWorld allows links inside the plugin) cannot be bundled: a
/// bundle carries regular files only, and `bundle` says so instead of writing an archive that
/// every fleet home would refuse as a tree mismatch.
#[test]
fn a_tree_with_a_symlink_is_refused_by_bundle_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("helper"));
    repo.file("README.md", "docs\n");
    std::os::unix::fs::symlink("README.md", repo.dir.join("LINK.md")).unwrap();
    commit_version(&repo, "aworld", "1.0.0");
    let home = tmp.path().join("home");
    let url = format!("file://{}", repo.dir.display());
    let (code, o, e) = Plugins::new()
        .args(["install", &url, "--yes", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0, "{o}{e}");
    let out = tmp.path().join("bundle.tar");
    let (code, o, e) = Plugins::new()
        .args(["bundle", "-o"])
        .arg(&out)
        .arg("--home")
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 2, "{o}{e}");
    assert!(
        e.contains("plugins::sync::bundle") && e.contains("LINK.md is a symbolic link"),
        "{e}"
    );
    assert!(!out.exists());
}
