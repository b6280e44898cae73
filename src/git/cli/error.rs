//! What a failed git command means: the error classes and the stderr lines
//! worth showing, redacted.

use super::*;

/// Why the git command failed, when it is more than an unreachable remote.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A URL refused before git runs, or a protocol git was not allowed to use.
    #[error("{why}")]
    Refused { url: String, why: String },
    #[error("{url} is fetched with the system `git`, which could not be run: {reason}")]
    NoGit { url: String, reason: String },
    #[error("signatures are verified with the system `git`, which could not be run: {reason}")]
    NoGitToVerify { reason: String },
    #[error(
        "{url}: the ssh host key of {host} is not known (not in known_hosts), and plugins never accepts one itself"
    )]
    HostKeyUnknown {
        url: String,
        host: String,
        port: Option<String>,
        login: String,
    },
    #[error(
        "{url}: the ssh host key of {host} differs from the one in known_hosts (REMOTE HOST IDENTIFICATION HAS CHANGED)"
    )]
    HostKeyChanged {
        url: String,
        host: String,
        port: Option<String>,
        login: String,
    },
    #[error("{url}: the ssh server accepted none of the keys offered: {detail}")]
    SshAuth { url: String, detail: String },
    #[error("{url} needs credentials and git found none that were accepted: {detail}")]
    Auth { url: String, detail: String },
    /// The server answered, then aborted (`remote: fatal: unable to read …`).
    #[error("{url} aborted while {verb}: {detail}")]
    Aborted {
        url: String,
        verb: &'static str,
        detail: String,
    },
    #[error("cannot reach {url} while {verb}: {detail}")]
    Failed {
        url: String,
        verb: &'static str,
        detail: String,
    },
}

impl CliError {
    /// The stable code a user sees.
    pub fn code(&self) -> Code {
        match self {
            CliError::Refused { .. } => Code::UsageInvalidArgument,
            CliError::NoGit { .. } | CliError::NoGitToVerify { .. } => Code::GitNoGit,
            CliError::HostKeyUnknown { .. } | CliError::HostKeyChanged { .. } => Code::GitHostKey,
            CliError::SshAuth { .. } | CliError::Auth { .. } => Code::GitAuth,
            CliError::Aborted { .. } | CliError::Failed { .. } => Code::GitFetch,
        }
    }

    /// The way out.
    pub fn help(&self) -> Option<String> {
        let keyscan = |host: &str, port: &Option<String>| match port {
            Some(p) => format!("ssh-keyscan -p {p} {host}"),
            None => format!("ssh-keyscan {host}"),
        };
        match self {
            CliError::Refused { .. } => None,
            CliError::NoGit { .. } => Some(
                "install git (ssh sources and PLUGINS_GIT_FETCH_WITH_CLI run `git fetch`), or use an https:// URL".into(),
            ),
            CliError::NoGitToVerify { .. } => Some(
                "install git (and ssh-keygen for ssh signatures, gpg for gpg ones): require_signed verifies with `git verify-tag` and `git verify-commit`".into(),
            ),
            CliError::HostKeyUnknown { host, port, login, .. } => Some(format!(
                "check the host's key fingerprint with its owner, then accept it once with `ssh {login}` (answer yes) or add it with `{} >> ~/.ssh/known_hosts`",
                keyscan(host, port)
            )),
            CliError::HostKeyChanged { host, port, login, .. } => Some(format!(
                "this is what an attack looks like; only if the host's owner confirms the new key, remove the old one with `ssh-keygen -R {}` and accept the new one with `ssh {login}`",
                match port {
                    Some(p) => format!("'[{host}]:{p}'"),
                    None => host.clone(),
                }
            )),
            CliError::SshAuth { .. } => Some(
                "ssh offers the keys of your ssh-agent (`ssh-add -l` lists them) and those ~/.ssh/config names (IdentityFile); add the right one, and check that the account has access".into(),
            ),
            CliError::Auth { .. } => Some(
                "with the git command, credentials come from the URL's user:password@ alone (for its own host only), else git's credential helpers and then GITHUB_TOKEN/GH_TOKEN (GitHub hosts), and git reads ~/.netrc; nothing prompts without a terminal".into(),
            ),
            CliError::Aborted { .. } => Some(SERVER_ABORTED.into()),
            CliError::Failed { .. } => None,
        }
    }
}
/// Lines of git's standard error worth showing: progress and git's
/// boilerplate left out, the last few kept, secrets removed, capped.
pub(super) fn detail(stderr: &str, userinfo: Option<&Userinfo>) -> String {
    const NOISE: [&str; 10] = [
        "remote: Enumerating",
        "remote: Counting",
        "remote: Compressing",
        "remote: Total",
        "Receiving objects",
        "Resolving deltas",
        "Please make sure you have the correct access rights",
        "and the repository exists.",
        "fatal: Could not read from remote repository.",
        "Warning: Permanently added",
    ];
    let lines: Vec<&str> = stderr
        .split('\n')
        .map(|l| l.rsplit('\r').find(|s| !s.trim().is_empty()).unwrap_or(""))
        .map(str::trim)
        .filter(|l| !l.is_empty() && !NOISE.iter().any(|n| l.starts_with(n)))
        .collect();
    let shown = lines[lines.len().saturating_sub(6)..].join("; ");
    let mut shown = crate::auth::redact(&shown);
    let secrets = [
        userinfo.map(|u| u.password.as_str()),
        crate::net::settings()
            .github_token
            .as_ref()
            .map(|t| t.0.as_str()),
    ];
    for s in secrets.into_iter().flatten().filter(|s| s.len() >= 4) {
        shown = shown.replace(s, "***");
    }
    if shown.is_empty() {
        shown = "git gave no reason".into();
    }
    crate::net::cap(&shown)
}

/// The way out of a server that aborted.
pub(in crate::git) const SERVER_ABORTED: &str = "the server answered but could not send the repository (its words say why): tell its owner, or try again later";

/// The server's own words, when it aborted: the lines of its message channel (git's
/// `remote: ` lines when `from_git`, else libgit2's sideband text), progress left out, as
/// `remote: …`, redacted and capped; `None` when it said nothing fatal.
pub(in crate::git) fn server_words(said: &str, from_git: bool) -> Option<String> {
    const PROGRESS: [&str; 5] = ["Enumerating", "Counting", "Compressing", "Total", "Finding"];
    let lines: Vec<String> = said
        .split('\n')
        .map(|l| l.rsplit('\r').find(|s| !s.trim().is_empty()).unwrap_or(""))
        .map(str::trim)
        .filter_map(|l| match l.strip_prefix("remote:") {
            Some(rest) => Some(rest.trim()),
            // In git's stderr only `remote: ` lines are the server's.
            None if from_git => None,
            None => Some(l),
        })
        .filter(|l| !l.is_empty() && !PROGRESS.iter().any(|p| l.starts_with(p)))
        .map(|l| format!("remote: {l}"))
        .collect();
    let fatal = lines.iter().any(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("fatal") || l.contains("error") || l.contains("abort")
    });
    if !fatal {
        return None;
    }
    let shown = lines[lines.len().saturating_sub(6)..].join("; ");
    Some(crate::net::cap(&crate::auth::redact(&shown)))
}

/// The known_hosts name in ssh's "No ED25519 host key is known for NAME and ...".
pub(super) fn known_hosts_name(stderr: &str) -> Option<(String, Option<String>)> {
    let after = stderr.split(" host key is known for ").nth(1)?;
    let name = after.split_whitespace().next()?;
    Some(
        match name.strip_prefix('[').and_then(|n| n.split_once("]:")) {
            Some((h, p)) => (h.to_owned(), Some(p.to_owned())),
            None => (name.to_owned(), None),
        },
    )
}

/// Name what went wrong from git's and ssh's words.
pub(super) fn failure(
    url: &str,
    verb: &'static str,
    stderr: &str,
    userinfo: Option<&Userinfo>,
) -> GitError {
    let lower = stderr.to_ascii_lowercase();
    let detail = detail(stderr, userinfo);
    if lower.contains("host key verification failed") {
        let target = super::super::ssh::target(url);
        let (host, port) = known_hosts_name(stderr).unwrap_or_else(|| {
            (
                target.as_ref().map_or("the host", |t| t.host).to_owned(),
                target.as_ref().and_then(|t| t.port).map(str::to_owned),
            )
        });
        // How the user reaches the same host with ssh (an alias stays an alias).
        let login = target.map_or_else(
            || host.clone(),
            |t| {
                let dest = match t.user {
                    Some(u) => format!("{u}@{}", t.host),
                    None => t.host.to_owned(),
                };
                match t.port {
                    Some(p) => format!("-p {p} {dest}"),
                    None => dest,
                }
            },
        );
        let url = url.to_owned();
        return if lower.contains("remote host identification has changed") {
            CliError::HostKeyChanged {
                url,
                host,
                port,
                login,
            }
        } else {
            CliError::HostKeyUnknown {
                url,
                host,
                port,
                login,
            }
        }
        .into();
    }
    let url = url.to_owned();
    if lower.contains("permission denied (") || lower.contains("too many authentication failures") {
        return CliError::SshAuth { url, detail }.into();
    }
    if lower.contains("authentication failed for")
        || lower.contains("could not read username")
        || lower.contains("could not read password")
        || lower.contains("terminal prompts disabled")
    {
        return CliError::Auth { url, detail }.into();
    }
    if lower.contains("transport '") && lower.contains("not allowed") {
        let why = format!(
            "{url}: git may use only the ssh, https, http, git and file protocols, also after `insteadOf` rewrites: {detail}"
        );
        return CliError::Refused { url, why }.into();
    }
    if lower.contains("timed out") {
        return GitError::Stalled {
            url,
            phase: verb,
            secs: crate::net::timeout().as_secs(),
        };
    }
    if server_words(stderr, true).is_some() {
        return CliError::Aborted { url, verb, detail }.into();
    }
    CliError::Failed { url, verb, detail }.into()
}
