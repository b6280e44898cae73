//! Signed releases: which plugins must come signed, and whose keys are allowed.
//!
//! The command line (`--require-signed`, `--allowed-signers PATH`) and `[trust]` in
//! `<home>/plugins.toml`:
//!
//! ```toml
//! [trust]
//! require_signed = true                      # every plugin of this home
//! allowed_signers = "~/.config/plugins/allowed_signers"
//!
//! [trust."dev.example.kanban"]
//! require_signed = true                      # this plugin (false: not this one)
//! allowed_signers = "kanban.allowed_signers" # relative to the home
//! ```
//!
//! `[trust]` decides what is installed, so it fails closed: an unknown key or a value of the
//! wrong type is an error (`plugins::config::trust`), never a warning that a misspelt
//! `require_signed` would slip past.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::store::{Home, SettingsError};

/// What the command line says (`--require-signed`, `--allowed-signers`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SignArgs {
    /// Every plugin this command installs must be signed.
    pub require: bool,
    /// The allowed signers file for ssh signatures (absolute); wins over `plugins.toml`.
    pub allowed_signers: Option<PathBuf>,
}

/// One plugin's `[trust."<id>"]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginTrust {
    /// `None`: the home's `require_signed` applies.
    pub require_signed: Option<bool>,
    pub allowed_signers: Option<String>,
}

/// `[trust]` of a home's `plugins.toml` (empty when there is none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trust {
    pub require_signed: bool,
    /// As resolved: absolute, or `~/…` (which git expands).
    pub allowed_signers: Option<String>,
    pub plugins: BTreeMap<String, PluginTrust>,
}

/// What applies to one plugin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rule {
    /// Its tag or commit must carry a signature git verifies.
    pub required: bool,
    /// The allowed signers file (`None`: git's own `gpg.ssh.allowedSignersFile`).
    pub allowed_signers: Option<String>,
    /// Where the file was named, for messages (`--allowed-signers`, `[trust]` of a file).
    pub named_in: String,
}

/// The way out of a `[trust]` table that cannot be read (`plugins::config::trust`).
pub const FIX_TRUST: &str = "fix [trust] in the home's plugins.toml: `require_signed = true|false` and `allowed_signers = \"PATH\"`, for the home or under [trust.\"<id>\"]";

/// The way out of an allowed signers file that does not exist.
pub const FIX_SIGNERS_FILE: &str = "create it (one line per key: `<principal> <key type> <key>`, as ssh-keygen reads it), or name another file";

impl Rule {
    /// Why the allowed signers file this rule names cannot be used (it does not exist);
    /// `~/…` is git's to expand and is not checked here.
    pub fn missing_signers_file(&self) -> Option<String> {
        let file = self.allowed_signers.as_deref()?;
        (!file.starts_with("~/") && !std::path::Path::new(file).is_file()).then(|| {
            format!(
                "the allowed signers file {file} (named by {}) does not exist",
                self.named_in
            )
        })
    }
}

const TRUST_KEYS: [&str; 2] = ["require_signed", "allowed_signers"];

impl Trust {
    /// The rule for plugin `id`: `--require-signed`, else its own `require_signed`, else
    /// the home's; `--allowed-signers`, else its own `allowed_signers`, else the home's.
    pub fn rule(&self, id: &str, args: &SignArgs, path: &std::path::Path) -> Rule {
        let own = self.plugins.get(id);
        let required = args.require
            || own
                .and_then(|p| p.require_signed)
                .unwrap_or(self.require_signed);
        let (allowed_signers, named_in) = match (&args.allowed_signers, own) {
            (Some(file), _) => (
                Some(file.display().to_string()),
                "--allowed-signers".to_owned(),
            ),
            (
                None,
                Some(PluginTrust {
                    allowed_signers: Some(file),
                    ..
                }),
            ) => (
                Some(file.clone()),
                format!("[trust.{id:?}] of {}", path.display()),
            ),
            (None, _) => (
                self.allowed_signers.clone(),
                format!("[trust] of {}", path.display()),
            ),
        };
        Rule {
            required,
            allowed_signers,
            named_in,
        }
    }
}

/// `[trust]` of `home`'s `plugins.toml`; a missing file or table is the default (nothing
/// required). Errors name the file and the key.
pub fn load(home: &Home) -> Result<Trust, SettingsError> {
    let path = home.settings();
    let text = match crate::file::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Trust::default()),
        Err(e) => return Err(SettingsError::read(&path, &e)),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| SettingsError::not_toml(&path, e.message()))?;
    let Some(trust) = table.get("trust") else {
        return Ok(Trust::default());
    };
    let at = |place: &str| format!("{place} of {}", path.display());
    let Some(trust) = trust.as_table() else {
        return Err(SettingsError::Invalid(format!(
            "`trust` in {} must be a table",
            path.display()
        )));
    };
    let resolve = |file: &str| {
        if file.starts_with("~/") || std::path::Path::new(file).is_absolute() {
            file.to_owned()
        } else {
            home.root.join(file).display().to_string()
        }
    };
    let mut out = Trust::default();
    for (key, value) in trust {
        match (key.as_str(), value) {
            ("require_signed", toml::Value::Boolean(b)) => out.require_signed = *b,
            ("allowed_signers", toml::Value::String(s)) if !s.trim().is_empty() => {
                out.allowed_signers = Some(resolve(s));
            }
            (k @ ("require_signed" | "allowed_signers"), v) => {
                return Err(wrong_type(k, v, &at("[trust]")));
            }
            (id, toml::Value::Table(rule)) => {
                let place = at(&format!("[trust.{id:?}]"));
                let mut p = PluginTrust::default();
                for (k, v) in rule {
                    match (k.as_str(), v) {
                        ("require_signed", toml::Value::Boolean(b)) => {
                            p.require_signed = Some(*b);
                        }
                        ("allowed_signers", toml::Value::String(s)) if !s.trim().is_empty() => {
                            p.allowed_signers = Some(resolve(s));
                        }
                        (k @ ("require_signed" | "allowed_signers"), v) => {
                            return Err(wrong_type(k, v, &place));
                        }
                        (k, _) => return Err(unknown(k, &place)),
                    }
                }
                out.plugins.insert(id.to_owned(), p);
            }
            (k, _) => return Err(unknown(k, &at("[trust]"))),
        }
    }
    Ok(out)
}

fn wrong_type(key: &str, value: &toml::Value, place: &str) -> SettingsError {
    let want = if key == "require_signed" {
        "true or false"
    } else {
        "the path of an allowed signers file"
    };
    SettingsError::Invalid(format!(
        "`{key}` in {place} must be {want}, not {}",
        match value {
            toml::Value::String(s) => format!("{s:?}"),
            other => other.type_str().to_owned(),
        }
    ))
}

fn unknown(key: &str, place: &str) -> SettingsError {
    let hint = crate::diagnostic::did_you_mean(key, TRUST_KEYS.iter().copied())
        .map_or(String::new(), |k| format!(" (did you mean `{k}`?)"));
    SettingsError::Invalid(format!(
        "unknown key `{key}` in {place}{hint}; it knows `require_signed` and `allowed_signers`, and a table per plugin id"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(text: &str) -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("plugins.toml"), text).unwrap();
        let home = Home::new(dir.path().to_path_buf(), crate::dialect::Dialect::Aoe);
        (dir, home)
    }

    #[test]
    fn the_plugin_wins_over_the_home_and_the_command_line_over_both() {
        let (dir, home) = home_with(
            "[trust]\nrequire_signed = true\nallowed_signers = \"signers\"\n\n[trust.\"a\"]\nrequire_signed = false\n\n[trust.\"b\"]\nallowed_signers = \"~/b\"\n",
        );
        let trust = load(&home).unwrap();
        let path = home.settings();
        let none = SignArgs::default();
        assert!(!trust.rule("a", &none, &path).required);
        assert!(trust.rule("c", &none, &path).required);
        let home_file = dir.path().join("signers").display().to_string();
        assert_eq!(
            trust.rule("c", &none, &path).allowed_signers,
            Some(home_file)
        );
        assert_eq!(
            trust.rule("b", &none, &path).allowed_signers.as_deref(),
            Some("~/b")
        );
        let args = SignArgs {
            require: true,
            allowed_signers: Some("/x".into()),
        };
        let rule = trust.rule("a", &args, &path);
        assert!(rule.required);
        assert_eq!(rule.allowed_signers.as_deref(), Some("/x"));
        assert_eq!(rule.named_in, "--allowed-signers");
    }

    #[test]
    fn mistakes_fail_closed() {
        for (text, says) in [
            (
                "[trust]\nrequire_signd = true\n",
                "unknown key `require_signd` in [trust]",
            ),
            (
                "[trust]\nrequire_signed = \"yes\"\n",
                "`require_signed` in [trust]",
            ),
            (
                "[trust.\"a\"]\nrequire_signed = 1\n",
                "`require_signed` in [trust.\"a\"]",
            ),
            ("[trust.\"a\"]\nsigners = \"x\"\n", "unknown key `signers`"),
            ("trust = 1\n", "must be a table"),
        ] {
            let (_dir, home) = home_with(text);
            let e = load(&home).unwrap_err();
            assert!(e.to_string().contains(says), "{text}: {e}");
        }
        let (_dir, home) = home_with("[host]\naoe_api = 15\n");
        assert_eq!(load(&home).unwrap(), Trust::default());
    }
}
