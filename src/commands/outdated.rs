//! `plugins outdated`: what is pinned, and what is newer, without fetching objects.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::printer::Printer;
use crate::source::Source;
use crate::update::{self, Check, Status};

/// Options shared by `outdated`, `update` and `autoupdate`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// How many remotes to query at once
    #[arg(short, long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// Seconds to wait for each remote
    #[arg(long, value_name = "SECS", default_value_t = 20)]
    pub timeout: u64,
    /// Consider pre-release tags (v2.0.0-rc1) newer releases
    #[arg(long)]
    pub pre: bool,
}

/// List locked plugins with what they are pinned to and what is newer.
///
/// Only the remotes' ref lists are read (no objects are fetched), in parallel.
/// A commit pin is never queried; a branch compares its head; a release tag
/// `v?X.Y.Z` looks for the greatest newer release (never a downgrade; pre-releases
/// with --pre); another tag checks whether it moved. A failing remote is reported
/// in its row and never stops the others.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins outdated\n  plugins outdated --json --jobs 16\n\nExit codes: 0 checked (with or without updates), 1 some remote could not be checked, 2 could not run."
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
}

/// Check every locked plugin in the given homes.
pub(crate) fn check(
    home: Option<&PathBuf>,
    args: &CheckArgs,
    cx: &Context,
) -> Result<Vec<(crate::store::Home, crate::manifest::Dialect, Check)>> {
    let mut out = Vec::new();
    for (home, dialect, lock) in super::install::locked_homes(home, cx)? {
        let entries = lock.entries();
        let url_of = |e: &crate::lock::Entry| match super::install::source_of(e, cx) {
            Ok(Source::Git { url, .. }) => Some(url),
            _ => None,
        };
        for c in update::check_all(
            &entries,
            args.jobs,
            Duration::from_secs(args.timeout),
            args.pre,
            &url_of,
        ) {
            out.push((home.clone(), dialect, c));
        }
    }
    Ok(out)
}

pub fn run(args: &OutdatedArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let checks = check(args.home.as_ref(), &args.check, cx)?;
    let failed = checks
        .iter()
        .filter(|(_, _, c)| matches!(c.status, Status::Error { .. }))
        .count();
    let text = if args.json {
        let rows: Vec<&Check> = checks.iter().map(|(_, _, c)| c).collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(
                &serde_json::json!({"format_version": 1, "plugins": rows})
            )
            .expect("serializes")
        )
    } else if checks.is_empty() {
        "no plugins installed\n".to_owned()
    } else {
        let mut s = String::new();
        for (_, _, c) in &checks {
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
                Status::UpToDate => "up to date".to_owned(),
                Status::Behind { new_ref, commit }
                    if new_ref.is_empty() || *new_ref == c.requested_ref =>
                {
                    format!("newer: {}", &commit[..10])
                }
                Status::Behind { new_ref, commit } => {
                    format!("newer: {new_ref} @ {}", &commit[..10])
                }
                Status::Error { message } => format!("check failed: {message}"),
            };
            s.push_str(&format!("{:<32} {:<28} {what}\n", c.id, pinned));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(if failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
