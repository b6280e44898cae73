//! Plugins in a subdirectory of a repository (a monorepo): `gh:owner/repo/path@ref` and
//! `--subdir PATH`, recorded in each host's lock as `subdir`, kept by `update` and `sync`.

use std::path::Path;

use snapbox::{assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

/// `acme/mono` served as `gh:acme/mono` from `<t>/acme/mono.git`: an aoe plugin in
/// `plugins/web`, a protoAgent one in `plugins/notes`, an AWorld one in `aworld/helper`.
fn monorepo(t: &Path) -> Repo {
    let repo = Repo::init(&t.join("acme/mono.git"));
    repo.file("README.md", "a monorepo\n")
        .file("plugins/web/aoe-plugin.toml", &static_aoe("1.0.0"))
        .file(
            "plugins/notes/protoagent.plugin.yaml",
            "id: notebook\nname: Notes\nversion: 1.0.0\n",
        )
        .file("plugins/notes/__init__.py", "def register(r):\n    pass\n")
        .file(
            "aworld/helper/.aworld-plugin/plugin.json",
            r#"{"id": "helper", "version": "1.0.0"}"#,
        );
    repo.commit("v1");
    repo
}

fn plugins_at(t: &Path, home: &Path, args: &[&str]) -> (i32, String, String) {
    Plugins::new()
        .args(args)
        .home(home)
        .env("PLUGINS_GH_BASE", format!("file://{}", t.display()))
        .env("COLUMNS", "400")
        .tmp(t)
        .run()
        .redacted_parts()
}

#[test]
fn a_monorepo_plugin_installs_updates_and_syncs_from_its_subdirectory() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t);
    let home = t.join("aoe-home");
    let (code, stdout, stderr) = plugins_at(
        &t,
        &home,
        &["install", "gh:acme/mono/plugins/web@main", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    // Only the subdirectory is installed; the lock keeps the repository and the path.
    assert!(
        home.join("plugins/dev.example.pinned/aoe-plugin.toml")
            .is_file()
    );
    assert!(!home.join("plugins/dev.example.pinned/README.md").exists());
    let lock = crate::support::lock(&home);
    let row = &lock["plugins"]["dev.example.pinned"];
    assert_eq!(row["source"].as_str(), Some("gh:acme/mono"));
    assert_eq!(row["subdir"].as_str(), Some("plugins/web"));
    assert_eq!(row["version"].as_str(), Some("1.0.0"));

    // A new commit: outdated sees it, update installs it from the same subdirectory.
    repo.file("plugins/web/aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    let (_, stdout, stderr) = plugins_at(&t, &home, &["outdated"]);
    assert!(stdout.contains("dev.example.pinned"), "{stdout}{stderr}");
    let (code, stdout, stderr) = plugins_at(&t, &home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let lock = crate::support::lock(&home);
    let row = &lock["plugins"]["dev.example.pinned"];
    assert_eq!(row["version"].as_str(), Some("2.0.0"));
    assert_eq!(row["subdir"].as_str(), Some("plugins/web"));
    assert!(!home.join("plugins/dev.example.pinned/README.md").exists());

    // sync puts a deleted install back from the subdirectory at the locked commit.
    std::fs::remove_dir_all(home.join("plugins/dev.example.pinned")).unwrap();
    let (code, stdout, stderr) = plugins_at(&t, &home, &["sync"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        home.join("plugins/dev.example.pinned/aoe-plugin.toml")
            .is_file()
    );
    let (code, stdout, stderr) = plugins_at(&t, &home, &["verify"]);
    assert_eq!(code, 0, "{stdout}{stderr}");

    // protoAgent (`--subdir` with a URL): the host's JSON row gets `subdir`, which it ignores.
    let proto = t.join("proto-home");
    let url = format!("file://{}", t.join("acme/mono.git").display());
    let (code, stdout, stderr) = plugins_at(
        &t,
        &proto,
        &["install", &url, "--subdir", "plugins/notes/", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(proto.join("plugins.lock")).unwrap())
            .unwrap();
    assert_eq!(lock["plugins"][0]["subdir"], "plugins/notes");
    assert_eq!(lock["plugins"][0]["source_url"], url.as_str());
    assert!(
        proto
            .join("plugins/notebook/protoagent.plugin.yaml")
            .is_file()
    );

    // AWorld: `plugins`' own lock holds it.
    let aworld = t.join("aworld-home");
    let (code, stdout, stderr) = plugins_at(
        &t,
        &aworld,
        &[
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "aworld/helper",
            "--yes",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let lock: toml::Table = std::fs::read_to_string(aworld.join("plugins.lock"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        lock["plugins"]["helper"]["subdir"].as_str(),
        Some("aworld/helper")
    );
}

#[test]
fn hostile_subdirectories_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t);
    std::os::unix::fs::symlink("../..", repo.dir.join("plugins/up")).unwrap();
    std::os::unix::fs::symlink("/etc", repo.dir.join("plugins/etc")).unwrap();
    // A plugin whose file links to a sibling directory (outside the installed tree).
    repo.file("plugins/leaky/aoe-plugin.toml", &static_aoe("1.0.0"));
    std::os::unix::fs::symlink("../notes/__init__.py", repo.dir.join("plugins/leaky/x.py"))
        .unwrap();
    repo.commit("links");
    let home = t.join("home");
    let mut out = String::new();
    for args in [
        vec!["install", "gh:acme/mono/../x@main", "--yes"],
        vec!["install", "gh:acme/mono@main", "--subdir", "/etc", "--yes"],
        vec![
            "install",
            "gh:acme/mono/plugins/web@main",
            "--subdir",
            "plugins/notes",
            "--yes",
        ],
        vec![
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "plugins/up/acme",
            "--yes",
        ],
        vec![
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "plugins/etc",
            "--yes",
        ],
        vec![
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "plugins/nope",
            "--yes",
        ],
        vec![
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "README.md",
            "--yes",
        ],
        vec![
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "plugins/leaky",
            "--yes",
        ],
    ] {
        let (code, stdout, stderr) = plugins_at(&t, &home, &args);
        let last = stderr
            .lines()
            .filter(|l| l.contains('×') || l.starts_with("plugins::"))
            .collect::<Vec<_>>()
            .join(" ");
        out.push_str(&format!("{code} {} => {last}\n", args[1..].join(" ")));
        assert!(!stdout.contains("Installed"), "{stdout}");
    }
    assert!(
        !home.join("plugins").exists()
            || std::fs::read_dir(home.join("plugins")).unwrap().count() == 0
    );
    assert_eq!(out.matches("plugins::install::subdir").count(), 4, "{out}");
    assert_data_eq!(
        out,
        str![[r#"
2 gh:acme/mono/../x@main --yes => plugins::usage::invalid_argument   × subdirectory "../x" is not a relative path inside the repository (no `..`, absolute or empty parts)
2 gh:acme/mono@main --subdir /etc --yes => plugins::usage::invalid_argument   × subdirectory "/etc" is not a relative path inside the repository (no `..`, absolute or empty parts)
2 gh:acme/mono/plugins/web@main --subdir plugins/notes --yes => plugins::usage::invalid_argument   × the source names subdirectory "plugins/web" but --subdir says "plugins/notes"
2 gh:acme/mono@main --subdir plugins/up/acme --yes => plugins::install::subdir   × subdirectory "plugins/up/acme" passes through a symlink (plugins/up) at commit 951baa9b02
2 gh:acme/mono@main --subdir plugins/etc --yes => plugins::install::subdir   × subdirectory "plugins/etc" passes through a symlink (plugins/etc) at commit 951baa9b02
2 gh:acme/mono@main --subdir plugins/nope --yes => plugins::install::subdir   × subdirectory "plugins/nope" is not a directory of the repository at commit 951baa9b02
2 gh:acme/mono@main --subdir README.md --yes => plugins::install::subdir   × subdirectory "README.md" is not a directory of the repository at commit 951baa9b02
1 gh:acme/mono@main --subdir plugins/leaky --yes => plugins::install::invalid   × refusing to install: dev.example.pinned would be refused by its host's installer (the warning above)

"#]]
    );
}

/// The monorepo moves (a commit outside `plugins/web`): the plugin is not outdated, and an
/// update only moves the lock's pin, saying so; a change inside the subdirectory is an
/// update. `list` and `info` show the subdirectory.
#[test]
fn a_commit_outside_the_subdirectory_is_not_an_update() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = monorepo(&t);
    let home = t.join("home");
    let (code, stdout, stderr) = plugins_at(
        &t,
        &home,
        &["install", "gh:acme/mono/plugins/web@main", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, _) = plugins_at(&t, &home, &["list"]);
    assert_eq!(code, 0);
    assert_data_eq!(
        stdout,
        str![[r#"
ID                  VERSION  DIALECT  REF   COMMIT      SOURCE
dev.example.pinned  1.0.0    aoe      main  [..]  gh:acme/mono (subdir plugins/web)

"#]]
    );
    let (_, stdout, _) = plugins_at(&t, &home, &["list", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["plugins"][0]["subdir"], "plugins/web");
    let (_, stdout, _) = plugins_at(&t, &home, &["info", "dev.example.pinned"]);
    assert!(
        stdout.contains("  source:   gh:acme/mono\n  subdir:   plugins/web\n"),
        "{stdout}"
    );
    let (_, stdout, _) = plugins_at(&t, &home, &["info", "dev.example.pinned", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["subdir"], "plugins/web");

    let config = std::fs::read_to_string(home.join("config.toml")).unwrap_or_default();
    repo.file("README.md", "the monorepo moved\n").file(
        "plugins/notes/__init__.py",
        "def register(r):\n    return None\n",
    );
    let moved = repo.commit("elsewhere");
    let (code, stdout, stderr) = plugins_at(&t, &home, &["outdated", "--exit-code"]);
    assert_eq!(code, 0, "not outdated: {stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "dev.example.pinned               {:<28} up to date (the repository moved to {}; plugins/web did not change)\n",
            format!(
                "main @ {}",
                &crate::support::locked(&home, "dev.example.pinned", "resolved_commit")[..10]
            ),
            &moved[..10]
        )
    );
    let (_, stdout, _) = plugins_at(&t, &home, &["outdated", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (
            row["status"].as_str(),
            row["subdir"].as_str(),
            row["commit"].as_str()
        ),
        (
            Some("up_to_date"),
            Some("plugins/web"),
            Some(moved.as_str())
        )
    );

    let before = std::fs::read(home.join("plugins/dev.example.pinned/aoe-plugin.toml")).unwrap();
    let (code, stdout, stderr) = plugins_at(&t, &home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        stdout,
        format!(
            "  Up to date dev.example.pinned: the repository moved to main @ {}; plugins/web did not change (only the lock's pin moved)\n",
            &moved[..10]
        )
    );
    assert_eq!(
        crate::support::locked(&home, "dev.example.pinned", "resolved_commit"),
        moved
    );
    assert_eq!(
        std::fs::read(home.join("plugins/dev.example.pinned/aoe-plugin.toml")).unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_to_string(home.join("config.toml")).unwrap_or_default(),
        config,
        "the grant is untouched"
    );
    let (code, stdout, stderr) = plugins_at(&t, &home, &["verify"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (_, stdout, _) = plugins_at(&t, &home, &["outdated"]);
    assert!(stdout.ends_with("  up to date\n"), "{stdout}");

    // A change inside the subdirectory is an update.
    repo.file("plugins/web/aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("web 2");
    let (code, _, _) = plugins_at(&t, &home, &["outdated", "--exit-code"]);
    assert_eq!(code, 3, "outdated");
    let (code, stdout, stderr) = plugins_at(&t, &home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("Updated dev.example.pinned"), "{stdout}");
    assert_eq!(
        crate::support::locked(&home, "dev.example.pinned", "version"),
        "2.0.0"
    );
}

/// `--subdir p//web` is refused (the docs promise plain parts), and a hand-edited lock row
/// whose `subdir` climbs out of the repository is reported by `verify`.
#[test]
fn empty_parts_and_a_hand_edited_subdir_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    monorepo(&t);
    let home = t.join("home");
    let (code, _, stderr) = plugins_at(
        &t,
        &home,
        &[
            "install",
            "gh:acme/mono@main",
            "--subdir",
            "plugins//web",
            "--yes",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is not a relative path inside the repository"),
        "{stderr}"
    );
    let (code, o, e) = plugins_at(
        &t,
        &home,
        &["install", "gh:acme/mono/plugins/web@main", "--yes"],
    );
    assert_eq!(code, 0, "{o}{e}");
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        lock.replace("subdir = \"plugins/web\"", "subdir = \"../..\""),
    )
    .unwrap();
    let (code, stdout, stderr) = plugins_at(&t, &home, &["verify"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        (stdout.clone() + &stderr).contains(
            "the lock's subdir: subdirectory \"../..\" is not a relative path inside the repository"
        ),
        "{stdout}{stderr}"
    );
}

/// A GitHub page of a plugin's directory at a ref (protoAgent's catalog lists plugins so)
/// installs as the `gh:` source it is: through the gh mirror in use, recorded as
/// `gh:acme/mono` with its subdirectory and ref, exactly as `gh:acme/mono/plugins/web@main`.
#[test]
fn a_github_tree_url_installs_as_its_gh_source() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    monorepo(&t);
    let [by_url, by_gh] = ["by-url", "by-gh"].map(|h| t.join(h));
    let (code, stdout, stderr) = plugins_at(
        &t,
        &by_url,
        &[
            "install",
            "https://github.com/acme/mono/tree/main/plugins/web",
            "--yes",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, stderr) = plugins_at(
        &t,
        &by_gh,
        &["install", "gh:acme/mono/plugins/web@main", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        std::fs::read_to_string(by_url.join("plugins.lock")).unwrap(),
        std::fs::read_to_string(by_gh.join("plugins.lock")).unwrap()
    );
    let lock = crate::support::lock(&by_url);
    let row = &lock["plugins"]["dev.example.pinned"];
    assert_eq!(
        (
            row["source"].as_str(),
            row["subdir"].as_str(),
            row["requested_ref"].as_str()
        ),
        (Some("gh:acme/mono"), Some("plugins/web"), Some("main"))
    );
}
