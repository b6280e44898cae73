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

mod error;
mod process;
mod verify;

#[cfg(test)]
mod tests;

pub use error::CliError;
use error::*;
pub(super) use error::{SERVER_ABORTED, server_words};
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
    if let Some(refs) = super::listed::remembered(url, userinfo) {
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
    super::listed::remember(url, userinfo, &refs);
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
    fetch(url, userinfo, reference, tag_hint, dest, Some(subdirs))
}

/// The filter of a partial fetch's commits: each with its root tree, nothing below.
const ROOT_TREES: &str = "--filter=tree:1";

/// What a partial fetch is doing when it asks for a subdirectory's objects by id (a
/// server may refuse to be asked for objects by id: then the whole tree is fetched).
pub(in crate::git) const BLOBS_PHASE: &str = "fetching the subdirectory's files by id";

/// Write the fetched commit: its whole tree, or (`sparse`) only those paths, with the
/// objects they lack fetched by id from `url` into the repository at `dir`.
#[allow(clippy::too_many_arguments)] // the fetch's parts, passed down as they are
fn write_out(
    repo: &Repository,
    dir: &Path,
    commit: &git2::Commit<'_>,
    dest: &Path,
    kind: RefKind,
    refname: Option<String>,
    tag: Option<(String, Oid)>,
    sparse: Option<&[String]>,
    (url, userinfo, prompt): (&str, Option<&Userinfo>, bool),
) -> Result<Fetched, GitError> {
    let Some(paths) = sparse else {
        return super::check_out(repo, commit, dest, kind, refname, tag);
    };
    let mut fetch_objects = |ids: &[Oid], want: super::tree::Want| {
        // Trees alone, or everything below them: a filter git sends as asked (without
        // one, the remote's recorded `tree:1` would apply).
        let filter = match want {
            super::tree::Want::Trees => "--filter=tree:0",
            super::tree::Want::Whole => "--filter=blob:limit=4g",
        };
        let mut cmd = command(url, dir, userinfo, prompt);
        // No negotiation: the objects are wanted by id, and nothing here has them.
        // `--depth` makes git ask even for objects its partial clone counts as promised.
        cmd.args(["-c", "fetch.negotiationAlgorithm=noop"])
            .args([
                "fetch",
                "--progress",
                "--no-tags",
                "--no-recurse-submodules",
                "--no-write-fetch-head",
                "--depth=1",
                filter,
                "--",
                url,
            ])
            .args(ids.iter().map(Oid::to_string));
        let ran = run(cmd, url, BLOBS_PHASE, !prompt)?;
        if ran.ok {
            Ok(())
        } else {
            Err(failure(url, BLOBS_PHASE, &ran.stderr, userinfo))
        }
    };
    super::tree::check_out_paths(
        repo,
        commit,
        dest,
        kind,
        refname,
        tag,
        paths,
        &mut fetch_objects,
    )?
    .ok_or_else(|| {
        CliError::Failed {
            url: url.to_owned(),
            verb: BLOBS_PHASE,
            detail: "the server did not send the objects asked for".to_owned(),
        }
        .into()
    })
}

fn fetch(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    dest: &Path,
    sparse: Option<&[String]>,
) -> Result<Fetched, GitError> {
    let prompt = crate::net::settings().git_cli.interactive;
    let filter: &[&str] = if sparse.is_some() { &[ROOT_TREES] } else { &[] };
    let (refs, default) = list(url, userinfo, prompt)?;
    let choice = super::choose(url, &refs, default, reference)?;
    let (scratch, repo) = super::scratch_repo(dest)?;
    // A full commit id alone, one commit deep, where the server allows wanting an id;
    // else (`not our ref`) the full fetch below.
    let pinned = reference
        .filter(|r| choice.kind == RefKind::Commit && r.len() == 40)
        .and_then(|r| Oid::from_str(r).ok());
    if let Some(oid) = pinned {
        let mut cmd = fetch_command(url, scratch.path(), userinfo, prompt);
        cmd.args(filter)
            .args(["--depth=1", "--", url])
            .arg(format!("+{oid}:refs/plugins/pin"));
        // The hinted tag comes along while it still names the commit.
        let hinted = tag_hint
            .map(|t| format!("refs/tags/{t}"))
            .filter(|name| refs.iter().any(|(n, peeled)| n == name && *peeled == oid));
        cmd.args(hinted.iter().map(|name| format!("+{name}:{name}")));
        let ran = run(cmd, url, "downloading", !prompt)?;
        match super::read_commit(&repo, oid, url)? {
            Some(commit) if ran.ok => {
                let probe = probe(url, userinfo, prompt, filter);
                super::reach::ensure_published(url, &refs, oid, &repo, false, dest, probe)?;
                let tag = super::tree::tag_ref(&repo, hinted.as_deref());
                return write_out(
                    &repo,
                    scratch.path(),
                    &commit,
                    dest,
                    RefKind::Commit,
                    None,
                    tag,
                    sparse,
                    (url, userinfo, prompt),
                );
            }
            _ => log::debug!(
                "git: {url}: {oid} alone was refused: fetching every ref ({})",
                detail(&ran.stderr, userinfo)
            ),
        }
    }
    // Every branch and tag in full: the commit's reachability is known without more.
    let complete = matches!(
        (&choice.kind, &choice.refname),
        (RefKind::Commit, _) | (_, None)
    );
    fetch_choice((url, userinfo, prompt), filter, scratch.path(), &choice)?;
    // The ref may have moved since it was listed: then its fetched tip is used.
    let choice = match (&choice.tip, &choice.refname) {
        (Some(tip), Some(name)) if super::read_commit(&repo, *tip, url)?.is_none() => Choice {
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
    let probe = probe(url, userinfo, prompt, filter);
    super::reach::ensure_published(url, &refs, commit.id(), &repo, complete, dest, probe)?;
    let signed_tag = super::tree::signed_tag_name(&choice, tag_hint);
    let tag = super::tree::tag_ref(&repo, signed_tag.as_deref());
    write_out(
        &repo,
        scratch.path(),
        &commit,
        dest,
        choice.kind,
        choice.refname,
        tag,
        sparse,
        (url, userinfo, prompt),
    )
}

/// Fetch what `choice` names into the repository at `dir`: for a commit (or no ref) every
/// branch and tag in full; else the ref one commit deep ([`fetch_ref`]), a branch by the
/// id the listing gave its tip and a tag by name, so that its own object comes along.
fn fetch_choice(
    at: (&str, Option<&Userinfo>, bool),
    filter: &[&str],
    dir: &Path,
    choice: &Choice,
) -> Result<(), GitError> {
    let (url, userinfo, prompt) = at;
    let Some(name) = choice
        .refname
        .as_deref()
        .filter(|_| choice.kind != RefKind::Commit)
    else {
        let mut cmd = fetch_command(url, dir, userinfo, prompt);
        cmd.args(filter).args([
            "--",
            url,
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
        ]);
        let ran = run(cmd, url, "downloading", !prompt)?;
        return match ran.ok {
            true => Ok(()),
            false => Err(failure(url, "downloading", &ran.stderr, userinfo)),
        };
    };
    let tip = choice.tip.filter(|_| choice.kind != RefKind::Tag);
    let mut args = filter.to_vec();
    args.push("--depth=1");
    fetch_ref(at, dir, &args, (name, tip), name)
}

/// `git fetch` (with `args`) of the ref `name` into `dir` as `to`: by `tip`, the id the
/// listing gave it, when there is one, for which git asks the server for no listing of its
/// own (issue 43: a fetch by name lists the refs again); by name when the server no
/// longer serves that id (the ref moved since it was listed).
fn fetch_ref(
    (url, userinfo, prompt): (&str, Option<&Userinfo>, bool),
    dir: &Path,
    args: &[&str],
    (name, tip): (&str, Option<Oid>),
    to: &str,
) -> Result<(), GitError> {
    let fetch = |from: &str| {
        let mut cmd = fetch_command(url, dir, userinfo, prompt);
        cmd.args(args)
            .args(["--", url])
            .arg(format!("+{from}:{to}"));
        run(cmd, url, "downloading", !prompt)
    };
    let mut ran = fetch(&tip.map_or_else(|| name.to_owned(), |t| t.to_string()))?;
    let refused = |said: &str| said.contains("not our ref") || said.contains("unadvertised object");
    if !ran.ok && tip.is_some() && refused(&ran.stderr) {
        log::debug!("git: {url}: the listed tip of {name} was refused: fetching it by name");
        ran = fetch(name)?;
    }
    match ran.ok {
        true => Ok(()),
        false => Err(failure(url, "downloading", &ran.stderr, userinfo)),
    }
}

/// [`super::reach::ensure_published`]'s probe with the git command: fetch
/// [`super::reach::probe_refspecs`] at `depth` into the repository at `dir`.
fn probe<'a>(
    url: &'a str,
    userinfo: Option<&'a Userinfo>,
    prompt: bool,
    filter: &'a [&'a str],
) -> impl FnMut(&Repository, &Path, Option<i32>) -> Result<(), GitError> + 'a {
    move |_, dir, depth| {
        let mut cmd = fetch_command(url, dir, userinfo, prompt);
        cmd.args(filter);
        if let Some(depth) = depth {
            cmd.arg(format!("--depth={depth}"));
        }
        cmd.args(["--", url])
            .args(super::reach::probe_refspecs(depth));
        let ran = run(cmd, url, "downloading", !prompt)?;
        if ran.ok {
            Ok(())
        } else {
            Err(failure(url, "downloading", &ran.stderr, userinfo))
        }
    }
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
