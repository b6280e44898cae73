//! Install (and re-install at a pinned commit for `sync`): fetch, check, ask,
//! build, swap, lock. Any failure leaves the previous install and the lock as
//! they were. Domain code: it reports through callbacks and never prints.

use std::path::PathBuf;
use std::time::Duration;

use crate::diagnostic::Code;
use crate::lock::{Entry, Lock};
use crate::manifest::Dialect;
use crate::name::Name;
use crate::profile::HostProfile;
use crate::source::Source;
use crate::store::Home;
use crate::validate::{ValidateOptions, validate_root};

/// aoe install-time refusals that `validate` reports as warnings.
const INSTALL_REFUSALS: &[Code] = &[
    Code::AoeUnknownCapability,
    Code::AoeReservedNamespace,
    Code::AoeBuiltinId,
    Code::AoeShippedBuildDir,
    Code::AoeSymlink,
    Code::AoeArchiveWithoutBin,
    Code::AoeBinPath,
];

/// Where each host keeps its plugins when no home is given.
#[derive(Clone, Debug, Default)]
pub struct DefaultHomes {
    pub aoe: Option<Home>,
    pub aworld: Option<Home>,
    pub protoagent: Option<Home>,
}

impl DefaultHomes {
    pub fn for_dialect(&self, d: Dialect) -> Option<&Home> {
        match d {
            Dialect::Aoe => self.aoe.as_ref(),
            Dialect::Aworld => self.aworld.as_ref(),
            Dialect::Protoagent => self.protoagent.as_ref(),
        }
    }

    /// Whether `home` is one of the hosts' own homes.
    pub fn is_default(&self, home: &Home) -> bool {
        [&self.aoe, &self.aworld, &self.protoagent]
            .into_iter()
            .any(|h| h.as_ref() == Some(home))
    }
}

/// What to install and how.
#[derive(Clone, Debug)]
pub struct InstallOptions {
    pub source: Source,
    /// `--home` or `PLUGINS_HOME`; else the dialect's default home.
    pub home: Option<PathBuf>,
    pub defaults: DefaultHomes,
    pub validate: ValidateOptions,
    pub build: bool,
    pub force: bool,
    pub build_timeout: Duration,
    /// Wait for another process's home lock (else fail at once).
    pub wait: bool,
    /// Who installs, recorded by hosts that keep it (protoAgent's `by`).
    pub by: String,
    /// protoAgent: install `requires_pip` into `<deps root>/<id>` as the host's wheel
    /// installer does, in the install's transaction. A plugin whose lock row has `deps`
    /// (installed with `--deps`, or by the host's wheel installer) gets them again with
    /// every change of its code, without this.
    pub deps: bool,
    /// The host's interpreter whose pip installs the deps (`--python`); else the one the
    /// home remembers (`[host] python` in `plugins.toml`), else `python3` on PATH.
    pub python: Option<PathBuf>,
    /// Detect the installed host's version when neither the command line nor the home
    /// names a profile ([`crate::host::detect`]).
    pub detect: bool,
    /// `update`: the id the source must still hold.
    pub expect_id: Option<String>,
    /// The GitHub API base for release-binary downloads.
    pub github_api: String,
    /// `sync`: install exactly this commit, keeping the lock's requested ref and kind.
    pub pin: Option<Entry>,
    /// An RFC 3339 timestamp for hosts whose lock records one.
    pub now: String,
    /// aoe's featured index override (`PLUGINS_FEATURED_INDEX`); `None`: the built-in one.
    pub featured_index: Option<PathBuf>,
    /// The host profile given on the command line: it wins over the one the home
    /// remembers (`[host]` in `plugins.toml`), and is remembered once the install succeeds.
    pub profile: HostProfile,
}

impl InstallOptions {
    /// The options every install starts from: build, wait for the home lock,
    /// the host's validation defaults, 600 s per build step, stamped now.
    pub fn new(
        source: Source,
        home: Option<PathBuf>,
        defaults: DefaultHomes,
        github_api: &str,
        by: &str,
    ) -> InstallOptions {
        InstallOptions {
            source,
            home,
            defaults,
            validate: ValidateOptions::default(),
            build: true,
            force: false,
            build_timeout: Duration::from_secs(600),
            wait: true,
            by: by.to_owned(),
            deps: false,
            python: None,
            detect: true,
            expect_id: None,
            github_api: github_api.to_owned(),
            pin: None,
            now: crate::clock::now(),
            featured_index: None,
            profile: HostProfile::default(),
        }
    }
}

mod build;
mod decide;
mod error;
pub mod featured;
mod plan;
mod preview;
mod stage;
pub mod txn;

use decide::{changed, decide, under_lock, up_to_date};
pub use error::InstallError;
use error::{io, refused};

use crate::manifest::protoagent::pip_spec_problem;
pub use plan::Request;
pub use preview::{Preview, preview};

/// Progress worth telling a user about.
#[derive(Clone, Debug)]
pub enum Event {
    Fetching(String),
    Fetched {
        commit: Option<String>,
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
}

/// The result of an install.
#[derive(Clone, Debug)]
pub struct Installed {
    pub id: String,
    pub dialect: Dialect,
    pub home: Home,
    /// Where the plugin is installed.
    pub dir: PathBuf,
    pub entry: Entry,
    /// Already installed at this commit: nothing changed.
    pub up_to_date: bool,
    pub lock_written: bool,
}

/// A manifest's plugin id as a directory name, or the refusal.
fn plugin_name(id: &str) -> Result<Name, InstallError> {
    Name::new(id).map_err(|why| {
        refused(
            Code::InstallUnsafeName,
            format!("plugin id {id:?} cannot name a plugin directory: {why}"),
            "ids and names become directory names: use letters, digits, `-`, `_` and `.` (not first)".to_owned(),
        )
    })
}

/// Staging for one install: a directory only this process uses, named with
/// its pid so that recovery can tell a live staging from a killed one.
struct Staging {
    dir: tempfile::TempDir,
}

impl Staging {
    /// In the home's state directory when the home is known (one file system,
    /// so the swap is a rename), else in the temp directory. A home that cannot
    /// be written (read-only) stages in the temp directory too.
    fn new(home: Option<&Home>) -> Result<Staging, InstallError> {
        let prefix = format!("{}{}-", txn::STAGING_PREFIX, std::process::id());
        let in_home = home.and_then(|h| {
            let parent = txn::staging_dir(h);
            std::fs::create_dir_all(&parent).ok()?;
            tempfile::Builder::new()
                .prefix(&prefix)
                .tempdir_in(parent)
                .ok()
        });
        let dir = match in_home {
            Some(d) => d,
            None => tempfile::Builder::new()
                .prefix("plugins-staging-")
                .tempdir()
                .map_err(io("cannot create a staging directory"))?,
        };
        Ok(Staging { dir })
    }

    fn tree(&self) -> PathBuf {
        self.dir.path().join("tree")
    }
}

/// aoe's `verify_featured` for a valid aoe report: whether the tree is pinned in the
/// featured index (a featured id from another source, or with a release-binary worker,
/// is refused). Other hosts have no featured index.
fn featured_verified(
    opts: &InstallOptions,
    report: &crate::validate::PluginReport,
    tree: &std::path::Path,
) -> Result<bool, InstallError> {
    let (Some(Dialect::Aoe), Some(id)) = (report.dialect, report.outcome.id.as_deref()) else {
        return Ok(false);
    };
    let index = featured::Index::load(opts.featured_index.as_deref())?;
    if !index.plugins.contains_key(id) {
        return Ok(false);
    }
    let slug = stage::github_repo(&opts.source)
        .map(|(owner, repo)| format!("gh:{owner}/{repo}"))
        .unwrap_or_else(|| opts.source.recorded());
    let tree_hash = crate::hash::tree(tree).unwrap_or_default();
    index.verify(id, &slug, &tree_hash, stage::is_release_binary(report))
}

/// Take the home lock and finish or undo whatever a killed process left.
pub fn lock_home(
    home: &Home,
    wait: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<crate::store::Guard, InstallError> {
    let guard = home
        .lock(wait, || on_event(Event::WaitingForLock(home.root.clone())))
        .map_err(io(format!("cannot lock {}", home.root.display())))?;
    let recovered = txn::recover(home)?;
    if !recovered.plugins.is_empty() || recovered.cleaned > 0 {
        on_event(Event::Recovered(recovered));
    }
    Ok(guard)
}

/// The home an install goes to.
fn home_for(opts: &InstallOptions, dialect: Option<Dialect>) -> Option<Home> {
    match &opts.home {
        Some(h) => Some(Home::new(h.clone())),
        None => dialect.and_then(|d| opts.defaults.for_dialect(d).cloned()),
    }
}

/// A fetched tree that passed every check an install makes before it looks at the home.
struct Checked {
    report: crate::validate::PluginReport,
    featured: bool,
    dialect: Dialect,
    id: String,
    name: Name,
}

/// Validate a fetched tree as an install does: a valid manifest, aoe's gates (the featured
/// index, the reserved namespace and the rest), an id that names a directory (and is the
/// expected one for `sync` and `update`), no symlink out of the tree.
fn check_tree(opts: &InstallOptions, tree: &std::path::Path) -> Result<Checked, InstallError> {
    let report = validate_root(tree, &validate_options(opts, tree));
    if !report.is_valid() {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    // aoe's gates in order: the featured index, then the reserved namespace and the rest.
    let featured = featured_verified(opts, &report, tree)?;
    let install_refusal = report.outcome.diagnostics.iter().any(|d| {
        INSTALL_REFUSALS.contains(&d.code) && !(featured && d.code == Code::AoeReservedNamespace)
    });
    if install_refusal {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    let dialect = report.dialect.expect("a valid report has a dialect");
    let id = report
        .outcome
        .id
        .clone()
        .ok_or_else(|| refused(Code::InstallInvalid, "the manifest has no id", None))?;
    let name = plugin_name(&id)?;
    plan::host_gates(opts, dialect, &id)?;
    let expected = opts.pin.as_ref().map(|p| &p.id).or(opts.expect_id.as_ref());
    if let Some(expected) = expected
        && *expected != id
    {
        return Err(refused(
            Code::InstallIdChanged,
            format!(
                "source {} now resolves to plugin {id:?}, not {expected}",
                opts.source.recorded()
            ),
            None,
        ));
    }
    let escaping = stage::escaping_symlinks(tree)?;
    if !escaping.is_empty() {
        return Err(refused(
            Code::InstallSymlink,
            format!(
                "the plugin tree has symlinks pointing outside it: {}",
                escaping.join(", ")
            ),
            "a plugin must be self-contained".to_owned(),
        ));
    }
    Ok(Checked {
        report,
        featured,
        dialect,
        id,
        name,
    })
}

/// An invalid staged tree's report, pointing at the source instead of the staging
/// directory (deleted by the time it is read): `gh:o/r@ref:aoe-plugin.toml`, the URL the
/// same way, or the local source's own path. The ref is the one asked for, else the commit.
fn at_source(
    e: InstallError,
    source: &Source,
    tree: &std::path::Path,
    requested: &str,
    commit: Option<&str>,
) -> InstallError {
    let InstallError::Invalid(mut report) = e else {
        return e;
    };
    let rel = report
        .manifest
        .strip_prefix(&report.root)
        .or_else(|_| report.manifest.strip_prefix(tree))
        .map(crate::render::display_path)
        .unwrap_or_default();
    let (root, inside) = match source {
        Source::Git {
            display, subdir, ..
        } => {
            let at = match (requested, commit) {
                ("", Some(c)) => format!("@{}", &c[..c.len().min(10)]),
                ("", None) => String::new(),
                (r, _) => format!("@{r}"),
            };
            match subdir {
                Some(s) => {
                    let root = format!("{display}{at}:{s}");
                    let inside = format!("{root}/");
                    (root, inside)
                }
                None => {
                    let root = format!("{display}{at}");
                    let inside = format!("{root}:");
                    (root, inside)
                }
            }
        }
        Source::Local { path } => {
            let root = path.display().to_string();
            let inside = format!("{root}/");
            (root, inside)
        }
    };
    let staged = [report.root.clone(), tree.to_path_buf()];
    let relabel = |text: &mut String| {
        for dir in &staged {
            let dir = dir.display().to_string();
            if !dir.is_empty() && text.contains(&dir) {
                *text = text
                    .replace(&format!("{dir}/"), &inside)
                    .replace(&dir, &root);
            }
        }
    };
    for d in &mut report.outcome.diagnostics {
        relabel(&mut d.message);
        if let Some(h) = &mut d.help {
            relabel(h);
        }
        for l in &mut d.labels {
            if let Some(t) = &mut l.text {
                relabel(t);
            }
        }
    }
    if let Some(m) = &mut report.outcome.host_message {
        relabel(m);
    }
    report.manifest = std::path::PathBuf::from(format!("{inside}{rel}"));
    report.root = std::path::PathBuf::from(root);
    InstallError::Invalid(report)
}

/// Whether installing `entry` (asking for `request`) over the home's `prior` asks consent,
/// and what the installed plugin was granted: an update asks again only when what was
/// granted changes (aoe §17's rules), or when the trust is downgraded from featured.
fn asks(
    opts: &InstallOptions,
    prior: Option<&Entry>,
    target: &std::path::Path,
    entry: &Entry,
    request: &Request,
) -> (bool, Option<(Request, crate::validate::PluginReport)>) {
    match prior {
        Some(p) if target.is_dir() => {
            let installed = validate_root(target, &validate_options(opts, target));
            let (before, _, _) = plan::describe(&installed, target, &p.source, p.commit.as_deref());
            let ask = plan::reconsent(
                &before,
                request,
                p.manifest_hash != entry.manifest_hash,
                p.tree_hash != entry.tree_hash,
            ) || (p.featured && !entry.featured); // aoe: trust downgraded to community
            (ask, Some((before, installed)))
        }
        _ => (request.needs_consent(), None),
    }
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
    let file = installed.home.root.join("plugins.toml");
    opts.profile.remember(&installed.home).map_err(io(format!(
        "cannot record the host profile in {}",
        file.display()
    )))?;
    if let Some(python) = &opts.python
        && installed.dialect == Dialect::Protoagent
    {
        build::remember_python(&installed.home, python).map_err(io(format!(
            "cannot record the host's Python in {}",
            file.display()
        )))?;
    }
    Ok(())
}

/// How to validate `tree`: as the host the command line names, else the one the home it
/// goes to remembers.
///
/// With neither, the installed host's version is detected (`aoe --version`, the
/// protoAgent package of the host's Python: [`crate::host::detect`]) and its profile used
/// (not remembered: a host upgrade is seen by the next command); `-v` says so.
pub(super) fn validate_options(opts: &InstallOptions, tree: &std::path::Path) -> ValidateOptions {
    let dialect = match Dialect::detect(tree).as_slice() {
        [d] => Some(*d),
        _ => None,
    };
    let home = home_for(opts, dialect);
    let remembered = home.as_ref().map(HostProfile::load).unwrap_or_default();
    let mut profile = opts.profile.or(remembered);
    if let Some(d) = dialect
        && opts.detect
        && crate::host::detect::wanted(d, &profile)
    {
        let python = crate::host::detect::host_python(opts.python.as_deref(), home.as_ref());
        if let Some(found) = crate::host::detect::detect(d, &python) {
            profile = profile.or(found.profile);
        }
    }
    let mut v = opts.validate.clone();
    profile.apply(&mut v);
    v
}

/// The network part of an install, done ahead (`sync`, `update --all` run several at
/// once): the source fetched into staging and checked, and the events it reported,
/// replayed in order by [`install_prepared`]. Nothing in any home changes.
pub struct Prepared {
    fetched: Result<Fetched, InstallError>,
    events: Vec<Event>,
}

/// A staged tree that passed [`check_tree`].
struct Fetched {
    staging: Staging,
    commit: Option<String>,
    kind: Option<crate::git::RefKind>,
    requested: String,
    checked: Checked,
}

fn fetch_and_check(
    opts: &InstallOptions,
    on_event: &mut dyn FnMut(Event),
) -> Result<Fetched, InstallError> {
    plan::superseded(opts)?;
    let staging = Staging::new(home_for(opts, None).as_ref())?;
    let tree = staging.tree();
    let (commit, kind, requested) = stage::fetch(opts, &tree, on_event)?;
    // An invalid tree's report names the source, not the staging directory it is deleted from.
    let checked = check_tree(opts, &tree)
        .map_err(|e| at_source(e, &opts.source, &tree, &requested, commit.as_deref()))?;
    Ok(Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
    })
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

fn fetch_check_swap(
    opts: &InstallOptions,
    fetched: Option<Fetched>,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    let Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
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
    let home = home_for(opts, Some(dialect)).ok_or_else(|| {
        refused(
            Code::UsageInvalidArgument,
            format!("no default home for {dialect} plugins: pass --home or set PLUGINS_HOME"),
            None,
        )
    })?;
    let tree_hash = match crate::hash::tree(&tree) {
        Ok(h) => h,
        Err(crate::hash::TreeError::Walk(w)) => return Err(w.into()),
        // Only aoe hashes refuse symlinks; the Python hosts copy through them.
        Err(e) if dialect == Dialect::Aoe => {
            return Err(refused(Code::InstallSymlink, e.to_string(), None));
        }
        Err(_) => String::new(),
    };
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
        release: None,
        unbuilt: false,
        featured,
        subdir: opts.source.subdir().map(str::to_owned),
    };

    // Decide from the lock as it is now; the decision is checked again under the lock.
    if let Some(other) = crate::lock::detect(&home.lockfile()).filter(|d| *d != dialect) {
        return Err(refused(
            Code::LockError,
            format!(
                "{} is in the {other} format; {dialect} plugins need their own home",
                home.lockfile().display()
            ),
            "pass a different --home for each host".to_owned(),
        ));
    }
    let prior = Lock::load(&home.lockfile(), dialect)?.get(&id);
    let (mut request, build, entrypoint) =
        plan::describe(&report, &tree, &entry.source, commit.as_deref());
    plan::runtime_gap(opts, &home, &report, on_event);
    // aoe §17: a `gh:` install from an explicit ref, or from the default branch of a
    // repository without a release, is unverified code and asks, unless featured-verified.
    request.unverified = dialect == Dialect::Aoe
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
        && dialect == Dialect::Protoagent
        && !(request.pip.is_empty() && request.optional_pip.is_empty());
    // A plugin installed with deps keeps them matching its code: any change of the code
    // swaps its deps too (an update, a sync, a repair, an autoupdate).
    let keep_deps = dialect == Dialect::Protoagent
        && (opts.deps || Lock::load(&home.lockfile(), dialect)?.deps(&id).is_some());
    if opts.pin.is_some() && prior != opts.pin {
        // `sync` read the lock before another command changed (or removed) the entry.
        return Err(changed(&id));
    }
    let target = home.plugin_dir(&name);
    // A monorepo's plugin whose subdirectory is the same at the new commit: nothing to
    // install; only the lock's pin moves (under the lock, while the entry is still `prior`).
    if let Some(p) = prior.as_ref()
        && subdir_unchanged(opts, p, &entry, &target, with_deps)
        && !stage::is_release_binary(&report)
        // aoe's config.toml names the ref (`gh:o/r@ref`): a new ref is a full install.
        && (dialect != Dialect::Aoe || p.requested_ref == entry.requested_ref)
    {
        let _guard = lock_home(&home, opts.wait, on_event)?;
        let mut lock = Lock::load(&home.lockfile(), dialect)?;
        if lock.get(&id).as_ref() != Some(p) || txn::pending(&home, &name) {
            return Err(changed(&id));
        }
        let mut kept = p.clone();
        kept.commit.clone_from(&entry.commit);
        kept.requested_ref.clone_from(&entry.requested_ref);
        kept.ref_kind = entry.ref_kind;
        lock.upsert(&kept, &opts.by, &opts.now);
        let written = lock.save()?;
        log::debug!(
            "{id}: {} is the same at {}; only the lock's pin moved",
            kept.subdir.as_deref().unwrap_or_default(),
            kept.commit.as_deref().unwrap_or_default()
        );
        return Ok(up_to_date(id, dialect, home, target, kept, written));
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
            return Ok(up_to_date(id, dialect, home, target, kept, false));
        }
        // Same files: only a changed request (a tag now tracked as a branch) is recorded.
        let _guard = lock_home(&home, opts.wait, on_event)?;
        return under_lock(
            opts,
            with_deps,
            &home,
            &entry,
            prior.as_ref(),
            &target,
            dialect,
        )?
        .map(|(kept, written)| {
            up_to_date(
                id.clone(),
                dialect,
                home.clone(),
                target.clone(),
                kept,
                written,
            )
        })
        .ok_or_else(|| changed(&id));
    }

    if keep_deps {
        for spec in request.pip.iter().chain(&request.optional_pip) {
            if let Some(why) = pip_spec_problem(spec) {
                return Err(refused(
                    Code::InstallDeps,
                    format!("requires_pip entry {spec:?} {why}"),
                    "only plain PEP 508 requirements are installed, never options, URLs or VCS references".to_owned(),
                ));
            }
        }
    }
    // An update asks again only when what was granted changes (aoe §17's rules).
    let ask = asks(opts, prior.as_ref(), &target, &entry, &request).0;
    if ask && !consent(&request) {
        return Err(refused(
            Code::InstallDeclined,
            "install cancelled; no capabilities were granted",
            None,
        ));
    }
    // A release-binary worker is downloaded into the staged tree: a failed or corrupt
    // download never reaches the installed plugin.
    if opts.build && dialect == Dialect::Aoe {
        entry.release = stage::fetch_release(&report, opts, &entry, &tree, on_event)?;
    }

    // `--deps`: staged in full (network work) before the home lock; swapped in with the tree.
    let deps = if keep_deps && !(request.pip.is_empty() && request.optional_pip.is_empty()) {
        let python = build::python_for(opts.python.as_deref(), &home);
        let (pins, dir) = build::install_deps(
            &request,
            staging.dir.path(),
            &name,
            &home,
            &python,
            opts.build_timeout,
            on_event,
        )?;
        Some((pins, Some(dir)))
    } else if keep_deps {
        // This version needs no wheels: the previous ones go with the previous code.
        log::debug!("{id}: no requires_pip; its plugin-deps directory goes");
        Some((Vec::new(), None))
    } else {
        None
    };

    // `--no-build` with something to build: locked as unbuilt, so `verify` reports it and
    // `sync` builds it.
    entry.unbuilt = !opts.build
        && dialect == Dialect::Aoe
        && (!crate::steps::for_this_platform(&build).is_empty()
            || stage::is_release_binary(&report));
    let _guard = lock_home(&home, opts.wait, on_event)?;
    if let Some((kept, written)) = under_lock(
        opts,
        with_deps,
        &home,
        &entry,
        prior.as_ref(),
        &target,
        dialect,
    )? {
        return Ok(up_to_date(id, dialect, home, target, kept, written));
    }
    let swap = txn::Swap::begin_with_deps(
        &home,
        &name,
        dialect,
        &tree,
        deps.as_ref().map(|(pins, dir)| txn::StagedDeps {
            dir: dir.as_deref(),
            pins: pins.clone(),
        }),
        &opts.by,
        &opts.now,
    )?;
    if opts.build && dialect == Dialect::Aoe {
        build::run_build(
            &build,
            &target,
            &name,
            entrypoint.as_ref(),
            &home,
            opts.build_timeout,
            on_event,
        )?;
    }
    entry.installed_hash = crate::hash::installed(&target).ok();
    let written = swap.commit(&entry)?;
    Ok(Installed {
        id,
        dialect,
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

/// Remove an installed plugin and its lock entry, as a transaction. A lock
/// entry is matched by its id; the directory removed is always `<plugins>/<id>`
/// for a checked id.
pub fn remove(
    home: &Home,
    id: &Name,
    dialect: Dialect,
    wait: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<bool, InstallError> {
    let _guard = lock_home(home, wait, on_event)?;
    let lock = Lock::load(&home.lockfile(), dialect)?;
    if lock.get(id.as_str()).is_none() && !home.plugin_dir(id).exists() {
        return Ok(false);
    }
    txn::remove(home, id, dialect)?;
    Ok(true)
}
