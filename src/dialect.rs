//! The hosts `plugins` serves, as plain data: each dialect's name, manifest path, manifest
//! format, lock format and the rule that finds its default home. What a host *decides*
//! (rules, records, install policy) lives in `src/host/<host>/`, reached through the one
//! dispatch file `src/host/mod.rs`; outside those two places no code names a variant or
//! compares dialects (`tests/cli/architecture/` checks it, and `Dialect` has no
//! `PartialEq`, so the compiler refuses `==`).

use std::path::Path;

use crate::manifest::Format;

/// The enum and [`ALL`] from one list of variants: a host added to the enum is in `ALL`,
/// in declaration order, with nothing else to edit (the `match`es on `Dialect` then point
/// at every place that must say what the new host does).
macro_rules! dialects {
    ($($(#[$doc:meta])* $variant:ident,)+) => {
        /// The host families `plugins` serves.
        #[derive(Clone, Copy, Debug, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum Dialect {
            $($(#[$doc])* $variant,)+
        }

        /// Every dialect, in the order `plugins` lists and detects them (declaration order).
        pub const ALL: [Dialect; [$(Dialect::$variant),+].len()] = [$(Dialect::$variant),+];
    };
}

dialects! {
    /// Agent of Empires: `aoe-plugin.toml`.
    Aoe,
    /// AWorld: `.aworld-plugin/plugin.json`.
    Aworld,
    /// protoAgent: `protoagent.plugin.yaml`.
    Protoagent,
}

/// The aoe lock format version `plugins` writes and understands (`aoe.md` §17).
pub const AOE_LOCK_VERSION: i64 = 2;

/// The host `plugins` served first: a home named without a lock or a plugin to tell its
/// host is this host's.
pub const FIRST: Dialect = Dialect::Aoe;

/// Static facts about a dialect.
#[derive(Debug)]
pub struct DialectSpec {
    pub name: &'static str,
    /// The manifest path relative to the plugin root.
    pub manifest: &'static str,
    pub format: Format,
    /// The format of the home's `plugins.lock`.
    pub lock: LockFormat,
    /// Where the host keeps its plugins when no home is named.
    pub default_home: DefaultHome,
}

/// How a home's `plugins.lock` is written.
#[derive(Clone, Copy, Debug)]
pub enum LockFormat {
    /// TOML with `lock_version = version` and `[plugins."<id>"]` rows; with `refuse_newer`,
    /// a higher `lock_version` is refused (aoe's own rule).
    Toml { version: i64, refuse_newer: bool },
    /// protoAgent's JSON `{"plugins": [...]}` sorted by id.
    Json,
}

/// Where a host's own home is when no `--home` is given.
#[derive(Clone, Copy, Debug)]
pub enum DefaultHome {
    /// aoe's app dir (`$XDG_CONFIG_HOME/agent-of-empires` on Linux).
    AoeAppDir,
    /// A directory under the user's home directory.
    UnderUserHome(&'static str),
    /// protoAgent's instance root, resolved from its environment and config.
    ProtoagentInstance,
}

impl Dialect {
    pub fn spec(self) -> &'static DialectSpec {
        match self {
            Dialect::Aoe => &DialectSpec {
                name: "aoe",
                manifest: "aoe-plugin.toml",
                format: Format::Toml,
                lock: LockFormat::Toml {
                    version: AOE_LOCK_VERSION,
                    refuse_newer: true,
                },
                default_home: DefaultHome::AoeAppDir,
            },
            Dialect::Aworld => &DialectSpec {
                name: "aworld",
                manifest: ".aworld-plugin/plugin.json",
                format: Format::Json,
                lock: LockFormat::Toml {
                    version: 1,
                    refuse_newer: false,
                },
                default_home: DefaultHome::UnderUserHome(".aworld"),
            },
            Dialect::Protoagent => &DialectSpec {
                name: "protoagent",
                manifest: "protoagent.plugin.yaml",
                format: Format::Yaml,
                lock: LockFormat::Json,
                default_home: DefaultHome::ProtoagentInstance,
            },
        }
    }

    /// Whether `self` and `other` are the same dialect. Compare names, not variants: host
    /// decisions go through `src/host/mod.rs`, never through `==` on a dialect.
    pub fn is(self, other: Dialect) -> bool {
        self.spec().name == other.spec().name
    }
}

/// The dialect whose manifest file is named like `path`'s last components.
pub fn from_manifest_path(path: &Path) -> Option<Dialect> {
    ALL.into_iter().find(|d| path.ends_with(d.spec().manifest))
}

/// The dialect whose lock format `text` is written in (the migration path for homes from
/// before their host record): the one host whose lock it can be ([`claims`]); `None` when
/// none or several can (a home whose host cannot be known is refused by name).
pub fn from_lock_text(text: &str) -> Option<Dialect> {
    let json = text.trim_start().starts_with('{');
    let lock_version = match json {
        true => None,
        false => {
            let table: toml::Table = text.parse().ok()?;
            table.get("lock_version").and_then(toml::Value::as_integer)
        }
    };
    let mut claimed = ALL.into_iter().filter(|d| claims(*d, json, lock_version));
    match (claimed.next(), claimed.next()) {
        (Some(d), None) => Some(d),
        _ => None,
    }
}

/// Whether a lock written in JSON (`json`), or in TOML with this `lock_version`, can be
/// `d`'s host's. A match, not a table: a new host is pointed here by the compiler, to claim
/// its locks without taking another host's.
fn claims(d: Dialect, json: bool, lock_version: Option<i64>) -> bool {
    match d {
        // aoe's lock_version is optional: any TOML lock that no other host's version names.
        Dialect::Aoe => !json && lock_version != Some(1),
        // AWorld's `plugins.lock` says `lock_version = 1`.
        Dialect::Aworld => !json && lock_version == Some(1),
        Dialect::Protoagent => json,
    }
}

/// The dialect named `name` (`aoe`, `aworld`, `protoagent`).
pub fn from_name(name: &str) -> Option<Dialect> {
    ALL.into_iter().find(|d| d.spec().name == name)
}

/// The format an existing lockfile is in, if it exists and parses: how the host of a home
/// from before its host record is found ([`crate::store::Home::named`]).
pub fn from_lockfile(path: &Path) -> Option<Dialect> {
    from_lock_text(&crate::file::read_to_string(path).ok()?)
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec().name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock's text names one host, or none: never two.
    #[test]
    fn a_lock_text_is_one_hosts_or_none() {
        let host = |text: &str| from_lock_text(text).map(|d| d.spec().name);
        assert_eq!(host(r#"{"plugins": []}"#), Some("protoagent"));
        assert_eq!(host("lock_version = 1\n"), Some("aworld"));
        assert_eq!(host("lock_version = 2\n[plugins]\n"), Some("aoe"));
        assert_eq!(host(""), Some("aoe"));
        assert_eq!(host("lock_version = ["), None);
        for json in [false, true] {
            for version in [None, Some(0), Some(1), Some(2), Some(3)] {
                let n = ALL.iter().filter(|d| claims(**d, json, version)).count();
                assert_eq!(n, 1, "json {json}, lock_version {version:?}");
            }
        }
    }

    /// `ALL` is every variant, in declaration order: the list clap derives from the enum.
    #[test]
    fn all_is_every_variant_in_order() {
        let names = |ds: &[Dialect]| ds.iter().map(|d| d.spec().name).collect::<Vec<_>>();
        assert_eq!(
            names(&ALL),
            names(<Dialect as clap::ValueEnum>::value_variants())
        );
        assert_eq!(names(&ALL), ["aoe", "aworld", "protoagent"]);
    }
}
