//! `plugins verify`: do the installed files still match what the lock pinned?

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::printer::Printer;

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

/// One plugin's outcome.
struct Row {
    id: String,
    verdict: crate::verify::Verdict,
    /// `--record` took the baseline of its files now.
    recorded: bool,
}

impl Row {
    fn status(&self) -> &'static str {
        match (self.recorded, self.verdict.ok(), self.verdict.code) {
            (true, _, _) => "recorded",
            (_, true, _) => "ok",
            (_, _, Code::InstallTampered) => "tampered",
            (_, _, Code::InstallUnbuilt) => "unbuilt",
            (_, _, Code::InstallUnverifiable) => "unverifiable",
            _ => "invalid",
        }
    }
}

pub fn run(args: &VerifyArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut results = Vec::new();
    let mut on_event = crate::reporter::progress(printer);
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        for e in lock
            .entries()
            .into_iter()
            .filter(|e| args.id.as_ref().is_none_or(|id| *id == e.id))
        {
            let mut verdict = crate::verify::entry(&home, dialect, &e);
            let mut recorded = false;
            if args.record && verdict.unverifiable {
                let name = home.locked_name(&e)?;
                let done = crate::verify::record_baseline(
                    &home,
                    dialect,
                    &name,
                    !args.no_wait,
                    &mut on_event,
                )?;
                if let Some(now) = done {
                    verdict = crate::verify::entry(&home, dialect, &now);
                    recorded = verdict.ok();
                }
            }
            results.push(Row {
                id: e.id.clone(),
                verdict,
                recorded,
            });
        }
    }
    drop(on_event);
    if let Some(id) = &args.id
        && results.is_empty()
    {
        return Err(Error::Refused {
            code: Code::InstallNotInstalled,
            message: format!("plugin '{id}' is not installed"),
            help: None,
        });
    }
    let unverifiable = results.iter().filter(|r| r.verdict.unverifiable).count();
    let bad = results
        .iter()
        .filter(|r| !r.verdict.ok() && !r.verdict.unverifiable)
        .count();
    let failed = bad + if args.strict { unverifiable } else { 0 };
    let text = if args.json {
        let plugins: Vec<_> = results
            .iter()
            .map(|r| {
                let v = &r.verdict;
                let code = (!v.ok()).then_some(v.code);
                let mut doc = serde_json::json!({
                    "id": r.id, "ok": v.ok(), "status": r.status(), "code": code,
                    "problems": v.problems,
                });
                if let Some(c) = &v.changes {
                    for (key, paths) in [
                        ("changed", &c.changed),
                        ("added", &c.added),
                        ("removed", &c.removed),
                    ] {
                        doc[key] = serde_json::json!(paths.iter().take(SHOWN).collect::<Vec<_>>());
                    }
                    doc["files_not_shown"] = serde_json::json!(not_shown(c));
                }
                doc
            })
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(&serde_json::json!({
                "format_version": 1, "ok": failed == 0, "unverifiable": unverifiable,
                "plugins": plugins,
            }))
            .expect("serializes")
        )
    } else {
        let mut s = String::new();
        for r in &results {
            let (id, problems) = (&r.id, &r.verdict.problems);
            if r.recorded {
                s.push_str(&format!(
                    "    recorded {id}: no hash was locked; its files as they are now are the baseline\n"
                ));
            } else if problems.is_empty() {
                if !printer.quiet {
                    s.push_str(&format!("          ok {id}\n"));
                }
            } else {
                let status = r.status();
                for p in problems {
                    s.push_str(&format!("{status:>12} {id}: {p}\n"));
                }
                if let Some(c) = &r.verdict.changes {
                    for (what, paths) in [
                        ("changed", &c.changed),
                        ("added", &c.added),
                        ("removed", &c.removed),
                    ] {
                        for path in paths.iter().take(SHOWN) {
                            s.push_str(&format!("{what:>12} {path}\n"));
                        }
                    }
                    let more = not_shown(c);
                    if more > 0 {
                        s.push_str(&format!("             and {more} more\n"));
                    }
                }
            }
        }
        if !printer.quiet {
            let recorded = results.iter().filter(|r| r.recorded).count();
            s.push_str(&format!("{} verified, {bad} changed", results.len()));
            if unverifiable > 0 {
                s.push_str(&format!(", {unverifiable} unverifiable"));
            }
            if recorded > 0 {
                s.push_str(&format!(", {recorded} recorded"));
            }
            s.push('\n');
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

/// How many changed, added and removed paths `verify` shows of each plugin, per kind.
const SHOWN: usize = 20;

/// The paths beyond [`SHOWN`] of each kind.
fn not_shown(c: &crate::install::txn::FileChanges) -> usize {
    [&c.changed, &c.added, &c.removed]
        .iter()
        .map(|v| v.len().saturating_sub(SHOWN))
        .sum()
}
