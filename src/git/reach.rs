//! Impostor commits: a commit no branch or tag of the remote contains is refused.
//!
//! A forge that shares objects between a repository and its forks (GitHub serves
//! every fork's commits through the parent's URL, and any server with
//! `uploadpack.allowAnySHA1InWant` serves unreferenced ones) hands out a commit by
//! its id whoever pushed it; the lock would then name the parent repository for
//! code its owners never published. So after every remote fetch the commit must be
//! reachable from a branch or tag tip the server advertised: a tip itself costs
//! nothing; otherwise what the fetch brought is walked, then the branches are
//! fetched [`PROBE_DEPTH`] deep into a scratch repository, and last every branch
//! and tag in full (at most what a server that refuses fetching by id costs
//! anyway). A local repository is the user's own and is not checked.

use std::collections::HashSet;
use std::path::Path;

use git2::{Oid, Repository};

use super::{GitError, scratch_repo};

/// How deep the branches are fetched first to find a commit below their tips.
pub(super) const PROBE_DEPTH: i32 = 100;

/// The most commits walked in one repository (a full fetch of a very large one).
const MAX_WALK: usize = 2_000_000;

/// Whether a ref name is a branch or a tag (not `HEAD`, a pull request's
/// `refs/pull/…`, a review's `refs/changes/…` or notes).
fn is_published(name: &str) -> bool {
    name.starts_with("refs/heads/") || name.starts_with("refs/tags/")
}

/// The refspecs of a probe: the branches only when it is shallow, else the branches
/// and the tags.
pub(super) fn probe_refspecs(depth: Option<i32>) -> &'static [&'static str] {
    if depth.is_some() {
        &["+refs/heads/*:refs/remotes/origin/*"]
    } else {
        &[
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
        ]
    }
}

/// The advertised branch and tag tips (annotated tags peeled).
fn listed(refs: &[(String, Oid)]) -> impl Iterator<Item = Oid> + '_ {
    refs.iter()
        .filter(|(n, _)| is_published(n))
        .map(|(_, oid)| *oid)
}

/// The tips to walk from in `repo`: the advertised branch and tag tips it holds, and
/// its own branch and tag refs (a ref that moved since it was listed).
fn tips(repo: &Repository, refs: &[(String, Oid)]) -> Vec<Oid> {
    let mut tips: Vec<Oid> = listed(refs).collect();
    if let Ok(all) = repo.references() {
        for r in all.flatten() {
            let fetched = r.name().is_ok_and(|n| {
                n.starts_with("refs/remotes/origin/")
                    || n.starts_with("refs/tags/")
                    || n.starts_with("refs/heads/")
            });
            if fetched && let Ok(c) = r.peel_to_commit() {
                tips.push(c.id());
            }
        }
    }
    tips
}

/// Whether `target` is one of `tips` or an ancestor of one, among the commits `repo`
/// holds: a missing commit (the cut of a shallow fetch) ends its path.
pub(super) fn reachable_in(repo: &Repository, target: Oid, tips: &[Oid]) -> bool {
    let mut seen: HashSet<Oid> = HashSet::new();
    let mut todo: Vec<Oid> = tips.to_vec();
    while let Some(oid) = todo.pop() {
        if oid == target {
            return true;
        }
        if seen.len() >= MAX_WALK || !seen.insert(oid) {
            continue;
        }
        // A shallow commit's parents are not there: reading them fails. The parents are
        // read from the raw object, so that a commit whose dates do not parse (which
        // `find_commit` refuses) does not hide the commits below it.
        todo.extend(parents(repo, oid).into_iter().filter(|p| !seen.contains(p)));
    }
    false
}

/// The parents a commit object names (its `parent` header lines); none when it is missing
/// or no commit.
fn parents(repo: &Repository, oid: Oid) -> Vec<Oid> {
    let Ok(odb) = repo.odb() else {
        return Vec::new();
    };
    let Ok(object) = odb.read(oid) else {
        return Vec::new();
    };
    if object.kind() != git2::ObjectType::Commit {
        return Vec::new();
    }
    object
        .data()
        .split(|b| *b == b'\n')
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.strip_prefix(b"parent "))
        .filter_map(|hex| std::str::from_utf8(hex).ok())
        .filter_map(|hex| Oid::from_str(hex.trim()).ok())
        .collect()
}

/// Refuse `commit` unless a branch or tag `refs` (the server's advertisement) lists
/// contains it. `repo` holds what the fetch brought; `complete`: every branch and
/// tag in full, so nothing more is fetched. `probe` fetches [`probe_refspecs`] at a
/// depth (`None`: in full) into a fresh repository beside `dest`.
pub(super) fn ensure_published(
    url: &str,
    refs: &[(String, Oid)],
    commit: Oid,
    repo: &Repository,
    complete: bool,
    dest: &Path,
    mut probe: impl FnMut(&Repository, &Path, Option<i32>) -> Result<(), GitError>,
) -> Result<(), GitError> {
    if listed(refs).any(|t| t == commit) || reachable_in(repo, commit, &tips(repo, refs)) {
        return Ok(());
    }
    if !complete {
        for depth in [Some(PROBE_DEPTH), None] {
            let (scratch, probed) = scratch_repo(dest)?;
            log::debug!(
                "git: {url}: {commit} is no branch or tag tip: fetching {} to look for it",
                match depth {
                    Some(d) => format!("the branches {d} deep"),
                    None => "every branch and tag".to_owned(),
                }
            );
            probe(&probed, scratch.path(), depth)?;
            if reachable_in(&probed, commit, &tips(&probed, refs)) {
                return Ok(());
            }
        }
    }
    Err(GitError::Impostor {
        url: url.to_owned(),
        commit: commit.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_branches_and_tags_publish() {
        assert!(is_published("refs/heads/main"));
        assert!(is_published("refs/tags/v1"));
        for n in [
            "HEAD",
            "refs/pull/1/head",
            "refs/changes/01/1/1",
            "refs/notes/x",
        ] {
            assert!(!is_published(n), "{n}");
        }
    }

    #[test]
    fn a_commit_off_every_tip_is_not_reachable() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let sig = git2::Signature::new("t", "t@x", &git2::Time::new(0, 0)).unwrap();
        let tree = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let a = repo.commit(None, &sig, &sig, "a", &tree, &[]).unwrap();
        let ca = repo.find_commit(a).unwrap();
        let b = repo.commit(None, &sig, &sig, "b", &tree, &[&ca]).unwrap();
        let side = repo
            .commit(None, &sig, &sig, "side", &tree, &[&ca])
            .unwrap();
        assert!(reachable_in(&repo, a, &[b]));
        assert!(reachable_in(&repo, b, &[b]));
        assert!(!reachable_in(&repo, side, &[b]));
        // A tip the repository lacks ends there.
        assert!(!reachable_in(&repo, a, &[Oid::ZERO_SHA1]));
    }
}
