//! protoAgent's `plugins.lock`: JSON written as `json.dumps(data, indent=2) + "\n"`
//! (ASCII only), `plugins[]` sorted by id, unknown keys kept.

use serde_json::{Map, Value};

use crate::git::RefKind;
use crate::lock::Entry;

/// The row key holding `plugins`' spelling of the source (`gh:owner/repo`) when the
/// host's `source_url` is the URL it resolves to; protoAgent reads no such key.
pub(crate) const PLUGINS_SOURCE: &str = "plugins_source";

/// A JSON lock whose top level is not an object.
#[derive(Debug, thiserror::Error)]
#[error("the top level is not an object")]
pub(crate) struct NotAnObject;

/// Fold the legacy top-level `{"<id>": {"deps": [...]}}` layout into `plugins[]`.
pub(crate) fn normalize(mut v: Value) -> Result<Value, NotAnObject> {
    let Value::Object(top) = &mut v else {
        return Err(NotAnObject);
    };
    if !top.get("plugins").is_some_and(Value::is_array) {
        top.insert("plugins".into(), Value::Array(Vec::new()));
    }
    let legacy: Vec<String> = top
        .iter()
        .filter(|(k, val)| {
            *k != "plugins"
                && *k != "bundles"
                && val
                    .as_object()
                    .is_some_and(|o| o.get("deps").is_some_and(Value::is_array))
        })
        .map(|(k, _)| k.clone())
        .collect();
    for id in legacy {
        let deps = top
            .remove(&id)
            .and_then(|mut o| o.as_object_mut().and_then(|o| o.remove("deps")));
        let plugins = top
            .get_mut("plugins")
            .and_then(Value::as_array_mut)
            .expect("made above");
        // The host's `by_id` keeps the last row of an id.
        let pos = plugins
            .iter()
            .rposition(|p| p.get("id").and_then(Value::as_str) == Some(id.as_str()));
        let pos = pos.unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert("id".into(), Value::String(id.clone()));
            plugins.push(Value::Object(m));
            plugins.len() - 1
        });
        if let (Some(deps), Some(obj)) = (deps, plugins[pos].as_object_mut()) {
            obj.insert("deps".into(), deps);
        }
    }
    Ok(v)
}

/// The entries as protoAgent 0.218's `_lock_rows_by_id` reads them: rows with a
/// non-empty string id, the last row for an id winning.
/// One row as an entry (`None` for a row without an id).
fn row_entry(row: &Value) -> Option<Entry> {
    let s = |k: &str| row.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = match s("ref_kind").as_deref() {
        Some("branch") => Some(RefKind::Branch),
        Some("tag") => Some(RefKind::Tag),
        Some("commit") => Some(RefKind::Commit),
        Some("default") => Some(RefKind::Default),
        _ => None,
    };
    let commit = crate::lock::read_commit(s("resolved_sha"));
    let requested_ref = s("requested_ref").unwrap_or_default();
    // `plugins`' own spelling of the source, beside the URL the host fetches; a row the
    // host rewrote has none (its `source_url` is then the source), and a row an older
    // `plugins` wrote has `gh:` in `source_url` itself.
    let url = s("source_url").unwrap_or_default();
    let (source, host_source) = match s(PLUGINS_SOURCE).filter(|o| !o.is_empty()) {
        Some(own) if own != url && !url.is_empty() => (own, Some(url)),
        Some(own) if url.is_empty() => (own, None),
        _ => (url, None),
    };
    Some(Entry {
        id: s("id")?,
        source,
        host_source,
        ref_kind: crate::lock::adopt_kind(kind, &requested_ref, commit.as_deref()),
        requested_ref,
        commit,
        version: s("version").unwrap_or_default(),
        manifest_hash: s("manifest_hash").unwrap_or_default(),
        tree_hash: s("tree_hash").unwrap_or_default(),
        installed_hash: s("installed_tree_hash"),
        // protoAgent plugins have no build output, and no host config naming a ref.
        build_hash: None,
        follows_latest: false,
        release: None,
        unbuilt: false,
        featured: false,
        subdir: s("subdir"),
        signer_key: s("signer_key"),
        signer_seen: s("signer_seen_at"),
        profile: crate::lock::read_profile(
            row.get("host_aoe_api").and_then(Value::as_i64),
            s("host_version"),
        ),
    })
    .filter(|e| !e.id.is_empty())
}

pub(crate) fn entries(v: &Value) -> Vec<Entry> {
    let rows = v
        .get("plugins")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut by_id: std::collections::BTreeMap<String, Entry> = Default::default();
    for e in rows.iter().filter_map(row_entry) {
        by_id.insert(e.id.clone(), e);
    }
    by_id.into_values().collect()
}

/// The entry of `id`: its last row, as [`entries`] keeps it, without reading the others.
pub(crate) fn entry(v: &Value, id: &str) -> Option<Entry> {
    v.get("plugins")?
        .as_array()?
        .iter()
        .rev()
        .find(|row| row.get("id").and_then(Value::as_str) == Some(id))
        .and_then(row_entry)
}

/// Drop every row with this id and append the new one, keeping the other keys of the
/// last of them (the row the host reads: `deps` and anything unknown), as the host's
/// install does (`protoagent-0218.md` §4, §5.2 step 12).
pub(crate) fn upsert(v: &mut Value, e: &Entry, by: &str, now: &str) {
    let plugins = v
        .get_mut("plugins")
        .and_then(Value::as_array_mut)
        .expect("normalized");
    let mut prior = None;
    plugins.retain(|p| {
        let same = p.get("id").and_then(Value::as_str) == Some(e.id.as_str());
        if same {
            prior = Some(p.clone());
        }
        !same
    });
    let mut row = Map::new();
    row.insert("id".into(), e.id.clone().into());
    // The host's installer, update check and sync act on `source_url`
    // (`protoagent-0218.md` §4): the URL it can fetch; `plugins`' spelling goes beside it.
    row.insert(
        "source_url".into(),
        e.host_source
            .clone()
            .unwrap_or_else(|| e.source.clone())
            .into(),
    );
    row.insert("requested_ref".into(), e.requested_ref.clone().into());
    row.insert(
        "resolved_sha".into(),
        e.commit.clone().unwrap_or_default().into(),
    );
    row.insert("installed_at".into(), now.into());
    row.insert("by".into(), by.into());
    keep_unmanaged(&mut row, prior);
    insert_entry(&mut row, e);
    plugins.push(Value::Object(row));
}

/// The keys of the `prior` row that the new `row` does not write, kept: `deps` and anything
/// unknown. The keys of [`insert_entry`] go even when the entry has no value for them.
fn keep_unmanaged(row: &mut Map<String, Value>, prior: Option<Value>) {
    if let Some(Value::Object(old)) = prior {
        for (k, val) in old {
            if !row.contains_key(&k)
                && ![
                    "ref_kind",
                    "version",
                    "manifest_hash",
                    "tree_hash",
                    "installed_tree_hash",
                    "subdir",
                    PLUGINS_SOURCE,
                    "signer_key",
                    "signer_seen_at",
                    "host_aoe_api",
                    "host_version",
                ]
                .contains(&k.as_str())
            {
                row.insert(k, val);
            }
        }
    }
}

/// The entry's keys after the host's own and the kept ones: the ref kind, version and
/// hashes, and what `plugins` records beside them (the subdirectory, its spelling of the
/// source, the signer, the host profile).
fn insert_entry(row: &mut Map<String, Value>, e: &Entry) {
    if let Some(kind) = e.ref_kind {
        row.insert("ref_kind".into(), kind.as_str().into());
    }
    row.insert("version".into(), e.version.clone().into());
    row.insert("manifest_hash".into(), e.manifest_hash.clone().into());
    row.insert("tree_hash".into(), e.tree_hash.clone().into());
    if let Some(h) = &e.installed_hash {
        row.insert("installed_tree_hash".into(), h.clone().into());
    }
    if let Some(s) = &e.subdir {
        row.insert("subdir".into(), s.clone().into());
    }
    if e.host_source.as_ref().is_some_and(|u| *u != e.source) {
        row.insert(PLUGINS_SOURCE.into(), e.source.clone().into());
    }
    if let Some(k) = &e.signer_key {
        row.insert("signer_key".into(), k.clone().into());
    }
    if let Some(t) = &e.signer_seen {
        row.insert("signer_seen_at".into(), t.clone().into());
    }
    if let Some(p) = &e.profile {
        if let Some(api) = p.aoe_api {
            row.insert("host_aoe_api".into(), api.into());
        }
        if let Some(v) = &p.version {
            row.insert("host_version".into(), v.clone().into());
        }
    }
}

/// Every row's `deps`, if it has the key, is a list of pins that `DepPin::from_json`
/// accepts; else the row's id (as text), the pin's index and why.
pub(crate) fn check_pins(v: &Value) -> Result<(), (String, usize, crate::lock::PinError)> {
    let rows = v.get("plugins").and_then(Value::as_array);
    for row in rows.into_iter().flatten() {
        let Some(deps) = row.get("deps") else {
            continue;
        };
        let id = || match row.get("id") {
            Some(Value::String(s)) => s.clone(),
            other => other.map(Value::to_string).unwrap_or_default(),
        };
        let Some(items) = deps.as_array() else {
            return Err((id(), 0, crate::lock::PinError::Shape));
        };
        for (index, item) in items.iter().enumerate() {
            crate::lock::DepPin::from_json(item).map_err(|why| (id(), index, why))?;
        }
    }
    Ok(())
}

/// The last row for `id` (the one the host reads) gets `deps: [{name, version, sha256}]`,
/// or loses `deps` when there are none.
pub(crate) fn set_deps(v: &mut Value, id: &str, pins: &[crate::lock::DepPin]) {
    let Some(row) = v
        .get_mut("plugins")
        .and_then(Value::as_array_mut)
        .and_then(|rows| {
            rows.iter_mut()
                .rev()
                .find(|p| p.get("id").and_then(Value::as_str) == Some(id))
        })
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if pins.is_empty() {
        row.shift_remove("deps");
        return;
    }
    let deps = pins
        .iter()
        .map(
            |p| serde_json::json!({"name": p.name(), "version": p.version(), "sha256": p.sha256()}),
        )
        .collect();
    row.insert("deps".into(), Value::Array(deps));
}

pub(crate) fn remove(v: &mut Value, id: &str) -> bool {
    let plugins = v
        .get_mut("plugins")
        .and_then(Value::as_array_mut)
        .expect("normalized");
    let before = plugins.len();
    plugins.retain(|p| p.get("id").and_then(Value::as_str) != Some(id));
    plugins.len() != before
}

/// `json.dumps(data, indent=2) + "\n"`, with `plugins[]` sorted by id.
pub(crate) fn render(v: &Value) -> String {
    let mut v = v.clone();
    if let Some(plugins) = v.get_mut("plugins").and_then(Value::as_array_mut) {
        plugins.sort_by(|a, b| {
            let id = |x: &Value| {
                x.get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            id(a).cmp(&id(b))
        });
    }
    let mut out = String::new();
    write(&v, 0, &mut out);
    out.push('\n');
    out
}

fn write(v: &Value, indent: usize, out: &mut String) {
    let pad = |n: usize| " ".repeat(n);
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push_str("{\n");
            for (i, (k, val)) in m.iter().enumerate() {
                out.push_str(&pad(indent + 2));
                string(k, out);
                out.push_str(": ");
                write(val, indent + 2, out);
                out.push_str(if i + 1 < m.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push('}');
        }
        Value::Array(a) if !a.is_empty() => {
            out.push_str("[\n");
            for (i, val) in a.iter().enumerate() {
                out.push_str(&pad(indent + 2));
                write(val, indent + 2, out);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&pad(indent));
            out.push(']');
        }
        Value::Object(_) => out.push_str("{}"),
        Value::Array(_) => out.push_str("[]"),
        Value::String(s) => string(s, out),
        other => out.push_str(&other.to_string()),
    }
}

/// A JSON string with Python's `ensure_ascii=True` escaping.
fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upsert_replaces_every_row_of_the_id_and_keeps_the_last_ones_keys() {
        let mut v = serde_json::json!({"plugins": [
            {"id": "a", "source_url": "u1", "deps": ["first"]},
            "junk",
            {"id": "b", "source_url": "ub"},
            {"id": "a", "source_url": "u2", "deps": ["last"], "x-host": 1},
        ], "bundles": [{"id": "k", "plugins": ["a"], "superseded": ["agent_browser"]}]});
        let e = Entry {
            id: "a".into(),
            source: "u3".into(),
            ..Entry::default()
        };
        upsert(&mut v, &e, "cli", "now");
        let rows = v["plugins"].as_array().unwrap();
        assert_eq!(rows.len(), 3, "{v}");
        assert_eq!(rows[0], "junk", "non-dict rows survive, as in the host");
        assert_eq!(rows[2]["source_url"], "u3");
        assert_eq!(rows[2]["deps"], serde_json::json!(["last"]));
        assert_eq!(rows[2]["x-host"], 1);
        assert_eq!(v["bundles"][0]["superseded"][0], "agent_browser");
        assert_eq!(entries(&v).iter().filter(|e| e.id == "a").count(), 1);
    }

    #[test]
    fn a_gh_source_is_locked_as_its_url_with_plugins_spelling_beside_it() {
        let mut v = serde_json::json!({"plugins": []});
        let e = Entry {
            id: "a".into(),
            source: "gh:o/r".into(),
            host_source: Some("https://github.com/o/r.git".into()),
            commit: Some("1".repeat(40)),
            ref_kind: Some(RefKind::Default),
            ..Entry::default()
        };
        upsert(&mut v, &e, "cli", "now");
        let row = &v["plugins"][0];
        assert_eq!(row["source_url"], "https://github.com/o/r.git");
        assert_eq!(row[PLUGINS_SOURCE], "gh:o/r");
        assert_eq!(entries(&v), vec![e.clone()], "read back as written");
        // A URL source has one spelling: no second key.
        let url = Entry {
            source: "https://h/o/r".into(),
            host_source: None,
            ..e.clone()
        };
        upsert(&mut v, &url, "cli", "now");
        assert!(v["plugins"][0].get(PLUGINS_SOURCE).is_none(), "{v}");
        assert_eq!(entries(&v), vec![url]);
        // An older `plugins` wrote `gh:` into source_url; the host's own install rewrites
        // the row without `plugins`' keys: both read as their source_url.
        for source_url in ["gh:o/r", "https://github.com/o/r.git"] {
            let v = serde_json::json!({"plugins": [
                {"id": "a", "source_url": source_url, "requested_ref": "", "resolved_sha": "1".repeat(40), "plugins_source": null}
            ]});
            let read = entries(&v);
            assert_eq!(read[0].source, source_url);
            assert_eq!(read[0].host_source, None);
        }
    }

    #[test]
    fn python_ascii_escapes() {
        let mut s = String::new();
        string("é😀\"", &mut s);
        assert_eq!(s, r#""\u00e9\ud83d\ude00\"""#);
    }
}
