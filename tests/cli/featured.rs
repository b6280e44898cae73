//! aoe's featured index at install (spec `aoe.md` §17, gates 1–2): the source a featured
//! id must come from, the reserved namespace for pinned trees, and `trust` in the lock.

use std::path::{Path, PathBuf};

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::*;

/// aoe's tree hash of a directory of plain files (`.git` skipped), computed here
/// independently of `plugins`.
fn tree_hash(dir: &Path) -> String {
    use sha2::{Digest, Sha256};
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
                files.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    let mut h = Sha256::new();
    h.update(b"aoe-plugin-tree-hash-v1\0");
    for (rel, bytes) in files {
        h.update(b"file\0");
        h.update(rel.as_bytes());
        h.update(b"\0");
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// plugin-github 1.6.1's manifest (the corpus copy) in a repository mirrored as
/// `gh:<owner>/plugin-github`; returns the clone base and the repository.
fn plugin_github(tmp: &Path, corpus: &Path, owner: &str, runtime: Option<&str>) -> (String, Repo) {
    let repo = Repo::init(&tmp.join("work"));
    let mut manifest =
        std::fs::read_to_string(corpus.join("aoe/plugin-github-v1.6.1/aoe-plugin.toml")).unwrap();
    if let Some(runtime) = runtime {
        let at = manifest.find("[runtime]").unwrap();
        manifest = format!("{}{runtime}", &manifest[..at]);
    }
    repo.file("aoe-plugin.toml", &manifest);
    repo.commit("1.6.1");
    repo.clone_bare(&tmp.join(format!("mirror/{owner}/plugin-github.git")));
    (format!("file://{}", tmp.join("mirror").display()), repo)
}

/// `plugins install <src> --yes --no-build` into `home` (in the test's temp dir, `[TMP]`).
fn install(base: &str, home: &Path, src: &str, index: Option<&PathBuf>) -> Ran {
    let mut cmd = Plugins::new();
    cmd.args(["install", src, "--yes", "--no-build", "--home"])
        .arg(home)
        .env("PLUGINS_GH_BASE", base)
        .env_remove("AOE_FEATURED_INDEX_PATH")
        .env_remove("PLUGINS_FEATURED_INDEX");
    if let Some(index) = index {
        cmd.env("PLUGINS_FEATURED_INDEX", index);
    }
    cmd.redact("[TMP]", home.parent().unwrap()).run()
}

#[test]
fn an_unpinned_tree_of_a_featured_id_is_community_and_refused_the_reserved_namespace() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    let home = tmp.path().join("home");
    // The built-in index pins the real plugin-github trees; this one (the manifest only) is not.
    install(&base, &home, "gh:agent-of-empires/plugin-github@main", None).expect(1, str![[r#"
plugins::aoe::reserved_namespace

  ⚠ plugin id "agent-of-empires.github" uses a reserved namespace (aoe.* / agent-of-empires.*);
  │ only a featured-verified plugin may claim one
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:12:6]
 11 │ 
 12 │ id = "agent-of-empires.github"
    ·      ─────────────────────────
 13 │ name = "GitHub"
    ╰────
  help: only a plugin of aoe's featured index, at a tree hash the index pins, may claim it; choose
        your own namespace, e.g. "dev.example.name"
plugins::aoe::doc_gate

  ⚠ the `session.read` capability is documented as api_version >= 9; this manifest declares 6
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:20:15]
 19 │ # command it cannot run.
 20 │ api_version = 6
    ·               ┬
    ·               ╰── api_version declared here
 21 │ # Host-app compatibility range (different axis from api_version, which is the
    ╰────
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:49:42]
 48 │ #                   on this grant.
 49 │ capabilities = ["net", "runtime.worker", "session.read", "notifications", "browser_open"]
    ·                                          ──────────────
 50 │ 
    ╰────
  help: the host does not enforce it, but set `api_version = 9` or higher to match the docs
plugins::aoe::missing_file

  ⚠ "assets/screenshots/session-rows.png" does not exist in the plugin tree
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:57:8]
 56 │ [[screenshots]]
 57 │ path = "assets/screenshots/session-rows.png"
    ·        ─────────────────────────────────────
 58 │ alt = "Two session rows, each showing a colored PR icon for an attached open pull request."
    ╰────
  help: the host resolves it against the repository at the installed ref, so it must be committed
plugins::aoe::missing_file

  ⚠ "assets/screenshots/ci.png" does not exist in the plugin tree
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:62:8]
 61 │ [[screenshots]]
 62 │ path = "assets/screenshots/ci.png"
    ·        ───────────────────────────
 63 │ alt = "The GitHub pane showing CI check results for a session's pull request."
    ╰────
  help: the host resolves it against the repository at the installed ref, so it must be committed
plugins::aoe::missing_file

  ⚠ "assets/screenshots/comments.png" does not exist in the plugin tree
    ╭─[gh:agent-of-empires/plugin-github@main:aoe-plugin.toml:67:8]
 66 │ [[screenshots]]
 67 │ path = "assets/screenshots/comments.png"
    ·        ─────────────────────────────────
 68 │ alt = "The GitHub pane showing a CodeRabbit review with unresolved comments on a pull request."
    ╰────
  help: the host resolves it against the repository at the installed ref, so it must be committed
    Valid aoe plugin `agent-of-empires.github` 1.6.1 at gh:agent-of-empires/plugin-github@main (5 warnings)

"#]], str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched 850aa67c0431
plugins::install::invalid

  × refusing to install: agent-of-empires.github would be refused by its host's installer (the
  │ warning above)
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    assert!(!home.join("plugins/agent-of-empires.github").exists());
}

#[test]
fn a_pinned_tree_is_featured_verified_and_locked_as_featured() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, repo) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    // The real index's facts, plus this tree's hash pinned as 1.6.1-test.
    let real = std::fs::read_to_string(corpus.join("aoe/featured.toml")).unwrap();
    let index = tmp.path().join("featured.toml");
    std::fs::write(
        &index,
        real.replace(
            "versions = {",
            &format!(
                "versions = {{\"1.6.1-test\" = \"{}\", ",
                tree_hash(&repo.dir)
            ),
        ),
    )
    .unwrap();
    let home = tmp.path().join("home");
    install(
        &base,
        &home,
        "gh:agent-of-empires/plugin-github@main",
        Some(&index),
    )
    .expect(0, str![[r#"
   Installed agent-of-empires.github 1.6.1 @ 850aa67c04 in [TMP]/home/plugins/agent-of-empires.github

"#]], str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched 850aa67c0431
aoe plugin `agent-of-empires.github` 1.6.1 from gh:agent-of-empires/plugin-github @ 850aa67c0431
  capabilities: net, runtime.worker, session.read, notifications, browser_open
  build steps:  python3 -m venv .aoe-build/venv, .aoe-build/venv/bin/pip install .
  ui:           row-badge github_pr_badge, pane github_pane, row-column github_pr_status, sort-key github_pr_attention

"#]]);
    assert_eq!(
        locked(&home, "agent-of-empires.github", "trust"),
        "featured"
    );
    assert_eq!(
        locked(&home, "agent-of-empires.github", "tree_hash"),
        tree_hash(&repo.dir)
    );
}

#[test]
fn a_community_plugin_is_locked_as_community() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &crate::support::static_aoe("1.0.0"));
    repo.commit("one");
    let home = tmp.path().join("home");
    crate::support::installing(&home, &[&repo.url()])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 1.0.0 @ 1e89944df1 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching file://[TMP]/work
     Fetched 1e89944df1ab

"#]],
        );
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "community");
}

#[test]
fn a_featured_id_from_another_source_is_refused() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "fork", None);
    let home = tmp.path().join("home");
    install(&base, &home, "gh:fork/plugin-github@main", None).expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/mirror/fork/plugin-github.git
     Fetched 850aa67c0431
plugins::install::featured

  × agent-of-empires.github is featured from "gh:agent-of-empires/plugin-github" but you are
  │ installing from "gh:fork/plugin-github"; refusing install
  help: install it from gh:agent-of-empires/plugin-github

"#]],
    );
}

#[test]
fn a_featured_id_with_a_release_binary_worker_is_refused() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let runtime = "[runtime]\nkind = \"release-binary\"\nasset = \"worker\"\n";
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", Some(runtime));
    let home = tmp.path().join("home");
    install(&base, &home, "gh:agent-of-empires/plugin-github@main", None).expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched aaf9527c1269
plugins::install::featured

  × agent-of-empires.github is featured but ships a release-binary worker, which the featured
  │ index cannot pin yet; refusing install

"#]],
    );
}

#[test]
fn an_unreadable_index_override_is_an_error() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    let index = tmp.path().join("featured.toml");
    std::fs::write(&index, "plugins = 3\n").unwrap();
    install(
        &base,
        &tmp.path().join("home"),
        "gh:agent-of-empires/plugin-github@main",
        Some(&index),
    )
    .expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched 850aa67c0431
plugins::install::featured

  × cannot use the featured index [TMP]/featured.toml: invalid type: integer `3`,
  │ expected a map
  help: fix or unset PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH

"#]],
    );
}

/// An index named by the environment is read only as a regular file of bounded size: a
/// FIFO does not hang the install and a device is not read until memory runs out.
#[test]
fn an_index_override_that_is_not_a_regular_file_is_refused_at_once() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    let fifo = tmp.path().join("featured.fifo");
    crate::support::mkfifo(&fifo);
    for (index, refused) in [
        (
            fifo.clone(),
            str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched 850aa67c0431
plugins::install::featured

  × cannot use the featured index [TMP]/featured.fifo: not a regular file
  help: fix or unset PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH

"#]],
        ),
        (
            PathBuf::from("/dev/zero"),
            str![[r#"
    Fetching file://[TMP]/mirror/agent-of-empires/plugin-github.git
     Fetched 850aa67c0431
plugins::install::featured

  × cannot use the featured index /dev/zero: not a regular file
  help: fix or unset PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH

"#]],
        ),
    ] {
        install(
            &base,
            &tmp.path().join("home"),
            "gh:agent-of-empires/plugin-github@main",
            Some(&index),
        )
        .expect(2, str![], refused);
    }
}

#[test]
fn an_update_from_featured_to_community_asks_again() {
    let tmp = tempfile::tempdir().unwrap();
    // dev.example.pinned: v1.0.0, v2.0.0 (tags), main; featured at v1.0.0 only.
    let (repo, _) = crate::support::history(&tmp.path().join("work"));
    git(&repo.dir, &["checkout", "-q", "v1.0.0"]);
    let v1 = tree_hash(&repo.dir);
    git(&repo.dir, &["checkout", "-q", "main"]);
    repo.clone_bare(&tmp.path().join("mirror/acme/pinned.git"));
    let base = format!("file://{}", tmp.path().join("mirror").display());
    let index = tmp.path().join("featured.toml");
    std::fs::write(
        &index,
        format!("[plugins.\"dev.example.pinned\"]\nsource = \"gh:acme/pinned\"\nversions = {{ \"1.0.0\" = \"{v1}\" }}\n"),
    )
    .unwrap();
    let home = tmp.path().join("home");
    install(&base, &home, "gh:acme/pinned@v1.0.0", Some(&index)).expect(
        0,
        str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching file://[TMP]/mirror/acme/pinned.git
     Fetched 98dbc36b17da

"#]],
    );
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "featured");
    // v2.0.0 is not pinned: it would be community, which needs consent (none without --yes).
    Plugins::new()
        .args(["install", "gh:acme/pinned@v2.0.0", "--home"])
        .arg(&home)
        .env("PLUGINS_GH_BASE", &base)
        .env("PLUGINS_FEATURED_INDEX", &index)
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/mirror/acme/pinned.git
     Fetched c7849e65b960
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/pinned @ c7849e65b960
  asked again:  trust featured -> community (not a pinned featured version)
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::declined

  × this is unverified, un-audited code; re-run with --yes to install it
  help: pass --yes to grant what is listed above

"#]],
        );
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "featured");
    install(&base, &home, "gh:acme/pinned@v2.0.0", Some(&index)).expect(
        0,
        str![[r#"
   Installed dev.example.pinned 2.0.0 @ c7849e65b9 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching file://[TMP]/mirror/acme/pinned.git
     Fetched c7849e65b960
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/pinned @ c7849e65b960
  asked again:  trust featured -> community (not a pinned featured version)
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
    );
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "community");
}

/// `validate` consults the featured index as install does (and as aoe does at load: the
/// tree hash among the id's pinned versions): plugin-github at a pinned hash validates
/// under the GitHub Action's defaults (`--strict`, both profiles) without the reserved
/// namespace; the same tree unpinned keeps that warning, saying which versions are pinned.
/// (1.6.1 declares `session.read` at api_version 6, which aoe's docs put at 9: that
/// lint, `plugins::aoe::doc_gate`, is the one thing left, and it is allowed here.)
#[test]
fn validate_treats_a_tree_at_a_pinned_hash_as_featured() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("plugin-github");
    std::fs::create_dir(&tree).unwrap();
    std::fs::copy(
        corpus.join("aoe/plugin-github-v1.6.1/aoe-plugin.toml"),
        tree.join("aoe-plugin.toml"),
    )
    .unwrap();
    // Its screenshots (the worker is built by its build steps).
    std::fs::create_dir_all(tree.join("assets/screenshots")).unwrap();
    for shot in ["session-rows", "ci", "comments"] {
        std::fs::write(tree.join(format!("assets/screenshots/{shot}.png")), shot).unwrap();
    }
    let real = std::fs::read_to_string(corpus.join("aoe/featured.toml")).unwrap();
    let index = tmp.path().join("featured.toml");
    std::fs::write(
        &index,
        real.replace(
            "versions = {",
            &format!("versions = {{\"1.6.1-test\" = \"{}\", ", tree_hash(&tree)),
        ),
    )
    .unwrap();
    let validate = |index: Option<&Path>, api: &str| {
        let mut cmd = Plugins::new();
        cmd.args([
            "validate",
            "--strict",
            "--format",
            "json",
            "--aoe-api",
            api,
            "-A",
            "plugins::aoe::doc_gate",
            "--path",
        ])
        .arg(&tree)
        .env_remove("AOE_FEATURED_INDEX_PATH")
        .env_remove("PLUGINS_FEATURED_INDEX");
        if let Some(index) = index {
            cmd.env("PLUGINS_FEATURED_INDEX", index);
        }
        cmd.tmp(tmp.path()).redact("[TREE]", tree_hash(&tree)).run()
    };
    validate(Some(&index), "15").expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "valid": true,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 1,
    "invalid": 0,
    "errors": 0,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[TMP]/plugin-github",
      "manifest": "[TMP]/plugin-github/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "agent-of-empires.github",
      "version": "1.6.1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:a109f1963e07902e5d87b009bd28b96b4caed6a42d51a388dbf4cb56253c67c5",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
        str![],
    );
    validate(Some(&index), "12").expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "valid": true,
  "aoe_api": 12,
  "summary": {
    "plugins": 1,
    "valid": 1,
    "invalid": 0,
    "errors": 0,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[TMP]/plugin-github",
      "manifest": "[TMP]/plugin-github/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "agent-of-empires.github",
      "version": "1.6.1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:a109f1963e07902e5d87b009bd28b96b4caed6a42d51a388dbf4cb56253c67c5",
      "diagnostics": [],
      "skipped": null
    }
  ]
}

"#]],
        str![],
    );
    // The index built in pins the release's clean checkout, not this tree.
    validate(None, "15").expect(1, str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 1,
    "valid": 0,
    "invalid": 1,
    "errors": 1,
    "warnings": 0
  },
  "plugins": [
    {
      "root": "[TMP]/plugin-github",
      "manifest": "[TMP]/plugin-github/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "agent-of-empires.github",
      "version": "1.6.1",
      "valid": false,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:a109f1963e07902e5d87b009bd28b96b4caed6a42d51a388dbf4cb56253c67c5",
      "diagnostics": [
        {
          "code": "plugins::aoe::reserved_namespace",
          "severity": "error",
          "message": "plugin id \"agent-of-empires.github\" uses a reserved namespace (aoe.* / agent-of-empires.*); only a featured-verified plugin may claim one",
          "help": "agent-of-empires.github is featured, but this tree's hash [TREE] is none of the 9 versions aoe's featured index pins (0.1.0, 1.0.0, 1.2.0, 1.3.0, 1.4.0, 1.5.0, 1.6.0, 1.6.1, 1.7.0): aoe installs and loads it as a community plugin, which may not claim the namespace. Validate a clean checkout of a pinned release, or choose your own namespace, e.g. \"dev.example.name\"",
          "labels": [
            {
              "start": 535,
              "end": 560,
              "line": 12,
              "column": 6,
              "end_line": 12,
              "end_column": 31,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": null
    }
  ]
}

"#]], str![]);
    // An unreadable override is the command's error, as at install.
    std::fs::write(&index, "plugins = 3").unwrap();
    Plugins::new()
        .args(["validate", "--path"])
        .arg(&tree)
        .env("PLUGINS_FEATURED_INDEX", &index)
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
plugins::install::featured

  × cannot use the featured index [TMP]/featured.toml: invalid type: integer `3`,
  │ expected a map
  help: fix or unset PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH

"#]],
        );
}
