//! `plugins info`: one installed plugin: what its lock row pins, what its host's own records
//! say of it, and the host's verdict on its files now.

use std::path::PathBuf;

use serde::Serialize;

use super::list::{HomeRecords, ListRow};
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::profile::HostProfile;
use crate::release::Placed;
use crate::validate::{ValidateOptions, validate_root};

/// One plugin, as `info --json` prints it.
#[derive(Debug, Serialize)]
pub struct Info {
    pub id: String,
    pub dialect: crate::dialect::Dialect,
    pub version: String,
    pub source: String,
    pub requested_ref: String,
    pub ref_kind: Option<crate::git::RefKind>,
    pub commit: Option<String>,
    pub manifest_hash: String,
    pub tree_hash: String,
    pub path: String,
    pub present: bool,
    /// The host's verdict on the installed files (`None`: they are missing).
    pub valid: Option<bool>,
    pub unbuilt: bool,
    pub subdir: Option<String>,
    pub signer_key: Option<String>,
    /// The host it is judged for: remembered in the home, else detected.
    pub host: Option<HostSeen>,
    pub release: Option<Placed>,
    pub home: String,
    pub enabled: Option<bool>,
    pub hold: Option<crate::hold::Hold>,
    pub deps: Option<Vec<crate::lock::DepPin>>,
    /// `[host]` of the home's `plugins.toml`, described, and that file.
    #[serde(skip)]
    pub remembered: Option<(String, PathBuf)>,
    /// The installed host, described, and what answered.
    #[serde(skip)]
    pub detected: Option<(String, String)>,
}

/// The host profile the plugin was judged against.
#[derive(Debug, Serialize)]
pub struct HostSeen {
    pub aoe_api: Option<u32>,
    pub version: Option<String>,
    /// What answered when the installed host was asked (`aoe --version`, …).
    pub detected: Option<String>,
}

/// Plugin `id` in the first home (of those `home` names) that locks it.
pub fn info(id: &str, home: Option<&PathBuf>, cx: &Context) -> Result<Info> {
    Error::plugin_name(id)?;
    for (home, lock) in cx.locked_homes(home)? {
        let Some(e) = lock.get(id) else {
            continue;
        };
        let dir = home.locked_dir(&e)?;
        let row = ListRow::of(&home, e, &HomeRecords::read(&home, &lock));
        let dialect = home.dialect;
        // Valid to the host the home remembers (`[host]` in plugins.toml), else to the
        // installed host's, detected (`aoe --version`, the host's Python).
        let remembered = HostProfile::load(&home);
        let detected = crate::host::detect::wanted(dialect, &remembered)
            .then(|| {
                let python = crate::host::detect::host_python(None, Some(&home));
                crate::host::detect::detect(dialect, &python, Some(&home))
            })
            .flatten();
        let host = match &detected {
            Some(d) => remembered.clone().or(d.profile.clone()),
            None => remembered.clone(),
        };
        let mut opts = ValidateOptions::default();
        host.apply(&mut opts);
        let valid = row.present.then(|| validate_root(&dir, &opts).is_valid());
        let e = row.entry;
        return Ok(Info {
            id: e.id,
            dialect,
            version: row.version,
            source: e.source,
            requested_ref: e.requested_ref,
            ref_kind: e.ref_kind,
            commit: e.commit,
            manifest_hash: e.manifest_hash,
            tree_hash: e.tree_hash,
            path: dir.display().to_string(),
            present: row.present,
            valid,
            unbuilt: e.unbuilt,
            subdir: e.subdir,
            signer_key: e.signer_key,
            host: (!host.is_empty()).then(|| HostSeen {
                aoe_api: host.aoe_api,
                version: host.version.clone(),
                detected: detected.as_ref().map(|d| d.how.clone()),
            }),
            release: e.release,
            home: row.home,
            enabled: row.enabled,
            hold: row.hold,
            deps: row.deps,
            remembered: (!remembered.is_empty())
                .then(|| (crate::host::detect::describe(&remembered), home.settings())),
            detected: detected.map(|d| (crate::host::detect::describe(&d.profile), d.how)),
        });
    }
    Err(Refusal::NotInstalled { id: id.to_owned() }.into())
}
