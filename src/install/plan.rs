//! What an install asks consent for: the facts of a validated tree (capabilities,
//! build steps, UI, code, pip requirements) and aoe's rules for asking again.

use std::path::Path;

use crate::dialect::Dialect;
use crate::steps::Step;
use crate::validate::PluginReport;

/// What consent is asked for.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: String,
    pub dialect: Dialect,
    pub version: String,
    pub source: String,
    pub commit: Option<String>,
    pub capabilities: Vec<String>,
    pub build_steps: Vec<String>,
    pub ui: Vec<String>,
    /// The plugin runs code inside the host (protoAgent modules, AWorld Python entrypoints).
    pub runs_code: bool,
    /// protoAgent `requires_pip`: hard requirements, then optional ones.
    pub pip: Vec<String>,
    pub optional_pip: Vec<String>,
    /// protoAgent `sync`: the wheels the lock pins (`name==version`), installed as pinned.
    pub pins: Vec<String>,
    /// aoe: a `gh:` source at an explicit ref, or at the default branch of a repository with
    /// no release, is unverified, un-audited code: it always asks (aoe §17).
    pub unverified: bool,
    /// `(recorded, new)`: signed by another key than the one the lock recorded; an update
    /// asks again.
    pub signer_change: Option<(String, String)>,
    /// An update: why consent is asked again (what changed in the grant); empty for a
    /// first install, or when nothing the host grants changed.
    pub reasons: Vec<String>,
}

impl Request {
    /// A request that asks for nothing yet: the plugin's identity, no grant.
    pub fn granting_nothing(
        id: String,
        dialect: Dialect,
        version: String,
        source: String,
        commit: Option<String>,
    ) -> Request {
        Request {
            id,
            dialect,
            version,
            source,
            commit,
            capabilities: Vec::new(),
            build_steps: Vec::new(),
            ui: Vec::new(),
            runs_code: false,
            pip: Vec::new(),
            optional_pip: Vec::new(),
            pins: Vec::new(),
            unverified: false,
            reasons: Vec::new(),
            signer_change: None,
        }
    }

    pub fn needs_consent(&self) -> bool {
        self.unverified
            || !self.capabilities.is_empty()
            || !self.build_steps.is_empty()
            || !self.ui.is_empty()
            || self.runs_code
            || !self.pins.is_empty()
    }
}

/// The consent request and build steps for a validated tree.
pub(super) fn describe(
    report: &PluginReport,
    tree: &Path,
    source: &str,
    commit: Option<&str>,
) -> (Request, Vec<Step>, Option<(String, bool)>) {
    // An installed copy without a manifest (an emptied directory under a tracked id) was
    // granted nothing: its request is empty, so an update asks again.
    let known = report.dialect;
    let dialect = known.unwrap_or(crate::host::NO_MANIFEST);
    let id = report.outcome.id.clone().unwrap_or_default();
    let version = report.outcome.version.clone().unwrap_or_default();
    let mut req = Request::granting_nothing(
        id,
        dialect,
        version,
        source.to_owned(),
        commit.map(str::to_owned),
    );
    let Some(dialect) = known else {
        return (req, Vec::new(), None);
    };
    let facts = &report.outcome.facts;
    req.capabilities.clone_from(&facts.capabilities);
    req.ui.clone_from(&facts.ui);
    req.build_steps = facts.build.iter().map(|s| s.argv.join(" ")).collect();
    req.pip.clone_from(&facts.pip);
    req.optional_pip.clone_from(&facts.optional_pip);
    req.runs_code = crate::host::runs_code_in_host(dialect, tree);
    (req, facts.build.clone(), facts.entrypoint.clone())
}

/// Whether an update must ask again: the capability set changed (and is not empty),
/// new files come with build steps, a changed manifest declares UI, or new code or
/// pip requirements appear.
pub(super) fn reconsent(
    before: &Request,
    after: &Request,
    manifest_changed: bool,
    tree_changed: bool,
) -> Vec<String> {
    let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    let list = |v: &[String]| format!("[{}]", v.join(", "));
    let mut why = Vec::new();
    if set(&before.capabilities) != set(&after.capabilities) && !after.capabilities.is_empty() {
        why.push(format!(
            "capabilities {} -> {}",
            list(&before.capabilities),
            list(&after.capabilities)
        ));
    }
    if tree_changed && !after.build_steps.is_empty() {
        why.push("its files changed and it has build steps".to_owned());
    }
    if manifest_changed && !after.ui.is_empty() {
        why.push("its manifest changed and it has UI".to_owned());
    }
    if after.runs_code && !before.runs_code {
        why.push("it now runs code inside the host".to_owned());
    }
    if set(&before.pip) != set(&after.pip) {
        why.push(format!("pip {} -> {}", list(&before.pip), list(&after.pip)));
    }
    why
}

/// An aoe worker's runtime as shown in an update's review: `command` or
/// `release binary <asset>`; none for other hosts or without a runtime.
pub(super) fn runtime(report: &PluginReport) -> Option<String> {
    let facts = &report.outcome.facts;
    match (&facts.release, &facts.entrypoint) {
        (Some(r), _) => Some(format!("release binary {}", r.asset)),
        (None, Some(_)) => Some("command".to_owned()),
        (None, None) => None,
    }
}

/// The hosts' options an install into `home` validates as: the command line's profile,
/// else the one the home remembers, else the newest.
fn host_options(
    opts: &super::InstallOptions,
    home: Option<&crate::store::Home>,
) -> crate::host::HostOptions {
    let remembered = home
        .map(crate::profile::HostProfile::load)
        .unwrap_or_default();
    opts.profile.or(remembered).host_options(&opts.validate)
}

/// The URL protoAgent's installer is given for a source (a local source is its path).
fn host_url(source: &crate::source::Source) -> String {
    match source {
        crate::source::Source::Git { url, .. } => url.clone(),
        crate::source::Source::Local { path } => path.display().to_string(),
    }
}

/// A host's superseded short-circuit (protoAgent 0.218, `protoagent-0218.md` §5.2 step
/// 3), before anything is fetched: a source a bundled plugin supersedes installs nothing
/// (the host runs its bundled copy), whatever `--force` says; an update of such a lock
/// entry has nothing to update (the update route's 409, §7.1).
pub(super) fn superseded(opts: &super::InstallOptions) -> Result<(), super::InstallError> {
    let url = host_url(&opts.source);
    // Only the profile is read: a home whose host cannot be known is refused where the
    // install goes to it.
    let options_for =
        |d: Dialect| host_options(opts, super::home_for(opts, Some(d)).ok().flatten().as_ref());
    let Some(crate::host::Superseded { id, version }) =
        crate::host::before_fetch(&url, &options_for)
    else {
        return Ok(());
    };
    let shown = opts.source.recorded().to_string();
    Err(if opts.pin.is_some() || opts.expect_id.is_some() {
        super::Refusal::SupersededCopy { id, version, shown }
    } else {
        super::Refusal::Superseded { id, version, shown }
    }
    .into())
}

/// The host's installer gates on a fetched, valid plugin, in the host's order
/// ([`crate::host::gates`]: protoAgent's source allowlist, then its built-in ids).
pub(super) fn host_gates(
    opts: &super::InstallOptions,
    dialect: Dialect,
    id: &str,
) -> Result<(), super::InstallError> {
    let home = super::home_for(opts, Some(dialect))?;
    let host = host_options(opts, home.as_ref());
    crate::host::gates(dialect, home.as_ref(), &host, &host_url(&opts.source), id)
        .map_err(|gate| super::Refusal::Host { gate }.into())
}

/// What the host will miss at run time ([`crate::host::runtime_gap`]: protoAgent 0.218's
/// Node.js floor): the host loads such a plugin and raises a setup gap; an install says
/// so up front.
pub(super) fn runtime_gap(
    opts: &super::InstallOptions,
    home: &crate::store::Home,
    report: &PluginReport,
    on_event: &mut dyn FnMut(super::Event),
) {
    let Some(dialect) = report.dialect else {
        return;
    };
    let host = host_options(opts, Some(home));
    let text = report.source.as_deref().unwrap_or_default();
    if let Some(message) = crate::host::runtime_gap(dialect, &host, text) {
        on_event(super::Event::Warning {
            code: crate::diagnostic::Code::InstallRuntimeMissing,
            message,
        });
    }
}
