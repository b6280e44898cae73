//! The swap of an install (begin, commit, undo) and the removal of a plugin, each
//! a transaction of renames after an intent record.

use std::path::Path;

use super::history::{drop_history, drop_slot, keep};
use super::{
    DepsChange, Intent, Phase, StagedDeps, TreeId, TxnError, backup, deps_backup, drop_entry,
    exchange, incoming, remove_record, remove_tree, rename, sync_dir, write_entry, write_record,
};
use crate::dialect::Dialect;
use crate::lock::{Entry, Lock};
use crate::name::Name;
use crate::store::Home;

/// An install in progress: the new tree is in place (to be built) and the
/// previous one in the backup. Dropping it without [`Swap::commit`] undoes it.
pub struct Swap<'h> {
    home: &'h Home,
    id: Name,
    intent: Intent,
    done: bool,
}

impl<'h> Swap<'h> {
    /// Move the previous install (if any) aside and `staged` into its place.
    /// The caller holds the home lock.
    pub fn begin(
        home: &'h Home,
        id: &Name,
        dialect: Dialect,
        staged: &Path,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        Swap::begin_with_deps(home, id, dialect, staged, None, by, now)
    }

    /// [`Swap::begin`], swapping the plugin's wheel-deps directory too when `deps` is
    /// given (its previous one, if any, to the deps backup).
    pub fn begin_with_deps(
        home: &'h Home,
        id: &Name,
        dialect: Dialect,
        staged: &Path,
        deps: Option<StagedDeps<'_>>,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        let target = home.plugin_dir(id);
        let deps_target = home.plugin_deps_dir(id);
        let lock = Lock::load(&home.lockfile(), dialect)?;
        // A backup or incoming tree without a record is no one's (recovery ran under this
        // lock); they go before the record exists, so recovery never mistakes them for ours.
        remove_tree(&backup(home, id))?;
        remove_tree(&deps_backup(home, id))?;
        remove_tree(&incoming(home, id))?;
        // The new tree waits beside the backup, on the home's file system: its identity
        // goes into the record, and the swap is then one exchange.
        let waiting = incoming(home, id);
        rename(staged, &waiting)?;
        let had_old_deps = fs_err::symlink_metadata(&deps_target).is_ok();
        let intent = Intent {
            phase: Phase::Swap,
            id: id.to_string(),
            dialect,
            had_old: target.exists(),
            entry: None,
            prior: lock.get(id.as_str()),
            restored: None,
            deps: deps.as_ref().map(|d| DepsChange {
                had_old: had_old_deps,
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
        let swap = Swap {
            home,
            id: id.clone(),
            intent,
            done: false,
        };
        if !swap.intent.had_old {
            rename(&waiting, &target)?;
        } else if exchange(&waiting, &target).is_ok() {
            // The host saw the old tree, then the new one, never neither.
            sync_dir(waiting.parent().unwrap_or(&home.root));
            sync_dir(target.parent().unwrap_or(&home.root));
            rename(&waiting, &backup(home, id))?;
        } else {
            // No exchange here (another OS or file system): two renames.
            rename(&target, &backup(home, id))?;
            rename(&waiting, &target)?;
        }
        if let (Some(change), Some(d)) = (&swap.intent.deps, &deps) {
            if change.had_old {
                rename(&deps_target, &deps_backup(home, id))?;
            }
            if let Some(dir) = d.dir {
                rename(dir, &deps_target)?;
            }
        }
        Ok(swap)
    }

    /// The built tree is complete: record the entry, write the lock and the
    /// host's records, and drop the backup. Returns whether the lock changed.
    pub fn commit(mut self, entry: &Entry) -> Result<bool, TxnError> {
        self.intent.phase = Phase::Commit;
        self.intent.entry = Some(entry.clone());
        write_record(self.home, &self.id, &self.intent)?;
        // From here on the change is finished, here or by the next recovery.
        self.done = true;
        let written = write_entry(
            self.home,
            self.intent.dialect,
            entry,
            self.intent.deps.as_ref().map(|d| d.pins.as_slice()),
            &self.intent.by,
            &self.intent.now,
        )?;
        finish_commit(self.home, &self.id, &self.intent)?;
        Ok(written)
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
        let deps_target = home.plugin_deps_dir(id);
        let saved = deps_backup(home, id);
        if saved.exists() {
            remove_tree(&deps_target)?;
            rename(&saved, &deps_target)?;
        } else if !change.had_old {
            remove_tree(&deps_target)?;
        }
    }
    remove_record(home, id)
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
    intent.prior.as_ref().is_some_and(|p| {
        p.installed_hash
            .as_deref()
            .is_some_and(|h| crate::hash::installed(waiting).ok().as_deref() == Some(h))
            || (!p.tree_hash.is_empty()
                && crate::hash::tree(waiting).ok().as_deref() == Some(p.tree_hash.as_str()))
    })
}

/// Remove an installed plugin as a transaction. The caller holds the home lock.
pub fn remove(home: &Home, id: &Name, dialect: Dialect) -> Result<(), TxnError> {
    let intent = Intent {
        phase: Phase::Remove,
        id: id.to_string(),
        dialect,
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
    finish_remove(home, id, dialect)
}

pub(super) fn finish_remove(home: &Home, id: &Name, dialect: Dialect) -> Result<(), TxnError> {
    let target = home.plugin_dir(id);
    let trash = backup(home, id);
    if target.exists() {
        remove_tree(&trash)?;
        rename(&target, &trash)?;
    }
    // protoAgent's wheel deps of the plugin go with it (the host never removes them).
    let deps_trash = deps_backup(home, id);
    if crate::host::install_policy(dialect).wheel_deps {
        let deps = home.plugin_deps_dir(id);
        if fs_err::symlink_metadata(&deps).is_ok() {
            remove_tree(&deps_trash)?;
            rename(&deps, &deps_trash)?;
        }
    }
    drop_entry(home, dialect, id)?;
    remove_tree(&trash)?;
    remove_tree(&deps_trash)?;
    drop_history(home, id)?;
    remove_record(home, id)
}

/// After the lock entry is written: delete the history slot a rollback
/// restored, keep the previous install (the backup) in the history, delete
/// the record. Every step can be run again (recovery does).
pub(super) fn finish_commit(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
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
    remove_record(home, id)
}
