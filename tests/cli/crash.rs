//! Crash consistency: `kill -9` injected (strace) at every rename, fsync, flock,
//! unlink, rmdir and mkdir of each home-changing command. After the kill the lock
//! parses and the home recovers to the old or the new state; one rerun reaches
//! the new state; no leftovers; lock, plugin directories and `verify` agree.
//! The counts are reported in docs/RELIABILITY.md.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::git::{Repo, git};
use crate::support::*;

/// Syscall families, each injected on its own (`when=N` counts within one family).
const SYSCALLS: &[&str] = &[
    "rename,renameat,renameat2",
    "fsync,fdatasync",
    "flock",
    "unlink,unlinkat,rmdir",
    "mkdir,mkdirat",
];

/// The most kill points tried per family in one scenario.
const MAX_POINTS: usize = 60;

/// What a home holds, as far as a user can tell: the lock's rows and the files.
fn state(home: &Path) -> String {
    let (code, stdout, stderr) = run(plugins().args(["list", "--json", "--home"]).arg(home));
    assert_eq!(code, 0, "the lock parses: {stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut rows: Vec<String> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("lock {} {} {}", p["id"], p["version"], p["present"]))
        .collect();
    if let Ok(rd) = std::fs::read_dir(home.join("plugins")) {
        for e in rd {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.path().is_dir() {
                continue;
            }
            let hash = plugins::hash::tree(&e.path()).unwrap_or_else(|e| e.to_string());
            rows.push(format!("dir {name} {hash}"));
        }
    }
    rows.sort();
    rows.join("\n")
}

/// Files a crash must never leave behind once a command has recovered.
fn leftovers(home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["txn", "staging", "backup", "incoming"] {
        if let Ok(rd) = std::fs::read_dir(home.join(".plugins").join(sub)) {
            out.extend(rd.map(|e| format!(".plugins/{sub}/{:?}", e.unwrap().file_name())));
        }
    }
    // Half-written or half-deleted history slots (`.new`, `.gone-<n>`).
    for plugin in std::fs::read_dir(home.join(".plugins/history"))
        .into_iter()
        .flatten()
    {
        for e in std::fs::read_dir(plugin.unwrap().path()).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                out.push(format!(".plugins/history/{name}"));
            }
        }
    }
    for dir in [home.to_path_buf(), home.join("plugins")] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(".tmp") || name.starts_with(".staging-") || name.contains(".old-")
                {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// The plugin directories a host would load from `home` (dot-entries are not plugins).
fn plugin_dirs(home: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(home.join("plugins"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

struct Scenario {
    name: &'static str,
    /// The home before the command (copied for each run).
    template: PathBuf,
    args: Vec<String>,
    /// A rerun after the change finished may say so (`remove`: not installed).
    rerun_may_fail: bool,
}

#[derive(Default)]
struct Counts {
    points: usize,
    ok: usize,
    /// Kill points after which every plugin installed before and after was in place.
    host_saw_plugins: usize,
    failures: Vec<String>,
}

fn plugins_args(s: &Scenario, home: &Path) -> Vec<String> {
    let mut a = s.args.clone();
    a.push("--home".into());
    a.push(home.display().to_string());
    a
}

fn verify_ok(home: &Path) -> Result<(), String> {
    let (code, stdout, stderr) = run(plugins().args(["verify", "--home"]).arg(home));
    // No lock at all (a fresh install that was undone) is fine too.
    if code == 0 || (!home.join("plugins.lock").exists() && code == 2) {
        Ok(())
    } else {
        Err(format!("verify: {stdout}{stderr}"))
    }
}

/// The scenario's command, run again on `home`: it exits 0 (or may fail once the home is
/// already new), reaches the new state and leaves nothing behind; `verify` passes.
fn rerun_reaches(s: &Scenario, home: &Path, new: &str) -> Result<(), String> {
    let (code, stdout, stderr) = run(plugins().args(plugins_args(s, home)));
    if code != 0 && !(s.rerun_may_fail && state(home) == new) {
        return Err(format!("rerun: {stdout}{stderr}"));
    }
    if state(home) != new {
        return Err(format!(
            "rerun did not reach the new state:\n{}",
            state(home)
        ));
    }
    let left = leftovers(home);
    if !left.is_empty() {
        return Err(format!("leftovers after the rerun: {left:?}"));
    }
    verify_ok(home)
}

fn exercise(strace: &Path, s: &Scenario, work: &Path, counts: &mut Counts) {
    let reference = work.join(format!("{}-ref", s.name));
    copy_dir(&s.template, &reference);
    let (code, stdout, stderr) = run(plugins().args(plugins_args(s, &reference)));
    assert_eq!(code, 0, "{}: reference run: {stdout}{stderr}", s.name);
    let old = state(&s.template);
    let new = state(&reference);
    assert_ne!(old, new, "{}: the command changes the home", s.name);
    // A plugin installed before and after the command: a host started at any instant
    // in between (a reboot is the common kill) must find its directory.
    let kept: Vec<String> = plugin_dirs(&s.template)
        .intersection(&plugin_dirs(&reference))
        .cloned()
        .collect();
    for family in SYSCALLS {
        for n in 1..=MAX_POINTS {
            let home = work.join(format!("{}-run", s.name));
            copy_dir(&s.template, &home);
            let status = Command::new(strace)
                .args(["-o", "/dev/null", "-e"])
                .arg(format!("trace={family}"))
                .arg("-e")
                .arg(format!("inject={family}:signal=KILL:when={n}"))
                .arg(env!("CARGO_BIN_EXE_plugins"))
                .args(plugins_args(s, &home))
                .env("NO_COLOR", "1")
                .env_remove("PLUGINS_HOME")
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap()
                .status;
            let killed = {
                use std::os::unix::process::ExitStatusExt;
                status.signal() == Some(9) || status.code() == Some(128 + 9)
            };
            if !killed {
                break; // fewer than n such calls: this family is done
            }
            counts.points += 1;
            let point = format!("{} {family} #{n}", s.name);
            // What a host sees right after the kill, before any recovery.
            let missing: Vec<&String> = kept
                .iter()
                .filter(|id| !home.join("plugins").join(id).is_dir())
                .collect();
            if missing.is_empty() {
                counts.host_saw_plugins += 1;
            } else {
                counts.failures.push(format!(
                    "{point}: right after the kill a host finds no plugins/{missing:?}"
                ));
            }
            // The same command, rerun first on a copy of the killed home (as cron reruns
            // it): it recovers whatever it then finds to do, "up to date" included.
            let again = work.join(format!("{}-again", s.name));
            copy_dir(&home, &again);
            if let Err(e) = rerun_reaches(s, &again, &new) {
                counts.failures.push(format!("{point}: first {e}"));
            }
            let check = || -> Result<(), String> {
                // Recover (sync takes the home lock first), then old or new state.
                let (code, stdout, stderr) = run(plugins().args(["sync", "--home"]).arg(&home));
                if code != 0 {
                    return Err(format!("recovering sync: {stdout}{stderr}"));
                }
                let now = state(&home);
                if now != old && now != new {
                    return Err(format!("after recovery, neither old nor new:\n{now}"));
                }
                let left = leftovers(&home);
                if !left.is_empty() {
                    return Err(format!("leftovers after recovery: {left:?}"));
                }
                verify_ok(&home)?;
                rerun_reaches(s, &home, &new)
            };
            match check() {
                Ok(()) => counts.ok += 1,
                Err(e) => counts.failures.push(format!("{point}: {e}")),
            }
        }
    }
}

#[test]
#[allow(clippy::print_stderr)] // the counts are the report docs/RELIABILITY.md quotes
fn kill_nine_at_every_syscall_loses_nothing() {
    let Some(strace) = strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let mut scenarios = Vec::new();

    // aoe: a fresh install, an update of a moved branch, a removal.
    let repo = Repo::init(&t.join("aoe"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let empty = t.join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    scenarios.push(Scenario {
        name: "aoe-install",
        template: empty.clone(),
        args: vec!["install".into(), repo.url(), "--yes".into()],
        rerun_may_fail: false,
    });
    let with_v1 = t.join("aoe-v1-home");
    let (code, o, e) = install(&with_v1, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    let v1 = git(&repo.dir, &["rev-parse", "HEAD"]).trim().to_owned();
    let updated = t.join("aoe-updated-home");
    let (code, o, e) = install(&updated, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    scenarios.push(Scenario {
        name: "aoe-remove",
        template: with_v1.clone(),
        args: vec!["remove".into(), "dev.example.pinned".into()],
        rerun_may_fail: true,
    });
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    scenarios.push(Scenario {
        name: "aoe-update",
        template: with_v1,
        args: vec!["update".into(), "--all".into(), "--yes".into()],
        rerun_may_fail: false,
    });
    // An update keeps v1 in the history; rolling back to it restores it (a
    // rerun finds v1 installed: up to date).
    let (code, o, e) = run(plugins()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&updated));
    assert_eq!(code, 0, "{o}{e}");
    scenarios.push(Scenario {
        name: "aoe-rollback",
        template: updated,
        args: vec![
            "rollback".into(),
            "dev.example.pinned".into(),
            "--to".into(),
            v1,
        ],
        rerun_may_fail: false,
    });

    // aoe with a build step that makes the worker.
    let built = Repo::init(&t.join("built"));
    built_aoe(&built, "1.0.0", GOOD_BUILD);
    scenarios.push(Scenario {
        name: "aoe-build",
        template: empty.clone(),
        args: vec!["install".into(), built.url(), "--yes".into()],
        rerun_may_fail: false,
    });

    // AWorld (registry) and protoAgent (JSON lock).
    let aworld = Repo::init(&t.join("aworld"));
    aworld.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "helper", "version": "1.0.0"}"#,
    );
    aworld.commit("helper");
    scenarios.push(Scenario {
        name: "aworld-install",
        template: empty.clone(),
        args: vec!["install".into(), aworld.url(), "--yes".into()],
        rerun_may_fail: false,
    });
    let proto = Repo::init(&t.join("proto"));
    proto.file(
        "protoagent.plugin.yaml",
        "id: notebook\nname: Notes\nversion: 0.2.0\n",
    );
    proto.file("__init__.py", "def register(r):\n    pass\n");
    proto.commit("notes");
    git(&proto.dir, &["tag", "v0.2.0"]);
    scenarios.push(Scenario {
        name: "protoagent-install",
        template: empty,
        args: vec!["install".into(), proto.url(), "--yes".into()],
        rerun_may_fail: false,
    });

    let mut counts = Counts::default();
    let work = t.join("work");
    std::fs::create_dir_all(&work).unwrap();
    for s in &scenarios {
        exercise(&strace, s, &work, &mut counts);
    }
    eprintln!(
        "crash consistency: {} kill points, {} recovered cleanly, {} with every kept plugin in place for the host",
        counts.points, counts.ok, counts.host_saw_plugins
    );
    assert!(
        counts.points >= 7 * 5,
        "kills were injected: {}",
        counts.points
    );
    assert!(
        counts.failures.is_empty(),
        "{} of {} kill points lost something:\n{}",
        counts.failures.len(),
        counts.points,
        counts.failures.join("\n\n")
    );
}

/// Run `plugins ARGS --home HOME` while another process holds the home lock: once it waits
/// for the lock, `land` makes the other process's change, then the lock is let go. Its
/// exit code, stdout and stderr.
fn while_another_holds_the_lock(
    home: &Path,
    args: &[&str],
    land: impl FnOnce(),
) -> (Option<i32>, String, String) {
    use std::io::BufRead;
    let guard = std::fs::File::options()
        .write(true)
        .open(home.join(".plugins.guard"))
        .unwrap();
    guard.lock().unwrap();
    let mut child = plugins()
        .args(args)
        .arg("--home")
        .arg(home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("Waiting for another plugins process") {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "{seen}");
        seen.push_str(&line);
    }
    land();
    drop(guard);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        seen + &rest,
    )
}

/// A home with `dev.example.pinned` 1.0.0 installed from `main`, and the repository
/// already one commit further (2.0.0): the update the race tests run.
fn installed_with_a_newer_commit(tmp: &Path, policy: Option<&str>) -> (Repo, PathBuf) {
    let repo = Repo::init(&tmp.join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.join("home");
    let (code, o, e) = install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    if let Some(policy) = policy {
        std::fs::write(home.join("plugins.toml"), policy).unwrap();
    }
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    (repo, home)
}

/// A `remove` that lands while `update` is fetching is not undone: the update
/// re-checks the lock entry under the home lock and stops.
#[test]
fn a_change_that_lands_while_fetching_is_not_undone() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, home) = installed_with_a_newer_commit(tmp.path(), None);

    // Another plugins process holds the home; it removes the plugin, then lets go.
    let (code, _, stderr) =
        while_another_holds_the_lock(&home, &["update", "--all", "--yes"], || {
            let (code, o, e) = run(plugins()
                .args(["remove", "dev.example.pinned", "--no-wait", "--home"])
                .arg(&home));
            assert_eq!(code, 2, "the lock is held: {o}{e}");
            std::fs::remove_dir_all(home.join("plugins/dev.example.pinned")).unwrap();
            std::fs::write(home.join("plugins.lock"), "lock_version = 2\n").unwrap();
        });
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("plugins::install::concurrent"), "{stderr}");
    assert!(
        !home.join("plugins/dev.example.pinned").exists(),
        "the removal stands"
    );
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        "lock_version = 2\n"
    );
}

/// Eight mixed commands on one home at once: every invariant holds after.
#[test]
fn eight_mixed_commands_on_one_home() {
    let tmp = tempfile::tempdir().unwrap();
    let mut urls = Vec::new();
    for i in 0..4 {
        let repo = Repo::init(&tmp.path().join(format!("repo{i}")));
        repo.file(
            "aoe-plugin.toml",
            &static_aoe("1.0.0").replace("dev.example.pinned", &format!("dev.example.p{i}")),
        );
        repo.commit("v1");
        urls.push(repo);
    }
    let home = tmp.path().join("home");
    for r in &urls[..2] {
        let (code, o, e) = install(&home, &[&r.url(), "--ref", "main"]);
        assert_eq!(code, 0, "{o}{e}");
    }
    urls[0].file(
        "aoe-plugin.toml",
        &static_aoe("2.0.0").replace("dev.example.pinned", "dev.example.p0"),
    );
    urls[0].commit("v2");
    let h = home.display().to_string();
    let commands: Vec<Vec<String>> = vec![
        vec!["install".into(), urls[2].url(), "--yes".into()],
        vec!["install".into(), urls[3].url(), "--yes".into()],
        vec!["update".into(), "--all".into(), "--yes".into()],
        vec!["remove".into(), "dev.example.p1".into()],
        vec!["sync".into(), "--yes".into()],
        vec!["verify".into()],
        vec!["list".into()],
        vec!["install".into(), urls[2].url(), "--yes".into()],
    ];
    let handles: Vec<_> = commands
        .into_iter()
        .map(|args| {
            let h = h.clone();
            std::thread::spawn(move || {
                let (code, o, e) = run(plugins().args(&args).arg("--home").arg(&h));
                (args, code, o, e)
            })
        })
        .collect();
    for t in handles {
        let (args, code, o, e) = t.join().unwrap();
        // verify may see a plugin mid-change; everything else succeeds.
        assert!(code == 0 || args[0] == "verify", "{args:?}: {code} {o}{e}");
    }
    assert!(leftovers(&home).is_empty(), "{:?}", leftovers(&home));
    verify_ok(&home).unwrap();
    let listed = state(&home);
    assert_eq!(
        listed.lines().filter(|l| l.starts_with("lock")).count(),
        3,
        "p0 (updated), p2, p3: {listed}"
    );
    assert!(
        listed.contains("lock \"dev.example.p0\" \"2.0.0\" true"),
        "{listed}"
    );
    assert!(!listed.contains("p1"), "{listed}");
}

/// Losing the race to an identical change is success: while `update` waits for the home
/// lock, another process installs the very version it fetched; the update then finds it
/// installed and exits 0 ("up to date").
#[test]
fn losing_a_race_to_the_same_version_is_success() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, home) = installed_with_a_newer_commit(tmp.path(), None);
    // What the other process will have made: the same home, updated.
    let other = tmp.path().join("other");
    copy_dir(&home, &other);
    let (code, o, e) = run(plugins()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&other));
    assert_eq!(code, 0, "{o}{e}");

    // The other process lands the same update (its lock and plugin), then lets go.
    let (code, _, stderr) =
        while_another_holds_the_lock(&home, &["update", "--all", "--yes"], || {
            std::fs::remove_dir_all(home.join("plugins")).unwrap();
            copy_dir(&other.join("plugins"), &home.join("plugins"));
            std::fs::copy(other.join("plugins.lock"), home.join("plugins.lock")).unwrap();
        });
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("plugins::install::concurrent"), "{stderr}");
    assert_eq!(state(&home), state(&other));
}

/// An autoupdate that loses a race (another command changed the plugin while it fetched)
/// defers it to the next sweep and exits 0: no cron mail for a race.
#[test]
fn an_autoupdate_that_loses_a_race_defers() {
    let tmp = tempfile::tempdir().unwrap();
    let (_repo, home) = installed_with_a_newer_commit(
        tmp.path(),
        Some("[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n"),
    );
    // The other command removes the plugin, then lets go.
    let (code, stdout, stderr) =
        while_another_holds_the_lock(&home, &["autoupdate", "--force", "--json"], || {
            std::fs::remove_dir_all(home.join("plugins/dev.example.pinned")).unwrap();
            std::fs::write(home.join("plugins.lock"), "lock_version = 2\n").unwrap();
        });
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        doc["deferred"],
        serde_json::json!(["dev.example.pinned"]),
        "{stdout}"
    );
    assert_eq!(doc["failed"], serde_json::json!([]), "{stdout}");
}
