//! Where each host keeps its own home, from what the environment says: [`HostEnv`] is
//! read where the process environment is read (`Context::from_env`) and handed in; no
//! host reads a variable itself.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use super::{aoe, protoagent};
use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::store::Home;

/// The names of the environment variables set to a non-empty value where the host will run
/// (protoAgent's `requires_env`), collected when first asked: most manifests never ask, and
/// a process that validates one aoe root should not copy every name for nothing
/// (docs/PERFORMANCE.md, issue 43). Clones share one collection.
#[derive(Clone)]
pub struct EnvNames(Arc<LazyLock<BTreeSet<String>, Collect>>);

type Collect = Box<dyn FnOnce() -> BTreeSet<String> + Send>;

impl EnvNames {
    /// The names `collect` returns, called once, on the first [`EnvNames::contains`].
    pub fn new(collect: impl FnOnce() -> BTreeSet<String> + Send + 'static) -> EnvNames {
        EnvNames(Arc::new(LazyLock::new(Box::new(collect))))
    }

    /// Whether `name` is set to a non-empty value.
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }
}

impl std::fmt::Debug for EnvNames {
    // Not collected for a debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnvNames(..)")
    }
}

/// What the environment says about the hosts' own homes, as one value.
#[derive(Clone, Debug)]
pub struct HostEnv {
    protoagent: protoagent::Env,
    xdg_config_home: Option<PathBuf>,
    user_home: Option<PathBuf>,
}

impl HostEnv {
    /// From `var` (a variable's value, stripped, when set and not empty), the user's home
    /// (`HOME`), an absolute `XDG_CONFIG_HOME`, the working directory and whether
    /// `/sandbox` is a directory (protoAgent's container data home).
    pub fn read(
        var: &dyn Fn(&str) -> Option<String>,
        user_home: Option<PathBuf>,
        xdg_config_home: Option<PathBuf>,
        cwd: PathBuf,
        sandbox: bool,
    ) -> HostEnv {
        HostEnv {
            // protoAgent 0.218 §1.1.
            protoagent: protoagent::Env {
                home: var("PROTOAGENT_HOME"),
                instance: var("PROTOAGENT_INSTANCE"),
                box_root: var("PROTOAGENT_BOX_ROOT"),
                plugins_dir: var("PROTOAGENT_PLUGINS_DIR"),
                plugins_lock: var("PROTOAGENT_PLUGINS_LOCK"),
                user_home: user_home.clone(),
                cwd,
                sandbox,
            },
            xdg_config_home,
            user_home,
        }
    }

    /// aoe's app dir for this OS (`aoe.md` §17; Linux: `$XDG_CONFIG_HOME/agent-of-empires`,
    /// else `~/.config/agent-of-empires`).
    pub(super) fn aoe_app_dir(&self) -> Option<PathBuf> {
        aoe::app_dir(
            std::env::consts::OS,
            self.xdg_config_home.as_deref(),
            self.user_home.as_deref(),
            &|p: &std::path::Path| p.is_dir(),
        )
    }

    /// protoAgent's instance paths, resolved as protoAgent 0.218 resolves them.
    pub(super) fn protoagent(&self) -> protoagent::Paths {
        protoagent::resolve(&self.protoagent)
    }

    /// A directory under the user's home.
    pub(super) fn under_user_home(&self, dir: &str) -> Option<PathBuf> {
        self.user_home.as_ref().map(|h| h.join(dir))
    }
}

/// Something a host says about where its default home is (protoAgent ignoring a relative
/// plugins directory), with the file it concerns.
#[derive(Clone, Debug)]
pub struct HomeWarning {
    /// The host whose default home this is about.
    pub dialect: Dialect,
    pub code: Code,
    pub message: String,
    pub help: &'static str,
    /// The host's config file it concerns.
    pub file: PathBuf,
}

/// protoAgent's refused plugins-dir overrides, in the order it reports them.
pub(super) fn protoagent_warnings(env: &HostEnv, dialect: Dialect) -> Vec<HomeWarning> {
    let paths = env.protoagent();
    (paths.refused.iter())
        .map(|r| HomeWarning {
            dialect,
            code: Code::ProtoRelativePluginsDir,
            message: r.message(&paths.plugins_dir),
            help: "protoAgent ignores a relative plugins directory; so does `plugins`",
            file: paths.config.clone(),
        })
        .collect()
}

/// `home`'s host config file as `env` places it (protoAgent's instance config).
pub(super) fn protoagent_config(env: &HostEnv) -> PathBuf {
    env.protoagent().config
}

/// protoAgent's instance home.
pub(super) fn protoagent_home(env: &HostEnv) -> Home {
    env.protoagent().home()
}

#[cfg(test)]
mod tests {
    use super::EnvNames;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The names are collected on the first question, once for every clone, and never
    /// for a command that does not ask.
    #[test]
    fn names_are_collected_once_when_first_asked() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let names = EnvNames::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            ["HOME".to_owned()].into()
        });
        let copy = names.clone();
        assert_eq!(format!("{names:?}"), "EnvNames(..)");
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        assert!(copy.contains("HOME") && !names.contains("TOKEN"));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
