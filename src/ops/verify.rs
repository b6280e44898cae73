//! `plugins verify`: every locked plugin's files against its lock row, and with
//! `--record` a baseline for the rows that have none.

use std::path::PathBuf;

use serde::Serialize;

use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::Result;
use crate::install::txn::FileChanges;
use crate::printer::Printer;
use crate::verify::Verdict;

/// How many changed, added and removed paths are shown of each plugin, per kind.
pub const SHOWN: usize = 20;

/// What to verify (`plugins verify`'s flags).
pub struct VerifyOptions<'a> {
    /// One plugin, or every locked one.
    pub id: Option<&'a str>,
    pub home: Option<&'a PathBuf>,
    /// Take a baseline of the rows without hashes.
    pub record: bool,
    /// Wait for another process that holds the home (`--record`).
    pub wait: bool,
}

/// One plugin's outcome, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct VerifyRow {
    pub id: String,
    pub ok: bool,
    pub status: &'static str,
    /// The problem's code (`None` when it matches).
    pub code: Option<Code>,
    pub problems: Vec<String>,
    /// The changed, added and removed paths (at most [`SHOWN`] each), when per-file
    /// hashes were recorded.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub files: Option<Files>,
    #[serde(skip)]
    pub verdict: Verdict,
    /// `--record` took the baseline of its files now.
    #[serde(skip)]
    pub recorded: bool,
}

/// The paths that differ, as shown.
#[derive(Debug, Serialize)]
pub struct Files {
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// The paths beyond [`SHOWN`] of each kind.
    pub files_not_shown: usize,
}

impl Files {
    fn of(c: &FileChanges) -> Files {
        let shown = |v: &Vec<String>| v.iter().take(SHOWN).cloned().collect();
        Files {
            changed: shown(&c.changed),
            added: shown(&c.added),
            removed: shown(&c.removed),
            files_not_shown: [&c.changed, &c.added, &c.removed]
                .iter()
                .map(|v| v.len().saturating_sub(SHOWN))
                .sum(),
        }
    }
}

impl VerifyRow {
    fn new(id: String, verdict: Verdict, recorded: bool) -> VerifyRow {
        let status = match (recorded, verdict.ok(), verdict.code) {
            (true, _, _) => "recorded",
            (_, true, _) => "ok",
            (_, _, Code::InstallTampered) => "tampered",
            (_, _, Code::InstallMissing) => "missing",
            (_, _, Code::InstallUnbuilt) => "unbuilt",
            (_, _, Code::InstallUnverifiable) => "unverifiable",
            _ => "invalid",
        };
        VerifyRow {
            id,
            ok: verdict.ok(),
            status,
            code: (!verdict.ok()).then_some(verdict.code),
            problems: verdict.problems.clone(),
            files: verdict.changes.as_ref().map(Files::of),
            verdict,
            recorded,
        }
    }
}

/// Verify the locked plugins of the homes `opts.home` names (one with `opts.id`).
pub fn verify(opts: &VerifyOptions, cx: &Context, printer: &Printer) -> Result<Vec<VerifyRow>> {
    let mut rows = Vec::new();
    let mut on_event = crate::reporter::progress(printer);
    for (home, lock) in cx.locked_homes(opts.home)? {
        let remembered = crate::profile::Remembered::of(&home);
        let mut home_rows: Vec<(crate::lock::Entry, Verdict, bool)> = lock
            .entries()
            .into_iter()
            .filter(|e| opts.id.is_none_or(|id| id == e.id))
            .map(|e| {
                let verdict = crate::verify::entry(&home, &e, &remembered);
                (e, verdict, false)
            })
            .collect();
        // `--record`: every row without hashes under one home lock, one lock read and write.
        let unverifiable: Vec<usize> = (0..home_rows.len())
            .filter(|&i| opts.record && home_rows[i].1.unverifiable)
            .collect();
        if !unverifiable.is_empty() {
            let names = unverifiable
                .iter()
                .map(|&i| home.locked_name(&home_rows[i].0))
                .collect::<std::result::Result<Vec<_>, _>>()?;
            let done = crate::verify::record_baselines(&home, &names, opts.wait, &mut on_event)?;
            for (&i, now) in unverifiable.iter().zip(done) {
                if let Some(now) = now {
                    let verdict = crate::verify::entry(&home, &now, &remembered);
                    home_rows[i].2 = verdict.ok();
                    home_rows[i].1 = verdict;
                }
            }
        }
        rows.extend(
            home_rows
                .into_iter()
                .map(|(e, verdict, recorded)| VerifyRow::new(e.id, verdict, recorded)),
        );
    }
    drop(on_event);
    if let Some(id) = opts.id
        && rows.is_empty()
    {
        return Err(crate::error::Refusal::NotInstalled { id: id.to_owned() }.into());
    }
    Ok(rows)
}
