//! Listing a remote's refs (`ls-remote`) through the transport that serves its URL: the
//! git command, the git daemon protocol, a local repository read in place, or libgit2.

use std::rc::Rc;

use super::refs::{connect, list_refs, local_path, local_refs};
use super::shared::remember;
use super::{GitError, cli, credentials, daemon};
use crate::auth::Userinfo;

/// The refs a remote advertises (annotated tags peeled), without fetching objects.
pub fn ls_remote(
    url: &str,
    userinfo: Option<&Userinfo>,
) -> Result<Vec<(String, String)>, GitError> {
    cli::refuse_hostile(url)?;
    if cli::wanted(url) {
        return cli::ls_remote(url, userinfo);
    }
    if url.starts_with("git://") {
        return daemon::ls_remote(url);
    }
    if super::is_local(url) {
        let repo = git2::Repository::open(local_path(url)).map_err(|error| GitError::Remote {
            url: url.to_owned(),
            error,
        })?;
        return Ok(local_refs(&repo)
            .into_iter()
            .map(|(n, oid)| (n, oid.to_string()))
            .collect());
    }
    let mut remote = git2::Remote::create_detached(url)?;
    let auth = Rc::default();
    let _scope = credentials::scope(url, userinfo, &auth);
    let mut conn = connect(&mut remote, url, userinfo, &auth)?;
    let listed = list_refs(conn.remote())?;
    log::debug!("git: {url}: listed {} refs", listed.0.len());
    drop(conn);
    remember(url, userinfo, &listed);
    Ok(listed
        .0
        .into_iter()
        .map(|(n, oid)| (n, oid.to_string()))
        .collect())
}
