//! `plugins install`: fetch, check, ask, build, swap, lock.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::host::ValidateOptions;
use crate::install::{self, InstallError, InstallOptions, Request};
use crate::printer::Printer;
use crate::render;
use crate::source;

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
    let gh_base = cx
        .gh_base
        .clone()
        .unwrap_or_else(|| "https://github.com".into());
    let mut source = source::parse(&args.source, args.reference.as_deref(), &gh_base)
        .map_err(Error::InvalidArgument)?;
    if let Some(subdir) = &args.subdir {
        source = source.with_subdir(subdir).map_err(Error::InvalidArgument)?;
    }
    if args.strict
        && let source::Source::Git { url, .. } = &source
        && crate::auth::is_cleartext(url)
    {
        return Err(Error::Refused {
            code: Code::GitCleartext,
            message: format!("{url} would be fetched unencrypted, which --strict refuses"),
            help: Some("use the https:// (or ssh://) URL of the repository".into()),
        });
    }
    let opts = InstallOptions {
        source,
        home: args
            .home
            .as_deref()
            .map(|h| cx.absolute(h))
            .or_else(|| cx.plugins_home.clone()),
        defaults: cx.default_homes(),
        validate: ValidateOptions {
            strict: args.strict,
            ..ValidateOptions::default()
        },
        profile: args.profile.profile(),
        build: !args.no_build,
        force: args.force,
        deps: args.deps,
        detect: !args.no_detect,
        python: args.python.as_deref().map(|p| cx.python_arg(p)),
        expect_id: None,
        github_api: cx.github_api.clone(),
        build_timeout: Duration::from_secs(args.build_timeout),
        wait: !args.no_wait,
        by: "cli".into(),
        pin: None,
        frozen: false,
        tree_from: None,
        wheels_from: None,
        now: crate::clock::now(),
        featured_index: cx.featured_index.clone(),
        signing: args.signing.sign_args(cx)?,
    };
    let interactive = std::io::stdin().is_terminal();
    let mut no_terminal: Option<Error> = None;
    // The spinner is off the screen while the consent text and prompt are.
    let (mut on_event, pause) = crate::reporter::progress_pausable(printer);
    let mut consent = |r: &Request| {
        pause.during(|| {
            printer.status(&crate::reporter::consent_text(r));
            if args.yes {
                return true;
            }
            if !interactive && r.signer_change.is_some() {
                // The pipeline refuses it as `plugins::git::signer_changed`.
                return false;
            }
            if !interactive && r.unverified {
                // aoe's own words (§17).
                no_terminal = Some(Error::Refused {
                    code: Code::InstallDeclined,
                    message: "this is unverified, un-audited code; re-run with --yes to install it"
                        .into(),
                    help: Some("pass --yes to grant what is listed above".into()),
                });
                return false;
            }
            if !interactive {
                no_terminal = Some(crate::reporter::consent_refused(
                    "install",
                    "stdin is not a terminal",
                    r,
                    None,
                ));
                return false;
            }
            printer
                .prompt(&format!("Install {} and grant this? [y/N]", r.id))
                .is_ok_and(|a| matches!(a.to_lowercase().as_str(), "y" | "yes"))
        })
    };
    let result = install::install(&opts, &mut consent, &mut on_event);
    drop(on_event);
    let installed = match result {
        Ok(i) => i,
        Err(InstallError::Refused {
            code: Code::InstallDeclined,
            ..
        }) if no_terminal.is_some() => {
            return Err(no_terminal.expect("checked"));
        }
        Err(e) => return Err(e.into()),
    };
    let at = installed
        .entry
        .commit
        .as_deref()
        .map(|c| format!(" @ {}", &c[..10]))
        .unwrap_or_default();
    if args.json {
        let row = serde_json::json!({
            "id": installed.id,
            "status": if installed.up_to_date { "up_to_date" } else { "installed" },
            "version": installed.entry.version,
            "commit": installed.entry.commit,
            "dir": installed.dir,
            "home": installed.home.root,
        });
        printer
            .json(serde_json::json!({ "plugins": [row] }))
            .map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    let verb = if installed.up_to_date {
        "Up to date"
    } else {
        "Installed"
    };
    printer
        .outcome(&format!(
            "{verb:>12} {} {}{at} in {}\n",
            installed.id,
            installed.entry.version,
            render::display_path(&installed.dir)
        ))
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
