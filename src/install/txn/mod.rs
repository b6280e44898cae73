//! Every change to a home is a transaction. Before a plugin directory moves, an
//! intent record in the home's state directory (`<home>/.plugins/`, which no host
//! loads) says what is changing; each step after it is one rename or one atomic
//! write. A `kill -9` anywhere leaves a record that the next command to take the
//! home lock finishes or undoes ([`recover`]) before it does anything else.
//!
//! An install is undone until its build has succeeded and the record says
//! `commit`; from then on it is finished (lock entry and host files written
//! again, the backup deleted). A removal is always finished.
//!
//! protoAgent `--deps` swaps the plugin's wheel-deps directory (`<deps root>/<id>`,
//! outside the plugins directory) in the same transaction: staged in full before the
//! record is written, moved in after the tree, put back by an undo, its backup
//! kept with the replaced tree in the history by the commit (so that a rollback swaps
//! both back); a removal removes it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;
use crate::lock::{DepPin, Entry, Lock, LockError};
use crate::name::Name;
use crate::store::Home;

mod files;
mod history;
mod recovery;
mod swap;
#[cfg(test)]
mod tests;

pub use files::{FileChanges, file_changes};
use files::{files_record, write_files};
pub use history::{HISTORY_KEEP, Kept, history};
pub use recovery::{Leftovers, Recovered, STAGING_PREFIX, leftovers, pending, recover};
pub use swap::{Swap, remove};

/// What the record says is under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Phase {
    /// The old tree may be in the backup and the new one (partly built) in place: undo.
    Swap,
    /// The new tree is complete and built: finish.
    Commit,
    /// A removal: finish.
    Remove,
}

/// The on-disk record of one change to one plugin.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Intent {
    phase: Phase,
    id: String,
    dialect: Dialect,
    /// Whether a previous install was moved to the backup.
    had_old: bool,
    /// The entry an install writes (set in the `commit` phase).
    entry: Option<Entry>,
    /// The lock entry of the previous install: its tree (the backup) is kept in
    /// the history when the change commits.
    #[serde(default)]
    prior: Option<Entry>,
    /// A rollback: the history slot it restored, deleted when it commits.
    #[serde(default)]
    restored: Option<u32>,
    /// protoAgent `--deps`: the change also swaps the plugin's wheel-deps directory.
    #[serde(default)]
    deps: Option<DepsChange>,
    /// The `deps` pins of the previous install when its wheel deps are swapped out: kept
    /// with its tree in the history, so that a rollback puts them back too.
    #[serde(default)]
    prior_deps: Option<Vec<DepPin>>,
    by: String,
    now: String,
}

/// The wheel-deps part of an install.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct DepsChange {
    /// Whether a previous deps directory was there (and is moved to the deps backup).
    had_old: bool,
    /// What the new directory holds, for the lock's `deps`.
    pins: Vec<DepPin>,
}

/// A plugin's wheel deps, complete in a staging directory, to swap in with the tree.
pub struct StagedDeps<'a> {
    /// `None`: the new version needs no wheels; the previous directory goes (to the
    /// history) and none takes its place.
    pub dir: Option<&'a Path>,
    pub pins: Vec<DepPin>,
}

/// Why a transaction step failed.
#[derive(Debug, thiserror::Error)]
pub enum TxnError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> TxnError {
    let context = context.into();
    move |source| TxnError::Io { context, source }
}

/// The home's state directory and its parts.
fn state(home: &Home) -> PathBuf {
    home.root.join(".plugins")
}

/// `<state>/txn/<id>.json`. Not `with_extension`: ids have dots, and
/// `dev.example.a` and `dev.example.b` would share `dev.example.json`.
fn record(home: &Home, id: &Name) -> PathBuf {
    state(home).join("txn").join(format!("{id}.json"))
}

/// Where the previous install waits while a change is under way.
fn backup(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("backup"))
}

/// Where the previous wheel-deps directory waits while a change is under way.
fn deps_backup(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("backup-deps"))
}

/// Where staged trees are fetched, next to the plugins so the swap is a rename.
pub fn staging_dir(home: &Home) -> PathBuf {
    state(home).join("staging")
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

fn write_record(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    let path = record(home, id);
    let text = serde_json::to_vec_pretty(intent).expect("serializes");
    crate::lock::write_atomic(&path, &text)?;
    Ok(())
}

fn remove_record(home: &Home, id: &Name) -> Result<(), TxnError> {
    let path = record(home, id);
    match std::fs::remove_file(&path) {
        Ok(()) => {
            sync_dir(path.parent().expect("in txn/"));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(format!("cannot remove {}", path.display()))(e)),
    }
}

fn remove_tree(path: &Path) -> Result<(), TxnError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
    }
    .map_err(io(format!("cannot remove {}", path.display())))
}

fn rename(from: &Path, to: &Path) -> Result<(), TxnError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    crate::tree::move_dir(from, to).map_err(|e| TxnError::Io {
        context: format!("cannot move {} to {}", from.display(), to.display()),
        source: std::io::Error::other(e.to_string()),
    })?;
    if let Some(parent) = to.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// Write the lock entry, the per-file hashes and the host's own records for an installed
/// plugin.
fn write_entry(
    home: &Home,
    dialect: Dialect,
    entry: &Entry,
    deps: Option<&[DepPin]>,
    by: &str,
    now: &str,
) -> Result<bool, TxnError> {
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    lock.upsert(entry, by, now);
    if let Some(pins) = deps {
        lock.set_deps(&entry.id, pins);
    }
    let written = lock.save()?;
    let name = home.locked_name(entry)?;
    write_files(home, &name, &home.plugin_dir(&name))?;
    // aoe loads a plugin only with a grant in its config.toml; AWorld reads its registry.
    crate::host::record_install(dialect, home, entry, &home.plugin_dir(&name), now)?;
    Ok(written)
}

/// Drop the lock entry, the per-file hashes and the host's own records of a plugin.
fn drop_entry(home: &Home, dialect: Dialect, id: &Name) -> Result<(), TxnError> {
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    if lock.remove(id.as_str()) {
        lock.save()?;
    }
    remove_tree(&files_record(home, id))?;
    crate::host::forget(dialect, home, id.as_str())?;
    Ok(())
}
