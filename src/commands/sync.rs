//! `plugins sync`: install exactly what the lock says, at the locked commits.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::host::ValidateOptions;
use crate::install::{self, InstallError, InstallOptions, Request};
use crate::printer::Printer;

/// Install every locked plugin that is missing, at its locked commit (like `npm ci`).
///
/// The lock keeps each entry's requested ref and its kind: a branch or tag pin is
/// never rewritten into a commit pin. A source whose files no longer hash to the
/// locked tree is refused. Present plugins are verified as `plugins verify` does: one
/// whose files changed since install is reported (exit 1) and, with `--repair`,
/// reinstalled from its locked source. `--force` reinstalls every present plugin.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins sync --home ./ci-home --yes\n  plugins sync --repair --yes        reinstall what `plugins verify` reports changed\n\nExit codes: 0 everything locked is installed, 1 a present plugin changed since install (without --repair), 2 something could not be installed."
)]
pub struct SyncArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Grant what each plugin asks for without asking (required without a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Reinstall plugins that are present too
    #[arg(long)]
    pub force: bool,
    /// Reinstall present plugins whose files changed since install (as `plugins verify`
    /// reports them) from their locked source
    #[arg(long)]
    pub repair: bool,
    /// Do not run build steps
    #[arg(long)]
    pub no_build: bool,
    /// protoAgent: the host's Python, whose pip installs plugins' `requires_pip` into
    /// plugin-deps [default: the home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// How many sources to fetch at once (installs still happen one at a time, in lock order)
    #[arg(short, long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// Print one JSON document instead of the outcome lines
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub profile: super::args::ProfileArgs,
}

/// One locked plugin's part of a sync, in lock order.
enum Todo {
    /// A changed plugin left as it is (without --repair): its JSON row.
    Report(serde_json::Value),
    Install {
        home: PathBuf,
        entry: Box<crate::lock::Entry>,
        repair: bool,
        opts: Box<InstallOptions>,
    },
}

pub fn run(args: &SyncArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let (mut on_event, pause) = crate::reporter::progress_pausable(printer);
    let mut consent = |r: &Request| {
        pause.during(|| {
            printer.status(&format!(
                "{} plugin `{}` asks for: {}",
                r.dialect,
                r.id,
                r.capabilities.join(", ")
            ));
        });
        args.yes
    };
    // Finish or undo what a killed command left before comparing the lock with the plugins.
    for (home, _) in cx.homes(args.home.as_ref()) {
        if (home.lockfile().exists() || home.root.join(".plugins").exists())
            && let Err(e) = crate::install::lock_home(&home, true, &mut on_event)
        {
            return Err(e.into());
        }
    }
    let mut synced = Vec::new();
    let mut rows = Vec::new();
    let mut tampered = Vec::new();
    // What to install, in lock order; a changed plugin without --repair is only reported.
    let mut todo = Vec::new();
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        for entry in lock.entries() {
            // An entry installed with `--no-build` is built now (unless this sync skips builds too).
            let build = entry.unbuilt && !args.no_build;
            let mut repair = false;
            if home.locked_dir(&entry)?.is_dir() && !args.force && !build {
                let verdict = crate::verify::entry(&home, dialect, &entry);
                if !verdict.changed {
                    continue;
                }
                if !args.repair {
                    let problem = verdict.problems.first().cloned().unwrap_or_default();
                    tampered.push(format!(
                        "warning[{}]: {} changed since install: {problem}; `plugins sync --repair` reinstalls it",
                        Code::InstallTampered.as_str(),
                        entry.id
                    ));
                    todo.push(Todo::Report(
                        serde_json::json!({"id": entry.id, "status": "tampered",
                        "message": problem, "home": home.root}),
                    ));
                    continue;
                }
                repair = true;
            }
            let source = crate::source::Source::of_entry(&entry, &cx.gh_base())
                .map_err(Error::InvalidArgument)?;
            let opts = InstallOptions {
                source,
                // A host's own home keeps its overrides (protoAgent's plugins dir and lock).
                home: (!cx.default_homes().is_default(&home)).then(|| home.root.clone()),
                defaults: cx.default_homes(),
                validate: ValidateOptions::default(),
                build: !args.no_build,
                force: true,
                deps: false,
                detect: true,
                python: args.python.as_deref().map(|p| {
                    if p.components().count() > 1 {
                        cx.absolute(p)
                    } else {
                        p.to_path_buf()
                    }
                }),
                expect_id: None,
                github_api: cx.github_api.clone(),
                build_timeout: Duration::from_secs(600),
                wait: true,
                by: "sync".into(),
                pin: Some(entry.clone()),
                now: crate::clock::now(),
                featured_index: cx.featured_index.clone(),
                profile: args.profile.profile(),
            };
            todo.push(Todo::Install {
                home: home.root.clone(),
                entry: Box::new(entry),
                repair,
                opts: Box::new(opts),
            });
        }
    }
    // The sources are fetched and checked `--jobs` at a time, ahead of the installs, which
    // ask consent, lock the home and swap one at a time, in lock order.
    let url = |todo: &Todo| match todo {
        Todo::Install { opts, .. } => match &opts.source {
            crate::source::Source::Git { url, .. } => Some(url.clone()),
            crate::source::Source::Local { .. } => None,
        },
        Todo::Report(_) => None,
    };
    let fetches = crate::update::ordered_per_host(todo, url, args.jobs, |todo| match todo {
        Todo::Install { ref opts, .. } => {
            let prepared = install::prepare(opts);
            (todo, Some(prepared))
        }
        Todo::Report(_) => (todo, None),
    });
    for (todo, prepared) in fetches {
        let (home, entry, repair, opts) = match todo {
            Todo::Report(row) => {
                rows.push(row);
                continue;
            }
            Todo::Install {
                home,
                entry,
                repair,
                opts,
            } => (home, entry, repair, opts),
        };
        let prepared = prepared.expect("an install is prepared");
        let installed =
            match install::install_prepared(&opts, prepared, &mut consent, &mut on_event) {
                Ok(i) => i,
                Err(InstallError::Refused {
                    code: Code::InstallConcurrent,
                    ..
                }) => {
                    printer.status(&format!(
                        "     Skipped {}: another command changed it meanwhile",
                        entry.id
                    ));
                    rows.push(serde_json::json!({"id": entry.id, "status": "skipped",
                        "message": "another command changed it meanwhile", "home": home}));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
        if !entry.tree_hash.is_empty() && installed.entry.tree_hash != entry.tree_hash {
            return Err(Error::Refused {
                code: Code::InstallTampered,
                message: format!("{} at {} no longer hashes to the locked tree", entry.id, entry.commit.as_deref().unwrap_or("the locked source")),
                help: Some("the source changed under the same commit or path; inspect it before trusting it".into()),
            });
        }
        let (verb, status) = if repair {
            ("Repaired", "repaired")
        } else {
            ("Synced", "synced")
        };
        synced.push(format!("{verb:>12} {} {}\n", entry.id, entry.version));
        rows.push(serde_json::json!({"id": entry.id, "status": status,
            "version": entry.version, "commit": entry.commit, "home": home}));
    }
    // The spinner is cleared before the outcome is printed.
    drop(on_event);
    for line in &tampered {
        printer.status(line);
    }
    let status = if !tampered.is_empty() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    };
    if args.json {
        printer
            .json(serde_json::json!({ "plugins": rows }))
            .map_err(|e| Error::io("cannot write output", e))?;
        return Ok(status);
    }
    if synced.is_empty() && tampered.is_empty() {
        synced.push("everything locked is installed\n".to_owned());
    }
    printer
        .outcome(&synced.concat())
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(status)
}
