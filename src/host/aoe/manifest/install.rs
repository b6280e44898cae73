//! The host's install-time refusals that need no network (spec `aoe.md` §17, §19 step 5).
//!
//! The manifest is valid, but `aoe plugin install` would refuse it. These are
//! warnings (only install refuses) except the `--host-version` check, which the
//! user asked for explicitly and which also makes the host skip the plugin at load.

use std::path::Path;

use super::Options;
use super::profile::{BUILTIN_IDS, Profile};
use super::raw::{Manifest, Runtime};
use super::rules;
use crate::diagnostic::{Code, Severity, did_you_mean};
use crate::manifest::Finding;
use crate::ptr;

/// At most this many symlinks are reported; the rest are counted.
const MAX_SYMLINKS_REPORTED: usize = 10;

pub(super) fn check(m: &Manifest, root: Option<&Path>, opts: &Options) -> Vec<(Finding, Severity)> {
    let mut out = Vec::new();
    let warn = |f: Finding| (f, Severity::Warning);
    if let Some(f) = capabilities(m, opts.profile) {
        out.push(warn(f));
    }
    let id = &m.id.0;
    if rules::is_reserved_namespace(id)
        && !opts.featured
        && let Some(f) = reserved_namespace(id, root, opts)
    {
        out.push(warn(f));
    }
    if BUILTIN_IDS.contains(&id.as_str()) {
        out.push(warn(Finding::new(
            Code::AoeBuiltinId,
            format!("plugin id {id:?} collides with a builtin plugin"),
            ptr!["id"],
        )));
    }
    if let (Some(host), Some(req)) = (&opts.host_version, &m.aoe_version)
        && let Ok(req) = semver::VersionReq::parse(req)
        && !req.matches(host)
    {
        out.push((
            Finding::new(
                Code::AoeHostVersion,
                format!("plugin requires aoe {req}; this host is {host}"),
                ptr!["aoe_version"],
            )
            .help("install refuses it and the host skips it at load"),
            Severity::Error,
        ));
    }
    if let Some(Runtime::ReleaseBinary { asset, bin }) = &m.runtime {
        let archive = asset.ends_with(".tar.gz") || asset.ends_with(".tgz");
        if archive && bin.is_none() {
            out.push(warn(
                Finding::new(
                    Code::AoeArchiveWithoutBin,
                    "a release-binary archive asset must set `bin`",
                    ptr!["runtime", "asset"],
                )
                .help("set `bin` to the executable's path inside the archive"),
            ));
        }
        if let Some(bin) = bin.as_deref().filter(|b| !b.is_empty())
            && (rules::is_absolute(bin)
                || rules::has_windows_prefix(bin)
                || bin.split(['/', '\\']).any(|s| s == ".."))
        {
            out.push(warn(Finding::new(
                Code::AoeBinPath,
                format!("plugin path {bin:?} must be a relative path inside the plugin (no absolute path or `..`)"),
                ptr!["runtime", "bin"],
            )));
        }
    }
    if let Some(root) = root {
        out.extend(tree(root).into_iter().map(warn));
    }
    out
}

/// A reserved-namespace id (aoe.* / agent-of-empires.*) of a plugin that is not
/// featured-verified: aoe's own check, the tree hash among the versions the featured index
/// pins. `None`: verified.
fn reserved_namespace(id: &str, root: Option<&Path>, opts: &Options) -> Option<Finding> {
    // aoe's own check: the tree hash among the versions the featured index pins.
    let pinned = opts.featured_index.get(id);
    let hash = pinned
        .zip(root)
        .and_then(|(_, root)| crate::hash::tree(root).ok());
    let verified = pinned
        .zip(hash.as_ref())
        .is_some_and(|(versions, hash)| versions.iter().any(|(_, h)| h == hash));
    if verified {
        return None;
    }
    let help = match (pinned, &hash) {
        (Some(versions), Some(hash)) => format!(
            "{id} is featured, but this tree's hash {hash} is none of the {} versions aoe's featured index pins ({}): aoe installs and loads it as a community plugin, which may not claim the namespace. Validate a clean checkout of a pinned release, or choose your own namespace, e.g. \"dev.example.name\"",
            versions.len(),
            versions.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>().join(", ")
        ),
        _ => "only a plugin of aoe's featured index, at a tree hash the index pins, may claim it; choose your own namespace, e.g. \"dev.example.name\"".to_owned(),
    };
    Some(
        Finding::new(
            Code::AoeReservedNamespace,
            format!(
                "plugin id {id:?} uses a reserved namespace (aoe.* / agent-of-empires.*); only a featured-verified plugin may claim one"
            ),
            ptr!["id"],
        )
        .help(help),
    )
}

fn capabilities(m: &Manifest, profile: Profile) -> Option<Finding> {
    let known = profile.capabilities();
    let unknown: Vec<(usize, &String)> = m
        .capabilities
        .iter()
        .enumerate()
        .filter(|(_, c)| !known.contains(&c.as_str()))
        .collect();
    let (first, _) = *unknown.first()?;
    let list: Vec<&str> = unknown.iter().map(|(_, c)| c.as_str()).collect();
    let mut f = Finding::new(
        Code::AoeUnknownCapability,
        format!(
            "plugin requests capabilities this host does not support: {}; upgrade aoe",
            list.join(", ")
        ),
        ptr!["capabilities", first],
    )
    .label(format!("not a capability of aoe {}", profile.aoe_release()));
    let mut hints = Vec::new();
    for (i, c) in &unknown {
        if let Some(s) = did_you_mean(c, known.iter().copied()) {
            hints.push(format!("`{c}` → `{s}`"));
            f = f.fix_at(ptr!["capabilities", *i], s);
        }
    }
    if !hints.is_empty() {
        f = f.help(format!("did you mean: {}", hints.join(", ")));
    } else if profile == Profile::H12 && list.contains(&"session.message") {
        f = f.help("`session.message` exists from aoe 1.19 (validate with `--aoe-api 15`)");
    }
    if let Some((i, _)) = unknown.get(1) {
        f = f.also(ptr!["capabilities", *i], "also unknown");
    }
    Some(f)
}

/// Tree refusals: a shipped `.aoe-build/` and symlinks (the tree hash rejects them).
fn tree(root: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut links = Vec::new();
    // The root's listing tells whether `.aoe-build` is there; asked of the file system only
    // when the root cannot be listed.
    #[allow(clippy::disallowed_methods)] // an answer, never a message
    let shipped = walk(root, root, &mut links)
        .unwrap_or_else(|| root.join(".aoe-build").symlink_metadata().is_ok());
    if shipped {
        out.push(
            Finding::new(
                Code::AoeShippedBuildDir,
                "plugin source ships the reserved build-output directory \".aoe-build\"; it must only be produced by build steps, not committed",
                ptr![],
            )
            .on_file()
            .help("delete `.aoe-build/` from the repository and add it to .gitignore"),
        );
    }
    let extra = links.len().saturating_sub(MAX_SYMLINKS_REPORTED);
    for (rel, escapes) in links.into_iter().take(MAX_SYMLINKS_REPORTED) {
        let mut f = Finding::new(
            Code::AoeSymlink,
            format!(
                "plugin tree contains a symlink ({rel}); symlinks are not allowed in a hashed tree"
            ),
            ptr![],
        )
        .on_file();
        f = if escapes {
            f.help("it also points outside the plugin directory")
        } else {
            f.help("replace it with a copy of the file, or create it in a build step")
        };
        out.push(f);
    }
    if extra > 0 {
        out.push(
            Finding::new(
                Code::AoeSymlink,
                format!("{extra} more symlinks in the plugin tree"),
                ptr![],
            )
            .on_file(),
        );
    }
    out
}

/// Collect symlinks below `dir`, skipping `.git` everywhere and `.aoe-build` at the root.
/// `None` when `dir` cannot be listed, else whether it holds a `.aoe-build`.
fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, bool)>) -> Option<bool> {
    let entries = fs_err::read_dir(dir).ok()?;
    // Each name is read once: sorting by `DirEntry::file_name` made a copy per comparison.
    let mut entries: Vec<(std::ffi::OsString, Option<std::fs::FileType>)> = entries
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.file_type().ok()))
        .collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let at_root = dir == root;
    let mut build_dir = false;
    for (name, ft) in entries {
        if name == ".aoe-build" {
            build_dir = true;
            if at_root {
                continue;
            }
        }
        let Some(ft) = ft.filter(|_| name != ".git") else {
            continue;
        };
        if ft.is_symlink() {
            let path = dir.join(&name);
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, escapes(root, &path)));
        } else if ft.is_dir() {
            walk(root, &dir.join(&name), out);
        }
    }
    Some(build_dir)
}

/// Whether `path` resolves outside `root` (a dangling link counts as escaping).
pub(super) fn escapes(root: &Path, path: &Path) -> bool {
    match (fs_err::canonicalize(root), fs_err::canonicalize(path)) {
        (Ok(root), Ok(target)) => !target.starts_with(root),
        _ => true,
    }
}
