//! `plugins doctor` (issue #17) and `-v` (issue #15): a home with leftovers and a
//! missing and a changed plugin; reachable and unreachable sources (a loopback
//! smart-HTTP git server, a closed port); a GitHub token shown only as its source;
//! the GitHub rate limit from a loopback API; a proxy seen by `-v`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use snapbox::{IntoData, str};

use crate::support::git::Repo;
use crate::support::hosts::host_python;
use crate::support::net::{GitServer, Proxy};
use crate::support::*;

const SECRET: &str = "s3cr3t-d0ct0r-4711";

/// `plugins` with nothing from the outside: an empty HOME and git config, no netrc,
/// token or proxy, and a PATH holding only `aoe` (which prints its version) and a
/// `python3` that runs the host venv's interpreter.
fn cmd(tmp: &Path, python: &Path) -> Plugins {
    let bin = tmp.join("bin");
    if !bin.exists() {
        std::fs::create_dir_all(&bin).unwrap();
        let script = |name: &str, body: String| {
            let path = bin.join(name);
            std::fs::write(&path, body).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        script("aoe", "#!/bin/sh\necho \"aoe 1.15.0\"\n".into());
        script(
            "python3",
            format!("#!/bin/sh\nexec {} \"$@\"\n", python.display()),
        );
    }
    let mut c = Plugins::new();
    c.isolated(tmp)
        .without_host_env()
        .env("PATH", &bin)
        .env("PLUGINS_NET_TIMEOUT", "5")
        .env("COLUMNS", "400")
        .tmp(tmp);
    c
}

/// Compare with a snapshot (`SNAPSHOTS=overwrite` fills it), the binary's path, the
/// temp directory and `vars` (server addresses, ports) redacted to placeholders.
#[track_caller]
fn assert_screen(
    actual: impl Into<String>,
    tmp: &Path,
    vars: &[(&'static str, &str)],
    expected: impl IntoData,
) {
    let mut pairs = vec![
        ("[EXE]", BIN.to_owned()),
        ("[TMP]", tmp.display().to_string()),
    ];
    pairs.extend(vars.iter().map(|(p, v)| (*p, (*v).to_owned())));
    assert_redacted(&actual.into(), &pairs, expected);
}

/// A repository holding one aoe plugin with `id`.
fn plugin_repo(dir: &Path, id: &str) -> Repo {
    let repo = Repo::init(dir);
    repo.file(
        "aoe-plugin.toml",
        &static_aoe("1.0.0").replace("dev.example.pinned", id),
    );
    repo.commit("v1");
    repo
}

/// A port nothing listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// Replace `from` with `to` in the home's lock.
fn edit_lock(home: &Path, from: &str, to: &str) {
    let path = home.join("plugins.lock");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

fn schema_errors(doc: &Value) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/doctor.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(doc)
        .map(|e| e.to_string())
        .collect()
}

#[test]
fn doctor_reports_leftovers_missing_and_changed_plugins_and_unreachable_sources() {
    let Some(python) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let home = t.join("home");
    for id in ["dev.example.gone", "dev.example.changed", "dev.example.far"] {
        let repo = plugin_repo(&t.join(format!("src/{id}")), id);
        cmd(t, &python)
            .args(["install", &repo.url(), "--yes", "--home"])
            .arg(&home)
            .run()
            .success();
    }
    // A plugin directory deleted, a manifest edited, a source moved to a closed port.
    std::fs::remove_dir_all(home.join("plugins/dev.example.gone")).unwrap();
    std::fs::write(
        home.join("plugins/dev.example.changed/aoe-plugin.toml"),
        static_aoe("6.6.6").replace("dev.example.pinned", "dev.example.changed"),
    )
    .unwrap();
    let far = format!("file://{}", t.join("src/dev.example.far").display());
    let closed = format!("http://127.0.0.1:{}/acme/far.git", closed_port());
    edit_lock(&home, &far, &closed);
    // What a killed install leaves: its intent record and its staging directory.
    std::fs::create_dir_all(home.join(".plugins/txn")).unwrap();
    std::fs::write(
        home.join(".plugins/txn/dev.example.ghost.json"),
        r#"{"phase":"swap","id":"dev.example.ghost","dialect":"aoe","had_old":false,"entry":null,"by":"install","now":"2026-01-01T00:00:00Z"}"#,
    )
    .unwrap();
    std::fs::create_dir_all(home.join(".plugins/staging/s-999999999-abc/tree")).unwrap();
    // An autoupdate policy with a typo, which `autoupdate` would warn about.
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.\"dev.example.far\"]\ntrack = \"main\"\nwhen = \"idel\"\n",
    )
    .unwrap();

    // Another process works on the home (the guard `install::lock_home` takes).
    let guard = std::fs::File::open(home.join(".plugins.guard")).unwrap();
    guard.lock().unwrap();
    let ran = cmd(t, &python)
        .redact("[PORT]", closed_port_of(&closed))
        .args(["doctor", "--home"])
        .arg(&home)
        .run();
    drop(guard);
    ran.expect(
        1,
        str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  info  another plugins process holds the home lock: a changing command waits for it (or fails with --no-wait)
  ok    [TMP]/home/plugins.lock (aoe) loads: 3 plugins
  fail  dev.example.changed: the manifest changed since install [plugins::install::tampered]
        help: `plugins verify` lists what changed; `plugins sync --force` puts the locked files back
  fail  dev.example.gone: [TMP]/home/plugins/dev.example.gone is missing [plugins::install::missing]
        help: `plugins sync` installs it again at the locked commit
  warn  a change to dev.example.ghost was interrupted (its intent record is pending) [plugins::doctor::leftover]
        help: the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it finishes or undoes the change; `plugins sync` does so now
  warn  [TMP]/home/.plugins/staging/s-999999999-abc is a staging directory of a process that is gone [plugins::doctor::leftover]
        help: the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it deletes it
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: every 6 h: dev.example.far
  warn  [TMP]/home/plugins.toml: `when = "idel"` is not "idle" or "always"; using the default, "idle" [plugins::config::invalid_value]
        help: did you mean `idle`?
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
sources
  ok    dev.example.changed: file://[TMP]/src/dev.example.changed is readable
  fail  dev.example.far: cannot reach http://127.0.0.1:[PORT]/acme/far.git: failed to connect to 127.0.0.1: Connection refused [plugins::git::fetch]
        help: proxy: none; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)
  ok    dev.example.gone: file://[TMP]/src/dev.example.gone is readable
doctor: 5 ok, 3 warn, 3 fail

"#]],
        str![""],
    );

    // -q: only what needs a person.
    let ran = cmd(t, &python)
        .redact("[PORT]", closed_port_of(&closed))
        .args(["doctor", "-q", "--home"])
        .arg(&home)
        .run();
    ran.expect(1, str![[r#"
  fail  dev.example.changed: the manifest changed since install [plugins::install::tampered]
        help: `plugins verify` lists what changed; `plugins sync --force` puts the locked files back
  fail  dev.example.gone: [TMP]/home/plugins/dev.example.gone is missing [plugins::install::missing]
        help: `plugins sync` installs it again at the locked commit
  warn  a change to dev.example.ghost was interrupted (its intent record is pending) [plugins::doctor::leftover]
        help: the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it finishes or undoes the change; `plugins sync` does so now
  warn  [TMP]/home/.plugins/staging/s-999999999-abc is a staging directory of a process that is gone [plugins::doctor::leftover]
        help: the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it deletes it
  warn  [TMP]/home/plugins.toml: `when = "idel"` is not "idle" or "always"; using the default, "idle" [plugins::config::invalid_value]
        help: did you mean `idle`?
  fail  dev.example.far: cannot reach http://127.0.0.1:[PORT]/acme/far.git: failed to connect to 127.0.0.1: Connection refused [plugins::git::fetch]
        help: proxy: none; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)

"#]], str![[""]]);
    assert!(
        ran.stdout
            .lines()
            .all(|l| !l.starts_with("  ok") && !l.starts_with("  info")),
        "{}",
        ran.stdout
    );

    // --json: the schema, and the same verdict.
    let ran = cmd(t, &python)
        .redact("[PORT]", closed_port_of(&closed))
        .args(["doctor", "--json", "--home"])
        .arg(&home)
        .run();
    ran.expect(1, str![[r#"
{
  "format_version": 1,
  "ok": false,
  "summary": {
    "ok": 5,
    "warn": 3,
    "fail": 3,
    "info": 6
  },
  "checks": [
    {
      "area": "home",
      "status": "ok",
      "message": "[TMP]/home exists",
      "home": "[TMP]/home"
    },
    {
      "area": "lock",
      "status": "ok",
      "message": "[TMP]/home/plugins.lock (aoe) loads: 3 plugins",
      "home": "[TMP]/home"
    },
    {
      "area": "plugin",
      "status": "fail",
      "message": "dev.example.changed: the manifest changed since install",
      "code": "plugins::install::tampered",
      "help": "`plugins verify` lists what changed; `plugins sync --force` puts the locked files back",
      "home": "[TMP]/home",
      "id": "dev.example.changed"
    },
    {
      "area": "plugin",
      "status": "fail",
      "message": "dev.example.gone: [TMP]/home/plugins/dev.example.gone is missing",
      "code": "plugins::install::missing",
      "help": "`plugins sync` installs it again at the locked commit",
      "home": "[TMP]/home",
      "id": "dev.example.gone"
    },
    {
      "area": "leftovers",
      "status": "warn",
      "message": "a change to dev.example.ghost was interrupted (its intent record is pending)",
      "code": "plugins::doctor::leftover",
      "help": "the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it finishes or undoes the change; `plugins sync` does so now",
      "home": "[TMP]/home",
      "id": "dev.example.ghost"
    },
    {
      "area": "leftovers",
      "status": "warn",
      "message": "[TMP]/home/.plugins/staging/s-999999999-abc is a staging directory of a process that is gone",
      "code": "plugins::doctor::leftover",
      "help": "the next command that changes this home (install, update, remove, sync, rollback) recovers it first: it deletes it",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "autoupdate policy [TMP]/home/plugins.toml: every 6 h: dev.example.far",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "warn",
      "message": "[TMP]/home/plugins.toml: `when = \"idel\"` is not \"idle\" or \"always\"; using the default, \"idle\"",
      "code": "plugins::config::invalid_value",
      "help": "did you mean `idle`?",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "info",
      "message": "17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "ok",
      "message": "the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)",
      "home": "[TMP]/home"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: aoe 1.15.0"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: protolabs-agent 0.218.1 (python3)"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: aworld 0.3.2 (python3)"
    },
    {
      "area": "source",
      "status": "ok",
      "message": "dev.example.changed: file://[TMP]/src/dev.example.changed is readable",
      "home": "[TMP]/home",
      "id": "dev.example.changed"
    },
    {
      "area": "source",
      "status": "fail",
      "message": "dev.example.far: cannot reach http://127.0.0.1:[PORT]/acme/far.git: failed to connect to 127.0.0.1: Connection refused",
      "code": "plugins::git::fetch",
      "help": "proxy: none; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)",
      "home": "[TMP]/home",
      "id": "dev.example.far",
      "route": {
        "url": "http://127.0.0.1:[PORT]/acme/far.git",
        "proxy": null,
        "credentials": []
      }
    },
    {
      "area": "source",
      "status": "ok",
      "message": "dev.example.gone: file://[TMP]/src/dev.example.gone is readable",
      "home": "[TMP]/home",
      "id": "dev.example.gone"
    }
  ]
}

"#]], str![[""]]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new(), "{doc:#}");
    assert_eq!(
        (doc["ok"].as_bool(), doc["summary"]["fail"].as_u64()),
        (Some(false), Some(3))
    );
    let codes: Vec<&str> = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        [
            "plugins::install::tampered",
            "plugins::install::missing",
            "plugins::doctor::leftover",
            "plugins::doctor::leftover",
            "plugins::config::invalid_value",
            "plugins::git::fetch"
        ]
    );

    // The next changing command recovers the leftovers, as doctor says.
    cmd(t, &python)
        .args(["remove", "dev.example.far", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
     Removed dev.example.far from [TMP]/home

"#]],
            str![[r#"
   Recovered the interrupted change to dev.example.ghost (removed 1 leftover)

"#]],
        );
    let ran = cmd(t, &python)
        .args(["doctor", "--offline", "--home"])
        .arg(&home)
        .run();
    ran.expect(1, str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 2 plugins
  fail  dev.example.changed: the manifest changed since install [plugins::install::tampered]
        help: `plugins verify` lists what changed; `plugins sync --force` puts the locked files back
  fail  dev.example.gone: [TMP]/home/plugins/dev.example.gone is missing [plugins::install::missing]
        help: `plugins sync` installs it again at the locked commit
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: every 6 h: dev.example.far
  warn  [TMP]/home/plugins.toml: `when = "idel"` is not "idle" or "always"; using the default, "idle" [plugins::config::invalid_value]
        help: did you mean `idle`?
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
doctor: 4 ok, 1 warn, 2 fail

"#]], str![[""]]);
    assert!(
        ran.stdout
            .contains("  ok    no interrupted change, no stale staging directory\n"),
        "{}",
        ran.stdout
    );
}

/// `http://127.0.0.1:PORT/...` → `PORT`.
fn closed_port_of(url: &str) -> String {
    url.rsplit_once(':')
        .unwrap()
        .1
        .split('/')
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_home_that_does_not_exist_fails_and_default_homes_are_listed() {
    let Some(python) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    cmd(t, &python)
        .args(["doctor", "--offline", "--home"])
        .arg(t.join("nowhere"))
        .run()
        .expect(
            1,
            str![[r#"
aoe home [TMP]/nowhere
  fail  [TMP]/nowhere does not exist [plugins::doctor::home]
        help: check --home or PLUGINS_HOME; `plugins homes` shows each host's own home
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
doctor: 0 ok, 0 warn, 1 fail

"#]],
            str![""],
        );
    let ran = cmd(t, &python)
        .args(["doctor", "--offline", "--json", "--home"])
        .arg(t.join("nowhere"))
        .run();
    ran.expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "ok": false,
  "summary": {
    "ok": 0,
    "warn": 0,
    "fail": 1,
    "info": 3
  },
  "checks": [
    {
      "area": "home",
      "status": "fail",
      "message": "[TMP]/nowhere does not exist",
      "code": "plugins::doctor::home",
      "help": "check --home or PLUGINS_HOME; `plugins homes` shows each host's own home",
      "home": "[TMP]/nowhere"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: aoe 1.15.0"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: protolabs-agent 0.218.1 (python3)"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: aworld 0.3.2 (python3)"
    }
  ]
}

"#]],
        str![[""]],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new(), "{doc:#}");
    assert_eq!(
        doc["checks"][0]["code"].as_str(),
        Some("plugins::doctor::home")
    );
    // Without --home: each host's own home, absent ones as information; protoAgent's
    // relative plugins directory is refused, as the host refuses it.
    cmd(t, &python)
        .env("PROTOAGENT_PLUGINS_DIR", "rel/plugins")
        .args(["doctor", "--offline"])
        .run()
        .expect(
            0,
            str![[r#"
aoe home [TMP]/user/.config/agent-of-empires
  info  [TMP]/user/.config/agent-of-empires does not exist: nothing is installed for aoe
aworld home [TMP]/user/.aworld
  info  [TMP]/user/.aworld does not exist: nothing is installed for aworld
protoagent home [TMP]/user/.protoagent/default
  info  [TMP]/user/.protoagent/default does not exist: nothing is installed for protoagent
  warn  PROTOAGENT_PLUGINS_DIR 'rel/plugins' is not absolute, so it is ignored and plugins load from [TMP]/user/.protoagent/default/plugins instead. Set an absolute path. [plugins::protoagent::relative_plugins_dir]
        help: protoAgent ignores a relative plugins directory; so does `plugins`
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
doctor: 0 ok, 1 warn, 0 fail

"#]],
            str![""],
        );
}

/// Each request's line and `Authorization` header, in order.
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

/// A route table on 127.0.0.1 for the GitHub API (`/rate_limit`), logging each
/// request's line and `Authorization` header.
struct Api {
    base: String,
    seen: Seen,
}

impl Api {
    /// `/rate_limit` answers `body`; with `redirect`, it redirects to `/v2/rate_limit`,
    /// which does.
    fn start(body: &'static str, redirect: bool) -> Api {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Seen = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let mut authorization = None;
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                    if let Some((k, v)) = h.split_once(':')
                        && k.eq_ignore_ascii_case("authorization")
                    {
                        authorization = Some(v.trim().to_owned());
                    }
                }
                log.lock()
                    .unwrap()
                    .push((line.trim_end().to_owned(), authorization));
                let _ = if redirect && line.starts_with("GET /rate_limit ") {
                    write!(
                        stream,
                        "HTTP/1.1 302 Found\r\nLocation: /v2/rate_limit\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )
                } else {
                    write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                };
            }
        });
        Api { base, seen }
    }
}

/// Resets 100 days and 12 hours from when the tests started, so "resets in" reads
/// "100 d" whenever they run (a fixed date made the snapshot change every day).
static RATE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let reset = now + 100 * 86_400 + 12 * 3_600;
    format!(
        r#"{{"resources":{{"core":{{"limit":5000,"used":1,"remaining":4999,"reset":{reset}}}}},"rate":{{"limit":5000,"remaining":4999,"reset":{reset}}}}}"#
    )
});

/// A `gh:` plugin served with Basic auth that only the token opens, installed with
/// `-v`: the steps are shown, the token is not.
fn gh_home(t: &Path, python: &Path, server: &GitServer, api: &Api) -> PathBuf {
    let home = t.join("home");
    let ran = cmd(t, python)
        .env("GITHUB_TOKEN", SECRET)
        .env("PLUGINS_GH_BASE", &server.base)
        .env("PLUGINS_GITHUB_API", &api.base)
        .redact("[GIT]", &server.base)
        .args(["-v", "install", "gh:acme/kit@main", "--yes", "--home"])
        .arg(&home)
        .run();
    ran.expect(0, str![[r#"
   Installed dev.example.kit 1.0.0 @ 495493837c in [TMP]/home/plugins/dev.example.kit

"#]], str![[r#"
    Fetching [GIT]/acme/kit.git
warning[plugins::git::cleartext]: [GIT]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
debug: git: [GIT]/acme/kit.git: connecting (credentials if asked: GITHUB_TOKEN)
debug: git: [GIT]/acme/kit.git: proxy none
debug: git: [GIT]/acme/kit.git: offering credentials from GITHUB_TOKEN/GH_TOKEN
debug: git: [GIT]/acme/kit.git: listed 2 refs, resolved refs/heads/main
debug: git: [GIT]/acme/kit.git: proxy none
debug: git: [GIT]/acme/kit.git: fetching +refs/heads/main:refs/heads/main
     Fetched 495493837c91
debug: host: detected aoe api 12, version 1.15.0 (aoe --version); validating as it
aoe plugin `dev.example.kit` 1.0.0 from gh:acme/kit @ 495493837c91
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]]);
    let (stdout, stderr) = (&ran.stdout, &ran.stderr);
    assert!(!format!("{stdout}{stderr}").contains(SECRET), "{stderr}");
    let debug: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("debug: "))
        .collect();
    assert_screen(
        debug.join("\n") + "\n",
        t,
        &[("[GIT]", &server.base)],
        str![[r#"
debug: git: [GIT]/acme/kit.git: connecting (credentials if asked: GITHUB_TOKEN)
debug: git: [GIT]/acme/kit.git: proxy none
debug: git: [GIT]/acme/kit.git: offering credentials from GITHUB_TOKEN/GH_TOKEN
debug: git: [GIT]/acme/kit.git: listed 2 refs, resolved refs/heads/main
debug: git: [GIT]/acme/kit.git: proxy none
debug: git: [GIT]/acme/kit.git: fetching +refs/heads/main:refs/heads/main
debug: host: detected aoe api 12, version 1.15.0 (aoe --version); validating as it

"#]],
    );
    home
}

fn served(t: &Path) -> GitServer {
    let repo = plugin_repo(&t.join("work"), "dev.example.kit");
    repo.clone_bare(&t.join("srv/acme/kit.git"));
    GitServer::start(&t.join("srv"), SECRET)
}

#[test]
fn a_token_is_named_by_its_source_and_never_shown() {
    let Some(python) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let server = served(t);
    let api = Api::start(&RATE, false);
    let home = gh_home(t, &python, &server, &api);
    let doctor = |args: &[&str], json: bool, token: Option<(&str, &str)>| {
        let mut c = cmd(t, &python);
        c.env("PLUGINS_GH_BASE", &server.base)
            .env("PLUGINS_GITHUB_API", &api.base);
        if let Some((var, value)) = token {
            c.env(var, value);
        }
        c.args(args).arg("doctor").arg("--home").arg(&home);
        if json {
            c.arg("--json");
        }
        c.redact("[GIT]", &server.base).redact("[API]", &api.base);
        c.run()
    };
    let ran = doctor(&[], false, Some(("GITHUB_TOKEN", SECRET)));
    ran.expect(
        0,
        str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
sources
  ok    dev.example.kit: [GIT]/acme/kit.git answers (up to date); proxy: none; credentials if asked: GITHUB_TOKEN
github
  ok    [API]/rate_limit: 4999 of 5000 requests left, resets in 100 d; proxy: none; credentials if asked: GITHUB_TOKEN
doctor: 6 ok, 0 warn, 0 fail

"#]],
        str![""],
    );
    // The rate limit was read with the token.
    assert!(
        api.seen
            .lock()
            .unwrap()
            .iter()
            .any(|(line, auth)| line.starts_with("GET /rate_limit ")
                && auth.as_deref() == Some(&format!("Bearer {SECRET}") as &str)),
        "{:?}",
        api.seen.lock().unwrap()
    );
    let mut outputs = vec![ran.stdout, ran.stderr];
    for (args, token) in [
        (&["-v"][..], ("GITHUB_TOKEN", SECRET)),
        (&["-v", "--log-format", "json"], ("GITHUB_TOKEN", SECRET)),
        (&["-v"], ("GH_TOKEN", SECRET)),
    ] {
        // parts: -v's debug lines of the sources and the API interleave (checked at once).
        let (code, stdout, stderr) = doctor(args, false, Some(token)).parts();
        assert_eq!(code, 0, "{args:?}: {stdout}{stderr}");
        assert!(
            stdout.contains(&format!("credentials if asked: {}", token.0)),
            "{stdout}"
        );
        assert!(
            stderr.contains("offering credentials from GITHUB_TOKEN/GH_TOKEN"),
            "{stderr}"
        );
        if args.contains(&"json") {
            for line in stderr.lines() {
                let doc: Value = serde_json::from_str(line).unwrap();
                assert_eq!(doc["level"], "debug", "{line}");
            }
        }
        outputs.push(stdout);
        outputs.push(stderr);
    }
    let ran = doctor(&[], true, Some(("GITHUB_TOKEN", SECRET)));
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "ok": true,
  "summary": {
    "ok": 6,
    "warn": 0,
    "fail": 0,
    "info": 6
  },
  "checks": [
    {
      "area": "home",
      "status": "ok",
      "message": "[TMP]/home exists",
      "home": "[TMP]/home"
    },
    {
      "area": "lock",
      "status": "ok",
      "message": "[TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present",
      "home": "[TMP]/home"
    },
    {
      "area": "leftovers",
      "status": "ok",
      "message": "no interrupted change, no stale staging directory",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "info",
      "message": "17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "ok",
      "message": "the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)",
      "home": "[TMP]/home"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: aoe 1.15.0"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: protolabs-agent 0.218.1 (python3)"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: aworld 0.3.2 (python3)"
    },
    {
      "area": "source",
      "status": "ok",
      "message": "dev.example.kit: [GIT]/acme/kit.git answers (up to date); proxy: none; credentials if asked: GITHUB_TOKEN",
      "home": "[TMP]/home",
      "id": "dev.example.kit",
      "route": {
        "url": "[GIT]/acme/kit.git",
        "proxy": null,
        "credentials": [
          "GITHUB_TOKEN"
        ]
      }
    },
    {
      "area": "github",
      "status": "ok",
      "message": "[API]/rate_limit: 4999 of 5000 requests left, resets in 100 d; proxy: none; credentials if asked: GITHUB_TOKEN",
      "route": {
        "url": "[API]/rate_limit",
        "proxy": null,
        "credentials": [
          "GITHUB_TOKEN"
        ]
      }
    }
  ]
}

"#]], str![[""]]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new(), "{doc:#}");
    outputs.push(ran.stdout);
    outputs.push(ran.stderr);
    for out in &outputs {
        assert!(!out.contains(SECRET), "a secret is shown:\n{out}");
    }
    // -v shows a redirect, and where it goes.
    let moved = Api::start(&RATE, true);
    let (code, stdout, stderr) = cmd(t, &python)
        .env("GITHUB_TOKEN", SECRET)
        .env("PLUGINS_GH_BASE", &server.base)
        .env("PLUGINS_GITHUB_API", &moved.base)
        .args(["-v", "doctor", "--home"])
        .arg(&home)
        .run()
        // parts: -v's debug lines of the sources and the API interleave (checked at once).
        .parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "debug: http: redirected to {}/v2/rate_limit (proxy: none)\n",
            moved.base
        )),
        "{stderr}"
    );
    assert!(!format!("{stdout}{stderr}").contains(SECRET), "{stderr}");
    // A used-up rate limit is a warning, not a failure.
    // Resets 30 days and 12 hours from now, as `RATE` (a fixed date changed the snapshot daily).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let spent = Api::start(
        format!(
            r#"{{"resources":{{"core":{{"limit":60,"used":60,"remaining":0,"reset":{}}}}}}}"#,
            now + 30 * 86_400 + 12 * 3_600
        )
        .leak(),
        false,
    );
    let ran = cmd(t, &python)
        .env("GITHUB_TOKEN", SECRET)
        .env("PLUGINS_GH_BASE", &server.base)
        .env("PLUGINS_GITHUB_API", &spent.base)
        .redact("[GIT]", &server.base)
        .redact("[API]", &spent.base)
        .args(["doctor", "--json", "--home"])
        .arg(&home)
        .run();
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "ok": true,
  "summary": {
    "ok": 5,
    "warn": 1,
    "fail": 0,
    "info": 6
  },
  "checks": [
    {
      "area": "home",
      "status": "ok",
      "message": "[TMP]/home exists",
      "home": "[TMP]/home"
    },
    {
      "area": "lock",
      "status": "ok",
      "message": "[TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present",
      "home": "[TMP]/home"
    },
    {
      "area": "leftovers",
      "status": "ok",
      "message": "no interrupted change, no stale staging directory",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "info",
      "message": "17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "ok",
      "message": "the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)",
      "home": "[TMP]/home"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: aoe 1.15.0"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: protolabs-agent 0.218.1 (python3)"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: aworld 0.3.2 (python3)"
    },
    {
      "area": "source",
      "status": "ok",
      "message": "dev.example.kit: [GIT]/acme/kit.git answers (up to date); proxy: none; credentials if asked: GITHUB_TOKEN",
      "home": "[TMP]/home",
      "id": "dev.example.kit",
      "route": {
        "url": "[GIT]/acme/kit.git",
        "proxy": null,
        "credentials": [
          "GITHUB_TOKEN"
        ]
      }
    },
    {
      "area": "github",
      "status": "warn",
      "message": "[API]/rate_limit: 0 of 60 requests left, resets in 30 d; proxy: none; credentials if asked: GITHUB_TOKEN",
      "code": "plugins::doctor::rate_limit",
      "help": "installs of `gh:` sources without a ref and release downloads wait until it resets; a GITHUB_TOKEN raises the limit",
      "route": {
        "url": "[API]/rate_limit",
        "proxy": null,
        "credentials": [
          "GITHUB_TOKEN"
        ]
      }
    }
  ]
}

"#]], str![[""]]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let github = doc["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == "github")
        .unwrap();
    assert_eq!(
        (github["status"].as_str(), github["code"].as_str()),
        (Some("warn"), Some("plugins::doctor::rate_limit"))
    );
    // Without the token the server refuses: the source fails, naming where it looked.
    doctor(&[], false, None).expect(1, str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
sources
  fail  dev.example.kit: [GIT]/acme/kit.git needs credentials and none were found [plugins::git::auth]
        help: proxy: none; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)
github
  ok    [API]/rate_limit: 4999 of 5000 requests left, resets in 100 d; proxy: none; credentials if asked: none
doctor: 5 ok, 0 warn, 1 fail

"#]], str![[""]]);
}

/// libgit2 takes a proxy only for https:// remotes (a CONNECT tunnel, which fails
/// here at the TLS handshake: the loopback server speaks plain HTTP); the API call is
/// plain HTTP through the proxy. `-v` shows both routes.
#[test]
fn verbose_shows_the_proxy_of_each_transfer() {
    let Some(python) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let server = served(t);
    let api = Api::start(&RATE, false);
    let home = gh_home(t, &python, &server, &api);
    let proxy = Proxy::start();
    let https = server.base.replace("http://", "https://");
    let ran = cmd(t, &python)
        .env("PLUGINS_GH_BASE", &https)
        .env("PLUGINS_GITHUB_API", &api.base)
        .env("HTTPS_PROXY", &proxy.url)
        .env("HTTP_PROXY", &proxy.url)
        .redact("[GIT]", &https)
        .redact("[API]", &api.base)
        .redact("[PROXY]", &proxy.url)
        .args(["-v", "doctor", "--timeout", "10", "--home"])
        .arg(&home)
        .run();
    // stderr is compared sorted, below: the sources and the API are checked at once.
    ran.code(1).stdout_eq(str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
sources
  fail  dev.example.kit: cannot reach [GIT]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof [plugins::git::fetch]
        help: proxy: [PROXY]; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)
github
  ok    [API]/rate_limit: 4999 of 5000 requests left, resets in 100 d; proxy: [PROXY]; credentials if asked: none
doctor: 5 ok, 0 warn, 1 fail

"#]]);
    let authority = server.base.trim_start_matches("http://");
    assert!(
        proxy
            .lines()
            .iter()
            .any(|l| l.starts_with(&format!("CONNECT {authority} "))),
        "{:?}",
        proxy.lines()
    );
    assert!(
        proxy
            .lines()
            .iter()
            .any(|l| l.starts_with(&format!("GET {}/rate_limit ", api.base))),
        "{:?}",
        proxy.lines()
    );
    // Sorted: the sources and the API are checked at the same time.
    let mut lines: Vec<&str> = ran.stderr.lines().collect();
    lines.sort();
    ran.redacted_eq(
        &(lines.join("\n") + "\n"),
        str![[r#"
debug: git: [GIT]/acme/kit.git: connecting (credentials if asked: none)
debug: git: [GIT]/acme/kit.git: proxy [PROXY]
debug: http: GET [API]/rate_limit (proxy: [PROXY])

"#]],
    );
    // Without -v, no debug line.
    cmd(t, &python)
        .env("PLUGINS_GH_BASE", &https)
        .args(["doctor", "--offline", "--home"])
        .arg(&home)
        .run()
        .expect(0, str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 1 plugin, every directory present
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
  info  aoe: aoe 1.15.0
  info  protoagent: protolabs-agent 0.218.1 (python3)
  info  aworld: aworld 0.3.2 (python3)
doctor: 4 ok, 0 warn, 0 fail

"#]], str![""]);
}

/// The crontab line `doctor` prints, run as cron runs it on a fresh account: `env -i`
/// with only HOME and cron's PATH, under `/bin/sh -c`, and no `~/.local/state` yet.
#[test]
fn the_printed_cron_line_runs_on_a_fresh_account() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let user = t.join("fresh");
    let home = t.join("home");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(t.join("empty-path")).unwrap();
    let doctor = |expected: snapbox::data::Inline| {
        let ran = Plugins::new()
            .env("HOME", &user)
            .env("PATH", t.join("empty-path"))
            .tmp(t)
            .args(["doctor", "--offline", "--json", "--home"])
            .arg(&home)
            .run();
        ran.expect(0, expected, str![""]);
        let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
        assert_eq!(schema_errors(&doc), Vec::<String>::new());
        let cron: Vec<(String, String)> = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["area"] == "cron")
            .map(|c| {
                let code = c["code"]
                    .as_str()
                    .map_or(String::new(), |c| format!(" [{c}]"));
                (
                    c["status"].as_str().unwrap().to_owned(),
                    format!("{}{code}", c["message"].as_str().unwrap()),
                )
            })
            .collect();
        cron
    };
    let cron = doctor(str![[r#"
{
  "format_version": 1,
  "ok": true,
  "summary": {
    "ok": 3,
    "warn": 0,
    "fail": 0,
    "info": 7
  },
  "checks": [
    {
      "area": "home",
      "status": "ok",
      "message": "[TMP]/home exists",
      "home": "[TMP]/home"
    },
    {
      "area": "lock",
      "status": "info",
      "message": "[TMP]/home/plugins.lock does not exist: no plugins are locked",
      "home": "[TMP]/home"
    },
    {
      "area": "leftovers",
      "status": "ok",
      "message": "no interrupted change, no stale staging directory",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "info",
      "message": "17 * * * * mkdir -p [TMP]/fresh/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/fresh/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/fresh/.local/state/plugins-autoupdate.log; exit 1; }",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "ok",
      "message": "the crontab line can run: [EXE] is executable; [TMP]/fresh is writable (the line's `mkdir -p` creates [TMP]/fresh/.local/state)",
      "home": "[TMP]/home"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: not found on PATH"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: python3 not found on PATH"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: python3 not found on PATH"
    }
  ]
}

"#]]);
    let line = &cron[0].1;
    assert_eq!(cron[0].0, "info");
    assert_eq!(
        cron[1],
        (
            "ok".to_owned(),
            format!(
                "the crontab line can run: {} is executable; {} is writable (the line's `mkdir -p` creates {})",
                BIN,
                user.display(),
                user.join(".local/state").display()
            )
        )
    );
    // Minute, hour, day, month, weekday; then the shell command, verbatim.
    let command = line.splitn(6, ' ').nth(5).unwrap();
    assert!(!user.join(".local").exists());
    let status = Command::new("/usr/bin/env")
        .arg("-i")
        .arg(format!("HOME={}", user.display()))
        .arg("PATH=/usr/bin:/bin")
        .args(["/bin/sh", "-c", command])
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "{line}");
    let log = user.join(".local/state/plugins-autoupdate.log");
    assert!(log.is_file(), "{line}");

    // A log directory the line cannot create is reported, with what to do.
    std::fs::remove_dir_all(user.join(".local")).unwrap();
    std::fs::write(user.join(".local"), "").unwrap();
    let cron = doctor(str![[r#"
{
  "format_version": 1,
  "ok": true,
  "summary": {
    "ok": 2,
    "warn": 1,
    "fail": 0,
    "info": 7
  },
  "checks": [
    {
      "area": "home",
      "status": "ok",
      "message": "[TMP]/home exists",
      "home": "[TMP]/home"
    },
    {
      "area": "lock",
      "status": "info",
      "message": "[TMP]/home/plugins.lock does not exist: no plugins are locked",
      "home": "[TMP]/home"
    },
    {
      "area": "leftovers",
      "status": "ok",
      "message": "no interrupted change, no stale staging directory",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet",
      "home": "[TMP]/home"
    },
    {
      "area": "activity",
      "status": "info",
      "message": "autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "info",
      "message": "17 * * * * mkdir -p [TMP]/fresh/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/fresh/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/fresh/.local/state/plugins-autoupdate.log; exit 1; }",
      "home": "[TMP]/home"
    },
    {
      "area": "cron",
      "status": "warn",
      "message": "the crontab line would fail: [TMP]/fresh/.local is not a directory",
      "code": "plugins::doctor::cron",
      "help": "install plugins at a lasting absolute path (install.sh puts it in ~/.local/bin), run `plugins doctor` from there, and use the line it prints",
      "home": "[TMP]/home"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aoe: not found on PATH"
    },
    {
      "area": "host",
      "status": "info",
      "message": "protoagent: python3 not found on PATH"
    },
    {
      "area": "host",
      "status": "info",
      "message": "aworld: python3 not found on PATH"
    }
  ]
}

"#]]);
    assert_eq!(
        cron[1],
        (
            "warn".to_owned(),
            format!(
                "the crontab line would fail: {} is not a directory [{}]",
                user.join(".local").display(),
                "plugins::doctor::cron"
            )
        )
    );
    Plugins::new()
        .env("HOME", &user)
        .env("PATH", t.join("empty-path"))
        .tmp(t)
        .args(["doctor", "-q", "--offline", "--home"])
        .arg(&home)
        .run()
        .expect(0, str![[r#"
  warn  the crontab line would fail: [TMP]/fresh/.local is not a directory [plugins::doctor::cron]
        help: install plugins at a lasting absolute path (install.sh puts it in ~/.local/bin), run `plugins doctor` from there, and use the line it prints

"#]], str![[""]]);
}

/// A last sweep, an idle signal and a first-seen version recorded in the future (a clock
/// that was ahead) are reported, also under -q, and doctor, which only reads, leaves them as
/// they are (the next sweep and `outdated` take them as now).
#[test]
fn times_recorded_in_the_future_are_reported_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let ahead = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 365 * 24 * 3600;
    let record = format!("{{\"last_sweep\": {ahead}}}\n");
    std::fs::write(home.join(".autoupdate.json"), &record).unwrap();
    let future = std::time::UNIX_EPOCH + std::time::Duration::from_secs(ahead);
    std::fs::File::create(home.join("activity"))
        .unwrap()
        .set_modified(future)
        .unwrap();
    std::fs::create_dir_all(home.join(".plugins")).unwrap();
    let seen = format!(
        "{{\"sources\": {{\"gh:o/r\": {{\"commits\": {{\"{}\": {ahead}, \"{}\": 1}}}}}}}}\n",
        "a".repeat(40),
        "b".repeat(40)
    );
    std::fs::write(home.join(".plugins/first-seen.json"), &seen).unwrap();
    let (_, stdout, stderr) = Plugins::new()
        .args(["doctor", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .run()
        // parts: this run shows the machine's own HOME and hosts on PATH, and ages to the second.
        .parts();
    assert!(
        (stdout.clone() + &stderr)
            .contains("s in the future (a clock that was ahead: the next sweep takes it as now)"),
        "{stdout}{stderr}"
    );
    Plugins::new()
        .args(["doctor", "-q", "--offline", "--home"])
        .arg(&home)
        .redact("[HOME]", &home)
        .env("COLUMNS", "400")
        .run()
        .expect(
            0,
            str![[r#"
  warn  times recorded in the future (the clock was ahead): the last autoupdate sweep [..] d ahead, the idle signal [HOME]/activity touched [..] d ahead, 1 version first seen up to [..] d ahead in [HOME]/.plugins/first-seen.json; each is taken as now [plugins::doctor::clock_ahead]
        help: nothing to undo: the next `plugins autoupdate` sweep records the sweep and the idle signal as now, and `plugins outdated` or `update` the first-seen versions; if the clock is still ahead, fix it (timedatectl status)

"#]],
            str![""],
        );
    assert_eq!(
        std::fs::read_to_string(home.join(".autoupdate.json")).unwrap(),
        record
    );
    assert_eq!(
        std::fs::read_to_string(home.join(".plugins/first-seen.json")).unwrap(),
        seen
    );
    let modified = std::fs::metadata(home.join("activity"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(modified, future);
}
