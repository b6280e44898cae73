//! The per-file hashes of an installed plugin (`<home>/.plugins/files/<id>.json`), so
//! that `verify` can say which files changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{TxnError, remove_tree, state};
use crate::name::Name;
use crate::store::Home;

/// `<home>/.plugins/files/<id>.json`: the installed plugin's per-file hashes, so that
/// `verify` can say which files changed.
pub(super) fn files_record(home: &Home, id: &Name) -> PathBuf {
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
pub(super) fn write_files(home: &Home, id: &Name, dir: &Path) -> Result<(), TxnError> {
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
    let record: FilesRecord = fs_err::read(files_record(home, id))
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
