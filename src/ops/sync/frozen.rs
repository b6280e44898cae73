//! What is particular to `--frozen`: every install staged before any is swapped in, the
//! refusals of a row that does not pin what it installs and of a pin that cannot be had,
//! and the directories a lock does not name (each
//! reported, none removed); with the changed plugins a sync left, the warnings it ends with.

use super::{SyncDetail, SyncOptions, SyncRow, SyncStatus, Todo, Work};
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, NamedRefusal, Result};
use crate::install::InstallError;
use crate::lock::Entry;
use crate::ops::apply::{Applier, Ready, Stop};
use crate::printer::Printer;

/// The warnings a sync ends with: each changed plugin it left as it was, and (`--frozen`)
/// each directory the lock does not name, whose rows it returns.
pub(super) fn warnings(
    opts: &SyncOptions,
    cx: &Context,
    printer: &Printer,
    warned: &[(Code, String)],
) -> Result<Vec<SyncRow>> {
    for (code, message) in warned {
        printer.warning(*code, message);
    }
    if opts.frozen {
        unlocked(opts, cx, printer)
    } else {
        Ok(Vec::new())
    }
}

/// `--frozen`: the directories in each home's plugins directory that its lock does not
/// name, each a row and a warning. None is removed: `plugins` cannot tell a plugin it
/// installed and the lock dropped from the host's own plugin installed by hand, which no
/// lock ever names (docs/cli.md); `plugins remove <name>` removes one.
fn unlocked(opts: &SyncOptions, cx: &Context, printer: &Printer) -> Result<Vec<SyncRow>> {
    let mut rows = Vec::new();
    for (home, lock) in cx.locked_homes(opts.home)? {
        for name in unlocked_dirs(&home, &lock) {
            let dir = home.plugins_dir().join(&name);
            let message = format!(
                "{} is not in the lock; left as it is (the host may load it)",
                dir.display()
            );
            printer.warning(
                Code::SyncUnlockedPlugin,
                &format!(
                    "{message}: if it should not be there, `plugins remove {name} --home {}` removes it",
                    home.root.display()
                ),
            );
            rows.push(SyncRow {
                id: name,
                status: SyncStatus::Unlocked,
                detail: SyncDetail::Message { message },
                home: home.root.clone(),
            });
        }
    }
    Ok(rows)
}

/// `--frozen`: stage every fetched install (consent, release asset, locked deps) before any
/// is swapped in; the first that cannot be staged stops the sync with nothing changed.
pub(super) fn stage_all(
    applier: &mut Applier,
    prepared: impl Iterator<Item = Work>,
) -> Result<Vec<Work>> {
    let mut staged = Vec::new();
    for (todo, fetched) in prepared {
        let fetched = match (fetched, &todo) {
            (Some((install, Ready::Prepared(p))), Todo::Install { entry, .. }) => {
                match applier.stage(&install, *p) {
                    Ok(stage) => Some((install, Ready::Staged(stage))),
                    Err(Stop::Unasked(refused)) => return Err(refused),
                    Err(Stop::Failed(e) | Stop::Raced(e) | Stop::NeedsConsent { error: e, .. }) => {
                        return Err(frozen_error(*e, entry));
                    }
                }
            }
            (other, _) => other,
        };
        staged.push((todo, fetched));
    }
    Ok(staged)
}

/// `--frozen`: a locked commit that cannot be fetched and a release asset that cannot be
/// had as locked are errors of their own (the lock cannot be honoured as it is).
fn frozen_error(e: InstallError, entry: &Entry) -> Error {
    match e {
        InstallError::Git(
            g @ (crate::git::GitError::RefNotFound { .. }
            | crate::git::GitError::Remote { .. }
            | crate::git::GitError::Aborted { .. }
            | crate::git::GitError::Stalled { .. }
            | crate::git::GitError::Cli(_)),
        ) => Refusal::Unfetchable {
            id: entry.id.clone(),
            commit: entry.commit.clone(),
            why: g.to_string(),
        }
        .into(),
        InstallError::Release(r) => Refusal::Asset {
            id: entry.id.clone(),
            why: r.to_string(),
        }
        .into(),
        other => other.into(),
    }
}

/// `--frozen`, before anything is fetched: each row pins what it installs (a commit for a
/// git source, a tree hash) under the profile the command line names.
pub(super) fn frozen_row(opts: &SyncOptions, entry: &Entry) -> Result<()> {
    if entry.names_no_source() {
        let id = entry.id.clone();
        return Err(Refusal::NoSource { id }.into());
    }
    if entry.commit.is_none() && !entry.source.starts_with('/') && !entry.source.starts_with('.') {
        let (id, spec) = (entry.id.clone(), entry.source.clone());
        return Err(Refusal::NoCommit { id, spec }.into());
    }
    if entry.tree_hash.is_empty() {
        let id = entry.id.clone();
        return Err(Refusal::NoTreeHash { id }.into());
    }
    let locked = entry.profile.clone().unwrap_or_default();
    let conflicts = opts.profile.conflicts(&locked);
    if !conflicts.is_empty() {
        return Err(Refusal::Profile {
            id: entry.id.clone(),
            conflicts,
            locked_flags: locked.flags(),
        }
        .into());
    }
    Ok(())
}

/// Why `--frozen` installs nothing: a row that does not pin what it installs, or a pin that
/// cannot be had. Each message already says "nothing was changed".
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The locked commit cannot be fetched.
    #[error(
        "{id}: the locked commit {} cannot be fetched: {why}; nothing was changed",
        commit.as_deref().unwrap_or("(none)")
    )]
    Unfetchable {
        id: String,
        commit: Option<String>,
        why: String,
    },
    /// The locked release asset cannot be had as locked.
    #[error("{id}: the locked release asset cannot be had as locked: {why}; nothing was changed")]
    Asset { id: String, why: String },
    /// A row of a fetched source pins no commit.
    #[error("{id}: the lock names no commit for {spec}; nothing was changed")]
    NoCommit { id: String, spec: String },
    /// A row that names no source, of a plugin its host does not ship.
    #[error("{id}: the lock names no source to install it from; nothing was changed")]
    NoSource { id: String },
    /// A row without a tree hash to check its files against.
    #[error(
        "{id}: the lock records no tree_hash, so its files cannot be checked; nothing was changed"
    )]
    NoTreeHash { id: String },
    /// The command line's host profile conflicts with the lock's.
    #[error(
        "{id}: the lock was made under another host profile: {}; nothing was changed",
        conflicts.join(", ")
    )]
    Profile {
        id: String,
        conflicts: Vec<String>,
        locked_flags: String,
    },
}

/// `--frozen`'s way out: the first words for a pin it cannot have.
const FROZEN: &str = "--frozen installs only what the lock pins";

impl NamedRefusal for Refusal {
    fn code(&self) -> Code {
        match self {
            Refusal::Unfetchable { .. } | Refusal::NoCommit { .. } | Refusal::NoSource { .. } => {
                Code::SyncMissingCommit
            }
            Refusal::Asset { .. } => Code::SyncAssetMismatch,
            Refusal::NoTreeHash { .. } => Code::SyncTreeMismatch,
            Refusal::Profile { .. } => Code::SyncProfileMismatch,
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Refusal::Unfetchable { .. } => format!(
                "{FROZEN}; with the server down, fetch from a mirror (git's url.<mirror>.insteadOf, PLUGINS_GH_BASE for gh: sources) or install from a bundle (`plugins sync --frozen --from FILE`)"
            ),
            Refusal::Asset { .. } => {
                format!("{FROZEN}; the release must still serve the asset with the lock's sha256")
            }
            Refusal::NoCommit { .. } => "a frozen sync installs only pinned commits; `plugins update` (or `plugins sync` without --frozen) pins one".into(),
            Refusal::NoSource { id } => format!("`plugins remove {id}` drops the row; `plugins sync` without --frozen syncs the others and says which rows name no source"),
            Refusal::NoTreeHash { .. } => "a row the host's own installer wrote has none; `plugins sync` without --frozen (or `plugins update`) records one".into(),
            Refusal::Profile { locked_flags, .. } => format!(
                "run it with the lock's profile ({locked_flags}) or without the flags; to move to another host, `plugins update` under the new profile"
            ),
        })
    }
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        Error::Named(Box::new(r))
    }
}

/// The directories (and links) in the plugins directory that no row of `lock` names,
/// by name, sorted: hidden names (`plugins`' own scratch, a host's) and plain files are
/// not plugins. Only listed: they may be the host's own plugins, installed by hand
/// (every host loads any directory in its plugins directory), which the lock never
/// named; `sync --frozen` reports them and removes none (docs/cli.md).
fn unlocked_dirs(home: &crate::store::Home, lock: &crate::lock::Lock) -> Vec<String> {
    let locked: std::collections::HashSet<std::ffi::OsString> = lock
        .entries()
        .iter()
        .filter_map(|e| home.locked_dir(e).ok()?.file_name().map(ToOwned::to_owned))
        .collect();
    let mut out: Vec<String> = fs_err::read_dir(home.plugins_dir())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| !locked.contains(&e.file_name()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}
