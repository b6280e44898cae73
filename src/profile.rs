//! The host profile a home's plugins are validated against, remembered per home in
//! `<home>/plugins.toml`:
//!
//! ```toml
//! [host]
//! aoe_api = 12             # aoe's plugin API profile: 15 (aoe 1.19) or 12 (aoe 1.14)
//! version = "1.14.0"       # the host's version: aoe_version / min_protoagent_version
//! ```
//!
//! `install --aoe-api 12` records it, so that `update`, `sync` and `autoupdate` of the same
//! home validate as that host would instead of refusing what it accepts. A flag on the
//! command line wins over the file, and is remembered when the install succeeds.

use std::path::Path;

use crate::host::ValidateOptions;
use crate::store::Home;

/// The record itself lives with the lock that keeps it (`host_aoe_api`, `host_version`):
/// the lock reads a row without asking any host. What a profile means is here.
pub use crate::lock::HostProfile;

/// A home's host profile, read when a row first needs it and kept for the rest: a command
/// that asks for each row reads `plugins.toml` once per home (issue 43).
pub struct Remembered<'h> {
    home: &'h Home,
    profile: std::cell::OnceCell<HostProfile>,
}

impl<'h> Remembered<'h> {
    /// `home`'s profile, not read yet.
    pub fn of(home: &'h Home) -> Remembered<'h> {
        Remembered {
            home,
            profile: std::cell::OnceCell::new(),
        }
    }

    /// The profile, read on the first call.
    pub fn get(&self) -> &HostProfile {
        self.profile.get_or_init(|| HostProfile::load(self.home))
    }
}

impl HostProfile {
    /// `[host]` of `<home>/plugins.toml`; a missing file, table or key means none. Values of
    /// the wrong type are ignored here (`plugins autoupdate` reports them with the file).
    pub fn load(home: &Home) -> HostProfile {
        Self::read(&home.settings()).unwrap_or_default()
    }

    fn read(path: &Path) -> Option<HostProfile> {
        let text = crate::file::read_to_string(path).ok()?;
        let doc: toml::Table = text.parse().ok()?;
        let host = doc.get("host")?.as_table()?;
        Some(HostProfile {
            aoe_api: host
                .get("aoe_api")
                .and_then(toml::Value::as_integer)
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| crate::host::known_aoe_api(*n)),
            version: host
                .get("version")
                .and_then(toml::Value::as_str)
                .map(str::to_owned),
        })
    }

    /// These values where given, else `remembered`'s.
    pub fn or(&self, remembered: HostProfile) -> HostProfile {
        HostProfile {
            aoe_api: self.aoe_api.or(remembered.aoe_api),
            version: self.version.clone().or(remembered.version),
        }
    }

    /// The values given here that `locked` records otherwise (`--frozen`): `--aoe-api 15`
    /// against a lock made under 12, `--host-version` against another version.
    pub fn conflicts(&self, locked: &HostProfile) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(api) = self.aoe_api
            && locked.aoe_api.is_some_and(|l| l != api)
        {
            out.push(format!(
                "--aoe-api {api} (the lock: {})",
                locked.aoe_api.unwrap_or_default()
            ));
        }
        if let Some(v) = &self.version
            && locked.version.as_ref().is_some_and(|l| l != v)
        {
            out.push(format!(
                "--host-version {v} (the lock: {})",
                locked.version.as_deref().unwrap_or_default()
            ));
        }
        out
    }

    /// As the command line spells it (`--aoe-api 12 --host-version 1.14.0`).
    pub fn flags(&self) -> String {
        let mut out = Vec::new();
        if let Some(api) = self.aoe_api {
            out.push(format!("--aoe-api {api}"));
        }
        if let Some(v) = &self.version {
            out.push(format!("--host-version {v}"));
        }
        out.join(" ")
    }

    /// Validate as this host: the aoe profile and the version each dialect checks.
    pub fn apply(&self, v: &mut ValidateOptions) {
        v.host.apply(self);
    }

    /// The hosts' options `base` validates with once this host is applied to it (install:
    /// the command line's profile over the home's; checks: the home's alone).
    pub fn host_options(&self, base: &ValidateOptions) -> crate::host::HostOptions {
        base.host.with(self)
    }

    /// Write the given values into `[host]` of `<home>/plugins.toml`, keeping the rest of the
    /// file byte for byte; atomic (a temporary file renamed over it). `false` when nothing
    /// changed.
    pub fn remember(&self, home: &Home) -> std::io::Result<bool> {
        if self.is_empty() {
            return Ok(false);
        }
        edit_host(home, |host| {
            if let Some(api) = self.aoe_api {
                host["aoe_api"] = toml_edit::value(i64::from(api));
            }
            if let Some(v) = &self.version {
                host["version"] = toml_edit::value(v.as_str());
            }
        })
    }
}

/// Remember `python` as the home's host interpreter (`[host] python` in
/// `<home>/plugins.toml`), as [`HostProfile::remember`] writes.
pub fn remember_python(home: &Home, python: &std::path::Path) -> std::io::Result<bool> {
    edit_host(home, |host| {
        host["python"] = toml_edit::value(python.display().to_string());
    })
}

/// Apply `edit` to the `[host]` table of `<home>/plugins.toml` (made if missing), keeping
/// the rest of the file byte for byte and its mode; atomic ([`crate::lock::write_atomic`]).
/// `false` when nothing changed.
fn edit_host(home: &Home, edit: impl FnOnce(&mut toml_edit::Item)) -> std::io::Result<bool> {
    let path = home.settings();
    let text = match crate::file::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {e}", path.display()),
        )
    })?;
    if !doc.contains_key("host") || !doc["host"].is_table() {
        doc["host"] = toml_edit::table();
    }
    edit(&mut doc["host"]);
    let new = doc.to_string();
    if new == text {
        return Ok(false);
    }
    // Through the one atomic write, whose temp file names its owner (recovery deletes it
    // only once that process is gone) and which keeps the file's mode.
    crate::lock::write_atomic(&path, new.as_bytes()).map_err(std::io::Error::other)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_flags_and_the_rest_of_the_file_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let home = Home::new(tmp.path(), crate::dialect::Dialect::Aoe);
        assert_eq!(HostProfile::load(&home), HostProfile::default());
        let original = "# cron policy\nautoupdate_interval_hours = 2 # every two hours\n";
        fs_err::write(tmp.path().join("plugins.toml"), original).unwrap();
        let given = HostProfile {
            aoe_api: Some(12),
            version: None,
        };
        assert!(given.remember(&home).unwrap());
        assert!(!given.remember(&home).unwrap(), "no change the second time");
        let text = fs_err::read_to_string(tmp.path().join("plugins.toml")).unwrap();
        assert_eq!(text, format!("{original}\n[host]\naoe_api = 12\n"));
        assert_eq!(HostProfile::load(&home), given);
        let flag = HostProfile {
            aoe_api: Some(15),
            version: Some("1.19.0".into()),
        };
        assert_eq!(HostProfile::default().or(HostProfile::load(&home)), given);
        assert_eq!(flag.or(HostProfile::load(&home)), flag);
        // A value aoe has no profile for is not a profile.
        fs_err::write(tmp.path().join("plugins.toml"), "[host]\naoe_api = 13\n").unwrap();
        assert_eq!(HostProfile::load(&home), HostProfile::default());
    }
}
