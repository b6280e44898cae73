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
    /// `--frozen`: exactly the lock, or nothing: every plugin is fetched, checked against
    /// its locked tree hash, asset sha256 and deps, and staged before any is swapped in.
    pub frozen: bool,
    /// `--from FILE`: install from a bundle (with `--frozen`), no network.
    pub from: Option<PathBuf>,
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
    /// `--frozen`: a directory in the plugins directory that the lock does not name, left
    /// as it is (reported, never removed: it may be the host's own, installed by hand).
    Unlocked,
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
    for home in cx.homes(opts.home) {
        if (home.lockfile().exists() || home.root.join(".plugins").exists())
            && let Err(e) = install::lock_home(&home, true, &mut on_event)
        {
            return Err(e.into());
        }
    }
    // `--from`: the bundle is read (bounded, checked) before anything else.
    let opened = match opts.from.as_deref() {
        Some(file) => Some(open_bundle(file, &cx.homes(opts.home))?),
        None => None,
    };
    let mut rows = Vec::new();
    let mut tampered = Vec::new();
    let steps = plan(opts, cx, opened.as_ref(), &mut tampered)?;
    // The sources are fetched and checked `--jobs` at a time, ahead of the installs, which
    // ask consent, lock the home and swap one at a time, in lock order. `--frozen` stages
    // every one of them (consent, release asset, locked deps) before it swaps any in.
    let prepared = prepared_in_order(steps, opts.jobs)
        .map(|(todo, fetched)| (todo, fetched.map(|(i, p)| (i, How::Prepared(Box::new(p))))));
    let work: Box<dyn Iterator<Item = Work>> = if opts.frozen {
        let mut staged = Vec::new();
        for (todo, fetched) in prepared {
            let fetched = match (fetched, &todo) {
                (Some((install, How::Prepared(p))), Todo::Install { entry, .. }) => {
                    match install::stage_prepared(&install, *p, &mut consent, &mut on_event) {
                        Ok(stage) => Some((install, How::Staged(stage))),
                        Err(InstallError::Refused {
                            code: Code::InstallDeclined,
                            ..
                        }) if unasked.is_some() => {
                            return Err(unasked.take().expect("checked"));
                        }
                        Err(e) => return Err(frozen_error(e, entry)),
                    }
                }
                (other, _) => other,
            };
            staged.push((todo, fetched));
        }
        Box::new(staged.into_iter())
    } else {
        Box::new(prepared)
    };
    for (todo, fetched) in work {
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
        let (install, how) = fetched.expect("an install is fetched ahead");
        let done = match how {
            How::Prepared(p) => {
                install::install_prepared(&install, *p, &mut consent, &mut on_event)
            }
            How::Staged(stage) => install::finish(&install, stage, &mut on_event),
        };
        let installed = match done {
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
        rows.push(synced(&entry, &installed, repair, home)?);
    }
    // The spinner is cleared before the warnings are printed.
    drop(on_event);
    for message in &tampered {
        printer.warning(Code::InstallTampered, message);
    }
    if opts.frozen {
        rows.extend(unlocked(opts, cx, printer)?);
    }
    Ok(rows)
}

/// `--frozen`: the directories in each home's plugins directory that its lock does not
/// name, each a row and a warning. None is removed: `plugins` cannot tell a plugin it
/// installed and the lock dropped from the host's own plugin installed by hand, which no
/// lock ever names (docs/cli.md); `plugins remove <name>` removes one.
fn unlocked(opts: &SyncOptions, cx: &Context, printer: &Printer) -> Result<Vec<SyncRow>> {
    let mut rows = Vec::new();
    for (home, lock) in cx.locked_homes(opts.home)? {
        for name in home.unlocked_dirs(&lock) {
            let dir = home.plugins_dir().join(&name);
            let message = format!(
                "{} is not in the lock; left as it is (the host may load it)",
                dir.display()
            );
            printer.warning(
                Code::SyncUnlockedPlugin,
                &format!(
                    "{message}: if it should not be there, `plugins remove {name} --home {}` removes it",
                    home.root.display()
                ),
            );
            rows.push(SyncRow {
                id: name,
                status: SyncStatus::Unlocked,
                detail: SyncDetail::Message { message },
                home: home.root.clone(),
            });
        }
    }
    Ok(rows)
}

/// `--from FILE`: the bundle, read into the first home's scratch space, for homes that each
/// hold the lock it was made from, byte for byte. A home without a lock is refused: a bundle
/// installs the lock committed beside it, never its own copy.
fn open_bundle(file: &Path, homes: &[crate::store::Home]) -> Result<super::bundle::Opened> {
    let Some(first) = homes.first() else {
        return Err(Error::InvalidArgument(
            "no home to sync into: pass --home".to_owned(),
        ));
    };
    for home in homes {
        // The lock is read (every field checked) before the archive is.
        home.load_lock()?;
        if !home.lockfile().is_file() {
            return Err(Error::Refused {
                code: Code::SyncBundle,
                message: format!(
                    "{} has no plugins.lock: a bundle installs the lock committed beside it; nothing was changed",
                    home.root.display()
                ),
                help: Some(format!(
                    "put the committed plugins.lock at {} (the bundle was made from it), then run the same command",
                    home.lockfile().display()
                )),
            });
        }
    }
    let opened = super::bundle::open(file, first)?;
    for home in homes {
        opened.check_lock(&home.lockfile())?;
    }
    Ok(opened)
}

/// What to install, in lock order: each row whose plugin is missing, unbuilt or (with
/// `--force`) any; a changed plugin is reinstalled with `--repair`, else only reported (and
/// its warning kept in `tampered`). With a bundle, each install reads from it.
fn plan(
    opts: &SyncOptions,
    cx: &Context,
    opened: Option<&super::bundle::Opened>,
    tampered: &mut Vec<String>,
) -> Result<Vec<Step<Todo>>> {
    let mut steps = Vec::new();
    for (home, lock) in cx.locked_homes(opts.home)? {
        for entry in lock.entries() {
            // An entry installed with `--no-build` is built now (unless this sync skips builds too).
            let build = entry.unbuilt && !opts.no_build;
            let mut repair = false;
            if home.locked_dir(&entry)?.is_dir() && !opts.force && !build {
                let verdict = crate::verify::entry(&home, &entry);
                if !verdict.changed {
                    continue;
                }
                // `--frozen` leaves exactly the lock: a changed plugin is reinstalled as
                // locked, staged with the rest before anything is swapped in.
                if !opts.repair && !opts.frozen {
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
            if opts.frozen {
                frozen_row(opts, &entry)?;
            }
            let mut install = install_options(opts, cx, &home, &entry)?;
            if let Some(b) = opened {
                let name = home.locked_name(&entry)?;
                install.tree_from = Some(b.tree(&name).ok_or_else(|| Error::Refused {
                    code: Code::SyncBundle,
                    message: format!(
                        "the bundle holds no tree of {}; nothing was changed",
                        entry.id
                    ),
                    help: Some(
                        "bundle the lock this home has: `plugins bundle --home H -o FILE`".into(),
                    ),
                })?);
                install.wheels_from = Some(b.wheels(&name));
                install.asset_from = Some(b.assets(&name));
            }
            // A sync installs the row as it is locked, so it writes the row back as it is
            // (protoAgent's `by` and time too): a row it did not change stays byte for byte.
            if let Some((by, now)) = lock.stamp(&entry.id) {
                install.by = by;
                install.now = now;
            }
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
    Ok(steps)
}

/// The row of a synced plugin, once its tree is checked against the lock: a source that
/// no longer hashes to the locked tree is refused.
fn synced(
    entry: &crate::lock::Entry,
    installed: &install::Installed,
    repair: bool,
    home: PathBuf,
) -> Result<SyncRow> {
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
    Ok(SyncRow {
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
    })
}

/// A step in lock order with its install, fetched ahead.
type Work = (Todo, Option<(InstallOptions, How)>);

/// A step's install, fetched ahead, or (`--frozen`) staged in full.
enum How {
    Prepared(Box<install::Prepared>),
    Staged(install::Stage),
}

/// `--frozen`: a locked commit that cannot be fetched and a release asset that cannot be
/// had as locked are errors of their own (the lock cannot be honoured as it is).
fn frozen_error(e: InstallError, entry: &Entry) -> Error {
    let way_out = "--frozen installs only what the lock pins; nothing was changed";
    match e {
        InstallError::Git(
            g @ (crate::git::GitError::RefNotFound { .. }
            | crate::git::GitError::Remote { .. }
            | crate::git::GitError::Aborted { .. }
            | crate::git::GitError::Stalled { .. }
            | crate::git::GitError::Cli(_)),
        ) => Error::Refused {
            code: Code::SyncMissingCommit,
            message: format!(
                "{}: the locked commit {} cannot be fetched: {g}; nothing was changed",
                entry.id,
                entry.commit.as_deref().unwrap_or("(none)")
            ),
            help: Some(format!(
                "{way_out}; with the server down, fetch from a mirror (git's url.<mirror>.insteadOf, PLUGINS_GH_BASE for gh: sources) or install from a bundle (`plugins sync --frozen --from FILE`)"
            )),
        },
        InstallError::Release(r) => Error::Refused {
            code: Code::SyncAssetMismatch,
            message: format!(
                "{}: the locked release asset cannot be had as locked: {r}; nothing was changed",
                entry.id
            ),
            help: Some(format!(
                "{way_out}; the release must still serve the asset with the lock's sha256"
            )),
        },
        other => other.into(),
    }
}

/// `--frozen`, before anything is fetched: each row pins what it installs (a commit for a
/// git source, a tree hash) under the profile the command line names.
fn frozen_row(opts: &SyncOptions, entry: &Entry) -> Result<()> {
    let nothing = "nothing was changed";
    if entry.commit.is_none() && !entry.source.starts_with('/') && !entry.source.starts_with('.') {
        return Err(Error::Refused {
            code: Code::SyncMissingCommit,
            message: format!("{}: the lock names no commit for {}; {nothing}", entry.id, entry.source),
            help: Some("a frozen sync installs only pinned commits; `plugins update` (or `plugins sync` without --frozen) pins one".into()),
        });
    }
    if entry.tree_hash.is_empty() {
        return Err(Error::Refused {
            code: Code::SyncTreeMismatch,
            message: format!("{}: the lock records no tree_hash, so its files cannot be checked; {nothing}", entry.id),
            help: Some("a row the host's own installer wrote has none; `plugins sync` without --frozen (or `plugins update`) records one".into()),
        });
    }
    let locked = entry.profile.clone().unwrap_or_default();
    let conflicts = opts.profile.conflicts(&locked);
    if !conflicts.is_empty() {
        return Err(Error::Refused {
            code: Code::SyncProfileMismatch,
            message: format!(
                "{}: the lock was made under another host profile: {}; {nothing}",
                entry.id,
                conflicts.join(", ")
            ),
            help: Some(format!(
                "run it with the lock's profile ({}) or without the flags; to move to another host, `plugins update` under the new profile",
                locked.flags()
            )),
        });
    }
    Ok(())
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
        at_commit: None,
        frozen: opts.frozen,
        tree_from: None,
        wheels_from: None,
        asset_from: None,
        now: crate::clock::now(),
        featured_index: cx.featured_index.clone(),
        // The command line's profile, else the one the lock recorded at install (so a fresh
        // home validates as the original did), else the home's.
        profile: opts.profile.or(entry.profile.clone().unwrap_or_default()),
        signing: opts.signing.clone(),
        shared: None,
        ask_again: None,
    })
}
