//! `plugins new`: scaffold a plugin that validates clean and whose tests pass.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::dialect::Dialect;
use crate::error::{Error, Refusal, Result};
use crate::host::scaffold::{self, GitInit, NewOptions, Runtime, WriteError};
use crate::printer::{Line, Printer};
use crate::render::display_path;

/// Scaffold a plugin for any dialect from the built-in templates.
///
/// The result validates with no errors and no warnings under `plugins validate
/// --strict`, and with --with-tests its own tests pass. Files are never
/// overwritten (an existing README.md, .gitignore or LICENSE is kept). A new
/// directory becomes a git repository unless it is inside one (--no-git skips
/// that). On a terminal, missing choices are asked for; in scripts pass them as
/// flags (and --yes to accept defaults).
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins new \"Kanban Lite\" --dialect aoe --runtime rust --with-tests
  plugins new journal --dialect protoagent --dir plugins/journal
  plugins new helper --dialect aworld --id helper-tools --yes
  plugins new --list")]
pub struct NewArgs {
    /// The plugin's display name; ids and package names are derived from it
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,
    /// Which host the plugin is for
    #[arg(long, value_enum)]
    pub dialect: Option<Dialect>,
    /// The worker's language (aoe: python, node, rust or none; others: python)
    #[arg(long, value_enum)]
    pub runtime: Option<Runtime>,
    /// Use this id instead of deriving one from NAME
    #[arg(long, value_name = "ID")]
    pub id: Option<String>,
    /// A one-line description
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// Where to write the plugin [default: ./<slug>]
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Include tests and a CI workflow that runs them
    #[arg(long)]
    pub with_tests: bool,
    /// The git URL (https or ssh) the CI workflow builds `plugins` from with `cargo install
    /// --git`, instead of installing a release; while no published release exists, without it
    /// the workflow fails, saying to set PLUGINS_GIT
    #[arg(long, value_name = "URL")]
    pub ci_from: Option<String>,
    /// Accept defaults instead of asking (for scripts)
    #[arg(short, long)]
    pub yes: bool,
    /// List the templates and their variables, then exit
    #[arg(long)]
    pub list: bool,
    /// Print what was written as JSON
    #[arg(long)]
    pub json: bool,
    /// Skip `git init` (it runs when git is on PATH and DIR is not inside a git work tree)
    #[arg(long)]
    pub no_git: bool,
}

fn list() -> String {
    let mut s = String::from("templates (dialect / runtime):\n");
    for (d, r) in scaffold::available() {
        let default = if Runtime::supported(d)[0] == r {
            "  (default)"
        } else {
            ""
        };
        s.push_str(&format!(
            "  {:<11} {}{default}\n",
            d.to_string(),
            r.as_str()
        ));
    }
    s.push_str("\nvariables:\n");
    let widest = scaffold::VARIABLES.iter().map(|(k, _)| k.len()).max();
    for (k, what) in scaffold::VARIABLES {
        s.push_str(&format!(
            "  {{{{{k}}}}}{:width$}{what}\n",
            "",
            width = widest.unwrap_or_default() + 3 - k.len()
        ));
    }
    s
}

/// Ask on the terminal until the answer is one of `choices`, or fail with a
/// hint when there is no terminal. An empty answer takes the first choice (the
/// default the prompt shows); end of input (Ctrl-D) cancels.
fn ask_choice<T: Copy>(
    printer: &Printer,
    what: &str,
    flag: &str,
    interactive: bool,
    choices: &[(&str, T)],
) -> Result<T> {
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    let question = format!("{what} ({}) [{}]", names.join(", "), names[0]);
    if !interactive {
        return Err(Error::InvalidArgument(format!(
            "{what} ({}): pass {flag} (no terminal to ask on)",
            names.join(", ")
        )));
    }
    loop {
        let answer = printer
            .prompt_line(&question)
            .map_err(|e| Error::io("cannot read the answer", e))?
            .ok_or_else(|| Refusal::NoAnswer {
                flag: flag.to_owned(),
            })?;
        if answer.is_empty() {
            return Ok(choices[0].1);
        }
        match choices
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&answer))
        {
            Some((_, v)) => return Ok(*v),
            None => printer.status(&format!(
                "unknown {} {answer:?}; choose {}, or press Enter for {}",
                what.to_lowercase(),
                names.join(", "),
                names[0]
            )),
        }
    }
}

fn choose_dialect(printer: &Printer, args: &NewArgs, interactive: bool) -> Result<Dialect> {
    if let Some(d) = args.dialect {
        return Ok(d);
    }
    let choices: Vec<(&str, Dialect)> = crate::dialect::ALL
        .iter()
        .map(|d| (d.spec().name, *d))
        .collect();
    ask_choice(
        printer,
        "Dialect",
        "--dialect",
        interactive && !args.yes,
        &choices,
    )
}

fn choose_runtime(
    printer: &Printer,
    args: &NewArgs,
    dialect: Dialect,
    interactive: bool,
) -> Result<Runtime> {
    let supported = Runtime::supported(dialect);
    if let Some(r) = args.runtime {
        return Ok(r);
    }
    if supported.len() == 1 || args.yes || !interactive {
        return Ok(supported[0]);
    }
    let choices: Vec<(&str, Runtime)> = supported.iter().map(|r| (r.as_str(), *r)).collect();
    ask_choice(printer, "Runtime", "--runtime", true, &choices)
}

/// A generated plugin, for the summary.
struct Done<'a> {
    root: &'a std::path::Path,
    dialect: Dialect,
    runtime: Runtime,
    plan: &'a scaffold::Plan,
    written: &'a scaffold::Written,
    /// `None` with `--no-git`.
    git: Option<&'a Result<GitInit, scaffold::GitInitError>>,
    /// `--ci-from`: where the written CI workflow builds `plugins` from.
    ci_from: Option<&'a str>,
}

/// `plugins new --json` (docs/schema/output/new.json).
#[derive(serde::Serialize)]
struct NewSummary<'a> {
    root: String,
    dialect: Dialect,
    runtime: &'static str,
    id: &'a str,
    files: Vec<String>,
    kept: Vec<KeptFile<'a>>,
    /// `skipped`, `initialized`, `inside-work-tree`, `not-found` or `failed`.
    git: &'static str,
}

#[derive(serde::Serialize)]
struct KeptFile<'a> {
    path: String,
    missing: &'a [String],
}

fn json_summary<'a>(d: &Done<'a>) -> NewSummary<'a> {
    NewSummary {
        root: display_path(d.root),
        dialect: d.dialect,
        runtime: d.runtime.as_str(),
        id: &d.plan.id,
        files: d.written.files.iter().map(|p| slashed(p)).collect(),
        kept: d
            .written
            .kept
            .iter()
            .map(|k| KeptFile {
                path: slashed(&k.path),
                missing: &k.missing,
            })
            .collect(),
        git: match d.git {
            None => "skipped",
            Some(Ok(GitInit::Initialized)) => "initialized",
            Some(Ok(GitInit::InsideWorkTree)) => "inside-work-tree",
            Some(Ok(GitInit::NotFound)) => "not-found",
            Some(Err(_)) => "failed",
        },
    }
}

/// What `plugins new` did; the printer leaves the outcomes (the file list, the git line
/// and the next step) out under `-q`.
fn human_summary(d: &Done<'_>) -> Vec<Line> {
    let root = display_path(d.root);
    let mut lines = vec![Line::Data(format!(
        "   Created {} plugin `{}` ({} runtime) in {root}\n",
        d.dialect,
        d.plan.id,
        d.runtime.as_str(),
    ))];
    for f in &d.written.files {
        lines.push(Line::Outcome(format!(
            "            {}\n",
            f.to_string_lossy()
        )));
    }
    for k in &d.written.kept {
        let mut kept = format!(
            "      Kept {} (it exists; `plugins new` never overwrites files)\n",
            slashed(&k.path)
        );
        if !k.missing.is_empty() {
            kept.push_str(&format!(
                "            the template also ignores: {}\n",
                k.missing.join(" ")
            ));
        }
        lines.push(Line::Data(kept));
    }
    match d.git {
        Some(Ok(GitInit::Initialized)) => lines.push(Line::Outcome(format!(
            "       Git initialized a repository in {root}\n"
        ))),
        Some(Err(why)) => lines.push(Line::Problem(format!(
            "   Warning `git init` failed: {why}\n"
        ))),
        _ => {}
    }
    // The written CI cannot run until it knows where `plugins` comes from: said now, not
    // found out as a failed first run.
    let workflow = d
        .written
        .files
        .iter()
        .find(|f| f.starts_with(".github/workflows"));
    let released = crate::upstream::release_download().is_some();
    if let (Some(workflow), None, false) = (workflow, d.ci_from, released) {
        lines.push(Line::Data(format!(
            "      Note {} needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); {} to install instead\n",
            slashed(workflow),
            crate::upstream::NO_RELEASE,
        )));
    }
    lines.push(Line::Outcome(format!(
        "\nNext: cd {root} && plugins validate --strict\n"
    )));
    lines
}

fn slashed(path: &std::path::Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

fn refused(r: scaffold::Refusal) -> Error {
    Refusal::Scaffold(r).into()
}

pub fn run(args: &NewArgs, printer: &Printer) -> Result<ExitStatus> {
    if args.list {
        printer
            .out(&list())
            .map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let dialect = choose_dialect(printer, args, interactive)?;
    let name = args.name.clone().unwrap_or_default();
    // Refuse a bad name or id before asking anything more.
    scaffold::check_identity(dialect, &name, args.id.as_deref()).map_err(refused)?;
    let runtime = choose_runtime(printer, args, dialect, interactive)?;
    let opts = NewOptions {
        dialect,
        runtime,
        name,
        id: args.id.clone(),
        description: args.description.clone(),
        with_tests: args.with_tests,
        ci_from: args.ci_from.clone(),
    };
    let plan = scaffold::plan(&opts).map_err(refused)?;
    let root = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(&plan.slug));
    let written = scaffold::write(&plan, &root).map_err(|e| match e {
        WriteError::Exists(path) => Refusal::Exists { path }.into(),
        WriteError::Io { path, source } => {
            Error::io(format!("cannot write `{}`", path.display()), source)
        }
    })?;
    let git = (!args.no_git).then(|| scaffold::git_init(&root));
    let done = Done {
        root: &root,
        dialect,
        runtime,
        plan: &plan,
        written: &written,
        git: git.as_ref(),
        ci_from: args.ci_from.as_deref(),
    };
    let written = if args.json {
        printer.json(json_summary(&done))
    } else {
        printer.report(&human_summary(&done))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
