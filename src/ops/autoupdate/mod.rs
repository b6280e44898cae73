//! `plugins autoupdate`: one sweep for cron, under each home's `plugins.toml` policy.

use std::path::PathBuf;
use std::time::Duration;

use super::apply::{Applier, Caller, Consent, MAX_FETCHES, Ready, Step, Stop, Tell};
use super::apply::{failed, prepared_in_order};
use super::check::CheckOptions;
use crate::autoupdate::{self, Activity};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::install::InstallOptions;
use crate::printer::Printer;
use crate::update::Status;
use crate::update::check::{Cooldown, Holds, Plan};

mod report;

pub use report::{Change, Failed, Held, HeldBack, Skipped, Superseded, Sweep, Version};

/// How to sweep (`plugins autoupdate`'s flags).
pub struct SweepOptions<'a> {
    pub home: Option<&'a PathBuf>,
    /// Sweep even if the last sweep is younger than the interval.
    pub force: bool,
    /// How long after the last activity the host counts as busy.
    pub grace: Duration,
    pub check: CheckOptions,
}

/// Why the update check found `c` behind at `new_ref` (the update rules of
/// `crate::update`).
fn why(c: &crate::update::Check, new_ref: &str) -> String {
    use crate::git::RefKind;
    let old = c.requested_ref.as_str();
    match c.ref_kind {
        _ if new_ref.is_empty() => "the default branch has new commits".to_owned(),
        Some(RefKind::Default) | None if old.is_empty() => {
            format!("the latest GitHub release is {new_ref}")
        }
        Some(RefKind::Branch) => format!("branch {new_ref} has new commits"),
        Some(RefKind::Tag) | None if new_ref != old => format!("newer release {new_ref}"),
        Some(RefKind::Tag) => format!("tag {new_ref} moved"),
        _ => format!("{new_ref} has new commits"),
    }
}

/// One sweep over the homes `opts.home` names: under each home's policy, check the
/// opted-in plugins that are not held, hold back what the cooldown holds, and apply the
/// rest in lock order (fetched ahead). An update that needs consent is never applied.
pub fn sweep(opts: &SweepOptions, cx: &Context, printer: &Printer) -> Result<Sweep> {
    let mut sweep = Sweep::default();
    let grace = opts.grace;
    // Recovery first, also for a sweep that then has nothing to do.
    let mut on_event = crate::reporter::progress(printer);
    for home in cx.homes(opts.home)? {
        crate::install::recover_first(&home, &mut on_event)?;
    }
    drop(on_event);
    for (home, lock) in cx.locked_homes(opts.home)? {
        let file = autoupdate::load_policy(&home)?;
        printer.file_diagnostics(&file.warnings, &file.path, &file.text);
        if let Some(skipped) = skipped(&home, &file, &lock, opts.force) {
            sweep.skipped_homes.push(skipped);
            continue;
        }
        // One sweep of a home at a time: a second one (cron and a timer, a slow sweep and
        // the next) skips it, exit 0. A home where the lock cannot be made (read-only) is
        // swept as before.
        let _sweeping = match home.try_lock_sweep() {
            Ok(Some(guard)) => Some(guard),
            Ok(None) => {
                sweep.skipped_homes.push(Skipped {
                    home: home.root.clone(),
                    reason: "running",
                    last_sweep_secs: None,
                    interval_hours: None,
                    help: Some("another `plugins autoupdate` is sweeping it".to_owned()),
                });
                continue;
            }
            Err(e) => {
                log::debug!("{}: no sweep lock: {e}", home.root.display());
                None
            }
        };
        let policy = file.policy;
        autoupdate::restamp_future_activity(&home);
        let busy = autoupdate::activity(&home, grace) != Activity::Idle;
        let entries = sweep.armed(&home, &lock, &policy, busy);
        let gh_base = cx.gh_base();
        let cooldown = opts.check.cooldown.unwrap_or(policy.cooldown_secs);
        let checks = checked(opts, cx, &home, entries, cooldown)?;
        // The newer versions are fetched and checked ahead, at most 8 at a time (as `update`
        // and `sync`), while the installs lock the home and swap one at a time, in order.
        let steps = checks
            .into_iter()
            .map(|(_, c)| install_step(opts, cx, &home, &gh_base, c))
            .collect();
        for ((c, unusable), fetched) in prepared_in_order(steps, opts.check.jobs.min(MAX_FETCHES)) {
            sweep.record(printer, &home, c, unusable, fetched)?;
        }
        autoupdate::record_sweep(&home)?;
    }
    Ok(sweep)
}

/// Why `home` is not swept now, if it is not: sweeping is off (`autoupdate_interval_hours =
/// 0`) or nothing is opted in — with the way to opt one of its plugins in — or its last
/// sweep is younger than the interval (unless `force`).
fn skipped(
    home: &crate::store::Home,
    file: &autoupdate::PolicyFile,
    lock: &crate::lock::Lock,
    force: bool,
) -> Option<Skipped> {
    let policy = &file.policy;
    if policy.interval_hours == 0 || policy.rules.is_empty() {
        let help = if policy.interval_hours == 0 {
            format!(
                "`autoupdate_interval_hours = 0` in {} turns sweeping off",
                file.path.display()
            )
        } else {
            // Opt-in: say how, for a plugin this home has.
            let (id, track) =
                lock.entries()
                    .first()
                    .map_or(("<plugin-id>".to_owned(), "main".to_owned()), |e| {
                        let track = if e.requested_ref.is_empty() {
                            "default".to_owned()
                        } else {
                            e.requested_ref.clone()
                        };
                        (e.id.clone(), track)
                    });
            format!(
                "no plugin is opted in; to opt one in, add `[update_policy.\"{id}\"]` with `track = \"{track}\"` to {}",
                file.path.display()
            )
        };
        return Some(Skipped {
            home: home.root.clone(),
            reason: "disabled",
            last_sweep_secs: None,
            interval_hours: None,
            help: Some(help),
        });
    }
    let age = autoupdate::since_last_sweep(home)?;
    (age < policy.interval_hours * 3600 && !force).then(|| Skipped {
        home: home.root.clone(),
        reason: "interval",
        last_sweep_secs: Some(age),
        interval_hours: Some(policy.interval_hours),
        help: None,
    })
}

/// Check `entries` of `home` as a sweep does: ref listings, aoe's latest releases, force
/// pushes, then the cooldown (`cooldown` s), settling a faster branch on an older commit.
fn checked(
    opts: &SweepOptions,
    cx: &Context,
    home: &crate::store::Home,
    entries: Vec<crate::lock::Entry>,
    cooldown: u64,
) -> Result<Vec<(crate::store::Home, crate::update::Check)>> {
    let plan = Plan {
        // The sweep read the home's policy (and showed its warnings) to arm the rows.
        cooldown: Cooldown::Secs(cooldown),
        // The armed rows leave the held plugins out already ([`Sweep::armed`]).
        holds: Holds::Skip,
        ..opts.check.plan(cx)
    };
    let checked = plan.check(vec![(home.clone(), entries)], &mut |_| {})?;
    Ok(checked.checks)
}

/// The fetch and install of a sweep's check: a newer version (`Behind`) as its lock row says
/// (at a settled commit); a row whose source cannot be read carries why.
fn install_step(
    opts: &SweepOptions,
    cx: &Context,
    home: &crate::store::Home,
    gh_base: &str,
    c: crate::update::Check,
) -> Step<(crate::update::Check, Option<crate::source::SourceError>)> {
    let Status::Behind { new_ref, .. } = &c.status else {
        return Step {
            item: (c, None),
            install: None,
        };
    };
    let entry = c.row.as_deref().expect("a check carries its lock row");
    let (install, unusable) = match crate::source::Source::of_entry(entry, gh_base) {
        Ok(source) => {
            let base = InstallOptions {
                featured_index: cx.featured_index.clone(),
                profile: opts.check.profile.clone(),
                // A branch faster than the cooldown: its older commit.
                at_commit: c.settled_commit(),
                ..InstallOptions::new(
                    source,
                    None,
                    cx.default_homes(),
                    &cx.github_api,
                    "autoupdate",
                )
            };
            (
                Some(crate::update::options(home, entry, new_ref, base)),
                None,
            )
        }
        Err(e) => (None, Some(e)),
    };
    Step {
        item: (c, unusable),
        install,
    }
}

impl Sweep {
    /// The lock rows of `home` this sweep checks, among the plugins its policy opts in: a
    /// held one is skipped (even with --force, until an explicit update or unhold) and, while
    /// the host is `busy`, one not marked `always` is deferred.
    fn armed(
        &mut self,
        home: &crate::store::Home,
        lock: &crate::lock::Lock,
        policy: &autoupdate::Policy,
        busy: bool,
    ) -> Vec<crate::lock::Entry> {
        let holds = crate::hold::holds(home);
        let armed: Vec<_> = policy
            .rules
            .iter()
            .filter(|r| lock.get(&r.id).is_some())
            .filter(|r| match holds.get(&r.id) {
                Some(hold) => {
                    self.held.push(Held {
                        id: r.id.clone(),
                        hold: hold.clone(),
                    });
                    false
                }
                None => true,
            })
            .collect();
        let entries = armed
            .iter()
            .filter(|r| r.always || !busy)
            .filter_map(|r| lock.get(&r.id))
            .collect();
        self.deferred.extend(
            armed
                .iter()
                .filter(|r| !r.always && busy)
                .map(|r| r.id.clone()),
        );
        entries
    }

    /// What became of one checked plugin: held back, installed (its newer version fetched
    /// ahead), failed, left for approval (a moved tag, a force-pushed branch) or up to date.
    fn record(
        &mut self,
        printer: &Printer,
        home: &crate::store::Home,
        c: crate::update::Check,
        unusable: Option<crate::source::SourceError>,
        fetched: Option<(InstallOptions, Ready)>,
    ) -> Result<()> {
        match c.status {
            Status::HeldBack {
                new_ref,
                commit,
                released_at,
                age_from,
                left_secs,
                cooldown_secs,
            } => self.held_back.push(HeldBack {
                id: c.id,
                new_ref,
                commit,
                released_at,
                age_from,
                left_secs,
                cooldown_secs,
            }),
            Status::Behind { ref new_ref, .. } => {
                let why = why(&c, new_ref);
                if let Some(message) = unusable {
                    self.failed.push(Failed {
                        id: c.id,
                        message: message.to_string(),
                    });
                    return Ok(());
                }
                let Some(fetched) = fetched else {
                    return Ok(());
                };
                install_one(printer, home, c, why, fetched, self)?;
            }
            Status::Error { message } => self.failed.push(Failed { id: c.id, message }),
            // The host runs its bundled copy and ignores this one: nothing to take, ever
            // (the check asked no remote), as the host's own sweep skips it.
            Status::Superseded {
                by,
                bundled_version,
            } => self.superseded.push(Superseded {
                id: c.id,
                by,
                bundled_version,
            }),
            // A moved tag or a force-pushed branch is never taken by a sweep: a person
            // looks at it first.
            Status::Repointed { .. } | Status::ForcePushed { .. } => {
                let why = c.moved_ref().into_iter().collect();
                self.approval_reasons.insert(c.id.clone(), why);
                self.needs_approval.push(c.id);
            }
            _ => self.up_to_date.push(c.id),
        }
        Ok(())
    }
}

/// Install one newer version fetched ahead, never asking: what needs consent is left for
/// approval; a race lost to another command defers to the next sweep; an update is recorded
/// as a change and in the home's `events.jsonl`.
fn install_one(
    printer: &Printer,
    home: &crate::store::Home,
    c: crate::update::Check,
    why: String,
    (install, ready): (InstallOptions, Ready),
    sweep: &mut Sweep,
) -> Result<()> {
    let mut applier = Applier::new(printer, Consent::Refuse, Caller::Autoupdate);
    match applier.install(&install, ready) {
        Ok(i) => {
            // The row the check compared: what the sweep read from the lock.
            let from = c.row.as_deref().map(|e| Version {
                version: e.version.clone(),
                ref_: e.requested_ref.clone(),
                commit: e.commit.clone(),
            });
            if let Some(from) = from {
                sweep.changes.push(Change {
                    id: c.id.clone(),
                    home: home.root.clone(),
                    from,
                    to: Version {
                        version: i.entry.version.clone(),
                        ref_: i.entry.requested_ref.clone(),
                        commit: i.entry.commit.clone(),
                    },
                    why,
                });
            }
            let event = serde_json::json!({
                "event": "plugin.updated", "id": i.id, "version": i.entry.version,
                "resolved_sha": i.entry.commit, "by": "autoupdate", "at": crate::clock::now(),
            });
            autoupdate::append_event(home, &event)
                .map_err(|e| Error::io("cannot append to events.jsonl", e))?;
            sweep.updated.push(c.id);
        }
        Err(Stop::NeedsConsent { reasons, .. }) => {
            sweep.approval_reasons.insert(c.id.clone(), reasons);
            sweep.needs_approval.push(c.id);
        }
        // Another command changed it meanwhile: the next sweep looks again (a cron mail for
        // a race would only alarm).
        Err(Stop::Raced(_)) => sweep.deferred.push(c.id),
        Err(stop) => {
            let f = failed(printer, &c.id, stop, Tell::InReport);
            sweep.failed.push(Failed {
                id: f.id,
                message: f.message,
            });
        }
    }
    Ok(())
}
