//! `plugins autoupdate`: one sweep for cron, under each home's `plugins.toml` policy.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ops::{
    self,
    autoupdate::{Failed, Sweep, SweepOptions},
};
use crate::printer::{Line, Printer};

/// Apply the updates each home's policy (<home>/plugins.toml) allows: one sweep, for cron.
///
/// Opt-in: only plugins with `[update_policy."<id>"] track = "…"` in `<home>/plugins.toml`
/// are updated; a home without one is skipped (disabled). A sweep younger than
/// `autoupdate_interval_hours` (default 6; 0 disables) is skipped unless --force. `when =
/// "idle"` (the default) defers while the host is busy: `<home>/activity` locked by a
/// running turn, or touched within --grace seconds (`plugins activity` produces both);
/// `when = "always"` ignores it. An update that needs consent is never applied: it is
/// reported as "needs approval". A newer version younger than the cooldown (--cooldown,
/// else `cooldown` in plugins.toml) is held back until it is old enough. Each applied
/// update prints one line (from what to what, and why; also under -q) and appends a
/// `plugin.updated` event to `<home>/events.jsonl`. Lines carry timestamps when stderr is
/// not a terminal. A held plugin (`plugins hold`, or the version `plugins rollback`
/// restored) is skipped, even with --force.
#[derive(Debug, Args)]
#[command(after_help = "\
The policy, <home>/plugins.toml:
  autoupdate_interval_hours = 6
  cooldown = \"3d\"
  [update_policy.\"dev.example.kanban\"]
  track = \"main\"      # opts the plugin in
  when = \"idle\"       # or \"always\"

Examples:
  plugins autoupdate --home ~/.protoagent --json --force
  plugins autoupdate --exit-code || [ $? -eq 3 ] && echo updated
  plugins doctor                              # prints the crontab line for each home

Exit codes: 0 updated or nothing to do (3 with --exit-code when something was updated),
1 some update failed or needs approval (`plugins update ID` applies it), 2 could not run.")]
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
    /// Print one JSON document instead of the text report
    #[arg(long)]
    pub json: bool,
    /// Exit 3 (instead of 0) when at least one plugin was updated
    #[arg(long)]
    pub exit_code: bool,
}

pub fn run(args: &AutoupdateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    // A log for cron: timestamped lines unless stderr is a terminal.
    let printer = &printer.logging();
    let sweep = ops::autoupdate::sweep(
        &SweepOptions {
            home: args.home.as_ref(),
            force: args.force,
            grace: Duration::from_secs(args.grace),
            check: args.check.options(),
        },
        cx,
        printer,
    )?;
    let written = if args.json {
        printer.json(serde_json::to_value(&sweep).expect("serializes"))
    } else {
        printer.report(&report(&sweep))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    // Something a person has to look at (an update failed, or needs consent that a sweep
    // never gives) fails the run, so that cron mails it and systemd marks the unit failed.
    Ok(
        if !sweep.failed.is_empty() || !sweep.needs_approval.is_empty() {
            ExitStatus::Failure
        } else if args.exit_code && !sweep.updated.is_empty() {
            ExitStatus::Updated
        } else {
            ExitStatus::Success
        },
    )
}

/// The text report: one line per update (from what to what, and why), then the counts,
/// what was held back and which homes were skipped (left out under `-q`), then what failed
/// and what needs approval. Under `-q` a sweep that changed nothing and where nothing
/// failed prints nothing.
fn report(sweep: &Sweep) -> Vec<Line> {
    let mut lines = Vec::new();
    for c in &sweep.changes {
        let at = |v: &ops::autoupdate::Version| match &v.commit {
            Some(commit) => crate::reporter::version_at(&v.version, &v.ref_, commit),
            None => v.version.clone(),
        };
        lines.push(Line::Data(format!(
            "     Updated {} {} -> {} in {}: {}\n",
            c.id,
            at(&c.from),
            at(&c.to),
            c.home.display(),
            c.why
        )));
    }
    lines.push(Line::Outcome(format!(
        "autoupdate: {} updated, {} up to date, {} deferred (busy), {} need approval, {} failed\n",
        sweep.updated.len(),
        sweep.up_to_date.len(),
        sweep.deferred.len(),
        sweep.needs_approval.len(),
        sweep.failed.len()
    )));
    for h in &sweep.held_back {
        lines.push(Line::Outcome(format!(
            "  held back {}: {} left (cooldown {})\n",
            h.id,
            crate::review::format_left(h.left_secs),
            crate::review::format_duration(h.cooldown_secs)
        )));
    }
    for h in &sweep.held {
        lines.push(Line::Outcome(format!(
            "  held {}: {} (`plugins update {}` or `plugins unhold {}` lifts it)\n",
            h.id,
            h.hold.describe(),
            h.id,
            h.id
        )));
    }
    for home in &sweep.skipped_homes {
        lines.push(Line::Outcome(format!("  {home}\n")));
    }
    // Not a failure, but a person's to clean up: said even under -q.
    for s in &sweep.superseded {
        lines.push(Line::Data(format!(
            "  superseded {id}: protoAgent runs its bundled {} v{} and ignores this copy, so the sweep skips it (`plugins remove {id}` cleans it up; then drop its update_policy from plugins.toml)\n",
            s.by,
            s.bundled_version,
            id = s.id
        )));
    }
    for Failed { id, message } in &sweep.failed {
        lines.push(Line::Problem(format!("  failed {id}: {message}\n")));
    }
    for id in &sweep.needs_approval {
        let why = sweep
            .approval_reasons
            .get(id)
            .filter(|w| !w.is_empty())
            .map_or(String::new(), |w| format!(" ({})", w.join("; ")));
        lines.push(Line::Problem(format!(
            "  update for {id} needs approval{why}: run `plugins update {id}`\n"
        )));
    }
    lines
}
