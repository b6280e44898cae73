//! `plugins validate`: the host's verdict on plugin manifests, with lints.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::error::{Error, Refusal, Result};
use crate::printer::Printer;
use crate::project;
use crate::render;
use crate::validate::{
    MAX_MANIFEST_BYTES, PluginReport, Root, ValidateOptions, buffer_root, discover, validate_bytes,
    validate_found,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Graphical diagnostics with source snippets (plain text without a terminal)
    Human,
    /// One JSON document for the whole run
    Json,
    /// GitHub Actions workflow commands that annotate the diff
    Github,
    /// One SARIF 2.1.0 log, for GitHub code scanning and SARIF viewers
    Sarif,
}

/// Check plugin manifests exactly as the host does, plus lints.
///
/// Each plugin root is checked with its host's own rules (detected from the
/// manifest file name): the verdict matches the host's, and every problem is
/// reported with a stable code and a label on the offending bytes. Warnings are
/// lints for what the host accepts but ignores or breaks on later, and the
/// refusals only `install` applies; `--strict` makes them fail too.
#[derive(Debug, Args)]
// The two ways to call it: clap's own usage line on an error names the arguments used, plus
// `[PLUGIN-ID]...`, which `--stdin` refuses.
#[command(override_usage = "plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>")]
#[command(after_help = "\
Examples:
  plugins validate
  plugins validate --path my-plugin --strict
  plugins validate -r --path plugins/ --format json
  plugins validate --aoe-api 12 --host-version 1.14.0
  plugins validate --home ~/.config/agent-of-empires dev.example.kanban
  plugins validate --format sarif > plugins.sarif
  plugins validate --stdin --stdin-filename aoe-plugin.toml --format json < buffer

Exit codes: 0 all valid, 1 a plugin is invalid, 2 the command could not run.")]
pub struct ValidateArgs {
    /// A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]
    #[arg(short, long = "path", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Installed plugins to validate, looked up as <home>/plugins/<PLUGIN-ID>/; a path no id
    /// can be (., ../x) or an existing manifest file counts as --path (so pre-commit can pass
    /// file names)
    #[arg(value_name = "PLUGIN-ID")]
    pub ids: Vec<String>,
    /// Find every plugin root below each --path
    #[arg(short, long)]
    pub recursive: bool,
    /// Validate as this dialect instead of detecting it from the manifest name
    #[arg(long, value_enum)]
    pub dialect: Option<Dialect>,
    /// aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)
    #[arg(long, value_name = "API", default_value = "15", value_parser = super::args::aoe_api_parser())]
    pub aoe_api: u32,
    /// Check the manifest's version requirement (aoe_version) against this host version
    #[arg(long, value_name = "X.Y.Z")]
    pub host_version: Option<String>,
    /// Warnings fail validation too (exit 1)
    #[arg(long, visible_alias = "deny-warnings")]
    pub strict: bool,
    /// Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)
    #[arg(short = 'A', long, value_name = "CODE", value_parser = super::args::AllowCodeParser, hide_possible_values = true)]
    pub allow: Vec<String>,
    /// Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)
    #[arg(long)]
    pub featured: bool,
    /// Treat plugins as bundled with their host (AWorld: reserved command names allowed;
    /// protoAgent: bundled plugin ids allowed)
    #[arg(long)]
    pub bundled: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Same as --format json
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Plugin home for PLUGIN-IDs [default: $PLUGINS_HOME, else the aoe app dir]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Read the manifest from standard input (an editor's buffer); needs --stdin-filename
    #[arg(long, requires = "stdin_filename", conflicts_with_all = ["paths", "ids", "recursive"])]
    pub stdin: bool,
    /// With --stdin: the manifest's path, which names its dialect and plugin root in reports
    #[arg(long, value_name = "PATH", requires = "stdin")]
    pub stdin_filename: Option<PathBuf>,
}

/// Every plugin root the arguments name. With neither a path nor an id, the
/// plugin root is the current directory or the nearest one above it with a
/// manifest (within the repository), as cargo finds `Cargo.toml`.
fn roots(args: &ValidateArgs, cx: &Context) -> Result<Vec<Root>> {
    let mut paths = args.paths.clone();
    // A manifest file given where an id goes (`pre-commit` passes file names), or a path
    // that cannot be an id (`plugins validate .`, `./x`: one that does not exist is reported
    // as a path); an id that is also a path stays an id.
    let (files, ids): (Vec<&String>, Vec<&String>) = args.ids.iter().partition(|id| {
        let path = Path::new(id.as_str());
        let manifest = crate::dialect::from_manifest_path(path).is_some() && path.is_file();
        let path_like = id.contains(['/', '\\']) || matches!(id.as_str(), "." | "..");
        manifest || (Error::plugin_name(id).is_err() && (path_like || path.exists()))
    });
    paths.extend(files.into_iter().map(PathBuf::from));
    if paths.is_empty() && ids.is_empty() {
        let here = Path::new(".");
        paths.push(project::find_plugin_root(here).unwrap_or_else(|| here.to_path_buf()));
    }
    let mut roots = discover(&paths, args.recursive)?;
    if args.recursive {
        roots.retain(|r| {
            !r.detected.is_some_and(|d| {
                crate::host::discovery_skips(d, &r.path, args.host_version.as_deref())
            })
        });
    }
    if ids.is_empty() {
        // No installed id to look up: no home (protoAgent's instance config included) is read.
        return Ok(roots);
    }
    // Installed ids are looked up in every host's home, as `info` and `remove` do.
    let homes = cx.homes(args.home.as_ref())?;
    for id in ids {
        let name = Error::plugin_name(id)?;
        let found = homes
            .iter()
            .map(|home| home.plugin_dir(&name))
            .find(|dir| dir.is_dir());
        match found {
            Some(root) => roots.push(Root::detect(root)),
            None => {
                return Err(Error::NotInstalled {
                    id: id.clone(),
                    home: homes
                        .first()
                        .map(|h| h.root.clone())
                        .or_else(|| cx.plugins_home(args.home.clone()))
                        .unwrap_or_default(),
                });
            }
        }
    }
    Ok(roots)
}

/// `--stdin`: the manifest text on stdin, reported as `path`.
fn validate_stdin(
    path: &Path,
    args: &ValidateArgs,
    opts: &ValidateOptions,
) -> Result<PluginReport> {
    let dialect = args
        .dialect
        .or_else(|| crate::dialect::from_manifest_path(path))
        .ok_or_else(|| Refusal::NotAManifestName {
            path: path.to_owned(),
        })?;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read the manifest from stdin", e))?;
    Ok(validate_bytes(
        &buffer_root(path, dialect),
        dialect,
        path.to_path_buf(),
        bytes,
        opts,
    ))
}

/// A manifest's path relative to its repository root, as GitHub annotations
/// need it; the path as given outside a repository. `found`: the root as discovery
/// found it (it may know the canonical path).
fn repo_file(r: &PluginReport, found: Option<&Root>, repos: &mut project::RepoRoots) -> String {
    let canonical = found.and_then(Root::canonical);
    repos
        .relative(&r.manifest, &r.root, canonical.as_deref())
        .unwrap_or_else(|| render::display_path(&r.manifest))
}

/// Append the Markdown job summary. A summary that cannot be written is
/// worth a warning, not a different verdict.
fn append_job_summary(path: &Path, summary: render::github::JobSummary, printer: &Printer) {
    use std::io::Write;
    let written = fs_err::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| summary.finish(&mut |s: &str| f.write_all(s.as_bytes())));
    if let Err(e) = written {
        printer.status(&format!(
            "warning: cannot write the job summary (GITHUB_STEP_SUMMARY): {e}"
        ));
    }
}

/// Where SARIF paths are relative to: the repository root (else the current
/// directory), which is what code scanning resolves them against.
fn sarif_base(first_root: Option<&Path>) -> (PathBuf, render::sarif::Base) {
    let base = project::base_dir(first_root);
    let uri = render::sarif::directory_uri(&base);
    (base, render::sarif::Base { uri })
}

/// A report's manifest as a SARIF artifact, relative to `base` where it can be. `found`:
/// the root as discovery found it (it may know the canonical path).
fn sarif_artifact(r: &PluginReport, found: Option<&Root>, base: &Path) -> render::sarif::Artifact {
    use render::sarif::Artifact;
    let canonical = found.and_then(Root::canonical);
    let known = canonical.as_deref().map(|c| (r.root.as_path(), c));
    match project::relative_to_in(&r.manifest, base, known) {
        Some(rel) => Artifact::relative(&rel),
        None => std::path::absolute(&r.manifest).map_or_else(
            |_| Artifact::relative(&render::display_path(&r.manifest)),
            |abs| Artifact::absolute(&abs),
        ),
    }
}

fn options(args: &ValidateArgs, cx: &Context) -> Result<ValidateOptions> {
    let invalid = |e: crate::host::NotAHostVersion| Error::InvalidArgument(e.to_string());
    crate::host::check_host_version(args.host_version.as_deref()).map_err(invalid)?;
    let allow = args
        .allow
        .iter()
        .map(|c| {
            c.parse::<Code>().map_err(|message| {
                Error::from(Refusal::UnknownCode {
                    given: c.to_string(),
                    message,
                })
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let host = crate::host::validate_options(crate::host::HostArgs {
        aoe_api: args.aoe_api,
        host_version: args.host_version.clone(),
        featured: args.featured,
        featured_index: featured_index(cx)?,
        bundled: args.bundled,
        env: Some(cx.env_names.clone()),
    })
    .map_err(invalid)?;
    Ok(ValidateOptions {
        dialect: args.dialect,
        host,
        strict: args.strict,
        allow,
    })
}

/// aoe's featured index as install reads it (built in, or `PLUGINS_FEATURED_INDEX` /
/// `AOE_FEATURED_INDEX_PATH`): a tree at a pinned hash is featured-verified.
fn featured_index(
    cx: &Context,
) -> Result<std::collections::BTreeMap<String, Vec<(String, String)>>> {
    let index = crate::install::featured::Index::load(cx.featured_index.as_deref())?;
    Ok(index
        .plugins
        .into_iter()
        .map(|(id, f)| (id, f.versions.into_iter().collect()))
        .collect())
}

/// Output in pieces of about this size: one write per piece, not per root.
const BATCH: usize = 64 * 1024;

pub fn run(args: ValidateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let opts = options(&args, cx)?;
    // Each report is rendered as soon as it is validated, then dropped.
    let (stdin_report, roots) = match &args.stdin_filename {
        Some(path) if args.stdin => (Some(validate_stdin(path, &args, &opts)?), Vec::new()),
        _ => (None, roots(&args, cx)?),
    };
    let first_root = stdin_report
        .as_ref()
        .map(|r| r.root.as_path())
        .or_else(|| roots.first().map(|r| r.path.as_path()));
    let format = if args.json {
        OutputFormat::Json
    } else {
        args.format
    };
    let mut stream = Stream::new(format, &args, cx, printer, first_root);
    let mut pending = String::new();
    let written = |e| Error::io("cannot write output", e);
    let mut all_valid = true;
    let reports = stdin_report.into_iter().map(|r| (r, None)).chain(
        roots
            .iter()
            .map(|root| (validate_found(root, &opts), Some(root))),
    );
    for (r, found) in reports {
        all_valid &= r.is_valid();
        stream
            .push(&render::shown(&r), found, &mut pending)
            .map_err(written)?;
        if pending.len() >= BATCH {
            printer.report_text(&pending).map_err(written)?;
            pending.clear();
        }
    }
    stream
        .finish(&mut |s: &str| {
            // A piece as large as a batch is written as it is, not copied first.
            if pending.is_empty() && s.len() >= BATCH / 2 {
                return printer.report_text(s);
            }
            pending.push_str(s);
            if pending.len() >= BATCH {
                printer.report_text(&pending)?;
                pending.clear();
            }
            Ok(())
        })
        .map_err(written)?;
    printer.report_text(&pending).map_err(written)?;
    Ok(if all_valid {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// The report being written, in its format.
enum Stream<'a> {
    Human {
        style: render::human::Style,
        quiet: bool,
        tally: render::Tally,
    },
    Json(render::json::JsonStream),
    Github {
        annotations: render::github::GithubStream,
        summary: Option<(&'a Path, render::github::JobSummary)>,
        printer: &'a Printer,
        repos: Box<project::RepoRoots>,
    },
    Sarif {
        log: render::sarif::SarifStream,
        base: PathBuf,
    },
}

impl<'a> Stream<'a> {
    fn new(
        format: OutputFormat,
        args: &ValidateArgs,
        cx: &'a Context,
        printer: &'a Printer,
        first_root: Option<&Path>,
    ) -> Self {
        match format {
            OutputFormat::Human => Stream::Human {
                style: printer.stdout_style(),
                quiet: printer.quiet,
                tally: render::Tally::default(),
            },
            OutputFormat::Json => Stream::Json(render::json::JsonStream::new(args.aoe_api)),
            OutputFormat::Github => Stream::Github {
                annotations: render::github::GithubStream::default(),
                summary: cx
                    .github_step_summary
                    .as_deref()
                    .map(|path| (path, render::github::JobSummary::default())),
                printer,
                repos: Box::default(),
            },
            OutputFormat::Sarif => {
                let (base, uri) = sarif_base(first_root);
                Stream::Sarif {
                    log: render::sarif::SarifStream::new(uri),
                    base,
                }
            }
        }
    }

    /// Render one report: what can be written now goes to `out`.
    fn push(
        &mut self,
        r: &PluginReport,
        found: Option<&Root>,
        out: &mut String,
    ) -> std::io::Result<()> {
        match self {
            Stream::Human {
                style,
                quiet,
                tally,
            } => {
                tally.add(r);
                if !(*quiet && r.outcome.diagnostics.is_empty()) {
                    out.push_str(&render::human::report(r, *style));
                }
                Ok(())
            }
            Stream::Json(json) => json.push(r),
            Stream::Github {
                annotations,
                summary,
                repos,
                ..
            } => {
                let file = repo_file(r, found, repos);
                out.push_str(&annotations.push(r, &file)?);
                if let Some((_, summary)) = summary {
                    summary.push(r, &file)?;
                }
                Ok(())
            }
            Stream::Sarif { log, base } => log.push(r, &sarif_artifact(r, found, base)),
        }
    }

    /// What comes after the last report.
    fn finish(self, sink: &mut render::Sink<'_>) -> std::io::Result<()> {
        match self {
            Stream::Human { quiet, tally, .. } => {
                if !quiet && tally.plugins > 1 {
                    sink(&render::human::summary_of(&tally))?;
                    sink("\n")?;
                }
                Ok(())
            }
            Stream::Json(json) => json.finish(sink),
            Stream::Github {
                annotations,
                summary,
                printer,
                ..
            } => {
                if let Some((path, summary)) = summary {
                    append_job_summary(path, summary, printer);
                }
                annotations.finish(sink)
            }
            Stream::Sarif { log, .. } => log.finish(sink),
        }
    }
}
