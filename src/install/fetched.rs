//! The first step of an install: the source fetched into staging and checked, before
//! anything of the home is read for a decision.

use super::check::{Checked, at_source, check_tree};
use super::lockhome::Staging;
use super::{Event, InstallError, InstallOptions, home_for, plan, signed, stage};

/// A staged tree that passed [`check_tree`] (and, where required, whose signature git
/// verified).
pub(super) struct Fetched {
    pub(super) staging: Staging,
    pub(super) commit: Option<String>,
    pub(super) kind: Option<crate::git::RefKind>,
    pub(super) requested: String,
    pub(super) checked: Checked,
    /// The fingerprint of the key that signed it, when a signature was required.
    pub(super) signer: Option<String>,
}

impl Fetched {
    /// The fetched tree, in staging.
    pub(super) fn tree(&self) -> std::path::PathBuf {
        self.staging.tree()
    }

    /// The host family the fetched plugin's manifest is for.
    pub(super) fn dialect(&self) -> crate::dialect::Dialect {
        self.checked.dialect
    }

    /// The manifest's plugin id, checked as a directory name.
    pub(super) fn name(&self) -> &crate::name::Name {
        &self.checked.name
    }

    /// The validation of the fetched tree (its facts: the release worker, the runtime).
    pub(super) fn report(&self) -> &crate::validate::PluginReport {
        &self.checked.report
    }
}

/// Fetch `opts.source` into a new staging directory and check the tree as an install
/// does: its manifest and gates, then its signature where one is required.
pub(super) fn fetch_and_check(
    opts: &InstallOptions,
    on_event: &mut dyn FnMut(Event),
) -> Result<Fetched, InstallError> {
    plan::superseded(opts)?;
    let staging = Staging::new(home_for(opts, None)?.as_ref())?;
    let tree = staging.tree();
    let stage::Staged {
        commit,
        kind,
        requested,
        signed,
    } = stage::fetch(opts, &tree, on_event)?;
    // An invalid tree's report names the source, not the staging directory it is deleted from.
    let checked = check_tree(opts, &tree)
        .map_err(|e| at_source(e, &opts.source, &tree, &requested, commit.as_deref()))?;
    // The plugin's id and home are known now: whether it must be signed, and by whom.
    let signer = signed::check(
        opts,
        home_for(opts, Some(checked.dialect))?.as_ref(),
        &checked.id,
        signed.as_ref(),
        staging.dir.path(),
        on_event,
    )?;
    Ok(Fetched {
        staging,
        commit,
        kind,
        requested,
        checked,
        signer,
    })
}
