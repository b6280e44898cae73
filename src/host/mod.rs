//! The one dispatch file between shared code and the hosts: each host folder
//! (`aoe/`, `aworld/`, `protoagent/`) is a private module, so code outside `src/host/`
//! asks the capabilities here — one exhaustive `match` per capability — and the compiler
//! refuses any `host::<host>::…` path (docs/contributing.md, "Recipe: add a host"). What a
//! host decides: its manifest rules, where it looks (protoAgent's instance paths, aoe's app
//! dir), its own records (aoe's `config.toml` grant, enable/disable switches), its
//! installer's gates. Tests that compare with a host's own behaviour reach its internals
//! through [`testing`] only. Domain code: no printing, no environment reads.

mod aoe;
mod aworld;
pub mod detect;
mod env;
mod options;
mod protoagent;
pub mod scaffold;
#[doc(hidden)]
pub mod testing;
mod types;

pub use aworld::manifest::Summary as Activation;
pub use env::{EnvNames, HomeWarning, HostEnv};
pub use options::{HostArgs, HostOptions, NotAHostVersion, known_aoe_api};
/// Each host's options from the command line's, and whether some host reads `--host-version`.
pub use options::{check_host_version, from_args as validate_options};
pub use types::{Catalog, CatalogEntry, Gate, InstallPolicy, Superseded};

use std::path::{Path, PathBuf};

use crate::dialect::Dialect;
use crate::lock::LockError;
use crate::store::Home;

/// How to validate: the dialect (when forced), the hosts' options, and the policy.
#[derive(Clone, Debug, Default)]
pub struct ValidateOptions {
    /// Force a dialect instead of detecting it from the manifest name.
    pub dialect: Option<Dialect>,
    /// Every host's own options, as one value ([`validate_options`]).
    pub host: HostOptions,
    /// Warnings fail validation.
    pub strict: bool,
    /// Codes to drop entirely.
    pub allow: Vec<crate::diagnostic::Code>,
}

/// The catalog `home`'s host would show, with `rows` (its lock) matched against it; `None`
/// for a host without one, or when there is none to read.
pub fn catalog(home: &Home, rows: &[crate::lock::Entry]) -> Option<Catalog> {
    match home.dialect {
        Dialect::Aoe | Dialect::Aworld => None,
        Dialect::Protoagent => {
            let site = detect::protoagent_site(home);
            protoagent::catalog::load(home, site.as_deref(), rows)
        }
    }
}

/// The host a consent request is written for when the tree has no manifest (an emptied
/// directory under a tracked id): its request is empty, so nothing host-specific is asked.
pub const NO_MANIFEST: Dialect = Dialect::Protoagent;

/// What `dialect`'s host decides about installs.
pub fn install_policy(dialect: Dialect) -> &'static InstallPolicy {
    match dialect {
        Dialect::Aoe => &aoe::INSTALL,
        Dialect::Aworld => &aworld::INSTALL,
        Dialect::Protoagent => &protoagent::INSTALL,
    }
}

/// Write the host's own record of an installed plugin (aoe's grant, AWorld's registry).
pub fn record_install(
    home: &Home,
    entry: &crate::lock::Entry,
    dir: &std::path::Path,
    now: &str,
) -> Result<(), LockError> {
    match home.dialect {
        Dialect::Aoe => aoe::record_install(home, entry, dir, now).map(drop),
        Dialect::Aworld => aworld::registry::upsert(home, entry, dir, now),
        Dialect::Protoagent => Ok(()),
    }
}

/// Whether the host's own record outside the lock (aoe's `config.toml`) already names the
/// source as `entry` would record it (`Entry::host_source`): an install with nothing else to
/// change has nothing to write then. Hosts whose spelling of the source is in the lock have
/// no such record.
pub fn names_source(home: &Home, entry: &crate::lock::Entry) -> bool {
    match home.dialect {
        Dialect::Aoe => aoe::names_source(home, entry),
        Dialect::Aworld => false,
        Dialect::Protoagent => false,
    }
}

/// Drop the host's own record of a removed plugin.
pub fn forget(home: &Home, id: &str) -> Result<(), LockError> {
    match home.dialect {
        Dialect::Aoe => aoe::forget(home, id).map(drop),
        Dialect::Aworld => aworld::registry::remove(home, id),
        Dialect::Protoagent => Ok(()),
    }
}

/// What turning a plugin on or off did, in the file its host reads.
#[derive(Debug)]
pub enum Switch {
    /// The switch in `path` is set; `changed` is false when it already was.
    Set { path: PathBuf, changed: bool },
    /// `path` has no record of the plugin (AWorld's registry without its entry).
    NoRecord { path: PathBuf },
    /// The host's file is not rewritten (protoAgent's YAML would lose its comments): these
    /// lines go there by hand.
    ByHand { path: PathBuf, lines: String },
}

/// Turn `id` on or off where the home's host reads it: aoe's `config.toml`, AWorld's
/// `.manifest.json`, protoAgent's `langgraph-config.yaml` (by hand).
pub fn set_enabled(home: &Home, id: &str, on: bool) -> Result<Switch, LockError> {
    Ok(match home.dialect {
        Dialect::Aoe => Switch::Set {
            changed: aoe::set_enabled(home, id, on)?,
            path: aoe::config_path(home),
        },
        Dialect::Aworld => {
            let path = home.aworld_registry();
            match crate::host::aworld::registry::set_enabled(home, id, on)? {
                Some(changed) => Switch::Set { path, changed },
                None => Switch::NoRecord { path },
            }
        }
        Dialect::Protoagent => {
            let path = protoagent::config_yaml(home);
            match protoagent::switch_lines(&path, id, on) {
                None => Switch::Set {
                    path,
                    changed: false,
                },
                Some(lines) => Switch::ByHand { path, lines },
            }
        }
    })
}

/// What the home's host's own switch records say (aoe's `config.toml`, AWorld's
/// `.manifest.json`, protoAgent's `plugins.enabled`/`plugins.disabled`), read and parsed
/// once per home: a command asks it for each of its rows (issue 43: `list` read and parsed
/// the whole file again for each row, quadratic in the plugins of a home).
#[derive(Debug)]
pub struct Switches(Records);

#[derive(Debug)]
enum Records {
    Aoe(aoe::Switches),
    Aworld(aworld::registry::Switches),
    Protoagent(protoagent::Switches),
}

/// The home's host's switch records, read once.
pub fn switches(home: &Home) -> Switches {
    Switches(match home.dialect {
        Dialect::Aoe => Records::Aoe(aoe::Switches::load(home)),
        Dialect::Aworld => Records::Aworld(aworld::registry::Switches::load(home)),
        Dialect::Protoagent => Records::Protoagent(protoagent::Switches::load(home)),
    })
}

impl Switches {
    /// Whether the home's host runs the installed plugin `id` (in `dir`) by its own
    /// switch: aoe's `enabled` in `config.toml`, AWorld's `.manifest.json` record (a
    /// directory without one is enabled), protoAgent's `plugins.enabled`/`plugins.disabled`
    /// and the manifest's own `enabled`. `None`: the host keeps no switch for it (aoe
    /// without a record).
    pub fn enabled(&self, id: &str, dir: &Path) -> Option<bool> {
        match &self.0 {
            Records::Aoe(s) => s.enabled(id),
            Records::Aworld(s) => Some(s.enabled(id)),
            Records::Protoagent(s) => Some(s.enabled(id, dir)),
        }
    }
}

/// The version the installed manifest in `dir` declares, as `dialect`'s host reads it: the
/// version of a lock row the host's own installer wrote, which records none (protoAgent's).
pub fn installed_version(dialect: Dialect, dir: &Path) -> Option<String> {
    match dialect {
        Dialect::Aoe => aoe::installed_version(dir),
        Dialect::Aworld => aworld::installed_version(dir),
        Dialect::Protoagent => protoagent::installed_version(dir),
    }
}

/// The dialects whose manifest exists (as any kind of entry) under `root`. Without any
/// manifest, an `agents/` or `skills/` directory makes an AWorld legacy root.
pub fn detect_all(root: &Path) -> Vec<Dialect> {
    let found: Vec<Dialect> = crate::dialect::ALL
        .into_iter()
        .filter(|d| fs_err::symlink_metadata(root.join(d.spec().manifest)).is_ok())
        .collect();
    if found.is_empty() && aworld::manifest::is_legacy_root(root) {
        return vec![Dialect::Aworld];
    }
    found
}

/// The first of [`detect_all`]'s answer, looking no further than needed.
///
/// The probes reuse one path and ask `lstat` without naming the path in an error nobody
/// reads: `validate -r` probes each directory it meets (issue 43).
pub fn detect_first(root: &Path) -> Option<Dialect> {
    let mut probe = root.to_path_buf();
    crate::dialect::ALL
        .into_iter()
        .find(|d| {
            let manifest = Path::new(d.spec().manifest);
            probe.push(manifest);
            #[allow(clippy::disallowed_methods)] // an answer, never a message
            let found = probe.symlink_metadata().is_ok();
            for _ in manifest.components() {
                probe.pop();
            }
            found
        })
        .or_else(|| aworld::manifest::is_legacy_root(root).then_some(Dialect::Aworld))
}

/// Whether a plugin of this dialect runs code inside the host process (which install asks
/// consent for): protoAgent always imports its module; AWorld only when the tree holds
/// Python; aoe runs workers as separate processes.
pub fn runs_code_in_host(dialect: Dialect, tree: &Path) -> bool {
    match dialect {
        Dialect::Aoe => false,
        Dialect::Aworld => aworld::holds_python(tree),
        Dialect::Protoagent => true,
    }
}

/// How `dialect`'s host judges a root without its manifest: AWorld's legacy layout
/// (`agents/`, `skills/`); `None`: the other hosts report the missing manifest.
pub fn validate_without_manifest(
    dialect: Dialect,
    root: &Path,
) -> Option<crate::manifest::Outcome> {
    match dialect {
        Dialect::Aoe => None,
        Dialect::Aworld => Some(aworld::manifest::validate_legacy(root).0),
        Dialect::Protoagent => None,
    }
}

/// Judge a decoded manifest as `dialect`'s host does (`canonical`: the root's resolved
/// path when it differs, which AWorld's loader reports).
pub fn validate(
    dialect: Dialect,
    text: &str,
    root: &Path,
    canonical: Option<&Path>,
    opts: &ValidateOptions,
) -> crate::manifest::Outcome {
    match dialect {
        Dialect::Aoe => aoe::manifest::validate(text, Some(root), &opts.host.aoe),
        Dialect::Aworld => {
            aworld::manifest::validate_at(text, root, canonical, &opts.host.aworld).0
        }
        Dialect::Protoagent => {
            protoagent::manifest::validate_at(text, root, canonical, &opts.host.protoagent)
        }
    }
}

/// `dialect`'s manifest JSON Schema (aoe's for the API profile `host` validates as), with
/// the `$id` of its published copy (docs/schema/); AWorld's is the host's own file, `$id`
/// and all.
pub fn schema(dialect: Dialect, host: &HostOptions) -> serde_json::Value {
    let (mut value, file) = match dialect {
        Dialect::Aoe => (
            aoe::manifest::schema::build(host.aoe.profile),
            format!("aoe-api{}.schema.json", host.aoe.profile.api_version()),
        ),
        Dialect::Aworld => return aworld::manifest::schema(),
        Dialect::Protoagent => (
            protoagent::manifest::schema_value().clone(),
            "protoagent.plugin.schema.json".to_owned(),
        ),
    };
    crate::upstream::identify(&mut value, &file);
    value
}

/// The host's own config file in `home`, which `plugins homes` names (AWorld has none);
/// protoAgent's is where `env` places its instance.
pub fn config_file(home: &Home, env: &HostEnv) -> Option<PathBuf> {
    match home.dialect {
        Dialect::Aoe => Some(aoe::config_path(home)),
        Dialect::Aworld => None,
        Dialect::Protoagent => Some(env::protoagent_config(env)),
    }
}

/// The hosts' own config files under `home`'s root that `plugins` edits (aoe's
/// `config.toml`), whose atomic writes recovery cleans up after: every host's, whatever
/// the home's host, so a temp file is cleaned whoever left it.
pub fn edited_configs(home: &Home) -> Vec<PathBuf> {
    (crate::dialect::ALL.into_iter())
        .filter_map(|d| match d {
            Dialect::Aoe => Some(aoe::config_path(home)),
            Dialect::Aworld => None,
            Dialect::Protoagent => None,
        })
        .collect()
}

/// `dialect`'s own home when no home is named: aoe's app dir, `~/.aworld`, protoAgent's
/// instance, as `env` places them.
pub fn default_home(dialect: Dialect, env: &HostEnv) -> Option<Home> {
    use crate::dialect::DefaultHome;
    match dialect.spec().default_home {
        DefaultHome::AoeAppDir => env.aoe_app_dir().map(|root| Home::new(root, dialect)),
        DefaultHome::UnderUserHome(dir) => env.under_user_home(dir).map(|r| Home::new(r, dialect)),
        DefaultHome::ProtoagentInstance => Some(env::protoagent_home(env)),
    }
}

/// What `dialect`'s host says about where its default home is (protoAgent's refused
/// relative plugins directory).
pub fn home_warnings(dialect: Dialect, env: &HostEnv) -> Vec<HomeWarning> {
    match dialect {
        Dialect::Aoe | Dialect::Aworld => Vec::new(),
        Dialect::Protoagent => env::protoagent_warnings(env, dialect),
    }
}

/// `path` made absolute against `cwd`, with `.` and repeated separators dropped as
/// Python's `Path` drops them (`..` is kept: nothing is resolved).
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    protoagent::absolute(path, cwd)
}

/// The host whose activation order `plugins resolve` reproduces (AWorld's).
pub const RESOLVES: Dialect = Dialect::Aworld;

/// Whether `path` is a plugin root of [`RESOLVES`]'s host (a manifest, or its legacy
/// layout).
pub fn is_resolve_root(path: &Path) -> bool {
    aworld::is_root(path)
}

/// [`RESOLVES`]'s host's verdict on a plugin root, for activation: on its decoded
/// manifest `text`, or on its legacy layout without one.
pub fn activation(
    root: &Path,
    text: Option<&str>,
) -> (crate::manifest::Outcome, Option<Activation>) {
    match text {
        Some(text) => aworld::manifest::validate(text, root, &Default::default()),
        None => aworld::manifest::validate_legacy(root),
    }
}

/// Whether `dialect`'s host discovery skips the plugin root `dir` in a plugins directory
/// (protoAgent 0.218's `*.bak` swap copies), for the host version `host_version` names.
pub fn discovery_skips(dialect: Dialect, dir: &Path, host_version: Option<&str>) -> bool {
    match dialect {
        Dialect::Aoe => false,
        Dialect::Aworld => false,
        Dialect::Protoagent => protoagent::discovery_skips(dir, host_version),
    }
}

/// Before anything is fetched (the host of the plugin is not known yet): the first host
/// whose own check supersedes `source_url` (protoAgent 0.218's short-circuit), with the
/// options that host's home validates with (`options_for`).
pub fn before_fetch(
    source_url: &str,
    options_for: &dyn Fn(Dialect) -> HostOptions,
) -> Option<Superseded> {
    crate::dialect::ALL.into_iter().find_map(|d| match d {
        Dialect::Aoe | Dialect::Aworld => None,
        Dialect::Protoagent => {
            protoagent::superseded_by(source_url, options_for(d).protoagent_profile())
        }
    })
}

/// The plugin `home`'s host ships itself in place of `source_url`, under the options
/// `host` (an update of such a lock row has nothing to update).
pub fn superseded(home: &Home, source_url: &str, host: &HostOptions) -> Option<Superseded> {
    match home.dialect {
        Dialect::Aoe | Dialect::Aworld => None,
        Dialect::Protoagent => protoagent::superseded_by(source_url, host.protoagent_profile()),
    }
}

/// `home`'s host ships a plugin `id` itself, under the options `host` (protoAgent's bundled
/// plugins): a lock row of that id with no source is the host's own (its wheel-deps pins),
/// present with nothing to fetch.
pub fn ships(home: &Home, id: &str, host: &HostOptions) -> bool {
    match home.dialect {
        Dialect::Aoe | Dialect::Aworld => false,
        Dialect::Protoagent => protoagent::is_bundled(id, host.protoagent_profile()),
    }
}

/// `dialect`'s installer gates on a fetched, valid plugin `id` from `source_url` going into
/// `home` (when there is one): protoAgent's source allowlist, then its built-in ids.
pub fn gates(
    dialect: Dialect,
    home: Option<&Home>,
    host: &HostOptions,
    source_url: &str,
    id: &str,
) -> Result<(), Gate> {
    match dialect {
        Dialect::Aoe | Dialect::Aworld => Ok(()),
        Dialect::Protoagent => protoagent::gates(home, host.protoagent_profile(), source_url, id),
    }
}

/// What `dialect`'s host will miss at run time for the plugin whose manifest is
/// `manifest` (protoAgent 0.218's Node.js floor), said up front as a warning.
pub fn runtime_gap(dialect: Dialect, host: &HostOptions, manifest: &str) -> Option<String> {
    match dialect {
        Dialect::Aoe | Dialect::Aworld => None,
        Dialect::Protoagent => protoagent::runtime_gap(host.protoagent_profile(), manifest),
    }
}

/// Why a wheel requirement is not installed (`wheel_deps` hosts install plain PEP 508
/// requirements only: never options, URLs, VCS references or local paths).
pub fn pip_spec_problem(spec: &str) -> Option<&'static str> {
    protoagent::manifest::pip_spec_problem(spec)
}
