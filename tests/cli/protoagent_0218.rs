//! The protoAgent 0.218 host profile's install-side rules (`protoagent-0218.md` §13), judged
//! by protoAgent 0.218.1's own code from the hosts' venv where it runs without network:
//! `installer.install` against local git repositories (bundled-id refusal, source
//! allowlist, the superseded short-circuit, which fetches nothing), `configured_allowlist`,
//! `trust.source_matches`, `_lock_rows_by_id`, `discover_plugins` and the loader's host
//! version. The 0.145 profile is checked against the spec (no 0.145 venv).

use std::path::Path;

use plugins::host::testing::protoagent::{self as pa, Allow, Profile};
use serde_json::{Value, json};
use snapbox::str;

use crate::support::hosts::host_python;
use crate::support::protoagent::{
    NO_NETWORK, host, host_env, instance, plugin_repo, plugins_installing,
};
use crate::support::*;

#[test]
fn the_bundled_set_and_the_superseded_sources_are_the_hosts() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let ids = [
        pa::BUNDLED_0145,
        pa::BUNDLED_0218_ADDED,
        &["coding_agent", "Cowork", "notebook", "agent-browser", "x"],
    ]
    .concat();
    let got = host(
        &py,
        tmp.path(),
        &format!(
            "ids = {}\nprint(json.dumps({{'index': sorted(installer._bundled_index()), 'builtin': [installer._is_builtin(i) for i in ids]}}))",
            serde_json::to_string(&ids).unwrap()
        ),
    );
    let mut all: Vec<&str> = [pa::BUNDLED_0145, pa::BUNDLED_0218_ADDED].concat();
    all.sort_unstable();
    assert_eq!(got["index"], json!(all));
    let ours: Vec<bool> = ids
        .iter()
        .map(|i| pa::is_bundled(i, Profile::V0218))
        .collect();
    assert_eq!(got["builtin"], json!(ours));
    // 0.145 (spec §13): the 0.218 additions were installable.
    assert!(
        pa::BUNDLED_0145
            .iter()
            .all(|i| pa::is_bundled(i, Profile::V0145))
    );
    assert!(
        !pa::BUNDLED_0218_ADDED
            .iter()
            .any(|i| pa::is_bundled(i, Profile::V0145))
    );

    let urls = [
        "https://github.com/protoLabsAI/agent-browser-plugin",
        "git@github.com:protoLabsAI/Agent-Browser-Plugin.git",
        "https://token@www.github.com:443/protolabsai/agent-browser-plugin.git/?ref=main#x",
        "ssh://git@GitHub.com/protoLabsAI/cowork-plugin",
        "http://github.com./protoLabsAI/cowork-plugin/",
        "git+ssh://git@github.com/protoLabsAI/cowork-plugin",
        "https://github.com/protoLabsAI/cowork-plugin-fork",
        "https://gitlab.com/protoLabsAI/cowork-plugin",
        "github.com/protoLabsAI/cowork-plugin",
        "/tmp/agent-browser-plugin",
        "file:///github.com/protoLabsAI/cowork-plugin",
    ];
    let got = host(
        &py,
        tmp.path(),
        &format!(
            "urls = {}\nout = []\nfor u in urls:\n    s = installer.superseding_plugin(u)\n    out.append(s and [s.id, s.version])\nprint(json.dumps(out))",
            serde_json::to_string(&urls).unwrap()
        ),
    );
    let ours: Vec<Value> = urls
        .iter()
        .map(|u| pa::superseding(u, Profile::V0218).map_or(Value::Null, |(id, v)| json!([id, v])))
        .collect();
    assert_eq!(got, json!(ours));
    assert!(
        urls.iter()
            .all(|u| pa::superseding(u, Profile::V0145).is_none())
    );
}

#[test]
fn source_matches_is_the_hosts_predicate() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let urls = [
        "https://github.com/protoLabsAI/x",
        "git@github.com:protoLabsAI/x.git",
        "ssh://git@github.com/protoLabsAI/x/",
        "https://github.com/protoLabsAI/x-evil",
        "https://github.com/protolabsai/x",
        "git://example.com/a/b.git",
        "/srv/git/a",
        "file:///srv/git/a",
        "git://example.com/]/b",
        "git://example.com/-/b",
        "git://example.com/a[",
        "https://example.com/%2e%2e/b",
        "srv/git/a",
    ];
    let patterns = [
        "github.com/protoLabsAI/*",
        "github.com/protoLabsAI",
        "github.com/protoLabsAI/x",
        "https://github.com/protoLabsAI/x.git",
        "github.com/*/x.git",
        "*",
        "example.com/[ab]/?",
        "example.com/[!a]/b",
        "/srv/git",
        "file:///srv/git/*",
        "",
        "  ",
        // Hostile globs: reversed and dangling ranges, brackets, stars.
        "example.com/[z-a]/b",
        "example.com/[!z-a]/b",
        "example.com/[a-]/b",
        "example.com/[]a]/b",
        "example.com/[!]]/b",
        "example.com/a[",
        "**/*.git",
        "git@*",
        "*/[!/]/?",
        "\u{17f}rv/git/a",
    ];
    let got = host(
        &py,
        tmp.path(),
        &format!(
            "urls = {}\npats = {}\nprint(json.dumps([[trust.source_matches(u, [p]) for p in pats] for u in urls]))",
            serde_json::to_string(&urls).unwrap(),
            serde_json::to_string(&patterns).unwrap()
        ),
    );
    let ours: Vec<Vec<bool>> = urls
        .iter()
        .map(|u| {
            patterns
                .iter()
                .map(|p| pa::source_matches(u, &[(*p).to_owned()]))
                .collect()
        })
        .collect();
    assert_eq!(got, json!(ours));
    // 0.145 read a scalar as its characters and an unreadable config as open.
    let cfg = tmp.path().join("c.yaml");
    std::fs::write(&cfg, "plugins:\n  sources:\n    allow: ab\n").unwrap();
    assert_eq!(
        pa::allowlist(&cfg, Profile::V0145),
        Ok(Allow::List(vec!["a".into(), "b".into()]))
    );
    std::fs::write(&cfg, "plugins: [\n").unwrap();
    assert_eq!(pa::allowlist(&cfg, Profile::V0145), Ok(Allow::Open));
    assert!(pa::allowlist(&cfg, Profile::V0218).is_err());
}

#[test]
fn bak_folders_are_not_plugins_under_0218() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let dir = t.join("plugins");
    for (folder, id) in [
        ("alpha", "alpha"),
        ("alpha.bak", "alpha_old"),
        ("beta.1.bak", "beta"),
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(
            dir.join(folder).join("protoagent.plugin.yaml"),
            format!("id: {id}\nname: N\n"),
        )
        .unwrap();
        std::fs::write(dir.join(folder).join("__init__.py"), "").unwrap();
    }
    let got = host(
        &py,
        &t,
        &format!(
            "from pathlib import Path\nprint(json.dumps(sorted(m.id for m in loader.discover_plugins([Path({:?})]))))",
            dir.display().to_string()
        ),
    );
    let ids = |extra: &[&str]| -> Vec<String> {
        let (code, stdout, stderr) = Plugins::new()
            .args(["validate", "-r", "--format", "json", "--path"])
            .arg(&dir)
            .args(extra)
            .run()
            // parts: one call per host profile, judged by the ids it finds (the host's own).
            .parts();
        assert_eq!(code, 0, "{stdout}{stderr}");
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        let mut ids: Vec<String> = doc["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(json!(ids(&[])), got, "0.218 discovers only alpha");
    assert_eq!(json!(ids(&["--host-version", "0.218.1"])), got);
    assert_eq!(
        ids(&["--host-version", "0.145"]),
        ["alpha", "alpha_old", "beta"],
        "0.145 discovers the .bak folders"
    );
}

#[test]
fn lock_rows_last_per_id_and_host_keys_kept() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("home");
    instance(&home, None);
    let own = plugin_repo(&t.join("own"), "own_plugin");
    // A lock the host wrote (a bundle row with `superseded`), with a duplicated id and junk.
    let lock = json!({"plugins": [
        {"id": "dup", "source_url": "https://example.com/first", "requested_ref": "", "resolved_sha": "", "installed_at": "t", "by": "cli"},
        "junk",
        {"id": "dup", "source_url": "https://example.com/last", "requested_ref": "", "resolved_sha": "", "installed_at": "t", "by": "cli"},
        {"id": "own_plugin", "source_url": "old", "requested_ref": "", "resolved_sha": "", "installed_at": "t", "by": "cli", "deps": [{"name": "a", "version": "1", "sha256": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}], "note": "first"},
        {"id": "own_plugin", "source_url": "old2", "requested_ref": "", "resolved_sha": "", "installed_at": "t", "by": "cli", "deps": [{"name": "b", "version": "2", "sha256": "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}], "note": "last"},
    ], "bundles": [{"id": "kit", "name": "Kit", "source_url": "u", "requested_ref": "", "resolved_sha": "", "plugins": ["own_plugin"], "superseded": ["agent_browser"], "enabled": [], "installed_at": "t", "by": "cli"}]});
    std::fs::write(
        home.join("plugins.lock"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();
    let rows = |home: &Path| {
        host(
            &py,
            home,
            "print(json.dumps({k: v.get('source_url') for k, v in installer._lock_rows_by_id().items()}))",
        )
    };
    let before = rows(&home);
    assert_eq!(before["dup"], "https://example.com/last");
    let l = plugins::lock::Lock::load(
        &home.join("plugins.lock"),
        plugins::dialect::Dialect::Protoagent,
    )
    .unwrap();
    assert_eq!(
        l.get("dup").map(|e| e.source),
        Some("https://example.com/last".to_owned())
    );
    // plugins rewrites the lock (an install over the untracked... tracked id, forced).
    std::fs::create_dir_all(home.join("plugins/own_plugin")).unwrap();
    plugins_installing(&home, &own.dir.display().to_string(), &["--force"])
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
   Installed own_plugin 1.0.0 in [TMP]/home/plugins/own_plugin

"#]],
            str![[r#"
    Fetching [TMP]/own
      Copied 2 files, 64 bytes
protoagent plugin `own_plugin` 1.0.0 from [TMP]/own
  asked again:  it now runs code inside the host
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
        );
    let after = rows(&home);
    assert_eq!(after["dup"], before["dup"]);
    assert_eq!(after["own_plugin"], json!(own.dir.display().to_string()));
    let text = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["bundles"], lock["bundles"],
        "the host's bundle row, byte for byte"
    );
    let own_rows: Vec<&Value> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"] == "own_plugin")
        .collect();
    assert_eq!(own_rows.len(), 1, "every row of the id replaced: {text}");
    assert_eq!(own_rows[0]["note"], "last", "the keys of the last row");
    // The row had deps, so they follow the plugin: the new copy requires nothing.
    assert_eq!(own_rows[0]["deps"], json!([]), "{text}");
    assert!(doc["plugins"].as_array().unwrap().contains(&json!("junk")));
}

#[test]
fn the_version_gate_defaults_to_the_profiles_release() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let host_version = host(&py, tmp.path(), "print(json.dumps(loader._host_version()))");
    let opts = pa::Options::default();
    assert_eq!(json!(pa::gate_host_version(&opts)), host_version);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("__init__.py"), "").unwrap();
    let gate = |min: &str, extra: &[&str]| -> Option<String> {
        std::fs::write(
            dir.path().join("protoagent.plugin.yaml"),
            format!("id: demo\nname: Demo\nmin_protoagent_version: '{min}'\n"),
        )
        .unwrap();
        let (_, stdout, _) = Plugins::new()
            .args(["validate", "--format", "json", "--path"])
            .arg(dir.path())
            .args(extra)
            .run()
            // parts: one call per case of a table, judged by the host-version diagnostic.
            .parts();
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        doc["plugins"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "plugins::protoagent::host_version")
            .map(|d| d["message"].as_str().unwrap().to_owned())
    };
    assert_eq!(gate("0.218.1", &[]), None);
    assert_eq!(
        gate("0.218.2", &[]).as_deref(),
        Some("requires protoAgent >= 0.218.2 but this host is 0.218.1")
    );
    assert_eq!(
        gate("0.218.1", &["--host-version", "0.218"]),
        None,
        "the profile name is its release"
    );
    assert_eq!(
        gate("0.146", &["--host-version", "0.145"]).as_deref(),
        Some("requires protoAgent >= 0.146 but this host is 0.145.0")
    );
    assert_eq!(gate("0.145.0", &["--host-version", "0.145"]), None);
}

#[test]
fn a_superseded_source_is_superseded_in_outdated_without_the_network() {
    // A lock the host wrote before 0.218 bundled agent_browser: its update check answers
    // `superseded: true` and asks no remote (§6); the other row is still checked.
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("home");
    instance(&home, None);
    let own = plugin_repo(&t.join("own"), "own_plugin");
    let url = "https://github.com/protoLabsAI/agent-browser-plugin.git";
    let lock = json!({"plugins": [
        {"id": "agent_browser", "source_url": url, "requested_ref": "", "resolved_sha": "0123456789012345678901234567890123456789", "installed_at": "t", "by": "cli"},
    ]});
    std::fs::create_dir_all(home.join("plugins")).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        serde_json::to_string_pretty(&lock).unwrap(),
    )
    .unwrap();
    plugins_installing(&home, &own.dir.display().to_string(), &[])
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
   Installed own_plugin 1.0.0 in [TMP]/home/plugins/own_plugin

"#]],
            str![[r#"
    Fetching [TMP]/own
      Copied 2 files, 64 bytes
protoagent plugin `own_plugin` 1.0.0 from [TMP]/own
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
        );
    let judge = host_env(
        &py,
        &home,
        &NO_NETWORK,
        "print(json.dumps({r['id']: bool(r.get('superseded')) for r in installer.check_updates()}))",
    );
    assert_eq!(judge["agent_browser"], true);
    assert_eq!(judge["own_plugin"], false);
    let ran = Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .envs(NO_NETWORK)
        .tmp(&t)
        .run();
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "agent_browser",
      "source": "https://github.com/protoLabsAI/agent-browser-plugin.git",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "0123456789012345678901234567890123456789",
      "status": "superseded",
      "by": "agent_browser",
      "bundled_version": "0.7.0"
    },
    {
      "id": "own_plugin",
      "source": "[TMP]/own",
      "requested_ref": "",
      "ref_kind": null,
      "current": null,
      "status": "local"
    }
  ]
}

"#]],
        str![],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let rows = doc["plugins"].as_array().unwrap();
    let status = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .map(|r| (r["status"].clone(), r["by"].clone()))
    };
    assert_eq!(
        status("agent_browser"),
        Some((json!("superseded"), json!("agent_browser")))
    );
    assert_eq!(status("own_plugin").map(|s| s.0), Some(json!("local")));
    Plugins::new()
        .args(["outdated", "-q", "--home"])
        .arg(&home)
        .envs(NO_NETWORK)
        .env("COLUMNS", "200")
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
agent_browser                    HEAD @ 0123456789            superseded: protoAgent runs its bundled agent_browser v0.7.0 and ignores this copy (`plugins remove agent_browser` cleans it up)

"#]],
            str![],
        );
}

#[test]
fn a_superseded_source_opted_in_is_skipped_by_autoupdate_without_the_network() {
    // The host's sweep skips an opted-in plugin its bundled one supersedes (pulling it would
    // only trip the built-in guard): so does `autoupdate`, asking no remote, which
    // `outdated` says is superseded too, and it is no failure.
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("home");
    instance(&home, None);
    std::fs::create_dir_all(home.join("plugins/agent_browser")).unwrap();
    let url = "https://github.com/protoLabsAI/agent-browser-plugin.git";
    let lock = json!({"plugins": [
        {"id": "agent_browser", "source_url": url, "requested_ref": "main", "resolved_sha": "0123456789012345678901234567890123456789", "installed_at": "t", "by": "cli"},
    ]});
    std::fs::write(home.join("plugins.lock"), lock.to_string()).unwrap();
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.agent_browser]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    let judge = host_env(
        &py,
        &home,
        &NO_NETWORK,
        "print(json.dumps({r['id']: bool(r.get('superseded')) for r in installer.check_updates()}))",
    );
    assert_eq!(judge["agent_browser"], true);
    let sweep = |args: &[&str]| {
        let mut c = Plugins::new();
        c.args(["autoupdate", "--force", "--home"])
            .arg(&home)
            .args(args)
            .envs(NO_NETWORK)
            .env("COLUMNS", "1000")
            .tmp(&t);
        c.run()
    };
    // Said even under -q: a person's to clean up, but exit 0.
    sweep(&["-q"]).expect(0, str![[r#"
[AT] superseded agent_browser: protoAgent runs its bundled agent_browser v0.7.0 and ignores this copy, so the sweep skips it (`plugins remove agent_browser` cleans it up; then drop its update_policy from plugins.toml)

"#]], str![]);
    sweep(&["--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": [],
  "superseded": [
    {
      "id": "agent_browser",
      "by": "agent_browser",
      "bundled_version": "0.7.0"
    }
  ]
}

"#]],
        str![],
    );
}
