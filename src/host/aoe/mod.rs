//! aoe's app dir and its `config.toml` records of installed plugins (spec `aoe.md` §17):
//! `[plugins."<id>"]` with `source`, `enabled` and
//! `grant = { manifest_hash, capabilities, granted_at }`. aoe loads a community plugin
//! only while `enabled` is true and the grant covers the installed manifest's hash and
//! every capability it declares, so an install that does not write the grant does not
//! take effect. Edits keep the rest of the file byte for byte (`toml_edit`).

pub(super) mod manifest;

use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use crate::lock::{LockError, write_atomic};
use crate::store::Home;

/// aoe's `<app_dir>` for an OS (`std::env::consts::OS`):
/// * Linux: `$XDG_CONFIG_HOME/agent-of-empires` (absolute only), else `~/.config/agent-of-empires`;
/// * macOS: that XDG dir if it exists; else `~/.agent-of-empires` if it exists; else the
///   XDG dir if `$XDG_CONFIG_HOME` is set; else `~/.agent-of-empires`;
/// * other: `~/.agent-of-empires`.
pub(super) fn app_dir(
    os: &str,
    xdg_config_home: Option<&Path>,
    home: Option<&Path>,
    exists: &dyn Fn(&Path) -> bool,
) -> Option<PathBuf> {
    let xdg = xdg_config_home
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".config")))
        .map(|d| d.join("agent-of-empires"));
    let dotted = home.map(|h| h.join(".agent-of-empires"));
    match os {
        "linux" => xdg,
        "macos" => {
            if let Some(x) = xdg.as_ref().filter(|x| exists(x)) {
                return Some(x.clone());
            }
            if let Some(d) = dotted.as_ref().filter(|d| exists(d)) {
                return Some(d.clone());
            }
            if xdg_config_home.is_some() {
                return xdg;
            }
            dotted
        }
        _ => dotted,
    }
}

/// `<app_dir>/config.toml`.
pub(super) fn config_path(home: &Home) -> PathBuf {
    home.root.join("config.toml")
}

fn load(path: &Path) -> Result<(Option<String>, DocumentMut), LockError> {
    let text = match crate::file::read_to_string(path) {
        Ok(t) => Some(t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(LockError::Io {
                action: "read",
                path: path.display().to_string(),
                source,
            });
        }
    };
    let doc = text
        .as_deref()
        .unwrap_or_default()
        .parse::<DocumentMut>()
        .map_err(|e| LockError::Corrupt {
            path: path.display().to_string(),
            message: e.message().to_owned(),
        })?;
    Ok((text, doc))
}

fn save(path: &Path, before: Option<&str>, doc: &DocumentMut) -> Result<bool, LockError> {
    let after = doc.to_string();
    if before == Some(after.as_str()) {
        return Ok(false);
    }
    write_atomic(path, after.as_bytes())?;
    Ok(true)
}

/// The `[plugins]` table, made (implicit, so no empty header is written) when missing.
fn plugins_table(doc: &mut DocumentMut) -> Result<&mut Table, NotATable> {
    let plugins = doc.entry("plugins").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    plugins.as_table_mut().ok_or(NotATable)
}

/// `plugins` in aoe's `config.toml` is not a table: the file is not one aoe wrote.
#[derive(Debug, thiserror::Error)]
#[error("`plugins` is not a table")]
struct NotATable;

/// The capabilities a manifest declares (`capabilities = [...]`), in order.
pub(super) fn declared_capabilities(manifest: &str) -> Vec<String> {
    manifest
        .parse::<toml::Table>()
        .ok()
        .and_then(|t| t.get("capabilities")?.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// What an install grants.
#[derive(Clone, Debug)]
pub(super) struct Grant<'a> {
    pub id: &'a str,
    /// The install string aoe persists (a local source canonicalized).
    pub source: &'a str,
    pub manifest_hash: &'a str,
    pub capabilities: &'a [String],
    pub now: &'a str,
}

/// Record an install's grant in `config.toml`. A new entry is enabled; an existing one
/// keeps `enabled`, `settings` and everything else. The grant is re-pinned to the new
/// manifest hash; `granted_at` moves only when the capability set changes (the install
/// asked again then, by aoe's update rules). Returns whether the file changed.
pub(super) fn grant(home: &Home, g: &Grant<'_>) -> Result<bool, LockError> {
    let path = config_path(home);
    let (before, mut doc) = load(&path)?;
    let corrupt = |message: String| LockError::Corrupt {
        path: path.display().to_string(),
        message,
    };
    let plugins = plugins_table(&mut doc).map_err(|e| corrupt(e.to_string()))?;
    let fresh = !plugins.contains_key(g.id);
    // The record keeps the form the user gave it (`[plugins."<id>"]`, an inline table).
    let entry = plugins
        .entry(g.id)
        .or_insert_with(|| Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| corrupt(format!("`plugins.{:?}` is not a table", g.id)))?;
    set_str(entry, "source", g.source);
    if fresh || !entry.contains_key("enabled") {
        set_kept(entry, "enabled", true.into());
    }
    let prior = entry.get("grant").and_then(Item::as_table_like);
    let prior_str = |k: &str| prior.and_then(|p| p.get(k)?.as_str().map(str::to_owned));
    let prior_caps: Option<Vec<String>> = prior
        .and_then(|p| p.get("capabilities")?.as_array().cloned())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        });
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v.dedup();
        v
    };
    let same_caps = prior_caps
        .as_deref()
        .is_some_and(|p| sorted(p) == sorted(g.capabilities));
    let granted_at = prior_str("granted_at")
        .filter(|_| same_caps)
        .unwrap_or_else(|| g.now.to_owned());
    let mut caps = Array::new();
    for c in g.capabilities {
        caps.push(c.as_str());
    }
    match entry.get_mut("grant").and_then(Item::as_table_like_mut) {
        // A grant the file has (`[plugins."<id>".grant]` or `grant = { … }`) keeps its
        // form, its keys' order and comments: only the values that change are written.
        Some(t) => {
            set_str(t, "manifest_hash", g.manifest_hash);
            if !same_caps {
                set_kept(t, "capabilities", Value::Array(caps));
            }
            set_str(t, "granted_at", &granted_at);
        }
        None => {
            let mut t = InlineTable::new();
            t.insert("manifest_hash", g.manifest_hash.into());
            t.insert("capabilities", Value::Array(caps));
            t.insert("granted_at", granted_at.as_str().into());
            entry.insert("grant", Item::Value(Value::InlineTable(t)));
        }
    }
    save(&path, before.as_deref(), &doc)
}

/// Set `key` to the string `v` unless it already is (a literal `'…'` string stays as written).
fn set_str(t: &mut dyn TableLike, key: &str, v: &str) {
    if t.get(key).and_then(Item::as_str) != Some(v) {
        set_kept(t, key, v.into());
    }
}

/// Set `key` to `value`, keeping the key's place and the old value's decor (the spacing
/// around it and a comment after it); a missing key is added at the end.
fn set_kept(t: &mut dyn TableLike, key: &str, value: Value) {
    match t.get_mut(key) {
        Some(Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = value;
            *old.decor_mut() = decor;
        }
        _ => {
            t.insert(key, Item::Value(value));
        }
    }
}

/// Drop `[plugins."<id>"]`; whether the file changed.
pub(super) fn forget(home: &Home, id: &str) -> Result<bool, LockError> {
    let path = config_path(home);
    if !path.exists() {
        return Ok(false);
    }
    let (before, mut doc) = load(&path)?;
    let removed = doc
        .get_mut("plugins")
        .and_then(|p| p.as_table_like_mut())
        .is_some_and(|p| p.remove(id).is_some());
    if !removed {
        return Ok(false);
    }
    save(&path, before.as_deref(), &doc)
}

/// Set `[plugins."<id>"] enabled`; whether the file changed.
pub(super) fn set_enabled(home: &Home, id: &str, enabled: bool) -> Result<bool, LockError> {
    let path = config_path(home);
    let (before, mut doc) = load(&path)?;
    let corrupt = |message: String| LockError::Corrupt {
        path: path.display().to_string(),
        message,
    };
    let plugins = plugins_table(&mut doc).map_err(|e| corrupt(e.to_string()))?;
    let entry = plugins
        .entry(id)
        .or_insert_with(|| Item::Table(Table::new()));
    let entry = entry
        .as_table_like_mut()
        .ok_or_else(|| corrupt(format!("`plugins.{id:?}` is not a table")))?;
    if entry.get("enabled").and_then(Item::as_bool) != Some(enabled) {
        set_kept(entry, "enabled", enabled.into());
    }
    save(&path, before.as_deref(), &doc)
}

/// `config.toml` as read once for a command's rows (`list`, `info`): `None` when it cannot
/// be read or parsed, so no plugin has a switch.
#[derive(Debug)]
pub(super) struct Switches(Option<toml::Table>);

impl Switches {
    /// Read and parse `home`'s `config.toml`.
    pub(super) fn load(home: &Home) -> Switches {
        let text = crate::file::read_to_string(config_path(home)).ok();
        Switches(text.and_then(|t| t.parse::<toml::Table>().ok()))
    }

    /// `[plugins."<id>"] enabled`: `None` when the file has no record of the plugin or the
    /// record no `enabled` (aoe loads a community plugin only while it is true).
    pub(super) fn enabled(&self, id: &str) -> Option<bool> {
        self.0
            .as_ref()?
            .get("plugins")?
            .get(id)?
            .get("enabled")?
            .as_bool()
    }
}

/// The `version` the installed `aoe-plugin.toml` in `dir` declares.
pub(super) fn installed_version(dir: &Path) -> Option<String> {
    let text = crate::file::read_to_string(dir.join("aoe-plugin.toml")).ok()?;
    let doc = text.parse::<toml::Table>().ok()?;
    doc.get("version")?.as_str().map(str::to_owned)
}

/// Record an installed aoe plugin in `config.toml`: the one call the install
/// transaction makes when it commits. The source is [`persisted_source`], the
/// capabilities those of the installed manifest.
pub(super) fn record_install(
    home: &Home,
    entry: &crate::lock::Entry,
    plugin_dir: &Path,
    now: &str,
) -> Result<bool, LockError> {
    let manifest =
        crate::file::read_to_string(plugin_dir.join("aoe-plugin.toml")).unwrap_or_default();
    let capabilities = declared_capabilities(&manifest);
    let recorded = recorded_source(home, &entry.id)?;
    let source = persisted_source(entry, recorded.as_deref());
    grant(
        home,
        &Grant {
            id: &entry.id,
            source: &source,
            manifest_hash: &entry.manifest_hash,
            capabilities: &capabilities,
            now,
        },
    )
}

/// `[plugins."<id>"] source` of `config.toml`, if any.
fn recorded_source(home: &Home, id: &str) -> Result<Option<String>, LockError> {
    Ok(load(&config_path(home))?
        .1
        .get("plugins")
        .and_then(|p| p.get(id))
        .and_then(|e| e.get("source"))
        .and_then(Item::as_str)
        .map(str::to_owned))
}

/// Whether `config.toml` already names the source as [`record_install`] would write it
/// for `entry` (so an install with the same files has nothing to record).
pub(super) fn names_source(home: &Home, entry: &crate::lock::Entry) -> bool {
    recorded_source(home, &entry.id)
        .ok()
        .flatten()
        .is_some_and(|r| persisted_source(entry, Some(&r)) == r)
}

/// The `config.toml` `source` aoe's own update and update check act on (spec `aoe.md` §17:
/// aoe keeps the install string as typed, `persisted_source`, and reads `@ref` there as an
/// explicit pin it re-fetches):
/// * an install records what the user typed (`entry.host_source`): `gh:owner/repo` without
///   a ref stays without one, though it installed the latest release's tag, so aoe's update
///   follows the latest release; `gh:owner/repo@ref` keeps its ref; a local source is the
///   canonical path;
/// * an update, sync or rollback keeps the form `recorded` has: without `@ref` it stays as
///   it is; with one, it names the ref now installed (else aoe's update would go back to
///   the old one);
/// * with no record, a `gh:` source the install typed without a ref (the lock's
///   `follows_latest_release`) stays without one;
/// * with no record (or one of another source), the lock's source with its ref.
pub(super) fn persisted_source(entry: &crate::lock::Entry, recorded: Option<&str>) -> String {
    if let Some(typed) = &entry.host_source {
        return typed.clone();
    }
    let gh = entry.source.starts_with("gh:");
    match recorded {
        Some(r) if r == entry.source => r.to_owned(),
        // A fresh home (a sync of the lock elsewhere): as typed at install, without a ref.
        None if gh && entry.follows_latest => entry.source.clone(),
        _ if gh && !entry.requested_ref.is_empty() => {
            format!("{}@{}", entry.source, entry.requested_ref)
        }
        _ => entry.source.clone(),
    }
}

/// What this host decides about installs (see [`crate::host::InstallPolicy`]).
pub(super) const INSTALL: crate::host::InstallPolicy = crate::host::InstallPolicy {
    refuses_symlinks: true,
    builds: true,
    build_output: Some(".aoe-build"),
    wheel_deps: false,
    ref_in_host_config: true,
    gh_ref_unverified: true,
    manifest_grant: true,
    follows_gh_releases: true,
    remembers_python: false,
    featured_index: true,
    lock_fetch_url: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_dir_per_os() {
        let (x, h) = (Path::new("/x"), Path::new("/h"));
        let none = |_: &Path| false;
        assert_eq!(
            app_dir("linux", Some(x), Some(h), &none).unwrap(),
            Path::new("/x/agent-of-empires")
        );
        assert_eq!(
            app_dir("linux", None, Some(h), &none).unwrap(),
            Path::new("/h/.config/agent-of-empires")
        );
        assert_eq!(
            app_dir("macos", None, Some(h), &none).unwrap(),
            Path::new("/h/.agent-of-empires")
        );
        assert_eq!(
            app_dir("macos", Some(x), Some(h), &none).unwrap(),
            Path::new("/x/agent-of-empires")
        );
        let xdg_exists = |p: &Path| p == Path::new("/h/.config/agent-of-empires");
        assert_eq!(
            app_dir("macos", None, Some(h), &xdg_exists).unwrap(),
            Path::new("/h/.config/agent-of-empires")
        );
        let dotted = |p: &Path| p == Path::new("/h/.agent-of-empires");
        assert_eq!(
            app_dir("macos", Some(x), Some(h), &dotted).unwrap(),
            Path::new("/h/.agent-of-empires")
        );
        assert_eq!(
            app_dir("windows", Some(x), Some(h), &none).unwrap(),
            Path::new("/h/.agent-of-empires")
        );
        assert_eq!(app_dir("linux", None, None, &none), None);
    }

    fn caps(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn grant_keeps_the_rest_of_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::new(tmp.path(), crate::dialect::Dialect::Aoe);
        let original = "# my settings\ntheme = \"dark\"   # keep me\n\n[updates]\nauto_update_plugins = true\n\n[plugins.\"x.other\"]\nenabled = false\n";
        fs_err::write(config_path(&home), original).unwrap();
        let c = caps(&["net", "fs.read"]);
        let g = Grant {
            id: "dev.a",
            source: "gh:o/r",
            manifest_hash: "sha256:1",
            capabilities: &c,
            now: "T1",
        };
        assert!(grant(&home, &g).unwrap());
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(
            text.ends_with("\n[plugins.\"dev.a\"]\nsource = \"gh:o/r\"\nenabled = true\ngrant = { manifest_hash = \"sha256:1\", capabilities = [\"net\", \"fs.read\"], granted_at = \"T1\" }\n"),
            "{text}"
        );
        assert!(!grant(&home, &g).unwrap(), "nothing changed");
        // Disabled stays disabled; same capabilities keep granted_at; a new hash re-pins.
        set_enabled(&home, "dev.a", false).unwrap();
        let g2 = Grant {
            manifest_hash: "sha256:2",
            now: "T2",
            ..g.clone()
        };
        grant(&home, &g2).unwrap();
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert!(text.contains("enabled = false\ngrant = { manifest_hash = \"sha256:2\", capabilities = [\"net\", \"fs.read\"], granted_at = \"T1\" }"), "{text}");
        let c3 = caps(&["net"]);
        let g3 = Grant {
            capabilities: &c3,
            now: "T3",
            ..g2
        };
        grant(&home, &g3).unwrap();
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert!(
            text.contains("capabilities = [\"net\"], granted_at = \"T3\""),
            "{text}"
        );
        assert!(forget(&home, "dev.a").unwrap());
        assert_eq!(
            fs_err::read_to_string(config_path(&home)).unwrap(),
            original
        );
        assert!(!forget(&home, "dev.a").unwrap());
    }

    #[test]
    fn the_persisted_source_is_as_typed_then_keeps_its_form() {
        let entry = |typed: Option<&str>, r: &str| crate::lock::Entry {
            source: "gh:o/r".into(),
            requested_ref: r.into(),
            host_source: typed.map(str::to_owned),
            ..Default::default()
        };
        // An install: what was typed, whatever config.toml had.
        assert_eq!(
            persisted_source(&entry(Some("gh:o/r"), "v2"), Some("gh:o/r@v1")),
            "gh:o/r"
        );
        // An update or rollback: the recorded form.
        assert_eq!(
            persisted_source(&entry(None, "v2"), Some("gh:o/r")),
            "gh:o/r"
        );
        assert_eq!(
            persisted_source(&entry(None, "v2"), Some("gh:o/r@v1")),
            "gh:o/r@v2"
        );
        // No record, or one of another source: the lock's source and ref.
        assert_eq!(persisted_source(&entry(None, "v2"), None), "gh:o/r@v2");
        // No record on a fresh machine, for a row the install typed without a ref: as typed.
        let follows = crate::lock::Entry {
            follows_latest: true,
            ..entry(None, "v2")
        };
        assert_eq!(persisted_source(&follows, None), "gh:o/r");
        assert_eq!(persisted_source(&follows, Some("gh:o/r@v1")), "gh:o/r@v2");
        assert_eq!(
            persisted_source(&entry(None, ""), Some("/elsewhere")),
            "gh:o/r"
        );
    }

    #[test]
    fn a_grant_keeps_the_form_and_comments_the_file_gave_it() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::new(tmp.path(), crate::dialect::Dialect::Aoe);
        let sub = "[plugins.\"dev.a\"]  # mine\nsource = 'gh:o/r'\nenabled = false # off for now\n\n# the grant\n[plugins.\"dev.a\".grant]\nmanifest_hash = \"sha256:1\"   # pinned\ncapabilities = [\n  \"net\",\n]\ngranted_at = \"T1\"\n";
        fs_err::write(config_path(&home), sub).unwrap();
        let c = caps(&["net"]);
        let mut g = Grant {
            id: "dev.a",
            source: "gh:o/r",
            manifest_hash: "sha256:2",
            capabilities: &c,
            now: "T2",
        };
        assert!(grant(&home, &g).unwrap());
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert_eq!(text, sub.replace("sha256:1", "sha256:2"));
        let wider = caps(&["net", "fs.read"]);
        g.capabilities = &wider;
        assert!(grant(&home, &g).unwrap());
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert_eq!(
            text,
            sub.replace("sha256:1", "sha256:2")
                .replace("[\n  \"net\",\n]", "[\"net\", \"fs.read\"]")
                .replace("T1", "T2")
        );
        // An inline record stays inline.
        let inline = "[plugins]\n\"dev.a\" = { source = \"gh:o/r\", enabled = true, grant = { manifest_hash = \"sha256:1\", capabilities = [\"net\"], granted_at = \"T1\" } }\n";
        fs_err::write(config_path(&home), inline).unwrap();
        g.capabilities = &c;
        assert!(grant(&home, &g).unwrap());
        let text = fs_err::read_to_string(config_path(&home)).unwrap();
        assert_eq!(text, inline.replace("sha256:1", "sha256:2"));
    }

    #[test]
    fn a_missing_config_is_created_and_junk_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::new(tmp.path(), crate::dialect::Dialect::Aoe);
        let g = Grant {
            id: "a",
            source: "/src",
            manifest_hash: "h",
            capabilities: &[],
            now: "T",
        };
        grant(&home, &g).unwrap();
        assert_eq!(
            fs_err::read_to_string(config_path(&home)).unwrap(),
            "[plugins.a]\nsource = \"/src\"\nenabled = true\ngrant = { manifest_hash = \"h\", capabilities = [], granted_at = \"T\" }\n"
        );
        fs_err::write(config_path(&home), "plugins = 3\n").unwrap();
        assert!(grant(&home, &g).is_err());
        fs_err::write(config_path(&home), "[[[").unwrap();
        assert!(grant(&home, &g).is_err());
        assert!(set_enabled(&home, "a", true).is_err());
    }
}
