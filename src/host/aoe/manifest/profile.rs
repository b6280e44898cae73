//! The two Agent of Empires host profiles `plugins` reproduces (spec `aoe.md` §0).
//!
//! H12 is aoe 1.14.0 (`API_VERSION = 12`), H15 is aoe 1.19.0 (`API_VERSION = 15`).
//! They differ in capabilities (§4), gates (§5), UI slots (§12) and setting types (§9).

use std::sync::LazyLock;

/// A host profile: which aoe release to validate against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    H12,
    #[default]
    H15,
}

/// Which profiles a closed-set member exists on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum On {
    Both,
    H12Only,
    H15Only,
}

use On::{Both, H12Only, H15Only};

/// `KNOWN_CAPABILITIES` (§4), in the host's order.
const CAPABILITIES: &[(&str, On)] = &[
    ("runtime.worker", Both),
    ("session.read", Both),
    ("session.write", Both),
    ("config.read", Both),
    ("config.write", Both),
    ("process.spawn", Both),
    ("net", Both),
    ("fs.read", Both),
    ("fs.write", Both),
    ("clipboard.read", Both),
    ("clipboard.write", Both),
    ("notifications", Both),
    ("browser_open", Both),
    ("composer.read", Both),
    ("composer.write", Both),
    ("acp.capabilities.read", Both),
    ("acp.capabilities.probe", Both),
    ("session.create", Both),
    ("session.prompt", Both),
    ("session.unattended", Both),
    ("session.message", H15Only),
];

/// `UiSlot` (§12), in declaration order.
const SLOTS: &[(&str, On)] = &[
    ("status-bar", Both),
    ("row-badge", Both),
    ("row-column", Both),
    ("sort-key", Both),
    ("filter-facet", Both),
    ("card", Both),
    ("pane", Both),
    ("composer-action", Both),
    ("detail-badge", Both),
    ("settings-page", H12Only),
    ("tool-card-badge", H12Only),
    ("home-pane", H15Only),
    ("notification", Both),
];

/// The alias of `bool` in `SettingType` and `ObjectFieldType` (`#[serde(alias = "boolean")]`).
pub(crate) const BOOL_ALIAS: &str = "boolean";

/// `SettingType` (§9); `dynamic_multi_select` is a field type only.
const SETTING_TYPES: &[(&str, On)] = &[
    ("string", Both),
    ("bool", Both),
    ("integer", Both),
    ("select", Both),
    ("dynamic_select", Both),
    ("object_list", Both),
    ("cron", Both),
    ("string_list", H15Only),
];

/// `ObjectFieldType` (§9); `object_list` is a setting type only.
const FIELD_TYPES: &[(&str, On)] = &[
    ("string", Both),
    ("bool", Both),
    ("integer", Both),
    ("select", Both),
    ("dynamic_select", Both),
    ("dynamic_multi_select", Both),
    ("cron", Both),
    ("string_list", H15Only),
];

/// The closed sets of one profile, selected once from the tables above.
struct Sets {
    capabilities: Vec<&'static str>,
    slots: Vec<&'static str>,
    setting_types: Vec<&'static str>,
    field_types: Vec<&'static str>,
    /// With the `boolean` alias after `bool`, as serde lists a variant's aliases.
    setting_type_spellings: Vec<&'static str>,
    field_type_spellings: Vec<&'static str>,
}

impl Sets {
    fn of(profile: Profile) -> Sets {
        let select = |table: &[(&'static str, On)]| -> Vec<&'static str> {
            table
                .iter()
                .filter(|(_, on)| match on {
                    Both => true,
                    H12Only => profile == Profile::H12,
                    H15Only => profile == Profile::H15,
                })
                .map(|(name, _)| *name)
                .collect()
        };
        let spellings = |types: &[&'static str]| -> Vec<&'static str> {
            types
                .iter()
                .flat_map(|t| std::iter::once(*t).chain((*t == "bool").then_some(BOOL_ALIAS)))
                .collect()
        };
        Sets {
            capabilities: select(CAPABILITIES),
            slots: select(SLOTS),
            setting_type_spellings: spellings(&select(SETTING_TYPES)),
            field_type_spellings: spellings(&select(FIELD_TYPES)),
            setting_types: select(SETTING_TYPES),
            field_types: select(FIELD_TYPES),
        }
    }
}

fn sets(profile: Profile) -> &'static Sets {
    static H12: LazyLock<Sets> = LazyLock::new(|| Sets::of(Profile::H12));
    static H15: LazyLock<Sets> = LazyLock::new(|| Sets::of(Profile::H15));
    match profile {
        Profile::H12 => &H12,
        Profile::H15 => &H15,
    }
}

/// `option_source` values (both profiles).
pub(crate) const OPTION_SOURCES: &[&str] = &[
    "acp.agents",
    "acp.models",
    "acp.modes",
    "projects",
    "groups",
];

/// `runtime.kind` values (both profiles; `self-exec` exists only on a branch).
pub(crate) const RUNTIME_KINDS: &[&str] = &["command", "release-binary"];

/// `commands.action.kind` values (both profiles).
pub(crate) const ACTION_KINDS: &[&str] = &["open-ui-link"];

/// `runtime.build[].platforms` values (`std::env::consts::OS` names).
pub(crate) const PLATFORMS: &[&str] = &["linux", "macos", "windows"];

/// Builtin theme names (H12, `src/tui/styles/mod.rs`).
pub(crate) const BUILTIN_THEMES: &[&str] = &[
    "zinc",
    "empire",
    "phosphor",
    "tokyo-night-storm",
    "catppuccin-latte",
    "dracula",
    "rose-pine",
    "deep-ocean",
];

/// Builtin plugin ids a community install may not claim.
pub(crate) const BUILTIN_IDS: &[&str] = &["aoe.web"];

/// First id segments only featured plugins may use.
pub(crate) const RESERVED_NAMESPACES: &[&str] = &["aoe", "agent-of-empires"];

/// Slot names that once existed, with what became of them.
pub(crate) const HISTORIC_SLOTS: &[(&str, &str)] = &[
    ("detail-panel", "renamed to `pane` in api_version 3"),
    ("status-bar-segment", "renamed to `status-bar`"),
    ("session-row-badge", "renamed to `row-badge`"),
];

/// A feature gated on `api_version` that the profile enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    Status,
    AoeVersion,
    Screenshots,
    Icon,
    IconAsset,
    ComposerAction,
    V9SettingTypes,
    SettingsPage,
    ToolCardBadge,
    DynamicMultiSelect,
    HomePane,
    StringList,
    SessionMessage,
}

impl Gate {
    /// The minimum `api_version` and the host's exact message.
    pub fn requirement(self) -> (u32, &'static str) {
        match self {
            Gate::Status => (4, "status contributions require api_version >= 4"),
            Gate::AoeVersion => (4, "aoe_version requires api_version >= 4"),
            Gate::Screenshots => (5, "screenshots require api_version >= 5"),
            Gate::Icon => (7, "icon requires api_version >= 7"),
            Gate::IconAsset => (7, "icon_asset requires api_version >= 7"),
            Gate::ComposerAction => (8, "composer-action UI slots require api_version >= 8"),
            Gate::V9SettingTypes => (
                9,
                "dynamic_select / object_list / cron settings require api_version >= 9",
            ),
            Gate::SettingsPage => (10, "settings-page UI slots require api_version >= 10"),
            Gate::ToolCardBadge => (10, "tool-card-badge UI slots require api_version >= 10"),
            Gate::DynamicMultiSelect => (
                11,
                "dynamic_multi_select settings fields require api_version >= 11",
            ),
            Gate::HomePane => (13, "home-pane UI slots require api_version >= 13"),
            Gate::StringList => (14, "string_list settings require api_version >= 14"),
            Gate::SessionMessage => (
                15,
                "the session.message capability requires api_version >= 15",
            ),
        }
    }
}

impl Profile {
    /// The `--aoe-api` number that selects this profile.
    pub fn api_version(self) -> u32 {
        match self {
            Profile::H12 => 12,
            Profile::H15 => 15,
        }
    }

    pub fn from_api(api: u32) -> Option<Profile> {
        match api {
            12 => Some(Profile::H12),
            15 => Some(Profile::H15),
            _ => None,
        }
    }

    /// The aoe release the profile was read from.
    pub fn aoe_release(self) -> &'static str {
        match self {
            Profile::H12 => "1.14.0",
            Profile::H15 => "1.19.0",
        }
    }

    pub fn capabilities(self) -> &'static [&'static str] {
        &sets(self).capabilities
    }

    pub fn slots(self) -> &'static [&'static str] {
        &sets(self).slots
    }

    /// Setting types with the `boolean` alias after `bool`: what the host's
    /// `unknown variant` error lists.
    pub fn setting_type_spellings(self) -> &'static [&'static str] {
        &sets(self).setting_type_spellings
    }

    /// Field types with the `boolean` alias after `bool`.
    pub fn field_type_spellings(self) -> &'static [&'static str] {
        &sets(self).field_type_spellings
    }

    /// Setting types, canonical names (`boolean` is accepted as an alias of `bool`).
    pub fn setting_types(self) -> &'static [&'static str] {
        &sets(self).setting_types
    }

    pub fn field_types(self) -> &'static [&'static str] {
        &sets(self).field_types
    }

    /// Slots whose entries belong to one session (`UiSlot::is_per_session`).
    pub fn is_per_session(self, slot: &str) -> bool {
        matches!(
            slot,
            "row-badge" | "row-column" | "pane" | "composer-action" | "detail-badge"
        ) || (self == Profile::H12 && slot == "tool-card-badge")
    }

    /// The gates the profile enforces, in the host's check order.
    pub fn gates(self) -> &'static [Gate] {
        match self {
            Profile::H12 => &[
                Gate::Status,
                Gate::AoeVersion,
                Gate::Screenshots,
                Gate::Icon,
                Gate::IconAsset,
                Gate::ComposerAction,
                Gate::V9SettingTypes,
                Gate::SettingsPage,
                Gate::ToolCardBadge,
                Gate::DynamicMultiSelect,
            ],
            Profile::H15 => &[
                Gate::Status,
                Gate::AoeVersion,
                Gate::Screenshots,
                Gate::Icon,
                Gate::IconAsset,
                Gate::ComposerAction,
                Gate::V9SettingTypes,
                Gate::DynamicMultiSelect,
                Gate::HomePane,
                Gate::StringList,
                Gate::SessionMessage,
            ],
        }
    }

    /// Why a slot this profile lacks is gone, for help text.
    pub fn slot_history(self, slot: &str) -> Option<&'static str> {
        if let Some((_, why)) = HISTORIC_SLOTS.iter().find(|(s, _)| *s == slot) {
            return Some(why);
        }
        match (self, slot) {
            (Profile::H15, "settings-page" | "tool-card-badge") => Some(
                "removed in api_version 15 when MCP and skills management moved into core; \
                 it is a parse error at every api_version on aoe >= 1.19",
            ),
            (Profile::H12, "home-pane") => Some("added in api_version 13 (aoe >= 1.19)"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_spec_says() {
        assert_eq!(Profile::H12.capabilities().len(), 20);
        assert_eq!(Profile::H15.capabilities().len(), 21);
        assert!(Profile::H12.slots().contains(&"settings-page"));
        assert!(!Profile::H15.slots().contains(&"settings-page"));
        assert!(Profile::H15.slots().contains(&"home-pane"));
        assert!(!Profile::H12.setting_types().contains(&"string_list"));
        assert!(Profile::H15.field_types().contains(&"string_list"));
        assert!(Profile::H12.is_per_session("tool-card-badge"));
        assert!(!Profile::H15.is_per_session("tool-card-badge"));
    }
}
