//! Looking before updating (issue #17): `update --dry-run` lists the commits and the
//! permission changes an update brings, and a cooldown holds back versions too young to take.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::net::GitServer;
use crate::support::*;

/// An aoe plugin with a worker built by `build.sh`; `extra` is more manifest text.
fn worker(version: &str, capabilities: &str, build: &str, extra: &str) -> String {
    format!(
        "id = \"dev.example.rev\"\nname = \"Rev\"\nversion = \"{version}\"\napi_version = 6\ncapabilities = [{capabilities}]\n{extra}\n\
         [runtime]\nkind = \"command\"\ncommand = [\".aoe-build/bin/worker\"]\n\n[[runtime.build]]\ncommand = [{build}]\n"
    )
}

const BUILD: &str = "#!/bin/sh\nset -e\nmkdir -p .aoe-build/bin\nprintf '#!/bin/sh\\necho hi\\n' > .aoe-build/bin/worker\nchmod +x .aoe-build/bin/worker\n";

/// Every path under `dir` with its contents (directories as `/`), to see that nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.is_symlink() {
                out.push((p.clone(), b"/".to_vec()));
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// `plugins <args> --home <home>`, the home shown as `[HOME]` and its parent as `[TMP]`.
fn run_at(home: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .args(args)
        .home(home)
        .redact("[HOME]", home)
        .redact("[TMP]", home.parent().unwrap())
        .run()
}

#[test]
fn a_dry_run_lists_the_commits_and_the_permission_changes_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "aoe-plugin.toml",
        &worker("1.0.0", "\"runtime.worker\"", "\"./build.sh\"", ""),
    );
    repo.executable("build.sh", BUILD);
    repo.commit("v1");
    repo.tag("v1.0.0");
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = install(&home, &[&repo.url(), "--ref", "v1.0.0"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    for n in 1..=22 {
        repo.file("notes.txt", &format!("{n}\n"));
        repo.commit(&format!("notes {n}"));
    }
    repo.file(
        "aoe-plugin.toml",
        &worker(
            "2.0.0",
            "\"runtime.worker\", \"net\"",
            "\"./build.sh\", \"--release\"",
            "\n[[ui]]\nslot = \"pane\"\nid = \"p\"\n",
        ),
    );
    repo.commit("v2: the network and a pane");
    repo.tag("v2.0.0");

    let before = snapshot(&home);
    run_at(&home, &["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.rev to v2.0.0 @ 84ddaf8811
  23 commits since 05535d5e42:
    84ddaf8 v2: the network and a pane
    83b01d2 notes 22
    2cd1deb notes 21
    9a97c01 notes 20
    94b4efa notes 19
    1cd5907 notes 18
    797f0c7 notes 17
    11c9dcd notes 16
    9aca905 notes 15
    3e2f620 notes 14
    f18c22e notes 13
    4483287 notes 12
    016bdc3 notes 11
    f6452ef notes 10
    1263aa8 notes 9
    b7f3ce2 notes 8
    d2cbaed notes 7
    dd620d7 notes 6
    499ee04 notes 5
    7b4de0b notes 4
    … and 3 more
  capabilities: + net
  build steps: + ./build.sh --release, - ./build.sh
  ui: + pane p
  consent: would be asked (--yes grants it): capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps; its manifest changed and it has UI

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 84ddaf881106

"#]],
    );
    assert_eq!(
        snapshot(&home),
        before,
        "a dry run changes nothing in the home"
    );

    run_at(&home, &["update", "--all", "--dry-run", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "dry_run": true,
  "plugins": [
    {
      "id": "dev.example.rev",
      "status": "would_update",
      "from_commit": "05535d5e42d12fd16aedf43399ac883c2b8abfd4",
      "new_ref": "v2.0.0",
      "commit": "84ddaf881106d22c18939e7adac27c3c0ba89af4",
      "home": "[HOME]",
      "commits": [
        {
          "id": "84ddaf881106d22c18939e7adac27c3c0ba89af4",
          "subject": "v2: the network and a pane"
        },
        {
          "id": "83b01d227ff02bb647e04a8491ad4bf912c116d4",
          "subject": "notes 22"
        },
        {
          "id": "2cd1deb028d40a6cd9d3fa45d123c8ed6181ad96",
          "subject": "notes 21"
        },
        {
          "id": "9a97c01421c98123f0780ba570e3613ebc569e48",
          "subject": "notes 20"
        },
        {
          "id": "94b4efaa3a826848715802bda2af0855117a3200",
          "subject": "notes 19"
        },
        {
          "id": "1cd5907a5e55ebbfa63393629c9a8441a68cbea6",
          "subject": "notes 18"
        },
        {
          "id": "797f0c77caee45ddeb3220e421024c17f52bb779",
          "subject": "notes 17"
        },
        {
          "id": "11c9dcd669cfebf9760c8007da26714afc877cf3",
          "subject": "notes 16"
        },
        {
          "id": "9aca9052b9d42700b2525fe4975d35381ab199ae",
          "subject": "notes 15"
        },
        {
          "id": "3e2f620c87740dff6eca906b719218c044e729b1",
          "subject": "notes 14"
        },
        {
          "id": "f18c22eeef93f11baedba01b4e181f76b4da28a5",
          "subject": "notes 13"
        },
        {
          "id": "448328798091ce293d6e4375f6964e08e1e6ce5b",
          "subject": "notes 12"
        },
        {
          "id": "016bdc3f4f4aacf777ff60b6debc137df7ab1fbe",
          "subject": "notes 11"
        },
        {
          "id": "f6452efd5d66725110ca7d2dff3223fb707aa57f",
          "subject": "notes 10"
        },
        {
          "id": "1263aa8bd80e7e57e86681f14006f4430c375a27",
          "subject": "notes 9"
        },
        {
          "id": "b7f3ce2b59f38f5cd0a63234cfa22801c7233fb9",
          "subject": "notes 8"
        },
        {
          "id": "d2cbaedc709405844c3bba854940276b5e546af5",
          "subject": "notes 7"
        },
        {
          "id": "dd620d78fc1e95e82ada3411df706334e90766c8",
          "subject": "notes 6"
        },
        {
          "id": "499ee04543fe305d8f7e2783706d9597c7b9cb55",
          "subject": "notes 5"
        },
        {
          "id": "7b4de0b2b506e6187ffd37d80259ecbe2e149699",
          "subject": "notes 4"
        }
      ],
      "more_commits": 3,
      "commits_complete": true,
      "permissions": {
        "capabilities": {
          "added": [
            "net"
          ],
          "removed": []
        },
        "build_steps": {
          "added": [
            "./build.sh --release"
          ],
          "removed": [
            "./build.sh"
          ]
        },
        "ui": {
          "added": [
            "pane p"
          ],
          "removed": []
        },
        "pip": {
          "added": [],
          "removed": []
        }
      },
      "consent_needed": true,
      "consent_reasons": [
        "capabilities [runtime.worker] -> [runtime.worker, net]",
        "its files changed and it has build steps",
        "its manifest changed and it has UI"
      ]
    }
  ]
}

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 84ddaf881106

"#]],
    );
    assert_eq!(snapshot(&home), before);

    // The same update taken: consent is asked (and granted by --yes), as the dry run said.
    run_at(&home, &["update", "--all", "--yes"]).expect(0, str![[r#"
     Updated dev.example.rev to v2.0.0 @ 84ddaf8811

"#]], str![[r#"
    Fetching file://[TMP]/repo
     Fetched 84ddaf881106
aoe plugin `dev.example.rev` 2.0.0 from file://[TMP]/repo @ 84ddaf881106
  asked again:  capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps; its manifest changed and it has UI
  capabilities: runtime.worker, net
  build steps:  ./build.sh --release
  ui:           pane p
    Building step 1/1: ./build.sh --release

"#]]);
}

#[test]
fn a_dry_run_says_when_no_consent_is_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [c1, _, _]) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    run_at(&home, &["update", "--all", "--dry-run"])
        .redact("[FIRST]", &c1[..10])
        .expect(
            0,
            str![[r#"
Would update dev.example.pinned to v2.0.0 @ c7849e65b9
  1 commit since [FIRST]:
    c7849e6 v2
  permissions: unchanged
  consent: not needed

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960

"#]],
        );
}

/// A commit (and optionally a tag) dated `ago` seconds before now.
fn git_ago(dir: &Path, args: &[&str], ago: u64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let date = format!("@{} +0000", now - ago);
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    git(dir, &["rev-parse", "HEAD"])
}

/// `ran` with each commit of `commits` (dated from the clock, so with another id each run)
/// shown as its placeholder, in its full, 12- and 10-digit forms.
fn named(mut ran: Ran, commits: &[(&'static str, &String)]) -> Ran {
    for (name, commit) in commits {
        ran.redact(name, commit.as_str())
            .redact(name, &commit[..12])
            .redact(name, &commit[..10]);
    }
    ran
}

fn commit_ago(repo: &Repo, version: &str, ago: u64) -> String {
    repo.file("aoe-plugin.toml", &static_aoe(version));
    git(&repo.dir, &["add", "-A"]);
    git_ago(&repo.dir, &["commit", "-q", "-m", version], ago)
}

const DAY: u64 = 86_400;

/// Move every first-seen time in `home`'s record `secs` into the past (time passing).
pub(crate) fn backdate_first_seen(home: &Path, secs: u64) {
    let path = home.join(".plugins/first-seen.json");
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for seen in doc["sources"].as_object_mut().unwrap().values_mut() {
        for t in seen["commits"].as_object_mut().unwrap().values_mut() {
            *t = Value::from(t.as_u64().unwrap() - secs);
        }
    }
    std::fs::write(&path, doc.to_string()).unwrap();
}

#[test]
fn a_cooldown_holds_back_versions_younger_than_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let (tag, branch) = (tmp.path().join("tag"), tmp.path().join("branch"));
    assert_eq!(install(&tag, &[&repo.url(), "--ref", "v2.0.0"]).0, 0);
    // v3.5.0: a commit dated a day ago, tagged. Its age counts from when this home first
    // sees it (now), not from the date its publisher wrote.
    let v35 = commit_ago(&repo, "3.5.0", DAY);
    // `[NEW]` the newest commit (dated from the clock: its id changes from run to run).
    let at = |home: &Path, args: &[&str]| named(run_at(home, args), &[("[NEW]", &v35)]);
    repo.tag("v3.5.0");
    assert_eq!(install(&branch, &[&repo.url(), "--ref", "main"]).0, 0);

    at(&tag, &["outdated", "--cooldown", "3d"]).expect(
        0,
        str![[r#"
dev.example.pinned               v2.0.0 @ c7849e65b9          newer: v3.5.0 @ [..], held back: 3d left (cooldown 3d)

"#]],
        str![],
    );
    // A day passes.
    backdate_first_seen(&tag, DAY);
    // The file's cooldown; the flag overrides it (0: none).
    std::fs::write(tag.join("plugins.toml"), "cooldown = \"72h\"\n").unwrap();
    at(&tag, &["outdated"]).expect(0, str![[r#"
dev.example.pinned               v2.0.0 @ c7849e65b9          newer: v3.5.0 @ [NEW], held back: 2d left (cooldown 3d)

"#]], str![]);
    at(&tag, &["outdated", "--cooldown", "12h"]).expect(
        0,
        str![[r#"
dev.example.pinned               v2.0.0 @ c7849e65b9          newer: v3.5.0 @ [NEW]

"#]],
        str![],
    );
    let ran = at(&tag, &["outdated", "--json", "--exit-code"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "file://[TMP]/repo",
      "requested_ref": "v2.0.0",
      "ref_kind": "tag",
      "current": "c7849e65b9604ab0301765a7486be5cf6a0c69ab",
      "status": "held_back",
      "new_ref": "v3.5.0",
      "commit": "[NEW]",
      "released_at": "[AT]",
      "age_from": "first_seen",
      "left_secs": [..],
      "cooldown_secs": 259200
    }
  ]
}

"#]],
        str![],
    );
    // Two days left, less the seconds since the first sight (the snapshot leaves them out).
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let left = doc["plugins"][0]["left_secs"].as_u64().unwrap();
    assert!((2 * DAY - 120..=2 * DAY).contains(&left), "{left}");

    // update does not take it; with the cooldown off it does.
    at(&tag, &["update", "--all", "--yes"]).expect(
        0,
        str![[r#"
   Held back dev.example.pinned at v3.5.0 @ [..]: 2d left (cooldown 3d)
nothing to update

"#]],
        str![],
    );
    assert_eq!(
        locked(&tag, "dev.example.pinned", "requested_ref"),
        "v2.0.0"
    );
    at(&tag, &["update", "--all", "--json", "--dry-run"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "dry_run": true,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "held_back",
      "from_commit": "c7849e65b9604ab0301765a7486be5cf6a0c69ab",
      "new_ref": "v3.5.0",
      "commit": "[NEW]",
      "released_at": "[AT]",
      "age_from": "first_seen",
      "left_secs": [..],
      "cooldown_secs": 259200,
      "home": "[HOME]"
    }
  ]
}

"#]],
        str![],
    );

    // An annotated tag's own date does not count either: v3.6.0, tagged "two hours ago",
    // is first seen now.
    git(&repo.dir, &["checkout", "-q", "-b", "old", "v2.0.0"]);
    repo.file("aoe-plugin.toml", &static_aoe("3.6.0"));
    repo.commit("3.6.0 from old");
    git_ago(
        &repo.dir,
        &["tag", "-a", "v3.6.0", "-m", "v3.6.0"],
        2 * 3600,
    );
    git(&repo.dir, &["checkout", "-q", "main"]);
    at(&tag, &["outdated"]).expect(0, str![[r#"
dev.example.pinned               v2.0.0 @ c7849e65b9          newer: v3.6.0 @ eb417c87cb, held back: 3d left (cooldown 3d)

"#]], str![]);

    // A branch head, an hour old by its date, is new to this home: a day's cooldown is left.
    let v4 = commit_ago(&repo, "4.0.0", 3600);
    let at =
        |home: &Path, args: &[&str]| named(run_at(home, args), &[("[NEW]", &v4), ("[OLD]", &v35)]);
    at(&branch, &["outdated", "--cooldown", "1d"]).expect(0, str![[r#"
dev.example.pinned               main @ [OLD]            newer: [NEW], held back: 1d left (cooldown 1d)

"#]], str![]);
    at(&branch, &["update", "--all", "--cooldown", "0", "--yes"]).expect(
        0,
        str![[r#"
     Updated dev.example.pinned to 4.0.0 (main @ [NEW])

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched [NEW]

"#]],
    );
}

#[test]
fn autoupdate_holds_back_young_versions() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    std::fs::write(
        home.join("plugins.toml"),
        "cooldown = \"2d\"\n[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    let v4 = commit_ago(&repo, "4.0.0", DAY);
    // `[NEW]` the newest commit (dated from the clock: its id changes from run to run).
    let at = |home: &Path, args: &[&str]| named(run_at(home, args), &[("[NEW]", &v4)]);
    at(&home, &["autoupdate"]).expect(
        0,
        str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] held back dev.example.pinned: 2d left (cooldown 2d)

"#]],
        str![],
    );
    // A day passes: under a 12 h cooldown it is old enough.
    backdate_first_seen(&home, DAY);
    at(
        &home,
        &["autoupdate", "--force", "--json", "--cooldown", "12h"],
    )
    .expect(
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
      "home": "[HOME]",
      "from": {
        "version": "3.0.0",
        "ref": "main",
        "commit": "5761a5fef946fe40ce19de2275f882b3b7c1403c"
      },
      "to": {
        "version": "4.0.0",
        "ref": "main",
        "commit": "[NEW]"
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
[AT] Fetched [NEW]

"#]],
    );
}

/// A branch that moves faster than the cooldown (a new tip every day, a 3-day cooldown) is
/// not held back for ever: `outdated`, `update` and `autoupdate` take the newest commit the
/// branch still contains, on top of the locked one, that this home first saw at least the
/// cooldown ago; the lock keeps the branch as its ref.
#[test]
fn a_branch_faster_than_the_cooldown_updates_to_its_newest_old_enough_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let mut tips = vec![commit_ago(&repo, "4.0.0", 0)];
    // `[TIP]` the branch's newest commit (dated now: its id changes from run to run).
    let outdated = |tip: &str| {
        let mut ran = run_at(&home, &["outdated", "--cooldown", "3d"]);
        ran.redact("[TIP]", &tip[..10]);
        ran
    };
    outdated(&tips[0]).expect(0, str![[r#"
dev.example.pinned               main @ 5761a5fef9            newer: [TIP], held back: 3d left (cooldown 3d)

"#]], str![]);
    // A day passes and the branch moves again, three times; checked each day.
    for version in ["5.0.0", "6.0.0", "7.0.0"] {
        backdate_first_seen(&home, DAY);
        tips.push(commit_ago(&repo, version, 0));
        if version != "7.0.0" {
            outdated(tips.last().unwrap()).expect(0, str![[r#"
dev.example.pinned               main @ 5761a5fef9            newer: [TIP], held back: 3d left (cooldown 3d)

"#]], str![]);
        }
    }
    // 4.0.0 was first seen three days ago: old enough, and the branch still contains it.
    named(
        run_at(&home, &["outdated", "--cooldown", "3d"]),
        &[("[FOUR]", &tips[0]), ("[SEVEN]", &tips[3])],
    )
    .expect(
        0,
        str![[r#"
dev.example.pinned               main @ [..]            newer: [FOUR] (its tip [SEVEN] is under the cooldown)

"#]],
        str![],
    );
    named(
        run_at(&home, &["update", "--all", "--cooldown", "3d", "--yes"]),
        &[("[FOUR]", &tips[0]), ("[SEVEN]", &tips[3])],
    )
    .expect(
        0,
        str![[r#"
     Updated dev.example.pinned to 4.0.0 (main @ [FOUR])

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched [FOUR]

"#]],
    );
    assert_eq!(
        locked(&home, "dev.example.pinned", "resolved_commit"),
        tips[0]
    );
    assert_eq!(locked(&home, "dev.example.pinned", "requested_ref"), "main");
    assert_eq!(locked(&home, "dev.example.pinned", "ref_kind"), "branch");

    // The next day the sweep takes 5.0.0, and not the tip.
    backdate_first_seen(&home, DAY);
    tips.push(commit_ago(&repo, "8.0.0", 0));
    std::fs::write(
        home.join("plugins.toml"),
        "cooldown = \"3d\"\n[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    named(
        run_at(&home, &["autoupdate", "--force", "--json"]),
        &[
            ("[FOUR]", &tips[0]),
            ("[FIVE]", &tips[1]),
            ("[EIGHT]", &tips[4]),
        ],
    )
    .expect(
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
      "home": "[HOME]",
      "from": {
        "version": "4.0.0",
        "ref": "main",
        "commit": "[FOUR]"
      },
      "to": {
        "version": "5.0.0",
        "ref": "main",
        "commit": "[FIVE]"
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
[AT] Fetched [FIVE]

"#]],
    );
    assert_eq!(
        locked(&home, "dev.example.pinned", "resolved_commit"),
        tips[1]
    );
    assert_eq!(locked(&home, "dev.example.pinned", "requested_ref"), "main");
}

#[test]
fn bad_cooldowns_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    run_at(&home, &["outdated", "--cooldown", "3 days"]).expect(
        2,
        str![],
        str![[r#"
error: invalid value '3 days' for '--cooldown <DURATION>': `3 days` is not a duration: write days, hours or minutes such as "3d", "72h", "1d12h" or "90m" ("0" for none)

For more information, try '--help'.

"#]],
    );
    // In plugins.toml: a warning (plugins::config::invalid_value), and no cooldown.
    std::fs::write(home.join("plugins.toml"), "cooldown = 3\n").unwrap();
    let v4 = commit_ago(&repo, "4.0.0", 60);
    named(run_at(&home, &["outdated"]), &[("[NEW]", &v4)]).expect(
        0,
        str![[r#"
dev.example.pinned               main @ 5761a5fef9            newer: [NEW]

"#]],
        str![[r#"
plugins::config::invalid_value

  ⚠ `cooldown` must be a string, not an integer; no cooldown is used
   ╭─[[HOME]/plugins.toml:1:12]
 1 │ cooldown = 3
   ·            ┬
   ·            ╰── not a string
   ╰────
  help: `cooldown` is a string of days, hours or minutes: "3d", "72h", "1d12h"; "0" for none

"#]],
    );
}

/// Over smart HTTP the review fetches the new history shallowly, and the age the tip only.
#[test]
fn over_the_network() {
    const SECRET: &str = "s3cr3t-t0ken-4711";
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let first = repo.commit("v1");
    let bare = tmp.path().join("srv/acme/kit.git");
    repo.clone_bare(&bare);
    let server = GitServer::start(&tmp.path().join("srv"), SECRET);
    let url = format!("{}/acme/kit.git", server.base);
    // The credentials come from a .netrc (a lock never records them).
    let netrc = tmp.path().join("netrc");
    std::fs::write(
        &netrc,
        format!("machine 127.0.0.1 login netrc-user password {SECRET}\n"),
    )
    .unwrap();
    let home = tmp.path().join("home");
    let net = |args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("NETRC", &netrc)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GITHUB_TOKEN")
            .env_remove("GH_TOKEN")
            .redact("[URL]", &url)
            .redact("[HOME]", &home)
            .run()
    };
    // The default branch: the remote's HEAD is what is read.
    net(&["install", &url, "--yes"]).expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
    repo.file("aoe-plugin.toml", &static_aoe("1.1.0"));
    repo.commit("1.1.0");
    repo.file("aoe-plugin.toml", &static_aoe("1.2.0"));
    let c12 = repo.commit("1.2.0");
    let v13 = commit_ago(&repo, "1.3.0", 3600);
    // `[NEW]` the newest commit (dated from the clock: its id changes from run to run).
    let net = |args: &[&str]| named(net(args), &[("[NEW]", &v13)]);
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "main"]);
    net(&["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.pinned to [..]
  3 commits since [..]:
    [..] 1.3.0
    [..] 1.2.0
    [..] 1.1.0
  permissions: unchanged
  consent: not needed

"#]],
        str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [NEW]

"#]],
    );
    // The age is this home's first sight (now), not the commit's date: no object is
    // fetched for it.
    let ran = net(&["outdated", "--cooldown", "3h"]);
    ran.expect(0, str![[r#"
dev.example.pinned               HEAD @ 98dbc36b17            newer: [NEW], held back: 3h left (cooldown 3h)

"#]], str![]);
    assert!(!ran.stdout.contains(SECRET) && !ran.stderr.contains(SECRET));

    // An annotated tag over the network: neither its own date (two hours ago) nor its
    // commit's counts.
    let tagged = tmp.path().join("tagged");
    git(&repo.dir, &["tag", "v1.0.0", &first]);
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "v1.0.0"]);
    Plugins::new()
        .args(["install", &url, "--ref", "v1.0.0", "--yes", "--home"])
        .arg(&tagged)
        .env("NETRC", &netrc)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .run()
        .success();
    git_ago(
        &repo.dir,
        &["tag", "-a", "v1.2.0", "-m", "v1.2.0", &c12],
        2 * 3600,
    );
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "v1.2.0"]);
    Plugins::new()
        .args(["outdated", "--cooldown", "3h", "--home"])
        .arg(&tagged)
        .env("NETRC", &netrc)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .redact("[URL]", &url)
        .run()
        .expect(0, str![[r#"
dev.example.pinned               v1.0.0 @ 98dbc36b17          newer: v1.2.0 @ ffa561b2e0, held back: 3h left (cooldown 3h)

"#]], str![]);
}

/// The walk is bounded: past 200 commits the review says "at least" and lists 20.
#[test]
fn the_commit_walk_stops_at_its_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    // 250 commits in one git process.
    let mut stream = String::new();
    for n in 1..=250 {
        let msg = format!("notes {n}");
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter Test <test@example.invalid> 1767225600 +0000\ndata {}\n{msg}\n",
            msg.len()
        ));
        if n == 1 {
            stream.push_str("from refs/heads/main^0\n");
        }
        let body = format!("{n}\n");
        stream.push_str(&format!(
            "M 644 inline notes.txt\ndata {}\n{body}\n",
            body.len()
        ));
    }
    let mut child = Command::new("git")
        .args(["fast-import", "--quiet"])
        .current_dir(&repo.dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success());
    run_at(&home, &["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.pinned to main @ e77cc54d77
  at least 200 commits since 98dbc36b17 (the history read stops there):
    e77cc54 notes 250
    4575e90 notes 249
    74dc955 notes 248
    31c48e0 notes 247
    501dfa3 notes 246
    b4cb205 notes 245
    38ea4db notes 244
    c5d3945 notes 243
    88aa257 notes 242
    ebb02a6 notes 241
    a042914 notes 240
    781c51f notes 239
    1c8eb75 notes 238
    a67fb8e notes 237
    fe2e884 notes 236
    1f4aed3 notes 235
    622c712 notes 234
    4c18045 notes 233
    78d662f notes 232
    3d6d84f notes 231
    … and at least 180 more
  permissions: unchanged
  consent: not needed

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched e77cc54d7743

"#]],
    );
    run_at(&home, &["update", "--all", "--dry-run", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "dry_run": true,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "would_update",
      "from_commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "new_ref": "main",
      "commit": "e77cc54d7743785c6f91ec16d0334af4386ff049",
      "home": "[HOME]",
      "commits": [
        {
          "id": "e77cc54d7743785c6f91ec16d0334af4386ff049",
          "subject": "notes 250"
        },
        {
          "id": "4575e90c14c66afa0d20405a8b4afcdaef3060d3",
          "subject": "notes 249"
        },
        {
          "id": "74dc9558b06f3fbcd8fb79d3ad520bcbb0d50574",
          "subject": "notes 248"
        },
        {
          "id": "31c48e055a6e6c703c0b7b2ba287fd8605d003fc",
          "subject": "notes 247"
        },
        {
          "id": "501dfa3cf2cf6b5b0dca2705cf4c988ac49945c0",
          "subject": "notes 246"
        },
        {
          "id": "b4cb2058a15fcdb9cee27727dd8e146f16d51057",
          "subject": "notes 245"
        },
        {
          "id": "38ea4db85eea3b6a74305d64ff3065c32709eb3d",
          "subject": "notes 244"
        },
        {
          "id": "c5d3945865d4ded759ec2dcb4b54fd8fac62745e",
          "subject": "notes 243"
        },
        {
          "id": "88aa25738b2abc7a3dcb6588c577550e8c89e45e",
          "subject": "notes 242"
        },
        {
          "id": "ebb02a674e6f521c928b1cc01bd449509adb5c18",
          "subject": "notes 241"
        },
        {
          "id": "a042914f352f5b344ffe1c89d85de3091ec45ffb",
          "subject": "notes 240"
        },
        {
          "id": "781c51fc1b402f0970f573691fc1b53c2a3fb7ba",
          "subject": "notes 239"
        },
        {
          "id": "1c8eb75200064645695e7555c52964c055eb35e7",
          "subject": "notes 238"
        },
        {
          "id": "a67fb8e26ba98cb9bd9b0abdd260932987544d8f",
          "subject": "notes 237"
        },
        {
          "id": "fe2e884ee2b8e0d225a1e2dc043f7ced8a2aed91",
          "subject": "notes 236"
        },
        {
          "id": "1f4aed3c49b8f8c1752305af9bf2822f402a07ba",
          "subject": "notes 235"
        },
        {
          "id": "622c712e8f6463af9a29824e2445f4bf874b8911",
          "subject": "notes 234"
        },
        {
          "id": "4c18045afc62150bd3ef69edd2de4e8e4d4167d2",
          "subject": "notes 233"
        },
        {
          "id": "78d662fbb214559f51529c2be690e871e1af008a",
          "subject": "notes 232"
        },
        {
          "id": "3d6d84f757402b50f59523d0fcef9790e2cdb40b",
          "subject": "notes 231"
        }
      ],
      "more_commits": 180,
      "commits_complete": false,
      "permissions": {
        "capabilities": {
          "added": [],
          "removed": []
        },
        "build_steps": {
          "added": [],
          "removed": []
        },
        "ui": {
          "added": [],
          "removed": []
        },
        "pip": {
          "added": [],
          "removed": []
        }
      },
      "consent_needed": false
    }
  ]
}

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched e77cc54d7743

"#]],
    );
}

/// A worker that changes runtime is shown; whether it asks is the install's rule, and
/// aoe's rules do not ask again for a release binary that replaces a built command.
#[test]
fn a_dry_run_shows_a_runtime_change() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "aoe-plugin.toml",
        &worker("1.0.0", "\"runtime.worker\"", "\"./build.sh\"", ""),
    );
    repo.executable("build.sh", BUILD);
    repo.commit("v1");
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.rev\"\nname = \"Rev\"\nversion = \"2.0.0\"\napi_version = 6\ncapabilities = [\"runtime.worker\"]\n\n[runtime]\nkind = \"release-binary\"\nasset = \"worker\"\n",
    );
    repo.executable("worker", "#!/bin/sh\necho hi\n");
    std::fs::remove_file(repo.dir.join("build.sh")).unwrap();
    repo.commit("v2: a release binary");
    run_at(&home, &["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.rev to main @ [..]
  1 commit since [..]:
    [..] v2: a release binary
  build steps: - ./build.sh
  runtime: command -> release binary worker
  consent: not needed

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 5b5e7e883c48

"#]],
    );
}
