//! Auto-update policy and state in a home: `<home>/plugins.toml` (the policy),
//! `<home>/.autoupdate.json` (when the last sweep ran), `<home>/activity` (the idle
//! signal) and `<home>/events.jsonl` (what was applied).
//!
//! The idle signal: the host (or a wrapper, `plugins activity hold -- CMD`) holds an
//! advisory lock on `<home>/activity` while a turn runs, and touches it when a turn
//! starts and ends. A held lock means "in flight"; a modification time within the
//! grace window means "was just in flight". Either defers `when = "idle"` updates.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::time::{Duration, SystemTime};

use crate::store::Home;

/// One armed plugin's policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    /// Informational, as in protoAgent: the lock's ref decides what is tracked.
    pub track: String,
    /// `when = "always"`: ignore the idle signal.
    pub always: bool,
}

/// `<home>/plugins.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// 0 disables sweeping.
    pub interval_hours: u64,
    /// Only plugins listed with a non-empty `track` auto-update (opt-in).
    pub rules: Vec<Rule>,
}

pub fn policy_path(home: &Home) -> std::path::PathBuf {
    home.root.join("plugins.toml")
}

/// Read the policy; a missing file means the defaults (every 6 hours, nothing armed).
pub fn load_policy(home: &Home) -> Result<Policy, String> {
    let path = policy_path(home);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        format!("{} is not valid TOML: {}", path.display(), e.message())
    })?;
    let interval_hours = match table.get("autoupdate_interval_hours") {
        None => 6,
        Some(v) => v
            .as_integer()
            .and_then(|i| u64::try_from(i).ok())
            .ok_or_else(|| {
                format!(
                    "{}: autoupdate_interval_hours must be a non-negative integer",
                    path.display()
                )
            })?,
    };
    let mut rules = Vec::new();
    if let Some(policies) = table.get("update_policy").and_then(toml::Value::as_table) {
        for (id, p) in policies {
            let track = p
                .get("track")
                .and_then(toml::Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_owned();
            if track.is_empty() {
                continue;
            }
            let always = p
                .get("when")
                .and_then(toml::Value::as_str)
                .is_some_and(|w| w.trim().eq_ignore_ascii_case("always"));
            rules.push(Rule {
                id: id.clone(),
                track,
                always,
            });
        }
    }
    Ok(Policy {
        interval_hours,
        rules,
    })
}

fn state_path(home: &Home) -> std::path::PathBuf {
    home.root.join(".autoupdate.json")
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seconds since the last sweep, if one ran.
pub fn since_last_sweep(home: &Home) -> Option<u64> {
    let text = std::fs::read_to_string(state_path(home)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(now_secs().saturating_sub(v.get("last_sweep")?.as_u64()?))
}

pub fn record_sweep(home: &Home) -> Result<(), crate::lock::LockError> {
    let text = format!("{{\"last_sweep\": {}}}\n", now_secs());
    crate::lock::write_atomic(&state_path(home), text.as_bytes())
}

/// The host's activity, as the idle gate sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    /// The marker was touched this many seconds ago, within the grace window.
    Recent(u64),
    /// A turn holds the marker's lock right now.
    InFlight,
}

pub fn activity_path(home: &Home) -> std::path::PathBuf {
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
    let age = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .unwrap_or(Duration::MAX);
    if age < grace {
        Activity::Recent(age.as_secs())
    } else {
        Activity::Idle
    }
}

/// Mark activity now (a turn started or ended).
pub fn touch(home: &Home) -> std::io::Result<File> {
    std::fs::create_dir_all(&home.root)?;
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

/// Append one event as a JSON line to `<home>/events.jsonl`.
pub fn append_event(home: &Home, event: &serde_json::Value) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.root.join("events.jsonl"))?;
    writeln!(f, "{event}")?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_defaults_and_opt_in() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        assert_eq!(
            load_policy(&home).unwrap(),
            Policy {
                interval_hours: 6,
                rules: vec![]
            }
        );
        std::fs::write(policy_path(&home), "autoupdate_interval_hours = 0\n[update_policy.a]\ntrack = \"main\"\nwhen = \"ALWAYS\"\n[update_policy.b]\ntrack = \"\"\n[update_policy.c]\ntrack = \"v1\"\n").unwrap();
        let p = load_policy(&home).unwrap();
        assert_eq!(p.interval_hours, 0);
        assert_eq!(
            p.rules
                .iter()
                .map(|r| (r.id.as_str(), r.always))
                .collect::<Vec<_>>(),
            [("a", true), ("c", false)]
        );
    }

    #[test]
    fn idle_signal() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        assert_eq!(activity(&home, Duration::from_secs(300)), Activity::Idle);
        drop(touch(&home).unwrap());
        assert!(matches!(
            activity(&home, Duration::from_secs(300)),
            Activity::Recent(_)
        ));
        assert_eq!(activity(&home, Duration::ZERO), Activity::Idle);
        let held = hold(&home).unwrap();
        assert_eq!(activity(&home, Duration::ZERO), Activity::InFlight);
        drop(held);
        assert_eq!(activity(&home, Duration::ZERO), Activity::Idle);
    }
}
