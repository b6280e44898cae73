//! Applying and reviewing an update: the install options that move a locked plugin.

use super::{Check, Status, cooldown::dated_ref};
use crate::lock::Entry;

/// What the update of a locked plugin to `new_ref` would bring (`update --dry-run`):
/// its commits since the locked one and its permission changes. Changes nothing.
pub fn review(
    home: &crate::store::Home,
    entry: &Entry,
    new_ref: &str,
    base: crate::install::InstallOptions,
    walks: &crate::git::Walks,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<crate::review::Review, crate::install::InstallError> {
    let check = Check {
        id: entry.id.clone(),
        source: entry.source.clone(),
        requested_ref: entry.requested_ref.clone(),
        ref_kind: entry.ref_kind,
        current: entry.commit.clone(),
        status: Status::UpToDate,
        hold: None,
        row: Some(Box::new(entry.clone())),
        published: false,
        held_tip: None,
    };
    crate::review::review(
        &options(home, entry, new_ref, base),
        &dated_ref(&check, new_ref),
        entry.commit.as_deref(),
        walks,
        on_event,
    )
}

/// The install options that update a locked plugin to `new_ref`.
pub fn options(
    home: &crate::store::Home,
    entry: &Entry,
    new_ref: &str,
    base: crate::install::InstallOptions,
) -> crate::install::InstallOptions {
    use crate::source::Source;
    let source = match &base.source {
        Source::Git {
            url,
            display,
            userinfo,
            subdir,
            ..
        } => Source::Git {
            url: url.clone(),
            reference: (!new_ref.is_empty()).then(|| new_ref.to_owned()),
            display: display.clone(),
            userinfo: userinfo.clone(),
            subdir: subdir.clone(),
        },
        other => other.clone(),
    };
    crate::install::InstallOptions {
        source,
        // A host's own home keeps its overrides (protoAgent's plugins dir and lock).
        home: (!base.defaults.is_default(home)).then(|| home.root.clone()),
        force: true,
        expect_id: Some(entry.id.clone()),
        // The command line's profile, else the one the row was installed under.
        profile: base.profile.or(entry.profile.clone().unwrap_or_default()),
        ..base
    }
}
