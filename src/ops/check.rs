//! The checks `outdated`, `update` and `autoupdate` share: what is newer, then what the
//! cooldown holds back.

use std::path::PathBuf;
use std::time::Duration;

use crate::context::Context;
use crate::error::Result;
use crate::store::Home;
use crate::update::Check;

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

/// Check every locked plugin of the homes `home` (or the hosts' own) names.
pub fn check_homes(
    opts: &CheckOptions,
    home: Option<&PathBuf>,
    cx: &Context,
) -> Result<Vec<(Home, Check)>> {
    Ok(crate::update::check_homes(
        cx.locked_homes(home)?,
        opts.jobs,
        opts.timeout,
        opts.pre,
        &cx.gh_base(),
        &opts.profile,
    ))
}

/// Note the newer versions in each home's first-seen record and hold back those younger
/// than its cooldown (`cooldown`, else `cooldown` in its `plugins.toml`), counted from when
/// the home first saw them or from their GitHub release; `note`: write the record (not on a
/// dry run). Returns the policy files read, whose warnings the command shows.
pub fn hold_back(
    opts: &CheckOptions,
    checks: &mut [(Home, Check)],
    cx: &Context,
    note: bool,
) -> Result<Vec<crate::autoupdate::PolicyFile>> {
    let (cooldowns, files) = crate::update::cooldowns(checks, opts.cooldown)?;
    crate::update::hold_back(
        checks,
        &|h| cooldowns.get(&h.root).copied().unwrap_or(0),
        opts.jobs,
        opts.timeout,
        &cx.github_api,
        note,
    );
    // A branch that moves faster than the cooldown takes its newest commit that is old enough.
    crate::update::settle_fast_branches(checks, &cx.gh_base(), opts.jobs);
    Ok(files)
}
