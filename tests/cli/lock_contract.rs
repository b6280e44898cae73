//! Issue #28, "the lock is a contract": what `plugins` writes in a host's own files is
//! what the host's own code can act on, judged by that code (protoAgent 0.218.1 from the
//! hosts' venv) or by the spec where there is no host package (aoe).

use std::path::Path;

use serde_json::{Value, json};
use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::hosts::host_python;
use crate::support::net::KeepAliveServer;
use crate::support::protoagent::{host_env, instance};
use crate::support::*;

/// A protoAgent plugin repository with tag `v1.0.0`.
fn proto_repo(dir: &Path, id: &str) -> Repo {
    let repo = Repo::init(dir);
    repo.file(
        "protoagent.plugin.yaml",
        &format!("id: {id}\nname: {id}\nversion: 1.0.0\n"),
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("v1");
    repo.tag("v1.0.0");
    repo
}

/// An `ssh` that runs the remote command here: git calls it as
/// `ssh [options] <host> "git-upload-pack '<path>'"`, and the last argument is the command.
fn local_ssh(dir: &Path) -> String {
    let path = dir.join("local-ssh");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        &path,
        "#!/bin/sh\nfor a in \"$@\"; do last=$a; done\nexec sh -c \"$last\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// The host's own verdict on every row of the lock: `_validate_url(source_url)` (what its
/// install and sync run first) and `check_updates()` (its update check, `git ls-remote`).
const JUDGE_ROWS: &str = r#"
from graph.plugins import updates
out = {}
for pid, row in installer._lock_rows_by_id().items():
    try:
        installer._validate_url(row.get("source_url", ""))
        out[pid] = {"url_ok": True}
    except Exception as e:
        out[pid] = {"url_ok": str(e)}
for c in updates.check_updates():
    out[c["id"]].update(error=c["error"], behind=c["behind"], latest_ref=c["latest_ref"])
print(json.dumps(out))
"#;

#[test]
fn protoagent_fetches_checks_and_syncs_every_source_plugins_locked() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("inst");
    instance(&home, None);
    // gh: (against a loopback clone base), an http URL, an ssh-like remote, a local dir.
    let served = t.join("served");
    let gh = proto_repo(&t.join("gh-src"), "gh_plug");
    gh.clone_bare(&served.join("acme/gh-plug.git"));
    proto_repo(&t.join("url-src"), "url_plug").clone_bare(&served.join("acme/url-plug.git"));
    proto_repo(&t.join("ssh-src"), "ssh_plug").clone_bare(&t.join("ssh/ssh-plug.git"));
    let local = proto_repo(&t.join("local-plug"), "local_plug");
    let server = KeepAliveServer::start(&served);
    let ssh = local_ssh(&t.join("bin"));
    let env = [
        ("PLUGINS_GH_BASE", server.base.as_str()),
        ("GIT_SSH_COMMAND", ssh.as_str()),
        ("GIT_SSH_VARIANT", "simple"),
    ];
    let url_source = format!("{}/acme/url-plug.git", server.base);
    let ssh_source = format!("git@localhost:{}", t.join("ssh/ssh-plug.git").display());
    let local_source = local.dir.display().to_string();
    for source in [
        "gh:acme/gh-plug@v1.0.0",
        url_source.as_str(),
        ssh_source.as_str(),
        local_source.as_str(),
    ] {
        // The profile goes into each row (`host_version`, a key the host does not read):
        // the host's own readers below judge rows that carry it.
        Plugins::new()
            .args([
                "install",
                source,
                "--yes",
                "--host-version",
                "0.218.1",
                "--home",
            ])
            .arg(&home)
            .envs(env)
            .run()
            .success();
    }
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("plugins.lock")).unwrap()).unwrap();
    let row = |id: &str| {
        lock["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap()
    };
    // The host's key is the URL plugins fetched; plugins' spelling is beside it.
    let gh_url = format!("{}/acme/gh-plug.git", server.base);
    assert_eq!(row("gh_plug")["source_url"], gh_url.as_str());
    assert_eq!(row("gh_plug")["plugins_source"], "gh:acme/gh-plug");
    assert_eq!(row("gh_plug")["host_version"], "0.218.1");
    for (id, source) in [
        ("url_plug", &url_source),
        ("ssh_plug", &ssh_source),
        ("local_plug", &local_source),
    ] {
        assert_eq!(row(id)["source_url"], source.as_str(), "{id}");
        assert!(
            row(id).get("plugins_source").is_none(),
            "{id}: one spelling"
        );
    }
    let judged = host_env(&py, &home, &env, JUDGE_ROWS);
    let fine = json!({"url_ok": true, "error": null, "behind": false, "latest_ref": null});
    assert_eq!(
        judged,
        json!({"gh_plug": fine, "url_plug": fine, "ssh_plug": fine, "local_plug": fine})
    );
    // plugins reads its own key back: the source is still `gh:`, and its check agrees with
    // the host's once a newer release is tagged.
    let list = |home: &Path, expected: snapbox::data::Inline| -> Value {
        let ran = Plugins::new()
            .args(["list", "--json", "--home"])
            .arg(home)
            .envs(env)
            .redact("[BASE]", &server.base)
            .tmp(&t)
            .run();
        ran.expect(0, expected, str![""]);
        serde_json::from_str(&ran.stdout).unwrap()
    };
    let source_of = |doc: &Value, id: &str| {
        doc["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .map(|p| p["source"].clone())
            .unwrap()
    };
    assert_eq!(
        source_of(
            &list(
                &home,
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "gh:acme/gh-plug",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "commit": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "local_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[TMP]/local-plug",
      "requested_ref": "",
      "ref_kind": null,
      "commit": null,
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "ssh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "git@localhost:[TMP]/ssh/ssh-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "d885272ced1662cda9016f615ac9d502139b259b",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "url_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[BASE]/acme/url-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "2792232303d9d539fc7ee5ca9d2345fbd68ecbb3",
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

"#]]
            ),
            "gh_plug"
        ),
        "gh:acme/gh-plug"
    );
    gh.file("CHANGES", "1.1\n").commit("v1.1");
    gh.tag("v1.1.0");
    git(
        &gh.dir,
        &[
            "push",
            "-q",
            "--tags",
            served.join("acme/gh-plug.git").to_str().unwrap(),
            "main",
        ],
    );
    let judged = host_env(&py, &home, &env, JUDGE_ROWS);
    assert_eq!(judged["gh_plug"]["behind"], true, "{judged}");
    assert_eq!(judged["gh_plug"]["latest_ref"], "v1.1.0", "{judged}");
    let ran = Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .envs(env)
        .redact("[BASE]", &server.base)
        .tmp(&t)
        .run();
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gh_plug",
      "source": "gh:acme/gh-plug",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "70afb855d29464f67b59b597bb492fcbe27858b9"
    },
    {
      "id": "local_plug",
      "source": "[TMP]/local-plug",
      "requested_ref": "",
      "ref_kind": null,
      "current": null,
      "status": "local"
    },
    {
      "id": "ssh_plug",
      "source": "git@localhost:[TMP]/ssh/ssh-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "d885272ced1662cda9016f615ac9d502139b259b",
      "status": "up_to_date"
    },
    {
      "id": "url_plug",
      "source": "[BASE]/acme/url-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "2792232303d9d539fc7ee5ca9d2345fbd68ecbb3",
      "status": "up_to_date"
    }
  ]
}

"#]],
        str![[""]],
    );
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let gh_row = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "gh_plug")
        .cloned()
        .unwrap();
    assert_eq!(
        (gh_row["status"].as_str(), gh_row["new_ref"].as_str()),
        (Some("behind"), Some("v1.1.0")),
        "{gh_row}"
    );

    // The host's own sync re-fetches a missing plugin from the row plugins wrote (it
    // refused `gh:`); the row it writes back drops plugins' key, and plugins reads it.
    std::fs::remove_dir_all(home.join("plugins/gh_plug")).unwrap();
    let synced = host_env(
        &py,
        &home,
        &env,
        "print(json.dumps({r['id']: r.get('error') or r['status'] for r in installer.sync(allow=None)}))",
    );
    assert_eq!(synced["gh_plug"], "installed", "{synced}");
    assert!(
        home.join("plugins/gh_plug/protoagent.plugin.yaml")
            .is_file()
    );
    assert_eq!(
        source_of(
            &list(
                &home,
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[BASE]/acme/gh-plug.git",
      "requested_ref": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "ref_kind": "commit",
      "commit": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "local_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[TMP]/local-plug",
      "requested_ref": "",
      "ref_kind": null,
      "commit": null,
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "ssh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "git@localhost:[TMP]/ssh/ssh-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "d885272ced1662cda9016f615ac9d502139b259b",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "url_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[BASE]/acme/url-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "2792232303d9d539fc7ee5ca9d2345fbd68ecbb3",
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

"#]]
            ),
            "gh_plug"
        ),
        gh_url.as_str()
    );
    // `plugins install gh:…` again is the same source, not "already installed from <url>".
    Plugins::new()
        .args(["install", "gh:acme/gh-plug@v1.0.0", "--yes", "--home"])
        .arg(&home)
        .envs(env)
        .run()
        .success();
    assert_eq!(
        source_of(
            &list(
                &home,
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "gh:acme/gh-plug",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "commit": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "local_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[TMP]/local-plug",
      "requested_ref": "",
      "ref_kind": null,
      "commit": null,
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "ssh_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "git@localhost:[TMP]/ssh/ssh-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "d885272ced1662cda9016f615ac9d502139b259b",
      "home": "[TMP]/inst",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": false,
      "hold": null,
      "deps": null
    },
    {
      "id": "url_plug",
      "dialect": "protoagent",
      "version": "1.0.0",
      "source": "[BASE]/acme/url-plug.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "2792232303d9d539fc7ee5ca9d2345fbd68ecbb3",
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

"#]]
            ),
            "gh_plug"
        ),
        "gh:acme/gh-plug"
    );
}

#[test]
fn a_row_an_older_plugins_wrote_with_gh_is_read_and_rewritten_usable() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("inst");
    instance(&home, None);
    let served = t.join("served");
    let gh = proto_repo(&t.join("gh-src"), "gh_plug");
    let v1 = git(&gh.dir, &["rev-parse", "HEAD"]);
    gh.clone_bare(&served.join("acme/gh-plug.git"));
    let base = format!("file://{}", served.display());
    let env = [("PLUGINS_GH_BASE", base.as_str())];
    Plugins::new()
        .args(["install", "gh:acme/gh-plug@v1.0.0", "--yes", "--home"])
        .arg(&home)
        .envs(env)
        .run()
        .success();
    // The row as plugins 0.x wrote it: `gh:` in source_url, no plugins_source.
    let path = home.join("plugins.lock");
    let mut lock: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let row = &mut lock["plugins"][0];
    row["source_url"] = json!("gh:acme/gh-plug");
    row.as_object_mut().unwrap().shift_remove("plugins_source");
    std::fs::write(&path, serde_json::to_string_pretty(&lock).unwrap()).unwrap();
    let judged = host_env(&py, &home, &[], JUDGE_ROWS);
    assert_eq!(
        judged["gh_plug"]["url_ok"],
        "unsupported source 'gh:acme/gh-plug' — use https://, ssh://, git@, or a local path.",
        "what an older plugins left the host: {judged}"
    );
    // plugins still reads it as its gh: source and checks it.
    Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .envs(env)
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "gh_plug",
      "source": "gh:acme/gh-plug",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "b3922d595c1df26c6dac6c5245e8eb6775479ce0",
      "status": "up_to_date"
    }
  ]
}

"#]],
            str![[""]],
        );
    // Installing it again (up to date) writes the URL the host can use.
    Plugins::new()
        .args(["install", "gh:acme/gh-plug@v1.0.0", "--yes", "--home"])
        .arg(&home)
        .envs(env)
        .run()
        .success();
    let lock: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        lock["plugins"][0]["source_url"],
        format!("{base}/acme/gh-plug.git")
    );
    assert_eq!(lock["plugins"][0]["resolved_sha"], v1.as_str());
    let judged = host_env(&py, &home, &[], JUDGE_ROWS);
    assert_eq!(
        judged["gh_plug"],
        json!({"url_ok": true, "error": null, "behind": false, "latest_ref": null})
    );
}

/// Whether aoe accepts `source` as an install string (spec `aoe.md` §17,
/// `PluginSource::parse`): `gh:owner/repo[@ref]` with exactly one `/`, both parts and a ref
/// after `@` non-empty; anything else is a local directory, which aoe's `persisted_source`
/// canonicalized (so: absolute, existing, canonical). The ref, if any.
fn aoe_source(source: &str) -> Result<Option<String>, String> {
    if let Some(rest) = source.strip_prefix("gh:") {
        let (slug, reference) = match rest.split_once('@') {
            Some((_, "")) => return Err(format!("empty ref after '@' in {source:?}")),
            Some((s, r)) => (s, Some(r.to_owned())),
            None => (rest, None),
        };
        return match slug.split_once('/') {
            Some((o, r)) if !o.is_empty() && !r.is_empty() && !r.contains('/') => Ok(reference),
            _ => Err(format!("expected gh:owner/repo, got {source:?}")),
        };
    }
    let path = Path::new(source);
    match path.canonicalize() {
        Ok(c) if c == path => Ok(None),
        _ => Err(format!("{source:?} is not a canonical local directory")),
    }
}

/// `[plugins."dev.example.pinned"] source` of `home`'s config.toml, checked by [`aoe_source`].
fn config_source(home: &Path) -> String {
    let text = std::fs::read_to_string(home.join("config.toml")).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    let source = doc["plugins"]["dev.example.pinned"]["source"]
        .as_str()
        .unwrap()
        .to_owned();
    aoe_source(&source).unwrap_or_else(|e| panic!("aoe refuses it: {e}\n{text}"));
    source
}

#[test]
fn aoe_config_names_the_source_as_typed_and_keeps_its_form_across_updates() {
    use crate::support::release_api;
    use crate::support::{locked, static_aoe};
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("one");
    repo.tag("v1.0.0");
    let bare = t.join("mirror/acme/tool.git");
    repo.clone_bare(&bare);
    let base = format!("file://{}", t.join("mirror").display());
    let plugins_in = |home: &Path, api: &str, args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(home)
            .current_dir(&t)
            .env("PLUGINS_GH_BASE", &base)
            .env("PLUGINS_GITHUB_API", api)
            .run()
            .success();
    };
    let v1 = release_api(Some(r#"{"tag_name": "v1.0.0"}"#));
    let id = "dev.example.pinned";
    let [follows, tagged, flag, local] = ["follows", "tagged", "flag", "local"].map(|h| t.join(h));
    plugins_in(&follows, &v1, &["install", "gh:acme/tool", "--yes"]);
    plugins_in(&tagged, &v1, &["install", "gh:acme/tool@v1.0.0", "--yes"]);
    plugins_in(
        &flag,
        &v1,
        &["install", "gh:acme/tool", "--ref", "v1.0.0", "--yes"],
    );
    plugins_in(&local, &v1, &["install", "work", "--yes"]);
    // No ref typed: none recorded, though the lock pins the latest release's tag (aoe
    // reads `@ref` in config.toml as an explicit pin and would never update it).
    assert_eq!(config_source(&follows), "gh:acme/tool");
    assert_eq!(locked(&follows, id, "requested_ref"), "v1.0.0");
    assert_eq!(config_source(&tagged), "gh:acme/tool@v1.0.0");
    assert_eq!(config_source(&flag), "gh:acme/tool@v1.0.0");
    assert_eq!(config_source(&local), t.join("work").display().to_string());
    // A second machine with the lock alone: sync writes config.toml as the install did
    // (aoe's own updater would stop following the latest release at `@v1.0.0`).
    for home in [&follows, &tagged, &flag] {
        let second = t.join(format!(
            "second-{}",
            home.file_name().unwrap().to_string_lossy()
        ));
        std::fs::create_dir_all(&second).unwrap();
        std::fs::copy(home.join("plugins.lock"), second.join("plugins.lock")).unwrap();
        plugins_in(&second, &v1, &["sync", "--yes"]);
        // Byte for byte but the time of this machine's grant.
        assert_eq!(
            crate::support::untimed(&std::fs::read_to_string(second.join("config.toml")).unwrap()),
            crate::support::untimed(&std::fs::read_to_string(home.join("config.toml")).unwrap()),
            "{}",
            home.display()
        );
    }

    // v2.0.0 is released. plugins' update keeps the form: the follower still follows; the
    // explicit pin names the ref now installed (aoe's update re-fetches the ref it names).
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("two");
    repo.tag("v2.0.0");
    std::fs::remove_dir_all(&bare).unwrap();
    repo.clone_bare(&bare);
    let v2 = release_api(Some(r#"{"tag_name": "v2.0.0"}"#));
    for home in [&follows, &tagged] {
        plugins_in(home, &v2, &["update", id, "--yes"]);
        assert_eq!(locked(home, id, "version"), "2.0.0");
    }
    assert_eq!(config_source(&follows), "gh:acme/tool");
    assert_eq!(config_source(&tagged), "gh:acme/tool@v2.0.0");
    // A rollback keeps the form too.
    plugins_in(&follows, &v2, &["rollback", id]);
    plugins_in(&tagged, &v2, &["rollback", id]);
    assert_eq!(locked(&follows, id, "version"), "1.0.0");
    assert_eq!(config_source(&follows), "gh:acme/tool");
    assert_eq!(config_source(&tagged), "gh:acme/tool@v1.0.0");
    // Installing again records what is typed now, even with the same files installed.
    plugins_in(&follows, &v2, &["install", "gh:acme/tool@v1.0.0", "--yes"]);
    assert_eq!(config_source(&follows), "gh:acme/tool@v1.0.0");
    plugins_in(&tagged, &v1, &["install", "gh:acme/tool", "--yes"]);
    assert_eq!(config_source(&tagged), "gh:acme/tool");
}

#[test]
fn verify_reports_a_row_the_host_installed_as_unverifiable_and_records_a_baseline() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("inst");
    instance(&home, None);
    // Installed by protoAgent's own installer: a row without any of plugins' hashes.
    let repo = proto_repo(&t.join("notes-src"), "notes_x");
    let installed = host_env(
        &py,
        &home,
        &[],
        &format!(
            "print(json.dumps(installer.install({:?}, allow=None)['id']))",
            repo.url()
        ),
    );
    assert_eq!(installed, "notes_x");
    let lock_path = home.join("plugins.lock");
    let host_row: Value = serde_json::from_str::<Value>(
        &std::fs::read_to_string(&lock_path).unwrap(),
    )
    .unwrap()["plugins"][0]
        .clone();
    assert!(host_row.get("installed_tree_hash").is_none(), "{host_row}");
    let verify = |args: &[&str]| {
        Plugins::new()
            .arg("verify")
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("COLUMNS", "400")
            .tmp(&t)
            .run()
    };
    // Unverifiable is not a failure.
    verify(&[]).expect(
        0,
        str![[r#"
unverifiable notes_x: the lock records no hash of its files (its host's own installer wrote the row): whether they changed cannot be told; `plugins verify --record` records them as they are now
1 verified, 0 changed, 1 unverifiable

"#]],
        str![""],
    );
    verify(&["--strict"]).expect(1, str![[r#"
unverifiable notes_x: the lock records no hash of its files (its host's own installer wrote the row): whether they changed cannot be told; `plugins verify --record` records them as they are now
1 verified, 0 changed, 1 unverifiable

"#]], str![[""]]);
    let ran = verify(&["--json"]);
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "ok": true,
  "unverifiable": 1,
  "plugins": [
    {
      "id": "notes_x",
      "ok": false,
      "status": "unverifiable",
      "code": "plugins::install::unverifiable",
      "problems": [
        "the lock records no hash of its files (its host's own installer wrote the row): whether they changed cannot be told; `plugins verify --record` records them as they are now"
      ]
    }
  ]
}

"#]], str![[""]]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (doc["ok"].clone(), doc["unverifiable"].clone()),
        (json!(true), json!(1))
    );
    assert_eq!(doc["plugins"][0]["status"], "unverifiable");
    assert_eq!(doc["plugins"][0]["code"], "plugins::install::unverifiable");

    // --record takes the baseline: the hashes go into the row, the host's keys stay.
    verify(&["--record"]).expect(
        0,
        str![[r#"
    recorded notes_x: no hash was locked; its files as they are now are the baseline
1 verified, 0 changed, 1 recorded

"#]],
        str![""],
    );
    let row: Value = serde_json::from_str::<Value>(&std::fs::read_to_string(&lock_path).unwrap())
        .unwrap()["plugins"][0]
        .clone();
    for key in [
        "id",
        "source_url",
        "requested_ref",
        "resolved_sha",
        "installed_at",
        "by",
    ] {
        assert_eq!(row[key], host_row[key], "{key}: {row}");
    }
    assert!(
        row["installed_tree_hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert!(
        row["manifest_hash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    // The host still reads the lock and runs the plugin.
    let seen = host_env(
        &py,
        &home,
        &[],
        "print(json.dumps({'row': installer._lock_rows_by_id()['notes_x']['by'], 'found': [m.id for m in loader.discover_plugins(installer.loader_roots()) if m.id == 'notes_x']}))",
    );
    assert_eq!(seen, json!({"row": "cli", "found": ["notes_x"]}));
    verify(&["--strict"]).expect(
        0,
        str![[r#"
          ok notes_x
1 verified, 0 changed

"#]],
        str![[""]],
    );
    // A change after the baseline is a change, with its paths; --record does not bless it.
    std::fs::write(home.join("plugins/notes_x/__init__.py"), "import os\n").unwrap();
    verify(&["--record"]).expect(1, str![[r#"
    tampered notes_x: the files changed since install (tree sha256:4432f69235d996eae321f5d1dece058dda074ed6e82890105b0118d48a0c6dda, locked sha256:c15c26a49a48c0c22717c7461a238d6ddebb931b5d1f281c86f27c2e0f5e026d)
     changed __init__.py
1 verified, 1 changed

"#]], str![[""]]);
}

/// `plugins <args> --home <home>`, redacted: `[AT]` for RFC 3339 times, and `[HOME]`.
fn at(home: &Path, args: &[&str]) -> (i32, String, String) {
    Plugins::new()
        .args(args)
        .home(home)
        .env("COLUMNS", "400")
        .redact("[HOME]", home)
        .run()
        .redacted_parts()
}

/// `doc` matches `docs/schema/output/<file>`.
fn matches_schema(file: &str, doc: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/schema/output")
        .join(file);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let errors: Vec<String> = jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(doc)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{file}: {errors:#?}\n{doc:#}");
}

#[test]
fn a_rollback_holds_until_an_explicit_update_or_unhold() {
    use crate::support::{locked, static_aoe};
    use snapbox::{assert_data_eq, str};
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("repo"));
    let home = t.join("home");
    let id = "dev.example.pinned";
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    let url = repo.url();
    assert_eq!(at(&home, &["install", &url, "--ref", "main", "--yes"]).0, 0);
    let policy = "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n";
    std::fs::write(home.join("plugins.toml"), policy).unwrap();
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    let c2 = repo.commit("v2");
    let (code, o, e) = at(&home, &["autoupdate", "--force", "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    assert_eq!(locked(&home, id, "version"), "2.0.0");

    // The rollback holds 1.0.0, beside the policy; the lock is what aoe reads, as before.
    let (code, stdout, stderr) = at(&home, &["rollback", id]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let stdout = stdout.replace(&c1[..7], "[C1]").replace(&c2[..7], "[C2]");
    assert_data_eq!(
        stdout,
        str![[r#"
 Rolled back dev.example.pinned 2.0.0 ([C2]) -> 1.0.0 ([C1]) in [HOME]
        Held dev.example.pinned at 1.0.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.pinned` or `plugins unhold dev.example.pinned`

"#]]
    );
    let settings = std::fs::read_to_string(home.join("plugins.toml")).unwrap();
    assert!(settings.starts_with(policy), "{settings}");
    assert!(
        untimed(&settings).contains("[hold.\"dev.example.pinned\"]\nsince = \"[AT]\"")
            && settings.contains(&format!(
                "reason = \"rolled back from 2.0.0 ({})\"",
                &c2[..7]
            )),
        "{settings}"
    );
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(!lock.contains("hold"), "the lock is the hosts': {lock}");
    // aoe's rules (aoe.md §17): lock_version 2, its keys typed as aoe reads them.
    let doc: toml::Table = lock.parse().unwrap();
    assert_eq!(doc["lock_version"].as_integer(), Some(2));
    let row = doc["plugins"][id].as_table().unwrap();
    for key in ["source", "version", "manifest_hash", "tree_hash", "trust"] {
        assert!(row[key].is_str(), "{key}: {row:?}");
    }
    assert_eq!(row["resolved_commit"].as_str(), Some(c1.as_str()));

    // The next sweep, forced, and update --all skip it and say why; outdated shows it held.
    let (code, o, e) = at(&home, &["autoupdate", "--force", "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    matches_schema("autoupdate.json", &doc);
    assert_eq!(doc["updated"], json!([]));
    assert_eq!(
        doc["held"],
        json!([{"id": id, "since": "[AT]", "by": "rollback", "reason": format!("rolled back from 2.0.0 ({})", &c2[..7])}])
    );
    let (code, o, _) = at(&home, &["autoupdate", "--force"]);
    assert_eq!(code, 0);
    assert!(
        o.contains(&format!(
            // Not on a terminal, so each line starts with its time (the cron log).
            "[AT] held {id}: held since [AT] (rolled back from 2.0.0 ({}))",
            &c2[..7]
        )),
        "{o}"
    );
    let (code, o, e) = at(&home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{o}{e}");
    let o = o
        .replace(&c1[..7], "[C1]")
        .replace(&c2[..10], "[C2]")
        .replace(&c2[..7], "[C2]");
    assert_data_eq!(
        o,
        str![[r#"
        Held dev.example.pinned; main @ [C2] not taken: held since [AT] (rolled back from 2.0.0 ([C2])) (`plugins update dev.example.pinned` or `plugins unhold dev.example.pinned` lifts it)
nothing to update

"#]]
    );
    let (_, o, _) = at(&home, &["update", "--all", "--yes", "--json"]);
    let doc: Value = serde_json::from_str(&o).unwrap();
    matches_schema("change.json", &doc);
    assert_eq!(doc["plugins"][0]["status"], "held");
    assert_eq!(doc["plugins"][0]["commit"], c2.as_str());
    assert_eq!(doc["plugins"][0]["hold"]["by"], "rollback");
    let (code, o, _) = at(&home, &["outdated", "--json"]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&o).unwrap();
    matches_schema("outdated.json", &doc);
    assert_eq!(doc["plugins"][0]["status"], "held");
    assert_eq!(doc["plugins"][0]["hold"]["since"], "[AT]");
    let (_, o, _) = at(&home, &["outdated"]);
    assert!(o.contains(", not taken; held since [AT]"), "{o}");
    assert_eq!(locked(&home, id, "version"), "1.0.0");

    // `plugins update <id>` takes it and lifts the hold.
    let (code, o, e) = at(&home, &["update", id, "--yes"]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(
        o.contains(&format!("      Unheld {id}: it was held since [AT]")),
        "{o}"
    );
    assert!(
        o.contains(&format!("     Updated {id} to 2.0.0 (main @ {}", &c2[..10])),
        "{o}"
    );
    assert_eq!(locked(&home, id, "version"), "2.0.0");
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.toml")).unwrap(),
        policy,
        "the hold is gone, the policy kept"
    );
    // An explicit update of a held plugin with nothing newer lifts the hold too.
    assert_eq!(at(&home, &["hold", id]).0, 0);
    let (code, o, e) = at(&home, &["update", id, "--yes", "--json"]);
    assert_eq!(code, 0, "{o}{e}");
    let doc: Value = serde_json::from_str(&o).unwrap();
    matches_schema("change.json", &doc);
    assert_eq!(doc["plugins"][0]["status"], "up_to_date", "{doc}");
    assert_eq!(doc["plugins"][0]["unheld"]["by"], "hold", "{doc}");
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.toml")).unwrap(),
        policy
    );

    // hold / unhold, as apt-mark: a held plugin stays; unhold lets the sweep take it.
    let (code, o, _) = at(&home, &["hold", id]);
    assert_eq!(code, 0);
    assert_eq!(
        o,
        format!("        Held {id} in [HOME]: held since [AT] (held with `plugins hold`)\n")
    );
    let (_, o, _) = at(&home, &["hold", id, "--json"]);
    matches_schema("change.json", &serde_json::from_str(&o).unwrap());
    assert!(o.contains("\"already_held\""), "{o}");
    repo.file("aoe-plugin.toml", &static_aoe("3.0.0"));
    repo.commit("v3");
    let (_, o, _) = at(&home, &["autoupdate", "--force", "--json"]);
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["held"][0]["by"], "hold", "{doc}");
    assert_eq!(locked(&home, id, "version"), "2.0.0");
    let (code, o, _) = at(&home, &["unhold", id]);
    assert_eq!(code, 0);
    assert_eq!(
        o,
        format!("      Unheld {id} in [HOME]: it was held since [AT] (held with `plugins hold`)\n")
    );
    let (_, o, _) = at(&home, &["unhold", id]);
    assert_eq!(o, format!("    Not held {id} in [HOME]: nothing to lift\n"));
    let (_, o, _) = at(&home, &["unhold", id, "--json"]);
    matches_schema("change.json", &serde_json::from_str(&o).unwrap());
    let (_, o, _) = at(&home, &["autoupdate", "--force", "--json"]);
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["updated"], json!([id]), "{doc}");
    assert_eq!(locked(&home, id, "version"), "3.0.0");
    let (code, _, e) = at(&home, &["hold", "dev.example.nope"]);
    assert_eq!(code, 2);
    assert!(e.contains("plugins::install::not_installed"), "{e}");
}

/// Issue #40: every table `plugins` writes into `<home>/plugins.toml` (`[host]` by an
/// install with a host profile, `[hold]` by `rollback` and `hold`) is read back by the
/// commands that read the file (`update`, `outdated`, `autoupdate`, `doctor`) without a
/// warning; before, every one of them warned "unknown key `hold` … did you mean `hold`?".
#[test]
fn every_table_plugins_writes_in_its_settings_reads_back_without_a_warning() {
    use crate::support::static_aoe;
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("repo"));
    let home = t.join("home");
    let id = "dev.example.pinned";
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let url = repo.url();
    let (code, o, e) = at(
        &home,
        &[
            "install",
            &url,
            "--ref",
            "main",
            "--yes",
            "--aoe-api",
            "15",
            "--host-version",
            "1.19.0",
        ],
    );
    assert_eq!(code, 0, "{o}{e}");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    assert_eq!(at(&home, &["update", "--all", "--yes"]).0, 0);
    let (code, o, e) = at(&home, &["rollback", id]);
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = at(&home, &["unhold", id]);
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = at(&home, &["hold", id]);
    assert_eq!(code, 0, "{o}{e}");
    let settings = std::fs::read_to_string(home.join("plugins.toml")).unwrap();
    assert!(
        settings.contains("[host]") && settings.contains(&format!("[hold.\"{id}\"]")),
        "{settings}"
    );
    for args in [
        &["update", "--all", "--yes"][..],
        &["outdated"],
        &["autoupdate", "--force"],
        &["doctor", "--offline"],
    ] {
        let (_, o, e) = at(&home, args);
        for said in [&o, &e] {
            assert!(
                !said.contains("plugins::config::") && !said.contains("unknown key"),
                "{args:?} warned about the file plugins wrote:\n{settings}\n{o}{e}"
            );
        }
    }
}

#[test]
fn a_held_protoagent_plugin_is_still_loaded_and_its_lock_read_by_the_host() {
    let Some(py) = host_python() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("inst");
    instance(&home, None);
    let repo = proto_repo(&t.join("notes-src"), "notes_x");
    let url = repo.url();
    assert_eq!(at(&home, &["install", &url, "--ref", "main", "--yes"]).0, 0);
    repo.file(
        "protoagent.plugin.yaml",
        "id: notes_x\nname: notes_x\nversion: 2.0.0\n",
    )
    .commit("v2");
    let (code, o, e) = at(&home, &["update", "--all", "--yes"]);
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = at(&home, &["rollback", "notes_x"]);
    assert_eq!(code, 0, "{o}{e}");
    // The host reads the lock plugins left, loads the rolled-back version, and its own
    // update check sees the newer commit (the hold is plugins', in plugins.toml).
    let seen = host_env(
        &py,
        &home,
        &[],
        r#"
from graph.plugins import updates
found = {m.id: m.version for m in loader.discover_plugins(installer.loader_roots()) if m.id == "notes_x"}
rows = {r["id"]: r["behind"] for r in updates.check_updates()}
print(json.dumps({"found": found, "behind": rows, "error": [r["error"] for r in updates.check_updates()]}))
"#,
    );
    assert_eq!(
        seen,
        json!({"found": {"notes_x": "1.0.0"}, "behind": {"notes_x": true}, "error": [null]})
    );
    assert!(
        !std::fs::read_to_string(home.join("plugins.lock"))
            .unwrap()
            .contains("hold")
    );
    let (_, o, _) = at(&home, &["outdated", "--json"]);
    let doc: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "held", "{doc}");
}

/// A plain `sync` that puts back a missing protoAgent plugin installs the row as locked and
/// writes it back as it was (`by`, `installed_at`): the lock stays byte for byte.
#[test]
fn plain_sync_leaves_the_lock_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let home = t.join("inst");
    instance(&home, None);
    for id in ["alpha", "beta"] {
        let repo = proto_repo(&t.join(format!("{id}-src")), id);
        Plugins::new()
            .args(["install", &repo.url(), "--yes", "--home"])
            .arg(&home)
            .run()
            .success();
    }
    let before = std::fs::read(home.join("plugins.lock")).unwrap();
    std::fs::remove_dir_all(home.join("plugins/alpha")).unwrap();
    // A second later, so that a rewritten time would show.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    Plugins::new()
        .args(["sync", "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    assert!(home.join("plugins/alpha").is_dir());
    assert_eq!(
        String::from_utf8(std::fs::read(home.join("plugins.lock")).unwrap()).unwrap(),
        String::from_utf8(before).unwrap()
    );
}
