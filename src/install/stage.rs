//! Getting a plugin's tree into staging: a git fetch or a checked local copy,
//! and an aoe release-binary worker downloaded into the staged tree.

use std::path::Path;

use super::{Event, InstallError, InstallOptions, Refusal};
use crate::diagnostic::Code;
use crate::git::{self, RefKind};
use crate::lock::Entry;
use crate::manifest::ReleaseWorker;
use crate::source::Source;
use crate::validate::{PluginReport, validate_root};

/// What was fetched into staging.
pub(super) struct Staged {
    /// The resolved commit (git sources).
    pub(super) commit: Option<String>,
    pub(super) kind: Option<RefKind>,
    /// The ref as requested (recorded in the lock).
    pub(super) requested: String,
    /// The commit's and its tag's raw objects, for a signature check (git sources).
    pub(super) signed: Option<git::Signed>,
}

/// `sync --from BUNDLE`: the pinned tree from the bundle, as if fetched at its commit.
fn from_bundle(
    opts: &InstallOptions,
    dir: &Path,
    pin: &Entry,
    dest: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Staged, InstallError> {
    // The row's source, not the unpacked copy in the home's staging area.
    let source = opts.source.recorded();
    on_event(Event::Fetching(format!("{source} from the bundle")));
    let copied = crate::tree::copy(dir, dest, &|_, _| false)?;
    on_event(match &pin.commit {
        Some(commit) => Event::Fetched(commit.clone()),
        None => Event::Copied { copied, ignored: 0 },
    });
    Ok(Staged {
        commit: pin.commit.clone(),
        kind: pin.ref_kind,
        requested: pin.requested_ref.clone(),
        signed: None,
    })
}

/// Fetch the source into `dest`; returns the resolved commit and ref kind for git sources.
pub(super) fn fetch(
    opts: &InstallOptions,
    dest: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Staged, InstallError> {
    if let (Some(dir), Some(pin)) = (&opts.tree_from, &opts.pin) {
        return from_bundle(opts, dir, pin, dest, on_event);
    }
    match &opts.source {
        Source::Git {
            url,
            reference,
            userinfo,
            subdir,
            ..
        } => fetch_git(
            opts,
            (url, userinfo.as_ref()),
            reference.as_deref(),
            subdir.as_ref(),
            dest,
            on_event,
        ),
        Source::Local { path } => copy_local(opts, path, dest, on_event),
    }
}

/// Fetch a git source into `dest`: the ref asked for, or what [`want`] makes of it, and a
/// monorepo's plugin by its subdirectory alone ([`fetch_subdir`]).
fn fetch_git(
    opts: &InstallOptions,
    (url, userinfo): (&str, Option<&crate::auth::Userinfo>),
    reference: Option<&str>,
    subdir: Option<&String>,
    dest: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Staged, InstallError> {
    // The plugins of one shared fetch say `Fetching` and `Fetched` once, for all of them.
    let mut announced = opts.shared.as_ref().is_none_or(|s| s.announces(opts));
    if announced {
        on_event(Event::Fetching(url.to_owned()));
    }
    if crate::auth::is_cleartext(url) {
        on_event(Event::Warning {
            code: Code::GitCleartext,
            message: format!(
                "{url} is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL"
            ),
        });
    }
    let Want {
        reference,
        fetch: want,
        tag_hint,
    } = want(opts, reference)?;
    let fetched = match subdir {
        Some(subdir) => fetch_subdir(
            opts,
            (url, userinfo),
            (want.as_deref(), tag_hint),
            subdir,
            dest,
            &mut announced,
            on_event,
        )?,
        None => git::fetch_tree(
            url,
            userinfo,
            want.as_deref(),
            tag_hint,
            dest,
            &mut |bytes| on_event(Event::Received { bytes }),
        )?,
    };
    if announced {
        on_event(Event::Fetched(fetched.commit.clone()));
    }
    let (kind, requested) = requested_ref(opts, &reference, fetched.kind);
    Ok(Staged {
        commit: Some(fetched.commit),
        kind,
        requested,
        signed: Some(fetched.signed),
    })
}

/// What a git install fetches.
struct Want<'a> {
    /// The ref: as asked, or aoe's latest release's tag.
    reference: Option<String>,
    /// What is fetched for it (`sync`: the locked commit).
    fetch: Option<String>,
    /// The tag that comes along for the commit's signature.
    tag_hint: Option<&'a str>,
}

/// What a git install asking for `reference` fetches.
fn want<'a>(opts: &'a InstallOptions, reference: Option<&str>) -> Result<Want<'a>, InstallError> {
    // aoe: installing `gh:owner/repo` without a ref takes the latest release's
    // tag, else the default branch. `sync` (a pin) and `update` (an expected id)
    // fetch what they already decided.
    let fresh = opts.pin.is_none() && opts.expect_id.is_none();
    let latest = match (reference, opts.source.github_repo()) {
        (None, Some((owner, repo))) if fresh && opts.source.recorded().starts_with("gh:") => {
            crate::release::latest_tag(&opts.github_api, &owner, &repo)?
        }
        _ => None,
    };
    let reference = reference.map(str::to_owned).or(latest);
    // `sync` fetches the locked commit; the tag it was installed from, if it still
    // names that commit, comes along for its signature.
    let (pinned, tag_hint) = super::shared::wanted(opts);
    let want = pinned
        .filter(|_| opts.pin.is_some() || opts.at_commit.is_some())
        .or_else(|| reference.clone());
    Ok(Want {
        reference,
        fetch: want,
        tag_hint,
    })
}

/// A monorepo's plugin: its subdirectory is fetched (with those of the command's other
/// plugins of the same commit) beside `dest`, then becomes the plugin's tree. `announced`:
/// `Fetching` was said for it already; set when it fetches alone and says so.
fn fetch_subdir(
    opts: &InstallOptions,
    (url, userinfo): (&str, Option<&crate::auth::Userinfo>),
    (want, tag_hint): (Option<&str>, Option<&str>),
    subdir: &String,
    dest: &Path,
    announced: &mut bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<git::Fetched, InstallError> {
    let repo = dest.with_file_name("repo");
    let shared = opts.shared.as_ref().and_then(|s| s.take(opts, &repo));
    let fetched = match shared {
        Some(fetched) => fetched?,
        None => {
            // The shared fetch failed: this plugin fetches (and says so) alone.
            if !*announced {
                on_event(Event::Fetching(url.to_owned()));
                *announced = true;
            }
            git::fetch_subdirs(
                url,
                userinfo,
                want,
                tag_hint,
                std::slice::from_ref(subdir),
                &repo,
                &mut |bytes| on_event(Event::Received { bytes }),
            )?
        }
    };
    take_subdir(&repo, subdir, dest, &fetched.commit)?;
    Ok(fetched)
}

/// Copy a local source into `dest`, checked where it is first; inside a git work tree,
/// what git ignores (build output) is left out.
fn copy_local(
    opts: &InstallOptions,
    path: &Path,
    dest: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Staged, InstallError> {
    // A lock row's empty source is no path: it would name the current directory.
    if path.as_os_str().is_empty() {
        let id = opts.pin.as_ref().map_or("the plugin", |p| p.id.as_str());
        return Err(Refusal::NoSource { id: id.to_owned() }.into());
    }
    on_event(Event::Fetching(path.display().to_string()));
    // The source is checked where it is before anything is copied.
    let mut report = validate_root(path, &super::validate_options(opts, path));
    if !report.is_valid() {
        if report.dialect.is_none() {
            super::check::plugins_below(opts, path, &mut report);
        }
        return Err(InstallError::Invalid(Box::new(report)));
    }
    // Inside a git work tree, what git ignores (build output) is left out.
    let rules = git::Ignored::for_dir(path);
    let ignored = std::cell::Cell::new(0);
    let skip = |rel: &Path, _: usize| {
        if rel.file_name().is_some_and(|n| n == ".git") {
            return true;
        }
        let out = rules.as_ref().is_some_and(|r| r.is_ignored(rel));
        ignored.set(ignored.get() + usize::from(out));
        out
    };
    let copied = crate::tree::copy(path, dest, &skip)?;
    on_event(Event::Copied {
        copied,
        ignored: ignored.get(),
    });
    Ok(Staged {
        commit: None,
        kind: None,
        requested: String::new(),
        signed: None,
    })
}

/// The ref kind and name the lock row keeps: the pin's (`sync`), the branch's for an older
/// commit of it (a cooldown settled on it: still the branch), else what was fetched.
fn requested_ref(
    opts: &InstallOptions,
    reference: &Option<String>,
    fetched: git::RefKind,
) -> (Option<git::RefKind>, String) {
    match (&opts.pin, &opts.at_commit) {
        (Some(p), _) => (p.ref_kind, p.requested_ref.clone()),
        (None, Some(_)) => (
            Some(match reference {
                Some(_) => git::RefKind::Branch,
                None => git::RefKind::Default,
            }),
            reference.clone().unwrap_or_default(),
        ),
        (None, None) => (Some(fetched), reference.clone().unwrap_or_default()),
    }
}

/// Move `repo/<subdir>` to `dest`, refusing a path that leaves the repository or passes
/// through a symlink, and one that is not a directory at `commit`.
fn take_subdir(repo: &Path, subdir: &str, dest: &Path, commit: &str) -> Result<(), InstallError> {
    let rel = crate::name::relative_path(subdir).ok_or_else(|| Refusal::SubdirOutside {
        subdir: subdir.to_owned(),
    })?;
    let mut at = repo.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match fs_err::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Refusal::SubdirSymlink {
                    subdir: subdir.to_owned(),
                    path: crate::render::display_path(at.strip_prefix(repo).unwrap_or(&at)),
                    commit: commit.to_owned(),
                }
                .into());
            }
            Ok(m) if m.is_dir() => {}
            _ => {
                return Err(Refusal::SubdirNotDir {
                    subdir: subdir.to_owned(),
                    commit: commit.to_owned(),
                }
                .into());
            }
        }
    }
    fs_err::rename(&at, dest).map_err(super::io(format!("cannot move {}", at.display())))?;
    let _ = fs_err::remove_dir_all(repo);
    Ok(())
}

/// Download and place an aoe release-binary worker, if the manifest declares one.
pub(super) fn fetch_release(
    report: &PluginReport,
    opts: &InstallOptions,
    entry: &Entry,
    tree: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<crate::release::Placed>, InstallError> {
    let Some(ReleaseWorker {
        asset,
        bin,
        version,
    }) = &report.outcome.facts.release
    else {
        return Ok(None);
    };
    let Some((owner, repo)) = opts.source.github_repo() else {
        // aoe: a local (or non-GitHub) source does not download; the binary must be there.
        let name = bin
            .clone()
            .unwrap_or_else(|| crate::release::render(asset, version));
        if !crate::name::relative_path(&name).is_some_and(|rel| tree.join(rel).is_file()) {
            return Err(Refusal::ReleaseNotInSource {
                id: entry.id.to_string(),
                name,
            }
            .into());
        }
        return Ok(None);
    };
    if opts.frozen && opts.pin.as_ref().is_some_and(|p| p.release.is_none()) {
        return Err(Refusal::FrozenNoAsset {
            id: entry.id.to_string(),
        }
        .into());
    }
    let request = crate::release::ReleaseRequest {
        api: opts.github_api.clone(),
        owner,
        repo,
        // `sync` re-fetches the locked release; otherwise the requested tag, else the latest.
        tag: opts
            .pin
            .as_ref()
            .and_then(|p| p.release.as_ref().map(|r| r.tag.clone()))
            .or_else(|| {
                (entry.ref_kind == Some(RefKind::Tag)).then(|| entry.requested_ref.clone())
            }),
        asset_template: asset.clone(),
        bin: bin.clone(),
        version: version.clone(),
        locked_sha256: opts
            .pin
            .as_ref()
            .and_then(|p| p.release.as_ref().map(|r| r.sha256.clone())),
    };
    let name = crate::release::render(asset, version);
    // `sync --frozen --from BUNDLE`: the asset the bundle holds, hashed against the lock.
    if let Some(dir) = &opts.asset_from {
        return Ok(Some(crate::release::install_from(&request, dir, tree)?));
    }
    let placed = crate::release::install(&request, tree, &mut |done, total| {
        on_event(Event::Downloading {
            asset: name.clone(),
            done,
            total,
        });
    })?;
    Ok(Some(placed))
}
