//! The auto-update policy: `<home>/plugins.toml` read into a [`Policy`], with warnings
//! for unknown keys and invalid values.

use std::path::PathBuf;

use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::manifest::doc::{Entry, Node, Value};
use crate::manifest::format::parse_toml;
use crate::store::{Home, SettingsError};

/// One armed plugin's policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: String,
    /// Informational, as in protoAgent: the lock's ref decides what is tracked.
    pub track: String,
    /// `when = "always"`: ignore the idle signal.
    pub always: bool,
}

/// `<home>/plugins.toml`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// 0 disables sweeping.
    pub interval_hours: u64,
    /// Only plugins listed with a non-empty `track` auto-update (opt-in).
    pub rules: Vec<Rule>,
    /// `cooldown`: a newer version younger than this many seconds is held back (0: none).
    pub cooldown_secs: u64,
}

pub fn policy_path(home: &Home) -> PathBuf {
    home.settings()
}

/// `<home>/plugins.toml` as read: the policy to act on, and what was wrong with the file.
#[derive(Clone, Debug)]
pub struct PolicyFile {
    pub policy: Policy,
    pub path: PathBuf,
    /// The file's text, which the warnings' labels point into (empty when absent).
    pub text: String,
    /// Unknown keys and invalid values, in source order; each says what is used instead.
    pub warnings: Vec<Diagnostic>,
}

pub(super) const TOP_KEYS: [&str; 7] = [
    "autoupdate_interval_hours",
    "cooldown",
    "hold",
    "host",
    "search",
    "trust",
    "update_policy",
];
const RULE_KEYS: [&str; 2] = ["track", "when"];
const WHEN_VALUES: [&str; 2] = ["idle", "always"];

/// A `did you mean` help, else the list of what is known.
fn suggest(word: &str, known: &[&'static str], otherwise: String) -> String {
    match did_you_mean(word, known.iter().copied()) {
        Some(close) => format!("did you mean `{close}`?"),
        None => otherwise,
    }
}

fn unknown_key(entry: &Entry, place: &str, known: &[&'static str]) -> Diagnostic {
    let mut list = known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>();
    let last = list.pop().unwrap_or_default();
    let list = if list.is_empty() {
        last
    } else {
        format!("{} and {last}", list.join(", "))
    };
    Diagnostic::new(
        Code::ConfigUnknownKey,
        format!("unknown key `{}` in {place}; it is ignored", entry.key),
    )
    .with_label(entry.key_span.clone(), Some("unknown key".to_owned()))
    .with_help(suggest(&entry.key, known, format!("{place} knows {list}")))
}

fn invalid_value(node: &Node, message: String, label: &str) -> Diagnostic {
    Diagnostic::new(Code::ConfigInvalidValue, message)
        .with_label(node.span.clone(), Some(label.to_owned()))
}

/// `when`: "always" (any case, trimmed) bypasses the idle gate; unset or empty means idle,
/// as in protoAgent. Anything else is reported and taken as the default, idle.
fn parse_when(node: &Node, warnings: &mut Vec<Diagnostic>) -> bool {
    let default = "using the default, \"idle\"";
    let Some(raw) = node.as_str() else {
        warnings.push(
            invalid_value(
                node,
                format!(
                    "`when` must be a string, not {} {}; {default}",
                    article(node.type_name()),
                    node.type_name()
                ),
                "not a string",
            )
            .with_help("`when` is \"idle\" (wait until the host is idle) or \"always\""),
        );
        return false;
    };
    let when = raw.trim().to_lowercase();
    match when.as_str() {
        "always" => true,
        "idle" | "" => false,
        _ => {
            warnings.push(
                invalid_value(
                    node,
                    format!("`when = {raw:?}` is not \"idle\" or \"always\"; {default}"),
                    "not \"idle\" or \"always\"",
                )
                .with_help(suggest(
                    &when,
                    &WHEN_VALUES,
                    "`when` is \"idle\" (wait until the host is idle) or \"always\"".into(),
                )),
            );
            false
        }
    }
}

/// `cooldown = "3d"`: a duration (`3d`, `72h`, `1d12h`, `90m`, `"0"`). Anything else is
/// reported and taken as no cooldown.
fn parse_cooldown(node: &Node, warnings: &mut Vec<Diagnostic>) -> u64 {
    let help = "`cooldown` is a string of days, hours or minutes: \"3d\", \"72h\", \"1d12h\"; \"0\" for none";
    let parsed = match node.as_str() {
        Some(raw) => crate::review::parse_duration(raw).map_err(|_| {
            (
                format!("`cooldown = {raw:?}` is not a duration; no cooldown is used"),
                "not a duration",
            )
        }),
        None => Err((
            format!(
                "`cooldown` must be a string, not {} {}; no cooldown is used",
                article(node.type_name()),
                node.type_name()
            ),
            "not a string",
        )),
    };
    parsed.unwrap_or_else(|(message, label)| {
        warnings.push(invalid_value(node, message, label).with_help(help));
        0
    })
}

fn article(type_name: &str) -> &'static str {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Read the policy; a missing file means the defaults (every 6 hours, nothing armed).
/// Unknown keys and invalid values are warnings, never silently taken for valid ones.
pub fn load_policy(home: &Home) -> Result<PolicyFile, SettingsError> {
    let path = policy_path(home);
    let text = match crate::file::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(SettingsError::read(&path, &e)),
    };
    let root = parse_toml(&text).map_err(|e| SettingsError::not_toml(&path, e.message))?;
    let mut warnings = Vec::new();
    let mut interval_hours = 6;
    let mut rules = Vec::new();
    let mut cooldown_secs = 0;
    for entry in root.as_table().unwrap_or_default() {
        match entry.key.as_ref() {
            "cooldown" => cooldown_secs = parse_cooldown(&entry.node, &mut warnings),
            "autoupdate_interval_hours" => {
                interval_hours = match entry.node.value {
                    Value::Int(i) => u64::try_from(i).ok(),
                    _ => None,
                }
                .ok_or_else(|| {
                    SettingsError::Invalid(format!(
                        "{}: autoupdate_interval_hours must be a non-negative integer",
                        path.display()
                    ))
                })?;
            }
            "update_policy" => {
                let Some(policies) = entry.node.as_table() else {
                    warnings.push(invalid_value(
                        &entry.node,
                        format!(
                            "`update_policy` must be a table of plugin ids, not {} {}; no plugin is armed",
                            article(entry.node.type_name()),
                            entry.node.type_name()
                        ),
                        "not a table",
                    ));
                    continue;
                };
                for p in policies {
                    if let Some(rule) = parse_rule(p, &mut warnings) {
                        rules.push(rule);
                    }
                }
            }
            // The host profile (`crate::profile`); signing (`crate::signing`, read by installs,
            // which refuse what is wrong in it); holds (`crate::hold`, written by `rollback`
            // and `hold`); index files `plugins search` reads (`crate::search`). Every table
            // `plugins` reads or writes has an arm here.
            "host" | "trust" | "hold" | "search" => {}
            _ => warnings.push(unknown_key(entry, "plugins.toml", &TOP_KEYS)),
        }
    }
    warnings.sort_by_key(Diagnostic::offset);
    Ok(PolicyFile {
        policy: Policy {
            interval_hours,
            rules,
            cooldown_secs,
        },
        path,
        text,
        warnings,
    })
}

/// One `[update_policy."<id>"]`: a rule if it is armed (a non-empty `track`).
fn parse_rule(p: &Entry, warnings: &mut Vec<Diagnostic>) -> Option<Rule> {
    let place = format!("[update_policy.{:?}]", p.key);
    let Some(fields) = p.node.as_table() else {
        warnings.push(
            invalid_value(
                &p.node,
                format!(
                    "`update_policy.{:?}` must be a table, not {} {}; the plugin is not armed",
                    p.key,
                    article(p.node.type_name()),
                    p.node.type_name()
                ),
                "not a table",
            )
            .with_help(format!("write it as {place} with `track = \"…\"` under it")),
        );
        return None;
    };
    let mut track = String::new();
    let mut always = false;
    for f in fields {
        match f.key.as_ref() {
            "track" => match f.node.as_str() {
                Some(t) => track = t.trim().to_owned(),
                None => warnings.push(invalid_value(
                    &f.node,
                    format!(
                        "`track` must be a string, not {} {}; the plugin is not armed",
                        article(f.node.type_name()),
                        f.node.type_name()
                    ),
                    "not a string",
                )),
            },
            "when" => always = parse_when(&f.node, warnings),
            _ => warnings.push(unknown_key(f, &place, &RULE_KEYS)),
        }
    }
    (!track.is_empty()).then(|| Rule {
        id: p.key.to_string(),
        track,
        always,
    })
}
