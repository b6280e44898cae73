//! Crash consistency: `kill -9` injected at the rename, fsync, flock, unlink, mkdir and
//! write calls of install, update, sync, sync --force, remove, rollback and autoupdate, for
//! every dialect — the calls of every process the command starts included (git in
//! git-command mode, pip, build steps), the whole command killed at once, as a reboot
//! kills it (`support::kill`). At the instant of the kill (before any recovery) every
//! plugin installed before and after is in place for a host, and an updated plugin's files
//! disagree with its lock at one rename at most; the same command, rerun once as the first
//! command after the kill, exits 0, reaches the new state and leaves nothing behind; lock,
//! plugin directories and `verify` agree. The counts are reported in docs/RELIABILITY.md.
//!
//! The normal suite samples a few kill points of each family per command (a deterministic
//! stride); `PLUGINS_FULL_SWEEP=1` tries every one.

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::home::{
    copy_dir, leftovers, plugin_dirs, scratch_left, state, tree_hash, verify_ok,
};
#[cfg(target_os = "linux")]
use crate::support::kill::{self, FAMILIES};
use crate::support::*;

/// Kill points tried per family and command in the normal suite (all of them with
/// `PLUGINS_FULL_SWEEP=1`).
const SAMPLED: usize = 3;

struct Scenario {
    name: String,
    /// The home before the command (copied for each run).
    template: PathBuf,
    args: Vec<String>,
    /// `remove`: a rerun after the removal had finished (its record gone) says the
    /// plugin is not installed (exit 2); one that finds the record finishes it, exit 0.
    rerun_may_fail: bool,
    /// aoe builds a tree with build steps in place: while it builds, the host sees the new
    /// files under the old lock (the sweep counts those points apart).
    builds_in_place: bool,
    /// Environment the command runs with (git-command mode, pip's wheel index).
    env: Vec<(String, String)>,
}

#[derive(Default)]
struct Counts {
    points: usize,
    ok: usize,
    /// Kill points at a call of a process the command started (git, pip, a build step).
    in_children: usize,
    /// Kill points after which every plugin installed before and after was in place.
    host_saw_plugins: usize,
    /// Kill points at which an updated plugin's files and its lock named different
    /// versions, by family (builds in place apart).
    disagreed: std::collections::BTreeMap<String, usize>,
    disagreed_building: usize,
    /// `remove` killed after it had finished: its rerun says the plugin is not installed.
    not_installed: usize,
    failures: Vec<String>,
}

/// The scenario's command on `home`.
fn command(s: &Scenario, home: &Path) -> Plugins {
    let mut cmd = Plugins::new();
    cmd.args(&s.args).home(home);
    let tmpdir = tmpdir(home);
    std::fs::create_dir_all(&tmpdir).unwrap();
    cmd.env("TMPDIR", &tmpdir);
    for (k, v) in &s.env {
        cmd.env(k, v);
    }
    cmd.stdin(std::process::Stdio::null());
    cmd
}

/// The temp directory the scenario's command runs with on `home` (unless the scenario sets
/// its own): a killed command's scratch there is a leftover too.
fn tmpdir(home: &Path) -> PathBuf {
    home.with_extension("tmp")
}

/// The scenario's command, run again on `home`: it exits 0 (or, for a `remove` killed
/// after it had finished, says the plugin is not installed: `Ok(true)`), reaches the new
/// state and leaves nothing behind; `verify` passes.
fn rerun_reaches(s: &Scenario, home: &Path, new: &str) -> Result<bool, String> {
    // Whether the removal had finished before the kill (nothing left to recover).
    let finished = s.rerun_may_fail
        && !home
            .join(".plugins/txn")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
        && state(home) == new;
    // parts: what a rerun prints depends on where the kill landed; its code is judged
    let (code, stdout, stderr) = command(s, home).run().parts();
    if code != 0 && !(finished && stderr.contains("plugins::install::not_installed")) {
        return Err(format!("rerun exit {code}: {stdout}{stderr}"));
    }
    let now = state(home);
    if now != new {
        return Err(format!("rerun did not reach the new state:\n{now}"));
    }
    let mut left = leftovers(home);
    left.extend(
        scratch_left(&tmpdir(home))
            .into_iter()
            .map(|n| format!("$TMPDIR/{n}")),
    );
    if !left.is_empty() {
        return Err(format!("leftovers after the rerun: {left:?}"));
    }
    verify_ok(home)?;
    Ok(code != 0)
}

/// An installed plugin whose files and lock both change: its tree hashes and commits.
struct Watched {
    id: String,
    old_tree: String,
    new_tree: String,
    old_commit: String,
    new_commit: String,
}

/// The locked commit of each plugin of a home.
fn commits(home: &Path) -> std::collections::BTreeMap<String, String> {
    let ran = Plugins::new().args(["list", "--json"]).home(home).run();
    ran.success();
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["commit"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// How many calls of each family the command (with every process it starts) makes on a
/// fresh copy of the template.
#[cfg(target_os = "linux")]
fn calls(s: &Scenario, work: &Path) -> [usize; 6] {
    let home = work.join(format!("{}-count", s.name));
    copy_dir(&s.template, &home);
    let traced = kill::run(&mut command(s, &home).into_command(), None).unwrap();
    assert_eq!(
        traced.code,
        Some(0),
        "{}: counting calls: {traced:?}",
        s.name
    );
    traced.calls
}

/// The kill points tried out of `n` calls: every one under `PLUGINS_FULL_SWEEP=1`, else
/// `SAMPLED` of them spread evenly (the first and the last included).
fn points(n: usize) -> Vec<usize> {
    let all = std::env::var_os("PLUGINS_FULL_SWEEP").is_some_and(|v| v == "1");
    if all || n <= SAMPLED {
        return (1..=n).collect();
    }
    let mut v: Vec<usize> = (0..SAMPLED)
        .map(|i| 1 + i * (n - 1) / (SAMPLED - 1))
        .collect();
    v.dedup();
    v
}

#[cfg(target_os = "linux")]
#[allow(clippy::print_stderr)] // progress of the full sweep, which takes long
fn exercise(s: &Scenario, work: &Path, counts: &mut Counts) {
    let reference = work.join(format!("{}-ref", s.name));
    copy_dir(&s.template, &reference);
    command(s, &reference).run().success();
    let old = state(&s.template);
    let new = state(&reference);
    assert_ne!(old, new, "{}: the command changes the home", s.name);
    // A plugin installed before and after the command: a host started at any instant
    // in between (a reboot is the common kill) must find its directory.
    let kept: Vec<String> = plugin_dirs(&s.template)
        .intersection(&plugin_dirs(&reference))
        .cloned()
        .collect();
    let (before, after) = (commits(&s.template), commits(&reference));
    let watched: Vec<Watched> = kept
        .iter()
        .filter_map(|id| {
            let (old_commit, new_commit) = (before.get(id)?, after.get(id)?);
            (old_commit != new_commit).then(|| Watched {
                id: id.clone(),
                old_tree: tree_hash(&s.template.join("plugins").join(id)),
                new_tree: tree_hash(&reference.join("plugins").join(id)),
                old_commit: old_commit.clone(),
                new_commit: new_commit.clone(),
            })
        })
        .collect();
    // Lock rows whose directory is missing before the command (a `sync` of a plugin whose
    // directory is gone): any other at a kill point is one the command left.
    let missing_before = rows_without_a_directory(&s.template);
    // Kill points at a rename at which files and lock disagreed: only the lock's own.
    let mut renames_disagreed = Vec::new();
    for (f, n) in calls(s, work).into_iter().enumerate() {
        let family = FAMILIES[f].0;
        for when in points(n) {
            let home = work.join(format!("{}-run", s.name));
            copy_dir(&s.template, &home);
            let traced = kill::run(&mut command(s, &home).into_command(), Some((f, when))).unwrap();
            if !traced.killed {
                continue; // this run made fewer calls (a timing-dependent write)
            }
            counts.points += 1;
            counts.in_children += usize::from(traced.in_child);
            let point = format!(
                "{} {family} #{when}/{n}{}",
                s.name,
                if traced.in_child { " (in a child)" } else { "" }
            );
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
            // Issue #40: nor a lock row naming a directory that is gone (`remove` killed
            // between moving the plugin out and rewriting the lock).
            let dangling: Vec<String> = rows_without_a_directory(&home)
                .difference(&missing_before)
                .cloned()
                .collect();
            if !dangling.is_empty() {
                counts.failures.push(format!(
                    "{point}: right after the kill the lock names {dangling:?}, whose directory is gone"
                ));
            }
            // Files and lock of an updated plugin, at the same instant.
            let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap_or_default();
            for w in &watched {
                let files = tree_hash(&home.join("plugins").join(&w.id));
                let files_new = files == w.new_tree && files != w.old_tree;
                let files_old = files == w.old_tree && files != w.new_tree;
                let lock_new = lock.contains(&w.new_commit);
                let lock_old = lock.contains(&w.old_commit);
                if (files_new && lock_old) || (files_old && lock_new) {
                    if s.builds_in_place {
                        counts.disagreed_building += 1;
                    } else {
                        *counts.disagreed.entry(family.to_owned()).or_default() += 1;
                        if f == 0 {
                            renames_disagreed.push(when);
                        }
                    }
                }
            }
            // The same command, rerun first (as cron reruns it): it recovers whatever it
            // then finds to do, "up to date" included, and reaches the new state.
            match rerun_reaches(s, &home, &new) {
                Ok(not_installed) => {
                    counts.ok += 1;
                    counts.not_installed += usize::from(not_installed);
                }
                Err(e) => counts.failures.push(format!("{point}: first {e}")),
            }
        }
    }
    eprintln!(
        "{}: {} kill points so far, {} in a child process, {} failed",
        s.name,
        counts.points,
        counts.in_children,
        counts.failures.len()
    );
    if renames_disagreed.len() > 1 {
        counts.failures.push(format!(
            "{}: files and lock disagreed at renames {renames_disagreed:?}: more than the lock's own",
            s.name
        ));
    }
}

/// The ids of `home`'s lock rows whose plugin directory is missing (read, not recovered:
/// `list` changes nothing).
fn rows_without_a_directory(home: &Path) -> std::collections::BTreeSet<String> {
    let out = Plugins::new()
        .args(["list", "--json", "--home"])
        .arg(home)
        .output();
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(&out.stdout) else {
        return Default::default();
    };
    doc["plugins"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["present"] == false)
        .filter_map(|p| p["id"].as_str().map(str::to_owned))
        .collect()
}

/// A plugin of one dialect: its repository and id.
struct Fixture {
    repo: Repo,
    dialect: &'static str,
    id: &'static str,
}

/// The seven commands on one dialect's plugin: install, update, autoupdate, sync (its
/// directory gone), sync --force (a file added), remove, rollback.
fn scenarios_of(t: &Path, dialect: &str, f: &Fixture, out: &mut Vec<Scenario>) {
    let home = |what: &str| t.join(format!("{dialect}-{what}"));
    let url = f.repo.url();
    let scenario = |name: &str, template: PathBuf, args: &[&str]| Scenario {
        name: format!("{dialect}-{name}"),
        template,
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        rerun_may_fail: name == "remove",
        builds_in_place: false,
        env: Vec::new(),
    };
    commit_version(&f.repo, f.dialect, "1.0.0");
    let v1 = git(&f.repo.dir, &["rev-parse", "HEAD"]).trim().to_owned();
    let installed = home("v1");
    let (code, o, e) = install(&installed, &[&url, "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    let gone = home("gone");
    copy_dir(&installed, &gone);
    std::fs::remove_dir_all(gone.join("plugins").join(f.id)).unwrap();
    let added = home("added");
    copy_dir(&installed, &added);
    std::fs::write(added.join("plugins").join(f.id).join("notes.txt"), "mine\n").unwrap();
    let policy = home("policy");
    copy_dir(&installed, &policy);
    std::fs::write(
        policy.join("plugins.toml"),
        format!(
            "[update_policy.\"{}\"]\ntrack = \"main\"\nwhen = \"always\"\n",
            f.id
        ),
    )
    .unwrap();
    commit_version(&f.repo, f.dialect, "2.0.0");
    let updated = home("updated");
    copy_dir(&installed, &updated);
    Plugins::new()
        .args(["update", "--all", "--yes"])
        .home(&updated)
        .run()
        .success();
    let empty = home("empty");
    std::fs::create_dir_all(&empty).unwrap();
    out.push(scenario(
        "install",
        empty,
        &["install", &url, "--ref", "main", "--yes"],
    ));
    out.push(scenario(
        "update",
        installed.clone(),
        &["update", "--all", "--yes"],
    ));
    out.push(scenario("autoupdate", policy, &["autoupdate", "--force"]));
    out.push(scenario("sync", gone, &["sync", "--yes"]));
    out.push(scenario("sync-force", added, &["sync", "--force", "--yes"]));
    out.push(scenario("remove", installed, &["remove", f.id]));
    out.push(scenario(
        "rollback",
        updated,
        &["rollback", f.id, "--to", &v1],
    ));
}

#[cfg(target_os = "linux")]
#[test]
#[allow(clippy::print_stderr)] // the counts are the report docs/RELIABILITY.md quotes
fn kill_nine_at_every_syscall_loses_nothing() {
    if !kill::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let mut scenarios = Vec::new();
    for (dialect, id) in DIALECT_PLUGINS {
        let f = Fixture {
            repo: Repo::init(&t.join(format!("{dialect}-repo"))),
            dialect,
            id,
        };
        scenarios_of(t, dialect, &f, &mut scenarios);
    }

    // aoe with build steps: a fresh install and an update, built in place.
    let built = Repo::init(&t.join("built"));
    built_aoe(&built, "1.0.0", GOOD_BUILD);
    let empty = t.join("empty-home");
    std::fs::create_dir_all(&empty).unwrap();
    let built_v1 = t.join("built-v1");
    let (code, o, e) = install(&built_v1, &[&built.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    built_aoe(&built, "2.0.0", GOOD_BUILD);
    for (name, template, args) in [
        (
            "aoe-build-install",
            empty,
            vec!["install", "--ref", "main", "--yes"],
        ),
        (
            "aoe-build-update",
            built_v1,
            vec!["update", "--all", "--yes"],
        ),
    ] {
        let mut args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        if name.ends_with("install") {
            args.insert(1, built.url());
        }
        scenarios.push(Scenario {
            name: name.to_owned(),
            template,
            args,
            rerun_may_fail: false,
            builds_in_place: true,
            env: Vec::new(),
        });
    }

    // Children: an update fetched by the git command (git-command mode), and a protoAgent
    // update whose wheel deps pip installs.
    let cli = Repo::init(&t.join("cli-repo"));
    commit_version(&cli, "aoe", "1.0.0");
    let cli_v1 = t.join("cli-v1");
    let (code, o, e) = install(&cli_v1, &[&cli.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    commit_version(&cli, "aoe", "2.0.0");
    scenarios.push(Scenario {
        name: "aoe-git-command-update".to_owned(),
        template: cli_v1,
        args: ["update", "--all", "--yes"].map(str::to_owned).to_vec(),
        rerun_may_fail: false,
        builds_in_place: false,
        env: vec![("PLUGINS_GIT_FETCH_WITH_CLI".into(), "1".into())],
    });
    scenarios.push(deps_update(t));

    let mut counts = Counts::default();
    let work = t.join("work");
    std::fs::create_dir_all(&work).unwrap();
    for s in &scenarios {
        exercise(s, &work, &mut counts);
    }
    eprintln!(
        "crash consistency: {} commands, {} kill points ({} in a child process), {} reran to the new state cleanly ({} of them a remove killed after it had finished, whose rerun says not installed), {} with every kept plugin in place for the host; files and lock of an updated plugin disagreed at {:?} (and at {} points of builds in place)",
        scenarios.len(),
        counts.points,
        counts.in_children,
        counts.ok,
        counts.not_installed,
        counts.host_saw_plugins,
        counts.disagreed,
        counts.disagreed_building,
    );
    assert!(
        counts.points >= scenarios.len() * 5,
        "kills were injected: {}",
        counts.points
    );
    assert!(
        counts.in_children > 0,
        "kills were injected in child processes"
    );
    assert!(
        counts.failures.is_empty(),
        "{} of {} kill points lost something:\n{}",
        counts.failures.len(),
        counts.points,
        counts.failures.join("\n\n")
    );
}

/// The injector counts the calls of every process of a command in order and kills them
/// all before the chosen call runs: a kill at a child's call leaves its parent no time to
/// go on.
#[cfg(target_os = "linux")]
#[test]
fn the_kill_takes_the_whole_command_before_the_call() {
    if !kill::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = |dir: &Path| {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "mkdir a; sh -c 'mkdir b; mkdir c'; mkdir d"])
            .current_dir(dir);
        cmd
    };
    let mkdir = FAMILIES.iter().position(|(f, _)| *f == "mkdir").unwrap();
    let counted = kill::run(&mut script(tmp.path()), None).unwrap();
    assert_eq!((counted.code, counted.calls[mkdir]), (Some(0), 4));
    let killed = tmp.path().join("killed");
    std::fs::create_dir(&killed).unwrap();
    let traced = kill::run(&mut script(&killed), Some((mkdir, 3))).unwrap();
    assert!(traced.killed && traced.in_child, "{traced:?}");
    let made: Vec<_> = ["a", "b", "c", "d"]
        .into_iter()
        .filter(|d| killed.join(d).exists())
        .collect();
    assert_eq!(
        made,
        ["a", "b"],
        "the third mkdir never ran, nor anything after it"
    );
}

/// A protoAgent plugin installed with `--deps` (its wheel `demolib` from a local index)
/// whose next commit requires `helperlib` instead: `update` runs pip for it.
#[cfg(target_os = "linux")]
fn deps_update(t: &Path) -> Scenario {
    let index = t.join("wheels");
    for (name, version) in [("demolib", "1.0.0"), ("helperlib", "2.0.0")] {
        wheel_with(
            Path::new("python3"),
            &index,
            name,
            version,
            &format!("VERSION = \"{version}\"\n"),
        );
    }
    let repo = Repo::init(&t.join("deppy"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip: [demolib]\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("v1");
    // pip run by the interpreter itself, not through a version manager's shim (pyenv's
    // wraps pip in a rehash under a lock of its own in the user's home, which a kill leaves
    // behind for every later pip on the machine); its temp files in the test's directory.
    let python = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .unwrap();
    let python = PathBuf::from(String::from_utf8(python.stdout).unwrap().trim());
    let path = std::env::join_paths(
        std::iter::once(python.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let tmp = t.join("pip-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let env = vec![
        ("PIP_NO_INDEX".to_owned(), "1".to_owned()),
        ("PIP_FIND_LINKS".to_owned(), index.display().to_string()),
        ("PATH".to_owned(), path.to_string_lossy().into_owned()),
        ("TMPDIR".to_owned(), tmp.display().to_string()),
    ];
    let home = t.join("deppy-v1");
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--ref", "main", "--yes", "--deps"])
        .home(&home)
        .envs(env.iter().map(|(k, v)| (k, v)));
    cmd.run().success();
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 2.0.0\nrequires_pip: [helperlib]\n",
    );
    repo.commit("v2");
    Scenario {
        name: "protoagent-deps-update".to_owned(),
        template: home,
        args: ["update", "--all", "--yes"].map(str::to_owned).to_vec(),
        rerun_may_fail: false,
        builds_in_place: false,
        env,
    }
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
    let mut child = Plugins::new()
        .args(args)
        .home(home)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
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
            // The lock is held.
            Plugins::new()
                .args(["remove", "dev.example.pinned", "--no-wait"])
                .home(&home)
                .redact("[HOME]", &home)
                .run()
                .expect(
                    2,
                    str![],
                    str![[r#"
plugins::io

  × cannot lock [HOME]: another plugins process holds the home lock

"#]],
                );
            std::fs::remove_dir_all(home.join("plugins/dev.example.pinned")).unwrap();
            std::fs::write(home.join("plugins.lock"), "lock_version = 2\n").unwrap();
        });
    assert_eq!(code, Some(1), "{stderr}");
    assert_redacted(
        &stderr,
        &[
            ("[HOME]", home.display().to_string()),
            ("[TMP]", tmp.path().display().to_string()),
        ],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960
     Waiting for another plugins process to release [HOME]
plugins::install::concurrent

  × dev.example.pinned changed in the home while this command was fetching; nothing was changed
  help: run the command again

"#]],
    );
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
                let ran = Plugins::new().args(&args).home(Path::new(&h)).run();
                // parts: eight commands race on one home; what each prints depends on the order
                let (code, o, e) = ran.parts();
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
    Plugins::new()
        .args(["update", "--all", "--yes"])
        .home(&other)
        .run()
        .success();

    // The other process lands the same update (its lock and plugin), then lets go.
    let (code, _, stderr) =
        while_another_holds_the_lock(&home, &["update", "--all", "--yes"], || {
            std::fs::remove_dir_all(home.join("plugins")).unwrap();
            copy_dir(&other.join("plugins"), &home.join("plugins"));
            std::fs::copy(other.join("plugins.lock"), home.join("plugins.lock")).unwrap();
        });
    assert_eq!(code, Some(0), "{stderr}");
    assert_redacted(
        &stderr,
        &[
            ("[HOME]", home.display().to_string()),
            ("[TMP]", tmp.path().display().to_string()),
        ],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960
     Waiting for another plugins process to release [HOME]

"#]],
    );
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
    let pairs = [
        ("[HOME]", home.display().to_string()),
        ("[TMP]", tmp.path().display().to_string()),
    ];
    assert_redacted(
        &stdout,
        &pairs,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [
    "dev.example.pinned"
  ],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
    );
    assert_redacted(
        &stderr,
        &pairs,
        str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched c7849e65b960
[AT] Waiting for another plugins process to release [HOME]

"#]],
    );
}

/// Issue #40: three sweeps of one home at once, round after round, each with a newer
/// commit to take: every sweep exits 0 (one that finds another sweeping the home skips it,
/// `running`), none deletes another's temp file (before: "cannot replace
/// <home>/.autoupdate.json: No such file or directory", exit 2, in 8 of 20 rounds), and
/// the home ends at the newest version with nothing left over.
#[test]
fn concurrent_sweeps_of_one_home_all_exit_0() {
    const ROUNDS: usize = 12;
    let tmp = tempfile::tempdir().unwrap();
    let (repo, home) = installed_with_a_newer_commit(
        tmp.path(),
        Some("[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n"),
    );
    for round in 0..ROUNDS {
        let sweeps: Vec<_> = (0..3)
            .map(|_| {
                let home = home.clone();
                std::thread::spawn(move || {
                    let ran = Plugins::new()
                        .args(["autoupdate", "--force", "--json"])
                        .home(&home)
                        .run();
                    // parts: three sweeps race; which one takes the update varies by round
                    ran.parts()
                })
            })
            .collect();
        for sweep in sweeps {
            let (code, stdout, stderr) = sweep.join().unwrap();
            assert_eq!(code, 0, "round {round}: {stdout}{stderr}");
            let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(
                doc["failed"],
                serde_json::json!([]),
                "round {round}: {stdout}"
            );
            // A sweep that finds another sweeping the home skips it, and says why.
            for skipped in doc["skipped_homes"].as_array().unwrap() {
                assert_eq!(skipped["reason"], "running", "round {round}: {stdout}");
                assert_eq!(
                    skipped["help"], "another `plugins autoupdate` is sweeping it",
                    "round {round}: {stdout}"
                );
            }
        }
        let version = format!("{}.0.0", round + 3);
        assert!(leftovers(&home).is_empty(), "{:?}", leftovers(&home));
        repo.file("aoe-plugin.toml", &static_aoe(&version));
        repo.commit(&version);
    }
    // A temp file names its owner (`<file>.<pid>-<start>.<random>.tmp`): a live process's
    // (this test's) is left to it, a dead one's deleted.
    let owner = |pid: u32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let start = stat.rsplit_once(')').unwrap().1.split_whitespace().nth(19);
        format!("{pid}-{}", start.unwrap())
    };
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_owner = owner(gone.id());
    gone.wait().unwrap();
    let live = home.join(format!(
        ".autoupdate.json.{}.AbC123.tmp",
        owner(std::process::id())
    ));
    let dead = home.join(format!(".autoupdate.json.{gone_owner}.AbC123.tmp"));
    std::fs::write(&live, "{\"last_sw").unwrap();
    std::fs::write(&dead, "{\"last_sw").unwrap();
    Plugins::new()
        .args(["autoupdate", "--force"])
        .home(&home)
        .redact("[HOME]", &home)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
[AT] Updated dev.example.pinned 13.0.0 (main @ f5b8cfd8d8) -> 14.0.0 (main @ 148ad99c88) in [HOME]: branch main has new commits
[AT] autoupdate: 1 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed

"#]], str![[r#"
[AT] Recovered (removed 1 leftover)
[AT] Fetching file://[TMP]/repo
[AT] Fetched 148ad99c8819

"#]]);
    assert_eq!(
        locked(&home, "dev.example.pinned", "version"),
        format!("{}.0.0", ROUNDS + 2)
    );
    assert!(live.exists(), "a live writer's temp file was deleted");
    assert!(!dead.exists(), "a dead writer's temp file was left");
}

/// Issue #40: a plugins directory on another file system than the home's state directory
/// (here a symlink into /dev/shm, a tmpfs): an update exchanges the new tree in on the
/// plugins directory's own file system and never deletes the installed tree to copy the
/// new one in (before, both moves were a copy and a delete, and a kill in between left a
/// host half a plugin or none). The home ends updated, verified, with nothing left over.
#[cfg(target_os = "linux")]
#[test]
fn a_plugins_directory_on_another_file_system_is_exchanged_not_copied() {
    use std::os::unix::fs::MetadataExt;
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir_in("/dev/shm");
    let dev = |p: &Path| std::fs::metadata(p).map(|m| m.dev()).ok();
    let other = match other {
        Ok(o) if dev(o.path()).is_some() && dev(o.path()) != dev(tmp.path()) => o,
        _ => {
            crate::support::skip(
                "no file system other than the temp directory's at /dev/shm",
                "the cross-file-system swap tests",
            );
            return;
        }
    };
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let plugins = other.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::os::unix::fs::symlink(&plugins, home.join("plugins")).unwrap();
    let (code, o, e) = install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    let trace = tmp.path().join("trace");
    let out = Plugins::new()
        .args(["update", "--all", "--yes"])
        .home(&home)
        .wrapped_in(
            &strace,
            [
                "-f".as_ref(),
                "-qq".as_ref(),
                "-y".as_ref(),
                "-e".as_ref(),
                "trace=unlink,unlinkat,rmdir,rename,renameat,renameat2".as_ref(),
                "-o".as_ref(),
                trace.as_os_str(),
            ],
        )
        .output();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let installed = plugins.join("dev.example.pinned").display().to_string();
    let deleted: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("unlink") || l.contains("rmdir"))
        .filter(|l| l.contains(&format!("{installed}>")) || l.contains(&format!("{installed}/")))
        .collect();
    assert_eq!(
        deleted,
        Vec::<&str>::new(),
        "the installed tree was deleted:\n{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("RENAME_EXCHANGE") && l.contains(" = 0")),
        "one exchange swapped the trees:\n{text}"
    );
    assert_eq!(locked(&home, "dev.example.pinned", "version"), "2.0.0");
    verify_ok(&home).unwrap();
    assert!(leftovers(&home).is_empty(), "{:?}", leftovers(&home));
    assert!(
        !plugins.join(".plugins-txn").exists(),
        "the swap area is tidied"
    );
    // The kept version rolls back across the file systems too.
    Plugins::new()
        .args(["rollback", "dev.example.pinned"])
        .home(&home)
        .redact("[HOME]", &home)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
 Rolled back dev.example.pinned 2.0.0 (c7849e6) -> 1.0.0 (98dbc36) in [HOME]
        Held dev.example.pinned at 1.0.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.pinned` or `plugins unhold dev.example.pinned`

"#]], str![]);
    assert_eq!(locked(&home, "dev.example.pinned", "version"), "1.0.0");
    verify_ok(&home).unwrap();
}

/// A temp file of an atomic write that a kill interrupted (here `.autoupdate.json`'s) is
/// cleaned by the next command, even one with nothing to change; `doctor` names it first.
#[test]
fn a_temp_file_of_an_interrupted_write_is_cleaned_by_a_sweep_with_nothing_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    let (code, o, e) = install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    let stray = home.join(".autoupdate.json.k1ll3d.tmp");
    std::fs::write(&stray, "{\"last_sw").unwrap();
    // parts: doctor's other lines depend on the machine (the hosts installed, the user's home)
    let (_, stdout, stderr) = Plugins::new().args(["doctor"]).home(&home).run().parts();
    assert!(
        stderr.contains(
            ".autoupdate.json.k1ll3d.tmp is the temp file of a write that was interrupted"
        ) || stdout.contains(
            ".autoupdate.json.k1ll3d.tmp is the temp file of a write that was interrupted"
        ),
        "{stdout}{stderr}"
    );
    Plugins::new()
        .args(["autoupdate", "--force"])
        .home(&home)
        .redact("[HOME]", &home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
[AT] autoupdate: 0 updated, 1 up to date, 0 deferred (busy), 0 need approval, 0 failed

"#]],
            str![[r#"
[AT] Recovered (removed 1 leftover)

"#]],
        );
    assert!(!stray.exists(), "{:?}", leftovers(&home));
    assert!(leftovers(&home).is_empty(), "{:?}", leftovers(&home));
}
