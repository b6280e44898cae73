//! What to install and how: [`InstallOptions`], the hosts' default homes, and the home
//! and validation options an install derives from them.

use std::path::PathBuf;
use std::time::Duration;

use crate::dialect::Dialect;
use crate::host::ValidateOptions;
use crate::lock::Entry;
use crate::profile::HostProfile;
use crate::source::Source;
use crate::store::Home;

/// Where each host keeps its plugins when no home is given.
#[derive(Clone, Debug, Default)]
pub struct DefaultHomes(pub Vec<Home>);

impl DefaultHomes {
    pub fn for_dialect(&self, d: Dialect) -> Option<&Home> {
        self.0.iter().find(|home| home.dialect.is(d))
    }

    /// Whether `home` is one of the hosts' own homes.
    pub fn is_default(&self, home: &Home) -> bool {
        self.0.contains(home)
    }
}

/// What to install and how.
#[derive(Clone, Debug)]
pub struct InstallOptions {
    pub source: Source,
    /// `--home` or `PLUGINS_HOME`; else the dialect's default home.
    pub home: Option<PathBuf>,
    pub defaults: DefaultHomes,
    pub validate: ValidateOptions,
    pub build: bool,
    pub force: bool,
    pub build_timeout: Duration,
    /// Wait for another process's home lock (else fail at once).
    pub wait: bool,
    /// Who installs, recorded by hosts that keep it (protoAgent's `by`).
    pub by: String,
    /// protoAgent: install `requires_pip` into `<deps root>/<id>` as the host's wheel
    /// installer does, in the install's transaction. A plugin whose lock row has `deps`
    /// (installed with `--deps`, or by the host's wheel installer) gets them again with
    /// every change of its code, without this.
    pub deps: bool,
    /// The host's interpreter whose pip installs the deps (`--python`); else the one the
    /// home remembers (`[host] python` in `plugins.toml`), else `python3` on PATH.
    pub python: Option<PathBuf>,
    /// Detect the installed host's version when neither the command line nor the home
    /// names a profile ([`crate::host::detect`]).
    pub detect: bool,
    /// `update`: the id the source must still hold.
    pub expect_id: Option<String>,
    /// The GitHub API base for release-binary downloads.
    pub github_api: String,
    /// Why consent is asked even when the grant did not change (`update` of a tag that was
    /// re-pointed): added to the consent's reasons.
    pub ask_again: Option<String>,
    /// `sync`: install exactly this commit, keeping the lock's requested ref and kind.
    pub pin: Option<Entry>,
    /// `update` of a branch that moves faster than the cooldown: this commit of the branch
    /// (older than its tip, first seen at least the cooldown ago), recorded as the branch
    /// (the source's ref, or the default branch without one).
    pub at_commit: Option<String>,
    /// `sync --frozen`: the fetched tree must hash to the pin's `tree_hash` (checked
    /// before anything is asked or staged further).
    pub frozen: bool,
    /// `sync --from BUNDLE`: the pinned tree as `plugins bundle` wrote it, taken instead of
    /// fetching (the pin's commit, ref and kind are kept; `--frozen` checks its tree hash).
    pub tree_from: Option<PathBuf>,
    /// `sync --from BUNDLE`: the locked wheels, installed from this directory only (pip
    /// `--no-index --find-links`).
    pub wheels_from: Option<PathBuf>,
    /// `sync --from BUNDLE`: the directory holding the locked release asset (aoe's
    /// release-binary worker), taken instead of downloading it.
    pub asset_from: Option<PathBuf>,
    /// `sync --from BUNDLE`: a directory holding the plugin's build output (aoe's
    /// `.aoe-build`, checked against the lock's `build_output_hash` before anything is
    /// staged), put in place instead of running the build steps.
    pub build_from: Option<PathBuf>,
    /// An RFC 3339 timestamp for hosts whose lock records one.
    pub now: String,
    /// aoe's featured index override (`PLUGINS_FEATURED_INDEX`); `None`: the built-in one.
    pub featured_index: Option<PathBuf>,
    /// The host profile given on the command line: it wins over the one the home
    /// remembers (`[host]` in `plugins.toml`), and is remembered once the install succeeds.
    pub profile: HostProfile,
    /// `--require-signed` and `--allowed-signers`: with `[trust]` of the home's
    /// `plugins.toml`, whether the plugin must be signed, and by whom.
    pub signing: crate::signing::SignArgs,
    /// The monorepo fetches this command's installs share ([`super::SharedFetches`]).
    pub shared: Option<super::shared::Shared>,
}

impl super::shared::Wants for InstallOptions {
    fn source(&self) -> &Source {
        &self.source
    }

    fn pin(&self) -> Option<&Entry> {
        self.pin.as_ref()
    }

    fn expects_id(&self) -> bool {
        self.expect_id.is_some()
    }

    fn at_commit(&self) -> Option<&String> {
        self.at_commit.as_ref()
    }
}

impl InstallOptions {
    /// The options every install starts from: build, wait for the home lock,
    /// the host's validation defaults, 600 s per build step, stamped now.
    pub fn new(
        source: Source,
        home: Option<PathBuf>,
        defaults: DefaultHomes,
        github_api: &str,
        by: &str,
    ) -> InstallOptions {
        InstallOptions {
            source,
            home,
            defaults,
            validate: ValidateOptions::default(),
            build: true,
            force: false,
            build_timeout: Duration::from_secs(600),
            wait: true,
            by: by.to_owned(),
            deps: false,
            python: None,
            detect: true,
            expect_id: None,
            github_api: github_api.to_owned(),
            pin: None,
            at_commit: None,
            frozen: false,
            tree_from: None,
            wheels_from: None,
            asset_from: None,
            build_from: None,
            now: crate::clock::now(),
            featured_index: None,
            profile: HostProfile::default(),
            signing: crate::signing::SignArgs::default(),
            shared: None,
            ask_again: None,
        }
    }
}

/// The home an install goes to (refused when its host cannot be known, [`Home::named`]).
pub(super) fn home_for(
    opts: &InstallOptions,
    dialect: Option<Dialect>,
) -> Result<Option<Home>, crate::lock::LockError> {
    Ok(match &opts.home {
        Some(h) => Some(Home::named(h.clone(), dialect)?),
        None => dialect.and_then(|d| opts.defaults.for_dialect(d).cloned()),
    })
}

/// How to validate `tree`: as the host the command line names, else the one the home it
/// goes to remembers.
///
/// With neither, the installed host's version is detected (`aoe --version`, the
/// protoAgent package of the host's Python: [`crate::host::detect`]) and its profile used
/// (not remembered: a host upgrade is seen by the next command); `-v` says so.
pub(super) fn validate_options(opts: &InstallOptions, tree: &std::path::Path) -> ValidateOptions {
    let dialect = match crate::host::detect_all(tree).as_slice() {
        [d] => Some(*d),
        _ => None,
    };
    // Only the profile is read here: a home whose host cannot be known is refused where the
    // install goes to it.
    let home = home_for(opts, dialect).ok().flatten();
    let remembered = home.as_ref().map(HostProfile::load).unwrap_or_default();
    let mut profile = opts.profile.or(remembered);
    if let Some(d) = dialect
        && opts.detect
        && crate::host::detect::wanted(d, &profile)
    {
        let python = crate::host::detect::host_python(opts.python.as_deref(), home.as_ref());
        if let Some(found) = crate::host::detect::detect(d, &python, home.as_ref()) {
            profile = profile.or(found.profile);
        }
    }
    let mut v = opts.validate.clone();
    profile.apply(&mut v);
    v
}
