//! `plugins outdated`: what is pinned, and what is newer, without fetching objects.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::printer::Printer;
use crate::review;
use crate::update::{Check, Status};

/// List locked plugins with what they are pinned to and what is newer.
///
/// Only the remotes' ref lists are read (no objects are fetched), in parallel.
/// A commit pin is never queried; a branch compares its head; a release tag
/// `v?X.Y.Z` looks for the greatest newer release (never a downgrade; pre-releases
/// with --pre); another tag checks whether it moved. A failing remote is reported
/// in its row and never stops the others. A newer version younger than the cooldown
/// (--cooldown, else `cooldown` in <home>/plugins.toml) is shown as held back, with
/// the time left; its date (the tag's, else the commit's) is read by fetching its tip.
/// A held plugin (`plugins hold`, `plugins rollback`) says why and since when, and its
/// newer version is `held`, not taken by `update --all` or `autoupdate`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins outdated\n  plugins outdated --json --jobs 16\n  plugins outdated --cooldown 72h\n  plugins outdated --exit-code -q || echo \"updates or failures\"\n\nExit codes: 0 checked (with or without updates; 3 with --exit-code when an update exists),\n1 some remote could not be checked, 2 could not run."
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

/// A monorepo that moved while the plugin's subdirectory did not.
fn moved_text(commit: &str, subdir: &str) -> String {
    format!(
        "the repository moved to {}; {subdir} did not change",
        &commit[..commit.len().min(10)]
    )
}

pub fn run(args: &OutdatedArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut checks = crate::ops::check::check_homes(&args.check.options(), args.home.as_ref(), cx)?;
    // aoe: `gh:owner/repo` without a ref follows the latest release, as `update` does.
    let (jobs, timeout) = (args.check.jobs, args.check.timeout());
    crate::update::follow_latest_releases(
        &mut checks,
        &cx.gh_base(),
        &cx.github_api,
        jobs,
        timeout,
    );
    // A monorepo plugin is newer only when its subdirectory changed.
    let moved = crate::update::unchanged_subdirs(&mut checks, &cx.gh_base(), jobs);
    for f in &crate::ops::check::hold_back(&args.check.options(), &mut checks, cx, true)? {
        printer.file_diagnostics(&f.warnings, &f.path, &f.text);
    }
    // A held plugin's newer version is shown as held (`plugins hold`, `plugins rollback`).
    crate::update::apply_holds(&mut checks, &[]);
    let failed = checks
        .iter()
        .filter(|(_, _, c)| matches!(c.status, Status::Error { .. }))
        .count();
    let text = if args.json {
        let rows: Vec<serde_json::Value> = checks
            .iter()
            .map(|(home, _, c)| {
                let mut row = serde_json::to_value(c).expect("serializes");
                if let (Some((commit, subdir)), Some(obj)) = (
                    moved.get(&(home.root.clone(), c.id.clone())),
                    row.as_object_mut(),
                ) {
                    obj.insert("commit".into(), commit.clone().into());
                    obj.insert("subdir".into(), subdir.clone().into());
                    obj.insert("message".into(), moved_text(commit, subdir).into());
                }
                row
            })
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(
                &serde_json::json!({"format_version": 1, "plugins": rows})
            )
            .expect("serializes")
        )
    } else if checks.is_empty() {
        if printer.quiet {
            String::new()
        } else {
            "no plugins installed\n".to_owned()
        }
    } else {
        let mut s = String::new();
        // -q: only the rows that need attention (newer, or the check failed).
        let attention = |c: &Check| {
            matches!(
                c.status,
                Status::Behind { .. } | Status::Error { .. } | Status::Superseded { .. }
            )
        };
        for (home, _, c) in checks
            .iter()
            .filter(|(_, _, c)| !printer.quiet || attention(c))
        {
            let pinned = match (&c.current, c.requested_ref.is_empty()) {
                (Some(sha), true) => format!("@ {}", &sha[..sha.len().min(10)]),
                (Some(sha), false) => {
                    format!("{} @ {}", c.requested_ref, &sha[..sha.len().min(10)])
                }
                (None, _) => "local copy".to_owned(),
            };
            let what = match &c.status {
                Status::Pinned => "pinned to a commit".to_owned(),
                Status::Local => "not from git".to_owned(),
                Status::UpToDate => match moved.get(&(home.root.clone(), c.id.clone())) {
                    Some((commit, subdir)) => {
                        format!("up to date ({})", moved_text(commit, subdir))
                    }
                    None => "up to date".to_owned(),
                },
                Status::Behind { new_ref, commit }
                    if new_ref.is_empty() || *new_ref == c.requested_ref =>
                {
                    format!("newer: {}", &commit[..10])
                }
                Status::Behind { new_ref, commit } => {
                    format!("newer: {new_ref} @ {}", &commit[..10])
                }
                Status::HeldBack {
                    new_ref,
                    commit,
                    left_secs,
                    cooldown_secs,
                    ..
                } => {
                    let newer = if new_ref.is_empty() || *new_ref == c.requested_ref {
                        commit[..10].to_owned()
                    } else {
                        format!("{new_ref} @ {}", &commit[..10])
                    };
                    format!(
                        "newer: {newer}, held back: {} left (cooldown {})",
                        review::format_left(*left_secs),
                        review::format_duration(*cooldown_secs)
                    )
                }
                Status::Held { new_ref, commit } => {
                    let newer = if new_ref.is_empty() || *new_ref == c.requested_ref {
                        commit[..10].to_owned()
                    } else {
                        format!("{new_ref} @ {}", &commit[..10])
                    };
                    format!("newer: {newer}, not taken")
                }
                Status::Error { message } => format!("check failed: {message}"),
                Status::Superseded {
                    by,
                    bundled_version,
                } => format!(
                    "superseded: protoAgent runs its bundled {by} v{bundled_version} and ignores this copy (`plugins remove {}` cleans it up)",
                    c.id
                ),
            };
            let held = c.hold.as_ref().map_or_else(String::new, |h| {
                format!(
                    "; {} (`plugins update {id}` or `plugins unhold {id}` lifts it)",
                    h.describe(),
                    id = c.id
                )
            });
            s.push_str(&format!("{:<32} {:<28} {what}{held}\n", c.id, pinned));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    let behind = checks
        .iter()
        .any(|(_, _, c)| matches!(c.status, Status::Behind { .. }));
    Ok(if failed > 0 {
        ExitStatus::Failure
    } else if args.exit_code && behind {
        ExitStatus::Updated
    } else {
        ExitStatus::Success
    })
}
