//! The host's typed parse, mirrored with serde (spec `aoe.md` §1–§2).
//!
//! `deny_unknown_fields` sits exactly where the host has it (top level,
//! `[[screenshots]]`, `[[runtime.build]]`); every other table is lenient. The
//! closed enums depend on the host profile, so they deserialize through
//! [`Closed`], which reads the active profile from a thread-local set by
//! [`parse`]. Deserializing with the same `toml` crate as the host gives the
//! host's exact first error.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde::Deserialize;

use super::profile::{self, Profile};
use super::rules;

thread_local! {
    static PROFILE: Cell<Profile> = const { Cell::new(Profile::H15) };
}

/// Run the host's strict typed parse under `profile`.
#[cfg(test)]
pub(crate) fn parse(text: &str, profile: Profile) -> Result<Manifest, toml::de::Error> {
    PROFILE.with(|p| p.set(profile));
    toml::from_str(text)
}

/// The host's typed parse of a document already parsed from `text`: what
/// [`parse`] returns, errors included, without parsing the text again.
pub(crate) fn from_table(
    table: toml::Spanned<toml::de::DeTable<'_>>,
    text: &str,
    profile: Profile,
) -> Result<Manifest, toml::de::Error> {
    PROFILE.with(|p| p.set(profile));
    Manifest::deserialize(toml::de::Deserializer::from(table)).map_err(|mut e| {
        // `from_str` attaches the text, which its `Display` quotes.
        e.set_input(Some(text));
        e
    })
}

/// Which closed set a [`Closed`] value belongs to.
pub(crate) trait Set {
    fn variants(profile: Profile) -> &'static [&'static str];
    /// Spellings accepted as aliases, mapped to their canonical name.
    fn aliases() -> &'static [(&'static str, &'static str)];
    /// Every accepted spelling in serde's order (each alias after its variant): the
    /// host enum's `VARIANTS`, which its `unknown variant` error lists.
    fn spellings(profile: Profile) -> &'static [&'static str];
}

/// A string restricted to a profile-dependent closed set, read as the host's unit-only
/// enum is: through toml's enum access (`wanted string or table` for another type, a
/// one-key table naming the variant accepted), with serde's `unknown variant` error
/// listing every spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Closed<S> {
    pub name: String,
    set: PhantomData<S>,
}

impl<S> Closed<S> {
    pub(crate) fn as_str(&self) -> &str {
        &self.name
    }
}

impl<S> PartialEq<&str> for Closed<S> {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

impl<'de, S: Set> Deserialize<'de> for Closed<S> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{EnumAccess, VariantAccess};
        /// The variant identifier, as the derived `__Field` visitor reads it.
        struct Ident<S>(PhantomData<S>);
        impl<'de, S: Set> serde::de::DeserializeSeed<'de> for Ident<S> {
            type Value = String;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
                d.deserialize_identifier(self)
            }
        }
        impl<S: Set> serde::de::Visitor<'_> for Ident<S> {
            type Value = String;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("variant identifier")
            }
            fn visit_str<E: serde::de::Error>(self, raw: &str) -> Result<String, E> {
                let profile = PROFILE.with(Cell::get);
                let name = S::aliases()
                    .iter()
                    .find(|(alias, _)| *alias == raw)
                    .map_or(raw, |(_, canonical)| canonical);
                if S::variants(profile).contains(&name) {
                    Ok(name.to_owned())
                } else {
                    Err(E::unknown_variant(raw, S::spellings(profile)))
                }
            }
        }
        struct Enum<S>(PhantomData<S>);
        impl<'de, S: Set> serde::de::Visitor<'de> for Enum<S> {
            type Value = Closed<S>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a variant name")
            }
            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Closed<S>, A::Error> {
                let (name, variant) = data.variant_seed(Ident::<S>(PhantomData))?;
                variant.unit_variant()?;
                Ok(Closed {
                    name,
                    set: PhantomData,
                })
            }
        }
        d.deserialize_enum("Closed", &[], Enum::<S>(PhantomData))
    }
}

impl<S: Set> Default for Closed<S> {
    fn default() -> Self {
        Closed {
            name: "string".into(),
            set: PhantomData,
        }
    }
}

/// Declare a closed set: its marker type, its members per profile, its aliases.
macro_rules! closed_set {
    ($name:ident, $variants:expr, $aliases:expr, $spellings:expr) => {
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub(crate) struct $name;
        impl Set for $name {
            fn variants(profile: Profile) -> &'static [&'static str] {
                ($variants)(profile)
            }
            fn aliases() -> &'static [(&'static str, &'static str)] {
                $aliases
            }
            fn spellings(profile: Profile) -> &'static [&'static str] {
                ($spellings)(profile)
            }
        }
    };
}

closed_set!(SlotSet, Profile::slots, &[], Profile::slots);
closed_set!(
    SettingTypeSet,
    Profile::setting_types,
    &[("boolean", "bool")],
    Profile::setting_type_spellings
);
closed_set!(
    FieldTypeSet,
    Profile::field_types,
    &[("boolean", "bool")],
    Profile::field_type_spellings
);
closed_set!(OptionSourceSet, |_| profile::OPTION_SOURCES, &[], |_| {
    profile::OPTION_SOURCES
});

pub(crate) type Slot = Closed<SlotSet>;
pub(crate) type SettingType = Closed<SettingTypeSet>;
pub(crate) type FieldType = Closed<FieldTypeSet>;
pub(crate) type OptionSource = Closed<OptionSourceSet>;

/// A plugin id, checked during deserialization as the host's `TryFrom<String>` does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PluginId(pub String);

impl<'de> Deserialize<'de> for PluginId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id = String::deserialize(d)?;
        match rules::id_problem(&id) {
            None => Ok(PluginId(id)),
            Some(reason) => Err(serde::de::Error::custom(format!(
                "invalid plugin id {id:?}: {reason}"
            ))),
        }
    }
}

/// The host's type names, which serde's errors quote (`invalid type: integer `1`,
/// expected struct CommandContribution`, `… expected internally tagged enum RuntimeSpec`),
/// under the names the rest of `plugins` uses.
pub(crate) type Action = ClientAction;
pub(crate) type Setting = SettingContribution;
pub(crate) type Field = ObjectFieldContribution;
pub(crate) type Runtime = RuntimeSpec;

/// `aoe-plugin.toml`, as the host's `PluginManifest`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    pub id: PluginId,
    pub name: String,
    pub version: String,
    pub api_version: u32,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub screenshots: Vec<Screenshot>,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub icon_asset: Option<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default)]
    pub commands: Vec<CommandContribution>,
    #[serde(default)]
    pub keybinds: Vec<KeybindContribution>,
    #[serde(default)]
    pub settings: Vec<SettingContribution>,
    #[serde(default)]
    pub setting_defaults: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub themes: Vec<ThemeContribution>,
    #[serde(default)]
    pub status: Vec<StatusContribution>,
    #[serde(default)]
    pub ui: Vec<UiContribution>,
    #[serde(default)]
    pub runtime: Option<RuntimeSpec>,
    #[serde(default)]
    pub aoe_version: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct CommandContribution {
    pub id: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub title: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub action: Option<ClientAction>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum ClientAction {
    OpenUiLink { slot: Slot, id: String },
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct KeybindContribution {
    pub command: String,
    pub key: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct SettingContribution {
    pub key: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub label: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub description: String,
    #[serde(rename = "type", default)]
    pub value_type: SettingType,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
    #[serde(default)]
    pub default: Option<toml::Value>,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub advanced: bool,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub multiline: bool,
    #[serde(default)]
    pub option_source: Option<OptionSource>,
    #[serde(default)]
    pub depends_on: Vec<String>,
    #[serde(default)]
    pub fields: Vec<ObjectFieldContribution>,
    #[serde(default)]
    pub item_id_key: Option<String>,
    #[serde(default)]
    pub min_items: Option<u32>,
    #[serde(default)]
    pub max_items: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ObjectFieldContribution {
    pub key: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub label: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub description: String,
    #[serde(rename = "type", default)]
    pub value_type: FieldType,
    #[serde(default)]
    pub required: bool,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub multiline: bool,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub min: Option<i64>,
    #[serde(default)]
    pub max: Option<i64>,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub default: Option<toml::Value>,
    #[serde(default)]
    pub option_source: Option<OptionSource>,
    #[serde(default)]
    pub depends_on: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct ThemeContribution {
    pub name: String,
    pub path: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct StatusContribution {
    pub id: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub label: String,
}

#[derive(Clone, Debug, Deserialize)]
pub(crate) struct UiContribution {
    pub slot: Slot,
    #[serde(default)]
    pub id: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Screenshot {
    pub path: String,
    pub alt: String,
    #[expect(dead_code)] // the host's field, so serde accepts and rejects what the host does
    #[serde(default)]
    pub caption: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum RuntimeSpec {
    Command {
        command: Vec<String>,
        #[serde(default)]
        system: bool,
        #[serde(default)]
        build: Vec<BuildStep>,
    },
    ReleaseBinary {
        asset: String,
        #[serde(default)]
        bin: Option<String>,
    },
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BuildStep {
    pub command: Vec<String>,
    #[serde(default)]
    pub platforms: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "id = \"a.b\"\nname = \"B\"\nversion = \"1\"\napi_version = 12\n";

    #[test]
    fn slot_set_follows_profile() {
        let text = format!("{MIN}[[ui]]\nslot = \"settings-page\"\nid = \"x\"\n");
        assert!(parse(&text, Profile::H12).is_ok());
        let err = parse(&text, Profile::H15).unwrap_err();
        assert!(
            err.message()
                .starts_with("unknown variant `settings-page`, expected one of `status-bar`")
        );
    }

    #[test]
    fn boolean_is_an_alias_of_bool() {
        let text = format!("{MIN}[[settings]]\nkey = \"k\"\ntype = \"boolean\"\n");
        let m = parse(&text, Profile::H12).unwrap();
        assert_eq!(m.settings[0].value_type.as_str(), "bool");
    }

    /// serde-derived enums list an alias after its variant, and toml's enum access
    /// refuses a value that is neither a string nor a one-key table.
    #[test]
    fn closed_sets_err_as_the_hosts_derived_enums() {
        let err = |tail: &str| {
            parse(&format!("{MIN}{tail}\n"), Profile::H12)
                .unwrap_err()
                .message()
                .to_owned()
        };
        assert_eq!(
            err("[[settings]]\nkey = \"k\"\ntype = \"Bool\""),
            "unknown variant `Bool`, expected one of `string`, `bool`, `boolean`, `integer`, `select`, `dynamic_select`, `object_list`, `cron`"
        );
        assert_eq!(err("[[ui]]\nslot = 7"), "wanted string or table");
        assert_eq!(
            err("[[ui]]\nslot = { pane = {}, card = {} }"),
            "wanted exactly 1 element, more than 1 element"
        );
        let m = parse(
            &format!("{MIN}[[ui]]\nslot = {{ pane = {{}} }}\nid = \"x\"\n"),
            Profile::H12,
        )
        .unwrap();
        assert_eq!(
            m.ui[0].slot.as_str(),
            "pane",
            "a one-key table names the variant"
        );
        assert_eq!(
            err("commands = [1]"),
            "invalid type: integer `1`, expected struct CommandContribution"
        );
    }

    #[test]
    fn invalid_id_is_a_parse_error_with_the_host_reason() {
        let text = MIN.replace("a.b", "aoe.2fast");
        let err = parse(&text, Profile::H15).unwrap_err();
        assert_eq!(
            err.message(),
            "invalid plugin id \"aoe.2fast\": each dot-separated segment must start with a lowercase letter"
        );
    }
}
