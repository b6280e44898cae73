//! Listing a remote's refs and choosing the commit a reference names.

use std::cell::RefCell;
use std::rc::Rc;

use git2::{Direction, Oid, Repository};

use super::credentials::{AuthState, callbacks};
use super::{GitError, RefKind, credential_helper_configured, proxy_options, remote_error};
use crate::auth::Userinfo;

fn is_hex(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A remote's refs as (name, peeled commit) pairs, and its default branch.
pub(super) type Refs = (Vec<(String, Oid)>, Option<String>);

/// The remote's refs as (name, peeled commit) pairs; annotated tags are peeled.
pub(super) fn list_refs(remote: &git2::Remote<'_>) -> Result<Refs, GitError> {
    let mut refs: Vec<(String, Oid)> = Vec::new();
    for head in remote.list()? {
        let name = head.name();
        if let Some(base) = name.strip_suffix("^{}") {
            // The peeled commit of an annotated tag replaces the tag object.
            if let Some(slot) = refs.iter_mut().find(|(n, _)| n == base) {
                slot.1 = head.oid();
            }
            continue;
        }
        refs.push((name.to_owned(), head.oid()));
    }
    let default = remote
        .default_branch()
        .ok()
        .and_then(|b| b.as_str().ok().map(str::to_owned));
    Ok((refs, default))
}

/// Open the fetch connection (with credentials and proxy), naming the URL when
/// the remote cannot be reached.
pub(super) fn connect<'r, 'cb>(
    remote: &'cb mut git2::Remote<'r>,
    url: &'cb str,
    userinfo: Option<&'cb Userinfo>,
    auth: &Rc<RefCell<AuthState>>,
) -> Result<git2::RemoteConnection<'r, 'cb, 'cb>, GitError> {
    log::debug!(
        "git: {url}: connecting (credentials if asked: {})",
        crate::net::describe_sources(&crate::net::credential_sources(
            url,
            userinfo.is_some(),
            credential_helper_configured()
        ))
    );
    remote
        .connect_auth(
            Direction::Fetch,
            Some(callbacks(url, userinfo, auth)),
            Some(proxy_options(url)),
        )
        .map_err(|source| remote_error(url, "connecting and listing refs", source, auth))
}

/// A local repository's refs, read in place: each ref with the commit it names (an
/// annotated tag peeled by reading the tag objects raw, never by parsing a commit). So a
/// commit whose author or committer line does not parse is listed like any other and is
/// named by [`super::read_commit`] when it is read (`plugins::git::bad_object`), instead of
/// failing the listing ("cannot reach") or dropping its ref ("ref not found").
pub(super) fn local_refs(repo: &git2::Repository) -> Vec<(String, Oid)> {
    let peeled = |mut oid: Oid| -> Option<Oid> {
        let odb = repo.odb().ok()?;
        for _ in 0..16 {
            let object = odb.read(oid).ok()?;
            match object.kind() {
                git2::ObjectType::Commit => return Some(oid),
                git2::ObjectType::Tag => {
                    let first = object.data().split(|b| *b == b'\n').next()?;
                    let hex = std::str::from_utf8(first.strip_prefix(b"object ")?).ok()?;
                    oid = Oid::from_str(hex.trim()).ok()?;
                }
                _ => return None,
            }
        }
        None
    };
    let mut refs = Vec::new();
    if let Ok(head) = repo.refname_to_id("HEAD")
        && let Some(commit) = peeled(head)
    {
        refs.push(("HEAD".to_owned(), commit));
    }
    for r in repo.references().into_iter().flatten().flatten() {
        if let (Ok(name), Some(target)) = (r.name().map(str::to_owned), r.target())
            && let Some(commit) = peeled(target)
        {
            refs.push((name, commit));
        }
    }
    refs
}

/// The local path of a `file://` URL or plain path.
pub(super) fn local_path(url: &str) -> &str {
    url.strip_prefix("file://").unwrap_or(url)
}

/// What a requested ref names among a repository's refs. `tip` is `None` for a
/// bare commit, which is looked up in the objects instead.
pub(super) struct Choice {
    pub(super) kind: RefKind,
    pub(super) refname: Option<String>,
    pub(super) tip: Option<Oid>,
}

pub(super) fn not_found(url: &str, reference: &str, refs: &[(String, Oid)]) -> GitError {
    let available = refs
        .iter()
        .filter_map(|(n, _)| {
            n.strip_prefix("refs/heads/")
                .or_else(|| n.strip_prefix("refs/tags/"))
        })
        .map(str::to_owned)
        .collect();
    GitError::RefNotFound {
        url: url.to_owned(),
        reference: reference.to_owned(),
        available,
    }
}

/// Resolve the requested ref: a branch, then a tag, then a full ref name, then a
/// (short or full) commit; no ref means the default branch.
pub(super) fn choose(
    url: &str,
    refs: &[(String, Oid)],
    default: Option<String>,
    reference: Option<&str>,
) -> Result<Choice, GitError> {
    let find = |name: &str| refs.iter().find(|(n, _)| n == name).map(|(_, oid)| *oid);
    let Some(r) = reference else {
        let name = default
            .or_else(|| {
                refs.iter()
                    .find(|(n, _)| n.starts_with("refs/heads/"))
                    .map(|(n, _)| n.clone())
            })
            .ok_or_else(|| not_found(url, "HEAD", refs))?;
        let tip = find("HEAD").or_else(|| find(&name));
        return Ok(Choice {
            kind: RefKind::Default,
            refname: Some(name),
            tip,
        });
    };
    let (branch, tag) = (format!("refs/heads/{r}"), format!("refs/tags/{r}"));
    if let Some(tip) = find(&branch) {
        Ok(Choice {
            kind: RefKind::Branch,
            refname: Some(branch),
            tip: Some(tip),
        })
    } else if let Some(tip) = find(&tag) {
        Ok(Choice {
            kind: RefKind::Tag,
            refname: Some(tag),
            tip: Some(tip),
        })
    } else if let (true, Some(tip)) = (r.starts_with("refs/"), find(r)) {
        let kind = if r.starts_with("refs/tags/") {
            RefKind::Tag
        } else {
            RefKind::Branch
        };
        Ok(Choice {
            kind,
            refname: Some(r.to_owned()),
            tip: Some(tip),
        })
    } else if is_hex(r) {
        Ok(Choice {
            kind: RefKind::Commit,
            refname: None,
            tip: None,
        })
    } else {
        Err(not_found(url, r, refs))
    }
}

/// The commit a choice names: its tip, or the (short) commit looked up in `repo`.
pub(super) fn commit_of<'r>(
    repo: &'r Repository,
    url: &str,
    choice: &Choice,
    reference: Option<&str>,
    refs: &[(String, Oid)],
) -> Result<git2::Commit<'r>, GitError> {
    match choice.tip {
        Some(oid) => super::read_commit(repo, oid, url)?
            .ok_or_else(|| git2::Error::from_str(&format!("{oid} did not come")).into()),
        None => {
            let r = reference.unwrap_or("HEAD");
            let object = repo
                .revparse_single(r)
                .map_err(|_| not_found(url, r, refs))?;
            let id = object.id();
            object.peel_to_commit().map_err(|e| {
                if e.code() == git2::ErrorCode::NotFound {
                    not_found(url, r, refs)
                } else {
                    super::bad_object(url, id, &e)
                }
            })
        }
    }
}
