//! `plugins validate`: the host's verdict on plugin manifests, with lints.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::manifest::Dialect;
use crate::manifest::aoe::{self, profile::Profile};
use crate::printer::Printer;
use crate::project;
use crate::render;
use crate::validate::{
    MAX_MANIFEST_BYTES, PluginReport, ValidateOptions, buffer_root, discover, validate_bytes,
    validate_root,
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
    /// Installed plugins to validate, looked up as <home>/plugins/<PLUGIN-ID>/; an existing
    /// manifest file's path counts as --path (so pre-commit can pass file names)
    #[arg(value_name = "PLUGIN-ID")]
    pub ids: Vec<String>,
    /// Find every plugin root below each --path
    #[arg(short, long)]
    pub recursive: bool,
    /// Validate as this dialect instead of detecting it from the manifest name
    #[arg(long, value_enum)]
    pub dialect: Option<Dialect>,
    /// aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)
    #[arg(long, value_name = "API", default_value = "15", value_parser = crate::cli::aoe_api_parser())]
    pub aoe_api: u32,
    /// Check the manifest's version requirement (aoe_version) against this host version
    #[arg(long, value_name = "X.Y.Z")]
    pub host_version: Option<String>,
    /// Warnings fail validation too (exit 1)
    #[arg(long, visible_alias = "deny-warnings")]
    pub strict: bool,
    /// Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)
    #[arg(short = 'A', long, value_name = "CODE", value_parser = crate::cli::AllowCodeParser, hide_possible_values = true)]
    pub allow: Vec<String>,
    /// Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)
    #[arg(long)]
    pub featured: bool,
    /// Treat AWorld plugins as bundled with aworld-cli (their reserved command names are allowed)
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

/// Every plugin root the arguments name, validated. With neither a path nor
/// an id, the plugin root is the current directory or the nearest one above
/// it with a manifest (within the repository), as cargo finds `Cargo.toml`.
fn validate_paths(
    args: &ValidateArgs,
    cx: &Context,
    opts: &ValidateOptions,
) -> Result<Vec<PluginReport>> {
    let mut paths = args.paths.clone();
    // A manifest file given where an id goes (`pre-commit` passes file names).
    let (files, ids): (Vec<&String>, Vec<&String>) = args.ids.iter().partition(|id| {
        let path = Path::new(id.as_str());
        Dialect::from_manifest_path(path).is_some() && path.is_file()
    });
    paths.extend(files.into_iter().map(PathBuf::from));
    if paths.is_empty() && ids.is_empty() {
        let here = Path::new(".");
        paths.push(project::find_plugin_root(here).unwrap_or_else(|| here.to_path_buf()));
    }
    let mut roots = discover(&paths, args.recursive)?;
    // Installed ids are looked up in every host's home, as `info` and `remove` do.
    let homes = cx.homes(args.home.as_ref());
    for id in ids {
        let name = Error::plugin_name(id)?;
        let found = homes
            .iter()
            .map(|(home, _)| home.plugin_dir(&name))
            .find(|dir| dir.is_dir());
        match found {
            Some(root) => roots.push(root),
            None => {
                return Err(Error::NotInstalled {
                    id: id.clone(),
                    home: homes
                        .first()
                        .map(|(h, _)| h.root.clone())
                        .or_else(|| cx.plugins_home(args.home.clone()))
                        .unwrap_or_default(),
                });
            }
        }
    }
    Ok(roots.iter().map(|root| validate_root(root, opts)).collect())
}

/// `--stdin`: the manifest text on stdin, reported as `path`.
fn validate_stdin(
    path: &Path,
    args: &ValidateArgs,
    opts: &ValidateOptions,
) -> Result<PluginReport> {
    let dialect = args
        .dialect
        .or_else(|| Dialect::from_manifest_path(path))
        .ok_or_else(|| {
            let names: Vec<String> = Dialect::ALL
                .iter()
                .map(|d| format!("`{}`", d.spec().manifest))
                .collect();
            Error::Refused {
                code: Code::UsageInvalidArgument,
                message: format!(
                    "`--stdin-filename {}` does not end in a manifest name",
                    path.display()
                ),
                help: Some(format!(
                    "name the file ({}) or pass `--dialect`",
                    names.join(", ")
                )),
            }
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
/// need it; the path as given outside a repository.
fn repo_file(r: &PluginReport) -> String {
    project::repo_relative(&r.manifest, &r.root)
        .unwrap_or_else(|| render::display_path(&r.manifest))
}

/// Append the Markdown job summary. A summary that cannot be written is
/// worth a warning, not a different verdict.
fn append_job_summary(path: &std::path::Path, reports: &[PluginReport], printer: &Printer) {
    use std::io::Write;
    let text = render::github::job_summary(reports, repo_file);
    let written = fs_err::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    if let Err(e) = written {
        printer.status(&format!(
            "warning: cannot write the job summary (GITHUB_STEP_SUMMARY): {e}"
        ));
    }
}

/// The SARIF log, with paths relative to the repository root (else the
/// current directory), which is what code scanning resolves them against.
fn sarif(reports: &[PluginReport]) -> String {
    use render::sarif::{Artifact, Base, directory_uri};
    let base = project::base_dir(reports.first().map(|r| r.root.as_path()));
    let artifact = |r: &PluginReport| match project::relative_to(&r.manifest, &base) {
        Some(rel) => Artifact::relative(&rel),
        None => std::path::absolute(&r.manifest).map_or_else(
            |_| Artifact::relative(&render::display_path(&r.manifest)),
            |abs| Artifact::absolute(&abs),
        ),
    };
    let uri = directory_uri(&base);
    render::sarif::render(reports, &Base { uri }, artifact)
}

fn options(args: &ValidateArgs, cx: &Context) -> Result<ValidateOptions> {
    // One flag for every host: aoe wants semver, protoAgent PEP 440.
    let host = args.host_version.as_deref();
    let semver_host = host.and_then(|v| semver::Version::parse(v).ok());
    if let Some(v) = host
        && semver_host.is_none()
        && crate::manifest::protoagent::pep440::Version::parse(v).is_none()
    {
        return Err(Error::InvalidArgument(format!(
            "--host-version {v:?} is neither a semver (aoe) nor a PEP 440 (protoAgent) version"
        )));
    }
    let allow = args
        .allow
        .iter()
        .map(|c| {
            c.parse::<Code>()
                .map_err(|message| unknown_code(c, message))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ValidateOptions {
        dialect: args.dialect,
        aoe: aoe::Options {
            profile: Profile::from_api(args.aoe_api).unwrap_or_default(),
            host_version: semver_host,
            featured: args.featured,
        },
        aworld: crate::manifest::aworld::Options {
            bundled: args.bundled,
        },
        protoagent: crate::manifest::protoagent::Options {
            host_version: args.host_version.clone(),
            env: Some(cx.env_names.clone()),
        },
        strict: args.strict,
        allow,
    })
}

/// An `--allow` value that is not a code, with the full codes it may mean.
fn unknown_code(given: &str, message: String) -> Error {
    let quoted: Vec<String> = Code::suggestions(given)
        .iter()
        .map(|c| format!("`{c}`"))
        .collect();
    let help = match quoted.as_slice() {
        [] => "`--allow` takes a full code, like `plugins::aoe::version_not_semver`; docs/diagnostics.md lists them".to_owned(),
        [one] => format!("did you mean {one}?"),
        [rest @ .., last] => format!("did you mean {} or {last}?", rest.join(", ")),
    };
    Error::Refused {
        code: Code::UsageInvalidArgument,
        message,
        help: Some(help),
    }
}

pub fn run(args: ValidateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let opts = options(&args, cx)?;
    let reports = match &args.stdin_filename {
        Some(path) if args.stdin => vec![validate_stdin(path, &args, &opts)?],
        _ => validate_paths(&args, cx, &opts)?,
    };
    let format = if args.json {
        OutputFormat::Json
    } else {
        args.format
    };
    let text = match format {
        OutputFormat::Json => render::json::render(&reports, args.aoe_api),
        OutputFormat::Github => {
            if let Some(summary) = &cx.github_step_summary {
                append_job_summary(summary, &reports, printer);
            }
            render::github::render(&reports, repo_file)
        }
        OutputFormat::Sarif => sarif(&reports),
        OutputFormat::Human => {
            let style = printer.stdout_style();
            let mut out = String::new();
            for r in &reports {
                if printer.quiet && r.outcome.diagnostics.is_empty() {
                    continue;
                }
                out.push_str(&render::human::report(r, style));
            }
            if !printer.quiet && reports.len() > 1 {
                out.push_str(&render::human::summary(&reports));
                out.push('\n');
            }
            out
        }
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(if reports.iter().all(|r| r.is_valid()) {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
