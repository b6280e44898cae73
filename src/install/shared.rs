//! Monorepo fetches that the plugins of one command share: one fetch per repository and
//! commit, whatever the number of its plugins (`update --all`, `sync`, `autoupdate`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::git::{self, Fetched, GitError};
use crate::lock::Entry;
use crate::source::Source;

/// What a shared fetch asks of one install: its source, the lock row it is pinned to, and
/// whether it expects an id. The install options implement it (`options.rs`), which hold
/// the fetches their command shares: so this file does not name them back.
pub(crate) trait Wants {
    /// The source the plugin is installed from.
    fn source(&self) -> &Source;
    /// `sync`: the lock row whose commit is installed exactly.
    fn pin(&self) -> Option<&Entry>;
    /// Whether the install expects a plugin id (its ref was decided before).
    fn expects_id(&self) -> bool;
    /// A commit of the branch to install instead of its tip (a cooldown settled on it).
    fn at_commit(&self) -> Option<&String>;
}

/// The fetches one command's installs share: each group (a repository and the ref or
/// commit wanted) holds the subdirectories its plugins install, fetched together by the
/// first of them that gets there, written once, and copied by each.
#[derive(Debug, Default)]
pub struct SharedFetches {
    groups: HashMap<Key, Group>,
}

/// (the remote without scheme case, credentials' user, trailing `/` or `.git`; the ref or
/// commit wanted; the tag whose signature comes along).
type Key = (String, Option<String>, Option<String>, Option<String>);

/// Shared through the install options of one command.
pub(super) type Shared = Arc<SharedFetches>;

#[derive(Debug)]
struct Group {
    subdirs: Vec<String>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Not yet fetched: `None`; fetched: the written subdirectories and the commit; a
    /// failed fetch: `Some(None)` (each plugin then fetches alone, to report its own error).
    done: Option<Option<(tempfile::TempDir, Fetched)>>,
    /// Plugins that have not taken their copy; the last one removes the directory.
    left: usize,
}

impl SharedFetches {
    /// The groups of `installs` that more than one plugin shares.
    pub(crate) fn of<'a, W: Wants + 'a>(installs: impl Iterator<Item = &'a W>) -> SharedFetches {
        let mut groups: HashMap<Key, Group> = HashMap::new();
        for opts in installs {
            let (Some(key), Some(subdir)) = (key(opts), opts.source().subdir()) else {
                continue;
            };
            let group = groups.entry(key).or_insert_with(|| Group {
                subdirs: Vec::new(),
                state: Mutex::default(),
            });
            group.subdirs.push(subdir.to_owned());
            group.state.lock().expect("not poisoned").left += 1;
        }
        groups.retain(|_, g| g.subdirs.len() > 1);
        SharedFetches { groups }
    }

    /// Whether no two plugins share a fetch.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Whether the plugin `opts` installs says `Fetching` and `Fetched` for its fetch: in a
    /// group, only its first plugin in the command's order does (issue 43: the one fetch was
    /// announced once per plugin, and whichever worker asked first announced it, so another
    /// plugin's line could come before it); a plugin in no group always does.
    pub(super) fn announces(&self, opts: &impl Wants) -> bool {
        let Some(group) = key(opts).and_then(|k| self.groups.get(&k)) else {
            return true;
        };
        group.subdirs.first().map(String::as_str) == opts.source().subdir()
    }

    /// `subdir` of the group `opts` belongs to, written at `into/<subdir>` (as
    /// [`git::fetch_subdirs`] writes it), fetched with the group's other subdirectories
    /// if no plugin of the group has fetched it yet; `None` when `opts` is in no group or
    /// the group's fetch failed (the caller fetches alone).
    pub(super) fn take(&self, opts: &impl Wants, into: &Path) -> Option<Result<Fetched, GitError>> {
        let group = self.groups.get(&key(opts)?)?;
        let subdir = opts.source().subdir()?;
        let Source::Git { url, userinfo, .. } = opts.source() else {
            return None;
        };
        let (want, tag_hint) = wanted(opts);
        let mut state = group.state.lock().ok()?;
        state.left = state.left.saturating_sub(1);
        if state.done.is_none() {
            let fetched = shared_dir(into).and_then(|dir| {
                let fetched = git::fetch_subdirs(
                    url,
                    userinfo.as_ref(),
                    want.as_deref(),
                    tag_hint,
                    &group.subdirs,
                    &dir.path().join("repo"),
                    &mut |_| {},
                )?;
                Ok((dir, fetched))
            });
            match fetched {
                Ok(done) => state.done = Some(Some(done)),
                Err(e) => {
                    state.done = Some(None);
                    return Some(Err(e));
                }
            }
        }
        let (dir, fetched) = state.done.as_ref()?.as_ref()?;
        let repo = dir.path().join("repo");
        let copied = copy_path(&repo, subdir, into).map(|()| fetched.clone());
        if state.left == 0 {
            // The last plugin of the group: nothing more is copied from it.
            state.done = Some(None);
        }
        Some(copied)
    }
}

/// Copy `repo/<subdir>` (and the symlink a path through one stops at) into `into`, as
/// [`git::fetch_subdirs`] would have written it there.
fn copy_path(repo: &Path, subdir: &str, into: &Path) -> Result<(), GitError> {
    let fail = |e: String| GitError::Other(git2::Error::from_str(&e));
    fs_err::create_dir_all(into).map_err(|e| fail(e.to_string()))?;
    let mut from = repo.to_path_buf();
    let mut to = into.to_path_buf();
    for part in subdir.split('/').filter(|p| !p.is_empty()) {
        from.push(part);
        to.push(part);
        match fs_err::symlink_metadata(&from) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs_err::read_link(&from).map_err(|e| fail(e.to_string()))?;
                #[cfg(unix)]
                fs_err::os::unix::fs::symlink(target, &to).map_err(|e| fail(e.to_string()))?;
                #[cfg(not(unix))]
                let _ = target;
                return Ok(());
            }
            Ok(m) if m.is_dir() => {}
            _ => return Ok(()),
        }
    }
    if let Some(parent) = to.parent() {
        fs_err::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
    }
    crate::tree::copy(&from, &to, &|_, _| false)
        .map(drop)
        .map_err(|e| fail(e.to_string()))
}

/// The group's directory: beside the staging of the first plugin (named as staging is,
/// so a killed command's is removed by the next one's recovery), else in the temp directory.
fn shared_dir(into: &Path) -> Result<tempfile::TempDir, GitError> {
    let prefix = super::txn::staging_prefix();
    into.parent()
        .and_then(Path::parent)
        .and_then(|p| tempfile::Builder::new().prefix(&prefix).tempdir_in(p).ok())
        .map_or_else(
            || {
                crate::scratch::dir("mono").map_err(|e| {
                    GitError::Other(git2::Error::from_str(&format!(
                        "cannot create a scratch directory: {e}"
                    )))
                })
            },
            Ok,
        )
}

/// The ref or commit an update or sync fetches (they decided it before), and the tag
/// whose signature comes along (`sync` of a row installed from a tag).
pub(super) fn wanted(opts: &impl Wants) -> (Option<String>, Option<&str>) {
    let reference = match opts.source() {
        Source::Git { reference, .. } => reference.clone(),
        Source::Local { .. } => None,
    };
    let want = opts
        .pin()
        .and_then(|p| p.commit.clone())
        .or_else(|| opts.at_commit().cloned())
        .or(reference);
    let tag_hint = opts
        .pin()
        .filter(|p| p.ref_kind == Some(git::RefKind::Tag) && !p.requested_ref.is_empty())
        .map(|p| p.requested_ref.as_str());
    (want, tag_hint)
}

/// The group of a monorepo install whose ref was decided before (`sync`, `update`); `None`
/// for others (a fresh install may look up a release first).
fn key(opts: &impl Wants) -> Option<Key> {
    let Source::Git {
        url,
        userinfo,
        subdir: Some(_),
        ..
    } = opts.source()
    else {
        return None;
    };
    if opts.pin().is_none() && !opts.expects_id() {
        return None;
    }
    let (want, tag_hint) = wanted(opts);
    Some((
        normalized(url),
        userinfo.as_ref().map(|u| u.user.clone()),
        want,
        tag_hint.map(str::to_owned),
    ))
}

/// One spelling per repository: the scheme and host in lower case, no trailing `/` or
/// `.git`.
fn normalized(url: &str) -> String {
    let url = url.trim_end_matches('/');
    let url = url.strip_suffix(".git").unwrap_or(url);
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            format!(
                "{}://{}{path}",
                scheme.to_ascii_lowercase(),
                host.to_ascii_lowercase()
            )
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::normalized;

    #[test]
    fn one_spelling_per_repository() {
        assert_eq!(
            normalized("HTTPS://GitHub.com/Acme/mono.git/"),
            "https://github.com/Acme/mono"
        );
        assert_eq!(
            normalized("https://github.com/Acme/mono"),
            "https://github.com/Acme/mono"
        );
        assert_eq!(normalized("/srv/mono.git"), "/srv/mono");
    }
}
