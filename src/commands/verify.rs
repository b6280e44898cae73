//! `plugins verify`: do the installed files still match what the lock pinned?

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::manifest::Dialect;
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
            let dir = match home.locked_dir(&e) {
                Ok(dir) => dir,
                Err(err) => {
                    results.push((e.id.clone(), err.code(), vec![err.to_string()], None));
                    continue;
                }
            };
            let mut problems = Vec::new();
            let mut changes = None;
            if home
                .locked_name(&e)
                .is_ok_and(|n| crate::install::txn::pending(&home, &n))
            {
                problems.push(
                    "a change to it was interrupted; the next `plugins sync` finishes or undoes it"
                        .to_owned(),
                );
            }
            if !dir.is_dir() {
                problems.push(format!("{} is missing", dir.display()));
            } else {
                let manifest = std::fs::read(dir.join(dialect.spec().manifest))
                    .map(|b| crate::hash::bytes(&b));
                if !e.manifest_hash.is_empty() && manifest.as_ref().ok() != Some(&e.manifest_hash) {
                    let grant = if dialect == Dialect::Aoe {
                        "; aoe's capability grant no longer covers it"
                    } else {
                        ""
                    };
                    problems.push(format!("the manifest changed since install{grant}"));
                }
                if let Some(r) = &e.release
                    && crate::release::kept_hash(&dir, &r.asset).as_ref() != Some(&r.sha256)
                {
                    problems.push(format!(
                        "the release asset {} no longer hashes to the locked {}",
                        r.asset, r.sha256
                    ));
                }
                // The installed hash covers symlinks and any name; aoe's tree
                // hash (what a host-written lock has) does not.
                let (locked, now) = match e.installed_hash.as_deref().filter(|h| !h.is_empty()) {
                    Some(h) => (h.to_owned(), crate::hash::installed(&dir)),
                    None => (e.tree_hash.clone(), crate::hash::tree(&dir)),
                };
                if locked.is_empty() {
                    problems.push("cannot verify: the lock records no hash of its files".into());
                } else {
                    match now {
                        Ok(h) if h == locked => {}
                        Ok(h) => {
                            problems.push(format!(
                                "the files changed since install (tree {h}, locked {locked})"
                            ));
                            changes = home
                                .locked_name(&e)
                                .ok()
                                .and_then(|n| crate::install::txn::file_changes(&home, &n, &dir));
                        }
                        Err(err) => problems.push(format!("cannot verify: {err}")),
                    }
                }
            }
            let mut code = Code::InstallTampered;
            if e.unbuilt && dir.is_dir() {
                if problems.is_empty() {
                    code = Code::InstallUnbuilt;
                }
                problems.push(
                    "installed with --no-build: its build did not run; `plugins sync` builds it"
                        .to_owned(),
                );
            }
            results.push((e.id.clone(), code, problems, changes));
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
