//! `plugins update`: install the newer commit of locked plugins.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use super::args::CheckArgs;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::install::{InstallOptions, Request};
use crate::printer::Printer;
use crate::review;
use crate::source::Source;
use crate::update::Status;

/// Update plugins to what `plugins outdated` reports as newer.
///
/// Each update is a full install of the new commit: staged, validated, built,
/// swapped, lock written last, the old version kept on any failure. The plugin
/// id must not change. If the update changes the capability set, adds build
/// steps to changed files or UI to a changed manifest, consent is asked again
/// (`--yes` grants).
///
/// --dry-run fetches each newer version into a temporary directory (the home is not
/// changed) and shows what it brings: the commits since the locked one (at most 20
/// listed), the changed capabilities, build steps, UI, runtime and code, and whether
/// consent would be asked. A newer version younger than the cooldown (--cooldown,
/// else `cooldown` in <home>/plugins.toml) is held back and not taken.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins update --all --dry-run\n  plugins update dev.example.kanban --yes\n  plugins update --all --yes --cooldown 3d   # only versions at least 3 days old\n\nExit codes: 0 updated or nothing to do, 1 some update failed, 2 could not run."
)]
pub struct UpdateArgs {
    /// Plugins to update
    #[arg(value_name = "PLUGIN-ID", required_unless_present = "all")]
    pub ids: Vec<String>,
    /// Update every locked plugin
    #[arg(long, conflicts_with = "ids")]
    pub all: bool,
    /// Show what each update would bring (commits, permission changes, consent) without installing
    #[arg(long)]
    pub dry_run: bool,
    /// Grant changed permissions without asking (required without a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    #[command(flatten)]
    pub check: CheckArgs,
    /// Print one JSON document instead of the outcome lines
    #[arg(long)]
    pub json: bool,
    /// protoAgent: the host's Python, whose pip installs plugins' `requires_pip` into
    /// plugin-deps [default: the home's remembered one, else python3 on PATH]
    #[arg(long, value_name = "PYTHON")]
    pub python: Option<PathBuf>,
}

/// What an update went to: `v0.11.1 @ abc1234567` when the tag names the version (with
/// or without a `v`), `0.11.1 (main @ abc1234567)` for another ref, `0.11.1 @ abc1234567`
/// for the default branch.
fn updated_to(version: &str, new_ref: &str, commit: &str) -> String {
    let commit = &commit[..10];
    if new_ref.is_empty() {
        format!("{version} @ {commit}")
    } else if new_ref.strip_prefix('v').unwrap_or(new_ref) == version {
        format!("{new_ref} @ {commit}")
    } else {
        format!("{version} ({new_ref} @ {commit})")
    }
}

/// The version an update goes to: `v2.0.0 @ abc1234567`, or the commit alone for the
/// default branch.
fn target(new_ref: &str, commit: &str) -> String {
    if new_ref.is_empty() {
        commit[..10].to_owned()
    } else {
        format!("{new_ref} @ {}", &commit[..10])
    }
}

/// A dry run's review, indented under its `Would update` line: the commits (at most
/// [`review::LISTED`], then how many more), the permission changes, and whether consent
/// would be asked.
fn review_text(r: &review::Review, from: Option<&str>) -> String {
    let total = r.commits.len() + r.more_commits;
    let since = from.map_or(String::new(), |c| {
        format!(" since {}", &c[..c.len().min(10)])
    });
    let mut s = match (total, r.commits_complete) {
        (0, true) => format!("  no new commits{since}\n"),
        (1, true) => format!("  1 commit{since}:\n"),
        (n, true) => format!("  {n} commits{since}:\n"),
        (n, false) => format!("  at least {n} commits{since} (the history read stops there):\n"),
    };
    for c in &r.commits {
        s.push_str(&format!("    {} {}\n", &c.id[..7], c.subject));
    }
    if r.more_commits > 0 {
        let least = if r.commits_complete { "" } else { "at least " };
        s.push_str(&format!("    … and {least}{} more\n", r.more_commits));
    }
    let lines = r.permissions.lines();
    if lines.is_empty() {
        s.push_str("  permissions: unchanged\n");
    }
    for l in lines {
        s.push_str(&format!("  {l}\n"));
    }
    s.push_str(if r.consent_needed {
        "  consent: would be asked (--yes grants it)\n"
    } else {
        "  consent: not needed\n"
    });
    s
}

pub fn run(args: &UpdateArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut checks = args.check.check_homes(args.home.as_ref(), cx)?;
    for id in &args.ids {
        if !checks.iter().any(|(_, _, c)| c.id == *id) {
            return Err(Error::Refused {
                code: Code::InstallNotInstalled,
                message: format!("plugin '{id}' is not installed"),
                help: None,
            });
        }
    }
    // Only the plugins asked for are dated (cooldown) and reviewed (--dry-run).
    checks.retain(|(_, _, c)| args.all || args.ids.contains(&c.id));
    // aoe: `gh:owner/repo` without a ref follows the latest release, not the default branch.
    let refused: std::collections::HashMap<_, Error> = crate::update::follow_latest_releases(
        &mut checks,
        &cx.gh_base(),
        &cx.github_api,
        args.check.jobs,
        args.check.timeout(),
    )
    .into_iter()
    .map(|(k, e)| (k, e.into()))
    .collect();
    for f in &args.check.hold_back(&mut checks, cx, !args.dry_run)? {
        printer.file_diagnostics(&f.warnings, &f.path, &f.text);
    }
    let interactive = std::io::stdin().is_terminal();
    // The newer versions are fetched and checked `--jobs` at a time, ahead of the
    // installs, which ask consent, lock the home and swap one at a time, in order.
    let mut ahead = Vec::new();
    let mut lock_rows = crate::update::LockRows::default();
    for (i, (home, dialect, c)) in checks.iter().enumerate() {
        let Status::Behind { new_ref, .. } = &c.status else {
            continue;
        };
        if args.dry_run {
            continue;
        }
        let Some(entry) = lock_rows.get(home, *dialect, &c.id)? else {
            continue;
        };
        let source = Source::of_entry(&entry, &cx.gh_base()).map_err(Error::InvalidArgument)?;
        let mut base = InstallOptions::new(source, None, cx.default_homes(), &cx.github_api, "cli");
        base.featured_index.clone_from(&cx.featured_index);
        base.python = args.python.as_deref().map(|p| {
            if p.components().count() > 1 {
                cx.absolute(p)
            } else {
                p.to_path_buf()
            }
        });
        ahead.push((i, crate::update::options(home, &entry, new_ref, base)));
    }
    // Fetches move objects, not ref lists: at most 8 at once, as `sync`.
    let fetch_jobs = args.check.jobs.min(8);
    let url = |(_, opts): &(usize, InstallOptions)| match &opts.source {
        Source::Git { url, .. } => Some(url.clone()),
        Source::Local { .. } => None,
    };
    let mut prepared = crate::update::ordered_per_host(ahead, url, fetch_jobs, |(i, opts)| {
        let p = crate::install::prepare(&opts);
        (i, opts, p)
    })
    .peekable();
    let mut failed = 0;
    let mut updated = 0;
    let mut unchanged = 0;
    let mut rows = Vec::new();
    let mut text = String::new();
    for (i, (home, dialect, c)) in checks.iter().enumerate() {
        if let Status::HeldBack {
            new_ref,
            commit,
            released_at,
            age_from,
            left_secs,
            cooldown_secs,
        } = &c.status
        {
            text.push_str(&format!(
                "   Held back {} at {}: {} left (cooldown {})\n",
                c.id,
                target(new_ref, commit),
                review::format_left(*left_secs),
                review::format_duration(*cooldown_secs)
            ));
            rows.push(
                serde_json::json!({"id": c.id, "status": "held_back", "from_commit": c.current,
                "new_ref": new_ref, "commit": commit, "released_at": released_at,
                "age_from": age_from, "left_secs": left_secs, "cooldown_secs": cooldown_secs, "home": home.root}),
            );
            continue;
        }
        let Status::Behind { new_ref, commit } = &c.status else {
            if let Some(e) = refused.get(&(home.root.clone(), c.id.clone())) {
                printer.fail(e);
                rows.push(
                    serde_json::json!({"id": c.id, "status": "failed", "message": e.to_string(),
                    "code": e.code().as_str(), "home": home.root}),
                );
                failed += 1;
            } else if let Status::Error { message } = &c.status {
                printer.status(&format!("      Failed {}: {message}", c.id));
                rows.push(serde_json::json!({"id": c.id, "status": "failed", "message": message, "home": home.root}));
                failed += 1;
            }
            continue;
        };
        if !args.dry_run {
            if prepared.peek().is_none_or(|(j, _, _)| *j != i) {
                continue;
            }
        } else {
            let Some(entry) = lock_rows.get(home, *dialect, &c.id)? else {
                continue;
            };
            let source = Source::of_entry(&entry, &cx.gh_base()).map_err(Error::InvalidArgument)?;
            let mut base =
                InstallOptions::new(source, None, cx.default_homes(), &cx.github_api, "cli");
            base.featured_index.clone_from(&cx.featured_index);
            let mut on_event = crate::reporter::progress(printer);
            let reviewed = crate::update::review(home, &entry, new_ref, base, &mut on_event);
            drop(on_event);
            match reviewed {
                Ok(r) => {
                    text.push_str(&format!(
                        "Would update {} to {}\n",
                        c.id,
                        target(new_ref, commit)
                    ));
                    text.push_str(&review_text(&r, c.current.as_deref()));
                    let mut row = serde_json::json!({"id": c.id, "status": "would_update", "from_commit": c.current,
                        "new_ref": new_ref, "commit": commit, "home": home.root});
                    if let (Some(row), serde_json::Value::Object(more)) = (
                        row.as_object_mut(),
                        serde_json::to_value(&r).expect("serializes"),
                    ) {
                        row.extend(more);
                    }
                    rows.push(row);
                }
                Err(e) => {
                    failed += 1;
                    let e: Error = e.into();
                    rows.push(
                        serde_json::json!({"id": c.id, "status": "failed", "message": e.to_string(),
                        "code": e.code().as_str(), "home": home.root}),
                    );
                    printer.fail(&e);
                }
            }
            continue;
        }
        // The spinner is off the screen while the consent text and prompt are.
        let (mut on_event, pause) = crate::reporter::progress_pausable(printer);
        let mut consent = |r: &Request| {
            pause.during(|| {
                printer.status(&format!(
                    "{} now asks for: capabilities [{}], build steps [{}]",
                    r.id,
                    r.capabilities.join(", "),
                    r.build_steps.join("; ")
                ));
                if args.yes {
                    return true;
                }
                interactive
                    && printer
                        .prompt(&format!("Update {} and grant this? [y/N]", r.id))
                        .is_ok_and(|a| matches!(a.to_lowercase().as_str(), "y" | "yes"))
            })
        };
        let Some((_, opts, ready)) = prepared.next() else {
            continue;
        };
        let applied = crate::install::install_prepared(&opts, ready, &mut consent, &mut on_event);
        drop(on_event);
        match applied {
            Ok(i) if i.up_to_date && i.entry.subdir.is_some() => {
                // A monorepo moved but the plugin's subdirectory did not: only the pin moved.
                let subdir = i.entry.subdir.clone().unwrap_or_default();
                let message = format!(
                    "the repository moved to {}; {subdir} did not change (only the lock's pin moved)",
                    target(new_ref, commit)
                );
                unchanged += 1;
                if !printer.quiet {
                    text.push_str(&format!("  Up to date {}: {message}\n", i.id));
                }
                rows.push(serde_json::json!({"id": i.id, "status": "up_to_date", "from_commit": c.current,
                    "new_ref": new_ref, "commit": commit, "version": i.entry.version, "subdir": subdir,
                    "message": message, "home": home.root}));
            }
            Ok(i) => {
                updated += 1;
                if !printer.quiet {
                    text.push_str(&format!(
                        "     Updated {} to {}\n",
                        i.id,
                        updated_to(&i.entry.version, new_ref, commit)
                    ));
                }
                rows.push(serde_json::json!({"id": i.id, "status": "updated", "from_commit": c.current,
                    "new_ref": new_ref, "commit": commit, "version": i.entry.version, "home": home.root}));
            }
            Err(e) => {
                failed += 1;
                let e: Error = e.into();
                rows.push(
                    serde_json::json!({"id": c.id, "status": "failed", "message": e.to_string(),
                    "code": e.code().as_str(), "home": home.root}),
                );
                printer.fail(&e);
            }
        }
    }
    if updated == 0 && failed == 0 && unchanged == 0 && !args.dry_run && !printer.quiet {
        text.push_str("nothing to update\n");
    }
    let written = if args.json {
        printer.json(serde_json::json!({ "dry_run": args.dry_run, "plugins": rows }))
    } else {
        printer.out(&text)
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(if failed == 0 {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

#[cfg(test)]
mod tests {
    use super::updated_to;

    #[test]
    fn the_tag_is_named_once() {
        let c = "abc1234567890";
        assert_eq!(updated_to("0.11.1", "v0.11.1", c), "v0.11.1 @ abc1234567");
        assert_eq!(updated_to("0.11.1", "0.11.1", c), "0.11.1 @ abc1234567");
        assert_eq!(
            updated_to("0.11.1", "main", c),
            "0.11.1 (main @ abc1234567)"
        );
        assert_eq!(
            updated_to("0.11.1", "v0.11.2", c),
            "0.11.1 (v0.11.2 @ abc1234567)"
        );
        assert_eq!(updated_to("0.11.1", "", c), "0.11.1 @ abc1234567");
    }
}
