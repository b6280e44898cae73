//! A branch that moves faster than the cooldown: its tip is always too young, so the branch
//! would never update. Instead it updates to the newest commit it still contains, on top of
//! the locked one, that this home first saw at least the cooldown ago (issue 39). The
//! candidates are the commits the first-seen record dated for the source (the tips earlier
//! checks saw); the branch's history says which of them it still contains
//! ([`git::newest_contained`], through the same fetch as the force-push check).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::{Check, Status, bounded, rewritten::branch_ref, seen::FirstSeen};
use crate::git;
use crate::store::Home;

/// The most candidates asked about per branch (the newest first).
const CANDIDATES: usize = 32;

/// One branch to settle: its remote, ref, tip, the locked commit and the candidates.
struct Settle {
    url: String,
    userinfo: Option<crate::auth::Userinfo>,
    reference: String,
    tip: String,
    old: String,
    candidates: Vec<String>,
}

/// Every branch check the cooldown held back (`HeldBack` at the branch's tip) becomes
/// `Behind` at the newest older commit of the branch that is old enough, if there is one,
/// with [`Check::held_tip`] naming the tip; the others stay held back. At most `jobs` (and
/// 8) histories are read at a time, [`git::host_limit`] per server; one that cannot be
/// read leaves its check held back.
pub(super) fn settle_fast_branches(checks: &mut [(Home, Check)], gh_base: &str, jobs: usize) {
    let now = crate::clock::now_secs();
    let mut records: HashMap<std::path::PathBuf, FirstSeen> = HashMap::new();
    let mut work = Vec::new();
    for (i, (home, c)) in checks.iter().enumerate() {
        if let Some(settle) = to_settle(home, c, &mut records, now, gh_base) {
            work.push((i, settle));
        }
    }
    if work.is_empty() {
        return;
    }
    let found = bounded(
        work,
        &|s: &Settle| s.url.as_str(),
        jobs.min(8),
        Duration::MAX,
        Arc::new(|s: Settle| {
            git::newest_contained(
                &s.url,
                s.userinfo.as_ref(),
                &s.reference,
                &s.tip,
                &s.candidates,
                &s.old,
            )
            .map_err(|e| log::debug!("cooldown: {}: cannot read {}: {e}", s.url, s.reference))
            .ok()
            .flatten()
        }),
    );
    for (i, commit) in found {
        let c = &mut checks[i].1;
        let (
            Some(Some(commit)),
            Status::HeldBack {
                new_ref,
                commit: tip,
                ..
            },
        ) = (commit, &c.status)
        else {
            continue;
        };
        log::debug!("{}: {tip} is held back; {commit} is old enough", c.id);
        c.held_tip = Some(tip.clone());
        c.status = Status::Behind {
            new_ref: new_ref.clone(),
            commit,
        };
    }
}

/// What settling `c` asks of its branch's history: `None` unless the cooldown held back a
/// branch's tip and `home`'s first-seen record (read once per home, into `records`) dates
/// other commits of its source that are old enough.
fn to_settle(
    home: &Home,
    c: &Check,
    records: &mut HashMap<std::path::PathBuf, FirstSeen>,
    now: u64,
    gh_base: &str,
) -> Option<Settle> {
    let Status::HeldBack {
        new_ref,
        commit,
        cooldown_secs,
        ..
    } = &c.status
    else {
        return None;
    };
    let (Some(reference), Some(old), Some(entry)) =
        (branch_ref(c, new_ref), c.current.clone(), c.row.as_deref())
    else {
        return None;
    };
    let record = records
        .entry(home.root.clone())
        .or_insert_with(|| FirstSeen::load(home));
    let seen = record.sources.get(&c.source)?;
    let mut old_enough: Vec<(u64, &String)> = seen
        .commits
        .iter()
        .filter(|(id, at)| {
            *id != commit && **id != old && now.saturating_sub(**at) >= *cooldown_secs
        })
        .map(|(id, at)| (*at, id))
        .collect();
    if old_enough.is_empty() {
        return None;
    }
    old_enough.sort_by(|a, b| b.cmp(a));
    let Ok(crate::source::Source::Git { url, userinfo, .. }) =
        crate::source::Source::of_entry(entry, gh_base)
    else {
        return None;
    };
    Some(Settle {
        url,
        userinfo,
        reference,
        tip: commit.clone(),
        old,
        candidates: old_enough
            .into_iter()
            .take(CANDIDATES)
            .map(|(_, id)| id.clone())
            .collect(),
    })
}
