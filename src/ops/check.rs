//! The options `outdated`, `update` and `autoupdate` check remotes with, and the check they
//! share ([`crate::update::check::Plan`]) as `outdated` runs it: each command changes only
//! what makes it differ.

use std::path::PathBuf;
use std::time::Duration;

use crate::context::Context;
use crate::error::Result;
use crate::lock::Entry;
use crate::store::Home;
use crate::update::check::{Cooldown, Holds, Plan, Subdirs};

/// How to check remotes (`--jobs`, `--timeout`, `--pre`, `--cooldown`).
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// How many remotes to query at once.
    pub jobs: usize,
    /// How long one remote may take.
    pub timeout: Duration,
    /// Pre-release tags count as newer releases.
    pub pre: bool,
    /// Hold back versions younger than this many seconds (`None`: each home's policy).
    pub cooldown: Option<u64>,
    /// `--aoe-api`, `--host-version`: the host to check and validate as, over each row's
    /// recorded profile and each home's remembered one.
    pub profile: crate::profile::HostProfile,
}

impl CheckOptions {
    /// The check of every row, as `outdated` runs it: the host's own answer first (a
    /// superseded source), each home's cooldown (`--cooldown`, else its `plugins.toml`)
    /// noted in its first-seen record, the holds marked, no subdirectory compared.
    pub fn plan(&self, cx: &Context) -> Plan<'_> {
        Plan {
            jobs: self.jobs,
            timeout: self.timeout,
            pre: self.pre,
            gh_base: cx.gh_base(),
            github_api: cx.github_api.clone(),
            superseded: Some(&self.profile),
            only: None,
            cooldown: Cooldown::Homes(self.cooldown),
            note: true,
            holds: Holds::Mark { lifting: &[] },
            subdirs: Subdirs::Skip,
        }
    }
}

/// The lock rows of every home `home` (or the hosts' own) names.
pub fn rows(cx: &Context, home: Option<&PathBuf>) -> Result<Vec<(Home, Vec<Entry>)>> {
    Ok(cx
        .locked_homes(home)?
        .into_iter()
        .map(|(home, lock)| (home, lock.entries()))
        .collect())
}
