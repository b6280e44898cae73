//! `plugins install`: fetch, check, ask, build, swap, lock.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{
    self,
    install::{InstallRequest, InstallStatus},
};
use crate::printer::Printer;
use crate::render;

/// Install a plugin from git (`gh:owner/repo[@ref]`, an https/ssh/file URL) or a local directory.
///
/// The ref (branch, tag, full or short commit) is resolved to a commit, fetched
/// (shallow where possible, never submodules), validated with the host's rules
/// and install-time refusals, shown for consent, built (aoe build steps), and
/// swapped into `<home>/plugins/<id>/`; the lock is written last. Any failure
/// leaves the previous install and the lock as they were.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins install gh:agent-of-empires/plugin-github@v1.6.1
  plugins install https://github.com/acme/kit.git --ref main --yes
  plugins install ./my-plugin --home /tmp/aoe-home
  plugins install gh:acme/monorepo/plugins/web@v2.0.0

Homes: --home, else $PLUGINS_HOME, else the host's own (`plugins homes` shows them; aoe:
~/.config/agent-of-empires, protoAgent: its instance as 0.218 resolves it, AWorld: ~/.aworld).
Exit codes: 0 installed (or already up to date), 1 the plugin is invalid, 2 refused or failed.")]
pub struct InstallArgs {
    /// gh:owner/repo[@ref], a git URL, or a local directory
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// Branch, tag, or full or short commit to install
    #[arg(long = "ref", value_name = "REF")]
    pub reference: Option<String>,
    /// The plugin's directory inside the git repository (a monorepo); also gh:owner/repo/PATH
    #[arg(long, value_name = "PATH")]
    pub subdir: Option<String>,
    /// The plugin home [default: $PLUGINS_HOME, else the host's own]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Grant what the plugin asks for without asking (required without a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Do not run build steps
    #[arg(long)]
    pub no_build: bool,
    /// Replace an install from another source, or reinstall the same commit
    #[arg(long)]
    pub force: bool,
    /// protoAgent: install `requires_pip` into <instance>/plugin-deps/<id>, as the host does
    /// (pip of --python); updates and syncs keep them matching the plugin
    #[arg(long)]
    pub deps: bool,
    /// protoAgent: the host's Python, whose pip installs plugins' `requires_pip` into
    /// plugin-deps (remembered) [default: the home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
    /// Seconds each build step may take
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub build_timeout: u64,
    /// Fail at once if another plugins process holds the home, instead of waiting
    #[arg(long)]
    pub no_wait: bool,
    /// Print one JSON document instead of the outcome line
    #[arg(long)]
    pub json: bool,
    /// Refuse what would only warn: validation warnings, and a cleartext (http://, git://)
    /// source
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub profile: super::args::ProfileArgs,
    #[command(flatten)]
    pub signing: super::args::SigningArgs,
    /// Do not run the installed host (`aoe --version`, the host's Python) to pick the
    /// profile when neither a flag nor the home names one: validate as the newest
    #[arg(long)]
    pub no_detect: bool,
}

pub fn run(args: &InstallArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let row = ops::install::install(
        InstallRequest {
            source: &args.source,
            reference: args.reference.as_deref(),
            subdir: args.subdir.as_deref(),
            home: args.home.as_deref(),
            yes: args.yes,
            build: !args.no_build,
            force: args.force,
            deps: args.deps,
            python: args.python.as_deref(),
            build_timeout: Duration::from_secs(args.build_timeout),
            wait: !args.no_wait,
            strict: args.strict,
            detect: !args.no_detect,
            profile: args.profile.profile(),
            signing: args.signing.sign_args(cx)?,
        },
        cx,
        printer,
    )?;
    let written = if args.json {
        printer.json(serde_json::json!({ "plugins": [row] }))
    } else {
        let verb = match row.status {
            InstallStatus::UpToDate => "Up to date",
            InstallStatus::Installed => "Installed",
        };
        let at = row
            .commit
            .as_deref()
            .map(|c| format!(" @ {}", &c[..10]))
            .unwrap_or_default();
        printer.outcome(&format!(
            "{verb:>12} {} {}{at} in {}\n",
            row.id,
            row.version,
            render::display_path(&row.dir)
        ))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
