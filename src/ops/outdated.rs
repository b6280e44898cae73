//! `plugins outdated`: every locked plugin checked against its remote (ref lists only),
//! aoe's releases followed, monorepo subdirectories compared, the cooldown and holds
//! applied, one row per plugin.

use std::path::PathBuf;

use serde::Serialize;

use super::check::CheckOptions;
use crate::context::Context;
use crate::error::Result;
use crate::printer::Printer;
use crate::store::Home;
use crate::update::check::{Checked, Plan, Subdirs, Unchanged};
use crate::update::trust::{self, Problem};
use crate::update::{Check, Status};

/// One plugin's check, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct OutdatedRow {
    #[serde(flatten)]
    pub check: Check,
    /// A monorepo that moved while the plugin's subdirectory did not.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub moved: Option<Moved>,
    /// What fails the locked row's trust check: its commit on no branch or tag of the
    /// remote (an impostor), or under `require_signed` a signature that no longer verifies
    /// or another key than the lock recorded ([`crate::update::trust`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
    /// A failed check's way out, when there is one: a remote that asked for credentials
    /// (the lock keeps none of a URL's `user:password@`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// The commit a monorepo moved to, the plugin's unchanged subdirectory, and the sentence.
#[derive(Debug, Serialize)]
pub struct Moved {
    pub commit: String,
    pub subdir: String,
    pub message: String,
}

impl OutdatedRow {
    /// Whether the row needs the reader's attention (newer, or the check failed): what
    /// `-q` keeps.
    pub fn needs_attention(&self) -> bool {
        !self.problems.is_empty()
            || matches!(
                self.check.status,
                Status::Behind { .. } | Status::Error { .. } | Status::Superseded { .. }
            )
    }
}

/// Check the locked plugins of the homes `home` names. Reads ref lists only (monorepo
/// subdirectories and cooldown dates fetch a tip); nothing in a home changes but the
/// first-seen record the cooldown counts from.
pub fn outdated(
    opts: &CheckOptions,
    home: Option<&PathBuf>,
    cx: &Context,
    printer: &Printer,
) -> Result<Vec<OutdatedRow>> {
    // The fetches reuse the check's listing of each remote, and a commit fetched once
    // (issue 43).
    let _shared = crate::git::share_transfers(0);
    let plan = Plan {
        // A monorepo plugin is newer only when its subdirectory changed: compared before the
        // cooldown, so an unchanged one shows as up to date (and moved), not held back.
        subdirs: Subdirs::BeforeCooldown,
        ..opts.plan(cx)
    };
    let Checked { checks, learned } = plan.check(super::check::rows(cx, home)?, &mut |f| {
        printer.file_diagnostics(&f.warnings, &f.path, &f.text)
    })?;
    let mut moved = learned.unchanged;
    let mut problems = trust_problems(&checks, &moved, opts, cx).into_iter();
    Ok(checks
        .into_iter()
        .map(|(home, check)| {
            let mut problems = problems.next().unwrap_or_default();
            // What moved comes first: it is the row's status.
            if let Some(sentence) = check.moved_ref() {
                problems.insert(0, repointed(&check, sentence));
            }
            let moved = moved
                .remove(&(home.root.clone(), check.id.clone()))
                .map(|u| Moved {
                    message: moved_text(&u.commit, &u.subdir),
                    commit: u.commit,
                    subdir: u.subdir,
                });
            let help = match &check.status {
                Status::Error { message } if crate::git::needs_credentials(message) => {
                    Some(crate::git::LOCKED_CREDENTIALS_HELP.to_owned())
                }
                _ => None,
            };
            OutdatedRow {
                check,
                moved,
                problems,
                help,
            }
        })
        .collect())
}

/// Each checked row's trust problems ([`trust::check_rows`]), in the checks' order: every
/// row locked to a commit of a git remote, but for those whose remote could not be listed
/// (that failure is the row's status already). A row whose check saw its commit as a
/// branch or tag tip ([`Check::published`]) is published, and so is an up-to-date row's
/// commit unless only its monorepo moved: neither is listed again. The rows come with the checks (the lock
/// is not read again).
fn trust_problems(
    checks: &[(Home, Check)],
    moved: &std::collections::HashMap<(PathBuf, String), Unchanged>,
    opts: &CheckOptions,
    cx: &Context,
) -> Vec<Vec<Problem>> {
    let mut at = Vec::new();
    let mut rows = Vec::new();
    for (i, (home, c)) in checks.iter().enumerate() {
        if matches!(
            c.status,
            Status::Local | Status::Error { .. } | Status::Superseded { .. }
        ) {
            continue;
        }
        let Some(entry) = c.row.as_deref().cloned() else {
            continue;
        };
        let Ok(crate::source::Source::Git { url, userinfo, .. }) =
            crate::source::Source::of_entry(&entry, &cx.gh_base())
        else {
            continue;
        };
        let tip = c.published
            || (c.status == Status::UpToDate
                && !moved.contains_key(&(home.root.clone(), c.id.clone())));
        at.push(i);
        rows.push(trust::Row {
            home: home.clone(),
            entry,
            url,
            userinfo,
            tip,
            // A commit pin is not listed by the check; every other row's remote was.
            listed: !matches!(c.status, Status::Pinned),
        });
    }
    let mut out = vec![Vec::new(); checks.len()];
    for (i, p) in at
        .into_iter()
        .zip(trust::check_rows(rows, opts.jobs, opts.timeout))
    {
        out[i] = p;
    }
    out
}

/// The problem of a locked tag that now names another commit, or of a branch force-pushed
/// to a history without the locked commit.
fn repointed(c: &Check, sentence: String) -> Problem {
    let (code, why) = match c.status {
        Status::ForcePushed { .. } => (
            crate::diagnostic::Code::UpdateForcePushed,
            "a branch's published history was rewritten",
        ),
        _ => (
            crate::diagnostic::Code::UpdateTagMoved,
            "a release tag should never move",
        ),
    };
    Problem {
        code,
        message: format!("{}: {sentence}", c.id),
        help: format!(
            "{why}: find out why before taking it; `plugins update {id} --dry-run` reviews the new commit, `plugins update {id}` asks before installing it",
            id = c.id
        ),
    }
}

/// A monorepo that moved while the plugin's subdirectory did not.
fn moved_text(commit: &str, subdir: &str) -> String {
    format!(
        "the repository moved to {}; {subdir} did not change",
        &commit[..commit.len().min(10)]
    )
}
