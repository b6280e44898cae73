//! The process environment, read in one place (domain modules never read env vars).

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;
use std::sync::Arc;

use crate::lock::Lock;
use crate::store::Home;

/// `PLUGINS_MAX_FILE_MIB` as set, when it is no whole number of MiB above 0.
#[derive(Clone, Debug, thiserror::Error)]
#[error(
    "PLUGINS_MAX_FILE_MIB={0:?} is not a whole number of MiB above 0 (the largest file a git source may hold); set one, or unset it for the default, {default}",
    default = crate::git::DEFAULT_MAX_FILE_MIB
)]
pub struct NotMib(pub String);

/// What the command line and environment say about where things live and how to print.
#[derive(Clone, Debug)]
pub struct Context {
    /// `PLUGINS_HOME`.
    pub plugins_home: Option<PathBuf>,
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `NO_COLOR` is set (to anything non-empty).
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set (to anything but `0`).
    pub force_color: bool,
    /// `CLICOLOR=0`: no color, even on a terminal (`CLICOLOR_FORCE` still wins).
    pub clicolor_off: bool,
    /// `TERM=dumb`: a terminal that cannot draw color or redraw a spinner line.
    pub term_dumb: bool,
    /// `COLUMNS`, the terminal width to wrap diagnostics at.
    pub columns: Option<usize>,
    /// `PLUGINS_GH_BASE`, else aoe's `AOE_GITHUB_CLONE_BASE`: where `gh:` sources clone from.
    pub gh_base: Option<String>,
    /// `PLUGINS_GITHUB_API`: the GitHub API base for release downloads (tests, mirrors).
    pub github_api: String,
    /// `PLUGINS_NET_TIMEOUT` (seconds, default 30): how long a git transfer or a
    /// download may go without progress before it fails.
    pub net_timeout: std::time::Duration,
    /// `PLUGINS_MAX_FILE_MIB` (default [`crate::git::DEFAULT_MAX_FILE_MIB`]): the largest
    /// committed file a git source may hold; libgit2 reads a file whole, so this bounds
    /// what a checkout keeps in memory. `Err`: the value as set, which is no whole number of
    /// MiB above 0 (a command that fetches refuses it by name rather than use 100).
    pub max_file_mib: Result<u64, NotMib>,
    /// Proxies (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, upper or
    /// lower case) and credential sources (`GITHUB_TOKEN`/`GH_TOKEN`, `NETRC`,
    /// `GIT_CONFIG_GLOBAL`) for every transfer.
    pub net: crate::net::Settings,
    /// What the environment says about the hosts' own homes (protoAgent's
    /// `PROTOAGENT_HOME`, `PROTOAGENT_INSTANCE`, `PROTOAGENT_BOX_ROOT`,
    /// `PROTOAGENT_PLUGINS_DIR` and `PROTOAGENT_PLUGINS_LOCK`, whether `/sandbox` is a
    /// directory, `protoagent-0218.md` §1.1; aoe's `XDG_CONFIG_HOME`).
    pub host: crate::host::HostEnv,
    /// The working directory: relative homes and sources are taken against it.
    pub cwd: PathBuf,
    /// The featured index: `PLUGINS_FEATURED_INDEX`, else aoe's `AOE_FEATURED_INDEX_PATH`.
    pub featured_index: Option<PathBuf>,
    /// Names of the environment variables set to a non-empty value (protoAgent's
    /// `requires_env` gate), collected when first asked.
    pub env_names: crate::host::EnvNames,
    /// `GITHUB_STEP_SUMMARY`: the job summary file `--format github` appends to.
    pub github_step_summary: Option<PathBuf>,
    /// The environment as it was read at the start: build steps pick their allow-listed
    /// variables out of it when the first one runs ([`crate::steps::configure`]).
    vars: Vars,
    /// Registry credentials (`PLUGINS_REGISTRY_TOKEN`, `PLUGINS_REGISTRY_USERNAME`,
    /// `REGISTRY_AUTH_FILE`, `DOCKER_CONFIG`).
    pub registry: crate::oci::RegistryEnv,
}

/// The process environment, read once: each variable as `getenv` finds it (the first of a
/// name). Every lookup of a command's start goes through it rather than through
/// `std::env::var`, which takes the environment's lock and scans it again each time
/// (docs/PERFORMANCE.md, issue 43). Shared: what is derived from it only when asked
/// (`requires_env`'s names, the build steps' variables) reads the same snapshot.
#[derive(Clone)]
struct Vars(Arc<[(OsString, OsString)]>);

impl std::fmt::Debug for Vars {
    // The values hold secrets (tokens, passwords): a debug print names the count only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vars({} variables)", self.0.len())
    }
}

impl Vars {
    fn os(&self, k: &str) -> Option<&OsStr> {
        self.0
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_os_str())
    }

    /// As `std::env::var(k).ok()`: `None` when unset or not UTF-8.
    fn var(&self, k: &str) -> Option<String> {
        self.os(k).and_then(OsStr::to_str).map(str::to_owned)
    }

    /// A non-empty value as a path.
    fn path(&self, k: &str) -> Option<PathBuf> {
        self.os(k).filter(|v| !v.is_empty()).map(PathBuf::from)
    }
}

/// Registry credentials from the environment (`PLUGINS_REGISTRY_TOKEN` and
/// `PLUGINS_REGISTRY_USERNAME`, `REGISTRY_AUTH_FILE`, docker's `DOCKER_CONFIG` else
/// `~/.docker`), relative paths against `cwd`.
fn registry_env(env: &Vars, cwd: &std::path::Path) -> crate::oci::RegistryEnv {
    let var = |k: &str| {
        env.var(k)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let path = |k: &str| env.path(k);
    crate::oci::RegistryEnv {
        token: var("PLUGINS_REGISTRY_TOKEN").map(crate::net::Secret),
        username: var("PLUGINS_REGISTRY_USERNAME"),
        auth_file: path("REGISTRY_AUTH_FILE").map(|p| cwd.join(p)),
        docker_config: path("DOCKER_CONFIG")
            .map(|d| cwd.join(d).join("config.json"))
            .or_else(|| path("HOME").map(|h| h.join(".docker/config.json"))),
    }
}

/// Proxies and credential sources from the environment.
fn net_settings(
    env: &Vars,
    gh_base: Option<&str>,
    github_api: &str,
    home: Option<PathBuf>,
) -> crate::net::Settings {
    let var = |k: &str| env.var(k).filter(|v| !v.trim().is_empty());
    // Like curl and git: the lowercase name first.
    let either = |k: &str| var(&k.to_ascii_lowercase()).or_else(|| var(k));
    let mut github_hosts = vec!["github.com".to_owned(), "api.github.com".to_owned()];
    for base in gh_base.into_iter().chain([github_api]) {
        if (base.starts_with("https://") || base.starts_with("http://"))
            && let Some(h) = crate::auth::host(base)
            && !github_hosts.contains(&h)
        {
            github_hosts.push(h);
        }
    }
    crate::net::Settings {
        github_token: var("GITHUB_TOKEN")
            .or_else(|| var("GH_TOKEN"))
            .map(|t| crate::net::Secret(t.trim().to_owned())),
        github_token_from: if var("GITHUB_TOKEN").is_some() {
            "GITHUB_TOKEN"
        } else {
            "GH_TOKEN"
        },
        github_hosts,
        netrc: var("NETRC")
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".netrc"))),
        git_config_global: var("GIT_CONFIG_GLOBAL").map(PathBuf::from),
        https_proxy: either("HTTPS_PROXY"),
        http_proxy: either("HTTP_PROXY"),
        all_proxy: either("ALL_PROXY"),
        no_proxy: either("NO_PROXY"),
        git_cli: crate::git::CliSettings {
            always: var("PLUGINS_GIT_FETCH_WITH_CLI")
                .is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes")),
            user_ssh: var("GIT_SSH_COMMAND").is_some() || var("GIT_SSH").is_some(),
            interactive: stdin_is_terminal(),
        },
    }
}

/// Whether standard input is a terminal, asked of the descriptor: `std::io::stdin()` would
/// set up its 8 KiB buffer, which a command that never reads it does not need.
#[cfg(unix)]
fn stdin_is_terminal() -> bool {
    // SAFETY: `isatty` only reads the descriptor's state; descriptor 0 is not closed or
    // reused by this call.
    unsafe { libc::isatty(libc::STDIN_FILENO) == 1 }
}

#[cfg(not(unix))]
fn stdin_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdin())
}

impl Context {
    #[allow(clippy::disallowed_methods)] // the one place the environment is read (clippy.toml)
    pub fn from_env() -> Self {
        let env = Vars(std::env::vars_os().collect());
        let names = env.0.clone();
        let path = |k: &str| env.path(k);
        // protoAgent strips its variables and ignores empty ones.
        let stripped = |k: &str| {
            env.var(k)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        let gh_base = env
            .var("PLUGINS_GH_BASE")
            .or_else(|| env.var("AOE_GITHUB_CLONE_BASE"))
            .filter(|v| !v.is_empty());
        let github_api = env
            .var("PLUGINS_GITHUB_API")
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "https://api.github.com".into());
        let net = net_settings(&env, gh_base.as_deref(), &github_api, path("HOME"));
        Context {
            plugins_home: path("PLUGINS_HOME").map(|p| cwd.join(p)),
            home: path("HOME"),
            no_color: env.os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            force_color: env.os("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
            clicolor_off: env.os("CLICOLOR").is_some_and(|v| v == "0"),
            term_dumb: env.os("TERM").is_some_and(|v| v == "dumb"),
            columns: env.var("COLUMNS").and_then(|c| c.parse().ok()),
            gh_base,
            github_api,
            net,
            net_timeout: std::time::Duration::from_secs(
                env.var("PLUGINS_NET_TIMEOUT")
                    .and_then(|v| v.parse::<u64>().ok())
                    .filter(|s| *s > 0)
                    .unwrap_or(30),
            ),
            max_file_mib: match env.os("PLUGINS_MAX_FILE_MIB") {
                None => Ok(crate::git::DEFAULT_MAX_FILE_MIB),
                Some(v) => v
                    .to_str()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .filter(|m| *m > 0)
                    .ok_or_else(|| NotMib(v.to_string_lossy().into_owned())),
            },
            host: crate::host::HostEnv::read(
                &stripped,
                path("HOME"),
                path("XDG_CONFIG_HOME").filter(|p| p.is_absolute()),
                cwd.clone(),
                std::path::Path::new("/sandbox").is_dir(),
            ),
            featured_index: path("PLUGINS_FEATURED_INDEX")
                .or_else(|| path("AOE_FEATURED_INDEX_PATH"))
                .map(|p| cwd.join(p)),
            env_names: crate::host::EnvNames::new(move || {
                names
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .filter_map(|(k, _)| k.to_str().map(str::to_owned))
                    .collect()
            }),
            github_step_summary: path("GITHUB_STEP_SUMMARY"),
            registry: registry_env(&env, &cwd),
            cwd,
            vars: env,
        }
    }

    /// The environment as it was read at the start, for [`crate::steps::configure`].
    pub fn environment(&self) -> Arc<[(OsString, OsString)]> {
        self.vars.0.clone()
    }

    /// Each host's own home: aoe's app dir, protoAgent's instance, `~/.aworld`.
    pub fn default_homes(&self) -> crate::install::DefaultHomes {
        crate::install::DefaultHomes(
            crate::dialect::ALL
                .into_iter()
                .filter_map(|d| crate::host::default_home(d, &self.host))
                .collect(),
        )
    }

    /// Where `gh:` sources clone from.
    pub fn gh_base(&self) -> String {
        self.gh_base
            .clone()
            .unwrap_or_else(|| "https://github.com".into())
    }

    /// The homes a command looks at: `--home` or `PLUGINS_HOME` (refused when its host
    /// cannot be known, [`Home::named`]), else every host's default home that has a lock.
    pub fn homes(&self, flag: Option<&PathBuf>) -> Result<Vec<Home>, crate::lock::LockError> {
        if let Some(root) = flag
            .map(|f| self.absolute(f))
            .or_else(|| self.plugins_home.clone())
        {
            return Ok(vec![Home::named(root, None)?]);
        }
        let defaults = self.default_homes();
        Ok(defaults
            .0
            .into_iter()
            .filter(|h| h.lockfile().exists())
            .collect())
    }

    /// [`Context::homes`], each with its lock loaded.
    pub fn locked_homes(
        &self,
        flag: Option<&PathBuf>,
    ) -> Result<Vec<(Home, Lock)>, crate::lock::LockError> {
        self.homes(flag)?
            .into_iter()
            .map(|home| {
                let lock = home.load_lock()?;
                Ok((home, lock))
            })
            .collect()
    }

    /// `--python` as given: a path with a directory part is made absolute (the command may
    /// run elsewhere later); a bare name (`python3`) stays, to be looked up on `PATH`.
    pub fn python_arg(&self, python: &std::path::Path) -> PathBuf {
        if python.components().count() > 1 {
            self.absolute(python)
        } else {
            python.to_path_buf()
        }
    }

    /// `path` made absolute against the working directory.
    pub fn absolute(&self, path: &std::path::Path) -> PathBuf {
        crate::host::absolute(path, &self.cwd)
    }

    /// The home holding `plugins/<id>/`: `--home`, else `PLUGINS_HOME`, else the default
    /// home of the host `plugins` served first (aoe's app dir).
    pub fn plugins_home(&self, flag: Option<PathBuf>) -> Option<PathBuf> {
        flag.map(|f| self.absolute(&f))
            .or_else(|| self.plugins_home.clone())
            .or_else(|| {
                crate::host::default_home(crate::dialect::FIRST, &self.host).map(|h| h.root)
            })
    }
}

/// The color clap draws its own help and usage errors in, before the command line is
/// parsed: `--color` as given, else what the printer would do (`NO_COLOR`, `TERM=dumb`,
/// `CLICOLOR=0`, `CLICOLOR_FORCE`; clap itself checks whether the stream is a terminal).
#[allow(clippy::disallowed_methods)] // the one place the environment is read (clippy.toml)
pub fn clap_color(args: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut given = None;
    let mut it = args.iter().skip(1).map(|a| a.to_str().unwrap_or(""));
    while let Some(a) = it.next() {
        match a {
            "--" => break,
            "--color" => given = it.next(),
            _ => {
                if let Some(v) = a.strip_prefix("--color=") {
                    given = Some(v);
                }
            }
        }
    }
    match given {
        Some("never") => return clap::ColorChoice::Never,
        Some("always") => return clap::ColorChoice::Always,
        _ => {}
    }
    let env = |k: &str| std::env::var_os(k);
    if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        clap::ColorChoice::Never
    } else if env("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        clap::ColorChoice::Always
    } else if env("TERM").is_some_and(|v| v == "dumb") || env("CLICOLOR").is_some_and(|v| v == "0")
    {
        clap::ColorChoice::Never
    } else {
        clap::ColorChoice::Auto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The snapshot every lookup reads holds the tokens too: a debug print of a
    /// `Context` must not show them.
    #[test]
    fn a_debug_print_of_the_environment_shows_no_value() {
        let vars = Vars(Arc::from(vec![
            (
                OsString::from("GITHUB_TOKEN"),
                OsString::from("ghp_planted1234"),
            ),
            (OsString::from("HOME"), OsString::from("/home/me")),
        ]));
        assert_eq!(vars.os("GITHUB_TOKEN"), Some(OsStr::new("ghp_planted1234")));
        assert_eq!(format!("{vars:?}"), "Vars(2 variables)");
    }
}
