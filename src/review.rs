//! Looking at an update before taking it: what it brings (the commits since the locked
//! one, and the permission changes an install would ask consent for), and whether it is
//! old enough to take (the cooldown).

use std::collections::BTreeSet;

use crate::install::{InstallError, Preview, Request};

/// How many commits the review walks (and, over the network, how deep it fetches).
pub const WALK_BOUND: usize = 200;
/// How many of them are listed.
pub const LISTED: usize = 20;

/// A text `parse_duration` cannot read (clap shows it for `--cooldown`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a duration: write days, hours or minutes such as \"3d\", \"72h\", \"1d12h\" or \"90m\" (\"0\" for none)"
)]
pub struct NotADuration(String);

/// A duration for `cooldown`: `0` (none), or numbers with units `d`, `h` and `m`
/// (`3d`, `72h`, `1d12h`, `90m`), as seconds.
pub fn parse_duration(text: &str) -> Result<u64, NotADuration> {
    let t = text.trim();
    let bad = || NotADuration(text.to_owned());
    if t == "0" {
        return Ok(0);
    }
    let mut total: u64 = 0;
    let mut digits = String::new();
    for c in t.chars() {
        match c {
            '0'..='9' => digits.push(c),
            ' ' if digits.is_empty() => {}
            'd' | 'h' | 'm' if !digits.is_empty() => {
                let n: u64 = digits.parse().map_err(|_| bad())?;
                let unit = match c {
                    'd' => 86_400,
                    'h' => 3_600,
                    _ => 60,
                };
                total = n
                    .checked_mul(unit)
                    .and_then(|s| total.checked_add(s))
                    .ok_or_else(bad)?;
                digits.clear();
            }
            _ => return Err(bad()),
        }
    }
    if !digits.is_empty() || t.is_empty() {
        return Err(bad());
    }
    Ok(total)
}

/// A duration as `3d`, `1d 4h`, `5h 30m`, `45m` (`0m` for none); seconds are dropped.
pub fn format_duration(secs: u64) -> String {
    let (d, h, m) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    let parts: Vec<String> = [(d, "d"), (h, "h"), (m, "m")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, u)| format!("{n}{u}"))
        .collect();
    if parts.is_empty() {
        "0m".to_owned()
    } else {
        parts.join(" ")
    }
}

/// The time left on a cooldown, rounded up (to the hour from an hour on, else to the
/// minute) so that it never reads as shorter than it is.
pub fn format_left(secs: u64) -> String {
    let step = if secs >= 3_600 { 3_600 } else { 60 };
    format_duration(secs.div_ceil(step) * step)
}

/// What remains of a cooldown for a version made at `date` (Unix seconds), `now`; `None`
/// when it is old enough. A date in the future counts as made now.
pub fn left(cooldown: u64, date: i64, now: i64) -> Option<u64> {
    let age = u64::try_from(now.saturating_sub(date)).unwrap_or(0);
    (cooldown > 0 && age < cooldown).then(|| cooldown - age)
}

/// Items added and removed between two lists (as sets, in their order).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Changed {
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

impl Changed {
    fn between(before: &[String], after: &[String]) -> Changed {
        let (b, a): (BTreeSet<_>, BTreeSet<_>) = (before.iter().collect(), after.iter().collect());
        Changed {
            added: after.iter().filter(|x| !b.contains(x)).cloned().collect(),
            removed: before.iter().filter(|x| !a.contains(x)).cloned().collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }
}

/// A value before and after (`null` when absent).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Moved<T> {
    pub before: T,
    pub after: T,
}

/// The permission changes an update brings, as shown; whether they ask consent is the
/// install's decision ([`Preview::consent`]), not recomputed here.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Permissions {
    pub capabilities: Changed,
    pub build_steps: Changed,
    pub ui: Changed,
    pub pip: Changed,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_code: Option<Moved<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Moved<Option<String>>>,
    /// The featured pin no longer holds: aoe's trust falls to community.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub trust_downgraded: bool,
    /// Signed by another key than the one the lock recorded (`require_signed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signer_key: Option<Moved<String>>,
}

impl Permissions {
    pub fn of(p: &Preview) -> Permissions {
        let empty = Request {
            capabilities: Vec::new(),
            build_steps: Vec::new(),
            ui: Vec::new(),
            runs_code: false,
            pip: Vec::new(),
            ..p.after.clone()
        };
        let before = p.before.as_ref().unwrap_or(&empty);
        let after = &p.after;
        Permissions {
            capabilities: Changed::between(&before.capabilities, &after.capabilities),
            build_steps: Changed::between(&before.build_steps, &after.build_steps),
            ui: Changed::between(&before.ui, &after.ui),
            pip: Changed::between(&before.pip, &after.pip),
            runs_code: (before.runs_code != after.runs_code).then_some(Moved {
                before: before.runs_code,
                after: after.runs_code,
            }),
            runtime: (p.runtime_before != p.runtime_after).then(|| Moved {
                before: p.runtime_before.clone(),
                after: p.runtime_after.clone(),
            }),
            trust_downgraded: p.trust_downgraded,
            signer_key: p
                .after
                .signer_change
                .clone()
                .map(|(before, after)| Moved { before, after }),
        }
    }

    /// One line per change, for the text output.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (name, c) in [
            ("capabilities", &self.capabilities),
            ("build steps", &self.build_steps),
            ("ui", &self.ui),
            ("pip", &self.pip),
        ] {
            let items: Vec<String> = c
                .added
                .iter()
                .map(|x| format!("+ {x}"))
                .chain(c.removed.iter().map(|x| format!("- {x}")))
                .collect();
            if !items.is_empty() {
                out.push(format!("{name}: {}", items.join(", ")));
            }
        }
        if let Some(m) = &self.runs_code {
            out.push(format!(
                "runs code in the host: {} -> {}",
                if m.before { "yes" } else { "no" },
                if m.after { "yes" } else { "no" }
            ));
        }
        if let Some(m) = &self.runtime {
            let show = |r: &Option<String>| r.clone().unwrap_or_else(|| "none".to_owned());
            out.push(format!(
                "runtime: {} -> {}",
                show(&m.before),
                show(&m.after)
            ));
        }
        if self.trust_downgraded {
            out.push("trust: featured -> community".to_owned());
        }
        if let Some(m) = &self.signer_key {
            out.push(format!(
                "signed by a different key: {} -> {}",
                m.before, m.after
            ));
        }
        out
    }
}

/// One commit an update brings.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Commit {
    pub id: String,
    pub subject: String,
}

/// The version an update goes to: `v2.0.0 @ abc1234567`, or the commit alone for the
/// default branch.
pub fn target(new_ref: &str, commit: &str) -> String {
    if new_ref.is_empty() {
        commit[..10].to_owned()
    } else {
        format!("{new_ref} @ {}", &commit[..10])
    }
}

/// What an update would bring.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Review {
    /// The first [`LISTED`] commits after the locked one, newest first.
    pub commits: Vec<Commit>,
    /// How many more commits there are beyond those listed (at least, when not `complete`).
    pub more_commits: usize,
    /// Every commit up to the locked one was walked (`false`: the walk stopped at
    /// [`WALK_BOUND`] or where the fetched history ends).
    pub commits_complete: bool,
    pub permissions: Permissions,
    /// The update would ask consent (`update` prompts or needs --yes).
    pub consent_needed: bool,
    /// Why it would ask (what changed in the grant), as the update's prompt says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub consent_reasons: Vec<String>,
}

/// Review the update of the plugin whose install `opts` describes: the commits after
/// `since` on `reference`, and the permission preview of the new tree. Nothing in the
/// home changes. `walks`: the histories the command fetched already (one per remote and
/// ref, whatever the number of its plugins).
pub fn review(
    opts: &crate::install::InstallOptions,
    reference: &str,
    since: Option<&str>,
    walks: &crate::git::Walks,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<Review, InstallError> {
    let preview = crate::install::preview(opts, on_event)?;
    let crate::source::Source::Git { url, userinfo, .. } = &opts.source else {
        unreachable!("only git sources are updated")
    };
    // A monorepo plugin lists the commits that change its subdirectory.
    let walked = crate::git::walk(
        url,
        userinfo.as_ref(),
        reference,
        since,
        WALK_BOUND,
        opts.source.subdir(),
        walks,
    )?;
    let total = walked.commits.len();
    Ok(Review {
        commits: walked
            .commits
            .into_iter()
            .take(LISTED)
            .map(|(id, subject)| Commit { id, subject })
            .collect(),
        more_commits: total.saturating_sub(LISTED),
        commits_complete: walked.complete,
        permissions: Permissions::of(&preview),
        consent_needed: preview.consent,
        consent_reasons: preview.reasons,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("3d"), Ok(259_200));
        assert_eq!(parse_duration("72h"), Ok(259_200));
        assert_eq!(parse_duration(" 1d 12h "), Ok(129_600));
        assert_eq!(parse_duration("90m"), Ok(5_400));
        assert_eq!(parse_duration("0"), Ok(0));
        for bad in ["", "3", "d", "3w", "-1d", "1.5d", "99999999999999999999d"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(format_duration(259_200), "3d");
        assert_eq!(format_duration(100_800), "1d 4h");
        assert_eq!(format_left(100_799), "1d 4h");
        assert_eq!(format_left(100_801), "1d 5h");
        assert_eq!(format_left(61), "2m");
        assert_eq!(left(259_200, 1_000, 1_000 + 3_600), Some(255_600));
        assert_eq!(left(259_200, 1_000, 1_000 + 259_200), None);
        assert_eq!(left(0, 1_000, 1_000), None);
        assert_eq!(
            left(60, 2_000, 1_000),
            Some(60),
            "a future date counts as now"
        );
    }
}
