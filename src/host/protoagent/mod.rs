//! Where protoAgent 0.218 keeps an instance's plugins and lock (spec
//! `protoagent-0218.md` §1.1–1.2, `infra/paths.py` and `graph/plugins/installer.py`):
//!
//! * box root: `$PROTOAGENT_BOX_ROOT` (`~` expanded), else `/sandbox` when it is a
//!   directory, else `~/.protoagent`;
//! * instance root: `$PROTOAGENT_HOME` (`~` expanded), else
//!   `<box root>/<safe $PROTOAGENT_INSTANCE>`, else `<box root>/default`;
//! * live plugins dir: `plugins.dir` of `<instance root>/config/langgraph-config.yaml`
//!   when absolute, else `$PROTOAGENT_PLUGINS_DIR` when absolute, else
//!   `<instance root>/plugins` (a relative override is refused, as the host refuses it);
//! * lock: `$PROTOAGENT_PLUGINS_LOCK` (`~` expanded, relative accepted), else
//!   `<instance root>/plugins.lock`: never moved by `plugins.dir`;
//! * wheel deps (§5.4): `plugin-deps/<id>` beside the instance's plugins dir
//!   (`$PROTOAGENT_PLUGINS_DIR` when absolute, else `<instance root>/plugins`): never moved
//!   by `plugins.dir` either.
//!
//! The host keeps a relative `PROTOAGENT_HOME` relative to its working directory; here
//! every path is made absolute against the working directory the command runs in, which
//! names the same place. Pure: the caller passes the environment in.

pub(in crate::host) mod bundled;
pub(crate) mod catalog;
mod gates;
pub(super) mod manifest;
pub(super) mod node;

use std::path::{Component, Path, PathBuf};

pub(super) use bundled::{
    allow_refusal, allowlist, builtin_message, discovery_skips, is_bundled, superseding,
};
pub(in crate::host) use gates::{gates, runtime_gap, superseded as superseded_by};

use crate::store::Home;

/// What protoAgent reads from the environment, each value stripped and non-empty.
#[derive(Clone, Debug, Default)]
pub(super) struct Env {
    /// `PROTOAGENT_HOME`.
    pub home: Option<String>,
    /// `PROTOAGENT_INSTANCE`.
    pub instance: Option<String>,
    /// `PROTOAGENT_BOX_ROOT`.
    pub box_root: Option<String>,
    /// `PROTOAGENT_PLUGINS_DIR`.
    pub plugins_dir: Option<String>,
    /// `PROTOAGENT_PLUGINS_LOCK`.
    pub plugins_lock: Option<String>,
    /// The user's home (`HOME`), for `~`.
    pub user_home: Option<PathBuf>,
    /// The working directory relative values are taken against.
    pub cwd: PathBuf,
    /// Whether `/sandbox` is a directory (protoAgent's container data home).
    pub sandbox: bool,
}

/// A plugins-dir override protoAgent refuses because it is relative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// `PROTOAGENT_PLUGINS_DIR`.
    Env(String),
    /// `plugins.dir` in the config file.
    Config(String),
}

impl Refused {
    /// The host's own setup-gap wording (0.218 §1.2), naming where plugins load instead.
    pub(super) fn message(&self, dir: &Path) -> String {
        match self {
            Refused::Env(v) => format!(
                "PROTOAGENT_PLUGINS_DIR '{v}' is not absolute, so it is ignored and plugins load from {} instead. Set an absolute path.",
                dir.display()
            ),
            Refused::Config(v) => format!(
                "plugins.dir '{v}' is not absolute, so it is ignored and plugins load from {} instead — a relative path resolves differently in each process (server, CLI, fleet subprocess). Set an absolute path.",
                dir.display()
            ),
        }
    }
}

/// One instance's resolved paths.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Paths {
    pub instance_root: PathBuf,
    /// Where installs go and the loader looks (the live plugins dir).
    pub plugins_dir: PathBuf,
    pub lock: PathBuf,
    /// `<instance root>/config/langgraph-config.yaml`.
    pub config: PathBuf,
    /// The wheel-deps root: `plugin-deps` beside the instance's plugins dir
    /// (`$PROTOAGENT_PLUGINS_DIR` when absolute, else `<instance root>/plugins`), which
    /// `plugins.dir` does not move (§5.4).
    pub deps_root: PathBuf,
    /// Overrides the host ignores, in the order it reports them.
    pub refused: Vec<Refused>,
}

impl Paths {
    pub(super) fn home(&self) -> Home {
        Home {
            root: self.instance_root.clone(),
            dialect: crate::dialect::Dialect::Protoagent,
            plugins: Some(self.plugins_dir.clone()),
            lock: Some(self.lock.clone()),
            deps: Some(self.deps_root.clone()),
        }
    }
}

/// `re.sub(r"[^A-Za-z0-9._-]", "_", s) or "instance"`.
pub(super) fn safe_segment(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        "instance".into()
    } else {
        out
    }
}

/// `Path(s).expanduser()` for `~` and `~/…` (other forms are kept as written).
fn expand(s: &str, user_home: Option<&Path>) -> PathBuf {
    match (s.strip_prefix('~'), user_home) {
        (Some(""), Some(h)) => h.to_path_buf(),
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(rest.trim_start_matches('/')),
        _ => PathBuf::from(s),
    }
}

/// Absolute against `cwd`, with `.` and repeated separators dropped as Python's `Path`
/// drops them (`..` is kept: nothing is resolved).
pub(super) fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    };
    joined
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect()
}

/// The config's `plugins.dir` as protoAgent's `configured_plugins_dir` reads it: `None`
/// when unset, falsy or unreadable; otherwise the text (`str(value)` for a non-string).
pub(super) fn configured_plugins_dir(config: &Path) -> Option<String> {
    let text = crate::file::read_to_string(config).ok()?;
    let doc: serde_json::Value = if text.trim().is_empty() {
        serde_json::Value::Null
    } else {
        serde_saphyr::from_str(&text).ok()?
    };
    let plugins = match &doc {
        serde_json::Value::Null => return None,
        serde_json::Value::Object(m) => m.get("plugins")?,
        _ => return None,
    };
    let dir = match plugins {
        serde_json::Value::Object(m) => m.get("dir")?,
        v if falsy(v) => return None,
        _ => return None,
    };
    if falsy(dir) {
        return None;
    }
    let text = match dir {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Bool(true) => "True".into(),
        other => other.to_string(),
    };
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

fn falsy(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Null => true,
        serde_json::Value::Bool(b) => !b,
        serde_json::Value::Number(n) => n.as_f64() == Some(0.0),
        serde_json::Value::String(s) => s.is_empty(),
        serde_json::Value::Array(a) => a.is_empty(),
        serde_json::Value::Object(o) => o.is_empty(),
    }
}

/// Resolve an instance's paths as protoAgent 0.218 does.
pub(super) fn resolve(env: &Env) -> Paths {
    let user_home = env.user_home.as_deref();
    let abs = |s: &str| absolute(&expand(s, user_home), &env.cwd);
    let box_root = match &env.box_root {
        Some(b) => abs(b),
        None if env.sandbox => PathBuf::from("/sandbox"),
        None => abs("~/.protoagent"),
    };
    let instance_root = match (&env.home, &env.instance) {
        (Some(home), _) => abs(home),
        (None, Some(inst)) => box_root.join(safe_segment(inst)),
        (None, None) => box_root.join("default"),
    };
    let config = instance_root.join("config").join("langgraph-config.yaml");
    let mut refused = Vec::new();
    let from_config = configured_plugins_dir(&config).and_then(|v| {
        let p = expand(&v, user_home);
        if p.is_absolute() {
            Some(absolute(&p, &env.cwd))
        } else {
            refused.push(Refused::Config(v));
            None
        }
    });
    let from_env = env.plugins_dir.as_deref().and_then(|v| {
        let p = expand(v, user_home);
        if p.is_absolute() {
            Some(absolute(&p, &env.cwd))
        } else {
            refused.push(Refused::Env(v.to_owned()));
            None
        }
    });
    let instance_plugins = from_env
        .clone()
        .unwrap_or_else(|| instance_root.join("plugins"));
    let deps_root = instance_plugins
        .parent()
        .unwrap_or(&instance_root)
        .join("plugin-deps");
    let plugins_dir = from_config.or(from_env).unwrap_or(instance_plugins);
    let lock = match &env.plugins_lock {
        Some(l) => abs(l),
        None => instance_root.join("plugins.lock"),
    };
    Paths {
        instance_root,
        plugins_dir,
        lock,
        config,
        deps_root,
        refused,
    }
}

/// The instance config (`<home>/config/langgraph-config.yaml`) that holds the
/// `plugins.enabled` and `plugins.disabled` lists.
pub(super) fn config_yaml(home: &Home) -> PathBuf {
    home.root.join("config").join("langgraph-config.yaml")
}

/// The installed manifest in `dir`, parsed as the host's loader reads it.
fn installed_manifest(dir: &Path) -> Option<crate::manifest::doc::Node<'static>> {
    let text = crate::file::read_to_string(dir.join("protoagent.plugin.yaml")).ok()?;
    crate::manifest::format::parse_yaml(&text).ok()
}

/// The version the installed manifest declares, as the host shows it: `str(version)`,
/// `0.0.0` when it declares none (`protoagent.md` §2).
pub(super) fn installed_version(dir: &Path) -> Option<String> {
    let manifest = installed_manifest(dir)?;
    Some(manifest.get("version").map_or_else(
        || "0.0.0".to_owned(),
        |v| crate::manifest::pyval::py_str(&v.node),
    ))
}

/// The config's `plugins.enabled` and `plugins.disabled` lists as read once for a
/// command's rows (`list`, `info`), as sets.
#[derive(Debug)]
pub(super) struct Switches {
    enabled: std::collections::HashSet<String>,
    disabled: std::collections::HashSet<String>,
}

impl Switches {
    /// Read and parse the lists of `home`'s config ([`config_yaml`]).
    pub(super) fn load(home: &Home) -> Switches {
        let (enabled, disabled) = plugin_lists(&config_yaml(home));
        Switches {
            enabled: enabled.into_iter().collect(),
            disabled: disabled.into_iter().collect(),
        }
    }

    /// Whether the host loads `id` (in `dir`): it is not in `plugins.disabled`, and it is
    /// in `plugins.enabled` or its manifest enables itself (`enabled`, Python truthiness;
    /// §3). The manifest is the plugin's own, read here.
    pub(super) fn enabled(&self, id: &str, dir: &Path) -> bool {
        if self.disabled.contains(id) {
            return false;
        }
        self.enabled.contains(id)
            || installed_manifest(dir)
                .and_then(|m| {
                    m.get("enabled")
                        .map(|e| crate::manifest::pyval::truthy(&e.node))
                })
                .unwrap_or(false)
    }
}

/// protoAgent's `plugins.enabled` and `plugins.disabled` lists in its config, as read.
pub(super) fn plugin_lists(config: &Path) -> (Vec<String>, Vec<String>) {
    let doc: Option<serde_json::Value> = crate::file::read_to_string(config)
        .ok()
        .and_then(|t| serde_saphyr::from_str(&t).ok());
    let list = |k: &str| -> Vec<String> {
        doc.as_ref()
            .and_then(|d| d.get("plugins")?.get(k)?.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    (list("enabled"), list("disabled"))
}

/// The `plugins:` lines that turn `id` on or off (a plugin runs when it is not in
/// `disabled` and is in `enabled` or enables itself), given the lists as they are;
/// `None` when they already say so. YAML cannot be edited here without losing the
/// file's comments and layout, so the lines are for the user to put in.
pub(super) fn switch_lines(config: &Path, id: &str, enable: bool) -> Option<String> {
    let (mut enabled, mut disabled) = plugin_lists(config);
    let before = (enabled.clone(), disabled.clone());
    if enable {
        disabled.retain(|d| d != id);
        if !enabled.iter().any(|e| e == id) {
            enabled.push(id.to_owned());
        }
    } else {
        enabled.retain(|e| e != id);
        if !disabled.iter().any(|d| d == id) {
            disabled.push(id.to_owned());
        }
    }
    if (enabled.clone(), disabled.clone()) == before {
        return None;
    }
    let flow = |v: &[String]| {
        let items: Vec<String> = v
            .iter()
            .map(|s| serde_json::Value::String(s.clone()).to_string())
            .collect();
        format!("[{}]", items.join(", "))
    };
    Some(format!(
        "plugins:\n  enabled: {}\n  disabled: {}\n",
        flow(&enabled),
        flow(&disabled)
    ))
}

/// What this host decides about installs (see [`crate::host::InstallPolicy`]).
pub(super) const INSTALL: crate::host::InstallPolicy = crate::host::InstallPolicy {
    refuses_symlinks: false,
    builds: false,
    build_output: None,
    wheel_deps: true,
    ref_in_host_config: false,
    gh_ref_unverified: false,
    manifest_grant: false,
    follows_gh_releases: false,
    remembers_python: true,
    featured_index: false,
    lock_fetch_url: true,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            user_home: Some("/u".into()),
            cwd: "/w".into(),
            ..Env::default()
        }
    }

    #[test]
    fn the_default_instance_and_the_sandbox() {
        let p = resolve(&env());
        assert_eq!(p.instance_root, Path::new("/u/.protoagent/default"));
        assert_eq!(p.plugins_dir, Path::new("/u/.protoagent/default/plugins"));
        assert_eq!(p.lock, Path::new("/u/.protoagent/default/plugins.lock"));
        assert_eq!(p.deps_root, Path::new("/u/.protoagent/default/plugin-deps"));
        assert_eq!(p.home().deps_root(), p.deps_root);
        let p = resolve(&Env {
            sandbox: true,
            ..env()
        });
        assert_eq!(p.instance_root, Path::new("/sandbox/default"));
    }

    #[test]
    fn home_instance_and_box_root() {
        let p = resolve(&Env {
            home: Some("rel/inst".into()),
            instance: Some("ignored for the root".into()),
            ..env()
        });
        assert_eq!(p.instance_root, Path::new("/w/rel/inst"));
        let p = resolve(&Env {
            instance: Some("../evil x".into()),
            box_root: Some("~/box".into()),
            ..env()
        });
        assert_eq!(p.instance_root, Path::new("/u/box/.._evil_x"));
        assert_eq!(safe_segment(""), "instance");
        assert_eq!(safe_segment("é"), "_");
    }

    #[test]
    fn relative_overrides_are_refused_and_the_lock_is_not() {
        let p = resolve(&Env {
            plugins_dir: Some("rel".into()),
            plugins_lock: Some("state/x.lock".into()),
            ..env()
        });
        assert_eq!(p.plugins_dir, Path::new("/u/.protoagent/default/plugins"));
        assert_eq!(p.refused, [Refused::Env("rel".into())]);
        assert_eq!(p.lock, Path::new("/w/state/x.lock"));
        let p = resolve(&Env {
            plugins_dir: Some("~/pd".into()),
            ..env()
        });
        assert_eq!(p.plugins_dir, Path::new("/u/pd"));
        assert!(p.refused.is_empty());
    }

    #[test]
    fn the_config_override() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = tmp.path().join("default/config");
        fs_err::create_dir_all(&cfg).unwrap();
        let e = Env {
            box_root: Some(tmp.path().display().to_string()),
            plugins_dir: Some("/from/env".into()),
            ..env()
        };
        for (text, want) in [
            ("plugins:\n  dir: /abs/pl\n", "/abs/pl"),
            ("plugins:\n  dir: ''\n", "/from/env"),
            ("plugins: []\n", "/from/env"),
            ("- 1\n", "/from/env"),
            ("plugins: {dir: [unclosed\n", "/from/env"),
            ("", "/from/env"),
        ] {
            fs_err::write(cfg.join("langgraph-config.yaml"), text).unwrap();
            assert_eq!(resolve(&e).plugins_dir, Path::new(want), "{text}");
            // The wheel-deps root follows the env's plugins dir, never `plugins.dir`.
            assert_eq!(
                resolve(&e).deps_root,
                Path::new("/from/plugin-deps"),
                "{text}"
            );
        }
        fs_err::write(cfg.join("langgraph-config.yaml"), "plugins:\n  dir: 5\n").unwrap();
        let p = resolve(&e);
        assert_eq!(p.refused, [Refused::Config("5".into())]);
        assert_eq!(p.plugins_dir, Path::new("/from/env"));
    }

    #[test]
    fn switch_lines_from_the_current_lists() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = tmp.path().join("c.yaml");
        fs_err::write(&cfg, "plugins:\n  enabled: [a, b]\n  disabled: [c]\n").unwrap();
        assert_eq!(
            switch_lines(&cfg, "c", true).unwrap(),
            "plugins:\n  enabled: [\"a\", \"b\", \"c\"]\n  disabled: []\n"
        );
        assert_eq!(
            switch_lines(&cfg, "a", false).unwrap(),
            "plugins:\n  enabled: [\"b\"]\n  disabled: [\"c\", \"a\"]\n"
        );
        assert_eq!(switch_lines(&cfg, "a", true), None);
        assert_eq!(
            switch_lines(&tmp.path().join("none.yaml"), "x", true).unwrap(),
            "plugins:\n  enabled: [\"x\"]\n  disabled: []\n"
        );
    }
}
