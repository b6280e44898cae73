//! The only git2 user: resolve a ref on a remote and check out that commit's
//! tree into a directory (no `.git` kept, no submodules).
//!
//! Branches and tags are fetched shallow (depth 1) over network transports;
//! libgit2's local transport refuses shallow fetches, so `file://` and paths
//! fetch in full. A bare commit needs a full fetch on any transport.

use std::path::Path;

use git2::{AutotagOption, Direction, FetchOptions, Oid, Repository};

/// What kind of ref the user asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    /// No ref given: the remote's default branch.
    Default,
    Branch,
    Tag,
    Commit,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Default => "default",
            RefKind::Branch => "branch",
            RefKind::Tag => "tag",
            RefKind::Commit => "commit",
        }
    }
}

/// A checked-out commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    /// The 40-hex commit.
    pub commit: String,
    pub kind: RefKind,
    /// The full ref name that was resolved (`refs/tags/v1.0.0`), if any.
    pub refname: Option<String>,
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("ref `{reference}` not found on {url}")]
    RefNotFound {
        url: String,
        reference: String,
        available: Vec<String>,
    },
    #[error("cannot reach {url}: {source}")]
    Remote { url: String, source: git2::Error },
    #[error("git: {0}")]
    Other(#[from] git2::Error),
}

/// Whether libgit2 would use its local transport (which cannot fetch shallow).
pub fn is_local(url: &str) -> bool {
    url.starts_with("file://") || url.starts_with('/') || url.starts_with('.')
}

fn is_hex(s: &str) -> bool {
    (7..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A remote's refs as (name, peeled commit) pairs, and its default branch.
type Refs = (Vec<(String, Oid)>, Option<String>);

/// The remote's refs as (name, peeled commit) pairs; annotated tags are peeled.
fn list_refs(remote: &git2::Remote<'_>) -> Result<Refs, GitError> {
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

/// The local path of a `file://` URL or plain path.
fn local_path(url: &str) -> &str {
    url.strip_prefix("file://").unwrap_or(url)
}

/// A local repository needs no fetch: resolve the ref in it and write the
/// commit's tree straight into `dest` (libgit2's local transport cannot fetch
/// shallow, so a fetch would copy the whole history).
fn local_tree(url: &str, reference: Option<&str>, dest: &Path) -> Result<Fetched, GitError> {
    let repo = Repository::open(local_path(url)).map_err(|source| GitError::Remote {
        url: url.to_owned(),
        source,
    })?;
    let mut refs: Vec<(String, Oid)> = Vec::new();
    for r in repo.references()? {
        let r = r?;
        if let (Ok(name), Ok(commit)) = (r.name().map(str::to_owned), r.peel_to_commit()) {
            refs.push((name, commit.id()));
        }
    }
    let head = repo
        .find_reference("HEAD")
        .ok()
        .and_then(|h| h.symbolic_target().ok().flatten().map(str::to_owned));
    let find = |name: &str| refs.iter().find(|(n, _)| n == name).map(|(_, oid)| *oid);
    let (kind, refname, oid) = match reference {
        None => {
            let name = head.ok_or_else(|| GitError::RefNotFound {
                url: url.to_owned(),
                reference: "HEAD".into(),
                available: Vec::new(),
            })?;
            let oid = find(&name);
            (RefKind::Default, Some(name), oid)
        }
        Some(r) => {
            let (branch, tag) = (format!("refs/heads/{r}"), format!("refs/tags/{r}"));
            if let Some(oid) = find(&branch) {
                (RefKind::Branch, Some(branch), Some(oid))
            } else if let Some(oid) = find(&tag) {
                (RefKind::Tag, Some(tag), Some(oid))
            } else if is_hex(r) {
                let oid = repo
                    .revparse_single(r)
                    .and_then(|o| o.peel_to_commit())
                    .map(|c| c.id())
                    .ok();
                (RefKind::Commit, None, oid)
            } else {
                (RefKind::Branch, None, None)
            }
        }
    };
    let Some(oid) = oid else {
        let available = refs
            .iter()
            .filter_map(|(n, _)| {
                n.strip_prefix("refs/heads/")
                    .or_else(|| n.strip_prefix("refs/tags/"))
            })
            .map(str::to_owned)
            .collect();
        return Err(GitError::RefNotFound {
            url: url.to_owned(),
            reference: reference.unwrap_or("HEAD").to_owned(),
            available,
        });
    };
    let commit = repo.find_commit(oid)?;
    std::fs::create_dir_all(dest)
        .map_err(|e| git2::Error::from_str(&format!("cannot create {}: {e}", dest.display())))?;
    let mut checkout = git2::build::CheckoutBuilder::new();
    checkout.force().target_dir(dest);
    repo.checkout_tree(commit.as_object(), Some(&mut checkout))?;
    Ok(Fetched {
        commit: oid.to_string(),
        kind,
        refname,
    })
}

/// Resolve `reference` on `url` and check out its commit into `dest` (created).
/// A `.git` directory may be left in `dest`; callers remove it.
pub fn fetch_tree(url: &str, reference: Option<&str>, dest: &Path) -> Result<Fetched, GitError> {
    if is_local(url) {
        return local_tree(url, reference, dest);
    }
    std::fs::create_dir_all(dest)
        .map_err(|e| git2::Error::from_str(&format!("cannot create {}: {e}", dest.display())))?;
    let repo = Repository::init(dest)?;
    // One connection lists the refs and then downloads what was chosen.
    let mut remote = repo.remote_anonymous(url)?;
    remote
        .connect(Direction::Fetch)
        .map_err(|source| GitError::Remote {
            url: url.to_owned(),
            source,
        })?;
    let (refs, default) = list_refs(&remote)?;
    let find = |name: &str| refs.iter().find(|(n, _)| n == name).map(|(_, oid)| *oid);
    let (kind, refname, tip) = match reference {
        None => {
            let name = default.clone().or_else(|| {
                refs.iter()
                    .find(|(n, _)| n.starts_with("refs/heads/"))
                    .map(|(n, _)| n.clone())
            });
            let name = name.ok_or_else(|| GitError::RefNotFound {
                url: url.to_owned(),
                reference: "HEAD".into(),
                available: Vec::new(),
            })?;
            let oid = find("HEAD").or_else(|| find(&name));
            (RefKind::Default, Some(name), oid)
        }
        Some(r) => {
            let branch = format!("refs/heads/{r}");
            let tag = format!("refs/tags/{r}");
            if let Some(oid) = find(&branch) {
                (RefKind::Branch, Some(branch), Some(oid))
            } else if let Some(oid) = find(&tag) {
                (RefKind::Tag, Some(tag), Some(oid))
            } else if r.starts_with("refs/") && find(r).is_some() {
                let kind = if r.starts_with("refs/tags/") {
                    RefKind::Tag
                } else {
                    RefKind::Branch
                };
                (kind, Some(r.to_owned()), find(r))
            } else if is_hex(r) {
                (RefKind::Commit, None, None)
            } else {
                let available = refs
                    .iter()
                    .filter_map(|(n, _)| {
                        n.strip_prefix("refs/heads/")
                            .or_else(|| n.strip_prefix("refs/tags/"))
                    })
                    .map(str::to_owned)
                    .collect();
                return Err(GitError::RefNotFound {
                    url: url.to_owned(),
                    reference: r.to_owned(),
                    available,
                });
            }
        }
    };
    let mut opts = FetchOptions::new();
    opts.download_tags(AutotagOption::None);
    let refspecs: Vec<String> = match (&kind, &refname) {
        (RefKind::Commit, _) | (_, None) => vec![
            "+refs/heads/*:refs/remotes/origin/*".into(),
            "+refs/tags/*:refs/tags/*".into(),
        ],
        (_, Some(name)) => {
            opts.depth(1);
            vec![format!("+{name}:{name}")]
        }
    };
    // The commit is found by id afterwards, so no refs need updating.
    remote
        .download(&refspecs, Some(&mut opts))
        .map_err(|source| GitError::Remote {
            url: url.to_owned(),
            source,
        })?;
    let _ = remote.disconnect();
    let commit = match tip {
        Some(oid) => repo.find_commit(oid)?,
        None => {
            let r = reference.unwrap_or("HEAD");
            repo.revparse_single(r)
                .and_then(|o| o.peel_to_commit())
                .map_err(|_| GitError::RefNotFound {
                    url: url.to_owned(),
                    reference: r.to_owned(),
                    available: Vec::new(),
                })?
        }
    };
    let mut checkout = git2::build::CheckoutBuilder::new();
    checkout.force();
    repo.checkout_tree(commit.as_object(), Some(&mut checkout))?;
    repo.set_head_detached(commit.id())?;
    Ok(Fetched {
        commit: commit.id().to_string(),
        kind,
        refname,
    })
}
