//! protoAgent 0.218's `requires_runtimes` check (`protoagent-0218.md` §2.8, §3 item 12):
//! the floor a manifest declares for Node.js, and the setup-gap message the host raises
//! after loading a plugin when no `node` meets it. `plugins` cannot see the host's
//! version-manager directories or its managed runtime, so an install checks the `node`
//! on its own PATH and warns with the host's words.

use std::process::Command;

use crate::manifest::doc::{Node, Value};
use crate::manifest::pyval::{dict_items, py_str};

/// The managed Node runtime 0.218.1 pins (`runtime.node_install.NODE_VERSION`).
pub(crate) const MANAGED_NODE: (u64, u64, u64) = (24, 18, 0);

/// `_parse_requires_runtimes`' stored `node` floor (`>=N[.N[.N]]`): keys lowercased, the
/// last valid spec winning; `None` without one.
pub(crate) fn node_floor(doc: &Node) -> Option<String> {
    let e = doc.get("requires_runtimes")?;
    let mut floor = None;
    for (name, spec) in dict_items(&e.node) {
        if name.trim().to_lowercase() != "node" {
            continue;
        }
        let text = match &spec.value {
            Value::Int(_) | Value::BigInt(_) => py_str(spec),
            Value::Str(s) => s.trim().to_owned(),
            _ => continue,
        };
        if let Some(digits) = floor_digits(&text) {
            floor = Some(format!(">={digits}"));
        }
    }
    floor
}

/// `^(?:>=\s*)?v?(\d+(?:\.\d+){0,2})$`: the digits.
fn floor_digits(text: &str) -> Option<&str> {
    let rest = match text.strip_prefix(">=") {
        Some(r) => r.trim_start_matches(|c: char| c.is_whitespace()),
        None => text,
    };
    let rest = rest.strip_prefix('v').unwrap_or(rest);
    let parts: Vec<&str> = rest.split('.').collect();
    (parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then_some(rest)
}

/// A `vX[.Y[.Z]]` version as a triple (missing parts are 0).
pub(crate) fn parse_version(text: &str) -> Option<(u64, u64, u64)> {
    let t = text.trim();
    let t = t.strip_prefix(">=").map_or(t, str::trim);
    let t = t.strip_prefix('v').unwrap_or(t);
    let mut it = t.split('.').map(|p| p.parse::<u64>().ok());
    let major = it.next()??;
    let minor = it.next().unwrap_or(Some(0))?;
    let patch = it.next().unwrap_or(Some(0))?;
    Some((major, minor, patch))
}

/// The version of the `node` on PATH (`node --version`), if there is one that runs.
pub(crate) fn node_on_path() -> Option<(u64, u64, u64)> {
    let out = Command::new("node").arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    parse_version(String::from_utf8_lossy(&out.stdout).lines().next()?)
}

/// The host's `runtime-missing` gap message for `spec` (a stored floor) when `found`
/// does not meet it; `None` when it does.
pub(crate) fn gap_message(spec: &str, found: Option<(u64, u64, u64)>) -> Option<String> {
    let floor = parse_version(spec)?;
    if found.is_some_and(|v| v >= floor) {
        return None;
    }
    let have = found.map_or("none found".to_owned(), |(a, b, c)| {
        format!("found v{a}.{b}.{c}")
    });
    let supported = cfg!(any(target_os = "linux", target_os = "macos"))
        && cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
    let fix = if supported && MANAGED_NODE >= floor {
        let (a, b, c) = MANAGED_NODE;
        format!(
            "Install the managed Node runtime (v{a}.{b}.{c}) here, or run `protoagent runtime install-node` and then restart protoAgent (or reload the plugin)."
        )
    } else {
        format!("Install Node.js {spec} yourself and restart protoAgent.")
    };
    Some(format!("needs Node.js {spec} ({have}). {fix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_and_messages() {
        let doc = crate::manifest::format::parse_yaml(
            "requires_runtimes: {node: '>=20', NODE: v20.6, Node: '^1'}\n",
        )
        .unwrap();
        assert_eq!(node_floor(&doc).as_deref(), Some(">=20.6"));
        assert_eq!(gap_message(">=20.6", Some((20, 6, 0))), None);
        assert_eq!(
            gap_message(">=99", None).unwrap(),
            "needs Node.js >=99 (none found). Install Node.js >=99 yourself and restart protoAgent."
        );
    }
}
