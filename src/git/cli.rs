//! The git-command fetch mode (like cargo's `net.git-fetch-with-cli`): a remote
//! is listed and fetched by running the system `git`, into the same scratch
//! repository and with the same ref choice and tree writing as the libgit2
//! path, so nothing after the fetch differs. ssh remotes always take this path
//! (this build's libgit2 has no ssh); every remote does when
//! `PLUGINS_GIT_FETCH_WITH_CLI=1` or the git config key `plugins.gitFetchWithCli`
//! is true, so the user's whole git and ssh setup applies (`insteadOf`,
//! `core.sshCommand`, ssh-agent, `~/.ssh/config`, known_hosts, proxies and
//! credential helpers).
//!
//! git runs bounded: the URL after `--` and checked first ([`super::check_url`]),
//! only the ssh, https, http, git and file protocols allowed (never `ext::`),
//! the variables that would point it at another repository removed, stdin
//! closed, killed (with its ssh) after `PLUGINS_NET_TIMEOUT` without output,
//! and its stderr kept to the last 64 KiB and redacted before it is shown.
//! Without a terminal on stdin nothing prompts: `GIT_TERMINAL_PROMPT=0`, ssh
//! in `BatchMode` (unless the user set their own ssh command), and git runs in
//! its own session, away from any controlling terminal.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use git2::{Oid, Repository};

use super::{Choice, Fetched, GitError, RefKind};
use crate::auth::Userinfo;
use crate::diagnostic::Code;

pub use crate::net::CliSettings;

/// The protocols git may use, also after the user's `url.<base>.insteadOf`
/// rewrites: never a remote helper such as `ext::` (which runs commands).
const ALLOWED_PROTOCOLS: &str = "ssh:https:http:git:file";

/// The variables that point git at another repository or config
/// (`git rev-parse --local-env-vars`), removed so the caller's never leak in.
const LOCAL_ENV: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
];

/// The most of git's standard output kept (a ref listing); more is an error.
const MAX_STDOUT: usize = 64 << 20;
/// The tail of git's standard error kept for the error message.
const MAX_STDERR: usize = 64 << 10;

/// Why the git command failed, when it is more than an unreachable remote.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A URL refused before git runs, or a protocol git was not allowed to use.
    #[error("{why}")]
    Refused { url: String, why: String },
    #[error("{url} is fetched with the system `git`, which could not be run: {reason}")]
    NoGit { url: String, reason: String },
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
            CliError::NoGit { .. } => Code::GitNoGit,
            CliError::HostKeyUnknown { .. } | CliError::HostKeyChanged { .. } => Code::GitHostKey,
            CliError::SshAuth { .. } | CliError::Auth { .. } => Code::GitAuth,
            CliError::Failed { .. } => Code::GitFetch,
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
            CliError::Failed { .. } => None,
        }
    }
}

/// Refuse, before any transfer, a remote git or ssh could read as an option or
/// a command (a hand-edited lock can hold one).
pub(super) fn refuse_hostile(url: &str) -> Result<(), GitError> {
    super::check_url(url).map_err(|why| {
        CliError::Refused {
            url: url.to_owned(),
            why,
        }
        .into()
    })
}

/// Whether `url` is fetched with the git command: ssh, an `http://` remote a proxy
/// applies to (libgit2 sends plain-HTTP requests to the server itself, never to the
/// proxy), or every remote when the user asks for it.
pub(super) fn wanted(url: &str) -> bool {
    super::is_ssh(url)
        || proxied_http(url)
        || crate::net::settings().git_cli.always
        || super::user_config()
            .and_then(|c| c.get_bool("plugins.gitFetchWithCli").ok())
            .unwrap_or(false)
}

/// Whether `url` is `http://` and a proxy applies to it ([`super::proxy_for`]).
fn proxied_http(url: &str) -> bool {
    let proxied = url.starts_with("http://") && super::proxy_for(url).is_some();
    if proxied {
        log::debug!("git: {url}: through a proxy over http://: with the git command");
    }
    proxied
}

/// Whether the user configured an ssh command git would use.
fn user_ssh_command() -> bool {
    crate::net::settings().git_cli.user_ssh
        || super::user_config().is_some_and(|c| c.get_string("core.sshCommand").is_ok())
}

/// The credential helper that answers with `PLUGINS_GIT_USERNAME` and
/// `PLUGINS_GIT_PASSWORD` (the secret travels in the child's environment, not
/// its arguments), and only for the source's own host `PLUGINS_GIT_HOST`: never
/// after a redirect or an `insteadOf` rewrite to another host.
const ENV_HELPER: &str = "!f() { test \"$1\" = get || return 0; h=; while read -r l; do case \"$l\" in host=*) h=\"${l#host=}\";; esac; done; h=\"${h%:[0-9]*}\"; test -n \"$h\" && test \"$h\" = \"$PLUGINS_GIT_HOST\" && printf 'username=%s\\npassword=%s\\n' \"$PLUGINS_GIT_USERNAME\" \"$PLUGINS_GIT_PASSWORD\"; }; f";

/// `git -c ... <args>` with a clean, bounded environment, in `dir`. `prompt`:
/// git and ssh may ask on the terminal (an install with one on stdin).
fn command(url: &str, dir: &Path, userinfo: Option<&Userinfo>, prompt: bool) -> Command {
    let secs = crate::net::timeout().as_secs().max(1);
    let mut c = Command::new("git");
    for k in LOCAL_ENV {
        c.env_remove(k);
    }
    c.current_dir(dir)
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .env("LC_ALL", "C")
        .args(["-c", "protocol.allow=never"])
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .args(["-c", "http.lowSpeedLimit=1"])
        .arg("-c")
        .arg(format!("http.lowSpeedTime={secs}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for p in ALLOWED_PROTOCOLS.split(':') {
        c.arg("-c").arg(format!("protocol.{p}.allow=always"));
    }
    if !prompt {
        c.env("GIT_TERMINAL_PROMPT", "0")
            .env("GCM_INTERACTIVE", "never")
            .env("SSH_ASKPASS_REQUIRE", "never");
        if !user_ssh_command() {
            c.env(
                "GIT_SSH_COMMAND",
                format!("ssh -o BatchMode=yes -o ConnectTimeout={secs}"),
            );
        }
    }
    // The proxy `plugins` chose, given to git as config: curl ignores an upper-case
    // HTTP_PROXY, and the value (which may hold a proxy password) stays out of argv.
    if (url.starts_with("http://") || url.starts_with("https://"))
        && let Some(proxy) = super::proxy_for(url)
    {
        c.env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "http.proxy")
            .env("GIT_CONFIG_VALUE_0", proxy);
    }
    // The URL's userinfo comes first (git's own helpers are not asked); a
    // GitHub token comes after them.
    let secret = match userinfo {
        Some(u) => {
            c.args(["-c", "credential.helper="]);
            Some((u.user.clone(), u.password.clone()))
        }
        None => {
            crate::net::github_token_for(url).map(|t| ("x-access-token".to_owned(), t.0.clone()))
        }
    };
    if let Some((user, password)) = secret {
        c.arg("-c")
            .arg(format!("credential.helper={ENV_HELPER}"))
            .env(
                "PLUGINS_GIT_HOST",
                crate::auth::host(url).unwrap_or_default(),
            )
            .env("PLUGINS_GIT_USERNAME", user)
            .env("PLUGINS_GIT_PASSWORD", password);
    } else {
        for k in [
            "PLUGINS_GIT_HOST",
            "PLUGINS_GIT_USERNAME",
            "PLUGINS_GIT_PASSWORD",
        ] {
            c.env_remove(k);
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let own_session = !prompt;
        // SAFETY: setsid and prctl in the child before exec; async-signal-safe.
        unsafe {
            c.pre_exec(move || {
                if own_session && libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    c
}

/// Copy a pipe into `buf`, marking activity; `tail` keeps only the last
/// [`MAX_STDERR`] bytes, otherwise more than [`MAX_STDOUT`] sets `over`.
fn pump(
    mut pipe: impl Read + Send + 'static,
    buf: Arc<Mutex<Vec<u8>>>,
    seen: Arc<AtomicU64>,
    start: Instant,
    tail: bool,
    over: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let n = match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let now = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
            seen.store(now, Ordering::Relaxed);
            let mut b = buf.lock().expect("not poisoned");
            b.extend_from_slice(&chunk[..n]);
            if tail && b.len() > 2 * MAX_STDERR {
                let cut = b.len() - MAX_STDERR;
                b.drain(..cut);
            } else if !tail && b.len() > MAX_STDOUT {
                over.store(true, Ordering::Relaxed);
                b.clear();
            }
        }
    })
}

/// What a finished git command left.
struct Ran {
    ok: bool,
    stdout: Vec<u8>,
    stderr: String,
}

/// Run `cmd`, killing it (and, without a terminal, the ssh it started) when
/// it writes nothing for `PLUGINS_NET_TIMEOUT`.
fn run(
    mut cmd: Command,
    url: &str,
    phase: &'static str,
    own_session: bool,
) -> Result<Ran, GitError> {
    let limit = crate::net::timeout();
    let mut child = cmd.spawn().map_err(|e| CliError::NoGit {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    drop(cmd);
    let start = Instant::now();
    let seen = Arc::new(AtomicU64::new(0));
    let over = Arc::new(AtomicBool::new(false));
    let (out, err) = (Arc::default(), Arc::default());
    let readers = [
        child.stdout.take().map(|p| {
            pump(
                p,
                Arc::clone(&out),
                seen.clone(),
                start,
                false,
                over.clone(),
            )
        }),
        child
            .stderr
            .take()
            .map(|p| pump(p, Arc::clone(&err), seen.clone(), start, true, over.clone())),
    ];
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {
                let idle = start
                    .elapsed()
                    .saturating_sub(Duration::from_millis(seen.load(Ordering::Relaxed)));
                if idle > limit || over.load(Ordering::Relaxed) {
                    break None;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => break None,
        }
    };
    #[cfg(not(unix))]
    let _ = own_session;
    if status.is_none() {
        #[cfg(unix)]
        if own_session && let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) on the session (and group) git leads.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    // The pipes end with git and its ssh; one that outlives a kill (a prompt on
    // a terminal) is not waited for.
    let drained = Instant::now();
    for r in readers.into_iter().flatten() {
        while !r.is_finished() && drained.elapsed() < Duration::from_secs(1) {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let stderr = String::from_utf8_lossy(&err.lock().expect("not poisoned")).into_owned();
    if over.load(Ordering::Relaxed) {
        return Err(CliError::Failed {
            url: url.to_owned(),
            verb: phase,
            detail: format!("git wrote more than {} MiB", MAX_STDOUT >> 20),
        }
        .into());
    }
    let Some(status) = status else {
        return Err(GitError::Stalled {
            url: url.to_owned(),
            phase,
            secs: limit.as_secs(),
        });
    };
    let stdout = std::mem::take(&mut *out.lock().expect("not poisoned"));
    Ok(Ran {
        ok: status.success(),
        stdout,
        stderr,
    })
}

/// Lines of git's standard error worth showing: progress and git's
/// boilerplate left out, the last few kept, secrets removed, capped.
fn detail(stderr: &str, userinfo: Option<&Userinfo>) -> String {
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
        shown = shown.replace(s, "<redacted>");
    }
    if shown.is_empty() {
        shown = "git gave no reason".into();
    }
    crate::net::cap(&shown)
}

/// The known_hosts name in ssh's "No ED25519 host key is known for NAME and ...".
fn known_hosts_name(stderr: &str) -> Option<(String, Option<String>)> {
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
fn failure(url: &str, verb: &'static str, stderr: &str, userinfo: Option<&Userinfo>) -> GitError {
    let lower = stderr.to_ascii_lowercase();
    let detail = detail(stderr, userinfo);
    if lower.contains("host key verification failed") {
        let target = super::ssh::target(url);
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
    CliError::Failed { url, verb, detail }.into()
}

/// The directory ref listings run in: outside any repository.
fn neutral_dir() -> std::path::PathBuf {
    if cfg!(unix) {
        "/".into()
    } else {
        std::env::temp_dir()
    }
}

/// A remote's refs (annotated tags peeled) and its default branch, from
/// `git ls-remote --symref`.
fn list(url: &str, userinfo: Option<&Userinfo>, prompt: bool) -> Result<super::Refs, GitError> {
    refuse_hostile(url)?;
    let mut cmd = command(url, &neutral_dir(), userinfo, prompt);
    cmd.args(["ls-remote", "--symref", "--"]).arg(url);
    let ran = run(cmd, url, "connecting and listing refs", !prompt)?;
    if !ran.ok {
        return Err(failure(
            url,
            "connecting and listing refs",
            &ran.stderr,
            userinfo,
        ));
    }
    Ok(parse_ls_remote(&String::from_utf8_lossy(&ran.stdout)))
}

fn parse_ls_remote(text: &str) -> super::Refs {
    let mut refs: Vec<(String, Oid)> = Vec::new();
    let mut default = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("ref: ") {
            if let Some((target, "HEAD")) = rest.split_once('\t') {
                default = Some(target.to_owned());
            }
            continue;
        }
        let Some((oid, name)) = line.split_once('\t') else {
            continue;
        };
        let Ok(oid) = Oid::from_str(oid) else {
            continue;
        };
        if let Some(base) = name.strip_suffix("^{}") {
            if let Some(slot) = refs.iter_mut().find(|(n, _)| n == base) {
                slot.1 = oid;
            }
            continue;
        }
        refs.push((name.to_owned(), oid));
    }
    (refs, default)
}

/// The refs a remote advertises, with the git command. Never prompts: update
/// checks run in parallel and from cron.
pub(super) fn ls_remote(
    url: &str,
    userinfo: Option<&Userinfo>,
) -> Result<Vec<(String, String)>, GitError> {
    let (refs, _) = list(url, userinfo, false)?;
    Ok(refs
        .into_iter()
        .map(|(n, oid)| (n, oid.to_string()))
        .collect())
}

/// For [`super::walk`] with the git command: fetch the first of `candidates` the remote
/// has, `depth` commits deep, into the bare repository `repo` (at `dir`) as
/// `refs/remotes/walk/tip`; its id (an annotated tag's own object), or `None` when the
/// remote has none of them.
pub(super) fn fetch_walk_tip(
    url: &str,
    userinfo: Option<&Userinfo>,
    candidates: &[String],
    depth: usize,
    repo: &Repository,
    dir: &Path,
) -> Result<Option<Oid>, GitError> {
    let prompt = crate::net::settings().git_cli.interactive;
    let (refs, _) = list(url, userinfo, prompt)?;
    let Some(name) = candidates
        .iter()
        .find(|c| refs.iter().any(|(n, _)| n == *c))
    else {
        return Ok(None);
    };
    let mut cmd = command(url, dir, userinfo, prompt);
    cmd.args([
        "fetch",
        "--progress",
        "--no-tags",
        "--no-recurse-submodules",
    ])
    .arg(format!("--depth={}", depth.max(1)))
    .args(["--", url])
    .arg(format!("+{name}:refs/remotes/walk/tip"));
    let ran = run(cmd, url, "downloading", !prompt)?;
    if !ran.ok {
        return Err(failure(url, "downloading", &ran.stderr, userinfo));
    }
    Ok(repo.refname_to_id("refs/remotes/walk/tip").ok())
}

/// [`super::fetch_tree`] with the git command: list the refs, choose, fetch
/// what was chosen into a scratch repository beside `dest`, write the tree.
pub(super) fn fetch_tree(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    dest: &Path,
) -> Result<Fetched, GitError> {
    let prompt = crate::net::settings().git_cli.interactive;
    let (refs, default) = list(url, userinfo, prompt)?;
    let choice = super::choose(url, &refs, default, reference)?;
    let (scratch, repo) = super::scratch_repo(dest)?;
    // A full commit id alone, one commit deep, where the server allows wanting an id;
    // else (`not our ref`) the full fetch below.
    let pinned = reference
        .filter(|r| choice.kind == RefKind::Commit && r.len() == 40)
        .and_then(|r| Oid::from_str(r).ok());
    if let Some(oid) = pinned {
        let mut cmd = command(url, scratch.path(), userinfo, prompt);
        cmd.args([
            "fetch",
            "--progress",
            "--no-tags",
            "--no-recurse-submodules",
            "--depth=1",
            "--",
            url,
        ])
        .arg(format!("+{oid}:refs/plugins/pin"));
        let ran = run(cmd, url, "downloading", !prompt)?;
        match repo.find_commit(oid) {
            Ok(commit) if ran.ok => {
                super::write_tree(&repo, &commit.tree()?, dest, 0)?;
                return Ok(Fetched {
                    commit: oid.to_string(),
                    kind: RefKind::Commit,
                    refname: None,
                });
            }
            _ => log::debug!(
                "git: {url}: {oid} alone was refused: fetching every ref ({})",
                detail(&ran.stderr, userinfo)
            ),
        }
    }
    let mut cmd = command(url, scratch.path(), userinfo, prompt);
    cmd.args([
        "fetch",
        "--progress",
        "--no-tags",
        "--no-recurse-submodules",
    ]);
    match (&choice.kind, &choice.refname) {
        (RefKind::Commit, _) | (_, None) => {
            cmd.args([
                "--",
                url,
                "+refs/heads/*:refs/remotes/origin/*",
                "+refs/tags/*:refs/tags/*",
            ]);
        }
        (_, Some(name)) => {
            cmd.args(["--depth=1", "--", url])
                .arg(format!("+{name}:{name}"));
        }
    }
    let ran = run(cmd, url, "downloading", !prompt)?;
    if !ran.ok {
        return Err(failure(url, "downloading", &ran.stderr, userinfo));
    }
    // The ref may have moved since it was listed: then its fetched tip is used.
    let choice = match (&choice.tip, &choice.refname) {
        (Some(tip), Some(name)) if repo.find_commit(*tip).is_err() => Choice {
            tip: repo
                .find_reference(name)
                .and_then(|r| r.peel_to_commit())
                .map(|c| c.id())
                .ok(),
            ..choice
        },
        _ => choice,
    };
    let commit = super::commit_of(&repo, url, &choice, reference, &refs)?;
    super::write_tree(&repo, &commit.tree()?, dest, 0)?;
    Ok(Fetched {
        commit: commit.id().to_string(),
        kind: choice.kind,
        refname: choice.refname,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ls_remote_output_is_parsed() {
        let a = "1111111111111111111111111111111111111111";
        let b = "2222222222222222222222222222222222222222";
        let c = "3333333333333333333333333333333333333333";
        let text = format!(
            "ref: refs/heads/main\tHEAD\n{a}\tHEAD\n{a}\trefs/heads/main\n{b}\trefs/tags/v1\n{c}\trefs/tags/v1^{{}}\nnoise\n"
        );
        let (refs, default) = parse_ls_remote(&text);
        assert_eq!(default.as_deref(), Some("refs/heads/main"));
        let names: Vec<String> = refs.iter().map(|(n, o)| format!("{n}={o}")).collect();
        assert_eq!(
            names,
            [
                format!("HEAD={a}"),
                format!("refs/heads/main={a}"),
                format!("refs/tags/v1={c}")
            ]
        );
    }

    #[test]
    fn stderr_is_trimmed_and_redacted() {
        let u = Userinfo {
            user: "me".into(),
            password: "hunter2".into(),
        };
        let text = "Receiving objects:  50% (1/2)\rReceiving objects: 100% (2/2), done.\nfatal: unable to access 'https://me:hunter2@h/x/': 403 hunter2\nPlease make sure you have the correct access rights\nand the repository exists.\n";
        assert_eq!(
            detail(text, Some(&u)),
            "fatal: unable to access 'https://h/x/': 403 <redacted>"
        );
        assert_eq!(
            known_hosts_name("No ED25519 host key is known for [127.0.0.1]:2222 and you"),
            Some(("127.0.0.1".into(), Some("2222".into())))
        );
    }

    #[test]
    fn failures_are_named_from_git_and_ssh_words() {
        let url = "ssh://git@example.com:2222/acme/kit.git";
        let code = |stderr: &str| match failure(url, "downloading", stderr, None) {
            GitError::Cli(e) => Some(e.code()),
            GitError::Stalled { .. } => None,
            other => panic!("{other:?}"),
        };
        let unknown = "No ED25519 host key is known for [example.com]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\nfatal: Could not read from remote repository.\n";
        assert_eq!(code(unknown), Some(Code::GitHostKey));
        let GitError::Cli(e) = failure(url, "downloading", unknown, None) else {
            unreachable!()
        };
        assert!(
            e.help()
                .unwrap()
                .contains("ssh-keyscan -p 2222 example.com")
        );
        let changed = "@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\n";
        assert_eq!(code(changed), Some(Code::GitHostKey));
        assert_eq!(
            code("git@example.com: Permission denied (publickey).\r\n"),
            Some(Code::GitAuth)
        );
        assert_eq!(
            code("fatal: could not read Username for 'https://h': terminal prompts disabled\n"),
            Some(Code::GitAuth)
        );
        assert_eq!(
            code("fatal: transport 'ext' not allowed\n"),
            Some(Code::UsageInvalidArgument)
        );
        assert_eq!(
            code("ssh: connect to host h port 22: Connection timed out\n"),
            None
        );
        assert_eq!(code("fatal: repository not found\n"), Some(Code::GitFetch));
        let missing = CliError::NoGit {
            url: url.into(),
            reason: "No such file or directory".into(),
        };
        assert_eq!(missing.code(), Code::GitNoGit);
    }
}
