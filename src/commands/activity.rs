//! `plugins activity`: produce the idle signal `autoupdate` reads.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::ExitStatus;
use crate::autoupdate;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::printer::Printer;
use crate::store::Home;

/// Mark a home busy, so `plugins autoupdate` defers `when = "idle"` updates.
///
/// Without --home or $PLUGINS_HOME, every host's own home that has installed plugins (a
/// plugins.lock) is marked: the homes `autoupdate` sweeps. With none, nothing is marked.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins activity touch                      # a turn just started or ended
  plugins activity hold -- aoe serve          # busy for as long as the command runs")]
pub struct ActivityArgs {
    #[command(subcommand)]
    pub action: Action,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home with installed plugins]
    #[arg(long, value_name = "DIR", global = true)]
    pub home: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Action {
    /// Touch `<home>/activity`: the host was just active
    Touch,
    /// Run a command while holding the activity lock (in flight), touching it before and after
    Hold {
        /// The command and its arguments
        #[arg(required = true, trailing_var_arg = true, value_name = "CMD")]
        command: Vec<String>,
    },
}

pub fn run(args: &ActivityArgs, cx: &Context, _printer: &Printer) -> Result<ExitStatus> {
    // The homes the idle policy is read in: those `autoupdate` sweeps.
    let homes: Vec<Home> = cx.homes(args.home.as_ref())?;
    match &args.action {
        Action::Touch => {
            for home in &homes {
                autoupdate::touch(home)
                    .map_err(|e| Error::io("cannot touch the activity marker", e))?;
            }
            Ok(ExitStatus::Success)
        }
        Action::Hold { command } => {
            let held = homes
                .iter()
                .map(autoupdate::hold)
                .collect::<std::io::Result<Vec<_>>>()
                .map_err(|e| Error::io("cannot lock the activity marker", e))?;
            let status = std::process::Command::new(&command[0])
                .args(&command[1..])
                .status()
                .map_err(|e| Error::io(format!("cannot run {}", command[0]), e))?;
            for home in &homes {
                let _ = autoupdate::touch(home);
            }
            drop(held);
            Ok(match status.code() {
                Some(0) => ExitStatus::Success,
                Some(n) => ExitStatus::Child(u8::try_from(n).unwrap_or(1)),
                None => ExitStatus::Child(1),
            })
        }
    }
}
