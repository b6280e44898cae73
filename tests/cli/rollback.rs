//! `plugins rollback`: updates keep the last two replaced versions; a rollback
//! restores one (files and lock entry) as a transaction.

use std::path::Path;

use snapbox::{assert_data_eq, str};

use crate::install::{install, locked, static_aoe};
use crate::support::git::Repo;
use crate::support::*;

const ID: &str = "dev.example.pinned";

fn rollback(home: &Path, extra: &[&str]) -> (i32, String, String) {
    run(plugins()
        .args(["rollback", ID])
        .args(extra)
        .arg("--home")
        .arg(home))
}

fn update(home: &Path) {
    let (code, o, e) = run(plugins()
        .args(["update", "--all", "--yes", "--home"])
        .arg(home));
    assert_eq!(code, 0, "{o}{e}");
}

fn kept(home: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(home.join(".plugins/history").join(ID))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn rollback_restores_a_kept_version_and_keeps_two() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    let mut commits = Vec::new();
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    commits.push(repo.commit("v1"));
    let (code, o, e) = install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");

    // Nothing kept yet: an install is not an update.
    let (code, _, stderr) = rollback(&home, &[]);
    assert_eq!(code, 2);
    assert!(stderr.contains("plugins::rollback::no_history"), "{stderr}");

    for v in 2..=4 {
        repo.file("aoe-plugin.toml", &static_aoe(&format!("{v}.0.0")));
        commits.push(repo.commit(&format!("v{v}")));
        update(&home);
    }
    // v2 and v3 are kept; v1 was dropped; nothing is kept inside plugins/.
    assert_eq!(kept(&home), ["2", "3"]);
    assert!(!home.join("plugins/.plugins").exists());

    let (code, stdout, stderr) = rollback(&home, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let shown = stdout
        .replace(&home.display().to_string(), "[HOME]")
        .replace(&commits[3][..7], "[C4]")
        .replace(&commits[2][..7], "[C3]");
    assert_data_eq!(
        shown,
        str![[r#"
 Rolled back dev.example.pinned 4.0.0 ([C4]) -> 3.0.0 ([C3]) in [HOME]
        Held dev.example.pinned at 3.0.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.pinned` or `plugins unhold dev.example.pinned`

"#]]
    );
    assert_eq!(locked(&home, ID, "version"), "3.0.0");
    assert_eq!(locked(&home, ID, "resolved_commit"), commits[2]);
    // The restored slot is gone; the version rolled back from is kept.
    assert_eq!(kept(&home), ["2", "4"]);
    let (code, o, e) = run(plugins().args(["verify", "--home"]).arg(&home));
    assert_eq!(
        code, 0,
        "the restored files match the restored entry: {o}{e}"
    );

    // --to picks a kept commit by prefix; the installed one is up to date.
    let (code, o, e) = rollback(&home, &["--to", &commits[1][..10], "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    let doc: serde_json::Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "rolled_back");
    assert_eq!(doc["plugins"][0]["from_commit"], commits[2].as_str());
    assert_eq!(locked(&home, ID, "version"), "2.0.0");
    let (code, o, _) = rollback(&home, &["--to", &commits[1], "--json"]);
    assert_eq!(code, 0);
    assert!(o.contains("\"up_to_date\""), "{o}");

    // v1 was dropped long ago.
    let (code, _, stderr) = rollback(&home, &["--to", &commits[0][..8]]);
    assert_eq!(code, 2);
    assert!(stderr.contains("plugins::rollback::not_kept"), "{stderr}");

    // A removal takes the plugin's history with it.
    let (code, o, e) = run(plugins().args(["remove", ID, "--home"]).arg(&home));
    assert_eq!(code, 0, "{o}{e}");
    assert!(kept(&home).is_empty());
    let (code, _, stderr) = rollback(&home, &[]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("plugins::install::not_installed"),
        "{stderr}"
    );
}
