//! What `plugins update` does with each checked plugin, decided from the checks alone: the
//! check (lock rows, remote answers, holds) gives decisions, and the apply consumes them
//! without looking back at the check's rules.

use crate::error::Error;
use crate::store::Home;
use crate::update::check::{Learned, Unchanged};
use crate::update::{Check, Status};

/// One checked plugin's fate.
pub(super) enum Decision {
    /// Newer, but younger than the cooldown.
    HeldBack,
    /// `--dry-run`: review the newer version.
    Review,
    /// Install the newer version (fetched ahead).
    Apply,
    /// The check failed; a refused release lookup is an error with its own code.
    Failed {
        message: String,
        refused: Option<Error>,
    },
    /// `--dry-run` of a monorepo plugin whose subdirectory did not change: the pin that
    /// alone would move.
    PinOnly(Unchanged),
    /// Held and not named: skipped (with the newer version it is not taking, if any).
    Held,
    /// Up to date, nothing to say.
    Nothing,
}

impl Decision {
    /// Whether a newer version is installed (and so fetched ahead).
    pub(super) fn installs(&self) -> bool {
        matches!(self, Decision::Apply)
    }
}

/// The decision on `c`, checked in `home`: `lifting` are the held plugins named explicitly
/// (their hold is lifted, so they are not skipped).
pub(super) fn decide(
    home: &Home,
    c: &Check,
    dry_run: bool,
    lifting: &[String],
    learned: &mut Learned,
) -> Decision {
    let key = (home.root.clone(), c.id.clone());
    match &c.status {
        Status::HeldBack { .. } => Decision::HeldBack,
        Status::Behind { .. } | Status::Repointed { .. } | Status::ForcePushed { .. }
            if dry_run =>
        {
            Decision::Review
        }
        Status::Behind { .. } | Status::Repointed { .. } | Status::ForcePushed { .. } => {
            Decision::Apply
        }
        Status::Error { message } => Decision::Failed {
            message: message.clone(),
            refused: learned.refused.remove(&key).map(Error::from),
        },
        Status::UpToDate if learned.unchanged.contains_key(&key) => {
            Decision::PinOnly(learned.unchanged.remove(&key).unwrap_or_default())
        }
        Status::Held { .. } => Decision::Held,
        _ if c.hold.is_some() && !lifting.contains(&c.id) => Decision::Held,
        _ => Decision::Nothing,
    }
}
