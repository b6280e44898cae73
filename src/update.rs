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
    /// The remote could not be checked; other plugins are unaffected.
    Error {
        message: String,
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
    // Each remote is listed on its own thread so a hung one can be abandoned at its
    // timeout; `jobs` bounds how many run at once.
    let (done_tx, done_rx) = mpsc::channel::<(usize, Status)>();
    let mut pending = queue.into_iter();
    let mut running = 0;
    let spawn = |(i, e, url): (usize, &Entry, String), tx: mpsc::Sender<(usize, Status)>| {
        let entry = e.clone();
        std::thread::spawn(move || {
            let (tx1, rx1) = mpsc::channel();
            let worker_url = url.clone();
            std::thread::spawn(move || {
                let _ = tx1.send(git::ls_remote(&worker_url, None));
            });
            let status = match rx1.recv_timeout(timeout) {
                Ok(Ok(refs)) => decide(&entry, &refs, pre),
                Ok(Err(e)) => Status::Error {
                    message: e.to_string(),
                },
                Err(_) => Status::Error {
                    message: format!("listing {url} timed out after {} s", timeout.as_secs()),
                },
            };
            let _ = tx.send((i, status));
        });
    };
    for item in pending.by_ref().take(jobs.max(1)) {
        spawn(item, done_tx.clone());
        running += 1;
    }
    while running > 0 {
        let Ok((i, status)) = done_rx.recv() else {
            break;
        };
        running -= 1;
        results[i] = Some(check(&entries[i], status));
        if let Some(item) = pending.next() {
            spawn(item, done_tx.clone());
            running += 1;
        }
    }
    results.into_iter().flatten().collect()
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
        for c in check_all(&lock.entries(), jobs, timeout, pre, &url_of) {
            out.push((home.clone(), dialect, c));
        }
    }
    out
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
    use crate::source::Source;
    let source = match &base.source {
        Source::Git {
            url,
            display,
            userinfo,
            ..
        } => Source::Git {
            url: url.clone(),
            reference: (!new_ref.is_empty()).then(|| new_ref.to_owned()),
            display: display.clone(),
            userinfo: userinfo.clone(),
        },
        other => other.clone(),
    };
    let opts = crate::install::InstallOptions {
        source,
        // A host's own home keeps its overrides (protoAgent's plugins dir and lock).
        home: (!base.defaults.is_default(home)).then(|| home.root.clone()),
        force: true,
        expect_id: Some(entry.id.clone()),
        ..base
    };
    crate::install::install(&opts, consent, on_event)
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
            version: String::new(),
            manifest_hash: String::new(),
            tree_hash: String::new(),
            installed_hash: None,
            release: None,
            unbuilt: false,
            featured: false,
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
