//! The host's `validate()`: every semantic problem, collected in the host's
//! order with the host's exact messages (spec `aoe.md` §2–§16, §19 step 4).

use super::profile::{Gate, Profile};
use super::raw::Manifest;

mod commands;
mod defaults;
mod media;
mod runtime;
mod settings;

use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::Pointer;
use crate::ptr;
use commands::commands;
use media::media;
use runtime::runtime;
use settings::settings;

/// Collects findings; `check(ok, …)` mirrors the host's closure.
struct Cx {
    out: Vec<Finding>,
}

impl Cx {
    fn check(&mut self, ok: bool, f: impl FnOnce() -> Finding) {
        if !ok {
            self.out.push(f());
        }
    }
}

fn err(code: Code, message: impl Into<String>, at: Pointer) -> Finding {
    Finding::new(code, message, at)
}

/// Run the semantic pass over a manifest that passed the typed parse.
pub(super) fn validate(m: &Manifest, profile: Profile) -> Vec<Finding> {
    let mut cx = Cx { out: Vec::new() };
    let max = profile.api_version();
    cx.check((1..=max).contains(&m.api_version), || {
        err(
            Code::AoeApiVersion,
            format!(
                "api_version {} is not supported (host supports 1..={max})",
                m.api_version
            ),
            ptr!["api_version"],
        )
    });
    cx.check(!m.version.is_empty(), || {
        err(Code::AoeEmpty, "version must not be empty", ptr!["version"])
    });
    cx.check(!m.name.is_empty(), || {
        err(Code::AoeEmpty, "name must not be empty", ptr!["name"])
    });
    runtime(&mut cx, m);
    commands(&mut cx, m, profile);
    keybinds(&mut cx, m);
    settings(&mut cx, m);
    themes_and_status(&mut cx, m);
    media(&mut cx, m);
    if let Some(req) = &m.aoe_version {
        cx.check(semver::VersionReq::parse(req).is_ok(), || {
            let why = semver::VersionReq::parse(req).err().map(|e| e.to_string());
            let f = err(
                Code::AoeAoeVersion,
                format!("aoe_version {req:?} is not a valid semver requirement"),
                ptr!["aoe_version"],
            )
            .help("use Cargo-style comparators, e.g. \">=1.11.0, <2.0.0\"");
            match why {
                Some(why) => f.label(why),
                None => f,
            }
        });
    }
    gates(&mut cx, m, profile);
    for (key, value) in &m.setting_defaults {
        cx.check(key.contains('.') && !key.starts_with('.') && !key.ends_with('.'), || {
            let f = err(
                Code::AoeSettingDefaultsKey,
                format!("setting_defaults key {key:?} must be a dotted core path like \"section.field\""),
                ptr!["setting_defaults", key.clone()],
            )
            .on_key();
            if value.is_table() {
                f.help(format!(
                    "an unquoted dotted key makes a nested table; quote the whole path, e.g. \"{key}.field\" = …"
                ))
            } else {
                f
            }
        });
    }
    for (i, u) in m.ui.iter().enumerate() {
        cx.check(!u.id.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("ui[{i}].id must not be empty"),
                ptr!["ui", i, "id"],
            )
        });
    }
    cx.out
}

/// `[[keybinds]]`: a command and a key each.
fn keybinds(cx: &mut Cx, m: &Manifest) {
    for (i, k) in m.keybinds.iter().enumerate() {
        cx.check(!k.command.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("keybinds[{i}].command must not be empty"),
                ptr!["keybinds", i, "command"],
            )
        });
        cx.check(!k.key.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("keybinds[{i}].key must not be empty"),
                ptr!["keybinds", i, "key"],
            )
        });
    }
}

/// `[[themes]]` (a name and a path each) and `[[status]]` (an id each).
fn themes_and_status(cx: &mut Cx, m: &Manifest) {
    for (i, t) in m.themes.iter().enumerate() {
        cx.check(!t.name.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("themes[{i}].name must not be empty"),
                ptr!["themes", i, "name"],
            )
        });
        cx.check(!t.path.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("themes[{i}].path must not be empty"),
                ptr!["themes", i, "path"],
            )
        });
    }
    for (i, s) in m.status.iter().enumerate() {
        cx.check(!s.id.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("status[{i}].id must not be empty"),
                ptr!["status", i, "id"],
            )
        });
    }
}

/// The first use of a gated feature, to label; `None` when unused.
fn gate_use(m: &Manifest, gate: Gate) -> Option<Pointer> {
    let slot = |name: &str| {
        m.ui.iter()
            .position(|u| u.slot == name)
            .map(|i| ptr!["ui", i, "slot"])
    };
    let setting_type = |pred: &dyn Fn(&str) -> bool| {
        m.settings
            .iter()
            .position(|s| pred(s.value_type.as_str()))
            .map(|i| ptr!["settings", i, "type"])
    };
    let field_type = |name: &str| {
        m.settings.iter().enumerate().find_map(|(i, s)| {
            s.fields
                .iter()
                .position(|f| f.value_type == name)
                .map(|j| ptr!["settings", i, "fields", j, "type"])
        })
    };
    match gate {
        Gate::Status => (!m.status.is_empty()).then(|| ptr!["status"]),
        Gate::AoeVersion => m.aoe_version.is_some().then(|| ptr!["aoe_version"]),
        Gate::Screenshots => (!m.screenshots.is_empty()).then(|| ptr!["screenshots"]),
        Gate::Icon => m.icon.is_some().then(|| ptr!["icon"]),
        Gate::IconAsset => m.icon_asset.is_some().then(|| ptr!["icon_asset"]),
        Gate::ComposerAction => slot("composer-action"),
        Gate::V9SettingTypes => {
            setting_type(&|t| matches!(t, "dynamic_select" | "object_list" | "cron"))
        }
        Gate::SettingsPage => slot("settings-page"),
        Gate::ToolCardBadge => slot("tool-card-badge"),
        Gate::DynamicMultiSelect => field_type("dynamic_multi_select"),
        Gate::HomePane => slot("home-pane"),
        Gate::StringList => {
            setting_type(&|t| t == "string_list").or_else(|| field_type("string_list"))
        }
        Gate::SessionMessage => m
            .capabilities
            .iter()
            .position(|c| c == "session.message")
            .map(|i| ptr!["capabilities", i]),
    }
}

fn gates(cx: &mut Cx, m: &Manifest, profile: Profile) {
    for &gate in profile.gates() {
        let (min, message) = gate.requirement();
        if m.api_version >= min {
            continue;
        }
        if let Some(at) = gate_use(m, gate) {
            let key_like = matches!(
                gate,
                Gate::Status | Gate::Screenshots | Gate::AoeVersion | Gate::Icon | Gate::IconAsset
            );
            let f = err(Code::AoeApiGate, message, at)
                .also(
                    ptr!["api_version"],
                    format!("api_version is {}", m.api_version),
                )
                .help(format!(
                    "set `api_version = {min}` or higher (hosts before that version refuse it)"
                ));
            cx.out.push(if key_like { f.on_key() } else { f });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::defaults::debug_name;
    use super::*;
    use crate::host::aoe::manifest::raw;

    fn messages(text: &str, profile: Profile) -> Vec<String> {
        let m = raw::parse(text, profile).expect("parses");
        validate(&m, profile)
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    const HEAD: &str = "id = \"a.b\"\nname = \"B\"\nversion = \"1.0.0\"\n";

    #[test]
    fn v9_types_gate_at_8() {
        let text = format!("{HEAD}api_version = 8\n[[settings]]\nkey = \"c\"\ntype = \"cron\"\n");
        assert_eq!(
            messages(&text, Profile::H12),
            ["dynamic_select / object_list / cron settings require api_version >= 9"]
        );
    }

    #[test]
    fn api_zero_and_empty_identity_in_host_order() {
        let text = "id = \"a\"\nname = \"\"\nversion = \"\"\napi_version = 0\n";
        assert_eq!(
            messages(text, Profile::H12),
            [
                "api_version 0 is not supported (host supports 1..=12)",
                "version must not be empty",
                "name must not be empty"
            ]
        );
    }

    #[test]
    fn h15_gates() {
        let text = format!(
            "{HEAD}api_version = 12\ncapabilities = [\"session.message\"]\n[[settings]]\nkey = \"l\"\ntype = \"string_list\"\n[[ui]]\nslot = \"home-pane\"\nid = \"h\"\n"
        );
        assert_eq!(
            messages(&text, Profile::H15),
            [
                "home-pane UI slots require api_version >= 13",
                "string_list settings require api_version >= 14",
                "the session.message capability requires api_version >= 15"
            ]
        );
    }

    #[test]
    fn string_list_default_must_be_strings() {
        let text = format!(
            "{HEAD}api_version = 14\n[[settings]]\nkey = \"l\"\ntype = \"string_list\"\ndefault = [1]\n"
        );
        assert_eq!(
            messages(&text, Profile::H15),
            ["settings[0].default does not match type StringList"]
        );
    }

    /// Issue #42: the host's `empty_required` takes a list-typed field whose value is not
    /// an array for empty, so a required one prints both lines (measured against upstream's
    /// `validate_object_list_default` at H15).
    #[test]
    fn a_required_list_field_of_another_type_is_also_empty() {
        let text = format!(
            "{HEAD}api_version = 14\n[[settings]]\nkey = \"jobs\"\ntype = \"object_list\"\n\
             default = [{{ _id = \"a\", projects = false, tags = \"x\" }}, {{ _id = \"b\", projects = [\"p\"], tags = [] }}]\n\
             [[settings.fields]]\nkey = \"projects\"\ntype = \"dynamic_multi_select\"\noption_source = \"projects\"\nrequired = true\n\
             [[settings.fields]]\nkey = \"tags\"\ntype = \"string_list\"\nrequired = true\n"
        );
        assert_eq!(
            messages(&text, Profile::H15),
            [
                "settings[0].default[0].projects does not match type DynamicMultiSelect",
                "settings[0].default[0].projects is required but empty",
                "settings[0].default[0].tags does not match type StringList",
                "settings[0].default[0].tags is required but empty",
                "settings[0].default[1].tags is required but empty",
            ]
        );
    }

    #[test]
    fn object_list_default_item_rules() {
        let text = format!(
            "{HEAD}api_version = 11\n[[settings]]\nkey = \"jobs\"\ntype = \"object_list\"\nitem_id_key = \"id\"\n\
             default = [{{ id = \"\", extra = 1, n = 99, kind = \"z\" }}, 3]\n\
             [[settings.fields]]\nkey = \"n\"\ntype = \"integer\"\nmax = 10\n\
             [[settings.fields]]\nkey = \"kind\"\ntype = \"select\"\noptions = [\"a\"]\n\
             [[settings.fields]]\nkey = \"must\"\nrequired = true\n"
        );
        assert_eq!(
            messages(&text, Profile::H12),
            [
                "settings[0].default[0] must carry a non-empty \"id\" id",
                "settings[0].default[0] has undeclared key \"extra\"",
                "settings[0].default[0].n 99 is above max 10",
                "settings[0].default[0].kind \"z\" is not one of the options",
                "settings[0].default[0] is missing required field \"must\"",
                "settings[0].default[1] must be a table",
            ]
        );
    }

    #[test]
    fn debug_names() {
        assert_eq!(debug_name("dynamic_multi_select"), "DynamicMultiSelect");
        assert_eq!(debug_name("bool"), "Bool");
    }
}
