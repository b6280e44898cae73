//! `plugins update`: check, hold back, then review (`--dry-run`) or apply, one row per
//! plugin.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use serde::Serialize;

use super::apply::{MAX_FETCHES, Step, prepared_in_order};
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::install::{InstallOptions, Request};
use crate::printer::Printer;
use crate::review::Review;
use crate::source::Source;
use crate::store::Home;
use crate::update::{Check, LockRows, Status};

/// What to update and how (`plugins update`'s flags).
pub struct UpdateOptions<'a> {
    /// The plugins asked for; empty with `all`.
    pub ids: &'a [String],
    pub all: bool,
    pub dry_run: bool,
    /// Grant changed permissions without asking.
    pub yes: bool,
    pub home: Option<&'a PathBuf>,
    pub check: &'a super::check::CheckOptions,
    /// protoAgent: the host's Python, as given.
    pub python: Option<&'a std::path::Path>,
    /// `--require-signed`, `--allowed-signers`.
    pub signing: crate::signing::SignArgs,
}

/// One plugin's outcome, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct UpdateRow {
    pub id: String,
    pub status: UpdateStatus,
    #[serde(flatten)]
    pub detail: Detail,
    pub home: PathBuf,
    /// A dry run's review (commits, permission changes, consent).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub review: Option<Review>,
    /// The hold this explicit `plugins update <id>` lifted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unheld: Option<crate::hold::Hold>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UpdateStatus {
    /// Held (`plugins hold`, `plugins rollback`): skipped by `--all`.
    Held,
    HeldBack,
    WouldUpdate,
    /// Dry run: a monorepo moved but the plugin's subdirectory did not; the update would
    /// move only the lock's pin.
    WouldMovePin,
    UpToDate,
    Updated,
    Failed,
}

/// The fields of a row between its status and its home.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Detail {
    /// Held: skipped until `plugins update <id>` or `plugins unhold <id>`; the newer
    /// version it is not taking, if there is one.
    Held {
        from_commit: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        new_ref: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        commit: Option<String>,
        hold: crate::hold::Hold,
    },
    /// Newer, but younger than the cooldown.
    HeldBack {
        from_commit: Option<String>,
        new_ref: String,
        commit: String,
        released_at: String,
        /// What the age counts from (`first_seen`, `release`).
        age_from: &'static str,
        left_secs: u64,
        cooldown_secs: u64,
    },
    /// Dry run of a monorepo plugin whose subdirectory is the same at the new commit.
    PinOnly {
        from_commit: Option<String>,
        new_ref: String,
        commit: String,
        subdir: String,
        message: String,
    },
    /// Would update (dry run).
    Target {
        from_commit: Option<String>,
        new_ref: String,
        commit: String,
    },
    /// Updated, or (a monorepo whose subdirectory did not change) only the pin moved.
    Installed {
        from_commit: Option<String>,
        new_ref: String,
        commit: String,
        version: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        subdir: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    Failed {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<&'static str>,
    },
    /// Nothing newer (a held plugin whose hold an explicit update lifted).
    Nothing {},
}

impl UpdateRow {
    fn failed(id: &str, home: &Home, e: &Error) -> UpdateRow {
        UpdateRow {
            id: id.to_owned(),
            status: UpdateStatus::Failed,
            detail: Detail::Failed {
                message: e.to_string(),
                code: Some(e.code().as_str()),
            },
            home: home.root.clone(),
            review: None,
            unheld: None,
        }
    }
}

/// Check the locked plugins of the homes `opts.home` names, hold back what is under the
/// cooldown, then review (`dry_run`) or install each newer version in lock order. Failures
/// are reported as they happen; the rows say what became of every plugin asked for.
pub fn update(opts: &UpdateOptions, cx: &Context, printer: &Printer) -> Result<Vec<UpdateRow>> {
    // Recovery first: the checks read the lock as a killed command's recovery leaves it.
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(opts.home) {
        crate::install::recover_first(&home, &mut on_event)?;
    }
    drop(on_event);
    let Checked {
        checks,
        refused,
        pin_only,
    } = checked(opts, cx, printer)?;
    // Held plugins are skipped by `--all`; an id named explicitly lifts its hold.
    let lifting: &[String] = if opts.all { &[] } else { opts.ids };
    let mut lock_rows = LockRows::default();
    // A dry run fetches and walks what the update would fetch: the plugins of one
    // repository share one fetch per commit, and one history (issue 43).
    let reviews = Reviews {
        fetches: match opts.dry_run {
            true => review_fetches(cx, opts, &checks, &mut lock_rows)?,
            false => None,
        },
        walks: crate::git::Walks::default(),
    };
    let mut steps = Vec::new();
    for (home, c) in checks {
        let install = match (&c.status, opts.dry_run) {
            (
                Status::Behind { new_ref, .. }
                | Status::Repointed { new_ref, .. }
                | Status::ForcePushed { new_ref, .. },
                false,
            ) => {
                match lock_rows.get(&home, &c.id)? {
                    Some(entry) => Some(InstallOptions {
                        // A moved tag or a force-pushed branch asks consent whatever else
                        // changed.
                        ask_again: c.moved_ref(),
                        // A branch faster than the cooldown: its older commit, by id.
                        at_commit: c.settled_commit(),
                        ..crate::update::options(
                            &home,
                            &entry,
                            new_ref,
                            base_options(
                                cx,
                                &entry,
                                opts.python,
                                &opts.signing,
                                &opts.check.profile,
                            )?,
                        )
                    }),
                    // Gone from the lock since the check: nothing to do.
                    None => continue,
                }
            }
            _ => None,
        };
        steps.push(Step {
            item: (home, c),
            install,
        });
    }
    // The newer versions are fetched and checked ahead, installed one at a time, in order.
    let mut rows = Vec::new();
    let interactive = std::io::stdin().is_terminal();
    for ((home, c), fetched) in prepared_in_order(steps, opts.check.jobs.min(MAX_FETCHES)) {
        let key = (home.root.clone(), c.id.clone());
        let row = match &c.status {
            Status::HeldBack { .. } => Some(held_back_row(&home, &c)),
            Status::Behind { .. } | Status::Repointed { .. } | Status::ForcePushed { .. }
                if opts.dry_run =>
            {
                review(cx, printer, &home, &c, &mut lock_rows, opts, &reviews)?
            }
            Status::Behind { .. } | Status::Repointed { .. } | Status::ForcePushed { .. } => {
                fetched.map(|(install, prepared)| {
                    apply(
                        printer,
                        opts.yes,
                        interactive,
                        &home,
                        &c,
                        &install,
                        prepared,
                    )
                })
            }
            Status::Error { message } => {
                Some(failed_row(printer, &home, &c, message, refused.get(&key)))
            }
            Status::UpToDate if pin_only.contains_key(&key) => {
                Some(pin_only_row(&home, &c, &pin_only[&key]))
            }
            Status::Held { new_ref, commit } => Some(held_row(&home, &c, Some((new_ref, commit)))),
            _ if c.hold.is_some() && !lifting.contains(&c.id) => Some(held_row(&home, &c, None)),
            _ => None,
        };
        let lifts = c.hold.is_some()
            && lifting.contains(&c.id)
            && !opts.dry_run
            && row
                .as_ref()
                .is_none_or(|r| r.status != UpdateStatus::Failed);
        rows.extend(match lifts {
            true => Some(lift_hold(printer, &home, &c, row)?),
            false => row,
        });
    }
    Ok(rows)
}

/// The checks an update acts on, and what it learned about them on the way.
struct Checked {
    checks: Vec<(Home, Check)>,
    /// Release lookups aoe refuses (`gh:` without a release), by (home, id).
    refused: HashMap<(PathBuf, String), Error>,
    /// A dry run's monorepo plugins whose subdirectory did not change: (new ref, commit,
    /// subdir) of the pin that alone would move.
    pin_only: HashMap<(PathBuf, String), (String, String, String)>,
}

/// Check the plugins asked for (refusing an id no home has), follow aoe's latest releases,
/// hold back what is younger than its cooldown, and mark the holds.
fn checked(opts: &UpdateOptions, cx: &Context, printer: &Printer) -> Result<Checked> {
    let mut checks = super::check::check_homes(opts.check, opts.home, cx)?;
    if let Some(id) = opts
        .ids
        .iter()
        .find(|id| !checks.iter().any(|(_, c)| c.id == **id))
    {
        return Err(Error::Refused {
            code: Code::InstallNotInstalled,
            message: format!("plugin '{id}' is not installed"),
            help: None,
        });
    }
    // Only the plugins asked for are dated (cooldown) and reviewed (--dry-run).
    checks.retain(|(_, c)| opts.all || opts.ids.contains(&c.id));
    // aoe: `gh:owner/repo` without a ref follows the latest release, not the default branch.
    let refused: HashMap<_, Error> = crate::update::follow_latest_releases(
        &mut checks,
        &cx.gh_base(),
        &cx.github_api,
        opts.check.jobs,
        opts.check.timeout,
    )
    .into_iter()
    .map(|(k, e)| (k, e.into()))
    .collect();
    // A branch force-pushed to another history asks consent, as a moved tag does.
    crate::update::force_pushed(&mut checks, &cx.gh_base(), opts.check.jobs);
    for f in &super::check::hold_back(opts.check, &mut checks, cx, !opts.dry_run)? {
        printer.file_diagnostics(&f.warnings, &f.path, &f.text);
    }
    let lifting: &[String] = if opts.all { &[] } else { opts.ids };
    crate::update::apply_holds(&mut checks, lifting);
    // A dry run says what the update would do: a monorepo plugin whose subdirectory did
    // not change only has its pin moved (the update finds the same when it installs).
    let mut pin_only = HashMap::new();
    if opts.dry_run {
        let new_refs: HashMap<(PathBuf, String), String> = checks
            .iter()
            .filter_map(|(home, c)| match &c.status {
                Status::Behind { new_ref, .. } => {
                    Some(((home.root.clone(), c.id.clone()), new_ref.clone()))
                }
                _ => None,
            })
            .collect();
        for (key, (commit, subdir)) in
            crate::update::unchanged_subdirs(&mut checks, &cx.gh_base(), opts.check.jobs)
        {
            let new_ref = new_refs.get(&key).cloned().unwrap_or_default();
            pin_only.insert(key, (new_ref, commit, subdir));
        }
    }
    Ok(Checked {
        checks,
        refused,
        pin_only,
    })
}

/// The row of a newer version the cooldown holds back.
fn held_back_row(home: &Home, c: &Check) -> UpdateRow {
    let Status::HeldBack {
        new_ref,
        commit,
        released_at,
        age_from,
        left_secs,
        cooldown_secs,
    } = &c.status
    else {
        unreachable!("a held-back row is made of a held-back check");
    };
    UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::HeldBack,
        detail: Detail::HeldBack {
            from_commit: c.current.clone(),
            new_ref: new_ref.clone(),
            commit: commit.clone(),
            released_at: released_at.clone(),
            age_from,
            left_secs: *left_secs,
            cooldown_secs: *cooldown_secs,
        },
        home: home.root.clone(),
        review: None,
        unheld: None,
    }
}

/// The row of a check that failed: a refused release lookup is an error with its own code.
fn failed_row(
    printer: &Printer,
    home: &Home,
    c: &Check,
    message: &str,
    refused: Option<&Error>,
) -> UpdateRow {
    if let Some(e) = refused {
        printer.fail(e);
        return UpdateRow::failed(&c.id, home, e);
    }
    printer.status(&format!("      Failed {}: {message}", c.id));
    UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::Failed,
        detail: Detail::Failed {
            message: message.to_owned(),
            code: None,
        },
        home: home.root.clone(),
        review: None,
        unheld: None,
    }
}

/// An explicit `plugins update <id>` of a held plugin lifts its hold (under the home lock)
/// once the update is done; the row says so.
fn lift_hold(
    printer: &Printer,
    home: &Home,
    c: &Check,
    row: Option<UpdateRow>,
) -> Result<UpdateRow> {
    let mut on_event = crate::reporter::progress(printer);
    let guard = crate::install::lock_home(home, true, &mut on_event)?;
    let unheld = crate::hold::lift(home, &c.id)?;
    drop(guard);
    drop(on_event);
    let mut row = row.unwrap_or_else(|| UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::UpToDate,
        detail: Detail::Nothing {},
        home: home.root.clone(),
        review: None,
        unheld: None,
    });
    row.unheld = unheld;
    Ok(row)
}

/// A dry run's row of a monorepo plugin whose subdirectory is the same at `commit`: the
/// update would move only the lock's pin.
fn pin_only_row(
    home: &Home,
    c: &Check,
    (new_ref, commit, subdir): &(String, String, String),
) -> UpdateRow {
    let message = format!(
        "the repository moved to {}; {subdir} did not change (the update moves only the lock's pin; the tree stays as it is)",
        crate::review::target(new_ref, commit)
    );
    UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::WouldMovePin,
        detail: Detail::PinOnly {
            from_commit: c.current.clone(),
            new_ref: new_ref.clone(),
            commit: commit.clone(),
            subdir: subdir.clone(),
            message,
        },
        home: home.root.clone(),
        review: None,
        unheld: None,
    }
}

/// The row of a held plugin that `--all` skipped, with the newer version it did not take.
fn held_row(home: &Home, c: &Check, newer: Option<(&String, &String)>) -> UpdateRow {
    UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::Held,
        detail: Detail::Held {
            from_commit: c.current.clone(),
            new_ref: newer.map(|(r, _)| r.clone()),
            commit: newer.map(|(_, c)| c.clone()),
            hold: c
                .hold
                .clone()
                .expect("a held plugin's check carries its hold"),
        },
        home: home.root.clone(),
        review: None,
        unheld: None,
    }
}

/// The install options of an update of `entry` before the new ref is applied.
fn base_options(
    cx: &Context,
    entry: &crate::lock::Entry,
    python: Option<&std::path::Path>,
    signing: &crate::signing::SignArgs,
    profile: &crate::profile::HostProfile,
) -> Result<InstallOptions> {
    let source = Source::of_entry(entry, &cx.gh_base())?;
    let mut base = InstallOptions::new(source, None, cx.default_homes(), &cx.github_api, "cli");
    base.featured_index.clone_from(&cx.featured_index);
    base.python = python.map(|p| cx.python_arg(p));
    base.signing = signing.clone();
    base.profile = profile.clone();
    Ok(base)
}

/// What a dry run's reviews share: the fetches of the newer versions (one per repository
/// and commit, as the update's own are) and the histories walked (one per remote and ref).
struct Reviews {
    fetches: Option<std::sync::Arc<crate::install::SharedFetches>>,
    walks: crate::git::Walks,
}

/// The fetches a dry run's reviews share, made as [`super::apply::prepared_in_order`]
/// makes the update's: `None` when no two plugins share one.
fn review_fetches(
    cx: &Context,
    opts: &UpdateOptions,
    checks: &[(Home, Check)],
    lock_rows: &mut LockRows,
) -> Result<Option<std::sync::Arc<crate::install::SharedFetches>>> {
    let mut installs = Vec::new();
    for (home, c) in checks {
        let (Status::Behind { new_ref, .. }
        | Status::Repointed { new_ref, .. }
        | Status::ForcePushed { new_ref, .. }) = &c.status
        else {
            continue;
        };
        let Some(entry) = lock_rows.get(home, &c.id)? else {
            continue;
        };
        let mut base = base_options(cx, &entry, None, &opts.signing, &opts.check.profile)?;
        base.at_commit = c.settled_commit();
        installs.push(crate::update::options(home, &entry, new_ref, base));
    }
    let shared = crate::install::SharedFetches::of(installs.iter());
    Ok((!shared.is_empty()).then(|| std::sync::Arc::new(shared)))
}

/// A dry run's row: fetch the newer version into a temporary directory and review it.
fn review(
    cx: &Context,
    printer: &Printer,
    home: &Home,
    c: &Check,
    lock_rows: &mut LockRows,
    opts: &UpdateOptions,
    reviews: &Reviews,
) -> Result<Option<UpdateRow>> {
    let (Status::Behind { new_ref, commit }
    | Status::Repointed { new_ref, commit }
    | Status::ForcePushed { new_ref, commit }) = &c.status
    else {
        return Ok(None);
    };
    let Some(entry) = lock_rows.get(home, &c.id)? else {
        return Ok(None);
    };
    let mut base = base_options(cx, &entry, None, &opts.signing, &opts.check.profile)?;
    base.shared.clone_from(&reviews.fetches);
    base.at_commit = c.settled_commit();
    let mut on_event = crate::reporter::progress(printer);
    let reviewed =
        crate::update::review(home, &entry, new_ref, base, &reviews.walks, &mut on_event);
    drop(on_event);
    Ok(Some(match reviewed {
        Ok(mut r) => {
            // A moved tag or a force-pushed branch: the update asks whatever else changed.
            if let Some(why) = c.moved_ref() {
                r.consent_needed = true;
                r.consent_reasons.insert(0, why);
            }
            UpdateRow {
                id: c.id.clone(),
                status: UpdateStatus::WouldUpdate,
                detail: Detail::Target {
                    from_commit: c.current.clone(),
                    new_ref: new_ref.clone(),
                    commit: commit.clone(),
                },
                home: home.root.clone(),
                review: Some(r),
                unheld: None,
            }
        }
        Err(e) => {
            let e: Error = e.into();
            printer.fail(&e);
            UpdateRow::failed(&c.id, home, &e)
        }
    }))
}

/// Install one fetched newer version: consent when the grant changes, then the swap.
fn apply(
    printer: &Printer,
    yes: bool,
    interactive: bool,
    home: &Home,
    c: &Check,
    install: &InstallOptions,
    prepared: crate::install::Prepared,
) -> UpdateRow {
    let (Status::Behind { new_ref, commit }
    | Status::Repointed { new_ref, commit }
    | Status::ForcePushed { new_ref, commit }) = &c.status
    else {
        unreachable!("only newer versions are applied");
    };
    // The spinner is off the screen while the consent text and prompt are.
    let (mut on_event, pause) = crate::reporter::progress_pausable(printer);
    let mut no_terminal = None;
    let mut consent = |r: &Request| {
        pause.during(|| {
            printer.status(&crate::reporter::consent_text(r));
            if yes {
                return true;
            }
            if !interactive {
                no_terminal = Some(crate::reporter::consent_refused(
                    "update",
                    "stdin is not a terminal",
                    r,
                    Some(&format!("plugins update {}", r.id)),
                ));
                return false;
            }
            printer
                .prompt(&format!("Update {} and grant this? [y/N]", r.id))
                .is_ok_and(|a| matches!(a.to_lowercase().as_str(), "y" | "yes"))
        })
    };
    let applied = crate::install::install_prepared(install, prepared, &mut consent, &mut on_event);
    drop(on_event);
    let applied = match (applied, no_terminal) {
        (
            Err(crate::install::InstallError::Refused {
                code: Code::InstallDeclined,
                ..
            }),
            Some(refused),
        ) => {
            printer.fail(&refused);
            return UpdateRow::failed(&c.id, home, &refused);
        }
        (applied, _) => applied,
    };
    let installed = |i: &crate::install::Installed, subdir, message| Detail::Installed {
        from_commit: c.current.clone(),
        new_ref: new_ref.clone(),
        commit: commit.clone(),
        version: i.entry.version.clone(),
        subdir,
        message,
    };
    match applied {
        Ok(i) if i.up_to_date && i.entry.subdir.is_some() => {
            // A monorepo moved but the plugin's subdirectory did not: only the pin moved.
            let subdir = i.entry.subdir.clone().unwrap_or_default();
            let message = format!(
                "the repository moved to {}; {subdir} did not change (only the lock's pin moved)",
                crate::review::target(new_ref, commit)
            );
            UpdateRow {
                id: i.id.clone(),
                status: UpdateStatus::UpToDate,
                detail: installed(&i, Some(subdir), Some(message)),
                home: home.root.clone(),
                review: None,
                unheld: None,
            }
        }
        Ok(i) => UpdateRow {
            id: i.id.clone(),
            status: UpdateStatus::Updated,
            detail: installed(&i, None, None),
            home: home.root.clone(),
            review: None,
            unheld: None,
        },
        Err(e) => {
            let e: Error = e.into();
            printer.fail(&e);
            UpdateRow::failed(&c.id, home, &e)
        }
    }
}
