//! The protoAgent 0.218 profile's installer rules, judged by protoAgent 0.218.1's own
//! `installer.install`, `configured_allowlist`, `sync` and `_runtime_gap`
//! on local git repositories (the helpers are in `support::protoagent`).

use serde_json::{Value, json};
use snapbox::str;

use crate::support::git::Repo;
use crate::support::hosts::host_python;
use crate::support::protoagent::{
    NO_NETWORK, host_env, host_install, host_sync, instance, plugin_repo, plugins_install,
    plugins_installing,
};
use crate::support::*;

#[test]
fn installs_are_refused_and_short_circuited_as_the_hosts_installer_does() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let cowork = plugin_repo(&t.join("cowork"), "cowork");
    let artifact = plugin_repo(&t.join("artifact"), "artifact");
    let own = plugin_repo(&t.join("own"), "own_plugin");
    let superseded = "https://github.com/protoLabsAI/agent-browser-plugin";
    let cases: Vec<(String, bool)> = vec![
        (cowork.dir.display().to_string(), false),
        (artifact.dir.display().to_string(), true),
        (superseded.to_owned(), true),
        (
            "git@github.com:protoLabsAI/Cowork-Plugin.git".to_owned(),
            false,
        ),
    ];
    for (i, (url, force)) in cases.iter().enumerate() {
        let host_home = t.join(format!("host-{i}"));
        let ours = t.join(format!("ours-{i}"));
        instance(&host_home, None);
        instance(&ours, None);
        let want = host_install(&py, &host_home, url, *force);
        let force_flag: &[&str] = if *force { &["--force"] } else { &[] };
        let (code, err, message) = plugins_install(&ours, url, force_flag);
        assert_eq!(code, 2, "{url}: {want}");
        if want["superseded"] == true {
            // The host installs nothing and says the bundled copy runs: plugins says so.
            assert_eq!(err, "plugins::install::superseded", "{url}");
            assert_eq!(
                message,
                format!(
                    "{} ships with protoAgent now (bundled v{}) — nothing fetched from {url}.",
                    want["ok"].as_str().unwrap(),
                    want["version"].as_str().unwrap()
                )
            );
            assert!(!host_home.join("plugins.lock").exists(), "no lock row");
        } else {
            assert_eq!(err, "plugins::install::builtin", "{url}: {want}");
            assert_eq!(json!(message), want["err"], "{url}");
        }
        assert!(
            !ours.join("plugins.lock").exists(),
            "{url}: nothing installed"
        );
    }
    // A plugin of one's own installs on both.
    let host_home = t.join("host-own");
    instance(&host_home, None);
    assert_eq!(
        host_install(&py, &host_home, &own.dir.display().to_string(), false)["ok"],
        "own_plugin"
    );
    plugins_installing(&t.join("ours-own"), &own.dir.display().to_string(), &[])
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
   Installed own_plugin 1.0.0 in [TMP]/ours-own/plugins/own_plugin

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
    // The 0.145 profile: `cowork` was not bundled yet, `artifact` was.
    let old = t.join("old");
    plugins_installing(
        &old,
        &cowork.dir.display().to_string(),
        &["--host-version", "0.145"],
    )
    .tmp(&t)
    .run()
    .expect(
        0,
        str![[r#"
   Installed cowork 1.0.0 in [TMP]/old/plugins/cowork

"#]],
        str![[r#"
    Fetching [TMP]/cowork
      Copied 2 files, 60 bytes
protoagent plugin `cowork` 1.0.0 from [TMP]/cowork
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
    );
    // The home remembers 0.145: the host's own words.
    plugins_installing(&old, &artifact.dir.display().to_string(), &[])
        .tmp(&t)
        .run()
        .expect(2, str![], str![[r#"
    Fetching [TMP]/artifact
      Copied 2 files, 62 bytes
plugins::install::builtin

  × plugin id 'artifact' is a built-in — cannot install over it.
  help: protoAgent runs its own bundled copy of this plugin; enable that one instead (or choose another id for a fork)

"#]]);
}

#[test]
fn the_source_allowlist_is_read_and_matched_as_the_host_does() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let own = plugin_repo(&t.join("src/own"), "own_plugin");
    let url = own.dir.display().to_string();
    let parent = t.join("src").display().to_string();
    let configs = [
        None,
        Some("model: x\n".to_owned()),
        Some("plugins:\n  sources: {}\n".to_owned()),
        Some("plugins:\n  sources:\n    allow: []\n".to_owned()),
        Some("plugins:\n  sources:\n    allow:\n".to_owned()),
        Some(format!("plugins:\n  sources:\n    allow: ['{parent}']\n")),
        Some(format!("plugins:\n  sources:\n    allow: ['{parent}/*']\n")),
        Some(format!("plugins:\n  sources:\n    allow: ['{url}.git']\n")),
        Some(format!(
            "plugins:\n  sources:\n    allow: ['{parent}/o?n']\n"
        )),
        Some(format!(
            "plugins:\n  sources:\n    allow: ['{parent}/[!o]wn']\n"
        )),
        Some("plugins:\n  sources:\n    allow: ['github.com/protoLabsAI/*']\n".to_owned()),
        Some(format!("plugins:\n  sources:\n    allow: '{url}'\n")),
        Some("plugins:\n  sources:\n    allow: [1]\n".to_owned()),
        Some("plugins:\n  sources:\n    allow: {a: 1}\n".to_owned()),
        Some("plugins: [1]\n".to_owned()),
        Some("plugins:\n  sources: [allow]\n".to_owned()),
        Some("plugins:\n  sources: [other]\n".to_owned()),
        Some("plugins:\n  sources: 7\n".to_owned()),
        Some("- a\n".to_owned()),
        Some("plugins: {sources: {allow: [unclosed\n".to_owned()),
    ];
    for (i, config) in configs.iter().enumerate() {
        let host_home = t.join(format!("host-{i}"));
        let ours = t.join(format!("ours-{i}"));
        instance(&host_home, config.as_deref());
        instance(&ours, config.as_deref());
        let want = host_install(&py, &host_home, &url, false);
        let (code, err, message) = plugins_install(&ours, &url, &[]);
        match want.get("err").and_then(Value::as_str) {
            None => assert_eq!(code, 0, "{config:?}: {message}"),
            Some(text) => {
                assert_eq!(err, "plugins::install::allowlist", "{config:?}");
                if config.as_deref().is_some_and(|c| c.contains("[unclosed")) {
                    // PyYAML's parse error text is its own (docs/PARITY.md).
                    let prefix = "Cannot read plugin source allowlist: ";
                    assert!(text.starts_with(prefix) && message.starts_with(prefix));
                } else {
                    assert_eq!(message, text, "{config:?}");
                }
            }
        }
    }
}

#[test]
fn a_node_floor_the_path_does_not_meet_warns_with_the_hosts_gap() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let fake = t.join("fake");
    std::fs::create_dir_all(&fake).unwrap();
    let node = fake.join("node");
    std::fs::write(&node, "#!/bin/sh\necho v18.1.0\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
    let system = "/usr/bin:/bin";
    let with_fake = format!("{}:{system}", fake.display());
    let home = t.join("user");
    let boxes = t.join("box");
    std::fs::create_dir_all(&home).unwrap();
    let mut gaps = 0;
    for (i, floor) in ["{node: '>=20', NODE: v20.6}", "{node: 99}", "{node: '>=1'}"]
        .iter()
        .enumerate()
    {
        let repo = Repo::init(&t.join(format!("repo-{i}")));
        repo.file(
            "protoagent.plugin.yaml",
            &format!("id: nodey\nname: N\nrequires_runtimes: {floor}\n"),
        )
        .file("__init__.py", "");
        repo.commit("n");
        for path in [with_fake.as_str(), system] {
            let want = host_env(
                &py,
                &t,
                &[
                    ("PATH", path),
                    ("HOME", home.to_str().unwrap()),
                    ("PROTOAGENT_BOX_ROOT", boxes.to_str().unwrap()),
                ],
                &format!(
                    "from pathlib import Path\nm = manifest.load_manifest(Path({:?}))\nprint(json.dumps(loader._runtime_gap(m)[0]))",
                    repo.dir.display().to_string()
                ),
            );
            gaps += usize::from(!want.is_null());
            for (profile, expect) in [("0.218", want.clone()), ("0.145", Value::Null)] {
                let (code, stdout, stderr) = Plugins::new()
                    .args(["install", &repo.dir.display().to_string(), "--yes"])
                    .args(["--host-version", profile, "--home"])
                    .arg(t.join(format!("h-{i}-{}-{profile}", path.len())))
                    .env("PATH", path)
                    .env("COLUMNS", "1000")
                    .run()
                    // parts: one run per case of a table, its warning compared with the host's.
                    .parts();
                assert_eq!(code, 0, "{stdout}{stderr}");
                let got = stderr
                    .lines()
                    .find_map(|l| {
                        l.strip_prefix(&format!(
                            "warning[{}]: ",
                            "plugins::install::runtime_missing"
                        ))
                    })
                    .map_or(Value::Null, |m| json!(m));
                assert_eq!(got, expect, "{floor} PATH={path} {profile}");
            }
        }
    }
    assert!(gaps >= 2, "the fake node and the floor of 99 raise the gap");
}

#[test]
fn sync_of_a_row_without_a_source_fetches_nothing_and_goes_on_as_the_hosts_sync() {
    // The host's legacy wheel-deps layout (`{"<id>": {"deps": [...]}}` beside `plugins`),
    // migrated to rows with no `source_url`: one for a plugin the host bundles, one for a
    // plugin it does not, and a plugin of its own; no plugin directory is there. The host's
    // sync calls the first `present`, the second `failed` and installs the third; plugins
    // says nothing of the first, warns of the second (exit 1) and installs the third. The
    // empty source is never taken for a path: the current directory holds a valid plugin
    // of the second id, and nothing of it is read or installed.
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let own = plugin_repo(&t.join("own"), "own_plugin");
    let decoy = plugin_repo(&t.join("decoy"), "gone_plugin");
    let make = |home: &std::path::Path| {
        instance(home, None);
        std::fs::create_dir_all(home.join("plugins")).unwrap();
        std::fs::write(home.join("plugins.lock"), r#"{"plugins": []}"#).unwrap();
        let (code, _, message) = plugins_install(home, &own.dir.display().to_string(), &[]);
        assert_eq!(code, 0, "{message}");
        std::fs::remove_dir_all(home.join("plugins/own_plugin")).unwrap();
        let mut lock: Value =
            serde_json::from_slice(&std::fs::read(home.join("plugins.lock")).unwrap()).unwrap();
        lock["agent_browser"] = json!({"deps": []});
        lock["gone_plugin"] = json!({"deps": []});
        std::fs::write(home.join("plugins.lock"), lock.to_string()).unwrap();
    };
    let judged = t.join("judged");
    make(&judged);
    let want = host_sync(&py, &judged);
    assert_eq!(
        want,
        json!({"own_plugin": "installed", "agent_browser": "present", "gone_plugin": "failed"})
    );
    let home = t.join("home");
    make(&home);
    let run = |args: &[&str]| {
        let mut c = Plugins::new();
        c.args(args)
            .arg("--home")
            .arg(&home)
            .envs(NO_NETWORK)
            .env("COLUMNS", "1000")
            .current_dir(&decoy.dir)
            .tmp(&t);
        c.run()
    };
    run(&["list"]).expect(
        0,
        str![[r#"
ID             VERSION  DIALECT     REF           COMMIT  SOURCE
agent_browser  -        protoagent  -             -       -  (its host ships it: nothing to fetch)
gone_plugin    -        protoagent  -             -       -  (missing, and the lock records no source: `plugins remove gone_plugin` drops the row)
own_plugin     1.0.0    protoagent  (local copy)  -       [TMP]/own  (missing: run `plugins sync`)

"#]],
        str![],
    );
    // `--frozen` (exactly the lock, or nothing) refuses the row before anything changes.
    let before = std::fs::read(home.join("plugins.lock")).unwrap();
    run(&["sync", "--frozen", "--yes"]).expect(2, str![], str![[r#"
plugins::sync::missing_commit

  × gone_plugin: the lock names no source to install it from; nothing was changed
  help: `plugins remove gone_plugin` drops the row; `plugins sync` without --frozen syncs the others and says which rows name no source

"#]]);
    assert!(!home.join("plugins/own_plugin").exists());
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), before);
    run(&["sync", "--yes"]).expect(
        1,
        str![[r#"
      Synced own_plugin 1.0.0

"#]],
        str![[r#"
    Fetching [TMP]/own
      Copied 2 files, 64 bytes
protoagent plugin `own_plugin` 1.0.0 from [TMP]/own
  capabilities: none
  build steps:  none
  runs code inside the host process
warning[plugins::sync::no_source]: gone_plugin: the lock records no source: there is nothing to fetch it from, and its host ships no plugin of that id; `plugins remove gone_plugin` drops the row, `plugins install SOURCE` installs it again

"#]],
    );
    assert!(home.join("plugins/own_plugin").is_dir());
    assert!(!home.join("plugins/gone_plugin").exists());
    assert!(!home.join("plugins/agent_browser").exists());
    // The install wrote the lock in the host's one schema (as the host's next write does):
    // the legacy pins became rows, none dropped, none given a source.
    let lock: Value =
        serde_json::from_slice(&std::fs::read(home.join("plugins.lock")).unwrap()).unwrap();
    assert_eq!(
        lock["plugins"][0],
        json!({"id": "agent_browser", "deps": []})
    );
    assert_eq!(lock["plugins"][1], json!({"id": "gone_plugin", "deps": []}));
    assert_eq!(lock["plugins"][2]["id"], "own_plugin");
    assert_eq!(lock.as_object().unwrap().len(), 1, "{lock}");
    // Nothing left to install: the same again writes nothing.
    let before = std::fs::read(home.join("plugins.lock")).unwrap();
    run(&["sync", "--yes", "--json"]).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gone_plugin",
      "status": "no_source",
      "message": "the lock records no source: there is nothing to fetch it from",
      "home": "[TMP]/home"
    }
  ]
}

"#]],
        str![[r#"
warning[plugins::sync::no_source]: gone_plugin: the lock records no source: there is nothing to fetch it from, and its host ships no plugin of that id; `plugins remove gone_plugin` drops the row, `plugins install SOURCE` installs it again

"#]],
    );
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), before);
    run(&["info", "gone_plugin"]).expect(
        0,
        str![[r#"
gone_plugin - (protoagent)
...
  source:   (none recorded)
  commit:   (none recorded)
...
"#]],
        str![],
    );
    // outdated has nothing to check for either.
    run(&["outdated"]).expect(
        0,
        str![[r#"
agent_browser                    -                            no source recorded: nothing to check
gone_plugin                      -                            no source recorded: nothing to check
own_plugin                       local copy                   not from git

"#]],
        str![],
    );
    // verify: the bundled plugin's row has no directory of its own to verify; the other
    // is missing with nothing to fetch it from.
    run(&["verify"]).expect(1, str![[r#"
          ok agent_browser
     missing gone_plugin: [TMP]/home/plugins/gone_plugin is missing, and the lock records no source: `plugins remove gone_plugin` drops the row
          ok own_plugin
3 verified, 0 changed, 1 missing

"#]], str![]);
}

#[test]
fn sync_of_a_superseded_row_fetches_nothing_and_goes_on_as_the_hosts_sync() {
    // A lock the host wrote before 0.218 bundled agent_browser, and a plugin of its own;
    // both directories are gone. The host's sync reports the first `superseded` (nothing
    // fetched: the bundled copy runs) and installs the second; so does plugins, exit 0.
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let own = plugin_repo(&t.join("own"), "own_plugin");
    let url = "https://github.com/protoLabsAI/agent-browser-plugin.git";
    let make = |home: &std::path::Path| {
        instance(home, None);
        std::fs::create_dir_all(home.join("plugins")).unwrap();
        let row = json!({"plugins": [{"id": "agent_browser", "source_url": url, "requested_ref": "v0.6.3",
            "resolved_sha": "0123456789012345678901234567890123456789", "installed_at": "t", "by": "cli"}]});
        std::fs::write(home.join("plugins.lock"), row.to_string()).unwrap();
        let (code, _, message) = plugins_install(home, &own.dir.display().to_string(), &[]);
        assert_eq!(code, 0, "{message}");
        std::fs::remove_dir_all(home.join("plugins/own_plugin")).unwrap();
    };
    let judged = t.join("judged");
    make(&judged);
    let want = host_sync(&py, &judged);
    assert_eq!(
        want,
        json!({"agent_browser": "superseded", "own_plugin": "installed"})
    );
    let home = t.join("home");
    make(&home);
    let before = std::fs::read(home.join("plugins.lock")).unwrap();
    let sync = |json: bool| {
        let mut c = Plugins::new();
        c.args(["sync", "--yes", "--home"])
            .arg(&home)
            .args(json.then_some("--json"))
            .envs(NO_NETWORK)
            .env("COLUMNS", "1000")
            .tmp(&t);
        c.run()
    };
    sync(false).expect(
        0,
        str![[r#"
  Superseded agent_browser: protoAgent runs its bundled agent_browser v0.7.0 and ignores this copy (`plugins remove agent_browser` cleans it up)
      Synced own_plugin 1.0.0

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
    assert!(home.join("plugins/own_plugin").is_dir());
    assert!(!home.join("plugins/agent_browser").exists());
    // The sync wrote the lock's rows back as they were.
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), before);
    // Again, everything else in place: the superseded row is all there is to say.
    sync(true).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "agent_browser",
      "status": "superseded",
      "message": "protoAgent runs its bundled agent_browser v0.7.0 and ignores this copy (`plugins remove agent_browser` cleans it up)",
      "home": "[TMP]/home"
    }
  ]
}

"#]],
        str![],
    );
    // The way out drops the row; the next sync has nothing to say about it.
    Plugins::new()
        .args(["remove", "agent_browser", "--home"])
        .arg(&home)
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
     Removed agent_browser from [TMP]/home

"#]],
            str![],
        );
    sync(false).expect(
        0,
        str![[r#"
everything locked is installed

"#]],
        str![],
    );
}
