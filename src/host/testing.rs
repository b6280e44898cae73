//! Host internals that tests compare with the hosts' own behaviour, in one place: the
//! parity sweeps and corpus runs call a host's manifest rules directly, and the protoAgent
//! tests read its bundled tables. Not an API: production code asks `src/host/mod.rs`'s
//! capabilities, and nothing here is kept stable.

use super::HostOptions;

/// aoe's manifest rules (`aoe.md`).
pub mod aoe {
    pub use crate::host::aoe::manifest::profile::Profile;
    pub use crate::host::aoe::manifest::rules::id_problem;
    pub use crate::host::aoe::manifest::schema::build as schema;
    pub use crate::host::aoe::manifest::{Options, validate};

    /// The hosts' options with aoe's set to `options`.
    pub fn host(options: Options) -> super::HostOptions {
        super::HostOptions {
            aoe: options,
            ..super::HostOptions::default()
        }
    }
}

/// AWorld's manifest rules and schema.
pub mod aworld {
    pub use crate::host::aworld::manifest::{Options, SCHEMA, validate, validate_legacy};

    /// The hosts' options with AWorld's set to `options`.
    pub fn host(options: Options) -> super::HostOptions {
        super::HostOptions {
            aworld: options,
            ..super::HostOptions::default()
        }
    }
}

/// protoAgent's manifest rules, schema and bundled tables (0.145 / 0.218).
pub mod protoagent {
    pub use crate::host::protoagent::bundled::{Allow, allowlist, source_matches, superseding};
    pub use crate::host::protoagent::manifest::{BUNDLED_0145, BUNDLED_0218_ADDED, is_bundled};
    pub use crate::host::protoagent::manifest::{
        Options, Profile, SCHEMA, gate_host_version, host_log, validate,
    };

    /// The hosts' options with protoAgent's set to `options`.
    pub fn host(options: Options) -> super::HostOptions {
        super::HostOptions {
            protoagent: options,
            ..super::HostOptions::default()
        }
    }
}
