//! `plugins resolve`: AWorld activation, in a documented discovery order.

use snapbox::str;

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
    let resolve = |args: &[&str], path: &std::path::Path| {
        Plugins::new()
            .arg("resolve")
            .args(args)
            .arg("--path")
            .arg(path)
            .redact("[ROOT]", path)
            .run()
    };
    // Something was skipped: exit 1.
    resolve(&["--json"], home.path()).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "order": "path order, children sorted by name",
  "active": [
    {
      "id": "base-tools",
      "path": "[ROOT]/1-base",
      "framework": "manifest",
      "skipped": null
    },
    {
      "id": "dependent-tools",
      "path": "[ROOT]/2-dependent",
      "framework": "manifest",
      "skipped": null
    }
  ],
  "skipped": [
    {
      "id": "missing-dependent",
      "path": "[ROOT]/3-missing",
      "framework": "manifest",
      "skipped": "missing dependencies: not-installed"
    },
    {
      "id": "conflicting-tools",
      "path": "[ROOT]/4-conflicting",
      "framework": "manifest",
      "skipped": "conflicts with active plugins: base-tools"
    },
    {
      "id": "5-broken",
      "path": "[ROOT]/5-broken",
      "framework": "manifest",
      "skipped": "invalid plugin root: missing required field: id"
    },
    {
      "id": "base-tools",
      "path": "[ROOT]/6-dup",
      "framework": "manifest",
      "skipped": "duplicate plugin id: base-tools"
    }
  ]
}

"#]],
        str![],
    );
    // Human output names the same decisions; a clean set exits 0.
    resolve(&[], home.path()).expect(
        1,
        str![[r#"
active (2):
  base-tools                   manifest [ROOT]/1-base
  dependent-tools              manifest [ROOT]/2-dependent
skipped (4):
  missing-dependent            missing dependencies: not-installed
  conflicting-tools            conflicts with active plugins: base-tools
  5-broken                     invalid plugin root: missing required field: id
  base-tools                   duplicate plugin id: base-tools

"#]],
        str![],
    );
    let clean = tempfile::tempdir().unwrap();
    aworld_plugin(clean.path(), "a", r#"{"id": "a", "version": "1"}"#);
    resolve(&[], clean.path()).expect(
        0,
        str![[r#"
active (1):
  a                            manifest [ROOT]/a
skipped (0):

"#]],
        str![],
    );
    Plugins::new()
        .args(["resolve", "--path", "/nonexistent"])
        .run()
        .expect(
            2,
            str![],
            str![[r#"
plugins::usage::path_not_found

  × path `/nonexistent` does not exist

"#]],
        );
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
    Plugins::new()
        .args(["resolve", "--path"])
        .arg(tmp.path())
        .run()
        .expect(
            1,
            str![[r#"
active (0):
skipped (2):
  bad                          unreadable manifest: .aworld-plugin/plugin.json is not valid UTF-8
  pipe                         unreadable manifest: .aworld-plugin/plugin.json is not a regular file

"#]],
            str![],
        );
}
