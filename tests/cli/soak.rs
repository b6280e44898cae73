//! Soak: autoupdate sweeps over one home per dialect against a loopback git server that
//! fails at random (500s, resets, stalls, packs cut off half-way), with sweeps killed at
//! random moments and the recorded times skewed at random (the last sweep and the host's
//! activity in the future or the past, as a clock that was once ahead or behind leaves
//! them: `plugins` reads the clock only through `src/clock.rs`, so the skew is put in
//! what it reads). Everything is drawn from one seeded generator (`PLUGINS_SOAK_SEED`).
//!
//! Counted: sweeps, kills, leftovers after a sweep that ran to its end, plugins a host
//! would not find (after any sweep, killed or not), processes left running, and after a
//! last calm sweep, whether every home reached its newest version. The normal suite runs
//! 20 sweeps; `PLUGINS_SOAK_SWEEPS=500` is the run docs/RELIABILITY.md reports.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use crate::support::git::{Repo, git};
use crate::support::home::{leftovers, verify_ok};
use crate::support::net::{FlakyServer, xorshift};
use crate::support::*;

/// The processes whose command line names `dir` (a `plugins` run or a child of one).
fn processes_naming(dir: &Path) -> Vec<String> {
    let out = Command::new("pgrep")
        .arg("-af")
        .arg(dir.as_os_str())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The locked version of `id` in `home`, if it is locked.
fn locked_version(home: &Path, id: &str) -> Option<String> {
    let (code, stdout, stderr) = run(plugins().args(["list", "--json", "--home"]).arg(home));
    assert_eq!(code, 0, "the lock parses: {stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .map(|p| p["version"].as_str().unwrap_or_default().to_owned())
}

#[derive(Debug, Default)]
struct Tally {
    sweeps: usize,
    kills: usize,
    /// Exit codes of the sweeps that ran to their end.
    codes: std::collections::BTreeMap<i32, usize>,
    leftovers: usize,
    lost: usize,
    processes_left: usize,
    problems: Vec<String>,
}

#[test]
#[allow(clippy::print_stderr)] // the tally is the report docs/RELIABILITY.md quotes
fn autoupdate_sweeps_survive_a_failing_server_kills_and_a_skewed_clock() {
    let sweeps: usize = std::env::var("PLUGINS_SOAK_SWEEPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("PLUGINS_SOAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(26);
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let served = t.join("served");
    let server = FlakyServer::start(&served, seed, Duration::from_millis(1500));
    server.calm.store(true, Ordering::SeqCst);
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;

    // One home per dialect, its plugin installed from the server and opted in; one of
    // them updates only when the host is idle.
    let mut homes = Vec::new();
    for (i, (dialect, id)) in DIALECT_PLUGINS.into_iter().enumerate() {
        let repo = Repo::init(&t.join(format!("{dialect}-work")));
        commit_version(&repo, dialect, "1.0.0");
        let bare = served.join(format!("{dialect}.git"));
        repo.clone_bare(&bare);
        let home = t.join(format!("home-{dialect}"));
        let url = format!("{}/{dialect}.git", server.base);
        let (code, o, e) = install(&home, &[&url, "--ref", "main"]);
        assert_eq!(code, 0, "{o}{e}");
        let when = if i == 0 { "idle" } else { "always" };
        std::fs::write(
            home.join("plugins.toml"),
            format!("[update_policy.\"{id}\"]\ntrack = \"main\"\nwhen = \"{when}\"\n"),
        )
        .unwrap();
        homes.push((dialect, id, repo, bare, home, 1u32));
    }
    server.calm.store(false, Ordering::SeqCst);

    let mut tally = Tally::default();
    let day = 86_400u64;
    for n in 0..sweeps {
        let pick = (xorshift(&mut rng) % 3) as usize;
        let (dialect, id, repo, bare, home, version) = &mut homes[pick];
        if xorshift(&mut rng).is_multiple_of(2) {
            *version += 1;
            commit_version(repo, dialect, &format!("{version}.0.0"));
            git(
                &repo.dir,
                &["push", "-q", bare.to_str().unwrap(), "HEAD:main"],
            );
        }
        // The clock as the home's records tell it: a last sweep and an activity up to 30
        // days ahead or behind, or none.
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let skew = xorshift(&mut rng) % (30 * day);
        let record = home.join(".autoupdate.json");
        match xorshift(&mut rng) % 4 {
            0 => std::fs::write(&record, format!("{{\"last_sweep\": {}}}\n", now + skew)).unwrap(),
            1 => std::fs::write(&record, format!("{{\"last_sweep\": {}}}\n", now - skew)).unwrap(),
            2 => {
                let _ = std::fs::remove_file(&record);
            }
            _ => {}
        }
        let activity = home.join("activity");
        let marked = std::fs::File::create(&activity).unwrap();
        let at = if xorshift(&mut rng).is_multiple_of(2) {
            SystemTime::now() + Duration::from_secs(skew)
        } else {
            SystemTime::now() - Duration::from_secs(skew)
        };
        marked.set_modified(at).unwrap();
        drop(marked);

        let force = !xorshift(&mut rng).is_multiple_of(3);
        let kill_after = (xorshift(&mut rng).is_multiple_of(3))
            .then(|| Duration::from_millis(xorshift(&mut rng) % 150));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_plugins"));
        cmd.args(["autoupdate", "--timeout", "1", "--grace", "60", "--home"])
            .arg(&*home)
            .env("NO_COLOR", "1")
            .env_remove("PLUGINS_HOME")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if force {
            cmd.arg("--force");
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(after) = kill_after {
            // The kill is the fault injected, at a random moment (not a check).
            std::thread::sleep(after);
            let _ = child.kill();
        }
        let status = child.wait().unwrap();
        tally.sweeps += 1;
        let killed = {
            use std::os::unix::process::ExitStatusExt;
            status.signal() == Some(9)
        };
        // What a host sees now, before any recovery.
        if !home.join("plugins").join(*id).is_dir() {
            tally.lost += 1;
            tally
                .problems
                .push(format!("sweep {n} ({dialect}): plugins/{id} is missing"));
        }
        if killed {
            tally.kills += 1;
            continue;
        }
        let code = status.code().unwrap_or(-1);
        *tally.codes.entry(code).or_default() += 1;
        if !matches!(code, 0 | 1) {
            tally
                .problems
                .push(format!("sweep {n} ({dialect}): exit {status}"));
        }
        let left = leftovers(home);
        if !left.is_empty() {
            tally.leftovers += 1;
            tally
                .problems
                .push(format!("sweep {n} ({dialect}): leftovers {left:?}"));
        }
        if locked_version(home, id).is_none() {
            tally.lost += 1;
            tally
                .problems
                .push(format!("sweep {n} ({dialect}): {id} is not locked"));
        }
    }

    // A calm sweep of each home reaches its newest version and leaves nothing behind.
    server.calm.store(true, Ordering::SeqCst);
    for (dialect, id, _, _, home, version) in &homes {
        // The host's activity is long past: the idle home updates too.
        std::fs::File::options()
            .write(true)
            .open(home.join("activity"))
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        let (code, o, e) = run(plugins()
            .args(["autoupdate", "--force", "--grace", "60", "--home"])
            .arg(home));
        if code != 0 {
            tally
                .problems
                .push(format!("{dialect}: the calm sweep: exit {code}: {o}{e}"));
        }
        let want = format!("{version}.0.0");
        if locked_version(home, id).as_deref() != Some(want.as_str()) {
            tally.lost += 1;
            tally.problems.push(format!(
                "{dialect}: after the calm sweep {id} is at {:?}, not {want}",
                locked_version(home, id)
            ));
        }
        let left = leftovers(home);
        if !left.is_empty() {
            tally.leftovers += 1;
            tally.problems.push(format!(
                "{dialect}: leftovers after the calm sweep: {left:?}"
            ));
        }
        if let Err(e) = verify_ok(home) {
            tally.problems.push(format!("{dialect}: {e}"));
        }
    }
    let running = processes_naming(t);
    tally.processes_left = running.len();
    if !running.is_empty() {
        tally.problems.push(format!("processes left: {running:?}"));
    }
    let faults = server.faults.lock().unwrap().clone();
    eprintln!(
        "soak (seed {seed}): {} sweeps, {} killed, exit codes {:?}, {} with leftovers, {} lost plugins, {} processes left; the server: {faults:?}",
        tally.sweeps, tally.kills, tally.codes, tally.leftovers, tally.lost, tally.processes_left,
    );
    assert_eq!(tally.sweeps, sweeps);
    assert!(
        faults.errors + faults.resets + faults.stalls + faults.truncated > 0,
        "faults were injected: {faults:?}"
    );
    assert!(tally.problems.is_empty(), "{}", tally.problems.join("\n"));
}
