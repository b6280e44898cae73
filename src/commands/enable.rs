//! `plugins enable|disable <id>`: flip the host's own switch for an installed plugin.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::host::Switch;
use crate::printer::Printer;

/// Turn an installed plugin on or off where its host reads it.
///
/// aoe: `enabled` in `[plugins."<id>"]` of `<app_dir>/config.toml` (the rest of the file is
/// kept byte for byte). AWorld: `enabled` in `<home>/plugins/.manifest.json`. protoAgent:
/// `plugins.enabled` / `plugins.disabled` in the instance's `langgraph-config.yaml`, which
/// `plugins` does not rewrite (it would lose the file's comments): it prints the lines to
/// put there instead.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins disable dev.example.hello\n  plugins enable notes --home ~/.protoagent/default"
)]
pub struct SwitchArgs {
    /// The plugin id
    #[arg(value_name = "ID")]
    pub id: String,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
}

pub fn run(args: &SwitchArgs, enable: bool, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let verb = if enable { "Enabled" } else { "Disabled" };
    let found = cx
        .locked_homes(args.home.as_ref())?
        .into_iter()
        .find(|(_, lock)| lock.get(&args.id).is_some());
    let Some((home, _)) = found else {
        return Err(Refusal::NotInstalled {
            id: args.id.clone(),
        }
        .into());
    };
    let path = |p: &std::path::Path| crate::render::display_path(p);
    let line = match crate::host::set_enabled(&home, &args.id, enable)? {
        Switch::Set { path: p, changed } => format!(
            "{verb:>12} {} in {}{}\n",
            args.id,
            path(&p),
            if changed { "" } else { " (already)" }
        ),
        Switch::NoRecord { path: p } => {
            return Err(Refusal::NoRecord {
                path: p,
                id: args.id.clone(),
            }
            .into());
        }
        Switch::ByHand { path: p, lines } => format!(
            "To {} {}, set these in {} (plugins does not rewrite it), then restart protoAgent:\n{lines}",
            if enable { "enable" } else { "disable" },
            args.id,
            path(&p)
        ),
    };
    printer
        .out(&line)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
