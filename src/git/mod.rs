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

use git2::{ProxyOptions, Repository};

mod ancestry;
mod cli;
mod credentials;
mod daemon;
mod fetch;
mod http;
mod limit;
mod listing;
mod reach;
mod refs;
mod shared;
mod sign;
mod ssh;
mod tree;
mod walk;

use credentials::AuthState;
use refs::{Choice, Refs, choose, commit_of};
use tree::check_out;

pub use ancestry::{branch_contains, newest_contained};
pub use cli::{CliError, CliSettings, kill_stragglers};
pub use fetch::{Ignored, fetch_subdirs, fetch_tree};
pub(crate) use limit::back_off;
pub use limit::{GIT_DAEMON_LIMIT, host_limit, limit_now};
pub use listing::ls_remote;
pub use shared::{SharedTransfers, share_transfers};
pub use sign::{SignFormat, Signed, Signer, verify as verify_signature};
pub use ssh::{Hostile, HostileUrl, check_url, is_ssh};
pub use walk::{Walked, Walks, walk};

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
    /// The commit's and its annotated tag's raw objects, whose signature
    /// [`verify_signature`] checks.
    pub signed: Signed,
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

/// The largest committed file installed by default: 100 MiB, the most GitHub accepts in a
/// repository (it refuses a push with a larger file), so no plugin hosted there is refused.
pub const DEFAULT_MAX_FILE_MIB: u64 = 100;

/// The largest committed file [`tree::check_out`] writes, in bytes (`PLUGINS_MAX_FILE_MIB`).
static MAX_FILE: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_MAX_FILE_MIB << 20);

/// The pack bytes libgit2 maps at once, in windows of [`PACK_WINDOW`]: its defaults (1 GiB
/// windows, 8 GiB in all on 64-bit) map a whole pack while it is indexed and read, so the
/// mapped pages of a fetched pack counted in resident memory as it grew.
const PACK_MAPPED: usize = 16 << 20;
/// One mapped window of a pack (git's `core.packedGitWindowSize` is 32 MiB on 32-bit).
const PACK_WINDOW: usize = 4 << 20;

/// Bound what a fetch and a checkout keep in memory, independently of the files fetched:
/// libgit2 maps at most [`PACK_MAPPED`] of its packs at once, and a committed file over
/// `max_file_mib` MiB is refused before any file's contents are read
/// ([`GitError::FileTooLarge`]), since libgit2 reads a packed file whole into memory.
/// Called at start-up, with [`set_timeout`], before any thread starts.
pub fn bound_memory(max_file_mib: u64) {
    MAX_FILE.store(
        max_file_mib.saturating_mul(1 << 20),
        std::sync::atomic::Ordering::Relaxed,
    );
    // SAFETY: called from `run` before any thread is spawned.
    unsafe {
        let _ = git2::opts::set_mwindow_size(PACK_WINDOW);
        let _ = git2::opts::set_mwindow_mapped_limit(PACK_MAPPED);
    }
}

/// The largest committed file written, in bytes.
fn max_file() -> u64 {
    MAX_FILE.load(std::sync::atomic::Ordering::Relaxed)
}

/// Where credentials are looked for, in order (named in [`GitError::Auth`]).
pub const CREDENTIAL_SOURCES: &str = "the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc";

/// Whether a transfer's error text is [`GitError::Auth`]'s (or the git command's): the
/// remote asked for credentials and none offered were accepted (an update check's
/// [`crate::update::Status::Error`] carries the text only).
pub fn needs_credentials(message: &str) -> bool {
    message.contains(" needs credentials and ")
}

/// The way out when a locked source needs credentials: a URL's `user:password@` is used for
/// its install and never stored, so checks, updates and syncs need a lasting source.
pub const LOCKED_CREDENTIALS_HELP: &str = "the lock keeps no credentials (a URL's user:password@ is used for the install only): give them to git's credential helpers (credential.helper), GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), or a .netrc entry for the host; plugins never prompts";

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

/// What the transfers read from git's config ([`user_config`]), read once per process: it
/// was opened and parsed up to four times per remote checked.
struct UserGit {
    /// `http.proxy`, when set and not blank.
    http_proxy: Option<String>,
    /// `plugins.gitFetchWithCli`.
    fetch_with_cli: bool,
    /// `core.sshCommand` is set.
    ssh_command: bool,
    /// `credential.helper` is set and not empty.
    credential_helper: bool,
}

fn user_git() -> &'static UserGit {
    static ONCE: std::sync::OnceLock<UserGit> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let config = user_config();
        let string = |key: &str| config.as_ref().and_then(|c| c.get_string(key).ok());
        UserGit {
            http_proxy: string("http.proxy").filter(|p| !p.trim().is_empty()),
            fetch_with_cli: config
                .as_ref()
                .and_then(|c| c.get_bool("plugins.gitFetchWithCli").ok())
                .unwrap_or(false),
            ssh_command: string("core.sshCommand").is_some(),
            credential_helper: string("credential.helper").is_some_and(|h| !h.is_empty()),
        }
    })
}

/// Whether git's config (the user's or `GIT_CONFIG_GLOBAL`'s, and the system's) names a
/// credential helper; it is never run here (`plugins doctor`).
pub fn credential_helper_configured() -> bool {
    user_git().credential_helper
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

/// The way out of [`GitError::RenamedTag`]: the key is fine, the name is not.
pub const RENAMED_TAG: &str = "the key is not the problem: the server serves a tag signed under one name as another; install the release by the name it was signed with, and ask the publisher (or the mirror's operator) why it serves it renamed";

/// The proxy for a transfer to `url`: git's `http.proxy`, else `HTTPS_PROXY`,
/// `HTTP_PROXY` or `ALL_PROXY`; none for hosts `NO_PROXY` covers.
pub fn proxy_for(url: &str) -> Option<String> {
    let configured = user_git().http_proxy.clone().filter(|_| {
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
    if let Some(limit) = auth.too_large {
        return GitError::ObjectTooLarge {
            url: url.to_owned(),
            limit,
        };
    }
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
    // The server answered, then gave up: its own words say why (`remote: fatal: unable to
    // read …`), not "cannot reach".
    let said = cli::server_words(&auth.said, false);
    if let Some(said) = said {
        return GitError::Aborted {
            url: url.to_owned(),
            phase,
            said,
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
    /// The server answered, then aborted with a message of its own.
    #[error("{url} aborted while {phase}: {said}")]
    Aborted {
        url: String,
        phase: &'static str,
        /// The server's words (`remote: fatal: …`), redacted and capped.
        said: String,
    },
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
    /// The commit is on no branch or tag the remote lists: anyone's fork may have
    /// pushed it ([`reach`]).
    #[error("commit {commit} is on no branch or tag of {url}")]
    Impostor { url: String, commit: String },
    /// `require_signed`: neither the tag nor the commit carries a signature ([`sign`]).
    #[error("{message}")]
    Unsigned { message: String },
    /// `require_signed`: git refused the signature, or a signed tag came under another name.
    #[error("the signature of {what} does not verify: {why}")]
    BadSignature {
        what: String,
        why: String,
        format: SignFormat,
    },
    /// `require_signed`: a signed tag served under a name it was not signed with (a mirror
    /// passing an older release off as this one). The key is not the problem.
    #[error(
        "the signature of {what} does not verify: the signed tag object is named {named}, not {served}: a signed tag served under another name (an older release passed off as this one) is refused"
    )]
    RenamedTag {
        what: String,
        named: String,
        served: String,
    },
    /// The commit came, and libgit2 cannot read it: a malformed author or committer line
    /// (an unparsable time), which git's own `fsck` would refuse too.
    #[error("commit {commit} of {url} cannot be read: {why}")]
    BadObject {
        url: String,
        commit: String,
        why: String,
    },
    #[error("the commit's tree has an entry no host can install: {0:?}")]
    UnsafeEntry(String),
    /// A committed file larger than the cap ([`bound_memory`]): refused before any file
    /// is written or read, so a large file costs neither memory nor a half-written tree.
    #[error(
        "{path} in commit {commit} is {} bytes ({:.1} MiB), over the {} MiB a committed file may be",
        size,
        *size as f64 / 1_048_576.0,
        limit >> 20
    )]
    FileTooLarge {
        /// The file's path in the commit's tree.
        path: String,
        commit: String,
        size: u64,
        limit: u64,
    },
    /// [`GitError::FileTooLarge`] seen while the pack was still arriving: one object took
    /// more than the cap, and the transfer was stopped before it was whole.
    #[error(
        "{url} sent a file over the {} MiB a committed file may be: the transfer was stopped",
        limit >> 20
    )]
    ObjectTooLarge { url: String, limit: u64 },
    /// The git command (ssh sources, `PLUGINS_GIT_FETCH_WITH_CLI`) failed.
    #[error(transparent)]
    Cli(#[from] CliError),
    #[error("git: {}", .0.message())]
    Other(git2::Error),
}

impl GitError {
    /// The way out, where the error alone has one.
    pub fn help(&self) -> Option<String> {
        match self {
            GitError::Aborted { .. } => Some(cli::SERVER_ABORTED.into()),
            GitError::Cli(e) => e.help(),
            _ => None,
        }
    }
}

impl From<git2::Error> for GitError {
    fn from(e: git2::Error) -> Self {
        GitError::Other(e)
    }
}

/// The commit `oid` of `repo`, fetched from `url`: missing is the caller's to tell (`Ok(None)`:
/// the cut of a shallow fetch, a ref that moved), a commit that is there and cannot be
/// parsed is [`GitError::BadObject`] (never "not found" or "cannot reach").
pub(crate) fn read_commit<'r>(
    repo: &'r Repository,
    oid: git2::Oid,
    url: &str,
) -> Result<Option<git2::Commit<'r>>, GitError> {
    match repo.find_commit(oid) {
        Ok(c) => Ok(Some(c)),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) if repo.odb().is_ok_and(|odb| odb.exists(oid)) => Err(bad_object(url, oid, &e)),
        Err(e) => Err(e.into()),
    }
}

/// A commit that is there and does not parse.
pub(crate) fn bad_object(url: &str, oid: git2::Oid, e: &git2::Error) -> GitError {
    GitError::BadObject {
        url: url.to_owned(),
        commit: oid.to_string(),
        why: format!(
            "{} (a malformed author, committer or tagger line; `git fsck` in a clone names it)",
            e.message()
        ),
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

#[cfg(test)]
mod tests {
    use super::host_limit;

    #[test]
    fn servers_are_capped_by_kind() {
        assert_eq!(
            host_limit("git://127.0.0.1:9000/a.git"),
            ("git://127.0.0.1:9000".into(), super::GIT_DAEMON_LIMIT)
        );
        assert_eq!(
            host_limit("https://github.com/o/r.git"),
            ("https://github.com:443".into(), usize::MAX)
        );
        assert_eq!(
            host_limit("http://git.example.org/o/r"),
            ("http://git.example.org:80".into(), usize::MAX)
        );
        assert_eq!(host_limit("git@github.com:o/r.git").1, 4);
        assert_eq!(host_limit("ssh://git@host:2222/o/r").1, 4);
        assert_eq!(host_limit("/srv/repo").1, usize::MAX);
        // The same server under two ports is two servers.
        assert_ne!(host_limit("http://h:1/a").0, host_limit("http://h:2/a").0);
    }

    /// A `git://` server seen dropping connections is held to half as many, down to 4;
    /// other servers keep theirs.
    #[test]
    fn a_server_that_drops_connections_gets_fewer() {
        let url = "git://192.0.2.7:9418/x.git";
        let mut seen = vec![host_limit(url).1];
        for _ in 0..4 {
            super::back_off(url);
            seen.push(host_limit(url).1);
        }
        assert_eq!(seen, [30, 15, 7, 4, 4]);
        assert_eq!(
            host_limit("git://192.0.2.8:9418/x.git").1,
            super::GIT_DAEMON_LIMIT
        );
        assert_eq!(super::limit_now("git://192.0.2.7:9418", 64), 4);
    }
}
