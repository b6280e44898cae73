//! Cooldown: hold back newer versions younger than their home's cooldown.

use std::time::Duration;

use super::{Check, Status, pool::bounded};
use crate::git::{self, RefKind};

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

/// Hold back newer versions younger than their home's cooldown (seconds; 0: none). Each
/// such row reads its new version's date (the tip only is fetched), at most `jobs` at a
/// time, each within `timeout`; a date that cannot be read fails the row's check.
pub fn hold_back(
    checks: &mut [(crate::store::Home, crate::dialect::Dialect, Check)],
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
    checks: &[(crate::store::Home, crate::dialect::Dialect, Check)],
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
