//! Recovery: finishing or undoing interrupted changes, and finding or deleting what
//! killed processes left behind (staging, temp files, legacy backups).

use std::path::{Path, PathBuf};

use super::history::clean_history;
use super::swap::{finish_commit, finish_remove, undo};
use super::{
    Intent, Phase, TxnError, record, remove_tree, rename, staging_dir, state, write_entry,
};
use crate::name::Name;
use crate::store::Home;

/// Whether an interrupted change to `id` waits for recovery (the plugin's
/// directory may be half-built until then).
pub fn pending(home: &Home, id: &Name) -> bool {
    record(home, id).exists()
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
        match (intent.phase, &intent.entry) {
            (Phase::Commit, Some(entry)) => {
                let pins = intent.deps.as_ref().map(|d| d.pins.as_slice());
                write_entry(home, intent.dialect, entry, pins, &intent.by, &intent.now)?;
                finish_commit(home, &id, &intent)?;
            }
            (Phase::Remove, _) => finish_remove(home, &id, intent.dialect)?,
            _ => undo(home, &id, &intent)?,
        }
        out.plugins.push(intent.id);
    }
    out.cleaned += clean_incoming(home)?;
    out.cleaned += clean_staging(home)?;
    out.cleaned += clean_history(home)?;
    out.cleaned += clean_legacy(home)?;
    out.cleaned += clean_files_temp(home)?;
    Ok(out)
}

/// New trees at `incoming/<id>` whose record was never written (a kill between the move
/// and the record): no one's.
fn clean_incoming(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    for e in fs_err::read_dir(state(home).join("incoming"))
        .into_iter()
        .flatten()
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

/// Staging directories are named `s-<pid>-<random>`.
pub const STAGING_PREFIX: &str = "s-";

/// Whether the process that made a staging directory is gone.
fn owner_gone(name: &str) -> bool {
    let Some(pid) = name
        .strip_prefix(STAGING_PREFIX)
        .and_then(|r| r.split_once('-'))
        .and_then(|(pid, _)| pid.parse::<i32>().ok())
    else {
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
    for e in list(state(home).join("incoming")) {
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
    out
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
/// `.<id>.old-<pid>` backup of a swap, restored when its plugin is missing) and
/// the temp files of atomic writes killed midway (the lock's, AWorld's registry's,
/// aoe's config.toml's, the first-seen record's).
fn clean_legacy(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    let plugins = home.plugins_dir();
    if let Ok(rd) = fs_err::read_dir(&plugins) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name.starts_with(".staging-")
                || (name.starts_with(".manifest.json.") && name.ends_with(".tmp"))
            {
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
    let aoe_config = crate::host::aoe::config_path(home);
    for written in home.atomic_files().into_iter().chain([aoe_config]) {
        n += clean_temp_files(&written)?;
    }
    Ok(n)
}

/// The temp files of per-file hash records whose write was killed midway.
fn clean_files_temp(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    for e in fs_err::read_dir(state(home).join("files"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        if e.file_name().to_string_lossy().ends_with(".tmp") {
            remove_tree(&e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// The temp files (`<name>.<random>.tmp`) of atomic writes of `written` killed midway.
fn clean_temp_files(written: &Path) -> Result<usize, TxnError> {
    let mut n = 0;
    if let (Some(dir), Some(file)) = (written.parent(), written.file_name()) {
        let prefix = format!("{}.", file.to_string_lossy());
        for e in fs_err::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".tmp") {
                remove_tree(&e.path())?;
                n += 1;
            }
        }
    }
    Ok(n)
}
