//! `plugins list`: what is installed, at which commit.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::{Error, Result};
use crate::lock::Entry;
use crate::printer::Printer;

/// List installed plugins from the lock: id, version, source, ref and commit.
#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  plugins list\n  plugins list --home /srv/aoe --json")]
pub struct ListArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &ListArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut rows = Vec::new();
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        for e in lock.entries() {
            let present = home.locked_dir(&e).is_ok_and(|d| d.is_dir());
            rows.push((dialect, home.root.clone(), e, present));
        }
    }
    let text = if args.json {
        let plugins: Vec<serde_json::Value> = rows
            .iter()
            .map(|(d, home, e, present)| {
                serde_json::json!({
                    "id": e.id, "dialect": d, "version": e.version, "source": e.source,
                    "requested_ref": e.requested_ref, "ref_kind": e.ref_kind, "commit": e.commit,
                    "home": home.display().to_string(), "present": present, "unbuilt": e.unbuilt,
                    "subdir": e.subdir,
                })
            })
            .collect();
        format!(
            "{}\n",
            serde_json::to_string_pretty(
                &serde_json::json!({"format_version": 1, "plugins": plugins})
            )
            .expect("serializes")
        )
    } else if rows.is_empty() {
        "no plugins installed\n".to_owned()
    } else {
        table(&rows)
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// A monorepo plugin's directory in its repository, as a suffix of its source.
fn in_subdir(e: &Entry) -> String {
    e.subdir
        .as_deref()
        .map_or_else(String::new, |s| format!(" (subdir {s})"))
}

/// One row per plugin under a header, columns padded to their widest cell. The source
/// comes last, unpadded, so a long URL or path never pushes the other columns out of line.
fn table(rows: &[(Dialect, PathBuf, Entry, bool)]) -> String {
    let mut cells = vec![[
        "ID".to_owned(),
        "VERSION".to_owned(),
        "DIALECT".to_owned(),
        "REF".to_owned(),
        "COMMIT".to_owned(),
        "SOURCE".to_owned(),
    ]];
    for (dialect, _, e, present) in rows {
        let (reference, commit) = match &e.commit {
            Some(c) if e.requested_ref.is_empty() => ("(default)".to_owned(), c[..10].to_owned()),
            Some(c) => (e.requested_ref.clone(), c[..10].to_owned()),
            None => ("(local copy)".to_owned(), "-".to_owned()),
        };
        let missing = if !*present {
            "  (missing: run `plugins sync`)"
        } else if e.unbuilt {
            "  (not built: run `plugins sync`)"
        } else {
            ""
        };
        cells.push([
            e.id.clone(),
            e.version.clone(),
            dialect.to_string(),
            reference,
            commit,
            format!("{}{}{missing}", e.source, in_subdir(e)),
        ]);
    }
    let mut widths = [0; 5];
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &cells {
        for (w, cell) in widths.iter().zip(row) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&row[5]);
        out.push('\n');
    }
    out
}
