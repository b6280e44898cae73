//! What each host validates with, as one value: [`HostOptions`] holds every host's own
//! options (private: only the host folders read them), built from the command line's
//! host-neutral [`HostArgs`] ([`super::validate_options`]) and moved by a home's
//! remembered [`HostProfile`] ([`HostOptions::apply`]).

use std::collections::BTreeMap;

use super::{aoe, aworld, protoagent};
use crate::lock::HostProfile;

/// What the command line says about the hosts a manifest is validated against, in no
/// host's terms: each host takes what applies to it.
#[derive(Clone, Debug)]
pub struct HostArgs {
    /// aoe's plugin API profile (`--aoe-api`): 15 (aoe 1.19) or 12 (aoe 1.14); another
    /// number is the default, 15.
    pub aoe_api: u32,
    /// `--host-version`: semver for aoe, PEP 440 for protoAgent.
    pub host_version: Option<String>,
    /// `--featured`: the plugin is featured-verified (aoe's reserved namespace).
    pub featured: bool,
    /// aoe's featured index (id → pinned version and tree hash).
    pub featured_index: BTreeMap<String, Vec<(String, String)>>,
    /// `--bundled`: the plugin ships inside its host.
    pub bundled: bool,
    /// Names of the environment variables set where the host will run (protoAgent's
    /// `requires_env`).
    pub env: Option<crate::host::EnvNames>,
}

impl Default for HostArgs {
    fn default() -> Self {
        HostArgs {
            aoe_api: 15,
            host_version: None,
            featured: false,
            featured_index: BTreeMap::new(),
            bundled: false,
            env: None,
        }
    }
}

/// `--host-version` as given is neither a semver (aoe) nor a PEP 440 (protoAgent) version.
#[derive(Clone, Debug, thiserror::Error)]
#[error("--host-version {0:?} is neither a semver (aoe) nor a PEP 440 (protoAgent) version")]
pub struct NotAHostVersion(pub String);

/// Every host's own validation options, as one value.
#[derive(Clone, Debug, Default)]
pub struct HostOptions {
    pub(super) aoe: aoe::manifest::Options,
    pub(super) aworld: aworld::manifest::Options,
    pub(super) protoagent: protoagent::manifest::Options,
}

/// Whether some host reads `--host-version` as given: one flag for every host, aoe wants
/// semver, protoAgent PEP 440.
pub fn check_host_version(version: Option<&str>) -> Result<(), NotAHostVersion> {
    match version {
        Some(v)
            if semver::Version::parse(v).is_err()
                && protoagent::manifest::pep440::Version::parse(v).is_none() =>
        {
            Err(NotAHostVersion(v.to_owned()))
        }
        _ => Ok(()),
    }
}

/// Each host's options from the command line's (`--aoe-api`, `--host-version`, …); refused
/// when `--host-version` is no version any host reads.
pub fn from_args(args: HostArgs) -> Result<HostOptions, NotAHostVersion> {
    check_host_version(args.host_version.as_deref())?;
    let semver_host = (args.host_version.as_deref()).and_then(|v| semver::Version::parse(v).ok());
    Ok(HostOptions {
        aoe: aoe::manifest::Options {
            profile: aoe::manifest::profile::Profile::from_api(args.aoe_api).unwrap_or_default(),
            host_version: semver_host,
            featured: args.featured,
            featured_index: args.featured_index,
            self_check: false,
        },
        aworld: aworld::manifest::Options {
            bundled: args.bundled,
        },
        protoagent: protoagent::manifest::Options {
            host_version: args.host_version,
            env: args.env,
            bundled: args.bundled,
        },
    })
}

impl HostOptions {
    /// Validate as the host `profile` names: aoe's API profile, and the version each host
    /// checks.
    pub fn apply(&mut self, profile: &HostProfile) {
        if let Some(p) = profile
            .aoe_api
            .and_then(aoe::manifest::profile::Profile::from_api)
        {
            self.aoe.profile = p;
        }
        if let Some(version) = &profile.version {
            if let Ok(semver) = semver::Version::parse(version) {
                self.aoe.host_version = Some(semver);
            }
            self.protoagent.host_version = Some(version.clone());
        }
    }

    /// A copy with `profile` applied.
    pub fn with(&self, profile: &HostProfile) -> HostOptions {
        let mut v = self.clone();
        v.apply(profile);
        v
    }

    /// protoAgent's release these options validate as.
    pub(super) fn protoagent_profile(&self) -> protoagent::manifest::Profile {
        protoagent::manifest::profile(&self.protoagent)
    }
}

/// Whether `api` is an aoe plugin API `plugins` has a profile for (12 or 15).
pub fn known_aoe_api(api: u32) -> bool {
    aoe::manifest::profile::Profile::from_api(api).is_some()
}
