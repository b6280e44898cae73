//! `plugins rollback`: put a kept previous version back, as a transaction.
//!
//! Updates keep the previous install (tree and lock entry) in the home's
//! history ([`crate::install::txn::history`]); a rollback stages a copy of one,
//! swaps it in and commits its entry. The version it replaces is kept in turn.

use std::path::PathBuf;

use crate::diagnostic::Code;
use crate::install::{Event, InstallError, lock_home, txn};
use crate::lock::Entry;
use crate::name::Name;
use crate::refusal::NamedRefusal;
use crate::store::Home;

/// What a rollback did.
#[derive(Clone, Debug)]
pub struct RolledBack {
    /// The entry that was installed before.
    pub from: Entry,
    /// The entry installed now.
    pub to: Entry,
    /// `--to` named the installed commit: nothing changed.
    pub up_to_date: bool,
    /// The hold put on the restored version (`None` when nothing changed), so that
    /// `update --all` and `autoupdate` do not install the version rolled back from again.
    pub hold: Option<crate::hold::Hold>,
}

/// Why a rollback is refused, one variant each: its message, code and way out are written
/// once, here.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The newest kept version cannot be restored (`slot_dir`: the slot to delete).
    #[error("history slot {slot} of {id} is damaged: {why}")]
    Damaged {
        id: String,
        slot: u32,
        why: String,
        slot_dir: PathBuf,
    },
    /// No version is kept.
    #[error("no previous version of {id} is kept in {}", home.display())]
    NoHistory { id: String, home: PathBuf },
    /// No kept version is at the commit `--to` names.
    #[error("no kept version of {id} is at commit {to} (kept: {})", kept.join(", "))]
    NotKept {
        id: String,
        to: String,
        kept: Vec<String>,
    },
}

impl NamedRefusal for Refusal {
    fn code(&self) -> Code {
        match self {
            Refusal::Damaged { .. } => Code::RollbackDamaged,
            Refusal::NoHistory { .. } => Code::RollbackNoHistory,
            Refusal::NotKept { .. } => Code::RollbackNotKept,
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Refusal::Damaged { slot_dir, .. } => format!(
                "delete {} to roll back to an older kept version, or reinstall with `plugins install --force`",
                slot_dir.display()
            ),
            Refusal::NoHistory { .. } => {
                "updates keep the previous version; a plugin that was only installed has none"
                    .into()
            }
            Refusal::NotKept { .. } => "the last two versions an update replaced are kept; `plugins info` shows the installed commit".into(),
        })
    }
}

impl From<Refusal> for InstallError {
    fn from(r: Refusal) -> Self {
        InstallError::Named(Box::new(r))
    }
}

/// Roll `id` back to the most recent kept version, or the one whose commit
/// starts with `to`. `Ok(None)`: the plugin is not installed in this home.
pub fn rollback(
    home: &Home,
    id: &Name,
    to: Option<&str>,
    wait: bool,
    now: &str,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<RolledBack>, InstallError> {
    let _guard = lock_home(home, wait, on_event)?;
    let Some(current) = home.load_lock()?.get(id.as_str()) else {
        return Ok(None);
    };
    if let Some(to) = to
        && at_commit(&current, to)
    {
        return Ok(Some(RolledBack {
            from: current.clone(),
            to: current,
            up_to_date: true,
            hold: None,
        }));
    }
    let all = txn::slots_of(home, id);
    let chosen = choose(home, id, &all, to)?;
    let staging = staging(home)?;
    let tree = staging.path().join("tree");
    crate::tree::copy(&chosen.tree, &tree, &|_, _| false)?;
    check_copy(home, id, chosen, &tree)?;
    // protoAgent: the wheel deps kept with that version come back with it (a version kept
    // before deps were kept leaves the current ones as they are).
    let deps_copy = staging.path().join("deps");
    if let Some(kept) = &chosen.deps_tree {
        crate::tree::copy(kept, &deps_copy, &|_, _| false)?;
    }
    let deps = chosen.deps.as_ref().map(|pins| txn::StagedDeps {
        dir: chosen.deps_tree.as_ref().map(|_| deps_copy.as_path()),
        pins: pins.clone(),
    });
    // A version kept before `plugins` locked protoAgent's fetch URL takes the current one.
    let mut restored = chosen.entry.clone();
    if restored.host_source.is_none() && restored.source == current.source {
        restored.host_source.clone_from(&current.host_source);
    }
    // The hold goes first: a rollback whose swap cannot begin puts the prior hold back; one
    // killed after this leaves the current version held, which updates skip, visibly (a
    // commit that fails half-way is finished by the next recovery: the hold stays).
    let prior_hold = crate::hold::get(home, id.as_str());
    let hold = crate::hold::Hold::rollback(&current, now);
    crate::hold::set(home, id.as_str(), &hold)?;
    let swap = match txn::Swap::begin_with_deps(home, id, &tree, deps, "rollback", now) {
        Ok(swap) => swap,
        Err(e) => {
            let _ = crate::hold::restore(home, id.as_str(), prior_hold.as_ref());
            return Err(e.into());
        }
    };
    swap.commit_rollback(&restored, chosen.slot)?;
    Ok(Some(RolledBack {
        from: current,
        to: restored,
        up_to_date: false,
        hold: Some(hold),
    }))
}

/// Whether `e` is at a commit starting with `to`.
fn at_commit(e: &Entry, to: &str) -> bool {
    e.commit
        .as_deref()
        .is_some_and(|c| !to.is_empty() && c.starts_with(to))
}

/// A damaged history slot, named with the way out.
fn damaged(home: &Home, id: &Name, slot: u32, why: &str) -> InstallError {
    Refusal::Damaged {
        id: id.to_string(),
        slot,
        why: why.to_owned(),
        slot_dir: home
            .root
            .join(".plugins/history")
            .join(id.as_str())
            .join(slot.to_string()),
    }
    .into()
}

/// The kept version to restore: the newest (refused by name when it is damaged, never
/// skipped for an older one), or the one at commit `to`.
fn choose<'k>(
    home: &Home,
    id: &Name,
    all: &'k [Result<txn::Kept, (u32, String)>],
    to: Option<&str>,
) -> Result<&'k txn::Kept, InstallError> {
    if to.is_none()
        && let Some(Err((slot, why))) = all.first()
    {
        return Err(damaged(home, id, *slot, why));
    }
    let kept: Vec<&txn::Kept> = all.iter().filter_map(|r| r.as_ref().ok()).collect();
    let chosen = match to {
        None => kept.first().copied(),
        Some(to) => kept.iter().copied().find(|k| at_commit(&k.entry, to)),
    };
    chosen.ok_or_else(|| match to {
        None => Refusal::NoHistory {
            id: id.to_string(),
            home: home.root.clone(),
        }
        .into(),
        Some(to) => Refusal::NotKept {
            id: id.to_string(),
            to: to.to_owned(),
            kept: kept
                .iter()
                .map(|k| k.entry.commit.as_deref().unwrap_or("none").to_owned())
                .collect(),
        }
        .into(),
    })
}

/// The copy of a kept version is what gets installed, under the rules install applies to
/// the same tree: it must be what was installed then (its recorded hash), what the host
/// accepts (aoe refuses symlinks in a plugin tree), and nothing in it may lead out of it
/// whatever the host allows (install refuses the same, `plugins::install::symlink`). As
/// install checks the source and not what its build makes, the host's build directory
/// (aoe's `.aoe-build`, where a venv links to the interpreter) is left out of the
/// symlink checks, as aoe's tree hash leaves it out.
fn check_copy(
    home: &Home,
    id: &Name,
    chosen: &txn::Kept,
    tree: &std::path::Path,
) -> Result<(), InstallError> {
    let slot = |why: &str| damaged(home, id, chosen.slot, why);
    let policy = crate::host::install_policy(home.dialect);
    if crate::hash::tree(tree).is_err() && policy.refuses_symlinks {
        return Err(slot(
            "it holds symlinks, which the host refuses in a plugin tree",
        ));
    }
    let built = |rel: &std::path::Path, depth: usize| {
        depth == 0
            && policy
                .build_output
                .is_some_and(|b| rel == std::path::Path::new(b))
    };
    let escaping = crate::tree::escaping_symlinks(tree, &built)?;
    if !escaping.is_empty() {
        return Err(slot(&format!(
            "it holds symlinks that point outside it: {}",
            escaping.join(", ")
        )));
    }
    match &chosen.entry.installed_hash {
        None => Err(slot(
            "it records no hash of its files, so it cannot be checked",
        )),
        Some(kept_hash) if crate::hash::installed(tree).ok().as_ref() != Some(kept_hash) => {
            Err(slot("its files changed since it was kept"))
        }
        Some(_) => Ok(()),
    }
}

/// A staging directory named for this process (recovery deletes it once the
/// process is gone).
fn staging(home: &Home) -> Result<tempfile::TempDir, InstallError> {
    let parent = txn::staging_dir(home);
    let fail = |cause| InstallError::Io {
        context: format!("cannot create a staging directory in {}", parent.display()),
        cause,
    };
    fs_err::create_dir_all(&parent).map_err(fail)?;
    tempfile::Builder::new()
        .prefix(&txn::staging_prefix())
        .tempdir_in(&parent)
        .map_err(fail)
}
