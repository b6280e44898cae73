//! Plugin trees on disk: the one walk behind hashing, copying and install
//! checks. A walk yields each entry by the path it was found at (never a path
//! rebuilt from a converted name), refuses names a host cannot represent and
//! file types that are not plugin content, and is bounded in size.

use fs_err::File;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// The most entries one walk accepts (a plugin is a few hundred files).
pub const MAX_ENTRIES: usize = 100_000;
/// The deepest directory nesting one walk accepts.
pub const MAX_DEPTH: usize = 64;

/// What a walked entry is. Nothing else is ever returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
}

/// One entry of a tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Where it is on disk (`root` joined with what `read_dir` returned).
    pub path: PathBuf,
    /// Relative to the root.
    pub rel: PathBuf,
    pub kind: Kind,
}

impl Entry {
    /// The `/`-separated relative path, or `None` when it is not UTF-8.
    pub fn rel_str(&self) -> Option<String> {
        let parts: Option<Vec<&str>> = self.rel.iter().map(OsStr::to_str).collect();
        parts.map(|p| p.join("/"))
    }

    /// The relative path for messages (lossy).
    pub fn display(&self) -> String {
        self.rel.to_string_lossy().into_owned()
    }
}

/// Why a tree cannot be walked.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{0} is a {1}; a plugin tree holds only files, directories and symlinks")]
    Special(String, &'static str),
    #[error("{0:?} has a `\\` in its name, which hosts on Windows (and git there) refuse")]
    Backslash(String),
    #[error("the tree has more than {MAX_ENTRIES} entries")]
    TooMany,
    #[error("{0} is nested deeper than {MAX_DEPTH} directories")]
    TooDeep(String),
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> WalkError + '_ {
    move |source| WalkError::Io {
        path: path.display().to_string(),
        source,
    }
}

#[cfg(unix)]
fn special(ft: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_fifo() {
        "FIFO"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_block_device() || ft.is_char_device() {
        "device"
    } else {
        "special file"
    }
}

#[cfg(not(unix))]
fn special(_: &std::fs::FileType) -> &'static str {
    "special file"
}

/// Walk `root` (not following symlinks), sorted by relative path. `skip(rel,
/// depth)` leaves an entry and everything below it out; `depth` is 0 for the
/// root's children.
pub fn walk(root: &Path, skip: &dyn Fn(&Path, usize) -> bool) -> Result<Vec<Entry>, WalkError> {
    let mut out = Vec::new();
    walk_dir(root, Path::new(""), 0, skip, &mut out)?;
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

fn walk_dir(
    dir: &Path,
    rel: &Path,
    depth: usize,
    skip: &dyn Fn(&Path, usize) -> bool,
    out: &mut Vec<Entry>,
) -> Result<(), WalkError> {
    if depth >= MAX_DEPTH {
        return Err(WalkError::TooDeep(rel.display().to_string()));
    }
    for entry in fs_err::read_dir(dir).map_err(io_err(dir))? {
        let entry = entry.map_err(io_err(dir))?;
        let name = entry.file_name();
        let rel = rel.join(&name);
        if skip(&rel, depth) {
            continue;
        }
        if name.as_encoded_bytes().contains(&b'\\') {
            return Err(WalkError::Backslash(rel.display().to_string()));
        }
        let path = entry.path();
        let ft = entry.file_type().map_err(io_err(&path))?;
        let kind = if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            return Err(WalkError::Special(rel.display().to_string(), special(&ft)));
        };
        if out.len() >= MAX_ENTRIES {
            return Err(WalkError::TooMany);
        }
        out.push(Entry {
            path: path.clone(),
            rel: rel.clone(),
            kind,
        });
        if kind == Kind::Dir {
            walk_dir(&path, &rel, depth + 1, skip, out)?;
        }
    }
    Ok(())
}

/// Open a walked regular file for reading without following a symlink or
/// blocking on a FIFO that replaced it since the walk; anything but a regular
/// file is refused.
pub fn open_file(path: &Path) -> io::Result<File> {
    let mut opts = fs_err::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use fs_err::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Copy the tree at `from` into `to` (created), keeping symlinks as symlinks
/// and file modes, leaving out what `skip` names. Special files are refused
/// before anything is opened.
pub fn copy(
    from: &Path,
    to: &Path,
    skip: &dyn Fn(&Path, usize) -> bool,
) -> Result<Copied, WalkError> {
    let entries = walk(from, skip)?;
    fs_err::create_dir_all(to).map_err(io_err(to))?;
    let mut copied = Copied::default();
    for e in entries {
        let dest = to.join(&e.rel);
        match e.kind {
            Kind::Dir => fs_err::create_dir(&dest).map_err(io_err(&dest))?,
            Kind::Symlink => {
                let target = fs_err::read_link(&e.path).map_err(io_err(&e.path))?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(target, &dest).map_err(io_err(&dest))?;
                #[cfg(not(unix))]
                let _ = target;
            }
            Kind::File => {
                let mut src = open_file(&e.path).map_err(io_err(&e.path))?;
                let perms = src.metadata().map_err(io_err(&e.path))?.permissions();
                let mut out = File::create_new(&dest).map_err(io_err(&dest))?;
                copied.bytes += io::copy(&mut src, &mut out).map_err(io_err(&e.path))?;
                copied.files += 1;
                out.set_permissions(perms).map_err(io_err(&dest))?;
            }
        }
    }
    Ok(copied)
}

/// What [`copy`] copied: its regular files and their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copied {
    pub files: usize,
    pub bytes: u64,
}

/// Move a directory, renaming when possible and copying across file systems. A copy is
/// made beside `to` (`<to>.moving`) and renamed to it once whole, and only then is `from`
/// deleted: at any instant `to` is absent or complete, and `from` is complete until `to`
/// is (a kill leaves both, or a `from` partly deleted beside a whole `to`).
pub fn move_dir(from: &Path, to: &Path) -> Result<(), WalkError> {
    if fs_err::rename(from, to).is_ok() {
        return Ok(());
    }
    let mut name = to.as_os_str().to_owned();
    name.push(".moving");
    let moving = std::path::PathBuf::from(name);
    if fs_err::symlink_metadata(&moving).is_ok() {
        fs_err::remove_dir_all(&moving).map_err(io_err(&moving))?;
    }
    copy(from, &moving, &|_, _| false)?;
    fs_err::rename(&moving, to).map_err(io_err(to))?;
    fs_err::remove_dir_all(from).map_err(io_err(from))
}

/// Symlinks anywhere in the tree that resolve outside it, but in what `skip` leaves out
/// (`skip(relative path, depth)`, as [`walk`]).
pub fn escaping_symlinks(
    root: &Path,
    skip: &dyn Fn(&Path, usize) -> bool,
) -> Result<Vec<String>, WalkError> {
    let real_root = fs_err::canonicalize(root).ok();
    Ok(walk(root, skip)?
        .into_iter()
        .filter(|e| e.kind == Kind::Symlink)
        .filter(|e| {
            let inside = match (&real_root, fs_err::canonicalize(&e.path)) {
                (Some(r), Ok(p)) => p.starts_with(r),
                _ => false,
            };
            !inside
        })
        .map(|e| e.display())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_sorted_and_skips() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(dir.path().join("b/.git")).unwrap();
        fs_err::write(dir.path().join("b/.git/x"), "").unwrap();
        fs_err::write(dir.path().join("b/f"), "").unwrap();
        fs_err::write(dir.path().join("a"), "").unwrap();
        let rels: Vec<String> = walk(dir.path(), &|rel, _| rel.ends_with(".git"))
            .unwrap()
            .iter()
            .map(|e| e.rel_str().unwrap())
            .collect();
        assert_eq!(rels, ["a", "b", "b/f"]);
    }

    #[test]
    fn refuses_backslashes_and_fifos_without_opening_them() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("..\\..\\dev\\zero"), "").unwrap();
        assert!(matches!(
            walk(dir.path(), &|_, _| false),
            Err(WalkError::Backslash(_))
        ));
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = copy(dir.path(), &dir.path().join("out"), &|_, _| false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pipe is a FIFO; a plugin tree holds only files, directories and symlinks"
        );
        assert!(open_file(&fifo).is_err(), "a FIFO is never read");
    }

    #[test]
    fn copies_modes_and_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        fs_err::create_dir_all(src.join("bin")).unwrap();
        fs_err::write(src.join("bin/w"), "#!/bin/sh\n").unwrap();
        fs_err::set_permissions(src.join("bin/w"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::os::unix::fs::symlink("bin/w", src.join("link")).unwrap();
        copy(&src, &dir.path().join("dst"), &|_, _| false).unwrap();
        let mode = fs_err::metadata(dir.path().join("dst/bin/w"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(
            fs_err::read_link(dir.path().join("dst/link")).unwrap(),
            Path::new("bin/w")
        );
    }
}
