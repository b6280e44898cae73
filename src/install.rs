//! Install (and re-install at a pinned commit for `sync`): fetch, check, ask,
//! build, swap, lock. Any failure leaves the previous install and the lock as
//! they were. Domain code: it reports through callbacks and never prints.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diagnostic::Code;
use crate::git::{self, RefKind};
use crate::lock::{Entry, Lock};
use crate::manifest::aoe::raw::{self, Runtime};
use crate::manifest::{Dialect, aoe};
use crate::name::Name;
use crate::source::Source;
use crate::steps::{self, Step};
use crate::store::Home;
use crate::validate::{PluginReport, ValidateOptions, validate_root};

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
    /// protoAgent: install `requires_pip` into a plugin-local `.venv`.
    pub deps: bool,
    /// `update`: the id the source must still hold.
    pub expect_id: Option<String>,
    /// The GitHub API base for release-binary downloads.
    pub github_api: String,
    /// `sync`: install exactly this commit, keeping the lock's requested ref and kind.
    pub pin: Option<Entry>,
    /// An RFC 3339 timestamp for hosts whose lock records one.
    pub now: String,
}

/// What consent is asked for.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: String,
    pub dialect: Dialect,
    pub version: String,
    pub source: String,
    pub commit: Option<String>,
    pub capabilities: Vec<String>,
    pub build_steps: Vec<String>,
    pub ui: Vec<String>,
    /// The plugin runs code inside the host (protoAgent modules, AWorld Python entrypoints).
    pub runs_code: bool,
    /// protoAgent `requires_pip`: hard requirements, then optional ones.
    pub pip: Vec<String>,
    pub optional_pip: Vec<String>,
}

impl Request {
    pub fn needs_consent(&self) -> bool {
        !self.capabilities.is_empty()
            || !self.build_steps.is_empty()
            || !self.ui.is_empty()
            || self.runs_code
    }
}

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

/// Why an install stopped.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{message}")]
    Refused {
        code: Code,
        message: String,
        help: Option<String>,
    },
    #[error("the plugin is invalid")]
    Invalid(Box<PluginReport>),
    #[error(transparent)]
    Git(#[from] git::GitError),
    #[error(transparent)]
    Build(#[from] steps::StepError),
    #[error(transparent)]
    Release(#[from] crate::release::ReleaseError),
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    #[error("the plugin tree cannot be installed: {0}")]
    Tree(#[from] crate::tree::WalkError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

fn refused(
    code: Code,
    message: impl Into<String>,
    help: impl Into<Option<String>>,
) -> InstallError {
    InstallError::Refused {
        code,
        message: message.into(),
        help: help.into(),
    }
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

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> InstallError {
    let context = context.into();
    move |source| InstallError::Io { context, source }
}

/// Fetch the source into `dest`; returns the resolved commit and ref kind for git sources.
fn fetch(
    opts: &InstallOptions,
    dest: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<(Option<String>, Option<RefKind>, String), InstallError> {
    match &opts.source {
        Source::Git { url, reference, .. } => {
            on_event(Event::Fetching(url.clone()));
            let want = opts
                .pin
                .as_ref()
                .and_then(|p| p.commit.clone())
                .or_else(|| reference.clone());
            let fetched = git::fetch_tree(url, want.as_deref(), dest)?;
            on_event(Event::Fetched {
                commit: Some(fetched.commit.clone()),
                ignored: 0,
            });
            let (kind, requested) = match &opts.pin {
                Some(p) => (p.ref_kind, p.requested_ref.clone()),
                None => (Some(fetched.kind), reference.clone().unwrap_or_default()),
            };
            Ok((Some(fetched.commit), kind, requested))
        }
        Source::Local { path } => {
            on_event(Event::Fetching(path.display().to_string()));
            // The source is checked where it is before anything is copied.
            let report = validate_root(path, &opts.validate);
            if !report.is_valid() {
                return Err(InstallError::Invalid(Box::new(report)));
            }
            // Inside a git work tree, what git ignores (build output) is left out.
            let rules = git::Ignored::for_dir(path);
            let ignored = std::cell::Cell::new(0);
            let skip = |rel: &Path, _: usize| {
                if rel.file_name().is_some_and(|n| n == ".git") {
                    return true;
                }
                let out = rules.as_ref().is_some_and(|r| r.is_ignored(rel));
                ignored.set(ignored.get() + usize::from(out));
                out
            };
            crate::tree::copy(path, dest, &skip)?;
            on_event(Event::Fetched {
                commit: None,
                ignored: ignored.get(),
            });
            Ok((None, None, String::new()))
        }
    }
}

/// Symlinks anywhere in the tree that resolve outside it.
fn escaping_symlinks(root: &Path) -> Result<Vec<String>, crate::tree::WalkError> {
    let real_root = root.canonicalize().ok();
    Ok(crate::tree::walk(root, &|_, _| false)?
        .into_iter()
        .filter(|e| e.kind == crate::tree::Kind::Symlink)
        .filter(|e| {
            let inside = match (&real_root, e.path.canonicalize()) {
                (Some(r), Ok(p)) => p.starts_with(r),
                _ => false,
            };
            !inside
        })
        .map(|e| e.display())
        .collect())
}

/// The consent request and build steps for a validated tree.
fn describe(
    report: &PluginReport,
    tree: &Path,
    source: &str,
    commit: Option<&str>,
) -> (Request, Vec<Step>, Option<(String, bool)>) {
    let dialect = report.dialect.expect("validated");
    let id = report.outcome.id.clone().unwrap_or_default();
    let version = report.outcome.version.clone().unwrap_or_default();
    let mut req = Request {
        id,
        dialect,
        version,
        source: source.to_owned(),
        commit: commit.map(str::to_owned),
        capabilities: Vec::new(),
        build_steps: Vec::new(),
        ui: Vec::new(),
        runs_code: false,
        pip: Vec::new(),
        optional_pip: Vec::new(),
    };
    let mut build = Vec::new();
    let mut entrypoint = None;
    let text = report.source.as_deref().unwrap_or_default();
    match dialect {
        Dialect::Aoe => {
            if let Ok(m) = raw::parse(text, aoe::profile::Profile::H15)
                .or_else(|_| raw::parse(text, aoe::profile::Profile::H12))
            {
                req.capabilities = m.capabilities.clone();
                req.ui =
                    m.ui.iter()
                        .map(|u| format!("{} {}", u.slot.as_str(), u.id))
                        .collect();
                if let Some(Runtime::Command {
                    command,
                    system,
                    build: steps,
                }) = &m.runtime
                {
                    build = steps
                        .iter()
                        .map(|s| Step {
                            argv: s.command.clone(),
                            platforms: s.platforms.clone(),
                        })
                        .collect();
                    entrypoint = command.first().map(|p| (p.clone(), *system));
                }
                req.build_steps = build.iter().map(|s: &Step| s.argv.join(" ")).collect();
            }
        }
        Dialect::Protoagent => {
            req.runs_code = true;
            if let Ok(doc) = crate::manifest::format::parse_yaml(text)
                && let Some(caps) = doc.get("capabilities").and_then(|e| {
                    e.node
                        .as_table()
                        .map(|t| t.iter().map(|e| e.key.clone()).collect::<Vec<_>>())
                })
            {
                req.capabilities = caps;
            }
            if let Ok(doc) = crate::manifest::format::parse_yaml(text) {
                (req.pip, req.optional_pip) = pip_requirements(&doc);
            }
        }
        Dialect::Aworld => {
            req.runs_code = has_python(tree);
        }
    }
    (req, build, entrypoint)
}

/// Whether a tree holds Python code (AWorld runs it inside the host).
fn has_python(dir: &Path) -> bool {
    crate::tree::walk(dir, &|_, _| false).is_ok_and(|entries| {
        entries.iter().any(|e| {
            e.kind == crate::tree::Kind::File && e.rel.extension().is_some_and(|x| x == "py")
        })
    })
}

/// Install `opts.source`. `consent` decides whether to go on (given what the plugin asks for).
pub fn install(
    opts: &InstallOptions,
    consent: &mut dyn FnMut(&Request) -> bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<Installed, InstallError> {
    // Stage inside the home when it is known (one filesystem, so the swap is a rename).
    let stage_parent = match &opts.home {
        Some(h) => {
            let dir = Home::new(h).plugins_dir();
            std::fs::create_dir_all(&dir)
                .map_err(io(format!("cannot create {}", dir.display())))?;
            dir
        }
        None => std::env::temp_dir(),
    };
    let staging = tempfile::Builder::new()
        .prefix(".staging-")
        .tempdir_in(&stage_parent)
        .map_err(io("cannot create a staging directory"))?;
    let tree = staging.path().join("tree");
    let (commit, kind, requested) = fetch(opts, &tree, on_event)?;

    let report = validate_root(&tree, &opts.validate);
    let install_refusal = report
        .outcome
        .diagnostics
        .iter()
        .any(|d| INSTALL_REFUSALS.contains(&d.code));
    if !report.is_valid() || install_refusal {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    let escaping = escaping_symlinks(&tree)?;
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
    let dialect = report.dialect.expect("a valid report has a dialect");
    let id = report
        .outcome
        .id
        .clone()
        .ok_or_else(|| refused(Code::InstallInvalid, "the manifest has no id", None))?;
    let name = plugin_name(&id)?;
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
    let home = match &opts.home {
        Some(h) => Home::new(h.clone()),
        None => opts.defaults.for_dialect(dialect).cloned().ok_or_else(|| {
            refused(
                Code::UsageInvalidArgument,
                format!("no default home for {dialect} plugins: pass --home or set PLUGINS_HOME"),
                None,
            )
        })?,
    };
    let tree_hash = match crate::hash::tree(&tree) {
        Ok(h) => h,
        Err(crate::hash::TreeError::Walk(w)) => return Err(w.into()),
        // Only aoe hashes refuse symlinks; the Python hosts copy through them.
        Err(e) if dialect == Dialect::Aoe => {
            return Err(refused(Code::InstallSymlink, e.to_string(), None));
        }
        Err(_) => String::new(),
    };
    let manifest_hash = report.manifest_hash.clone().unwrap_or_default();
    let entry = Entry {
        id: id.clone(),
        source: opts.source.recorded(),
        requested_ref: requested,
        ref_kind: kind,
        commit: commit.clone(),
        version: report.outcome.version.clone().unwrap_or_default(),
        manifest_hash,
        tree_hash,
        installed_hash: None,
        release: None,
    };

    let _guard = home
        .lock(opts.wait, || {
            on_event(Event::WaitingForLock(home.root.clone()))
        })
        .map_err(io(format!("cannot lock {}", home.root.display())))?;
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
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    let prior = lock.get(&id);
    let target = home.plugin_dir(&name);
    match &prior {
        Some(p) if p.source != entry.source && !opts.force && opts.pin.is_none() => {
            return Err(refused(
                Code::InstallExists,
                format!(
                    "{id} is already installed from {}; use --force to replace it",
                    p.source
                ),
                "`plugins remove` it first, or pass --force".to_owned(),
            ));
        }
        Some(p)
            if p.commit == entry.commit
                && p.tree_hash == entry.tree_hash
                && target.is_dir()
                && !opts.force =>
        {
            // Same files: only a changed request (say a tag now tracked as a branch) is recorded.
            let mut kept = p.clone();
            kept.requested_ref.clone_from(&entry.requested_ref);
            kept.ref_kind = entry.ref_kind;
            let written = if kept == *p {
                false
            } else {
                lock.upsert(&kept, &opts.by, &opts.now);
                lock.save()?
            };
            return Ok(Installed {
                id,
                dialect,
                dir: target,
                home,
                entry: kept,
                up_to_date: true,
                lock_written: written,
            });
        }
        None if target.exists() && !opts.force => {
            return Err(refused(
                Code::InstallExists,
                format!(
                    "{} exists but is not in {}; use --force to replace it",
                    target.display(),
                    home.lockfile().display()
                ),
                None,
            ));
        }
        _ => {}
    }

    let (request, build, entrypoint) = describe(&report, &tree, &entry.source, commit.as_deref());
    if opts.deps {
        for spec in request.pip.iter().chain(&request.optional_pip) {
            if let Some(why) = pip_spec_problem(spec) {
                return Err(refused(Code::InstallDeps, format!("requires_pip entry {spec:?} {why}"), "only plain PEP 508 requirements are installed, never options, URLs or VCS references".to_owned()));
            }
        }
    }
    // An update asks again only when what was granted changes (aoe §17's rules).
    let ask = match (&prior, target.is_dir()) {
        (Some(p), true) => {
            let installed = validate_root(&target, &opts.validate);
            let (before, _, _) = describe(&installed, &target, &p.source, p.commit.as_deref());
            reconsent(
                &before,
                &request,
                p.manifest_hash != entry.manifest_hash,
                p.tree_hash != entry.tree_hash,
            )
        }
        _ => request.needs_consent(),
    };
    if ask && !consent(&request) {
        return Err(refused(
            Code::InstallDeclined,
            "install cancelled; no capabilities were granted",
            None,
        ));
    }

    // A release-binary worker is downloaded into the staged tree: a failed or corrupt
    // download never reaches the installed plugin.
    let mut entry = entry;
    if opts.build && dialect == Dialect::Aoe {
        entry.release = fetch_release(&report, opts, &entry, &tree, on_event)?;
    }

    // Swap: the old install moves aside, the new one takes its place, then builds.
    std::fs::create_dir_all(home.plugins_dir())
        .map_err(io("cannot create the plugins directory"))?;
    let backup = home
        .plugins_dir()
        .join(format!(".{id}.old-{}", std::process::id()));
    let had_old = target.exists();
    if had_old {
        std::fs::rename(&target, &backup)
            .map_err(io(format!("cannot move {} aside", target.display())))?;
    }
    let restore = |target: &Path| {
        let _ = std::fs::remove_dir_all(target);
        if had_old {
            let _ = std::fs::rename(&backup, target);
        }
    };
    if let Err(e) = crate::tree::move_dir(&tree, &target) {
        restore(&target);
        return Err(e.into());
    }
    let built = if opts.deps
        && dialect == Dialect::Protoagent
        && !(request.pip.is_empty() && request.optional_pip.is_empty())
    {
        install_deps(
            &request,
            &target,
            &name,
            &home,
            opts.build_timeout,
            on_event,
        )
    } else if opts.build && dialect == Dialect::Aoe {
        run_build(
            &build,
            &target,
            &name,
            entrypoint.as_ref(),
            &home,
            opts.build_timeout,
            on_event,
        )
    } else {
        Ok(())
    };
    if let Err(e) = built {
        restore(&target);
        return Err(e);
    }
    entry.installed_hash = crate::hash::tree(&target).ok();
    lock.upsert(&entry, &opts.by, &opts.now);
    let written = match lock.save().and_then(|w| {
        if dialect == Dialect::Aworld {
            aworld_registry(&home, &entry, &target, &opts.now)?;
        }
        Ok(w)
    }) {
        Ok(w) => w,
        Err(e) => {
            restore(&target);
            return Err(e.into());
        }
    };
    if had_old {
        let _ = std::fs::remove_dir_all(&backup);
    }
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

fn run_build(
    build: &[Step],
    target: &Path,
    id: &Name,
    entrypoint: Option<&(String, bool)>,
    home: &Home,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let steps = steps::for_this_platform(build);
    steps::run(
        &steps,
        target,
        id.as_str(),
        timeout,
        &home.build_log(id),
        |n, total, argv| {
            on_event(Event::Building {
                n,
                total,
                command: argv.join(" "),
            });
        },
    )?;
    if let Some((program, false)) = entrypoint {
        let path = target.join(program);
        let runnable = std::fs::metadata(&path).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        });
        if !runnable {
            return Err(refused(
                Code::InstallNotRunnable,
                format!(
                    "plugin {id}: worker command is not runnable after install (a build step may have been skipped on this platform, or did not produce it)"
                ),
                format!("expected an executable at {}", path.display()),
            ));
        }
    }
    Ok(())
}

/// The GitHub owner and repo of a source, if it is on GitHub (or a `gh:` mirror).
fn github_repo(source: &Source) -> Option<(String, String)> {
    let Source::Git { url, display, .. } = source else {
        return None;
    };
    let path = display.strip_prefix("gh:").map(str::to_owned).or_else(|| {
        let rest = url.split_once("github.com/").map(|(_, r)| r)?;
        Some(
            rest.trim_end_matches('/')
                .trim_end_matches(".git")
                .to_owned(),
        )
    })?;
    let (owner, repo) = path.split_once('/')?;
    Some((owner.to_owned(), repo.to_owned()))
}

/// Download and place an aoe release-binary worker, if the manifest declares one.
fn fetch_release(
    report: &PluginReport,
    opts: &InstallOptions,
    entry: &Entry,
    tree: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<crate::release::Placed>, InstallError> {
    let text = report.source.as_deref().unwrap_or_default();
    let Ok(m) = raw::parse(text, aoe::profile::Profile::H15)
        .or_else(|_| raw::parse(text, aoe::profile::Profile::H12))
    else {
        return Ok(None);
    };
    let Some(Runtime::ReleaseBinary { asset, bin }) = &m.runtime else {
        return Ok(None);
    };
    let Some((owner, repo)) = github_repo(&opts.source) else {
        // aoe: a local (or non-GitHub) source does not download; the binary must be there.
        let name = bin
            .clone()
            .unwrap_or_else(|| crate::release::render(asset, &m.version));
        if !crate::name::relative_path(&name).is_some_and(|rel| tree.join(rel).is_file()) {
            return Err(refused(
                Code::InstallNotRunnable,
                format!(
                    "plugin {}: the release-binary worker {name:?} is not in the source, and only GitHub sources download releases",
                    entry.id
                ),
                None,
            ));
        }
        return Ok(None);
    };
    let request = crate::release::ReleaseRequest {
        api: opts.github_api.clone(),
        owner,
        repo,
        // `sync` re-fetches the locked release; otherwise the requested tag, else the latest.
        tag: opts
            .pin
            .as_ref()
            .and_then(|p| p.release.as_ref().map(|r| r.tag.clone()))
            .or_else(|| {
                (entry.ref_kind == Some(RefKind::Tag)).then(|| entry.requested_ref.clone())
            }),
        asset_template: asset.clone(),
        bin: bin.clone(),
        version: m.version.clone(),
        locked_sha256: opts
            .pin
            .as_ref()
            .and_then(|p| p.release.as_ref().map(|r| r.sha256.clone())),
    };
    let name = crate::release::render(asset, &m.version);
    let placed = crate::release::install(&request, tree, &mut |done, total| {
        on_event(Event::Downloading {
            asset: name.clone(),
            done,
            total,
        });
    })?;
    Ok(Some(placed))
}

/// Whether an update must ask again: the capability set changed (and is not empty),
/// new files come with build steps, a changed manifest declares UI, or new code or
/// pip requirements appear.
fn reconsent(
    before: &Request,
    after: &Request,
    manifest_changed: bool,
    tree_changed: bool,
) -> bool {
    let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    (set(&before.capabilities) != set(&after.capabilities) && !after.capabilities.is_empty())
        || (tree_changed && !after.build_steps.is_empty())
        || (manifest_changed && !after.ui.is_empty())
        || (after.runs_code && !before.runs_code)
        || set(&before.pip) != set(&after.pip)
}

/// protoAgent's `requires_pip`: (hard, optional) requirement strings.
fn pip_requirements(doc: &crate::manifest::doc::Node) -> (Vec<String>, Vec<String>) {
    use crate::manifest::doc::Value;
    use crate::manifest::pyval::{py_str, truthy};
    let (mut hard, mut optional) = (Vec::new(), Vec::new());
    if let Some(Value::Array(items)) = doc.get("requires_pip").map(|e| &e.node.value) {
        for item in items {
            match &item.value {
                Value::Table(_) => {
                    let pkg = item
                        .get("pkg")
                        .map(|p| py_str(&p.node).trim().to_owned())
                        .unwrap_or_default();
                    if pkg.is_empty() || pkg == "None" {
                        continue;
                    }
                    if item.get("optional").is_some_and(|o| truthy(&o.node)) {
                        optional.push(pkg);
                    } else {
                        hard.push(pkg);
                    }
                }
                _ => hard.push(py_str(item)),
            }
        }
    }
    (hard, optional)
}

/// protoAgent's `_validate_pip_specs`: why a requirement is refused, if it is.
pub fn pip_spec_problem(spec: &str) -> Option<&'static str> {
    let s = spec.trim();
    if s.starts_with('-') {
        return Some("looks like a pip option, not a package");
    }
    if s.contains("://")
        || s.contains('@')
        || ["git+", "hg+", "svn+", "bzr+", "file:"]
            .iter()
            .any(|p| s.starts_with(p))
    {
        return Some("is a VCS/URL/direct reference, which is not allowed");
    }
    let mut chars = s.chars();
    if !chars.next().is_some_and(|c| c.is_ascii_alphanumeric()) {
        return Some("is not a valid PEP 508 package requirement");
    }
    None
}

/// `--deps`: a plugin-local virtualenv with the hard requirements (optional ones best-effort).
fn install_deps(
    request: &Request,
    target: &Path,
    id: &Name,
    home: &Home,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let mut pip = vec![
        ".venv/bin/pip".to_owned(),
        "install".to_owned(),
        "--disable-pip-version-check".to_owned(),
        "--".to_owned(),
    ];
    pip.extend(request.pip.iter().cloned());
    let venv = Step {
        argv: vec!["python3".into(), "-m".into(), "venv".into(), ".venv".into()],
        platforms: Vec::new(),
    };
    let hard = Step {
        argv: pip.clone(),
        platforms: Vec::new(),
    };
    let mut steps = vec![&venv];
    if !request.pip.is_empty() {
        steps.push(&hard);
    }
    let log = home.build_log(id);
    steps::run(
        &steps,
        target,
        id.as_str(),
        timeout,
        &log,
        |n, total, argv| {
            on_event(Event::Building {
                n,
                total,
                command: argv.join(" "),
            })
        },
    )?;
    if !request.optional_pip.is_empty() {
        pip.truncate(4);
        pip.extend(request.optional_pip.iter().cloned());
        let optional = Step {
            argv: pip,
            platforms: Vec::new(),
        };
        // Optional requirements never fail the install (protoAgent only warns).
        let _ = steps::run(
            &[&optional],
            target,
            id.as_str(),
            timeout,
            &log,
            |n, total, argv| {
                on_event(Event::Building {
                    n,
                    total,
                    command: argv.join(" "),
                })
            },
        );
    }
    Ok(())
}

/// Record the plugin in AWorld's `.manifest.json`, keeping other records and fields.
fn aworld_registry(
    home: &Home,
    entry: &Entry,
    target: &Path,
    now: &str,
) -> Result<(), crate::lock::LockError> {
    let path = home.aworld_registry();
    let mut doc: serde_json::Map<String, serde_json::Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let prior = doc
        .get(&entry.id)
        .and_then(|v| v.as_object())
        .cloned()
        .unwrap_or_default();
    let mut rec = prior;
    rec.insert("name".into(), entry.id.clone().into());
    rec.insert("path".into(), target.display().to_string().into());
    rec.insert("source".into(), entry.source.clone().into());
    rec.insert("installed_at".into(), now.into());
    rec.entry("enabled").or_insert(true.into());
    rec.entry("package_kind").or_insert("plugin".into());
    rec.entry("managed_by").or_insert("plugin".into());
    rec.entry("activation_scope").or_insert("workspace".into());
    rec.entry("metadata").or_insert(serde_json::json!({}));
    doc.insert(entry.id.clone(), serde_json::Value::Object(rec));
    let mut text = serde_json::to_string_pretty(&doc).expect("serializes");
    text.push('\n');
    crate::lock::write_atomic(&path, text.as_bytes())
}

/// Remove an installed plugin and its lock entry. A lock entry is matched by
/// its id; the directory removed is always `<plugins>/<id>` for a checked id.
pub fn remove(
    home: &Home,
    id: &Name,
    dialect: Dialect,
    wait: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<bool, InstallError> {
    let _guard = home
        .lock(wait, || on_event(Event::WaitingForLock(home.root.clone())))
        .map_err(io(format!("cannot lock {}", home.root.display())))?;
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    let dir = home.plugin_dir(id);
    let had_entry = lock.remove(id.as_str());
    if !had_entry && !dir.exists() {
        return Ok(false);
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(format!("cannot remove {}", dir.display())))?;
    }
    lock.save()?;
    if dialect == Dialect::Aworld {
        let path = home.aworld_registry();
        if let Some(mut doc) = std::fs::read_to_string(&path).ok().and_then(|t| {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&t).ok()
        }) && doc.remove(id.as_str()).is_some()
        {
            let mut text = serde_json::to_string_pretty(&doc).expect("serializes");
            text.push('\n');
            crate::lock::write_atomic(&path, text.as_bytes())?;
        }
    }
    Ok(true)
}
