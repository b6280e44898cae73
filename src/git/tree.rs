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
    let refs: Vec<(String, Oid)> = super::refs::local_refs(&repo)
        .into_iter()
        .filter(|(n, _)| n != "HEAD")
        .collect();
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

/// Copy a blob into `out`. A loose object is inflated from its file in a stream (libgit2's
/// own reader maps the whole object file, whose pages then stay resident as it is read); a
/// packed one is read whole by libgit2, which cannot stream it: [`refuse_large`] bounds it.
fn write_blob(repo: &Repository, oid: Oid, out: &mut fs_err::File) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(copied) = copy_loose(repo, oid, out) {
        return copied;
    }
    let blob = repo.find_blob(oid).map_err(std::io::Error::other)?;
    out.write_all(blob.content())
}

/// [`write_blob`] of a loose object (`objects/xx/yyyy`: zlib of `blob <size>\0` and the
/// bytes); `None` when the object is not loose in `repo`.
fn copy_loose(repo: &Repository, oid: Oid, out: &mut fs_err::File) -> Option<std::io::Result<()>> {
    use std::io::{BufRead, Read};
    let hex = oid.to_string();
    let file =
        fs_err::File::open(repo.path().join("objects").join(&hex[..2]).join(&hex[2..])).ok()?;
    let bad = |why: &str| std::io::Error::other(format!("object {hex}: {why}"));
    let copied = (|| {
        let mut z = std::io::BufReader::new(flate2::read::ZlibDecoder::new(file));
        let mut header = Vec::new();
        (&mut z).take(32).read_until(0, &mut header)?;
        let size: u64 = header
            .strip_prefix(b"blob ")
            .and_then(|h| h.strip_suffix(b"\0"))
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| h.parse().ok())
            .ok_or_else(|| bad("not a blob"))?;
        if std::io::copy(&mut z.take(size), out)? != size {
            return Err(bad("cut short"));
        }
        Ok(())
    })();
    Some(copied)
}

/// Refuse a file under the tree `id` (at `prefix` in the commit) larger than
/// [`super::max_file`], before any file's contents are read: the sizes come from the
/// objects' headers (libgit2 reads a packed object whole, so a file is as large in
/// memory as on disk). A blob this repository lacks is left to the writing to report.
fn refuse_large(
    repo: &Repository,
    odb: &git2::Odb<'_>,
    commit: Oid,
    id: Oid,
    prefix: &str,
    depth: usize,
) -> Result<(), GitError> {
    if depth > MAX_TREE_DEPTH {
        // Too deep to write: `write_tree` refuses it.
        return Ok(());
    }
    let Ok(tree) = repo.find_tree(id) else {
        return Ok(());
    };
    let limit = super::max_file();
    for entry in tree.iter() {
        let name = String::from_utf8_lossy(entry.name_bytes());
        let path = if prefix.is_empty() {
            name.into_owned()
        } else {
            format!("{prefix}/{name}")
        };
        match entry.filemode() {
            0o040000 => refuse_large(repo, odb, commit, entry.id(), &path, depth + 1)?,
            0o160000 => {}
            _ => refuse_blob(odb, commit, entry.id(), path, limit)?,
        }
    }
    Ok(())
}

/// [`refuse_large`] of one blob (a file or a symlink's target) at `path`.
fn refuse_blob(
    odb: &git2::Odb<'_>,
    commit: Oid,
    id: Oid,
    path: String,
    limit: u64,
) -> Result<(), GitError> {
    match odb.read_header(id) {
        Ok((size, _)) if size as u64 > limit => Err(GitError::FileTooLarge {
            path,
            commit: commit.to_string(),
            size: size as u64,
            limit,
        }),
        _ => Ok(()),
    }
}

/// The ref a fetch checked out: its kind, full name and annotated tag (name, object), if any.
pub(super) type FetchedRef = (RefKind, Option<String>, Option<(String, Oid)>);

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
    refuse_large(repo, &repo.odb()?, commit.id(), commit.tree_id(), "", 0)?;
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

/// What a wanted path of a commit is.
enum AtPath {
    /// A directory: its tree, written out whole.
    Tree(Oid),
    /// A symlink where the path (or one of its parents, at `.0`) is: written as the
    /// symlink it is, so the caller refuses a path through it as it would in a full tree.
    Symlink(String, Oid),
    /// Nothing, or a file: nothing is written, and the caller finds no directory.
    Missing,
    /// A tree on the way that this repository lacks (a partial fetch).
    Lacking(Oid),
}

/// Resolve `path` (plain `/`-separated parts) from the tree `root`, part by part.
fn at_path(repo: &Repository, root: Oid, path: &str) -> Result<AtPath, GitError> {
    let Ok(mut tree) = repo.find_tree(root) else {
        return Ok(AtPath::Lacking(root));
    };
    let mut walked: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        if !entry_name_ok(part.as_bytes()) {
            return Err(unsafe_entry(part.as_bytes()));
        }
        walked.push(part);
        let Some((id, mode)) = tree.get_name(part).map(|e| (e.id(), e.filemode())) else {
            return Ok(AtPath::Missing);
        };
        match mode {
            0o040000 if i + 1 == parts.len() => return Ok(AtPath::Tree(id)),
            0o040000 => match repo.find_tree(id) {
                Ok(t) => tree = t,
                Err(_) => return Ok(AtPath::Lacking(id)),
            },
            0o120000 => return Ok(AtPath::Symlink(walked.join("/"), id)),
            _ => return Ok(AtPath::Missing),
        }
    }
    Ok(AtPath::Tree(tree.id()))
}

/// Whether every tree and blob below the tree `id` is in the repository.
fn complete(repo: &Repository, odb: &git2::Odb<'_>, id: Oid, depth: usize) -> bool {
    if depth > MAX_TREE_DEPTH {
        // Too deep to write: `write_tree` refuses it.
        return true;
    }
    let Ok(tree) = repo.find_tree(id) else {
        return false;
    };
    tree.iter().all(|e| match e.filemode() {
        0o040000 => complete(repo, odb, e.id(), depth + 1),
        0o160000 => true,
        _ => odb.exists(e.id()),
    })
}

/// How [`check_out_paths`] fetches what it lacks: these objects, as [`Want`] says.
pub(super) type FetchObjects<'a> = dyn FnMut(&[Oid], Want) -> Result<(), GitError> + 'a;

/// What [`check_out_paths`] asks a partial fetch for.
pub(super) enum Want {
    /// These trees alone (the directories on the way to a wanted path).
    Trees,
    /// These trees with everything below them, or these blobs.
    Whole,
}

/// [`check_out`] of only `paths` (a monorepo's plugin directories): each written at its
/// place under `dest` as [`write_tree`] writes a tree, every name checked; a path that
/// passes through a symlink gets that symlink, one that is no directory gets nothing.
/// What they need and `repo` lacks (a partial fetch) is asked of `fetch`, a round per
/// level of trees on the way, then once for all their contents. `None`: `fetch` did not
/// bring what was asked.
pub(super) fn check_out_paths(
    repo: &Repository,
    commit: &git2::Commit<'_>,
    dest: &Path,
    (kind, refname, tag): FetchedRef,
    paths: &[String],
    fetch: &mut FetchObjects<'_>,
) -> Result<Option<Fetched>, GitError> {
    let outer = outermost(paths);
    let odb = repo.odb()?;
    let Some(found) = find_paths(repo, commit.tree_id(), &outer, &odb, fetch)? else {
        return Ok(None);
    };
    refuse_oversized(repo, &odb, commit.id(), &found)?;
    fs_err::create_dir_all(dest).map_err(|e| git2::Error::from_str(&e.to_string()))?;
    write_found(repo, dest, found)?;
    let signed = super::sign::material(
        repo,
        commit.id(),
        tag.as_ref().map(|(n, id)| (n.as_str(), *id)),
    );
    Ok(Some(Fetched {
        commit: commit.id().to_string(),
        kind,
        refname,
        signed,
    }))
}

/// The wanted `paths` without those inside another wanted one (written with it), sorted.
fn outermost(paths: &[String]) -> Vec<&str> {
    let mut wanted: Vec<&str> = paths.iter().map(String::as_str).collect();
    wanted.sort_unstable();
    wanted.dedup();
    wanted
        .iter()
        .copied()
        .filter(|p| {
            !wanted
                .iter()
                .any(|o| o != p && p.starts_with(o) && p[o.len()..].starts_with('/'))
        })
        .collect()
}

/// Each wanted path and what it is in the commit's tree.
type Found<'p> = Vec<(&'p str, AtPath)>;

/// What each of the `outer` paths is in the tree `root`, fetching (with `fetch`) the trees
/// on the way this repository lacks, a level a round, then once the whole of what is found
/// incomplete. `None`: a fetch did not bring what it was asked for.
fn find_paths<'p>(
    repo: &Repository,
    root: Oid,
    outer: &[&'p str],
    odb: &git2::Odb<'_>,
    fetch: &mut FetchObjects<'_>,
) -> Result<Option<Found<'p>>, GitError> {
    let mut asked_whole = false;
    let found = loop {
        let mut found = Vec::new();
        let (mut trees, mut whole) = (Vec::new(), Vec::new());
        for p in outer {
            let at = at_path(repo, root, p)?;
            match &at {
                AtPath::Lacking(id) => trees.push(*id),
                AtPath::Tree(id) if !complete(repo, odb, *id, 0) => whole.push(*id),
                AtPath::Symlink(_, id) if !odb.exists(*id) => whole.push(*id),
                _ => {}
            }
            found.push((*p, at));
        }
        trees.sort_unstable();
        trees.dedup();
        whole.sort_unstable();
        whole.dedup();
        if !trees.is_empty() {
            // Each round brings a level more (or gives up): bounded by the paths' depth.
            log::debug!(
                "git: fetching {} trees on the way to {}",
                trees.len(),
                outer.join(", ")
            );
            let before: Vec<Oid> = trees.clone();
            fetch(&trees, Want::Trees)?;
            if before.iter().any(|id| repo.find_tree(*id).is_err()) {
                return Ok(None);
            }
            continue;
        }
        if whole.is_empty() {
            break found;
        }
        if asked_whole {
            return Ok(None);
        }
        log::debug!("git: fetching the contents of {}", outer.join(", "));
        fetch(&whole, Want::Whole)?;
        asked_whole = true;
    };
    Ok(Some(found))
}

/// Refuse a found directory or symlink of commit `commit` that is over the size limits,
/// before anything is written.
fn refuse_oversized(
    repo: &Repository,
    odb: &git2::Odb<'_>,
    commit: Oid,
    found: &[(&str, AtPath)],
) -> Result<(), GitError> {
    for (p, at) in found {
        match at {
            AtPath::Tree(id) => {
                let depth = p.split('/').count();
                refuse_large(repo, odb, commit, *id, p, depth)?;
            }
            AtPath::Symlink(link, id) => {
                refuse_blob(odb, commit, *id, link.clone(), super::max_file())?;
            }
            AtPath::Missing | AtPath::Lacking(_) => {}
        }
    }
    Ok(())
}

/// Write the found paths into `dest`: a directory's tree whole, a symlink as the symlink it
/// is (unless something is at its path already).
fn write_found(repo: &Repository, dest: &Path, found: Found<'_>) -> Result<(), GitError> {
    for (p, at) in found {
        match at {
            AtPath::Tree(id) => {
                let depth = p.split('/').count();
                write_tree(repo, &repo.find_tree(id)?, &dest.join(p), depth)?;
            }
            AtPath::Symlink(link, id) => {
                let at = dest.join(link);
                if fs_err::symlink_metadata(&at).is_ok() {
                    continue;
                }
                if let Some(parent) = at.parent() {
                    fs_err::create_dir_all(parent)
                        .map_err(|e| git2::Error::from_str(&e.to_string()))?;
                }
                let blob = repo.find_blob(id)?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(
                    <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(blob.content()),
                    &at,
                )
                .map_err(|e| {
                    git2::Error::from_str(&format!("cannot write {}: {e}", at.display()))
                })?;
                #[cfg(not(unix))]
                let _ = blob;
            }
            AtPath::Missing | AtPath::Lacking(_) => {}
        }
    }
    Ok(())
}
