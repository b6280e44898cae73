//! The history of previous versions kept for `plugins rollback`
//! (`<home>/.plugins/history/<id>/<n>/`).

use std::path::{Path, PathBuf};

use super::{TxnError, backup, deps_backup, io, remove_tree, rename, state};
use crate::lock::{DepPin, Entry};
use crate::name::Name;
use crate::store::Home;

/// How many previous versions of each plugin are kept for `plugins rollback`.
pub const HISTORY_KEEP: usize = 2;

/// `<home>/.plugins/history/<id>/`: slots `<n>/` (`tree/` and `entry.json`),
/// the highest `n` the most recent. Names starting with `.` are work in progress.
fn history_dir(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("history"))
}

const NEW_SLOT: &str = ".new";
/// A slot's `deps` pins, when its wheel deps were kept with it.
const DEPS_PINS: &str = "deps.json";
const GONE_PREFIX: &str = ".gone-";

/// A previous version kept for `plugins rollback`.
#[derive(Clone, Debug)]
pub struct Kept {
    /// The slot number (higher is more recent).
    pub slot: u32,
    /// Its lock entry.
    pub entry: Entry,
    /// Its installed tree.
    pub tree: PathBuf,
    /// protoAgent: its `deps` pins, when its wheel deps were kept with it (`deps.json`);
    /// `None` for a version whose deps were not swapped when it was replaced.
    pub deps: Option<Vec<DepPin>>,
    /// Its `plugin-deps/<id>` directory (`deps/`), when it had one.
    pub deps_tree: Option<PathBuf>,
}

/// The complete slots of a plugin's history, most recent first.
pub fn history(home: &Home, id: &Name) -> Vec<Kept> {
    slots_of(home, id)
        .into_iter()
        .filter_map(Result::ok)
        .collect()
}

/// Every numbered slot of a plugin's history, most recent first: the kept version, or the
/// slot number and why it cannot be used (rollback names a damaged slot, never skips it).
pub fn slots_of(home: &Home, id: &Name) -> Vec<Result<Kept, (u32, String)>> {
    let dir = history_dir(home, id);
    let plain_dir = |p: &Path| fs_err::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let mut out: Vec<Result<Kept, (u32, String)>> = slots(&dir)
        .into_iter()
        .map(|slot| {
            let path = dir.join(slot.to_string());
            let damaged = |why: &str| Err((slot, why.to_owned()));
            if !plain_dir(&path) {
                return damaged("it is not a plain directory");
            }
            let Some(entry) = crate::file::read(path.join("entry.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<Entry>(&b).ok())
            else {
                return damaged("its entry.json does not read");
            };
            if entry.id != id.as_str() {
                return damaged(&format!("its entry names another plugin ({:?})", entry.id));
            }
            // What install would refuse to fetch (`ext::`, a leading `-`) never reaches the
            // lock through a rollback either.
            if let Err(e) = crate::source::Source::check_entry(&entry) {
                return damaged(&format!("its entry names a source install refuses: {e}"));
            }
            let tree = path.join("tree");
            if !plain_dir(&tree) {
                return damaged("its tree is not a plain directory");
            }
            let deps: Option<Vec<DepPin>> = crate::file::read(path.join(DEPS_PINS))
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            let deps_tree = Some(path.join("deps")).filter(|d| deps.is_some() && plain_dir(d));
            Ok(Kept {
                slot,
                entry,
                tree,
                deps,
                deps_tree,
            })
        })
        .collect();
    let slot_of = |r: &Result<Kept, (u32, String)>| match r {
        Ok(k) => k.slot,
        Err((n, _)) => *n,
    };
    out.sort_by_key(|r| std::cmp::Reverse(slot_of(r)));
    out
}

/// The numbered slots in a history directory, ascending.
fn slots(dir: &Path) -> Vec<u32> {
    let mut out: Vec<u32> = fs_err::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    out.sort_unstable();
    out
}

/// Move the backup (the previous install) into a new history slot with its
/// lock entry (and its wheel deps with their pins when they were swapped out too), then
/// drop the oldest slots beyond [`HISTORY_KEEP`]. The slot is assembled under `.new`
/// and renamed into place, so a slot is always whole. Its number is above `floor` (a
/// restored slot's), so a rerun never deletes it.
pub(super) fn keep(
    home: &Home,
    id: &Name,
    prior: &Entry,
    prior_deps: Option<&[DepPin]>,
    floor: u32,
) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    let new = dir.join(NEW_SLOT);
    let saved = backup(home, id);
    if saved.exists() && new.join("tree").is_dir() {
        // Moved across file systems and killed while the backup was being deleted: the
        // slot's tree is whole (a move makes it appear only so).
        remove_tree(&saved)?;
    } else if saved.exists() {
        remove_tree(&new)?;
        fs_err::create_dir_all(&new).map_err(io(format!("cannot create {}", new.display())))?;
        // The hash rollback checks the slot against: the row's, else (a row a host's own
        // installer wrote, without hashes) the tree's as it is kept.
        let mut kept = prior.clone();
        if kept.installed_hash.is_none() {
            kept.installed_hash = crate::hash::installed(&saved).ok();
        }
        let text = serde_json::to_vec_pretty(&kept).expect("serializes");
        crate::lock::write_atomic(&new.join("entry.json"), &text)?;
        if let Some(pins) = prior_deps {
            let text = serde_json::to_vec_pretty(pins).expect("serializes");
            crate::lock::write_atomic(&new.join(DEPS_PINS), &text)?;
        }
        rename(&saved, &new.join("tree"))?;
    }
    if new.join("tree").is_dir() {
        // After the tree (a rerun rebuilds `.new` only while the tree backup is there).
        let saved_deps = deps_backup(home, id);
        if new.join(DEPS_PINS).is_file() && fs_err::symlink_metadata(&saved_deps).is_ok() {
            remove_tree(&new.join("deps"))?;
            rename(&saved_deps, &new.join("deps"))?;
        }
        let next = slots(&dir).last().copied().unwrap_or(0).max(floor) + 1;
        rename(&new, &dir.join(next.to_string()))?;
    } else {
        remove_tree(&new)?;
    }
    let all = slots(&dir);
    for n in &all[..all.len().saturating_sub(HISTORY_KEEP)] {
        drop_slot(home, id, *n)?;
    }
    Ok(())
}

/// Delete one slot: renamed out of the numbered names first, so a kill midway
/// never leaves a partial slot that looks whole.
pub(super) fn drop_slot(home: &Home, id: &Name, n: u32) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    let slot = dir.join(n.to_string());
    let gone = dir.join(format!("{GONE_PREFIX}{n}"));
    if slot.exists() {
        remove_tree(&gone)?;
        rename(&slot, &gone)?;
    }
    remove_tree(&gone)
}

/// A removed plugin's history goes with it.
pub(super) fn drop_history(home: &Home, id: &Name) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    for n in slots(&dir) {
        drop_slot(home, id, n)?;
    }
    remove_tree(&dir)
}

/// Work in progress of history writes killed midway (no record is pending
/// any more, so nothing will finish them).
pub(super) fn clean_history(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    let root = state(home).join("history");
    for e in fs_err::read_dir(&root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        for w in fs_err::read_dir(e.path())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            if w.file_name().to_string_lossy().starts_with('.') {
                remove_tree(&w.path())?;
                n += 1;
            }
        }
    }
    Ok(n)
}
