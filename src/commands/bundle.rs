//! `plugins bundle`: one archive with everything a home's lock pins, for `plugins sync
//! --frozen --from` on machines without network.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::bundle::{BundleOptions, bundle};
use crate::printer::Printer;

/// Write one archive (tar) with every locked plugin of a home: its tree at the locked
/// commit (checked against the lock's tree hash), its locked wheels (downloaded as pinned,
/// sha256 checked), the lock, and a manifest of every file's sha256. `plugins sync --frozen
/// --from FILE` installs it into a home with the same lock, with no network.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins bundle --home ./fleet-home -o plugins-bundle.tar\n  plugins sync --frozen --from plugins-bundle.tar --home /srv/agent --yes\n\nRelease-binary workers (aoe) are not bundled: such a lock is refused."
)]
pub struct BundleArgs {
    /// The plugin home whose lock to bundle [default: $PLUGINS_HOME, else the one host's
    /// own home with a lock]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The archive to write: a new file, written atomically beside it (never inside the home)
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Replace FILE if it is a regular file (a FIFO, device, directory or link never is)
    #[arg(long)]
    pub force: bool,
    /// protoAgent: the host's Python, whose pip downloads the locked wheels [default: the
    /// home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// Print one JSON document instead of the outcome line
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &BundleArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let report = bundle(
        &BundleOptions {
            home: args.home.as_ref(),
            output: &args.output,
            force: args.force,
            python: args.python.as_deref(),
        },
        cx,
        printer,
    )?;
    let written = if args.json {
        printer.json(serde_json::json!({ "bundle": report }))
    } else {
        printer.outcome(&format!(
            "     Bundled {} plugins ({} bytes) into {}\n",
            report.plugins.len(),
            report.bytes,
            report.output.display()
        ))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
