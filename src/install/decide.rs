//! Whether an install has anything to do: the decision from the lock as read
//! before fetching, and again under the home lock.

use std::path::{Path, PathBuf};

use super::{Event, InstallError, InstallOptions, Installed, Refusal, lock_home, txn};
use crate::lock::Entry;
use crate::store::Home;

/// Whether the lock's entry already has these files (returns the entry to keep),
/// or why the install cannot replace what is there. `redo`: install again even so
/// (protoAgent `--deps` for a plugin with requirements).
pub(super) fn decide(
    opts: &InstallOptions,
    redo: bool,
    home: &Home,
    entry: &Entry,
    prior: Option<&Entry>,
    target: &Path,
) -> Result<Option<Entry>, InstallError> {
    match prior {
        // A row the host rewrote names the URL `plugins` resolved the `gh:` source to.
        Some(p)
            if p.source != entry.source
                && entry.host_source.as_ref() != Some(&p.source)
                && !opts.force
                && opts.pin.is_none() =>
        {
            Err(Refusal::AlreadyInstalled {
                id: entry.id.to_string(),
                from: p.source.to_string(),
            }
            .into())
        }
        Some(p)
            if p.commit == entry.commit
                && p.tree_hash == entry.tree_hash
                && target.is_dir()
                && !(p.unbuilt && opts.build)
                && !opts.force
                && !redo =>
        {
            let mut kept = p.clone();
            kept.requested_ref.clone_from(&entry.requested_ref);
            kept.ref_kind = entry.ref_kind;
            // A row the host cannot fetch from (`gh:` in `source_url`, written by an older
            // `plugins`), or one the host rewrote, gets the URL and `plugins`' spelling back.
            if entry.host_source.is_some() {
                kept.source.clone_from(&entry.source);
                kept.host_source.clone_from(&entry.host_source);
            }
            // A first verified install of what is already there records its key.
            if kept.signer_key.is_none() {
                kept.signer_key.clone_from(&entry.signer_key);
            }
            Ok(Some(kept))
        }
        None if target.exists() && !opts.force => Err(Refusal::NotInLock {
            target: target.to_path_buf(),
            lockfile: home.lockfile(),
        }
        .into()),
        _ => Ok(None),
    }
}

/// The decision again, under the home lock: `Some` when the lock already has
/// these files (the entry kept, and whether the lock was written); `None` to go
/// on with the install, which is only allowed while the entry is still `prior`.
pub(super) fn under_lock(
    opts: &InstallOptions,
    redo: bool,
    home: &Home,
    entry: &Entry,
    prior: Option<&Entry>,
    target: &Path,
) -> Result<Option<(Entry, bool)>, InstallError> {
    let mut lock = home.load_lock()?;
    let now = lock.get(&entry.id);
    match decide(opts, redo, home, entry, now.as_ref(), target)? {
        Some(kept) if now.as_ref() == Some(&kept) => Ok(Some((kept, false))),
        Some(kept) => {
            lock.upsert(&kept, &opts.by, &opts.now);
            let written = lock.save()?;
            // The host's own record of the source (aoe's config.toml: as typed now).
            if kept.host_source.is_some() {
                crate::host::record_install(home, &kept, target, &opts.now)?;
            }
            Ok(Some((kept, written)))
        }
        // Another command got there first with this very version: that is this command's
        // outcome too, not a concurrent change to refuse.
        None if now.as_ref().is_some_and(|n| same_version(n, entry, opts))
            && target.is_dir()
            && now.as_ref() != prior =>
        {
            Ok(now.map(|n| (n, false)))
        }
        None if now.as_ref() != prior => Err(changed(&entry.id)),
        None => Ok(None),
    }
}

/// Whether the lock row `now` is the version `entry` would install: the same source,
/// commit, subdirectory and files, built when this install builds.
fn same_version(now: &Entry, entry: &Entry, opts: &InstallOptions) -> bool {
    now.source == entry.source
        && now.commit == entry.commit
        && now.subdir == entry.subdir
        && now.tree_hash == entry.tree_hash
        && !(now.unbuilt && opts.build)
}

pub(super) fn up_to_date(
    id: String,
    home: Home,
    dir: PathBuf,
    entry: Entry,
    lock_written: bool,
) -> Installed {
    Installed {
        id,
        dir,
        home,
        entry,
        up_to_date: true,
        lock_written,
    }
}

pub(super) fn changed(id: &str) -> InstallError {
    Refusal::Concurrent { id: id.to_owned() }.into()
}

/// The decision from the lock as it is now, before the home lock (it is checked again under
/// it): `None` when there is something to install; else the plugin as installed, up to
/// date or with only a changed request recorded. A change another process has under way is
/// judged under the lock, after recovery.
pub(super) fn early(
    opts: &InstallOptions,
    with_deps: bool,
    home: &Home,
    (entry, prior): (&Entry, Option<&Entry>),
    (target, name): (&Path, &crate::name::Name),
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<Installed>, InstallError> {
    let early = decide(opts, with_deps, home, entry, prior, target).or_else(|e| {
        if txn::pending(home, name) {
            Ok(None)
        } else {
            Err(e)
        }
    })?;
    if let Some(kept) = early {
        if Some(&kept) == prior {
            return Ok(Some(up_to_date(
                entry.id.clone(),
                home.clone(),
                target.to_owned(),
                kept,
                false,
            )));
        }
        // Same files: only a changed request (a tag now tracked as a branch) is recorded.
        let _guard = lock_home(home, opts.wait, on_event)?;
        return under_lock(opts, with_deps, home, entry, prior, target)?
            .map(|(kept, written)| {
                Some(up_to_date(
                    entry.id.clone(),
                    home.clone(),
                    target.to_owned(),
                    kept,
                    written,
                ))
            })
            .ok_or_else(|| changed(&entry.id));
    }
    Ok(None)
}

/// A monorepo's plugin whose subdirectory is the same at the new commit: nothing to install;
/// only the lock's pin moves, under the lock, while the row is still `prior`.
pub(super) fn move_pin(
    opts: &InstallOptions,
    home: Home,
    name: &crate::name::Name,
    prior: &Entry,
    entry: &Entry,
    target: PathBuf,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let id = entry.id.clone();
    let _guard = lock_home(&home, opts.wait, on_event)?;
    let mut lock = home.load_lock()?;
    if lock.get(&id).as_ref() != Some(prior) || txn::pending(&home, name) {
        return Err(changed(&id));
    }
    let mut kept = prior.clone();
    kept.commit.clone_from(&entry.commit);
    if entry.host_source.is_some() {
        kept.host_source.clone_from(&entry.host_source);
    }
    kept.requested_ref.clone_from(&entry.requested_ref);
    kept.ref_kind = entry.ref_kind;
    kept.signer_key.clone_from(&entry.signer_key);
    lock.upsert(&kept, &opts.by, &opts.now);
    let written = lock.save()?;
    if kept.host_source.is_some() {
        crate::host::record_install(&home, &kept, &target, &opts.now)?;
    }
    log::debug!(
        "{id}: {} is the same at {}; only the lock's pin moved",
        kept.subdir.as_deref().unwrap_or_default(),
        kept.commit.as_deref().unwrap_or_default()
    );
    Ok(up_to_date(id, home, target, kept, written))
}

/// Whether `entry` (fetched from a monorepo's subdirectory at a new commit) has exactly the
/// installed plugin's files: the same source, subdirectory and source tree, installed and
/// built. An explicit `install --force` or `--deps` still reinstalls; `update` (which
/// forces a source change through) does not.
pub(super) fn subdir_unchanged(
    opts: &InstallOptions,
    prior: &Entry,
    entry: &Entry,
    target: &Path,
    with_deps: bool,
) -> bool {
    entry.subdir.is_some()
        && prior.subdir == entry.subdir
        && prior.source == entry.source
        && prior.commit.is_some()
        && prior.commit != entry.commit
        && !prior.tree_hash.is_empty()
        && prior.tree_hash == entry.tree_hash
        && prior.manifest_hash == entry.manifest_hash
        && !prior.unbuilt
        && !with_deps
        && opts.pin.is_none()
        && (opts.expect_id.is_some() || !opts.force)
        && target.is_dir()
}
