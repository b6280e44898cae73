//! Network settings shared by git transfers and HTTP downloads, set once at
//! start-up from the environment ([`crate::context::Context`] reads it): one
//! no-progress timeout (`PLUGINS_NET_TIMEOUT`), the proxies (`HTTPS_PROXY`,
//! `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) and where credentials come from
//! (`GITHUB_TOKEN`/`GH_TOKEN`, `NETRC`, `GIT_CONFIG_GLOBAL`).

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

static TIMEOUT_MS: AtomicU64 = AtomicU64::new(30_000);

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// What the environment says about proxies and credentials.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// `GITHUB_TOKEN`, else `GH_TOKEN`: sent to GitHub hosts only.
    pub github_token: Option<Secret>,
    /// Which of the two the token came from (shown; the token never is).
    pub github_token_from: &'static str,
    /// Hosts the token is sent to: `github.com`, `api.github.com`, and the
    /// hosts of `PLUGINS_GH_BASE` and `PLUGINS_GITHUB_API` when they are http(s).
    pub github_hosts: Vec<String>,
    /// `NETRC`, else `~/.netrc`.
    pub netrc: Option<PathBuf>,
    /// `GIT_CONFIG_GLOBAL`: the git config file read instead of `~/.gitconfig`
    /// (credential helpers, `http.proxy`).
    pub git_config_global: Option<PathBuf>,
    /// `HTTPS_PROXY` (or `https_proxy`).
    pub https_proxy: Option<String>,
    /// `HTTP_PROXY` (or `http_proxy`).
    pub http_proxy: Option<String>,
    /// `ALL_PROXY` (or `all_proxy`).
    pub all_proxy: Option<String>,
    /// `NO_PROXY` (or `no_proxy`).
    pub no_proxy: Option<String>,
    /// How the git command runs (`PLUGINS_GIT_FETCH_WITH_CLI`, `GIT_SSH_COMMAND`).
    pub git_cli: CliSettings,
}

/// A secret string: `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The settings given to [`configure`] (defaults before it is called).
pub fn settings() -> &'static Settings {
    SETTINGS.get_or_init(Settings::default)
}

/// The proxy for `url` from the environment: `HTTPS_PROXY` for https, `HTTP_PROXY`
/// for http, else `ALL_PROXY`; none when `NO_PROXY` covers the host. A proxy
/// without a scheme is taken as `http://`.
pub fn env_proxy(url: &str) -> Option<String> {
    let s = settings();
    let scheme = url.split_once("://")?.0;
    let proxy = match scheme {
        "https" => s.https_proxy.clone(),
        "http" => s.http_proxy.clone(),
        _ => None,
    }
    .or_else(|| s.all_proxy.clone())?;
    let host = crate::auth::host(url)?;
    if let Some(list) = &s.no_proxy
        && crate::auth::no_proxy_matches(list, &host, crate::auth::port(url))
    {
        return None;
    }
    Some(if proxy.contains("://") {
        proxy
    } else {
        format!("http://{proxy}")
    })
}

/// Whether `url`'s host is a GitHub host (the token may be sent to it).
pub fn is_github(url: &str) -> bool {
    crate::auth::host(url).is_some_and(|h| settings().github_hosts.contains(&h))
}

/// The GitHub token, when `url`'s host is one it may be sent to.
pub fn github_token_for(url: &str) -> Option<&'static Secret> {
    settings().github_token.as_ref().filter(|_| is_github(url))
}

/// Credential sources in words: `a git credential helper, then GITHUB_TOKEN`, or `none`.
pub fn describe_sources(sources: &[String]) -> String {
    if sources.is_empty() {
        "none".to_owned()
    } else {
        sources.join(", then ")
    }
}

/// Where a git transfer to `url` would take credentials from if the server asks, in
/// the order they are offered: the names of the sources, never a secret. `helper` says
/// whether git's config names a credential helper (it is not run to find out whether it
/// knows the host); a `.netrc` counts only with an entry for the host.
pub fn credential_sources(url: &str, userinfo: bool, helper: bool) -> Vec<String> {
    let s = settings();
    let mut out = Vec::new();
    if userinfo {
        out.push("the URL's user:password@".to_owned());
    }
    if helper {
        out.push("a git credential helper".to_owned());
    }
    if github_token_for(url).is_some() {
        out.push(s.github_token_from.to_owned());
    }
    if let (Some(host), Some(netrc)) = (crate::auth::host(url), &s.netrc)
        && crate::auth::netrc_file(netrc, &host).is_some()
    {
        out.push(format!(".netrc ({})", netrc.display()));
    }
    out
}

/// Whether `host` (as [`crate::auth::host`] gives it: no port, IPv6 in brackets) is this
/// machine: `localhost`, 127.0.0.0/8 or `::1`.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The longest an error text taken from a server is shown, in bytes.
pub const MAX_ERROR_TEXT: usize = 2_000;

/// Set the no-progress limit for every transfer. Call before any thread starts
/// (libgit2's setting is process-wide).
pub fn configure(limit: Duration, settings: Settings) {
    let _ = SETTINGS.set(settings);
    TIMEOUT_MS.store(
        u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// How long a transfer may go without progress.
pub fn timeout() -> Duration {
    Duration::from_millis(TIMEOUT_MS.load(Ordering::Relaxed))
}

/// Cut a server's text to [`MAX_ERROR_TEXT`] bytes on a character boundary.
pub fn cap(text: &str) -> String {
    if text.len() <= MAX_ERROR_TEXT {
        return text.to_owned();
    }
    let mut end = MAX_ERROR_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} [... {} more bytes]", &text[..end], text.len() - end)
}

/// How the git command runs, from the environment (read by `Context`).
#[derive(Clone, Debug, Default)]
pub struct CliSettings {
    /// `PLUGINS_GIT_FETCH_WITH_CLI` is `1` or `true`: every remote is fetched with git.
    pub always: bool,
    /// `GIT_SSH_COMMAND` or `GIT_SSH` is set: the user's ssh command is used as it is.
    pub user_ssh: bool,
    /// stdin is a terminal: git and ssh may prompt (a key's passphrase, a new host key).
    pub interactive: bool,
}
