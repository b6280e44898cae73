//! Every change to a home is a transaction. Before a plugin directory moves, an
//! intent record in the home's state directory (`<home>/.plugins/`, which no host
//! loads) says what is changing; each step after it is one rename or one atomic
//! write. A `kill -9` anywhere leaves a record that the next command to take the
//! home lock finishes or undoes ([`recover`]) before it does anything else.
//!
//! An install is undone until the new tree is complete (built, where it builds) and
//! the record says `commit`; from then on it is finished (the tree exchanged in if it
//! is not yet, lock entry and host files written, the backup kept in the history). A
//! removal is always finished.
//!
//! Everything slow happens before the host can see anything: the new tree waits at
//! `incoming/<id>` (hashed, its wheel deps at `incoming-deps/<id>`), the record says
//! `commit`, and then the exchange is immediately followed by the lock and the host's
//! records, so that files and lock disagree for as long as one rename takes. Only a
//! tree with build steps goes in first (aoe builds in place: a build's outputs, such as
//! a venv's scripts, name the directory they were built in) and is built there under a
//! `swap` record, which an interrupted build undoes.
//!
//! protoAgent `--deps` swaps the plugin's wheel-deps directory (`<deps root>/<id>`,
//! outside the plugins directory) in the same transaction: staged in full before the
//! record is written, moved in after the tree, put back by an undo, its backup
//! kept with the replaced tree in the history by the commit (so that a rollback swaps
//! both back); a removal removes it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;
use crate::lock::{DepPin, Entry, LockError};
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
pub use history::{HISTORY_KEEP, Kept, history, slots_of};
pub use recovery::{
    Leftovers, Recovered, STAGING_PREFIX, leftovers, pending, pending_removal, recover,
    staging_prefix,
};
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
    /// The new tree's identity (device and inode), recorded once it waits at `incoming`:
    /// recovery tells by it which side of the exchange each tree is on. `None` in records
    /// of the two-rename swap (earlier versions).
    #[serde(default)]
    new_tree: Option<TreeId>,
    by: String,
    now: String,
}

/// A directory's identity, kept by renames and exchanges within one file system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct TreeId {
    dev: u64,
    ino: u64,
}

impl TreeId {
    /// `path`'s identity, without following a symlink; `None` when it is not there.
    fn of(path: &Path) -> Option<TreeId> {
        use std::os::unix::fs::MetadataExt;
        let m = fs_err::symlink_metadata(path).ok()?;
        Some(TreeId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }
}

/// The wheel-deps part of an install.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct DepsChange {
    /// Whether a previous deps directory was there (and is moved to the deps backup).
    had_old: bool,
    /// Whether a new deps directory comes (waiting at `incoming-deps/<id>` until it is
    /// moved in); `None` in records of earlier versions, which moved it in before the
    /// record said `commit`.
    #[serde(default)]
    staged: Option<bool>,
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
    #[error("{context}: {}", crate::file::reason(source))]
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

/// The dot-directory in the plugins directory where trees wait for their swap when the
/// state directory is on another file system (no host loads a dot-directory: aoe skips
/// them, the Python hosts find no manifest in it).
const SWAP_AREA: &str = ".plugins-txn";

/// Where trees wait to be swapped with a plugin directory: on the plugins directory's own
/// file system, so that the swap is one exchange (or two renames) and never a copy, which
/// a kill would leave half done where a host looks. The state directory when it is there
/// (the usual home), else `<plugins>/.plugins-txn` (a plugins directory that is a mount
/// point, or a symlink to another disk).
fn swap_area(home: &Home) -> PathBuf {
    let state = state(home);
    match (device(&home.plugins_dir()), device(&state)) {
        (Some(plugins), Some(ours)) if plugins != ours => home.plugins_dir().join(SWAP_AREA),
        _ => state,
    }
}

/// The file system `path` is on (followed through symlinks), or its nearest existing
/// ancestor's.
fn device(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    path.ancestors()
        .find_map(|p| fs_err::metadata(p).ok())
        .map(|m| m.dev())
}

/// Every place trees may wait: the state directory, and the plugins directory's swap area
/// (recovery looks in both, whichever the home's layout picks now).
fn swap_areas(home: &Home) -> Vec<PathBuf> {
    vec![state(home), home.plugins_dir().join(SWAP_AREA)]
}

/// Drop the plugins directory's swap area once nothing waits in it (best effort).
fn tidy_swap_area(home: &Home) {
    let area = home.plugins_dir().join(SWAP_AREA);
    if fs_err::symlink_metadata(&area).is_err() {
        return;
    }
    for sub in ["incoming", "backup"] {
        let _ = fs_err::remove_dir(area.join(sub));
    }
    let _ = fs_err::remove_dir(&area);
}

/// Where the previous install waits while a change is under way.
fn backup(home: &Home, id: &Name) -> PathBuf {
    id.under(&swap_area(home).join("backup"))
}

/// Where the new tree waits, beside the backup, for the exchange with the installed one
/// (and where the previous tree is right after it).
fn incoming(home: &Home, id: &Name) -> PathBuf {
    id.under(&swap_area(home).join("incoming"))
}

/// Where the new wheel-deps directory waits until it is moved in.
fn incoming_deps(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("incoming-deps"))
}

/// Swap two directories in one step, where the OS can (`renameat2(RENAME_EXCHANGE)` on
/// Linux, `renamex_np(RENAME_SWAP)` on macOS): whoever looks at either path sees one tree
/// or the other, never nothing. `Err` where it cannot (another OS, another file system, a
/// file system without it): the caller falls back to two renames.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
    };
    let (a, b) = (c(a)?, c(b)?);
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: two valid C strings; renameat2(2) reads them and touches nothing else.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    #[cfg(target_vendor = "apple")]
    // SAFETY: two valid C strings; renamex_np(2) reads them and touches nothing else.
    let r = unsafe { libc::renamex_np(a.as_ptr(), b.as_ptr(), libc::RENAME_SWAP) };
    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    let r = {
        let _ = (a, b);
        return Err(std::io::Error::from(std::io::ErrorKind::Unsupported));
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
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
    if let Ok(d) = fs_err::File::open(dir) {
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
    match fs_err::remove_file(&path) {
        Ok(()) => {
            sync_dir(path.parent().expect("in txn/"));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(format!("cannot remove {}", path.display()))(e)),
    }
}

fn remove_tree(path: &Path) -> Result<(), TxnError> {
    match fs_err::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs_err::remove_dir_all(path),
        Ok(_) => fs_err::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
    }
    .map_err(io(format!("cannot remove {}", path.display())))
}

fn rename(from: &Path, to: &Path) -> Result<(), TxnError> {
    if let Some(parent) = to.parent() {
        fs_err::create_dir_all(parent)
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
    entry: &Entry,
    deps: Option<&[DepPin]>,
    by: &str,
    now: &str,
) -> Result<bool, TxnError> {
    let mut lock = home.load_lock()?;
    lock.upsert(entry, by, now);
    if let Some(pins) = deps {
        lock.set_deps(&entry.id, pins);
    }
    let written = lock.save()?;
    let name = home.locked_name(entry)?;
    write_files(home, &name, &home.plugin_dir(&name))?;
    // aoe loads a plugin only with a grant in its config.toml; AWorld reads its registry.
    crate::host::record_install(home, entry, &home.plugin_dir(&name), now)?;
    Ok(written)
}

/// Record the per-file hashes of installed plugin `id` as its files are now (the baseline
/// `plugins verify --record` takes of a row whose lock has none). The caller holds the
/// home lock and writes the lock's hashes after this.
pub fn record_files(home: &Home, id: &Name) -> Result<(), TxnError> {
    write_files(home, id, &home.plugin_dir(id))
}

/// Drop the lock entry, the per-file hashes and the host's own records of a plugin.
fn drop_entry(home: &Home, id: &Name) -> Result<(), TxnError> {
    let mut lock = home.load_lock()?;
    if lock.remove(id.as_str()) {
        lock.save()?;
    }
    remove_tree(&files_record(home, id))?;
    crate::host::forget(home, id.as_str())?;
    Ok(())
}
