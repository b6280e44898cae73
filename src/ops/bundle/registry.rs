//! A bundle through an OCI registry: pulled into the first home's blob cache (a tag that
//! moved since a home recorded it refused), and after a sync, the tag's digest recorded and
//! the cache pruned to this artifact's blobs.

use std::path::PathBuf;

use serde::Serialize;

use super::open::{Opened, open_pulled};
use crate::error::{Error, Result};

/// Where `sync --from` reads a bundle: a file, or an artifact in a registry.
pub enum BundleSource {
    File(PathBuf),
    Registry(crate::oci::OciRef, crate::oci::Transport),
}

/// `sync --from`: the bundle (a file, or pulled from a registry), read into the first home's
/// scratch space, for homes that each hold the lock it was made from, byte for byte. A home
/// without a lock is refused: a bundle installs the lock committed beside it, never its own
/// copy.
pub fn open_for(from: &BundleSource, homes: &[crate::store::Home]) -> Result<Opened> {
    let Some(first) = homes.first() else {
        return Err(Error::InvalidArgument(
            "no home to sync into: pass --home".to_owned(),
        ));
    };
    for home in homes {
        // The lock is read (every field checked) before the archive is.
        home.load_lock()?;
        if !home.lockfile().is_file() {
            return Err(super::Refusal::NoLock {
                home: home.root.clone(),
                lockfile: home.lockfile(),
            }
            .into());
        }
    }
    let opened = match from {
        BundleSource::File(file) => super::open(file, first)?,
        BundleSource::Registry(reference, transport) => open_registry(reference, transport, homes)?,
    };
    for home in homes {
        opened.check_lock(&home.lockfile())?;
    }
    Ok(opened)
}

/// Pull `reference` into the first home's cache, refusing a tag that names another digest
/// than any home recorded for it (unless the digest is given beside the tag), then read it
/// as a bundle.
fn open_registry(
    reference: &crate::oci::OciRef,
    transport: &crate::oci::Transport,
    homes: &[crate::store::Home],
) -> Result<Opened> {
    let first = homes.first().expect("open_for checked");
    let mut recorded = Vec::new();
    if let (Some(key), None) = (crate::oci::tag_key(reference), &reference.digest) {
        for home in homes {
            if let Some(pin) = crate::oci::read_tags(&home.oci_tags_record())?.get(&key) {
                recorded.push(pin.digest.clone());
            }
        }
    }
    let check = |digest: &str| match recorded.iter().find(|r| *r != digest) {
        Some(r) => Err(crate::oci::OciError::TagMoved {
            reference: reference.to_string(),
            recorded: r.clone(),
            now: digest.to_owned(),
        }),
        None => Ok(()),
    };
    let pulled = crate::oci::pull(reference, transport, &first.oci_cache(), &check)?;
    open_pulled(pulled, first)
}

/// After a sync from a registry: every home records the digest the tag named, and the home
/// that holds the cache keeps only this artifact's blobs (a later pull of an unchanged plugin
/// finds its layer there). Nothing for a bundle file.
pub fn record_pulled(
    opened: Option<&Opened>,
    from: Option<&BundleSource>,
    homes: &[crate::store::Home],
) -> Result<()> {
    let pulled = opened.and_then(|o| o.pulled.as_ref());
    if let (Some(pulled), Some(BundleSource::Registry(_, transport))) = (pulled, from) {
        for home in homes {
            record_home(home, pulled, transport)?;
        }
    }
    Ok(())
}

fn record_home(
    home: &crate::store::Home,
    pulled: &crate::oci::Pulled,
    transport: &crate::oci::Transport,
) -> Result<()> {
    if let Some(key) = crate::oci::tag_key(&pulled.reference) {
        let mut tags = crate::oci::read_tags(&home.oci_tags_record())?;
        let pin = crate::oci::TagPin {
            digest: pulled.digest.clone(),
            plain_http: transport.plain_http,
        };
        if tags.get(&key) != Some(&pin) {
            tags.insert(key, pin);
            let text = serde_json::to_vec_pretty(&tags)
                .map_err(|e| Error::io("cannot write the tag record", std::io::Error::other(e)))?;
            crate::lock::write_atomic(&home.oci_tags_record(), &text)?;
        }
    }
    let blobs = home.oci_cache().join("blobs/sha256");
    let Ok(entries) = fs_err::read_dir(&blobs) else {
        return Ok(());
    };
    let keep: std::collections::BTreeSet<&str> = pulled
        .blobs
        .iter()
        .map(|d| d.trim_start_matches("sha256:"))
        .collect();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !keep.contains(name.to_string_lossy().as_ref()) {
            let _ = fs_err::remove_file(entry.path());
        }
    }
    Ok(())
}

/// `--from oci://…`: the digest installed and what was downloaded for it.
#[derive(Debug, Serialize)]
pub struct PullReport {
    /// `oci://REGISTRY/NAME[:TAG]@sha256:…`
    pub reference: String,
    pub digest: String,
    /// Blobs downloaded now, and their bytes; blobs found in the home's cache.
    pub fetched: usize,
    pub fetched_bytes: u64,
    pub cached: usize,
}

impl PullReport {
    /// What `opened` pulled (nothing for a bundle file), said on stderr as it is made.
    pub fn of(opened: &Opened, printer: &crate::printer::Printer) -> Option<PullReport> {
        let p = opened.pulled.as_ref()?;
        let report = PullReport {
            reference: p.reference.to_string(),
            digest: p.digest.clone(),
            fetched: p.fetched,
            fetched_bytes: p.fetched_bytes,
            cached: p.cached,
        };
        printer.progress(&format!(
            "      Pulled {} ({} of {} blobs downloaded, {} bytes)",
            report.reference,
            report.fetched,
            report.fetched + report.cached,
            report.fetched_bytes
        ));
        Some(report)
    }
}
