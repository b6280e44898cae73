//! One row of a TOML lock (`[plugins."<id>"]`: aoe's, and AWorld's `plugins.lock` in the
//! same layout): read as an [`Entry`], and written from one.

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

/// Add or replace `entry`'s row in a TOML lock (`lock_version` set to `version`), keeping
/// the keys of a prior row that `plugins` does not manage.
pub(crate) fn upsert(t: &mut toml::Table, version: i64, entry: &Entry) {
    t.insert("lock_version".into(), toml::Value::Integer(version));
    let plugins = t
        .entry("plugins")
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !plugins.is_table() {
        *plugins = toml::Value::Table(toml::Table::new());
    }
    let plugins = plugins.as_table_mut().expect("made a table above");
    let mut row = plugins
        .get(&entry.id)
        .and_then(toml::Value::as_table)
        .cloned()
        .unwrap_or_default();
    write_row(&mut row, entry);
    plugins.insert(entry.id.clone(), toml::Value::Table(row));
}

/// Write `entry`'s fields into its TOML `row`: a field without a value removes its key.
fn write_row(row: &mut toml::Table, entry: &Entry) {
    let mut set = |k: &str, v: Option<String>| match v {
        Some(v) => {
            row.insert(k.into(), toml::Value::String(v));
        }
        None => {
            row.remove(k);
        }
    };
    set("source", Some(entry.source.clone()));
    set(
        "requested_ref",
        Some(entry.requested_ref.clone()).filter(|r| !r.is_empty()),
    );
    set("ref_kind", entry.ref_kind.map(|k| k.as_str().to_owned()));
    set("resolved_commit", entry.commit.clone());
    set("version", Some(entry.version.clone()));
    set("manifest_hash", Some(entry.manifest_hash.clone()));
    set("tree_hash", Some(entry.tree_hash.clone()));
    set("installed_tree_hash", entry.installed_hash.clone());
    set("build_output_hash", entry.build_hash.clone());
    set("subdir", entry.subdir.clone());
    set("signer_key", entry.signer_key.clone());
    set("signer_seen_at", entry.signer_seen.clone());
    let profile = entry.profile.clone().unwrap_or_default();
    set("host_version", profile.version);
    set("release_tag", entry.release.as_ref().map(|r| r.tag.clone()));
    set(
        "asset_name",
        entry.release.as_ref().map(|r| r.asset.clone()),
    );
    set(
        "asset_sha256",
        entry.release.as_ref().map(|r| r.sha256.clone()),
    );
    match profile.aoe_api {
        Some(api) => {
            row.insert("host_aoe_api".into(), toml::Value::Integer(api.into()));
        }
        None => {
            row.remove("host_aoe_api");
        }
    }
    for (key, on) in [
        ("unbuilt", entry.unbuilt),
        ("follows_latest_release", entry.follows_latest),
    ] {
        if on {
            row.insert(key.into(), toml::Value::Boolean(true));
        } else {
            row.remove(key);
        }
    }
    let trust = if entry.featured {
        "featured"
    } else {
        "community"
    };
    row.insert("trust".into(), toml::Value::String(trust.into()));
}
