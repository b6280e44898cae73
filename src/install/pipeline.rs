//! The install pipeline: fetch and check, consent, then under the home lock decide,
//! swap, build and commit.

use std::path::{Path, PathBuf};

use crate::lock::Entry;

use super::check::is_release_binary;
use super::decide::{changed, early, move_pin, subdir_unchanged, under_lock, up_to_date};
use super::deps::{Wheels, locked_pins, plain_pip_specs, stage_deps};
use super::fetched::{Fetched, fetch_and_check};
use super::lockhome::Staging;
use super::proposal::{Proposal, propose};
use super::{
    Event, InstallError, InstallOptions, Installed, Request, build, consent, lock_home, stage, txn,
};

/// An install through the home lock: [`stage`] it (fetching and checking the source
/// unless `fetched` holds it), then [`swap`] it in, unless nothing was left to swap.
pub(super) fn fetch_check_swap(
    opts: &InstallOptions,
    fetched: Option<Fetched>,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    match stage(opts, fetched, consent, on_event)? {
        Stage::Done(installed) => Ok(*installed),
        Stage::Ready(ready) => swap(opts, *ready, on_event),
    }
}

/// How far [`stage`] got: nothing to swap (up to date, or only the lock's pin moved), or
/// everything staged — the tree, its release asset and its deps — for [`swap`].
pub enum Stage {
    Done(Box<Installed>),
    Ready(Box<Ready>),
}

/// An install staged in full, consent given, not yet under the home lock: [`swap`] puts it
/// in place. Dropped, it leaves the home as it was (its staging directory goes).
pub struct Ready {
    staging: Staging,
    home: crate::store::Home,
    entry: Entry,
    prior: Option<Entry>,
    target: PathBuf,
    with_deps: bool,
    deps: Option<Wheels>,
    build: Vec<crate::steps::Step>,
    entrypoint: Option<(String, bool)>,
    name: crate::name::Name,
    builds: bool,
}

/// Everything of an install up to the home lock: fetch (unless `fetched`), check, decide,
/// consent, the release asset and the deps staged. Only a decision that nothing but the
/// lock's pin moves writes the home (under its lock); a [`Stage::Ready`] has changed nothing.
pub(crate) fn stage(
    opts: &InstallOptions,
    fetched: Option<Fetched>,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Stage, InstallError> {
    let fetched = match fetched {
        Some(f) => f,
        None => fetch_and_check(opts, on_event)?,
    };
    let p = propose(opts, fetched, on_event)?;
    let id = &p.entry.id;
    // `--deps` installs the requirements again even when the plugin is up to date.
    let with_deps = opts.deps
        && p.policy.wheel_deps
        && !(p.request.pip.is_empty() && p.request.optional_pip.is_empty());
    // A plugin installed with deps keeps them matching its code: any change of the code
    // swaps its deps too (an update, a sync, a repair, an autoupdate).
    let keep_deps = p.policy.wheel_deps && (opts.deps || p.home.load_lock()?.deps(id).is_some());
    if opts.pin.is_some() && p.prior != opts.pin {
        // `sync` read the lock before another command changed (or removed) the entry.
        return Err(changed(id));
    }
    let target = p.home.plugin_dir(&p.name);
    // A monorepo's plugin whose subdirectory is the same at the new commit: nothing to
    // install; only the lock's pin moves (under the lock, while the entry is still `prior`).
    if let Some(prior) = p.prior.as_ref()
        && p.request.signer_change.is_none()
        && subdir_unchanged(opts, prior, &p.entry, &target, with_deps)
        && !is_release_binary(&p.report)
        // aoe's config.toml names the ref (`gh:o/r@ref`): a new ref is a full install.
        && (!p.policy.ref_in_host_config || prior.requested_ref == p.entry.requested_ref)
    {
        return move_pin(opts, p.home, &p.name, prior, &p.entry, target, on_event)
            .map(|moved| Stage::Done(Box::new(moved)));
    }
    let proposed = (&p.entry, p.prior.as_ref());
    if let Some(done) = early(
        opts,
        with_deps,
        &p.home,
        proposed,
        (&target, &p.name),
        on_event,
    )? {
        return Ok(Stage::Done(Box::new(done)));
    }
    let ready = consent_and_stage(opts, p, (with_deps, keep_deps), target, consent, on_event)?;
    Ok(Stage::Ready(Box::new(ready)))
}

/// A proposal with something to install, taken to [`Ready`]: its pip requirements and the
/// lock's pins checked, consent asked, then the release asset and the deps staged (network
/// work, before the home lock).
fn consent_and_stage(
    opts: &InstallOptions,
    p: Proposal,
    (with_deps, keep_deps): (bool, bool),
    target: PathBuf,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Ready, InstallError> {
    let Proposal {
        staging,
        home,
        policy,
        mut entry,
        prior,
        mut request,
        build,
        entrypoint,
        report,
        name,
    } = p;
    let tree = staging.tree();
    if keep_deps {
        plain_pip_specs(&request)?;
    }
    let locked_pins = locked_pins(opts, &home, keep_deps, &name, &mut request)?;
    consent::ask(opts, prior.as_ref(), &target, &entry, &mut request, consent)?;
    // A release-binary worker is downloaded into the staged tree: a failed or corrupt
    // download never reaches the installed plugin.
    if opts.build && policy.builds {
        entry.release = stage::fetch_release(&report, opts, &entry, &tree, on_event)?;
    }

    let deps = stage_deps(
        opts,
        &home,
        &request,
        (keep_deps, locked_pins),
        &staging,
        &name,
        on_event,
    )?;

    // `--no-build` with something to build: locked as unbuilt, so `verify` reports it and
    // `sync` builds it.
    entry.unbuilt = !opts.build
        && policy.builds
        && (!crate::steps::for_this_platform(&build).is_empty() || is_release_binary(&report));
    Ok(Ready {
        staging,
        home,
        entry,
        prior,
        target,
        with_deps,
        deps,
        build,
        entrypoint,
        name,
        builds: policy.builds,
    })
}

impl Ready {
    /// Its build, run in `target`.
    fn build_at<'a>(&'a self, target: &'a Path) -> build::BuildAt<'a> {
        build::BuildAt {
            build: &self.build,
            target,
            name: &self.name,
            entrypoint: self.entrypoint.as_ref(),
            home: &self.home,
        }
    }

    /// Build the staged tree where it waits, unless its steps run in the swap (returns
    /// whether they do). aoe builds in place (a build's outputs, such as a venv's scripts,
    /// name the directory they were built in). Where the system allows, an update's steps
    /// see the new tree at the plugin's path in a mount namespace of their own while the
    /// host still sees the installed version there ([`crate::steps::Overlay`]); elsewhere (a
    /// first install, or no namespaces) the tree goes in first and is built there.
    /// `sync --from BUNDLE`: the bundled build output instead of the steps, where it has one.
    fn build_waiting(
        &self,
        opts: &InstallOptions,
        tree: &Path,
        on_event: &mut dyn FnMut(Event),
    ) -> Result<bool, InstallError> {
        let placed = opts.build
            && self.builds
            && super::placed::place_bundled(
                opts,
                &self.build,
                tree,
                &self.name,
                self.entrypoint.as_ref(),
            )?;
        let steps = !placed
            && opts.build
            && self.builds
            && !crate::steps::for_this_platform(&self.build).is_empty();
        if opts.build && self.builds && !steps && !placed {
            build::run_build(&self.build_at(tree), None, opts.build_timeout, on_event)?;
        }
        Ok(steps)
    }
}

/// Put a staged install in place: under the home lock, decide again (another command may
/// have got there first), swap the tree and its deps in, build, and commit the lock.
pub(crate) fn swap(
    opts: &InstallOptions,
    mut ready: Ready,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let id = ready.entry.id.clone();
    let tree = ready.staging.tree();
    let _guard = lock_home(&ready.home, opts.wait, on_event)?;
    let (home, target) = (&ready.home, &ready.target);
    if let Some((kept, written)) = under_lock(
        opts,
        ready.with_deps,
        home,
        &ready.entry,
        ready.prior.as_ref(),
        target,
    )? {
        return Ok(up_to_date(id, ready.home, ready.target, kept, written));
    }
    // Any tree is hashed while it waits when it can be, and goes in right before the lock
    // is written.
    let steps = ready.build_waiting(opts, &tree, on_event)?;
    let waiting_hash = (!steps).then(|| crate::hash::installed(&tree).ok());
    if !steps {
        ready.entry.build_hash = crate::hash::build_output(&tree).ok().flatten();
    }
    let mut swap = txn::Swap::begin_with_deps(
        &ready.home,
        &ready.name,
        &tree,
        ready.deps.as_ref().map(|(pins, dir)| txn::StagedDeps {
            dir: dir.as_deref(),
            pins: pins.clone(),
        }),
        &opts.by,
        &opts.now,
    )?;
    ready.entry.installed_hash = match waiting_hash {
        Some(hash) => hash,
        None => {
            let built = ready.build_at(&ready.target);
            let (installed, build_hash) = built.run(opts, &mut swap, on_event)?;
            ready.entry.build_hash = build_hash;
            installed
        }
    };
    let written = swap.commit(&ready.entry)?;
    drop(ready.staging);
    Ok(Installed {
        id,
        dir: ready.target,
        home: ready.home,
        entry: ready.entry,
        up_to_date: false,
        lock_written: written,
    })
}
