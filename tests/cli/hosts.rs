//! `plugins` against the hosts' own code: protoAgent 0.218.1 and AWorld 0.3.2 from the
//! venv `.ci/hosts-venv` makes. Python is `$PLUGINS_HOST_PYTHON`, else
//! `${PLUGINS_HOST_VENV:-target/hosts-venv}/bin/python`; without it these tests skip
//! with one line, and fail when `CI` is set.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use snapbox::{assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::hosts::host_python;
use crate::support::*;

/// Run `code` in the host's Python with `env` (and nothing of protoAgent's from outside)
/// in `cwd`; returns stdout, parsed as JSON.
fn python(py: &Path, cwd: &Path, env: &[(&str, String)], code: &str) -> Value {
    let mut cmd = Command::new(py);
    cmd.arg("-c").arg(code).current_dir(cwd);
    for v in crate::support::bin::PROTOAGENT_VARS {
        cmd.env_remove(v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{code}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// protoAgent's own answer: instance root, live plugins dir, lock (relative values
/// joined to the working directory, nothing resolved).
const PATHS_PY: &str = r#"
import json, logging, os
from pathlib import Path
logging.disable(logging.CRITICAL)
from infra import paths
from graph.plugins import installer
ip = paths.instance_paths()
a = lambda p: str(p if Path(p).is_absolute() else Path.cwd() / p)
print(json.dumps({"root": a(ip.instance_root), "plugins": a(installer.live_plugins_dir()), "lock": a(ip.plugins_lock)}))
"#;

#[test]
fn protoagent_homes_resolve_as_the_host_resolves_them() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let s = |p: &Path| p.display().to_string();
    let config = |root: &Path, text: &str| {
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(root.join("config/langgraph-config.yaml"), text).unwrap();
    };
    config(
        &t.join("cfg-abs"),
        &format!("model: x\nplugins:\n  dir: {}\n", s(&t.join("from-config"))),
    );
    config(&t.join("cfg-rel"), "plugins:\n  dir: rel/plugins\n");
    config(&t.join("cfg-bad"), "plugins: [1, 2]\n");
    let cases: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![("PROTOAGENT_HOME", s(&t.join("abs-home")))],
        vec![("PROTOAGENT_HOME", "rel/inst".into())],
        vec![
            ("PROTOAGENT_HOME", " ~/h ".into()),
            ("PROTOAGENT_INSTANCE", "x".into()),
        ],
        vec![("PROTOAGENT_INSTANCE", "../evil x".into())],
        vec![("PROTOAGENT_INSTANCE", "".into())],
        vec![("PROTOAGENT_INSTANCE", "..".into())],
        vec![
            ("PROTOAGENT_INSTANCE", "work".into()),
            ("PROTOAGENT_BOX_ROOT", s(&t.join("box"))),
        ],
        vec![("PROTOAGENT_BOX_ROOT", "~/box ".into())],
        vec![("PROTOAGENT_BOX_ROOT", "relbox".into())],
        vec![("PROTOAGENT_PLUGINS_DIR", s(&t.join("pd")))],
        vec![("PROTOAGENT_PLUGINS_DIR", "rel/pd".into())],
        vec![("PROTOAGENT_PLUGINS_DIR", "~/pd".into())],
        vec![("PROTOAGENT_PLUGINS_LOCK", "state/p.lock".into())],
        vec![("PROTOAGENT_PLUGINS_LOCK", s(&t.join("abs.lock")))],
        vec![("PROTOAGENT_AUTO_SCOPE", "1".into())],
        vec![
            ("PROTOAGENT_HOME", s(&t.join("cfg-abs"))),
            ("PROTOAGENT_PLUGINS_DIR", s(&t.join("pd"))),
        ],
        vec![
            ("PROTOAGENT_HOME", s(&t.join("cfg-rel"))),
            ("PROTOAGENT_PLUGINS_DIR", s(&t.join("pd"))),
        ],
        vec![("PROTOAGENT_HOME", s(&t.join("cfg-rel")))],
        vec![("PROTOAGENT_HOME", s(&t.join("cfg-bad")))],
    ];
    for case in cases {
        let mut env = case.clone();
        env.push(("HOME", s(&home)));
        let want = python(&py, &t, &env, PATHS_PY);
        let mut cmd = Plugins::new();
        cmd.without_host_env()
            .args(["homes", "--json"])
            .current_dir(&t);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        // parts: twenty environments, each compared with the host's own answer above.
        let (code, stdout, stderr) = cmd.run().parts();
        assert_eq!(code, 0, "{stderr}");
        let doc: Value = serde_json::from_str(&stdout).unwrap();
        let proto = doc["homes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["dialect"] == "protoagent")
            .unwrap();
        let got = serde_json::json!({
            "root": proto["root"], "plugins": proto["plugins"], "lock": proto["lock"],
        });
        assert_eq!(got, want, "{case:?}");
        let relative = case
            .iter()
            .any(|(k, v)| *k == "PROTOAGENT_PLUGINS_DIR" && v.starts_with("rel"))
            || case.iter().any(|(_, v)| v.ends_with("cfg-rel"));
        assert_eq!(
            stderr.contains("plugins::protoagent::relative_plugins_dir"),
            relative,
            "{case:?}: {stderr}"
        );
    }
}

#[test]
fn relative_plugins_dir_warning_is_the_hosts() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, stderr) = Plugins::new()
        .args(["homes"])
        .env("HOME", tmp.path())
        .env("PROTOAGENT_HOME", tmp.path().join("i"))
        .env("PROTOAGENT_PLUGINS_DIR", "rel")
        .env_remove("PROTOAGENT_INSTANCE")
        .env_remove("PROTOAGENT_BOX_ROOT")
        .run()
        // parts: the report wraps the message at a width that depends on the temp dir's length.
        .parts();
    assert_eq!(code, 0);
    let want = format!(
        "PROTOAGENT_PLUGINS_DIR 'rel' is not absolute, so it is ignored and plugins load from {} instead.",
        tmp.path().join("i/plugins").display()
    );
    let flat: String = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    let flat = flat.replace("│ ", "");
    assert!(
        stderr.contains("plugins::protoagent::relative_plugins_dir"),
        "{stderr}"
    );
    let want: String = want.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.replace(' ', "").contains(&want.replace(' ', "")),
        "{stderr}"
    );
}

/// A protoAgent plugin repository.
fn proto_repo(dir: &Path, id: &str) -> Repo {
    let repo = Repo::init(dir);
    repo.file(
        "protoagent.plugin.yaml",
        &format!("id: {id}\nname: {id}\nversion: 1.2.0\n"),
    )
    .file("__init__.py", "def register(registry):\n    pass\n");
    repo.commit("plugin");
    repo
}

#[test]
fn protoagent_reads_what_plugins_installed_and_plugins_reads_the_hosts_lock() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let instance = t.join("inst");
    let repo = proto_repo(&t.join("notes-src"), "notes_x");
    let env = vec![
        ("HOME", t.join("home").display().to_string()),
        ("PROTOAGENT_HOME", instance.display().to_string()),
    ];
    let mut cmd = Plugins::new();
    cmd.without_host_env()
        .tmp(&t)
        .args(["install", &repo.url(), "--yes"])
        .current_dir(&t);
    for (k, v) in &env {
        cmd.env(k, v);
    }
    cmd.run().expect(
        0,
        str![[r#"
   Installed notes_x 1.2.0 @ 977781d150 in [TMP]/inst/plugins/notes_x

"#]],
        str![[r#"
    Fetching file://[TMP]/notes-src
     Fetched 977781d15089
protoagent plugin `notes_x` 1.2.0 from file://[TMP]/notes-src @ 977781d15089
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
    );
    assert!(instance.join("plugins/notes_x").is_dir());
    let seen = python(
        &py,
        &t,
        &env,
        r#"
import json, logging
logging.disable(logging.CRITICAL)
from graph.plugins import installer, loader
found = [m.id for m in loader.discover_plugins(installer.loader_roots()) if m.id == "notes_x"]
rows = installer._lock_rows_by_id()
listed = [r for r in installer.list_installed() if r.get("id") == "notes_x"]
print(json.dumps({"found": found, "row": rows.get("notes_x"), "listed": listed}))
"#,
    );
    assert_eq!(seen["found"], serde_json::json!(["notes_x"]), "{seen}");
    assert_eq!(seen["row"]["source_url"], repo.url());
    assert_eq!(seen["row"]["resolved_sha"].as_str().unwrap().len(), 40);
    assert_eq!(seen["listed"].as_array().unwrap().len(), 1, "{seen}");

    // The host's own installer writes a row without `plugins`' fields (no ref kind, no
    // hashes): `plugins` lists, checks and verifies it without complaint.
    let other = proto_repo(&t.join("other-src"), "other_x");
    let installed = python(
        &py,
        &t,
        &env,
        &format!(
            r#"
import json, logging
logging.disable(logging.CRITICAL)
from graph.plugins import installer
print(json.dumps(installer.install({:?}, allow=["*"])["id"]))
"#,
            other.dir.display().to_string()
        ),
    );
    assert_eq!(installed, "other_x");
    let lock = std::fs::read_to_string(instance.join("plugins.lock")).unwrap();
    assert!(lock.contains("\"other_x\""), "{lock}");
    let run = |args: &[&str]| {
        let mut cmd = Plugins::new();
        cmd.without_host_env().tmp(&t).args(args).current_dir(&t);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        cmd.run()
    };
    run(&["list"]).expect(0, str![[r#"
ID       VERSION  DIALECT     REF        COMMIT      SOURCE
notes_x  1.2.0    protoagent  (default)  977781d150  file://[TMP]/notes-src  (disabled: `plugins enable notes_x` turns it on)
other_x  1.2.0    protoagent  (default)  4ec1f2fef0  [TMP]/other-src  (disabled: `plugins enable other_x` turns it on)

"#]], str![[""]]);
    run(&["outdated"]).expect(
        0,
        str![[r#"
notes_x                          HEAD @ 977781d150            up to date
other_x                          HEAD @ 4ec1f2fef0            up to date

"#]],
        str![[""]],
    );
    run(&["verify"]).expect(0, str![[r#"
          ok notes_x
unverifiable other_x: the lock records no hash of its files (its host's own installer wrote the row): whether they changed cannot be told; `plugins verify --record` records them as they are now
2 verified, 0 changed, 1 unverifiable

"#]], str![[""]]);
    let ran = run(&["list", "--json"]);
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "notes_x",
      "dialect": "protoagent",
      "version": "1.2.0",
      "source": "file://[TMP]/notes-src",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "977781d150895508c8ad02e5fd28b63d7a925631",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "other_x",
      "dialect": "protoagent",
      "version": "1.2.0",
      "source": "[TMP]/other-src",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "4ec1f2fef095197c63354aee1a8e5dff90af55f9",
      "home": "[TMP]/inst",
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
        str![[""]],
    );
    // The host's row records no version: its installed manifest's is shown.
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let row = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "other_x")
        .cloned()
        .unwrap();
    assert_eq!(row["version"], "1.2.0", "{}", ran.stdout);
}

#[test]
fn aworld_accepts_what_plugins_installed() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("src"));
    repo.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "hello-aw", "name": "hello-aw", "version": "0.1.0", "entrypoints": {"commands": [{"id": "hi", "target": "commands/hi.md"}]}}"#,
    )
    .file("commands/hi.md", "# hi\n");
    repo.commit("aworld plugin");
    let home = t.join("home");
    Plugins::new()
        .tmp(&t)
        .args(["install", &repo.url(), "--yes"])
        .env("HOME", &home)
        .current_dir(&t)
        .run()
        .expect(
            0,
            str![[r#"
   Installed hello-aw 0.1.0 @ 42976da57f in [TMP]/home/.aworld/plugins/hello-aw

"#]],
            str![[r#"
    Fetching file://[TMP]/src
     Fetched 42976da57fa3

"#]],
        );
    let plugins_dir = home.join(".aworld/plugins");
    let registry: Value =
        serde_json::from_str(&std::fs::read_to_string(plugins_dir.join(".manifest.json")).unwrap())
            .unwrap();
    let path = registry["hello-aw"]["path"].as_str().unwrap();
    assert!(Path::new(path).is_absolute(), "{registry}");
    let seen = python(
        &py,
        &t,
        &[("HOME", home.display().to_string())],
        &format!(
            r#"
import json
from pathlib import Path
from aworld.plugins.discovery import discover_plugins
from aworld.plugins.validation import validate_plugin_path
found = [p.manifest.plugin_id for p in discover_plugins([Path({path:?})])]
report = validate_plugin_path(Path({path:?}))
print(json.dumps({{"found": found, "report": report}}))
"#,
            path = path
        ),
    );
    assert_eq!(seen["found"], serde_json::json!(["hello-aw"]), "{seen}");
    assert_eq!(seen["report"]["valid"], true, "{seen}");
    assert_eq!(seen["report"]["plugin_id"], "hello-aw", "{seen}");
    assert_eq!(seen["report"]["path"], path, "{seen}");
}

#[test]
fn aoe_install_grants_in_config_toml_and_remove_forgets() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("aoe-home");
    std::fs::create_dir_all(&home).unwrap();
    let original = "# my aoe settings\ntheme = \"dark\"  # keep this comment\n\n[plugins.\"dev.other\"]\nenabled = false\nsettings = { a = 1 }\n";
    std::fs::write(home.join("config.toml"), original).unwrap();
    let src = t.join("hello");
    crate::support::git::git(&t, &["init", "-q", "hello"]);
    std::fs::write(src.join("aoe-plugin.toml"), CLEAN_AOE).unwrap();
    std::fs::create_dir_all(src.join("bin")).unwrap();
    std::fs::write(src.join("bin/worker"), "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        src.join("bin/worker"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // A relative local source and home: both recorded absolute.
    Plugins::new()
        .tmp(&t)
        .args(["install", "hello", "--yes", "--home", "aoe-home"])
        .current_dir(&t)
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.hello 0.1.0 in [TMP]/aoe-home/plugins/dev.example.hello

"#]],
            str![[r#"
    Fetching [TMP]/hello
      Copied 2 files, 245 bytes
aoe plugin `dev.example.hello` 0.1.0 from [TMP]/hello
  capabilities: runtime.worker
  build steps:  none

"#]],
        );
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    let hash = plugins::hash::bytes(CLEAN_AOE.as_bytes());
    assert!(config.starts_with(original), "{config}");
    let rest = &config[original.len()..];
    let (head, granted_at) = rest.split_once("granted_at = \"").unwrap();
    assert_eq!(
        head,
        format!(
            "\n[plugins.\"dev.example.hello\"]\nsource = \"{}\"\nenabled = true\ngrant = {{ manifest_hash = \"{hash}\", capabilities = [\"runtime.worker\"], ",
            src.display()
        )
    );
    assert!(granted_at.ends_with("\" }\n"), "{granted_at}");
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(
        lock.contains(&format!("source = \"{}\"", src.display())),
        "{lock}"
    );

    Plugins::new()
        .tmp(&t)
        .args(["remove", "dev.example.hello", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
     Removed dev.example.hello from [TMP]/aoe-home

"#]],
            str![[""]],
        );
    assert_eq!(
        std::fs::read_to_string(home.join("config.toml")).unwrap(),
        original
    );
}

#[test]
fn enable_and_disable_flip_each_hosts_switch() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    // aoe: config.toml, the rest kept.
    let aoe_home = t.join("aoe");
    let src = clean_aoe_root();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        src.path().join("bin/worker"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    Plugins::new()
        .tmp(&t)
        .redact("[SRC]", src.path())
        .args(["install", "--yes", "--home"])
        .arg(&aoe_home)
        .arg(src.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.hello 0.1.0 in [TMP]/aoe/plugins/dev.example.hello

"#]],
            str![[r#"
    Fetching [SRC]
      Copied 2 files, 245 bytes
aoe plugin `dev.example.hello` 0.1.0 from [SRC]
  capabilities: runtime.worker
  build steps:  none

"#]],
        );
    let before = std::fs::read_to_string(aoe_home.join("config.toml")).unwrap();
    Plugins::new()
        .tmp(&t)
        .args(["disable", "dev.example.hello", "--home"])
        .arg(&aoe_home)
        .run()
        .expect(
            0,
            str![[r#"
    Disabled dev.example.hello in [TMP]/aoe/config.toml

"#]],
            str![[""]],
        );
    let after = std::fs::read_to_string(aoe_home.join("config.toml")).unwrap();
    assert_eq!(after, before.replace("enabled = true", "enabled = false"));
    Plugins::new()
        .tmp(&t)
        .args(["disable", "dev.example.hello", "--home"])
        .arg(&aoe_home)
        .run()
        .expect(
            0,
            str![[r#"
    Disabled dev.example.hello in [TMP]/aoe/config.toml (already)

"#]],
            str![[""]],
        );
    Plugins::new()
        .tmp(&t)
        .args(["enable", "dev.example.hello", "--home"])
        .arg(&aoe_home)
        .run()
        .expect(
            0,
            str![[r#"
     Enabled dev.example.hello in [TMP]/aoe/config.toml

"#]],
            str![[""]],
        );
    assert_eq!(
        std::fs::read_to_string(aoe_home.join("config.toml")).unwrap(),
        before
    );

    // AWorld: the record in .manifest.json.
    let aw_src = t.join("aw-src");
    std::fs::create_dir_all(aw_src.join(".aworld-plugin")).unwrap();
    std::fs::write(
        aw_src.join(".aworld-plugin/plugin.json"),
        r#"{"id": "aw", "name": "aw", "version": "0.1.0"}"#,
    )
    .unwrap();
    Plugins::new()
        .tmp(&t)
        .args(["install", "--yes"])
        .arg(&aw_src)
        .env("HOME", t.join("h"))
        .run()
        .expect(
            0,
            str![[r#"
   Installed aw 0.1.0 in [TMP]/h/.aworld/plugins/aw

"#]],
            str![[r#"
    Fetching [TMP]/aw-src
      Copied 1 file, 46 bytes

"#]],
        );
    Plugins::new()
        .tmp(&t)
        .args(["disable", "aw"])
        .env("HOME", t.join("h"))
        .run()
        .expect(
            0,
            str![[r#"
    Disabled aw in [TMP]/h/.aworld/plugins/.manifest.json

"#]],
            str![[""]],
        );
    let reg: Value = serde_json::from_str(
        &std::fs::read_to_string(t.join("h/.aworld/plugins/.manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(reg["aw"]["enabled"], false);

    // protoAgent: the lines to put in the config, from its current lists.
    let inst = t.join("inst");
    std::fs::create_dir_all(inst.join("config")).unwrap();
    std::fs::write(
        inst.join("config/langgraph-config.yaml"),
        "# mine\nplugins:\n  enabled: [notes]\n",
    )
    .unwrap();
    let repo = proto_repo(&t.join("pa-src"), "pa_x");
    let env = |cmd: &mut Plugins| {
        cmd.without_host_env()
            .tmp(&t)
            .env("HOME", t.join("h"))
            .env("PROTOAGENT_HOME", &inst);
    };
    let mut cmd = Plugins::new();
    cmd.args(["install", "--yes", &repo.url()]);
    env(&mut cmd);
    cmd.run().expect(
        0,
        str![[r#"
   Installed pa_x 1.2.0 @ 91362f68f0 in [TMP]/inst/plugins/pa_x

"#]],
        str![[r#"
    Fetching file://[TMP]/pa-src
     Fetched 91362f68f018
protoagent plugin `pa_x` 1.2.0 from file://[TMP]/pa-src @ 91362f68f018
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
    );
    let mut cmd = Plugins::new();
    cmd.args(["enable", "pa_x"]);
    env(&mut cmd);
    cmd.run().expect(0, str![[r#"
To enable pa_x, set these in [TMP]/inst/config/langgraph-config.yaml (plugins does not rewrite it), then restart protoAgent:
plugins:
  enabled: ["notes", "pa_x"]
  disabled: []

"#]], str![[""]]);
    assert_eq!(
        std::fs::read_to_string(inst.join("config/langgraph-config.yaml")).unwrap(),
        "# mine\nplugins:\n  enabled: [notes]\n",
        "never rewritten"
    );
    let mut cmd = Plugins::new();
    cmd.args(["disable", "nope"]);
    env(&mut cmd);
    cmd.run().expect(
        2,
        str![[""]],
        str![[r#"
plugins::install::not_installed

  × plugin 'nope' is not installed
  help: `plugins list` shows what is installed; pass --home for another home

"#]],
    );
}

/// A pure-Python wheel `<name>-1.0.0` with `VALUE = 42`, written into `dir` with the host's
/// Python.
fn proto_wheel(py: &Path, dir: &Path, name: &str) {
    wheel_with(py, dir, name, "1.0.0", "VALUE = 42\n");
}

/// protoAgent's loader, as it boots: the wheel-deps dirs on `sys.path`, then every enabled
/// plugin imported and registered, with its `deps_missing`.
const LOAD_PY: &str = r#"
import json, logging, sys, types
logging.disable(logging.CRITICAL)
from graph.plugins import installer, loader, wheel_installer
m = installer.effective_copies()["deppy"]
before = installer.missing_deps(m.requires_pip)
config = types.SimpleNamespace(plugins_enabled=["deppy"], plugins_disabled=[], plugins_dir="", plugin_config={})
result = loader.load_plugins(config)
meta = [p for p in result.meta if p["id"] == "deppy"][0]
print(json.dumps({
    "deps_dirs": [str(d) for d in wheel_installer.existing_deps_dirs()],
    "missing_before_boot": before,
    "loaded": meta["loaded"],
    "error": meta.get("error"),
    "deps_missing": meta["deps_missing"],
    "detail": installer.missing_deps_detail(m),
    "lock_deps": installer._lock_rows_by_id()["deppy"].get("deps"),
}))
"#;

#[test]
fn protoagent_imports_the_deps_plugins_installed() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let index = t.join("wheels");
    proto_wheel(&py, &index, "demolib");
    let repo = Repo::init(&t.join("deppy-src"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip:\n  - demolib>=1.0\n  - \"pywinpty>=2.0; sys_platform == 'win32'\"\n",
    )
    .file(
        "__init__.py",
        "import demolib\n\ndef register(registry):\n    assert demolib.VALUE == 42\n",
    );
    repo.commit("plugin");
    let instance = t.join("inst");
    // `--deps` uses the `python3` on PATH: the host's, as with its environment activated.
    let path = format!(
        "{}:{}",
        py.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = vec![
        ("HOME", t.join("home").display().to_string()),
        ("PROTOAGENT_HOME", instance.display().to_string()),
    ];
    let with_env = |cmd: &mut Plugins| {
        cmd.without_host_env().tmp(&t);
        for (k, v) in &env {
            cmd.env(k, v);
        }
        cmd.env("PATH", &path)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &index)
            .current_dir(&t);
    };
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "--deps"]);
    with_env(&mut cmd);
    cmd.run().expect(0, str![[r#"
   Installed deppy 1.0.0 @ 2fc0d5b02b in [TMP]/inst/plugins/deppy

"#]], str![[r#"
    Fetching file://[TMP]/deppy-src
     Fetched 2fc0d5b02b8b
protoagent plugin `deppy` 1.0.0 from file://[TMP]/deppy-src @ 2fc0d5b02b8b
  capabilities: none
  build steps:  none
  pip:          demolib>=1.0, pywinpty>=2.0; sys_platform == 'win32'
  runs code inside the host process
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib>=1.0 pywinpty>=2.0; sys_platform == 'win32'
    Building step 1/1: python3 -c import importlib.metadata as m, sys; open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()}))) deps-present.txt
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
    assert!(
        instance
            .join("plugin-deps/deppy/demolib/__init__.py")
            .is_file()
    );

    let seen = python(&py, &t, &env, LOAD_PY);
    let sha = seen["lock_deps"][0]["sha256"].clone();
    assert_eq!(sha.as_str().map(str::len), Some(64), "{seen}");
    assert_eq!(
        seen,
        serde_json::json!({
            "deps_dirs": [instance.join("plugin-deps/deppy").display().to_string()],
            "missing_before_boot": ["demolib"],
            "loaded": true,
            "error": null,
            "deps_missing": [],
            "detail": [],
            "lock_deps": [{"name": "demolib", "version": "1.0.0", "sha256": sha}],
        })
    );

    let mut cmd = Plugins::new();
    cmd.args(["verify"]);
    with_env(&mut cmd);
    cmd.run().expect(
        0,
        str![[r#"
          ok deppy
1 verified, 0 changed

"#]],
        str![[""]],
    );
}

#[test]
fn protoagent_reads_a_subdirectory_install_and_ignores_its_subdir_key() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("mono"));
    repo.file("README.md", "a monorepo\n")
        .file(
            "plugins/notes/protoagent.plugin.yaml",
            "id: notes_sub\nname: Notes\nversion: 1.0.0\n",
        )
        .file(
            "plugins/notes/__init__.py",
            "def register(registry):\n    pass\n",
        );
    repo.commit("mono");
    let instance = t.join("inst");
    let env = vec![
        ("HOME", t.join("home").display().to_string()),
        ("PROTOAGENT_HOME", instance.display().to_string()),
    ];
    let mut cmd = Plugins::new();
    cmd.without_host_env()
        .tmp(&t)
        .args(["install", &repo.url(), "--subdir", "plugins/notes", "--yes"])
        .current_dir(&t);
    for (k, v) in &env {
        cmd.env(k, v);
    }
    cmd.run().expect(
        0,
        str![[r#"
   Installed notes_sub 1.0.0 @ 12542dda8e in [TMP]/inst/plugins/notes_sub

"#]],
        str![[r#"
    Fetching file://[TMP]/mono
     Fetched 12542dda8e1d
protoagent plugin `notes_sub` 1.0.0 from file://[TMP]/mono @ 12542dda8e1d
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
    );
    let seen = python(
        &py,
        &t,
        &env,
        r#"
import json, logging
logging.disable(logging.CRITICAL)
from graph.plugins import installer, loader
found = [m.id for m in loader.discover_plugins(installer.loader_roots()) if m.id == "notes_sub"]
row = installer._lock_rows_by_id().get("notes_sub") or {}
listed = [r.get("id") for r in installer.list_installed() if r.get("id") == "notes_sub"]
print(json.dumps({"found": found, "source": row.get("source_url"), "subdir": row.get("subdir"), "listed": listed}))
"#,
    );
    assert_eq!(
        seen,
        serde_json::json!({
            "found": ["notes_sub"],
            "source": repo.url(),
            "subdir": "plugins/notes",
            "listed": ["notes_sub"],
        })
    );
}

/// The protoAgent host is detected from the host's Python as `importlib.metadata` would
/// find it (the probe scans `sys.path` for the distribution's metadata instead of importing
/// it): the hosts venv holds protolabs-agent 0.218.1.
#[test]
fn the_protoagent_host_is_detected_from_its_python() {
    let Some(python) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let plugin = tmp.path().join("notes-plugin");
    std::fs::create_dir_all(&plugin).unwrap();
    std::fs::write(
        plugin.join("protoagent.plugin.yaml"),
        "id: notebook\nname: Notes\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(plugin.join("__init__.py"), "def register(r):\n    pass\n").unwrap();
    let ran = Plugins::new()
        .args(["install", "-v", "--yes", "--python"])
        .arg(&python)
        .arg(&plugin)
        .arg("--home")
        .arg(tmp.path().join("home"))
        .redact("[PYTHON]", &python)
        .run();
    ran.success();
    let line = ran
        .stderr
        .lines()
        .find(|l| l.contains("host: detected"))
        .unwrap_or_default();
    ran.redacted_eq(
        line,
        str!["debug: host: detected version 0.218.1 ([PYTHON]: protolabs-agent); validating as it"],
    );
}

/// The host's Python is asked which hosts it holds once per home: the next install reads the
/// answer from `<home>/.plugins/host-probe.json` without starting Python (strace sees no
/// `execve` of it), until the host changes — its package's metadata touched, or replaced by
/// another version — when it is asked again.
#[test]
fn the_python_probe_is_remembered_per_home_until_the_host_changes() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    // A Python of its own whose only package is the host's metadata (a real interpreter, so
    // the probe is the real probe; nothing shared is touched).
    let venv = t.join("venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().path().join("site-packages"))
        .find(|p| p.is_dir())
        .expect("the venv's site-packages");
    let dist = |v: &str| site.join(format!("protolabs_agent-{v}.dist-info"));
    std::fs::create_dir(dist("0.218.1")).unwrap();
    let python = venv.join("bin/python");
    let home = t.join("home");
    std::fs::create_dir(&home).unwrap();
    let install = |n: u32| {
        let plugin = t.join(format!("notes-{n}"));
        std::fs::create_dir_all(&plugin).unwrap();
        std::fs::write(
            plugin.join("protoagent.plugin.yaml"),
            format!("id: notes{n}\nname: Notes\nversion: 0.1.0\n"),
        )
        .unwrap();
        std::fs::write(plugin.join("__init__.py"), "def register(r):\n    pass\n").unwrap();
        let trace = t.join(format!("trace-{n}"));
        let ran = Plugins::new()
            .args(["-v", "install", "--yes", "--python"])
            .arg(&python)
            .arg(&plugin)
            .home(&home)
            .redact("[PYTHON]", &python)
            .wrapped_in(
                &strace,
                [
                    "-f".as_ref(),
                    "-e".as_ref(),
                    "trace=execve".as_ref(),
                    "-o".as_ref(),
                    trace.as_os_str(),
                ],
            )
            .run();
        ran.success();
        let stderr = &ran.stderr;
        let detected = ran.redacted(
            stderr
                .lines()
                .find(|l| l.contains("host: detected"))
                .unwrap_or_default(),
        );
        // A program run whose path names a python (its own, the symlink's target or any).
        let asked = std::fs::read_to_string(trace).unwrap().lines().any(|l| {
            l.split_once("execve(\"")
                .and_then(|(_, rest)| rest.split_once('"'))
                .is_some_and(|(program, _)| program.contains("python"))
        });
        (detected, asked, stderr.contains("answered as remembered"))
    };
    let first =
        "debug: host: detected version 0.218.1 ([PYTHON]: protolabs-agent); validating as it";
    assert_eq!(install(1), (first.to_owned(), true, false), "asked first");
    assert!(home.join(".plugins/host-probe.json").is_file());
    assert_eq!(
        install(2),
        (first.to_owned(), false, true),
        "then remembered"
    );
    // The package's metadata touched (a reinstall of the same version): asked again.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::open(dist("0.218.1"))
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(install(3), (first.to_owned(), true, false), "touched");
    assert_eq!(install(4), (first.to_owned(), false, true));
    // Another version of the host: asked again, and it is what validation uses.
    std::fs::rename(dist("0.218.1"), dist("0.219.0")).unwrap();
    let (detected, asked, remembered) = install(5);
    assert_data_eq!(
        detected,
        str!["debug: host: detected version 0.219.0 ([PYTHON]: protolabs-agent); validating as it"]
    );
    assert!(asked && !remembered);
}

/// aoe's `--version` is asked once per home too: the next install reads the answer from
/// `<home>/.plugins/host-probe.json` while the `aoe` on PATH is the same file, and asks again
/// when it is replaced (an aoe upgrade), validating as the new version.
#[test]
fn the_aoe_version_probe_is_remembered_per_home_until_aoe_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let bin = t.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let asked = t.join("asked");
    let aoe = |version: &str| {
        let path = bin.join("aoe");
        let _ = std::fs::remove_file(&path);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\necho x >> '{}'\necho 'aoe {version}'\n",
                asked.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    aoe("1.19.0");
    let home = t.join("home");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let install = |n: u32| {
        let plugin = t.join(format!("p{n}"));
        std::fs::create_dir_all(&plugin).unwrap();
        std::fs::write(
            plugin.join("aoe-plugin.toml"),
            static_aoe("0.1.0").replace("dev.example.pinned", &format!("dev.example.p{n}")),
        )
        .unwrap();
        let ran = Plugins::new()
            .args(["-v", "install", "--yes"])
            .arg(&plugin)
            .home(&home)
            .env("PATH", &path)
            .tmp(&t)
            .run();
        ran.success();
        let detected = ran.redacted(
            &ran.stderr
                .lines()
                .filter(|l| l.contains("host: detected") || l.contains("answered as remembered"))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let times = std::fs::read_to_string(&asked)
            .unwrap_or_default()
            .lines()
            .count();
        format!("{detected}\nasked {times} time(s)")
    };
    assert_data_eq!(
        install(1),
        str![[r#"
debug: host: detected aoe api 15, version 1.19.0 (aoe --version); validating as it
asked 1 time(s)
"#]]
    );
    assert_data_eq!(
        install(2),
        str![[r#"
debug: host: aoe: answered as remembered in [TMP]/home/.plugins/host-probe.json (the program and what its answer depends on are unchanged)
debug: host: detected aoe api 15, version 1.19.0 (aoe --version); validating as it
asked 1 time(s)
"#]]
    );
    // Another aoe (an upgrade replaces the file): asked again.
    aoe("1.14.0");
    assert_data_eq!(
        install(3),
        str![[r#"
debug: host: detected aoe api 12, version 1.14.0 (aoe --version); validating as it
asked 2 time(s)
"#]]
    );
}
