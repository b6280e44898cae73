//! The install pipeline: fetch and check, consent, then under the home lock decide,
//! swap, build and commit.

use crate::diagnostic::Code;
use crate::lock::Entry;
use crate::validate::validate_root;

use crate::host::pip_spec_problem;

use super::check::{Checked, at_source, check_tree, is_release_binary};
use super::decide::{changed, decide, under_lock, up_to_date};
use super::lockhome::Staging;
use super::{
    Event, InstallError, InstallOptions, Installed, Request, build, home_for, lock_home, plan,
    refused, signed, stage, txn, validate_options,
};

/// Whether installing `entry` (asking for `request`) over the home's `prior` asks consent,
/// and what the installed plugin was granted: an update asks again only when what was
/// granted changes (aoe §17's rules), or when the trust is downgraded from featured.
/// Whether an install asks consent, why, and the installed plugin's grant and report.
pub(super) type Asked = (
    bool,
    Vec<String>,
    Option<(Request, crate::validate::PluginReport)>,
);

pub(super) fn asks(
    opts: &InstallOptions,
    prior: Option<&Entry>,
    target: &std::path::Path,
    entry: &Entry,
    request: &Request,
) -> Asked {
    match prior {
        Some(p) if target.is_dir() => {
            let installed = validate_root(target, &validate_options(opts, target));
            let (before, _, _) = plan::describe(&installed, target, &p.source, p.commit.as_deref());
            let mut why = plan::reconsent(
                &before,
                request,
                p.manifest_hash != entry.manifest_hash,
                p.tree_hash != entry.tree_hash,
            );
            if p.featured && !entry.featured {
                // aoe: trust downgraded to community.
                why.push("trust featured -> community (not a pinned featured version)".to_owned());
            }
            if let Some((old, new)) = &request.signer_change {
                why.push(format!("signed by a different key: {old} -> {new}"));
            }
            (!why.is_empty(), why, Some((before, installed)))
        }
        // A first install asks for what it grants; there is no change to name.
        _ => match &request.signer_change {
            Some((old, new)) => (
                true,
                vec![format!("signed by a different key: {old} -> {new}")],
                None,
            ),
            None => (request.needs_consent(), Vec::new(), None),
        },
    }
}

/// A staged tree that passed [`check_tree`] (and, where required, whose signature git
/// verified).
pub(super) struct Fetched {
    staging: Staging,
    commit: Option<String>,
    kind: Option<crate::git::RefKind>,
    requested: String,
    checked: Checked,
    /// The fingerprint of the key that signed it, when a signature was required.
    signer: Option<String>,
}

impl Fetched {
    /// The fetched tree, in staging.
    pub(super) fn tree(&self) -> std::path::PathBuf {
        self.staging.tree()
    }

    pub(super) fn dialect(&self) -> crate::dialect::Dialect {
        self.checked.dialect
    }

    pub(super) fn name(&self) -> &crate::name::Name {
        &self.checked.name
    }

    /// The validation of the fetched tree (its facts: the release worker, the runtime).
    pub(super) fn report(&self) -> &crate::validate::PluginReport {
        &self.checked.report
    }
}

pub(super) fn fetch_and_check(
    opts: &InstallOptions,
    on_event: &mut dyn FnMut(Event),
) -> Result<Fetched, InstallError> {
    plan::superseded(opts)?;
    let staging = Staging::new(home_for(opts, None)?.as_ref())?;
    let tree = staging.tree();
    let stage::Staged {
        commit,
        kind,
        requested,
        signed,
    } = stage::fetch(opts, &tree, on_event)?;
    // An invalid tree's report names the source, not the staging directory it is deleted from.
    let checked = check_tree(opts, &tree)
        .map_err(|e| at_source(e, &opts.source, &tree, &requested, commit.as_deref()))?;
    // The plugin's id and home are known now: whether it must be signed, and by whom.
    let signer = signed::check(
        opts,
        home_for(opts, Some(checked.dialect))?.as_ref(),
        &checked.id,
        signed.as_ref(),
        staging.dir.path(),
        on_event,
    )?;
    Ok(Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
        signer,
    })
}

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
    target: std::path::PathBuf,
    with_deps: bool,
    deps: Option<(Vec<crate::lock::DepPin>, Option<std::path::PathBuf>)>,
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
    let Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
        signer,
    } = match fetched {
        Some(f) => f,
        None => fetch_and_check(opts, on_event)?,
    };
    let tree = staging.tree();
    let Checked {
        report,
        featured,
        dialect,
        id,
        name,
    } = checked;
    let home = home_for(opts, Some(dialect))?.ok_or_else(|| {
        refused(
            Code::UsageInvalidArgument,
            format!("no default home for {dialect} plugins: pass --home or set PLUGINS_HOME"),
            None,
        )
    })?;
    // Whatever this install then decides ("up to date" included), it decides on a home
    // that a killed command's leftovers no longer hold.
    super::lockhome::recover_first(&home, on_event)?;
    let policy = crate::host::install_policy(dialect);
    let tree_hash = match crate::hash::tree(&tree) {
        Ok(h) => h,
        Err(crate::hash::TreeError::Walk(w)) => return Err(w.into()),
        // Only aoe hashes refuse symlinks; the Python hosts copy through them.
        Err(e) if policy.refuses_symlinks => {
            return Err(refused(Code::InstallSymlink, e.to_string(), None));
        }
        Err(_) => String::new(),
    };
    frozen_tree(opts, &id, commit.as_deref(), &tree_hash)?;
    let mut entry = Entry {
        id: id.clone(),
        source: opts.source.recorded(),
        requested_ref: requested,
        ref_kind: kind,
        commit: commit.clone(),
        version: report.outcome.version.clone().unwrap_or_default(),
        manifest_hash: report.manifest_hash.clone().unwrap_or_default(),
        tree_hash,
        installed_hash: None,
        build_hash: None,
        follows_latest: false,
        release: None,
        unbuilt: false,
        featured,
        subdir: opts.source.subdir().map(str::to_owned),
        host_source: host_source(opts, policy),
        signer_key: None,
        signer_seen: None,
        // The profile given or remembered, which `sync` of the lock alone validates under.
        profile: opts
            .profile
            .or(crate::profile::HostProfile::load(&home))
            .recorded(),
    };
    // aoe's config.toml that already names the source as typed has nothing to record.
    if crate::host::names_source(&home, &entry) {
        entry.host_source = None;
    }
    // `--frozen` keeps the lock's own: fetched from a mirror, the host's row still names
    // the origin (and the lock stays byte for byte).
    if let Some(pin) = opts.pin.as_ref().filter(|_| opts.frozen) {
        entry.host_source.clone_from(&pin.host_source);
    }

    // Decide from the lock as it is now; the decision is checked again under the lock.
    // A home named by `--home` whose lock is another host's takes none of this plugin's.
    if !home.takes(dialect) {
        return Err(refused(
            Code::LockError,
            format!(
                "{} is in the {} format; {dialect} plugins need their own home",
                home.lockfile().display(),
                home.dialect
            ),
            "pass a different --home for each host".to_owned(),
        ));
    }
    let prior = home.load_lock()?.get(&id);
    // aoe: a `gh:` source typed without a ref follows the latest release in aoe's own
    // updater; an update, sync or repair keeps what the install recorded, so a sync of the
    // lock on another machine writes `config.toml` as the install did.
    entry.follows_latest = policy.ref_in_host_config
        && match host_source(opts, policy) {
            Some(typed) => typed.starts_with("gh:") && !typed.contains('@'),
            None => opts
                .pin
                .as_ref()
                .or(prior.as_ref())
                .is_some_and(|p| p.follows_latest),
        };
    let (mut request, build, entrypoint) =
        plan::describe(&report, &tree, &entry.source, commit.as_deref());
    // Trust on first use: the key that signed it is pinned; another key asks again.
    entry.signer_key = signed::pinned_key(signer.as_deref(), prior.as_ref(), &entry.source);
    // When plugins first saw what it verified: the lock's record of the same commit (a
    // sync, a reinstall), else now.
    entry.signer_seen = signer.as_ref().map(|_| {
        opts.pin
            .as_ref()
            .or(prior.as_ref())
            .filter(|p| p.commit.is_some() && p.commit == entry.commit)
            .and_then(|p| p.signer_seen.clone())
            .unwrap_or_else(|| opts.now.clone())
    });
    request.signer_change = signed::changed(signer.as_deref(), prior.as_ref());
    plan::runtime_gap(opts, &home, &report, on_event);
    // aoe §17: a `gh:` install from an explicit ref, or from the default branch of a
    // repository without a release, is unverified code and asks, unless featured-verified.
    request.unverified = policy.gh_ref_unverified
        && !featured
        && opts.pin.is_none()
        && opts.expect_id.is_none()
        && opts.source.recorded().starts_with("gh:")
        && (matches!(
            &opts.source,
            crate::source::Source::Git {
                reference: Some(_),
                ..
            }
        ) || kind == Some(crate::git::RefKind::Default));
    // `--deps` installs the requirements again even when the plugin is up to date.
    let with_deps = opts.deps
        && policy.wheel_deps
        && !(request.pip.is_empty() && request.optional_pip.is_empty());
    // A plugin installed with deps keeps them matching its code: any change of the code
    // swaps its deps too (an update, a sync, a repair, an autoupdate).
    let keep_deps = policy.wheel_deps && (opts.deps || home.load_lock()?.deps(&id).is_some());
    if opts.pin.is_some() && prior != opts.pin {
        // `sync` read the lock before another command changed (or removed) the entry.
        return Err(changed(&id));
    }
    let target = home.plugin_dir(&name);
    // A monorepo's plugin whose subdirectory is the same at the new commit: nothing to
    // install; only the lock's pin moves (under the lock, while the entry is still `prior`).
    if let Some(p) = prior.as_ref()
        && request.signer_change.is_none()
        && subdir_unchanged(opts, p, &entry, &target, with_deps)
        && !is_release_binary(&report)
        // aoe's config.toml names the ref (`gh:o/r@ref`): a new ref is a full install.
        && (!policy.ref_in_host_config || p.requested_ref == entry.requested_ref)
    {
        return move_pin(opts, home, &name, p, &entry, target, on_event);
    }
    // A change another process has under way is judged under the lock, after recovery.
    let early = decide(opts, with_deps, &home, &entry, prior.as_ref(), &target).or_else(|e| {
        if txn::pending(&home, &name) {
            Ok(None)
        } else {
            Err(e)
        }
    })?;
    if let Some(kept) = early {
        if Some(&kept) == prior.as_ref() {
            return Ok(Stage::Done(Box::new(up_to_date(
                id, home, target, kept, false,
            ))));
        }
        // Same files: only a changed request (a tag now tracked as a branch) is recorded.
        let _guard = lock_home(&home, opts.wait, on_event)?;
        return under_lock(opts, with_deps, &home, &entry, prior.as_ref(), &target)?
            .map(|(kept, written)| {
                Stage::Done(Box::new(up_to_date(
                    id.clone(),
                    home.clone(),
                    target.clone(),
                    kept,
                    written,
                )))
            })
            .ok_or_else(|| changed(&id));
    }

    if keep_deps {
        plain_pip_specs(&request)?;
    }
    // `sync`: the wheels the lock pins, checked against the manifest and listed in the
    // consent before anything is fetched for them.
    let locked_pins = match &opts.pin {
        Some(_) if keep_deps => home.load_lock()?.deps(name.as_str()),
        _ => None,
    };
    if let Some(pins) = &locked_pins {
        let needs_pip = !(request.pip.is_empty() && request.optional_pip.is_empty());
        build::refuse_stray_pins(&name, pins, needs_pip)?;
        request.pins = pins.iter().map(crate::lock::DepPin::spec).collect();
    }
    // An update asks again only when what was granted changes (aoe §17's rules).
    let (mut ask, mut why, _) = asks(opts, prior.as_ref(), &target, &entry, &request);
    if let Some(again) = &opts.ask_again {
        ask = true;
        why.push(again.clone());
    }
    request.reasons = why;
    if ask && !consent(&request) {
        if let Some(change) = &request.signer_change {
            return Err(signed::refuse_change(&id, change));
        }
        return Err(refused(
            Code::InstallDeclined,
            "install cancelled; no capabilities were granted",
            None,
        ));
    }
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
    Ok(Stage::Ready(Box::new(Ready {
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
    })))
}

/// `sync --frozen`: the locked commit's files are the locked files, or nothing goes on.
fn frozen_tree(
    opts: &InstallOptions,
    id: &str,
    commit: Option<&str>,
    tree_hash: &str,
) -> Result<(), InstallError> {
    let Some(pin) = opts.pin.as_ref().filter(|_| opts.frozen) else {
        return Ok(());
    };
    if pin.tree_hash == tree_hash {
        return Ok(());
    }
    Err(refused(
        Code::SyncTreeMismatch,
        format!(
            "{id} at {} hashes to {} but the lock pins {}; nothing was changed",
            commit.unwrap_or("its locked source"),
            if tree_hash.is_empty() { "nothing (a tree with symlinks)" } else { tree_hash },
            if pin.tree_hash.is_empty() { "no tree_hash" } else { &pin.tree_hash },
        ),
        "the source (or the mirror or bundle it came from) serves other files under the locked commit, or the lock was edited; inspect it before trusting it, or `plugins sync` without --frozen to pin what is served".to_owned(),
    ))
}

/// A monorepo's plugin whose subdirectory is the same at the new commit: nothing to install;
/// only the lock's pin moves, under the lock, while the row is still `prior`.
fn move_pin(
    opts: &InstallOptions,
    home: crate::store::Home,
    name: &crate::name::Name,
    prior: &Entry,
    entry: &Entry,
    target: std::path::PathBuf,
    on_event: &mut dyn FnMut(Event),
) -> Result<Stage, InstallError> {
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
    Ok(Stage::Done(Box::new(up_to_date(
        id, home, target, kept, written,
    ))))
}

/// Only plain PEP 508 requirements are installed: never options, URLs, VCS references or
/// local paths.
fn plain_pip_specs(request: &Request) -> Result<(), InstallError> {
    for spec in request.pip.iter().chain(&request.optional_pip) {
        if let Some(why) = pip_spec_problem(spec) {
            return Err(refused(
                Code::InstallDeps,
                format!("requires_pip entry {spec:?} {why}"),
                "only plain PEP 508 requirements are installed, never options, URLs, VCS references or local paths".to_owned(),
            ));
        }
    }
    Ok(())
}

/// The plugin's wheel deps, staged in full (network work) before the home lock and swapped
/// in with the tree: `sync` installs the wheels the lock pins, exactly (no resolution);
/// `--deps`, an update or an autoupdate resolve `requires_pip` again; a version that needs
/// none drops the previous ones (they go with the previous code). `None`: no deps change.
#[allow(clippy::type_complexity)] // one result tuple, taken apart by its one caller
fn stage_deps(
    opts: &InstallOptions,
    home: &crate::store::Home,
    request: &Request,
    (keep_deps, locked): (bool, Option<Vec<crate::lock::DepPin>>),
    staging: &Staging,
    name: &crate::name::Name,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<(Vec<crate::lock::DepPin>, Option<std::path::PathBuf>)>, InstallError> {
    let needs_pip = !(request.pip.is_empty() && request.optional_pip.is_empty());
    Ok(
        if let Some(pins) = locked.filter(|p| needs_pip || !p.is_empty()) {
            let python = build::python_for(opts.python.as_deref(), home);
            let dir = build::install_locked_deps(
                &pins,
                opts.wheels_from.as_deref(),
                staging.dir.path(),
                name,
                home,
                (&python, opts.build_timeout),
                on_event,
            )?;
            Some((pins, Some(dir)))
        } else if keep_deps && needs_pip {
            let python = build::python_for(opts.python.as_deref(), home);
            let (pins, dir) = build::install_deps(
                request,
                staging.dir.path(),
                name,
                home,
                &python,
                opts.build_timeout,
                on_event,
            )?;
            Some((pins, Some(dir)))
        } else if keep_deps {
            log::debug!("{name}: no requires_pip; its plugin-deps directory goes");
            Some((Vec::new(), None))
        } else {
            None
        },
    )
}

/// Put a staged install in place: under the home lock, decide again (another command may
/// have got there first), swap the tree and its deps in, build, and commit the lock.
pub(crate) fn swap(
    opts: &InstallOptions,
    ready: Ready,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let Ready {
        staging,
        home,
        mut entry,
        prior,
        target,
        with_deps,
        deps,
        build,
        entrypoint,
        name,
        builds,
    } = ready;
    let id = entry.id.clone();
    let tree = staging.tree();
    let _guard = lock_home(&home, opts.wait, on_event)?;
    if let Some((kept, written)) =
        under_lock(opts, with_deps, &home, &entry, prior.as_ref(), &target)?
    {
        return Ok(up_to_date(id, home, target, kept, written));
    }
    // aoe builds in place (a build's outputs, such as a venv's scripts, name the directory
    // they were built in). Where the system allows, an update's steps see the new tree at
    // the plugin's path in a mount namespace of their own while the host still sees the
    // installed version there ([`crate::steps::Overlay`]); elsewhere (a first install, or
    // no namespaces) the tree goes in first and is built there. Any tree is hashed while it
    // waits when it can be, and goes in right before the lock is written.
    // `sync --from BUNDLE`: the bundled build output instead of the steps, where it has one.
    let placed = opts.build
        && builds
        && super::placed::place_bundled(opts, &build, &tree, &name, entrypoint.as_ref())?;
    let steps =
        !placed && opts.build && builds && !crate::steps::for_this_platform(&build).is_empty();
    if opts.build && builds && !steps && !placed {
        build::run_build(
            &build,
            &tree,
            None,
            &name,
            entrypoint.as_ref(),
            &home,
            opts.build_timeout,
            on_event,
        )?;
    }
    let waiting_hash = (!steps).then(|| crate::hash::installed(&tree).ok());
    if !steps {
        entry.build_hash = crate::hash::build_output(&tree).ok().flatten();
    }
    let mut swap = txn::Swap::begin_with_deps(
        &home,
        &name,
        &tree,
        deps.as_ref().map(|(pins, dir)| txn::StagedDeps {
            dir: dir.as_deref(),
            pins: pins.clone(),
        }),
        &opts.by,
        &opts.now,
    )?;
    entry.installed_hash = match waiting_hash {
        Some(hash) => hash,
        None => {
            let built = super::placed::BuildAt {
                build: &build,
                target: &target,
                name: &name,
                entrypoint: entrypoint.as_ref(),
                home: &home,
            };
            let (installed, build_hash) = built.run(opts, &mut swap, on_event)?;
            entry.build_hash = build_hash;
            installed
        }
    };
    let written = swap.commit(&entry)?;
    drop(staging);
    Ok(Installed {
        id,
        dir: target,
        home,
        entry,
        up_to_date: false,
        lock_written: written,
    })
}

/// Whether `entry` (fetched from a monorepo's subdirectory at a new commit) has exactly the
/// installed plugin's files: the same source, subdirectory and source tree, installed and
/// built. An explicit `install --force` or `--deps` still reinstalls; `update` (which
/// forces a source change through) does not.
fn subdir_unchanged(
    opts: &InstallOptions,
    prior: &Entry,
    entry: &Entry,
    target: &std::path::Path,
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

/// How the host's own records name the source, when not as `plugins` locks it (see
/// [`Entry::host_source`]): protoAgent's lock, a `gh:` source's clone URL; aoe's
/// `config.toml`, what the user typed at install (`gh:owner/repo` and `@ref` only when a
/// ref was given, as aoe's `persisted_source`; a monorepo's subdirectory is left out, as no
/// host can fetch one). An update, sync or repair (`pin`, `expect_id`) types nothing.
fn host_source(opts: &InstallOptions, policy: &crate::host::InstallPolicy) -> Option<String> {
    use crate::source::Source;
    let typed = opts.pin.is_none() && opts.expect_id.is_none();
    match &opts.source {
        Source::Git { url, display, .. } if policy.lock_fetch_url => {
            (url != display).then(|| url.clone())
        }
        _ if !policy.ref_in_host_config || !typed => None,
        Source::Git {
            display,
            reference: Some(r),
            ..
        } if display.starts_with("gh:") => Some(format!("{display}@{r}")),
        source => Some(source.recorded()),
    }
}
