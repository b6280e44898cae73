//! `plugins sync`: install exactly what the lock says, at the locked commits, one row per
//! plugin that was installed, repaired, skipped or found changed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::apply::{Applier, Caller, Consent, Ready, Step, Stop, prepared_in_order};
use super::bundle::{self, PullReport};
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, NamedRefusal, Result};
use crate::host::ValidateOptions;
use crate::install::{self, InstallOptions};
use crate::lock::Entry;
use crate::printer::Printer;
use frozen::{frozen_row, stage_all, warnings};

mod frozen;

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
    /// `--from FILE` or `--from oci://…`: install from a bundle (with `--frozen`).
    pub from: Option<super::bundle::BundleSource>,
}

/// What a sync did: one row per plugin, and the artifact it pulled (`--from oci://…`).
#[derive(Debug, Serialize)]
pub struct SyncReport {
    pub plugins: Vec<SyncRow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pulled: Option<PullReport>,
}

impl SyncReport {
    fn new(plugins: Vec<SyncRow>, pulled: Option<PullReport>) -> SyncReport {
        SyncReport { plugins, pulled }
    }
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
    /// protoAgent 0.218: a bundled plugin supersedes the row's source, so the host runs its
    /// bundled copy and ignores this one: nothing is fetched (as the host's own sync).
    Superseded,
    /// The row names no source and its host ships no plugin of that id: nothing to fetch
    /// (the host's own sync: `failed`, and it goes on).
    NoSource,
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
pub fn sync(opts: &SyncOptions, cx: &Context, printer: &Printer) -> Result<SyncReport> {
    // A sync never prompts: without `--yes`, what asks for consent is refused.
    let mut applier = Applier::new(printer, Consent::asking(opts.yes), Caller::Sync);
    // Finish or undo what a killed command left before comparing the lock with the plugins.
    let homes = cx.homes(opts.home)?;
    for home in &homes {
        if (home.lockfile().exists() || home.root.join(".plugins").exists())
            && let Err(e) = install::lock_home(home, true, applier.on_event())
        {
            return Err(e.into());
        }
    }
    // `--from`: the bundle is read (bounded, checked) before anything else.
    let opened = (opts.from.as_ref().map(|f| bundle::open_for(f, &homes))).transpose()?;
    let pulled = opened.as_ref().and_then(|o| PullReport::of(o, printer));
    let mut rows = Vec::new();
    let mut warned = Vec::new();
    let steps = plan(opts, cx, opened.as_ref(), &mut warned)?;
    // The sources are fetched and checked `--jobs` at a time, ahead of the installs, which
    // ask consent, lock the home and swap one at a time, in lock order. `--frozen` stages
    // every one of them (consent, release asset, locked deps) before it swaps any in.
    let prepared = prepared_in_order(steps, opts.jobs);
    let work: Box<dyn Iterator<Item = Work>> = if opts.frozen {
        Box::new(stage_all(&mut applier, prepared)?.into_iter())
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
        let (install, ready) = fetched.expect("an install is fetched ahead");
        let installed = match applier.install(&install, ready) {
            Ok(i) => i,
            Err(Stop::Raced(_)) => {
                rows.push(skipped(printer, &entry.id, home));
                continue;
            }
            Err(stop) => return Err(stop.into()),
        };
        rows.push(synced(&entry, &installed, repair, home)?);
    }
    // The spinner is cleared before the warnings are printed.
    drop(applier);
    rows.extend(warnings(opts, cx, printer, &warned)?);
    bundle::record_pulled(opened.as_ref(), opts.from.as_ref(), &homes)?;
    Ok(SyncReport::new(rows, pulled))
}

/// The row of a plugin another command changed meanwhile: skipped, said as it happens.
fn skipped(printer: &Printer, id: &str, home: PathBuf) -> SyncRow {
    let message = "another command changed it meanwhile";
    printer.status(&format!("     Skipped {id}: {message}"));
    SyncRow {
        id: id.to_owned(),
        status: SyncStatus::Skipped,
        detail: SyncDetail::Message {
            message: message.to_owned(),
        },
        home,
    }
}

/// What to install, in lock order: each row whose plugin is missing, unbuilt or (with
/// `--force`) any; a changed plugin is reinstalled with `--repair`, else only reported (and
/// its warning kept in `warned`); a row that names no source is reported (and warned of)
/// unless its host ships that plugin. With a bundle, each install reads from it.
fn plan(
    opts: &SyncOptions,
    cx: &Context,
    opened: Option<&super::bundle::Opened>,
    warned: &mut Vec<(Code, String)>,
) -> Result<Vec<Step<Todo>>> {
    let mut steps = Vec::new();
    for (home, lock) in cx.locked_homes(opts.home)? {
        // The home's host profile, read once for the rows that need it (not per row).
        let remembered = crate::profile::Remembered::of(&home);
        for entry in lock.entries() {
            // An entry installed with `--no-build` is built now (unless this sync skips builds too).
            let build = entry.unbuilt && !opts.no_build;
            let mut repair = false;
            if home.locked_dir(&entry)?.is_dir() && !opts.force && !build {
                let verdict = crate::verify::entry(&home, &entry, &remembered);
                if !verdict.changed {
                    continue;
                }
                // `--frozen` leaves exactly the lock: a changed plugin is reinstalled as
                // locked, staged with the rest before anything is swapped in.
                if !opts.repair && !opts.frozen {
                    let problem = verdict.problems.first().cloned().unwrap_or_default();
                    warned.push((Code::InstallTampered, format!(
                        "{} changed since install: {problem}; `plugins sync --repair` reinstalls it",
                        entry.id
                    )));
                    steps.push(report(SyncRow {
                        id: entry.id.clone(),
                        status: SyncStatus::Tampered,
                        detail: SyncDetail::Message { message: problem },
                        home: home.root.clone(),
                    }));
                    continue;
                }
                repair = true;
            }
            let home_profile = remembered.get();
            if let Some(skip) = not_fetched(opts, &home, &entry, home_profile, warned) {
                steps.extend(skip.map(report));
                continue;
            }
            if opts.frozen {
                frozen_row(opts, &entry)?;
            }
            let mut install = install_options(opts, cx, &home, &entry)?;
            if let Some(b) = opened {
                from_bundle(b, &home, &entry, &mut install)?;
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

/// A step that only reports `row`.
fn report(row: SyncRow) -> Step<Todo> {
    Step {
        item: Todo::Report(row),
        install: None,
    }
}

/// Whether sync leaves a missing plugin's row unfetched: `Some(None)` with nothing to say,
/// `Some(Some(row))` with a row to report, `None` to install it. A row that names no source
/// is never taken for a path (an empty one would name the current directory): it is the
/// host's own where the host ships the plugin, else reported and warned of, except under
/// `--frozen` (exactly the lock, or nothing), which refuses it ([`frozen_row`]). A row whose
/// source a bundled plugin supersedes is reported ([`superseded`]). `remembered` is the
/// home's host profile.
fn not_fetched(
    opts: &SyncOptions,
    home: &crate::store::Home,
    entry: &Entry,
    remembered: &crate::profile::HostProfile,
    warned: &mut Vec<(Code, String)>,
) -> Option<Option<SyncRow>> {
    let host = host_options(opts, entry, remembered);
    if entry.names_no_source() {
        if crate::host::ships(home, &entry.id, &host) {
            return Some(None);
        }
        return (!opts.frozen).then(|| Some(no_source(home, entry, warned)));
    }
    superseded(home, entry, &host).map(Some)
}

/// The row of a plugin sync would install whose source the home's host supersedes with a
/// bundled plugin (protoAgent 0.218): the host runs the bundled copy and would ignore this
/// one, so nothing is fetched and the sync goes on, as the host's own sync does (`status:
/// superseded`); removing the row is the way to clean it up.
fn superseded(
    home: &crate::store::Home,
    entry: &Entry,
    host: &crate::host::HostOptions,
) -> Option<SyncRow> {
    let by = crate::host::superseded(home, &entry.source, host)?;
    Some(SyncRow {
        id: entry.id.clone(),
        status: SyncStatus::Superseded,
        detail: SyncDetail::Message {
            message: format!(
                "protoAgent runs its bundled {} v{} and ignores this copy (`plugins remove {}` cleans it up)",
                by.id, by.version, entry.id
            ),
        },
        home: home.root.clone(),
    })
}

/// The host options the install of `entry` would validate with: the command line's
/// profile, else the row's, else the home's (`remembered`).
fn host_options(
    opts: &SyncOptions,
    entry: &Entry,
    remembered: &crate::profile::HostProfile,
) -> crate::host::HostOptions {
    let profile =
        (opts.profile.or(entry.profile.clone().unwrap_or_default())).or(remembered.clone());
    profile.host_options(&Default::default())
}

/// The row of a plugin whose lock row names no source (protoAgent's migrated wheel-deps
/// pins) of a plugin its host does not ship, and its warning: nothing to fetch it from; the
/// sync goes on with the others, as the host's own sync does.
fn no_source(
    home: &crate::store::Home,
    entry: &Entry,
    warned: &mut Vec<(Code, String)>,
) -> SyncRow {
    let message = "the lock records no source: there is nothing to fetch it from".to_owned();
    warned.push((
        Code::SyncNoSource,
        format!(
            "{}: {message}, and its host ships no plugin of that id; `plugins remove {}` drops the row, `plugins install SOURCE` installs it again",
            entry.id, entry.id
        ),
    ));
    SyncRow {
        id: entry.id.clone(),
        status: SyncStatus::NoSource,
        detail: SyncDetail::Message { message },
        home: home.root.clone(),
    }
}

/// Install `entry` from the bundle `b`: its tree, wheels, release asset and (aoe) build
/// output, which must hash to the lock's `build_output_hash` (checked here, before anything
/// is staged or changed).
fn from_bundle(
    b: &bundle::Opened,
    home: &crate::store::Home,
    entry: &Entry,
    install: &mut InstallOptions,
) -> Result<()> {
    let name = home.locked_name(entry)?;
    install.tree_from = Some(b.tree(&name).ok_or_else(|| bundle::Refusal::NoTree {
        id: entry.id.clone(),
    })?);
    install.wheels_from = Some(b.wheels(&name));
    install.asset_from = Some(b.assets(&name));
    if let Some(built) = b.build(&name) {
        let hash = crate::hash::build_output(&built).ok().flatten();
        if hash.is_none() || hash != entry.build_hash {
            return Err(bundle::Refusal::BuildMismatch {
                id: entry.id.clone(),
                hash,
                locked: entry.build_hash.clone(),
            }
            .into());
        }
        install.build_from = Some(built);
    }
    Ok(())
}

/// `sync`: an installed tree that no longer hashes to the locked one.
#[derive(Debug, thiserror::Error)]
#[error("{id} at {} no longer hashes to the locked tree", at.as_deref().unwrap_or("the locked source"))]
pub struct Tampered {
    pub id: String,
    /// The locked commit, if the row has one.
    pub at: Option<String>,
}

impl NamedRefusal for Tampered {
    fn code(&self) -> Code {
        Code::InstallTampered
    }

    fn help(&self) -> Option<String> {
        Some(
            "the source changed under the same commit or path; inspect it before trusting it"
                .into(),
        )
    }
}

impl From<Tampered> for Error {
    fn from(r: Tampered) -> Error {
        Error::Named(Box::new(r))
    }
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
        return Err(Tampered {
            id: entry.id.clone(),
            at: entry.commit.clone(),
        }
        .into());
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

/// A step in lock order with its install, fetched ahead (or, `--frozen`, staged in full).
type Work = (Todo, Option<(InstallOptions, Ready)>);

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
        build_from: None,
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
