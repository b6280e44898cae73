//! The static load gates: the entry module, `min_protoagent_version` and
//! `requires_env` (spec `protoagent.md` §3).

use std::path::Path;

use super::super::{Options, pep440};
use super::{Out, warn};
use crate::diagnostic::{Code, Severity};
use crate::manifest::Finding;
use crate::manifest::contain;
use crate::manifest::doc::{Node, Value};
use crate::manifest::pyval::{py_str, repr_str};
use crate::ptr;

/// Load gates: the entry module, `min_protoagent_version`, `requires_env`.
pub(super) fn gates(doc: &Node, root: &Path, opts: &Options, out: &mut Out) {
    entry_module(doc, root, out);
    if let Some(e) = doc.get("min_protoagent_version") {
        let declared = py_str(&e.node).trim().to_owned();
        let host = super::super::gate_host_version(opts);
        match (pep440::Version::parse(&declared), Some(pep440::Version::parse(&host))) {
            (None, _) if !declared.is_empty() => warn(out, Finding::new(Code::ProtoMinVersion, format!("unparseable min_protoagent_version '{declared}' (host '{host}') — loading anyway"), ptr!["min_protoagent_version"])
                .help("use a PEP 440 version such as \"0.85.0\"")),
            (Some(need), Some(Some(have))) if need > have => out.push((
                Finding::new(Code::ProtoHostVersion, format!("requires protoAgent >= {declared} but this host is {host}"), ptr!["min_protoagent_version"])
                    .help("the host refuses to load the plugin; upgrade protoAgent or lower the requirement"),
                Severity::Error,
            )),
            _ => {}
        }
    }
    if let (Some(env), Some(Value::Array(vars))) =
        (&opts.env, doc.get("requires_env").map(|e| &e.node.value))
    {
        let missing: Vec<String> = vars
            .iter()
            .map(py_str)
            .filter(|v| !env.contains(v))
            .collect();
        if !missing.is_empty() {
            warn(out, Finding::new(Code::ProtoRequiresEnv, format!("missing env: {}", missing.join(", ")), ptr!["requires_env"])
                .help("the host does not load the plugin until these are set and non-empty where it runs"));
        }
    }
}

/// The module the host imports: a set `entrypoint` inside the plugin directory that exists,
/// else `__init__.py` or `plugin.py`.
fn entry_module(doc: &Node, root: &Path, out: &mut Out) {
    // `str(data.get("entrypoint", "")).strip()`: a null (`~`, `null`, an empty value)
    // is the file "None", which the host looks for and does not find; only '' (or no
    // key) falls back to __init__.py / plugin.py.
    let entry = doc.get("entrypoint");
    let null = entry.is_some_and(|e| matches!(e.node.value, Value::Null));
    let entrypoint = entry
        .map(|e| py_str(&e.node).trim().to_owned())
        .filter(|e| !e.is_empty());
    match &entrypoint {
        Some(ep) => {
            // `root` is already resolved (`validate_at`).
            let base = root.to_path_buf();
            if contain::resolve(&base, ep).map_or(true, |p| !contain::inside(&base, &p)) {
                warn(
                    out,
                    Finding::new(
                        Code::ProtoEntrypointEscapes,
                        format!(
                            "entrypoint {} resolves outside the plugin directory",
                            repr_str(ep)
                        ),
                        ptr!["entrypoint"],
                    )
                    .help("the host imports it anyway; keep the module inside the plugin"),
                );
            }
            if !root.join(ep).is_file() {
                let help = if null {
                    "the host reads a null `entrypoint` as the file `None` (`str(None)`), which does not exist, and does not fall back to __init__.py; remove the key or set it to ''"
                } else {
                    "a set `entrypoint` that does not exist does not fall back to __init__.py; the plugin does not load"
                };
                let label = if null {
                    "read as the file `None`, which does not exist"
                } else {
                    "this file does not exist"
                };
                out.push((
                    Finding::new(
                        Code::ProtoEntrypoint,
                        "no entry module (expected __init__.py or plugin.py)",
                        ptr!["entrypoint"],
                    )
                    .label(label)
                    .help(help),
                    Severity::Error,
                ));
            }
        }
        None if !root.join("__init__.py").is_file() && !root.join("plugin.py").is_file() => {
            let f = Finding::new(
                Code::ProtoEntrypoint,
                "no entry module (expected __init__.py or plugin.py)",
                ptr!["id"],
            )
            .label("this plugin has no module to import")
            .help("add __init__.py with a `register(registry)` function, or set `entrypoint`");
            out.push((f, Severity::Error));
        }
        None => {}
    }
}
