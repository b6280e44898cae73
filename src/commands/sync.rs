//! `plugins sync`: install exactly what the lock says, at the locked commits.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::install::{self, InstallError, InstallOptions, Request};
use crate::printer::Printer;
use crate::validate::ValidateOptions;

/// Install every locked plugin that is missing, at its locked commit (like `npm ci`).
///
/// The lock keeps each entry's requested ref and its kind: a branch or tag pin is
/// never rewritten into a commit pin. A plugin whose files no longer hash to the
/// locked tree is refused. `--force` reinstalls present plugins too.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins sync --home ./ci-home --yes\n\nExit codes: 0 everything locked is installed, 2 something could not be installed."
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
    /// Do not run build steps
    #[arg(long)]
    pub no_build: bool,
    /// Print one JSON document instead of the outcome lines
    #[arg(long)]
    pub json: bool,
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
    for (home, _, lock) in cx.locked_homes(args.home.as_ref())? {
        for entry in lock.entries() {
            // An entry installed with `--no-build` is built now (unless this sync skips builds too).
            let build = entry.unbuilt && !args.no_build;
            if home.locked_dir(&entry)?.is_dir() && !args.force && !build {
                continue;
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
                expect_id: None,
                github_api: cx.github_api.clone(),
                build_timeout: Duration::from_secs(600),
                wait: true,
                by: "sync".into(),
                pin: Some(entry.clone()),
                now: crate::clock::now(),
                featured_index: cx.featured_index.clone(),
            };
            let installed = match install::install(&opts, &mut consent, &mut on_event) {
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
                        "message": "another command changed it meanwhile", "home": home.root}));
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
            synced.push(format!("      Synced {} {}\n", entry.id, entry.version));
            rows.push(serde_json::json!({"id": entry.id, "status": "synced",
                "version": entry.version, "commit": entry.commit, "home": home.root}));
        }
    }
    // The spinner is cleared before the outcome is printed.
    drop(on_event);
    if args.json {
        printer
            .json(serde_json::json!({ "plugins": rows }))
            .map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    if synced.is_empty() {
        synced.push("everything locked is installed\n".to_owned());
    }
    printer
        .outcome(&synced.concat())
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
