//! Does an installed plugin still match what its lock entry pinned? (`plugins verify`, and
//! `plugins sync`, which reinstalls with `--repair` what no longer matches.)

use crate::diagnostic::Code;
use crate::install::txn::FileChanges;
use crate::lock::Entry;
use crate::profile::Remembered;
use crate::refusal::NamedRefusal as _;
use crate::store::Home;

/// The verdict on one locked plugin.
#[derive(Debug)]
pub struct Verdict {
    /// `plugins::install::tampered` (or `unbuilt`, or the lock entry's own error code).
    pub code: Code,
    /// What does not match, one sentence each; empty when the plugin matches its lock.
    pub problems: Vec<String>,
    /// The changed, added and removed paths, when the install recorded per-file hashes.
    pub changes: Option<FileChanges>,
    /// The directory is there but its manifest, release asset or files differ from the lock
    /// (what `plugins sync --repair` reinstalls).
    pub changed: bool,
    /// The lock records no hash of the plugin's files (a row the host's own installer
    /// wrote), and nothing else is wrong: `plugins::install::unverifiable`, which
    /// `verify --record` takes a baseline of.
    pub unverifiable: bool,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// What `verify` says of a row without hashes of its files.
pub const NO_HASH: &str = "the lock records no hash of its files (its host's own installer wrote the row): whether they changed cannot be told; `plugins verify --record` records them as they are now";

/// What no tree hash covers: the build output `plugins` recorded after the build (aoe's
/// `.aoe-build`, which aoe's own tree hash skips), and any `.git` (skipped by every tree
/// hash, obeyed by git: its config can run a program on the next `git status`).
fn build_and_git(
    dir: &std::path::Path,
    e: &Entry,
    git_dirs: &[String],
    problems: &mut Vec<String>,
    changed: &mut bool,
) {
    if let Some(locked) = &e.build_hash {
        match crate::hash::build_output(dir) {
            Ok(Some(now)) if now == *locked => {}
            Ok(now) => {
                *changed = true;
                problems.push(format!(
                    "its build output ({}) changed since it was built ({}, locked {locked})",
                    crate::hash::AOE_BUILD_DIR,
                    now.as_deref().unwrap_or("now missing")
                ));
            }
            Err(err) => problems.push(format!("cannot verify its build output: {err}")),
        }
    }
    for git in git_dirs {
        *changed = true;
        problems.push(format!(
            "{git} is a git directory that no hash covers and plugins never installs (git obeys its config: core.fsmonitor, hooks)"
        ));
    }
}

/// `e` names no source and `home`'s host ships a plugin of its id (protoAgent's migrated
/// wheel-deps pins of a bundled plugin): the host's own row, with no directory of its own and
/// nothing to fetch. Judged under the profile the row (else the home, `remembered`) recorded.
pub fn shipped_by_host(home: &Home, e: &Entry, remembered: &Remembered<'_>) -> bool {
    e.names_no_source() && ships(home, e, remembered.get().clone())
}

/// [`shipped_by_host`] with the home's profile read already.
pub fn shipped_under(home: &Home, e: &Entry, remembered: &crate::profile::HostProfile) -> bool {
    e.names_no_source() && ships(home, e, remembered.clone())
}

fn ships(home: &Home, e: &Entry, remembered: crate::profile::HostProfile) -> bool {
    let profile = (e.profile.clone().unwrap_or_default()).or(remembered);
    crate::host::ships(home, &e.id, &profile.host_options(&Default::default()))
}

/// Why `e`'s directory `dir` is missing, and the way out; `None` for a row that names no
/// source of a plugin its host ships (protoAgent's migrated wheel-deps pins): the host's own,
/// with no directory to verify.
fn missing(
    home: &Home,
    e: &Entry,
    dir: &std::path::Path,
    remembered: &Remembered<'_>,
) -> Option<String> {
    if !e.names_no_source() {
        return Some(format!(
            "{} is missing; `plugins sync` installs it again at the locked commit",
            dir.display()
        ));
    }
    (!shipped_by_host(home, e, remembered)).then(|| {
        format!(
            "{} is missing, and the lock records no source: `plugins remove {}` drops the row",
            dir.display(),
            e.id
        )
    })
}

/// Recompute the manifest, release-asset and tree hashes of `entry`'s installed directory
/// and compare them with the lock. `remembered` is the home's host profile, which a row that
/// names no source is judged under.
pub fn entry(home: &Home, e: &Entry, remembered: &Remembered<'_>) -> Verdict {
    let dir = match home.locked_dir(e) {
        Ok(dir) => dir,
        Err(err) => {
            return Verdict {
                code: err.code(),
                problems: vec![err.to_string()],
                changes: None,
                changed: false,
                unverifiable: false,
            };
        }
    };
    let mut problems = row_problems(home, e);
    let mut changes = None;
    let mut changed = false;
    let mut unverifiable = false;
    // What the hash's walk met named `.git` (any case), which no hash covers.
    let mut git_dirs = Vec::new();
    if !dir.is_dir() {
        problems.extend(missing(home, e, &dir, remembered));
    } else {
        changed = manifest_or_release_changed(home, e, &dir, &mut problems);
        // The installed hash covers symlinks and any name; aoe's tree hash (what a
        // host-written lock has) does not.
        let installed = e.installed_hash.as_deref().filter(|h| !h.is_empty());
        let locked = installed.map_or_else(|| e.tree_hash.clone(), str::to_owned);
        let (now, git) = crate::hash::hash_noting_git(&dir, installed.is_some());
        git_dirs = git;
        if locked.is_empty() {
            unverifiable = true;
        } else {
            match now {
                Ok(h) if h == locked => {}
                Ok(h) => {
                    changed = true;
                    problems.push(format!(
                        "the files changed since install (tree {h}, locked {locked})"
                    ));
                    changes = home
                        .locked_name(e)
                        .ok()
                        .and_then(|n| crate::install::txn::file_changes(home, &n, &dir));
                }
                Err(err) => problems.push(format!("cannot verify: {err}")),
            }
        }
    }
    if dir.is_dir() {
        build_and_git(&dir, e, &git_dirs, &mut problems, &mut changed);
    }
    let mut code = match dir.is_dir() {
        true => Code::InstallTampered,
        false => Code::InstallMissing,
    };
    // Only a row with nothing else wrong is unverifiable; a changed manifest stays tampered.
    let unverifiable = unverifiable && problems.is_empty() && !e.unbuilt;
    if unverifiable {
        code = Code::InstallUnverifiable;
        problems.push(NO_HASH.to_owned());
    }
    if e.unbuilt && dir.is_dir() {
        if problems.is_empty() {
            code = Code::InstallUnbuilt;
        }
        problems.push(
            "installed with --no-build: its build did not run; `plugins sync` builds it".to_owned(),
        );
    }
    Verdict {
        code,
        problems,
        changes,
        changed,
        unverifiable,
    }
}

/// What is wrong with `e`'s row itself, whatever its files: a subdirectory no install
/// would take, or a change to it left interrupted.
fn row_problems(home: &Home, e: &Entry) -> Vec<String> {
    let mut problems = Vec::new();
    // A hand-edited row can name any subdirectory; update and sync refuse it, say so here.
    if let Some(Err(why)) = e.subdir.as_deref().map(crate::source::subdir_path) {
        problems.push(format!("the lock's subdir: {why}"));
    }
    if home
        .locked_name(e)
        .is_ok_and(|n| crate::install::txn::pending(home, &n))
    {
        problems.push(
            "a change to it was interrupted; the next `plugins sync` finishes or undoes it"
                .to_owned(),
        );
    }
    problems
}

/// Whether the manifest at `dir` or the kept release asset no longer hashes as `e` locks
/// it (each a problem told).
fn manifest_or_release_changed(
    home: &Home,
    e: &Entry,
    dir: &std::path::Path,
    problems: &mut Vec<String>,
) -> bool {
    let mut changed = false;
    let manifest =
        crate::file::read(dir.join(home.dialect.spec().manifest)).map(|b| crate::hash::bytes(&b));
    if !e.manifest_hash.is_empty() && manifest.as_ref().ok() != Some(&e.manifest_hash) {
        let grant = if crate::host::install_policy(home.dialect).manifest_grant {
            "; aoe's capability grant no longer covers it"
        } else {
            ""
        };
        problems.push(format!("the manifest changed since install{grant}"));
        changed = true;
    }
    if let Some(r) = &e.release
        && crate::release::kept_hash(dir, &r.asset).as_ref() != Some(&r.sha256)
    {
        problems.push(format!(
            "the release asset {} no longer hashes to the locked {}",
            r.asset, r.sha256
        ));
        changed = true;
    }
    changed
}

/// `plugins verify --record`: under the home lock (recovery first), take a baseline of
/// each of `ids`' installed files when its lock row records no hash of them (and nothing
/// else is wrong): the per-file hashes, then the lock row's `installed_tree_hash` (and its
/// `manifest_hash` when it has none), every other key left as the host wrote it. A row
/// that has hashes is never re-recorded: changed files stay changed. Returns each entry
/// as recorded, or `None` when there was nothing to record, in the order of `ids`.
///
/// The home lock is taken, and the lock read and written, once for all of them (issue 43:
/// once per row made `verify --record` quadratic in the rows). A failure saves what was
/// recorded before it.
pub fn record_baselines(
    home: &Home,
    ids: &[crate::name::Name],
    wait: bool,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<Vec<Option<Entry>>, crate::install::InstallError> {
    let _guard = crate::install::lock_home(home, wait, on_event)?;
    let mut lock = home.load_lock()?;
    let mut rows: std::collections::HashMap<String, Entry> = lock
        .entries()
        .into_iter()
        .map(|e| (e.id.clone(), e))
        .collect();
    let mut out = Vec::new();
    let remembered = Remembered::of(home);
    for id in ids {
        match record_one(home, &mut lock, rows.remove(id.as_str()), (id, &remembered)) {
            Ok(done) => out.push(done),
            Err(e) => {
                lock.save()?;
                return Err(e);
            }
        }
    }
    lock.save()?;
    Ok(out)
}

/// [`record_baselines`] of one row (`e`, as the lock has it), into `lock`.
fn record_one(
    home: &Home,
    lock: &mut crate::lock::Lock,
    e: Option<Entry>,
    (id, remembered): (&crate::name::Name, &Remembered<'_>),
) -> Result<Option<Entry>, crate::install::InstallError> {
    let Some(mut e) = e else {
        return Ok(None);
    };
    if !entry(home, &e, remembered).unverifiable {
        return Ok(None);
    }
    let dir = home.plugin_dir(id);
    let walk = |err: crate::hash::TreeError| crate::install::InstallError::Io {
        context: format!("cannot hash {}", dir.display()),
        cause: std::io::Error::other(err.to_string()),
    };
    let installed = crate::hash::installed(&dir).map_err(walk)?;
    let manifest = if e.manifest_hash.is_empty() {
        let bytes = crate::file::read(dir.join(home.dialect.spec().manifest)).map_err(|cause| {
            crate::install::InstallError::Io {
                context: format!("cannot read the manifest of {id}"),
                cause,
            }
        })?;
        Some(crate::hash::bytes(&bytes))
    } else {
        None
    };
    crate::install::txn::record_files(home, id).map_err(crate::install::InstallError::from)?;
    lock.set_hashes(id.as_str(), manifest.as_deref(), &installed);
    if let Some(m) = manifest {
        e.manifest_hash = m;
    }
    e.installed_hash = Some(installed);
    Ok(Some(e))
}
