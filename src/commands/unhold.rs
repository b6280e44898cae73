//! `plugins unhold`: let updates take a held plugin again, as `apt-mark unhold`.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::printer::Printer;

/// Lift the hold on a plugin (`plugins hold`, or the one `plugins rollback` put): `update
/// --all` and `autoupdate` take its newer versions again. Nothing is installed now.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins unhold dev.example.kanban\n  plugins unhold notes --home ~/.protoagent --json"
)]
pub struct UnholdArgs {
    /// The plugin id
    #[arg(value_name = "PLUGIN-ID")]
    pub id: String,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Print one JSON document instead of the outcome line
    #[arg(long)]
    pub json: bool,
    /// Fail at once if another plugins process holds the home, instead of waiting
    #[arg(long)]
    pub no_wait: bool,
}

pub fn run(args: &UnholdArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let name = Error::plugin_name(&args.id)?;
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(args.home.as_ref())? {
        let lifted = crate::hold::unhold(&home, &name, !args.no_wait, &mut on_event)?;
        let Some(had) = lifted else { continue };
        drop(on_event);
        let written = if args.json {
            let status = if had.is_some() { "unheld" } else { "not_held" };
            let row = crate::ops::ChangedRow {
                hold: Some(had.as_ref()),
                ..crate::ops::ChangedRow::new(&args.id, status, &home.root)
            };
            printer.json(serde_json::json!({ "plugins": [row] }))
        } else {
            printer.outcome(&match &had {
                Some(h) => format!(
                    "      Unheld {} in {}: it was {}\n",
                    args.id,
                    home.root.display(),
                    h.describe()
                ),
                None => format!(
                    "    Not held {} in {}: nothing to lift\n",
                    args.id,
                    home.root.display()
                ),
            })
        };
        written.map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    Err(Refusal::NotInstalled {
        id: args.id.clone(),
    }
    .into())
}
