//! `plugins list`: every locked plugin of the homes named, with what its host's own records
//! say of it (switched off, the version a host-written row does not record, wheel deps) and
//! whether `plugins` holds it.

use std::path::PathBuf;

use serde::Serialize;

use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::Result;
use crate::git::RefKind;
use crate::hold::Hold;
use crate::lock::{DepPin, Entry, Lock};
use crate::store::Home;

/// One installed plugin, as `list --json` prints it (and `info` builds on).
#[derive(Debug, Serialize)]
pub struct ListRow {
    pub id: String,
    pub dialect: Dialect,
    /// The locked version; for a row the host's own installer wrote (which records none),
    /// the version the installed manifest declares; empty when neither says.
    pub version: String,
    pub source: String,
    pub requested_ref: String,
    pub ref_kind: Option<RefKind>,
    pub commit: Option<String>,
    pub home: String,
    /// The plugin's directory exists.
    pub present: bool,
    pub unbuilt: bool,
    pub subdir: Option<String>,
    /// Whether the host runs it by its own switch (aoe's `config.toml`, AWorld's
    /// `.manifest.json`, protoAgent's `plugins.enabled`/`disabled`); `None`: the host keeps
    /// no switch for it.
    pub enabled: Option<bool>,
    /// `plugins hold` or `plugins rollback` keeps it at this version: why and since when.
    pub hold: Option<Hold>,
    /// protoAgent: the wheels its lock row pins (`deps`); `None` when it records none.
    pub deps: Option<Vec<DepPin>>,
    /// The lock row, for the human renderers.
    #[serde(skip)]
    pub entry: Entry,
    /// The plugin's directory.
    #[serde(skip)]
    pub dir: Option<PathBuf>,
    /// The row names no source and its host ships a plugin of that id: the host's own row
    /// (protoAgent's migrated wheel-deps pins), with nothing to fetch.
    #[serde(skip)]
    pub shipped: bool,
}

/// What a home's rows are read against, each read and parsed once per home rather than
/// once per row (issue 43: a 1,000-row `list` re-read its host's config for each row): its
/// holds, its host's switch records and the wheel pins of its lock.
pub struct HomeRecords {
    holds: std::collections::BTreeMap<String, Hold>,
    switches: crate::host::Switches,
    deps: std::collections::HashMap<String, Vec<DepPin>>,
    /// The home's host profile (`plugins.toml`), read for its first row that names no source.
    profile: std::cell::OnceCell<crate::profile::HostProfile>,
}

impl HomeRecords {
    /// `home`'s records, with `lock` (its lock, read already).
    pub fn read(home: &Home, lock: &Lock) -> HomeRecords {
        HomeRecords {
            holds: crate::hold::holds(home),
            switches: crate::host::switches(home),
            deps: lock.all_deps(),
            profile: std::cell::OnceCell::new(),
        }
    }
}

impl ListRow {
    /// The row of `e` in `home` (whose records are `records`), read from the lock and the
    /// host's own records.
    pub fn of(home: &Home, e: Entry, records: &HomeRecords) -> ListRow {
        let dir = home.locked_dir(&e).ok();
        let present = dir.as_ref().is_some_and(|d| d.is_dir());
        let installed = dir.as_deref().filter(|_| present);
        let version = match installed {
            Some(d) if e.version.is_empty() => {
                crate::host::installed_version(home.dialect, d).unwrap_or_default()
            }
            _ => e.version.clone(),
        };
        let shipped = e.names_no_source() && {
            let remembered =
                (records.profile).get_or_init(|| crate::profile::HostProfile::load(home));
            crate::verify::shipped_under(home, &e, remembered)
        };
        ListRow {
            id: e.id.clone(),
            dialect: home.dialect,
            version,
            source: e.source.clone(),
            requested_ref: e.requested_ref.clone(),
            ref_kind: e.ref_kind,
            commit: e.commit.clone(),
            home: home.root.display().to_string(),
            present,
            unbuilt: e.unbuilt,
            subdir: e.subdir.clone(),
            enabled: installed.and_then(|d| records.switches.enabled(&e.id, d)),
            hold: records.holds.get(&e.id).cloned(),
            deps: records.deps.get(&e.id).cloned(),
            entry: e,
            dir,
            shipped,
        }
    }
}

/// The locked plugins of the homes `home` names, home by home, each lock in its order.
pub fn list(home: Option<&PathBuf>, cx: &Context) -> Result<Vec<ListRow>> {
    let mut rows = Vec::new();
    for (home, lock) in cx.locked_homes(home)? {
        let records = HomeRecords::read(&home, &lock);
        for e in lock.entries() {
            rows.push(ListRow::of(&home, e, &records));
        }
    }
    Ok(rows)
}
