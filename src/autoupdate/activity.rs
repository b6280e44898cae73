//! The idle signal (`<home>/activity`) and the applied-events log (`<home>/events.jsonl`).

use fs_err::File;
use std::fs::TryLockError;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::store::Home;

/// The host's activity, as the idle gate sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    /// The marker was touched this many seconds ago, within the grace window.
    Recent(u64),
    /// A turn holds the marker's lock right now.
    InFlight,
}

pub fn activity_path(home: &Home) -> PathBuf {
    home.root.join("activity")
}

pub fn activity(home: &Home, grace: Duration) -> Activity {
    let path = activity_path(home);
    let Ok(file) = File::open(&path) else {
        return Activity::Idle;
    };
    if let Err(TryLockError::WouldBlock) = file.try_lock_shared() {
        return Activity::InFlight;
    }
    let modified = file.metadata().and_then(|m| m.modified()).ok();
    let age = match modified.map(|t| t.elapsed()) {
        Some(Ok(age)) => age,
        // Touched "in the future" (a clock that was ahead): taken as now (a sweep stamps
        // it so first: [`restamp_future_activity`]).
        Some(Err(_)) => Duration::ZERO,
        None => Duration::MAX,
    };
    if age < grace {
        Activity::Recent(age.as_secs())
    } else {
        Activity::Idle
    }
}

/// A marker touched "in the future" (a clock that was ahead) is stamped now, so that the
/// grace window counts from now rather than from a date to come. Run by a sweep before it
/// reads [`activity`]; `doctor` only reads.
pub fn restamp_future_activity(home: &Home) {
    let path = activity_path(home);
    let future = fs_err::metadata(&path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t > SystemTime::now());
    if future {
        let _ = File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(SystemTime::now()));
    }
}

/// Mark activity now (a turn started or ended).
pub fn touch(home: &Home) -> std::io::Result<File> {
    fs_err::create_dir_all(&home.root)?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(activity_path(home))?;
    file.set_modified(SystemTime::now())?;
    Ok(file)
}

/// Hold the activity lock (a turn in flight) until the returned file is dropped.
pub fn hold(home: &Home) -> std::io::Result<File> {
    let file = touch(home)?;
    file.lock()?;
    Ok(file)
}

/// Append one event as a JSON line to `<home>/events.jsonl`, redacted as output is.
pub fn append_event(home: &Home, event: &serde_json::Value) -> std::io::Result<()> {
    let mut event = event.clone();
    crate::auth::redact_json(&mut event);
    let mut f = fs_err::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.root.join("events.jsonl"))?;
    writeln!(f, "{event}")?;
    f.sync_all()
}
