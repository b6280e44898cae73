//! Writing a commit's tree into a directory, every entry name checked, and
//! reading a local repository without fetching.

use std::path::Path;

use git2::{Oid, Repository};

use super::refs::{Choice, choose, commit_of, local_path};
use super::{Fetched, GitError, RefKind};

/// A local repository needs no fetch: resolve the ref in it and write the
/// commit's tree straight into `dest` (libgit2's local transport cannot fetch
/// shallow, so a fetch would copy the whole history). The repository is only
/// read: its index, working tree and locks are never touched, so read-only and
/// concurrently used repositories work.
pub(super) fn local_tree(
    url: &str,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    dest: &Path,
) -> Result<Fetched, GitError> {
    log::debug!("git: reading the local repository {url}");
    let repo = Repository::open(local_path(url)).map_err(|error| GitError::Remote {
        url: url.to_owned(),
        error,
    })?;
    let mut refs: Vec<(String, Oid)> = Vec::new();
    for r in repo.references()? {
        let r = r?;
        if let (Ok(name), Ok(commit)) = (r.name().map(str::to_owned), r.peel_to_commit()) {
            refs.push((name, commit.id()));
        }
    }
    let head = repo
        .find_reference("HEAD")
        .ok()
        .and_then(|h| h.symbolic_target().ok().flatten().map(str::to_owned));
    let choice = choose(url, &refs, head, reference)?;
    let commit = commit_of(&repo, url, &choice, reference, &refs)?;
    let tag = tag_ref(&repo, signed_tag_name(&choice, tag_hint).as_deref());
    check_out(&repo, &commit, dest, choice.kind, choice.refname, tag)
}

/// The tag whose signature may cover the fetched commit: the tag asked for, else
/// `tag_hint` (`sync`: the tag a lock row pinned by commit was installed from).
pub(super) fn signed_tag_name(choice: &Choice, tag_hint: Option<&str>) -> Option<String> {
    match (&choice.kind, &choice.refname) {
        (RefKind::Tag, Some(name)) => Some(name.clone()),
        _ => tag_hint.map(|t| format!("refs/tags/{t}")),
    }
}

/// `name` and the object its ref in `repo` points at, if the ref is there.
pub(super) fn tag_ref(repo: &Repository, name: Option<&str>) -> Option<(String, Oid)> {
    let name = name?;
    let id = repo.find_reference(name).ok()?.target()?;
    Some((name.to_owned(), id))
}

/// The deepest tree nesting written out.
const MAX_TREE_DEPTH: usize = 64;

/// Whether a tree entry name may be written: one component, not `.`/`..`, no
/// `\` (git refuses it on Windows, and hosts that convert it to `/` would read
/// elsewhere), no NUL, not `.git` in any case.
fn entry_name_ok(name: &[u8]) -> bool {
    !name.is_empty()
        && name != b"."
        && name != b".."
        && !name.contains(&b'/')
        && !name.contains(&b'\\')
        && !name.contains(&0)
        && !name.eq_ignore_ascii_case(b".git")
}

fn unsafe_entry(name: &[u8]) -> GitError {
    GitError::UnsafeEntry(String::from_utf8_lossy(name).into_owned())
}

/// Copy a blob into `out`, streamed where the object database can stream it
/// (loose objects); a packed object is inflated whole by libgit2.
fn write_blob(repo: &Repository, oid: Oid, out: &mut fs_err::File) -> std::io::Result<()> {
    use std::io::Write;
    let odb = repo.odb().map_err(std::io::Error::other)?;
    if let Ok((mut reader, _, _)) = odb.reader(oid) {
        std::io::copy(&mut reader, out)?;
        return Ok(());
    }
    let blob = repo.find_blob(oid).map_err(std::io::Error::other)?;
    out.write_all(blob.content())
}

/// Write `commit`'s tree into `dest` (as [`write_tree`]): what a fetch of `kind`/`refname`
/// checked out, with the signed objects: the commit, and `tag` (a `refs/tags/…` name and
/// the object it names) when that is an annotated tag of the commit.
pub(super) fn check_out(
    repo: &Repository,
    commit: &git2::Commit<'_>,
    dest: &Path,
    kind: RefKind,
    refname: Option<String>,
    tag: Option<(String, Oid)>,
) -> Result<Fetched, GitError> {
    write_tree(repo, &commit.tree()?, dest, 0)?;
    let signed = super::sign::material(
        repo,
        commit.id(),
        tag.as_ref().map(|(n, id)| (n.as_str(), *id)),
    );
    Ok(Fetched {
        commit: commit.id().to_string(),
        kind,
        refname,
        signed,
    })
}

/// Write a commit's tree into `dest` (created) from the object database, as
/// `git checkout` would lay it out: files with their executable bit, symlinks
/// as symlinks, submodules as empty directories. No index or work tree of any
/// repository is involved, and every name is checked before it becomes a path.
pub(super) fn write_tree(
    repo: &Repository,
    tree: &git2::Tree<'_>,
    dest: &Path,
    depth: usize,
) -> Result<(), GitError> {
    if depth > MAX_TREE_DEPTH {
        return Err(GitError::UnsafeEntry(format!(
            "{} (nested too deep)",
            dest.display()
        )));
    }
    let fail = |e: std::io::Error, path: &Path| {
        git2::Error::from_str(&format!(
            "cannot write {}: {}",
            path.display(),
            crate::file::reason(&e)
        ))
    };
    fs_err::create_dir_all(dest).map_err(|e| fail(e, dest))?;
    for entry in tree {
        let name = entry.name_bytes();
        if !entry_name_ok(name) {
            return Err(unsafe_entry(name));
        }
        #[cfg(unix)]
        let path = dest.join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
        #[cfg(not(unix))]
        let path = dest.join(String::from_utf8_lossy(name).as_ref());
        match entry.filemode() {
            0o040000 => {
                let sub = repo.find_tree(entry.id())?;
                write_tree(repo, &sub, &path, depth + 1)?;
            }
            0o160000 => fs_err::create_dir(&path).map_err(|e| fail(e, &path))?,
            mode @ (0o100644 | 0o100755 | 0o100664) => {
                let mut file = fs_err::File::create_new(&path).map_err(|e| fail(e, &path))?;
                write_blob(repo, entry.id(), &mut file).map_err(|e| fail(e, &path))?;
                #[cfg(unix)]
                if mode == 0o100755 {
                    use std::os::unix::fs::PermissionsExt;
                    file.set_permissions(std::fs::Permissions::from_mode(0o755))
                        .map_err(|e| fail(e, &path))?;
                }
                #[cfg(not(unix))]
                let _ = mode;
            }
            0o120000 => {
                let blob = repo.find_blob(entry.id())?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(
                    <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(blob.content()),
                    &path,
                )
                .map_err(|e| fail(e, &path))?;
            }
            _ => return Err(unsafe_entry(name)),
        }
    }
    Ok(())
}
