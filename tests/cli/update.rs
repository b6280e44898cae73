//! `plugins outdated`, `update`, `autoupdate` and `activity` against real repositories.

use std::path::Path;

use serde_json::Value;
use snapbox::{assert_data_eq, str};

use crate::support::git::{Repo, git};
use crate::support::*;

fn outdated(home: &Path) -> (i32, Value) {
    let (code, stdout, stderr) = Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(home)
        .run()
        .parts();
    let doc: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, doc)
}

fn row<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap()
}

#[test]
fn branches_tags_and_pins() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [c1, c2, _]) = history(&tmp.path().join("repo"));
    let (branch, tag, pin) = (
        tmp.path().join("branch"),
        tmp.path().join("tag"),
        tmp.path().join("pin"),
    );
    assert_eq!(install(&branch, &[&repo.url(), "--ref", "main"]).0, 0);
    assert_eq!(install(&tag, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    assert_eq!(install(&pin, &[&repo.url(), "--ref", &c1]).0, 0);
    // Nothing moved yet: the branch is current; the v1.0.0 tag already sees the annotated v2.0.0.
    assert_eq!(
        row(&outdated(&branch).1, "dev.example.pinned")["status"],
        "up_to_date"
    );
    let t = outdated(&tag).1;
    assert_eq!(
        (
            row(&t, "dev.example.pinned")["status"].as_str(),
            row(&t, "dev.example.pinned")["new_ref"].as_str()
        ),
        (Some("behind"), Some("v2.0.0"))
    );
    assert_eq!(
        row(&t, "dev.example.pinned")["commit"],
        c2,
        "the annotated tag is peeled to its commit"
    );

    repo.file("aoe-plugin.toml", &static_aoe("4.0.0"));
    let c4 = repo.commit("v4");
    repo.tag("v2.1.0"); // lightweight
    repo.tag("v3.0.0-rc1");
    let b = outdated(&branch).1;
    assert_eq!(
        (
            row(&b, "dev.example.pinned")["status"].as_str(),
            row(&b, "dev.example.pinned")["commit"].as_str()
        ),
        (Some("behind"), Some(c4.as_str()))
    );
    let t = outdated(&tag).1;
    // --exit-code: 3 when something is behind; 0 without it.
    let (code, _, _) = Plugins::new()
        .args(["outdated", "--exit-code", "--home"])
        .arg(&tag)
        .run()
        .parts();
    assert_eq!((outdated(&tag).0, code), (0, 3));
    let (code, _, _) = Plugins::new()
        .args(["outdated", "--exit-code", "--home"])
        .arg(&pin)
        .run()
        .parts();
    assert_eq!(code, 0, "a commit pin is never behind");
    assert_eq!(
        row(&t, "dev.example.pinned")["new_ref"],
        "v2.1.0",
        "the greatest release; the pre-release is ignored"
    );
    let (_, stdout, _) = Plugins::new()
        .args(["outdated", "--json", "--pre", "--home"])
        .arg(&tag)
        .run()
        .parts();
    let with_pre: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        row(&with_pre, "dev.example.pinned")["new_ref"],
        "v3.0.0-rc1"
    );
    assert_eq!(
        row(&outdated(&pin).1, "dev.example.pinned")["status"],
        "pinned"
    );

    // update applies the tag move and records the new tag.
    let (code, stdout, stderr) = Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&tag)
        .run()
        .parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        locked(&tag, "dev.example.pinned", "requested_ref"),
        "v2.1.0"
    );
    assert_eq!(locked(&tag, "dev.example.pinned", "resolved_commit"), c4);
    assert_eq!(
        row(&outdated(&tag).1, "dev.example.pinned")["status"],
        "up_to_date",
        "never a downgrade"
    );
    // --dry-run changes nothing; a commit pin is never updated.
    let before = std::fs::read(branch.join("plugins.lock")).unwrap();
    let (_, stdout, _) = Plugins::new()
        .args(["update", "--all", "--dry-run", "--home"])
        .arg(&branch)
        .run()
        .parts();
    assert!(
        stdout.starts_with("Would update dev.example.pinned to "),
        "{stdout}"
    );
    assert_eq!(std::fs::read(branch.join("plugins.lock")).unwrap(), before);
    let (_, stdout, _) = Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&pin)
        .run()
        .parts();
    assert_eq!(stdout, "nothing to update\n");
    assert_eq!(locked(&pin, "dev.example.pinned", "resolved_commit"), c1);
}

#[test]
fn a_moved_non_release_tag_is_an_update() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("one");
    repo.tag("stable");
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "stable"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("1.0.1"));
    let moved = repo.commit("two");
    git(&repo.dir, &["tag", "-f", "stable"]);
    let doc = outdated(&home).1;
    assert_eq!(
        (
            row(&doc, "dev.example.pinned")["new_ref"].as_str(),
            row(&doc, "dev.example.pinned")["commit"].as_str()
        ),
        (Some("stable"), Some(moved.as_str()))
    );
}

fn policy(home: &Path, body: &str) {
    std::fs::write(home.join("plugins.toml"), body).unwrap();
}

fn autoupdate(home: &Path, extra: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = Plugins::new()
        .args(["autoupdate", "--json", "--home"])
        .arg(home)
        .args(extra)
        .run()
        .parts();
    let doc: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    (code, doc)
}

#[test]
fn autoupdate_applies_opted_in_updates_and_logs_events() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");

    // No policy: opt-in only, nothing happens.
    let (code, doc) = autoupdate(&home, &[]);
    assert_eq!((code, doc["updated"].as_array().unwrap().len()), (0, 0));

    policy(
        &home,
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    );
    let (code, doc) = autoupdate(&home, &[]);
    assert_eq!(code, 0, "exit 0: updated, and cron sees success: {doc}");
    assert_eq!(doc["updated"][0], "dev.example.pinned");
    assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c5);
    let events = std::fs::read_to_string(home.join("events.jsonl")).unwrap();
    let event: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    assert_eq!(
        (
            event["event"].as_str(),
            event["id"].as_str(),
            event["version"].as_str(),
            event["resolved_sha"].as_str(),
            event["by"].as_str()
        ),
        (
            Some("plugin.updated"),
            Some("dev.example.pinned"),
            Some("5.0.0"),
            Some(c5.as_str()),
            Some("autoupdate")
        )
    );
    assert!(event["at"].as_str().unwrap().ends_with("+00:00"));

    // The interval: a second sweep right away is skipped, unless --force.
    repo.file("aoe-plugin.toml", &static_aoe("6.0.0"));
    repo.commit("v6");
    let (code, doc) = autoupdate(&home, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        (
            doc["skipped_homes"][0]["reason"].as_str(),
            doc["skipped_homes"][0]["interval_hours"].as_u64()
        ),
        (Some("interval"), Some(6)),
        "{doc}"
    );
    assert!(doc["skipped_homes"][0]["last_sweep_secs"].as_u64().unwrap() < 60);
    let (code, stdout, _) = Plugins::new()
        .args(["autoupdate", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0);
    assert!(
        stdout.contains(": skipped (interval): last sweep ") && stdout.ends_with(" interval 6 h\n"),
        "{stdout}"
    );
    // Without a terminal (cron), each line starts with its time.
    assert!(
        untimed(&stdout)
            .lines()
            .all(|l| l.starts_with("[AT] ") && !l.starts_with("[AT]  ")),
        "{stdout}"
    );
    let (code, doc) = autoupdate(&home, &["--force", "--exit-code"]);
    assert_eq!(
        (code, doc["updated"][0].as_str()),
        (3, Some("dev.example.pinned")),
        "--exit-code: 3 when something was updated"
    );
    // Nothing changed: one summary line, and none under -q.
    let (code, stdout, _) = Plugins::new()
        .args(["autoupdate", "--force", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(
        (code, untimed(&stdout).as_str()),
        (
            0,
            "[AT] autoupdate: 0 updated, 1 up to date, 0 deferred (busy), 0 need approval, 0 failed\n"
        )
    );
    let (code, stdout, stderr) = Plugins::new()
        .args(["autoupdate", "-q", "--force", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (0, "", ""));
    // One line per change: from what to what, and why; the summary only without -q.
    let sweep = |quiet: bool, version: &str| {
        let before = locked(&home, "dev.example.pinned", "resolved_commit");
        repo.file("aoe-plugin.toml", &static_aoe(version));
        let after = repo.commit(version);
        let mut cmd = Plugins::new();
        if quiet {
            cmd.arg("-q");
        }
        let ran = cmd
            .args(["autoupdate", "--force"])
            .home(&home)
            .redact("[HOME]", &home)
            .redact("[FROM]", &before[..10])
            .redact("[TO]", &after[..10])
            .run();
        ran.success();
        assert!(!quiet || ran.stderr.is_empty(), "{}", ran.stderr);
        ran
    };
    sweep(false, "7.0.0").stdout_eq(str![[r#"
[AT] Updated dev.example.pinned 6.0.0 (main @ [FROM]) -> 7.0.0 (main @ [TO]) in [HOME]: branch main has new commits
[AT] autoupdate: 1 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed

"#]]
    );
    sweep(true, "8.0.0").stdout_eq(str![[r#"
[AT] Updated dev.example.pinned 7.0.0 (main @ [FROM]) -> 8.0.0 (main @ [TO]) in [HOME]: branch main has new commits

"#]]
    );
}

#[test]
fn idle_policy_defers_while_busy() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    repo.commit("v5");
    policy(
        &home,
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\n",
    );

    // A fresh activity marker: "was just in flight".
    let (code, _, _) = Plugins::new()
        .args(["activity", "touch", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0);
    let (code, doc) = autoupdate(&home, &["--force"]);
    assert_eq!(
        (code, doc["deferred"][0].as_str()),
        (0, Some("dev.example.pinned"))
    );

    // A held lock: "in flight", even with no grace window.
    let mut holder = Plugins::new()
        .args(["activity", "hold", "--home"])
        .arg(&home)
        .args(["--", "sleep", "30"])
        .spawn();
    // Until the holder has taken the lock (a shared try-lock would block), not a time.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::File::open(home.join("activity"))
        .is_ok_and(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)))
    {
        assert!(
            std::time::Instant::now() < deadline,
            "activity hold never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (_, doc) = autoupdate(&home, &["--force", "--grace", "0"]);
    assert_eq!(doc["deferred"][0], "dev.example.pinned", "{doc}");
    holder.kill().unwrap();
    holder.wait().unwrap();
    let (code, doc) = autoupdate(&home, &["--force", "--grace", "0", "--exit-code"]);
    assert_eq!(
        (code, doc["updated"][0].as_str()),
        (3, Some("dev.example.pinned")),
        "idle once released"
    );
    // `hold` passes the command's exit code through.
    let (code, _, _) = Plugins::new()
        .args(["activity", "hold", "--home"])
        .arg(&home)
        .args(["--", "sh", "-c", "exit 7"])
        .run()
        .parts();
    assert_eq!(code, 7);
}

/// `activity touch` and `hold` without `--home` mark the homes `autoupdate` reads (every
/// host's own home with installed plugins), never an aoe home a protoAgent-only user lacks.
#[test]
fn activity_marks_the_homes_with_plugins() {
    let tmp = tempfile::tempdir().unwrap();
    let user = tmp.path().join("user");
    let proto = tmp.path().join("proto");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&proto).unwrap();
    std::fs::write(proto.join("plugins.lock"), "{\"plugins\": []}\n").unwrap();
    let activity = |args: &[&str]| {
        let mut cmd = Plugins::new();
        cmd.without_host_env()
            .env("HOME", &user)
            .env("PROTOAGENT_HOME", &proto)
            .arg("activity")
            .args(args)
            .run()
            .parts()
    };
    assert_eq!(activity(&["touch"]), (0, String::new(), String::new()));
    assert!(proto.join("activity").is_file());
    assert!(
        !user.join(".config/agent-of-empires").exists(),
        "no aoe home is made for a protoAgent-only user"
    );
    std::fs::remove_file(proto.join("activity")).unwrap();
    assert_eq!(activity(&["hold", "--", "true"]).0, 0);
    assert!(proto.join("activity").is_file());
    assert!(!user.join(".config").exists());
    // --home still names one home.
    let other = tmp.path().join("other");
    assert_eq!(activity(&["touch", "--home", other.to_str().unwrap()]).0, 0);
    assert!(other.join("activity").is_file());
}

/// A home without a policy is skipped with how to opt in: the file and the key.
#[test]
fn autoupdate_without_a_policy_says_how_to_opt_in() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let ran = Plugins::new()
        .arg("autoupdate")
        .home(&home)
        .redact("[HOME]", &home)
        .run();
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    ran.stdout_eq(str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] [HOME]: skipped (disabled): no plugin is opted in; to opt one in, add `[update_policy."dev.example.pinned"]` with `track = "main"` to [HOME]/plugins.toml

"#]]
    );
    policy(&home, "autoupdate_interval_hours = 0\n");
    let (_, doc) = autoupdate(&home, &[]);
    assert_eq!(
        doc["skipped_homes"][0]["help"],
        format!(
            "`autoupdate_interval_hours = 0` in {} turns sweeping off",
            home.join("plugins.toml").display()
        )
    );
    // --help names the policy file and shows its keys.
    let (code, stdout, _) = Plugins::new().args(["autoupdate", "--help"]).run().parts();
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with(
            "One auto-update sweep under each home's policy, <home>/plugins.toml (for cron)"
        ) && stdout.contains("\n  [update_policy.\"dev.example.kanban\"]\n  track = \"main\""),
        "{stdout}"
    );
}

#[test]
fn widened_capabilities_wait_for_approval() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let text = std::fs::read_to_string(repo.dir.join("aoe-plugin.toml"))
        .unwrap()
        .replace("version = \"1.0.0\"", "version = \"1.1.0\"")
        .replace("[\"runtime.worker\"]", "[\"runtime.worker\", \"net\"]");
    repo.file("aoe-plugin.toml", &text);
    repo.commit("wants the network");
    policy(
        &home,
        "[update_policy.\"dev.example.built\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    );
    let (code, doc) = autoupdate(&home, &[]);
    // Exit 1: a person has to approve it (cron mails the log's tail).
    assert_eq!(
        (code, doc["needs_approval"][0].as_str()),
        (1, Some("dev.example.built")),
        "{doc}"
    );
    assert_eq!(
        locked(&home, "dev.example.built", "version"),
        "1.0.0",
        "not applied"
    );
    assert!(!home.join("events.jsonl").exists());
    // The cron log says why it waits, as `update` would ask.
    let (code, stdout, _) = Plugins::new()
        .args(["autoupdate", "--force", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("update for dev.example.built needs approval (capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps): run `plugins update dev.example.built`"),
        "{stdout}"
    );
    // A person approves with update --yes.
    let (code, _, stderr) = Plugins::new()
        .args(["update", "dev.example.built", "--yes", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0, "{stderr}");
    // The one consent text: what changed, then everything granted.
    assert!(
        stderr.contains(
            "  asked again:  capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps\n  capabilities: runtime.worker, net\n  build steps:  ./build.sh\n"
        ),
        "{stderr}"
    );
    assert_eq!(locked(&home, "dev.example.built", "version"), "1.1.0");
}

#[test]
fn one_failing_remote_does_not_stop_a_sweep_of_five() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut body = String::new();
    for i in 0..5 {
        let id = format!("dev.example.p{i}");
        let repo = Repo::init(&tmp.path().join(format!("repo{i}")));
        repo.file(
            "aoe-plugin.toml",
            &static_aoe("1.0.0").replace("dev.example.pinned", &id),
        );
        repo.commit("one");
        assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
        repo.file(
            "aoe-plugin.toml",
            &static_aoe("1.1.0").replace("dev.example.pinned", &id),
        );
        repo.commit("two");
        body.push_str(&format!(
            "[update_policy.\"{id}\"]\ntrack = \"main\"\nwhen = \"always\"\n"
        ));
    }
    policy(&home, &body);
    std::fs::remove_dir_all(tmp.path().join("repo2")).unwrap();
    let (code, doc) = autoupdate(&home, &[]);
    assert_eq!(code, 1, "some failed: {doc}");
    assert_eq!(doc["updated"].as_array().unwrap().len(), 4);
    assert_eq!(doc["failed"][0]["id"], "dev.example.p2");
    assert!(!doc["failed"][0]["message"].as_str().unwrap().is_empty());
    let (code, doc) = outdated(&home);
    assert_eq!(code, 1);
    assert_eq!(
        row(&doc, "dev.example.p2")["status"],
        "error",
        "reported in its row"
    );
    assert_eq!(row(&doc, "dev.example.p0")["status"], "up_to_date");
}

#[test]
fn a_failing_build_mid_update_keeps_the_old_version() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let lock_before = std::fs::read(home.join("plugins.lock")).unwrap();
    built_aoe(&repo, "2.0.0", "#!/bin/sh\nexit 9\n");
    let (code, _, stderr) = Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("plugins::install::build"), "{stderr}");
    assert_eq!(
        std::fs::read(home.join("plugins.lock")).unwrap(),
        lock_before
    );
    assert!(
        home.join("plugins/dev.example.built/.aoe-build/bin/worker")
            .exists(),
        "the old build still runs"
    );
}

#[test]
fn a_misspelt_policy_warns_and_falls_back_to_the_default() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    repo.commit("v5");
    policy(
        &home,
        "autoupdate_interval = 1\n\n[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"alwys\"\n",
    );
    // Busy: "alwys" must act as the default, idle, and wait.
    let (code, _, _) = Plugins::new()
        .args(["activity", "touch", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0);
    let ran = Plugins::new()
        .arg("autoupdate")
        .home(&home)
        .redact("[HOME]", &home)
        .run();
    ran.success().stdout_eq(str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 1 deferred (busy), 0 need approval, 0 failed

"#]]);
    // A log: one line per finding, not a drawing of the file.
    ran.stderr_eq(str![[r#"
[AT] warning[plugins::config::unknown_key]: [HOME]/plugins.toml:1:1: unknown key `autoupdate_interval` in plugins.toml; it is ignored (help: did you mean `autoupdate_interval_hours`?)
[AT] warning[plugins::config::invalid_value]: [HOME]/plugins.toml:5:8: `when = "alwys"` is not "idle" or "always"; using the default, "idle" (help: did you mean `always`?)

"#]]
    );
}

#[test]
fn update_names_a_version_tag_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let (tag, branch) = (tmp.path().join("tag"), tmp.path().join("branch"));
    assert_eq!(install(&tag, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    assert_eq!(install(&branch, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("4.0.0"));
    repo.commit("v4");
    let update = |home: &Path| {
        let (code, stdout, stderr) = Plugins::new()
            .args(["update", "--all", "--yes", "--home"])
            .arg(home)
            .run()
            .parts();
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    assert_data_eq!(
        update(&tag),
        str![[r#"
     Updated dev.example.pinned to v2.0.0 @ c7849e65b9

"#]]
    );
    assert_data_eq!(
        update(&branch),
        str![[r#"
     Updated dev.example.pinned to 4.0.0 (main @ 1f61bc6e38)

"#]]
    );
}

/// The crontab line in docs/cli.md, run as written (binary and home paths swapped for the
/// test's) under `env -i`: no PATH, no HOME, no PLUGINS_HOME.
#[test]
fn the_documented_cron_line_works_under_env_i() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    let line = docs
        .split("```crontab\n")
        .nth(1)
        .and_then(|b| b.lines().next())
        .expect("docs/cli.md has a crontab block");
    let command = line.splitn(6, ' ').nth(5).unwrap();
    assert!(command.starts_with(
        "mkdir -p /home/me/.local/state && /usr/local/bin/plugins autoupdate -q --home /home/me/"
    ));

    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, _, c3]) = history(&tmp.path().join("repo"));
    let me = tmp.path().join("me");
    let home = me.join(".config/agent-of-empires");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");
    policy(
        &home,
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    );
    let command = command
        .replace("/usr/local/bin/plugins", BIN)
        .replace("/home/me", me.to_str().unwrap());
    let status = std::process::Command::new("/usr/bin/env")
        .args(["-i", "/bin/sh", "-c", &command])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c5);
    let log = std::fs::read_to_string(me.join(".local/state/plugins-autoupdate.log")).unwrap();
    assert_eq!(
        untimed(&log),
        format!(
            "[AT] Updated dev.example.pinned 3.0.0 (main @ {}) -> 5.0.0 (main @ {}) in {}: branch main has new commits\n",
            &c3[..10],
            &c5[..10],
            home.display()
        ),
        "-q: the one line per change, timestamped"
    );

    // A failing remote is a problem: it reaches the log, and the exit code says so.
    std::fs::rename(&repo.dir, tmp.path().join("gone")).unwrap();
    let forced = command.replace(" -q ", " -q --force ");
    let out = std::process::Command::new("/usr/bin/env")
        .args(["-i", "/bin/sh", "-c", &forced])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log = std::fs::read_to_string(me.join(".local/state/plugins-autoupdate.log")).unwrap();
    // What cron mails: the log's tail, printed by the line when the sweep fails.
    assert_eq!(String::from_utf8_lossy(&out.stdout), log);
    let last = untimed(&log).lines().skip(1).collect::<Vec<_>>().join("\n");
    assert!(
        last.starts_with("[AT] failed dev.example.pinned: ") && last.lines().count() == 1,
        "{log}"
    );
}

/// `-q` prints only problems on every command that changes or checks a home.
#[test]
fn quiet_prints_only_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, _, c3]) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    let quiet = |args: &[&str]| {
        Plugins::new()
            .arg("-q")
            .args(args)
            .arg("--home")
            .arg(&home)
            .run()
            .parts()
    };
    let src = repo.url();
    for args in [
        &["install", &src, "--ref", "main", "--yes"][..],
        &["verify"],
        &["outdated"],
        &["outdated", "--exit-code"],
        &["update", "--all", "--yes"],
        &["sync", "--force", "--yes"],
        &["autoupdate"],
    ] {
        assert_eq!(quiet(args), (0, String::new(), String::new()), "{args:?}");
    }
    // Something behind: outdated -q shows that row only; autoupdate -q stays silent.
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");
    let (code, stdout, stderr) = quiet(&["outdated", "--exit-code"]);
    assert_eq!((code, stderr.as_str()), (3, ""));
    assert_redacted(
        &stdout,
        &[
            ("[NEW]", c5[..10].to_owned()),
            ("[OLD]", c3[..10].to_owned()),
        ],
        str![[r#"
dev.example.pinned               main @ [OLD]            newer: [NEW]

"#]],
    );
    // A tampered file: verify -q shows the problem and no summary.
    std::fs::write(home.join("plugins/dev.example.pinned/extra"), "x").unwrap();
    let (code, stdout, _) = quiet(&["verify"]);
    assert_eq!(code, 1);
    assert!(
        stdout.starts_with("    tampered dev.example.pinned: the files changed since install"),
        "{stdout}"
    );
    // The problem and the path that changed; no summary line.
    assert_eq!(
        stdout.lines().skip(1).collect::<Vec<_>>(),
        ["       added extra"],
        "{stdout}"
    );
    let (code, stdout, stderr) = quiet(&["remove", "dev.example.pinned"]);
    assert_eq!((code, stdout, stderr), (0, String::new(), String::new()));
}

/// `--log-format json`: each status line and error is one JSON object with a timestamp.
#[test]
fn log_format_json_writes_timestamped_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = Plugins::new()
        .args([
            "--log-format",
            "json",
            "install",
            &repo.url(),
            "--yes",
            "--home",
        ])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("   Installed dev.example.pinned 3.0.0"),
        "{stdout}"
    );
    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert!(lines.len() >= 2, "{stderr}");
    for l in &lines {
        assert_eq!(l["level"], "status");
        let at = l["at"].as_str().unwrap();
        assert!(
            at.len() == 25 && at.ends_with("+00:00") && at.as_bytes()[10] == b'T',
            "{at}"
        );
    }
    assert!(
        lines[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Fetching ")
    );
    let (code, _, stderr) = Plugins::new()
        .args([
            "--log-format",
            "json",
            "remove",
            "dev.example.nope",
            "--home",
        ])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 2);
    let err: Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(
        (err["level"].as_str(), err["code"].as_str()),
        (Some("error"), Some("plugins::install::not_installed"))
    );
    // A warning is a warning object with its code, not a status line holding `warning[…]`.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/o/r.git");
    let (code, _, stderr) = Plugins::new()
        .args(["--log-format", "json", "install", &url, "--yes", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 2, "{stderr}");
    let lines: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let warnings: Vec<_> = lines.iter().filter(|l| l["level"] == "warning").collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert_eq!(warnings[0]["code"], "plugins::git::cleartext", "{stderr}");
    assert!(
        warnings[0]["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{url} is fetched unencrypted: ")),
        "{stderr}"
    );
    assert!(
        lines
            .iter()
            .all(|l| !l["message"].as_str().unwrap().contains("warning[")),
        "{stderr}"
    );

    // --timestamps: text lines, each after its time; an error on one line.
    let ran = Plugins::new()
        .args(["--timestamps", "install", &url, "--yes", "--home"])
        .arg(&home)
        .redact("[URL]", &url)
        .run();
    ran.code(2);
    let stderr = ran.redacted(&ran.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "[AT] Fetching [URL]", "{stderr}");
    assert_eq!(
        lines[1],
        "[AT] warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL",
        "{stderr}"
    );
    assert!(
        lines[2].starts_with("[AT] error[plugins::git::fetch]: ") && lines.len() == 3,
        "{stderr}"
    );
}

/// Every command's `--json` document opens with `format_version` (`info` and `new` did not)
/// and matches its schema in docs/schema/output/ (`<command>.json`; `validate`'s is
/// `--format json`). The home-changing commands and autoupdate are checked against theirs
/// in `json_outputs_match_their_schemas`.
#[test]
fn every_json_document_has_a_format_version_and_a_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let h = home.to_str().unwrap();
    let fresh = tmp.path().join("new-plugin");
    let f = fresh.to_str().unwrap();
    for args in [
        &["info", "dev.example.pinned", "--json", "--home", h][..],
        &[
            "new",
            "kit",
            "--dialect",
            "aoe",
            "--dir",
            f,
            "--no-git",
            "--json",
        ],
        &["list", "--json", "--home", h],
        &["homes", "--json"],
        &["search", "--json", "--home", h],
        &["verify", "--json", "--home", h],
        &["outdated", "--json", "--home", h],
        &["doctor", "--offline", "--json", "--home", h],
        &["resolve", "--path", f, "--json"],
        &["validate", "--path", f, "--format", "json"],
    ] {
        let (_, stdout, stderr) = Plugins::new().args(args).run().parts();
        let doc: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}{stderr}"));
        assert_eq!(doc["format_version"], 1, "{args:?}: {doc}");
        let first = stdout.lines().nth(1).unwrap_or_default();
        assert!(
            first.contains("\"format_version\""),
            "{args:?}: first key: {stdout}"
        );
        let file = format!("{}.json", args[0]);
        let errors: Vec<String> = output_schema(&file)
            .iter_errors(&doc)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{args:?} against {file}: {errors:#?}\n{doc:#}"
        );
    }
}

/// Every command whose `--help` offers `--json` (or `--format json`) has its schema file
/// and is run by one of the two tests above: a new `--json` fails here until it has both.
#[test]
fn every_json_command_has_a_schema_that_a_test_checks() {
    // The commands `every_json_document_has_a_format_version_and_a_schema` runs (each
    // against `<command>.json`) and those `json_outputs_match_their_schemas` runs.
    let own = [
        "info", "new", "list", "homes", "search", "verify", "outdated", "doctor", "resolve",
        "validate", "bundle",
    ];
    let change = [
        "install", "update", "remove", "sync", "rollback", "hold", "unhold",
    ];
    let (_, help, _) = Plugins::new().arg("--help").run().parts();
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(commands.contains(&"list"), "{help}");
    for c in commands {
        let (_, text, _) = Plugins::new().args([c, "--help"]).run().parts();
        if !(text.contains("--json") || text.contains("--format <")) {
            continue;
        }
        let file = if change.contains(&c) {
            "change.json".to_owned()
        } else if c == "autoupdate" {
            "autoupdate.json".to_owned()
        } else {
            assert!(
                own.contains(&c),
                "`{c} --json` is checked against no schema"
            );
            format!("{c}.json")
        };
        output_schema(&file);
    }
}

/// Every `--json` document of the home-changing and checking commands shares the
/// `{format_version, ...}` envelope and matches its schema in docs/schema/output/.
#[test]
fn json_outputs_match_their_schemas() {
    let schema = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("docs/schema/output")
            .join(name);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::validator_for(&doc).unwrap()
    };
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    let mut seen = std::collections::BTreeSet::new();
    let mut check = |file: &str, args: &[&str], code: i32| {
        let (got, stdout, stderr) = Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .run()
            .parts();
        assert_eq!(got, code, "{args:?}: {stdout}{stderr}");
        let doc: Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
        assert_eq!(doc["format_version"], 1, "{args:?}");
        let errors: Vec<String> = schema(file)
            .iter_errors(&doc)
            .map(|e| e.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "{args:?} against {file}: {errors:#?}\n{doc:#}"
        );
        for row in doc["plugins"].as_array().into_iter().flatten() {
            if let Some(status) = row["status"].as_str() {
                seen.insert(status.to_owned());
            }
        }
        doc
    };
    let src = repo.url();
    check(
        "change.json",
        &["install", &src, "--ref", "main", "--yes", "--json"],
        0,
    );
    check(
        "change.json",
        &["install", &src, "--ref", "main", "--yes", "--json"],
        0,
    );
    check("verify.json", &["verify", "--json"], 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    repo.commit("v5");
    check("outdated.json", &["outdated", "--json"], 0);
    check(
        "change.json",
        &["update", "--all", "--dry-run", "--json"],
        0,
    );
    let doc = check("change.json", &["update", "--all", "--yes", "--json"], 0);
    assert_eq!(doc["plugins"][0]["version"], "5.0.0");
    check("change.json", &["sync", "--force", "--yes", "--json"], 0);
    check(
        "change.json",
        &["rollback", "dev.example.pinned", "--json"],
        0,
    );
    check(
        "change.json",
        &["unhold", "dev.example.pinned", "--json"],
        0,
    );
    check("change.json", &["hold", "dev.example.pinned", "--json"], 0);
    check(
        "change.json",
        &["unhold", "dev.example.pinned", "--json"],
        0,
    );
    policy(
        &home,
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\n",
    );
    repo.file("aoe-plugin.toml", &static_aoe("6.0.0"));
    repo.commit("v6");
    let doc = check("autoupdate.json", &["autoupdate", "--json"], 0);
    assert_eq!(doc["updated"][0], "dev.example.pinned");
    assert_eq!(
        (
            doc["changes"][0]["from"]["version"].as_str(),
            doc["changes"][0]["to"]["version"].as_str(),
            doc["changes"][0]["to"]["ref"].as_str(),
            doc["changes"][0]["why"].as_str()
        ),
        (
            Some("5.0.0"),
            Some("6.0.0"),
            Some("main"),
            Some("branch main has new commits")
        ),
        "{doc}"
    );
    check("autoupdate.json", &["autoupdate", "--json"], 0);
    // A cooldown longer than the test commits' age (2026-01-01) holds the next one back.
    repo.file("aoe-plugin.toml", &static_aoe("7.0.0"));
    repo.commit("v7");
    let doc = check(
        "outdated.json",
        &["outdated", "--json", "--cooldown", "9999d"],
        0,
    );
    assert_eq!(doc["plugins"][0]["status"], "held_back");
    check(
        "change.json",
        &["update", "--all", "--json", "--cooldown", "9999d"],
        0,
    );
    let doc = check(
        "autoupdate.json",
        &["autoupdate", "--json", "--force", "--cooldown", "9999d"],
        0,
    );
    assert_eq!(doc["held_back"][0]["id"], "dev.example.pinned");
    // A remote that is gone: failures are objects, in every document.
    std::fs::rename(&repo.dir, tmp.path().join("gone")).unwrap();
    let doc = check("autoupdate.json", &["autoupdate", "--json", "--force"], 1);
    assert_eq!(doc["failed"][0]["id"], "dev.example.pinned");
    check("outdated.json", &["outdated", "--json"], 1);
    check("change.json", &["update", "--all", "--json"], 1);
    std::fs::write(home.join("plugins/dev.example.pinned/extra"), "x").unwrap();
    check("verify.json", &["verify", "--json"], 1);
    check(
        "change.json",
        &["remove", "dev.example.pinned", "--json"],
        0,
    );
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        [
            "behind",
            "error",
            "failed",
            "held",
            "held_back",
            "installed",
            "ok",
            "removed",
            "rolled_back",
            "synced",
            "tampered",
            "unheld",
            "up_to_date",
            "updated",
            "would_update"
        ]
    );
}

#[test]
fn validate_json_is_format_json() {
    let root = clean_aoe_root();
    let (code, alias) = validate_screen(root.path(), &["--json"]);
    let (_, format) = validate_screen(root.path(), &["--format", "json"]);
    assert_eq!((code, alias), (0, format));
    let (code, _, _) = Plugins::new()
        .args(["validate", "--json", "--format", "human"])
        .run()
        .parts();
    assert_eq!(code, 2, "the alias conflicts with another --format");
}

#[test]
fn an_aoe_gh_plugin_without_a_release_is_not_updated_as_aoe_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let repo = Repo::init(&t.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("one");
    let mirror = t.join("mirror");
    let bare = mirror.join("acme/tool.git");
    repo.clone_bare(&bare);
    let home = t.join("home");
    let plugins_with = |api: &str, args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("PLUGINS_GH_BASE", format!("file://{}", mirror.display()))
            .env("PLUGINS_GITHUB_API", api)
            .env("COLUMNS", "200")
            .run()
            .parts()
    };
    let none = release_api(None);
    // No release: aoe installs the default branch (unverified code, so --yes).
    let (code, o, e) = plugins_with(&none, &["install", "gh:acme/tool", "--yes"]);
    assert_eq!(code, 0, "{o}{e}");
    let lock_before = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(
        lock_before.contains("ref_kind = \"default\""),
        "{lock_before}"
    );

    // The branch moves; aoe's update still only takes a release, so nothing changes.
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("two");
    git(&repo.dir, &["tag", "v2.0.0"]);
    std::fs::remove_dir_all(&bare).unwrap();
    repo.clone_bare(&bare);
    let (code, stdout, stderr) = plugins_with(&none, &["update", "dev.example.pinned", "--yes"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_data_eq!(
        stderr,
        str![[r#"
plugins::update::no_release

  × acme/tool has no published release to update to; the prior version is kept
  help: aoe updates `gh:acme/tool` only to its latest release; to follow a branch, reinstall it as `gh:acme/tool@<branch>`

"#]]
    );
    assert_eq!(stdout, "");
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        lock_before
    );
    assert!(
        std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
            .unwrap()
            .contains("version = \"1.0.0\"")
    );
    let (_, stdout, _) = plugins_with(&none, &["outdated", "--json"]);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "error", "{doc}");
    let (code, stdout, _) =
        plugins_with(&none, &["update", "dev.example.pinned", "--yes", "--json"]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "failed");
    assert_eq!(doc["plugins"][0]["code"], "plugins::update::no_release");

    // Once a release is published, the update goes to it (not to the branch head).
    let released = release_api(Some(r#"{"tag_name": "v2.0.0"}"#));
    repo.file("aoe-plugin.toml", &static_aoe("3.0.0"));
    repo.commit("three, unreleased");
    std::fs::remove_dir_all(&bare).unwrap();
    repo.clone_bare(&bare);
    let (code, stdout, stderr) =
        plugins_with(&released, &["update", "dev.example.pinned", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("Updated dev.example.pinned to v2.0.0 @ "),
        "{stdout}"
    );
    assert_eq!(
        locked(&home, "dev.example.pinned", "requested_ref"),
        "v2.0.0"
    );
    assert_eq!(locked(&home, "dev.example.pinned", "version"), "2.0.0");
}

/// An update re-pins aoe's grant where `config.toml` has it: a `[plugins."<id>".grant]`
/// sub-table with comments stays one, byte for byte but the value that changes (it was
/// rewritten as an inline `grant = { … }`).
#[test]
fn an_update_keeps_the_layout_of_aoes_config() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let config = home.join("config.toml");
    let written: toml::Table = std::fs::read_to_string(&config).unwrap().parse().unwrap();
    let rec = &written["plugins"]["dev.example.pinned"];
    let (source, hash, at) = (
        rec["source"].as_str().unwrap(),
        rec["grant"]["manifest_hash"].as_str().unwrap(),
        rec["grant"]["granted_at"].as_str().unwrap(),
    );
    let mine = format!(
        "# my aoe settings\ntheme = \"dark\"\n\n[plugins.\"dev.example.pinned\"]  # the one I use\nsource = \"{source}\"\nenabled = true   # on\n\n# approved by me\n[plugins.\"dev.example.pinned\".grant]\nmanifest_hash = \"{hash}\"  # pinned\ncapabilities = []\ngranted_at = \"{at}\"\n"
    );
    std::fs::write(&config, &mine).unwrap();
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    let (code, o, e) = Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 0, "{o}{e}");
    let new_hash = locked(&home, "dev.example.pinned", "manifest_hash");
    assert_ne!(new_hash, hash);
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        mine.replace(hash, &new_hash)
    );
}

/// An update whose plugin has build steps builds the new tree where it will live — its
/// steps see it at the plugin's directory and what they write names that directory — while
/// the host, looking at that directory during the build, still sees the installed version
/// with its lock row (Linux, where user and mount namespaces are allowed: a private bind
/// mount of the staged tree over the plugin directory). The new version goes in whole once
/// it is built.
#[test]
fn the_host_sees_the_installed_version_while_an_update_builds() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    repo.tag("v1");
    let home = t.join("home");
    let (code, stdout, stderr) = install(&home, &[&repo.url(), "--ref", "v1"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (ready, go) = (t.join("ready"), t.join("go"));
    // The new build records where it ran and what it saw there, then waits for the test.
    let waiting_build = format!(
        "{}pwd > built-in\ngrep '^version' aoe-plugin.toml > saw\n: > '{}'\nwhile [ ! -e '{}' ]; do sleep 0.05; done\n",
        GOOD_BUILD,
        ready.display(),
        go.display()
    );
    built_aoe(&repo, "2.0.0", &waiting_build);
    repo.tag("v2");
    let mut update = Plugins::new()
        .args(["install", "--yes", &repo.url(), "--ref", "v2"])
        .home(&home)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !ready.exists() {
        assert!(
            std::time::Instant::now() < deadline && update.try_wait().unwrap().is_none(),
            "the build step never ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let dir = home.join("plugins/dev.example.built");
    let host_sees = std::fs::read_to_string(dir.join("aoe-plugin.toml")).unwrap();
    let locked_then = locked(&home, "dev.example.built", "version");
    std::fs::write(&go, "").unwrap();
    let out = update.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(host_sees.contains("version = \"1.0.0\""), "{host_sees}");
    assert_eq!(locked_then, "1.0.0");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(read("built-in").trim(), dir.display().to_string());
    assert_eq!(read("saw").trim(), "version = \"2.0.0\"");
    assert!(read("aoe-plugin.toml").contains("version = \"2.0.0\""));
    assert!(dir.join(".aoe-build/bin/worker").is_file());
    assert_eq!(locked(&home, "dev.example.built", "version"), "2.0.0");
    assert_eq!(crate::support::home::verify_ok(&home), Ok(()));
}
