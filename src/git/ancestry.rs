//! Whether a branch's new commit still contains the commit a lock pinned: a branch
//! force-pushed to another history is not an ordinary update (issue 39).
//!
//! The answer comes through the same transports an install fetches with: a local
//! repository is read in place; a remote's branch is fetched into a scratch repository
//! in the temp directory (with the git command where [`cli::wanted`] says so, and for a
//! monorepo's subdirectory where it can be run, as its install does; else with libgit2),
//! [`PROBE_DEPTH`] commits deep first, then in full when the old commit was not among them, as the impostor check probes ([`super::reach`]). A branch that moved on
//! normally costs one shallow fetch; only a rewritten history (or one that moved more than
//! [`PROBE_DEPTH`] commits) costs a full one.

use std::rc::Rc;

use git2::{AutotagOption, FetchOptions, Oid, Repository};

use super::credentials::{self, callbacks};
use super::reach::{PROBE_DEPTH, reachable_in};
use super::refs::{connect, local_path};
use super::{GitError, cli, is_local, proxy_options, remote_error};
use crate::auth::Userinfo;

/// Whether `new`, the commit `reference` (`HEAD` or a full `refs/heads/…` name) names on
/// `url`, is `old` or descends from it. A remote whose branch moved again since `new` was
/// listed answers from what it serves now. `partial`: the plugin is a monorepo's
/// subdirectory, whose fetches run the git command where it can be run (a partial clone):
/// so does this one.
pub fn branch_contains(
    url: &str,
    userinfo: Option<&Userinfo>,
    (reference, partial): (&str, bool),
    new: &str,
    old: &str,
) -> Result<bool, GitError> {
    let old = Oid::from_str(old)?;
    if Oid::from_str(new)? == old {
        return Ok(true);
    }
    let found = search(url, userinfo, (reference, partial), new, |repo, tips| {
        reachable_in(repo, old, tips).then_some(())
    })?;
    Ok(found.is_some())
}

/// The first of `candidates` (commits, best first) that the branch `reference` at `new`
/// contains and that contains `old`: a commit the branch still holds, on top of the
/// locked one (what a cooldown may take on a branch that moves faster than it). `None`
/// when no candidate is both.
pub fn newest_contained(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: &str,
    new: &str,
    candidates: &[String],
    old: &str,
) -> Result<Option<String>, GitError> {
    let old = Oid::from_str(old)?;
    let candidates: Vec<Oid> = candidates
        .iter()
        .filter_map(|c| Oid::from_str(c).ok())
        .filter(|c| *c != old)
        .collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    search(url, userinfo, (reference, false), new, |repo, tips| {
        candidates
            .iter()
            .find(|c| reachable_in(repo, **c, tips) && reachable_in(repo, old, &[**c]))
            .map(ToString::to_string)
    })
}

/// `found` asked of the history of `reference` at `new` on `url`: a local repository read
/// in place; a remote's branch fetched [`PROBE_DEPTH`] deep, then (no answer) in full.
/// `found` is given the repository and the tips to walk from.
fn search<T>(
    url: &str,
    userinfo: Option<&Userinfo>,
    (reference, partial): (&str, bool),
    new: &str,
    found: impl Fn(&Repository, &[Oid]) -> Option<T>,
) -> Result<Option<T>, GitError> {
    cli::refuse_hostile(url)?;
    let new = Oid::from_str(new)?;
    if is_local(url) {
        let repo = Repository::open(local_path(url)).map_err(|error| GitError::Remote {
            url: url.to_owned(),
            error,
        })?;
        return Ok(found(&repo, &[new]));
    }
    // As deep as the command walks the history (`update --dry-run`), when that is deeper.
    let first = super::shared::history()
        .and_then(|h| i32::try_from(h).ok())
        .map_or(PROBE_DEPTH, |h| h.max(PROBE_DEPTH));
    for depth in [Some(first), None] {
        let scratch = crate::scratch::dir("ancestry").map_err(|e| {
            git2::Error::from_str(&format!("cannot create a scratch repository: {e}"))
        })?;
        let repo = Repository::init_bare(scratch.path())?;
        log::debug!(
            "git: {url}: reading the history of {reference} at {new}: fetching it {}",
            depth.map_or_else(|| "in full".to_owned(), |d| format!("{d} deep"))
        );
        let at = (reference, partial, depth);
        let tip = fetch_branch(url, userinfo, at, &repo, scratch.path())?;
        let tips: Vec<Oid> = [Some(new), tip].into_iter().flatten().collect();
        let answer = found(&repo, &tips);
        if answer.is_some() || depth.is_none() {
            // A monorepo's install (or review) of `new` reads it from here (issue 43: one
            // fetch per repository and commit): its commits and trees came.
            if partial && repo.odb().is_ok_and(|odb| odb.exists(new)) {
                drop(repo);
                let depth = depth.map_or(usize::MAX, |d| usize::try_from(d).unwrap_or(1));
                super::shared::keep(url, userinfo, new, (depth, true), scratch);
            }
            return Ok(answer);
        }
    }
    Ok(None)
}

/// Fetch `reference` from `url`, `depth` commits deep (`None`: in full), into the bare
/// `repo` at `dir`; the id it named, when the fetch says. With the git command where
/// [`cli::wanted`] says so, or (`partial`) where it can be run.
fn fetch_branch(
    url: &str,
    userinfo: Option<&Userinfo>,
    (reference, partial, depth): (&str, bool, Option<i32>),
    repo: &Repository,
    dir: &std::path::Path,
) -> Result<Option<Oid>, GitError> {
    // The git command fetches commits and trees only, the branch asked for by the id the
    // listing gave it: one request (issue 43: libgit2 lists the refs again, then fetches
    // shallow in two).
    if partial || cli::wanted(url) {
        // git's own "infinite" depth: the whole history.
        let git_depth = depth.map_or(0x7fff_ffff, |d| usize::try_from(d).unwrap_or(1));
        let names = [reference.to_owned()];
        match cli::fetch_walk_tip(url, userinfo, &names, git_depth, true, repo, dir) {
            Err(GitError::Cli(cli::CliError::NoGit { .. })) if !cli::wanted(url) => {}
            done => return done,
        }
    }
    let mut remote = repo.remote_anonymous(url)?;
    let auth = Rc::default();
    let _scope = credentials::scope(url, userinfo, &auth);
    let mut conn = connect(&mut remote, url, userinfo, &auth)?;
    let listed = conn
        .remote()
        .list()?
        .iter()
        .find(|h| h.name() == reference)
        .map(|h| h.oid());
    if listed.is_none() {
        return Ok(None);
    }
    let mut opts = FetchOptions::new();
    opts.download_tags(AutotagOption::None)
        .remote_callbacks(callbacks(url, userinfo, &auth))
        .proxy_options(proxy_options(url));
    if let Some(depth) = depth {
        opts.depth(depth);
    }
    conn.remote()
        .download(
            &[format!("+{reference}:refs/remotes/ancestry/tip")],
            Some(&mut opts),
        )
        .map_err(|source| remote_error(url, "downloading", source, &auth))?;
    Ok(listed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// main: a → b → c; `side` on a; `other` a root of its own.
    #[test]
    fn what_a_branch_contains_is_read_from_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let sig = git2::Signature::new("t", "t@x", &git2::Time::new(0, 0)).unwrap();
        let tree = repo
            .find_tree(repo.treebuilder(None).unwrap().write().unwrap())
            .unwrap();
        let commit = |msg: &str, parents: &[Oid]| {
            let parents: Vec<git2::Commit<'_>> = parents
                .iter()
                .map(|p| repo.find_commit(*p).unwrap())
                .collect();
            let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
            repo.commit(None, &sig, &sig, msg, &tree, &refs).unwrap()
        };
        let a = commit("a", &[]);
        let b = commit("b", &[a]);
        let c = commit("c", &[b]);
        let side = commit("side", &[a]);
        let other = commit("other", &[]);
        let url = format!("file://{}", dir.path().display());
        let (a, b, c, side, other) = (
            a.to_string(),
            b.to_string(),
            c.to_string(),
            side.to_string(),
            other.to_string(),
        );
        let main = "refs/heads/main";
        assert!(branch_contains(&url, None, (main, false), &c, &a).unwrap());
        assert!(branch_contains(&url, None, (main, false), &c, &c).unwrap());
        assert!(!branch_contains(&url, None, (main, false), &other, &a).unwrap());
        assert!(!branch_contains(&url, None, (main, false), &c, &side).unwrap());
        // The newest candidate the branch holds on top of `a`: not `side` (off the branch),
        // not `a` itself.
        let found = newest_contained(&url, None, main, &c, &[side.clone(), b.clone()], &a);
        assert_eq!(found.unwrap(), Some(b.clone()));
        let none = newest_contained(&url, None, main, &c, &[side, a.clone(), other], &a);
        assert_eq!(none.unwrap(), None);
        // A candidate below the locked commit is no update.
        assert_eq!(
            newest_contained(&url, None, main, &c, &[a], &b).unwrap(),
            None
        );
    }
}
