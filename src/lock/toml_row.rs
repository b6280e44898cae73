//! Reading one row of a TOML lock (`[plugins."<id>"]`: aoe's, and AWorld's `plugins.lock` in the
//! same layout) as an [`Entry`].

use crate::git::RefKind;
use crate::lock::{Entry, adopt_kind, read_commit};

pub(crate) fn toml_entry(id: &str, row: &toml::Table) -> Option<Entry> {
    let s = |k: &str| row.get(k).and_then(toml::Value::as_str).map(str::to_owned);
    let kind = s("ref_kind").and_then(|k| match k.as_str() {
        "default" => Some(RefKind::Default),
        "branch" => Some(RefKind::Branch),
        "tag" => Some(RefKind::Tag),
        "commit" => Some(RefKind::Commit),
        _ => None,
    });
    let commit = read_commit(s("resolved_commit"));
    let requested_ref = s("requested_ref").unwrap_or_default();
    Some(Entry {
        id: id.to_owned(),
        source: s("source")?,
        ref_kind: adopt_kind(kind, &requested_ref, commit.as_deref()),
        requested_ref,
        commit,
        version: s("version").unwrap_or_default(),
        manifest_hash: s("manifest_hash").unwrap_or_default(),
        tree_hash: s("tree_hash").unwrap_or_default(),
        installed_hash: s("installed_tree_hash"),
        build_hash: s("build_output_hash"),
        release: match (s("release_tag"), s("asset_name"), s("asset_sha256")) {
            (Some(tag), Some(asset), Some(sha256)) => {
                Some(crate::release::Placed { tag, asset, sha256 })
            }
            _ => None,
        },
        unbuilt: row.get("unbuilt").and_then(toml::Value::as_bool) == Some(true),
        featured: s("trust").as_deref() == Some("featured"),
        follows_latest: row
            .get("follows_latest_release")
            .and_then(toml::Value::as_bool)
            == Some(true),
        subdir: s("subdir"),
        host_source: None,
        signer_key: s("signer_key"),
        signer_seen: s("signer_seen_at"),
        profile: crate::lock::read_profile(
            row.get("host_aoe_api").and_then(toml::Value::as_integer),
            s("host_version"),
        ),
    })
}
