//! What an update would ask for, without changing anything: the new tree is fetched into
//! a temporary directory (never the home's staging), checked as an install checks it, and
//! compared with the installed plugin by the rules an install uses to ask again.

use super::{
    InstallError, InstallOptions, Request, Staging, asks, check_tree, home_for, plan, signed,
};
use crate::lock::{Entry, Lock};

/// An update's permissions, before and after, and whether it would ask consent.
#[derive(Clone, Debug)]
pub struct Preview {
    /// What the installed plugin was granted (`None`: not installed here).
    pub before: Option<Request>,
    pub after: Request,
    /// aoe's worker runtime, before and after (`command`, `release binary <asset>`).
    pub runtime_before: Option<String>,
    pub runtime_after: Option<String>,
    /// The install would ask consent (`update` without --yes would prompt; `autoupdate`
    /// would hold it for approval).
    pub consent: bool,
    /// Why it would ask again (what changed in the grant), as the update's prompt says.
    pub reasons: Vec<String>,
    /// The featured pin no longer holds: the trust falls to community.
    pub trust_downgraded: bool,
}

/// Fetch `opts.source` into a temporary directory, check it, and compare it with what
/// the home has installed. Reads the home; writes nothing to it.
pub fn preview(
    opts: &InstallOptions,
    on_event: &mut dyn FnMut(super::Event),
) -> Result<Preview, InstallError> {
    let staging = Staging::new(None)?;
    let tree = staging.tree();
    let staged = super::stage::fetch(opts, &tree, on_event)?;
    let commit = staged.commit;
    let checked = check_tree(opts, &tree)?;
    let home = home_for(opts, Some(checked.dialect))?;
    // Verified as the install would verify it: a dry run refuses what the update would.
    let signer = signed::check(
        opts,
        home.as_ref(),
        &checked.id,
        staged.signed.as_ref(),
        staging.dir.path(),
        on_event,
    )?;
    let prior = match &home {
        Some(h) => Lock::load(&h.lockfile(), checked.dialect)?.get(&checked.id),
        None => None,
    };
    let target = home.as_ref().map(|h| h.plugin_dir(&checked.name));
    let source = opts.source.recorded();
    let (mut after, _, _) = plan::describe(&checked.report, &tree, &source, commit.as_deref());
    after.signer_change = signed::changed(signer.as_deref(), prior.as_ref());
    let entry = Entry {
        manifest_hash: checked.report.manifest_hash.clone().unwrap_or_default(),
        tree_hash: crate::hash::tree(&tree).unwrap_or_default(),
        featured: checked.featured,
        ..prior.clone().unwrap_or(Entry {
            id: checked.id.clone(),
            source,
            requested_ref: String::new(),
            ref_kind: None,
            commit: None,
            ..Entry::default()
        })
    };
    let (consent, reasons, installed) = match &target {
        Some(t) => asks(opts, prior.as_ref(), t, &entry, &after),
        None => (after.needs_consent(), Vec::new(), None),
    };
    let (before, runtime_before) = match installed {
        Some((req, report)) => (Some(req), plan::runtime(&report)),
        None => (None, None),
    };
    Ok(Preview {
        before,
        after,
        runtime_before,
        runtime_after: plan::runtime(&checked.report),
        consent,
        reasons,
        trust_downgraded: prior.is_some_and(|p| p.featured && !checked.featured),
    })
}
