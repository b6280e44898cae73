use std::time::Duration;

use super::*;
use crate::diagnostic::Code;

#[test]
fn policy_defaults_and_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path(), crate::dialect::Dialect::Aoe);
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
    fs_err::write(policy_path(&home), "autoupdate_interval_hours = 0\n[update_policy.a]\ntrack = \"main\"\nwhen = \"ALWAYS\"\n[update_policy.b]\ntrack = \"\"\n[update_policy.c]\ntrack = \"v1\"\n").unwrap();
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
    let home = Home::new(dir.path(), crate::dialect::Dialect::Aoe);
    fs_err::write(policy_path(&home), text).unwrap();
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
                "plugins.toml knows `autoupdate_interval_hours`, `cooldown`, `hold`, `host`, `search`, `trust` and `update_policy`".into()
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
        let home = Home::new(dir.path(), crate::dialect::Dialect::Aoe);
        fs_err::write(policy_path(&home), text).unwrap();
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
    let home = Home::new(dir.path(), crate::dialect::Dialect::Aoe);
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

/// Timestamps from the future (a clock that was once ahead) are taken as now and stamped
/// so: activity is recent for one grace window, then idle; a sweep recorded ahead is "0 s
/// ago" once, and the interval counts from now.
#[test]
fn timestamps_from_the_future_are_taken_as_now() {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path(), crate::dialect::Dialect::Aoe);
    let future = crate::clock::system_now() + Duration::from_secs(365 * 24 * 3600);
    touch(&home).unwrap().set_modified(future).unwrap();
    assert_eq!(
        activity(&home, Duration::from_secs(300)),
        Activity::Recent(0)
    );
    // Reading does not write (doctor reads); a sweep stamps it now first.
    let read = fs_err::metadata(activity_path(&home))
        .unwrap()
        .modified()
        .unwrap();
    assert!(
        read > crate::clock::system_now(),
        "reading left it as it was"
    );
    super::restamp_future_activity(&home);
    let stamped = fs_err::metadata(activity_path(&home))
        .unwrap()
        .modified()
        .unwrap();
    assert!(stamped <= crate::clock::system_now(), "re-stamped to now");

    let ahead = crate::clock::now_secs() + 365 * 24 * 3600;
    fs_err::write(
        home.autoupdate_state(),
        format!("{{\"last_sweep\": {ahead}}}\n"),
    )
    .unwrap();
    // doctor reads it as it is; a sweep takes it as now and records that.
    assert!(matches!(super::last_sweep(&home), Some(Err(_))));
    assert_eq!(super::since_last_sweep(&home), Some(0));
    let text = fs_err::read_to_string(home.autoupdate_state()).unwrap();
    assert!(
        !text.contains(&ahead.to_string()),
        "recorded as now: {text}"
    );
}

/// Every key the reader lists as known has an arm: none is "unknown … did you mean" itself
/// (issue #40: `[hold]`, which `rollback` writes, was listed but had no arm).
#[test]
fn every_known_key_is_read_without_a_warning() {
    for key in policy::TOP_KEYS {
        let text = match key {
            "autoupdate_interval_hours" => format!("{key} = 6\n"),
            "cooldown" => format!("{key} = \"3d\"\n"),
            _ => format!("[{key}.\"dev.a\"]\n"),
        };
        let (shown, _) = warnings(&text);
        assert!(
            shown
                .iter()
                .all(|(code, ..)| *code != Code::ConfigUnknownKey),
            "{key}: {shown:?}"
        );
    }
}
