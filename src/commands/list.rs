//! `plugins list`: what is installed, at which commit.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
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
    for (home, dialect, lock) in super::install::locked_homes(args.home.as_ref(), cx)? {
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
                    "home": home.display().to_string(), "present": present,
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
        let mut s = String::new();
        for (d, _, e, present) in &rows {
            let at = match (&e.commit, e.requested_ref.is_empty()) {
                (Some(c), true) => format!("@ {}", &c[..10]),
                (Some(c), false) => format!("{} @ {}", e.requested_ref, &c[..10]),
                (None, _) => "local copy".to_owned(),
            };
            let missing = if *present {
                ""
            } else {
                "  (missing: run `plugins sync`)"
            };
            s.push_str(&format!(
                "{:<32} {:<10} {:<10} {:<40} {at}{missing}\n",
                e.id,
                e.version,
                d.to_string(),
                e.source
            ));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
