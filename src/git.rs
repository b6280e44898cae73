//! The only git2 user: resolve a ref on a remote and write that commit's tree
//! into a directory (no `.git`, no submodules) from the object database, with
//! every name checked; a local source repository is only ever read.
//!
//! Branches and tags are fetched shallow (depth 1) over network transports;
//! libgit2's local transport refuses shallow fetches, so `file://` and paths
//! fetch in full. A full commit id is fetched alone and shallow where the server
//! allows wanting an id, else with every branch and tag in full.

use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

use git2::{AutotagOption, Direction, FetchOptions, Oid, ProxyOptions, Repository};

use crate::auth::Userinfo;

mod cli;
mod credentials;
mod daemon;
mod http;
mod ssh;

use credentials::{AuthState, callbacks};

pub use cli::{CliError, CliSettings};
pub use ssh::{check_url, is_ssh};

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

/// Make every git transfer fail after `limit` without progress (connect, and
/// each read or write on the connection). Called at start-up, with [`crate::net::configure`]
/// before any thread starts.
pub fn set_timeout(limit: std::time::Duration) {
    http::register();
    let ms = i32::try_from(limit.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: called from `run` before any thread is spawned.
    unsafe {
        let _ = git2::opts::set_server_connect_timeout_in_milliseconds(ms);
        let _ = git2::opts::set_server_timeout_in_milliseconds(ms);
    }
}

/// Where credentials are looked for, in order (named in [`GitError::Auth`]).
pub const CREDENTIAL_SOURCES: &str = "the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc";

/// The git config that credential helpers and `http.proxy` come from: the
/// user's (or `GIT_CONFIG_GLOBAL`'s) and the system's.
fn user_config() -> Option<git2::Config> {
    match &crate::net::settings().git_config_global {
        Some(path) => {
            let mut cfg = git2::Config::new().ok()?;
            let _ = cfg.add_file(path, git2::ConfigLevel::Global, false);
            Some(cfg)
        }
        None => git2::Config::open_default().ok(),
    }
}

/// Whether git's config (the user's or `GIT_CONFIG_GLOBAL`'s, and the system's) names a
/// credential helper; it is never run here (`plugins doctor`).
pub fn credential_helper_configured() -> bool {
    user_config().is_some_and(|c| {
        c.get_string("credential.helper")
            .is_ok_and(|h| !h.is_empty())
    })
}

/// libgit2's proxy options for a transfer to `url` ([`proxy_for`]).
fn proxy_options(url: &str) -> ProxyOptions<'static> {
    let mut opts = ProxyOptions::new();
    let proxy = proxy_for(url);
    log::debug!("git: {url}: proxy {}", proxy.as_deref().unwrap_or("none"));
    if let Some(proxy) = proxy {
        opts.url(&proxy);
    }
    opts
}

/// Forges whose git servers take many connections at once.
const FORGES: &[&str] = &["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"];

/// The most transfers to one server that update checks run at once, and the server's
/// key (`scheme://host:port`): few for `git://` and ssh (`git daemon`'s accept queue
/// holds 5 and a dropped connect waits 1 s, then 3 s and 7 s; sshd starts refusing at
/// 10 unauthenticated connections), more for a self-hosted HTTP server, many for a
/// known forge; a local repository has no limit.
pub fn host_limit(url: &str) -> (String, usize) {
    if is_local(url) {
        return ("local".to_owned(), usize::MAX);
    }
    let scheme = if is_ssh(url) {
        "ssh"
    } else {
        url.split_once("://").map_or("", |(s, _)| s)
    };
    let host = crate::auth::host(url).unwrap_or_default();
    let key = format!(
        "{scheme}://{host}:{}",
        crate::auth::port(url).unwrap_or_default()
    );
    let forge = FORGES
        .iter()
        .any(|f| host == *f || host.ends_with(&format!(".{f}")));
    let limit = match scheme {
        "https" | "http" if forge => 64,
        "https" | "http" => 8,
        _ => 4,
    };
    (key, limit)
}

/// The proxy for a transfer to `url`: git's `http.proxy`, else `HTTPS_PROXY`,
/// `HTTP_PROXY` or `ALL_PROXY`; none for hosts `NO_PROXY` covers.
pub fn proxy_for(url: &str) -> Option<String> {
    let configured = user_config()
        .and_then(|c| c.get_string("http.proxy").ok())
        .filter(|p| !p.trim().is_empty())
        .filter(|_| {
            let excluded = crate::net::settings()
                .no_proxy
                .as_deref()
                .is_some_and(|list| {
                    crate::auth::host(url).is_some_and(|h| {
                        crate::auth::no_proxy_matches(list, &h, crate::auth::port(url))
                    })
                });
            !excluded
        });
    configured
        .or_else(|| crate::net::env_proxy(url))
        .map(|proxy| {
            if proxy.contains("://") {
                proxy
            } else {
                format!("http://{proxy}")
            }
        })
}

/// A remote error, named as a stall when libgit2 gave up waiting and as an
/// authentication failure when the server wanted credentials none could give.
fn remote_error(
    url: &str,
    phase: &'static str,
    source: git2::Error,
    auth: &RefCell<AuthState>,
) -> GitError {
    let msg = source.message().to_ascii_lowercase();
    let auth = auth.borrow();
    if auth.exhausted
        || source.code() == git2::ErrorCode::Auth
        || msg.contains("authentication")
        || msg.contains("401")
    {
        return GitError::Auth {
            url: url.to_owned(),
            offered: auth.offered.clone(),
        };
    }
    if msg.contains("timed out") || msg.contains("timeout") {
        GitError::Stalled {
            url: url.to_owned(),
            phase,
            secs: crate::net::timeout().as_secs(),
        }
    } else {
        GitError::Remote {
            url: url.to_owned(),
            error: source,
        }
    }
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
    // libgit2's message only: its class and code are noise to a user, and the cause is
    // shown once (not again as a `source`).
    #[error("cannot reach {url}: {}", error.message())]
    Remote { url: String, error: git2::Error },
    #[error(
        "{url} needs credentials and {}",
        if offered.is_empty() { "none were found".to_owned() } else { format!("it refused those from {}", offered.join(", then ")) }
    )]
    Auth {
        url: String,
        /// The sources whose credentials the server refused, in order.
        offered: Vec<&'static str>,
    },
    #[error(
        "{url} stalled while {phase}: no progress for {secs} s (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)"
    )]
    Stalled {
        url: String,
        phase: &'static str,
        secs: u64,
    },
    #[error("the commit's tree has an entry no host can install: {0:?}")]
    UnsafeEntry(String),
    /// The git command (ssh sources, `PLUGINS_GIT_FETCH_WITH_CLI`) failed.
    #[error(transparent)]
    Cli(#[from] CliError),
    #[error("git: {}", .0.message())]
    Other(git2::Error),
}

impl From<git2::Error> for GitError {
    fn from(e: git2::Error) -> Self {
        GitError::Other(e)
    }
}

/// A bare repository beside `dest` (the same file system, so the tree can be renamed out
/// of it), deleted with the returned guard.
pub(crate) fn scratch_repo(dest: &Path) -> Result<(tempfile::TempDir, Repository), GitError> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    let scratch = tempfile::Builder::new()
        .prefix(".git-")
        .tempdir_in(parent)
        .map_err(|e| {
            git2::Error::from_str(&format!(
                "cannot create a scratch repository in {}: {e}",
                parent.display()
            ))
        })?;
    let repo = Repository::init_bare(scratch.path())?;
    Ok((scratch, repo))
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

/// Open the fetch connection (with credentials and proxy), naming the URL when
/// the remote cannot be reached.
fn connect<'r, 'cb>(
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
    let mut remote = git2::Remote::create_detached(url)?;
    let auth = Rc::default();
    let _scope = credentials::scope(url, userinfo, &auth);
    let mut conn = connect(&mut remote, url, userinfo, &auth)?;
    let (refs, _) = list_refs(conn.remote())?;
    log::debug!("git: {url}: listed {} refs", refs.len());
    drop(conn);
    Ok(refs
        .into_iter()
        .map(|(n, oid)| (n, oid.to_string()))
        .collect())
}

/// The local path of a `file://` URL or plain path.
fn local_path(url: &str) -> &str {
    url.strip_prefix("file://").unwrap_or(url)
}

/// What a requested ref names among a repository's refs. `tip` is `None` for a
/// bare commit, which is looked up in the objects instead.
struct Choice {
    kind: RefKind,
    refname: Option<String>,
    tip: Option<Oid>,
}

fn not_found(url: &str, reference: &str, refs: &[(String, Oid)]) -> GitError {
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
fn choose(
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
fn commit_of<'r>(
    repo: &'r Repository,
    url: &str,
    choice: &Choice,
    reference: Option<&str>,
    refs: &[(String, Oid)],
) -> Result<git2::Commit<'r>, GitError> {
    match choice.tip {
        Some(oid) => Ok(repo.find_commit(oid)?),
        None => {
            let r = reference.unwrap_or("HEAD");
            repo.revparse_single(r)
                .and_then(|o| o.peel_to_commit())
                .map_err(|_| not_found(url, r, refs))
        }
    }
}

/// A local repository needs no fetch: resolve the ref in it and write the
/// commit's tree straight into `dest` (libgit2's local transport cannot fetch
/// shallow, so a fetch would copy the whole history). The repository is only
/// read: its index, working tree and locks are never touched, so read-only and
/// concurrently used repositories work.
fn local_tree(url: &str, reference: Option<&str>, dest: &Path) -> Result<Fetched, GitError> {
    log::debug!("git: reading the local repository {url}");
    let repo = Repository::open(local_path(url)).map_err(|error| GitError::Remote {
        url: url.to_owned(),
        error,
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
    let choice = choose(url, &refs, head, reference)?;
    let commit = commit_of(&repo, url, &choice, reference, &refs)?;
    write_tree(&repo, &commit.tree()?, dest, 0)?;
    Ok(Fetched {
        commit: commit.id().to_string(),
        kind: choice.kind,
        refname: choice.refname,
    })
}

/// The deepest tree nesting written out.
const MAX_TREE_DEPTH: usize = 64;

/// Whether a tree entry name may be written: one component, not `.`/`..`, no
/// `\` (git refuses it on Windows, and hosts that convert it to `/` would read
/// elsewhere), no NUL, not `.git` in any case.
fn entry_name_ok(name: &[u8]) -> bool {
    !name.is_empty()
        && name != b"."
        && name != b".."
        && !name.contains(&b'/')
        && !name.contains(&b'\\')
        && !name.contains(&0)
        && !name.eq_ignore_ascii_case(b".git")
}

fn unsafe_entry(name: &[u8]) -> GitError {
    GitError::UnsafeEntry(String::from_utf8_lossy(name).into_owned())
}

/// Copy a blob into `out`, streamed where the object database can stream it
/// (loose objects); a packed object is inflated whole by libgit2.
fn write_blob(repo: &Repository, oid: Oid, out: &mut std::fs::File) -> std::io::Result<()> {
    use std::io::Write;
    let odb = repo.odb().map_err(std::io::Error::other)?;
    if let Ok((mut reader, _, _)) = odb.reader(oid) {
        std::io::copy(&mut reader, out)?;
        return Ok(());
    }
    let blob = repo.find_blob(oid).map_err(std::io::Error::other)?;
    out.write_all(blob.content())
}

/// Write a commit's tree into `dest` (created) from the object database, as
/// `git checkout` would lay it out: files with their executable bit, symlinks
/// as symlinks, submodules as empty directories. No index or work tree of any
/// repository is involved, and every name is checked before it becomes a path.
fn write_tree(
    repo: &Repository,
    tree: &git2::Tree<'_>,
    dest: &Path,
    depth: usize,
) -> Result<(), GitError> {
    if depth > MAX_TREE_DEPTH {
        return Err(GitError::UnsafeEntry(format!(
            "{} (nested too deep)",
            dest.display()
        )));
    }
    let fail = |e: std::io::Error, path: &Path| {
        git2::Error::from_str(&format!("cannot write {}: {e}", path.display()))
    };
    std::fs::create_dir_all(dest).map_err(|e| fail(e, dest))?;
    for entry in tree {
        let name = entry.name_bytes();
        if !entry_name_ok(name) {
            return Err(unsafe_entry(name));
        }
        #[cfg(unix)]
        let path = dest.join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name));
        #[cfg(not(unix))]
        let path = dest.join(String::from_utf8_lossy(name).as_ref());
        match entry.filemode() {
            0o040000 => {
                let sub = repo.find_tree(entry.id())?;
                write_tree(repo, &sub, &path, depth + 1)?;
            }
            0o160000 => std::fs::create_dir(&path).map_err(|e| fail(e, &path))?,
            mode @ (0o100644 | 0o100755 | 0o100664) => {
                let mut file = std::fs::File::create_new(&path).map_err(|e| fail(e, &path))?;
                write_blob(repo, entry.id(), &mut file).map_err(|e| fail(e, &path))?;
                #[cfg(unix)]
                if mode == 0o100755 {
                    use std::os::unix::fs::PermissionsExt;
                    file.set_permissions(std::fs::Permissions::from_mode(0o755))
                        .map_err(|e| fail(e, &path))?;
                }
                #[cfg(not(unix))]
                let _ = mode;
            }
            0o120000 => {
                let blob = repo.find_blob(entry.id())?;
                #[cfg(unix)]
                std::os::unix::fs::symlink(
                    <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(blob.content()),
                    &path,
                )
                .map_err(|e| fail(e, &path))?;
            }
            _ => return Err(unsafe_entry(name)),
        }
    }
    Ok(())
}

/// Resolve `reference` on `url` and write its commit's tree into `dest`
/// (created). The objects are fetched into a scratch repository beside `dest`,
/// which is removed afterwards.
pub fn fetch_tree(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    dest: &Path,
) -> Result<Fetched, GitError> {
    cli::refuse_hostile(url)?;
    if is_local(url) {
        return local_tree(url, reference, dest);
    }
    if cli::wanted(url) {
        return cli::fetch_tree(url, userinfo, reference, dest);
    }
    // The guard deletes the scratch repository when the fetch is done.
    let (_scratch, repo) = scratch_repo(dest)?;
    // One connection lists the refs and then downloads what was chosen.
    let mut remote = repo.remote_anonymous(url)?;
    let auth = Rc::default();
    let _scope = credentials::scope(url, userinfo, &auth);
    let mut conn = connect(&mut remote, url, userinfo, &auth)?;
    let (refs, default) = list_refs(conn.remote())?;
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
        let mut opts = FetchOptions::new();
        opts.download_tags(AutotagOption::None)
            .remote_callbacks(callbacks(url, userinfo, &auth))
            .proxy_options(proxy_options(url))
            .depth(1);
        log::debug!("git: {url}: fetching {oid} alone, 1 deep");
        match conn
            .remote()
            .download(&[format!("+{oid}:refs/plugins/pin")], Some(&mut opts))
        {
            Ok(()) if repo.find_commit(oid).is_ok() => {
                drop(conn);
                let commit = repo.find_commit(oid)?;
                write_tree(&repo, &commit.tree()?, dest, 0)?;
                return Ok(Fetched {
                    commit: oid.to_string(),
                    kind: RefKind::Commit,
                    refname: None,
                });
            }
            Ok(()) => log::debug!("git: {url}: {oid} did not come: fetching every ref"),
            Err(e) => log::debug!("git: {url}: {oid} refused ({e}): fetching every ref"),
        }
        drop(conn);
        remote = repo.remote_anonymous(url)?;
        conn = connect(&mut remote, url, userinfo, &auth)?;
    }
    let mut opts = FetchOptions::new();
    opts.download_tags(AutotagOption::None)
        .remote_callbacks(callbacks(url, userinfo, &auth))
        .proxy_options(proxy_options(url));
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
    // The commit is found by id afterwards, so no refs need updating.
    log::debug!("git: {url}: fetching {}", refspecs.join(" "));
    conn.remote()
        .download(&refspecs, Some(&mut opts))
        .map_err(|source| remote_error(url, "downloading", source, &auth))?;
    drop(conn);
    let commit = commit_of(&repo, url, &choice, reference, &refs)?;
    write_tree(&repo, &commit.tree()?, dest, 0)?;
    Ok(Fetched {
        commit: commit.id().to_string(),
        kind: choice.kind,
        refname: choice.refname,
    })
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
        let workdir = repo.workdir()?.canonicalize().ok()?;
        let prefix = dir
            .canonicalize()
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

/// A ref as `update` reviews it: when it was made and the commits it adds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walked {
    /// The 40-hex commit the ref names.
    pub commit: String,
    /// Unix seconds: an annotated tag's tagger date, else the commit's committer date.
    pub date: i64,
    /// The commits after `since` up to the ref, newest first, as (40-hex id, subject);
    /// at most `bound`.
    pub commits: Vec<(String, String)>,
    /// `commits` is all of them: the walk reached `since` within `bound` commits.
    pub complete: bool,
}

/// Read `reference` on `url` (`HEAD`, a full `refs/…` name, or a short name tried as a
/// tag, then a branch): its date and, with `since`, the commits after `since`, walking
/// at most `bound` commits. A local repository is only read; a remote's objects are
/// fetched (the tip only without `since`, else `bound` deep) into a scratch repository
/// in the temp directory, removed afterwards.
pub fn walk(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: &str,
    since: Option<&str>,
    bound: usize,
) -> Result<Walked, GitError> {
    let candidates: Vec<String> = if reference == "HEAD" || reference.starts_with("refs/") {
        vec![reference.to_owned()]
    } else {
        vec![
            format!("refs/tags/{reference}"),
            format!("refs/heads/{reference}"),
        ]
    };
    let scratch;
    let (repo, tip) = if is_local(url) {
        let repo = Repository::open(local_path(url)).map_err(|error| GitError::Remote {
            url: url.to_owned(),
            error,
        })?;
        let tip = candidates.iter().find_map(|n| repo.refname_to_id(n).ok());
        (repo, tip)
    } else {
        scratch = tempfile::Builder::new()
            .prefix("plugins-walk-")
            .tempdir()
            .map_err(|e| {
                git2::Error::from_str(&format!("cannot create a scratch repository: {e}"))
            })?;
        let repo = Repository::init_bare(scratch.path())?;
        cli::refuse_hostile(url)?;
        if cli::wanted(url) {
            let depth = if since.is_some() {
                bound.saturating_add(1)
            } else {
                1
            };
            let tip =
                cli::fetch_walk_tip(url, userinfo, &candidates, depth, &repo, scratch.path())?;
            return walked(&repo, url, reference, tip, since, bound);
        }
        let mut remote = repo.remote_anonymous(url)?;
        let auth = Rc::default();
        let _scope = credentials::scope(url, userinfo, &auth);
        let mut conn = connect(&mut remote, url, userinfo, &auth)?;
        // The unpeeled ids: an annotated tag's own object carries its date.
        let heads: Vec<(String, Oid)> = conn
            .remote()
            .list()?
            .iter()
            .map(|h| (h.name().to_owned(), h.oid()))
            .collect();
        let found = candidates
            .iter()
            .find_map(|n| heads.iter().find(|(h, _)| h == n).cloned());
        if let Some((name, _)) = &found {
            let mut opts = FetchOptions::new();
            let depth = if since.is_some() {
                bound.saturating_add(1)
            } else {
                1
            };
            opts.download_tags(AutotagOption::None)
                .remote_callbacks(callbacks(url, userinfo, &auth))
                .proxy_options(proxy_options(url))
                .depth(i32::try_from(depth).unwrap_or(i32::MAX));
            conn.remote()
                .download(&[format!("+{name}:refs/remotes/walk/tip")], Some(&mut opts))
                .map_err(|source| remote_error(url, "downloading", source, &auth))?;
        }
        drop(conn);
        drop(remote);
        (repo, found.map(|(_, oid)| oid))
    };
    walked(&repo, url, reference, tip, since, bound)
}

/// [`walk`] once `tip` (the ref's id, if the remote has it) is in `repo`.
fn walked(
    repo: &Repository,
    url: &str,
    reference: &str,
    tip: Option<Oid>,
    since: Option<&str>,
    bound: usize,
) -> Result<Walked, GitError> {
    let tip = tip.ok_or_else(|| not_found(url, reference, &[]))?;
    let object = repo.find_object(tip, None)?;
    let commit = object.peel_to_commit()?;
    let date = object
        .as_tag()
        .and_then(git2::Tag::tagger)
        .map_or(commit.committer().when().seconds(), |t| t.when().seconds());
    let mut walked = Walked {
        commit: commit.id().to_string(),
        date,
        commits: Vec::new(),
        complete: true,
    };
    let Some(since) = since else {
        return Ok(walked);
    };
    let since = Oid::from_str(since)?;
    let mut revwalk = repo.revwalk()?;
    revwalk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME)?;
    revwalk.push(commit.id())?;
    // In a shallow fetch `since` may be missing: the walk then stops at it or at the cut.
    let hidden = revwalk.hide(since).is_ok();
    // Complete when the walk reaches `since`, or runs out with `since` hidden; not when
    // it reaches the bound or the end of a shallow history.
    walked.complete = hidden;
    for oid in revwalk.by_ref() {
        let found = oid
            .ok()
            .and_then(|oid| Some((oid, repo.find_commit(oid).ok()?)));
        let Some((oid, c)) = found else {
            walked.complete = false;
            break;
        };
        if oid == since {
            walked.complete = true;
            break;
        }
        if walked.commits.len() == bound {
            walked.complete = false;
            break;
        }
        let subject = String::from_utf8_lossy(c.summary_bytes().unwrap_or_default());
        walked.commits.push((oid.to_string(), subject.into_owned()));
    }
    Ok(walked)
}

#[cfg(test)]
mod tests {
    use super::host_limit;

    #[test]
    fn servers_are_capped_by_kind() {
        assert_eq!(
            host_limit("git://127.0.0.1:9000/a.git"),
            ("git://127.0.0.1:9000".into(), 4)
        );
        assert_eq!(
            host_limit("https://github.com/o/r.git"),
            ("https://github.com:443".into(), 64)
        );
        assert_eq!(host_limit("https://gitlab.com/o/r").1, 64);
        assert_eq!(
            host_limit("https://git.example.org/o/r"),
            ("https://git.example.org:443".into(), 8)
        );
        assert_eq!(host_limit("git@github.com:o/r.git").1, 4);
        assert_eq!(host_limit("ssh://git@host:2222/o/r").1, 4);
        assert_eq!(host_limit("/srv/repo").1, usize::MAX);
        // The same server under two ports is two servers.
        assert_ne!(host_limit("http://h:1/a").0, host_limit("http://h:2/a").0);
    }
}
