//! What a sweep did, per plugin and per home: `plugins autoupdate`'s answer (`--json`
//! prints it as it is).

use std::path::PathBuf;

/// What one sweep did, per plugin and per home (`--json` prints it as it is).
#[derive(Default, serde::Serialize)]
pub struct Sweep {
    pub updated: Vec<String>,
    /// What each update changed, and why: one per id in `updated`.
    pub changes: Vec<Change>,
    pub up_to_date: Vec<String>,
    pub deferred: Vec<String>,
    pub needs_approval: Vec<String>,
    /// Why each update needs approval (what changed in the grant, as `update` would ask).
    #[serde(skip)]
    pub approval_reasons: std::collections::HashMap<String, Vec<String>>,
    pub held_back: Vec<HeldBack>,
    /// Held plugins (`plugins hold`, `plugins rollback`): not checked, not updated.
    pub held: Vec<Held>,
    pub failed: Vec<Failed>,
    pub skipped_homes: Vec<Skipped>,
    /// protoAgent 0.218: opted-in plugins whose source a bundled plugin supersedes: the
    /// host runs its bundled copy, so nothing is checked or taken (as the host's own sweep).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<Superseded>,
}

/// An opted-in plugin a bundled plugin of its host supersedes, and that bundled plugin.
#[derive(serde::Serialize)]
pub struct Superseded {
    pub id: String,
    pub by: String,
    pub bundled_version: String,
}

/// One applied update: from what to what, in which home, and which rule found it.
#[derive(serde::Serialize)]
pub struct Change {
    pub id: String,
    pub home: PathBuf,
    pub from: Version,
    pub to: Version,
    /// Why it moved: `branch main has new commits`, `newer release v2.0.0`, `tag v1
    /// moved`, `the latest GitHub release is v2.0.0`, `the default branch has new commits`.
    pub why: String,
}

/// A plugin's version as locked: its manifest version, the ref it follows and the commit.
#[derive(serde::Serialize)]
pub struct Version {
    pub version: String,
    #[serde(rename = "ref")]
    pub ref_: String,
    pub commit: Option<String>,
}

/// A plugin whose check or update failed.
#[derive(serde::Serialize)]
pub struct Failed {
    pub id: String,
    pub message: String,
}

/// A held plugin the sweep skipped, with why and since when.
#[derive(serde::Serialize)]
pub struct Held {
    pub id: String,
    #[serde(flatten)]
    pub hold: crate::hold::Hold,
}

/// A newer version younger than the cooldown, not taken this sweep.
#[derive(serde::Serialize)]
pub struct HeldBack {
    pub id: String,
    pub new_ref: String,
    pub commit: String,
    pub released_at: String,
    pub age_from: &'static str,
    pub left_secs: u64,
    pub cooldown_secs: u64,
}

/// A home the sweep skipped, and why.
#[derive(serde::Serialize)]
pub struct Skipped {
    pub home: PathBuf,
    /// `interval`, `disabled` or `running` (another sweep is sweeping it).
    pub reason: &'static str,
    /// Seconds since the last sweep (`interval` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_sweep_secs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval_hours: Option<u64>,
    /// `disabled`: how to turn the sweep on (the policy file and the key); `running`: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: skipped ({})", self.home.display(), self.reason)?;
        if let (Some(age), Some(h)) = (self.last_sweep_secs, self.interval_hours) {
            write!(f, ": last sweep {age} s ago, interval {h} h")?;
        }
        if let Some(help) = &self.help {
            write!(f, ": {help}")?;
        }
        Ok(())
    }
}
