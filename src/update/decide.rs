//! The rules: what a remote's refs (listed, no objects fetched) mean for one lock row
//! (spec `protoagent.md` §6, `aoe.md` §17; see the module's doc).

use super::Status;
use crate::git::RefKind;
use crate::lock::Entry;

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
            // A tag is a name for one commit: the same tag at another commit was moved.
            match compare(r, find(&format!("refs/tags/{r}"))) {
                Status::Behind { new_ref, commit } => Status::Repointed { new_ref, commit },
                other => other,
            }
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
