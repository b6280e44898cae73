//! What a fetched tree would install, read against its home before anything is decided:
//! the lock's row for it (the source, commit and hashes, how the host names the source,
//! what it follows, who signed it), the row it replaces, and what the plugin asks for.

use std::path::Path;

use crate::host::InstallPolicy;
use crate::lock::Entry;
use crate::name::Name;
use crate::steps::Step;
use crate::store::Home;
use crate::validate::PluginReport;

use super::check::Checked;
use super::fetched::Fetched;
use super::lockhome::Staging;
use super::{Event, InstallError, InstallOptions, Refusal, Request, home_for, plan, signed};

/// A fetched tree read against its home: what [`super::pipeline::stage`] decides on.
pub(super) struct Proposal {
    pub(super) staging: Staging,
    pub(super) home: Home,
    pub(super) policy: &'static InstallPolicy,
    /// The lock's row for the fetched tree.
    pub(super) entry: Entry,
    /// The lock's row it replaces.
    pub(super) prior: Option<Entry>,
    pub(super) request: Request,
    pub(super) build: Vec<Step>,
    pub(super) entrypoint: Option<(String, bool)>,
    pub(super) report: PluginReport,
    pub(super) name: Name,
}

/// Read `fetched` against its home: what a killed command left there recovered first, the
/// tree hashed (`--frozen`: checked against the lock's hash), the lock's row for it made,
/// and what the plugin asks for described, with what consent must know of its signer, its
/// trust and its runtime.
pub(super) fn propose(
    opts: &InstallOptions,
    fetched: Fetched,
    on_event: &mut dyn FnMut(Event),
) -> Result<Proposal, InstallError> {
    let Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
        signer,
    } = fetched;
    let tree = staging.tree();
    let dialect = checked.dialect;
    let home = home(opts, dialect)?;
    // Whatever this install then decides ("up to date" included), it decides on a home
    // that a killed command's leftovers no longer hold.
    super::lockhome::recover_first(&home, on_event)?;
    let policy = crate::host::install_policy(dialect);
    let tree_hash = tree_hash(opts, policy, &tree, &checked.id, commit.as_deref())?;
    let mut entry = entry(
        opts,
        &home,
        policy,
        &checked,
        (requested, kind, commit.clone()),
        tree_hash,
    );
    let Checked {
        report,
        featured,
        id,
        name,
        ..
    } = checked;
    // Decide from the lock as it is now; the decision is checked again under the lock.
    // A home named by `--home` whose lock is another host's takes none of this plugin's.
    if !home.takes(dialect) {
        return Err(Refusal::OtherHostsHome {
            lockfile: home.lockfile(),
            format: home.dialect,
            dialect,
        }
        .into());
    }
    let prior = home.load_lock()?.get(&id);
    entry.follows_latest = follows_latest(opts, policy, prior.as_ref());
    let (mut request, build, entrypoint) =
        plan::describe(&report, &tree, &entry.source, commit.as_deref());
    signed_by(opts, &mut entry, signer.as_deref(), prior.as_ref());
    request.signer_change = signed::changed(signer.as_deref(), prior.as_ref());
    plan::runtime_gap(opts, &home, &report, on_event);
    request.unverified = super::consent::unverified(opts, policy, featured, kind);
    Ok(Proposal {
        staging,
        home,
        policy,
        entry,
        prior,
        request,
        build,
        entrypoint,
        report,
        name,
    })
}

/// The home a `dialect` plugin goes to ([`home_for`]); refused when there is none (no
/// `--home`, and no default home for its host).
fn home(opts: &InstallOptions, dialect: crate::dialect::Dialect) -> Result<Home, InstallError> {
    home_for(opts, Some(dialect))?.ok_or_else(|| Refusal::NoDefaultHome { dialect }.into())
}

/// The fetched tree's hash (empty for a tree with symlinks, where the host copies through
/// them; refused where it refuses them), which `sync --frozen` holds to the lock's.
fn tree_hash(
    opts: &InstallOptions,
    policy: &InstallPolicy,
    tree: &Path,
    id: &str,
    commit: Option<&str>,
) -> Result<String, InstallError> {
    let tree_hash = match crate::hash::tree(tree) {
        Ok(h) => h,
        Err(crate::hash::TreeError::Walk(w)) => return Err(w.into()),
        // Only aoe hashes refuse symlinks; the Python hosts copy through them.
        Err(e) if policy.refuses_symlinks => {
            return Err(Refusal::Unhashable { why: e }.into());
        }
        Err(_) => String::new(),
    };
    frozen_tree(opts, id, commit, &tree_hash)?;
    Ok(tree_hash)
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
    Err(Refusal::TreeMismatch {
        id: id.to_owned(),
        commit: commit.map(str::to_owned),
        tree_hash: tree_hash.to_owned(),
        pinned: pin.tree_hash.clone(),
    }
    .into())
}

/// The lock's row for the checked tree fetched at `commit` (asked for as `requested`), as
/// far as the tree and the request tell it: what it follows and who signed it are read
/// against the lock's row later.
fn entry(
    opts: &InstallOptions,
    home: &Home,
    policy: &InstallPolicy,
    checked: &Checked,
    (requested, kind, commit): (String, Option<crate::git::RefKind>, Option<String>),
    tree_hash: String,
) -> Entry {
    let Checked {
        report,
        featured,
        id,
        ..
    } = checked;
    let mut entry = Entry {
        id: id.clone(),
        source: opts.source.recorded(),
        requested_ref: requested,
        ref_kind: kind,
        commit,
        version: report.outcome.version.clone().unwrap_or_default(),
        manifest_hash: report.manifest_hash.clone().unwrap_or_default(),
        tree_hash,
        installed_hash: None,
        build_hash: None,
        follows_latest: false,
        release: None,
        unbuilt: false,
        featured: *featured,
        subdir: opts.source.subdir().map(str::to_owned),
        host_source: host_source(opts, policy),
        signer_key: None,
        signer_seen: None,
        // The profile given or remembered, which `sync` of the lock alone validates under.
        profile: opts
            .profile
            .or(crate::profile::HostProfile::load(home))
            .recorded(),
    };
    // aoe's config.toml that already names the source as typed has nothing to record.
    if crate::host::names_source(home, &entry) {
        entry.host_source = None;
    }
    // `--frozen` keeps the lock's own: fetched from a mirror, the host's row still names
    // the origin (and the lock stays byte for byte).
    if let Some(pin) = opts.pin.as_ref().filter(|_| opts.frozen) {
        entry.host_source.clone_from(&pin.host_source);
    }
    entry
}

/// Whether the plugin follows the latest release. aoe: a `gh:` source typed without a ref
/// follows the latest release in aoe's own updater; an update, sync or repair keeps what
/// the install recorded, so a sync of the lock on another machine writes `config.toml` as
/// the install did.
fn follows_latest(opts: &InstallOptions, policy: &InstallPolicy, prior: Option<&Entry>) -> bool {
    policy.ref_in_host_config
        && match host_source(opts, policy) {
            Some(typed) => typed.starts_with("gh:") && !typed.contains('@'),
            None => opts
                .pin
                .as_ref()
                .or(prior)
                .is_some_and(|p| p.follows_latest),
        }
}

/// Record who signed the fetched tree in its row. Trust on first use: the key that signed
/// it is pinned; another key asks again. When plugins first saw what it verified: the
/// lock's record of the same commit (a sync, a reinstall), else now.
fn signed_by(
    opts: &InstallOptions,
    entry: &mut Entry,
    signer: Option<&str>,
    prior: Option<&Entry>,
) {
    entry.signer_key = signed::pinned_key(signer, prior, &entry.source);
    entry.signer_seen = signer.map(|_| {
        opts.pin
            .as_ref()
            .or(prior)
            .filter(|p| p.commit.is_some() && p.commit == entry.commit)
            .and_then(|p| p.signer_seen.clone())
            .unwrap_or_else(|| opts.now.clone())
    });
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
