//! AWorld's `.manifest.json`: the registry of installed plugins the host reads.

use std::path::Path;

use crate::lock::{Entry, LockError, write_atomic};
use crate::store::Home;

/// Record the plugin in AWorld's `.manifest.json`, keeping other records and fields.
pub(crate) fn upsert(
    home: &Home,
    entry: &Entry,
    target: &Path,
    now: &str,
) -> Result<(), crate::lock::LockError> {
    let path = home.aworld_registry();
    let mut doc: serde_json::Map<String, serde_json::Value> = crate::file::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let prior = doc
        .get(&entry.id)
        .and_then(|v| v.as_object())
        .cloned()
        .unwrap_or_default();
    let mut rec = prior;
    rec.insert("name".into(), entry.id.clone().into());
    rec.insert("path".into(), target.display().to_string().into());
    rec.insert("source".into(), entry.source.clone().into());
    rec.insert("installed_at".into(), now.into());
    rec.entry("enabled").or_insert(true.into());
    rec.entry("package_kind").or_insert("plugin".into());
    rec.entry("managed_by").or_insert("plugin".into());
    rec.entry("activation_scope").or_insert("workspace".into());
    rec.entry("metadata").or_insert(serde_json::json!({}));
    doc.insert(entry.id.clone(), serde_json::Value::Object(rec));
    let mut text = serde_json::to_string_pretty(&doc).expect("serializes");
    text.push('\n');
    write_atomic(&path, text.as_bytes())
}

/// Drop the plugin's record, if there is one.
pub(crate) fn remove(home: &Home, id: &str) -> Result<(), LockError> {
    let path = home.aworld_registry();
    if let Some(mut doc) = crate::file::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&t).ok())
        && doc.remove(id).is_some()
    {
        let mut text = serde_json::to_string_pretty(&doc).expect("serializes");
        text.push('\n');
        write_atomic(&path, text.as_bytes())?;
    }
    Ok(())
}

/// Set a record's `enabled` (AWorld's `plugins enable|disable`): `None` when there is
/// no record, else whether the file changed.
pub(crate) fn set_enabled(home: &Home, id: &str, enabled: bool) -> Result<Option<bool>, LockError> {
    let path = home.aworld_registry();
    let Some(mut doc) = crate::file::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&t).ok())
    else {
        return Ok(None);
    };
    let Some(rec) = doc.get_mut(id).and_then(|v| v.as_object_mut()) else {
        return Ok(None);
    };
    if rec.get("enabled") == Some(&serde_json::Value::Bool(enabled)) {
        return Ok(Some(false));
    }
    rec.insert("enabled".into(), enabled.into());
    let mut text = serde_json::to_string_pretty(&doc).expect("serializes");
    text.push('\n');
    write_atomic(&path, text.as_bytes())?;
    Ok(Some(true))
}

/// `.manifest.json` as read once for a command's rows (`list`, `info`): `None` when it
/// cannot be read or parsed, so every plugin directory is unmanaged.
#[derive(Debug)]
pub(crate) struct Switches(Option<serde_json::Value>);

impl Switches {
    /// Read and parse `home`'s `.manifest.json`.
    pub(crate) fn load(home: &Home) -> Switches {
        Switches(
            crate::file::read_to_string(home.aworld_registry())
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok()),
        )
    }

    /// Whether AWorld loads `id`: its record's `enabled` (Python truthiness); a plugin
    /// directory without a record is an enabled "unmanaged plugin directory".
    pub(crate) fn enabled(&self, id: &str) -> bool {
        let rec = self.0.as_ref().and_then(|doc| doc.get(id)?.get("enabled"));
        match rec {
            None => true,
            Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(serde_json::Value::Number(n)) => n.as_f64() != Some(0.0),
            Some(serde_json::Value::String(s)) => !s.is_empty(),
            Some(serde_json::Value::Array(a)) => !a.is_empty(),
            Some(serde_json::Value::Object(o)) => !o.is_empty(),
        }
    }
}
