//! Every change to a home is a transaction. Before a plugin directory moves, an
//! intent record in the home's state directory (`<home>/.plugins/`, which no host
//! loads) says what is changing; each step after it is one rename or one atomic
//! write. A `kill -9` anywhere leaves a record that the next command to take the
//! home lock finishes or undoes ([`recover`]) before it does anything else.
//!
//! An install is undone until its build has succeeded and the record says
//! `commit`; from then on it is finished (lock entry and host files written
//! again, the backup deleted). A removal is always finished.
//!
//! protoAgent `--deps` swaps the plugin's wheel-deps directory (`<deps root>/<id>`,
//! outside the plugins directory) in the same transaction: staged in full before the
//! record is written, moved in after the tree, put back by an undo, its backup
//! kept with the replaced tree in the history by the commit (so that a rollback swaps
//! both back); a removal removes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::lock::{DepPin, Entry, Lock, LockError};
use crate::manifest::Dialect;
use crate::name::Name;
use crate::store::Home;

/// What the record says is under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Phase {
    /// The old tree may be in the backup and the new one (partly built) in place: undo.
    Swap,
    /// The new tree is complete and built: finish.
    Commit,
    /// A removal: finish.
    Remove,
}

/// The on-disk record of one change to one plugin.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Intent {
    phase: Phase,
    id: String,
    dialect: Dialect,
    /// Whether a previous install was moved to the backup.
    had_old: bool,
    /// The entry an install writes (set in the `commit` phase).
    entry: Option<Entry>,
    /// The lock entry of the previous install: its tree (the backup) is kept in
    /// the history when the change commits.
    #[serde(default)]
    prior: Option<Entry>,
    /// A rollback: the history slot it restored, deleted when it commits.
    #[serde(default)]
    restored: Option<u32>,
    /// protoAgent `--deps`: the change also swaps the plugin's wheel-deps directory.
    #[serde(default)]
    deps: Option<DepsChange>,
    /// The `deps` pins of the previous install when its wheel deps are swapped out: kept
    /// with its tree in the history, so that a rollback puts them back too.
    #[serde(default)]
    prior_deps: Option<Vec<DepPin>>,
    by: String,
    now: String,
}

/// The wheel-deps part of an install.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct DepsChange {
    /// Whether a previous deps directory was there (and is moved to the deps backup).
    had_old: bool,
    /// What the new directory holds, for the lock's `deps`.
    pins: Vec<DepPin>,
}

/// A plugin's wheel deps, complete in a staging directory, to swap in with the tree.
pub struct StagedDeps<'a> {
    /// `None`: the new version needs no wheels; the previous directory goes (to the
    /// history) and none takes its place.
    pub dir: Option<&'a Path>,
    pub pins: Vec<DepPin>,
}

/// Why a transaction step failed.
#[derive(Debug, thiserror::Error)]
pub enum TxnError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> TxnError {
    let context = context.into();
    move |source| TxnError::Io { context, source }
}

/// The home's state directory and its parts.
fn state(home: &Home) -> PathBuf {
    home.root.join(".plugins")
}

/// `<state>/txn/<id>.json`. Not `with_extension`: ids have dots, and
/// `dev.example.a` and `dev.example.b` would share `dev.example.json`.
fn record(home: &Home, id: &Name) -> PathBuf {
    state(home).join("txn").join(format!("{id}.json"))
}

/// Where the previous install waits while a change is under way.
fn backup(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("backup"))
}

/// Where the previous wheel-deps directory waits while a change is under way.
fn deps_backup(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("backup-deps"))
}

/// Where staged trees are fetched, next to the plugins so the swap is a rename.
pub fn staging_dir(home: &Home) -> PathBuf {
    state(home).join("staging")
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

fn write_record(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    let path = record(home, id);
    let text = serde_json::to_vec_pretty(intent).expect("serializes");
    crate::lock::write_atomic(&path, &text)?;
    Ok(())
}

fn remove_record(home: &Home, id: &Name) -> Result<(), TxnError> {
    let path = record(home, id);
    match std::fs::remove_file(&path) {
        Ok(()) => {
            sync_dir(path.parent().expect("in txn/"));
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(format!("cannot remove {}", path.display()))(e)),
    }
}

fn remove_tree(path: &Path) -> Result<(), TxnError> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => Err(e),
    }
    .map_err(io(format!("cannot remove {}", path.display())))
}

fn rename(from: &Path, to: &Path) -> Result<(), TxnError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .map_err(io(format!("cannot create {}", parent.display())))?;
    }
    crate::tree::move_dir(from, to).map_err(|e| TxnError::Io {
        context: format!("cannot move {} to {}", from.display(), to.display()),
        source: std::io::Error::other(e.to_string()),
    })?;
    if let Some(parent) = to.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// `<home>/.plugins/files/<id>.json`: the installed plugin's per-file hashes, so that
/// `verify` can say which files changed.
fn files_record(home: &Home, id: &Name) -> PathBuf {
    // Not `with_extension`: ids have dots.
    let mut path = id.under(&state(home).join("files")).into_os_string();
    path.push(".json");
    PathBuf::from(path)
}

/// The per-file hashes [`files_record`] holds.
#[derive(Debug, Serialize, Deserialize)]
struct FilesRecord {
    format_version: u32,
    files: BTreeMap<String, String>,
}

/// Record the per-file hashes of `dir`, or none when it has too many files or cannot be
/// read (then `verify` can still say that something changed, not what).
fn write_files(home: &Home, id: &Name, dir: &Path) -> Result<(), TxnError> {
    match crate::hash::files(dir) {
        Ok(Some(files)) => {
            let record = FilesRecord {
                format_version: 1,
                files,
            };
            let text = serde_json::to_vec(&record).expect("serializes");
            crate::lock::write_atomic(&files_record(home, id), &text)?;
            Ok(())
        }
        _ => remove_tree(&files_record(home, id)),
    }
}

/// Which files of an installed plugin differ from the ones its install recorded, each
/// list sorted by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileChanges {
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// Compare `dir` with the per-file hashes recorded when `id` was installed. `None` when
/// there is no record (installed before records were kept, or too many files) or `dir`
/// cannot be walked.
pub fn file_changes(home: &Home, id: &Name, dir: &Path) -> Option<FileChanges> {
    let record: FilesRecord = std::fs::read(files_record(home, id))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())?;
    let now = crate::hash::files(dir).ok().flatten()?;
    let mut out = FileChanges::default();
    for (path, hash) in &now {
        match record.files.get(path) {
            None => out.added.push(path.clone()),
            Some(h) if h != hash => out.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    out.removed = record
        .files
        .keys()
        .filter(|p| !now.contains_key(*p))
        .cloned()
        .collect();
    Some(out)
}

/// Write the lock entry, the per-file hashes and the host's own records for an installed
/// plugin.
fn write_entry(
    home: &Home,
    dialect: Dialect,
    entry: &Entry,
    deps: Option<&[DepPin]>,
    by: &str,
    now: &str,
) -> Result<bool, TxnError> {
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    lock.upsert(entry, by, now);
    if let Some(pins) = deps {
        lock.set_deps(&entry.id, pins);
    }
    let written = lock.save()?;
    let name = home.locked_name(entry)?;
    write_files(home, &name, &home.plugin_dir(&name))?;
    if dialect == Dialect::Aworld {
        let name = home.locked_name(entry)?;
        crate::lock::registry::upsert(home, entry, &home.plugin_dir(&name), now)?;
    }
    if dialect == Dialect::Aoe {
        // aoe loads a plugin only with a grant in its config.toml.
        let name = home.locked_name(entry)?;
        crate::host::aoe::record_install(home, entry, &home.plugin_dir(&name), now)?;
    }
    Ok(written)
}

/// Drop the lock entry, the per-file hashes and the host's own records of a plugin.
fn drop_entry(home: &Home, dialect: Dialect, id: &Name) -> Result<(), TxnError> {
    let mut lock = Lock::load(&home.lockfile(), dialect)?;
    if lock.remove(id.as_str()) {
        lock.save()?;
    }
    remove_tree(&files_record(home, id))?;
    let id = id.as_str();
    if dialect == Dialect::Aworld {
        crate::lock::registry::remove(home, id)?;
    }
    if dialect == Dialect::Aoe {
        crate::host::aoe::forget(home, id)?;
    }
    Ok(())
}

/// An install in progress: the new tree is in place (to be built) and the
/// previous one in the backup. Dropping it without [`Swap::commit`] undoes it.
pub struct Swap<'h> {
    home: &'h Home,
    id: Name,
    intent: Intent,
    done: bool,
}

impl<'h> Swap<'h> {
    /// Move the previous install (if any) aside and `staged` into its place.
    /// The caller holds the home lock.
    pub fn begin(
        home: &'h Home,
        id: &Name,
        dialect: Dialect,
        staged: &Path,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        Swap::begin_with_deps(home, id, dialect, staged, None, by, now)
    }

    /// [`Swap::begin`], swapping the plugin's wheel-deps directory too when `deps` is
    /// given (its previous one, if any, to the deps backup).
    pub fn begin_with_deps(
        home: &'h Home,
        id: &Name,
        dialect: Dialect,
        staged: &Path,
        deps: Option<StagedDeps<'_>>,
        by: &str,
        now: &str,
    ) -> Result<Swap<'h>, TxnError> {
        let target = home.plugin_dir(id);
        let deps_target = home.plugin_deps_dir(id);
        let lock = Lock::load(&home.lockfile(), dialect)?;
        let had_old_deps = std::fs::symlink_metadata(&deps_target).is_ok();
        let intent = Intent {
            phase: Phase::Swap,
            id: id.to_string(),
            dialect,
            had_old: target.exists(),
            entry: None,
            prior: lock.get(id.as_str()),
            restored: None,
            deps: deps.as_ref().map(|d| DepsChange {
                had_old: had_old_deps,
                pins: d.pins.clone(),
            }),
            prior_deps: deps.as_ref().and_then(|_| {
                lock.deps(id.as_str())
                    .or_else(|| had_old_deps.then(Vec::new))
            }),
            by: by.to_owned(),
            now: now.to_owned(),
        };
        // A backup without a record is no one's (recovery ran under this lock);
        // it goes before the record exists, so recovery never mistakes it for ours.
        remove_tree(&backup(home, id))?;
        remove_tree(&deps_backup(home, id))?;
        write_record(home, id, &intent)?;
        let swap = Swap {
            home,
            id: id.clone(),
            intent,
            done: false,
        };
        if swap.intent.had_old {
            rename(&target, &backup(home, id))?;
        }
        rename(staged, &target)?;
        if let (Some(change), Some(d)) = (&swap.intent.deps, &deps) {
            if change.had_old {
                rename(&deps_target, &deps_backup(home, id))?;
            }
            if let Some(dir) = d.dir {
                rename(dir, &deps_target)?;
            }
        }
        Ok(swap)
    }

    /// The built tree is complete: record the entry, write the lock and the
    /// host's records, and drop the backup. Returns whether the lock changed.
    pub fn commit(mut self, entry: &Entry) -> Result<bool, TxnError> {
        self.intent.phase = Phase::Commit;
        self.intent.entry = Some(entry.clone());
        write_record(self.home, &self.id, &self.intent)?;
        // From here on the change is finished, here or by the next recovery.
        self.done = true;
        let written = write_entry(
            self.home,
            self.intent.dialect,
            entry,
            self.intent.deps.as_ref().map(|d| d.pins.as_slice()),
            &self.intent.by,
            &self.intent.now,
        )?;
        finish_commit(self.home, &self.id, &self.intent)?;
        Ok(written)
    }

    /// [`Swap::commit`] for a rollback to history slot `slot`: the slot is
    /// deleted (its tree is now installed) when the change commits.
    pub fn commit_rollback(mut self, entry: &Entry, slot: u32) -> Result<bool, TxnError> {
        self.intent.restored = Some(slot);
        self.commit(entry)
    }
}

impl Drop for Swap<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = undo(self.home, &self.id, &self.intent);
        }
    }
}

/// Put the previous install back (or nothing, for a fresh install), and its wheel deps.
fn undo(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    let target = home.plugin_dir(id);
    let saved = backup(home, id);
    if saved.exists() {
        remove_tree(&target)?;
        rename(&saved, &target)?;
    } else if !intent.had_old {
        remove_tree(&target)?;
    }
    if let Some(change) = &intent.deps {
        let deps_target = home.plugin_deps_dir(id);
        let saved = deps_backup(home, id);
        if saved.exists() {
            remove_tree(&deps_target)?;
            rename(&saved, &deps_target)?;
        } else if !change.had_old {
            remove_tree(&deps_target)?;
        }
    }
    remove_record(home, id)
}

/// Remove an installed plugin as a transaction. The caller holds the home lock.
pub fn remove(home: &Home, id: &Name, dialect: Dialect) -> Result<(), TxnError> {
    let intent = Intent {
        phase: Phase::Remove,
        id: id.to_string(),
        dialect,
        had_old: true,
        entry: None,
        prior: None,
        restored: None,
        deps: None,
        prior_deps: None,
        by: String::new(),
        now: String::new(),
    };
    write_record(home, id, &intent)?;
    finish_remove(home, id, dialect)
}

fn finish_remove(home: &Home, id: &Name, dialect: Dialect) -> Result<(), TxnError> {
    let target = home.plugin_dir(id);
    let trash = backup(home, id);
    if target.exists() {
        remove_tree(&trash)?;
        rename(&target, &trash)?;
    }
    // protoAgent's wheel deps of the plugin go with it (the host never removes them).
    let deps_trash = deps_backup(home, id);
    if dialect == Dialect::Protoagent {
        let deps = home.plugin_deps_dir(id);
        if std::fs::symlink_metadata(&deps).is_ok() {
            remove_tree(&deps_trash)?;
            rename(&deps, &deps_trash)?;
        }
    }
    drop_entry(home, dialect, id)?;
    remove_tree(&trash)?;
    remove_tree(&deps_trash)?;
    drop_history(home, id)?;
    remove_record(home, id)
}

/// After the lock entry is written: delete the history slot a rollback
/// restored, keep the previous install (the backup) in the history, delete
/// the record. Every step can be run again (recovery does).
fn finish_commit(home: &Home, id: &Name, intent: &Intent) -> Result<(), TxnError> {
    if let Some(n) = intent.restored {
        drop_slot(home, id, n)?;
    }
    match &intent.prior {
        Some(prior) => keep(
            home,
            id,
            prior,
            intent.prior_deps.as_deref(),
            intent.restored.unwrap_or(0),
        )?,
        None => remove_tree(&backup(home, id))?,
    }
    remove_tree(&deps_backup(home, id))?;
    remove_record(home, id)
}

/// How many previous versions of each plugin are kept for `plugins rollback`.
pub const HISTORY_KEEP: usize = 2;

/// `<home>/.plugins/history/<id>/`: slots `<n>/` (`tree/` and `entry.json`),
/// the highest `n` the most recent. Names starting with `.` are work in progress.
fn history_dir(home: &Home, id: &Name) -> PathBuf {
    id.under(&state(home).join("history"))
}

const NEW_SLOT: &str = ".new";
/// A slot's `deps` pins, when its wheel deps were kept with it.
const DEPS_PINS: &str = "deps.json";
const GONE_PREFIX: &str = ".gone-";

/// A previous version kept for `plugins rollback`.
#[derive(Clone, Debug)]
pub struct Kept {
    /// The slot number (higher is more recent).
    pub slot: u32,
    /// Its lock entry.
    pub entry: Entry,
    /// Its installed tree.
    pub tree: PathBuf,
    /// protoAgent: its `deps` pins, when its wheel deps were kept with it (`deps.json`);
    /// `None` for a version whose deps were not swapped when it was replaced.
    pub deps: Option<Vec<DepPin>>,
    /// Its `plugin-deps/<id>` directory (`deps/`), when it had one.
    pub deps_tree: Option<PathBuf>,
}

/// The complete slots of a plugin's history, most recent first.
pub fn history(home: &Home, id: &Name) -> Vec<Kept> {
    let dir = history_dir(home, id);
    let mut out: Vec<Kept> = slots(&dir)
        .into_iter()
        .filter_map(|slot| {
            let path = dir.join(slot.to_string());
            let entry = std::fs::read(path.join("entry.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<Entry>(&b).ok())?;
            let tree = path.join("tree");
            let deps: Option<Vec<DepPin>> = std::fs::read(path.join(DEPS_PINS))
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok());
            let deps_tree = Some(path.join("deps")).filter(|d| deps.is_some() && d.is_dir());
            tree.is_dir().then_some(Kept {
                slot,
                entry,
                tree,
                deps,
                deps_tree,
            })
        })
        .collect();
    out.sort_by_key(|k| std::cmp::Reverse(k.slot));
    out
}

/// The numbered slots in a history directory, ascending.
fn slots(dir: &Path) -> Vec<u32> {
    let mut out: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    out.sort_unstable();
    out
}

/// Move the backup (the previous install) into a new history slot with its
/// lock entry (and its wheel deps with their pins when they were swapped out too), then
/// drop the oldest slots beyond [`HISTORY_KEEP`]. The slot is assembled under `.new`
/// and renamed into place, so a slot is always whole. Its number is above `floor` (a
/// restored slot's), so a rerun never deletes it.
fn keep(
    home: &Home,
    id: &Name,
    prior: &Entry,
    prior_deps: Option<&[DepPin]>,
    floor: u32,
) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    let new = dir.join(NEW_SLOT);
    let saved = backup(home, id);
    if saved.exists() {
        remove_tree(&new)?;
        std::fs::create_dir_all(&new).map_err(io(format!("cannot create {}", new.display())))?;
        let text = serde_json::to_vec_pretty(prior).expect("serializes");
        crate::lock::write_atomic(&new.join("entry.json"), &text)?;
        if let Some(pins) = prior_deps {
            let text = serde_json::to_vec_pretty(pins).expect("serializes");
            crate::lock::write_atomic(&new.join(DEPS_PINS), &text)?;
        }
        rename(&saved, &new.join("tree"))?;
    }
    if new.join("tree").is_dir() {
        // After the tree (a rerun rebuilds `.new` only while the tree backup is there).
        let saved_deps = deps_backup(home, id);
        if new.join(DEPS_PINS).is_file() && std::fs::symlink_metadata(&saved_deps).is_ok() {
            remove_tree(&new.join("deps"))?;
            rename(&saved_deps, &new.join("deps"))?;
        }
        let next = slots(&dir).last().copied().unwrap_or(0).max(floor) + 1;
        rename(&new, &dir.join(next.to_string()))?;
    } else {
        remove_tree(&new)?;
    }
    let all = slots(&dir);
    for n in &all[..all.len().saturating_sub(HISTORY_KEEP)] {
        drop_slot(home, id, *n)?;
    }
    Ok(())
}

/// Delete one slot: renamed out of the numbered names first, so a kill midway
/// never leaves a partial slot that looks whole.
fn drop_slot(home: &Home, id: &Name, n: u32) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    let slot = dir.join(n.to_string());
    let gone = dir.join(format!("{GONE_PREFIX}{n}"));
    if slot.exists() {
        remove_tree(&gone)?;
        rename(&slot, &gone)?;
    }
    remove_tree(&gone)
}

/// A removed plugin's history goes with it.
fn drop_history(home: &Home, id: &Name) -> Result<(), TxnError> {
    let dir = history_dir(home, id);
    for n in slots(&dir) {
        drop_slot(home, id, n)?;
    }
    remove_tree(&dir)
}

/// Work in progress of history writes killed midway (no record is pending
/// any more, so nothing will finish them).
fn clean_history(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    let root = state(home).join("history");
    for e in std::fs::read_dir(&root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        for w in std::fs::read_dir(e.path())
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            if w.file_name().to_string_lossy().starts_with('.') {
                remove_tree(&w.path())?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Whether an interrupted change to `id` waits for recovery (the plugin's
/// directory may be half-built until then).
pub fn pending(home: &Home, id: &Name) -> bool {
    record(home, id).exists()
}

/// What recovery did, for a status line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Plugins whose interrupted change was undone or finished.
    pub plugins: Vec<String>,
    /// Stale staging, backup and temp entries deleted.
    pub cleaned: usize,
}

/// Finish or undo every interrupted change and delete what killed processes
/// left behind. Runs under the home lock, before a command changes anything.
pub fn recover(home: &Home) -> Result<Recovered, TxnError> {
    let mut out = Recovered::default();
    let txn = state(home).join("txn");
    let records = match std::fs::read_dir(&txn) {
        Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    };
    for path in records {
        if path.extension().is_none_or(|x| x != "json") {
            // A temp file of an interrupted record write.
            remove_tree(&path)?;
            out.cleaned += 1;
            continue;
        }
        let intent: Option<Intent> = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let Some(intent) = intent else {
            remove_tree(&path)?;
            out.cleaned += 1;
            continue;
        };
        let Ok(id) = Name::new(&intent.id) else {
            remove_tree(&path)?;
            continue;
        };
        match (intent.phase, &intent.entry) {
            (Phase::Commit, Some(entry)) => {
                let pins = intent.deps.as_ref().map(|d| d.pins.as_slice());
                write_entry(home, intent.dialect, entry, pins, &intent.by, &intent.now)?;
                finish_commit(home, &id, &intent)?;
            }
            (Phase::Remove, _) => finish_remove(home, &id, intent.dialect)?,
            _ => undo(home, &id, &intent)?,
        }
        out.plugins.push(intent.id);
    }
    out.cleaned += clean_staging(home)?;
    out.cleaned += clean_history(home)?;
    out.cleaned += clean_legacy(home)?;
    out.cleaned += clean_files_temp(home)?;
    Ok(out)
}

/// Staging directories are named `s-<pid>-<random>`.
pub const STAGING_PREFIX: &str = "s-";

/// Whether the process that made a staging directory is gone.
fn owner_gone(name: &str) -> bool {
    let Some(pid) = name
        .strip_prefix(STAGING_PREFIX)
        .and_then(|r| r.split_once('-'))
        .and_then(|(pid, _)| pid.parse::<i32>().ok())
    else {
        return true;
    };
    if pid == std::process::id() as i32 {
        return false;
    }
    // Signal 0 checks for existence; ESRCH means no such process.
    // SAFETY: kill(2) with signal 0 sends nothing.
    let r = unsafe { libc::kill(pid, 0) };
    r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// What [`recover`] would find in a home, read without changing anything (`plugins
/// doctor`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Leftovers {
    /// Plugins whose change was interrupted (their intent records), by id.
    pub pending: Vec<String>,
    /// Unreadable intent records and temp files of interrupted record writes.
    pub broken_records: Vec<PathBuf>,
    /// Staging directories whose process is gone.
    pub stale_staging: Vec<PathBuf>,
    /// Staging directories of processes still running.
    pub live_staging: usize,
}

/// Look for leftovers of killed processes (see [`recover`], which removes them).
pub fn leftovers(home: &Home) -> Leftovers {
    let mut out = Leftovers::default();
    let list = |dir: PathBuf| {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .collect();
        v.sort_by_key(std::fs::DirEntry::file_name);
        v
    };
    for e in list(state(home).join("txn")) {
        let path = e.path();
        let intent: Option<Intent> = (path.extension().is_some_and(|x| x == "json"))
            .then(|| std::fs::read(&path).ok())
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok());
        match intent {
            Some(i) => out.pending.push(i.id),
            None => out.broken_records.push(path),
        }
    }
    for e in list(staging_dir(home)) {
        if owner_gone(&e.file_name().to_string_lossy()) {
            out.stale_staging.push(e.path());
        } else {
            out.live_staging += 1;
        }
    }
    out
}

/// Delete staging directories whose process is gone.
fn clean_staging(home: &Home) -> Result<usize, TxnError> {
    let Ok(rd) = std::fs::read_dir(staging_dir(home)) else {
        return Ok(0);
    };
    let mut n = 0;
    for e in rd.filter_map(Result::ok) {
        if owner_gone(&e.file_name().to_string_lossy()) {
            remove_tree(&e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// What earlier versions left in the plugins directory (`.staging-*`, the
/// `.<id>.old-<pid>` backup of a swap, restored when its plugin is missing) and
/// the temp files of atomic writes killed midway (the lock's, AWorld's registry's,
/// aoe's config.toml's).
fn clean_legacy(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    let plugins = home.plugins_dir();
    if let Ok(rd) = std::fs::read_dir(&plugins) {
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = e.path();
            if name.starts_with(".staging-")
                || (name.starts_with(".manifest.json.") && name.ends_with(".tmp"))
            {
                remove_tree(&path)?;
                n += 1;
            } else if let Some(rest) = name.strip_prefix('.')
                && let Some((id, pid)) = rest.rsplit_once(".old-")
                && pid.bytes().all(|b| b.is_ascii_digit())
                && let Ok(id) = Name::new(id)
            {
                let target = home.plugin_dir(&id);
                if target.exists() {
                    remove_tree(&path)?;
                } else {
                    rename(&path, &target)?;
                }
                n += 1;
            }
        }
    }
    for written in [home.lockfile(), crate::host::aoe::config_path(home)] {
        n += clean_temp_files(&written)?;
    }
    Ok(n)
}

/// The temp files of per-file hash records whose write was killed midway.
fn clean_files_temp(home: &Home) -> Result<usize, TxnError> {
    let mut n = 0;
    for e in std::fs::read_dir(state(home).join("files"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        if e.file_name().to_string_lossy().ends_with(".tmp") {
            remove_tree(&e.path())?;
            n += 1;
        }
    }
    Ok(n)
}

/// The temp files (`<name>.<random>.tmp`) of atomic writes of `written` killed midway.
fn clean_temp_files(written: &Path) -> Result<usize, TxnError> {
    let mut n = 0;
    if let (Some(dir), Some(file)) = (written.parent(), written.file_name()) {
        let prefix = format!("{}.", file.to_string_lossy());
        for e in std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
        {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with(".tmp") {
                remove_tree(&e.path())?;
                n += 1;
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_with_dots_get_their_own_records() {
        let home = Home::new("/h");
        let a = record(&home, &Name::new("dev.example.a").unwrap());
        let b = record(&home, &Name::new("dev.example.b").unwrap());
        assert_ne!(a, b);
        assert_eq!(a, Path::new("/h/.plugins/txn/dev.example.a.json"));
        assert_eq!(a.parent(), Some(Path::new("/h/.plugins/txn")));
    }
}
