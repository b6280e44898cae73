//! `plugins doctor`: one report of what an operator needs when something is off.
//!
//! Each home (does it exist, does its lock load, is every locked plugin's directory
//! there with its manifest unchanged, what killed processes left), the hosts' versions
//! where they are cheap to ask, whether each locked source answers a ref listing (the
//! same listing as `outdated`, with its proxy and credential sources named, never a
//! secret), the GitHub API rate limit when a GitHub source is locked, the idle signal
//! and the cron line. Nothing here changes a home or prints.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::diagnostic::Code;
use crate::host::detect::PYTHON_HOSTS;
use crate::lock::{Entry, Lock};
use crate::manifest::Dialect;
use crate::store::Home;

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
    /// `github`.
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
    pub dialect: Dialect,
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
    let mut locked: Vec<(Home, Dialect, Entry)> = Vec::new();
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
    checks.extend(hosts);
    checks.extend(sources);
    checks.extend(github);
    Report { checks }
}

fn examine_home(
    h: &HomeToCheck,
    opts: &Options,
    locked: &mut Vec<(Home, Dialect, Entry)>,
) -> Vec<Check> {
    let home = &h.home;
    let mut out = Vec::new();
    let at = |c: Check| c.home(home);
    let root = home.root.display();
    if !home.root.is_dir() {
        let check = if h.given {
            Check::new("home", Mark::Fail, format!("{root} does not exist"))
                .code(Code::DoctorHome)
                .help("check --home or PLUGINS_HOME; `plugins homes` shows each host's own home")
        } else {
            Check::new(
                "home",
                Mark::Info,
                format!(
                    "{root} does not exist: nothing is installed for {}",
                    h.dialect
                ),
            )
        };
        out.push(at(check));
        out.extend(h.notes.iter().cloned().map(at));
        return out;
    }
    out.push(at(Check::new("home", Mark::Ok, format!("{root} exists"))));
    out.extend(h.notes.iter().cloned().map(at));
    if home.is_locked() {
        out.push(at(Check::new(
            "home",
            Mark::Info,
            "another plugins process holds the home lock: a changing command waits for it (or fails with --no-wait)",
        )));
    }
    out.extend(examine_lock(h, locked).into_iter().map(at));
    out.extend(examine_leftovers(home).into_iter().map(at));
    out.push(at(examine_activity(home, opts.grace)));
    out.extend(examine_policy(home).into_iter().map(at));
    if let Some(line) = cron_line(home, opts) {
        out.push(at(Check::new("cron", Mark::Info, line)));
    }
    out
}

/// The lock loads, and each entry's directory is there with the manifest it was
/// installed with.
fn examine_lock(h: &HomeToCheck, locked: &mut Vec<(Home, Dialect, Entry)>) -> Vec<Check> {
    let (home, dialect) = (&h.home, h.dialect);
    let path = home.lockfile();
    if !path.exists() {
        return vec![Check::new(
            "lock",
            Mark::Info,
            format!("{} does not exist: no plugins are locked", path.display()),
        )];
    }
    let lock = match Lock::load(&path, dialect) {
        Ok(lock) => lock,
        Err(e) => {
            let mut c = Check::new("lock", Mark::Fail, e.to_string()).code(e.code());
            c.help = e.help();
            return vec![c];
        }
    };
    let entries = lock.entries();
    let mut out = vec![Check::new(
        "lock",
        Mark::Ok,
        format!(
            "{} ({dialect}) loads: {} {}",
            path.display(),
            entries.len(),
            if entries.len() == 1 {
                "plugin"
            } else {
                "plugins"
            }
        ),
    )];
    for e in entries {
        let dir = match home.locked_dir(&e) {
            Ok(dir) => dir,
            Err(err) => {
                let mut c = Check::new("plugin", Mark::Fail, err.to_string())
                    .code(err.code())
                    .id(&e.id);
                c.help = err.help();
                out.push(c);
                continue;
            }
        };
        if !dir.is_dir() {
            out.push(
                Check::new(
                    "plugin",
                    Mark::Fail,
                    format!("{}: {} is missing", e.id, dir.display()),
                )
                .code(Code::InstallTampered)
                .id(&e.id)
                .help("`plugins sync` installs it again at the locked commit"),
            );
        } else if !e.manifest_hash.is_empty()
            && std::fs::read(dir.join(dialect.spec().manifest))
                .map(|b| crate::hash::bytes(&b))
                .ok()
                .as_ref()
                != Some(&e.manifest_hash)
        {
            out.push(
                Check::new(
                    "plugin",
                    Mark::Fail,
                    format!("{}: the manifest changed since install", e.id),
                )
                .code(Code::InstallTampered)
                .id(&e.id)
                .help("`plugins verify` lists what changed; `plugins sync --force` puts the locked files back"),
            );
        }
        locked.push((home.clone(), dialect, e));
    }
    if out.len() == 1 && !locked.is_empty() {
        out[0].message.push_str(", every directory present");
    }
    out
}

/// What killed processes left: intent records and staging directories.
fn examine_leftovers(home: &Home) -> Vec<Check> {
    let found = crate::install::txn::leftovers(home);
    let recovers = "the next command that changes this home (install, update, remove, sync, rollback) recovers it first";
    let mut out = Vec::new();
    for id in &found.pending {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!("a change to {id} was interrupted (its intent record is pending)"),
            )
            .code(Code::DoctorLeftover)
            .id(id)
            .help(format!(
                "{recovers}: it finishes or undoes the change; `plugins sync` does so now"
            )),
        );
    }
    for path in &found.broken_records {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!("{} is an unreadable intent record", path.display()),
            )
            .code(Code::DoctorLeftover)
            .help(format!("{recovers}: it deletes it")),
        );
    }
    for path in &found.stale_staging {
        out.push(
            Check::new(
                "leftovers",
                Mark::Warn,
                format!(
                    "{} is a staging directory of a process that is gone",
                    path.display()
                ),
            )
            .code(Code::DoctorLeftover)
            .help(format!("{recovers}: it deletes it")),
        );
    }
    if found.live_staging > 0 {
        out.push(Check::new(
            "leftovers",
            Mark::Info,
            format!(
                "{} staging directories belong to running plugins processes",
                found.live_staging
            ),
        ));
    }
    if out.is_empty() {
        out.push(Check::new(
            "leftovers",
            Mark::Ok,
            "no interrupted change, no stale staging directory",
        ));
    }
    out
}

/// A duration in words: `42 s`, `5 min`, `3 h`, `2 d`.
fn age(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s if s < 172_800 => format!("{} h", s / 3600),
        s => format!("{} d", s / 86_400),
    }
}

/// The idle signal `autoupdate` reads, and the last sweep.
fn examine_activity(home: &Home, grace: Duration) -> Check {
    let path = crate::autoupdate::activity_path(home);
    let touched = std::fs::metadata(&path)
        .and_then(|m| m.modified())
        .ok()
        .map(|t| {
            SystemTime::now()
                .duration_since(t)
                .unwrap_or_default()
                .as_secs()
        });
    let mut message = match (touched, crate::autoupdate::activity(home, grace)) {
        (None, _) => format!("idle signal {}: never touched (idle)", path.display()),
        (Some(_), crate::autoupdate::Activity::InFlight) => {
            format!(
                "idle signal {}: a turn is in flight (locked)",
                path.display()
            )
        }
        (Some(s), crate::autoupdate::Activity::Recent(_)) => format!(
            "idle signal {}: touched {} ago (busy for {} s after a touch)",
            path.display(),
            age(s),
            grace.as_secs()
        ),
        (Some(s), crate::autoupdate::Activity::Idle) => {
            format!(
                "idle signal {}: touched {} ago (idle)",
                path.display(),
                age(s)
            )
        }
    };
    match crate::autoupdate::since_last_sweep(home) {
        Some(s) => message.push_str(&format!("; last autoupdate sweep {} ago", age(s))),
        None => message.push_str("; no autoupdate sweep yet"),
    }
    Check::new("activity", Mark::Info, message)
}

/// The autoupdate policy (`<home>/plugins.toml`): what is armed, and what is wrong
/// with the file (as `autoupdate` would warn).
fn examine_policy(home: &Home) -> Vec<Check> {
    let file = match crate::autoupdate::load_policy(home) {
        Ok(file) => file,
        Err(message) => {
            return vec![
                Check::new("activity", Mark::Fail, message)
                    .code(Code::ConfigInvalidValue)
                    .help("`plugins autoupdate` cannot run for this home until the file is fixed"),
            ];
        }
    };
    let p = &file.policy;
    let armed: Vec<&str> = p.rules.iter().map(|r| r.id.as_str()).collect();
    let message = if file.text.is_empty() {
        format!(
            "autoupdate policy {}: none (nothing is auto-updated)",
            file.path.display()
        )
    } else if p.interval_hours == 0 {
        format!(
            "autoupdate policy {}: sweeping disabled (interval 0)",
            file.path.display()
        )
    } else if armed.is_empty() {
        format!(
            "autoupdate policy {}: no plugin is armed",
            file.path.display()
        )
    } else {
        format!(
            "autoupdate policy {}: every {} h: {}",
            file.path.display(),
            p.interval_hours,
            armed.join(", ")
        )
    };
    let mut out = vec![Check::new("activity", Mark::Info, message)];
    for d in &file.warnings {
        let mut c = Check::new(
            "activity",
            Mark::Warn,
            format!("{}: {}", file.path.display(), d.message),
        )
        .code(d.code);
        c.help = d.help.clone();
        out.push(c);
    }
    out
}

/// `path` as one shell word.
fn shell_word(path: &Path) -> String {
    let s = path.display().to_string();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The crontab line `docs/cli.md` documents, for this home and this binary.
fn cron_line(home: &Home, opts: &Options) -> Option<String> {
    let binary = opts.binary.as_ref()?;
    let log = opts.user_home.as_ref().map_or(String::new(), |h| {
        format!(
            " >>{} 2>&1",
            shell_word(&h.join(".local/state/plugins-autoupdate.log"))
        )
    });
    Some(format!(
        "17 * * * * {} autoupdate -q --home {}{log}",
        shell_word(binary),
        shell_word(&home.root)
    ))
}

/// The hosts' versions: `aoe --version`, and the protoAgent and AWorld packages of
/// the `python3` on PATH (`crate::host::detect`). Absent hosts are `info`, never a failure.
fn host_versions(timeout: Duration) -> Vec<Check> {
    let (aoe, python) = std::thread::scope(|s| {
        let aoe = s.spawn(|| crate::host::detect::aoe_version(timeout));
        let python = s.spawn(|| crate::host::detect::python_hosts("python3", timeout));
        (
            aoe.join().unwrap_or_else(|_| Err("failed".into())),
            python.join().unwrap_or_else(|_| Err("failed".into())),
        )
    });
    let mut out = vec![match aoe {
        Ok(v) if !v.is_empty() => Check::new("host", Mark::Info, format!("aoe: {v}")),
        Ok(_) => Check::new("host", Mark::Info, "aoe: `aoe --version` printed nothing"),
        Err(why) => Check::new("host", Mark::Info, format!("aoe: {why}")),
    }];
    match python {
        Ok(versions) => {
            for (i, (host, dist)) in PYTHON_HOSTS.iter().enumerate() {
                let message = match versions.get(i).cloned().flatten() {
                    Some(v) => format!("{host}: {dist} {v} (python3)"),
                    None => format!("{host}: python3 has no {dist} package"),
                };
                out.push(Check::new("host", Mark::Info, message));
            }
        }
        Err(why) => {
            for (host, _) in PYTHON_HOSTS {
                out.push(Check::new(
                    "host",
                    Mark::Info,
                    format!("{host}: python3 {why}"),
                ));
            }
        }
    }
    out
}

/// The git URL of a locked entry, if it has one.
fn git_url(e: &Entry, gh_base: &str) -> Option<String> {
    match crate::source::Source::of_entry(e, gh_base) {
        Ok(crate::source::Source::Git { url, .. }) => Some(url),
        _ => None,
    }
}

/// How a git transfer to `url` is routed.
pub fn git_route(url: &str) -> Route {
    Route {
        url: url.to_owned(),
        proxy: crate::git::proxy_for(url),
        credentials: crate::net::credential_sources(
            url,
            false,
            crate::git::credential_helper_configured(),
        ),
    }
}

fn describe(route: &Route) -> String {
    let proxy = route.proxy.as_deref().unwrap_or("none");
    format!(
        "proxy: {proxy}; credentials if asked: {}",
        crate::net::describe_sources(&route.credentials)
    )
}

/// The code of a failed check, from its message (`update::Status::Error` carries text
/// only): credentials refused or missing (`git::GitError::Auth`), the locked ref gone
/// from the remote (`update::decide`), else the remote could not be listed.
fn failure_code(message: &str) -> Code {
    if message.contains(" needs credentials and ") {
        Code::GitAuth
    } else if message.starts_with("the remote no longer has ")
        || message.starts_with("the remote has no branch or tag ")
    {
        Code::GitRefNotFound
    } else {
        Code::GitFetch
    }
}

/// Each locked git source answers a ref listing, through `outdated`'s checks (a
/// commit pin is listed too: reachability is the question here).
fn sources(locked: &[(Home, Dialect, Entry)], opts: &Options) -> Vec<Check> {
    let entries: Vec<Entry> = locked
        .iter()
        .map(|(_, _, e)| match e.ref_kind {
            Some(crate::git::RefKind::Commit) => Entry {
                ref_kind: Some(crate::git::RefKind::Default),
                ..e.clone()
            },
            _ => e.clone(),
        })
        .collect();
    let url_of = |e: &Entry| git_url(e, &opts.gh_base);
    let checks = crate::update::check_all(&entries, opts.jobs, opts.timeout, opts.pre, &url_of);
    let mut out = Vec::new();
    for ((home, _, entry), c) in locked.iter().zip(checks) {
        use crate::update::Status;
        let Some(url) = url_of(entry) else { continue };
        if crate::git::is_local(&url) && !matches!(c.status, Status::Error { .. }) {
            out.push(
                Check::new(
                    "source",
                    Mark::Ok,
                    format!("{}: {url} is readable", entry.id),
                )
                .home(home)
                .id(&entry.id),
            );
            continue;
        }
        let route = git_route(&url);
        let pinned = entry.ref_kind == Some(crate::git::RefKind::Commit);
        let check = match &c.status {
            Status::Error { message } => {
                Check::new("source", Mark::Fail, format!("{}: {message}", entry.id))
                    .code(failure_code(message))
                    .help(format!(
                        "{} ({})",
                        describe(&route),
                        "PLUGINS_NET_TIMEOUT and --timeout bound each attempt"
                    ))
            }
            status => {
                let state = match status {
                    _ if pinned => "pinned to a commit".to_owned(),
                    Status::UpToDate => "up to date".to_owned(),
                    Status::Behind { new_ref, commit }
                        if new_ref.is_empty() || *new_ref == entry.requested_ref =>
                    {
                        format!("newer: {}", &commit[..commit.len().min(10)])
                    }
                    Status::Behind { new_ref, .. } => format!("newer: {new_ref}"),
                    _ => "listed".to_owned(),
                };
                Check::new(
                    "source",
                    Mark::Ok,
                    format!(
                        "{}: {url} answers ({state}); {}",
                        entry.id,
                        describe(&route)
                    ),
                )
            }
        };
        let mut check = check.home(home).id(&entry.id);
        check.route = Some(route);
        out.push(check);
    }
    out
}

/// The GitHub API's rate limit, when a locked source is on GitHub.
fn github_rate_limit(locked: &[(Home, Dialect, Entry)], opts: &Options) -> Option<Check> {
    let on_github = locked.iter().any(|(_, _, e)| {
        e.source.starts_with("gh:")
            || git_url(e, &opts.gh_base).is_some_and(|u| crate::net::is_github(&u))
    });
    if !on_github {
        return None;
    }
    let api = opts.github_api.clone();
    let url = format!("{}/rate_limit", api.trim_end_matches('/'));
    let route = Route {
        url: url.clone(),
        proxy: crate::net::env_proxy(&url),
        credentials: crate::net::github_token_for(&url)
            .map(|_| vec![crate::net::settings().github_token_from.to_owned()])
            .unwrap_or_default(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(crate::release::rate_limit(&api));
    });
    let mut check = match rx.recv_timeout(opts.timeout) {
        Ok(Ok(r)) => {
            let resets = r.reset.saturating_sub(
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
            );
            let message = format!(
                "{url}: {} of {} requests left, resets in {}; {}",
                r.remaining,
                r.limit,
                age(resets),
                describe(&route)
            );
            if r.remaining == 0 {
                Check::new("github", Mark::Warn, message)
                    .code(Code::DoctorRateLimit)
                    .help("installs of `gh:` sources without a ref and release downloads wait until it resets; a GITHUB_TOKEN raises the limit")
            } else {
                Check::new("github", Mark::Ok, message)
            }
        }
        Ok(Err(e)) => Check::new(
            "github",
            Mark::Warn,
            format!("cannot read the rate limit: {e}"),
        )
        .code(Code::DoctorRateLimit)
        .help(describe(&route)),
        Err(_) => Check::new(
            "github",
            Mark::Warn,
            format!("{url} did not answer within {} s", opts.timeout.as_secs()),
        )
        .code(Code::DoctorRateLimit)
        .help(describe(&route)),
    };
    check.route = Some(route);
    Some(check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified_by_what_the_check_says() {
        let auth = crate::git::GitError::Auth {
            url: "https://h/x".into(),
            offered: vec![],
        };
        assert_eq!(failure_code(&auth.to_string()), Code::GitAuth);
        let mut e = Entry {
            id: "x".into(),
            source: "s".into(),
            requested_ref: "gone".into(),
            ref_kind: Some(crate::git::RefKind::Branch),
            commit: Some("a".repeat(40)),
            ..Entry::default()
        };
        for kind in [Some(crate::git::RefKind::Branch), None] {
            e.ref_kind = kind;
            let crate::update::Status::Error { message } = crate::update::decide(&e, &[], false)
            else {
                panic!("a missing ref is an error")
            };
            assert_eq!(failure_code(&message), Code::GitRefNotFound, "{message}");
        }
        assert_eq!(
            failure_code("listing x timed out after 5 s"),
            Code::GitFetch
        );
    }

    #[test]
    fn ages_and_shell_words() {
        assert_eq!(
            [age(5), age(600), age(10_000), age(400_000)],
            ["5 s", "10 min", "2 h", "4 d"]
        );
        assert_eq!(
            shell_word(Path::new("/usr/bin/plugins")),
            "/usr/bin/plugins"
        );
        assert_eq!(shell_word(Path::new("/a b/it's")), "'/a b/it'\\''s'");
    }
}
