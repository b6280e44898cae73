//! Looking before updating (issue #17): `update --dry-run` lists the commits and the
//! permission changes an update brings, and a cooldown holds back versions too young to take.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use snapbox::{assert_data_eq, str};

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

fn at(home: &Path, args: &[&str]) -> (i32, String, String) {
    run_at(home, args).parts()
}

/// `plugins <args> --home <home>`, the home shown as `[HOME]`.
fn run_at(home: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .args(args)
        .home(home)
        .redact("[HOME]", home)
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
    let (code, stdout, stderr) = at(&home, &["update", "--all", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        stdout,
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

"#]]
    );
    assert_eq!(
        snapshot(&home),
        before,
        "a dry run changes nothing in the home"
    );

    let (code, stdout, stderr) = at(&home, &["update", "--all", "--dry-run", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (
            row["status"].as_str(),
            row["commits"].as_array().map(Vec::len),
            row["commits"][0]["subject"].as_str(),
            row["more_commits"].as_u64(),
            row["commits_complete"].as_bool(),
            row["consent_needed"].as_bool(),
        ),
        (
            Some("would_update"),
            Some(20),
            Some("v2: the network and a pane"),
            Some(3),
            Some(true),
            Some(true)
        )
    );
    assert_data_eq!(
        serde_json::to_string_pretty(&row["permissions"]).unwrap(),
        str![[r#"
{
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
}
"#]]
    );
    assert_eq!(snapshot(&home), before);

    // The same update taken: consent is asked (and granted by --yes), as the dry run said.
    let (code, _, stderr) = at(&home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("  asked again:  capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps; its manifest changed and it has UI\n"),
        "{stderr}"
    );
}

#[test]
fn a_dry_run_says_when_no_consent_is_needed() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [c1, _, _]) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    let (code, stdout, stderr) = at(&home, &["update", "--all", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("since {}", &c1[..10])));
    assert_data_eq!(
        stdout,
        str![[r#"
Would update dev.example.pinned to v2.0.0 @ c7849e65b9
  1 commit since [..]:
    c7849e6 v2
  permissions: unchanged
  consent: not needed

"#]]
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
    commit_ago(&repo, "3.5.0", DAY);
    repo.tag("v3.5.0");
    assert_eq!(install(&branch, &[&repo.url(), "--ref", "main"]).0, 0);

    let (code, stdout, stderr) = at(&tag, &["outdated", "--cooldown", "3d"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        stdout,
        str![[r#"
dev.example.pinned               v2.0.0 @ c7849e65b9          newer: v3.5.0 @ [..], held back: 3d left (cooldown 3d)

"#]]
    );
    // A day passes.
    backdate_first_seen(&tag, DAY);
    // The file's cooldown; the flag overrides it (0: none).
    std::fs::write(tag.join("plugins.toml"), "cooldown = \"72h\"\n").unwrap();
    let (_, stdout, _) = at(&tag, &["outdated"]);
    assert!(
        stdout.contains("held back: 2d left (cooldown 3d)"),
        "{stdout}"
    );
    let (_, stdout, _) = at(&tag, &["outdated", "--cooldown", "12h"]);
    assert!(stdout.contains("newer: v3.5.0 @ "), "{stdout}");
    assert!(!stdout.contains("held back"), "{stdout}");
    let (_, stdout, _) = at(&tag, &["outdated", "--json", "--exit-code"]);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (
            row["status"].as_str(),
            row["new_ref"].as_str(),
            row["cooldown_secs"].as_u64(),
            row["age_from"].as_str()
        ),
        (
            Some("held_back"),
            Some("v3.5.0"),
            Some(3 * DAY),
            Some("first_seen")
        )
    );
    let left = row["left_secs"].as_u64().unwrap();
    assert!((2 * DAY - 120..=2 * DAY).contains(&left), "{left}");

    // update does not take it; with the cooldown off it does.
    let (code, stdout, stderr) = at(&tag, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        stdout,
        str![[r#"
   Held back dev.example.pinned at v3.5.0 @ [..]: 2d left (cooldown 3d)
nothing to update

"#]]
    );
    assert_eq!(
        locked(&tag, "dev.example.pinned", "requested_ref"),
        "v2.0.0"
    );
    let (_, stdout, _) = at(&tag, &["update", "--all", "--json", "--dry-run"]);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "held_back");

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
    let (_, stdout, _) = at(&tag, &["outdated"]);
    assert!(
        stdout.contains("newer: v3.6.0 @ ") && stdout.contains("held back: 3d left (cooldown 3d)"),
        "{stdout}"
    );

    // A branch head, an hour old by its date, is new to this home: a day's cooldown is left.
    commit_ago(&repo, "4.0.0", 3600);
    let (_, stdout, _) = at(&branch, &["outdated", "--cooldown", "1d"]);
    assert!(
        stdout.contains("held back: 1d left (cooldown 1d)"),
        "{stdout}"
    );
    let (code, stdout, stderr) = at(&branch, &["update", "--all", "--cooldown", "0", "--yes"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("Updated dev.example.pinned to 4.0.0"),
        "{stdout}"
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
    commit_ago(&repo, "4.0.0", DAY);
    let (code, stdout, stderr) = at(&home, &["autoupdate"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        untimed(&stdout),
        str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] held back dev.example.pinned: 2d left (cooldown 2d)

"#]]
    );
    // A day passes: under a 12 h cooldown it is old enough.
    backdate_first_seen(&home, DAY);
    let (code, stdout, _) = at(
        &home,
        &["autoupdate", "--force", "--json", "--cooldown", "12h"],
    );
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["updated"][0], "dev.example.pinned");
    assert_eq!(doc["held_back"], Value::Array(vec![]));
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
    let (_, stdout, _) = at(&home, &["outdated", "--cooldown", "3d"]);
    assert!(stdout.contains("held back: 3d left"), "{stdout}");
    // A day passes and the branch moves again, three times; checked each day.
    for version in ["5.0.0", "6.0.0", "7.0.0"] {
        backdate_first_seen(&home, DAY);
        tips.push(commit_ago(&repo, version, 0));
        let (_, stdout, _) = at(&home, &["outdated", "--cooldown", "3d"]);
        if version != "7.0.0" {
            assert!(stdout.contains("held back: 3d left"), "{version}: {stdout}");
        }
    }
    // 4.0.0 was first seen three days ago: old enough, and the branch still contains it.
    let mut ran = run_at(&home, &["outdated", "--cooldown", "3d"]);
    ran.redact("[FOUR]", &tips[0][..10])
        .redact("[SEVEN]", &tips[3][..10]);
    ran.success().stdout_eq(str![[r#"
dev.example.pinned               main @ [..]            newer: [FOUR] (its tip [SEVEN] is under the cooldown)

"#]]);
    let (code, stdout, stderr) = at(&home, &["update", "--all", "--cooldown", "3d", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("Updated dev.example.pinned to 4.0.0"),
        "{stdout}"
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
    let (code, stdout, stderr) = at(&home, &["autoupdate", "--force", "--json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["updated"][0], "dev.example.pinned", "{doc}");
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
    let (code, _, stderr) = at(&home, &["outdated", "--cooldown", "3 days"]);
    assert_eq!(code, 2);
    assert_data_eq!(
        stderr,
        str![[r#"
error: invalid value '3 days' for '--cooldown <DURATION>': `3 days` is not a duration: write days, hours or minutes such as "3d", "72h", "1d12h" or "90m" ("0" for none)

For more information, try '--help'.

"#]]
    );
    // In plugins.toml: a warning (plugins::config::invalid_value), and no cooldown.
    std::fs::write(home.join("plugins.toml"), "cooldown = 3\n").unwrap();
    commit_ago(&repo, "4.0.0", 60);
    let ran = run_at(&home, &["outdated"]);
    ran.success();
    assert!(ran.stdout.contains("newer: "), "{}", ran.stdout);
    assert!(!ran.stdout.contains("held back"), "{}", ran.stdout);
    ran.stderr_eq(str![[r#"
plugins::config::invalid_value

  ⚠ `cooldown` must be a string, not an integer; no cooldown is used
   ╭─[[HOME]/plugins.toml:1:12]
 1 │ cooldown = 3
   ·            ┬
   ·            ╰── not a string
   ╰────
  help: `cooldown` is a string of days, hours or minutes: "3d", "72h", "1d12h"; "0" for none

"#]]);
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
    let at = |args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("NETRC", &netrc)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GITHUB_TOKEN")
            .env_remove("GH_TOKEN")
            .run()
            .parts()
    };
    // The default branch: the remote's HEAD is what is read.
    let (code, stdout, stderr) = at(&["install", &url, "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    repo.file("aoe-plugin.toml", &static_aoe("1.1.0"));
    repo.commit("1.1.0");
    repo.file("aoe-plugin.toml", &static_aoe("1.2.0"));
    let c12 = repo.commit("1.2.0");
    commit_ago(&repo, "1.3.0", 3600);
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let (code, stdout, stderr) = at(&["update", "--all", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        stdout,
        str![[r#"
Would update dev.example.pinned to [..]
  3 commits since [..]:
    [..] 1.3.0
    [..] 1.2.0
    [..] 1.1.0
  permissions: unchanged
  consent: not needed

"#]]
    );
    // The age is this home's first sight (now), not the commit's date: no object is
    // fetched for it.
    let (_, stdout, stderr) = at(&["outdated", "--cooldown", "3h"]);
    assert!(
        stdout.contains("held back: 3h left (cooldown 3h)"),
        "{stdout}{stderr}"
    );
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET));

    // An annotated tag over the network: neither its own date (two hours ago) nor its
    // commit's counts.
    let tagged = tmp.path().join("tagged");
    git(&repo.dir, &["tag", "v1.0.0", &first]);
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "v1.0.0"]);
    let (code, _, stderr) = Plugins::new()
        .args(["install", &url, "--ref", "v1.0.0", "--yes", "--home"])
        .arg(&tagged)
        .env("NETRC", &netrc)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .run()
        .parts();
    assert_eq!(code, 0, "{stderr}");
    git_ago(
        &repo.dir,
        &["tag", "-a", "v1.2.0", "-m", "v1.2.0", &c12],
        2 * 3600,
    );
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "v1.2.0"]);
    let (_, stdout, stderr) = Plugins::new()
        .args(["outdated", "--cooldown", "3h", "--home"])
        .arg(&tagged)
        .env("NETRC", &netrc)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .run()
        .parts();
    assert!(
        stdout.contains("newer: v1.2.0 @ ") && stdout.contains("held back: 3h left (cooldown 3h)"),
        "{stdout}{stderr}"
    );
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
    let (code, stdout, stderr) = at(&home, &["update", "--all", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    let head: Vec<&str> = stdout.lines().take(3).collect();
    assert_data_eq!(
        head.join("\n"),
        str![[r#"
Would update dev.example.pinned to main @ [..]
  at least 200 commits since [..] (the history read stops there):
    [..] notes 250
"#]]
    );
    assert!(stdout.contains("    … and at least 180 more\n"), "{stdout}");
    let (_, stdout, _) = at(&home, &["update", "--all", "--dry-run", "--json"]);
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (
            row["more_commits"].as_u64(),
            row["commits_complete"].as_bool()
        ),
        (Some(180), Some(false))
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
    let (code, stdout, stderr) = at(&home, &["update", "--all", "--dry-run"]);
    assert_eq!(code, 0, "{stderr}");
    assert_data_eq!(
        stdout,
        str![[r#"
Would update dev.example.rev to main @ [..]
  1 commit since [..]:
    [..] v2: a release binary
  build steps: - ./build.sh
  runtime: command -> release binary worker
  consent: not needed

"#]]
    );
}
