//! Soak: autoupdate sweeps over one home per dialect against a loopback git server that
//! fails at random (500s, resets, stalls, packs cut off half-way), with sweeps killed at
//! random moments, a real clock skewed at random (libfaketime: the sweep runs 30 days ahead
//! or behind, so a sweep at the real time after one ahead is a jump back), and the
//! recorded times skewed at random (the last sweep and the host's activity in the future
//! or the past, as a clock that was once ahead or behind leaves them). Everything is drawn
//! from one seeded generator (`PLUGINS_SOAK_SEED`).
//!
//! Counted: sweeps, kills, leftovers after a sweep that ran to its end, plugins a host
//! would not find (after any sweep, killed or not), processes left running, future times
//! `doctor` did not report, a last sweep left in the future by a sweep that ran to its end
//! (autoupdate stopped), and after a last calm sweep, whether every home reached its newest
//! version; then, per home, a jump ahead and back: the sweep after the interval runs. The
//! normal suite runs 20 sweeps; `PLUGINS_SOAK_SWEEPS=500` is the run docs/RELIABILITY.md
//! reports.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use crate::support::clock::{faketime, skew};
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
    let (code, stdout, stderr) = Plugins::new()
        .args(["list", "--json"])
        .home(home)
        .run()
        // parts: a query, not a check: the version is read from the JSON (which one is random)
        .parts();
    assert_eq!(code, 0, "the lock parses: {stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .map(|p| p["version"].as_str().unwrap_or_default().to_owned())
}

/// The last sweep `home` records, in seconds since the epoch.
fn last_sweep(home: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(home.join(".autoupdate.json")).ok()?;
    serde_json::from_str::<serde_json::Value>(&text).ok()?["last_sweep"].as_u64()
}

/// The real time, in seconds since the epoch.
fn real_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// `plugins ARGS --home HOME` with the wall clock `offset` seconds off.
fn skewed(lib: &Path, offset: i64, home: &Path, args: &[&str]) -> Plugins {
    let mut cmd = Plugins::new();
    cmd.args(args).home(home);
    skew(&mut cmd, lib, offset);
    cmd
}

/// `plugins doctor --offline` on `home` with the clock `offset` seconds off reports the
/// times it records in the future (`plugins::doctor::clock_ahead`).
fn doctor_says_ahead(lib: &Path, offset: i64, home: &Path) -> Result<(), String> {
    let (_, stdout, stderr) = skewed(lib, offset, home, &["doctor", "--offline"])
        .run()
        // parts: counted in the tally, not failed at once; the times doctor reports are random
        .parts();
    if format!("{stdout}{stderr}").contains("plugins::doctor::clock_ahead") {
        Ok(())
    } else {
        Err(format!(
            "doctor did not report a time in the future: {stdout}{stderr}"
        ))
    }
}

#[derive(Debug, Default)]
struct Tally {
    sweeps: usize,
    kills: usize,
    /// Sweeps run with the real clock ahead, behind; sweeps at a clock behind the one the
    /// home's previous sweep ran with (a jump back).
    ahead: usize,
    behind: usize,
    jumps_back: usize,
    /// Times in the future (the last sweep, the idle signal) `doctor` was asked about, and
    /// how many it did not report.
    future_checked: usize,
    future_unreported: usize,
    /// Sweeps that ran to their end leaving the last sweep in the future (autoupdate
    /// stopped until the clock catches up).
    stopped: usize,
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
    let Some(lib) = faketime() else {
        return;
    };
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
        homes.push((dialect, id, repo, bare, home, 1u32, 0i64));
    }
    server.calm.store(false, Ordering::SeqCst);

    let mut tally = Tally::default();
    let day = 86_400u64;
    for n in 0..sweeps {
        let pick = (xorshift(&mut rng) % 3) as usize;
        let (dialect, id, repo, bare, home, version, last_clock) = &mut homes[pick];
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
        let record_skew = xorshift(&mut rng) % (30 * day);
        let record = home.join(".autoupdate.json");
        match xorshift(&mut rng) % 4 {
            0 => std::fs::write(
                &record,
                format!("{{\"last_sweep\": {}}}\n", now + record_skew),
            )
            .unwrap(),
            1 => std::fs::write(
                &record,
                format!("{{\"last_sweep\": {}}}\n", now - record_skew),
            )
            .unwrap(),
            2 => {
                let _ = std::fs::remove_file(&record);
            }
            _ => {}
        }
        let activity = home.join("activity");
        let marked = std::fs::File::create(&activity).unwrap();
        let at = if xorshift(&mut rng).is_multiple_of(2) {
            SystemTime::now() + Duration::from_secs(record_skew)
        } else {
            SystemTime::now() - Duration::from_secs(record_skew)
        };
        marked.set_modified(at).unwrap();
        drop(marked);

        // The real clock this sweep runs with: 30 days ahead, behind, or right.
        let clock: i64 = match xorshift(&mut rng) % 4 {
            0 => 30 * day as i64,
            1 => -30 * (day as i64),
            _ => 0,
        };
        tally.ahead += usize::from(clock > 0);
        tally.behind += usize::from(clock < 0);
        tally.jumps_back += usize::from(clock < *last_clock);
        *last_clock = clock;
        // A time recorded ahead of this clock: `doctor` says so (read only).
        let seen_now = real_now().saturating_add_signed(clock);
        let idle_signal = at.duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs();
        if last_sweep(home).is_some_and(|s| s > seen_now + 120) || idle_signal > seen_now + 120 {
            tally.future_checked += 1;
            if let Err(e) = doctor_says_ahead(&lib, clock, home) {
                tally.future_unreported += 1;
                tally.problems.push(format!("sweep {n} ({dialect}): {e}"));
            }
        }

        let force = !xorshift(&mut rng).is_multiple_of(3);
        let kill_after = (xorshift(&mut rng).is_multiple_of(3))
            .then(|| Duration::from_millis(xorshift(&mut rng) % 150));
        let mut cmd = Plugins::new();
        cmd.args(["autoupdate", "--timeout", "1", "--grace", "60"])
            .home(home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        skew(&mut cmd, &lib, clock);
        if force {
            cmd.arg("--force");
        }
        let mut child = cmd.spawn();
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
        // A last sweep in the future outlives no sweep: it is taken as now and recorded so.
        let after = real_now().saturating_add_signed(clock);
        if let Some(s) = last_sweep(home).filter(|&s| s > after + 5) {
            tally.stopped += 1;
            tally.problems.push(format!(
                "sweep {n} ({dialect}): the last sweep is left {} s in the future",
                s - after
            ));
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
    for (dialect, id, _, _, home, version, _) in &homes {
        // The host's activity is long past: the idle home updates too.
        std::fs::File::options()
            .write(true)
            .open(home.join("activity"))
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
        let (code, o, e) = Plugins::new()
            .args(["autoupdate", "--force", "--grace", "60"])
            .home(home)
            .run()
            // parts: counted in the tally; what the sweep prints follows from the random sweeps
            .parts();
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
    // A jump ahead and back: a sweep 30 days ahead records its time; at the real time
    // `doctor` reports it, a sweep takes it as now, and the sweep due after the interval
    // (6 h) runs, not "skipped (interval)" until the clock catches up.
    let mut jumped = 0;
    for (dialect, _, _, _, home, _, _) in &homes {
        let mut problems = Vec::new();
        let (code, o, e) = skewed(&lib, 30 * day as i64, home, &["autoupdate", "--force"])
            .run()
            // parts: counted in the tally; what the sweep prints follows from the random sweeps
            .parts();
        if code != 0 {
            problems.push(format!("the sweep 30 days ahead: exit {code}: {o}{e}"));
        }
        if let Err(e) = doctor_says_ahead(&lib, 0, home) {
            problems.push(e);
        }
        let (code, o, e) = skewed(&lib, 0, home, &["autoupdate", "--json"])
            .run()
            // parts: counted in the tally; what the sweep prints follows from the random sweeps
            .parts();
        if code != 0 || last_sweep(home).is_none_or(|s| s > real_now() + 5) {
            problems.push(format!(
                "the sweep back at the real time did not take the last sweep as now: exit {code}: {o}{e}"
            ));
        }
        let later = 6 * 3600 + 300;
        let (code, o, e) = skewed(&lib, later, home, &["autoupdate", "--json"])
            .run()
            // parts: counted in the tally; what the sweep prints follows from the random sweeps
            .parts();
        let doc: serde_json::Value = serde_json::from_str(&o).unwrap_or_default();
        if code != 0 || doc["skipped_homes"] != serde_json::json!([]) {
            problems.push(format!(
                "the sweep due after the interval did not run: exit {code}: {o}{e}"
            ));
        }
        if problems.is_empty() {
            jumped += 1;
        } else {
            tally.stopped += 1;
            tally
                .problems
                .extend(problems.into_iter().map(|p| format!("{dialect}: {p}")));
        }
    }

    let running = processes_naming(t);
    tally.processes_left = running.len();
    if !running.is_empty() {
        tally.problems.push(format!("processes left: {running:?}"));
    }
    let faults = server.faults.lock().unwrap().clone();
    eprintln!(
        "soak (seed {seed}): {} sweeps ({} with the clock 30 days ahead, {} behind, {} a jump back), {} killed, exit codes {:?}, {} with leftovers, {} lost plugins, {} processes left; times in the future: {} checked with doctor, {} unreported; {} sweeps left autoupdate stopped; a jump ahead and back swept after the interval in {jumped} of {} homes; the server: {faults:?}",
        tally.sweeps,
        tally.ahead,
        tally.behind,
        tally.jumps_back,
        tally.kills,
        tally.codes,
        tally.leftovers,
        tally.lost,
        tally.processes_left,
        tally.future_checked,
        tally.future_unreported,
        tally.stopped,
        homes.len(),
    );
    assert_eq!(tally.sweeps, sweeps);
    assert!(
        faults.errors + faults.resets + faults.stalls + faults.truncated > 0,
        "faults were injected: {faults:?}"
    );
    assert!(tally.problems.is_empty(), "{}", tally.problems.join("\n"));
}
