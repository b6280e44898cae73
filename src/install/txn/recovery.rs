//! Recovery: finishing or undoing interrupted changes, and finding or deleting what
//! killed processes left behind (staging, temp files, legacy backups).

use std::path::{Path, PathBuf};

use super::history::clean_history;
use super::swap::{finish_install, finish_remove, undo};
use super::{
    Intent, Phase, TxnError, record, remove_tree, rename, staging_dir, state, swap_areas,
    tidy_swap_area,
};
use crate::name::Name;
use crate::store::Home;

/// Whether an interrupted change to `id` waits for recovery (the plugin's
/// directory may be half-built until then).
pub fn pending(home: &Home, id: &Name) -> bool {
    record(home, id).exists()
}

/// Whether an interrupted removal of `id` waits for recovery (which finishes it).
pub fn pending_removal(home: &Home, id: &Name) -> bool {
    fs_err::read(record(home, id))
        .ok()
        .and_then(|b| serde_json::from_slice::<Intent>(&b).ok())
        .is_some_and(|i| i.phase == Phase::Remove)
}

/// What recovery did, for a status line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Plugins whose interrupted change was undone or finished.
    pub plugins: Vec<String>,
    /// Stale staging, backup and temp entries deleted.
    pub cleaned: usize,
}

/// Finish or undo every interrupted change and delete what killed processes
/// left behind. Runs under the home lock, before a command changes anything.
pub fn recover(home: &Home) -> Result<Recovered, TxnError> {
    let mut out = Recovered::default();
    let txn = state(home).join("txn");
    let records = match fs_err::read_dir(&txn) {
        Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    for path in records {
        if path.extension().is_none_or(|x| x != "json") {
            // A temp file of an interrupted record write.
            remove_tree(&path)?;
            out.cleaned += 1;
            continue;
        }
        let intent: Option<Intent> = fs_err::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let Some(intent) = intent else {
            remove_tree(&path)?;
            out.cleaned += 1;
            continue;
        };
        let Ok(id) = Name::new(&intent.id) else {
            remove_tree(&path)?;
            continue;
        };
        // The change is the host's its record names (a home whose lock is not written yet
        // is named by its first plugin's host).
        let home = &Home {
            dialect: intent.dialect,
            ..home.clone()
        };
        match (intent.phase, &intent.entry) {
            (Phase::Commit, Some(entry)) => {
                finish_install(home, &id, &intent, entry)?;
            }
            (Phase::Remove, _) => finish_remove(home, &id)?,
            _ => undo(home, &id, &intent)?,
        }
        out.plugins.push(intent.id);
    }
    out.cleaned += clean_incoming(home)?;
    out.cleaned += clean_staging(home)?;
    out.cleaned += clean_history(home)?;
    out.cleaned += clean_legacy(home)?;
    out.cleaned += clean_temp_files(home)?;
    tidy_swap_area(home);
    Ok(out)
}

/// Where new trees and wheel-deps directories wait for their swap.
const INCOMING: [&str; 2] = ["incoming", "incoming-deps"];

/// The directories new trees wait in, in every swap area.
fn incoming_dirs(home: &Home) -> Vec<PathBuf> {
    swap_areas(home)
        .iter()
        .flat_map(|area| INCOMING.iter().map(move |dir| area.join(dir)))
        .collect()
}

/// New trees at `incoming/<id>` (and deps at `incoming-deps/<id>`) whose record was never
/// written (a kill between the move and the record): no one's.
fn clean_incoming(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    for e in incoming_dirs(home)
        .into_iter()
        .flat_map(|dir| fs_err::read_dir(dir).into_iter().flatten())
        .filter_map(Result::ok)
    {
        let pending =
            Name::new(&e.file_name().to_string_lossy()).is_ok_and(|id| record(home, &id).exists());
        if !pending {
            remove_tree(&e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// Staging directories are named `s-<pid>-<start>-<random>` ([`staging_prefix`]; `s-<pid>-<random>`
/// by earlier versions).
pub const STAGING_PREFIX: &str = "s-";

/// The prefix of this process's staging directories: its owner tag (`crate::owner`), so
/// that a pid reused since is not taken for their owner.
pub fn staging_prefix() -> String {
    format!("{STAGING_PREFIX}{}-", crate::owner::tag())
}

/// Whether the process that made a staging directory is gone.
pub(super) fn owner_gone(name: &str) -> bool {
    let Some(rest) = name.strip_prefix(STAGING_PREFIX) else {
        return true;
    };
    let parts: Vec<&str> = rest.splitn(3, '-').collect();
    if let [pid, start, _] = parts[..]
        && start.bytes().all(|b| b.is_ascii_digit())
        && !start.is_empty()
    {
        return crate::owner::alive(&format!("{pid}-{start}")) != Some(true);
    }
    let Some(pid) = parts.first().and_then(|pid| pid.parse::<i32>().ok()) else {
        return true;
    };
    if pid == std::process::id() as i32 {
        return false;
    }
    // Signal 0 checks for existence; ESRCH means no such process.
    // SAFETY: kill(2) with signal 0 sends nothing.
    let r = unsafe { libc::kill(pid, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// What [`recover`] would find in a home, read without changing anything (`plugins
/// doctor`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Plugins whose change was interrupted (their intent records), by id.
    pub pending: Vec<String>,
    /// Unreadable intent records and temp files of interrupted record writes.
    pub broken_records: Vec<PathBuf>,
    /// Staging directories whose process is gone.
    pub stale_staging: Vec<PathBuf>,
    /// Staging directories of processes still running.
    pub live_staging: usize,
    /// Temp files of atomic writes (the lock's, `.autoupdate.json`'s, a host record's)
    /// that a killed process left.
    pub temp_files: Vec<PathBuf>,
}

/// Look for leftovers of killed processes (see [`recover`], which removes them).
pub fn leftovers(home: &Home) -> Leftovers {
    let mut out = Leftovers::default();
    let list = |dir: PathBuf| {
        let mut v: Vec<_> = fs_err::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .collect();
        v.sort_by_key(fs_err::DirEntry::file_name);
        v
    };
    for e in list(state(home).join("txn")) {
        let path = e.path();
        let intent: Option<Intent> = (path.extension().is_some_and(|x| x == "json"))
            .then(|| fs_err::read(&path).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok());
        match intent {
            Some(i) => out.pending.push(i.id),
            None => out.broken_records.push(path),
        }
    }
    for e in incoming_dirs(home).into_iter().flat_map(list) {
        let pending =
            Name::new(&e.file_name().to_string_lossy()).is_ok_and(|id| record(home, &id).exists());
        if !pending {
            out.stale_staging.push(e.path());
        }
    }
    for e in list(staging_dir(home)) {
        if owner_gone(&e.file_name().to_string_lossy()) {
            out.stale_staging.push(e.path());
        } else {
            out.live_staging += 1;
        }
    }
    out.temp_files = temp_files(home);
    out
}

/// The temp files that [`recover`] deletes: of atomic writes killed midway, whose owner
/// is gone (the lock's, AWorld's registry's, aoe's config.toml's, `.autoupdate.json`'s,
/// the first-seen record's, the per-file hash records').
fn temp_files(home: &Home) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = home
        .atomic_files()
        .into_iter()
        .chain(crate::host::edited_configs(home))
        .chain([home.plugins_dir().join(".manifest.json")])
        .flat_map(|written| temp_files_of(&written))
        .collect();
    out.extend(
        fs_err::read_dir(state(home).join("files"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".tmp") && !live_owner_of(&name)
            })
            .map(|e| e.path()),
    );
    out.sort();
    out
}

/// Whether `<file>.<owner>.<random>.tmp` in `.plugins/files/` is a live process's.
fn live_owner_of(name: &str) -> bool {
    // The random part and the owner hold no `.json.`; an id may.
    name.rsplit_once(".json.")
        .is_some_and(|(file, _)| crate::owner::live_owner(name, &format!("{file}.json."), ".tmp"))
}

/// The temp files (`<name>.<owner>.<random>.tmp`) of atomic writes of `written` whose
/// owner is gone (a live writer's is its own: not every writer holds the home lock).
fn temp_files_of(written: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(file)) = (written.parent(), written.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.", file.to_string_lossy());
    fs_err::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix)
                && name.ends_with(".tmp")
                && !crate::owner::live_owner(&name, &prefix, ".tmp")
        })
        .map(|e| e.path())
        .collect()
}

/// Delete staging directories whose process is gone.
fn clean_staging(home: &Home) -> Result<usize, TxnError> {
    let Ok(rd) = fs_err::read_dir(staging_dir(home)) else {
        return Ok(0);
    };
    let mut n = 0;
    for e in rd.filter_map(Result::ok) {
        if owner_gone(&e.file_name().to_string_lossy()) {
            remove_tree(&e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// What earlier versions left in the plugins directory (`.staging-*`, the
/// `.<id>.old-<pid>` backup of a swap, restored when its plugin is missing).
fn clean_legacy(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    let plugins = home.plugins_dir();
    if let Ok(rd) = fs_err::read_dir(&plugins) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name.starts_with(".staging-") {
                remove_tree(&path)?;
                n += 1;
            } else if let Some(rest) = name.strip_prefix('.')
                && let Some((id, pid)) = rest.rsplit_once(".old-")
                && pid.bytes().all(|b| b.is_ascii_digit())
                && let Ok(id) = Name::new(id)
            {
                let target = home.plugin_dir(&id);
                if target.exists() {
                    remove_tree(&path)?;
                } else {
                    rename(&path, &target)?;
                }
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Delete the temp files of atomic writes killed midway ([`temp_files`]).
fn clean_temp_files(home: &Home) -> Result<usize, TxnError> {
    let found = temp_files(home);
    for path in &found {
        remove_tree(path)?;
    }
    Ok(found.len())
}
