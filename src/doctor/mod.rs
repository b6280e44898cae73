//! `plugins doctor`: one report of what an operator needs when something is off.
//!
//! Each home (does it exist, does its lock load, is every locked plugin's directory
//! there with its manifest unchanged, what killed processes left), the hosts' versions
//! where they are cheap to ask, whether each locked source answers a ref listing (the
//! same listing as `outdated`, with its proxy and credential sources named, never a
//! secret), whether each locked commit is still published (and, under `require_signed`,
//! signed by the key the lock recorded), the GitHub API rate limit when a GitHub source is locked, the idle signal
//! and the cron line. Nothing here changes a home or prints.

use std::path::PathBuf;
use std::time::Duration;

use crate::diagnostic::Code;
use crate::lock::Entry;
use crate::store::Home;

mod cron;
mod local;
mod network;
#[cfg(test)]
mod tests;

use local::{examine_home, host_versions};
use network::{github_rate_limit, sources};

pub use network::git_route;

/// How a check came out. `info` is neither good nor bad (an absent host, an age).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    Info,
    Ok,
    Warn,
    Fail,
}

impl Mark {
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Info => "info",
            Mark::Ok => "ok",
            Mark::Warn => "warn",
            Mark::Fail => "fail",
        }
    }
}

/// How a transfer to a URL goes: through which proxy, with credentials from where.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Route {
    pub url: String,
    /// The proxy (`None`: straight to the server).
    pub proxy: Option<String>,
    /// The credential sources that have something for the URL, in the order they
    /// are offered when the server asks; names only.
    pub credentials: Vec<String>,
}

/// One finding.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    /// `home`, `lock`, `plugin`, `leftovers`, `activity`, `cron`, `host`, `source`,
    /// `github`, `registry`.
    pub area: &'static str,
    pub status: Mark,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The home the check is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home: Option<PathBuf>,
    /// The plugin the check is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A source's or the API's route.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<Route>,
}

impl Check {
    pub fn new(area: &'static str, status: Mark, message: impl Into<String>) -> Check {
        Check {
            area,
            status,
            message: message.into(),
            code: None,
            help: None,
            home: None,
            id: None,
            route: None,
        }
    }

    pub fn code(mut self, code: Code) -> Check {
        self.code = Some(code);
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Check {
        self.help = Some(help.into());
        self
    }

    fn home(mut self, home: &Home) -> Check {
        self.home = Some(home.root.clone());
        self
    }

    fn id(mut self, id: &str) -> Check {
        self.id = Some(id.to_owned());
        self
    }
}

/// A home to examine.
#[derive(Clone, Debug)]
pub struct HomeToCheck {
    pub home: Home,
    /// Named with `--home` or `PLUGINS_HOME`: its absence is a failure, not an
    /// uninstalled host.
    pub given: bool,
    /// What resolving the home found (protoAgent's refused relative plugins directory),
    /// reported after the home's own check.
    pub notes: Vec<Check>,
}

/// What to examine and how.
#[derive(Clone, Debug)]
pub struct Options {
    pub homes: Vec<HomeToCheck>,
    /// Query remotes and the GitHub API (else only local checks).
    pub network: bool,
    /// At most this many remotes at once.
    pub jobs: usize,
    /// Each remote, host command and API call gets this long.
    pub timeout: Duration,
    pub pre: bool,
    /// Where `gh:` sources clone from.
    pub gh_base: String,
    /// The GitHub API base.
    pub github_api: String,
    /// How long after the idle signal was touched the host counts as busy.
    pub grace: Duration,
    /// The running binary, for the cron line.
    pub binary: Option<PathBuf>,
    /// The user's home directory, for the cron line's log file.
    pub user_home: Option<PathBuf>,
    /// Registry credentials, for the tags homes synced bundles from.
    pub registry: crate::oci::RegistryEnv,
}

/// Everything found, in report order.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub checks: Vec<Check>,
}

impl Report {
    pub fn count(&self, mark: Mark) -> usize {
        self.checks.iter().filter(|c| c.status == mark).count()
    }

    pub fn failed(&self) -> bool {
        self.count(Mark::Fail) > 0
    }
}

/// Examine everything [`Options`] names. The network checks (sources, rate limit)
/// and the host version commands run at once, each bounded by `timeout`.
pub fn examine(opts: &Options) -> Report {
    let mut checks = Vec::new();
    let mut locked: Vec<(Home, Entry)> = Vec::new();
    for h in &opts.homes {
        checks.extend(examine_home(h, opts, &mut locked));
    }
    let (hosts, sources, github) = std::thread::scope(|s| {
        let hosts = s.spawn(|| host_versions(opts.timeout));
        let sources = s.spawn(|| {
            if opts.network {
                sources(&locked, opts)
            } else {
                Vec::new()
            }
        });
        let github = opts
            .network
            .then(|| github_rate_limit(&locked, opts))
            .flatten();
        (
            hosts.join().unwrap_or_default(),
            sources.join().unwrap_or_default(),
            github,
        )
    });
    checks.extend(step_isolation(
        crate::steps::isolation(),
        // SAFETY: geteuid cannot fail.
        cfg!(unix) && unsafe { libc::geteuid() } == 0,
    ));
    checks.extend(hosts);
    checks.extend(sources);
    checks.extend(github);
    if opts.network {
        checks.extend(network::registries(opts));
    }
    Report { checks }
}

/// Where build steps, pip and host probes cannot be kept from `plugins`' process (no PID
/// or user namespace of their own here), what that leaves open; nothing when they can.
fn step_isolation(isolation: crate::steps::Isolation, root: bool) -> Option<Check> {
    use crate::steps::Isolation;
    if isolation == Isolation::Namespaces {
        return None;
    }
    let mut message = isolation.describe().to_owned();
    if !crate::steps::kept_to_itself() {
        message.push_str("; and plugins could not make itself non-dumpable here");
    }
    let help = if root {
        "run plugins as an unprivileged user, or allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0); keep tokens out of the environment of a root plugins (a credential helper, .netrc)"
    } else {
        "allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0) so that steps run as pid 1 of their own namespaces"
    };
    Some(
        Check::new("hosts", Mark::Warn, message)
            .code(Code::DoctorStepIsolation)
            .help(help),
    )
}
