//! Update checks: compare each locked plugin with what its remote now offers,
//! listing refs only (no objects fetched), in parallel with a bounded pool.
//!
//! Rules (spec `protoagent.md` §6, `aoe.md` §17):
//! * a commit pin is never updated and never queried;
//! * a branch (or the default branch) compares the remote head with the locked commit;
//! * a release tag `v?X.Y.Z` moves to the greatest release tag above it (`v` and bare
//!   tags compared together, annotated tags peeled, never a downgrade, pre-releases
//!   only with `pre`); with none newer, it checks whether the tag itself moved;
//! * any other tag checks whether it moved.

use std::sync::mpsc;
use std::time::Duration;

use crate::git::{self, RefKind};
use crate::lock::Entry;

/// What a check found for one plugin.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// A commit pin: never updated.
    Pinned,
    /// Installed from a local directory: nothing to query.
    Local,
    UpToDate,
    /// Newer: install `new_ref` at `commit`.
    Behind {
        new_ref: String,
        commit: String,
    },
    /// Newer, but younger than the home's cooldown: not taken yet.
    HeldBack {
        new_ref: String,
        commit: String,
        /// When the newer version was made (the tag's or the commit's date), RFC 3339.
        released_at: String,
        /// Seconds until it is old enough.
        left_secs: u64,
        cooldown_secs: u64,
    },
    /// The remote could not be checked; other plugins are unaffected.
    Error {
        message: String,
    },
    /// protoAgent 0.218: a plugin bundled with the host supersedes this source, so the
    /// host ignores the installed copy and its update check answers `superseded: true`
    /// without asking the remote (`protoagent-0218.md` §6).
    Superseded {
        /// The bundled plugin's id and version.
        by: String,
        bundled_version: String,
    },
}

/// One plugin's check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    pub id: String,
    pub source: String,
    pub requested_ref: String,
    pub ref_kind: Option<RefKind>,
    pub current: Option<String>,
    #[serde(flatten)]
    pub status: Status,
}

/// A release version from a tag name (`v1.2.3` or `1.2.3`); pre-releases only when `pre`.
pub fn release(tag: &str, pre: bool) -> Option<semver::Version> {
    let v = semver::Version::parse(tag.strip_prefix('v').unwrap_or(tag)).ok()?;
    (v.build.is_empty() && (pre || v.pre.is_empty())).then_some(v)
}

/// Decide from the remote's refs (`refs/...` name, 40-hex commit).
pub fn decide(entry: &Entry, refs: &[(String, String)], pre: bool) -> Status {
    let current = entry.commit.clone().unwrap_or_default();
    let find = |name: &str| refs.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone());
    let compare = |new_ref: &str, latest: Option<String>| match latest {
        None => Status::Error {
            message: format!("the remote no longer has `{new_ref}`"),
        },
        Some(c) if c == current => Status::UpToDate,
        Some(c) => Status::Behind {
            new_ref: new_ref.to_owned(),
            commit: c,
        },
    };
    match entry.ref_kind {
        Some(RefKind::Commit) => Status::Pinned,
        None if entry.commit.is_none() => Status::Local,
        // A lock the host wrote records no ref kind: the remote's refs say what the ref is.
        None => match infer_kind(&entry.requested_ref, refs) {
            Some(kind) => decide(
                &Entry {
                    ref_kind: Some(kind),
                    ..entry.clone()
                },
                refs,
                pre,
            ),
            None => Status::Error {
                message: format!("the remote has no branch or tag `{}`", entry.requested_ref),
            },
        },
        Some(RefKind::Default) => compare("", find("HEAD")),
        Some(RefKind::Branch) => compare(
            &entry.requested_ref,
            find(&format!("refs/heads/{}", entry.requested_ref)),
        ),
        Some(RefKind::Tag) => {
            let r = &entry.requested_ref;
            if let Some(mine) = release(r, true) {
                let newest = refs
                    .iter()
                    .filter_map(|(n, c)| {
                        let tag = n.strip_prefix("refs/tags/")?;
                        Some((release(tag, pre)?, tag, c))
                    })
                    .filter(|(v, _, _)| *v > mine)
                    .max_by(|a, b| a.0.cmp(&b.0));
                if let Some((_, tag, commit)) = newest {
                    return Status::Behind {
                        new_ref: tag.to_owned(),
                        commit: commit.clone(),
                    };
                }
            }
            compare(r, find(&format!("refs/tags/{r}")))
        }
    }
}

/// What a requested ref is among a remote's refs: a tag before a branch, as git resolves
/// it; the default branch when empty; a commit when 40-hex and no ref has that name.
pub fn infer_kind(requested: &str, refs: &[(String, String)]) -> Option<RefKind> {
    if requested.is_empty() {
        return Some(RefKind::Default);
    }
    let has = |name: String| refs.iter().any(|(n, _)| *n == name);
    if has(format!("refs/tags/{requested}")) {
        Some(RefKind::Tag)
    } else if has(format!("refs/heads/{requested}")) {
        Some(RefKind::Branch)
    } else if crate::lock::is_commit(requested) {
        Some(RefKind::Commit)
    } else {
        None
    }
}

/// Check every entry, at most `jobs` remotes at a time, each within `timeout`.
/// `url_of` turns a lock entry's source into a fetchable URL.
pub fn check_all(
    entries: &[Entry],
    jobs: usize,
    timeout: Duration,
    pre: bool,
    url_of: &(dyn Fn(&Entry) -> Option<String> + Sync),
) -> Vec<Check> {
    let check = |e: &Entry, status: Status| Check {
        id: e.id.clone(),
        source: e.source.clone(),
        requested_ref: e.requested_ref.clone(),
        ref_kind: e.ref_kind,
        current: e.commit.clone(),
        status,
    };
    let mut results: Vec<Option<Check>> = vec![None; entries.len()];
    let mut queue: Vec<(usize, &Entry, String)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match (e.ref_kind, url_of(e)) {
            (Some(RefKind::Commit), _) => results[i] = Some(check(e, Status::Pinned)),
            (None, _) if e.commit.is_none() => results[i] = Some(check(e, Status::Local)),
            (_, None) => results[i] = Some(check(e, Status::Local)),
            (_, Some(url)) => queue.push((i, e, url)),
        }
    }
    let urls: Vec<(usize, String)> = queue.iter().map(|(i, _, u)| (*i, u.clone())).collect();
    let work = queue
        .into_iter()
        .map(|(i, e, url)| (i, (e.clone(), url)))
        .collect();
    let listed = bounded(
        work,
        &|(_, url): &(Entry, String)| url.as_str(),
        jobs,
        timeout,
        std::sync::Arc::new(move |(entry, url): (Entry, String)| {
            match git::ls_remote(&url, None) {
                Ok(refs) => decide(&entry, &refs, pre),
                Err(e) => Status::Error {
                    message: e.to_string(),
                },
            }
        }),
    );
    for (i, status) in listed {
        let status = status.unwrap_or_else(|| {
            let url = urls.iter().find(|(j, _)| *j == i).map(|(_, u)| u.as_str());
            Status::Error {
                message: format!(
                    "listing {} timed out after {} s",
                    url.unwrap_or_default(),
                    timeout.as_secs()
                ),
            }
        });
        results[i] = Some(check(&entries[i], status));
    }
    results.into_iter().flatten().collect()
}

/// Run `work` on each item on its own thread, at most `jobs` at a time and at most
/// [`git::host_limit`] at a time per server (`url` names an item's remote), each
/// abandoned at `timeout` (its result is then `None`), so a hung remote never holds up
/// the rest. A server at its limit lets later items of other servers go first.
fn bounded<T, R>(
    items: Vec<(usize, T)>,
    url: &dyn Fn(&T) -> &str,
    jobs: usize,
    timeout: Duration,
    work: std::sync::Arc<dyn Fn(T) -> R + Send + Sync>,
) -> Vec<(usize, Option<R>)>
where
    T: Send + 'static,
    R: Send + 'static,
{
    let (done_tx, done_rx) = mpsc::channel::<(usize, Option<R>)>();
    let mut pending: std::collections::VecDeque<(usize, T, String, usize)> = items
        .into_iter()
        .map(|(i, item)| {
            let (key, limit) = git::host_limit(url(&item));
            (i, item, key, limit)
        })
        .collect();
    let mut per_host: std::collections::HashMap<String, usize> = Default::default();
    let mut host_of: std::collections::HashMap<usize, String> = Default::default();
    let mut running = 0;
    let spawn = |i: usize, item: T, tx: mpsc::Sender<(usize, Option<R>)>| {
        let work = work.clone();
        std::thread::spawn(move || {
            let (tx1, rx1) = mpsc::channel();
            std::thread::spawn(move || {
                let _ = tx1.send(work(item));
            });
            let _ = tx.send((i, rx1.recv_timeout(timeout).ok()));
        });
    };
    let mut out = Vec::new();
    loop {
        while running < jobs.max(1) {
            let ready = pending
                .iter()
                .position(|(_, _, key, limit)| per_host.get(key).copied().unwrap_or(0) < *limit);
            let Some((i, item, key, _)) = ready.and_then(|p| pending.remove(p)) else {
                break;
            };
            *per_host.entry(key.clone()).or_default() += 1;
            host_of.insert(i, key);
            spawn(i, item, done_tx.clone());
            running += 1;
        }
        if running == 0 {
            break;
        }
        let Ok(done) = done_rx.recv() else {
            break;
        };
        running -= 1;
        if let Some(n) = host_of.get(&done.0).and_then(|k| per_host.get_mut(k)) {
            *n -= 1;
        }
        out.push(done);
    }
    out
}

/// Run `work` on each item, at most `jobs` at a time, and yield the results in the
/// items' order as they become ready: the caller handles the first while the next ones
/// are still running (`sync` and `update --all` fetch ahead and install in lock order).
/// Dropping the iterator early lets the running items finish and starts no more.
pub fn ordered<T, R>(
    items: Vec<T>,
    jobs: usize,
    work: impl Fn(T) -> R + Send + Sync + 'static,
) -> impl Iterator<Item = R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    ordered_per_host(items, |_: &T| None, jobs, work)
}

/// An item's server key and its limit ([`git::host_limit`]); `None`: not a remote.
type Server = Option<(String, usize)>;

/// Which item a worker takes next: the first whose server is under its limit.
struct Slots<T> {
    pending: std::collections::VecDeque<(usize, T, Server)>,
    per_host: std::collections::HashMap<String, usize>,
}

impl<T> Slots<T> {
    fn take(&mut self) -> Option<(usize, T, Option<String>)> {
        let per_host = &self.per_host;
        let p = self.pending.iter().position(|(_, _, host)| {
            host.as_ref()
                .is_none_or(|(key, limit)| per_host.get(key).copied().unwrap_or(0) < *limit)
        })?;
        let (i, item, host) = self.pending.remove(p)?;
        let key = host.map(|(key, _)| key);
        if let Some(key) = &key {
            *self.per_host.entry(key.clone()).or_default() += 1;
        }
        Some((i, item, key))
    }
}

/// Gives an item's server slot back, and wakes the waiting workers, when dropped.
struct Release<'a, T> {
    slots: &'a (std::sync::Mutex<Slots<T>>, std::sync::Condvar),
    key: Option<String>,
}

impl<T> Drop for Release<'_, T> {
    fn drop(&mut self) {
        let (lock, wake) = self.slots;
        if let (Some(key), Ok(mut s)) = (self.key.take(), lock.lock())
            && let Some(n) = s.per_host.get_mut(&key)
        {
            *n -= 1;
        }
        wake.notify_all();
    }
}

/// [`ordered`], with at most [`git::host_limit`] items at a time per server (`url` names
/// an item's remote; `None`: not a remote). A server at its limit lets later items of
/// other servers go first; the results still come in the items' order.
pub fn ordered_per_host<T, R>(
    items: Vec<T>,
    url: impl Fn(&T) -> Option<String>,
    jobs: usize,
    work: impl Fn(T) -> R + Send + Sync + 'static,
) -> impl Iterator<Item = R>
where
    T: Send + 'static,
    R: Send + 'static,
{
    use std::sync::{Arc, Condvar, Mutex};
    let total = items.len();
    let pending = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let host = url(&item).map(|u| git::host_limit(&u));
            (i, item, host)
        })
        .collect();
    let slots = Arc::new((
        Mutex::new(Slots {
            pending,
            per_host: Default::default(),
        }),
        Condvar::new(),
    ));
    let work = Arc::new(work);
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    for _ in 0..jobs.max(1).min(total) {
        let (slots, work, tx) = (slots.clone(), work.clone(), tx.clone());
        std::thread::spawn(move || {
            let (lock, wake) = &*slots;
            loop {
                let next = {
                    let Ok(mut s) = lock.lock() else { break };
                    loop {
                        if s.pending.is_empty() {
                            break None;
                        }
                        if let Some(next) = s.take() {
                            break Some(next);
                        }
                        // Every pending item's server is at its limit: wait for a release.
                        match wake.wait(s) {
                            Ok(g) => s = g,
                            Err(_) => return,
                        }
                    }
                };
                let Some((i, item, key)) = next else {
                    wake.notify_all();
                    break;
                };
                // The server's slot is given back even if `work` panics, so that workers
                // waiting for it do not wait forever.
                let done = Release { slots: &slots, key };
                let sent = tx.send((i, work(item)));
                drop(done);
                if sent.is_err() {
                    break;
                }
            }
        });
    }
    drop(tx);
    let mut ready = std::collections::BTreeMap::new();
    let mut next = 0;
    std::iter::from_fn(move || {
        if next == total {
            return None;
        }
        while !ready.contains_key(&next) {
            let (i, r) = rx.recv().ok()?;
            ready.insert(i, r);
        }
        next += 1;
        ready.remove(&(next - 1))
    })
}

/// The ref whose date says how old a newer version is: the new tag, the branch, or the
/// remote's HEAD; a short name (a lock the host wrote) is tried as a tag, then a branch.
fn dated_ref(c: &Check, new_ref: &str) -> String {
    match c.ref_kind {
        _ if new_ref.is_empty() => "HEAD".to_owned(),
        Some(RefKind::Tag) => format!("refs/tags/{new_ref}"),
        Some(RefKind::Branch) => format!("refs/heads/{new_ref}"),
        _ => new_ref.to_owned(),
    }
}

/// Hold back newer versions younger than their home's cooldown (seconds; 0: none). Each
/// such row reads its new version's date (the tip only is fetched), at most `jobs` at a
/// time, each within `timeout`; a date that cannot be read fails the row's check.
pub fn hold_back(
    checks: &mut [(crate::store::Home, crate::manifest::Dialect, Check)],
    cooldown: &dyn Fn(&crate::store::Home) -> u64,
    jobs: usize,
    timeout: Duration,
    gh_base: &str,
) {
    let now = i64::try_from(crate::clock::now_secs()).unwrap_or(i64::MAX);
    let mut work = Vec::new();
    for (i, (home, _, c)) in checks.iter().enumerate() {
        let Status::Behind { new_ref, .. } = &c.status else {
            continue;
        };
        let secs = cooldown(home);
        if secs == 0 {
            continue;
        }
        let remote = if c.source.starts_with("gh:") {
            crate::source::parse(&c.source, None, gh_base).ok()
        } else {
            let (url, userinfo) = crate::auth::split_userinfo(&c.source);
            Some(crate::source::Source::Git {
                display: url.clone(),
                url,
                reference: None,
                userinfo,
                subdir: None,
            })
        };
        if let Some(crate::source::Source::Git { url, userinfo, .. }) = remote {
            work.push((i, (url, userinfo, dated_ref(c, new_ref), secs)));
        }
    }
    let dated = bounded(
        work,
        &|(url, _, _, _): &(String, Option<crate::auth::Userinfo>, String, u64)| url.as_str(),
        jobs,
        timeout,
        std::sync::Arc::new(
            |(url, userinfo, reference, secs): (
                String,
                Option<crate::auth::Userinfo>,
                String,
                u64,
            )| {
                git::walk(&url, userinfo.as_ref(), &reference, None, 0)
                    .map(|w| (w.date, secs))
                    .map_err(|e| e.to_string())
            },
        ),
    );
    for (i, found) in dated {
        let c = &mut checks[i].2;
        let Status::Behind { new_ref, commit } = &c.status else {
            continue;
        };
        c.status = match found {
            Some(Ok((date, secs))) => match crate::review::left(secs, date, now) {
                Some(left_secs) => Status::HeldBack {
                    new_ref: new_ref.clone(),
                    commit: commit.clone(),
                    released_at: crate::clock::rfc3339(u64::try_from(date).unwrap_or(0)),
                    left_secs,
                    cooldown_secs: secs,
                },
                None => continue,
            },
            Some(Err(message)) => Status::Error {
                message: format!("cannot read the age of the newer version: {message}"),
            },
            None => Status::Error {
                message: format!(
                    "reading the age of the newer version timed out after {} s",
                    timeout.as_secs()
                ),
            },
        };
    }
}

/// The cooldown (seconds) of each home the checks come from: `flag` when given, else the
/// home's `plugins.toml` `cooldown`; with the policy files read, whose warnings are shown.
pub fn cooldowns(
    checks: &[(crate::store::Home, crate::manifest::Dialect, Check)],
    flag: Option<u64>,
) -> Result<
    (
        std::collections::BTreeMap<std::path::PathBuf, u64>,
        Vec<crate::autoupdate::PolicyFile>,
    ),
    String,
> {
    let mut secs = std::collections::BTreeMap::new();
    let mut files = Vec::new();
    for (home, _, _) in checks {
        if secs.contains_key(&home.root) {
            continue;
        }
        let cooldown = match flag {
            Some(s) => s,
            None => {
                let file = crate::autoupdate::load_policy(home)?;
                let s = file.policy.cooldown_secs;
                files.push(file);
                s
            }
        };
        secs.insert(home.root.clone(), cooldown);
    }
    Ok((secs, files))
}

/// Check every locked plugin of each home; sources resolve `gh:` against `gh_base`.
pub fn check_homes(
    homes: Vec<(
        crate::store::Home,
        crate::manifest::Dialect,
        crate::lock::Lock,
    )>,
    jobs: usize,
    timeout: Duration,
    pre: bool,
    gh_base: &str,
) -> Vec<(crate::store::Home, crate::manifest::Dialect, Check)> {
    let url_of = |e: &Entry| match crate::source::Source::of_entry(e, gh_base) {
        Ok(crate::source::Source::Git { url, .. }) => Some(url),
        _ => None,
    };
    let mut out = Vec::new();
    for (home, dialect, lock) in homes {
        let entries = lock.entries();
        let superseded: Vec<Option<Status>> = entries
            .iter()
            .map(|e| superseded_by(&home, dialect, e))
            .collect();
        let asked: Vec<Entry> = entries
            .iter()
            .zip(&superseded)
            .filter(|(_, s)| s.is_none())
            .map(|(e, _)| e.clone())
            .collect();
        // check_all answers in its input's order: put the superseded rows back in place.
        let mut checked = check_all(&asked, jobs, timeout, pre, &url_of).into_iter();
        let rows: Vec<Check> = entries
            .into_iter()
            .zip(superseded)
            .filter_map(|(e, s)| match s {
                Some(status) => Some(Check {
                    id: e.id,
                    source: e.source,
                    requested_ref: e.requested_ref,
                    ref_kind: e.ref_kind,
                    current: e.commit,
                    status,
                }),
                None => checked.next(),
            })
            .collect();
        out.extend(rows.into_iter().map(|c| (home.clone(), dialect, c)));
    }
    out
}

/// protoAgent 0.218's check before any network: the bundled plugin that supersedes
/// `entry`'s source under the home's host profile, if any.
fn superseded_by(
    home: &crate::store::Home,
    dialect: crate::manifest::Dialect,
    entry: &Entry,
) -> Option<Status> {
    if dialect != crate::manifest::Dialect::Protoagent {
        return None;
    }
    let mut v = crate::validate::ValidateOptions::default();
    crate::profile::HostProfile::load(home).apply(&mut v);
    let profile = crate::manifest::protoagent::profile(&v.protoagent);
    crate::host::protoagent::superseding(&entry.source, profile).map(|(id, version)| {
        Status::Superseded {
            by: id.to_owned(),
            bundled_version: version.to_owned(),
        }
    })
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
    dialect: crate::manifest::Dialect,
    github_api: &str,
    refs: impl FnOnce() -> Result<Vec<(String, String)>, String>,
) -> Option<Result<Status, crate::install::InstallError>> {
    let (owner, repo) = aoe_release_follower(entry, dialect)?;
    let tag = match crate::release::latest_tag(github_api, &owner, &repo) {
        Ok(Some(tag)) => tag,
        Ok(None) => {
            return Some(Err(crate::install::InstallError::Refused {
                code: crate::diagnostic::Code::UpdateNoRelease,
                message: format!(
                    "{owner}/{repo} has no published release to update to; the prior version is kept"
                ),
                help: Some(format!(
                    "aoe updates `gh:{owner}/{repo}` only to its latest release; to follow a branch, reinstall it as `gh:{owner}/{repo}@<branch>`"
                )),
            }));
        }
        Err(e) => return Some(Err(e.into())),
    };
    let refs = match refs() {
        Ok(r) => r,
        Err(message) => return Some(Ok(Status::Error { message })),
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
/// its code).
pub fn follow_latest_releases(
    checks: &mut [(crate::store::Home, crate::manifest::Dialect, Check)],
    gh_base: &str,
    github_api: &str,
) -> std::collections::HashMap<(std::path::PathBuf, String), crate::install::InstallError> {
    let mut refused = std::collections::HashMap::new();
    for (home, dialect, c) in checks {
        if !matches!(c.status, Status::Behind { .. } | Status::UpToDate) {
            continue;
        }
        let Ok(lock) = crate::lock::Lock::load(&home.lockfile(), *dialect) else {
            continue;
        };
        let Some(entry) = lock.get(&c.id) else {
            continue;
        };
        let Ok(crate::source::Source::Git { url, userinfo, .. }) =
            crate::source::Source::of_entry(&entry, gh_base)
        else {
            continue;
        };
        let refs = || git::ls_remote(&url, userinfo.as_ref()).map_err(|e| e.to_string());
        match latest_release(&entry, *dialect, github_api, refs) {
            None => {}
            Some(Ok(status)) => c.status = status,
            Some(Err(e)) => {
                c.status = Status::Error {
                    message: e.to_string(),
                };
                refused.insert((home.root.clone(), c.id.clone()), e);
            }
        }
    }
    refused
}

/// Monorepo plugins (a locked `subdir`) that a check found `Behind` are newer only when
/// their subdirectory changed: the new commit is fetched (depth 1, into a temp directory)
/// and its subdirectory hashed as an install hashes it. Those whose subdirectory is the
/// same become `UpToDate`; returned by home root and id, with the commit the repository
/// moved to (`update` moves the lock's pin there without reinstalling). A fetch that fails
/// leaves the check `Behind` (the update's own fetch reports it).
pub fn unchanged_subdirs(
    checks: &mut [(crate::store::Home, crate::manifest::Dialect, Check)],
    gh_base: &str,
) -> std::collections::HashMap<(std::path::PathBuf, String), (String, String)> {
    let mut out = std::collections::HashMap::new();
    for (home, dialect, c) in checks {
        let Status::Behind { commit, new_ref } = &c.status else {
            continue;
        };
        let Ok(lock) = crate::lock::Lock::load(&home.lockfile(), *dialect) else {
            continue;
        };
        let Some(entry) = lock.get(&c.id) else {
            continue;
        };
        // aoe's config.toml names the ref: a new tag is an update even with the same files.
        if *dialect == crate::manifest::Dialect::Aoe && *new_ref != entry.requested_ref {
            continue;
        }
        let (Some(subdir), false) = (entry.subdir.clone(), entry.tree_hash.is_empty()) else {
            continue;
        };
        let Ok(crate::source::Source::Git { url, userinfo, .. }) =
            crate::source::Source::of_entry(&entry, gh_base)
        else {
            continue;
        };
        let Some(rel) = crate::name::relative_path(&subdir) else {
            continue;
        };
        let Ok(tmp) = tempfile::tempdir() else {
            continue;
        };
        let repo = tmp.path().join("repo");
        if let Err(e) = git::fetch_tree(&url, userinfo.as_ref(), Some(commit), &repo) {
            log::debug!("{}: cannot fetch {commit} to compare {subdir}: {e}", c.id);
            continue;
        }
        let dir = repo.join(&rel);
        // Inside the fetched tree, through no symlink.
        let inside = std::fs::canonicalize(&dir)
            .ok()
            .zip(std::fs::canonicalize(&repo).ok())
            .is_some_and(|(d, r)| d == r.join(&rel));
        if !inside || !dir.is_dir() {
            continue;
        }
        if crate::hash::tree(&dir).is_ok_and(|h| h == entry.tree_hash) {
            log::debug!("{}: {subdir} is the same at {commit}", c.id);
            out.insert(
                (home.root.clone(), c.id.clone()),
                (commit.clone(), subdir.clone()),
            );
            c.status = Status::UpToDate;
        }
    }
    out
}

/// `(owner, repo)` of an aoe `gh:owner/repo` entry installed without a ref, which follows
/// the latest release (it came from the default branch when there was none).
fn aoe_release_follower(
    entry: &Entry,
    dialect: crate::manifest::Dialect,
) -> Option<(String, String)> {
    if dialect != crate::manifest::Dialect::Aoe
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

/// Install the newer `new_ref` of a locked plugin (the same id must come back).
pub fn apply(
    home: &crate::store::Home,
    entry: &Entry,
    new_ref: &str,
    base: crate::install::InstallOptions,
    consent: &mut dyn FnMut(&crate::install::Request) -> bool,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<crate::install::Installed, crate::install::InstallError> {
    crate::install::install(&options(home, entry, new_ref, base), consent, on_event)
}

/// What the update of a locked plugin to `new_ref` would bring (`update --dry-run`):
/// its commits since the locked one and its permission changes. Changes nothing.
pub fn review(
    home: &crate::store::Home,
    entry: &Entry,
    new_ref: &str,
    base: crate::install::InstallOptions,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<crate::review::Review, crate::install::InstallError> {
    let check = Check {
        id: entry.id.clone(),
        source: entry.source.clone(),
        requested_ref: entry.requested_ref.clone(),
        ref_kind: entry.ref_kind,
        current: entry.commit.clone(),
        status: Status::UpToDate,
    };
    crate::review::review(
        &options(home, entry, new_ref, base),
        &dated_ref(&check, new_ref),
        entry.commit.as_deref(),
        on_event,
    )
}

/// The install options that update a locked plugin to `new_ref`.
pub fn options(
    home: &crate::store::Home,
    entry: &Entry,
    new_ref: &str,
    base: crate::install::InstallOptions,
) -> crate::install::InstallOptions {
    use crate::source::Source;
    let source = match &base.source {
        Source::Git {
            url,
            display,
            userinfo,
            subdir,
            ..
        } => Source::Git {
            url: url.clone(),
            reference: (!new_ref.is_empty()).then(|| new_ref.to_owned()),
            display: display.clone(),
            userinfo: userinfo.clone(),
            subdir: subdir.clone(),
        },
        other => other.clone(),
    };
    crate::install::InstallOptions {
        source,
        // A host's own home keeps its overrides (protoAgent's plugins dir and lock).
        home: (!base.defaults.is_default(home)).then(|| home.root.clone()),
        force: true,
        expect_id: Some(entry.id.clone()),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: RefKind, r: &str, commit: &str) -> Entry {
        Entry {
            id: "x".into(),
            source: "s".into(),
            requested_ref: r.into(),
            ref_kind: Some(kind),
            commit: Some(commit.into()),
            ..Entry::default()
        }
    }

    fn refs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
            .collect()
    }

    #[test]
    fn release_tags_move_to_the_greatest_newer_release() {
        let r = refs(&[
            ("refs/tags/v0.2.1", "a"),
            ("refs/tags/v0.10.0", "b"),
            ("refs/tags/0.11.1", "c"),
            ("refs/tags/v0.12.0-rc1", "d"),
            ("refs/tags/nightly", "e"),
        ]);
        assert_eq!(
            decide(&entry(RefKind::Tag, "v0.2.1", "a"), &r, false),
            Status::Behind {
                new_ref: "0.11.1".into(),
                commit: "c".into()
            }
        );
        assert_eq!(
            decide(&entry(RefKind::Tag, "v0.2.1", "a"), &r, true),
            Status::Behind {
                new_ref: "v0.12.0-rc1".into(),
                commit: "d".into()
            }
        );
        assert_eq!(
            decide(&entry(RefKind::Tag, "0.11.1", "c"), &r, false),
            Status::UpToDate,
            "never a downgrade"
        );
        assert_eq!(
            decide(&entry(RefKind::Tag, "nightly", "old"), &r, false),
            Status::Behind {
                new_ref: "nightly".into(),
                commit: "e".into()
            },
            "a moved tag"
        );
        assert_eq!(
            decide(&entry(RefKind::Commit, "abc1234", "a"), &r, false),
            Status::Pinned
        );
    }

    #[test]
    fn ordered_keeps_the_order_and_the_bound() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let running = std::sync::Arc::new(AtomicUsize::new(0));
        let most = std::sync::Arc::new(AtomicUsize::new(0));
        let (r, m) = (running.clone(), most.clone());
        let out: Vec<usize> = ordered((0..24).collect(), 3, move |i: usize| {
            let now = r.fetch_add(1, Ordering::SeqCst) + 1;
            m.fetch_max(now, Ordering::SeqCst);
            // Later items finish first, so results arrive out of order.
            std::thread::sleep(Duration::from_millis(((24 - i) % 5) as u64));
            r.fetch_sub(1, Ordering::SeqCst);
            i * 10
        })
        .collect();
        assert_eq!(out, (0..24).map(|i| i * 10).collect::<Vec<_>>());
        assert!(most.load(Ordering::SeqCst) <= 3);
        assert_eq!(ordered(Vec::<usize>::new(), 4, |i| i).count(), 0);
    }

    /// A worker that records, per server, how many items run at once; items of
    /// `wait_for` wait (up to 10 s) until that many of them run together.
    struct Gauge {
        running: std::sync::Mutex<std::collections::HashMap<String, (usize, usize)>>,
        wake: std::sync::Condvar,
    }

    impl Gauge {
        fn new() -> std::sync::Arc<Gauge> {
            std::sync::Arc::new(Gauge {
                running: Default::default(),
                wake: std::sync::Condvar::new(),
            })
        }

        fn run(&self, url: &str, wait_for: Option<(&str, usize)>) {
            let key = git::host_limit(url).0;
            let mut m = self.running.lock().unwrap();
            let slot = m.entry(key.clone()).or_default();
            slot.0 += 1;
            slot.1 = slot.1.max(slot.0);
            self.wake.notify_all();
            match wait_for {
                Some((host, n)) if url.contains(host) => {
                    let deadline = std::time::Instant::now() + Duration::from_secs(10);
                    while m[&key].1 < n && std::time::Instant::now() < deadline {
                        m = self
                            .wake
                            .wait_timeout(m, Duration::from_millis(50))
                            .unwrap()
                            .0;
                    }
                }
                _ => {
                    drop(m);
                    std::thread::sleep(Duration::from_millis(5));
                    m = self.running.lock().unwrap();
                }
            }
            m.get_mut(&key).unwrap().0 -= 1;
        }

        fn most(&self, url: &str) -> usize {
            self.running.lock().unwrap()[&git::host_limit(url).0].1
        }
    }

    fn mixed() -> Vec<String> {
        (0..12)
            .flat_map(|i| {
                [
                    format!("git://127.0.0.1:9/p{i}.git"),
                    format!("https://github.com/o/p{i}"),
                ]
            })
            .collect()
    }

    #[test]
    fn the_pool_caps_each_server_and_lets_other_servers_pass() {
        let gauge = Gauge::new();
        let g = gauge.clone();
        let items: Vec<(usize, String)> = mixed().into_iter().enumerate().collect();
        let out = bounded(
            items,
            &|u: &String| u.as_str(),
            16,
            Duration::from_secs(60),
            std::sync::Arc::new(move |u: String| g.run(&u, Some(("github", 12)))),
        );
        assert_eq!(out.len(), 24);
        assert!(out.iter().all(|(_, r)| r.is_some()));
        // git:// is held to 4; the 12 github.com items all ran together, past the
        // queued git:// ones.
        assert!(gauge.most("git://127.0.0.1:9/p0.git") <= 4);
        assert_eq!(gauge.most("https://github.com/o/p0"), 12);
    }

    #[test]
    fn ordered_caps_each_server_and_keeps_the_order() {
        let gauge = Gauge::new();
        let g = gauge.clone();
        let urls = mixed();
        let out: Vec<String> = ordered_per_host(
            urls.clone(),
            |u: &String| Some(u.clone()),
            16,
            move |u: String| {
                g.run(&u, Some(("github", 12)));
                u
            },
        )
        .collect();
        assert_eq!(out, urls);
        assert!(gauge.most("git://127.0.0.1:9/p0.git") <= 4);
        assert_eq!(gauge.most("https://github.com/o/p0"), 12);
    }

    #[test]
    fn a_panicking_item_gives_its_servers_slot_back() {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // Ten items of one git:// server (4 at a time); four of them panic, which
            // would hold all four slots if a panic kept its slot. The items after them
            // still run, and the results stop where the first panicked item's would be.
            let out: Vec<usize> = ordered_per_host(
                (0..10).collect(),
                |_: &usize| Some("git://127.0.0.1:9/x.git".to_owned()),
                8,
                |i: usize| {
                    assert!(!(4..8).contains(&i), "item {i} fails");
                    i
                },
            )
            .collect();
            let _ = tx.send(out);
        });
        let out = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the pool finished");
        assert_eq!(out, vec![0, 1, 2, 3]);
    }

    #[test]
    fn branches_compare_heads() {
        let r = refs(&[
            ("HEAD", "h"),
            ("refs/heads/main", "h"),
            ("refs/heads/dev", "d"),
        ]);
        assert_eq!(
            decide(&entry(RefKind::Branch, "dev", "d"), &r, false),
            Status::UpToDate
        );
        assert_eq!(
            decide(&entry(RefKind::Default, "", "old"), &r, false),
            Status::Behind {
                new_ref: String::new(),
                commit: "h".into()
            }
        );
        assert!(matches!(
            decide(&entry(RefKind::Branch, "gone", "d"), &r, false),
            Status::Error { .. }
        ));
    }
}
