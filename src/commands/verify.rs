//! `plugins verify`: do the installed files still match what the lock pinned?

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{
    self,
    verify::{VerifyOptions, VerifyRow},
};
use crate::printer::{Line, Printer};

/// Recompute each installed plugin's manifest and tree hashes and compare them with the lock.
///
/// A changed manifest also means aoe's capability grant, pinned to the manifest
/// hash, no longer covers the plugin: aoe deactivates it until re-approved. When the files
/// changed, up to 20 changed, added and removed paths each are listed. A plugin whose lock
/// row records no hash of its files (the host's own installer wrote it) is unverifiable:
/// reported, not failed (unless --strict); `--record` records its files as they are now.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins verify\n  plugins verify dev.example.kanban --json\n  plugins verify --record --home ~/.protoagent\n\nExit codes: 0 all match (or are unverifiable), 1 something was changed or is missing (or, with --strict, is unverifiable), 2 could not run."
)]
pub struct VerifyArgs {
    /// Only this plugin
    #[arg(value_name = "PLUGIN-ID")]
    pub id: Option<String>,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
    /// A plugin the lock records no hash of is a failure (exit 1)
    #[arg(long)]
    pub strict: bool,
    /// Record the files of each plugin the lock records no hash of, as they are now, as its
    /// baseline (in the lock row, under the home lock); plugins with hashes are only verified
    #[arg(long)]
    pub record: bool,
    /// Fail at once if another plugins process holds the home, instead of waiting (--record)
    #[arg(long)]
    pub no_wait: bool,
}

pub fn run(args: &VerifyArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let rows = ops::verify::verify(
        &VerifyOptions {
            id: args.id.as_deref(),
            home: args.home.as_ref(),
            record: args.record,
            wait: !args.no_wait,
        },
        cx,
        printer,
    )?;
    let unverifiable = rows.iter().filter(|r| r.verdict.unverifiable).count();
    let bad = rows
        .iter()
        .filter(|r| !r.verdict.ok() && !r.verdict.unverifiable)
        .count();
    let failed = bad + if args.strict { unverifiable } else { 0 };
    let written = if args.json {
        printer.json(serde_json::json!({
            "ok": failed == 0, "unverifiable": unverifiable, "plugins": rows,
        }))
    } else {
        printer.report(&report(&rows, bad, unverifiable))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(if failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// A line per problem (and per differing path), `ok` lines and the summary unless `-q`.
fn report(rows: &[VerifyRow], bad: usize, unverifiable: usize) -> Vec<Line> {
    let mut lines = Vec::new();
    for r in rows {
        let (id, problems) = (&r.id, &r.verdict.problems);
        if r.recorded {
            lines.push(Line::Data(format!(
                "    recorded {id}: no hash was locked; its files as they are now are the baseline\n"
            )));
        } else if problems.is_empty() {
            lines.push(Line::Outcome(format!("          ok {id}\n")));
        } else {
            let status = r.status;
            for p in problems {
                lines.push(Line::Data(format!("{status:>12} {id}: {p}\n")));
            }
            if let Some(f) = &r.files {
                for (what, paths) in [
                    ("changed", &f.changed),
                    ("added", &f.added),
                    ("removed", &f.removed),
                ] {
                    for path in paths {
                        lines.push(Line::Data(format!("{what:>12} {path}\n")));
                    }
                }
                if f.files_not_shown > 0 {
                    lines.push(Line::Data(format!(
                        "             and {} more\n",
                        f.files_not_shown
                    )));
                }
            }
        }
    }
    let recorded = rows.iter().filter(|r| r.recorded).count();
    let missing = rows.iter().filter(|r| r.status == "missing").count();
    let mut summary = format!("{} verified, {} changed", rows.len(), bad - missing);
    if missing > 0 {
        summary.push_str(&format!(", {missing} missing"));
    }
    if unverifiable > 0 {
        summary.push_str(&format!(", {unverifiable} unverifiable"));
    }
    if recorded > 0 {
        summary.push_str(&format!(", {recorded} recorded"));
    }
    summary.push('\n');
    lines.push(Line::Outcome(summary));
    lines
}
