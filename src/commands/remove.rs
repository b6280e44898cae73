//! `plugins remove`: delete an installed plugin and its lock entry.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::printer::Printer;

/// Remove an installed plugin: its directory and its lock entry.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins remove dev.example.kanban\n  plugins remove notes --home ~/.protoagent"
)]
pub struct RemoveArgs {
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

pub fn run(args: &RemoveArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let name = Error::plugin_name(&args.id)?;
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(args.home.as_ref())? {
        let removed = crate::install::remove(&home, &name, !args.no_wait, &mut on_event);
        match removed {
            Ok(true) => {
                drop(on_event);
                let written = if args.json {
                    let row = crate::ops::ChangedRow::new(&args.id, "removed", &home.root);
                    printer.json(serde_json::json!({ "plugins": [row] }))
                } else {
                    printer.outcome(&format!(
                        "     Removed {} from {}\n",
                        args.id,
                        home.root.display()
                    ))
                };
                written.map_err(|e| Error::io("cannot write output", e))?;
                return Ok(ExitStatus::Success);
            }
            Ok(false) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(Refusal::NotInstalled {
        id: args.id.clone(),
    }
    .into())
}
