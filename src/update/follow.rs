//! aoe's latest-release following and monorepo subdirectories that did not change.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{Check, LockRows, Status, bounded};
use crate::dialect::Dialect;
use crate::git::{self, RefKind};
use crate::lock::Entry;
use crate::store::Home;

/// aoe's refusal to update a `gh:owner/repo` that follows the latest release, and has none:
/// its message, code and way out are written once, here.
#[derive(Debug, thiserror::Error)]
#[error("{owner}/{repo} has no published release to update to; the prior version is kept")]
pub struct NoRelease {
    owner: String,
    repo: String,
}

impl crate::refusal::NamedRefusal for NoRelease {
    fn code(&self) -> crate::diagnostic::Code {
        crate::diagnostic::Code::UpdateNoRelease
    }

    fn help(&self) -> Option<String> {
        let NoRelease { owner, repo } = self;
        Some(format!(
            "aoe updates `gh:{owner}/{repo}` only to its latest release; to follow a branch, reinstall it as `gh:{owner}/{repo}@<branch>`"
        ))
    }
}

impl From<NoRelease> for crate::install::InstallError {
    fn from(r: NoRelease) -> Self {
        crate::install::InstallError::Named(Box::new(r))
    }
}

/// aoe §17: `gh:owner/repo` without a ref means the latest published release, and aoe's
/// update of such a plugin goes to it: `None` when `entry` does not follow the latest
/// release (another host, another source, an explicit ref, a commit pin). Otherwise what
/// the update does instead of following the default branch: `Behind` the latest release's
/// tag (at the commit `refs` names, the remote's ref list), `UpToDate` at it, or the
/// refusal aoe words as `{owner}/{repo} has no published release to update to; the prior
/// version is kept` (nothing changes).
pub fn latest_release(
    entry: &Entry,
    dialect: crate::dialect::Dialect,
    github_api: &str,
    refs: impl FnOnce() -> Result<Vec<(String, String)>, crate::git::GitError>,
) -> Option<Result<Status, crate::install::InstallError>> {
    let (owner, repo) = aoe_release_follower(entry, dialect)?;
    let tag = match crate::release::latest_tag(github_api, &owner, &repo) {
        Ok(Some(tag)) => tag,
        Ok(None) => {
            return Some(Err(NoRelease { owner, repo }.into()));
        }
        Err(e) => return Some(Err(e.into())),
    };
    let refs = match refs() {
        Ok(r) => r,
        Err(e) => {
            return Some(Ok(Status::Error {
                message: e.to_string(),
            }));
        }
    };
    let find = |name: String| {
        refs.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.clone())
    };
    let commit = find(format!("refs/tags/{tag}^{{}}")).or_else(|| find(format!("refs/tags/{tag}")));
    Some(Ok(match commit {
        None => Status::Error {
            message: format!("the latest release's tag `{tag}` is not on the remote"),
        },
        Some(c) if entry.commit.as_deref() == Some(c.as_str()) => Status::UpToDate,
        Some(c) => Status::Behind {
            new_ref: tag,
            commit: c,
        },
    }))
}

/// [`latest_release`] for every check that is `Behind` or `UpToDate`: its status becomes
/// the release's, and a refusal becomes `Error` (returned too, by home root and id, with
/// its code). The release lookups run in the update checks' bounded pool (`jobs`, at most
/// [`git::host_limit`] per server, each abandoned at `timeout`).
pub(super) fn follow_latest_releases(
    checks: &mut [(Home, Check)],
    gh_base: &str,
    github_api: &str,
    jobs: usize,
    timeout: Duration,
) -> HashMap<(PathBuf, String), crate::install::InstallError> {
    let mut rows = LockRows::default();
    let mut work = Vec::new();
    for (i, (home, c)) in checks.iter().enumerate() {
        let dialect = &home.dialect;
        if !matches!(c.status, Status::Behind { .. } | Status::UpToDate) {
            continue;
        }
        let Some(entry) = row_of(&mut rows, home, c) else {
            continue;
        };
        if aoe_release_follower(&entry, *dialect).is_none() {
            continue;
        }
        let Ok(crate::source::Source::Git { url, userinfo, .. }) =
            crate::source::Source::of_entry(&entry, gh_base)
        else {
            continue;
        };
        work.push((i, (url, userinfo, entry, *dialect)));
    }
    if work.is_empty() {
        return HashMap::new();
    }
    let api = github_api.to_owned();
    let followed = bounded(
        work,
        &|(url, ..): &Follow| url.as_str(),
        // Each asks the GitHub API.
        jobs.min(super::API_JOBS),
        timeout,
        Arc::new(move |(url, userinfo, entry, dialect): Follow| {
            let refs = || git::ls_remote(&url, userinfo.as_ref());
            latest_release(&entry, dialect, &api, refs)
        }),
    );
    let mut refused = HashMap::new();
    for (i, found) in followed {
        let (home, c) = &mut checks[i];
        match found {
            Some(None) => {}
            Some(Some(Ok(status))) => c.status = status,
            Some(Some(Err(e))) => {
                c.status = Status::Error {
                    message: e.to_string(),
                };
                refused.insert((home.root.clone(), c.id.clone()), e);
            }
            None => {
                c.status = Status::Error {
                    message: format!(
                        "looking up the latest release of {} timed out after {} s",
                        c.source,
                        timeout.as_secs()
                    ),
                }
            }
        }
    }
    refused
}

/// The lock row a check was made for: the one it carries ([`Check::row`]), else the lock's
/// (read once per lock).
fn row_of(rows: &mut LockRows, home: &Home, c: &Check) -> Option<Entry> {
    match c.row.as_deref() {
        Some(entry) => Some(entry.clone()),
        None => rows.get(home, &c.id).ok().flatten(),
    }
}

/// A monorepo plugin found newer whose subdirectory did not change: the ref and commit the
/// repository moved to, and the subdirectory.
#[derive(Clone, Debug, Default)]
pub struct Unchanged {
    pub new_ref: String,
    pub commit: String,
    pub subdir: String,
}

/// A release lookup's input: the remote, its credentials, the lock row and its host.
type Follow = (String, Option<crate::auth::Userinfo>, Entry, Dialect);

/// Monorepo plugins (a locked `subdir`) that a check found `Behind` are newer only when
/// their subdirectory changed: the new commit is fetched (depth 1, into a temp directory)
/// and its subdirectory hashed as an install hashes it, at most `jobs` (and 8) at a time and
/// [`git::host_limit`] per server. Those whose subdirectory is the same become `UpToDate`;
/// returned by home root and id, with the ref and commit the repository moved to (`update`
/// moves the lock's pin there without reinstalling). A fetch that fails leaves the check `Behind` (the
/// update's own fetch reports it).
pub(super) fn unchanged_subdirs(
    checks: &mut [(Home, Check)],
    gh_base: &str,
    jobs: usize,
) -> HashMap<(PathBuf, String), Unchanged> {
    let mut rows = LockRows::default();
    let mut work = Vec::new();
    for (i, (home, c)) in checks.iter().enumerate() {
        let dialect = &home.dialect;
        let Status::Behind { commit, new_ref } = &c.status else {
            continue;
        };
        let Some(entry) = row_of(&mut rows, home, c) else {
            continue;
        };
        // aoe's config.toml names the ref: a new tag is an update even with the same files.
        if crate::host::install_policy(*dialect).ref_in_host_config
            && *new_ref != entry.requested_ref
        {
            continue;
        }
        if let Some(job) = subdir_job(entry, commit, gh_base) {
            work.push((i, job));
        }
    }
    let mut out = HashMap::new();
    if work.is_empty() {
        return out;
    }
    let groups = by_repository(work);
    // Fetches move objects, not ref lists: at most 8 at once, as `sync` and `update`; each
    // is bounded by the transfer's own no-progress limit, not the checks' `--timeout`.
    let same = bounded(
        groups,
        &|group: &Vec<(usize, Subdir)>| group[0].1.url.as_str(),
        jobs.min(8),
        Duration::MAX,
        Arc::new(unchanged),
    );
    for (i, found) in same.into_iter().filter_map(|(_, r)| r).flatten() {
        let (home, c) = &mut checks[i];
        let (Some(subdir), Status::Behind { commit, new_ref }) = (found, &c.status) else {
            continue;
        };
        log::debug!("{}: {subdir} is the same at {commit}", c.id);
        let unchanged = Unchanged {
            new_ref: new_ref.clone(),
            commit: commit.clone(),
            subdir,
        };
        out.insert((home.root.clone(), c.id.clone()), unchanged);
        c.status = Status::UpToDate;
    }
    out
}

/// The comparison a `Behind` row at `commit` asks for: `None` for a row that is not a
/// monorepo's with a locked tree hash, or whose source or subdirectory cannot be fetched.
fn subdir_job(entry: Entry, commit: &str, gh_base: &str) -> Option<Subdir> {
    let (Some(subdir), false) = (entry.subdir.clone(), entry.tree_hash.is_empty()) else {
        return None;
    };
    let Ok(crate::source::Source::Git { url, userinfo, .. }) =
        crate::source::Source::of_entry(&entry, gh_base)
    else {
        return None;
    };
    let rel = crate::name::relative_path(&subdir)?;
    Some(Subdir {
        url,
        userinfo,
        commit: commit.to_owned(),
        subdir,
        rel,
        tree_hash: entry.tree_hash,
    })
}

/// One fetch per repository and commit: the rows of one monorepo at one commit are
/// compared from the same fetched subdirectories.
fn by_repository(work: Vec<(usize, Subdir)>) -> Vec<(usize, Vec<(usize, Subdir)>)> {
    let mut groups: Vec<(usize, Vec<(usize, Subdir)>)> = Vec::new();
    let mut group_of: HashMap<(String, Option<String>, String), usize> = HashMap::new();
    for (i, job) in work {
        let key = (
            job.url
                .trim_end_matches('/')
                .trim_end_matches(".git")
                .to_owned(),
            job.userinfo.as_ref().map(|u| u.user.clone()),
            job.commit.clone(),
        );
        let g = *group_of.entry(key).or_insert_with(|| {
            groups.push((groups.len(), Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push((i, job));
    }
    groups
}

/// One monorepo row to compare: its subdirectory at the new commit against the locked hash.
struct Subdir {
    url: String,
    userinfo: Option<crate::auth::Userinfo>,
    commit: String,
    subdir: String,
    rel: PathBuf,
    tree_hash: String,
}

/// The rows of one repository at one commit, each with its subdirectory when that hashes
/// the same at the commit (a failure: not the same). One fetch of their subdirectories.
fn unchanged(group: Vec<(usize, Subdir)>) -> Vec<(usize, Option<String>)> {
    let not_same =
        |group: Vec<(usize, Subdir)>| group.into_iter().map(|(i, _)| (i, None)).collect();
    let Ok(tmp) = crate::scratch::dir("follow") else {
        return not_same(group);
    };
    let repo = tmp.path().join("repo");
    let first = &group[0].1;
    let subdirs: Vec<String> = group.iter().map(|(_, j)| j.subdir.clone()).collect();
    if let Err(e) = git::fetch_subdirs(
        &first.url,
        first.userinfo.as_ref(),
        Some(&first.commit),
        None,
        &subdirs,
        &repo,
        &mut |_| {},
    ) {
        log::debug!(
            "cannot fetch {} to compare {}: {e}",
            first.commit,
            subdirs.join(", ")
        );
        return not_same(group);
    }
    let real_repo = fs_err::canonicalize(&repo).ok();
    group
        .into_iter()
        .map(|(i, job)| {
            let dir = repo.join(&job.rel);
            // Inside the fetched tree, through no symlink.
            let inside = fs_err::canonicalize(&dir)
                .ok()
                .zip(real_repo.as_ref())
                .is_some_and(|(d, r)| d == r.join(&job.rel));
            let same =
                inside && dir.is_dir() && crate::hash::tree(&dir).is_ok_and(|h| h == job.tree_hash);
            (i, same.then_some(job.subdir))
        })
        .collect()
}

/// `(owner, repo)` of an aoe `gh:owner/repo` entry installed without a ref, which follows
/// the latest release (it came from the default branch when there was none).
fn aoe_release_follower(
    entry: &Entry,
    dialect: crate::dialect::Dialect,
) -> Option<(String, String)> {
    if !crate::host::install_policy(dialect).follows_gh_releases
        || !entry.requested_ref.is_empty()
        || !matches!(entry.ref_kind, None | Some(RefKind::Default))
        || entry.commit.is_none()
    {
        return None;
    }
    let rest = entry.source.strip_prefix("gh:")?;
    let mut parts = rest.split('/');
    let (owner, repo) = (parts.next()?, parts.next()?);
    (!owner.is_empty() && !repo.is_empty()).then(|| (owner.to_owned(), repo.to_owned()))
}
