//! The rows `plugins update` answers with, one per plugin asked for (`--json` prints them
//! as they are), and the rows made of a check alone.

use std::path::PathBuf;

use serde::Serialize;

use crate::error::Error;
use crate::ops::apply::{Failure, Tell, failed};
use crate::printer::Printer;
use crate::review::Review;
use crate::store::Home;
use crate::update::{Check, Status};

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
    /// The row of a plugin whose install or review failed ([`crate::ops::apply::failed`]).
    pub(super) fn failed(home: &Home, f: Failure) -> UpdateRow {
        UpdateRow {
            id: f.id,
            status: UpdateStatus::Failed,
            detail: Detail::Failed {
                message: f.message,
                code: Some(f.code.as_str()),
            },
            home: home.root.clone(),
            review: None,
            unheld: None,
        }
    }
}

/// The row of a newer version the cooldown holds back.
pub(super) fn held_back_row(home: &Home, c: &Check) -> UpdateRow {
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

/// The row of a check that failed: a refused release lookup is an error with its own code;
/// a remote that wants credentials says the way out.
pub(super) fn failed_row(
    printer: &Printer,
    home: &Home,
    c: &Check,
    message: &str,
    refused: Option<Error>,
) -> UpdateRow {
    if let Some(e) = refused {
        return UpdateRow::failed(home, failed(printer, &c.id, e, Tell::Now));
    }
    printer.status(&format!("      Failed {}: {message}", c.id));
    // A remote that asks for credentials the lock does not keep: its code and the way out.
    let auth = crate::git::needs_credentials(message);
    if auth {
        printer.status(&format!(
            "        help: {}",
            crate::git::LOCKED_CREDENTIALS_HELP
        ));
    }
    UpdateRow {
        id: c.id.clone(),
        status: UpdateStatus::Failed,
        detail: Detail::Failed {
            message: message.to_owned(),
            code: auth.then(|| crate::diagnostic::Code::GitAuth.as_str()),
        },
        home: home.root.clone(),
        review: None,
        unheld: None,
    }
}

/// A dry run's row of a monorepo plugin whose subdirectory is the same at `commit`: the
/// update would move only the lock's pin.
pub(super) fn pin_only_row(
    home: &Home,
    c: &Check,
    crate::update::check::Unchanged {
        new_ref,
        commit,
        subdir,
    }: &crate::update::check::Unchanged,
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

/// The row of a held plugin that `--all` skipped, with the newer version it did not take
/// (when its check found one).
pub(super) fn held_row(home: &Home, c: &Check) -> UpdateRow {
    let newer = match &c.status {
        Status::Held { new_ref, commit } => Some((new_ref, commit)),
        _ => None,
    };
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
