//! `plugins update`: check, hold back, then review (`--dry-run`) or apply, one row per
//! plugin.

use std::path::PathBuf;

use super::apply::{Consent, MAX_FETCHES, Step, prepared_in_order};
use crate::context::Context;
use crate::error::Result;
use crate::install::InstallOptions;
use crate::printer::Printer;
use crate::source::Source;
use crate::store::Home;
use crate::update::check::{Checked, Holds, Plan, Subdirs};
use crate::update::{Check, LockRows, Status};

mod apply;
mod decide;
mod review;
mod row;

use decide::{Decision, decide};
use review::{Reviews, review_fetches};
pub use row::{Detail, UpdateRow, UpdateStatus};
use row::{failed_row, held_back_row, held_row, pin_only_row};

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

/// Check the locked plugins of the homes `opts.home` names, hold back what is under the
/// cooldown, then review (`dry_run`) or install each newer version in lock order. Failures
/// are reported as they happen; the rows say what became of every plugin asked for.
pub fn update(opts: &UpdateOptions, cx: &Context, printer: &Printer) -> Result<Vec<UpdateRow>> {
    // Recovery first: the checks read the lock as a killed command's recovery leaves it.
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(opts.home)? {
        crate::install::recover_first(&home, &mut on_event)?;
    }
    drop(on_event);
    // The fetches reuse the check's listing of each remote, and a commit fetched once
    // (issue 43); a dry run's monorepo fetches bring the history its reviews walk.
    let _shared = crate::git::share_transfers(review::history(opts.dry_run));
    let Checked {
        checks,
        mut learned,
    } = checked(opts, cx, printer)?;
    let lifting = lifting(opts);
    // A dry run fetches and walks what the update would fetch: the plugins of one
    // repository share one fetch per commit, and one history (issue 43). Its reviews start
    // from the lock rows the check compared (each check carries its own).
    let reviews = Reviews {
        fetches: match opts.dry_run {
            true => review_fetches(cx, opts, &checks)?,
            false => None,
        },
        walks: crate::git::Walks::default(),
    };
    // Each check is decided before anything is applied; the apply reads only decisions.
    // The installs read each lock again (once per lock): a row another command removed
    // since the check is not installed back.
    let mut lock_rows = LockRows::default();
    let mut steps = Vec::new();
    for (home, c) in checks {
        let decision = decide(&home, &c, opts.dry_run, lifting, &mut learned);
        steps.extend(step(cx, opts, &mut lock_rows, home, c, decision)?);
    }
    // The newer versions are fetched and checked ahead, installed one at a time, in order.
    let mut rows = Vec::new();
    let consent = Consent::asking(opts.yes);
    let jobs = opts.check.jobs.min(MAX_FETCHES);
    for ((home, c, decision), fetched) in prepared_in_order(steps, jobs) {
        let row = match decision {
            Decision::HeldBack => Some(held_back_row(&home, &c)),
            Decision::Review => review::review(cx, printer, &home, &c, opts, &reviews)?,
            Decision::Apply => fetched
                .map(|(install, ready)| apply::apply(printer, consent, &home, &c, &install, ready)),
            Decision::Failed { message, refused } => {
                Some(failed_row(printer, &home, &c, &message, refused))
            }
            Decision::PinOnly(pin) => Some(pin_only_row(&home, &c, &pin)),
            Decision::Held => Some(held_row(&home, &c)),
            Decision::Nothing => None,
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

/// One decided check's step: the install of its newer version, fetched ahead (none unless
/// it is applied); `None` when its row left the lock since the check (nothing to do).
fn step(
    cx: &Context,
    opts: &UpdateOptions,
    lock_rows: &mut LockRows,
    home: Home,
    c: Check,
    decision: Decision,
) -> Result<Option<Step<(Home, Check, Decision)>>> {
    let install = match &c.status {
        Status::Behind { new_ref, .. }
        | Status::Repointed { new_ref, .. }
        | Status::ForcePushed { new_ref, .. }
            if decision.installs() =>
        {
            let Some(entry) = lock_rows.get(&home, &c.id)? else {
                return Ok(None);
            };
            let base = base_options(cx, &entry, opts.python, &opts.signing, &opts.check.profile)?;
            Some(InstallOptions {
                // A moved tag or a force-pushed branch asks consent whatever else changed.
                ask_again: c.moved_ref(),
                // A branch faster than the cooldown: its older commit, by id.
                at_commit: c.settled_commit(),
                ..crate::update::options(&home, &entry, new_ref, base)
            })
        }
        _ => None,
    };
    Ok(Some(Step {
        item: (home, c, decision),
        install,
    }))
}

/// Check the plugins asked for (refusing an id no home has), as `outdated` does but for
/// what makes an update differ: see each field.
fn checked(opts: &UpdateOptions, cx: &Context, printer: &Printer) -> Result<Checked> {
    let plan = Plan {
        only: (!opts.all).then_some(opts.ids),
        // A dry run changes nothing, not even the first-seen record.
        note: !opts.dry_run,
        // Held plugins are skipped by `--all`; an id named explicitly lifts its hold.
        holds: Holds::Mark {
            lifting: lifting(opts),
        },
        // A dry run says what the update would do: a monorepo plugin whose subdirectory did
        // not change only has its pin moved (the update finds the same when it installs).
        // After the cooldown and the holds: what they hold back is shown held, as the update
        // shows it, and is not fetched.
        subdirs: match opts.dry_run {
            true => Subdirs::AfterHolds,
            false => Subdirs::Skip,
        },
        ..opts.check.plan(cx)
    };
    plan.check(super::check::rows(cx, opts.home)?, &mut |f| {
        printer.file_diagnostics(&f.warnings, &f.path, &f.text)
    })
}

/// The held plugins whose hold this update lifts: those named explicitly (none with `--all`).
fn lifting<'a>(opts: &UpdateOptions<'a>) -> &'a [String] {
    match opts.all {
        true => &[],
        false => opts.ids,
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
