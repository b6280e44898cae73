//! The environment a build step sees: the variables passed from `plugins`' own (an
//! allow-list), the proxies and pip index settings, and what pip is run with.

use std::ffi::OsString;
use std::sync::Arc;

/// The variables a build step gets from `plugins`' own environment, when set: where
/// things are (`PATH`, `HOME`, temp, config and cache directories, the Rust
/// toolchain's homes), who and where the user is (`USER`, `LOGNAME`, `SHELL`,
/// `TERM`, `TZ`, the locale) and which TLS roots to trust. Nothing else: not
/// `GITHUB_TOKEN`/`GH_TOKEN`, `PLUGINS_*`, git's (`GIT_ASKPASS`, `GIT_CONFIG_*`,
/// `GIT_SSH_COMMAND`), `SSH_ASKPASS`, `SSH_AUTH_SOCK`, cloud or CI credentials, or
/// `PYTHONPATH`/`LD_PRELOAD`-style injection points. `docs/SECURITY.md` lists them.
pub const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// Proxy variables, passed only when they carry no `user:password@`.
pub const PROXIES: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// What tells pip which index to use: passed to `plugins`' own pip commands
/// (`install --deps`) only, never to a plugin's build step.
pub const PIP_INDEX: &[&str] = &[
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_TRUSTED_HOST",
    "PIP_CERT",
];

/// The environment build steps run with, chosen once from `plugins`' own
/// ([`StepEnv::from_vars`], out of what [`configure`] was given, when a step first needs
/// it).
#[derive(Clone, Debug, Default)]
pub struct StepEnv {
    /// Every step: [`PASSED`], `LC_*`, and [`PROXIES`] without credentials.
    pub base: Vec<(OsString, OsString)>,
    /// `plugins`' own pip commands, besides `base`: [`PIP_INDEX`].
    pub pip: Vec<(OsString, OsString)>,
}

impl StepEnv {
    /// Pick the allowed variables out of an environment.
    pub fn from_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> StepEnv {
        let mut env = StepEnv::default();
        for (k, v) in vars {
            let Some(name) = k.to_str() else { continue };
            if PASSED.contains(&name) || name.starts_with("LC_") {
                env.base.push((k, v));
            } else if PROXIES.contains(&name) {
                // A proxy's `user:password@` stays with `plugins`' own transfers.
                if !v.to_string_lossy().contains('@') {
                    env.base.push((k, v));
                }
            } else if PIP_INDEX.contains(&name) {
                env.pip.push((k, v));
            }
        }
        env
    }
}

static SOURCE: std::sync::OnceLock<Arc<[(OsString, OsString)]>> = std::sync::OnceLock::new();
static STEP_ENV: std::sync::OnceLock<StepEnv> = std::sync::OnceLock::new();

/// Give the process environment (as `Context` read it) that every build step's is picked
/// from, at start-up; a step that runs before it gets an empty one. The pick is made when
/// a step first needs it: most commands run none.
pub fn configure(vars: Arc<[(OsString, OsString)]>) {
    let _ = SOURCE.set(vars);
}

/// The environment build steps run with: [`StepEnv::from_vars`] of what [`configure`]
/// was given.
pub(super) fn step_env() -> &'static StepEnv {
    STEP_ENV.get_or_init(|| {
        SOURCE
            .get()
            .map(|vars| StepEnv::from_vars(vars.iter().cloned()))
            .unwrap_or_default()
    })
}

/// Where a bare program name (`python3`) is found, as a spawn would find it: the first
/// executable file of that name on the `PATH` the steps run with; `None` when there is none.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let path = step_env()
        .base
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// What pip is run with besides [`StepEnv::pip`]: no pip config file (user, site or
/// global), no user site-packages, and the working directory not on `sys.path`.
pub(super) const PIP_ISOLATION: &[(&str, &str)] = &[
    ("PIP_CONFIG_FILE", "/dev/null"),
    ("PYTHONNOUSERSITE", "1"),
    ("PYTHONSAFEPATH", "1"),
];
