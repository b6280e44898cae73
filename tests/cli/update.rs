//! `plugins outdated`, `update`, `autoupdate` and `activity` against real repositories.

use std::path::Path;

use serde_json::Value;
use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::*;

/// `plugins <args> --home <home>`, the temp dir `tmp` redacted.
fn at(home: &Path, tmp: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
        .env("COLUMNS", "400")
        .tmp(tmp)
        .run()
}

/// `plugins outdated --json` in `home`.
fn outdated(home: &Path, tmp: &Path) -> Ran {
    at(home, tmp, &["outdated", "--json"])
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
    let t = tmp.path();
    // Nothing moved yet: the branch is current; the v1.0.0 tag already sees the annotated
    // v2.0.0, peeled to its commit.
    outdated(&branch, t).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "5761a5fef946fe40ce19de2275f882b3b7c1403c",
      "status": "up_to_date"
    }
  ]
}

"#]],
        str![],
    );
    outdated(&tag, t).redact("[SECOND]", &c2).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "behind",
      "new_ref": "v2.0.0",
      "commit": "[SECOND]"
    }
  ]
}

"#]],
        str![],
    );

    repo.file("aoe-plugin.toml", &static_aoe("4.0.0"));
    let c4 = repo.commit("v4");
    repo.tag("v2.1.0"); // lightweight
    repo.tag("v3.0.0-rc1");
    outdated(&branch, t).redact("[FOURTH]", &c4).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "5761a5fef946fe40ce19de2275f882b3b7c1403c",
      "status": "behind",
      "new_ref": "main",
      "commit": "[FOURTH]"
    }
  ]
}

"#]],
        str![],
    );
    // The greatest release; the pre-release is ignored.
    outdated(&tag, t).redact("[FOURTH]", &c4).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "behind",
      "new_ref": "v2.1.0",
      "commit": "[FOURTH]"
    }
  ]
}

"#]],
        str![],
    );
    // --exit-code: 3 when something is behind (0 without it, above).
    at(&tag, t, &["outdated", "--exit-code"]).expect(
        3,
        str![[r#"
dev.example.pinned               v1.0.0 @ 98dbc36b17          newer: v2.1.0 @ 1f61bc6e38

"#]],
        str![],
    );
    // A commit pin is never behind.
    at(&pin, t, &["outdated", "--exit-code"]).expect(0, str![[r#"
dev.example.pinned               98dbc36b17da9b3db35834c2a7d382bb249e05d4 @ 98dbc36b17 pinned to a commit

"#]], str![]);
    at(&tag, t, &["outdated", "--json", "--pre"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "behind",
      "new_ref": "v3.0.0-rc1",
      "commit": "1f61bc6e384230236837dfe84a72ee588469ccd9"
    }
  ]
}

"#]],
        str![],
    );
    outdated(&pin, t).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "ref_kind": "commit",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "pinned"
    }
  ]
}

"#]],
        str![],
    );

    // update applies the tag move and records the new tag.
    at(&tag, t, &["update", "--all", "--yes"]).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to 4.0.0 (v2.1.0 @ 1f61bc6e38)

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 1f61bc6e3842

"#]],
    );
    assert_eq!(
        locked(&tag, "dev.example.pinned", "requested_ref"),
        "v2.1.0"
    );
    assert_eq!(locked(&tag, "dev.example.pinned", "resolved_commit"), c4);
    // Never a downgrade.
    outdated(&tag, t).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "v2.1.0",
      "ref_kind": "tag",
      "current": "1f61bc6e384230236837dfe84a72ee588469ccd9",
      "status": "up_to_date"
    }
  ]
}

"#]],
        str![],
    );
    // --dry-run changes nothing; a commit pin is never updated.
    let before = std::fs::read(branch.join("plugins.lock")).unwrap();
    at(&branch, t, &["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.pinned to main @ 1f61bc6e38
  1 commit since 5761a5fef9:
    1f61bc6 v4
  permissions: unchanged
  consent: not needed

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 1f61bc6e3842

"#]],
    );
    assert_eq!(std::fs::read(branch.join("plugins.lock")).unwrap(), before);
    at(&pin, t, &["update", "--all", "--yes"]).expect(
        0,
        str![[r#"
nothing to update

"#]],
        str![],
    );
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
    // A moved tag is a problem (exit 1) that `update` takes after asking.
    outdated(&home, tmp.path())
        .redact("[MOVED]", &moved)
        .redact("[MOVED]", &moved[..12])
        .expect(1, str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "stable",
      "ref_kind": "tag",
      "current": "1e89944df1ab7d121843ed9a06346298345ee601",
      "status": "repointed",
      "new_ref": "stable",
      "commit": "[MOVED]",
      "problems": [
        {
          "code": "plugins::update::tag_moved",
          "message": "dev.example.pinned: the tag stable was moved: it named 1e89944df1ab when installed and names [MOVED] now",
          "help": "a release tag should never move: find out why before taking it; `plugins update dev.example.pinned --dry-run` reviews the new commit, `plugins update dev.example.pinned` asks before installing it"
        }
      ]
    }
  ]
}

"#]], str![]);
}

fn policy(home: &Path, body: &str) {
    std::fs::write(home.join("plugins.toml"), body).unwrap();
}

/// `plugins autoupdate --json <extra>` in `home`.
fn autoupdate(home: &Path, tmp: &Path, extra: &[&str]) -> Ran {
    let mut args = vec!["autoupdate", "--json"];
    args.extend(extra);
    at(home, tmp, &args)
}

#[test]
fn autoupdate_applies_opted_in_updates_and_logs_events() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");

    let t = tmp.path();
    // No policy: opt-in only, nothing happens.
    autoupdate(&home, t, &[]).expect(0, str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": [
    {
      "home": "[TMP]/home",
      "reason": "disabled",
      "help": "no plugin is opted in; to opt one in, add `[update_policy.\"dev.example.pinned\"]` with `track = \"main\"` to [TMP]/home/plugins.toml"
    }
  ]
}

"#]], str![]);

    policy(
        &home,
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    );
    // Exit 0: updated, and cron sees success.
    autoupdate(&home, t, &[]).redact("[FIFTH]", &c5).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [
    "dev.example.pinned"
  ],
  "changes": [
    {
      "id": "dev.example.pinned",
      "home": "[TMP]/home",
      "from": {
        "version": "3.0.0",
        "ref": "main",
        "commit": "5761a5fef946fe40ce19de2275f882b3b7c1403c"
      },
      "to": {
        "version": "5.0.0",
        "ref": "main",
        "commit": "[FIFTH]"
      },
      "why": "branch main has new commits"
    }
  ],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched 50360080b443

"#]],
    );
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
    let ran = autoupdate(&home, t, &[]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": [
    {
      "home": "[TMP]/home",
      "reason": "interval",
      "last_sweep_secs": [..],
      "interval_hours": 6
    }
  ]
}

"#]],
        str![],
    );
    // The last sweep was moments ago (the snapshot leaves its seconds out).
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(doc["skipped_homes"][0]["last_sweep_secs"].as_u64().unwrap() < 60);
    // Without a terminal (cron), each line starts with its time.
    at(&home, t, &["autoupdate"]).expect(
        0,
        str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] [TMP]/home: skipped (interval): last sweep [..] s ago, interval 6 h

"#]],
        str![],
    );
    // --exit-code: 3 when something was updated.
    autoupdate(&home, t, &["--force", "--exit-code"]).expect(
        3,
        str![[r#"
{
  "format_version": 1,
  "updated": [
    "dev.example.pinned"
  ],
  "changes": [
    {
      "id": "dev.example.pinned",
      "home": "[TMP]/home",
      "from": {
        "version": "5.0.0",
        "ref": "main",
        "commit": "50360080b443d30d1a1f1581d7b7551f77fbf56c"
      },
      "to": {
        "version": "6.0.0",
        "ref": "main",
        "commit": "74b5840b422c4e8a2e06a71f72f154742138e9bc"
      },
      "why": "branch main has new commits"
    }
  ],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched 74b5840b422c

"#]],
    );
    // Nothing changed: one summary line, and none under -q.
    at(&home, t, &["autoupdate", "--force"]).expect(
        0,
        str![[r#"
[AT] autoupdate: 0 updated, 1 up to date, 0 deferred (busy), 0 need approval, 0 failed

"#]],
        str![],
    );
    at(&home, t, &["autoupdate", "-q", "--force"]).expect(0, str![""], str![""]);
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

    let t = tmp.path();
    // A fresh activity marker: "was just in flight".
    at(&home, t, &["activity", "touch"]).expect(0, str![""], str![""]);
    autoupdate(&home, t, &["--force"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [
    "dev.example.pinned"
  ],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![],
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
    autoupdate(&home, t, &["--force", "--grace", "0"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [
    "dev.example.pinned"
  ],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![],
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    // Idle once released.
    autoupdate(&home, t, &["--force", "--grace", "0", "--exit-code"]).expect(
        3,
        str![[r#"
{
  "format_version": 1,
  "updated": [
    "dev.example.pinned"
  ],
  "changes": [
    {
      "id": "dev.example.pinned",
      "home": "[TMP]/home",
      "from": {
        "version": "3.0.0",
        "ref": "main",
        "commit": "5761a5fef946fe40ce19de2275f882b3b7c1403c"
      },
      "to": {
        "version": "5.0.0",
        "ref": "main",
        "commit": "50360080b443d30d1a1f1581d7b7551f77fbf56c"
      },
      "why": "branch main has new commits"
    }
  ],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched 50360080b443

"#]],
    );
    // `hold` passes the command's exit code through.
    at(&home, t, &["activity", "hold", "--", "sh", "-c", "exit 7"]).expect(7, str![""], str![""]);
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
    };
    activity(&["touch"]).expect(0, str![""], str![""]);
    assert!(proto.join("activity").is_file());
    assert!(
        !user.join(".config/agent-of-empires").exists(),
        "no aoe home is made for a protoAgent-only user"
    );
    std::fs::remove_file(proto.join("activity")).unwrap();
    activity(&["hold", "--", "true"]).expect(0, str![""], str![""]);
    assert!(proto.join("activity").is_file());
    assert!(!user.join(".config").exists());
    // --home still names one home.
    let other = tmp.path().join("other");
    activity(&["touch", "--home", other.to_str().unwrap()]).expect(0, str![""], str![""]);
    assert!(other.join("activity").is_file());
}

/// A home without a policy is skipped with how to opt in: the file and the key.
#[test]
fn autoupdate_without_a_policy_says_how_to_opt_in() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    Plugins::new()
        .arg("autoupdate")
        .home(&home)
        .redact("[HOME]", &home)
        .run()
        .expect(
            0,
            str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] [HOME]: skipped (disabled): no plugin is opted in; to opt one in, add `[update_policy."dev.example.pinned"]` with `track = "main"` to [HOME]/plugins.toml

"#]],
            str![""],
        );
    policy(&home, "autoupdate_interval_hours = 0\n");
    autoupdate(&home, tmp.path(), &[]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": [
    {
      "home": "[TMP]/home",
      "reason": "disabled",
      "help": "`autoupdate_interval_hours = 0` in [TMP]/home/plugins.toml turns sweeping off"
    }
  ]
}

"#]],
        str![],
    );
    // --help names the policy file and shows its keys.
    Plugins::new().args(["autoupdate", "--help"]).run().expect(
        0,
        str![[r#"
One auto-update sweep under each home's policy, <home>/plugins.toml (for cron)
...
  [update_policy."dev.example.kanban"]
  track = "main"      # opts the plugin in
...
"#]],
        str![""],
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
    let t = tmp.path();
    // Exit 1: a person has to approve it (cron mails the log's tail).
    autoupdate(&home, t, &[]).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [
    "dev.example.built"
  ],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]],
        str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched e0806bf7f826

"#]],
    );
    assert_eq!(
        locked(&home, "dev.example.built", "version"),
        "1.0.0",
        "not applied"
    );
    assert!(!home.join("events.jsonl").exists());
    // The cron log says why it waits, as `update` would ask.
    at(&home, t, &["autoupdate", "--force"]).expect(1, str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 1 need approval, 0 failed
[AT] update for dev.example.built needs approval (capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps): run `plugins update dev.example.built`

"#]], str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched e0806bf7f826

"#]]);
    // A person approves with update --yes; the one consent text: what changed, then
    // everything granted.
    at(&home, t, &["update", "dev.example.built", "--yes"]).expect(0, str![[r#"
     Updated dev.example.built to 1.1.0 (main @ e0806bf7f8)

"#]], str![[r#"
    Fetching file://[TMP]/repo
     Fetched e0806bf7f826
aoe plugin `dev.example.built` 1.1.0 from file://[TMP]/repo @ e0806bf7f826
  asked again:  capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps
  capabilities: runtime.worker, net
  build steps:  ./build.sh
    Building step 1/1: ./build.sh

"#]]);
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
    // Some failed: exit 1.
    autoupdate(&home, tmp.path(), &[]).expect(1, str![[r#"
{
  "format_version": 1,
  "updated": [
    "dev.example.p0",
    "dev.example.p1",
    "dev.example.p3",
    "dev.example.p4"
  ],
  "changes": [
    {
      "id": "dev.example.p0",
      "home": "[TMP]/home",
      "from": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "4f703c8810bb74d855cfd34de1644ec9a0a9e274"
      },
      "to": {
        "version": "1.1.0",
        "ref": "main",
        "commit": "22ce1ef7b68c96314e5f5fe41d30a42ba105239e"
      },
      "why": "branch main has new commits"
    },
    {
      "id": "dev.example.p1",
      "home": "[TMP]/home",
      "from": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "868515726ff7216274b6a617b5831e941445a322"
      },
      "to": {
        "version": "1.1.0",
        "ref": "main",
        "commit": "3431ebf9cc21af5965a46d23abc7ef6fe418421c"
      },
      "why": "branch main has new commits"
    },
    {
      "id": "dev.example.p3",
      "home": "[TMP]/home",
      "from": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "24a91a5424d0f93044fc368046fe230a76c36e8a"
      },
      "to": {
        "version": "1.1.0",
        "ref": "main",
        "commit": "7097d521dbabfc8571d506d82a25f87555d9881a"
      },
      "why": "branch main has new commits"
    },
    {
      "id": "dev.example.p4",
      "home": "[TMP]/home",
      "from": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "8e1ff183a6c304537fd014b2233ae04d3681bf42"
      },
      "to": {
        "version": "1.1.0",
        "ref": "main",
        "commit": "1f2126817376b8d35fb933b2deb18c271b890819"
      },
      "why": "branch main has new commits"
    }
  ],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [
    {
      "id": "dev.example.p2",
      "message": "cannot reach file://[TMP]/repo2: failed to resolve path '[TMP]/repo2': No such file or directory"
    }
  ],
  "skipped_homes": []
}

"#]], str![[r#"
[AT] Fetching file://[TMP]/repo0
[AT] Fetched 22ce1ef7b68c
[AT] Fetching file://[TMP]/repo1
[AT] Fetched 3431ebf9cc21
[AT] Fetching file://[TMP]/repo3
[AT] Fetched 7097d521dbab
[AT] Fetching file://[TMP]/repo4
[AT] Fetched 1f2126817376

"#]]);
    // Reported in its row.
    outdated(&home, tmp.path()).expect(1, str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.p0",
      "source": "file://[TMP]/repo0",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "22ce1ef7b68c96314e5f5fe41d30a42ba105239e",
      "status": "up_to_date"
    },
    {
      "id": "dev.example.p1",
      "source": "file://[TMP]/repo1",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "3431ebf9cc21af5965a46d23abc7ef6fe418421c",
      "status": "up_to_date"
    },
    {
      "id": "dev.example.p2",
      "source": "file://[TMP]/repo2",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "ea7cdc3768cd1c66c9e96e86db380190099509b1",
      "status": "error",
      "message": "cannot reach file://[TMP]/repo2: failed to resolve path '[TMP]/repo2': No such file or directory"
    },
    {
      "id": "dev.example.p3",
      "source": "file://[TMP]/repo3",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "7097d521dbabfc8571d506d82a25f87555d9881a",
      "status": "up_to_date"
    },
    {
      "id": "dev.example.p4",
      "source": "file://[TMP]/repo4",
      "requested_ref": "main",
      "ref_kind": "branch",
      "current": "1f2126817376b8d35fb933b2deb18c271b890819",
      "status": "up_to_date"
    }
  ]
}

"#]], str![]);
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
    at(&home, tmp.path(), &["update", "--all", "--yes"]).expect(
        1,
        str![],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 13717d7b0b17
aoe plugin `dev.example.built` 2.0.0 from file://[TMP]/repo @ 13717d7b0b17
  asked again:  its files changed and it has build steps
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) failed with exit status: 9

"#]],
    );
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
    at(&home, tmp.path(), &["activity", "touch"]).expect(0, str![""], str![""]);
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
    let update = |home: &Path| at(home, tmp.path(), &["update", "--all", "--yes"]);
    update(&tag).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to v2.0.0 @ c7849e65b9

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960

"#]],
    );
    update(&branch).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to 4.0.0 (main @ 1f61bc6e38)

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 1f61bc6e3842

"#]],
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
            .redact("[OLD]", &c3[..10])
            .run()
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
        quiet(args).expect(0, str![""], str![""]);
    }
    // Something behind: outdated -q shows that row only; autoupdate -q stays silent.
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");
    quiet(&["outdated", "--exit-code"])
        .redact("[NEW]", &c5[..10])
        .expect(
            3,
            str![[r#"
dev.example.pinned               main @ [OLD]            newer: [NEW]

"#]],
            str![""],
        );
    // A tampered file: verify -q shows the problem and the path that changed; no summary
    // line.
    std::fs::write(home.join("plugins/dev.example.pinned/extra"), "x").unwrap();
    quiet(&["verify"]).expect(1, str![[r#"
    tampered dev.example.pinned: the files changed since install (tree sha256:9345f934150a4223e2beac7e8ed69ef347ffaf5e6ab9084cb77fc024b5590150, locked sha256:548767c9c71fc8756185c02310723f6d0b6add6571c4bffa5cbb7fceb3d227af)
       added extra

"#]], str![]);
    quiet(&["remove", "dev.example.pinned"]).expect(0, str![""], str![""]);
}

/// `--log-format json`: each status line and error is one JSON object with a timestamp.
#[test]
fn log_format_json_writes_timestamped_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/o/r.git");
    let logged = |format: &[&str], args: &[&str]| {
        Plugins::new()
            .args(format)
            .args(args)
            .arg("--home")
            .arg(&home)
            .tmp(tmp.path())
            .redact("[URL]", &url)
            .run()
    };
    let json = ["--log-format", "json"];
    // Each status line and the error: one object, with its time.
    logged(&json, &["install", &repo.url(), "--yes"]).expect(
        0,
        str![[r#"
   Installed dev.example.pinned 3.0.0 @ 5761a5fef9 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
{"at":"[AT]","level":"status","message":"Fetching file://[TMP]/repo"}
{"at":"[AT]","level":"status","message":"Fetched 5761a5fef946"}

"#]],
    );
    logged(&json, &["remove", "dev.example.nope"]).expect(2, str![], str![[r#"
{"at":"[AT]","level":"error","message":"plugin 'dev.example.nope' is not installed","code":"plugins::install::not_installed","help":"`plugins list` shows what is installed; pass --home for another home"}

"#]]);
    // A warning is a warning object with its code, not a status line holding `warning[…]`.
    logged(&json, &["install", &url, "--yes"]).expect(2, str![], str![[r#"
{"at":"[AT]","level":"status","message":"Fetching [URL]"}
{"at":"[AT]","level":"warning","message":"[URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL","code":"plugins::git::cleartext"}
{"at":"[AT]","level":"error","message":"cannot reach [URL]: failed to connect to 127.0.0.1: Connection refused","code":"plugins::git::fetch","help":null}

"#]]);

    // --timestamps: text lines, each after its time; an error on one line.
    logged(&["--timestamps"], &["install", &url, "--yes"]).expect(2, str![], str![[r#"
[AT] Fetching [URL]
[AT] warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
[AT] error[plugins::git::fetch]: cannot reach [URL]: failed to connect to 127.0.0.1: Connection refused

"#]]);
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
        // parts: each document is parsed and checked against its JSON schema
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
    // parts: the command list is read out of --help, not compared
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
        // parts: each command's --help is searched for a JSON flag, not compared
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
        let ran = Plugins::new().args(args).arg("--home").arg(&home).run();
        // parts: each document is parsed and checked against its JSON schema
        let (got, stdout, stderr) = ran.parts();
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
    // The alias conflicts with another --format.
    Plugins::new()
        .args(["validate", "--json", "--format", "human"])
        .run()
        .expect(
            2,
            str![],
            str![[r#"
error: the argument '--json' cannot be used with '--format <FORMAT>'

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

For more information, try '--help'.

"#]],
        );
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
            .redact("[API]", api)
            .tmp(t)
            .run()
    };
    let none = release_api(None);
    // No release: aoe installs the default branch (unverified code, so --yes).
    plugins_with(&none, &["install", "gh:acme/tool", "--yes"]).expect(
        0,
        str![[r#"
   Installed dev.example.pinned 1.0.0 @ 1e89944df1 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching file://[TMP]/mirror/acme/tool.git
     Fetched 1e89944df1ab
aoe plugin `dev.example.pinned` 1.0.0 from gh:acme/tool @ 1e89944df1ab
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
    );
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
    plugins_with(&none, &["update", "dev.example.pinned", "--yes"]).expect(
        1,
        str![""],
        str![[r#"
plugins::update::no_release

  × acme/tool has no published release to update to; the prior version is kept
  help: aoe updates `gh:acme/tool` only to its latest release; to follow a branch, reinstall it as `gh:acme/tool@<branch>`

"#]],
    );
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        lock_before
    );
    assert!(
        std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
            .unwrap()
            .contains("version = \"1.0.0\"")
    );
    plugins_with(&none, &["outdated", "--json"]).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "gh:acme/tool",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "1e89944df1ab7d121843ed9a06346298345ee601",
      "status": "error",
      "message": "acme/tool has no published release to update to; the prior version is kept"
    }
  ]
}

"#]],
        str![],
    );
    plugins_with(&none, &["update", "dev.example.pinned", "--yes", "--json"]).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "dry_run": false,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "failed",
      "message": "acme/tool has no published release to update to; the prior version is kept",
      "code": "plugins::update::no_release",
      "home": "[TMP]/home"
    }
  ]
}

"#]],
        str![[r#"
plugins::update::no_release

  × acme/tool has no published release to update to; the prior version is kept
  help: aoe updates `gh:acme/tool` only to its latest release; to follow a branch, reinstall it as `gh:acme/tool@<branch>`

"#]],
    );

    // Once a release is published, the update goes to it (not to the branch head).
    let released = release_api(Some(r#"{"tag_name": "v2.0.0"}"#));
    repo.file("aoe-plugin.toml", &static_aoe("3.0.0"));
    repo.commit("three, unreleased");
    std::fs::remove_dir_all(&bare).unwrap();
    repo.clone_bare(&bare);
    plugins_with(&released, &["update", "dev.example.pinned", "--yes"]).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to v2.0.0 @ 247df5be2d

"#]],
        str![[r#"
    Fetching file://[TMP]/mirror/acme/tool.git
     Fetched 247df5be2d6a

"#]],
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
    let (source, hash, granted) = (
        rec["source"].as_str().unwrap(),
        rec["grant"]["manifest_hash"].as_str().unwrap(),
        rec["grant"]["granted_at"].as_str().unwrap(),
    );
    let mine = format!(
        "# my aoe settings\ntheme = \"dark\"\n\n[plugins.\"dev.example.pinned\"]  # the one I use\nsource = \"{source}\"\nenabled = true   # on\n\n# approved by me\n[plugins.\"dev.example.pinned\".grant]\nmanifest_hash = \"{hash}\"  # pinned\ncapabilities = []\ngranted_at = \"{granted}\"\n"
    );
    std::fs::write(&config, &mine).unwrap();
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    at(&home, tmp.path(), &["update", "--all", "--yes"]).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to 2.0.0 (main @ c7849e65b9)

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960

"#]],
    );
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

/// `update` and `verify` of an id no home's lock has: the same refusal as `remove` and
/// `info`, with its way out.
#[test]
fn an_id_no_lock_has_is_refused_with_a_way_out() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["update", "dev.example.nope"][..],
        &["verify", "dev.example.nope"][..],
    ] {
        Plugins::new().args(args).home(tmp.path()).run().expect(
            2,
            str![""],
            str![[r#"
plugins::install::not_installed

  × plugin 'dev.example.nope' is not installed
  help: `plugins list` shows what is installed; pass --home for another home

"#]],
        );
    }
}
