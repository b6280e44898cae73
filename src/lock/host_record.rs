//! The host profile a lock row records (`host_aoe_api`, `host_version`): plain data, so that
//! reading a lock asks no host (`crate::profile` says what a profile means and applies it).

/// What a home's host is. `None` fields: the newest profile `plugins` knows.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostProfile {
    /// aoe's plugin API: 15 or 12.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aoe_api: Option<u32>,
    /// The host's version (semver for aoe, PEP 440 for protoAgent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

impl HostProfile {
    pub fn is_empty(&self) -> bool {
        self == &HostProfile::default()
    }

    /// What the lock records of it: `None` when nothing is given.
    pub fn recorded(self) -> Option<HostProfile> {
        (!self.is_empty()).then_some(self)
    }
}
