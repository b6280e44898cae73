//! `plugins update --dry-run`: each newer version fetched into a temporary directory and
//! reviewed (commits, permission changes, consent), as the update would fetch it.

use super::row::{Detail, UpdateRow, UpdateStatus};
use super::{UpdateOptions, base_options};
use crate::context::Context;
use crate::error::Result;
use crate::ops::apply::{Tell, failed};
use crate::printer::Printer;
use crate::store::Home;
use crate::update::{Check, Status};

/// What a dry run's reviews share: the fetches of the newer versions (one per repository
/// and commit, as the update's own are) and the histories walked (one per remote and ref).
pub(super) struct Reviews {
    pub(super) fetches: Option<std::sync::Arc<crate::install::SharedFetches>>,
    pub(super) walks: crate::git::Walks,
}

/// The commits of history a monorepo's fetch brings along in this command: a dry run's
/// reviews walk [`crate::review::WALK_BOUND`] commits of it (and the commit before them).
pub(super) fn history(dry_run: bool) -> usize {
    match dry_run {
        true => crate::review::WALK_BOUND.saturating_add(1),
        false => 0,
    }
}

/// The fetches a dry run's reviews share, made as [`crate::ops::apply::prepared_in_order`]
/// makes the update's: `None` when no two plugins share one.
pub(super) fn review_fetches(
    cx: &Context,
    opts: &UpdateOptions,
    checks: &[(Home, Check)],
) -> Result<Option<std::sync::Arc<crate::install::SharedFetches>>> {
    let mut installs = Vec::new();
    for (home, c) in checks {
        let (Status::Behind { new_ref, .. }
        | Status::Repointed { new_ref, .. }
        | Status::ForcePushed { new_ref, .. }) = &c.status
        else {
            continue;
        };
        let Some(entry) = c.row.as_deref() else {
            continue;
        };
        let mut base = base_options(cx, entry, None, &opts.signing, &opts.check.profile)?;
        base.at_commit = c.settled_commit();
        installs.push(crate::update::options(home, entry, new_ref, base));
    }
    let shared = crate::install::SharedFetches::of(installs.iter());
    Ok((!shared.is_empty()).then(|| std::sync::Arc::new(shared)))
}

/// A dry run's row: fetch the newer version into a temporary directory and review it.
pub(super) fn review(
    cx: &Context,
    printer: &Printer,
    home: &Home,
    c: &Check,
    opts: &UpdateOptions,
    reviews: &Reviews,
) -> Result<Option<UpdateRow>> {
    let (Status::Behind { new_ref, commit }
    | Status::Repointed { new_ref, commit }
    | Status::ForcePushed { new_ref, commit }) = &c.status
    else {
        return Ok(None);
    };
    let Some(entry) = c.row.as_deref() else {
        return Ok(None);
    };
    let mut base = base_options(cx, entry, None, &opts.signing, &opts.check.profile)?;
    base.shared.clone_from(&reviews.fetches);
    base.at_commit = c.settled_commit();
    let mut on_event = crate::reporter::progress(printer);
    let reviewed = crate::update::review(home, entry, new_ref, base, &reviews.walks, &mut on_event);
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
        Err(e) => UpdateRow::failed(home, failed(printer, &c.id, e, Tell::Now)),
    }))
}
