//! `plugins install`: fetch, check, ask, build, swap, lock.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::install::{self, Event, InstallError, InstallOptions, Request};
use crate::printer::Printer;
use crate::render;
use crate::source;
use crate::validate::ValidateOptions;

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
    /// protoAgent: install `requires_pip` into a plugin-local .venv (never into the host's Python)
    #[arg(long)]
    pub deps: bool,
    /// Seconds each build step may take
    #[arg(long, value_name = "SECS", default_value_t = 600)]
    pub build_timeout: u64,
    /// Fail at once if another plugins process holds the home, instead of waiting
    #[arg(long)]
    pub no_wait: bool,
    /// aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14)
    #[arg(long, value_name = "API", default_value = "15", value_parser = super::validate::aoe_api_parser())]
    pub aoe_api: u32,
}

/// The consent prompt text: what the plugin asks for.
fn describe(r: &Request) -> String {
    let mut s = format!(
        "{} plugin `{}` {} from {}",
        r.dialect, r.id, r.version, r.source
    );
    if let Some(c) = &r.commit {
        s.push_str(&format!(" @ {}", &c[..c.len().min(12)]));
    }
    s.push('\n');
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    s.push_str(&format!("  capabilities: {}\n", list(&r.capabilities)));
    s.push_str(&format!("  build steps:  {}\n", list(&r.build_steps)));
    if !r.ui.is_empty() {
        s.push_str(&format!("  ui:           {}\n", r.ui.join(", ")));
    }
    if !r.pip.is_empty() || !r.optional_pip.is_empty() {
        let optional = if r.optional_pip.is_empty() {
            String::new()
        } else {
            format!(" (optional: {})", r.optional_pip.join(", "))
        };
        s.push_str(&format!("  pip:          {}{optional}\n", list(&r.pip)));
    }
    if r.runs_code {
        s.push_str("  runs code inside the host process\n");
    }
    s
}

pub(crate) fn now() -> String {
    // RFC 3339 in UTC without a date crate: seconds since the epoch, formatted by hand.
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}+00:00")
}

/// Map an install failure to the CLI's error (invalid plugins are rendered, exit 1).
pub(crate) fn fail(e: InstallError, printer: &Printer) -> Result<ExitStatus> {
    match e {
        InstallError::Invalid(report) => {
            let text = render::human::report(&report, printer.stdout_style());
            printer
                .out(&text)
                .map_err(|e| Error::io("cannot write output", e))?;
            Err(Error::Refused {
                code: Code::InstallInvalid,
                message: format!("refusing to install: {} is invalid or would be refused by its host", report.outcome.id.as_deref().unwrap_or("the plugin")),
                help: Some("the diagnostics above say why; `plugins validate` on a checkout shows the same".into()),
            })
        }
        InstallError::Refused {
            code,
            message,
            help,
        } => Err(Error::Refused {
            code,
            message,
            help,
        }),
        InstallError::Git(g) => {
            let code = match &g {
                crate::git::GitError::RefNotFound { .. } => Code::GitRefNotFound,
                crate::git::GitError::UnsafeEntry(_) => Code::InstallUnsafeTree,
                _ => Code::GitFetch,
            };
            let help = match &g {
                crate::git::GitError::RefNotFound { available, .. } if !available.is_empty() => {
                    Some(format!(
                        "available: {}",
                        available
                            .iter()
                            .take(12)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
                _ => None,
            };
            Err(Error::Refused {
                code,
                message: g.to_string(),
                help,
            })
        }
        InstallError::Build(b) => {
            let help = b.log_tail().map(|t| format!("last output:\n{t}"));
            Err(Error::Refused {
                code: Code::InstallBuild,
                message: b.to_string(),
                help,
            })
        }
        InstallError::Lock(l) | InstallError::Txn(crate::install::txn::TxnError::Lock(l)) => {
            Err(l.into())
        }
        InstallError::Txn(crate::install::txn::TxnError::Io { context, source }) => {
            Err(Error::io(context, source))
        }
        InstallError::Release(r) => Err(Error::Refused {
            code: match r {
                crate::release::ReleaseError::BadName { .. } => Code::InstallUnsafeName,
                _ => Code::InstallRelease,
            },
            message: r.to_string(),
            help: None,
        }),
        InstallError::Tree(t) => Err(Error::Refused {
            code: Code::InstallUnsafeTree,
            message: format!("refusing to install: {t}"),
            help: Some("remove or rename the entry in the plugin's source".into()),
        }),
        InstallError::Io { context, source } => Err(Error::io(context, source)),
    }
}

/// A spinner that clears itself when the command is done with it.
struct Spinner(indicatif::ProgressBar);

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

fn download_style() -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(
        "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec}",
    )
    .expect("a valid template")
    .progress_chars("=> ")
}

/// Progress on stderr: a spinner on a terminal, plain lines otherwise.
pub(crate) fn progress(printer: &Printer) -> impl FnMut(Event) + '_ {
    let tty = std::io::stderr().is_terminal();
    let spinner = tty.then(|| Spinner(indicatif::ProgressBar::new_spinner()));
    move |event| {
        let line = match event {
            Event::Fetching(src) => format!("    Fetching {src}"),
            Event::Fetched {
                commit: Some(c), ..
            } => format!("     Fetched {}", &c[..12]),
            Event::Fetched {
                commit: None,
                ignored: 0,
            } => "      Copied".to_owned(),
            Event::Fetched {
                commit: None,
                ignored,
            } => format!("      Copied (left out {ignored} git-ignored entries)"),
            Event::WaitingForLock(home) => format!(
                "     Waiting for another plugins process to release {}",
                home.display()
            ),
            Event::Recovered(r) => {
                let mut line = String::from("   Recovered");
                if !r.plugins.is_empty() {
                    line.push_str(&format!(
                        " the interrupted change to {}",
                        r.plugins.join(", ")
                    ));
                }
                if r.cleaned > 0 {
                    line.push_str(&format!(" (removed {} leftovers)", r.cleaned));
                }
                line
            }
            Event::Building { n, total, command } => {
                format!("    Building step {n}/{total}: {command}")
            }
            Event::Downloading { asset, done, total } => {
                if let (Some(Spinner(bar)), Some(t)) = (&spinner, total) {
                    // A byte progress bar while a release asset downloads.
                    if bar.length() != Some(t) {
                        bar.set_message(format!("Downloading {asset}"));
                        bar.set_length(t);
                        bar.set_style(download_style());
                    }
                    bar.set_position(done);
                    return;
                }
                // Without a terminal, one line when the download completes.
                if spinner.is_none() && total != Some(done) {
                    return;
                }
                format!(" Downloading {asset} {} KiB", done / 1024)
            }
        };
        match &spinner {
            Some(Spinner(bar)) => {
                if bar.length().is_some() {
                    bar.set_style(indicatif::ProgressStyle::default_spinner());
                    bar.unset_length();
                }
                bar.enable_steady_tick(Duration::from_millis(100));
                bar.set_message(line.trim_start().to_owned());
            }
            None if !printer.quiet => printer.status(&line),
            None => {}
        }
    }
}

pub fn run(args: &InstallArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let gh_base = cx
        .gh_base
        .clone()
        .unwrap_or_else(|| "https://github.com".into());
    let source = source::parse(&args.source, args.reference.as_deref(), &gh_base)
        .map_err(Error::InvalidArgument)?;
    let opts = InstallOptions {
        source,
        home: args
            .home
            .as_deref()
            .map(|h| cx.absolute(h))
            .or_else(|| cx.plugins_home.clone()),
        defaults: cx.default_homes(),
        validate: ValidateOptions {
            aoe: crate::manifest::aoe::Options {
                profile: crate::manifest::aoe::profile::Profile::from_api(args.aoe_api)
                    .unwrap_or_default(),
                ..Default::default()
            },
            ..ValidateOptions::default()
        },
        build: !args.no_build,
        force: args.force,
        deps: args.deps,
        expect_id: None,
        github_api: cx.github_api.clone(),
        build_timeout: Duration::from_secs(args.build_timeout),
        wait: !args.no_wait,
        by: "cli".into(),
        pin: None,
        now: now(),
    };
    let interactive = std::io::stdin().is_terminal();
    let mut no_terminal: Option<String> = None;
    let mut consent = |r: &Request| {
        printer.status(&describe(r));
        if args.yes {
            return true;
        }
        if !interactive {
            let suffix = if r.build_steps.is_empty() {
                ""
            } else {
                " and declares build steps"
            };
            no_terminal = Some(format!(
                "{} requests capabilities [{}]{suffix} but stdin is not a terminal; re-run with --yes to grant them",
                r.id,
                r.capabilities.join(", ")
            ));
            return false;
        }
        printer
            .prompt(&format!("Install {} and grant this? [y/N]", r.id))
            .is_ok_and(|a| matches!(a.to_lowercase().as_str(), "y" | "yes"))
    };
    let mut on_event = progress(printer);
    let result = install::install(&opts, &mut consent, &mut on_event);
    let installed = match result {
        Ok(i) => i,
        Err(InstallError::Refused {
            code: Code::InstallDeclined,
            ..
        }) if no_terminal.is_some() => {
            return Err(Error::Refused {
                code: Code::InstallDeclined,
                message: no_terminal.unwrap_or_default(),
                help: Some("pass --yes to grant what is listed above".into()),
            });
        }
        Err(e) => return fail(e, printer),
    };
    let at = installed
        .entry
        .commit
        .as_deref()
        .map(|c| format!(" @ {}", &c[..10]))
        .unwrap_or_default();
    let verb = if installed.up_to_date {
        "Up to date"
    } else {
        "Installed"
    };
    printer
        .out(&format!(
            "{verb:>12} {} {}{at} in {}\n",
            installed.id,
            installed.entry.version,
            render::display_path(&installed.dir)
        ))
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// The homes a command looks at: the one given, or every host's default home that has a lock.
pub(crate) fn homes(
    flag: Option<&PathBuf>,
    cx: &Context,
) -> Vec<(crate::store::Home, crate::manifest::Dialect)> {
    use crate::manifest::Dialect;
    use crate::store::Home;
    if let Some(root) = flag
        .map(|f| cx.absolute(f))
        .or_else(|| cx.plugins_home.clone())
    {
        let home = Home::new(root);
        let dialect = crate::lock::detect(&home.lockfile()).unwrap_or(Dialect::Aoe);
        return vec![(home, dialect)];
    }
    let defaults = cx.default_homes();
    Dialect::ALL
        .into_iter()
        .filter_map(|d| defaults.for_dialect(d).map(|h| (h.clone(), d)))
        .filter(|(h, _)| h.lockfile().exists())
        .collect()
}

/// `homes`, each with its lock loaded.
pub(crate) fn locked_homes(
    flag: Option<&PathBuf>,
    cx: &Context,
) -> Result<
    Vec<(
        crate::store::Home,
        crate::manifest::Dialect,
        crate::lock::Lock,
    )>,
> {
    homes(flag, cx)
        .into_iter()
        .map(|(home, dialect)| {
            let lock = crate::lock::Lock::load(&home.lockfile(), dialect)?;
            Ok((home, dialect, lock))
        })
        .collect()
}

/// The source a lock entry was installed from, as an installable source.
pub(crate) fn source_of(entry: &crate::lock::Entry, cx: &Context) -> Result<source::Source> {
    if entry.commit.is_none() {
        return Ok(source::Source::Local {
            path: PathBuf::from(&entry.source),
        });
    }
    if entry.source.starts_with("gh:") {
        let base = cx
            .gh_base
            .clone()
            .unwrap_or_else(|| "https://github.com".into());
        return source::parse(&entry.source, None, &base).map_err(Error::InvalidArgument);
    }
    Ok(source::Source::Git {
        url: entry.source.clone(),
        reference: None,
        display: entry.source.clone(),
    })
}
