//! Consent: whether an install asks it and why (aoe §17's rules for asking again), and
//! asking it before anything of the plugin's deps or release is fetched.

use crate::host::InstallPolicy;
use crate::lock::Entry;
use crate::validate::validate_root;

use super::{InstallError, InstallOptions, Refusal, Request, plan, signed, validate_options};

/// Whether an install asks consent, why, and the installed plugin's grant and report.
pub(super) type Asked = (
    bool,
    Vec<String>,
    Option<(Request, crate::validate::PluginReport)>,
);

/// Whether installing `entry` (asking for `request`) over the home's `prior` asks consent,
/// and what the installed plugin was granted: an update asks again only when what was
/// granted changes (aoe §17's rules), or when the trust is downgraded from featured.
pub(super) fn asks(
    opts: &InstallOptions,
    prior: Option<&Entry>,
    target: &std::path::Path,
    entry: &Entry,
    request: &Request,
) -> Asked {
    match prior {
        Some(p) if target.is_dir() => {
            let installed = validate_root(target, &validate_options(opts, target));
            let (before, _, _) = plan::describe(&installed, target, &p.source, p.commit.as_deref());
            let mut why = plan::reconsent(
                &before,
                request,
                p.manifest_hash != entry.manifest_hash,
                p.tree_hash != entry.tree_hash,
            );
            if p.featured && !entry.featured {
                // aoe: trust downgraded to community.
                why.push("trust featured -> community (not a pinned featured version)".to_owned());
            }
            if let Some((old, new)) = &request.signer_change {
                why.push(format!("signed by a different key: {old} -> {new}"));
            }
            (!why.is_empty(), why, Some((before, installed)))
        }
        // A first install asks for what it grants; there is no change to name.
        _ => match &request.signer_change {
            Some((old, new)) => (
                true,
                vec![format!("signed by a different key: {old} -> {new}")],
                None,
            ),
            None => (request.needs_consent(), Vec::new(), None),
        },
    }
}

/// Ask `consent` when the install asks it (or `--ask-again` says why), with the reasons in
/// `request`: declined, nothing is granted, and a change of signer is refused as one.
pub(super) fn ask(
    opts: &InstallOptions,
    prior: Option<&Entry>,
    target: &std::path::Path,
    entry: &Entry,
    request: &mut Request,
    consent: &mut dyn FnMut(&Request) -> bool,
) -> Result<(), InstallError> {
    // An update asks again only when what was granted changes (aoe §17's rules).
    let (mut ask, mut why, _) = asks(opts, prior, target, entry, request);
    if let Some(again) = &opts.ask_again {
        ask = true;
        why.push(again.clone());
    }
    request.reasons = why;
    if ask && !consent(request) {
        if let Some(change) = &request.signer_change {
            return Err(signed::refuse_change(&entry.id, change));
        }
        return Err(Refusal::Declined.into());
    }
    Ok(())
}

/// aoe §17: a `gh:` install from an explicit ref, or from the default branch of a
/// repository without a release, is unverified code and asks, unless featured-verified.
pub(super) fn unverified(
    opts: &InstallOptions,
    policy: &InstallPolicy,
    featured: bool,
    kind: Option<crate::git::RefKind>,
) -> bool {
    policy.gh_ref_unverified
        && !featured
        && opts.pin.is_none()
        && opts.expect_id.is_none()
        && opts.source.recorded().starts_with("gh:")
        && (matches!(
            &opts.source,
            crate::source::Source::Git {
                reference: Some(_),
                ..
            }
        ) || kind == Some(crate::git::RefKind::Default))
}
