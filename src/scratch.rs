//! Scratch directories in the temp directory that no `kill -9` leaves behind for long.
//!
//! A command that needs room outside any home (a repository to walk a remote's history in,
//! a fetch kept for the rest of the command, a release asset being checked) makes it here:
//! `$TMPDIR/plugins-<uid>/<kind>.<owner>.<random>`, where `<owner>` is this process's tag
//! ([`crate::owner`]). The directory is removed when its guard drops; a process killed
//! before that leaves it, and the next command of the same user — whatever it is — removes
//! every one whose owner is gone ([`sweep`], run before each command). A live owner's is
//! never touched, so two commands at once do not remove each other's.
//!
//! The parent is the user's own (created `0700`; used only when it is a directory, not a
//! link, owned by this user and writable by no one else). When it is not (another user
//! made it first), scratch goes straight into the temp directory, named the same way, and
//! is not swept: refusing to run would let anyone with write access to `/tmp` stop
//! `plugins`, and sweeping a directory someone else controls would let them choose what
//! is deleted.

use std::path::{Path, PathBuf};

/// A new scratch directory of `kind` (a short word naming its use: `fetch`, `walk`, …),
/// removed when the guard drops.
pub fn dir(kind: &str) -> std::io::Result<tempfile::TempDir> {
    dir_in(&std::env::temp_dir(), kind)
}

/// Remove the scratch directories whose owner is gone, and say how many were removed.
/// Never an error: what cannot be removed now is tried again by the next command.
pub fn sweep() -> usize {
    sweep_in(&std::env::temp_dir())
}

/// [`dir`] in the temp directory `tmp`.
fn dir_in(tmp: &Path, kind: &str) -> std::io::Result<tempfile::TempDir> {
    let prefix = format!("{kind}.{}.", crate::owner::tag());
    let mut builder = tempfile::Builder::new();
    builder.rand_bytes(crate::owner::BESIDE_RANDOM);
    match own_parent(tmp, true) {
        Some(parent) => builder.prefix(&prefix).tempdir_in(parent),
        None => builder.prefix(&format!("plugins-{prefix}")).tempdir_in(tmp),
    }
}

/// [`sweep`] in the temp directory `tmp`.
fn sweep_in(tmp: &Path) -> usize {
    let Some(parent) = own_parent(tmp, false) else {
        return 0;
    };
    let Ok(entries) = fs_err::read_dir(&parent) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(owner_of) else {
            continue;
        };
        if crate::owner::alive(owner) != Some(false) {
            continue;
        }
        let path = entry.path();
        // `remove_dir_all` does not follow links, and the parent is this user's alone.
        let gone = match fs_err::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => fs_err::remove_dir_all(&path),
            Ok(_) => fs_err::remove_file(&path),
            Err(e) => Err(e),
        };
        match gone {
            Ok(()) => removed += 1,
            Err(e) => log::debug!("scratch: cannot remove {}: {e}", path.display()),
        }
    }
    removed
}

/// The owner tag in a scratch directory's name `<kind>.<pid>-<start>.<random>`, if it is
/// one.
fn owner_of(name: &str) -> Option<&str> {
    let mut parts = name.split('.');
    let (kind, owner, random) = (parts.next()?, parts.next()?, parts.next()?);
    (parts.next().is_none()
        && !kind.is_empty()
        && kind.bytes().all(|b| b.is_ascii_lowercase())
        && crate::owner::is_tag(owner)
        && crate::owner::is_random(random))
    .then_some(owner)
}

/// This user's scratch parent in the temp directory, made when `create` and missing; `None`
/// when it is missing (not `create`) or is not this user's alone.
fn own_parent(tmp: &Path, create: bool) -> Option<PathBuf> {
    let parent = tmp.join(parent_name());
    if create {
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&parent) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                log::debug!("scratch: cannot create {}: {e}", parent.display());
                return None;
            }
        }
    }
    is_own(&parent).then_some(parent)
}

/// The parent's name: one per user, so that users of one temp directory do not meet.
fn parent_name() -> String {
    #[cfg(unix)]
    {
        // SAFETY: geteuid cannot fail.
        format!("plugins-{}", unsafe { libc::geteuid() })
    }
    #[cfg(not(unix))]
    {
        "plugins-scratch".to_owned()
    }
}

/// Whether `dir` is a directory (not a link) of this user's that no one else can write.
fn is_own(dir: &Path) -> bool {
    let Ok(meta) = fs_err::symlink_metadata(dir) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid cannot fail.
        let me = unsafe { libc::geteuid() };
        meta.is_dir() && meta.uid() == me && meta.mode() & 0o022 == 0
    }
    #[cfg(not(unix))]
    {
        meta.is_dir()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tag of a process that has exited.
    fn dead_tag() -> String {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        format!("{pid}-1")
    }

    #[test]
    fn a_sweep_removes_only_what_a_dead_owner_left() {
        let tmp = tempfile::tempdir().unwrap();
        let mine = dir_in(tmp.path(), "walk").unwrap();
        let parent = mine.path().parent().unwrap().to_owned();
        assert_eq!(parent, tmp.path().join(parent_name()));
        let dead = parent.join(format!("fetch.{}.AbC123", dead_tag()));
        fs_err::create_dir_all(dead.join("objects/pack")).unwrap();
        fs_err::write(dead.join("objects/pack/x.pack"), b"pack").unwrap();
        // Not scratch: no owner tag, a bad shape, an unknown owner.
        let others = [
            "notes",
            "fetch.AbC123",
            &format!("fetch.{}.AbC12", dead_tag()),
            &format!("Fetch.{}.AbC123", dead_tag()),
        ];
        for name in others {
            fs_err::create_dir(parent.join(name)).unwrap();
        }
        assert_eq!(sweep_in(tmp.path()), 1);
        assert!(!dead.exists());
        assert!(mine.path().is_dir(), "a live owner's is kept");
        for name in others {
            assert!(parent.join(name).is_dir(), "{name}");
        }
        let path = mine.path().to_owned();
        drop(mine);
        assert!(!path.exists(), "removed with its guard");
    }

    #[cfg(unix)]
    #[test]
    fn a_dead_owners_link_is_removed_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let _mine = dir_in(tmp.path(), "walk").unwrap();
        let target = tmp.path().join("precious");
        fs_err::create_dir(&target).unwrap();
        fs_err::write(target.join("file"), b"keep").unwrap();
        let link = tmp
            .path()
            .join(parent_name())
            .join(format!("walk.{}.AbC123", dead_tag()));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(sweep_in(tmp.path()), 1);
        assert!(fs_err::symlink_metadata(&link).is_err());
        assert_eq!(fs_err::read(target.join("file")).unwrap(), b"keep");
    }

    #[cfg(unix)]
    #[test]
    fn a_parent_others_can_write_is_neither_used_nor_swept() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let parent = tmp.path().join(parent_name());
        fs_err::create_dir(&parent).unwrap();
        fs_err::set_permissions(&parent, std::fs::Permissions::from_mode(0o777)).unwrap();
        let planted = parent.join(format!("fetch.{}.AbC123", dead_tag()));
        fs_err::create_dir(&planted).unwrap();
        assert_eq!(sweep_in(tmp.path()), 0);
        assert!(planted.is_dir());
        let d = dir_in(tmp.path(), "fetch").unwrap();
        assert_eq!(d.path().parent().unwrap(), tmp.path());
        let name = d.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(&format!("plugins-fetch.{}.", crate::owner::tag())),
            "{name}"
        );
    }

    #[test]
    fn a_missing_parent_is_not_made_by_a_sweep() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(sweep_in(tmp.path()), 0);
        assert!(!tmp.path().join(parent_name()).exists());
    }
}
