//! The checks a fetched tree passes before an install looks at the home (manifest,
//! aoe's gates, the id, symlinks), and an invalid report relabelled to name the source.

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::name::Name;
use crate::source::Source;
use crate::validate::validate_root;

use super::{InstallError, InstallOptions, Refusal, featured, plan, validate_options};

/// aoe install-time refusals that `validate` reports as warnings.
const INSTALL_REFUSALS: &[Code] = &[
    Code::AoeUnknownCapability,
    Code::AoeReservedNamespace,
    Code::AoeBuiltinId,
    Code::AoeShippedBuildDir,
    Code::AoeSymlink,
    Code::AoeArchiveWithoutBin,
    Code::AoeBinPath,
];

/// A manifest's plugin id as a directory name, or the refusal.
fn plugin_name(id: &str) -> Result<Name, InstallError> {
    Name::new(id).map_err(|why| {
        Refusal::UnsafeName {
            id: id.to_owned(),
            why,
        }
        .into()
    })
}

/// aoe's `verify_featured` for a valid aoe report: whether the tree is pinned in the
/// featured index (a featured id from another source, or with a release-binary worker,
/// is refused). Other hosts have no featured index.
fn featured_verified(
    opts: &InstallOptions,
    report: &crate::validate::PluginReport,
    tree: &std::path::Path,
) -> Result<bool, InstallError> {
    let (Some(dialect), Some(id)) = (report.dialect, report.outcome.id.as_deref()) else {
        return Ok(false);
    };
    if !crate::host::install_policy(dialect).featured_index {
        return Ok(false);
    }
    let index = featured::Index::load(opts.featured_index.as_deref())?;
    if !index.plugins.contains_key(id) {
        return Ok(false);
    }
    let slug = opts
        .source
        .github_repo()
        .map(|(owner, repo)| format!("gh:{owner}/{repo}"))
        .unwrap_or_else(|| opts.source.recorded());
    let tree_hash = crate::hash::tree(tree).unwrap_or_default();
    index.verify(id, &slug, &tree_hash, is_release_binary(report))
}

/// Whether a valid aoe manifest's worker is a release binary.
pub(super) fn is_release_binary(report: &crate::validate::PluginReport) -> bool {
    report.outcome.facts.release.is_some()
}

/// A fetched tree that passed every check an install makes before it looks at the home.
pub(super) struct Checked {
    pub(super) report: crate::validate::PluginReport,
    pub(super) featured: bool,
    pub(super) dialect: Dialect,
    pub(super) id: String,
    pub(super) name: Name,
}

/// Validate a fetched tree as an install does: a valid manifest, aoe's gates (the featured
/// index, the reserved namespace and the rest), an id that names a directory (and is the
/// expected one for `sync` and `update`), no symlink out of the tree.
pub(super) fn check_tree(
    opts: &InstallOptions,
    tree: &std::path::Path,
) -> Result<Checked, InstallError> {
    let mut report = validate_root(tree, &validate_options(opts, tree));
    if !report.is_valid() {
        if report.dialect.is_none() {
            plugins_below(opts, tree, &mut report);
        }
        return Err(InstallError::Invalid(Box::new(report)));
    }
    // aoe's gates in order: the featured index, then the reserved namespace and the rest.
    let featured = featured_verified(opts, &report, tree)?;
    let install_refusal = report.outcome.diagnostics.iter().any(|d| {
        INSTALL_REFUSALS.contains(&d.code) && !(featured && d.code == Code::AoeReservedNamespace)
    });
    if install_refusal {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    let dialect = report.dialect.expect("a valid report has a dialect");
    let id = report.outcome.id.clone().ok_or(Refusal::NoId)?;
    let name = plugin_name(&id)?;
    plan::host_gates(opts, dialect, &id)?;
    let expected = opts.pin.as_ref().map(|p| &p.id).or(opts.expect_id.as_ref());
    if let Some(expected) = expected
        && *expected != id
    {
        return Err(Refusal::IdChanged {
            shown: opts.source.recorded().to_string(),
            id,
            expected: expected.to_string(),
        }
        .into());
    }
    // The whole source, a shipped build directory included.
    let escaping = crate::tree::escaping_symlinks(tree, &|_, _| false)?;
    if !escaping.is_empty() {
        return Err(Refusal::EscapingSymlinks { links: escaping }.into());
    }
    Ok(Checked {
        report,
        featured,
        dialect,
        id,
        name,
    })
}

/// At most this many plugin roots are listed for a source without a root manifest.
const LISTED_ROOTS: usize = 20;

/// A tree without a manifest at its root (a template repository, a monorepo): its
/// report's help lists the plugin roots below it and the command that installs each
/// (`gh:owner/repo/PATH`, `--subdir PATH`, the local directory), in place of validate's
/// `--recursive`, which install does not have.
pub(super) fn plugins_below(
    opts: &InstallOptions,
    tree: &std::path::Path,
    report: &mut crate::validate::PluginReport,
) {
    // As deep as `validate -r` looks: the staged tree is already bounded in entries and
    // bytes by the fetch or the copy (AWorld's `builtin_plugins/*` sit 4 levels down).
    let roots = crate::validate::roots_below(tree, crate::validate::MAX_DEPTH);
    let found: Vec<(String, Dialect)> = roots
        .into_iter()
        .filter_map(|r| {
            let rel = r.path.strip_prefix(tree).ok()?;
            let rel = crate::render::display_path(rel);
            Some((rel, r.detected?)).filter(|(rel, _)| !rel.is_empty())
        })
        .collect();
    let command = |rel: &str| match &opts.source {
        Source::Git {
            display,
            reference,
            subdir,
            ..
        } => {
            let path = subdir
                .as_ref()
                .map_or(rel.to_owned(), |s| format!("{s}/{rel}"));
            match (display.starts_with("gh:"), reference) {
                (true, Some(r)) => format!("plugins install {display}/{path}@{r}"),
                (true, None) => format!("plugins install {display}/{path}"),
                (false, Some(r)) => {
                    format!("plugins install {display} --ref {r} --subdir {path}")
                }
                (false, None) => format!("plugins install {display} --subdir {path}"),
            }
        }
        Source::Local { path } => format!("plugins install {}", path.join(rel).display()),
    };
    let help = if found.is_empty() {
        let names: Vec<&str> = crate::dialect::ALL
            .iter()
            .map(|d| d.spec().manifest)
            .collect();
        format!(
            "looked for {} at its root and below it, and found none: is this a plugin's repository?",
            names.join(", ")
        )
    } else {
        let mut help = format!(
            "it holds {} below its root; install one by its directory:",
            match found.len() {
                1 => "a plugin".to_owned(),
                n => format!("{n} plugins"),
            }
        );
        for (rel, dialect) in found.iter().take(LISTED_ROOTS) {
            help.push_str(&format!("\n  {}   ({dialect})", command(rel)));
        }
        if found.len() > LISTED_ROOTS {
            help.push_str(&format!("\n  … and {} more", found.len() - LISTED_ROOTS));
        }
        help
    };
    for d in &mut report.outcome.diagnostics {
        if d.code == Code::FileMissing {
            d.help = Some(help.clone());
        }
    }
}

/// An invalid staged tree's report, pointing at the source instead of the staging
/// directory (deleted by the time it is read): `gh:o/r@ref:aoe-plugin.toml`, the URL the
/// same way, or the local source's own path. The ref is the one asked for, else the commit.
pub(super) fn at_source(
    e: InstallError,
    source: &Source,
    tree: &std::path::Path,
    requested: &str,
    commit: Option<&str>,
) -> InstallError {
    let InstallError::Invalid(mut report) = e else {
        return e;
    };
    let rel = report
        .manifest
        .strip_prefix(&report.root)
        .or_else(|_| report.manifest.strip_prefix(tree))
        .map(crate::render::display_path)
        .unwrap_or_default();
    let (root, inside) = match source {
        Source::Git {
            display, subdir, ..
        } => {
            let at = match (requested, commit) {
                ("", Some(c)) => format!("@{}", &c[..c.len().min(10)]),
                ("", None) => String::new(),
                (r, _) => format!("@{r}"),
            };
            match subdir {
                Some(s) => {
                    let root = format!("{display}{at}:{s}");
                    let inside = format!("{root}/");
                    (root, inside)
                }
                None => {
                    let root = format!("{display}{at}");
                    let inside = format!("{root}:");
                    (root, inside)
                }
            }
        }
        Source::Local { path } => {
            let root = path.display().to_string();
            let inside = format!("{root}/");
            (root, inside)
        }
    };
    // The source's label is `plugins`' own words about a source, redacted here: the
    // messages it is put into are the host's and are shown unredacted.
    let (root, inside) = (crate::auth::redact(&root), crate::auth::redact(&inside));
    let staged = [report.root.clone(), tree.to_path_buf()];
    let relabel = |text: &mut String| {
        for dir in &staged {
            let dir = dir.display().to_string();
            if !dir.is_empty() && text.contains(&dir) {
                *text = text
                    .replace(&format!("{dir}/"), &inside)
                    .replace(&dir, &root);
            }
        }
    };
    for d in &mut report.outcome.diagnostics {
        relabel(&mut d.message);
        if let Some(h) = &mut d.help {
            relabel(h);
        }
        for l in &mut d.labels {
            if let Some(t) = &mut l.text {
                relabel(t);
            }
        }
    }
    if let Some(m) = &mut report.outcome.host_message {
        relabel(m);
    }
    report.manifest = std::path::PathBuf::from(format!("{inside}{rel}"));
    report.root = std::path::PathBuf::from(root);
    InstallError::Invalid(report)
}
