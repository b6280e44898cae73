//! `plugins doctor`: what an operator needs when something is off, in one report.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::doctor::{self, HomeToCheck, Mark};
use crate::error::{Error, Result};
use crate::printer::{Line, Printer};

/// Check the homes, locks, leftovers, hosts, sources, credentials and proxies.
///
/// For each home: whether it exists, whether its lock loads, whether every locked
/// plugin's directory is there with its manifest unchanged, what interrupted commands
/// left (intent records, staging directories: the next command that changes the home
/// recovers them), the idle signal's age and the crontab line for `autoupdate`. Then the
/// hosts' versions (`aoe --version`, the protoAgent and AWorld packages of `python3`),
/// whether each locked source answers a ref listing, with the proxy and the credential
/// sources it uses (names only, never a secret), and the GitHub API rate limit when a
/// source is on GitHub; and for each tag a home synced a bundle from (`sync --from
/// oci://…`), whether the registry still has the pinned digest and the tag still names it.
/// Read only: nothing is changed.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins doctor
  plugins doctor --home ~/.protoagent --json
  plugins -v doctor --offline

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 could not run.")]
pub struct DoctorArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(flatten)]
    pub check: CheckArgs,
    /// Skip the remotes and the GitHub API: local checks only
    #[arg(long)]
    pub offline: bool,
    /// Seconds after the last activity during which the host counts as busy
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub grace: u64,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &DoctorArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let given = args.home.is_some() || cx.plugins_home.is_some();
    let homes: Vec<HomeToCheck> = if given {
        cx.homes(args.home.as_ref())?
            .into_iter()
            .map(|home| HomeToCheck {
                home,
                given: true,
                notes: Vec::new(),
            })
            .collect()
    } else {
        let defaults = cx.default_homes();
        (defaults.0.into_iter())
            .map(|home| {
                let notes = crate::host::home_warnings(home.dialect, &cx.host)
                    .into_iter()
                    .map(|w| {
                        doctor::Check::new("home", Mark::Warn, w.message)
                            .code(w.code)
                            .help(w.help)
                    })
                    .collect();
                HomeToCheck {
                    home,
                    given: false,
                    notes,
                }
            })
            .collect()
    };
    let opts = doctor::Options {
        homes: homes.clone(),
        network: !args.offline,
        jobs: args.check.jobs,
        timeout: args.check.timeout(),
        pre: args.check.pre,
        gh_base: cx.gh_base(),
        github_api: cx.github_api.clone(),
        grace: Duration::from_secs(args.grace),
        binary: std::env::current_exe().ok(),
        user_home: cx.home.clone(),
        registry: cx.registry.clone(),
    };
    let report = doctor::examine(&opts);
    let written = if args.json {
        printer.json(DoctorDoc {
            ok: !report.failed(),
            summary: Summary {
                ok: report.count(Mark::Ok),
                warn: report.count(Mark::Warn),
                fail: report.count(Mark::Fail),
                info: report.count(Mark::Info),
            },
            checks: &report.checks,
        })
    } else {
        printer.report(&text(&report, &homes))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(if report.failed() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// The report under one heading per home, then `hosts`, `sources` and `github`; with
/// `-q` (the printer leaves out outcomes) only the warnings and failures, without headings
/// or summary.
fn text(report: &doctor::Report, homes: &[HomeToCheck]) -> Vec<Line> {
    let heading = |c: &doctor::Check| match c.area {
        "host" => "hosts".to_owned(),
        "source" => "sources".to_owned(),
        "github" => "github".to_owned(),
        "registry" => "registries".to_owned(),
        _ => {
            let home = c.home.clone().unwrap_or_default();
            let dialect = homes
                .iter()
                .find(|h| h.home.root == home)
                .map_or(String::new(), |h| format!("{} ", h.home.dialect));
            format!("{dialect}home {}", home.display())
        }
    };
    let mut out = Vec::new();
    let mut last = None;
    for c in &report.checks {
        let h = heading(c);
        if last.as_ref() != Some(&h) {
            out.push(Line::Outcome(format!("{h}\n")));
            last = Some(h);
        }
        let code = c.code.map_or(String::new(), |code| format!(" [{code}]"));
        let mut text = format!("  {:<5} {}{code}\n", c.status.as_str(), c.message);
        if let Some(help) = &c.help {
            text.push_str(&format!("        help: {help}\n"));
        }
        out.push(if c.status < Mark::Warn {
            Line::Outcome(text)
        } else {
            Line::Problem(text)
        });
    }
    out.push(Line::Outcome(format!(
        "doctor: {} ok, {} warn, {} fail\n",
        report.count(Mark::Ok),
        report.count(Mark::Warn),
        report.count(Mark::Fail)
    )));
    out
}

/// `plugins doctor --json` (docs/schema/output/doctor.json).
#[derive(serde::Serialize)]
struct DoctorDoc<'a> {
    ok: bool,
    summary: Summary,
    checks: &'a [doctor::Check],
}

/// How many checks ended in each mark.
#[derive(serde::Serialize)]
struct Summary {
    ok: usize,
    warn: usize,
    fail: usize,
    info: usize,
}
