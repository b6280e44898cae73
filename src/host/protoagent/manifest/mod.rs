//! protoAgent (`protoagent.plugin.yaml`): `load_manifest`'s verdict and
//! warnings, the load gates that can be checked statically, and lints for
//! everything the host silently drops or coerces (spec `protoagent.md` §1–§3,
//! §10), for the host profile `--host-version` selects: 0.218 (the default,
//! `protoagent-0218.md` §2, §10, §13) or 0.145.

mod facts;
mod lint;

/// `canonical_source` (0.218 §2.9): `host/owner/repo`, lowercased, or "" for no remote
/// git source.
pub(crate) use lint::canonical_source;
pub(crate) mod pep440;

use std::path::Path;
use std::sync::LazyLock;

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::manifest::doc::{Locator, Node, Value};
use crate::manifest::pyval::{py_str, repr_str, truthy};
use crate::manifest::{Facts, Finding, HostClass, Outcome, format};
use crate::ptr;

/// The manifest JSON Schema `plugins schema protoagent` prints.
pub const SCHEMA: &str = include_str!("plugin.schema.json");

/// Ids that would shadow a core `/api/plugins/<…>` route (compared lowercase),
/// as protoAgent 0.145 reserves them.
pub(crate) const RESERVED_IDS: &[&str] = &[
    "install",
    "installed",
    "sync",
    "updates",
    "catalog",
    "enabled",
];

/// The reserved ids of protoAgent 0.218 (`protoagent-0218.md` §2.1): three more routes.
pub(crate) const RESERVED_IDS_0218: &[&str] = &[
    "install",
    "installed",
    "sync",
    "updates",
    "catalog",
    "enabled",
    "bundles",
    "ack",
    "install-deps",
];

/// The manifest ids of protoAgent 0.145's bundled tree (`app_root/plugins`), which its
/// installer refuses to install over (`protoagent-0218.md` §5.2 step 8).
pub const BUNDLED_0145: &[&str] = &[
    "artifact",
    "coder",
    "craft",
    "delegates",
    "docs",
    "execute_code",
    "friction",
    "hello",
    "notes",
    "orgchart",
    "plugin-devkit",
    "telegram",
    "workflows",
];

/// The ids 0.218 added to the bundled tree (`coding_agent/` has no manifest).
pub const BUNDLED_0218_ADDED: &[&str] =
    &["agent_browser", "cowork", "engineer", "technical_writer"];

/// Whether `id` is a bundled plugin of the profile's host (`_is_builtin`: exact ids).
pub fn is_bundled(id: &str, profile: Profile) -> bool {
    BUNDLED_0145.contains(&id) || (profile == Profile::V0218 && BUNDLED_0218_ADDED.contains(&id))
}

/// The host's `plugins.built_in` message (`installer.install` step 8).
pub(crate) fn builtin_message(id: &str) -> String {
    format!("plugin id '{id}' is a built-in — cannot install over it.")
}

/// The protoAgent release whose manifest rules apply (`protoagent-0218.md` §13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// protoAgent 0.145: no palette commands, settings tabs, federation paths,
    /// runtimes, supersedes or enables; no core-route filter; no decoding.
    V0145,
    /// protoAgent 0.218 (the newest, and the default).
    V0218,
}

/// The profile of the host version validated against: 0.218 unless
/// `--host-version` names an older release (the newest is the default).
pub(crate) fn profile(opts: &Options) -> Profile {
    let older = opts
        .host_version
        .as_deref()
        .and_then(pep440::Version::parse)
        .is_some_and(|v| pep440::Version::parse("0.218.0").is_some_and(|new| v < new));
    if older {
        Profile::V0145
    } else {
        Profile::V0218
    }
}

/// The version the `min_protoagent_version` gate compares with (`protoagent-0218.md`
/// §13): the one `--host-version` names, where the profile names `0.145` and `0.218`
/// stand for the releases the profiles were read from (0.145.0 and 0.218.1); without
/// one, the newest profile's 0.218.1.
pub fn gate_host_version(opts: &Options) -> String {
    match opts.host_version.as_deref().map(str::trim) {
        None => "0.218.1".to_owned(),
        Some("0.145") => "0.145.0".to_owned(),
        Some("0.218") => "0.218.1".to_owned(),
        Some(v) => v.to_owned(),
    }
}

/// The reserved ids of the host version validated against.
pub(crate) fn reserved_ids(opts: &Options) -> &'static [&'static str] {
    match profile(opts) {
        Profile::V0145 => RESERVED_IDS,
        Profile::V0218 => RESERVED_IDS_0218,
    }
}

/// How to validate.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The protoAgent version to check `min_protoagent_version` against.
    pub host_version: Option<String>,
    /// Environment variables set (non-empty) where the host will run, for `requires_env`.
    pub env: Option<crate::host::EnvNames>,
    /// The plugin ships inside protoAgent (`--bundled`): its id is a bundled one by right.
    pub bundled: bool,
}

/// The parsed schema.
pub(crate) fn schema_value() -> &'static serde_json::Value {
    static S: LazyLock<serde_json::Value> =
        LazyLock::new(|| serde_json::from_str(SCHEMA).expect("embedded schema is JSON"));
    &S
}

/// Whether `id` matches the id grammar.
pub(crate) fn id_grammar_ok(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Archive names pip installs as a local file when one by that name exists
/// (pip's `is_archive_file`).
const ARCHIVE_EXTENSIONS: [&str; 12] = [
    ".whl",
    ".zip",
    ".tar",
    ".tar.gz",
    ".tgz",
    ".tar.bz2",
    ".tbz",
    ".tar.xz",
    ".txz",
    ".tlz",
    ".tar.lz",
    ".tar.lzma",
];

/// protoAgent's `_validate_pip_specs` (spec §5.4): why `install-deps` refuses a
/// `requires_pip` requirement, if it does; and, beyond the host, a requirement pip
/// would take as a local directory or archive (a separator or a leading `.` before
/// the markers, or an archive name), which would build and run the plugin's own
/// files (`tree/`) during `install --deps`.
pub(crate) fn pip_spec_problem(spec: &str) -> Option<&'static str> {
    let s = spec.trim();
    if s.starts_with('-') {
        return Some("looks like a pip option, not a package");
    }
    if s.contains("://")
        || s.contains('@')
        || ["git+", "hg+", "svn+", "bzr+", "file:"]
            .iter()
            .any(|p| s.starts_with(p))
    {
        return Some("is a VCS/URL/direct reference, which is not allowed");
    }
    if !s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()) {
        return Some("is not a valid PEP 508 package requirement");
    }
    // pip splits the markers off at the first `;`, then extras, then asks whether the
    // rest names a path.
    let req = s.split(';').next().unwrap_or(s).trim();
    let name_end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(req.len());
    let name = req[..name_end].to_ascii_lowercase();
    if req.contains(['/', '\\'])
        || ARCHIVE_EXTENSIONS.iter().any(|e| name.ends_with(e))
        || req.to_ascii_lowercase().starts_with("file:")
    {
        return Some("names a local path or archive, which pip would build and run");
    }
    None
}

/// A required scalar as `str(data.get(key, "")).strip()`, `None` when absent
/// or blank. A null is `str(None)`, the valid "None" (`id: ~` is an id).
fn required_str(doc: &Node, key: &str) -> Option<String> {
    let node = &doc.get(key)?.node;
    Some(py_str(node).trim().to_owned()).filter(|s| !s.is_empty())
}

/// Codes whose diagnostics are `load_manifest`'s own warnings, with the host's
/// text after `[plugins] <id>: ` (and in its order among themselves).
pub(crate) const HOST_LOGGED: &[Code] = &[
    Code::ProtoSettingsTab,
    Code::ProtoSettingsTabApply,
    Code::ProtoSettingsTabPath,
    Code::ProtoSettingTab,
    Code::ProtoViewOrigin,
    Code::ProtoViewPalette,
    Code::ProtoCommand,
    Code::ProtoCommandAction,
    Code::ProtoCommandRoute,
    Code::ProtoCommandTopic,
    Code::ProtoCommandChain,
    Code::ProtoPublicPath,
    Code::ProtoCoreRoute,
    Code::ProtoFederationPath,
    Code::ProtoEmits,
    Code::ProtoRequiresPip,
    Code::ProtoRequiresRuntimes,
    Code::ProtoSupersedes,
    Code::ProtoEnables,
];

/// The warnings the host logs while reading a manifest `validate` found valid,
/// as the host prints them (`[plugins] <id>: …`), in the host's order.
pub fn host_log(outcome: &Outcome) -> Vec<String> {
    let Some(id) = outcome
        .id
        .as_deref()
        .filter(|_| outcome.class == HostClass::Valid)
    else {
        return Vec::new();
    };
    outcome
        .diagnostics
        .iter()
        .filter(|d| HOST_LOGGED.contains(&d.code))
        .map(|d| format!("[plugins] {id}: {}", d.message))
        .collect()
}

/// What is left unchecked when the host skips the manifest (it stops there too).
const GATES_AND_LINTS: &str =
    "the load gates (entry module, min_protoagent_version, requires_env) and lints";

/// Validate `text`, the manifest of the plugin directory `root`.
pub fn validate(text: &str, root: &Path, opts: &Options) -> Outcome {
    validate_at(text, root, None, opts)
}

/// Validate `text`, the manifest of the plugin directory `root`, with `root`'s canonical
/// path when the caller knows it (a recursive
/// search resolves the start once): no per-directory canonicalisation.
pub(crate) fn validate_at(
    text: &str,
    root: &Path,
    canonical: Option<&Path>,
    opts: &Options,
) -> Outcome {
    let resolved = match canonical {
        Some(c) => Some(c.to_path_buf()),
        None => fs_err::canonicalize(root).ok(),
    };
    let dir = resolved
        .as_deref()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // Paths the manifest names resolve against the real directory, as the host's do.
    let root = resolved.as_deref().unwrap_or(root);
    let doc = match format::parse_yaml(text) {
        Ok(doc) => doc,
        Err(e) => return unloadable(text, &dir, e),
    };
    // `yaml.safe_load(text) or {}`: a falsy document is an empty mapping.
    let empty = Node {
        span: 0..0,
        value: Value::Table(Vec::new()),
    };
    let doc = if truthy(&doc) { doc } else { empty };
    let id = match loaded_id(&doc, &dir, opts) {
        Ok(id) => id,
        Err(outcome) => return *outcome,
    };
    let version = doc
        .get("version")
        .map_or_else(|| "0.0.0".to_owned(), |e| py_str(&e.node));
    let mut findings = lint::check(&doc, &id, root, opts);
    // The manifest loads, but the installer refuses a bundled id (an install refusal:
    // a warning, which `--strict` fails, in install's code and words).
    if is_bundled(&id, profile(opts)) && !opts.bundled {
        let release = match profile(opts) {
            Profile::V0145 => "0.145",
            Profile::V0218 => "0.218",
        };
        findings.push((
            Finding::new(Code::InstallBuiltin, builtin_message(&id), ptr!["id"])
                .label(format!("protoAgent {release} ships a plugin with this id"))
                .help("`protoagent plugin install` refuses it and runs its own bundled copy; choose another id (for a fork, e.g. with a suffix)"),
            Severity::Warning,
        ));
    }
    let at = Locator::new(&doc);
    let diagnostics = findings
        .into_iter()
        .map(|(f, sev)| f.resolve(&at, sev))
        .collect();
    Outcome {
        class: HostClass::Valid,
        host_message: None,
        diagnostics,
        id: Some(id),
        version: Some(version),
        skipped: None,
        facts: facts::install_facts(&doc),
    }
}

/// What the host says of a manifest PyYAML cannot load: a syntax error, or a Python
/// exception that escapes `load_manifest`.
fn unloadable(text: &str, dir: &str, e: format::SyntaxError) -> Outcome {
    // A Python exception PyYAML does not wrap escapes `load_manifest`
    // (it catches only OSError and YAMLError): no `[plugins]` line.
    let (message, host_message) = match e.exception {
        Some(exception) => {
            let m = format!("{exception}: {}", e.message);
            (m.clone(), m)
        }
        None => (
            e.message.clone(),
            format!("[plugins] {dir}: unreadable manifest: {}", e.message),
        ),
    };
    let mut d =
        Diagnostic::new(Code::SyntaxYaml, message).with_label(e.span.clone().unwrap_or(0..0), None);
    d.help = match e.exception {
        Some(_) => Some("PyYAML raises this while building the value, and protoAgent's load_manifest does not catch it: loading plugins fails with this exception instead of skipping the plugin; quote the value to keep it a string".to_owned()),
        None => format::template_help(text, e.span.map(|s| s.start)),
    };
    Outcome {
        class: HostClass::Parse,
        host_message: Some(host_message),
        diagnostics: vec![d],
        id: None,
        version: None,
        skipped: Some(GATES_AND_LINTS),
        facts: Facts::default(),
    }
}

/// The id of a manifest the host loads: a mapping with an `id` and a `name`, the id in
/// the host's grammar and no core route; else the outcome of the host skipping it.
fn loaded_id(doc: &Node, dir: &str, opts: &Options) -> Result<String, Box<Outcome>> {
    let invalid = |f: Finding, host: String, doc: &Node| Outcome {
        class: HostClass::Invalid,
        host_message: Some(host),
        diagnostics: vec![f.resolve(&Locator::new(doc), Severity::Error)],
        id: None,
        version: None,
        skipped: Some(GATES_AND_LINTS),
        facts: Facts::default(),
    };
    if !matches!(doc.value, Value::Table(_)) {
        let f = Finding::new(Code::ProtoNotMapping, "manifest is not a mapping", ptr![]);
        return Err(Box::new(invalid(
            f,
            format!("[plugins] {dir}: manifest is not a mapping"),
            doc,
        )));
    }
    let (Some(id), Some(_name)) = (required_str(doc, "id"), required_str(doc, "name")) else {
        let missing = if required_str(doc, "id").is_none() {
            "id"
        } else {
            "name"
        };
        let f = Finding::new(
            Code::ProtoMissingIdName,
            format!("manifest missing required {missing}"),
            ptr![missing],
        )
        .on_key();
        let mut outcome = invalid(
            f,
            format!("[plugins] {dir}: manifest missing required id/name — skipping"),
            doc,
        );
        if doc.get(missing).is_none() {
            outcome.diagnostics[0].labels = vec![crate::diagnostic::Label {
                span: doc.span.start..doc.span.start,
                text: Some(format!("no `{missing}` in this mapping")),
            }];
        }
        return Err(Box::new(outcome));
    };
    let reserved_ids = reserved_ids(opts);
    if !id_grammar_ok(&id) || reserved_ids.contains(&id.to_lowercase().as_str()) {
        let reserved = reserved_ids.contains(&id.to_lowercase().as_str());
        let message = format!(
            "invalid or reserved plugin id {} — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route",
            repr_str(&id)
        );
        let f = Finding::new(Code::ProtoInvalidId, message.clone(), ptr!["id"]).help(if reserved {
            format!(
                "`{}` is a core /api/plugins/ route (reserved, any case): {}",
                id.to_lowercase(),
                reserved_ids.join(", ")
            )
        } else {
            "start with a letter or digit; then letters, digits, `_` and `-` only".to_owned()
        });
        return Err(Box::new(invalid(
            f,
            format!("[plugins] {dir}: {message}; skipping"),
            doc,
        )));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_grammar() {
        assert!(id_grammar_ok("agent_browser"));
        assert!(id_grammar_ok("My-Plugin"));
        assert!(id_grammar_ok("9lives"));
        assert!(!id_grammar_ok("-x"));
        assert!(!id_grammar_ok("a.b"));
        assert!(!id_grammar_ok(""));
    }

    #[test]
    fn reserved_ids_follow_the_host_version() {
        let at = |v: Option<&str>| Options {
            host_version: v.map(str::to_owned),
            ..Options::default()
        };
        let dir = std::env::temp_dir();
        let id_of = |v: Option<&str>, id: &str| {
            validate(&format!("id: {id}\nname: x\n"), &dir, &at(v)).class
        };
        // 0.218 (the default, the newest) reserves three more core routes, any case.
        for id in ["bundles", "Ack", "install-deps"] {
            assert_eq!(id_of(None, id), HostClass::Invalid, "{id}");
            assert_eq!(id_of(Some("0.218.1"), id), HostClass::Invalid, "{id}");
            assert_eq!(id_of(Some("0.145.0"), id), HostClass::Valid, "{id}");
        }
        assert_eq!(id_of(Some("0.145.0"), "install"), HostClass::Invalid);
    }

    #[test]
    fn pip_specs_like_install_deps() {
        assert_eq!(pip_spec_problem("requests>=2"), None);
        assert_eq!(pip_spec_problem(" numpy"), None);
        for spec in [
            "git+https://github.com/a/b",
            "pkg @ https://x/y.whl",
            "file:../wheel",
        ] {
            assert_eq!(
                pip_spec_problem(spec),
                Some("is a VCS/URL/direct reference, which is not allowed"),
                "{spec}"
            );
        }
        assert!(pip_spec_problem("--index-url=x").is_some());
        assert!(pip_spec_problem(".").is_some());
        // Local paths and archives pip would build from the plugin's own files.
        for spec in [
            "tree/",
            "tree/[extra]",
            "tree/ ; python_version > '2'",
            "sub\\dir",
            "evil-1.0.tar.gz",
            "Evil-1.0-py3-none-any.WHL",
            "evil.zip[x]",
        ] {
            assert_eq!(
                pip_spec_problem(spec),
                Some("names a local path or archive, which pip would build and run"),
                "{spec}"
            );
        }
        for spec in [
            "zope.interface>=5",
            "requests[socks]; sys_platform != 'win32' and python_version >= '3.8'",
            "tree",
            "pywinpty>=2.0; sys_platform == 'win32'",
        ] {
            assert_eq!(pip_spec_problem(spec), None, "{spec}");
        }
    }
}
