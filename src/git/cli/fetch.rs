//! Fetching a commit with the git command into a scratch repository and writing its tree
//! (whole, or a monorepo's subdirectories from a partial clone).

use std::path::Path;

use git2::{Oid, Repository};

use super::{CliError, command, detail, failure, fetch_command, list, run};
use crate::auth::Userinfo;
use crate::git::tree::FetchedRef;
use crate::git::{Choice, Fetched, GitError, RefKind};

/// [`fetch_subdirs`] from a repository this command fetched the commit into already
/// ([`crate::git::shared::kept`]: issue 43, one fetch per repository and commit): the commit
/// `reference` names by id, or the tip this command's listing gave its branch. `None`: no
/// repository holds it (or no listing was shared).
pub(super) fn from_kept(
    at: (&str, Option<&Userinfo>, bool),
    reference: Option<&str>,
    subdirs: &[String],
    dest: &Path,
) -> Option<Result<Fetched, GitError>> {
    let (url, userinfo, prompt) = at;
    let (refs, default) = crate::git::shared::remembered(url, userinfo)?;
    let choice = crate::git::choose(url, &refs, default, reference).ok()?;
    let commit = match choice.kind {
        RefKind::Tag => return None,
        RefKind::Commit => reference
            .filter(|r| r.len() == 40)
            .and_then(|r| Oid::from_str(r).ok())?,
        RefKind::Branch | RefKind::Default => choice.tip?,
    };
    let kept = crate::git::shared::kept(url, userinfo, commit, (1, false))?;
    let dir = kept.lock().ok()?;
    let repo = Repository::open_bare(dir.path()).ok()?;
    let found = crate::git::read_commit(&repo, commit, url).ok()??;
    let probe = probe(url, userinfo, prompt, &[ROOT_TREES]);
    let published =
        crate::git::reach::ensure_published(url, &refs, commit, &repo, false, dest, probe);
    Some(published.and_then(|()| {
        let (kind, refname) = (choice.kind, choice.refname);
        let into = (&repo, dir.path());
        write_out(into, &found, dest, (kind, refname, None), Some(subdirs), at)
    }))
}

/// The filter of a partial fetch's commits: each with its root tree, nothing below.
const ROOT_TREES: &str = "--filter=tree:1";

/// The filter of a partial fetch that brings a history to walk: its commits and trees.
const NO_BLOBS: &str = "--filter=blob:none";

/// What a partial fetch is doing when it asks for a subdirectory's objects by id (a
/// server may refuse to be asked for objects by id: then the whole tree is fetched).
pub(in crate::git) const BLOBS_PHASE: &str = "fetching the subdirectory's files by id";

/// Write the fetched commit: its whole tree, or (`sparse`) only those paths, with the
/// objects they lack fetched by id from `url` into the repository at `dir`.
fn write_out(
    (repo, dir): (&Repository, &Path),
    commit: &git2::Commit<'_>,
    dest: &Path,
    fetched: FetchedRef,
    sparse: Option<&[String]>,
    (url, userinfo, prompt): (&str, Option<&Userinfo>, bool),
) -> Result<Fetched, GitError> {
    let Some(paths) = sparse else {
        let (kind, refname, tag) = fetched;
        return crate::git::check_out(repo, commit, dest, kind, refname, tag);
    };
    let mut fetch_objects = |ids: &[Oid], want: crate::git::tree::Want| {
        // Trees alone, or everything below them: a filter git sends as asked (without
        // one, the remote's recorded `tree:1` would apply).
        let filter = match want {
            crate::git::tree::Want::Trees => "--filter=tree:0",
            crate::git::tree::Want::Whole => "--filter=blob:limit=4g",
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
    crate::git::tree::check_out_paths(repo, commit, dest, fetched, paths, &mut fetch_objects)?
        .ok_or_else(|| {
            CliError::Failed {
                url: url.to_owned(),
                verb: BLOBS_PHASE,
                detail: "the server did not send the objects asked for".to_owned(),
            }
            .into()
        })
}

/// List (or take this command's listing), choose, fetch what was chosen into a scratch
/// repository and write its tree: beside `dest`, or (a monorepo's fetch in a command that
/// walks its history: `update --dry-run`) with that history, in the temp directory, kept
/// for the command's other fetches and walks of the commit ([`crate::git::shared`]).
pub(super) fn fetch(
    url: &str,
    userinfo: Option<&Userinfo>,
    reference: Option<&str>,
    tag_hint: Option<&str>,
    dest: &Path,
    sparse: Option<&[String]>,
) -> Result<Fetched, GitError> {
    let prompt = crate::net::settings().git_cli.interactive;
    let history = sparse.and(crate::git::shared::history());
    let (scratch, repo) = match history {
        Some(_) => crate::git::shared::scratch()?,
        None => crate::git::scratch_repo(dest)?,
    };
    // The commit and its root trees, or (a history to walk) every tree of that history.
    let depth = format!("--depth={}", history.unwrap_or(1));
    let filter: &[&str] = match (sparse, history) {
        (None, _) => &[],
        (Some(_), None) => &[ROOT_TREES],
        (Some(_), Some(_)) => &[NO_BLOBS],
    };
    let at = (url, userinfo, prompt);
    let into = (&repo, scratch.path());
    let fetched = fetch_in(
        at,
        (reference, tag_hint),
        into,
        (filter, &depth),
        dest,
        sparse,
    )?;
    if let (Some(h), Ok(commit)) = (history, Oid::from_str(&fetched.commit)) {
        drop(repo);
        crate::git::shared::keep(url, userinfo, commit, (h, true), scratch);
    }
    Ok(fetched)
}

/// [`fetch`] into the scratch repository `repo` at `dir`, `shape` its filter and depth.
fn fetch_in(
    at: (&str, Option<&Userinfo>, bool),
    (reference, tag_hint): (Option<&str>, Option<&str>),
    (repo, dir): (&Repository, &Path),
    (filter, depth): (&[&str], &str),
    dest: &Path,
    sparse: Option<&[String]>,
) -> Result<Fetched, GitError> {
    let (url, userinfo, prompt) = at;
    let (refs, default) = list(url, userinfo, prompt)?;
    let choice = crate::git::choose(url, &refs, default, reference)?;
    // A full commit id alone, one commit deep, where the server allows wanting an id;
    // else (`not our ref`) the full fetch below.
    let pinned = reference
        .filter(|r| choice.kind == RefKind::Commit && r.len() == 40)
        .and_then(|r| Oid::from_str(r).ok());
    if let Some(oid) = pinned {
        let mut cmd = fetch_command(url, dir, userinfo, prompt);
        cmd.args(filter)
            .args([depth, "--", url])
            .arg(format!("+{oid}:refs/plugins/pin"));
        // The hinted tag comes along while it still names the commit.
        let hinted = tag_hint
            .map(|t| format!("refs/tags/{t}"))
            .filter(|name| refs.iter().any(|(n, peeled)| n == name && *peeled == oid));
        cmd.args(hinted.iter().map(|name| format!("+{name}:{name}")));
        let ran = run(cmd, url, "downloading", !prompt)?;
        match crate::git::read_commit(repo, oid, url)? {
            Some(commit) if ran.ok => {
                let probe = probe(url, userinfo, prompt, filter);
                crate::git::reach::ensure_published(url, &refs, oid, repo, false, dest, probe)?;
                let tag = crate::git::tree::tag_ref(repo, hinted.as_deref());
                let chosen = (RefKind::Commit, None, tag);
                return write_out((repo, dir), &commit, dest, chosen, sparse, at);
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
    fetch_choice(at, (filter, depth), dir, &choice)?;
    // The ref may have moved since it was listed: then its fetched tip is used.
    let choice = match (&choice.tip, &choice.refname) {
        (Some(tip), Some(name)) if crate::git::read_commit(repo, *tip, url)?.is_none() => Choice {
            tip: repo
                .find_reference(name)
                .and_then(|r| r.peel_to_commit())
                .map(|c| c.id())
                .ok(),
            ..choice
        },
        _ => choice,
    };
    let commit = crate::git::commit_of(repo, url, &choice, reference, &refs)?;
    let probe = probe(url, userinfo, prompt, filter);
    crate::git::reach::ensure_published(url, &refs, commit.id(), repo, complete, dest, probe)?;
    let signed_tag = crate::git::tree::signed_tag_name(&choice, tag_hint);
    let tag = crate::git::tree::tag_ref(repo, signed_tag.as_deref());
    let chosen = (choice.kind, choice.refname, tag);
    write_out((repo, dir), &commit, dest, chosen, sparse, at)
}

/// Fetch what `choice` names into the repository at `dir`: for a commit (or no ref) every
/// branch and tag in full; else the ref `depth` deep ([`fetch_ref`]), a branch by the
/// id the listing gave its tip and a tag by name, so that its own object comes along.
fn fetch_choice(
    at: (&str, Option<&Userinfo>, bool),
    (filter, depth): (&[&str], &str),
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
    args.push(depth);
    fetch_ref(at, dir, &args, (name, tip), name)
}

/// `git fetch` (with `args`) of the ref `name` into `dir` as `to`: by `tip`, the id the
/// listing gave it, when there is one, for which git asks the server for no listing of its
/// own (issue 43: a fetch by name lists the refs again); by name when the server no
/// longer serves that id (the ref moved since it was listed).
pub(super) fn fetch_ref(
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

/// [`crate::git::reach::ensure_published`]'s probe with the git command: fetch
/// [`crate::git::reach::probe_refspecs`] at `depth` into the repository at `dir`.
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
            .args(crate::git::reach::probe_refspecs(depth));
        let ran = run(cmd, url, "downloading", !prompt)?;
        if ran.ok {
            Ok(())
        } else {
            Err(failure(url, "downloading", &ran.stderr, userinfo))
        }
    }
}
