//! Everything AWorld decides: its manifest rules (`manifest/`, the host's loader and
//! lints) and its registry of installed plugins (`registry`, `plugins/.manifest.json`).
//! AWorld keeps no lock of its own; `plugins` keeps a TOML `plugins.lock` in its home.

pub(super) mod manifest;
pub(super) mod registry;

use std::path::Path;

/// Whether `tree` holds Python, which AWorld imports into its own process.
pub(super) fn holds_python(tree: &Path) -> bool {
    crate::tree::walk(tree, &|_, _| false).is_ok_and(|entries| {
        entries.iter().any(|e| {
            e.kind == crate::tree::Kind::File && e.rel.extension().is_some_and(|x| x == "py")
        })
    })
}

/// What this host decides about installs (see [`crate::host::InstallPolicy`]).
pub(super) const INSTALL: crate::host::InstallPolicy = crate::host::InstallPolicy {
    refuses_symlinks: false,
    builds: false,
    build_output: None,
    wheel_deps: false,
    ref_in_host_config: false,
    gh_ref_unverified: false,
    manifest_grant: false,
    follows_gh_releases: false,
    remembers_python: false,
    featured_index: false,
    lock_fetch_url: false,
};

/// The `version` the installed `.aworld-plugin/plugin.json` in `dir` declares.
pub(super) fn installed_version(dir: &Path) -> Option<String> {
    let text = crate::file::read_to_string(dir.join(".aworld-plugin/plugin.json")).ok()?;
    let doc = serde_json::from_str::<serde_json::Value>(&text).ok()?;
    match doc.get("version")? {
        serde_json::Value::String(s) => Some(s.clone()),
        v @ serde_json::Value::Number(_) => Some(v.to_string()),
        _ => None,
    }
}

/// Whether `path` is an AWorld plugin root (a manifest, or the legacy layout).
pub(super) fn is_root(path: &Path) -> bool {
    crate::host::detect_all(path)
        .iter()
        .any(|d| matches!(d, crate::dialect::Dialect::Aworld))
}
