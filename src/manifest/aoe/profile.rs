//! The two Agent of Empires host profiles `plugins` reproduces (spec `aoe.md` §0).
//!
//! H12 is aoe 1.14.0 (`API_VERSION = 12`), H15 is aoe 1.19.0 (`API_VERSION = 15`).
//! They differ in capabilities (§4), gates (§5), UI slots (§12) and setting types (§9).

/// A host profile: which aoe release to validate against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    H12,
    #[default]
    H15,
}

const CAPABILITIES_H12: &[&str] = &[
    "runtime.worker",
    "session.read",
    "session.write",
    "config.read",
    "config.write",
    "process.spawn",
    "net",
    "fs.read",
    "fs.write",
    "clipboard.read",
    "clipboard.write",
    "notifications",
    "browser_open",
    "composer.read",
    "composer.write",
    "acp.capabilities.read",
    "acp.capabilities.probe",
    "session.create",
    "session.prompt",
    "session.unattended",
];

const CAPABILITIES_H15: &[&str] = &[
    "runtime.worker",
    "session.read",
    "session.write",
    "config.read",
    "config.write",
    "process.spawn",
    "net",
    "fs.read",
    "fs.write",
    "clipboard.read",
    "clipboard.write",
    "notifications",
    "browser_open",
    "composer.read",
    "composer.write",
    "acp.capabilities.read",
    "acp.capabilities.probe",
    "session.create",
    "session.prompt",
    "session.unattended",
    "session.message",
];

const SLOTS_H12: &[&str] = &[
    "status-bar",
    "row-badge",
    "row-column",
    "sort-key",
    "filter-facet",
    "card",
    "pane",
    "composer-action",
    "detail-badge",
    "settings-page",
    "tool-card-badge",
    "notification",
];

const SLOTS_H15: &[&str] = &[
    "status-bar",
    "row-badge",
    "row-column",
    "sort-key",
    "filter-facet",
    "card",
    "pane",
    "composer-action",
    "detail-badge",
    "home-pane",
    "notification",
];

const SETTING_TYPES_H12: &[&str] = &[
    "string",
    "bool",
    "integer",
    "select",
    "dynamic_select",
    "object_list",
    "cron",
];

const SETTING_TYPES_H15: &[&str] = &[
    "string",
    "bool",
    "integer",
    "select",
    "dynamic_select",
    "object_list",
    "cron",
    "string_list",
];

const FIELD_TYPES_H12: &[&str] = &[
    "string",
    "bool",
    "integer",
    "select",
    "dynamic_select",
    "dynamic_multi_select",
    "cron",
];

const FIELD_TYPES_H15: &[&str] = &[
    "string",
    "bool",
    "integer",
    "select",
    "dynamic_select",
    "dynamic_multi_select",
    "cron",
    "string_list",
];

/// `option_source` values (both profiles).
pub const OPTION_SOURCES: &[&str] = &[
    "acp.agents",
    "acp.models",
    "acp.modes",
    "projects",
    "groups",
];

/// `runtime.kind` values (both profiles; `self-exec` exists only on a branch).
pub const RUNTIME_KINDS: &[&str] = &["command", "release-binary"];

/// `commands.action.kind` values (both profiles).
pub const ACTION_KINDS: &[&str] = &["open-ui-link"];

/// `runtime.build[].platforms` values (`std::env::consts::OS` names).
pub const PLATFORMS: &[&str] = &["linux", "macos", "windows"];

/// Builtin theme names (H12, `src/tui/styles/mod.rs`).
pub const BUILTIN_THEMES: &[&str] = &[
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
pub const BUILTIN_IDS: &[&str] = &["aoe.web"];

/// First id segments only featured plugins may use.
pub const RESERVED_NAMESPACES: &[&str] = &["aoe", "agent-of-empires"];

/// Slot names that once existed, with what became of them.
pub const HISTORIC_SLOTS: &[(&str, &str)] = &[
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
        match self {
            Profile::H12 => CAPABILITIES_H12,
            Profile::H15 => CAPABILITIES_H15,
        }
    }

    pub fn slots(self) -> &'static [&'static str] {
        match self {
            Profile::H12 => SLOTS_H12,
            Profile::H15 => SLOTS_H15,
        }
    }

    /// Setting types, canonical names (`boolean` is accepted as an alias of `bool`).
    pub fn setting_types(self) -> &'static [&'static str] {
        match self {
            Profile::H12 => SETTING_TYPES_H12,
            Profile::H15 => SETTING_TYPES_H15,
        }
    }

    pub fn field_types(self) -> &'static [&'static str] {
        match self {
            Profile::H12 => FIELD_TYPES_H12,
            Profile::H15 => FIELD_TYPES_H15,
        }
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
