//! `plugins hold`: keep an installed plugin at its version, as `apt-mark hold`.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::printer::Printer;

/// Hold an installed plugin at the version it has: `update --all` and `autoupdate` skip
/// it, and `outdated` shows it as held, with since when, until `plugins update <id>` (an
/// explicit update) or `plugins unhold <id>`. `plugins rollback` holds the version it
/// restores. The hold is kept in `[hold."<id>"]` of `<home>/plugins.toml`; the lock is
/// not touched.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins hold dev.example.kanban\n  plugins hold notes --home ~/.protoagent --json"
)]
pub struct HoldArgs {
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

pub fn run(args: &HoldArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let name = Error::plugin_name(&args.id)?;
    let now = crate::clock::now();
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(args.home.as_ref())? {
        let held = crate::hold::hold(&home, &name, !args.no_wait, &now, &mut on_event)?;
        let Some((hold, already)) = held else {
            continue;
        };
        drop(on_event);
        let written = if args.json {
            let status = if already { "already_held" } else { "held" };
            let row = crate::ops::ChangedRow {
                hold: Some(Some(&hold)),
                ..crate::ops::ChangedRow::new(&args.id, status, &home.root)
            };
            printer.json(serde_json::json!({ "plugins": [row] }))
        } else {
            let what = if already { "Already held" } else { "Held" };
            printer.outcome(&format!(
                "{what:>12} {} in {}: {}\n",
                args.id,
                home.root.display(),
                hold.describe()
            ))
        };
        written.map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    Err(Refusal::NotInstalled {
        id: args.id.clone(),
    }
    .into())
}
