//! `plugins completions`: shell completion scripts.

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::ExitStatus;
use crate::error::{Error, Result};
use crate::printer::Printer;

/// Print a completion script for a shell.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins completions bash > ~/.local/share/bash-completion/completions/plugins
  plugins completions zsh > ~/.zfunc/_plugins
  plugins completions fish > ~/.config/fish/completions/plugins.fish")]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let mut cmd = crate::cli::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "plugins", &mut buf);
    String::from_utf8(buf).expect("completion scripts are UTF-8")
}

pub fn run(args: &CompletionsArgs, printer: &Printer) -> Result<ExitStatus> {
    printer
        .out(&script(args.shell))
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
