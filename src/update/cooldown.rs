//! Cooldown: hold back newer versions younger than their home's cooldown, counted from
//! when the home first saw them ([`super::seen`]) or from their GitHub release.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{Check, Status, pool::bounded, seen};
use crate::git::RefKind;

/// The ref whose date says how old a newer version is: the new tag, the branch, or the
/// remote's HEAD; a short name (a lock the host wrote) is tried as a tag, then a branch.
pub(super) fn dated_ref(c: &Check, new_ref: &str) -> String {
    match c.ref_kind {
        _ if new_ref.is_empty() => "HEAD".to_owned(),
        Some(RefKind::Tag) => format!("refs/tags/{new_ref}"),
        Some(RefKind::Branch) => format!("refs/heads/{new_ref}"),
        _ => new_ref.to_owned(),
    }
}

/// The GitHub owner and repository of a locked source (`gh:owner/repo`, or a
/// `github.com` URL), whose releases carry a `published_at` GitHub sets.
fn github_repo(source: &str) -> Option<(String, String)> {
    let path = source.strip_prefix("gh:").map(str::to_owned).or_else(|| {
        let rest = source
            .strip_prefix("https://github.com/")
            .or_else(|| source.strip_prefix("git@github.com:"))?;
        Some(
            rest.trim_end_matches('/')
                .trim_end_matches(".git")
                .to_owned(),
        )
    })?;
    let mut parts = path.split('/');
    let (owner, repo) = (parts.next()?, parts.next()?);
    (!owner.is_empty() && !repo.is_empty()).then(|| (owner.to_owned(), repo.to_owned()))
}

/// Note every newer version the checks found in its home's first-seen record (written
/// with `note`; a dry run reads it only), and hold back those younger than their home's
/// cooldown (seconds; 0: none).
///
/// A version's age counts from when this home first saw it (a version never seen before
/// is new), or, for a tag of a GitHub repository, from its release's `published_at` when
/// that is earlier and this home never saw the tag name another commit; never from the
/// commit's or tag's own dates, which the publisher writes. The releases are asked only
/// for versions the record would hold back, at most `jobs` (and 64) at a time, each within
/// `timeout`; a release that cannot be read leaves the record's age.
pub(super) fn hold_back(
    checks: &mut [(crate::store::Home, Check)],
    cooldown: &dyn Fn(&crate::store::Home) -> u64,
    jobs: usize,
    timeout: Duration,
    github_api: &str,
    note: bool,
) {
    let now = crate::clock::now_secs();
    let (records, young) = too_young(checks, cooldown, now);
    save_records(&records, note);
    let published = published(&young, jobs, timeout, github_api);
    for (i, (first_seen, secs, _)) in young {
        let c = &mut checks[i].1;
        let (Status::Behind { new_ref, commit }
        | Status::HeldBack {
            new_ref, commit, ..
        }) = &c.status
        else {
            continue;
        };
        let (since, age_from) = match published.get(&i) {
            Some(p) if *p < first_seen => (*p, "github_release"),
            _ => (first_seen, "first_seen"),
        };
        let since_i = i64::try_from(since).unwrap_or(i64::MAX);
        let now_i = i64::try_from(now).unwrap_or(i64::MAX);
        if let Some(left_secs) = crate::review::left(secs, since_i, now_i) {
            c.status = Status::HeldBack {
                new_ref: new_ref.clone(),
                commit: commit.clone(),
                released_at: crate::clock::rfc3339(since),
                age_from,
                left_secs,
                cooldown_secs: secs,
            };
        }
    }
}

/// The first-seen record of each home (by its root), loaded once, and whether noting
/// changed it.
type Records = BTreeMap<std::path::PathBuf, (crate::store::Home, seen::FirstSeen, bool)>;

/// A check too young by its home's record (its index in the checks): when its version was
/// first seen, the home's cooldown, and the GitHub release (owner, repo, tag) that may say
/// it is older.
type Young = (usize, (u64, u64, Option<(String, String, String)>));

/// Note each newer version in its home's first-seen record, and find those younger than
/// their home's cooldown by it.
fn too_young(
    checks: &[(crate::store::Home, Check)],
    cooldown: &dyn Fn(&crate::store::Home) -> u64,
    now: u64,
) -> (Records, Vec<Young>) {
    let mut records = Records::new();
    let mut young = Vec::new();
    for (i, (home, c)) in checks.iter().enumerate() {
        let (Status::Behind { new_ref, commit }
        | Status::HeldBack {
            new_ref, commit, ..
        }) = &c.status
        else {
            continue;
        };
        let (_, record, changed) = records
            .entry(home.root.clone())
            .or_insert_with(|| (home.clone(), seen::FirstSeen::load(home), false));
        let tag = (c.ref_kind != Some(RefKind::Branch) && !new_ref.is_empty())
            .then_some(new_ref.as_str());
        // `note` changes this source's entry only: compared alone (a copy of the whole
        // record per row made a 1,000-row check quadratic).
        let before = record.sources.get(&c.source).cloned();
        let noted = record.note(&c.source, commit, tag, now);
        *changed |= record.sources.get(&c.source) != before.as_ref();
        let secs = cooldown(home);
        if secs == 0 || now.saturating_sub(noted.first_seen) >= secs {
            continue;
        }
        // Too young by this home's record: a GitHub release may say it is older.
        let release = tag
            .filter(|_| !noted.tag_moved)
            .and_then(|t| github_repo(&c.source).map(|(o, r)| (o, r, t.to_owned())));
        young.push((i, (noted.first_seen, secs, release)));
    }
    (records, young)
}

/// Save the records that noting changed, when the check `note`s.
fn save_records(records: &Records, note: bool) {
    for (home, record, changed) in records.values() {
        if note
            && *changed
            && let Err(e) = record.save(home)
        {
            // A home that cannot be written (another user's): its versions stay new.
            log::debug!("cooldown: cannot write the first-seen record: {e}");
        }
    }
}

/// When GitHub says the release of each young version was published, by the check's
/// index. One HTTPS API: bounded by `jobs` alone.
fn published(
    young: &[Young],
    jobs: usize,
    timeout: Duration,
    github_api: &str,
) -> std::collections::HashMap<usize, u64> {
    let api = github_api.to_owned();
    let published = bounded(
        young
            .iter()
            .filter_map(|(i, (_, _, release))| release.clone().map(|r| (*i, r)))
            .collect(),
        &|_: &(String, String, String)| "https://api.github.com",
        jobs.min(super::API_JOBS),
        timeout,
        std::sync::Arc::new(move |(owner, repo, tag): (String, String, String)| {
            crate::release::published_at(&api, &owner, &repo, &tag)
                .map_err(|e| log::debug!("cooldown: {owner}/{repo} release {tag}: {e}"))
                .ok()
                .flatten()
        }),
    );
    published
        .into_iter()
        .filter_map(|(i, p)| Some((i, p.flatten()?)))
        .collect()
}

/// The cooldown (seconds) of each home the checks come from: `flag` when given, else the
/// home's `plugins.toml` `cooldown`; with the policy files read, whose warnings are shown.
pub(super) fn cooldowns(
    checks: &[(crate::store::Home, Check)],
    flag: Option<u64>,
) -> Result<
    (
        std::collections::BTreeMap<std::path::PathBuf, u64>,
        Vec<crate::autoupdate::PolicyFile>,
    ),
    crate::store::SettingsError,
> {
    let mut secs = std::collections::BTreeMap::new();
    let mut files = Vec::new();
    for (home, _) in checks {
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
