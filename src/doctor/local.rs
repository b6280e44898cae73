//! The checks that need no network: each home (its lock, its plugins' directories,
//! leftovers, activity, policy, its cron line through `cron.rs`) and the hosts' versions.

use std::time::Duration;

use super::cron::{cron_line, examine_cron};
use super::{Check, HomeToCheck, Mark, Options};
use crate::diagnostic::Code;
use crate::host::detect::PYTHON_HOSTS;
use crate::lock::Entry;
use crate::refusal::NamedRefusal as _;
use crate::store::Home;

pub(super) fn examine_home(
    h: &HomeToCheck,
    opts: &Options,
    locked: &mut Vec<(Home, Entry)>,
) -> Vec<Check> {
    let home = &h.home;
    let mut out = Vec::new();
    let at = |c: Check| c.home(home);
    let root = home.root.display();
    if !home.root.is_dir() {
        let check = if h.given {
            Check::new("home", Mark::Fail, format!("{root} does not exist"))
                .code(Code::DoctorHome)
                .help("check --home or PLUGINS_HOME; `plugins homes` shows each host's own home")
        } else {
            Check::new(
                "home",
                Mark::Info,
                format!(
                    "{root} does not exist: nothing is installed for {}",
                    h.home.dialect
                ),
            )
        };
        out.push(at(check));
        out.extend(h.notes.iter().cloned().map(at));
        return out;
    }
    out.push(at(Check::new("home", Mark::Ok, format!("{root} exists"))));
    out.extend(h.notes.iter().cloned().map(at));
    if home.is_locked() {
        out.push(at(Check::new(
            "home",
            Mark::Info,
            "another plugins process holds the home lock: a changing command waits for it (or fails with --no-wait)",
        )));
    }
    out.extend(examine_lock(h, locked).into_iter().map(at));
    out.extend(examine_leftovers(home).into_iter().map(at));
    out.push(at(examine_activity(home, opts.grace)));
    out.extend(examine_clock(home).map(at));
    out.extend(examine_policy(home).into_iter().map(at));
    if let Some(line) = cron_line(home, opts) {
        out.push(at(Check::new("cron", Mark::Info, line)));
        out.push(at(examine_cron(opts)));
    }
    out
}

/// The lock loads, and each entry's directory is there with the manifest it was
/// installed with.
fn examine_lock(h: &HomeToCheck, locked: &mut Vec<(Home, Entry)>) -> Vec<Check> {
    let (home, dialect) = (&h.home, h.home.dialect);
    let path = home.lockfile();
    if !path.exists() {
        return vec![Check::new(
            "lock",
            Mark::Info,
            format!("{} does not exist: no plugins are locked", path.display()),
        )];
    }
    let lock = match home.load_lock() {
        Ok(lock) => lock,
        Err(e) => {
            let mut c = Check::new("lock", Mark::Fail, e.to_string()).code(e.code());
            c.help = e.help();
            return vec![c];
        }
    };
    let entries = lock.entries();
    let mut out = vec![loads(&path, dialect, entries.len())];
    let remembered = crate::profile::Remembered::of(home);
    for e in entries {
        let dir = match home.locked_dir(&e) {
            Ok(dir) => dir,
            Err(err) => {
                let mut c = Check::new("plugin", Mark::Fail, err.to_string())
                    .code(err.code())
                    .id(&e.id);
                c.help = err.help();
                out.push(c);
                continue;
            }
        };
        if !dir.is_dir() && crate::verify::shipped_by_host(home, &e, &remembered) {
            // The host's own row of a plugin it ships: no directory of its own.
        } else if !dir.is_dir() {
            let help = if e.names_no_source() {
                format!(
                    "the lock records no source: `plugins remove {}` drops the row",
                    e.id
                )
            } else {
                "`plugins sync` installs it again at the locked commit".to_owned()
            };
            out.push(
                Check::new(
                    "plugin",
                    Mark::Fail,
                    format!("{}: {} is missing", e.id, dir.display()),
                )
                .code(Code::InstallMissing)
                .id(&e.id)
                .help(help),
            );
        } else if !e.manifest_hash.is_empty()
            && crate::file::read(dir.join(dialect.spec().manifest))
                .map(|b| crate::hash::bytes(&b))
                .ok()
                .as_ref()
                != Some(&e.manifest_hash)
        {
            out.push(
                Check::new(
                    "plugin",
                    Mark::Fail,
                    format!("{}: the manifest changed since install", e.id),
                )
                .code(Code::InstallTampered)
                .id(&e.id)
                .help("`plugins verify` lists what changed; `plugins sync --force` puts the locked files back"),
            );
        }
        locked.push((home.clone(), e));
    }
    if out.len() == 1 && !locked.is_empty() {
        out[0].message.push_str(", every directory present");
    }
    out
}

/// The lock at `path` (a `dialect` home's) loads, with `n` plugins.
fn loads(path: &std::path::Path, dialect: crate::dialect::Dialect, n: usize) -> Check {
    Check::new(
        "lock",
        Mark::Ok,
        format!(
            "{} ({dialect}) loads: {} {}",
            path.display(),
            n,
            if n == 1 { "plugin" } else { "plugins" }
        ),
    )
}

/// What killed processes left: intent records and staging directories.
fn examine_leftovers(home: &Home) -> Vec<Check> {
    let found = crate::install::txn::leftovers(home);
    let recovers = "the next command that changes this home (install, update, remove, sync, rollback) recovers it first";
    let mut out = Vec::new();
    for id in &found.pending {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!("a change to {id} was interrupted (its intent record is pending)"),
            )
            .code(Code::DoctorLeftover)
            .id(id)
            .help(format!(
                "{recovers}: it finishes or undoes the change; `plugins sync` does so now"
            )),
        );
    }
    for path in &found.broken_records {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!("{} is an unreadable intent record", path.display()),
            )
            .code(Code::DoctorLeftover)
            .help(format!("{recovers}: it deletes it")),
        );
    }
    for path in &found.stale_staging {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!(
                    "{} is a staging directory of a process that is gone",
                    path.display()
                ),
            )
            .code(Code::DoctorLeftover)
            .help(format!("{recovers}: it deletes it")),
        );
    }
    for path in &found.temp_files {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!(
                    "{} is the temp file of a write that was interrupted",
                    path.display()
                ),
            )
            .code(Code::DoctorLeftover)
            .help(format!("{recovers}: it deletes it")),
        );
    }
    if found.live_staging > 0 {
        out.push(Check::new(
            "leftovers",
            Mark::Info,
            format!(
                "{} staging directories belong to running plugins processes",
                found.live_staging
            ),
        ));
    }
    if out.is_empty() {
        out.push(Check::new(
            "leftovers",
            Mark::Ok,
            "no interrupted change, no stale staging directory",
        ));
    }
    out
}

/// A duration in words: `42 s`, `5 min`, `3 h`, `2 d`.
pub(super) fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

/// The idle signal `autoupdate` reads, and the last sweep.
fn examine_activity(home: &Home, grace: Duration) -> Check {
    let path = crate::autoupdate::activity_path(home);
    let touched = fs_err::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| {
            crate::clock::system_now()
                .duration_since(t)
                .unwrap_or_default()
                .as_secs()
        });
    let mut message = match (touched, crate::autoupdate::activity(home, grace)) {
        (None, _) => format!("idle signal {}: never touched (idle)", path.display()),
        (Some(_), crate::autoupdate::Activity::InFlight) => {
            format!(
                "idle signal {}: a turn is in flight (locked)",
                path.display()
            )
        }
        (Some(s), crate::autoupdate::Activity::Recent(_)) => format!(
            "idle signal {}: touched {} ago (busy for {} s after a touch)",
            path.display(),
            age(s),
            grace.as_secs()
        ),
        (Some(s), crate::autoupdate::Activity::Idle) => {
            format!(
                "idle signal {}: touched {} ago (idle)",
                path.display(),
                age(s)
            )
        }
    };
    match crate::autoupdate::last_sweep(home) {
        Some(Ok(s)) => message.push_str(&format!("; last autoupdate sweep {} ago", age(s))),
        // Read only: the next sweep takes it as now.
        Some(Err(ahead)) => message.push_str(&format!(
            "; last autoupdate sweep recorded {ahead} s in the future (a clock that was ahead: the next sweep takes it as now)"
        )),
        None => message.push_str("; no autoupdate sweep yet"),
    }
    Check::new("activity", Mark::Info, message)
}

/// The times the home records in the future (a clock that was once ahead): the last sweep,
/// the idle signal, first-seen versions. Each is taken as now where it is used (the next
/// sweep restamps the first two, `outdated`/`update` the last); read only here.
fn examine_clock(home: &Home) -> Option<Check> {
    let mut ahead = Vec::new();
    if let Some(Err(secs)) = crate::autoupdate::last_sweep(home) {
        ahead.push(format!("the last autoupdate sweep {} ahead", age(secs)));
    }
    let path = crate::autoupdate::activity_path(home);
    let touched = fs_err::metadata(&path).and_then(|m| m.modified()).ok();
    if let Some(Err(e)) = touched.map(|t| t.elapsed()) {
        ahead.push(format!(
            "the idle signal {} touched {} ahead",
            path.display(),
            age(e.duration().as_secs())
        ));
    }
    let (versions, far) = crate::update::first_seen_ahead(home);
    if versions > 0 {
        ahead.push(format!(
            "{versions} version{} first seen up to {} ahead in {}",
            if versions == 1 { "" } else { "s" },
            age(far),
            home.first_seen_record().display()
        ));
    }
    if ahead.is_empty() {
        return None;
    }
    Some(
        Check::new(
            "activity",
            Mark::Warn,
            format!(
                "times recorded in the future (the clock was ahead): {}; each is taken as now",
                ahead.join(", ")
            ),
        )
        .code(Code::DoctorClockAhead)
        .help("nothing to undo: the next `plugins autoupdate` sweep records the sweep and the idle signal as now, and `plugins outdated` or `update` the first-seen versions; if the clock is still ahead, fix it (timedatectl status)"),
    )
}

/// The autoupdate policy (`<home>/plugins.toml`): what is armed, and what is wrong
/// with the file (as `autoupdate` would warn).
fn examine_policy(home: &Home) -> Vec<Check> {
    let file = match crate::autoupdate::load_policy(home) {
        Ok(file) => file,
        Err(message) => {
            return vec![
                Check::new("activity", Mark::Fail, message.to_string())
                    .code(Code::ConfigInvalidValue)
                    .help("`plugins autoupdate` cannot run for this home until the file is fixed"),
            ];
        }
    };
    let p = &file.policy;
    let armed: Vec<&str> = p.rules.iter().map(|r| r.id.as_str()).collect();
    let message = if file.text.is_empty() {
        format!(
            "autoupdate policy {}: none (nothing is auto-updated)",
            file.path.display()
        )
    } else if p.interval_hours == 0 {
        format!(
            "autoupdate policy {}: sweeping disabled (interval 0)",
            file.path.display()
        )
    } else if armed.is_empty() {
        format!(
            "autoupdate policy {}: no plugin is armed",
            file.path.display()
        )
    } else {
        format!(
            "autoupdate policy {}: every {} h: {}",
            file.path.display(),
            p.interval_hours,
            armed.join(", ")
        )
    };
    let mut out = vec![Check::new("activity", Mark::Info, message)];
    for d in &file.warnings {
        let mut c = Check::new(
            "activity",
            Mark::Warn,
            format!("{}: {}", file.path.display(), d.message),
        )
        .code(d.code);
        c.help = d.help.clone();
        out.push(c);
    }
    out
}

/// The hosts' versions: `aoe --version`, and the protoAgent and AWorld packages of
/// the `python3` on PATH (`crate::host::detect`). Absent hosts are `info`, never a failure.
pub(super) fn host_versions(timeout: Duration) -> Vec<Check> {
    let failed = || crate::host::detect::ProbeError::Spawn(std::io::Error::other("failed"));
    let (aoe, python) = std::thread::scope(|s| {
        let aoe = s.spawn(|| crate::host::detect::aoe_version(timeout));
        let python = s.spawn(|| crate::host::detect::python_hosts("python3", timeout));
        (
            aoe.join().unwrap_or_else(|_| Err(failed())),
            python.join().unwrap_or_else(|_| Err(failed())),
        )
    });
    let mut out = vec![match aoe {
        Ok(v) if !v.is_empty() => Check::new("host", Mark::Info, format!("aoe: {v}")),
        Ok(_) => Check::new("host", Mark::Info, "aoe: `aoe --version` printed nothing"),
        Err(why) => Check::new("host", Mark::Info, format!("aoe: {why}")),
    }];
    match python {
        Ok(versions) => {
            for (i, (host, dist)) in PYTHON_HOSTS.iter().enumerate() {
                let message = match versions.get(i).cloned().flatten() {
                    Some(v) => format!("{host}: {dist} {v} (python3)"),
                    None => format!("{host}: python3 has no {dist} package"),
                };
                out.push(Check::new("host", Mark::Info, message));
            }
        }
        Err(why) => {
            for (host, _) in PYTHON_HOSTS {
                out.push(Check::new(
                    "host",
                    Mark::Info,
                    format!("{host}: python3 {why}"),
                ));
            }
        }
    }
    out
}
