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
/// changed, up to 20 changed, added and removed paths each are listed.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins verify\n  plugins verify dev.example.kanban --json\n\nExit codes: 0 all match, 1 something was changed or is missing, 2 could not run."
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
}

pub fn run(args: &VerifyArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut results = Vec::new();
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        for e in lock
            .entries()
            .into_iter()
            .filter(|e| args.id.as_ref().is_none_or(|id| *id == e.id))
        {
            let v = crate::verify::entry(&home, dialect, &e);
            results.push((e.id.clone(), v.code, v.problems, v.changes));
        }
    }
    if let Some(id) = &args.id
        && results.is_empty()
    {
        return Err(Error::Refused {
            code: Code::InstallNotInstalled,
            message: format!("plugin '{id}' is not installed"),
            help: None,
        });
    }
    let bad = results.iter().filter(|(_, _, p, _)| !p.is_empty()).count();
    let text = if args.json {
        let plugins: Vec<_> = results
            .iter()
            .map(|(id, code, p, changes)| {
                let code = (!p.is_empty()).then_some(code);
                let mut doc =
                    serde_json::json!({"id": id, "ok": p.is_empty(), "code": code, "problems": p});
                if let Some(c) = changes {
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
            serde_json::to_string_pretty(
                &serde_json::json!({"format_version": 1, "ok": bad == 0, "plugins": plugins})
            )
            .expect("serializes")
        )
    } else {
        let mut s = String::new();
        for (id, code, problems, changes) in &results {
            let verdict = match code {
                Code::InstallTampered => "tampered",
                Code::InstallUnbuilt => "unbuilt",
                _ => "invalid",
            };
            if problems.is_empty() {
                if !printer.quiet {
                    s.push_str(&format!("          ok {id}\n"));
                }
            } else {
                for p in problems {
                    s.push_str(&format!("{verdict:>12} {id}: {p}\n"));
                }
                if let Some(c) = changes {
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
            s.push_str(&format!("{} verified, {bad} changed\n", results.len()));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(if bad == 0 {
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
