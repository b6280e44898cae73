//! The swap of an install (begin, commit, undo) and the removal of a plugin, each
//! a transaction of renames after an intent record.

use std::path::{Path, PathBuf};

use super::history::{drop_history, drop_slot, keep};
use super::{
    DepsChange, Intent, Phase, StagedDeps, TreeId, TxnError, backup, deps_backup, drop_entry,
    exchange, incoming, incoming_deps, remove_record, remove_tree, rename, sync_dir, write_entry,
    write_record,
};
use crate::lock::Entry;
use crate::name::Name;
use crate::store::Home;

/// An install in progress: the new tree (and its wheel deps) wait in the state
/// directory under a `swap` record; [`Swap::place`] puts them in (to be built there),
/// [`Swap::commit`] finishes. Dropping it without a commit undoes it.
pub struct Swap<'h> {
    home: &'h Home,
    id: Name,
    intent: Intent,
    done: bool,
}

impl<'h> Swap<'h> {
    /// Move `staged` next to the plugin directory (`incoming/<id>`) and record the change;
    /// nothing a host reads changes yet. The caller holds the home lock.
    pub fn begin(
        home: &'h Home,
        id: &Name,
        staged: &Path,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        Swap::begin_with_deps(home, id, staged, None, by, now)
    }

    /// [`Swap::begin`], with the plugin's wheel-deps directory when `deps` is given (its
    /// new one waits at `incoming-deps/<id>`).
    pub fn begin_with_deps(
        home: &'h Home,
        id: &Name,
        staged: &Path,
        deps: Option<StagedDeps<'_>>,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        let target = home.plugin_dir(id);
        let deps_target = home.plugin_deps_dir(id);
        let lock = home.load_lock()?;
        // A backup or incoming tree without a record is no one's (recovery ran under this
        // lock); they go before the record exists, so recovery never mistakes them for ours.
        remove_tree(&backup(home, id))?;
        remove_tree(&deps_backup(home, id))?;
        remove_tree(&incoming(home, id))?;
        remove_tree(&incoming_deps(home, id))?;
        // The new tree waits beside the backup, on the home's file system: its identity
        // goes into the record, and the swap is then one exchange.
        let waiting = incoming(home, id);
        rename(staged, &waiting)?;
        if let Some(dir) = deps.as_ref().and_then(|d| d.dir) {
            rename(dir, &incoming_deps(home, id))?;
        }
        let had_old_deps = fs_err::symlink_metadata(&deps_target).is_ok();
        let intent = Intent {
            phase: Phase::Swap,
            id: id.to_string(),
            dialect: home.dialect,
            had_old: target.exists(),
            entry: None,
            prior: lock.get(id.as_str()),
            restored: None,
            deps: deps.as_ref().map(|d| DepsChange {
                had_old: had_old_deps,
                staged: Some(d.dir.is_some()),
                pins: d.pins.clone(),
            }),
            prior_deps: deps.as_ref().and_then(|_| {
                lock.deps(id.as_str())
                    .or_else(|| had_old_deps.then(Vec::new))
            }),
            new_tree: TreeId::of(&waiting),
            by: by.to_owned(),
            now: now.to_owned(),
        };
        write_record(home, id, &intent)?;
        Ok(Swap {
            home,
            id: id.clone(),
            intent,
            done: false,
        })
    }

    /// Where the new tree waits (`incoming/<id>`) until it is put in.
    pub fn waiting(&self) -> PathBuf {
        incoming(self.home, &self.id)
    }

    /// Put the new tree (and wheel deps) in now, to be built in place; an interrupted
    /// build is undone. Without a build, [`Swap::commit`] alone puts it in.
    pub fn place(&mut self) -> Result<(), TxnError> {
        place(self.home, &self.id, &self.intent)
    }

    /// The new tree is complete (built): record the entry, then put the tree in, write
    /// the lock and the host's records right after, and keep the previous version in the
    /// history. Returns whether the lock changed.
    pub fn commit(mut self, entry: &Entry) -> Result<bool, TxnError> {
        self.intent.phase = Phase::Commit;
        self.intent.entry = Some(entry.clone());
        write_record(self.home, &self.id, &self.intent)?;
        // From here on the change is finished, here or by the next recovery.
        self.done = true;
        finish_install(self.home, &self.id, &self.intent, entry)
    }

    /// [`Swap::commit`] for a rollback to history slot `slot`: the slot is
    /// deleted (its tree is now installed) when the change commits.
    pub fn commit_rollback(mut self, entry: &Entry, slot: u32) -> Result<bool, TxnError> {
        self.intent.restored = Some(slot);
        self.commit(entry)
    }
}

impl Drop for Swap<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = undo(self.home, &self.id, &self.intent);
        }
    }
}

/// A committed install, from wherever it stopped: the tree in place, the lock entry and
/// the host's records, the previous version to the history. Every step can be run again.
pub(super) fn finish_install(
    home: &Home,
    id: &Name,
    intent: &Intent,
    entry: &Entry,
) -> Result<bool, TxnError> {
    place(home, id, intent)?;
    let written = write_entry(
        home,
        entry,
        intent.deps.as_ref().map(|d| d.pins.as_slice()),
        &intent.by,
        &intent.now,
    )?;
    stash_previous(home, id)?;
    finish_commit(home, id, intent)?;
    Ok(written)
}

/// Put the new wheel deps into their directory, then the new tree into the plugin
/// directory (one exchange with the installed one, which then waits at `incoming`), from
/// whatever step a kill stopped at. The tree goes last: the lock is written right after.
fn place(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    if let Some(DepsChange {
        had_old,
        staged: Some(staged),
        ..
    }) = &intent.deps
    {
        let deps_target = home.plugin_deps_dir(id);
        let deps_waiting = incoming_deps(home, id);
        let deps_saved = deps_backup(home, id);
        // The previous directory goes aside first, once (the new one is still waiting,
        // or none comes).
        let new_not_in = deps_waiting.exists() || !staged;
        if *had_old
            && new_not_in
            && fs_err::symlink_metadata(&deps_saved).is_err()
            && fs_err::symlink_metadata(&deps_target).is_ok()
        {
            rename(&deps_target, &deps_saved)?;
        }
        if deps_waiting.exists() {
            remove_tree(&deps_target)?;
            rename(&deps_waiting, &deps_target)?;
        }
    }
    let target = home.plugin_dir(id);
    let waiting = incoming(home, id);
    let saved = backup(home, id);
    if !exchanged(&target, &waiting, intent) && waiting.exists() {
        if fs_err::symlink_metadata(&target).is_err() {
            // A fresh install, or the first of two renames was done.
            rename(&waiting, &target)?;
        } else if exchange(&waiting, &target).is_ok() {
            // The host saw the old tree, then the new one, never neither.
            sync_dir(waiting.parent().unwrap_or(&home.root));
            sync_dir(target.parent().unwrap_or(&home.root));
        } else {
            // No exchange here (another OS or file system): two renames.
            remove_tree(&saved)?;
            rename(&target, &saved)?;
            rename(&waiting, &target)?;
        }
    }
    Ok(())
}

/// After the exchange the previous tree waits at `incoming`: to the backup, from which the
/// commit keeps it in the history.
fn stash_previous(home: &Home, id: &Name) -> Result<(), TxnError> {
    let waiting = incoming(home, id);
    if waiting.exists() {
        let saved = backup(home, id);
        remove_tree(&saved)?;
        rename(&waiting, &saved)?;
    }
    Ok(())
}

/// Put the previous install back (or nothing, for a fresh install), and its wheel deps.
pub(super) fn undo(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    let target = home.plugin_dir(id);
    let saved = backup(home, id);
    let waiting = incoming(home, id);
    if !intent.had_old {
        // A fresh install: whatever is at either place is ours.
        remove_tree(&waiting)?;
        remove_tree(&target)?;
    } else if exchanged(&target, &waiting, intent) {
        // The new tree is installed; the previous one is at `incoming` (right after the
        // exchange) or in the backup. Exchange it back, so the plugin is never missing.
        match [&waiting, &saved].into_iter().find(|p| p.exists()) {
            Some(old) => {
                if exchange(old, &target).is_err() {
                    remove_tree(&target)?;
                    rename(old, &target)?;
                }
                remove_tree(old)?;
            }
            None => remove_tree(&target)?,
        }
    } else {
        // The new tree never reached the plugin directory (or, with two renames, the
        // previous one waits in the backup).
        remove_tree(&waiting)?;
        if saved.exists() {
            remove_tree(&target)?;
            rename(&saved, &target)?;
        }
    }
    if let Some(change) = &intent.deps {
        remove_tree(&incoming_deps(home, id))?;
        let deps_target = home.plugin_deps_dir(id);
        let saved = deps_backup(home, id);
        if saved.exists() {
            remove_tree(&deps_target)?;
            rename(&saved, &deps_target)?;
        } else if !change.had_old {
            remove_tree(&deps_target)?;
        }
    }
    remove_record(home, id)?;
    super::tidy_swap_area(home);
    Ok(())
}

/// Whether the new tree is in the plugin directory (the exchange, or the second of two
/// renames, happened). By the trees' identities when the home is where the record was
/// written; when they are lost (the home was copied or moved), by content: the tree still
/// at `incoming` is the previous install when it hashes as the lock's previous entry.
fn exchanged(target: &Path, waiting: &Path, intent: &Intent) -> bool {
    if let Some(new) = intent.new_tree {
        if TreeId::of(target) == Some(new) {
            return true;
        }
        if TreeId::of(waiting) == Some(new) {
            return false;
        }
    }
    if !waiting.exists() {
        // Nothing waits: the new tree went in (the previous one is in the backup), or it
        // never came (a record of the two-rename swap with the backup only).
        return intent.new_tree.is_some() && target.exists();
    }
    // A committed change knows the new tree's files: in place, it is in; still waiting,
    // it is not.
    if let Some(h) = intent
        .entry
        .as_ref()
        .and_then(|e| e.installed_hash.as_deref())
    {
        let is_new = |p: &Path| crate::hash::installed(p).ok().as_deref() == Some(h);
        if is_new(target) {
            return true;
        }
        if is_new(waiting) {
            return false;
        }
    }
    intent.prior.as_ref().is_some_and(|p| {
        p.installed_hash
            .as_deref()
            .is_some_and(|h| crate::hash::installed(waiting).ok().as_deref() == Some(h))
            || (!p.tree_hash.is_empty()
                && crate::hash::tree(waiting).ok().as_deref() == Some(p.tree_hash.as_str()))
    })
}

/// Remove an installed plugin as a transaction. The caller holds the home lock.
pub fn remove(home: &Home, id: &Name) -> Result<(), TxnError> {
    let intent = Intent {
        phase: Phase::Remove,
        id: id.to_string(),
        dialect: home.dialect,
        had_old: true,
        entry: None,
        prior: None,
        restored: None,
        deps: None,
        prior_deps: None,
        new_tree: None,
        by: String::new(),
        now: String::new(),
    };
    write_record(home, id, &intent)?;
    finish_remove(home, id)
}

/// The lock row (and the host's records) go first, then the directory: a host reading the
/// home at any instant never finds a row naming a directory that is gone (at worst, a
/// directory no row names, which no host loads: aoe's grant and AWorld's registry entry go
/// with the row). Every step can be run again (recovery does).
pub(super) fn finish_remove(home: &Home, id: &Name) -> Result<(), TxnError> {
    drop_entry(home, id)?;
    let target = home.plugin_dir(id);
    let trash = backup(home, id);
    if target.exists() {
        remove_tree(&trash)?;
        rename(&target, &trash)?;
    }
    // protoAgent's wheel deps of the plugin go with it (the host never removes them).
    let deps_trash = deps_backup(home, id);
    if crate::host::install_policy(home.dialect).wheel_deps {
        let deps = home.plugin_deps_dir(id);
        if fs_err::symlink_metadata(&deps).is_ok() {
            remove_tree(&deps_trash)?;
            rename(&deps, &deps_trash)?;
        }
    }
    remove_tree(&trash)?;
    remove_tree(&deps_trash)?;
    drop_history(home, id)?;
    remove_record(home, id)?;
    super::tidy_swap_area(home);
    Ok(())
}

/// After the lock entry is written: delete the history slot a rollback
/// restored, keep the previous install (the backup) in the history, delete
/// the record. Every step can be run again (recovery does).
fn finish_commit(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    if let Some(n) = intent.restored {
        drop_slot(home, id, n)?;
    }
    match &intent.prior {
        Some(prior) => keep(
            home,
            id,
            prior,
            intent.prior_deps.as_deref(),
            intent.restored.unwrap_or(0),
        )?,
        None => remove_tree(&backup(home, id))?,
    }
    remove_tree(&deps_backup(home, id))?;
    remove_record(home, id)?;
    super::tidy_swap_area(home);
    Ok(())
}
