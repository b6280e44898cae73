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
//!
//! A tag that moved (the same name at another commit) is [`Status::Repointed`], never an
//! ordinary update: what was pinned as "v1.0.0" is not what runs after it without consent.
//! Nor is a branch force-pushed to a history without the locked commit
//! ([`Status::ForcePushed`], found by [`force_pushed`] after the ref listing).

use std::time::Duration;

use crate::git::{self, RefKind};
use crate::lock::Entry;

mod apply;
pub mod check;
mod cooldown;
mod decide;
mod follow;
mod pool;
mod rewritten;
mod seen;
mod settle;
#[cfg(test)]
mod tests;
pub mod trust;

pub use apply::{options, review};
pub use decide::{decide, infer_kind, release};
pub use follow::{NoRelease, latest_release};
pub use pool::{ordered, ordered_per_host};

// The check's passes: only [`check::Plan::check`] strings them together.
use cooldown::{cooldowns, hold_back};
use follow::{follow_latest_releases, unchanged_subdirs};
use rewritten::force_pushed;
use settle::settle_fast_branches;

use pool::bounded;

/// The most GitHub API requests at once (release lookups), whatever `--jobs` says (256 by
/// default, for ref listings): GitHub allows 100 concurrent REST requests.
const API_JOBS: usize = 64;

/// How many versions `home`'s first-seen record dates in the future (a clock that was once
/// ahead: `outdated`, `update` and `autoupdate` take them as now), and the furthest, in
/// seconds; read only.
pub fn first_seen_ahead(home: &crate::store::Home) -> (usize, u64) {
    seen::FirstSeen::load(home).ahead(crate::clock::now_secs())
}

/// Each lock's rows by id, read once per lock rather than once per row (a 200-row lock read
/// for each of its rows was most of `outdated`'s CPU).
#[derive(Default)]
pub struct LockRows(
    std::collections::HashMap<
        (std::path::PathBuf, &'static str),
        std::collections::HashMap<String, Entry>,
    >,
);

impl LockRows {
    /// `id`'s row in `home`'s lock, read in its host's format.
    pub fn get(
        &mut self,
        home: &crate::store::Home,
        id: &str,
    ) -> Result<Option<Entry>, crate::lock::LockError> {
        let key = (home.lockfile(), home.dialect.spec().name);
        if !self.0.contains_key(&key) {
            let rows = home
                .load_lock()?
                .entries()
                .into_iter()
                .map(|e| (e.id.clone(), e))
                .collect();
            self.0.insert(key.clone(), rows);
        }
        Ok(self.0.get(&key).and_then(|rows| rows.get(id)).cloned())
    }
}

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
    /// The locked tag now names another commit (re-pointed after install, with no newer
    /// release): never taken without consent asked for it (`update` asks, with the old and
    /// the new commit; `autoupdate` leaves it for approval).
    Repointed {
        new_ref: String,
        commit: String,
    },
    /// The branch now names a commit that does not contain the locked one (force-pushed to
    /// another history): taken only with consent, as [`Status::Repointed`].
    ForcePushed {
        new_ref: String,
        commit: String,
    },
    /// Newer, but younger than the home's cooldown: not taken yet.
    HeldBack {
        new_ref: String,
        commit: String,
        /// What its age counts from, RFC 3339: when this home first saw it, or its GitHub
        /// release's `published_at` (never the commit's or tag's own date).
        released_at: String,
        /// `first_seen` or `github_release`.
        age_from: &'static str,
        /// Seconds until it is old enough.
        left_secs: u64,
        cooldown_secs: u64,
    },
    /// Newer, but the plugin is held (`plugins hold`, `plugins rollback`): not taken until
    /// `plugins update <id>` or `plugins unhold <id>` lifts the hold (the check's `hold`).
    Held {
        new_ref: String,
        commit: String,
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
    /// Why and since when the plugin is held, if it is (marked by the check, [`check::Holds`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold: Option<crate::hold::Hold>,
    /// The lock row checked (not printed): what the trust check of `outdated` reads
    /// ([`trust`]) without reading the lock again.
    #[serde(skip)]
    pub row: Option<Box<Entry>>,
    /// The remote's listing showed the locked commit as the tip of a branch or tag, or the
    /// branch tip it listed contains it ([`force_pushed`]'s ancestry check) (not printed):
    /// the trust check of `outdated` and `doctor` needs no listing or fetch of its own.
    #[serde(skip)]
    pub published: bool,
    /// A branch that moves faster than the cooldown: its tip, held back, when the check's
    /// `Behind` commit is an older commit of the branch that the cooldown lets through
    /// (first seen at least the cooldown ago, on top of the locked one); the update installs
    /// that commit by id and keeps the branch as the lock's ref.
    #[serde(skip)]
    pub held_tip: Option<String>,
}

impl Check {
    /// `e`'s check with `status`, before anything else is known (no hold, not published).
    fn of(e: &Entry, status: Status) -> Check {
        Check {
            id: e.id.clone(),
            source: e.source.clone(),
            requested_ref: e.requested_ref.clone(),
            ref_kind: e.ref_kind,
            current: e.commit.clone(),
            status,
            hold: None,
            row: Some(Box::new(e.clone())),
            published: false,
            held_tip: None,
        }
    }

    /// The commit to install by id: an older commit of a branch whose tip the cooldown holds
    /// back ([`Check::held_tip`]); `None` when the update takes the ref as it is.
    pub fn settled_commit(&self) -> Option<String> {
        match (&self.status, &self.held_tip) {
            (Status::Behind { commit, .. }, Some(_)) => Some(commit.clone()),
            _ => None,
        }
    }

    /// A [`Status::Repointed`] or [`Status::ForcePushed`] check's sentence: the ref, the
    /// commit it named when installed and the one it names now; `None` for any other.
    pub fn moved_ref(&self) -> Option<String> {
        let short = |s: &str| s[..s.len().min(12)].to_owned();
        let old = self
            .current
            .as_deref()
            .map_or_else(|| "?".to_owned(), short);
        match &self.status {
            Status::Repointed { new_ref, commit } => Some(format!(
                "the tag {new_ref} was moved: it named {old} when installed and names {} now",
                short(commit)
            )),
            Status::ForcePushed { new_ref, commit } => Some(format!(
                "the branch {} was force-pushed: its new commit {} does not contain {old}, the commit installed",
                match new_ref.as_str() {
                    "" => "(the default branch)",
                    b => b,
                },
                short(commit)
            )),
            _ => None,
        }
    }
}

/// Mark the held plugins among `checks` (each home's `[hold]`, [`crate::hold`]): every
/// check of a held plugin carries its hold, and one that found a newer version (`Behind`,
/// or `HeldBack` by the cooldown) is `Held` instead, so nothing takes it, unless its id is
/// in `lifting` (an explicit `plugins update <id>`, which lifts the hold once it is done).
fn apply_holds(checks: &mut [(crate::store::Home, Check)], lifting: &[String]) {
    let mut by_home: std::collections::HashMap<std::path::PathBuf, _> = Default::default();
    for (home, c) in checks.iter_mut() {
        let holds = by_home
            .entry(home.root.clone())
            .or_insert_with(|| crate::hold::holds(home));
        let Some(hold) = holds.get(&c.id) else {
            continue;
        };
        c.hold = Some(hold.clone());
        if lifting.contains(&c.id) {
            continue;
        }
        if let Status::Behind { new_ref, commit }
        | Status::Repointed { new_ref, commit }
        | Status::ForcePushed { new_ref, commit }
        | Status::HeldBack {
            new_ref, commit, ..
        } = &c.status
        {
            c.status = Status::Held {
                new_ref: new_ref.clone(),
                commit: commit.clone(),
            };
        }
    }
}

/// The fetchable URL of a lock row's git source: `Ok(None)` for a local directory, `Err`
/// (why) for a row that names no source `plugins` would fetch (a hand-edited `subdir` out
/// of the repository, a source it refuses).
pub fn git_url_of(e: &Entry, gh_base: &str) -> Result<Option<String>, crate::source::SourceError> {
    match crate::source::Source::of_entry(e, gh_base)? {
        crate::source::Source::Git { url, .. } => Ok(Some(url)),
        _ => Ok(None),
    }
}

/// Check every entry, at most `jobs` remotes at a time, each within `timeout`.
/// `url_of` turns a lock entry's source into a fetchable URL ([`git_url_of`]).
pub fn check_all(
    entries: &[Entry],
    jobs: usize,
    timeout: Duration,
    pre: bool,
    url_of: &(dyn Fn(&Entry) -> Result<Option<String>, crate::source::SourceError> + Sync),
) -> Vec<Check> {
    let mut results: Vec<Option<Check>> = vec![None; entries.len()];
    let mut queue: Vec<(usize, String)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        match (e.ref_kind, url_of(e)) {
            (Some(RefKind::Commit), _) => results[i] = Some(Check::of(e, Status::Pinned)),
            (_, Err(why)) => {
                let message = format!("the lock's row cannot be checked: {why}");
                results[i] = Some(Check::of(e, Status::Error { message }));
            }
            (None, _) if e.commit.is_none() => results[i] = Some(Check::of(e, Status::Local)),
            (_, Ok(None)) => results[i] = Some(Check::of(e, Status::Local)),
            (_, Ok(Some(url))) => queue.push((i, url)),
        }
    }
    // One ref listing per URL, not per row (issue 43): the plugins of one repository (a
    // monorepo's) are each decided from the same listing.
    let mut by_url: Vec<(String, Vec<usize>)> = Vec::new();
    let mut slot: std::collections::HashMap<String, usize> = Default::default();
    for (i, url) in queue {
        let s = *slot.entry(url.clone()).or_insert_with(|| {
            by_url.push((url, Vec::new()));
            by_url.len() - 1
        });
        by_url[s].1.push(i);
    }
    let work = by_url
        .iter()
        .enumerate()
        .map(|(s, (url, _))| (s, url.clone()))
        .collect();
    let listed = bounded(
        work,
        &|url: &String| url.as_str(),
        jobs,
        timeout,
        std::sync::Arc::new(|url: String| git::ls_remote(&url, None).map_err(|e| e.to_string())),
    );
    for (s, done) in listed {
        let (url, rows) = &by_url[s];
        for &i in rows {
            let e = &entries[i];
            let (status, published) = match &done {
                Some(Ok(refs)) => (
                    decide(e, refs, pre),
                    e.commit
                        .as_deref()
                        .is_some_and(|c| trust::published_in(refs, c)),
                ),
                Some(Err(message)) => (
                    Status::Error {
                        message: message.clone(),
                    },
                    false,
                ),
                None => (
                    Status::Error {
                        message: format!("listing {url} timed out after {} s", timeout.as_secs()),
                    },
                    false,
                ),
            };
            results[i] = Some(Check {
                published,
                ..Check::of(e, status)
            });
        }
    }
    results.into_iter().flatten().collect()
}
