//! What the transfers of one command share (issue 43: one ref listing per URL and one
//! fetch per repository and commit, per command): each remote's listing, and the
//! repositories the git command fetched a commit into, kept until the command ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use git2::Oid;

use super::refs::Refs;
use crate::auth::Userinfo;

/// The command's share while a [`SharedTransfers`] lives: `None` otherwise.
static SHARED: Mutex<Option<State>> = Mutex::new(None);

/// (remote, credentials' user).
type Key = (String, Option<String>);

#[derive(Default)]
struct State {
    listings: HashMap<Key, Refs>,
    kept: Vec<Kept>,
    /// The history a monorepo fetch brings with its commit (`update --dry-run`: what the
    /// review walks), in commits; 0: the commit alone.
    history: usize,
}

/// A repository the git command fetched a commit into.
struct Kept {
    key: Key,
    commit: Oid,
    /// The commits of history it holds (1: the commit alone).
    depth: usize,
    /// It holds every tree of that history (a fetch without blobs or in full), not only
    /// the root trees.
    trees: bool,
    /// Held while the repository is read or fetched into.
    dir: Arc<Mutex<tempfile::TempDir>>,
}

/// While it lives, a remote listed once is not listed again: the git command's fetches
/// choose from the listing the update check made ([`remembered`]) and fetch a branch by
/// the id it listed, which asks the server for no listing of its own. A monorepo's commit
/// is fetched once: the ancestry check's fetch of it (and, in a command that walks the
/// history, `update --dry-run`, the first fetch of it, with that history) is kept, and
/// written and walked from ([`kept`]). Dropped when the command ends, so a later command
/// lists and fetches afresh.
#[must_use]
pub struct SharedTransfers(());

/// Share the command's transfers until the guard drops ([`SharedTransfers`]); `history`:
/// the commits of history a monorepo's fetch brings along with its commit, for a review's
/// walk (0: none).
pub fn share_transfers(history: usize) -> SharedTransfers {
    if let Ok(mut shared) = SHARED.lock() {
        *shared = Some(State {
            history,
            ..State::default()
        });
    }
    SharedTransfers(())
}

impl Drop for SharedTransfers {
    fn drop(&mut self) {
        let state = SHARED.lock().ok().and_then(|mut s| s.take());
        // The kept repositories are removed here, outside the lock.
        drop(state);
    }
}

fn key(url: &str, userinfo: Option<&Userinfo>) -> Key {
    (url.to_owned(), userinfo.map(|u| u.user.clone()))
}

/// The listing of `url` this command made already, if the command shares one.
pub(super) fn remembered(url: &str, userinfo: Option<&Userinfo>) -> Option<Refs> {
    let shared = SHARED.lock().ok()?;
    let refs = shared.as_ref()?.listings.get(&key(url, userinfo)).cloned();
    if refs.is_some() {
        log::debug!("git: {url}: the refs this command listed already");
    }
    refs
}

/// Keep `refs`, the listing of `url`, for the rest of the command (when it shares).
pub(super) fn remember(url: &str, userinfo: Option<&Userinfo>, refs: &Refs) {
    if let Ok(mut shared) = SHARED.lock()
        && let Some(shared) = shared.as_mut()
    {
        shared.listings.insert(key(url, userinfo), refs.clone());
    }
}

/// The commits of history a monorepo fetch brings in this command, with every tree of
/// them, when the command walks them (`update --dry-run`): then the fetch is kept
/// ([`keep`]) for the command's other fetches and walks of the commit. `None` otherwise.
pub(super) fn history() -> Option<usize> {
    let shared = SHARED.lock().ok()?;
    shared.as_ref().map(|s| s.history).filter(|h| *h > 0)
}

/// A repository of this command's that holds `commit` of `url` with `depth` commits of its
/// history (and, with `trees`, every tree of them).
pub(super) fn kept(
    url: &str,
    userinfo: Option<&Userinfo>,
    commit: Oid,
    (depth, trees): (usize, bool),
) -> Option<Arc<Mutex<tempfile::TempDir>>> {
    let shared = SHARED.lock().ok()?;
    let key = key(url, userinfo);
    let found =
        shared.as_ref()?.kept.iter().find(|k| {
            k.key == key && k.commit == commit && k.depth >= depth && (k.trees || !trees)
        })?;
    log::debug!("git: {url}: {commit} was fetched already in this command");
    Some(found.dir.clone())
}

/// Keep `dir`, the repository `commit` of `url` was fetched into with `depth` commits of
/// history (and, with `trees`, every tree), until the command ends; dropped at once when
/// the command shares nothing.
pub(super) fn keep(
    url: &str,
    userinfo: Option<&Userinfo>,
    commit: Oid,
    (depth, trees): (usize, bool),
    dir: tempfile::TempDir,
) {
    let Ok(mut shared) = SHARED.lock() else {
        return;
    };
    if let Some(shared) = shared.as_mut() {
        shared.kept.push(Kept {
            key: key(url, userinfo),
            commit,
            depth,
            trees,
            dir: Arc::new(Mutex::new(dir)),
        });
    }
}

/// A bare scratch repository in the temp directory, for a fetch this command keeps
/// ([`keep`]); removed with the returned guard.
pub(super) fn scratch() -> Result<(tempfile::TempDir, git2::Repository), super::GitError> {
    let dir = crate::scratch::dir("fetch")
        .map_err(|e| git2::Error::from_str(&format!("cannot create a scratch repository: {e}")))?;
    let repo = git2::Repository::init_bare(dir.path())?;
    Ok((dir, repo))
}

/// The repository of this command's that holds the tip this command's listing of `url`
/// gave the first of `candidates` it has (a branch or `HEAD`; a tag's own object would be
/// missing), with `depth` commits of history and every tree: what a walk reads.
pub(super) fn kept_history(
    url: &str,
    userinfo: Option<&Userinfo>,
    candidates: &[String],
    depth: usize,
) -> Option<(Arc<Mutex<tempfile::TempDir>>, Oid)> {
    let (refs, _) = remembered(url, userinfo)?;
    let (name, tip) = candidates
        .iter()
        .find_map(|c| refs.iter().find(|(n, _)| n == c))?;
    if name.starts_with("refs/tags/") {
        return None;
    }
    Some((kept(url, userinfo, *tip, (depth, true))?, *tip))
}
