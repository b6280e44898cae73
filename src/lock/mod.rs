//! Lockfiles in each host's native format, read and written without losing
//! fields `plugins` does not know, and written atomically only on change.
//!
//! * aoe: TOML `lock_version = 2`, `[plugins."<id>"]` (spec `aoe.md` §17);
//! * protoagent: JSON `{"plugins": [...]}` sorted by id (spec `protoagent.md` §4);
//! * aworld has none: `plugins` keeps its own TOML `plugins.lock` there.

mod atomic;
mod entry;
mod home;
mod host_record;
mod json;
mod pin;

#[cfg(test)]
mod tests;
mod toml_row;

use std::path::{Path, PathBuf};

use crate::dialect::{Dialect, LockFormat};

use toml_row::toml_entry;

pub use atomic::write_atomic;
pub use entry::{Entry, is_commit, no_source};
pub(crate) use entry::{adopt_kind, read_commit, read_profile};
pub use host_record::HostProfile;
pub use pin::{DepPin, PinError};

/// The aoe lock format version `plugins` writes and understands.
pub use crate::dialect::AOE_LOCK_VERSION;

/// Why a lockfile cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{path} is lock_version {found} but plugins understands {AOE_LOCK_VERSION}; upgrade plugins"
    )]
    TooNew { path: String, found: i64 },
    #[error("{path}: the entry {id:?} cannot name a plugin directory: {why}")]
    UnsafeId {
        path: String,
        id: String,
        why: crate::name::NameError,
    },
    #[error("{path}: the entry {id:?} pins a wheel that cannot be one (deps[{index}]): {why}")]
    BadPin {
        path: String,
        id: String,
        index: usize,
        why: PinError,
    },
    #[error("{path} is not a valid lockfile: {message}")]
    Corrupt { path: String, message: String },
    /// The home's host record names no host `plugins` serves.
    #[error(transparent)]
    UnknownHost(#[from] crate::store::UnknownHost),
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: std::io::Error,
    },
}

impl crate::refusal::NamedRefusal for LockError {
    fn code(&self) -> crate::diagnostic::Code {
        match self {
            LockError::UnsafeId { .. } => crate::diagnostic::Code::LockUnsafeId,
            LockError::BadPin { .. } => crate::diagnostic::Code::LockBadPin,
            LockError::UnknownHost(_) => crate::diagnostic::Code::HomeUnknownHost,
            _ => crate::diagnostic::Code::LockError,
        }
    }

    fn help(&self) -> Option<String> {
        match self {
            LockError::UnsafeId { path, .. } => Some(format!(
                "nothing was read or deleted for it; remove the entry from {path} by hand"
            )),
            LockError::BadPin { path, id, .. } => Some(format!(
                "nothing was installed or run for it: a pin reaches pip as a requirement line, so it is only ever a name, a version and a sha256; if the lock came from elsewhere (a pull request, a bundle), do not use it; else remove the `deps` of {id} from {path} and run `plugins install --deps` again"
            )),
            LockError::UnknownHost(u) => Some(format!(
                "a newer plugins wrote it, or it was edited: use that plugins for this home, or write the home's host ({}) into {}",
                crate::dialect::ALL.map(|d| d.spec().name).join(", "),
                u.record.display()
            )),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Doc {
    Toml(toml::Table),
    Json(serde_json::Value),
}

/// A lockfile, loaded (or empty when absent).
#[derive(Clone, Debug)]
pub struct Lock {
    pub path: PathBuf,
    format: LockFormat,
    doc: Doc,
    /// The document as loaded (`None` when there was no file), to write only on change.
    loaded: Option<Doc>,
    /// The home's host record and the host it names, written before the lock when it is
    /// missing ([`crate::store::Home::host_record`]); `None` for a lock read alone.
    host_record: Option<(PathBuf, Dialect)>,
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> LockError + 'a {
    move |source| LockError::Io {
        action,
        path: path.display().to_string(),
        source,
    }
}

impl Lock {
    /// Load `path` as `dialect`'s lock; a missing file is an empty lock.
    pub fn load(path: &Path, dialect: Dialect) -> Result<Lock, LockError> {
        let original = match crate::file::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io("read", path)(e)),
        };
        let corrupt = |message: String| LockError::Corrupt {
            path: path.display().to_string(),
            message,
        };
        let format = dialect.spec().lock;
        let doc = match format {
            LockFormat::Json => {
                let value = match &original {
                    Some(text) => serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?,
                    None => serde_json::json!({"plugins": []}),
                };
                let value = json::normalize(value).map_err(|e| corrupt(e.to_string()))?;
                if let Err((id, index, why)) = json::check_pins(&value) {
                    return Err(LockError::BadPin {
                        path: path.display().to_string(),
                        id,
                        index,
                        why,
                    });
                }
                Doc::Json(value)
            }
            LockFormat::Toml {
                version,
                refuse_newer,
            } => {
                let table: toml::Table = match &original {
                    Some(text) => text
                        .parse()
                        .map_err(|e: toml::de::Error| corrupt(e.message().to_owned()))?,
                    None => toml::Table::new(),
                };
                if refuse_newer
                    && let Some(found) = table.get("lock_version").and_then(toml::Value::as_integer)
                    && found > version
                {
                    return Err(LockError::TooNew {
                        path: path.display().to_string(),
                        found,
                    });
                }
                Doc::Toml(table)
            }
        };
        let loaded = original.is_some().then(|| doc.clone());
        Ok(Lock {
            path: path.to_path_buf(),
            format,
            doc,
            loaded,
            host_record: None,
        })
    }

    /// Every entry, sorted by id.
    pub fn entries(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = match &self.doc {
            Doc::Json(v) => json::entries(v),
            Doc::Toml(t) => t
                .get("plugins")
                .and_then(toml::Value::as_table)
                .map(|plugins| {
                    plugins
                        .iter()
                        .filter_map(|(id, v)| toml_entry(id, v.as_table()?))
                        .collect()
                })
                .unwrap_or_default(),
        };
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// The entry of `id` (the row the host reads), without building every entry: callers
    /// that look up one row per plugin stay linear in the lock's size.
    pub fn get(&self, id: &str) -> Option<Entry> {
        match &self.doc {
            Doc::Json(v) => json::entry(v, id),
            Doc::Toml(t) => t
                .get("plugins")
                .and_then(toml::Value::as_table)
                .and_then(|plugins| plugins.get(id))
                .and_then(toml::Value::as_table)
                .and_then(|row| toml_entry(id, row)),
        }
    }

    /// Add or replace `entry`, keeping fields of a prior entry that `plugins` does not manage.
    pub fn upsert(&mut self, entry: &Entry, by: &str, now: &str) {
        match &mut self.doc {
            Doc::Json(v) => json::upsert(v, entry, by, now),
            Doc::Toml(t) => {
                let version = match self.format {
                    LockFormat::Toml { version, .. } => version,
                    LockFormat::Json => unreachable!("a TOML document has a TOML lock format"),
                };
                toml_row::upsert(t, version, entry);
            }
        }
    }

    /// protoAgent: set the `deps` pins of `id`'s row, as the host's wheel installer records
    /// them. An empty list is kept (`deps: []`): the plugin was installed with `--deps`
    /// and nothing needed installing, and its updates install its deps again (see
    /// [`Lock::deps`]). Other formats have no such key.
    pub fn set_deps(&mut self, id: &str, pins: &[DepPin]) {
        if let Doc::Json(v) = &mut self.doc {
            json::set_deps(v, id, pins);
            if pins.is_empty()
                && let Some(row) = last_json_row(v, id)
            {
                row.insert("deps".into(), serde_json::Value::Array(Vec::new()));
            }
        }
    }

    /// protoAgent: the `deps` pins of `id`'s row (the last one, which the host reads), or
    /// `None` when the row has no `deps` key. A row with `deps` (written by the host's
    /// wheel installer or by `plugins install --deps`) is a plugin whose wheel deps live in
    /// `plugin-deps/<id>`: `update`, `sync`, `autoupdate` and `rollback` keep them matching
    /// the installed version. Every pin was checked by grammar when the lock was read.
    pub fn deps(&self, id: &str) -> Option<Vec<DepPin>> {
        let Doc::Json(v) = &self.doc else {
            return None;
        };
        let rows = v.get("plugins")?.as_array()?;
        let row = rows
            .iter()
            .rev()
            .find(|p| p.get("id").and_then(serde_json::Value::as_str) == Some(id))?;
        row_deps(row)
    }

    /// [`Lock::deps`] of every id, in one pass over the rows (the last row of an id wins,
    /// as the host reads it): what a command that shows every row's pins asks (`list`),
    /// where a search per row would be quadratic in the rows.
    pub fn all_deps(&self) -> std::collections::HashMap<String, Vec<DepPin>> {
        let mut out = std::collections::HashMap::new();
        let Doc::Json(v) = &self.doc else {
            return out;
        };
        let rows = v.get("plugins").and_then(serde_json::Value::as_array);
        for row in rows.into_iter().flatten() {
            let Some(id) = row.get("id").and_then(serde_json::Value::as_str) else {
                continue;
            };
            match row_deps(row) {
                Some(deps) => out.insert(id.to_owned(), deps),
                None => out.remove(id),
            };
        }
        out
    }

    /// protoAgent: who wrote `id`'s row and when (`by`, `installed_at` of the last row),
    /// which `sync` writes back as they are, so that the lock stays byte for byte.
    pub fn stamp(&self, id: &str) -> Option<(String, String)> {
        let Doc::Json(v) = &self.doc else {
            return None;
        };
        let row = v
            .get("plugins")?
            .as_array()?
            .iter()
            .rev()
            .find(|p| p.get("id").and_then(serde_json::Value::as_str) == Some(id))?;
        let s = |k: &str| row.get(k)?.as_str().map(str::to_owned);
        Some((s("by")?, s("installed_at")?))
    }

    /// Record the hashes `verify` compares (`installed_tree_hash`, and `manifest_hash` when
    /// given) in `id`'s row (protoAgent: the last one, which the host reads), leaving every
    /// other key as it is (a host's `installed_at` and `by` included). Whether there was a row.
    pub fn set_hashes(&mut self, id: &str, manifest_hash: Option<&str>, installed: &str) -> bool {
        let set = |row: &mut dyn FnMut(&str, &str)| {
            if let Some(m) = manifest_hash {
                row("manifest_hash", m);
            }
            row("installed_tree_hash", installed);
        };
        match &mut self.doc {
            Doc::Json(v) => match last_json_row(v, id) {
                Some(row) => {
                    set(&mut |k, val| {
                        row.insert(k.into(), val.into());
                    });
                    true
                }
                None => false,
            },
            Doc::Toml(t) => match t
                .get_mut("plugins")
                .and_then(toml::Value::as_table_mut)
                .and_then(|p| p.get_mut(id))
                .and_then(toml::Value::as_table_mut)
            {
                Some(row) => {
                    set(&mut |k, val| {
                        row.insert(k.into(), toml::Value::String(val.into()));
                    });
                    true
                }
                None => false,
            },
        }
    }

    /// Remove `id`; whether it was there.
    pub fn remove(&mut self, id: &str) -> bool {
        match &mut self.doc {
            Doc::Json(v) => json::remove(v, id),
            Doc::Toml(t) => t
                .get_mut("plugins")
                .and_then(toml::Value::as_table_mut)
                .is_some_and(|p| p.remove(id).is_some()),
        }
    }

    /// The file's contents as `plugins` would write them.
    pub fn render(&self) -> String {
        match &self.doc {
            Doc::Json(v) => json::render(v),
            Doc::Toml(t) => toml::to_string(t).expect("a TOML table serializes"),
        }
    }

    /// Write atomically (temp file, fsync, rename, fsync the directory), and only
    /// when the contents changed. Returns whether it wrote.
    pub fn save(&mut self) -> Result<bool, LockError> {
        if self.loaded.as_ref() == Some(&self.doc) {
            return Ok(false);
        }
        // The home names its host before its lock exists, so that a lock is never read by
        // guessing its host from its contents again (a kill between the two leaves the
        // record alone, which names the same host).
        if let Some((record, dialect)) = &self.host_record
            && fs_err::symlink_metadata(record).is_err()
        {
            write_atomic(record, format!("{}\n", dialect.spec().name).as_bytes())?;
        }
        write_atomic(&self.path, self.render().as_bytes())?;
        self.loaded = Some(self.doc.clone());
        Ok(true)
    }
}

/// A JSON lock row's `deps` pins; `None` when the row has no `deps` key. Every pin was
/// checked when the lock was read (`json::check_pins`).
fn row_deps(row: &serde_json::Value) -> Option<Vec<DepPin>> {
    let deps = row.get("deps")?;
    Some(
        deps.as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|d| DepPin::from_json(d).ok())
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// The last row of `id` in a protoAgent lock, the one the host reads.
fn last_json_row<'a>(
    v: &'a mut serde_json::Value,
    id: &str,
) -> Option<&'a mut serde_json::Map<String, serde_json::Value>> {
    v.get_mut("plugins")?
        .as_array_mut()?
        .iter_mut()
        .rev()
        .find(|p| p.get("id").and_then(serde_json::Value::as_str) == Some(id))?
        .as_object_mut()
}
