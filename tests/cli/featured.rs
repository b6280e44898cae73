//! aoe's featured index at install (spec `aoe.md` §17, gates 1–2): the source a featured
//! id must come from, the reserved namespace for pinned trees, and `trust` in the lock.

use std::path::{Path, PathBuf};

use snapbox::{assert_data_eq, str};

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

fn install(base: &str, home: &Path, src: &str, index: Option<&PathBuf>) -> (i32, String, String) {
    let mut cmd = Plugins::new();
    cmd.args(["install", src, "--yes", "--no-build", "--home"])
        .arg(home)
        .env("PLUGINS_GH_BASE", base)
        .env_remove("AOE_FEATURED_INDEX_PATH")
        .env_remove("PLUGINS_FEATURED_INDEX");
    if let Some(index) = index {
        cmd.env("PLUGINS_FEATURED_INDEX", index);
    }
    cmd.run().parts()
}

#[test]
fn an_unpinned_tree_of_a_featured_id_is_community_and_refused_the_reserved_namespace() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    let home = tmp.path().join("home");
    // The built-in index pins the real plugin-github trees; this one (the manifest only) is not.
    let (code, stdout, stderr) =
        install(&base, &home, "gh:agent-of-empires/plugin-github@main", None);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("plugins::aoe::reserved_namespace"),
        "{stdout}{stderr}"
    );
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
    let (code, stdout, stderr) = install(
        &base,
        &home,
        "gh:agent-of-empires/plugin-github@main",
        Some(&index),
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = crate::support::install(&home, &[&repo.url()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "community");
}

#[test]
fn a_featured_id_from_another_source_is_refused() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "fork", None);
    let home = tmp.path().join("home");
    let (code, _, stderr) = install(&base, &home, "gh:fork/plugin-github@main", None);
    assert_eq!(code, 2, "{stderr}");
    assert_data_eq!(
        stderr,
        str![[r#"
    Fetching file://[..]/mirror/fork/plugin-github.git
     Fetched 850aa67c0431
plugins::install::featured

  × agent-of-empires.github is featured from "gh:agent-of-empires/plugin-github" but you are
  │ installing from "gh:fork/plugin-github"; refusing install
  help: install it from gh:agent-of-empires/plugin-github

"#]]
    );
}

#[test]
fn a_featured_id_with_a_release_binary_worker_is_refused() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let runtime = "[runtime]\nkind = \"release-binary\"\nasset = \"worker\"\n";
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", Some(runtime));
    let home = tmp.path().join("home");
    let (code, _, stderr) = install(&base, &home, "gh:agent-of-empires/plugin-github@main", None);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("plugins::install::featured"), "{stderr}");
    assert!(
        stderr.replace("\n  │ ", " ").contains("agent-of-empires.github is featured but ships a release-binary worker, which the featured index cannot pin yet; refusing install"),
        "{stderr}"
    );
}

#[test]
fn an_unreadable_index_override_is_an_error() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (base, _) = plugin_github(tmp.path(), &corpus, "agent-of-empires", None);
    let index = tmp.path().join("featured.toml");
    std::fs::write(&index, "plugins = 3\n").unwrap();
    let (code, _, stderr) = install(
        &base,
        &tmp.path().join("home"),
        "gh:agent-of-empires/plugin-github@main",
        Some(&index),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("plugins::install::featured"), "{stderr}");
    assert!(stderr.contains("cannot use the featured index"), "{stderr}");
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
    for index in [fifo.clone(), PathBuf::from("/dev/zero")] {
        let (code, _, stderr) = install(
            &base,
            &tmp.path().join("home"),
            "gh:agent-of-empires/plugin-github@main",
            Some(&index),
        );
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("not a regular file") && stderr.contains("plugins::install::featured"),
            "{stderr}"
        );
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
    let (code, stdout, stderr) = install(&base, &home, "gh:acme/pinned@v1.0.0", Some(&index));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "featured");
    // v2.0.0 is not pinned: it would be community, which needs consent (none without --yes).
    let (code, _, stderr) = Plugins::new()
        .args(["install", "gh:acme/pinned@v2.0.0", "--home"])
        .arg(&home)
        .env("PLUGINS_GH_BASE", &base)
        .env("PLUGINS_FEATURED_INDEX", &index)
        .run()
        .parts();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("plugins::install::declined"), "{stderr}");
    assert_eq!(locked(&home, "dev.example.pinned", "trust"), "featured");
    let (code, stdout, stderr) = install(&base, &home, "gh:acme/pinned@v2.0.0", Some(&index));
    assert_eq!(code, 0, "{stdout}{stderr}");
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
        let (code, stdout, stderr) = cmd.run().parts();
        let doc: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
        (code, doc["plugins"][0]["diagnostics"].clone())
    };
    for api in ["15", "12"] {
        let (code, diagnostics) = validate(Some(&index), api);
        assert_eq!(
            (code, &diagnostics),
            (0, &serde_json::json!([])),
            "--aoe-api {api}"
        );
    }
    // The index built in pins the release's clean checkout, not this tree.
    let (code, diagnostics) = validate(None, "15");
    assert_eq!(code, 1);
    assert_eq!(diagnostics.as_array().unwrap().len(), 1, "{diagnostics:#}");
    assert_eq!(diagnostics[0]["code"], "plugins::aoe::reserved_namespace");
    let help = diagnostics[0]["help"].as_str().unwrap();
    assert!(
        help.starts_with(&format!(
            "agent-of-empires.github is featured, but this tree's hash {} is none of the 9 versions aoe's featured index pins (0.1.0, 1.0.0, 1.2.0, 1.3.0, 1.4.0, 1.5.0, 1.6.0, 1.6.1, 1.7.0)",
            tree_hash(&tree)
        )),
        "{help}"
    );
    // An unreadable override is the command's error, as at install.
    std::fs::write(&index, "plugins = 3").unwrap();
    let (code, _, stderr) = Plugins::new()
        .args(["validate", "--path"])
        .arg(&tree)
        .env("PLUGINS_FEATURED_INDEX", &index)
        .run()
        .parts();
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot use the featured index"), "{stderr}");
}
