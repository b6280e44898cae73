//! `plugins sync`: install exactly what the lock says, at the locked commits, one row per
//! plugin that was installed, repaired, skipped or found changed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::apply::{Step, prepared_in_order};
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::host::ValidateOptions;
use crate::install::{self, InstallError, InstallOptions, Request};
use crate::lock::Entry;
use crate::printer::Printer;

/// What to sync and how (`plugins sync`'s flags).
pub struct SyncOptions<'a> {
    pub home: Option<&'a PathBuf>,
    /// Grant what each plugin asks for without asking.
    pub yes: bool,
    /// Reinstall every locked plugin, present or not.
    pub force: bool,
    /// Reinstall the plugins `verify` finds changed.
    pub repair: bool,
    pub no_build: bool,
    /// protoAgent: the host's Python, as given.
    pub python: Option<&'a Path>,
    /// How many sources to fetch at once.
    pub jobs: usize,
    pub profile: crate::profile::HostProfile,
    /// `--require-signed`, `--allowed-signers`.
    pub signing: crate::signing::SignArgs,
}

/// One plugin's outcome, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct SyncRow {
    pub id: String,
    pub status: SyncStatus,
    #[serde(flatten)]
    pub detail: SyncDetail,
    pub home: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncStatus {
    /// Changed since install and left as it is (without `--repair`).
    Tampered,
    /// Another command changed it meanwhile.
    Skipped,
    Synced,
    Repaired,
}

/// The fields of a row between its status and its home.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum SyncDetail {
    Message {
        message: String,
    },
    Installed {
        version: String,
        commit: Option<String>,
    },
}

/// One locked plugin's part of a sync, in lock order.
enum Todo {
    /// A changed plugin left as it is (without --repair).
    Report(SyncRow),
    Install {
        home: PathBuf,
        entry: Box<Entry>,
        repair: bool,
    },
}

/// Recover every home first, then install what is missing, changed (`repair`) or unbuilt,
/// fetching ahead `jobs` at a time and installing in lock order. A plugin another command
/// changed meanwhile is skipped; any other failure stops the sync.
pub fn sync(opts: &SyncOptions, cx: &Context, printer: &Printer) -> Result<Vec<SyncRow>> {
    let (mut on_event, pause) = crate::reporter::progress_pausable(printer);
    let mut unasked = None;
    let mut consent = |r: &Request| {
        pause.during(|| printer.status(&crate::reporter::consent_text(r)));
        if !opts.yes {
            unasked = Some(crate::reporter::consent_refused(
                "sync",
                "it never prompts",
                r,
                Some("plugins sync"),
            ));
        }
        opts.yes
    };
    // Finish or undo what a killed command left before comparing the lock with the plugins.
    for (home, _) in cx.homes(opts.home) {
        if (home.lockfile().exists() || home.root.join(".plugins").exists())
            && let Err(e) = install::lock_home(&home, true, &mut on_event)
        {
            return Err(e.into());
        }
    }
    let mut rows = Vec::new();
    let mut tampered = Vec::new();
    // What to install, in lock order; a changed plugin without --repair is only reported.
    let mut steps = Vec::new();
    for (home, dialect, lock) in cx.locked_homes(opts.home)? {
        for entry in lock.entries() {
            // An entry installed with `--no-build` is built now (unless this sync skips builds too).
            let build = entry.unbuilt && !opts.no_build;
            let mut repair = false;
            if home.locked_dir(&entry)?.is_dir() && !opts.force && !build {
                let verdict = crate::verify::entry(&home, dialect, &entry);
                if !verdict.changed {
                    continue;
                }
                if !opts.repair {
                    let problem = verdict.problems.first().cloned().unwrap_or_default();
                    tampered.push(format!(
                        "{} changed since install: {problem}; `plugins sync --repair` reinstalls it",
                        entry.id
                    ));
                    steps.push(Step {
                        item: Todo::Report(SyncRow {
                            id: entry.id.clone(),
                            status: SyncStatus::Tampered,
                            detail: SyncDetail::Message { message: problem },
                            home: home.root.clone(),
                        }),
                        install: None,
                    });
                    continue;
                }
                repair = true;
            }
            let install = install_options(opts, cx, &home, &entry)?;
            steps.push(Step {
                item: Todo::Install {
                    home: home.root.clone(),
                    entry: Box::new(entry),
                    repair,
                },
                install: Some(install),
            });
        }
    }
    // The sources are fetched and checked `--jobs` at a time, ahead of the installs, which
    // ask consent, lock the home and swap one at a time, in lock order.
    for (todo, fetched) in prepared_in_order(steps, opts.jobs) {
        let (home, entry, repair) = match todo {
            Todo::Report(row) => {
                rows.push(row);
                continue;
            }
            Todo::Install {
                home,
                entry,
                repair,
            } => (home, entry, repair),
        };
        let (install, prepared) = fetched.expect("an install is fetched ahead");
        let installed =
            match install::install_prepared(&install, prepared, &mut consent, &mut on_event) {
                Ok(i) => i,
                Err(InstallError::Refused {
                    code: Code::InstallConcurrent,
                    ..
                }) => {
                    let message = "another command changed it meanwhile";
                    printer.status(&format!("     Skipped {}: {message}", entry.id));
                    rows.push(SyncRow {
                        id: entry.id.clone(),
                        status: SyncStatus::Skipped,
                        detail: SyncDetail::Message {
                            message: message.to_owned(),
                        },
                        home,
                    });
                    continue;
                }
                Err(InstallError::Refused {
                    code: Code::InstallDeclined,
                    ..
                }) if unasked.is_some() => {
                    return Err(unasked.take().expect("checked"));
                }
                Err(e) => return Err(e.into()),
            };
        if !entry.tree_hash.is_empty() && installed.entry.tree_hash != entry.tree_hash {
            return Err(Error::Refused {
                code: Code::InstallTampered,
                message: format!(
                    "{} at {} no longer hashes to the locked tree",
                    entry.id,
                    entry.commit.as_deref().unwrap_or("the locked source")
                ),
                help: Some(
                    "the source changed under the same commit or path; inspect it before trusting it"
                        .into(),
                ),
            });
        }
        rows.push(SyncRow {
            id: entry.id.clone(),
            status: if repair {
                SyncStatus::Repaired
            } else {
                SyncStatus::Synced
            },
            detail: SyncDetail::Installed {
                version: entry.version.clone(),
                commit: entry.commit.clone(),
            },
            home,
        });
    }
    // The spinner is cleared before the warnings are printed.
    drop(on_event);
    for message in &tampered {
        printer.warning(Code::InstallTampered, message);
    }
    Ok(rows)
}

/// How to reinstall `entry` at its pin.
fn install_options(
    opts: &SyncOptions,
    cx: &Context,
    home: &crate::store::Home,
    entry: &Entry,
) -> Result<InstallOptions> {
    let source = crate::source::Source::of_entry(entry, &cx.gh_base())?;
    Ok(InstallOptions {
        source,
        // A host's own home keeps its overrides (protoAgent's plugins dir and lock).
        home: (!cx.default_homes().is_default(home)).then(|| home.root.clone()),
        defaults: cx.default_homes(),
        validate: ValidateOptions::default(),
        build: !opts.no_build,
        force: true,
        deps: false,
        detect: true,
        python: opts.python.map(|p| cx.python_arg(p)),
        expect_id: None,
        github_api: cx.github_api.clone(),
        build_timeout: Duration::from_secs(600),
        wait: true,
        by: "sync".into(),
        pin: Some(entry.clone()),
        now: crate::clock::now(),
        featured_index: cx.featured_index.clone(),
        profile: opts.profile.clone(),
        signing: opts.signing.clone(),
    })
}
