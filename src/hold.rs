//! Holds, as `apt-mark hold`: a held plugin stays at the version installed. `update --all`,
//! `autoupdate` and `outdated` show it as held (why, since when) and skip it, until
//! `plugins update <id>` (an explicit id) or `plugins unhold <id>` lifts it. `plugins
//! rollback` holds the version it restores, so the next sweep does not undo it.
//!
//! Kept in `[hold."<id>"]` of `<home>/plugins.toml` (`since`, `by`, `reason`), a file no host
//! reads, rather than in a key of the lock row: aoe's own lock writer re-serializes its lock
//! from its own struct, dropping every key it does not know, and protoAgent's installer
//! rewrites the whole row of a plugin it installs; the lock stays exactly what the hosts
//! read. Domain code: the caller holds the home lock for [`set`] and [`lift`].

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, Item, Table};

use crate::lock::{LockError, write_atomic};
use crate::store::Home;

/// Why and since when a plugin is held.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Hold {
    /// When the hold was put, RFC 3339.
    pub since: String,
    /// What put it: `rollback` or `hold` (`plugins hold`).
    pub by: String,
    /// Why, in words (`rolled back from 2.0.0 (abc1234)`).
    pub reason: String,
}

impl Hold {
    /// The hold `plugins rollback` puts on the version it restored.
    pub fn rollback(from: &crate::lock::Entry, now: &str) -> Hold {
        let commit = from.commit.as_deref().map_or_else(
            || "a local copy".to_owned(),
            |c| c[..c.len().min(7)].to_owned(),
        );
        Hold {
            since: now.to_owned(),
            by: "rollback".to_owned(),
            reason: format!("rolled back from {} ({commit})", from.version),
        }
    }

    /// The hold `plugins hold` puts.
    pub fn asked(now: &str) -> Hold {
        Hold {
            since: now.to_owned(),
            by: "hold".to_owned(),
            reason: "held with `plugins hold`".to_owned(),
        }
    }

    /// `held since <since> (<reason>)`.
    pub fn describe(&self) -> String {
        format!("held since {} ({})", self.since, self.reason)
    }
}

/// Every hold of `home`, by plugin id; a missing or unreadable file holds nothing (its
/// errors are the policy reader's to report), and a row without a string `since` is none.
pub fn holds(home: &Home) -> BTreeMap<String, Hold> {
    let Ok(text) = crate::file::read_to_string(home.settings()) else {
        return BTreeMap::new();
    };
    let Ok(doc) = text.parse::<toml::Table>() else {
        return BTreeMap::new();
    };
    let Some(rows) = doc.get("hold").and_then(toml::Value::as_table) else {
        return BTreeMap::new();
    };
    rows.iter()
        .filter_map(|(id, row)| {
            let s = |k: &str| row.get(k).and_then(toml::Value::as_str).map(str::to_owned);
            Some((
                id.clone(),
                Hold {
                    since: s("since")?,
                    by: s("by").unwrap_or_else(|| "hold".to_owned()),
                    reason: s("reason").unwrap_or_default(),
                },
            ))
        })
        .collect()
}

/// `id`'s hold in `home`, if it is held.
pub fn get(home: &Home, id: &str) -> Option<Hold> {
    holds(home).remove(id)
}

/// Hold `id` (replacing any hold it had), keeping the rest of `plugins.toml` byte for byte;
/// atomic. Whether the file changed.
pub fn set(home: &Home, id: &str, hold: &Hold) -> Result<bool, LockError> {
    edit(home, |table| {
        let mut row = Table::new();
        row["since"] = toml_edit::value(hold.since.as_str());
        row["by"] = toml_edit::value(hold.by.as_str());
        row["reason"] = toml_edit::value(hold.reason.as_str());
        table.insert(id, Item::Table(row));
    })
}

/// Lift `id`'s hold; the hold it had, if any.
pub fn lift(home: &Home, id: &str) -> Result<Option<Hold>, LockError> {
    let Some(had) = get(home, id) else {
        return Ok(None);
    };
    edit(home, |table| {
        table.remove(id);
    })?;
    Ok(Some(had))
}

/// Put `id` back as it was before [`set`]: held by `prior`, or not held.
pub fn restore(home: &Home, id: &str, prior: Option<&Hold>) -> Result<(), LockError> {
    match prior {
        Some(h) => set(home, id, h).map(drop),
        None => lift(home, id).map(drop),
    }
}

/// `plugins hold`: under the home lock (recovery first), hold `id` if `home`'s lock has it.
/// `None`: not installed there. Else its hold, and whether it was held already (a hold is
/// kept as it was: its `since` and why).
pub fn hold(
    home: &Home,
    id: &crate::name::Name,
    wait: bool,
    now: &str,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<Option<(Hold, bool)>, crate::install::InstallError> {
    let _guard = crate::install::lock_home(home, wait, on_event)?;
    if home.load_lock()?.get(id.as_str()).is_none() {
        return Ok(None);
    }
    if let Some(had) = get(home, id.as_str()) {
        return Ok(Some((had, true)));
    }
    let h = Hold::asked(now);
    set(home, id.as_str(), &h)?;
    Ok(Some((h, false)))
}

/// `plugins unhold`: under the home lock, lift `id`'s hold. `None`: `id` is neither
/// installed nor held in `home`; else the hold it had (`None`: it was not held).
pub fn unhold(
    home: &Home,
    id: &crate::name::Name,
    wait: bool,
    on_event: &mut dyn FnMut(crate::install::Event),
) -> Result<Option<Option<Hold>>, crate::install::InstallError> {
    let _guard = crate::install::lock_home(home, wait, on_event)?;
    let installed = home.load_lock()?.get(id.as_str()).is_some();
    // A hold of a plugin removed since is lifted too.
    match lift(home, id.as_str())? {
        Some(had) => Ok(Some(Some(had))),
        None if installed => Ok(Some(None)),
        None => Ok(None),
    }
}

/// Apply `change` to the `[hold]` table of `<home>/plugins.toml` (made, implicit, when
/// missing; dropped when it ends empty), keeping the rest of the file; atomic, and only
/// when the text changes.
fn edit(home: &Home, change: impl FnOnce(&mut Table)) -> Result<bool, LockError> {
    let path = home.settings();
    let text = match crate::file::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(LockError::Io {
                action: "read",
                path: path.display().to_string(),
                source,
            });
        }
    };
    let corrupt = |message: String| LockError::Corrupt {
        path: path.display().to_string(),
        message,
    };
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| corrupt(e.message().to_owned()))?;
    let table = doc.entry("hold").or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let table = table
        .as_table_mut()
        .ok_or_else(|| corrupt("`hold` is not a table".to_owned()))?;
    change(table);
    if table.is_empty() {
        doc.remove("hold");
    }
    let after = doc.to_string();
    if after == text {
        return Ok(false);
    }
    write_atomic(&path, after.as_bytes())?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_are_kept_beside_the_rest_of_the_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::new(tmp.path(), crate::dialect::Dialect::Aoe);
        let original =
            "# my policy\ncooldown = \"3d\"\n\n[update_policy.\"dev.a\"]\ntrack = \"main\"\n";
        fs_err::write(home.settings(), original).unwrap();
        let h = Hold::asked("2026-01-01T00:00:00Z");
        assert!(set(&home, "dev.a", &h).unwrap());
        assert!(!set(&home, "dev.a", &h).unwrap(), "nothing changed");
        let text = fs_err::read_to_string(home.settings()).unwrap();
        assert!(text.starts_with(original), "{text}");
        assert!(
            text.ends_with("\n[hold.\"dev.a\"]\nsince = \"2026-01-01T00:00:00Z\"\nby = \"hold\"\nreason = \"held with `plugins hold`\"\n"),
            "{text}"
        );
        assert_eq!(get(&home, "dev.a"), Some(h.clone()));
        assert_eq!(get(&home, "dev.b"), None);
        assert_eq!(lift(&home, "dev.a").unwrap(), Some(h));
        assert_eq!(fs_err::read_to_string(home.settings()).unwrap(), original);
        assert_eq!(lift(&home, "dev.a").unwrap(), None);
        fs_err::write(home.settings(), "hold = 3\n").unwrap();
        assert!(holds(&home).is_empty());
        assert!(set(&home, "x", &Hold::asked("t")).is_err());
    }
}
