//! The check of an update, one step: lock rows in; the remotes listed, aoe's latest releases
//! followed, force pushes found, monorepo subdirectories compared, the cooldown and the holds
//! applied; out come the checks and what they learned on the way, ready to be decided.
//!
//! `outdated`, `update` and `autoupdate` run this one check and differ only in its [`Plan`]
//! (which rows, the cooldown's source, whether holds are marked, where the subdirectories are
//! compared). The check installs nothing and knows nothing of what is done with its answer:
//! the commands decide from [`Checked`] and apply the decisions.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

pub use super::follow::Unchanged;
use super::{Check, Status};
use crate::lock::Entry;
use crate::store::Home;

/// How to check: the remotes' bounds and what each command makes of the answers.
pub struct Plan<'a> {
    /// How many remotes to query at once.
    pub jobs: usize,
    /// How long one remote may take.
    pub timeout: Duration,
    /// Pre-release tags count as newer releases.
    pub pre: bool,
    /// What `gh:` sources resolve against.
    pub gh_base: String,
    /// GitHub's API, for releases (aoe's latest, the cooldown's dates).
    pub github_api: String,
    /// The host profile given (else each home's remembered one) for the host's own answer
    /// before any network (protoAgent 0.218's superseded sources); `None`: not asked.
    pub superseded: Option<&'a crate::profile::HostProfile>,
    /// The plugins asked for (an id no home has is refused), the others dropped after the
    /// ref listing; `None`: every row.
    pub only: Option<&'a [String]>,
    /// What holds back newer versions that are too young.
    pub cooldown: Cooldown,
    /// Write the newer versions into each home's first-seen record (not on a dry run).
    pub note: bool,
    /// Whether the holds (`plugins hold`) are marked on the checks.
    pub holds: Holds<'a>,
    /// Whether, and where, monorepo subdirectories are compared.
    pub subdirs: Subdirs,
}

/// Where a [`Plan`]'s cooldown comes from.
#[derive(Clone, Copy)]
pub enum Cooldown {
    /// `--cooldown` (seconds) when given, else each home's `plugins.toml`, whose warnings
    /// the check hands to its `warn`.
    Homes(Option<u64>),
    /// Seconds, for every row: the caller read the home's policy itself.
    Secs(u64),
}

/// Whether a [`Plan`] marks the holds ([`super::apply_holds`]).
#[derive(Clone, Copy)]
pub enum Holds<'a> {
    /// The rows come without the held plugins already.
    Skip,
    /// Mark them; the ids in `lifting` (named explicitly) are not held back by theirs.
    Mark { lifting: &'a [String] },
}

/// Whether, and where in the check, a [`Plan`] compares the subdirectories of monorepo
/// plugins found newer ([`super::unchanged_subdirs`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Subdirs {
    Skip,
    /// After the ref listing, before the cooldown: a version whose subdirectory did not
    /// change is up to date, neither dated nor held back.
    BeforeCooldown,
    /// After the cooldown and the holds: only what would still be taken is compared.
    AfterHolds,
}

/// What the checks learned besides each plugin's status, by (home root, id).
#[derive(Default)]
pub struct Learned {
    /// Release lookups aoe refuses (`gh:` without a release): the check is `Error`.
    pub refused: HashMap<(PathBuf, String), crate::install::InstallError>,
    /// Monorepo plugins whose subdirectory did not change: the check is `UpToDate`.
    pub unchanged: HashMap<(PathBuf, String), Unchanged>,
}

/// A check's answer: every checked row in lock order, and what was learned on the way.
pub struct Checked {
    pub checks: Vec<(Home, Check)>,
    pub learned: Learned,
}

impl Plan<'_> {
    /// Check `rows` (each home's lock rows): list the remotes, follow aoe's latest releases,
    /// find force pushes, then hold back what is too young (settling a faster branch on an
    /// older commit) and mark the holds, comparing monorepo subdirectories where the plan
    /// says. `warn` gets each policy file read for the cooldown once the cooldown is applied
    /// (where the commands have always shown their warnings), as an install's events go to
    /// its `on_event`.
    pub fn check(
        &self,
        rows: Vec<(Home, Vec<Entry>)>,
        warn: &mut dyn FnMut(&crate::autoupdate::PolicyFile),
    ) -> crate::error::Result<Checked> {
        let mut checks = check_homes(rows, self);
        if let Some(ids) = self.only {
            if let Some(id) = ids
                .iter()
                .find(|id| !checks.iter().any(|(_, c)| c.id == **id))
            {
                return Err(crate::error::Refusal::NotInstalled { id: id.to_owned() }.into());
            }
            // Only the plugins asked for are dated (cooldown) and reviewed.
            checks.retain(|(_, c)| ids.contains(&c.id));
        }
        // aoe: `gh:owner/repo` without a ref follows the latest release, not the default
        // branch.
        let refused = super::follow_latest_releases(
            &mut checks,
            &self.gh_base,
            &self.github_api,
            self.jobs,
            self.timeout,
        );
        // A branch force-pushed to another history asks consent, as a moved tag does.
        super::force_pushed(&mut checks, &self.gh_base, self.jobs);
        let mut unchanged = self.subdirs(Subdirs::BeforeCooldown, &mut checks);
        self.hold_back(&mut checks, warn)?;
        if let Holds::Mark { lifting } = self.holds {
            super::apply_holds(&mut checks, lifting);
        }
        unchanged.extend(self.subdirs(Subdirs::AfterHolds, &mut checks));
        Ok(Checked {
            checks,
            learned: Learned { refused, unchanged },
        })
    }

    /// The monorepo plugins whose subdirectory did not change, when the plan compares them
    /// `at` this point of the check (none otherwise).
    fn subdirs(
        &self,
        at: Subdirs,
        checks: &mut [(Home, Check)],
    ) -> HashMap<(PathBuf, String), Unchanged> {
        match self.subdirs == at {
            true => super::unchanged_subdirs(checks, &self.gh_base, self.jobs),
            false => HashMap::new(),
        }
    }

    /// Note the newer versions in each home's first-seen record (when the plan notes) and
    /// hold back those younger than the cooldown, counted from when the home first saw them
    /// or from their GitHub release; a branch faster than the cooldown settles on its
    /// newest commit that is old enough.
    fn hold_back(
        &self,
        checks: &mut [(Home, Check)],
        warn: &mut dyn FnMut(&crate::autoupdate::PolicyFile),
    ) -> Result<(), crate::store::SettingsError> {
        let (by_home, files, fixed) = match self.cooldown {
            Cooldown::Homes(flag) => {
                let (by_home, files) = super::cooldowns(checks, flag)?;
                (by_home, files, 0)
            }
            Cooldown::Secs(secs) => (Default::default(), Vec::new(), secs),
        };
        super::hold_back(
            checks,
            &|h| by_home.get(&h.root).copied().unwrap_or(fixed),
            self.jobs,
            self.timeout,
            &self.github_api,
            self.note,
        );
        super::settle_fast_branches(checks, &self.gh_base, self.jobs);
        for f in &files {
            warn(f);
        }
        Ok(())
    }
}

/// Check every row of each home, listing each remote once (a URL two homes lock is listed
/// once); the host's own answer (a superseded source) comes first, without the network.
fn check_homes(homes: Vec<(Home, Vec<Entry>)>, plan: &Plan) -> Vec<(Home, Check)> {
    let url_of = |e: &Entry| super::git_url_of(e, &plan.gh_base);
    let mut asked: Vec<Entry> = Vec::new();
    let mut per_home = Vec::new();
    for (home, entries) in homes {
        let superseded: Vec<Option<Status>> = match plan.superseded {
            Some(given) => {
                let host = host_options(&home, given);
                (entries.iter())
                    .map(|e| superseded_by(&home, &host, e))
                    .collect()
            }
            None => vec![None; entries.len()],
        };
        asked.extend(
            entries
                .iter()
                .zip(&superseded)
                .filter(|(_, s)| s.is_none())
                .map(|(e, _)| e.clone()),
        );
        per_home.push((home, entries, superseded));
    }
    // check_all answers in its input's order: put the superseded rows back in place.
    let mut checked =
        super::check_all(&asked, plan.jobs, plan.timeout, plan.pre, &url_of).into_iter();
    let mut out = Vec::new();
    for (home, entries, superseded) in per_home {
        let rows: Vec<Check> = entries
            .into_iter()
            .zip(superseded)
            .filter_map(|(e, s)| match s {
                Some(status) => Some(Check::of(&e, status)),
                None => checked.next(),
            })
            .collect();
        out.extend(rows.into_iter().map(|c| (home.clone(), c)));
    }
    out
}

/// The hosts' options a home's checks use (the profile given, else the one it remembers,
/// else the newest).
fn host_options(home: &Home, given: &crate::profile::HostProfile) -> crate::host::HostOptions {
    given
        .or(crate::profile::HostProfile::load(home))
        .host_options(&Default::default())
}

/// The host's check before any network (protoAgent 0.218): the bundled plugin that
/// supersedes `entry`'s source, if any.
fn superseded_by(home: &Home, host: &crate::host::HostOptions, entry: &Entry) -> Option<Status> {
    crate::host::superseded(home, &entry.source, host).map(|s| Status::Superseded {
        by: s.id.to_owned(),
        bundled_version: s.version.to_owned(),
    })
}
