//! A plugin home: `<home>/plugins/<id>/`, `<home>/plugins.lock`, build logs, and
//! the advisory lock that serializes `plugins` processes working on one home.

use fs_err::File;
use std::fs::TryLockError;
use std::path::{Path, PathBuf};

use crate::dialect::Dialect;
use crate::name::Name;

/// What is wrong with a home's `plugins.toml` (its `[trust]`, its autoupdate policy): the
/// file cannot be read, is not TOML, or a value is wrong (`Invalid` names the key and where
/// it is). Callers give it the code of what they were doing (`plugins::config::trust`, …).
#[derive(Clone, Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path} is not valid TOML: {message}")]
    NotToml { path: String, message: String },
    #[error("{0}")]
    Invalid(String),
}

impl SettingsError {
    /// The file could not be read.
    pub fn read(path: &Path, e: &std::io::Error) -> SettingsError {
        SettingsError::Read {
            path: path.display().to_string(),
            reason: crate::file::reason(e).into_owned(),
        }
    }

    /// The file is not TOML.
    pub fn not_toml(path: &Path, message: impl Into<String>) -> SettingsError {
        SettingsError::NotToml {
            path: path.display().to_string(),
            message: message.into(),
        }
    }
}

/// A home whose host `plugins` cannot know: its host record (`<home>/.plugins/host`)
/// names a host this `plugins` does not serve (a newer one's), or cannot be read. Nothing in
/// it is read as any host's.
#[derive(Debug, thiserror::Error)]
#[error("{}: the host of the home {} cannot be known: {why}", record.display(), home.display())]
pub struct UnknownHost {
    pub home: PathBuf,
    /// The home's host record.
    pub record: PathBuf,
    /// What is wrong with the record.
    pub why: String,
}

/// The layout of one home, and the host whose home it is: its lock is read and written in
/// that host's format, and its records are that host's (`src/host/mod.rs` asks
/// `home.dialect`).
#[derive(Clone, Debug)]
pub struct Home {
    pub root: PathBuf,
    /// The host this home belongs to.
    pub dialect: Dialect,
    /// Where plugins live, when not `<root>/plugins` (protoAgent's `$PROTOAGENT_PLUGINS_DIR`).
    pub plugins: Option<PathBuf>,
    /// The lockfile, when not `<root>/plugins.lock` (protoAgent's `$PROTOAGENT_PLUGINS_LOCK`).
    pub lock: Option<PathBuf>,
    /// protoAgent's wheel-deps root, when not `plugin-deps` beside the plugins dir (the
    /// host keeps it beside the instance's plugins dir, which `plugins.dir` does not move).
    pub deps: Option<PathBuf>,
}

/// One home is another when it names the same files (a host is not compared: a directory
/// is one host's home).
impl PartialEq for Home {
    fn eq(&self, other: &Home) -> bool {
        (&self.root, &self.plugins, &self.lock, &self.deps)
            == (&other.root, &other.plugins, &other.lock, &other.deps)
    }
}

impl Eq for Home {}

impl Home {
    pub fn new(root: impl Into<PathBuf>, dialect: Dialect) -> Home {
        Home {
            root: root.into(),
            dialect,
            plugins: None,
            lock: None,
            deps: None,
        }
    }

    /// A home named by `--home` or `PLUGINS_HOME`: its host is the one its host record
    /// names ([`Home::host_record`], written with its lock). A home from before the record
    /// is its lock's format's ([`crate::dialect::from_lockfile`], the migration path); a
    /// home without either is `fallback`'s (the host of the plugin going in), else
    /// [`crate::dialect::FIRST`]'s. A record that names no host `plugins` serves, or
    /// cannot be read, is refused.
    pub fn named(root: impl Into<PathBuf>, fallback: Option<Dialect>) -> Result<Home, UnknownHost> {
        let root = root.into();
        let record = host_record(&root);
        let unknown = |why: String| UnknownHost {
            home: root.clone(),
            record: record.clone(),
            why,
        };
        // No record (nor anything in its place): a home from before it, or a new one.
        if fs_err::symlink_metadata(&record).is_err() {
            let dialect = crate::dialect::from_lockfile(&root.join("plugins.lock"))
                .or(fallback)
                .unwrap_or(crate::dialect::FIRST);
            return Ok(Home::new(root, dialect));
        }
        let dialect = match crate::file::read_to_string(&record) {
            Ok(text) => crate::dialect::from_name(text.trim()).ok_or_else(|| {
                unknown(format!(
                    "it names {:?}, which is no host this plugins serves ({})",
                    text.trim(),
                    crate::dialect::ALL.map(|d| d.spec().name).join(", ")
                ))
            })?,
            Err(e) => return Err(unknown(crate::file::reason(&e).into_owned())),
        };
        Ok(Home::new(root, dialect))
    }

    /// The file that names the home's host (`<home>/.plugins/host`: `aoe`, `aworld` or
    /// `protoagent`), written atomically before the home's lock is first written.
    pub fn host_record(&self) -> PathBuf {
        host_record(&self.root)
    }

    pub fn plugins_dir(&self) -> PathBuf {
        self.plugins
            .clone()
            .unwrap_or_else(|| self.root.join("plugins"))
    }

    /// `<plugins>/<id>`: the only way a plugin id becomes a directory.
    pub fn plugin_dir(&self, id: &Name) -> PathBuf {
        id.under(&self.plugins_dir())
    }

    /// Whether this home takes `plugin`'s plugins: a home holds one host's.
    pub fn takes(&self, plugin: Dialect) -> bool {
        self.dialect.is(plugin)
    }

    pub fn lockfile(&self) -> PathBuf {
        self.lock
            .clone()
            .unwrap_or_else(|| self.root.join("plugins.lock"))
    }

    /// protoAgent's wheel-deps root (`<instance root>/plugin-deps`, spec 0.218 §5.4).
    pub fn deps_root(&self) -> PathBuf {
        self.deps.clone().unwrap_or_else(|| {
            let plugins = self.plugins_dir();
            plugins.parent().unwrap_or(&self.root).join("plugin-deps")
        })
    }

    /// `<deps root>/<id>`: where protoAgent imports a plugin's `requires_pip` from.
    pub fn plugin_deps_dir(&self, id: &Name) -> PathBuf {
        id.under(&self.deps_root())
    }

    /// When autoupdate last swept this home (`{"last_sweep": <unix secs>}`).
    pub fn autoupdate_state(&self) -> PathBuf {
        self.root.join(".autoupdate.json")
    }

    /// The home's `plugins` settings (autoupdate policy, remembered host profile).
    pub fn settings(&self) -> PathBuf {
        self.root.join("plugins.toml")
    }

    /// Every file `plugins` writes atomically in the home (beside the intent records): a
    /// kill during the write leaves `<file>.<random>.tmp` beside it, which recovery deletes.
    /// (aoe's `config.toml` is the host's: `host::edited_configs`.)
    pub fn atomic_files(&self) -> [PathBuf; 7] {
        [
            self.lockfile(),
            self.host_record(),
            self.autoupdate_state(),
            self.settings(),
            self.first_seen_record(),
            self.host_probe_record(),
            self.oci_tags_record(),
        ]
    }

    /// The blobs of the last artifact pulled from a registry into this home, and the
    /// downloads a killed pull left (`<home>/.plugins/oci/blobs/sha256/<hex>[.partial]`).
    pub fn oci_cache(&self) -> PathBuf {
        self.root.join(".plugins").join("oci")
    }

    /// The digest each `oci://…:TAG` named when this home last synced from it
    /// (`<home>/.plugins/oci-tags.json`): a tag that names another one later is refused.
    pub fn oci_tags_record(&self) -> PathBuf {
        self.root.join(".plugins").join("oci-tags.json")
    }

    /// What the host's Python answered when last asked which hosts it holds
    /// (`<home>/.plugins/host-probe.json`), with what it depends on: asked again when the
    /// interpreter or its packages change (`host::detect`).
    pub fn host_probe_record(&self) -> PathBuf {
        self.root.join(".plugins").join("host-probe.json")
    }

    /// When this home first saw each newer version (`<home>/.plugins/first-seen.json`): what
    /// a cooldown counts from.
    pub fn first_seen_record(&self) -> PathBuf {
        self.root.join(".plugins").join("first-seen.json")
    }

    pub fn build_log(&self, id: &Name) -> PathBuf {
        self.root.join("logs").join(format!("{id}-build.log"))
    }

    /// AWorld's registry of installed plugins.
    pub fn aworld_registry(&self) -> PathBuf {
        self.plugins_dir().join(".manifest.json")
    }

    fn guard_path(&self) -> PathBuf {
        self.root.join(".plugins.guard")
    }

    /// Held by the `autoupdate` sweep of this home while it sweeps
    /// (`<home>/.plugins/autoupdate.guard`), apart from the home lock its installs take.
    fn sweep_guard_path(&self) -> PathBuf {
        self.root.join(".plugins").join("autoupdate.guard")
    }

    /// Take the sweep's lock without waiting: `None` when another sweep holds it (then this
    /// one skips the home rather than race it).
    pub fn try_lock_sweep(&self) -> std::io::Result<Option<Guard>> {
        let path = self.sweep_guard_path();
        if let Some(dir) = path.parent() {
            fs_err::create_dir_all(dir)?;
        }
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Guard { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Whether a process holds the home's lock right now (read only: nothing is created).
    pub fn is_locked(&self) -> bool {
        File::open(self.guard_path())
            .is_ok_and(|f| matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock)))
    }

    /// Take the home's advisory lock. `wait = false` fails at once when another
    /// process holds it; otherwise `on_wait` is called once before blocking.
    pub fn lock(&self, wait: bool, on_wait: impl FnOnce()) -> std::io::Result<Guard> {
        fs_err::create_dir_all(&self.root)?;
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.guard_path())?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) if wait => {
                on_wait();
                file.lock()?;
            }
            Err(TryLockError::WouldBlock) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::WouldBlock,
                    "another plugins process holds the home lock",
                ));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
        Ok(Guard { _file: file })
    }
}

/// `<root>/.plugins/host`.
fn host_record(root: &Path) -> PathBuf {
    root.join(".plugins").join("host")
}

/// Held while a process works on a home; released on drop (and by the OS on exit).
#[derive(Debug)]
pub struct Guard {
    _file: File,
}

/// Copy a directory tree, keeping symlinks as symlinks and skipping `.git`.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs_err::create_dir_all(to)?;
    for entry in fs_err::read_dir(from)? {
        let entry = entry?;
        if entry.file_name() == ".git" {
            continue;
        }
        let (src, dest) = (entry.path(), to.join(entry.file_name()));
        let ft = entry.file_type()?;
        if ft.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(fs_err::read_link(&src)?, &dest)?;
        } else if ft.is_dir() {
            copy_tree(&src, &dest)?;
        } else {
            fs_err::copy(&src, &dest)?;
        }
    }
    Ok(())
}

/// Move a directory, renaming when possible and copying across filesystems.
pub fn move_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    match fs_err::rename(from, to) {
        Ok(()) => Ok(()),
        Err(_) => {
            copy_tree(from, to)?;
            fs_err::remove_dir_all(from)
        }
    }
}
