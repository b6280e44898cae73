//! Scratch space in the temp directory (`$TMPDIR/plugins-<uid>/`): a command killed with
//! `kill -9` while its scratch exists leaves it there, and the next command of the user —
//! the same one rerun, or any other — removes it before it does anything else.

use std::path::{Path, PathBuf};

use snapbox::str;

use crate::support::git::Repo;
use crate::support::home::scratch_left;
use crate::support::*;

/// A home with one aoe plugin installed from a repository that has a new commit since, and
/// the temp directory its commands run with.
fn outdated_home(t: &Path) -> (PathBuf, PathBuf) {
    let repo = Repo::init(&t.join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    // Directories in its tree: more `mkdir` calls to be killed at while it is staged.
    for dir in ["docs/guide", "docs/api", "assets/icons"] {
        repo.file(&format!("{dir}/README.md"), dir);
    }
    repo.commit("one");
    let home = t.join("home");
    let (code, out, err) = install(&home, &[&repo.url()]);
    // parts: the install only sets the scene; its output is install's tests' business.
    assert_eq!(code, 0, "{out}{err}");
    repo.file("aoe-plugin.toml", &static_aoe("1.0.1"));
    repo.commit("two");
    let tmpdir = t.join("tmpdir");
    std::fs::create_dir(&tmpdir).unwrap();
    (home, tmpdir)
}

/// `update --all --dry-run` stages the new commit in scratch space (no home lock is taken):
/// a kill at any of its `mkdir` calls leaves that scratch only until the next command,
/// which removes it: the same command rerun, or `list`, which never makes scratch itself.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_commands_scratch_is_removed_by_the_next_command() {
    use crate::support::kill;
    if !kill::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (home, tmpdir) = outdated_home(&t);
    let dry_run = || {
        let mut cmd = Plugins::new();
        cmd.args(["update", "--all", "--dry-run", "--home"])
            .arg(&home)
            .env("TMPDIR", &tmpdir);
        cmd
    };
    let list = || {
        let mut cmd = Plugins::new();
        cmd.args(["list", "--home"])
            .arg(&home)
            .env("TMPDIR", &tmpdir);
        cmd
    };
    let mkdir = kill::FAMILIES.iter().position(|f| f.0 == "mkdir").unwrap();
    let mut left_behind = 0;
    for when in 1.. {
        let traced = kill::run(&mut dry_run().into_command(), Some((mkdir, when))).unwrap();
        if !traced.killed {
            break;
        }
        if scratch_left(&tmpdir).is_empty() {
            continue;
        }
        left_behind += 1;
        // Alternately the same command and another one come first after the kill.
        if left_behind % 2 == 1 {
            dry_run().run().expect(
                0,
                str![[r#"
Would update dev.example.pinned to [..]
  1 commit since [..]
    [..] two
  permissions: unchanged
  consent: not needed

"#]],
                str![[r#"
    Fetching file://[..]/repo
     Fetched [..]

"#]],
            );
        } else {
            list().run().success();
        }
        assert_eq!(
            scratch_left(&tmpdir),
            Vec::<String>::new(),
            "after a kill at mkdir {when}"
        );
    }
    assert!(left_behind >= 2, "{left_behind} kill points left scratch");
}

/// Another process's scratch is left alone while it runs: a sweep removes a dead owner's
/// only.
#[cfg(target_os = "linux")]
#[test]
fn a_live_commands_scratch_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let tmpdir = t.join("tmpdir");
    // SAFETY: geteuid cannot fail.
    let parent = tmpdir.join(format!("plugins-{}", unsafe { libc::geteuid() }));
    std::fs::create_dir_all(&parent).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", sleeper.id())).unwrap();
    let start = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap();
    let live = format!("walk.{}-{start}.AbC123", sleeper.id());
    std::fs::create_dir(parent.join(&live)).unwrap();
    let mut cmd = Plugins::new();
    cmd.args(["list", "--home"])
        .arg(t.join("home"))
        .env("TMPDIR", &tmpdir);
    cmd.run().success();
    assert_eq!(scratch_left(&tmpdir), vec![live.clone()]);
    sleeper.kill().unwrap();
    sleeper.wait().unwrap();
    cmd.run().success();
    assert_eq!(scratch_left(&tmpdir), Vec::<String>::new());
}
