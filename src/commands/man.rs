//! `plugins man`: the manual pages, from the command-line definition itself.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::error::{Error, Result};
use crate::printer::Printer;

/// Write the manual pages into DIR: plugins.1 and one page per subcommand
/// (plugins-install.1, …), generated from the same definition as --help.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins man ~/.local/share/man/man1 && man plugins-install
  plugins man /tmp/pages && man -l /tmp/pages/plugins.1")]
pub struct ManArgs {
    /// The directory to write the pages into (created if missing)
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Each visible command of `cmd`, itself first, with the name its page takes.
fn pages(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    out.push(cmd.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages(sub, out);
    }
}

pub fn run(args: &ManArgs, cli: clap::Command, printer: &Printer) -> Result<ExitStatus> {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut all = Vec::new();
    pages(&cli, &mut all);
    fs_err::create_dir_all(&args.dir)
        .map_err(|e| Error::io(format!("cannot create {}", args.dir.display()), e))?;
    for cmd in all {
        let man = clap_mangen::Man::new(cmd);
        let path = args.dir.join(man.get_filename());
        let mut page = Vec::new();
        man.render(&mut page)
            .map_err(|e| Error::io("cannot render a manual page", e))?;
        fs_err::write(&path, page)
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
    }
    printer
        .outcome(&format!(
            "     Written the manual pages into {}\n",
            args.dir.display()
        ))
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
