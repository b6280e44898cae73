//! `plugins resolve`: AWorld activation, in a documented discovery order.

use serde_json::Value;

use crate::support::*;

fn aworld_plugin(parent: &std::path::Path, dir: &str, json: &str) {
    let root = parent.join(dir).join(".aworld-plugin");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("plugin.json"), json).unwrap();
}

#[test]
fn upstream_activation_example_in_sorted_order() {
    let home = tempfile::tempdir().unwrap();
    aworld_plugin(
        home.path(),
        "1-base",
        r#"{"id": "base-tools", "version": "1"}"#,
    );
    aworld_plugin(
        home.path(),
        "2-dependent",
        r#"{"id": "dependent-tools", "version": "1", "dependencies": ["base-tools"]}"#,
    );
    aworld_plugin(
        home.path(),
        "3-missing",
        r#"{"id": "missing-dependent", "version": "1", "dependencies": ["not-installed"]}"#,
    );
    aworld_plugin(
        home.path(),
        "4-conflicting",
        r#"{"id": "conflicting-tools", "version": "1", "conflicts": ["base-tools"]}"#,
    );
    aworld_plugin(home.path(), "5-broken", r#"{"version": "1"}"#);
    aworld_plugin(
        home.path(),
        "6-dup",
        r#"{"id": "base-tools", "version": "2"}"#,
    );
    let (code, stdout, _) = Plugins::new()
        .args(["resolve", "--json", "--path"])
        .arg(home.path())
        .run()
        .parts();
    assert_eq!(code, 1, "something was skipped");
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    let ids = |k: &str| -> Vec<String> {
        doc[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids("active"), ["base-tools", "dependent-tools"]);
    let reasons: Vec<&str> = doc["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["skipped"].as_str().unwrap())
        .collect();
    assert_eq!(
        reasons,
        [
            "missing dependencies: not-installed",
            "conflicts with active plugins: base-tools",
            "invalid plugin root: missing required field: id",
            "duplicate plugin id: base-tools",
        ]
    );
    // Human output names the same decisions; a clean set exits 0.
    let (_, human, _) = Plugins::new()
        .args(["resolve", "--path"])
        .arg(home.path())
        .run()
        .parts();
    assert!(human.starts_with("active (2):\n  base-tools"), "{human}");
    let clean = tempfile::tempdir().unwrap();
    aworld_plugin(clean.path(), "a", r#"{"id": "a", "version": "1"}"#);
    let (code, _, _) = Plugins::new()
        .args(["resolve", "--path"])
        .arg(clean.path())
        .run()
        .parts();
    assert_eq!(code, 0);
    let (code, _, _) = Plugins::new()
        .args(["resolve", "--path", "/nonexistent"])
        .run()
        .parts();
    assert_eq!(code, 2);
}

#[test]
fn unreadable_manifests_are_skipped_with_the_validate_guards() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad/.aworld-plugin");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join("plugin.json"),
        b"{\"id\": \"bad\", \"version\": \"1\xff\"}",
    )
    .unwrap();
    let pipe = tmp.path().join("pipe/.aworld-plugin");
    std::fs::create_dir_all(&pipe).unwrap();
    let ok = std::process::Command::new("mkfifo")
        .arg(pipe.join("plugin.json"))
        .status()
        .unwrap()
        .success();
    assert!(ok);
    // A FIFO manifest must not hang `resolve`.
    let (code, stdout, _) = Plugins::new()
        .args(["resolve", "--path"])
        .arg(tmp.path())
        .run()
        .parts();
    assert_eq!(code, 1);
    snapbox::assert_data_eq!(
        stdout,
        snapbox::str![[r#"
active (0):
skipped (2):
  bad                          unreadable manifest: .aworld-plugin/plugin.json is not valid UTF-8
  pipe                         unreadable manifest: .aworld-plugin/plugin.json is not a regular file

"#]]
    );
}
