//! `plugins list`: what is installed, at which commit.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{self, list::ListRow};
use crate::printer::{Line, Printer};

/// List installed plugins from the lock: id, version, source, ref and commit.
///
/// A plugin its host does not run (switched off with `plugins disable` or in the host's
/// own config) is shown as disabled; a held one (`plugins hold`, `plugins rollback`) says
/// why and since when. A row the host's own installer wrote shows the version its
/// installed manifest declares.
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
    let rows = ops::list::list(args.home.as_ref(), cx)?;
    let written = if args.json {
        printer.json(serde_json::json!({ "plugins": rows }))
    } else if rows.is_empty() {
        printer.report(&[Line::Outcome("no plugins installed\n".to_owned())])
    } else {
        printer.report(&[Line::Data(table(&rows))])
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// What the row's last cell adds after the source: its subdirectory in a monorepo, then
/// what needs attention (missing, not built, disabled, held).
fn notes(r: &ListRow) -> String {
    let mut s = r
        .subdir
        .as_deref()
        .map_or_else(String::new, |d| format!(" (subdir {d})"));
    if r.shipped {
        s.push_str("  (its host ships it: nothing to fetch)");
    } else if !r.present && r.entry.names_no_source() {
        s.push_str(&format!(
            "  (missing, and the lock records no source: `plugins remove {}` drops the row)",
            r.id
        ));
    } else if !r.present {
        s.push_str("  (missing: run `plugins sync`)");
    } else if r.unbuilt {
        s.push_str("  (not built: run `plugins sync`)");
    }
    if r.enabled == Some(false) {
        s.push_str(&format!(
            "  (disabled: `plugins enable {}` turns it on)",
            r.id
        ));
    }
    if let Some(h) = &r.hold {
        s.push_str(&format!("  (held since {}: {})", h.since, h.reason));
    }
    s
}

/// One row per plugin under a header, columns padded to their widest cell. The source
/// comes last, unpadded, so a long URL or path never pushes the other columns out of line.
fn table(rows: &[ListRow]) -> String {
    let mut cells = vec![[
        "ID".to_owned(),
        "VERSION".to_owned(),
        "DIALECT".to_owned(),
        "REF".to_owned(),
        "COMMIT".to_owned(),
        "SOURCE".to_owned(),
    ]];
    for r in rows {
        let (reference, commit) = match &r.commit {
            Some(c) if r.requested_ref.is_empty() => ("(default)".to_owned(), c[..10].to_owned()),
            Some(c) => (r.requested_ref.clone(), c[..10].to_owned()),
            None if r.entry.names_no_source() => ("-".to_owned(), "-".to_owned()),
            None => ("(local copy)".to_owned(), "-".to_owned()),
        };
        let version = if r.version.is_empty() {
            "-"
        } else {
            &r.version
        };
        cells.push([
            r.id.clone(),
            version.to_owned(),
            r.dialect.to_string(),
            reference,
            commit,
            // A row that names no source (protoAgent's migrated wheel-deps pins) shows `-`.
            format!(
                "{}{}",
                if r.entry.names_no_source() {
                    "-"
                } else {
                    &r.source
                },
                notes(r)
            ),
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
