//! What no tree hash covers is still `plugins`' to answer for: aoe's tree hash skips the
//! build output (`.aoe-build`, where the worker aoe runs lives) and every tree hash skips
//! `.git` (whose config git obeys: `core.fsmonitor` runs a program on `git status`). `verify`
//! reports a replaced build output and an added `.git`, `sync --repair` puts the plugin back,
//! and a bundle never carries a `.git`.

use std::path::Path;

use crate::support::git::Repo;
use crate::support::*;

fn verify(home: &Path) -> Ran {
    let mut ran = Plugins::new()
        .args(["verify", "--home"])
        .arg(home)
        .env("COLUMNS", "200")
        .run();
    ran.redact("[HOME]", home);
    ran
}

#[test]
fn verify_reports_a_replaced_build_output_and_an_added_git_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    repo.tag("v1");
    let home = t.join("home");
    Plugins::new()
        .args(["install", &repo.url(), "--ref", "v1", "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(lock.contains("build_output_hash = \"sha256:"), "{lock}");
    verify(&home).success();

    let plugin = home.join("plugins/dev.example.built");
    let worker = plugin.join(".aoe-build/bin/worker");
    std::fs::write(&worker, "#!/bin/sh\necho owned\n").unwrap();
    let ran = verify(&home);
    ran.code(1);
    assert!(
        ran.stdout
            .contains("its build output (.aoe-build) changed since it was built")
            || ran
                .stderr
                .contains("its build output (.aoe-build) changed since it was built"),
        "the hashes differ run to run: {}{}",
        ran.stdout,
        ran.stderr
    );
    Plugins::new()
        .args(["sync", "--repair", "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    assert!(
        !std::fs::read_to_string(&worker).unwrap().contains("owned"),
        "the worker is built again"
    );
    verify(&home).success();

    // A `.git` with a config git obeys, at the root and nested.
    let cases = [
        (
            ".git",
            snapbox::str![[r#"
    tampered dev.example.built: .git is a git directory that no hash covers and plugins never installs (git obeys its config: core.fsmonitor, hooks)
1 verified, 1 changed

"#]],
        ),
        // `.GIT` is `.git` on a case-insensitive file system; the tree hash covers it.
        (
            "src/.GIT",
            snapbox::str![[r#"
    tampered dev.example.built: the files changed since install (tree [TREE], locked [LOCKED])
    tampered dev.example.built: src/.GIT is a git directory that no hash covers and plugins never installs (git obeys its config: core.fsmonitor, hooks)
       added src/.GIT/config
1 verified, 1 changed

"#]],
        ),
    ];
    for (at, expected) in cases {
        let git = plugin.join(at);
        std::fs::create_dir_all(&git).unwrap();
        std::fs::write(
            git.join("config"),
            "[core]\n\tfsmonitor = touch /tmp/owned\n",
        )
        .unwrap();
        let mut ran = verify(&home);
        let words: Vec<String> = ran.stdout.split_whitespace().map(str::to_owned).collect();
        let after = |w: &str| {
            let i = words.iter().position(|x| x == w);
            i.and_then(|i| words.get(i + 1))
                .cloned()
                .unwrap_or_default()
        };
        ran.redact("[TREE]", after("(tree").trim_end_matches(','))
            .redact("[LOCKED]", after("locked").trim_end_matches(')'));
        ran.code(1).stdout_eq(expected);
        Plugins::new()
            .args(["sync", "--repair", "--yes", "--home"])
            .arg(&home)
            .run()
            .success();
        assert!(!git.exists(), "{at}: repaired away");
        verify(&home).success();
    }
}

/// A bundle member inside a `.git` (any case, at any depth) is refused before anything
/// is unpacked for it.
#[test]
fn a_bundle_with_a_git_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("helper"));
    commit_version(&repo, "aworld", "1.0.0");
    let home = t.join("home");
    let url = format!("file://{}", repo.dir.display());
    Plugins::new()
        .args(["install", &url, "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    let good = t.join("good.tar");
    Plugins::new()
        .args(["bundle", "-o"])
        .arg(&good)
        .arg("--home")
        .arg(&home)
        .run()
        .success();
    for member in ["trees/helper/.git/config", "trees/helper/sub/.Git/config"] {
        let hostile = t.join("hostile.tar");
        let script = "import io, sys, tarfile\nsrc = tarfile.open(sys.argv[1])\nt = tarfile.open(sys.argv[2], 'w')\nfor m in src.getmembers():\n    t.addfile(m, src.extractfile(m))\ndata = b'[core]\\n\\tfsmonitor = touch /tmp/owned\\n'\ni = tarfile.TarInfo(sys.argv[3]); i.size = len(data); t.addfile(i, io.BytesIO(data))\nt.close()\n";
        python_script(
            Path::new("python3"),
            script,
            &[
                good.as_os_str(),
                hostile.as_os_str(),
                std::ffi::OsStr::new(member),
            ],
            &t,
        );
        let fresh = t.join(format!("fresh-{}", member.len()));
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
        let mut ran = Plugins::new()
            .args(["sync", "--frozen", "--yes", "--from"])
            .arg(&hostile)
            .arg("--home")
            .arg(&fresh)
            .env("COLUMNS", "200")
            .run();
        ran.redact("[T]", &t).redact("[MEMBER]", member);
        ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::sync::bundle

  × [T]/hostile.tar is not a bundle plugins can install: "[MEMBER]" is not a path a bundle holds; nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]]);
        assert!(!fresh.join("plugins").exists());
    }
}
