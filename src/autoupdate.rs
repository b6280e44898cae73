//! Auto-update policy and state in a home: `<home>/plugins.toml` (the policy),
//! `<home>/.autoupdate.json` (when the last sweep ran), `<home>/activity` (the idle
//! signal) and `<home>/events.jsonl` (what was applied).
//!
//! The idle signal: the host (or a wrapper, `plugins activity hold -- CMD`) holds an
//! advisory lock on `<home>/activity` while a turn runs, and touches it when a turn
//! starts and ends. A held lock means "in flight"; a modification time within the
//! grace window means "was just in flight". Either defers `when = "idle"` updates.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::diagnostic::{Code, Diagnostic, did_you_mean};
use crate::manifest::doc::{Entry, Node, Value};
use crate::manifest::format::parse_toml;
use crate::store::Home;

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
    home.root.join("plugins.toml")
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

const TOP_KEYS: [&str; 4] = [
    "autoupdate_interval_hours",
    "cooldown",
    "host",
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
pub fn load_policy(home: &Home) -> Result<PolicyFile, String> {
    let path = policy_path(home);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let root = parse_toml(&text)
        .map_err(|e| format!("{} is not valid TOML: {}", path.display(), e.message))?;
    let mut warnings = Vec::new();
    let mut interval_hours = 6;
    let mut rules = Vec::new();
    let mut cooldown_secs = 0;
    for entry in root.as_table().unwrap_or_default() {
        match entry.key.as_str() {
            "cooldown" => cooldown_secs = parse_cooldown(&entry.node, &mut warnings),
            "autoupdate_interval_hours" => {
                interval_hours = match entry.node.value {
                    Value::Int(i) => u64::try_from(i).ok(),
                    _ => None,
                }
                .ok_or_else(|| {
                    format!(
                        "{}: autoupdate_interval_hours must be a non-negative integer",
                        path.display()
                    )
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
            // The host profile (`crate::profile`).
            "host" => {}
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
        match f.key.as_str() {
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
        id: p.key.clone(),
        track,
        always,
    })
}

fn state_path(home: &Home) -> PathBuf {
    home.root.join(".autoupdate.json")
}

fn now_secs() -> u64 {
    crate::clock::now_secs()
}

/// Seconds since the last sweep, if one ran.
pub fn since_last_sweep(home: &Home) -> Option<u64> {
    let text = std::fs::read_to_string(state_path(home)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(now_secs().saturating_sub(v.get("last_sweep")?.as_u64()?))
}

pub fn record_sweep(home: &Home) -> Result<(), crate::lock::LockError> {
    let text = format!("{{\"last_sweep\": {}}}\n", now_secs());
    crate::lock::write_atomic(&state_path(home), text.as_bytes())
}

/// The host's activity, as the idle gate sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activity {
    Idle,
    /// The marker was touched this many seconds ago, within the grace window.
    Recent(u64),
    /// A turn holds the marker's lock right now.
    InFlight,
}

pub fn activity_path(home: &Home) -> PathBuf {
    home.root.join("activity")
}

pub fn activity(home: &Home, grace: Duration) -> Activity {
    let path = activity_path(home);
    let Ok(file) = File::open(&path) else {
        return Activity::Idle;
    };
    if let Err(TryLockError::WouldBlock) = file.try_lock_shared() {
        return Activity::InFlight;
    }
    let age = file
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .unwrap_or(Duration::MAX);
    if age < grace {
        Activity::Recent(age.as_secs())
    } else {
        Activity::Idle
    }
}

/// Mark activity now (a turn started or ended).
pub fn touch(home: &Home) -> std::io::Result<File> {
    std::fs::create_dir_all(&home.root)?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(activity_path(home))?;
    file.set_modified(SystemTime::now())?;
    Ok(file)
}

/// Hold the activity lock (a turn in flight) until the returned file is dropped.
pub fn hold(home: &Home) -> std::io::Result<File> {
    let file = touch(home)?;
    file.lock()?;
    Ok(file)
}

/// Append one event as a JSON line to `<home>/events.jsonl`.
pub fn append_event(home: &Home, event: &serde_json::Value) -> std::io::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(home.root.join("events.jsonl"))?;
    writeln!(f, "{event}")?;
    f.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_defaults_and_opt_in() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let file = load_policy(&home).unwrap();
        assert_eq!(
            (file.policy, file.warnings),
            (
                Policy {
                    interval_hours: 6,
                    rules: vec![],
                    cooldown_secs: 0,
                },
                vec![]
            )
        );
        std::fs::write(policy_path(&home), "autoupdate_interval_hours = 0\n[update_policy.a]\ntrack = \"main\"\nwhen = \"ALWAYS\"\n[update_policy.b]\ntrack = \"\"\n[update_policy.c]\ntrack = \"v1\"\n").unwrap();
        let file = load_policy(&home).unwrap();
        assert_eq!(file.warnings, []);
        let p = file.policy;
        assert_eq!(p.interval_hours, 0);
        assert_eq!(
            p.rules
                .iter()
                .map(|r| (r.id.as_str(), r.always))
                .collect::<Vec<_>>(),
            [("a", true), ("c", false)]
        );
    }

    /// A warning as (code, message, labelled text, help).
    type Shown = (Code, String, String, String);

    /// Each warning for `text`, and the armed rules as (id, always).
    fn warnings(text: &str) -> (Vec<Shown>, Vec<(String, bool)>) {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        std::fs::write(policy_path(&home), text).unwrap();
        let file = load_policy(&home).unwrap();
        let warnings = file
            .warnings
            .iter()
            .map(|d| {
                (
                    d.code,
                    d.message.clone(),
                    text[d.labels[0].span.clone()].to_owned(),
                    d.help.clone().unwrap_or_default(),
                )
            })
            .collect();
        let rules = file
            .policy
            .rules
            .into_iter()
            .map(|r| (r.id, r.always))
            .collect();
        (warnings, rules)
    }

    #[test]
    fn unknown_keys_and_invalid_values_are_warnings_and_take_the_default() {
        let (found, rules) = warnings(
            "autoupdate_interval = 1\nfrequency = 2\n[update_policy.a]\ntrack = \"main\"\nwhen = \"alwys\"\ntrak = \"x\"\n[update_policy.b]\ntrack = 3\n[update_policy.c]\ntrack = \"v1\"\nwhen = true\n",
        );
        assert_eq!(
            found,
            [
                (
                    Code::ConfigUnknownKey,
                    "unknown key `autoupdate_interval` in plugins.toml; it is ignored".into(),
                    "autoupdate_interval".into(),
                    "did you mean `autoupdate_interval_hours`?".into()
                ),
                (
                    Code::ConfigUnknownKey,
                    "unknown key `frequency` in plugins.toml; it is ignored".into(),
                    "frequency".into(),
                    "plugins.toml knows `autoupdate_interval_hours`, `cooldown`, `host` and `update_policy`".into()
                ),
                (
                    Code::ConfigInvalidValue,
                    "`when = \"alwys\"` is not \"idle\" or \"always\"; using the default, \"idle\""
                        .into(),
                    "\"alwys\"".into(),
                    "did you mean `always`?".into()
                ),
                (
                    Code::ConfigUnknownKey,
                    "unknown key `trak` in [update_policy.\"a\"]; it is ignored".into(),
                    "trak".into(),
                    "did you mean `track`?".into()
                ),
                (
                    Code::ConfigInvalidValue,
                    "`track` must be a string, not an integer; the plugin is not armed".into(),
                    "3".into(),
                    String::new()
                ),
                (
                    Code::ConfigInvalidValue,
                    "`when` must be a string, not a boolean; using the default, \"idle\"".into(),
                    "true".into(),
                    "`when` is \"idle\" (wait until the host is idle) or \"always\"".into()
                ),
            ]
        );
        // A misspelt "always" is idle (the default), not always; a non-string track arms nothing.
        assert_eq!(rules, [("a".to_owned(), false), ("c".to_owned(), false)]);
        let (found, rules) = warnings("update_policy = 5\n");
        assert_eq!(found[0].0, Code::ConfigInvalidValue);
        assert_eq!(
            found[0].1,
            "`update_policy` must be a table of plugin ids, not an integer; no plugin is armed"
        );
        assert_eq!(rules, []);
        let (found, _) = warnings("[update_policy]\na = \"main\"\n");
        assert_eq!(
            (found[0].1.as_str(), found[0].3.as_str()),
            (
                "`update_policy.\"a\"` must be a table, not a string; the plugin is not armed",
                "write it as [update_policy.\"a\"] with `track = \"…\"` under it"
            )
        );
    }

    #[test]
    fn cooldowns() {
        let read = |text: &str| {
            let dir = tempfile::tempdir().unwrap();
            let home = Home::new(dir.path());
            std::fs::write(policy_path(&home), text).unwrap();
            load_policy(&home).unwrap()
        };
        assert_eq!(read("cooldown = \"3d\"\n").policy.cooldown_secs, 259_200);
        assert_eq!(read("cooldown = \"1d12h\"\n").policy.cooldown_secs, 129_600);
        assert_eq!(read("cooldown = \"0\"\n").policy.cooldown_secs, 0);
        assert_eq!(read("").policy.cooldown_secs, 0, "none by default");
        let (found, _) = warnings("cooldown = \"3 days\"\n");
        assert_eq!(
            found,
            [(
                Code::ConfigInvalidValue,
                "`cooldown = \"3 days\"` is not a duration; no cooldown is used".into(),
                "\"3 days\"".into(),
                "`cooldown` is a string of days, hours or minutes: \"3d\", \"72h\", \"1d12h\"; \"0\" for none".into()
            )]
        );
        let file = read("cooldown = 72\n");
        assert_eq!(
            (file.policy.cooldown_secs, file.warnings[0].message.as_str()),
            (
                0,
                "`cooldown` must be a string, not an integer; no cooldown is used"
            )
        );
        let (found, _) = warnings("cooldwn = \"3d\"\n");
        assert_eq!(found[0].3, "did you mean `cooldown`?");
    }

    #[test]
    fn idle_signal() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        assert_eq!(activity(&home, Duration::from_secs(300)), Activity::Idle);
        drop(touch(&home).unwrap());
        assert!(matches!(
            activity(&home, Duration::from_secs(300)),
            Activity::Recent(_)
        ));
        assert_eq!(activity(&home, Duration::ZERO), Activity::Idle);
        let held = hold(&home).unwrap();
        assert_eq!(activity(&home, Duration::ZERO), Activity::InFlight);
        drop(held);
        assert_eq!(activity(&home, Duration::ZERO), Activity::Idle);
    }
}
