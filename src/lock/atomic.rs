//! Replacing a file atomically, through any symlinks that name it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{LockError, io};

/// Replace `path` with `bytes` atomically: a reader sees the old or the new file, never a mix.
///
/// A symlinked `path` (a lock kept in a dotfiles repository) stays a link: the file it
/// points to is replaced, by a temp file written beside it. An existing file keeps its
/// mode; a new one gets 0644 less the umask, as a plain create would.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LockError> {
    let target = follow_links(path).map_err(io("resolve", path))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs_err::create_dir_all(dir).map_err(io("create", dir))?;
    let existing = match fs_err::metadata(&target) {
        Ok(m) => Some(m.permissions()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io("read the mode of", &target)(e)),
    };
    // `<name>.<owner>.<random>.tmp`: recovery deletes it only once its owner is gone
    // (`crate::owner`), never under a live writer that does not hold the home lock.
    let prefix = format!(
        "{}.{}.",
        target
            .file_name()
            .map_or_else(|| "lock".into(), |n| n.to_string_lossy().into_owned()),
        crate::owner::tag()
    );
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Subject to the umask, like any create (tempfile's own default is 0600).
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(io("create a temp file in", dir))?;
    if let Some(mode) = existing {
        // fchmod is not subject to the umask: the mode is kept exactly.
        tmp.as_file()
            .set_permissions(mode)
            .map_err(io("set the mode of", &target))?;
    }
    tmp.write_all(bytes).map_err(io("write", &target))?;
    tmp.as_file().sync_all().map_err(io("sync", &target))?;
    tmp.persist(&target)
        .map_err(|e| io("replace", &target)(e.error))?;
    if let Ok(d) = fs_err::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The file `path` names once its symlinks are followed (it need not exist yet). A
/// relative link target is relative to the link's directory.
pub(super) fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // The kernel's limit; past it, `metadata` reports the loop.
    for _ in 0..40 {
        match fs_err::read_link(&p) {
            Ok(next) => p = p.parent().map_or_else(|| next.clone(), |d| d.join(&next)),
            Err(_) => return Ok(p),
        }
    }
    fs_err::metadata(path)?;
    Err(std::io::Error::other("too many levels of symbolic links"))
}
