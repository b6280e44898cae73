//! `plugins update`: install the newer commit of locked plugins.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{
    self,
    update::{Detail, UpdateOptions, UpdateRow, UpdateStatus},
};
use crate::printer::{Line, Printer};
use crate::review;

/// Update plugins to what `plugins outdated` reports as newer.
///
/// Each update is a full install of the new commit: staged, validated, built,
/// swapped, lock written last, the old version kept on any failure. The plugin
/// id must not change. If the update changes the capability set, adds build
/// steps to changed files or UI to a changed manifest, or (for a plugin that must be
/// signed: --require-signed, `[trust]` in <home>/plugins.toml) is signed by another key
/// than the one the lock recorded, consent is asked again (`--yes` grants).
///
/// --dry-run fetches each newer version into a temporary directory (the home is not
/// changed) and shows what it brings: the commits since the locked one (at most 20
/// listed), the changed capabilities, build steps, UI, runtime and code, and whether
/// consent would be asked. A newer version younger than the cooldown (--cooldown,
/// else `cooldown` in <home>/plugins.toml) is held back and not taken.
///
/// A held plugin (`plugins hold`, or the version `plugins rollback` restored) is skipped
/// by --all and shown as held; naming it (`plugins update <id>`) updates it and lifts
/// the hold.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins update --all --dry-run\n  plugins update dev.example.kanban --yes\n  plugins update --all --yes --cooldown 3d   # only versions at least 3 days old\n\nExit codes: 0 updated or nothing to do, 1 some update failed, 2 could not run."
)]
pub struct UpdateArgs {
    /// Plugins to update
    #[arg(value_name = "PLUGIN-ID", required_unless_present = "all")]
    pub ids: Vec<String>,
    /// Update every locked plugin
    #[arg(long, conflicts_with = "ids")]
    pub all: bool,
    /// Show what each update would bring (commits, permission changes, consent) without installing
    #[arg(long)]
    pub dry_run: bool,
    /// Grant changed permissions without asking (required without a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(flatten)]
    pub check: CheckArgs,
    #[command(flatten)]
    pub signing: super::args::SigningArgs,
    /// Print one JSON document instead of the outcome lines
    #[arg(long)]
    pub json: bool,
    /// protoAgent: the host's Python, whose pip installs plugins' `requires_pip` into
    /// plugin-deps [default: the home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
}

/// A dry run's review, indented under its `Would update` line: the commits (at most
/// [`review::LISTED`], then how many more), the permission changes, and whether consent
/// would be asked.
fn review_text(r: &review::Review, from: Option<&str>) -> String {
    let total = r.commits.len() + r.more_commits;
    let since = from.map_or(String::new(), |c| {
        format!(" since {}", &c[..c.len().min(10)])
    });
    let mut s = match (total, r.commits_complete) {
        (0, true) => format!("  no new commits{since}\n"),
        (1, true) => format!("  1 commit{since}:\n"),
        (n, true) => format!("  {n} commits{since}:\n"),
        (n, false) => format!("  at least {n} commits{since} (the history read stops there):\n"),
    };
    for c in &r.commits {
        s.push_str(&format!("    {} {}\n", &c.id[..7], c.subject));
    }
    if r.more_commits > 0 {
        let least = if r.commits_complete { "" } else { "at least " };
        s.push_str(&format!("    … and {least}{} more\n", r.more_commits));
    }
    let lines = r.permissions.lines();
    if lines.is_empty() {
        s.push_str("  permissions: unchanged\n");
    }
    for l in lines {
        s.push_str(&format!("  {l}\n"));
    }
    s.push_str(&match (r.consent_needed, r.consent_reasons.as_slice()) {
        (true, []) => "  consent: would be asked (--yes grants it)\n".to_owned(),
        (true, why) => format!(
            "  consent: would be asked (--yes grants it): {}\n",
            why.join("; ")
        ),
        (false, _) => "  consent: not needed\n".to_owned(),
    });
    s
}

pub fn run(args: &UpdateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let rows = ops::update::update(
        &UpdateOptions {
            ids: &args.ids,
            all: args.all,
            dry_run: args.dry_run,
            yes: args.yes,
            home: args.home.as_ref(),
            check: &args.check.options(),
            python: args.python.as_deref(),
            signing: args.signing.sign_args(cx)?,
        },
        cx,
        printer,
    )?;
    let written = if args.json {
        printer.json(serde_json::json!({ "dry_run": args.dry_run, "plugins": rows }))
    } else {
        printer.report(&report(&rows, args.dry_run))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    let failed = rows.iter().any(|r| r.status == UpdateStatus::Failed);
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// The text report: one line per plugin that moved or would move (failures went to
/// stderr as they happened), or "nothing to update".
fn report(rows: &[UpdateRow], dry_run: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    for r in rows {
        if let Some(h) = &r.unheld {
            lines.push(Line::Outcome(format!(
                "      Unheld {}: it was {}\n",
                r.id,
                h.describe()
            )));
        }
        lines.extend(row_line(r));
    }
    let moved = rows.iter().any(|r| {
        matches!(
            r.status,
            UpdateStatus::Updated | UpdateStatus::UpToDate | UpdateStatus::Failed
        )
    });
    if !moved && !dry_run {
        lines.push(Line::Outcome("nothing to update\n".to_owned()));
    }
    lines
}

/// The line that tells what became of row `r` (held, held back, would update, pin only, up
/// to date, updated); `None` for the rest.
fn row_line(r: &UpdateRow) -> Option<Line> {
    match (&r.detail, &r.review) {
        (
            Detail::Held {
                new_ref,
                commit,
                hold,
                ..
            },
            _,
        ) => {
            let newer = match (new_ref, commit) {
                (Some(r), Some(c)) => format!("; {} not taken", review::target(r, c)),
                _ => String::new(),
            };
            Some(Line::Data(format!(
                "        Held {id}{newer}: {} (`plugins update {id}` or `plugins unhold {id}` lifts it)\n",
                hold.describe(),
                id = r.id,
            )))
        }
        (
            Detail::HeldBack {
                new_ref,
                commit,
                left_secs,
                cooldown_secs,
                ..
            },
            _,
        ) => Some(Line::Data(format!(
            "   Held back {} at {}: {} left (cooldown {})\n",
            r.id,
            review::target(new_ref, commit),
            review::format_left(*left_secs),
            review::format_duration(*cooldown_secs)
        ))),
        (
            Detail::Target {
                from_commit,
                new_ref,
                commit,
            },
            Some(rv),
        ) => Some(Line::Data(format!(
            "Would update {} to {}\n{}",
            r.id,
            review::target(new_ref, commit),
            review_text(rv, from_commit.as_deref())
        ))),
        (Detail::PinOnly { message, .. }, _) => Some(Line::Data(format!(
            "    Pin only {}: {message}
",
            r.id
        ))),
        (
            Detail::Installed {
                message: Some(message),
                ..
            },
            _,
        ) => Some(Line::Outcome(format!("  Up to date {}: {message}\n", r.id))),
        (
            Detail::Installed {
                new_ref,
                commit,
                version,
                ..
            },
            _,
        ) => Some(Line::Outcome(format!(
            "     Updated {} to {}\n",
            r.id,
            crate::reporter::version_at(version, new_ref, commit)
        ))),
        _ => None,
    }
}
