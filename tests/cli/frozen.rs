//! The lock as a contract: `sync` installs the locked wheels (never resolving again), and
//! `sync --frozen` installs exactly the lock into a fleet of fresh homes — from a mirror
//! while the original server is down — or changes nothing.

use std::process::Command;

use snapbox::str;

use crate::support::git::Repo;
use crate::support::net::KeepAliveServer;
use crate::support::pinned::{files, fresh, origin, plugins_in};
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
    plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &base)],
        &["sync", "--yes"],
    )
    .redact("[BASE]", &base)
    .expect(0, str![[r#"
      Synced deppy 1.0.0

"#]], str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
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
    plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &base)],
        &["sync", "--yes"],
    )
    .redact("[BASE]", &base)
    .redact("[WHEEL_SHA]", row["deps"][0]["sha256"].as_str().unwrap())
    .expect(2, str![], str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt
plugins::sync::locked_deps

  × deppy: the locked wheels demolib==1.0.0 cannot be installed as pinned (name, version and sha256); nothing was changed
  help: sync installs only what the lock pins and never resolves again; make the pinned files reachable (a pip index or find-links mirror: PIP_INDEX_URL, PIP_FIND_LINKS), or `plugins update deppy`
        to resolve and pin anew
        pip said:
        Looking in links: [INDEX]
        Processing [INDEX]/demolib-1.0.0-py3-none-any.whl (from -r deps-requirements.txt (line 1))
        ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes. Otherwise, examine the package contents
        carefully; someone may have tampered with them.
            demolib==1.0.0 from file://[INDEX]/demolib-1.0.0-py3-none-any.whl (from -r deps-requirements.txt (line 1)):
                Expected sha256 0000000000000000000000000000000000000000000000000000000000000000
                     Got        [WHEEL_SHA]


"#]]);
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
    plugins_in(
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
    )
    .redact("[TMP]", &t)
    .redact("[DEAD]", &dead)
    .expect(0, str![[r#"
     Bundled 1 plugin (7680 bytes) into [TMP]/plugins-bundle.tar

"#]], str![[r#"
    Fetching [DEAD]/acme/deppy.git
warning[plugins::git::cleartext]: [DEAD]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
    Building step 1/1: [PYTHON] -m pip download --disable-pip-version-check --no-input --no-deps --require-hashes --only-binary :all: -d . -r requirements.txt

"#]]);
    // The same bundle as `--json`, against its schema.
    let again = t.join("plugins-bundle-2.tar");
    let ran = plugins_in(
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
    // parts: the JSON is judged against its schema and by its plugin count
    let (code, o, e) = ran.parts();
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
    // The way out names the mirror (PLUGINS_GH_BASE).
    let home = fresh(&t.join("down"), &lock);
    plugins_in(
        &home,
        &index,
        &py,
        &[("PLUGINS_GH_BASE", &dead)],
        &["sync", "--frozen", "--yes"],
    )
    .redact("[DEAD]", &dead)
    .expect(2, str![], str![[r#"
    Fetching [DEAD]/acme/deppy.git
warning[plugins::git::cleartext]: [DEAD]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::sync::missing_commit

  × deppy: the locked commit 4dbdf475cecae02b2b5e1d8d6f73552a23d44500 cannot be fetched: cannot reach [DEAD]/acme/deppy.git: failed to connect to 127.0.0.1: Connection refused;
  │ nothing was changed
  help: --frozen installs only what the lock pins; with the server down, fetch from a mirror (git's url.<mirror>.insteadOf, PLUGINS_GH_BASE for gh: sources) or install from a bundle (`plugins sync
        --frozen --from FILE`)

"#]]);
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        lock
    );
    assert!(files(&home).is_empty());

    // The fleet: every home from the lock alone, through the mirror.
    let env = [("PLUGINS_GH_BASE", mirror.base.as_str())];
    for n in 0..FLEET {
        let home = fresh(&t.join(format!("fleet/{n}")), &lock);
        plugins_in(&home, &index, &py, &env, &["sync", "--frozen", "--yes"])
            .redact("[MIRROR]", &mirror.base)
            .expect(0, str![[r#"
      Synced deppy 1.0.0

"#]], str![[r#"
    Fetching [MIRROR]/acme/deppy.git
warning[plugins::git::cleartext]: [MIRROR]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
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
        plugins_in(&home, &index, &py, &env, &["verify"]).expect(
            0,
            str![[r#"
          ok deppy
1 verified, 0 changed

"#]],
            str![],
        );
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
    plugins_in(&home, &index, &py, &via_git, &["sync", "--frozen", "--yes"])
        .redact("[DEAD]", &dead)
        .redact("[MIRROR]", &mirror.base)
        .expect(0, str![[r#"
      Synced deppy 1.0.0

"#]], str![[r#"
    Fetching [DEAD]/acme/deppy.git
warning[plugins::git::cleartext]: [DEAD]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
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
        plugins_in(&home, &index, &py, &offline, &from)
            .redact("[TMP]", &t)
            .expect(0, str![[r#"
      Synced deppy 1.0.0

"#]], str![[r#"
    Fetching gh:acme/deppy from the bundle
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt --no-index --find-links [HOME]/.plugins/staging/[..]/wheels/deppy

"#]]);
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            lock,
            "home {n}"
        );
        assert!(
            files(&home) == origin_files,
            "home {n} differs from the origin"
        );
        plugins_in(&home, &index, &py, &offline, &["verify"]).expect(
            0,
            str![[r#"
          ok deppy
1 verified, 0 changed

"#]],
            str![],
        );
    }
    // A hostile archive (a path out, a link, a file the manifest does not hash) changes nothing.
    let variants = [
        (
            "escape",
            "t.addfile(tarfile.TarInfo('../evil'), io.BytesIO(b''))",
            str![[r#"
plugins::sync::bundle

  × [TMP]/escape.tar is not a bundle plugins can install: "../evil" is not a path a bundle holds; nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
        (
            "link",
            "i = tarfile.TarInfo('trees/deppy/link'); i.type = tarfile.SYMTYPE; i.linkname = '/etc/passwd'; t.addfile(i)",
            str![[r#"
plugins::sync::bundle

  × [TMP]/link.tar is not a bundle plugins can install: "trees/deppy/link" is not a regular file (a link, device or other); nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
        (
            "edited",
            "data = b'import os'; i = tarfile.TarInfo('trees/deppy/__init__.py'); i.size = len(data); t.addfile(i, io.BytesIO(data))",
            str![[r#"
plugins::sync::bundle

  × [TMP]/edited.tar is not a bundle plugins can install: "trees/deppy/__init__.py" does not hash as its manifest says; nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
    ];
    for (what, add, stderr) in variants {
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
        plugins_in(&home, &index, &py, &offline, &from)
            .redact("[TMP]", &t)
            .expect(2, str![], stderr);
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
    let locked_sha = value["plugins"][0]["deps"][0]["sha256"].as_str().unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = value.clone();
        f(&mut v["plugins"][0]);
        serde_json::to_string_pretty(&v).unwrap()
    };
    let cases: [(&str, String, &[&str], snapbox::data::Inline); 4] = [
        (
            "plugins::sync::locked_deps",
            edit(&|row| row["deps"][0]["version"] = "1.1.0".into()),
            &[],
            str![[r#"
    Fetching [MIRROR]/acme/deppy.git
warning[plugins::git::cleartext]: [MIRROR]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.1.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt
plugins::sync::locked_deps

  × deppy: the locked wheels demolib==1.1.0 cannot be installed as pinned (name, version and sha256); nothing was changed
  help: sync installs only what the lock pins and never resolves again; make the pinned files reachable (a pip index or find-links mirror: PIP_INDEX_URL, PIP_FIND_LINKS), or `plugins update deppy`
        to resolve and pin anew
        pip said:
        Looking in links: [INDEX]
        Processing [INDEX]/demolib-1.1.0-py3-none-any.whl (from -r deps-requirements.txt (line 1))
        ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes. Otherwise, examine the package contents
        carefully; someone may have tampered with them.
            demolib==1.1.0 from file://[INDEX]/demolib-1.1.0-py3-none-any.whl (from -r deps-requirements.txt (line 1)):
                Expected sha256 [WHEEL_SHA]
                     Got        [..]


"#]],
        ),
        (
            "plugins::sync::tree_mismatch",
            edit(&|row| row["tree_hash"] = format!("sha256:{}", "1".repeat(64)).into()),
            &[],
            str![[r#"
    Fetching [MIRROR]/acme/deppy.git
warning[plugins::git::cleartext]: [MIRROR]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
plugins::sync::tree_mismatch

  × deppy at 4dbdf475cecae02b2b5e1d8d6f73552a23d44500 hashes to sha256:154986c6709c9674032fec65ac34e94e2ff900e300579fa1da8af013478728a2 but the lock pins
  │ sha256:1111111111111111111111111111111111111111111111111111111111111111; nothing was changed
  help: the source (or the mirror or bundle it came from) serves other files under the locked commit, or the lock was edited; inspect it before trusting it, or `plugins sync` without --frozen to pin
        what is served

"#]],
        ),
        (
            "plugins::sync::missing_commit",
            edit(&|row| row["resolved_sha"] = "2".repeat(40).into()),
            &[],
            str![[r#"
    Fetching [MIRROR]/acme/deppy.git
warning[plugins::git::cleartext]: [MIRROR]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::sync::missing_commit

  × deppy: the locked commit 2222222222222222222222222222222222222222 cannot be fetched: ref `2222222222222222222222222222222222222222` not found on [MIRROR]/acme/deppy.git; nothing
  │ was changed
  help: --frozen installs only what the lock pins; with the server down, fetch from a mirror (git's url.<mirror>.insteadOf, PLUGINS_GH_BASE for gh: sources) or install from a bundle (`plugins sync
        --frozen --from FILE`)

"#]],
        ),
        (
            "plugins::sync::profile_mismatch",
            lock.clone(),
            &["--host-version", "0.145.0"],
            str![[r#"
plugins::sync::profile_mismatch

  × deppy: the lock was made under another host profile: --host-version 0.145.0 (the lock: 0.218.1); nothing was changed
  help: run it with the lock's profile (--host-version 0.218.1) or without the flags; to move to another host, `plugins update` under the new profile

"#]],
        ),
    ];
    for (want, edited, extra, stderr) in cases {
        assert!(
            edited != lock || !extra.is_empty(),
            "{want}: the edit applies"
        );
        let home = fresh(&t.join(format!("edited/{want}")), &edited);
        let mut args = vec!["sync", "--frozen", "--yes"];
        args.extend(extra);
        let mut ran = plugins_in(&home, &index, &py, &env, &args);
        ran.redact("[MIRROR]", &mirror.base)
            .redact("[WHEEL_SHA]", locked_sha);
        assert!(ran.stderr.contains(want), "{want}: {}", ran.stderr);
        ran.expect(2, str![], stderr);
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
    Plugins::new()
        .args(["install", &url, "--yes", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed helper 1.0.0 @ e38e23262b in [TMP]/home/plugins/helper

"#]],
            str![[r#"
    Fetching file://[TMP]/helper
     Fetched e38e23262b61

"#]],
        );
    let out = tmp.path().join("bundle.tar");
    Plugins::new()
        .args(["bundle", "-o"])
        .arg(&out)
        .arg("--home")
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/helper
     Fetched e38e23262b61
plugins::sync::bundle

  × trees/helper/LINK.md is a symbolic link, which a bundle cannot carry; nothing was written
  help: sync such a plugin online (`plugins sync --frozen` through a mirror)

"#]],
        );
    assert!(!out.exists());
}
