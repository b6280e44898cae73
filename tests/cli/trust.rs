//! Supply-chain trust (issue #27): impostor commits, build-step environments, pip
//! requirements that name local paths, secrets in output, and cooldowns.

use std::path::{Path, PathBuf};

use crate::install::{install, locked, static_aoe};
use crate::support::git::{Repo, git};
use crate::support::net::Daemon;
use crate::support::*;

/// A repository served by `git daemon` on loopback as `kit.git`, with
/// `uploadpack.allowAnySHA1InWant` (as GitHub serves any fork's commit through the
/// parent's URL): main is c1 → c2; tag `v2.2` is c2 → r1 → r2 on no branch; and
/// `impostor` (version 6.6.6, a child of c1) is on no branch or tag at all.
struct Served {
    _daemon: Daemon,
    url: String,
    bare: PathBuf,
    c1: String,
    c2: String,
    r1: String,
    impostor: String,
}

fn served(tmp: &Path) -> Served {
    let repo = Repo::init(&tmp.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    let c2 = repo.commit("v2");
    git(&repo.dir, &["checkout", "-q", "--detach", &c2]);
    repo.file("aoe-plugin.toml", &static_aoe("2.1.0"));
    let r1 = repo.commit("r1");
    repo.file("aoe-plugin.toml", &static_aoe("2.2.0"));
    repo.commit("r2");
    repo.tag("v2.2");
    git(&repo.dir, &["checkout", "-q", "-b", "fork", &c1]);
    repo.file("aoe-plugin.toml", &static_aoe("6.6.6"));
    let impostor = repo.commit("not the publisher's");
    git(&repo.dir, &["checkout", "-q", "main"]);
    let base = tmp.join("served");
    let bare = base.join("kit.git");
    repo.clone_bare(&bare);
    // The fork's branch goes; its commit stays in the served objects.
    git(&bare, &["branch", "-D", "fork"]);
    git(&bare, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let daemon = Daemon::serve(&base);
    let url = format!("git://127.0.0.1:{}/kit.git", daemon.port);
    Served {
        _daemon: daemon,
        url,
        bare,
        c1,
        c2,
        r1,
        impostor,
    }
}

/// Both fetch modes: libgit2, and the git command (as ssh sources use).
const MODES: [&str; 2] = ["0", "1"];

fn install_in(mode: &str, home: &Path, args: &[&str]) -> (i32, String, String) {
    run(plugins()
        .arg("install")
        .args(args)
        .arg("--home")
        .arg(home)
        .arg("--yes")
        .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
        .env("COLUMNS", "400"))
}

#[test]
fn an_impostor_commit_is_refused_by_install_in_both_fetch_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = served(&tmp.path().join("s"));
    for mode in MODES {
        let home = tmp.path().join(format!("home-{mode}"));
        let (code, stdout, stderr) = install_in(mode, &home, &[&s.url, "--ref", &s.impostor]);
        assert_eq!(code, 2, "mode {mode}: {stdout}{stderr}");
        assert!(
            stderr.contains("plugins::git::impostor_commit")
                && stderr.contains(&format!("commit {} is on no branch or tag", s.impostor)),
            "mode {mode}: {stderr}"
        );
        assert!(
            !home.join("plugins/dev.example.pinned").exists()
                && locked_or_empty(&home, "resolved_commit").is_empty(),
            "mode {mode}: nothing installed or locked"
        );
        // A ref that is no branch or tag (a pull request's head) is no way around it.
        git(
            &s.bare,
            &["update-ref", "refs/pull/1/head", s.impostor.as_str()],
        );
        let (code, _, stderr) = install_in(mode, &home, &[&s.url, "--ref", "refs/pull/1/head"]);
        assert_eq!(code, 2, "mode {mode}: {stderr}");
        assert!(
            stderr.contains("plugins::git::impostor_commit"),
            "mode {mode}: {stderr}"
        );
        git(&s.bare, &["update-ref", "-d", "refs/pull/1/head"]);

        // Published commits install: a branch tip, one below it (found by fetching the
        // branches a bounded depth), and one only a tag holds (found by the full fetch).
        for (commit, version) in [(&s.c2, "2.0.0"), (&s.c1, "1.0.0"), (&s.r1, "2.1.0")] {
            let home = tmp.path().join(format!("ok-{mode}-{version}"));
            let (code, stdout, stderr) = install_in(mode, &home, &[&s.url, "--ref", commit]);
            assert_eq!(code, 0, "mode {mode} {version}: {stdout}{stderr}");
            assert_eq!(
                locked(&home, "dev.example.pinned", "resolved_commit"),
                **commit
            );
            let manifest =
                std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
                    .unwrap();
            assert!(manifest.contains(version), "{manifest}");
        }
    }
}

fn locked_or_empty(home: &Path, key: &str) -> String {
    if home.join("plugins.lock").is_file() {
        locked(home, "dev.example.pinned", key)
    } else {
        String::new()
    }
}

#[test]
fn sync_refuses_a_lock_row_pinned_to_an_impostor_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let s = served(&tmp.path().join("s"));
    let first = tmp.path().join("first");
    assert_eq!(install(&first, &[&s.url, "--ref", "main"]).0, 0);
    let lock = std::fs::read_to_string(first.join("plugins.lock")).unwrap();
    assert!(lock.contains(&s.c2), "{lock}");
    // A lock that names the repository at a commit its owners never published (a
    // hostile pull request to the project's lock, or a fork's commit pinned by id).
    let hostile = lock.replace(&s.c2, &s.impostor);
    for mode in MODES {
        let fresh = tmp.path().join(format!("fresh-{mode}"));
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::write(fresh.join("plugins.lock"), &hostile).unwrap();
        let (code, stdout, stderr) = run(plugins()
            .args(["sync", "--yes", "--home"])
            .arg(&fresh)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400"));
        assert_eq!(code, 2, "mode {mode}: {stdout}{stderr}");
        assert!(
            stderr.contains("plugins::git::impostor_commit"),
            "mode {mode}: {stderr}"
        );
        assert!(!fresh.join("plugins/dev.example.pinned").exists());
    }
}
