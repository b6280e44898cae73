//! Auto-update policy and state in a home: `<home>/plugins.toml` (the policy),
//! `<home>/.autoupdate.json` (when the last sweep ran), `<home>/activity` (the idle
//! signal) and `<home>/events.jsonl` (what was applied).
//!
//! The idle signal: the host (or a wrapper, `plugins activity hold -- CMD`) holds an
//! advisory lock on `<home>/activity` while a turn runs, and touches it when a turn
//! starts and ends. A held lock means "in flight"; a modification time within the
//! grace window means "was just in flight". Either defers `when = "idle"` updates.

use std::path::PathBuf;

use crate::store::Home;

mod activity;
mod policy;
#[cfg(test)]
mod tests;

pub use activity::{
    Activity, activity, activity_path, append_event, hold, restamp_future_activity, touch,
};
pub use policy::{Policy, PolicyFile, Rule, load_policy, policy_path};

fn state_path(home: &Home) -> PathBuf {
    home.autoupdate_state()
}

fn now_secs() -> u64 {
    crate::clock::now_secs()
}

/// When the last sweep ran, read only: `Ok(seconds ago)`, or `Err(seconds ahead)` for a
/// sweep recorded in the future (a clock that was once ahead); `None`: no sweep yet.
pub fn last_sweep(home: &Home) -> Option<Result<u64, u64>> {
    let text = crate::file::read_to_string(state_path(home)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let last = v.get("last_sweep")?.as_u64()?;
    let now = now_secs();
    Some(if last > now {
        Err(last - now)
    } else {
        Ok(now - last)
    })
}

/// Seconds since the last sweep, if one ran. A sweep recorded in the future (a clock that
/// was once ahead) is taken as now and recorded so: the interval then counts from now,
/// instead of every later sweep seeing "0 s ago" until the clock catches up. A sweep calls
/// this; `doctor` reads [`last_sweep`] and only reports.
pub fn since_last_sweep(home: &Home) -> Option<u64> {
    let ahead = match last_sweep(home)? {
        Ok(age) => return Some(age),
        Err(ahead) => ahead,
    };
    {
        log::warn!(
            "{}: the last sweep is recorded {ahead} s in the future; taken as now",
            state_path(home).display(),
        );
        let _ = record_sweep(home);
    }
    Some(0)
}

pub fn record_sweep(home: &Home) -> Result<(), crate::lock::LockError> {
    let text = format!("{{\"last_sweep\": {}}}\n", now_secs());
    crate::lock::write_atomic(&state_path(home), text.as_bytes())
}
