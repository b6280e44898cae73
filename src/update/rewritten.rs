//! Branches whose history was rewritten: a branch check that found a newer commit is an
//! ordinary update only when that commit still contains the locked one. A force-push to
//! another history (the locked commit gone from it) is [`Status::ForcePushed`], taken
//! only with consent, as a moved tag is ([`Status::Repointed`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::{Check, Status, bounded};
use crate::git::{self, RefKind};
use crate::store::Home;

/// One question for a remote: does `reference` at `new` contain `old`?
#[derive(Clone)]
struct Ask {
    url: String,
    userinfo: Option<crate::auth::Userinfo>,
    reference: String,
    new: String,
    old: String,
    /// A monorepo's subdirectory ([`git::branch_contains`]).
    partial: bool,
}

impl Ask {
    /// What makes two questions the same (the credentials by their user name).
    fn key(&self) -> (String, Option<String>, String, String, String, bool) {
        (
            self.url.clone(),
            self.userinfo.as_ref().map(|u| u.user.clone()),
            self.reference.clone(),
            self.new.clone(),
            self.old.clone(),
            self.partial,
        )
    }
}

/// The ref a branch check compared: the branch, or the remote's `HEAD` for the default
/// branch; `None` when the check did not follow a branch (a tag, a new release, a pin).
pub(super) fn branch_ref(c: &Check, new_ref: &str) -> Option<String> {
    if new_ref != c.requested_ref {
        // Another tag (a newer release, aoe's latest release): no history to compare.
        return None;
    }
    match c.ref_kind {
        Some(RefKind::Default) => Some("HEAD".to_owned()),
        _ if new_ref.is_empty() => Some("HEAD".to_owned()),
        // A lock the host wrote: a `Behind` at the same name is a branch (a tag at another
        // commit is `Repointed`).
        Some(RefKind::Branch) | None => Some(format!("refs/heads/{new_ref}")),
        Some(RefKind::Tag | RefKind::Commit) => None,
    }
}

/// Every `Behind` branch check whose new commit does not contain the locked commit becomes
/// [`Status::ForcePushed`]; one whose ancestry cannot be read becomes [`Status::Error`]
/// (nothing is taken on a guess). Each repository, branch and pair of commits is asked once,
/// at most `jobs` (and 8) fetches at a time and [`git::host_limit`] per server; each fetch is
/// bounded by the transfer's own no-progress limit.
pub(super) fn force_pushed(checks: &mut [(Home, Check)], gh_base: &str, jobs: usize) {
    let mut asks: Vec<(usize, Ask)> = Vec::new();
    let mut rows: HashMap<_, Vec<usize>> = HashMap::new();
    for (i, (_, c)) in checks.iter().enumerate() {
        let Status::Behind { new_ref, commit } = &c.status else {
            continue;
        };
        let (Some(reference), Some(old), Some(entry)) =
            (branch_ref(c, new_ref), c.current.clone(), c.row.as_deref())
        else {
            continue;
        };
        let Ok(crate::source::Source::Git { url, userinfo, .. }) =
            crate::source::Source::of_entry(entry, gh_base)
        else {
            continue;
        };
        let ask = Ask {
            url,
            userinfo,
            reference,
            new: commit.clone(),
            old,
            partial: entry.subdir.is_some(),
        };
        let same = rows.entry(ask.key()).or_default();
        if same.is_empty() {
            asks.push((asks.len(), ask));
        }
        same.push(i);
    }
    if asks.is_empty() {
        return;
    }
    let answers = bounded(
        asks.clone(),
        &|a: &Ask| a.url.as_str(),
        jobs.min(8),
        Duration::MAX,
        Arc::new(|a: Ask| {
            let at = (a.reference.as_str(), a.partial);
            git::branch_contains(&a.url, a.userinfo.as_ref(), at, &a.new, &a.old)
                .map_err(|e| e.to_string())
        }),
    );
    for (n, answer) in answers {
        let ask = &asks[n].1;
        for &i in &rows[&ask.key()] {
            let c = &mut checks[i].1;
            let Status::Behind { new_ref, commit } = &c.status else {
                continue;
            };
            c.status = match &answer {
                Some(Ok(true)) => {
                    // The branch tip the check listed contains the locked commit: it is
                    // published, as the trust check of `outdated` asks (no fetch of its own).
                    c.published |= ask.reference.starts_with("refs/heads/");
                    continue;
                }
                Some(Ok(false)) => Status::ForcePushed {
                    new_ref: new_ref.clone(),
                    commit: commit.clone(),
                },
                Some(Err(e)) => Status::Error {
                    message: format!(
                        "cannot tell whether {} still contains the locked commit {}: {e}",
                        commit_short(commit),
                        commit_short(&ask.old)
                    ),
                },
                None => Status::Error {
                    message: format!(
                        "reading the history of {} stopped before it could tell whether it still contains the locked commit",
                        commit_short(commit)
                    ),
                },
            };
        }
    }
}

fn commit_short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(requested: &str, kind: Option<RefKind>) -> Check {
        Check {
            id: "p".into(),
            source: "gh:o/r".into(),
            requested_ref: requested.into(),
            ref_kind: kind,
            current: Some("a".repeat(40)),
            status: Status::UpToDate,
            hold: None,
            row: None,
            published: false,
            held_tip: None,
        }
    }

    #[test]
    fn only_a_branch_that_moved_is_asked() {
        let branch = check("main", Some(RefKind::Branch));
        assert_eq!(
            branch_ref(&branch, "main").as_deref(),
            Some("refs/heads/main")
        );
        let default = check("", Some(RefKind::Default));
        assert_eq!(branch_ref(&default, "").as_deref(), Some("HEAD"));
        // aoe's latest release: another tag, no history to compare.
        assert_eq!(branch_ref(&default, "v2.0.0"), None);
        // A host-written lock: the same name `Behind` is a branch.
        let host = check("dev", None);
        assert_eq!(branch_ref(&host, "dev").as_deref(), Some("refs/heads/dev"));
        let tag = check("v1.0.0", Some(RefKind::Tag));
        assert_eq!(branch_ref(&tag, "v1.0.0"), None);
        assert_eq!(branch_ref(&tag, "v1.1.0"), None);
    }
}
