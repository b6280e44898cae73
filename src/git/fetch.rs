//! Fetching a reference's tree into a directory.

use std::path::Path;
use std::rc::Rc;

use git2::{AutotagOption, FetchOptions, Oid, Repository};

use super::credentials::{self, callbacks};
use super::refs::{Choice, choose, commit_of, connect, list_refs, not_found};
use super::tree::{check_out, local_tree, signed_tag_name};
use super::{
    Fetched, GitError, RefKind, cli, is_local, proxy_options, reach, remote_error, scratch_repo,
};
use crate::auth::Userinfo;

/// Resolve `reference` on `url` and write its commit's tree into `dest`
/// (created). The objects are fetched into a scratch repository beside `dest`,
/// which is removed afterwards. `tag_hint`: a tag whose signature may cover a commit
/// asked for by id (`sync` of a row installed from that tag), fetched too when the
/// remote's tag still names the commit; the returned [`Fetched::signed`] holds it.
/// `on_bytes` hears the bytes received so far while libgit2 downloads (not for local
/// sources, nor those fetched with the git CLI).
pub fn fetch_tree(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    dest: &Path,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<Fetched, GitError> {
    cli::refuse_hostile(url)?;
    if is_local(url) {
        return local_tree(url, reference, tag_hint, dest);
    }
    if cli::wanted(url) {
        return cli::fetch_tree(url, userinfo, reference, tag_hint, dest);
    }
    // The guard deletes the scratch repository when the fetch is done.
    let (_scratch, repo) = scratch_repo(dest)?;
    // One connection lists the refs and then downloads what was chosen.
    let mut remote = repo.remote_anonymous(url)?;
    let auth = Rc::default();
    let _scope = credentials::scope(url, userinfo, &auth);
    let mut conn = connect(&mut remote, url, userinfo, &auth)?;
    let (refs, default) = list_refs(conn.remote())?;
    let tag_ids = tag_ids(conn.remote())?;
    let choice = choose(url, &refs, default, reference)?;
    log::debug!(
        "git: {url}: listed {} refs, resolved {}",
        refs.len(),
        choice.refname.as_deref().unwrap_or("a commit")
    );
    // A full commit id is asked for alone, one commit deep, where the server allows
    // wanting an id (GitHub, git's `uploadpack.allowReachableSHA1InWant`); a server that
    // refuses gets the full fetch, on a new connection.
    let pinned = reference
        .filter(|r| choice.kind == RefKind::Commit && r.len() == 40)
        .and_then(|r| Oid::from_str(r).ok());
    if let Some(oid) = pinned {
        let mut opts = options(url, userinfo, &auth, &mut *on_bytes);
        opts.depth(1);
        log::debug!("git: {url}: fetching {oid} alone, 1 deep");
        let mut refspecs = vec![format!("+{oid}:refs/plugins/pin")];
        // The hinted tag comes along while it still names the commit.
        let hinted = tag_hint
            .map(|t| format!("refs/tags/{t}"))
            .filter(|name| refs.iter().any(|(n, peeled)| n == name && *peeled == oid));
        refspecs.extend(hinted.iter().map(|name| format!("+{name}:{name}")));
        if came(conn.remote(), &repo, &refspecs, &mut opts, oid, url, &auth)? {
            drop(conn);
            let Some(commit) = super::read_commit(&repo, oid, url)? else {
                return Err(not_found(url, &oid.to_string(), &refs));
            };
            let probe = probe(url, userinfo, &auth);
            reach::ensure_published(url, &refs, oid, &repo, false, dest, probe)?;
            let tag = advertised(&tag_ids, hinted);
            return check_out(&repo, &commit, dest, RefKind::Commit, None, tag);
        }
        drop(conn);
        remote = repo.remote_anonymous(url)?;
        conn = connect(&mut remote, url, userinfo, &auth)?;
    }
    let mut opts = options(url, userinfo, &auth, on_bytes);
    let (complete, refspecs) = full_refspecs(&choice, &mut opts);
    // The commit is found by id afterwards, so no refs need updating.
    log::debug!("git: {url}: fetching {}", refspecs.join(" "));
    conn.remote()
        .download(&refspecs, Some(&mut opts))
        .map_err(|source| remote_error(url, "downloading", source, &auth))?;
    drop(conn);
    let commit = commit_of(&repo, url, &choice, reference, &refs)?;
    let probe = probe(url, userinfo, &auth);
    reach::ensure_published(url, &refs, commit.id(), &repo, complete, dest, probe)?;
    let tag = advertised(&tag_ids, signed_tag_name(&choice, tag_hint));
    check_out(&repo, &commit, dest, choice.kind, choice.refname, tag)
}

/// The tags `remote` advertised, by their own ids (an annotated tag's object, not its
/// commit): `download` writes no refs, so a tag object is found by the id it was
/// advertised with.
fn tag_ids(remote: &git2::Remote<'_>) -> Result<Vec<(String, Oid)>, GitError> {
    Ok(remote
        .list()?
        .iter()
        .filter(|h| h.name().starts_with("refs/tags/") && !h.name().ends_with("^{}"))
        .map(|h| (h.name().to_owned(), h.oid()))
        .collect())
}

/// The tag `name` (a `refs/tags/…` name) with the id [`tag_ids`] says it was advertised
/// with, if it was.
fn advertised(tag_ids: &[(String, Oid)], name: Option<String>) -> Option<(String, Oid)> {
    let name = name?;
    let id = tag_ids.iter().find(|(n, _)| *n == name)?.1;
    Some((name, id))
}

/// [`fetch_tree`]'s download options: no tags of their own, [`counting`] callbacks that
/// tell `on_bytes`, and the proxy for `url`.
fn options<'a>(
    url: &'a str,
    userinfo: Option<&'a Userinfo>,
    auth: &Rc<std::cell::RefCell<credentials::AuthState>>,
    on_bytes: &'a mut dyn FnMut(u64),
) -> FetchOptions<'a> {
    let mut opts = FetchOptions::new();
    opts.download_tags(AutotagOption::None)
        .remote_callbacks(counting(callbacks(url, userinfo, auth), auth, on_bytes))
        .proxy_options(proxy_options(url));
    opts
}

/// Download `refspecs` (the pinned commit `oid`, and the hinted tag) with `opts`: whether
/// `oid` came. A server that refuses an id, or does not send it, is logged and the full
/// fetch follows; a refusal for an object over the cap is the fetch's error.
fn came(
    remote: &mut git2::Remote<'_>,
    repo: &Repository,
    refspecs: &[String],
    opts: &mut FetchOptions<'_>,
    oid: Oid,
    url: &str,
    auth: &Rc<std::cell::RefCell<credentials::AuthState>>,
) -> Result<bool, GitError> {
    match remote.download(refspecs, Some(opts)) {
        Ok(()) if repo.odb()?.exists(oid) => Ok(true),
        Ok(()) => {
            log::debug!("git: {url}: {oid} did not come: fetching every ref");
            Ok(false)
        }
        Err(e) if auth.borrow().too_large.is_some() => {
            Err(remote_error(url, "downloading", e, auth))
        }
        Err(e) => {
            log::debug!("git: {url}: {oid} refused ({e}): fetching every ref");
            Ok(false)
        }
    }
}

/// What the full fetch of `choice` asks for, and whether that is every branch and tag: so
/// for a commit, or a choice with no ref; a branch or tag alone, one commit deep (`opts`
/// told so).
fn full_refspecs(choice: &Choice, opts: &mut FetchOptions<'_>) -> (bool, Vec<String>) {
    // Every branch and tag in full: the commit's reachability is known without more.
    let complete = matches!(
        (&choice.kind, &choice.refname),
        (RefKind::Commit, _) | (_, None)
    );
    let refspecs: Vec<String> = match (&choice.kind, &choice.refname) {
        (RefKind::Commit, _) | (_, None) => vec![
            "+refs/heads/*:refs/remotes/origin/*".into(),
            "+refs/tags/*:refs/tags/*".into(),
        ],
        (_, Some(name)) => {
            opts.depth(1);
            vec![format!("+{name}:{name}")]
        }
    };
    (complete, refspecs)
}

/// [`fetch_tree`] for a monorepo: resolve `reference` on `url` and write at least the
/// directories `subdirs` of its commit under `dest` (created), each at its path, with the
/// same checks. Over the network this is a partial clone with the git command where git
/// can be run ([`cli::fetch_subdirs`]: the commit and its root tree, the trees on the way,
/// then the subdirectories' contents), so the transfer is about the size of the
/// subdirectories, not of the repository (a server that does not filter sends everything,
/// which is still correct). Without git, or when the server refuses objects asked for by
/// id, the whole tree is fetched (with the same checks; `on_bytes` as [`fetch_tree`]). A
/// local repository is read in place.
pub fn fetch_subdirs(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    subdirs: &[String],
    dest: &Path,
    on_bytes: &mut dyn FnMut(u64),
) -> Result<Fetched, GitError> {
    cli::refuse_hostile(url)?;
    if is_local(url) {
        return local_tree(url, reference, tag_hint, dest);
    }
    match cli::fetch_subdirs(url, userinfo, reference, tag_hint, subdirs, dest) {
        Err(GitError::Cli(cli::CliError::NoGit { reason, .. })) if !cli::wanted(url) => {
            log::debug!("git: {url}: no partial fetch without git ({reason}): the whole tree");
        }
        Err(GitError::Cli(
            cli::CliError::Failed { verb, detail, .. }
            | cli::CliError::Aborted { verb, detail, .. },
        )) if verb == cli::BLOBS_PHASE => {
            log::debug!("git: {url}: the blobs were refused by id ({detail}): the whole tree");
        }
        done => return done,
    }
    // What a failed attempt left is removed before the full fetch writes there.
    let _ = fs_err::remove_dir_all(dest);
    fetch_tree(url, userinfo, reference, tag_hint, dest, on_bytes)
}

/// `cb` that also tells `on_bytes` the bytes received so far, as libgit2 reports them
/// (and stops an object over the cap, as [`callbacks`] does).
fn counting<'a>(
    mut cb: git2::RemoteCallbacks<'a>,
    auth: &Rc<std::cell::RefCell<credentials::AuthState>>,
    on_bytes: &'a mut dyn FnMut(u64),
) -> git2::RemoteCallbacks<'a> {
    let auth = auth.clone();
    cb.transfer_progress(move |progress| {
        on_bytes(progress.received_bytes() as u64);
        credentials::object_fits(&auth, &progress)
    });
    cb
}

/// [`reach::ensure_published`]'s probe with libgit2: a new connection that fetches
/// [`reach::probe_refspecs`] at `depth` into `repo`.
fn probe<'a>(
    url: &'a str,
    userinfo: Option<&'a Userinfo>,
    auth: &'a Rc<std::cell::RefCell<credentials::AuthState>>,
) -> impl FnMut(&Repository, &Path, Option<i32>) -> Result<(), GitError> + 'a {
    move |repo, _, depth| {
        let mut remote = repo.remote_anonymous(url)?;
        let mut conn = connect(&mut remote, url, userinfo, auth)?;
        let mut opts = FetchOptions::new();
        opts.download_tags(AutotagOption::None)
            .remote_callbacks(callbacks(url, userinfo, auth))
            .proxy_options(proxy_options(url));
        if let Some(depth) = depth {
            opts.depth(depth);
        }
        conn.remote()
            .download(reach::probe_refspecs(depth), Some(&mut opts))
            .map_err(|source| remote_error(url, "downloading", source, auth))
    }
}

/// Git's ignore rules for a local directory inside a work tree, read-only.
pub struct Ignored {
    repo: Repository,
    /// The directory, relative to the work tree.
    prefix: std::path::PathBuf,
}

impl Ignored {
    /// The rules for `dir`, when it is inside a git work tree.
    pub fn for_dir(dir: &Path) -> Option<Ignored> {
        let repo = Repository::discover(dir).ok()?;
        let workdir = fs_err::canonicalize(repo.workdir()?).ok()?;
        let prefix = fs_err::canonicalize(dir)
            .ok()?
            .strip_prefix(&workdir)
            .ok()?
            .to_path_buf();
        Some(Ignored { repo, prefix })
    }

    /// Whether git ignores `rel` (relative to the directory).
    pub fn is_ignored(&self, rel: &Path) -> bool {
        self.repo
            .is_path_ignored(self.prefix.join(rel))
            .unwrap_or(false)
    }
}
