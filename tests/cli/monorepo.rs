//! Monorepos at scale: the plugins of one repository share one fetch per commit in a
//! command, a subdirectory install transfers about the subdirectory (a partial clone where
//! the server filters), and a dry run says which plugins only have their pin moved.

use std::path::Path;

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::net::CountingServer;
use crate::support::*;

/// `len` bytes no compressor shrinks (xorshift from `seed`): file contents that travel
/// as large as they are, as the binary assets of a real monorepo do.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A monorepo in `dir`: AWorld plugins `plugins/p1`..`pN` (a manifest and `files` files of
/// `size` noise bytes each) and `ballast` files of 16 KiB noise in 20 other directories.
fn monorepo(dir: &Path, plugins: usize, files: usize, size: usize, ballast: usize) -> Repo {
    let repo = Repo::init(dir);
    repo.file("README.md", "a monorepo\n");
    for p in 1..=plugins {
        repo.file(
            &format!("plugins/p{p}/.aworld-plugin/plugin.json"),
            &format!(r#"{{"id": "p{p}", "version": "1.0.0"}}"#),
        );
        for f in 0..files {
            let path = dir.join(format!("plugins/p{p}/data/{f}.bin"));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, noise((p * 1000 + f) as u64, size)).unwrap();
        }
    }
    for b in 0..ballast {
        let path = dir.join(format!("assets/d{}/{b}.bin", b % 20));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, noise(1_000_000 + b as u64, 16 << 10)).unwrap();
    }
    repo.commit("v1");
    repo
}

/// `plugins <args> --home <home>` against the server as `gh:`'s base; in snapshots the base
/// shows as `[BASE]`, the home as `[HOME]`.
fn at(base: &str, home: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
        .env("PLUGINS_GH_BASE", base)
        .env("COLUMNS", "400")
        .redact("[BASE]", base)
        .redact("[HOME]", home)
        .run()
}

/// Serve `repo` as `<served>/acme/<name>.git`; `filter`: the server filters objects
/// (`uploadpack.allowFilter`, as GitHub and GitLab do), else it sends whole trees.
fn serve(repo: &Repo, served: &Path, name: &str, filter: bool) {
    let bare = served.join(format!("acme/{name}.git"));
    repo.clone_bare(&bare);
    if filter {
        git(&bare, &["config", "uploadpack.allowFilter", "true"]);
    }
}

/// The bytes of a pack of the objects of `rev` (a tree) and everything below it: what the
/// subdirectory's own objects weigh as they travel.
fn pack_size(repo: &Path, rev: &str) -> usize {
    let objects = git(repo, &["rev-list", "--objects", rev]);
    let mut child = std::process::Command::new("git")
        .args(["pack-objects", "--stdout", "-q"])
        .current_dir(repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let list: String = objects
        .lines()
        .map(|l| format!("{}\n", l.split(' ').next().unwrap()))
        .collect();
    std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(list.as_bytes()).unwrap();
    });
    child.wait_with_output().unwrap().stdout.len()
}

/// `update --all` and `sync` of three plugins of one repository fetch it once per commit:
/// one fetch from a server that sends whole trees; from one that filters, the partial
/// clone's rounds (the commit and its root tree, the `plugins` directory, then the three
/// subdirectories' contents together), whatever the number of plugins.
#[test]
fn one_fetch_per_repository_and_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t.join("work"), 3, 2, 4 << 10, 40);
    let served = t.join("srv");
    serve(&repo, &served, "whole", false);
    serve(&repo, &served, "filtered", true);
    let server = CountingServer::start(&served);
    for p in 1..=3 {
        repo.file(&format!("plugins/p{p}/NEWS"), "2.0\n");
    }
    let v2 = repo.commit("every plugin changes");
    let mut counts = Vec::new();
    for name in ["whole", "filtered"] {
        let home = t.join(format!("{name}-home"));
        let bare = served.join(format!("acme/{name}.git"));
        for p in 1..=3 {
            let source = format!("gh:acme/{name}/plugins/p{p}@main");
            // What an install prints is install.rs's and subdir.rs's to check; here its requests.
            at(&server.base, &home, &["install", &source, "--yes"]).success();
        }
        git(
            &repo.dir,
            &["push", "-q", bare.to_str().unwrap(), "main:main"],
        );
        // The dry run reads the new commits over the network too (commits and trees).
        let ran = at(&server.base, &home, &["update", "--all", "--dry-run"]);
        ran.success();
        let o = &ran.stdout;
        assert_eq!(o.matches("every plugin changes").count(), 3, "{o}");
        server.reset();
        let ran = at(&server.base, &home, &["update", "--all", "--yes"]);
        ran.success();
        assert_eq!(ran.stdout.matches("Updated p").count(), 3, "{}", ran.stdout);
        let update = server.fetches(&format!("/acme/{name}.git")).0;
        for p in 1..=3 {
            assert_eq!(locked(&home, &format!("p{p}"), "resolved_commit"), v2);
            std::fs::remove_dir_all(home.join(format!("plugins/p{p}"))).unwrap();
        }
        server.reset();
        at(&server.base, &home, &["sync"]).success();
        assert!(home.join("plugins/p3/NEWS").is_file());
        let sync = server.fetches(&format!("/acme/{name}.git")).0;
        counts.push(format!("{name}: update --all {update}, sync {sync}"));
    }
    // The update's one fetch is the branch's ancestry check (issue 39: the new commit must
    // contain the locked one), a shallow fetch of the branch's commits and trees by the id
    // the check listed, once for the three plugins; the install writes the subdirectories
    // from it, with their files by id from a server that filters (one more). `sync`'s
    // fetch is one (whole) or the partial clone's three rounds (filtered).
    assert_eq!(
        counts,
        [
            "whole: update --all 1, sync 1",
            "filtered: update --all 2, sync 3"
        ]
    );
}

/// A subdirectory install from a repository shaped like AWorld's (a large repository of
/// incompressible files, a small plugin directory) transfers at most twice the plugin's
/// own objects where the server filters; from a server that does not, the whole tree
/// (which is what this test would see if the partial clone broke).
#[test]
fn a_subdirectory_install_transfers_about_its_own_objects() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    // 4 MiB of assets in 250 files; each plugin 8 files of 8 KiB.
    let repo = monorepo(&t.join("work"), 4, 8, 8 << 10, 250);
    let served = t.join("srv");
    serve(&repo, &served, "big", true);
    serve(&repo, &served, "unfiltered", false);
    let server = CountingServer::start(&served);
    let own = pack_size(&repo.dir, "HEAD:plugins/p3");
    let mut moved = Vec::new();
    for name in ["big", "unfiltered"] {
        let home = t.join(format!("{name}-home"));
        let source = format!("gh:acme/{name}/plugins/p3@main");
        // What an install prints is install.rs's and subdir.rs's to check; here its requests.
        at(&server.base, &home, &["install", &source, "--yes"]).success();
        assert_eq!(
            std::fs::read(home.join("plugins/p3/data/7.bin")).unwrap(),
            noise(3007, 8 << 10)
        );
        at(&server.base, &home, &["verify"]).expect(
            0,
            str![[r#"
          ok p3
1 verified, 0 changed

"#]],
            str![],
        );
        moved.push(server.fetches(&format!("/acme/{name}.git")).1);
    }
    let (partial, whole) = (moved[0], moved[1]);
    assert!(
        partial <= 2 * own,
        "the partial install moved {partial} bytes for a subdirectory of {own}"
    );
    assert!(
        whole > 20 * own,
        "the whole tree ({whole} bytes) is far more than the subdirectory ({own})"
    );
}

/// After a commit that changes only `p1`, the dry run says that `p2` and `p3` only have
/// their pin moved (their trees are the same), and lists for `p1` only the commits that
/// change its directory.
#[test]
fn the_dry_run_says_which_pins_move_and_lists_each_plugins_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t.join("acme/mono.git"), 3, 1, 64, 0);
    let base = format!("file://{}", t.display());
    let home = t.join("home");
    for p in 1..=3 {
        let source = format!("gh:acme/mono/plugins/p{p}@main");
        // What an install prints is install.rs's and subdir.rs's to check; here its requests.
        at(&base, &home, &["install", &source, "--yes"]).success();
    }
    repo.file("plugins/p1/NEWS", "fixed\n");
    repo.commit("p1: fix the goal session");
    repo.file("README.md", "the monorepo moved\n");
    repo.commit("docs: the README");
    repo.file("plugins/p1/NEWS", "fixed again\n");
    repo.commit("p1: fix it again");
    at(&base, &home, &["update", "--all", "--dry-run"]).expect(
        0,
        str![[r#"
Would update p1 to main @ [..]
  2 commits since 708c3e704a:
    [..] p1: fix it again
    [..] p1: fix the goal session
  permissions: unchanged
  consent: not needed
    Pin only p2: the repository moved to main @ e0d1c4e55d; plugins/p2 did not change (the update moves only the lock's pin; the tree stays as it is)
    Pin only p3: the repository moved to main @ e0d1c4e55d; plugins/p3 did not change (the update moves only the lock's pin; the tree stays as it is)

"#]],
        str![[r#"
    Fetching [BASE]/acme/mono.git
     Fetched e0d1c4e55d92

"#]],
    );
    let ran = at(&base, &home, &["update", "--all", "--dry-run", "--json"]);
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "dry_run": true,
  "plugins": [
    {
      "id": "p1",
      "status": "would_update",
      "from_commit": "708c3e704a0025d119fb88152ded3f2bf5b83a8f",
      "new_ref": "main",
      "commit": "e0d1c4e55d92ac3e5c36335650ab03c3b60f79e6",
      "home": "[HOME]",
      "commits": [
        {
          "id": "e0d1c4e55d92ac3e5c36335650ab03c3b60f79e6",
          "subject": "p1: fix it again"
        },
        {
          "id": "8a5d6e2c14010291d9809f23d2969b2f69f876b8",
          "subject": "p1: fix the goal session"
        }
      ],
      "more_commits": 0,
      "commits_complete": true,
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
    },
    {
      "id": "p2",
      "status": "would_move_pin",
      "from_commit": "708c3e704a0025d119fb88152ded3f2bf5b83a8f",
      "new_ref": "main",
      "commit": "e0d1c4e55d92ac3e5c36335650ab03c3b60f79e6",
      "subdir": "plugins/p2",
      "message": "the repository moved to main @ e0d1c4e55d; plugins/p2 did not change (the update moves only the lock's pin; the tree stays as it is)",
      "home": "[HOME]"
    },
    {
      "id": "p3",
      "status": "would_move_pin",
      "from_commit": "708c3e704a0025d119fb88152ded3f2bf5b83a8f",
      "new_ref": "main",
      "commit": "e0d1c4e55d92ac3e5c36335650ab03c3b60f79e6",
      "subdir": "plugins/p3",
      "message": "the repository moved to main @ e0d1c4e55d; plugins/p3 did not change (the update moves only the lock's pin; the tree stays as it is)",
      "home": "[HOME]"
    }
  ]
}

"#]], str![[r#"
    Fetching [BASE]/acme/mono.git
     Fetched e0d1c4e55d92

"#]]);
    let o = &ran.stdout;
    let doc: serde_json::Value = serde_json::from_str(o).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/change.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let errors: Vec<String> = jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(&doc)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{doc:#}");
    let statuses: Vec<(String, String)> = doc["plugins"]
        .as_array()
        .or(doc["changes"].as_array())
        .unwrap_or_else(|| panic!("{o}"))
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("p1".to_owned(), "would_update".to_owned()),
            ("p2".to_owned(), "would_move_pin".to_owned()),
            ("p3".to_owned(), "would_move_pin".to_owned()),
        ]
    );
    // The update does what the dry run said, and says its one fetch once: the group's
    // first plugin says `Fetching` and `Fetched` for all three.
    let ran = at(&base, &home, &["update", "--all", "--yes"]);
    ran.expect(
        0,
        str![[r#"
     Updated p1 to 1.0.0 (main @ e0d1c4e55d)
  Up to date p2: the repository moved to main @ e0d1c4e55d; plugins/p2 did not change (only the lock's pin moved)
  Up to date p3: the repository moved to main @ e0d1c4e55d; plugins/p3 did not change (only the lock's pin moved)

"#]],
        str![[r#"
    Fetching [BASE]/acme/mono.git
     Fetched e0d1c4e55d92

"#]],
    );
}

/// The partial clone refuses what a whole-tree fetch refuses: a path through a symlink,
/// a file, a path that is not there; and installs nothing for them.
#[test]
fn a_partial_clone_refuses_what_a_whole_tree_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t.join("work"), 1, 1, 64, 0);
    std::os::unix::fs::symlink("../..", repo.dir.join("plugins/up")).unwrap();
    repo.commit("a link");
    let served = t.join("srv");
    serve(&repo, &served, "mono", true);
    let server = CountingServer::start(&served);
    let home = t.join("home");
    let mut out = String::new();
    // Each line: exit code, path, the fetches it took (partial: the commit with its root
    // tree, then a tree a level, then the contents), what it said.
    for path in [
        "plugins/up/plugins/p1",
        "README.md",
        "plugins/nope",
        "plugins/p1",
    ] {
        server.reset();
        let ran = at(
            &server.base,
            &home,
            &["install", "gh:acme/mono@main", "--subdir", path, "--yes"],
        );
        let (code, o, e) = (ran.code, &ran.stdout, &ran.stderr);
        let said = e
            .lines()
            .find(|l| l.contains('×'))
            .unwrap_or(o.lines().last().unwrap_or_default())
            .trim()
            .to_owned();
        let fetches = server.fetches("/acme/mono.git").0;
        out.push_str(&format!("{code} {path} (fetches: {fetches}): {said}\n"));
    }
    assert_redacted(
        &out,
        &[("[TMP]", t.display().to_string())],
        str![[r#"
2 plugins/up/plugins/p1 (fetches: 3): × subdirectory "plugins/up/plugins/p1" passes through a symlink (plugins/up) at commit a017fe92b8
2 README.md (fetches: 1): × subdirectory "README.md" is not a directory of the repository at commit a017fe92b8
2 plugins/nope (fetches: 2): × subdirectory "plugins/nope" is not a directory of the repository at commit a017fe92b8
0 plugins/p1 (fetches: 3): Installed p1 1.0.0 @ a017fe92b8 in [TMP]/home/plugins/p1

"#]],
    );
}

/// Issue 43: the plugins of one repository share the requests of a command: the check
/// lists their URL once, not once per plugin (and the fetches list it no more); the trust
/// check of `outdated` takes the ancestry check's answer; a dry run's reviews share one
/// fetch per commit, which brings the history they walk.
/// Counted on a loopback smart-HTTP server, from one that sends whole trees and from one
/// that filters, as ref listings (an advertisement or `ls-refs`, the fetches' own
/// included) and fetches; none of the figures grows with the number of plugins. The one
/// fetch the plugins share is announced once (`Fetching`), not once per plugin.
#[test]
fn issue_43_the_plugins_of_one_repository_share_its_listings_and_fetches() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t.join("work"), 3, 1, 64, 0);
    let served = t.join("srv");
    serve(&repo, &served, "whole", false);
    serve(&repo, &served, "filtered", true);
    let server = CountingServer::start(&served);
    for p in 1..=3 {
        repo.file(&format!("plugins/p{p}/NEWS"), "2.0\n");
    }
    repo.commit("every plugin changes");
    let mut seen = Vec::new();
    for name in ["whole", "filtered"] {
        let home = t.join(format!("{name}-home"));
        let bare = served.join(format!("acme/{name}.git"));
        for p in 1..=3 {
            let source = format!("gh:acme/{name}/plugins/p{p}@main");
            // What an install prints is install.rs's and subdir.rs's to check; here its requests.
            at(&server.base, &home, &["install", &source, "--yes"]).success();
        }
        git(
            &repo.dir,
            &["push", "-q", bare.to_str().unwrap(), "main:main"],
        );
        let path = format!("/acme/{name}.git");
        for args in [
            &["outdated"][..],
            &["update", "--all", "--dry-run"],
            &["update", "--all", "--yes"],
        ] {
            server.reset();
            let ran = at(&server.base, &home, args);
            let (code, e) = (ran.code, &ran.stderr);
            assert!(code == 0 || args[0] == "outdated", "{}{e}", ran.stdout);
            let (listings, fetches) = server.requests(&path);
            seen.push(format!(
                "{name} {}: {listings} listings, {fetches} fetches, says `Fetching` {}x",
                args.join(" "),
                e.matches("Fetching ").count()
            ));
        }
    }
    // Before issue 43 (same servers, same plugins): `outdated` 13 listings and 4 fetches
    // (whole trees) or 6 (filtered), the dry run 16 and 7 or 15, the update 5 and 1 or 3.
    // Since issue 39 each command also asks once whether the branch's new commit contains
    // the locked one (a force-push is no ordinary update), shared by the three plugins.
    // The git command's fetches take the check's listing and fetch a branch by the id it
    // listed (no listing of their own), the ancestry check's included. `outdated`'s trust
    // check of the locked commit takes the ancestry check's answer: the branch tip the
    // check listed contains it, so it is published, with no fetch of its own. The ancestry
    // check's fetch (the branch's commits and trees, as deep as a dry run walks) is kept
    // for the command: the comparison of unchanged subdirectories, the install or the
    // review and the walk read the new commit from it, so from a whole-tree server every
    // command makes one listing and one fetch; a filtering server then sends the
    // subdirectories' files by id (one more).
    assert_eq!(
        seen,
        [
            "whole outdated: 1 listings, 1 fetches, says `Fetching` 0x",
            "whole update --all --dry-run: 1 listings, 1 fetches, says `Fetching` 1x",
            "whole update --all --yes: 1 listings, 1 fetches, says `Fetching` 1x",
            "filtered outdated: 1 listings, 2 fetches, says `Fetching` 0x",
            "filtered update --all --dry-run: 1 listings, 2 fetches, says `Fetching` 1x",
            "filtered update --all --yes: 1 listings, 2 fetches, says `Fetching` 1x",
        ]
    );
}
