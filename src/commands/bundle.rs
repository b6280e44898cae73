//! `plugins bundle`: one archive with everything a home's lock pins, for `plugins sync
//! --frozen --from` on machines without network.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::bundle::{BundleOptions, BundleTarget, bundle};
use crate::printer::Printer;

/// Write one archive (tar) with every locked plugin of a home: its tree at the locked
/// commit (checked against the lock's tree hash), its locked wheels (downloaded as pinned,
/// sha256 checked), the lock, and a manifest of every file's sha256. `plugins sync --frozen
/// --from FILE` installs it into a home with the same lock, with no network.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins bundle --home ./fleet-home -o plugins-bundle.tar\n  plugins sync --frozen --from plugins-bundle.tar --home /srv/agent --yes\n  plugins bundle --home ./fleet-home --push oci://registry.example/fleet/plugins:v1\n  plugins sync --frozen --from oci://registry.example/fleet/plugins@sha256:… --yes\n\nRegistry credentials are read as docker reads them (~/.docker/config.json, REGISTRY_AUTH_FILE)\nor from PLUGINS_REGISTRY_TOKEN (with PLUGINS_REGISTRY_USERNAME); they are never printed.\n\nRelease-binary workers (aoe) are not bundled: such a lock is refused."
)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["output", "push"])))]
pub struct BundleArgs {
    /// The plugin home whose lock to bundle [default: $PLUGINS_HOME, else the one host's
    /// own home with a lock]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The archive to write: a new file, written atomically beside it (never inside the home)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Push the bundle to an OCI registry instead, as an artifact whose unchanged plugins
    /// are not uploaded again; prints the digest to sync from
    #[arg(long, value_name = "oci://REGISTRY/NAME[:TAG]")]
    pub push: Option<String>,
    /// Talk to the registry over plain HTTP (never without this flag)
    #[arg(long, requires = "push")]
    pub plain_http: bool,
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
    let to = match (&args.output, &args.push) {
        (Some(output), _) => BundleTarget::File(output),
        (None, Some(reference)) => BundleTarget::Registry(
            crate::oci::OciRef::parse(reference)?,
            crate::oci::Transport {
                plain_http: args.plain_http,
                env: cx.registry.clone(),
            },
        ),
        (None, None) => unreachable!("clap requires -o or --push"),
    };
    let report = bundle(
        &BundleOptions {
            home: args.home.as_ref(),
            to,
            force: args.force,
            python: args.python.as_deref(),
        },
        cx,
        printer,
    )?;
    let written = if args.json {
        printer.json(serde_json::json!({ "bundle": report }))
    } else {
        match (&report.output, &report.pushed) {
            (_, Some(p)) => printer.outcome(&format!(
                "      Pushed {} plugins to {} ({} of {} blobs uploaded, {} bytes)\n",
                report.plugins.len(),
                p.reference,
                p.uploaded,
                p.uploaded + p.reused,
                p.uploaded_bytes
            )),
            (output, None) => printer.outcome(&format!(
                "     Bundled {} ({} bytes) into {}\n",
                crate::render::plural(report.plugins.len(), "plugin"),
                report.bytes,
                output
                    .as_deref()
                    .unwrap_or_else(|| std::path::Path::new("-"))
                    .display()
            )),
        }
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
