//! `plugins sync`: install exactly what the lock says, at the locked commits.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{
    self,
    sync::{SyncDetail, SyncOptions, SyncRow, SyncStatus},
};
use crate::printer::{Line, Printer};

/// Install every locked plugin that is missing, at its locked commit (like `npm ci`).
///
/// The lock keeps each entry's requested ref and its kind: a branch or tag pin is
/// never rewritten into a commit pin. A source whose files no longer hash to the
/// locked tree is refused. Present plugins are verified as `plugins verify` does: one
/// whose files changed since install is reported (exit 1) and, with `--repair`,
/// reinstalled from its locked source. `--force` reinstalls every present plugin.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins sync --home ./ci-home --yes\n  plugins sync --repair --yes        reinstall what `plugins verify` reports changed\n\nExit codes: 0 everything locked is installed, 1 a present plugin changed since install (without --repair) or a locked row names no source to install it from, 2 something could not be installed."
)]
pub struct SyncArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Grant what each plugin asks for without asking (required without a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Reinstall plugins that are present too
    #[arg(long)]
    pub force: bool,
    /// Reinstall present plugins whose files changed since install (as `plugins verify`
    /// reports them) from their locked source
    #[arg(long)]
    pub repair: bool,
    /// Do not run build steps
    #[arg(long)]
    pub no_build: bool,
    /// protoAgent: the host's Python, whose pip installs plugins' `requires_pip` into
    /// plugin-deps [default: the home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// How many sources to fetch at once (installs still happen one at a time, in lock order)
    #[arg(short, long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// Print one JSON document instead of the outcome lines
    #[arg(long)]
    pub json: bool,
    /// Install exactly the lock, or change nothing: every plugin at its locked commit with
    /// its locked tree hash, release asset sha256 and wheels, all fetched and checked
    /// before any is put in place (a plugin whose files changed is reinstalled as locked);
    /// anything that would change the lock is an error
    #[arg(long)]
    pub frozen: bool,
    /// With --frozen: install from this archive (`plugins bundle -o`), or from this
    /// artifact in an OCI registry (`plugins bundle --push`), instead of the network: every
    /// tree and wheel comes from it, checked against the lock
    #[arg(
        long,
        value_name = "FILE|oci://REGISTRY/NAME[:TAG][@DIGEST]",
        requires = "frozen"
    )]
    pub from: Option<PathBuf>,
    /// With --from oci://…: talk to the registry over plain HTTP (never without this flag)
    #[arg(long, requires = "from")]
    pub plain_http: bool,
    #[command(flatten)]
    pub profile: super::args::ProfileArgs,
    #[command(flatten)]
    pub signing: super::args::SigningArgs,
}

pub fn run(args: &SyncArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let from = match &args.from {
        None => None,
        Some(p) => Some(match p.to_str().filter(|s| s.starts_with("oci://")) {
            Some(reference) => ops::bundle::BundleSource::Registry(
                crate::oci::OciRef::parse(reference)?,
                crate::oci::Transport {
                    plain_http: args.plain_http,
                    env: cx.registry.clone(),
                },
            ),
            None => ops::bundle::BundleSource::File(cx.absolute(p)),
        }),
    };
    let report = ops::sync::sync(
        &SyncOptions {
            home: args.home.as_ref(),
            yes: args.yes,
            force: args.force,
            repair: args.repair,
            no_build: args.no_build,
            python: args.python.as_deref(),
            jobs: args.jobs,
            profile: args.profile.profile(),
            signing: args.signing.sign_args(cx)?,
            frozen: args.frozen,
            from,
        },
        cx,
        printer,
    )?;
    let rows = &report.plugins;
    let failed = rows
        .iter()
        .any(|r| matches!(r.status, SyncStatus::Tampered | SyncStatus::NoSource));
    let written = if args.json {
        printer.json(
            serde_json::to_value(&report)
                .map_err(|e| Error::io("cannot write output", std::io::Error::other(e)))?,
        )
    } else {
        printer.report(&self::report(rows))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(if failed {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// The text report: a line per plugin installed or repaired, or that all is in place.
fn report(rows: &[SyncRow]) -> Vec<Line> {
    let mut lines: Vec<Line> = rows
        .iter()
        .filter_map(|r| {
            let verb = match r.status {
                SyncStatus::Synced => "Synced",
                SyncStatus::Repaired => "Repaired",
                SyncStatus::Superseded => {
                    let SyncDetail::Message { message } = &r.detail else {
                        return None;
                    };
                    return Some(Line::Outcome(format!("  Superseded {}: {message}\n", r.id)));
                }
                SyncStatus::Tampered
                | SyncStatus::Skipped
                | SyncStatus::Unlocked
                | SyncStatus::NoSource => return None,
            };
            let SyncDetail::Installed { version, .. } = &r.detail else {
                return None;
            };
            Some(Line::Outcome(format!("{verb:>12} {} {version}\n", r.id)))
        })
        .collect();
    let failed = rows
        .iter()
        .any(|r| matches!(r.status, SyncStatus::Tampered | SyncStatus::NoSource));
    if lines.is_empty() && !failed {
        lines.push(Line::Outcome("everything locked is installed\n".to_owned()));
    }
    lines
}
