//! `plugins list` and `plugins info`: what the hosts' own records say of an installed
//! plugin (switched off, the version a host-written row does not record, protoAgent's
//! wheel deps) and holds, in the table, the text and `--json`.

use std::path::Path;

use serde_json::Value;
use snapbox::str;

use crate::support::git::Repo;
use crate::support::*;

/// `plugins <args> --home <home>`, the temp dir shown as `[TMP]` (and the hold's time,
/// as every time the printer writes, as `[AT]`).
fn at(home: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .args(args)
        .home(home)
        .tmp(home.parent().unwrap())
        .run()
}

/// An aoe home with one plugin switched off (`plugins disable`) and one held
/// (`plugins hold`).
fn aoe_home(tmp: &Path) -> std::path::PathBuf {
    let home = tmp.join("home");
    let (repo, _) = history(&tmp.join("repo"));
    assert_eq!(install(&home, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    let other = Repo::init(&tmp.join("other"));
    other.file(
        "aoe-plugin.toml",
        &static_aoe("0.3.0").replace("dev.example.pinned", "dev.example.other"),
    );
    other.commit("one");
    assert_eq!(install(&home, &[&other.url()]).0, 0);
    at(&home, &["disable", "dev.example.pinned"]).expect(
        0,
        str![[r#"
    Disabled dev.example.pinned in [TMP]/home/config.toml

"#]],
        str![[""]],
    );
    at(&home, &["hold", "dev.example.other"]).expect(
        0,
        str![[r#"
        Held dev.example.other in [TMP]/home: held since [AT] (held with `plugins hold`)

"#]],
        str![[""]],
    );
    home
}

#[test]
fn list_and_info_show_a_disabled_plugin_and_a_hold() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = aoe_home(&t);

    let ran = at(&home, &["list"]);
    ran.expect(0, str![[r#"
ID                  VERSION  DIALECT  REF        COMMIT      SOURCE
dev.example.other   0.3.0    aoe      (default)  869c479fa2  file://[TMP]/other  (held since [AT]: held with `plugins hold`)
dev.example.pinned  1.0.0    aoe      v1.0.0     98dbc36b17  file://[TMP]/repo  (disabled: `plugins enable dev.example.pinned` turns it on)

"#]], str![""]);

    let ran = at(&home, &["list", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.other",
      "dialect": "aoe",
      "version": "0.3.0",
      "source": "file://[TMP]/other",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "869c479fa277ae835975e939ab11e32dc4de0f95",
      "home": "[TMP]/home",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": true,
      "hold": {
        "since": "[AT]",
        "by": "hold",
        "reason": "held with `plugins hold`"
      },
      "deps": null
    },
    {
      "id": "dev.example.pinned",
      "dialect": "aoe",
      "version": "1.0.0",
      "source": "file://[TMP]/repo",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "home": "[TMP]/home",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![""],
    );
    assert_matches_output_schema("list.json", &serde_json::from_str(&ran.stdout).unwrap());

    let ran = at(&home, &["info", "dev.example.pinned"]);
    ran.expect(
        0,
        str![[r#"
dev.example.pinned 1.0.0 (aoe)
  source:   file://[TMP]/repo
  ref:      v1.0.0 (tag)
  commit:   98dbc36b17da9b3db35834c2a7d382bb249e05d4
  manifest: sha256:bf409a77e6f5ab1bb4aea228bc8cd3156f42928ac6d642d729ef43fc0539e6db
  tree:     sha256:9aa39e730ca099a55b756e44556a8101307097c4f0520afb4764fd47a734bf57
  path:     [TMP]/home/plugins/dev.example.pinned
  enabled:  no (`plugins enable dev.example.pinned` turns it on)
  valid:    yes

"#]],
        str![""],
    );

    let ran = at(&home, &["info", "dev.example.other"]);
    ran.expect(
        0,
        str![[r#"
dev.example.other 0.3.0 (aoe)
  source:   file://[TMP]/other
  commit:   869c479fa277ae835975e939ab11e32dc4de0f95
  manifest: sha256:54f1f77f37da87040146e55295161a658225c73d3c8d4678a83a8d2ca2be4302
  tree:     sha256:7bee568d79230be1353447c6cc7705d12b53d95e955e0d570fc2de648c822fd9
  path:     [TMP]/home/plugins/dev.example.other
  enabled:  yes
  held:     since [AT] (held with `plugins hold`; `plugins unhold dev.example.other` lifts it)
  valid:    yes

"#]],
        str![""],
    );

    // Switched back on, the row says nothing more.
    at(&home, &["enable", "dev.example.pinned"]).expect(
        0,
        str![[r#"
     Enabled dev.example.pinned in [TMP]/home/config.toml

"#]],
        str![[""]],
    );
    let ran = at(&home, &["info", "dev.example.other", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "dev.example.other",
  "dialect": "aoe",
  "version": "0.3.0",
  "source": "file://[TMP]/other",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "869c479fa277ae835975e939ab11e32dc4de0f95",
  "manifest_hash": "sha256:54f1f77f37da87040146e55295161a658225c73d3c8d4678a83a8d2ca2be4302",
  "tree_hash": "sha256:7bee568d79230be1353447c6cc7705d12b53d95e955e0d570fc2de648c822fd9",
  "path": "[TMP]/home/plugins/dev.example.other",
  "present": true,
  "valid": true,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": true,
  "hold": {
    "since": "[AT]",
    "by": "hold",
    "reason": "held with `plugins hold`"
  },
  "deps": null
}

"#]],
        str![""],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("info.json", &doc);
    assert_eq!(doc["hold"]["by"], "hold");
    let ran = at(&home, &["info", "dev.example.pinned", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "dev.example.pinned",
  "dialect": "aoe",
  "version": "1.0.0",
  "source": "file://[TMP]/repo",
  "requested_ref": "v1.0.0",
  "ref_kind": "tag",
  "commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
  "manifest_hash": "sha256:bf409a77e6f5ab1bb4aea228bc8cd3156f42928ac6d642d729ef43fc0539e6db",
  "tree_hash": "sha256:9aa39e730ca099a55b756e44556a8101307097c4f0520afb4764fd47a734bf57",
  "path": "[TMP]/home/plugins/dev.example.pinned",
  "present": true,
  "valid": true,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": true,
  "hold": null,
  "deps": null
}

"#]],
        str![""],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("info.json", &doc);
    assert_eq!(
        (&doc["enabled"], &doc["hold"]),
        (&Value::Bool(true), &Value::Null)
    );
}

const SHA: &str = "e49f185f8366bb371114ef3eb35f1cec3842f321";
const WHEEL: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A protoAgent home as the host's own installer leaves it: its lock row records no
/// version (the manifest has it) and pins the wheels it installed; the instance config
/// switches one plugin off.
fn proto_home(t: &Path) -> std::path::PathBuf {
    let home = t.join("instance");
    let lock = serde_json::json!({"plugins": [
        {"id": "notes_x", "source_url": "https://example.invalid/notes.git", "requested_ref": "",
         "resolved_sha": SHA, "installed_at": "2026-06-12T22:33:42.127934+00:00", "by": "console",
         "deps": [{"name": "demolib", "version": "1.0.0", "sha256": WHEEL}]},
        {"id": "quiet_x", "source_url": "https://example.invalid/quiet.git", "requested_ref": "v0.2.1",
         "resolved_sha": SHA, "installed_at": "2026-06-12T22:33:42.127934+00:00", "by": "cli"},
    ]});
    std::fs::create_dir_all(home.join("config")).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        format!("{}\n", serde_json::to_string_pretty(&lock).unwrap()),
    )
    .unwrap();
    for (id, version) in [("notes_x", "1.2"), ("quiet_x", "0.2.1")] {
        let dir = home.join("plugins").join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("protoagent.plugin.yaml"),
            format!("id: {id}\nname: N\nversion: {version}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("__init__.py"), "def register(r):\n    pass\n").unwrap();
    }
    // The host's version, remembered: `info` asks no installed host.
    std::fs::write(home.join("plugins.toml"), "[host]\nversion = \"0.218.0\"\n").unwrap();
    std::fs::write(
        home.join("config/langgraph-config.yaml"),
        "plugins:\n  enabled: [notes_x, quiet_x]\n  disabled: [quiet_x]\n",
    )
    .unwrap();
    home
}

#[test]
fn host_written_protoagent_rows_show_their_version_deps_and_switch() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = proto_home(&t);
    let ran = at(&home, &["list"]);
    ran.expect(0, str![[r#"
ID       VERSION  DIALECT     REF        COMMIT      SOURCE
notes_x  1.2      protoagent  (default)  e49f185f83  https://example.invalid/notes.git
quiet_x  0.2.1    protoagent  v0.2.1     e49f185f83  https://example.invalid/quiet.git  (disabled: `plugins enable quiet_x` turns it on)

"#]], str![""]);

    let ran = at(&home, &["list", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "notes_x",
      "dialect": "protoagent",
      "version": "1.2",
      "source": "https://example.invalid/notes.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "e49f185f8366bb371114ef3eb35f1cec3842f321",
      "home": "[TMP]/instance",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": true,
      "hold": null,
      "deps": [
        {
          "name": "demolib",
          "version": "1.0.0",
          "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        }
      ]
    },
    {
      "id": "quiet_x",
      "dialect": "protoagent",
      "version": "0.2.1",
      "source": "https://example.invalid/quiet.git",
      "requested_ref": "v0.2.1",
      "ref_kind": null,
      "commit": "e49f185f8366bb371114ef3eb35f1cec3842f321",
      "home": "[TMP]/instance",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![""],
    );
    assert_matches_output_schema("list.json", &serde_json::from_str(&ran.stdout).unwrap());

    let ran = at(&home, &["info", "notes_x"]);
    ran.expect(
        0,
        str![[r#"
notes_x 1.2 (protoagent)
  source:   https://example.invalid/notes.git
  commit:   e49f185f8366bb371114ef3eb35f1cec3842f321
  manifest: (not recorded; `plugins verify --record` records it)
  tree:     (not recorded; `plugins verify --record` records it)
  path:     [TMP]/instance/plugins/notes_x
  enabled:  yes
  deps:     demolib 1.0.0 (sha256 0123456789ab…)
  host:     version 0.218.0 (remembered in [TMP]/instance/plugins.toml)
  valid:    yes

"#]],
        str![""],
    );

    let ran = at(&home, &["info", "notes_x", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "notes_x",
  "dialect": "protoagent",
  "version": "1.2",
  "source": "https://example.invalid/notes.git",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "e49f185f8366bb371114ef3eb35f1cec3842f321",
  "manifest_hash": "",
  "tree_hash": "",
  "path": "[TMP]/instance/plugins/notes_x",
  "present": true,
  "valid": true,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": {
    "aoe_api": null,
    "version": "0.218.0",
    "detected": null
  },
  "release": null,
  "home": "[TMP]/instance",
  "enabled": true,
  "hold": null,
  "deps": [
    {
      "name": "demolib",
      "version": "1.0.0",
      "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    }
  ]
}

"#]],
        str![""],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("info.json", &doc);
    assert_eq!(doc["version"], "1.2");
    assert_eq!(doc["deps"][0]["name"], "demolib");
    assert_eq!(doc["enabled"], true);
}

/// An AWorld home of two plugins, one switched off in the host's `.manifest.json`.
fn aworld_home(t: &Path) -> std::path::PathBuf {
    let home = t.join("aworld");
    let mut lock = String::from("lock_version = 1\n");
    for id in ["a_one", "a_two"] {
        lock.push_str(&format!(
            "\n[plugins.\"{id}\"]\nsource = \"https://example.invalid/{id}.git\"\nrequested_ref = \"\"\nresolved_commit = \"{SHA}\"\nversion = \"1.0.0\"\n"
        ));
        let dir = home.join("plugins").join(id).join(".aworld-plugin");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("plugin.json"),
            format!(r#"{{"id": "{id}", "version": "1.0.0"}}"#),
        )
        .unwrap();
    }
    std::fs::write(home.join("plugins.lock"), lock).unwrap();
    std::fs::write(
        home.join("plugins/.manifest.json"),
        r#"{"a_one": {"name": "a_one", "enabled": false}, "a_two": {"name": "a_two", "enabled": true}}"#,
    )
    .unwrap();
    home
}

/// Issue 43: `list` and `info` read and parse each host file once per command, not once per
/// row (which made `list` quadratic in the plugins of a home): aoe's `config.toml`, AWorld's
/// `.manifest.json`, protoAgent's instance config; and `list`, `verify` and `doctor` read a
/// home's `plugins.toml` once for all its rows that name no source (protoAgent's pins of
/// bundled plugins, judged under the home's profile). Counted as the opens strace sees.
#[test]
fn issue_43_each_host_file_is_read_once_per_command() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let homes = [
        (aoe_home(&t), "config.toml", "dev.example.pinned"),
        (aworld_home(&t), "plugins/.manifest.json", "a_one"),
        (proto_home(&t), "config/langgraph-config.yaml", "notes_x"),
    ];
    let mut seen = Vec::new();
    // `verify --record` of protoAgent's two host-written rows (no hashes): its lock is read
    // to tell the home's host, once for the command, and once under the home lock to
    // record them, not once per row.
    let runs = homes
        .iter()
        .flat_map(|(home, file, id)| {
            [
                (home.clone(), *file, vec!["list"]),
                (home.clone(), *file, vec!["info", id]),
            ]
        })
        .chain([(
            homes[2].0.clone(),
            "plugins.lock",
            vec!["verify", "--record"],
        )])
        .chain([1, 4].into_iter().flat_map(|rows| {
            let home = sourceless_home(&t, rows);
            [vec!["list"], vec!["verify"], vec!["doctor", "--quiet"]]
                .map(|args| (home.clone(), "plugins.toml", args))
        }));
    for (home, file, args) in runs {
        let path = home.join(file).display().to_string();
        let trace = t.join("trace");
        let status = Plugins::new()
            .args(&args)
            .home(&home)
            .wrapped_in(
                &strace,
                [
                    "-f".as_ref(),
                    "-e".as_ref(),
                    "trace=openat,open".as_ref(),
                    "-o".as_ref(),
                    trace.as_os_str(),
                ],
            )
            .stdout(std::process::Stdio::null())
            .status();
        assert!(status.success(), "{args:?} in {}", home.display());
        let opens = std::fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .filter(|l| l.contains(&format!("\"{path}\"")))
            .count();
        seen.push(format!("{} {file}: {opens}", args.join(" ")));
    }
    assert_eq!(
        seen,
        [
            "list config.toml: 1",
            "info dev.example.pinned config.toml: 1",
            "list plugins/.manifest.json: 1",
            "info a_one plugins/.manifest.json: 1",
            "list config/langgraph-config.yaml: 1",
            "info notes_x config/langgraph-config.yaml: 1",
            "verify --record plugins.lock: 3",
            "list plugins.toml: 2",
            "verify plugins.toml: 1",
            "doctor --quiet plugins.toml: 2",
            "list plugins.toml: 2",
            "verify plugins.toml: 1",
            "doctor --quiet plugins.toml: 2",
        ]
    );
}

/// A protoAgent home whose lock pins the wheels of `rows` bundled plugins and names no source
/// for them (what the host's migration writes), with the host's version remembered.
fn sourceless_home(t: &Path, rows: usize) -> std::path::PathBuf {
    let home = t.join(format!("sourceless-{rows}"));
    let plugins: Vec<_> = ["agent_browser", "coder", "craft", "docs"][..rows]
        .iter()
        .map(|id| serde_json::json!({"id": id, "deps": []}))
        .collect();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        serde_json::json!({ "plugins": plugins }).to_string(),
    )
    .unwrap();
    std::fs::write(home.join("plugins.toml"), "[host]\nversion = \"0.218.0\"\n").unwrap();
    home
}
