//! `plugins autoupdate`: one sweep for cron, under each home's `plugins.toml` policy.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::autoupdate::{self, Activity};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::install::InstallOptions;
use crate::install::Request;
use crate::printer::Printer;
use crate::update::Status;

/// Apply the updates a home's policy allows: one sweep, quiet, for cron.
///
/// Opt-in: only plugins with `[update_policy.<id>] track = "…"` in `<home>/plugins.toml`
/// are updated. A sweep younger than `autoupdate_interval_hours` (default 6; 0
/// disables) is skipped unless --force. `when = "idle"` (the default) defers while
/// the host is busy: `<home>/activity` locked by a running turn, or touched within
/// --grace seconds (`plugins activity` produces both); `when = "always"` ignores it.
/// An update that needs consent is never applied: it is reported as "needs approval".
/// Each applied update appends a `plugin.updated` event to `<home>/events.jsonl`.
/// A newer version younger than the cooldown (--cooldown, else `cooldown` in
/// plugins.toml) is held back until it is old enough.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins autoupdate                          # from cron: 0 * * * * /usr/local/bin/plugins autoupdate -q
  plugins autoupdate --home ~/.protoagent --json --force
  plugins autoupdate --exit-code || [ $? -eq 3 ] && echo updated

Exit codes: 0 updated or nothing to do (3 with --exit-code when something was updated),
1 some update failed, 2 could not run.")]
pub struct AutoupdateArgs {
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Sweep even if the last sweep is younger than the interval
    #[arg(long)]
    pub force: bool,
    /// Seconds after the last activity during which the host counts as busy
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub grace: u64,
    #[command(flatten)]
    pub check: CheckArgs,
    /// Print one JSON document instead of the summary line
    #[arg(long)]
    pub json: bool,
    /// Exit 3 (instead of 0) when at least one plugin was updated
    #[arg(long)]
    pub exit_code: bool,
}

#[derive(Default, serde::Serialize)]
struct Sweep {
    updated: Vec<String>,
    up_to_date: Vec<String>,
    deferred: Vec<String>,
    needs_approval: Vec<String>,
    held_back: Vec<HeldBack>,
    failed: Vec<Failed>,
    skipped_homes: Vec<Skipped>,
}

#[derive(serde::Serialize)]
struct Failed {
    id: String,
    message: String,
}

/// A newer version younger than the cooldown, not taken this sweep.
#[derive(serde::Serialize)]
struct HeldBack {
    id: String,
    new_ref: String,
    commit: String,
    released_at: String,
    age_from: &'static str,
    left_secs: u64,
    cooldown_secs: u64,
}

#[derive(serde::Serialize)]
struct Skipped {
    home: PathBuf,
    /// `interval` or `disabled`.
    reason: &'static str,
    /// Seconds since the last sweep (`interval` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    last_sweep_secs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_hours: Option<u64>,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: skipped ({})", self.home.display(), self.reason)?;
        if let (Some(age), Some(h)) = (self.last_sweep_secs, self.interval_hours) {
            write!(f, ": last sweep {age} s ago, interval {h} h")?;
        }
        Ok(())
    }
}

pub fn run(args: &AutoupdateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut sweep = Sweep::default();
    let grace = Duration::from_secs(args.grace);
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        let file = autoupdate::load_policy(&home).map_err(Error::InvalidArgument)?;
        printer.file_diagnostics(&file.warnings, &file.path, &file.text);
        let policy = file.policy;
        if policy.interval_hours == 0 || policy.rules.is_empty() {
            sweep.skipped_homes.push(Skipped {
                home: home.root.clone(),
                reason: "disabled",
                last_sweep_secs: None,
                interval_hours: None,
            });
            continue;
        }
        if let Some(age) = autoupdate::since_last_sweep(&home)
            && age < policy.interval_hours * 3600
            && !args.force
        {
            sweep.skipped_homes.push(Skipped {
                home: home.root.clone(),
                reason: "interval",
                last_sweep_secs: Some(age),
                interval_hours: Some(policy.interval_hours),
            });
            continue;
        }
        let busy = autoupdate::activity(&home, grace) != Activity::Idle;
        let armed: Vec<_> = policy
            .rules
            .iter()
            .filter(|r| lock.get(&r.id).is_some())
            .collect();
        let entries: Vec<_> = armed
            .iter()
            .filter(|r| r.always || !busy)
            .filter_map(|r| lock.get(&r.id))
            .collect();
        sweep.deferred.extend(
            armed
                .iter()
                .filter(|r| !r.always && busy)
                .map(|r| r.id.clone()),
        );
        let gh_base = cx.gh_base();
        let url_of = |e: &crate::lock::Entry| match crate::source::Source::of_entry(e, &gh_base) {
            Ok(crate::source::Source::Git { url, .. }) => Some(url),
            _ => None,
        };
        let mut checks: Vec<_> = crate::update::check_all(
            &entries,
            args.check.jobs,
            args.check.timeout(),
            args.check.pre,
            &url_of,
        )
        .into_iter()
        .map(|c| (home.clone(), dialect, c))
        .collect();
        // aoe: `gh:owner/repo` without a ref follows the latest release (refused without one).
        crate::update::follow_latest_releases(
            &mut checks,
            &gh_base,
            &cx.github_api,
            args.check.jobs,
            args.check.timeout(),
        );
        let cooldown = args.check.cooldown.unwrap_or(policy.cooldown_secs);
        crate::update::hold_back(
            &mut checks,
            &|_| cooldown,
            args.check.jobs,
            args.check.timeout(),
            &cx.github_api,
            true,
        );
        // The newer versions are fetched and checked ahead, at most 8 at a time (as `update`
        // and `sync`), while the installs lock the home and swap one at a time, in order.
        let mut ahead = Vec::new();
        let mut unusable = std::collections::HashMap::new();
        for (i, (_, _, c)) in checks.iter().enumerate() {
            let Status::Behind { new_ref, .. } = &c.status else {
                continue;
            };
            let entry = lock.get(&c.id).expect("checked entries are locked");
            match crate::source::Source::of_entry(&entry, &gh_base) {
                Ok(source) => {
                    let base = InstallOptions {
                        featured_index: cx.featured_index.clone(),
                        ..InstallOptions::new(
                            source,
                            None,
                            cx.default_homes(),
                            &cx.github_api,
                            "autoupdate",
                        )
                    };
                    ahead.push((i, crate::update::options(&home, &entry, new_ref, base)));
                }
                Err(e) => {
                    unusable.insert(i, e);
                }
            }
        }
        let url = |(_, opts): &(usize, InstallOptions)| match &opts.source {
            crate::source::Source::Git { url, .. } => Some(url.clone()),
            crate::source::Source::Local { .. } => None,
        };
        let mut prepared =
            crate::update::ordered_per_host(ahead, url, args.check.jobs.min(8), |(i, opts)| {
                let p = crate::install::prepare(&opts);
                (i, opts, p)
            });
        for (i, (_, _, c)) in checks.into_iter().enumerate() {
            match c.status {
                Status::HeldBack {
                    new_ref,
                    commit,
                    released_at,
                    age_from,
                    left_secs,
                    cooldown_secs,
                } => sweep.held_back.push(HeldBack {
                    id: c.id,
                    new_ref,
                    commit,
                    released_at,
                    age_from,
                    left_secs,
                    cooldown_secs,
                }),
                Status::Behind { .. } => {
                    if let Some(message) = unusable.remove(&i) {
                        sweep.failed.push(Failed { id: c.id, message });
                        continue;
                    }
                    let Some((_, opts, ready)) = prepared.next() else {
                        continue;
                    };
                    let mut held = false;
                    let mut consent = |_: &Request| {
                        held = true;
                        false
                    };
                    let mut on_event = crate::reporter::progress(printer);
                    match crate::install::install_prepared(
                        &opts,
                        ready,
                        &mut consent,
                        &mut on_event,
                    ) {
                        Ok(i) => {
                            let event = serde_json::json!({
                                "event": "plugin.updated", "id": i.id, "version": i.entry.version,
                                "resolved_sha": i.entry.commit, "by": "autoupdate", "at": crate::clock::now(),
                            });
                            autoupdate::append_event(&home, &event)
                                .map_err(|e| Error::io("cannot append to events.jsonl", e))?;
                            sweep.updated.push(c.id);
                        }
                        Err(_) if held => sweep.needs_approval.push(c.id),
                        Err(e) => sweep.failed.push(Failed {
                            id: c.id,
                            message: e.to_string(),
                        }),
                    }
                }
                Status::Error { message } => sweep.failed.push(Failed { id: c.id, message }),
                _ => sweep.up_to_date.push(c.id),
            }
        }
        autoupdate::record_sweep(&home)?;
    }
    let text = if args.json {
        printer
            .json(serde_json::to_value(&sweep).expect("serializes"))
            .map_err(|e| Error::io("cannot write output", e))?;
        String::new()
    } else {
        // -q: only failures and pending approvals.
        let mut s = if printer.quiet {
            String::new()
        } else {
            format!(
                "autoupdate: {} updated, {} up to date, {} deferred (busy), {} need approval, {} failed",
                sweep.updated.len(),
                sweep.up_to_date.len(),
                sweep.deferred.len(),
                sweep.needs_approval.len(),
                sweep.failed.len()
            ) + "\n"
        };
        if !printer.quiet {
            for h in &sweep.held_back {
                s.push_str(&format!(
                    "  held back {}: {} left (cooldown {})\n",
                    h.id,
                    crate::review::format_left(h.left_secs),
                    crate::review::format_duration(h.cooldown_secs)
                ));
            }
            for home in &sweep.skipped_homes {
                s.push_str(&format!("  {home}\n"));
            }
        }
        for Failed { id, message } in &sweep.failed {
            s.push_str(&format!("  failed {id}: {message}\n"));
        }
        for id in &sweep.needs_approval {
            s.push_str(&format!(
                "  update for {id} needs approval: run `plugins update {id}`\n"
            ));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(if !sweep.failed.is_empty() {
        ExitStatus::Failure
    } else if args.exit_code && !sweep.updated.is_empty() {
        ExitStatus::Updated
    } else {
        ExitStatus::Success
    })
}
