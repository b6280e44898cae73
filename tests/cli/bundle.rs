//! `plugins bundle -o FILE` writes a new file and replaces nothing it was not told to, never
//! inside the home; `sync --frozen --from FILE` unpacks into the home's own scratch (which
//! recovery removes after a kill -9) and refuses a home with no committed lock.

use std::path::{Path, PathBuf};

use crate::support::git::Repo;
use crate::support::*;

/// An AWorld plugin installed from a `file://` repository into `<t>/home`.
fn locked_home(t: &Path) -> PathBuf {
    let repo = Repo::init(&t.join("helper"));
    repo.file("README.md", &"docs\n".repeat(2000));
    commit_version(&repo, "aworld", "1.0.0");
    let home = t.join("home");
    let url = format!("file://{}", repo.dir.display());
    Plugins::new()
        .args(["install", &url, "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    home
}

fn bundle_to(home: &Path, out: &Path, extra: &[&str]) -> Ran {
    let mut cmd = Plugins::new();
    cmd.args(["bundle", "-o"])
        .arg(out)
        .arg("--home")
        .arg(home)
        .args(extra)
        .env("COLUMNS", "100");
    let mut ran = cmd.run();
    ran.redact("[T]", home.parent().unwrap());
    ran
}

/// What a directory holds, by name (to see that nothing was left beside a target).
fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[test]
fn bundle_replaces_only_a_regular_file_it_was_told_to_and_nothing_in_the_home() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let lock = std::fs::read(home.join("plugins.lock")).unwrap();
    let out = t.join("out");
    std::fs::create_dir(&out).unwrap();

    // A FIFO: never replaced (nor opened: a FIFO with no reader would hang the open).
    let fifo = out.join("fifo");
    crate::support::mkfifo(&fifo);
    bundle_to(&home, &fifo, &["--force"])
        .code(2)
        .stderr_eq(snapbox::str![[r#"
plugins::sync::bundle

  × [T]/out/fifo: it is a FIFO (not a regular file), which is never replaced; nothing
  │ was written
  help: choose another -o path

"#]]);
    // A symbolic link (to a file elsewhere): neither it nor what it names is replaced.
    let victim = t.join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let link = out.join("link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    bundle_to(&home, &link, &["--force"]).code(2);
    // A directory.
    let dir = out.join("dir");
    std::fs::create_dir(&dir).unwrap();
    bundle_to(&home, &dir, &["--force"]).code(2);
    // A regular file, without --force.
    let existing = out.join("existing.tar");
    std::fs::write(&existing, "old").unwrap();
    bundle_to(&home, &existing, &[])
        .code(2)
        .stderr_eq(snapbox::str![[r#"
plugins::sync::bundle

  × [T]/out/existing.tar: it exists; nothing was written
  help: pass --force to replace it, or choose another -o path

"#]]);
    // The home's own files, even with --force: the lock, a plugin's file.
    for inside in [
        home.join("plugins.lock"),
        home.join("plugins/helper/README.md"),
    ] {
        let before = std::fs::read(&inside).unwrap();
        let ran = bundle_to(&home, &inside, &["--force"]);
        ran.code(2);
        assert!(
            ran.stderr.contains("is inside the home"),
            "one line of many: {}",
            ran.stderr
        );
        assert_eq!(std::fs::read(&inside).unwrap(), before);
    }
    bundle_to(&home, &home.join("new.tar"), &[]).code(2);
    assert!(!home.join("new.tar").exists());

    assert!(fifo.exists() && link.is_symlink() && dir.is_dir());
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "old");
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);
    // With --force, a regular file is replaced; nothing is left beside it.
    bundle_to(&home, &existing, &["--force"]).success();
    assert!(std::fs::read(&existing).unwrap().len() > 10_000);
    assert_eq!(
        names(&out),
        ["dir", "existing.tar", "fifo", "link"],
        "no temporary file is left beside the target"
    );
}

#[test]
fn sync_from_a_bundle_into_a_home_without_its_lock_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let file = t.join("b.tar");
    bundle_to(&home, &file, &[]).success();
    let empty = t.join("empty");
    std::fs::create_dir(&empty).unwrap();
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&file)
        .arg("--home")
        .arg(&empty)
        .env("COLUMNS", "100")
        .run()
        .redact("[T]", &t)
        .code(2)
        .stdout_eq("")
        .stderr_eq(snapbox::str![[r#"
plugins::sync::bundle

  × [T]/empty has no plugins.lock: a bundle installs the lock committed beside it;
  │ nothing was changed
  help: put the committed plugins.lock at [T]/empty/plugins.lock (the bundle was made
        from it), then run the same command

"#]]);
    assert_eq!(names(&empty), Vec::<String>::new());
}

/// A kill -9 while `sync --frozen --from` unpacks leaves the unpacked archive under the
/// home, never in `$TMPDIR`, and the rerun of the same command removes it and installs.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_sync_from_a_bundle_leaves_its_unpacked_archive_only_where_recovery_looks() {
    use crate::support::kill;
    if !kill::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let file = t.join("b.tar");
    bundle_to(&home, &file, &[]).success();
    let scratch_tmp = t.join("tmpdir");
    std::fs::create_dir(&scratch_tmp).unwrap();
    let fresh = t.join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    let command = || {
        let mut cmd = Plugins::new();
        cmd.args(["sync", "--frozen", "--yes", "--from"])
            .arg(&file)
            .arg("--home")
            .arg(&fresh)
            .env("TMPDIR", &scratch_tmp);
        cmd
    };
    // The first write of the unpacked README (after the lock guard and recovery's).
    let mkdir = kill::FAMILIES.iter().position(|f| f.0 == "mkdir").unwrap();
    let staging = fresh.join(".plugins/staging");
    let mut killed_once = false;
    for when in 1..40 {
        let traced = kill::run(&mut command().into_command(), Some((mkdir, when))).unwrap();
        if !traced.killed {
            break;
        }
        assert_eq!(
            names(&scratch_tmp),
            Vec::<String>::new(),
            "kill at mkdir {when}"
        );
        if staging.is_dir() && !names(&staging).is_empty() {
            killed_once = true;
            break;
        }
    }
    assert!(killed_once, "no kill point left the unpacked bundle");
    let ran = command().run();
    ran.success();
    assert_eq!(names(&staging), Vec::<String>::new());
    assert_eq!(names(&scratch_tmp), Vec::<String>::new());
    assert!(fresh.join("plugins/helper/README.md").is_file());
}

/// A kill -9 of `plugins bundle -o FILE` once its temp file beside FILE exists leaves that
/// `.FILE.<owner>.<random>.tmp`; the rerun of the same command removes it (its owner is
/// gone), and only it: a live writer's temp file of the same target (a second bundle running
/// at once), another target's and one without an owner stay. The bundle it writes installs.
#[cfg(target_os = "linux")]
#[test]
fn a_rerun_of_a_killed_bundle_removes_its_stale_temp_file_and_no_live_ones() {
    use crate::support::kill;
    if !kill::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let out = t.join("out");
    std::fs::create_dir(&out).unwrap();
    let target = out.join("fleet.tar");
    let command = || {
        let mut cmd = Plugins::new();
        cmd.args(["bundle", "-o"])
            .arg(&target)
            .arg("--home")
            .arg(&home);
        cmd
    };
    // Killed at each fsync in turn until one leaves the temp file (the archive's own
    // fsync comes after it is written, before it is renamed into place).
    let fsync = kill::FAMILIES.iter().position(|f| f.0 == "fsync").unwrap();
    let mut left = Vec::new();
    for when in 1..60 {
        let traced = kill::run(&mut command().into_command(), Some((fsync, when))).unwrap();
        assert!(
            traced.killed,
            "the bundle ended before fsync {when} left its temp file"
        );
        left = names(&out);
        if !left.is_empty() {
            break;
        }
    }
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(".fleet.tar.") && left[0].ends_with(".tmp"),
        "{left:?}"
    );
    assert!(!target.exists());
    let stale = left[0].clone();
    // A live writer of the same target (this test's process stands for it), another
    // target's temp file and one without an owner.
    let owner = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let start = stat.rsplit_once(')').unwrap().1.split_whitespace().nth(19);
        format!("{pid}-{}", start.unwrap())
    };
    let live = format!(".fleet.tar.{}.LiVe42.tmp", owner(std::process::id()));
    let dead_owner = stale.split('.').nth(3).unwrap().to_owned();
    let other = format!(".fleet.tar.x.{dead_owner}.OtHr42.tmp");
    for keep in [&live, &other, &".fleet.tar.NoTag1.tmp".to_owned()] {
        std::fs::write(out.join(keep), "partial").unwrap();
    }

    let mut ran = bundle_to(&home, &target, &[]);
    ran.redact("[STALE]", &stale);
    ran.success().stderr_eq(snapbox::str![[r#"
...
     Removed [T]/out/[STALE] (the temp file of a killed `plugins bundle`)
...
"#]]);
    let mut kept = vec![
        ".fleet.tar.NoTag1.tmp".to_owned(),
        other,
        live,
        "fleet.tar".to_owned(),
    ];
    kept.sort();
    assert_eq!(
        names(&out),
        kept,
        "only the killed bundle's temp file is removed"
    );
    // The archive is whole: a fresh home with the lock installs from it.
    let fresh = t.join("fresh");
    std::fs::create_dir(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&target)
        .arg("--home")
        .arg(&fresh)
        .run()
        .success();
    assert!(fresh.join("plugins/helper/README.md").is_file());
}

/// `sync --frozen` reports a plugin directory the lock does not name
/// (`plugins::sync::unlocked_plugin`, a row `unlocked` in `--json`) and leaves it: it may be
/// the host's own, installed by hand. Hidden names and plain files are no plugins; `plugins
/// remove <name>` removes one when it should not be there.
#[test]
fn sync_frozen_reports_a_plugin_directory_the_lock_does_not_name_and_leaves_it() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let by_hand = home.join("plugins/by-hand");
    std::fs::create_dir_all(by_hand.join(".aworld-plugin")).unwrap();
    std::fs::write(by_hand.join(".aworld-plugin/plugin.json"), "{}").unwrap();
    std::fs::create_dir_all(home.join("plugins/.scratch")).unwrap();
    std::fs::write(home.join("plugins/notes.txt"), "mine").unwrap();
    let sync = |json: bool| {
        let mut cmd = Plugins::new();
        cmd.args(["sync", "--frozen", "--yes", "--home"])
            .arg(&home)
            .env("COLUMNS", "300");
        if json {
            cmd.arg("--json");
        }
        let mut ran = cmd.run();
        ran.redact("[HOME]", &home);
        ran
    };
    sync(false)
        .success()
        .stdout_eq(snapbox::str![[r#"
everything locked is installed

"#]])
        .stderr_eq(snapbox::str![[r#"
warning[plugins::sync::unlocked_plugin]: [HOME]/plugins/by-hand is not in the lock; left as it is (the host may load it): if it should not be there, `plugins remove by-hand --home [HOME]` removes it

"#]]);
    let ran = sync(true);
    ran.success();
    assert!(
        ran.stderr.contains("plugins::sync::unlocked_plugin"),
        "{}",
        ran.stderr
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("change.json", &doc);
    assert_eq!(
        doc["plugins"],
        serde_json::json!([{
            "id": "by-hand",
            "status": "unlocked",
            "message": format!("{}/plugins/by-hand is not in the lock; left as it is (the host may load it)", home.display()),
            "home": home,
        }]),
        "{doc}"
    );
    assert!(by_hand.join(".aworld-plugin/plugin.json").is_file());
    assert!(home.join("plugins/helper/README.md").is_file());
    // The way out the warning names.
    Plugins::new()
        .args(["remove", "by-hand", "--home"])
        .arg(&home)
        .run()
        .success();
    assert!(!by_hand.exists());
    sync(false).success().stderr_eq("");
}

/// `sync --frozen` leaves exactly the lock: a plugin whose files were changed (one edited,
/// one added) is reinstalled as locked, from the network and from a bundle alike.
#[test]
fn sync_frozen_restores_a_changed_plugin_to_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = locked_home(&t);
    let file = t.join("b.tar");
    bundle_to(&home, &file, &[]).success();
    let readme = home.join("plugins/helper/README.md");
    let locked = std::fs::read(&readme).unwrap();
    for from in [None, Some(&file)] {
        std::fs::write(&readme, "edited\n").unwrap();
        std::fs::write(home.join("plugins/helper/extra.py"), "import os\n").unwrap();
        let mut cmd = Plugins::new();
        cmd.args(["sync", "--frozen", "--yes", "--home"]).arg(&home);
        if let Some(f) = from {
            cmd.arg("--from").arg(f);
        }
        cmd.run().success().stdout_eq(snapbox::str![[r#"
    Repaired helper 1.0.0

"#]]);
        assert_eq!(std::fs::read(&readme).unwrap(), locked, "{from:?}");
        assert!(!home.join("plugins/helper/extra.py").exists(), "{from:?}");
        Plugins::new()
            .args(["verify", "--home"])
            .arg(&home)
            .run()
            .success();
    }
}
