//! Walking a remote ref's history for a review: its date and the commits it adds.

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use git2::{AutotagOption, FetchOptions, Oid, Repository};

use super::credentials::{self, callbacks};
use super::refs::{connect, local_path, not_found};
use super::{GitError, cli, is_local, proxy_options, remote_error};
use crate::auth::Userinfo;

/// A ref as `update` reviews it: when it was made and the commits it adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walked {
    /// The 40-hex commit the ref names.
    pub commit: String,
    /// Unix seconds: an annotated tag's tagger date, else the commit's committer date.
    pub date: i64,
    /// The commits after `since` up to the ref, newest first, as (40-hex id, subject);
    /// at most `bound`.
    pub commits: Vec<(String, String)>,
    /// `commits` is all of them: the walk reached `since` within `bound` commits.
    pub complete: bool,
}

/// Read `reference` on `url` (`HEAD`, a full `refs/…` name, or a short name tried as a
/// tag, then a branch): its date and, with `since`, the commits after `since`, walking
/// at most `bound` commits. A local repository is only read; a remote's objects are
/// fetched (the tip only without `since`, else `bound` deep) into a scratch repository
/// in the temp directory, removed afterwards.
///
/// `path` (a monorepo plugin's subdirectory): only the commits that change it are listed
/// (a commit whose parent the fetch did not bring counts as changing it).
pub fn walk(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: &str,
    since: Option<&str>,
    bound: usize,
    path: Option<&str>,
    walks: &Walks,
) -> Result<Walked, GitError> {
    let candidates: Vec<String> = if reference == "HEAD" || reference.starts_with("refs/") {
        vec![reference.to_owned()]
    } else {
        vec![
            format!("refs/tags/{reference}"),
            format!("refs/heads/{reference}"),
        ]
    };
    let scratch;
    let (repo, tip) = if is_local(url) {
        let repo = Repository::open(local_path(url)).map_err(|error| GitError::Remote {
            url: url.to_owned(),
            error,
        })?;
        let tip = candidates.iter().find_map(|n| repo.refname_to_id(n).ok());
        (repo, tip)
    } else {
        cli::refuse_hostile(url)?;
        // A monorepo plugin's walk needs commits and trees, not the repository's files:
        // the git command fetches them without blobs (a server that does not filter sends
        // them anyway).
        if cli::wanted(url) || path.is_some() {
            let range = (since, bound, path);
            if let Some(done) = walk_with_git(url, userinfo, (reference, &candidates), range, walks)
            {
                return done;
            }
        }
        scratch = scratch_dir()?;
        let repo = Repository::init_bare(scratch.path())?;
        let mut remote = repo.remote_anonymous(url)?;
        let auth = Rc::default();
        let _scope = credentials::scope(url, userinfo, &auth);
        let mut conn = connect(&mut remote, url, userinfo, &auth)?;
        // The unpeeled ids: an annotated tag's own object carries its date.
        let heads: Vec<(String, Oid)> = conn
            .remote()
            .list()?
            .iter()
            .map(|h| (h.name().to_owned(), h.oid()))
            .collect();
        let found = candidates
            .iter()
            .find_map(|n| heads.iter().find(|(h, _)| h == n).cloned());
        if let Some((name, _)) = &found {
            let mut opts = FetchOptions::new();
            let depth = if since.is_some() {
                bound.saturating_add(1)
            } else {
                1
            };
            opts.download_tags(AutotagOption::None)
                .remote_callbacks(callbacks(url, userinfo, &auth))
                .proxy_options(proxy_options(url))
                .depth(i32::try_from(depth).unwrap_or(i32::MAX));
            conn.remote()
                .download(&[format!("+{name}:refs/remotes/walk/tip")], Some(&mut opts))
                .map_err(|source| remote_error(url, "downloading", source, &auth))?;
        }
        drop(conn);
        drop(remote);
        (repo, found.map(|(_, oid)| oid))
    };
    walked(&repo, url, reference, tip, since, bound, path)
}

/// [`walk`] with the git command: from a history this command fetched already (the
/// plugins of one repository walk one fetch: [`Walks`], and a dry run's monorepo fetch
/// brings the history its review walks), else fetched here; `None` when git cannot be run
/// and need not be.
fn walk_with_git(
    url: &str,
    userinfo: Option<&Userinfo>,
    (reference, candidates): (&str, &[String]),
    (since, bound, path): (Option<&str>, usize, Option<&str>),
    walks: &Walks,
) -> Option<Result<Walked, GitError>> {
    let depth = if since.is_some() {
        bound.saturating_add(1)
    } else {
        1
    };
    if let Some((kept, tip)) = super::shared::kept_history(url, userinfo, candidates, depth) {
        let kept = kept.lock().ok()?;
        let repo = Repository::open_bare(kept.path());
        return Some(
            repo.map_err(GitError::from)
                .and_then(|repo| walked(&repo, url, reference, Some(tip), since, bound, path)),
        );
    }
    let no_blobs = path.is_some();
    let key = (
        url.to_owned(),
        userinfo.map(|u| u.user.clone()),
        reference.to_owned(),
        depth,
        no_blobs,
    );
    // The plugins of one repository walk the history one fetch brought.
    if let Some((kept, tip)) = walks.get(&key) {
        let repo = Repository::open_bare(kept.0.path());
        return Some(
            repo.map_err(GitError::from)
                .and_then(|repo| walked(&repo, url, reference, tip, since, bound, path)),
        );
    }
    let made = scratch_dir().and_then(|dir| {
        let repo = Repository::init_bare(dir.path())?;
        Ok((dir, repo))
    });
    let (dir, repo) = match made {
        Ok(made) => made,
        Err(e) => return Some(Err(e)),
    };
    match cli::fetch_walk_tip(
        url,
        userinfo,
        candidates,
        depth,
        no_blobs,
        &repo,
        dir.path(),
    ) {
        Err(GitError::Cli(cli::CliError::NoGit { .. })) if !cli::wanted(url) => None,
        Err(e) => Some(Err(e)),
        Ok(tip) => {
            let done = walked(&repo, url, reference, tip, since, bound, path);
            drop(repo);
            walks.keep(key, dir, tip);
            Some(done)
        }
    }
}

/// A scratch directory for a walk's repository, in the temp directory.
fn scratch_dir() -> Result<tempfile::TempDir, GitError> {
    crate::scratch::dir("walk").map_err(|e| {
        git2::Error::from_str(&format!("cannot create a scratch repository: {e}")).into()
    })
}

/// What [`walk`] fetched in one command: the history of each remote and ref it walked,
/// kept until the command ends, so that the plugins of one repository (a monorepo's, in
/// `update --dry-run`) walk one fetch rather than one each (issue 43).
#[derive(Debug, Default)]
pub struct Walks(Mutex<HashMap<WalkKey, Kept>>);

/// (remote, credentials' user, ref, depth, without blobs).
type WalkKey = (String, Option<String>, String, usize, bool);

/// A fetched history: its scratch repository and the ref's id in it.
type Kept = Arc<(tempfile::TempDir, Option<Oid>)>;

impl Walks {
    fn get(&self, key: &WalkKey) -> Option<(Kept, Option<Oid>)> {
        let kept = self.0.lock().ok()?;
        let found = kept.get(key)?;
        Some((found.clone(), found.1))
    }

    fn keep(&self, key: WalkKey, dir: tempfile::TempDir, tip: Option<Oid>) {
        if let Ok(mut kept) = self.0.lock() {
            kept.insert(key, Arc::new((dir, tip)));
        }
    }
}

/// [`walk`] once `tip` (the ref's id, if the remote has it) is in `repo`.
fn walked(
    repo: &Repository,
    url: &str,
    reference: &str,
    tip: Option<Oid>,
    since: Option<&str>,
    bound: usize,
    path: Option<&str>,
) -> Result<Walked, GitError> {
    let tip = tip.ok_or_else(|| not_found(url, reference, &[]))?;
    let object = repo.find_object(tip, None)?;
    let commit = object
        .peel_to_commit()
        .map_err(|e| super::bad_object(url, tip, &e))?;
    let date = object
        .as_tag()
        .and_then(git2::Tag::tagger)
        .map_or(commit.committer().when().seconds(), |t| t.when().seconds());
    let mut walked = Walked {
        commit: commit.id().to_string(),
        date,
        commits: Vec::new(),
        complete: true,
    };
    let Some(since) = since else {
        return Ok(walked);
    };
    let since = Oid::from_str(since)?;
    let mut revwalk = repo.revwalk()?;
    revwalk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME)?;
    revwalk.push(commit.id())?;
    // In a shallow fetch `since` may be missing: the walk then stops at it or at the cut.
    let hidden = revwalk.hide(since).is_ok();
    // Complete when the walk reaches `since`, or runs out with `since` hidden; not when
    // it reaches the bound or the end of a shallow history.
    walked.complete = hidden;
    for oid in revwalk.by_ref() {
        let found = oid
            .ok()
            .and_then(|oid| Some((oid, repo.find_commit(oid).ok()?)));
        let Some((oid, c)) = found else {
            walked.complete = false;
            break;
        };
        if oid == since {
            walked.complete = true;
            break;
        }
        if walked.commits.len() == bound {
            walked.complete = false;
            break;
        }
        if path.is_some_and(|p| !changes(&c, p)) {
            continue;
        }
        let subject = String::from_utf8_lossy(c.summary_bytes().unwrap_or_default());
        walked.commits.push((oid.to_string(), subject.into_owned()));
    }
    Ok(walked)
}

/// Whether `commit` changes `path` (its entry differs from the first parent's); a commit
/// whose parent is not here (a shallow history's end) counts as changing it.
fn changes(commit: &git2::Commit<'_>, path: &str) -> bool {
    let at = |tree: git2::Tree<'_>| tree.get_path(Path::new(path)).ok().map(|e| e.id());
    let mine = commit.tree().ok().and_then(at);
    match commit.parent(0) {
        Ok(parent) => parent.tree().ok().and_then(at) != mine,
        Err(_) => commit.parent_count() > 0 || mine.is_some(),
    }
}
