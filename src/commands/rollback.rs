//! `plugins rollback`: put back a version an update replaced.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::ops::apply::{Applier, Caller, Consent};
use crate::printer::Printer;

/// Put back a previous version of an installed plugin. Updates keep the last two
/// versions they replaced (files and lock entry) in `<home>/.plugins/history/`;
/// the version rolled back from is kept in turn. The restored version is held
/// (`[hold."<id>"]` in `<home>/plugins.toml`): `update --all` and `autoupdate` skip it
/// until `plugins update <id>` or `plugins unhold <id>`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins rollback dev.example.kanban\n  plugins rollback dev.example.kanban --to 3f2c1a9"
)]
pub struct RollbackArgs {
    /// The plugin id
    #[arg(value_name = "PLUGIN-ID")]
    pub id: String,
    /// The kept version to restore, by commit (a prefix will do) [default: the most recent]
    #[arg(long, value_name = "COMMIT")]
    pub to: Option<String>,
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

pub fn run(args: &RollbackArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let name = Error::plugin_name(&args.id)?;
    let now = crate::clock::now();
    // A kept version was granted when it was installed: a rollback asks nothing.
    let mut applier = Applier::new(printer, Consent::Refuse, Caller::Rollback);
    for home in cx.homes(args.home.as_ref())? {
        let done = applier.restore(&home, &name, args.to.as_deref(), !args.no_wait, &now)?;
        let Some(done) = done else { continue };
        drop(applier);
        let status = if done.up_to_date {
            "up_to_date"
        } else {
            "rolled_back"
        };
        let written = if args.json {
            let row = crate::ops::ChangedRow {
                dir: Some(home.plugin_dir(&name)),
                version: Some(&done.to.version),
                commit: Some(done.to.commit.as_deref()),
                from_commit: Some(done.from.commit.as_deref()),
                hold: Some(done.hold.as_ref()),
                ..crate::ops::ChangedRow::new(&args.id, status, &home.root)
            };
            printer.json(serde_json::json!({ "plugins": [row] }))
        } else {
            let short = |c: &Option<String>| {
                c.as_deref().map_or_else(
                    || "no commit".to_owned(),
                    |c| c[..c.len().min(7)].to_owned(),
                )
            };
            printer.outcome(&if done.up_to_date {
                format!(
                    "  Up to date {} {} ({})\n",
                    args.id,
                    done.to.version,
                    short(&done.to.commit)
                )
            } else {
                format!(
                    " Rolled back {} {} ({}) -> {} ({}) in {}\n        Held {id} at {}: `update --all` and `autoupdate` skip it until `plugins update {id}` or `plugins unhold {id}`\n",
                    args.id,
                    done.from.version,
                    short(&done.from.commit),
                    done.to.version,
                    short(&done.to.commit),
                    home.root.display(),
                    done.to.version,
                    id = args.id,
                )
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
