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

mod cli;
mod credentials;
mod daemon;
mod fetch;
mod http;
mod reach;
mod refs;
mod sign;
mod ssh;
mod tree;

use credentials::AuthState;
use refs::{Choice, Refs, choose, commit_of};
use tree::check_out;

pub use cli::{CliError, CliSettings, kill_stragglers};
pub use fetch::{Ignored, Walked, fetch_tree, walk};
pub use refs::ls_remote;
pub use sign::{SignFormat, Signed, Signer, verify as verify_signature};
pub use ssh::{Hostile, HostileUrl, check_url, is_ssh};

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

/// The most transfers to one server that update checks run at once, and the server's
/// key (`scheme://host:port`): few for `git://` and ssh (`git daemon` listens with an
/// accept queue of 5 and a dropped connect waits 1 s, then 3 s and 7 s; sshd starts
/// refusing at 10 unauthenticated connections); none below the caller's jobs for HTTP(S),
/// whose servers queue hundreds of connects (nginx and Apache 511, Go's and Java's the
/// kernel's `somaxconn`), nor for a local repository.
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
    let limit = match scheme {
        "https" | "http" => usize::MAX,
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
    #[error("the commit's tree has an entry no host can install: {0:?}")]
    UnsafeEntry(String),
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
            ("git://127.0.0.1:9000".into(), 4)
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
}
