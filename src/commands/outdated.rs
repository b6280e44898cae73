//! `plugins outdated`: what is pinned, what is newer, and which locked rows fail their
//! trust check.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::lock::no_source;
use crate::ops::{self, outdated::OutdatedRow};
use crate::printer::{Line, Printer};
use crate::review;
use crate::update::{Check, Status};

/// List locked plugins with what they are pinned to and what is newer.
///
/// The remotes' ref lists are read, in parallel. A commit pin is never updated; a
/// branch compares its head; a release tag
/// `v?X.Y.Z` looks for the greatest newer release (never a downgrade; pre-releases
/// with --pre); another tag checks whether it moved. A failing remote is reported
/// in its row and never stops the others. A newer version younger than the cooldown
/// (--cooldown, else `cooldown` in <home>/plugins.toml) is shown as held back, with
/// the time left; its age counts from when this home first saw it (never from commit or
/// tag dates, which the publisher writes), or from a GitHub release's `published_at`.
/// A held plugin (`plugins hold`, `plugins rollback`) says why and since when, and its
/// newer version is `held`, not taken by `update --all` or `autoupdate`.
///
/// Every locked commit is checked to be on a branch or tag the remote lists (a commit
/// only a fork holds is an impostor: plugins::git::impostor_commit), fetching it when it
/// is no tip; under `require_signed` its tag's or commit's signature is verified again and
/// compared with the key the lock recorded. A row that fails is reported with its code.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins outdated\n  plugins outdated --json --jobs 16\n  plugins outdated --cooldown 72h\n  plugins outdated --exit-code -q || echo \"updates or failures\"\n\nExit codes: 0 checked (with or without updates; 3 with --exit-code when an update exists),\n1 some remote could not be checked or a locked row failed its trust check, 2 could not run."
)]
pub struct OutdatedArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(flatten)]
    pub check: CheckArgs,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
    /// Exit 3 (instead of 0) when any plugin has a newer version
    #[arg(long)]
    pub exit_code: bool,
}

pub fn run(args: &OutdatedArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let rows = ops::outdated::outdated(&args.check.options(), args.home.as_ref(), cx, printer)?;
    let written = if args.json {
        printer.json(serde_json::json!({ "plugins": rows }))
    } else {
        printer.report(&report(&rows))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    let status = |f: fn(&Status) -> bool| rows.iter().any(|r| f(&r.check.status));
    let distrusted = rows.iter().any(|r| !r.problems.is_empty());
    Ok(
        if distrusted || status(|s| matches!(s, Status::Error { .. })) {
            ExitStatus::Failure
        } else if args.exit_code && status(|s| matches!(s, Status::Behind { .. })) {
            ExitStatus::Updated
        } else {
            ExitStatus::Success
        },
    )
}

/// The table: a line per plugin (under `-q` only those that need attention).
fn report(rows: &[OutdatedRow]) -> Vec<Line> {
    if rows.is_empty() {
        return vec![Line::Outcome("no plugins installed\n".to_owned())];
    }
    rows.iter()
        .flat_map(|r| {
            let c = &r.check;
            let line = format!("{:<32} {:<28} {}{}\n", c.id, pinned(c), what(r), held(c));
            let row = if r.needs_attention() {
                Line::Data(line)
            } else {
                Line::Outcome(line)
            };
            // A row that fails its trust check: the problem and its way out, under the row.
            let problems = r.problems.iter().map(|p| {
                Line::Problem(format!(
                    "  error[{}]: {}\n    help: {}\n",
                    p.code, p.message, p.help
                ))
            });
            // A failed check's way out, under the row.
            let help = (r.help.iter()).map(|h| Line::Problem(format!("  help: {h}\n")));
            std::iter::once(row).chain(help).chain(problems)
        })
        .collect()
}

/// What the lock pins: `v1.2.0 @ abc1234567`, `HEAD @ abc1234567` (the remote's default
/// branch, no ref requested), `local copy`, or `-` (no source).
fn pinned(c: &Check) -> String {
    match (&c.current, c.requested_ref.is_empty()) {
        (Some(sha), true) => format!("HEAD @ {}", &sha[..sha.len().min(10)]),
        (Some(sha), false) => format!("{} @ {}", c.requested_ref, &sha[..sha.len().min(10)]),
        // A row that names no source (protoAgent's migrated wheel-deps pins).
        (None, _) if no_source(&c.source) => "-".to_owned(),
        (None, _) => "local copy".to_owned(),
    }
}

/// The newer version: its commit alone when the ref is the pinned one.
fn newer(c: &Check, new_ref: &str, commit: &str) -> String {
    if new_ref.is_empty() || new_ref == c.requested_ref {
        commit[..10].to_owned()
    } else {
        format!("{new_ref} @ {}", &commit[..10])
    }
}

/// What the check found.
fn what(r: &OutdatedRow) -> String {
    let c = &r.check;
    match &c.status {
        Status::Pinned => "pinned to a commit".to_owned(),
        Status::Local if no_source(&c.source) => "no source recorded: nothing to check".to_owned(),
        Status::Local => "not from git".to_owned(),
        Status::UpToDate => match &r.moved {
            Some(m) => format!("up to date ({})", m.message),
            None => "up to date".to_owned(),
        },
        Status::Behind { new_ref, commit } => match &c.held_tip {
            Some(tip) => format!(
                "newer: {} (its tip {} is under the cooldown)",
                newer(c, new_ref, commit),
                &tip[..tip.len().min(10)]
            ),
            None => format!("newer: {}", newer(c, new_ref, commit)),
        },
        Status::HeldBack {
            new_ref,
            commit,
            left_secs,
            cooldown_secs,
            ..
        } => format!(
            "newer: {}, held back: {} left (cooldown {})",
            newer(c, new_ref, commit),
            review::format_left(*left_secs),
            review::format_duration(*cooldown_secs)
        ),
        Status::Held { new_ref, commit } => {
            format!("newer: {}, not taken", newer(c, new_ref, commit))
        }
        Status::Repointed { new_ref, commit } => {
            format!("tag {new_ref} moved to {}", &commit[..commit.len().min(10)])
        }
        Status::ForcePushed { new_ref, commit } => format!(
            "branch {} force-pushed to {}",
            if new_ref.is_empty() {
                "(default)"
            } else {
                new_ref
            },
            &commit[..commit.len().min(10)]
        ),
        Status::Error { message } => format!("check failed: {message}"),
        Status::Superseded {
            by,
            bundled_version,
        } => format!(
            "superseded: protoAgent runs its bundled {by} v{bundled_version} and ignores this copy (`plugins remove {}` cleans it up)",
            c.id
        ),
    }
}

/// Why the plugin is held, and how to lift it.
fn held(c: &Check) -> String {
    c.hold.as_ref().map_or_else(String::new, |h| {
        format!(
            "; {} (`plugins update {id}` or `plugins unhold {id}` lifts it)",
            h.describe(),
            id = c.id
        )
    })
}
