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

use super::{Fetched, GitError};
use crate::auth::Userinfo;
use crate::diagnostic::Code;

pub use crate::net::CliSettings;

mod error;
mod fetch;
mod process;
mod verify;

#[cfg(test)]
mod tests;

pub use error::CliError;
use error::*;
pub(super) use error::{SERVER_ABORTED, server_words};
pub(in crate::git) use fetch::BLOBS_PHASE;
use fetch::{fetch, fetch_ref, from_kept};
pub use process::kill_stragglers;
use process::*;
pub(in crate::git) use verify::verify;

/// Refuse, before any transfer, a remote git or ssh could read as an option or
/// a command (a hand-edited lock can hold one).
pub(super) fn refuse_hostile(url: &str) -> Result<(), GitError> {
    super::check_url(url).map_err(|why| {
        CliError::Refused {
            url: url.to_owned(),
            why: why.to_string(),
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
        || super::user_git().fetch_with_cli
}

/// Whether `url` is `http://` and a proxy applies to it ([`super::proxy_for`]).
fn proxied_http(url: &str) -> bool {
    let proxied = url.starts_with("http://") && super::proxy_for(url).is_some();
    if proxied {
        log::debug!("git: {url}: through a proxy over http://: with the git command");
    }
    proxied
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
    if let Some(refs) = super::shared::remembered(url, userinfo) {
        return Ok(refs);
    }
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
    let refs = parse_ls_remote(&String::from_utf8_lossy(&ran.stdout));
    super::shared::remember(url, userinfo, &refs);
    Ok(refs)
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
/// has, `depth` commits deep (`no_blobs`: commits and trees only), into the bare repository `repo` (at `dir`) as
/// `refs/remotes/walk/tip`; its id (an annotated tag's own object), or `None` when the
/// remote has none of them.
pub(super) fn fetch_walk_tip(
    url: &str,
    userinfo: Option<&Userinfo>,
    candidates: &[String],
    depth: usize,
    no_blobs: bool,
    repo: &Repository,
    dir: &Path,
) -> Result<Option<Oid>, GitError> {
    let prompt = crate::net::settings().git_cli.interactive;
    let (refs, _) = list(url, userinfo, prompt)?;
    let Some((name, tip)) = candidates
        .iter()
        .find_map(|c| refs.iter().find(|(n, _)| n == c))
    else {
        return Ok(None);
    };
    // A tag by name: its own object (and date) comes along, not only its commit.
    let tip = Some(*tip).filter(|_| !name.starts_with("refs/tags/"));
    let depth = format!("--depth={}", depth.max(1));
    let mut args = vec![depth.as_str()];
    if no_blobs {
        args.push("--filter=blob:none");
    }
    let at = (url, userinfo, prompt);
    fetch_ref(at, dir, &args, (name, tip), "refs/remotes/walk/tip")?;
    Ok(repo.refname_to_id("refs/remotes/walk/tip").ok())
}

/// [`super::fetch_tree`] with the git command: list the refs, choose, fetch
/// what was chosen into a scratch repository beside `dest`, write the tree.
pub(super) fn fetch_tree(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    dest: &Path,
) -> Result<Fetched, GitError> {
    fetch(url, userinfo, reference, tag_hint, dest, None)
}

/// [`super::fetch_subdirs`] with the git command: as [`fetch_tree`], but a partial
/// clone: every fetch asks the server for the commits and their root trees alone
/// (`--filter=tree:1`; a server that does not filter sends everything, as git warns), then
/// the trees on the way to `subdirs` by id, a level a round, then their contents, so only
/// `subdirs` (and the directories above them) travel. Only `subdirs` are written.
pub(super) fn fetch_subdirs(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    subdirs: &[String],
    dest: &Path,
) -> Result<Fetched, GitError> {
    let at = (url, userinfo, crate::net::settings().git_cli.interactive);
    if tag_hint.is_none()
        && let Some(done) = from_kept(at, reference, subdirs, dest)
    {
        return done;
    }
    fetch(url, userinfo, reference, tag_hint, dest, Some(subdirs))
}

/// `git fetch` of `url` into `dir` as every fetch here runs it: with progress, no tags, no
/// submodules; the caller adds depth, URL and refspecs.
fn fetch_command(url: &str, dir: &Path, userinfo: Option<&Userinfo>, prompt: bool) -> Command {
    let mut cmd = command(url, dir, userinfo, prompt);
    cmd.args([
        "fetch",
        "--progress",
        "--no-tags",
        "--no-recurse-submodules",
    ]);
    cmd
}
