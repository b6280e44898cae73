//! The ref listings one command shares (issue 43: one ref listing per URL per command).

use std::collections::HashMap;
use std::sync::Mutex;

use super::refs::Refs;
use crate::auth::Userinfo;

/// The listings of the command under way, by (remote, credentials' user), while a
/// [`SharedListings`] lives: `None` otherwise.
static LISTED: Mutex<Option<HashMap<Key, Refs>>> = Mutex::new(None);

/// (remote, credentials' user).
type Key = (String, Option<String>);

/// While it lives, a remote listed once is not listed again (issue 43: one ref listing per
/// URL per command): the git command's fetches choose from the listing the update check
/// made ([`remembered`]), and fetch a branch by the id it listed, which asks the server for
/// no listing of its own. Dropped when the command ends, so a later command lists afresh.
#[must_use]
pub struct SharedListings(());

/// Remember each remote's listing until the guard drops ([`SharedListings`]).
pub fn share_listings() -> SharedListings {
    if let Ok(mut listed) = LISTED.lock() {
        *listed = Some(HashMap::new());
    }
    SharedListings(())
}

impl Drop for SharedListings {
    fn drop(&mut self) {
        if let Ok(mut listed) = LISTED.lock() {
            *listed = None;
        }
    }
}

fn key(url: &str, userinfo: Option<&Userinfo>) -> Key {
    (url.to_owned(), userinfo.map(|u| u.user.clone()))
}

/// The listing of `url` this command made already, if one is shared ([`share_listings`]).
pub(super) fn remembered(url: &str, userinfo: Option<&Userinfo>) -> Option<Refs> {
    let listed = LISTED.lock().ok()?;
    let refs = listed.as_ref()?.get(&key(url, userinfo)).cloned();
    if refs.is_some() {
        log::debug!("git: {url}: the refs this command listed already");
    }
    refs
}

/// Keep `refs`, the listing of `url`, for the rest of the command (when shared).
pub(super) fn remember(url: &str, userinfo: Option<&Userinfo>, refs: &Refs) {
    if let Ok(mut listed) = LISTED.lock()
        && let Some(listed) = listed.as_mut()
    {
        listed.insert(key(url, userinfo), refs.clone());
    }
}
