//! `require_signed`: the fetched tag's or commit's signature, verified by git in staging
//! before anything is swapped in, and the key the lock pins (trust on first use).

use std::path::Path;

use super::{Event, InstallError, InstallOptions, Refusal};
use crate::git;
use crate::source::Source;
use crate::store::Home;

/// The fingerprint of the key that signed what was fetched, when plugin `id` must be
/// signed (`--require-signed`, or `[trust]` of the home it goes to); `None` when it need not
/// be (nothing is verified then). An unsigned source, a signature git refuses and a
/// `[trust]` table that cannot be read are refused. `signed`: what the fetch kept (`None`:
/// a plain directory); `within`: the staging directory git verifies in.
pub(super) fn check(
    opts: &InstallOptions,
    home: Option<&Home>,
    id: &str,
    signed: Option<&git::Signed>,
    within: &Path,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<String>, InstallError> {
    let trust = match home {
        Some(h) => {
            crate::signing::load(h).map_err(|why| InstallError::from(Refusal::Trust { why }))?
        }
        None => crate::signing::Trust::default(),
    };
    let settings = home.map(Home::settings).unwrap_or_default();
    let rule = trust.rule(id, &opts.signing, &settings);
    if !rule.required {
        return Ok(None);
    }
    let (Source::Git { url, .. }, Some(signed)) = (&opts.source, signed) else {
        return Err(Refusal::UnsignedDirectory {
            id: id.to_owned(),
            shown: opts.source.recorded().to_string(),
        }
        .into());
    };
    if let Some(why) = rule.missing_signers_file() {
        return Err(Refusal::NoSignersFile { why }.into());
    }
    // As of when plugins first saw this commit: the lock's record for a pinned row (a sync
    // on another machine), else now; never the date the tag or commit claims.
    let at = opts
        .pin
        .as_ref()
        .filter(|p| p.commit.is_some() && p.commit == signed.commit_id())
        .and_then(|p| p.signer_seen.as_deref())
        .and_then(crate::clock::parse_rfc3339)
        .unwrap_or_else(crate::clock::now_secs);
    let signer = git::verify_signature(signed, url, rule.allowed_signers.as_deref(), within, at)?;
    log::debug!(
        "{id}: {} signed by {} ({})",
        signer.object,
        signer.fingerprint,
        signer.principal.as_deref().unwrap_or("no principal")
    );
    on_event(Event::Verified {
        object: signer.object.clone(),
        fingerprint: signer.fingerprint.clone(),
        principal: signer.principal.clone(),
    });
    Ok(Some(signer.fingerprint))
}

/// The key the lock pins after an install of `verified` over `prior` from `source`: the
/// key that signed it; unverified, the pin of the same source stays (a later verified
/// update is compared with it).
pub(super) fn pinned_key(
    verified: Option<&str>,
    prior: Option<&crate::lock::Entry>,
    source: &str,
) -> Option<String> {
    verified.map(str::to_owned).or_else(|| {
        prior
            .filter(|p| p.source == source)
            .and_then(|p| p.signer_key.clone())
    })
}

/// `(recorded, new)` when a verified install is signed by another key than the one the
/// lock recorded for the plugin: it asks consent again. A first verified install records
/// its key without asking (trust on first use).
pub(super) fn changed(
    verified: Option<&str>,
    prior: Option<&crate::lock::Entry>,
) -> Option<(String, String)> {
    let old = prior?.signer_key.as_deref()?;
    let new = verified?;
    (old != new).then(|| (old.to_owned(), new.to_owned()))
}

/// The refusal of an install whose new signing key was not accepted.
pub(super) fn refuse_change(id: &str, (old, new): &(String, String)) -> InstallError {
    Refusal::SignerChanged {
        id: id.to_owned(),
        old: old.clone(),
        new: new.clone(),
    }
    .into()
}
