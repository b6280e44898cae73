//! `plugins update` without `--dry-run`: one fetched newer version installed, asking
//! consent when its grant changes.

use super::row::{Detail, UpdateRow, UpdateStatus};
use crate::install::InstallOptions;
use crate::ops::apply::{Applier, Caller, Consent, Ready, Stop, Tell, failed};
use crate::printer::Printer;
use crate::store::Home;
use crate::update::{Check, Status};

/// Install one fetched newer version: consent when the grant changes, then the swap.
pub(super) fn apply(
    printer: &Printer,
    consent: Consent,
    home: &Home,
    c: &Check,
    install: &InstallOptions,
    ready: Ready,
) -> UpdateRow {
    // The spinner is cleared before the row's failure is printed.
    let mut applier = Applier::new(printer, consent, Caller::Update);
    let applied = applier.install(install, ready);
    drop(applier);
    applied_row(printer, home, c, applied)
}

/// The row of an install: updated, or (a monorepo whose subdirectory did not change) only
/// the pin moved, or failed.
fn applied_row(
    printer: &Printer,
    home: &Home,
    c: &Check,
    applied: Result<crate::install::Installed, Stop>,
) -> UpdateRow {
    let (Status::Behind { new_ref, commit }
    | Status::Repointed { new_ref, commit }
    | Status::ForcePushed { new_ref, commit }) = &c.status
    else {
        unreachable!("only newer versions are applied");
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
        Err(stop) => UpdateRow::failed(home, failed(printer, &c.id, stop, Tell::Now)),
    }
}
