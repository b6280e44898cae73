//! The process environment, read in one place (domain modules never read env vars).

use std::path::PathBuf;

/// What the command line and environment say about where things live and how to print.
#[derive(Clone, Debug)]
pub struct Context {
    /// `PLUGINS_HOME`.
    pub plugins_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` when absolute.
    pub xdg_config_home: Option<PathBuf>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `NO_COLOR` is set (to anything non-empty).
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set (to anything but `0`).
    pub force_color: bool,
    /// `COLUMNS`, the terminal width to wrap diagnostics at.
    pub columns: Option<usize>,
    /// `PLUGINS_GH_BASE`, else aoe's `AOE_GITHUB_CLONE_BASE`: where `gh:` sources clone from.
    pub gh_base: Option<String>,
    /// `PLUGINS_GITHUB_API`: the GitHub API base for release downloads (tests, mirrors).
    pub github_api: String,
    /// `PROTOAGENT_CONFIG_DIR`: protoAgent's instance root.
    pub protoagent_config_dir: Option<PathBuf>,
    /// `PROTOAGENT_PLUGINS_DIR` and `PROTOAGENT_PLUGINS_LOCK`: protoAgent's overrides.
    pub protoagent_plugins_dir: Option<PathBuf>,
    pub protoagent_plugins_lock: Option<PathBuf>,
    /// Names of the environment variables set to a non-empty value (protoAgent's
    /// `requires_env` gate).
    pub env_names: std::collections::BTreeSet<String>,
    /// `GITHUB_STEP_SUMMARY`: the job summary file `--format github` appends to.
    pub github_step_summary: Option<PathBuf>,
}

impl Context {
    pub fn from_env() -> Self {
        let path = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Context {
            plugins_home: path("PLUGINS_HOME"),
            xdg_config_home: path("XDG_CONFIG_HOME").filter(|p| p.is_absolute()),
            home: path("HOME"),
            no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            force_color: std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
            columns: std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()),
            gh_base: std::env::var("PLUGINS_GH_BASE")
                .ok()
                .or_else(|| std::env::var("AOE_GITHUB_CLONE_BASE").ok())
                .filter(|v| !v.is_empty()),
            github_api: std::env::var("PLUGINS_GITHUB_API")
                .ok()
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| "https://api.github.com".into()),
            protoagent_config_dir: path("PROTOAGENT_CONFIG_DIR"),
            protoagent_plugins_dir: path("PROTOAGENT_PLUGINS_DIR"),
            protoagent_plugins_lock: path("PROTOAGENT_PLUGINS_LOCK"),
            env_names: std::env::vars_os()
                .filter(|(_, v)| !v.is_empty())
                .filter_map(|(k, _)| k.into_string().ok())
                .collect(),
            github_step_summary: path("GITHUB_STEP_SUMMARY"),
        }
    }

    /// The aoe app dir on Linux (`aoe.md` §17): `$XDG_CONFIG_HOME/agent-of-empires`,
    /// else `~/.config/agent-of-empires`.
    pub fn aoe_app_dir(&self) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(xdg), _) => Some(xdg.join("agent-of-empires")),
            (None, Some(home)) => Some(home.join(".config").join("agent-of-empires")),
            (None, None) => None,
        }
    }

    /// Each host's own home: aoe's app dir, `$PROTOAGENT_CONFIG_DIR` or `~/.protoagent`, `~/.aworld`.
    pub fn default_homes(&self) -> crate::install::DefaultHomes {
        use crate::store::Home;
        let protoagent = self
            .protoagent_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".protoagent")));
        crate::install::DefaultHomes {
            aoe: self.aoe_app_dir().map(Home::new),
            aworld: self.home.as_ref().map(|h| Home::new(h.join(".aworld"))),
            protoagent: protoagent.map(|root| Home {
                root,
                plugins: self.protoagent_plugins_dir.clone(),
                lock: self.protoagent_plugins_lock.clone(),
            }),
        }
    }

    /// The home holding `plugins/<id>/`: `--home`, else `PLUGINS_HOME`, else the aoe app dir.
    pub fn plugins_home(&self, flag: Option<PathBuf>) -> Option<PathBuf> {
        flag.or_else(|| self.plugins_home.clone())
            .or_else(|| self.aoe_app_dir())
    }
}
