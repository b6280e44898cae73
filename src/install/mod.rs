//! Install (and re-install at a pinned commit for `sync`): fetch, check, ask,
//! build, swap, lock. Any failure leaves the previous install and the lock as
//! they were. Domain code: it reports through callbacks and never prints.

use std::path::PathBuf;

use crate::diagnostic::Code;
use crate::lock::Entry;
use crate::name::Name;
use crate::store::Home;

mod build;
mod check;
mod consent;
mod decide;
mod deps;
mod error;
pub mod featured;
mod fetched;
mod lockhome;
mod options;
mod pipeline;
mod placed;
mod plan;
mod preview;
mod proposal;
mod refusal;
mod shared;
mod signed;
mod stage;
pub mod txn;

pub use error::InstallError;
use error::io;
pub use refusal::{DepsRefusal, Refusal};

use check::check_tree;
use consent::asks;
use fetched::{Fetched, fetch_and_check};
use lockhome::Staging;
pub use lockhome::{lock_home, recover_first, scratch};
pub use options::{DefaultHomes, InstallOptions};
use options::{home_for, validate_options};
pub use pipeline::Stage;
use pipeline::fetch_check_swap;
pub use plan::Request;
pub use preview::{Preview, preview};
pub use shared::SharedFetches;

/// Progress worth telling a user about.
#[derive(Clone, Debug)]
pub enum Event {
    Fetching(String),
    /// The bytes a git fetch has received so far (libgit2's transfers; repeated as they come).
    Received {
        bytes: u64,
    },
    /// A git source's commit is fetched (or taken from a bundle).
    Fetched(String),
    /// A local source's tree (or a bundle's tree without a commit) is copied.
    Copied {
        copied: crate::tree::Copied,
        /// Local sources: entries left out because git ignores them.
        ignored: usize,
    },
    WaitingForLock(PathBuf),
    Building {
        n: usize,
        total: usize,
        command: String,
    },
    Downloading {
        asset: String,
        done: u64,
        total: Option<u64>,
    },
    /// Something the user should know that does not stop the install.
    Warning {
        code: Code,
        message: String,
    },
    /// Under the home lock, what killed processes left was finished or undone.
    Recovered(txn::Recovered),
    /// `require_signed`: git verified the signature of `object` (`tag v1.0.0`, `commit …`).
    Verified {
        object: String,
        fingerprint: String,
        principal: Option<String>,
    },
}

/// The result of an install.
#[derive(Clone, Debug)]
pub struct Installed {
    pub id: String,
    /// The home it went to (whose host is the plugin's).
    pub home: Home,
    /// Where the plugin is installed.
    pub dir: PathBuf,
    pub entry: Entry,
    /// Already installed at this commit: nothing changed.
    pub up_to_date: bool,
    pub lock_written: bool,
}

/// Install `opts.source`. `consent` decides whether to go on (given what the plugin asks for).
///
/// Network work (fetch, release download) and consent happen before the home
/// lock is taken; under the lock, the decision is checked against the lock
/// entry again, and the change is a [`txn::Swap`]. A host profile given in `opts` is
/// remembered by the home once the install succeeded.
pub fn install(
    opts: &InstallOptions,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let installed = fetch_check_swap(opts, None, consent, on_event)?;
    remember(opts, &installed)?;
    Ok(installed)
}

/// Remember the host profile and the host's interpreter given on the command line, in
/// the home the install went to.
fn remember(opts: &InstallOptions, installed: &Installed) -> Result<(), InstallError> {
    let file = installed.home.settings();
    opts.profile.remember(&installed.home).map_err(io(format!(
        "cannot record the host profile in {}",
        file.display()
    )))?;
    if let Some(python) = &opts.python
        && crate::host::install_policy(installed.home.dialect).remembers_python
    {
        crate::profile::remember_python(&installed.home, python).map_err(io(format!(
            "cannot record the host's Python in {}",
            file.display()
        )))?;
    }
    Ok(())
}

/// The network part of an install, done ahead (`sync`, `update --all` run several at
/// once): the source fetched into staging and checked, and the events it reported,
/// replayed in order by [`install_prepared`]. Nothing in any home changes.
pub struct Prepared {
    fetched: Result<Fetched, InstallError>,
    events: Vec<Event>,
}

/// Fetch and check `opts.source` without taking any lock or asking anything; safe on
/// any thread.
pub fn prepare(opts: &InstallOptions) -> Prepared {
    let mut events = Vec::new();
    let fetched = fetch_and_check(opts, &mut |e| events.push(e));
    Prepared { fetched, events }
}

/// [`install`] from what [`prepare`] fetched: its events are reported first, then the
/// install goes on (consent, home lock, swap) as [`install`] does.
pub fn install_prepared(
    opts: &InstallOptions,
    prepared: Prepared,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    for e in prepared.events {
        on_event(e);
    }
    let installed = fetch_check_swap(opts, Some(prepared.fetched?), consent, on_event)?;
    remember(opts, &installed)?;
    Ok(installed)
}

/// [`install_prepared`] up to the home lock (`sync --frozen`: every plugin staged before
/// any is swapped in): its events reported, consent asked, the release asset and deps
/// staged. A [`Stage::Ready`] has changed nothing; [`finish`] puts it in place.
pub fn stage_prepared(
    opts: &InstallOptions,
    prepared: Prepared,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Stage, InstallError> {
    for e in prepared.events {
        on_event(e);
    }
    pipeline::stage(opts, Some(prepared.fetched?), consent, on_event)
}

/// Finish what [`stage_prepared`] staged, as [`install`] does: under the home lock, swap
/// and commit; the host profile given is remembered.
pub fn finish(
    opts: &InstallOptions,
    stage: Stage,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let installed = match stage {
        Stage::Done(installed) => *installed,
        Stage::Ready(ready) => pipeline::swap(opts, *ready, on_event)?,
    };
    remember(opts, &installed)?;
    Ok(installed)
}

/// `plugins bundle`: fetch `opts.pin` at its locked commit as `sync` does, check that it
/// hashes to the lock's `tree_hash`, copy the tree to `tree_dest`, and download the locked
/// wheels `deps` into `wheels_dest` (pip `download --require-hashes`). Nothing in any home
/// changes (but the pip log).
pub fn bundle_entry(
    opts: &InstallOptions,
    deps: Option<&[crate::lock::DepPin]>,
    tree_dest: &std::path::Path,
    wheels_dest: &std::path::Path,
    assets_dest: &std::path::Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let pin = opts.pin.as_ref().expect("a bundle takes a locked row");
    let fetched = fetch_and_check(opts, on_event)?;
    let tree = fetched.tree();
    let hash = crate::hash::tree(&tree).unwrap_or_default();
    if hash != pin.tree_hash {
        return Err(Refusal::BundleTreeMismatch {
            id: pin.id.to_string(),
            commit: pin.commit.clone(),
            hash,
            pinned: pin.tree_hash.clone(),
        }
        .into());
    }
    crate::tree::copy(&tree, tree_dest, &|_, _| false)?;
    // aoe's release-binary worker: the locked asset, downloaded into a copy of the tree
    // (its sha256 checked against the lock), then kept as the bundle's `assets/<id>/`.
    if pin.release.is_some() {
        let scratch = crate::scratch::dir("release")
            .map_err(io("cannot create a directory for the release asset"))?;
        let built = scratch.path().join("tree");
        crate::tree::copy(&tree, &built, &|_, _| false)?;
        if let Some(placed) = stage::fetch_release(fetched.report(), opts, pin, &built, on_event)? {
            let name = crate::name::Name::new(&placed.asset).map_err(|why| Refusal::AssetName {
                id: pin.id.to_string(),
                asset: placed.asset.clone(),
                why,
            })?;
            let kept = name.under(&built.join(crate::release::KEEP_DIR));
            fs_err::create_dir_all(assets_dest)
                .map_err(io(format!("cannot create {}", assets_dest.display())))?;
            fs_err::copy(&kept, name.under(assets_dest))
                .map_err(io("cannot bundle the release asset"))?;
        }
    }
    let home = home_for(opts, Some(fetched.dialect()))?.ok_or(Refusal::NoBundleHome)?;
    let facts = &fetched.report().outcome.facts;
    build::refuse_stray_pins(
        fetched.name(),
        deps.unwrap_or_default(),
        !(facts.pip.is_empty() && facts.optional_pip.is_empty()),
    )?;
    let python = build::python_for(opts.python.as_deref(), &home);
    build::download_locked_wheels(
        deps.unwrap_or_default(),
        wheels_dest,
        fetched.name(),
        &home,
        &python,
        opts.build_timeout,
        on_event,
    )
}

/// Remove an installed plugin and its lock entry, as a transaction. A lock
/// entry is matched by its id; the directory removed is always `<plugins>/<id>`
/// for a checked id. A removal of it that a killed command left is finished by the
/// recovery and is this removal (`true`): the rerun of a killed `remove` succeeds.
pub fn remove(
    home: &Home,
    id: &Name,
    wait: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<bool, InstallError> {
    let interrupted = txn::pending_removal(home, id);
    let _guard = lock_home(home, wait, on_event)?;
    let lock = home.load_lock()?;
    if lock.get(id.as_str()).is_none() && !home.plugin_dir(id).exists() {
        return Ok(interrupted);
    }
    txn::remove(home, id)?;
    Ok(true)
}
