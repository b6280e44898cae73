//! `plugins install`, `list`, `remove`, `verify` against real git repositories.

use std::path::Path;

use serde_json::Value;
use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::net::{Daemon, Trickle};
use crate::support::*;

#[test]
fn refs_resolve_to_commits_and_kinds() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [c1, c2, c3]) = history(&tmp.path().join("repo"));
    let cases: [(&[&str], &str, &str, &str); 6] = [
        (&[], &c3, "default", "3.0.0"),
        (&["--ref", "main"], &c3, "branch", "3.0.0"),
        (&["--ref", "dev"], &c2, "branch", "2.0.0"),
        (&["--ref", "v1.0.0"], &c1, "tag", "1.0.0"),
        (&["--ref", "v2.0.0"], &c2, "tag", "2.0.0"),
        (&["--ref", &c1[..8]], &c1, "commit", "1.0.0"),
    ];
    for (i, (args, commit, kind, version)) in cases.iter().enumerate() {
        let home = tmp.path().join(format!("home-{i}"));
        let mut all = vec![repo.url()];
        all.extend(args.iter().map(|s| (*s).to_owned()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = install(&home, &all);
        assert_eq!(code, 0, "{args:?}: {stdout}{stderr}");
        assert_eq!(
            locked(&home, "dev.example.pinned", "resolved_commit"),
            **commit,
            "{args:?}"
        );
        assert_eq!(
            locked(&home, "dev.example.pinned", "ref_kind"),
            *kind,
            "{args:?}"
        );
        assert_eq!(
            locked(&home, "dev.example.pinned", "version"),
            *version,
            "{args:?}"
        );
        assert_eq!(lock(&home)["lock_version"].as_integer(), Some(2));
        let installed =
            std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
                .unwrap();
        assert!(installed.contains(&format!("version = \"{version}\"")));
        assert!(
            !home.join("plugins/dev.example.pinned/.git").exists(),
            "no .git in an install"
        );
    }
    // It lists what exists.
    installing(
        &tmp.path().join("home-x"),
        &[&repo.url(), "--ref", "v9.9.9"],
    )
    .env("COLUMNS", "400")
    .tmp(tmp.path())
    .run()
    .expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/repo
plugins::git::ref_not_found

  × ref `v9.9.9` not found on file://[TMP]/repo
  help: available: dev, main, v1.0.0, v2.0.0

"#]],
    );
}

#[test]
fn gh_sources_use_the_clone_base() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, c2, _]) = history(&tmp.path().join("work"));
    let base = tmp.path().join("mirror");
    repo.clone_bare(&base.join("acme/pinned.git"));
    let home = tmp.path().join("home");
    Plugins::new()
        .args(["install", "gh:acme/pinned@v2.0.0", "--yes", "--home"])
        .arg(&home)
        .env("PLUGINS_GH_BASE", format!("file://{}", base.display()))
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 2.0.0 @ c7849e65b9 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching file://[TMP]/mirror/acme/pinned.git
     Fetched c7849e65b960
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/pinned @ c7849e65b960
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
        );
    assert_eq!(
        locked(&home, "dev.example.pinned", "source"),
        "gh:acme/pinned"
    );
    assert_eq!(
        locked(&home, "dev.example.pinned", "requested_ref"),
        "v2.0.0"
    );
    assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c2);
}

#[test]
fn build_steps_run_and_a_failing_update_keeps_the_old_version() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    repo.tag("v1");
    let home = tmp.path().join("home");
    installing(&home, &[&repo.url(), "--ref", "v1"])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.built 1.0.0 @ 54aea03c2e in [TMP]/home/plugins/dev.example.built

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 54aea03c2e0a
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo @ 54aea03c2e0a
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh

"#]],
        );
    let worker = home.join("plugins/dev.example.built/.aoe-build/bin/worker");
    let out = std::process::Command::new(&worker).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "dev.example.built",
        "AOE_PLUGIN_ID was set"
    );
    assert!(
        std::fs::read_to_string(home.join("logs/dev.example.built-build.log"))
            .unwrap()
            .contains("built for dev.example.built")
    );
    let lock_before = std::fs::read(home.join("plugins.lock")).unwrap();

    built_aoe(
        &repo,
        "2.0.0",
        "#!/bin/sh\necho compiling...\necho 'error: boom' >&2\nexit 3\n",
    );
    repo.tag("v2");
    // The log tail is shown.
    installing(&home, &[&repo.url(), "--ref", "v2"])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched faff6150426f
aoe plugin `dev.example.built` 2.0.0 from file://[TMP]/repo @ faff6150426f
  asked again:  its files changed and it has build steps
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) failed with exit status: 3
  help: last output:
        compiling...
        error: boom

"#]],
        );
    assert_eq!(
        std::fs::read(home.join("plugins.lock")).unwrap(),
        lock_before,
        "the lock is untouched"
    );
    let manifest =
        std::fs::read_to_string(home.join("plugins/dev.example.built/aoe-plugin.toml")).unwrap();
    assert!(
        manifest.contains("version = \"1.0.0\""),
        "the old version is still installed"
    );
    assert!(worker.exists(), "with its build output");
    let leftovers: Vec<_> = std::fs::read_dir(home.join("plugins"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        leftovers,
        ["dev.example.built"],
        "no staging or backup left behind"
    );

    // A build that does not produce the worker is refused too.
    built_aoe(&repo, "3.0.0", "#!/bin/sh\nexit 0\n");
    installing(&home, &[&repo.url(), "--ref", "main"])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(2, str![], str![[r#"
    Fetching file://[TMP]/repo
     Fetched bc8ea61af901
aoe plugin `dev.example.built` 3.0.0 from file://[TMP]/repo @ bc8ea61af901
  asked again:  its files changed and it has build steps
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::not_runnable

  × plugin dev.example.built: worker command is not runnable after install (a build step may have been skipped on this platform, or did not produce it)
  help: expected an executable at .aoe-build/bin/worker in the plugin's tree after its build steps

"#]]);
    assert_eq!(
        std::fs::read(home.join("plugins.lock")).unwrap(),
        lock_before
    );
}

/// Issue #40: a first install, and a sync of a plugin whose directory is gone, build the
/// plugin before it appears: while the step runs, a host finds neither the plugin's
/// directory nor its lock row, and the step sees the plugin directory's path (what a venv's
/// scripts name). Before, the tree went in first and was built in place.
#[test]
fn a_first_install_and_a_sync_build_before_the_plugin_appears() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (started, go) = (t.join("started"), t.join("go"));
    let repo = Repo::init(&t.join("repo"));
    built_aoe(
        &repo,
        "1.0.0",
        &format!(
            "#!/bin/sh\nset -e\nmkdir -p .aoe-build/bin\npwd > .aoe-build/pwd\n\
             touch '{}'\nwhile [ ! -e '{}' ]; do sleep 0.05; done\n\
             printf '#!/bin/sh\\n' > .aoe-build/bin/worker\nchmod +x .aoe-build/bin/worker\n",
            started.display(),
            go.display()
        ),
    );
    let home = t.join("home");
    let dir = home.join("plugins/dev.example.built");
    for args in [
        vec!["install".to_owned(), repo.url(), "--yes".to_owned()],
        vec!["sync".to_owned(), "--yes".to_owned()],
    ] {
        let _ = std::fs::remove_file(&started);
        let _ = std::fs::remove_file(&go);
        let mut cmd = Plugins::new();
        cmd.args(&args)
            .home(&home)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        let mut running = cmd.spawn();
        let since = std::time::Instant::now();
        while !started.exists() {
            assert!(
                since.elapsed() < std::time::Duration::from_secs(60),
                "{args:?}: the step did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // (A sync's lock row is there all along: its directory is what comes back.)
        let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap_or_default();
        let seen = (dir.exists(), lock.contains("dev.example.built"));
        std::fs::write(&go, "").unwrap();
        let status = running.wait().unwrap();
        assert_eq!(
            seen,
            (false, args[0] == "sync"),
            "{args:?}: the plugin appeared before it was built"
        );
        assert!(status.success(), "{args:?}: {status}");
        assert_eq!(
            std::fs::read_to_string(dir.join(".aoe-build/pwd"))
                .unwrap()
                .trim(),
            dir.display().to_string(),
            "{args:?}: the step ran at the plugin directory's path"
        );
        crate::support::home::verify_ok(&home).unwrap();
        // The sync round: the plugin's directory is gone, its lock row kept.
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn consent_is_required_without_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    Plugins::new()
        .args(["install", &repo.url(), "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .stdin(std::process::Stdio::null())
        .tmp(tmp.path())
        .run()
        .expect(2, str![], str![[r#"
    Fetching file://[TMP]/repo
     Fetched 54aea03c2e0a
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo @ 54aea03c2e0a
  capabilities: runtime.worker
  build steps:  ./build.sh
plugins::install::declined

  × `plugins install` cannot ask for consent (stdin is not a terminal): dev.example.built asks for capabilities [runtime.worker], build steps [./build.sh]; nothing was granted
  help: re-run the same `plugins install` with --yes to grant it

"#]]);
    assert!(
        !home.join("plugins/dev.example.built").exists() && !home.join("plugins.lock").exists()
    );
}

/// Without a terminal, `update`, `sync` and an AWorld `install` refuse by naming the
/// command, what would be granted and the flag that grants it.
#[test]
fn refusals_without_a_terminal_say_what_and_how() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let refusal = |args: &[&str], home: &Path| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(home)
            .env("COLUMNS", "400")
            .tmp(t)
            .run()
    };
    // An update whose capabilities widen.
    let repo = Repo::init(&t.join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = t.join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let text = std::fs::read_to_string(repo.dir.join("aoe-plugin.toml"))
        .unwrap()
        .replace("version = \"1.0.0\"", "version = \"1.1.0\"")
        .replace("[\"runtime.worker\"]", "[\"runtime.worker\", \"net\"]");
    repo.file("aoe-plugin.toml", &text);
    repo.commit("wants the network");
    refusal(&["update", "--all"], &home).expect(1, str![], str![[r#"
    Fetching file://[TMP]/repo
     Fetched e0806bf7f826
aoe plugin `dev.example.built` 1.1.0 from file://[TMP]/repo @ e0806bf7f826
  asked again:  capabilities [runtime.worker] -> [runtime.worker, net]; its files changed and it has build steps
  capabilities: runtime.worker, net
  build steps:  ./build.sh
plugins::install::declined

  × `plugins update` cannot ask for consent (stdin is not a terminal): dev.example.built asks for capabilities [runtime.worker, net], build steps [./build.sh]; nothing was granted
  help: re-run with --yes to grant it: plugins update dev.example.built --yes

"#]]
    );
    assert_eq!(locked(&home, "dev.example.built", "version"), "1.0.0");

    // An AWorld plugin with Python: no capabilities, but its code runs inside the host.
    let aw = Repo::init(&t.join("aworld"));
    aw.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "helper", "version": "1.0.0"}"#,
    )
    .file("hooks/done.py", "def run():\n    pass\n");
    aw.commit("helper");
    let aw_home = t.join("aw-home");
    refusal(&["install", &aw.url()], &aw_home).expect(2, str![], str![[r#"
    Fetching file://[TMP]/aworld
     Fetched 935a24ee4228
aworld plugin `helper` 1.0.0 from file://[TMP]/aworld @ 935a24ee4228
  capabilities: none
  build steps:  none
  runs code inside the host process
plugins::install::declined

  × `plugins install` cannot ask for consent (stdin is not a terminal): helper asks for code that runs inside the host; nothing was granted
  help: re-run the same `plugins install` with --yes to grant it

"#]]
    );
    assert_eq!(install(&aw_home, &[&aw.url()]).0, 0);
    let fresh = t.join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(aw_home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    refusal(&["sync"], &fresh).expect(2, str![], str![[r#"
    Fetching file://[TMP]/aworld
     Fetched 935a24ee4228
aworld plugin `helper` 1.0.0 from file://[TMP]/aworld @ 935a24ee4228
  capabilities: none
  build steps:  none
  runs code inside the host process
plugins::install::declined

  × `plugins sync` cannot ask for consent (it never prompts): helper asks for code that runs inside the host; nothing was granted
  help: re-run with --yes to grant it: plugins sync --yes

"#]]
    );
    assert!(!fresh.join("plugins/helper").exists());
}

#[test]
fn declining_on_a_terminal_installs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    let mut child = Plugins::new()
        .args(["install", &repo.url()])
        .home(&home)
        .in_pty()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"n\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(
        screen.contains("Install dev.example.built and grant this? [y/N]"),
        "{screen}"
    );
    assert!(
        screen.contains("install cancelled; no capabilities were granted"),
        "{screen}"
    );
    assert!(!home.join("plugins/dev.example.built").exists());
}

#[test]
fn escaping_symlinks_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("protoagent.plugin.yaml", "id: linky\nname: Linky\n")
        .file("__init__.py", "def register(r):\n    pass\n");
    std::os::unix::fs::symlink("/etc/passwd", repo.dir.join("secrets")).unwrap();
    repo.commit("link");
    let home = tmp.path().join("home");
    installing(&home, &[&repo.url()])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 18707f167db1
plugins::install::symlink

  × the plugin tree has symlinks pointing outside it: secrets
  help: a plugin must be self-contained

"#]],
        );
    assert!(!home.join("plugins/linky").exists());

    // aoe refuses any symlink (its tree hash cannot include one).
    let repo = Repo::init(&tmp.path().join("aoe-repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    std::os::unix::fs::symlink("aoe-plugin.toml", repo.dir.join("alias.toml")).unwrap();
    repo.commit("link");
    // An invalid plugin is exit 1, as documented.
    installing(&tmp.path().join("home2"), &[&repo.url()])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            1,
            str![[r#"
plugins::aoe::symlink

  ⚠ plugin tree contains a symlink (alias.toml); symlinks are not allowed in a hashed tree
   ╭─[file://[TMP]/aoe-repo@7e0f22b9d2:aoe-plugin.toml:1:1]
 1 │ id = "dev.example.pinned"
   · ▲
 2 │ name = "Pinned"
   ╰────
  help: replace it with a copy of the file, or create it in a build step
    Valid aoe plugin `dev.example.pinned` 1.0.0 at file://[TMP]/aoe-repo@7e0f22b9d2 (1 warning)

"#]],
            str![[r#"
    Fetching file://[TMP]/aoe-repo
     Fetched 7e0f22b9d2ab
plugins::install::invalid

  × refusing to install: dev.example.pinned would be refused by its host's installer (the warning above)
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
        );
}

#[test]
fn list_verify_remove() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, _, c3]) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let at = |args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .tmp(tmp.path())
            .redact("[MAIN]", &c3)
            .redact("[MAIN]", &c3[..10])
            .run()
    };
    at(&["list", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "dialect": "aoe",
      "version": "3.0.0",
      "source": "file://[TMP]/repo",
      "requested_ref": "main",
      "ref_kind": "branch",
      "commit": "[MAIN]",
      "home": "[TMP]/home",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": true,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![],
    );
    at(&["info", "dev.example.pinned", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "dev.example.pinned",
  "dialect": "aoe",
  "version": "3.0.0",
  "source": "file://[TMP]/repo",
  "requested_ref": "main",
  "ref_kind": "branch",
  "commit": "[MAIN]",
  "manifest_hash": "sha256:ac70aae1cc29c948d502bee51518baf679565d48a5a6d3b55c911de8d754859f",
  "tree_hash": "sha256:548767c9c71fc8756185c02310723f6d0b6add6571c4bffa5cbb7fceb3d227af",
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
        str![],
    );
    at(&["verify"]).expect(
        0,
        str![[r#"
          ok dev.example.pinned
1 verified, 0 changed

"#]],
        str![],
    );
    let manifest = home.join("plugins/dev.example.pinned/aoe-plugin.toml");
    std::fs::write(
        &manifest,
        std::fs::read_to_string(&manifest).unwrap() + "# edited\n",
    )
    .unwrap();
    // Tampering is caught.
    at(&["verify", "--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "ok": false,
  "unverifiable": 0,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "ok": false,
      "status": "tampered",
      "code": "plugins::install::tampered",
      "problems": [
        "the manifest changed since install; aoe's capability grant no longer covers it",
        "the files changed since install (tree sha256:d47bb699a6c49b20ec625555b248b909d670cf4ba01c7df90440ce4580ae8603, locked sha256:548767c9c71fc8756185c02310723f6d0b6add6571c4bffa5cbb7fceb3d227af)"
      ],
      "changed": [
        "aoe-plugin.toml"
      ],
      "added": [],
      "removed": [],
      "files_not_shown": 0
    }
  ]
}

"#]], str![]);

    // Re-installing the same commit with --force repairs it; removing deletes dir and entry.
    assert_eq!(
        install(&home, &[&repo.url(), "--ref", "main", "--force"]).0,
        0
    );
    at(&["verify"]).expect(
        0,
        str![[r#"
          ok dev.example.pinned
1 verified, 0 changed

"#]],
        str![],
    );
    at(&["remove", "dev.example.pinned"]).expect(
        0,
        str![[r#"
     Removed dev.example.pinned from [TMP]/home

"#]],
        str![],
    );
    assert!(!home.join("plugins/dev.example.pinned").exists());
    assert!(
        lock(&home)
            .get("plugins")
            .and_then(|p| p.as_table())
            .is_none_or(|p| p.is_empty())
    );
    at(&["remove", "dev.example.pinned"]).expect(
        2,
        str![],
        str![[r#"
plugins::install::not_installed

  × plugin 'dev.example.pinned' is not installed
  help: `plugins list` shows what is installed; pass --home for another home

"#]],
    );
}

#[test]
fn reinstalling_is_idempotent_and_other_sources_need_force() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "v2.0.0"]).0, 0);
    let before = std::fs::read(home.join("plugins.lock")).unwrap();
    installing(&home, &[&repo.url(), "--ref", "v2.0.0"])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
  Up to date dev.example.pinned 2.0.0 @ c7849e65b9 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960

"#]],
        );
    assert_eq!(
        std::fs::read(home.join("plugins.lock")).unwrap(),
        before,
        "the lock is byte-identical"
    );
    let local = tmp.path().join("local");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("aoe-plugin.toml"), static_aoe("9.0.0")).unwrap();
    installing(&home, &[local.to_str().unwrap()])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching [TMP]/local
      Copied 1 file, 103 bytes
plugins::install::exists

  × dev.example.pinned is already installed from file://[TMP]/repo; use --force to replace it
  help: `plugins remove` it first, or pass --force

"#]],
        );
    assert_eq!(install(&home, &[local.to_str().unwrap(), "--force"]).0, 0);
    assert_eq!(locked(&home, "dev.example.pinned", "version"), "9.0.0");
    assert_eq!(
        locked(&home, "dev.example.pinned", "resolved_commit"),
        "",
        "a local copy has no commit"
    );
}

#[test]
fn concurrent_installs_serialize_on_the_home_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut children = Vec::new();
    for i in 0..4 {
        let repo = Repo::init(&tmp.path().join(format!("repo{i}")));
        repo.file(
            "aoe-plugin.toml",
            &static_aoe("1.0.0").replace("dev.example.pinned", &format!("dev.example.p{i}")),
        );
        repo.commit("one");
        children.push(
            Plugins::new()
                .args(["install", &repo.url(), "--yes", "--home"])
                .arg(&home)
                .stdout(std::process::Stdio::null())
                .spawn(),
        );
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let plugins = lock(&home)["plugins"].as_table().unwrap().clone();
    assert_eq!(
        plugins.len(),
        4,
        "no install lost another's lock entry: {plugins:?}"
    );

    // --no-wait fails fast while another process holds the home.
    let guard = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(home.join(".plugins.guard"))
        .unwrap();
    guard.lock().unwrap();
    let repo = Repo::init(&tmp.path().join("repo-late"));
    repo.file(
        "aoe-plugin.toml",
        &static_aoe("1.0.0").replace("dev.example.pinned", "dev.example.late"),
    );
    repo.commit("late");
    installing(&home, &[&repo.url(), "--no-wait"])
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/repo-late
     Fetched cc723776b828
plugins::io

  × cannot lock [TMP]/home: another plugins process holds the home lock

"#]],
        );
}

#[test]
fn protoagent_and_aworld_homes_get_their_native_records() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("proto"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: notebook\nname: Notes\nversion: 0.2.0\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    let commit = repo.commit("notes");
    repo.tag("v0.2.0");
    let home = tmp.path().join("pa-home");
    installing(&home, &[&repo.url(), "--ref", "v0.2.0"])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed notebook 0.2.0 @ eee396d128 in [TMP]/pa-home/plugins/notebook

"#]],
            str![[r#"
    Fetching file://[TMP]/proto
     Fetched eee396d1284e
protoagent plugin `notebook` 0.2.0 from file://[TMP]/proto @ eee396d1284e
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
        );
    let text = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (
            row["id"].as_str(),
            row["requested_ref"].as_str(),
            row["resolved_sha"].as_str(),
            row["by"].as_str()
        ),
        (
            Some("notebook"),
            Some("v0.2.0"),
            Some(commit.as_str()),
            Some("cli")
        )
    );
    assert!(
        text.starts_with(
            "{\n  \"plugins\": [\n    {\n      \"id\": \"notebook\",\n      \"source_url\": "
        ),
        "protoAgent's json.dumps(indent=2) layout: {text}"
    );

    let repo = Repo::init(&tmp.path().join("aworld"));
    repo.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "helper", "version": "1.0.0"}"#,
    );
    repo.commit("helper");
    let home = tmp.path().join("aw-home");
    assert_eq!(install(&home, &[&repo.url()]).0, 0);
    let registry: Value = serde_json::from_str(
        &std::fs::read_to_string(home.join("plugins/.manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(registry["helper"]["enabled"], true);
    assert_eq!(registry["helper"]["package_kind"], "plugin");
    assert!(home.join("plugins.lock").is_file());
    // Another host's plugin does not go into this home.
    Plugins::new()
        .arg("install")
        .arg(tmp.path().join("proto"))
        .args(["--yes", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching [TMP]/proto
      Copied 2 files, 66 bytes
plugins::lock::error

  × [TMP]/aw-home/plugins.lock is in the aworld format; protoagent plugins need their own home
  help: pass a different --home for each host

"#]],
        );
}

#[test]
fn sync_installs_the_locked_commits_on_an_empty_home() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, c2, _]) = history(&tmp.path().join("repo"));
    let first = tmp.path().join("first");
    assert_eq!(install(&first, &[&repo.url(), "--ref", "dev"]).0, 0);
    assert_eq!(locked(&first, "dev.example.pinned", "resolved_commit"), c2);
    // The branch moves on; a fresh home synced from the lock still gets the locked commit.
    git(&repo.dir, &["checkout", "-q", "dev"]);
    repo.file("aoe-plugin.toml", &static_aoe("2.5.0"));
    repo.commit("dev moves");
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(first.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    let sync = |home: &Path| {
        Plugins::new()
            .args(["sync", "--yes", "--home"])
            .arg(home)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run()
    };
    sync(&fresh).expect(
        0,
        str![[r#"
      Synced dev.example.pinned 2.0.0

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960

"#]],
    );
    let installed =
        std::fs::read_to_string(fresh.join("plugins/dev.example.pinned/aoe-plugin.toml")).unwrap();
    assert!(
        installed.contains("version = \"2.0.0\""),
        "the locked commit, not the branch tip"
    );
    assert_eq!(
        locked(&fresh, "dev.example.pinned", "requested_ref"),
        "dev",
        "a branch pin stays a branch pin"
    );
    assert_eq!(locked(&fresh, "dev.example.pinned", "ref_kind"), "branch");
    assert_eq!(locked(&fresh, "dev.example.pinned", "resolved_commit"), c2);
    sync(&fresh).expect(
        0,
        str![[r#"
everything locked is installed

"#]],
        str![],
    );

    // A lock entry whose source now holds another plugin id is refused.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let text = std::fs::read_to_string(first.join("plugins.lock"))
        .unwrap()
        .replace("dev.example.pinned", "dev.example.renamed");
    std::fs::write(other.join("plugins.lock"), text).unwrap();
    sync(&other).expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched c7849e65b960
plugins::install::id_changed

  × source file://[TMP]/repo now resolves to plugin "dev.example.pinned", not dev.example.renamed

"#]],
    );
}

#[test]
fn sync_reports_tampered_plugins_and_repair_reinstalls_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let dir = home.join("plugins/dev.example.pinned");
    let manifest = dir.join("aoe-plugin.toml");
    let original = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, original.clone() + "# edited\n").unwrap();
    std::fs::write(dir.join("dropped-in.txt"), "x").unwrap();
    let sync = |extra: &[&str]| {
        Plugins::new()
            .args(["sync", "--yes", "--home"])
            .arg(&home)
            .args(extra)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run()
    };

    // Plain sync does not say "everything is installed" over changed files: exit 1, one
    // warning naming the way out, nothing reinstalled.
    sync(&[]).expect(
        1,
        str![""],
        str![[r#"
warning[plugins::install::tampered]: dev.example.pinned changed since install: the manifest changed since install; aoe's capability grant no longer covers it; `plugins sync --repair` reinstalls it

"#]],
    );
    assert!(
        std::fs::read_to_string(&manifest)
            .unwrap()
            .ends_with("# edited\n")
    );

    sync(&["--repair"]).expect(
        0,
        str![[r#"
    Repaired dev.example.pinned 3.0.0

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 5761a5fef946

"#]],
    );
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), original);
    assert!(
        !dir.join("dropped-in.txt").exists(),
        "the reinstall is the locked tree, exactly"
    );
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
          ok dev.example.pinned
1 verified, 0 changed

"#]],
            str![],
        );
    // Nothing left to repair.
    sync(&["--repair", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": []
}

"#]],
        str![],
    );

    // --json reports a tampered plugin as a row, with exit 1.
    std::fs::write(dir.join("dropped-in.txt"), "x").unwrap();
    sync(&["--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "tampered",
      "message": "the files changed since install (tree sha256:c8c150587df69c9e55806c5617f7c36a077151a8801b340deb5bbc34759637b0, locked sha256:548767c9c71fc8756185c02310723f6d0b6add6571c4bffa5cbb7fceb3d227af)",
      "home": "[TMP]/home"
    }
  ]
}

"#]], str![[r#"
warning[plugins::install::tampered]: dev.example.pinned changed since install: the files changed since install (tree sha256:c8c150587df69c9e55806c5617f7c36a077151a8801b340deb5bbc34759637b0, locked sha256:548767c9c71fc8756185c02310723f6d0b6add6571c4bffa5cbb7fceb3d227af); `plugins sync --repair` reinstalls it

"#]]);
}

/// A plugin aoe 1.14 (API 12) loads and aoe 1.19 (API 15) refuses: its UI slot was removed.
const API12_ONLY: &str = "id = \"dev.example.old\"\nname = \"Old\"\nversion = \"0.1.0\"\napi_version = 12\ncapabilities = [\"runtime.worker\"]\n\n[[ui]]\nslot = \"tool-card-badge\"\nid = \"badge\"\n\n[runtime]\nkind = \"command\"\ncommand = [\"./bin/worker\"]\n";

#[test]
fn the_host_profile_given_at_install_is_remembered_by_the_home() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("old");
    std::fs::create_dir_all(src.join("bin")).unwrap();
    std::fs::write(src.join("aoe-plugin.toml"), API12_ONLY).unwrap();
    std::fs::write(src.join("bin/worker"), "#!/bin/sh\n").unwrap();
    let mut perms = std::fs::metadata(src.join("bin/worker"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(src.join("bin/worker"), perms).unwrap();
    let home = tmp.path().join("home");
    let src = src.display().to_string();
    let at = |home: &Path, args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(home)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run()
    };
    // aoe 1.19 refuses it.
    at(&home, &["install", &src, "--yes"]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    at(&home, &["install", &src, "--yes", "--aoe-api", "12"]).expect(
        0,
        str![[r#"
   Installed dev.example.old 0.1.0 in [TMP]/home/plugins/dev.example.old

"#]],
        str![[r#"
    Fetching [TMP]/old
      Copied 2 files, 216 bytes
aoe plugin `dev.example.old` 0.1.0 from [TMP]/old
  capabilities: runtime.worker
  build steps:  none
  ui:           tool-card-badge badge

"#]],
    );
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.toml")).unwrap(),
        "[host]\naoe_api = 12\n"
    );
    at(&home, &["info", "dev.example.old"]).expect(
        0,
        str![[r#"
dev.example.old 0.1.0 (aoe)
  source:   [TMP]/old
  commit:   (local copy)
  manifest: sha256:edbae766a06b6f12ea97d8f3612489907ed749f5b41c45e8039b0831f805dd35
  tree:     sha256:4db409bc2b864da78f82694fc95bae4b8f790a70700c03633e2ddf97c591a3de
  path:     [TMP]/home/plugins/dev.example.old
  enabled:  yes
  host:     aoe api 12 (remembered in [TMP]/home/plugins.toml)
  valid:    yes

"#]],
        str![],
    );
    // Later commands validate as the remembered host without being told again.
    at(&home, &["sync", "--force", "--yes"]).expect(
        0,
        str![[r#"
      Synced dev.example.old 0.1.0

"#]],
        str![[r#"
    Fetching [TMP]/old
      Copied 2 files, 216 bytes

"#]],
    );
    // A flag wins over the home's profile, and a failed install does not record it.
    at(&home, &["sync", "--force", "--yes", "--aoe-api", "15"]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.toml")).unwrap(),
        "[host]\naoe_api = 12\n"
    );
    // The lock row records the profile (a key aoe does not read), so a fresh home with the
    // lock alone validates as the original did, and remembers it.
    assert_eq!(
        lock(&home)["plugins"]["dev.example.old"]["host_aoe_api"].as_integer(),
        Some(12)
    );
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    at(&fresh, &["sync", "--yes"]).expect(
        0,
        str![[r#"
      Synced dev.example.old 0.1.0

"#]],
        str![[r#"
    Fetching [TMP]/old
      Copied 2 files, 216 bytes
aoe plugin `dev.example.old` 0.1.0 from [TMP]/old
  capabilities: runtime.worker
  build steps:  none
  ui:           tool-card-badge badge

"#]],
    );
    assert_eq!(
        std::fs::read_to_string(fresh.join("plugins.toml")).unwrap(),
        "[host]\naoe_api = 12\n"
    );
    // --frozen refuses another profile than the lock's, before anything is fetched.
    std::fs::remove_dir_all(fresh.join("plugins")).unwrap();
    at(&fresh, &["sync", "--frozen", "--yes", "--aoe-api", "15"]).expect(2, str![], str![[r#"
plugins::sync::profile_mismatch

  × dev.example.old: the lock was made under another host profile: --aoe-api 15 (the lock: 12); nothing was changed
  help: run it with the lock's profile (--aoe-api 12) or without the flags; to move to another host, `plugins update` under the new profile

"#]]);
    assert!(!fresh.join("plugins/dev.example.old").exists());
    // outdated (as update and autoupdate) takes the profile too.
    at(
        &home,
        &["outdated", "--aoe-api", "12", "--host-version", "1.14.0"],
    )
    .expect(
        0,
        str![[r#"
dev.example.old                  local copy                   not from git

"#]],
        str![],
    );
    // plugins.toml's other readers accept the table (no "unknown key").
    at(&home, &["autoupdate"]).expect(0, str![[r#"
[AT] autoupdate: 0 updated, 0 up to date, 0 deferred (busy), 0 need approval, 0 failed
[AT] [TMP]/home: skipped (disabled): no plugin is opted in; to opt one in, add `[update_policy."dev.example.old"]` with `track = "default"` to [TMP]/home/plugins.toml

"#]], str![]);
}

/// With no flag and nothing remembered, the installed host picks the profile: an `aoe` on
/// PATH that says 1.14.0 validates as API 12 (and 1.19.0 as 15), said in `-v` and `info`;
/// a hanging or absent `aoe` is not waited for past the probe's bound; `--no-detect` and
/// a remembered profile skip it.
#[test]
fn the_installed_aoe_picks_the_profile_when_nothing_names_one() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let src = t.join("old");
    std::fs::create_dir_all(src.join("bin")).unwrap();
    std::fs::write(src.join("aoe-plugin.toml"), API12_ONLY).unwrap();
    let script = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        let mut perms = std::fs::metadata(path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(path, perms).unwrap();
    };
    script(&src.join("bin/worker"), "#!/bin/sh\n");
    let bin = t.join("bin");
    let src = src.display().to_string();
    let with_aoe = |home: &Path, aoe: Option<&str>, extra: &[&str]| {
        let _ = std::fs::remove_file(bin.join("aoe"));
        if let Some(text) = aoe {
            script(&bin.join("aoe"), text);
        }
        Plugins::new()
            .arg("-v")
            .args(["install", &src, "--yes", "--home"])
            .arg(home)
            .args(extra)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("COLUMNS", "400")
            .tmp(&t)
            .run()
    };
    let old = "#!/bin/sh\necho 'aoe 1.14.0'\n";
    with_aoe(&t.join("h1"), Some(old), &[]).expect(
        0,
        str![[r#"
   Installed dev.example.old 0.1.0 in [TMP]/h1/plugins/dev.example.old

"#]],
        str![[r#"
    Fetching [TMP]/old
debug: host: detected aoe api 12, version 1.14.0 (aoe --version); validating as it
      Copied 2 files, 216 bytes
aoe plugin `dev.example.old` 0.1.0 from [TMP]/old
  capabilities: runtime.worker
  build steps:  none
  ui:           tool-card-badge badge

"#]],
    );
    assert!(
        !t.join("h1/plugins.toml").exists(),
        "a detection is not remembered"
    );
    Plugins::new()
        .args(["info", "dev.example.old", "--home"])
        .arg(t.join("h1"))
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .tmp(&t)
        .run()
        .expect(
            0,
            str![[r#"
dev.example.old 0.1.0 (aoe)
  source:   [TMP]/old
  commit:   (local copy)
  manifest: sha256:edbae766a06b6f12ea97d8f3612489907ed749f5b41c45e8039b0831f805dd35
  tree:     sha256:4db409bc2b864da78f82694fc95bae4b8f790a70700c03633e2ddf97c591a3de
  path:     [TMP]/h1/plugins/dev.example.old
  enabled:  yes
  host:     aoe api 12, version 1.14.0 (detected: aoe --version)
  valid:    yes

"#]],
            str![],
        );
    // aoe 1.19 refuses it.
    with_aoe(&t.join("h2"), Some("#!/bin/sh\necho 'aoe 1.19.0'\n"), &[]).expect(
        1,
        str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]],
        str![[r#"
    Fetching [TMP]/old
debug: host: detected aoe api 15, version 1.19.0 (aoe --version); validating as it
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
    );
    // No aoe, a hanging one, or --no-detect: the newest profile, which refuses it.
    with_aoe(&t.join("h3"), None, &[]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
debug: host: `aoe --version`: not found on PATH
debug: host: no aoe host detected; validating as the newest
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    with_aoe(&t.join("h3"), Some("#!/bin/sh\nexec sleep 30\n"), &[]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
debug: host: `aoe --version`: no answer within 3 s
debug: host: no aoe host detected; validating as the newest
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    with_aoe(&t.join("h3"), Some(old), &["--no-detect"]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
    // A remembered profile wins over the installed host (no "host: detected").
    std::fs::create_dir_all(t.join("h4")).unwrap();
    std::fs::write(t.join("h4/plugins.toml"), "[host]\naoe_api = 15\n").unwrap();
    with_aoe(&t.join("h4"), Some(old), &[]).expect(1, str![[r#"
plugins::aoe::unknown_variant

  × unknown variant `tool-card-badge`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`,
  │ `notification`
   ╭─[[TMP]/old/aoe-plugin.toml:8:8]
 7 │ [[ui]]
 8 │ slot = "tool-card-badge"
   ·        ─────────────────
 9 │ id = "badge"
   ╰────
  help: `tool-card-badge` was removed in api_version 15 when MCP and skills management moved into core; it is a parse error at every api_version on aoe >= 1.19
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
  Invalid aoe plugin `dev.example.old` 0.1.0 at [TMP]/old (1 error)

"#]], str![[r#"
    Fetching [TMP]/old
plugins::install::invalid

  × refusing to install: dev.example.old is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]]);
}

#[test]
fn an_explicit_gh_ref_is_unverified_code_that_asks_as_aoe_does() {
    // aoe §17: `gh:o/r@ref` (and the default branch of a repository without a release) is
    // unverified, un-audited code: without a terminal it needs --yes even when the plugin
    // asks for nothing.
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("work"));
    let base = tmp.path().join("mirror");
    repo.clone_bare(&base.join("acme/pinned.git"));
    let home = tmp.path().join("home");
    let gh = |extra: &[&str]| {
        Plugins::new()
            .args(["install", "gh:acme/pinned@v2.0.0", "--home"])
            .arg(&home)
            .args(extra)
            .env("PLUGINS_GH_BASE", format!("file://{}", base.display()))
            .env("COLUMNS", "200")
            .redact("[MIRROR]", &base)
            .tmp(tmp.path())
            .run()
    };
    gh(&[]).expect(
        2,
        str![""],
        str![[r#"
    Fetching [..]
     Fetched [..]
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/pinned @ [..]
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::declined

  × this is unverified, un-audited code; re-run with --yes to install it
  help: pass --yes to grant what is listed above

"#]],
    );
    assert!(!home.join("plugins/dev.example.pinned").exists());
    gh(&["--yes"]).expect(
        0,
        str![[r#"
   Installed dev.example.pinned 2.0.0 @ c7849e65b9 in [TMP]/home/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching file://[MIRROR]/acme/pinned.git
     Fetched c7849e65b960
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/pinned @ c7849e65b960
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
    );
}

#[test]
fn unreachable_remotes_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    // One error, its cause once, without libgit2's class and code.
    installing(&tmp.path().join("home"), &["file:///nonexistent/repo.git"])
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
    Fetching file:///nonexistent/repo.git
plugins::git::fetch

  × cannot reach file:///nonexistent/repo.git: failed to resolve path '/nonexistent/repo.git': No
  │ such file or directory

"#]],
        );
}

#[test]
fn build_steps_time_out_and_follow_platforms() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", "#!/bin/sh\nsleep 30\n");
    Plugins::new()
        .args([
            "install",
            &repo.url(),
            "--yes",
            "--build-timeout",
            "1",
            "--home",
        ])
        .arg(tmp.path().join("home"))
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            2,
            str![],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 59e614ef304e
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo @ 59e614ef304e
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) timed out after 1 s

"#]],
        );

    // A step for another OS is skipped; --no-build skips them all.
    let repo = Repo::init(&tmp.path().join("repo2"));
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.skip\"\nname = \"Skip\"\nversion = \"1.0.0\"\napi_version = 6\n\n[runtime]\nkind = \"command\"\ncommand = [\"./worker.sh\"]\n\n\
         [[runtime.build]]\ncommand = [\"false\"]\nplatforms = [\"windows\"]\n",
    );
    repo.executable("worker.sh", "#!/bin/sh\n");
    repo.commit("skip");
    assert_eq!(
        install(&tmp.path().join("home2"), &[&repo.url()]).0,
        0,
        "the windows-only failing step did not run"
    );
    built_aoe(&repo, "2.0.0", "#!/bin/sh\nexit 1\n");
    assert_eq!(
        install(&tmp.path().join("home3"), &[&repo.url(), "--no-build"]).0,
        0
    );
}

#[test]
fn network_fetches_over_git_daemon() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [c1, c2, c3]) = history(&tmp.path().join("work"));
    let served = tmp.path().join("served");
    repo.clone_bare(&served.join("pinned.git"));
    let daemon = Daemon::serve(&served);
    let url = format!("git://127.0.0.1:{}/pinned.git", daemon.port);
    for (i, (args, commit, kind)) in [
        (&[][..], &c3, "default"),
        (&["--ref", "v2.0.0"], &c2, "tag"),
        (&["--ref", "v1.0.0"], &c1, "tag"),
        (&["--ref", &c1[..10]], &c1, "commit"),
    ]
    .into_iter()
    .enumerate()
    {
        let home = tmp.path().join(format!("home-{i}"));
        let mut all = vec![url.as_str()];
        all.extend(args.iter().copied());
        let (code, stdout, stderr) = install(&home, &all);
        assert_eq!(code, 0, "{args:?}: {stdout}{stderr}");
        assert_eq!(
            locked(&home, "dev.example.pinned", "resolved_commit"),
            **commit,
            "{args:?}"
        );
        assert_eq!(locked(&home, "dev.example.pinned", "ref_kind"), kind);
    }
}

/// A repository without a manifest at its root (a template, a monorepo): install lists
/// the plugin roots below it and the command that installs each, never `--recursive`.
#[test]
fn a_repository_of_plugins_lists_how_to_install_each() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("acme/tpl"));
    repo.file("README.md", "plugins\n")
        .file("plugins/kanban/aoe-plugin.toml", &static_aoe("1.0.0"))
        .file(
            "plugins/notes/protoagent.plugin.yaml",
            "id: notes\nname: Notes\n",
        )
        .file("plugins/notes/__init__.py", "");
    repo.commit("two plugins");
    let home = tmp.path().join("home");
    let url = repo.url();
    let show = |args: &[&str]| {
        let ran = Plugins::new()
            .arg("install")
            .args(args)
            .args(["--yes", "--home"])
            .arg(&home)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run();
        ran.code(1);
        assert!(!ran.stdout.contains("--recursive"), "{}", ran.stdout);
        ran
    };
    show(&[&url]).stdout_eq(str![[r#"
plugins::file::missing

  × no plugin manifest at file://[TMP]/acme/tpl@d757aac1bb
  help: it holds 2 plugins below its root; install one by its directory:
          plugins install file://[TMP]/acme/tpl --subdir plugins/kanban   (aoe)
          plugins install file://[TMP]/acme/tpl --subdir plugins/notes   (protoagent)
  Invalid plugin at file://[TMP]/acme/tpl@d757aac1bb (1 error)

"#]]);
    // The `gh:` form names each by its path; a local directory by its own path.
    show(&[&tmp.path().join("acme/tpl").display().to_string()]).stdout_eq(str![[r#"
plugins::file::missing

  × no plugin manifest at [TMP]/acme/tpl
  help: it holds 2 plugins below its root; install one by its directory:
          plugins install [TMP]/acme/tpl/plugins/kanban   (aoe)
          plugins install [TMP]/acme/tpl/plugins/notes   (protoagent)
  Invalid plugin at [TMP]/acme/tpl (1 error)

"#]]);
    repo.clone_bare(&tmp.path().join("gh/acme/tpl.git"));
    Plugins::new()
        .args(["install", "gh:acme/tpl@main", "--yes", "--home"])
        .arg(&home)
        .env(
            "PLUGINS_GH_BASE",
            format!("file://{}/gh", tmp.path().display()),
        )
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            1,
            str![[r#"
plugins::file::missing

  × no plugin manifest at gh:acme/tpl@main
  help: it holds 2 plugins below its root; install one by its directory:
          plugins install gh:acme/tpl/plugins/kanban@main   (aoe)
          plugins install gh:acme/tpl/plugins/notes@main   (protoagent)
  Invalid plugin at gh:acme/tpl@main (1 error)

"#]],
            str![[r#"
    Fetching file://[TMP]/gh/acme/tpl.git
     Fetched d757aac1bb37
plugins::install::invalid

  × refusing to install: the plugin is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
        );
    // As deep as AWorld keeps its bundled plugins (aworld-cli/src/aworld_cli/builtin_plugins/*,
    // 4 levels down) and deeper: every plugin root is listed, not only the first levels.
    let deep = Repo::init(&tmp.path().join("acme/deep"));
    deep.file("README.md", "deep\n")
        .file(
            "aworld-cli/src/aworld_cli/builtin_plugins/helper/.aworld-plugin/plugin.json",
            r#"{"id": "helper", "version": "1.0.0"}"#,
        )
        .file("a/b/c/d/e/f/g/kanban/aoe-plugin.toml", &static_aoe("1.0.0"));
    deep.commit("deep plugins");
    show(&[&deep.url()]).stdout_eq(str![[r#"
plugins::file::missing

  × no plugin manifest at file://[TMP]/acme/deep@6706f98e08
  help: it holds 2 plugins below its root; install one by its directory:
          plugins install file://[TMP]/acme/deep --subdir a/b/c/d/e/f/g/kanban   (aoe)
          plugins install file://[TMP]/acme/deep --subdir aworld-cli/src/aworld_cli/builtin_plugins/helper   (aworld)
  Invalid plugin at file://[TMP]/acme/deep@6706f98e08 (1 error)

"#]]);
    // Nothing below either: no advice to pass a flag install does not have.
    let empty = Repo::init(&tmp.path().join("empty"));
    empty.file("README.md", "nothing\n");
    empty.commit("none");
    show(&[&empty.url()]).stdout_eq(str![[r#"
plugins::file::missing

  × no plugin manifest at file://[TMP]/empty@ef04ae283c
  help: looked for aoe-plugin.toml, .aworld-plugin/plugin.json, protoagent.plugin.yaml at its root and below it, and found none: is this a plugin's repository?
  Invalid plugin at file://[TMP]/empty@ef04ae283c (1 error)

"#]]
    );
}

/// A server that answers and then aborts is not "cannot reach": its own words are shown,
/// with libgit2 and with the git command.
#[test]
fn a_server_that_aborts_is_quoted() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"))
        .file("README.md", "readme\n");
    repo.commit("v1");
    let served = tmp.path().join("served");
    repo.clone_bare(&served.join("broken.git"));
    // The server's copy loses an object: upload-pack dies sending the pack.
    let blob = git(&served.join("broken.git"), &["rev-parse", "HEAD:README.md"]);
    let objects = served.join("broken.git/objects");
    let loose = objects.join(&blob[..2]).join(&blob[2..]);
    if !loose.exists() {
        // A packed clone: unpack it so the object can be removed.
        git(&served.join("broken.git"), &["repack", "-a", "-d"]);
        let packs: Vec<_> = std::fs::read_dir(objects.join("pack"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let pack = packs
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "pack"))
            .unwrap();
        let moved = tmp.path().join("pack.pack");
        std::fs::rename(pack, &moved).unwrap();
        for p in &packs {
            let _ = std::fs::remove_file(p);
        }
        let out = std::process::Command::new("git")
            .args(["unpack-objects", "-q"])
            .current_dir(served.join("broken.git"))
            .stdin(std::fs::File::open(&moved).unwrap())
            .status()
            .unwrap();
        assert!(out.success());
    }
    std::fs::remove_file(&loose).unwrap();
    let daemon = Daemon::serve(&served);
    let url = format!("git://127.0.0.1:{}/broken.git", daemon.port);
    let install = |cli: &str| {
        Plugins::new()
            .env("PLUGINS_GIT_FETCH_WITH_CLI", cli)
            .args(["install", &url, "--yes", "--home"])
            .arg(tmp.path().join("home"))
            .env("COLUMNS", "400")
            .redact("[URL]", &url)
            .redact("[BLOB]", &blob)
            .run()
    };
    install("0").expect(2, str![], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::fetch

  × [URL] aborted while downloading: remote: fatal: unable to read [BLOB]
  help: the server answered but could not send the repository (its words say why): tell its owner, or try again later

"#]]);
    install("1").expect(2, str![], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::fetch

  × [URL] aborted while downloading: remote: fatal: unable to read [BLOB][..]
...
  help: the server answered but could not send the repository (its words say why): tell its owner, or try again later

"#]]);
}

#[test]
fn protoagent_deps_go_into_plugin_deps_outside_the_hashed_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("wheels");
    wheel(&index, "demolib");
    // Every Python with pip has pip, at another version than this one.
    wheel(&index, "pip");
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nrequires_pip:\n  - demolib\n  - \"pywinpty>=2.0; sys_platform == 'win32'\"\n  - pip==1.0.0\n  - {pkg: notthere, optional: true}\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("deps");
    let home = tmp.path().join("home");
    let pip = |cmd: &mut Plugins| {
        cmd.env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &index)
            .env("COLUMNS", "400")
            .tmp(tmp.path());
    };
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "--deps", "--home"])
        .arg(&home);
    pip(&mut cmd);
    // The consent shows the deps; the optional one and pip itself are skipped, each with
    // a warning.
    cmd.run().expect(0, str![[r#"
   Installed deppy 0.0.0 @ ae013a668d in [TMP]/home/plugins/deppy

"#]], str![[r#"
    Fetching file://[TMP]/repo
     Fetched ae013a668dc8
protoagent plugin `deppy` 0.0.0 from file://[TMP]/repo @ ae013a668dc8
  capabilities: none
  build steps:  none
  pip:          demolib, pywinpty>=2.0; sys_platform == 'win32', pip==1.0.0 (optional: notthere)
  runs code inside the host process
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0 notthere
warning[plugins::install::deps_skipped]: deppy: optional requirements notthere could not be resolved (build step 1 (python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0 notthere) failed with exit status: 1); installing the required ones only
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0
    Building step 1/1: python3 -c import importlib.metadata as m, sys; open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()}))) deps-present.txt
warning[plugins::install::deps_skipped]: deppy: pip 1.0.0 is not installed into plugin-deps: the host's Python has another version of it, which protoAgent would keep using
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
    // protoAgent's layout: the wheel unpacked flat into <instance>/plugin-deps/<id>, nothing
    // in the plugin's own (hashed) tree; the Windows-only requirement is not installed.
    let deps = home.join("plugin-deps/deppy");
    let mut listed: Vec<String> = std::fs::read_dir(&deps)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    listed.sort();
    assert_eq!(listed, ["demolib", "demolib-1.0.0.dist-info"]);
    assert!(!home.join("plugins/deppy/.venv").exists());
    let out = std::process::Command::new("python3")
        .args(["-c", "import demolib; print(demolib.VALUE)"])
        .env("PYTHONPATH", &deps)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "42");
    // Pinned in the lock row as the host's wheel installer pins (`deps`).
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("plugins.lock")).unwrap()).unwrap();
    let sha = sha2_of(&index.join("demolib-1.0.0-py3-none-any.whl"));
    assert_eq!(
        lock["plugins"][0]["deps"],
        serde_json::json!([{"name": "demolib", "version": "1.0.0", "sha256": sha}])
    );
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
          ok deppy
1 verified, 0 changed

"#]],
            str![],
        );

    // Installing again with --deps redoes them (the plugin is otherwise up to date); without
    // --deps the deps and their pins are kept as they are.
    std::fs::remove_dir_all(deps.join("demolib")).unwrap();
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "--deps", "--home"])
        .arg(&home);
    pip(&mut cmd);
    cmd.run().expect(0, str![[r#"
   Installed deppy 0.0.0 @ ae013a668d in [TMP]/home/plugins/deppy

"#]], str![[r#"
    Fetching file://[TMP]/repo
     Fetched ae013a668dc8
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0 notthere
warning[plugins::install::deps_skipped]: deppy: optional requirements notthere could not be resolved (build step 1 (python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0 notthere) failed with exit status: 1); installing the required ones only
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib pywinpty>=2.0; sys_platform == 'win32' pip==1.0.0
    Building step 1/1: python3 -c import importlib.metadata as m, sys; open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()}))) deps-present.txt
warning[plugins::install::deps_skipped]: deppy: pip 1.0.0 is not installed into plugin-deps: the host's Python has another version of it, which protoAgent would keep using
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
    assert!(deps.join("demolib/__init__.py").is_file());
    installing(&home, &[&repo.url()])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
  Up to date deppy 0.0.0 @ ae013a668d in [TMP]/home/plugins/deppy

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched ae013a668dc8

"#]],
        );
    assert!(deps.join("demolib/__init__.py").is_file());

    // A failing required dep leaves the previous deps as they were.
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 2.0.0\nrequires_pip: [demolib, missinglib]\n",
    );
    repo.commit("a missing dep");
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "--deps", "--home"])
        .arg(&home);
    pip(&mut cmd);
    cmd.run().expect(2, str![], str![[r#"
    Fetching file://[TMP]/repo
     Fetched aaf544bd4135
protoagent plugin `deppy` 2.0.0 from file://[TMP]/repo @ aaf544bd4135
  asked again:  pip [demolib, pywinpty>=2.0; sys_platform == 'win32', pip==1.0.0] -> [demolib, missinglib]
  capabilities: none
  build steps:  none
  pip:          demolib, missinglib
  runs code inside the host process
    Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib missinglib
plugins::install::build

  × build step 1 (python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib missinglib) failed with exit status: 1
  help: last output:
...
        ERROR: No matching distribution found for missinglib

"#]]);
    assert!(deps.join("demolib/__init__.py").is_file());
    assert!(
        !home.join(".plugins/backup-deps").join("deppy").exists()
            && !home.join(".plugins/txn/deppy.json").exists()
    );

    // `remove` removes them with the plugin.
    Plugins::new()
        .args(["remove", "deppy", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
     Removed deppy from [TMP]/home

"#]],
            str![],
        );
    assert!(!deps.exists() && !home.join("plugins/deppy").exists());

    // Without --deps nothing is installed; with a URL requirement, --deps refuses up front.
    let (code, _, _) = install(&tmp.path().join("home2"), &[&repo.url()]);
    assert_eq!(code, 0);
    assert!(!tmp.path().join("home2/plugin-deps").exists());
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nrequires_pip: [\"git+https://example.invalid/x.git\"]\n",
    );
    repo.commit("url dep");
    Plugins::new()
        .args(["install", &repo.url(), "--yes", "--deps", "--home"])
        .arg(tmp.path().join("home3"))
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(2, str![], str![[r#"
    Fetching file://[TMP]/repo
     Fetched 50a147555e62
plugins::install::deps

  × requires_pip entry "git+https://example.invalid/x.git" is a VCS/URL/direct reference, which is not allowed
  help: only plain PEP 508 requirements are installed, never options, URLs, VCS references or local paths

"#]]);
}

/// The sha256 of a file, through `sha256sum`.
fn sha2_of(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn default_homes_follow_each_hosts_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("proto"));
    repo.file("protoagent.plugin.yaml", "id: notebook\nname: Notes\n")
        .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("notes");
    let aoe = Repo::init(&tmp.path().join("aoe"));
    aoe.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    aoe.commit("aoe");
    let env = |cmd: &mut Plugins| {
        cmd.env("HOME", tmp.path().join("home"))
            .env("XDG_CONFIG_HOME", tmp.path().join("xdg"))
            .env("PROTOAGENT_PLUGINS_DIR", tmp.path().join("pa-plugins"))
            .env(
                "PROTOAGENT_PLUGINS_LOCK",
                tmp.path().join("pa-state/plugins.lock"),
            )
            .env_remove("PROTOAGENT_CONFIG_DIR");
    };
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes"]).tmp(tmp.path());
    env(&mut cmd);
    cmd.run().expect(
        0,
        str![[r#"
   Installed notebook 0.0.0 @ f4d0e81579 in [TMP]/pa-plugins/notebook

"#]],
        str![[r#"
    Fetching file://[TMP]/proto
     Fetched f4d0e8157978
protoagent plugin `notebook` 0.0.0 from file://[TMP]/proto @ f4d0e8157978
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
    );
    let mut cmd = Plugins::new();
    cmd.args(["install", &aoe.url(), "--yes"]).tmp(tmp.path());
    env(&mut cmd);
    cmd.run().expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ ca4bafb7bc in [TMP]/xdg/agent-of-empires/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching file://[TMP]/aoe
     Fetched ca4bafb7bcd3

"#]]);
    assert!(
        tmp.path()
            .join("pa-plugins/notebook/protoagent.plugin.yaml")
            .is_file(),
        "PROTOAGENT_PLUGINS_DIR"
    );
    assert!(
        tmp.path().join("pa-state/plugins.lock").is_file(),
        "PROTOAGENT_PLUGINS_LOCK"
    );
    assert!(
        tmp.path()
            .join("xdg/agent-of-empires/plugins/dev.example.pinned/aoe-plugin.toml")
            .is_file(),
        "aoe's app dir"
    );
    assert!(
        tmp.path()
            .join("xdg/agent-of-empires/plugins.lock")
            .is_file()
    );
    // list finds every host's default home.
    let mut cmd = Plugins::new();
    cmd.args(["list", "--json"]).tmp(tmp.path());
    env(&mut cmd);
    cmd.run().expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "dialect": "aoe",
      "version": "1.0.0",
      "source": "file://[TMP]/aoe",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "ca4bafb7bcd3c077af276bf6aa303e4b3ef8ee9e",
      "home": "[TMP]/xdg/agent-of-empires",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": true,
      "hold": null,
      "deps": null
    },
    {
      "id": "notebook",
      "dialect": "protoagent",
      "version": "0.0.0",
      "source": "file://[TMP]/proto",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "f4d0e81579788b2b7fee35582ed2ddb544d5ed5b",
      "home": "[TMP]/home/.protoagent/default",
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
        str![],
    );
}

#[test]
fn list_is_a_table_with_the_source_last() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let (repo, _) = history(&tmp.path().join("repo"));
    assert_eq!(install(&home, &[&repo.url(), "--ref", "v1.0.0"]).0, 0);
    // A long id from a deeply nested repository, on its default branch.
    let deep = Repo::init(
        &tmp.path()
            .join("a/rather/deeply/nested/checkout/of/some/organisation/plugins/repo"),
    );
    deep.file(
        "aoe-plugin.toml",
        &static_aoe("0.11.1").replace("dev.example.pinned", "dev.example.a-plugin-with-a-long-id"),
    );
    deep.commit("one");
    assert_eq!(install(&home, &[&deep.url()]).0, 0);
    // A local directory, whose installed copy then goes missing.
    let local = tmp.path().join("local");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(
        local.join("aoe-plugin.toml"),
        static_aoe("2.0.0").replace("dev.example.pinned", "dev.example.local"),
    )
    .unwrap();
    let (code, stdout, stderr) = install(&home, &[local.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    std::fs::remove_dir_all(home.join("plugins/dev.example.local")).unwrap();

    Plugins::new()
        .args(["list", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
ID                                   VERSION  DIALECT  REF           COMMIT      SOURCE
dev.example.a-plugin-with-a-long-id  0.11.1   aoe      (default)     56d7f5eca6  file://[TMP]/a/rather/deeply/nested/checkout/of/some/organisation/plugins/repo
dev.example.local                    2.0.0    aoe      (local copy)  -           [TMP]/local  (missing: run `plugins sync`)
dev.example.pinned                   1.0.0    aoe      v1.0.0        98dbc36b17  file://[TMP]/repo

"#]],
            str![""],
        );
}

#[test]
fn no_build_is_locked_shown_reported_by_verify_and_built_by_sync() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = install(&home, &[&repo.url(), "--no-build"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let id = "dev.example.built";
    let worker = home.join("plugins/dev.example.built/.aoe-build/bin/worker");
    assert!(!worker.exists());
    assert_eq!(lock(&home)["plugins"][id]["unbuilt"].as_bool(), Some(true));

    let at = |args: &[&str]| {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .tmp(tmp.path())
            .run()
    };
    at(&["info", id]).expect(
        0,
        str![[r#"
dev.example.built 1.0.0 (aoe)
  source:   file://[TMP]/repo
  commit:   54aea03c2e0a91be5aaff42b9adfdb70669cd3c5
  manifest: sha256:4e0bf26663ed5e80e845d64871f7fd568206b611437a4ad5ee637e30a08ea5de
  tree:     sha256:1e1731f71f66482ab1c9b7e67916fb5fa9e24ba9a071d0bcba09c63e209419df
  path:     [TMP]/home/plugins/dev.example.built
  built:    no (installed with --no-build; `plugins sync` builds it)
  enabled:  yes
  valid:    yes

"#]],
        str![],
    );
    at(&["info", id, "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "dev.example.built",
  "dialect": "aoe",
  "version": "1.0.0",
  "source": "file://[TMP]/repo",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "54aea03c2e0a91be5aaff42b9adfdb70669cd3c5",
  "manifest_hash": "sha256:4e0bf26663ed5e80e845d64871f7fd568206b611437a4ad5ee637e30a08ea5de",
  "tree_hash": "sha256:1e1731f71f66482ab1c9b7e67916fb5fa9e24ba9a071d0bcba09c63e209419df",
  "path": "[TMP]/home/plugins/dev.example.built",
  "present": true,
  "valid": true,
  "unbuilt": true,
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
        str![],
    );
    at(&["list"]).expect(0, str![[r#"
ID                 VERSION  DIALECT  REF        COMMIT      SOURCE
dev.example.built  1.0.0    aoe      (default)  54aea03c2e  file://[TMP]/repo  (not built: run `plugins sync`)

"#]], str![]);
    at(&["list", "--json"]).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.built",
      "dialect": "aoe",
      "version": "1.0.0",
      "source": "file://[TMP]/repo",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "54aea03c2e0a91be5aaff42b9adfdb70669cd3c5",
      "home": "[TMP]/home",
      "present": true,
      "unbuilt": true,
      "subdir": null,
      "enabled": true,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![],
    );
    at(&["verify"]).expect(
        1,
        str![[r#"
     unbuilt dev.example.built: installed with --no-build: its build did not run; `plugins sync` builds it
1 verified, 1 changed

"#]],
        str![],
    );
    at(&["verify", "--json"]).expect(
        1,
        str![[r#"
{
  "format_version": 1,
  "ok": false,
  "unverifiable": 0,
  "plugins": [
    {
      "id": "dev.example.built",
      "ok": false,
      "status": "unbuilt",
      "code": "plugins::install::unbuilt",
      "problems": [
        "installed with --no-build: its build did not run; `plugins sync` builds it"
      ]
    }
  ]
}

"#]],
        str![],
    );
    // Installing again without --no-build builds it; so does sync.
    at(&["sync", "--yes"]).expect(
        0,
        str![[r#"
      Synced dev.example.built 1.0.0

"#]],
        str![[r#"
    Fetching file://[TMP]/repo
     Fetched 54aea03c2e0a
    Building step 1/1: ./build.sh

"#]],
    );
    assert!(worker.exists(), "sync built it");
    assert!(lock(&home)["plugins"][id].get("unbuilt").is_none());
    at(&["verify"]).expect(
        0,
        str![[r#"
          ok dev.example.built
1 verified, 0 changed

"#]],
        str![],
    );
    // No longer "not built".
    at(&["list"]).expect(
        0,
        str![[r#"
ID                 VERSION  DIALECT  REF        COMMIT      SOURCE
dev.example.built  1.0.0    aoe      (default)  54aea03c2e  file://[TMP]/repo

"#]],
        str![],
    );

    // A plugin with nothing to build is not unbuilt.
    let plain = Repo::init(&tmp.path().join("plain"));
    plain.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    plain.commit("one");
    let (code, stdout, stderr) = install(&home, &[&plain.url(), "--no-build"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        lock(&home)["plugins"]["dev.example.pinned"]
            .get("unbuilt")
            .is_none()
    );
}

#[test]
fn reinstalling_an_unbuilt_plugin_builds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = install(&home, &[&repo.url(), "--no-build"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, stdout, stderr) = install(&home, &[&repo.url()]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        home.join("plugins/dev.example.built/.aoe-build/bin/worker")
            .exists()
    );
    assert!(
        lock(&home)["plugins"]["dev.example.built"]
            .get("unbuilt")
            .is_none()
    );
}

/// `/proc/<pid>/stat`'s fields after the command name: state, ppid, …
fn stat_fields(pid: u32) -> Vec<String> {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .unwrap_or_default()
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

fn state(pid: u32) -> Option<char> {
    stat_fields(pid).first().and_then(|s| s.chars().next())
}

fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, Iterator::count)
}

/// The `plugins` process below `root` (the `script` that runs it), once it runs.
fn plugins_below(root: u32) -> Option<u32> {
    let bin = std::fs::canonicalize(BIN).unwrap();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        if std::fs::read_link(e.path().join("exe")).ok()? != bin {
            return None;
        }
        let mut p = pid;
        for _ in 0..8 {
            p = stat_fields(p).get(1)?.parse().ok()?;
            if p == root {
                return Some(pid);
            }
        }
        None
    })
}

/// On a terminal the progress spinner is off the screen while consent is asked: after
/// the prompt nothing is drawn (no spinner tick over the question) until it is answered.
#[test]
fn the_consent_prompt_is_not_drawn_over_by_the_spinner() {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(&repo, "1.0.0", GOOD_BUILD);
    let home = tmp.path().join("home");
    let mut child = Plugins::new()
        .args(["install", &repo.url()])
        .home(&home)
        .in_pty()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let screen = Arc::new(Mutex::new(Vec::<u8>::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let screen = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        })
    };
    let prompt = "Install dev.example.built and grant this? [y/N]: ";
    let shown = || String::from_utf8_lossy(&screen.lock().unwrap()).into_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !shown().contains(prompt) {
        assert!(
            std::time::Instant::now() < deadline,
            "no prompt: {:?}",
            shown()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Not a time to wait but a state: `plugins` is down to its one thread (no spinner
    // ticker is left to draw) and that thread sleeps, reading the answer.
    let pid = loop {
        if let Some(pid) = plugins_below(child.id()) {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "no plugins process");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    while !(threads(pid) == 1 && state(pid) == Some('S')) {
        assert!(
            std::time::Instant::now() < deadline,
            "plugins never waited for the answer alone: {} threads",
            threads(pid)
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let at_prompt = shown();
    let after = &at_prompt[at_prompt.rfind(prompt).unwrap() + prompt.len()..];
    assert_eq!(after, "", "drawn after the prompt: {at_prompt:?}");
    let before = &at_prompt[..at_prompt.rfind(prompt).unwrap()];
    assert!(
        before.contains("  capabilities: runtime.worker")
            && before.contains("  build steps:  ./build.sh"),
        "the consent text is on screen: {at_prompt:?}"
    );
    child.stdin.as_mut().unwrap().write_all(b"n\n").unwrap();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    assert!(!status.success());
    assert!(
        shown().contains("install cancelled; no capabilities were granted"),
        "{:?}",
        shown()
    );
    assert!(!home.join("plugins/dev.example.built").exists());
}

#[test]
fn verify_lists_changed_added_and_removed_files() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    std::fs::create_dir_all(src.join("lib")).unwrap();
    std::fs::write(src.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    std::fs::write(src.join("README.md"), "readme\n").unwrap();
    std::fs::write(src.join("lib/a.txt"), "a\n").unwrap();
    std::fs::write(src.join("lib/b.txt"), "b\n").unwrap();
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[src.to_str().unwrap()]).0, 0);
    let record = home.join(".plugins/files/dev.example.pinned.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(
        doc["files"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["README.md", "aoe-plugin.toml", "lib/a.txt", "lib/b.txt"]
    );

    let dir = home.join("plugins/dev.example.pinned");
    std::fs::write(dir.join("lib/a.txt"), "tampered\n").unwrap();
    std::fs::write(dir.join("lib/new.sh"), "echo hi\n").unwrap();
    std::fs::remove_file(dir.join("README.md")).unwrap();
    let verify = |extra: &[&str]| {
        Plugins::new()
            .args(["verify", "--home"])
            .arg(&home)
            .args(extra)
            .tmp(tmp.path())
            .run()
    };
    verify(&[]).expect(
        1,
        str![[r#"
    tampered dev.example.pinned: the files changed since install (tree [..])
     changed lib/a.txt
       added lib/new.sh
     removed README.md
1 verified, 1 changed

"#]],
        str![],
    );
    verify(&["--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "ok": false,
  "unverifiable": 0,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "ok": false,
      "status": "tampered",
      "code": "plugins::install::tampered",
      "problems": [
        "the files changed since install (tree sha256:c99930ee77bd01dab8e30937c35b9b382592ea2f311031c747f9c22e2b590f98, locked sha256:47f9d3af73e3fb59e722c8ccf02987fc01d198b3c4f878510f48f39948a29009)"
      ],
      "changed": [
        "lib/a.txt"
      ],
      "added": [
        "lib/new.sh"
      ],
      "removed": [
        "README.md"
      ],
      "files_not_shown": 0
    }
  ]
}

"#]], str![]);

    // More than 20 of a kind: 20 shown, the rest counted.
    for i in 0..25 {
        std::fs::write(dir.join(format!("lib/extra{i:02}.txt")), "x").unwrap();
    }
    verify(&["--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "ok": false,
  "unverifiable": 0,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "ok": false,
      "status": "tampered",
      "code": "plugins::install::tampered",
      "problems": [
        "the files changed since install (tree sha256:3629b2f36d08d603a4760862cea79d20e14ea5b1a978af5cc89b742ab1288095, locked sha256:47f9d3af73e3fb59e722c8ccf02987fc01d198b3c4f878510f48f39948a29009)"
      ],
      "changed": [
        "lib/a.txt"
      ],
      "added": [
        "lib/extra00.txt",
        "lib/extra01.txt",
        "lib/extra02.txt",
        "lib/extra03.txt",
        "lib/extra04.txt",
        "lib/extra05.txt",
        "lib/extra06.txt",
        "lib/extra07.txt",
        "lib/extra08.txt",
        "lib/extra09.txt",
        "lib/extra10.txt",
        "lib/extra11.txt",
        "lib/extra12.txt",
        "lib/extra13.txt",
        "lib/extra14.txt",
        "lib/extra15.txt",
        "lib/extra16.txt",
        "lib/extra17.txt",
        "lib/extra18.txt",
        "lib/extra19.txt"
      ],
      "removed": [
        "README.md"
      ],
      "files_not_shown": 6
    }
  ]
}

"#]], str![]);
    verify(&[]).expect(1, str![[r#"
    tampered dev.example.pinned: the files changed since install (tree sha256:3629b2f36d08d603a4760862cea79d20e14ea5b1a978af5cc89b742ab1288095, locked sha256:47f9d3af73e3fb59e722c8ccf02987fc01d198b3c4f878510f48f39948a29009)
     changed lib/a.txt
       added lib/extra00.txt
       added lib/extra01.txt
       added lib/extra02.txt
       added lib/extra03.txt
       added lib/extra04.txt
       added lib/extra05.txt
       added lib/extra06.txt
       added lib/extra07.txt
       added lib/extra08.txt
       added lib/extra09.txt
       added lib/extra10.txt
       added lib/extra11.txt
       added lib/extra12.txt
       added lib/extra13.txt
       added lib/extra14.txt
       added lib/extra15.txt
       added lib/extra16.txt
       added lib/extra17.txt
       added lib/extra18.txt
       added lib/extra19.txt
     removed README.md
             and 6 more
1 verified, 1 changed

"#]], str![]);

    // A repairing reinstall records the files again; remove deletes the record.
    assert_eq!(install(&home, &[src.to_str().unwrap(), "--force"]).0, 0);
    verify(&[]).expect(
        0,
        str![[r#"
          ok dev.example.pinned
1 verified, 0 changed

"#]],
        str![],
    );
    Plugins::new()
        .args(["remove", "dev.example.pinned", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
     Removed dev.example.pinned from [TMP]/home

"#]],
            str![],
        );
    assert!(!record.exists());
}

/// `plugins install` of an invalid tree, with the output's temp directories replaced.
fn install_invalid(home: &Path, source: &str, gh_base: &str, tmp: &Path) -> Ran {
    let ran = Plugins::new()
        .args(["install", source, "--yes", "--home"])
        .arg(home)
        .env("PLUGINS_GH_BASE", gh_base)
        .tmp(tmp)
        .run();
    assert!(!ran.stdout.contains("staging"), "{}", ran.stdout);
    ran
}

#[test]
fn install_time_diagnostics_point_at_the_source_not_the_staging_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    // A git source whose tree is invalid (no `name`).
    let repo = Repo::init(&t.join("work"));
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.bad\"\nversion = \"1.0.0\"\napi_version = 15\n\n[[commands]]\nid = \"hello\"\n",
    );
    repo.commit("bad");
    repo.tag("v1.0.0");
    repo.clone_bare(&t.join("mirror/acme/bad.git"));
    let base = format!("file://{}", t.join("mirror").display());
    install_invalid(&t.join("home"), "gh:acme/bad@v1.0.0", &base, &t).expect(
        1,
        str![[r#"
plugins::aoe::missing_key

  × missing field `name`
   ╭─[gh:acme/bad@v1.0.0:aoe-plugin.toml:1:1]
 1 │ id = "dev.example.bad"
   · ▲
   · ╰── `name` is required in the top level
 2 │ version = "1.0.0"
   ╰────
  note: further checks skipped until this is fixed: the semantic pass, install refusals and the
        remaining lints
  Invalid aoe plugin `dev.example.bad` 1.0.0 at gh:acme/bad@v1.0.0 (1 error)

"#]],
        str![[r#"
    Fetching file://[TMP]/mirror/acme/bad.git
     Fetched baf303c3bbb5
plugins::install::invalid

  × refusing to install: dev.example.bad is invalid for its host
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
    );

    // A local source refused at install time (aoe's reserved namespace): its own path.
    let local = t.join("local");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(
        local.join("aoe-plugin.toml"),
        "id = \"agent-of-empires.mine\"\nname = \"Mine\"\nversion = \"1.0.0\"\napi_version = 15\n\n[[commands]]\nid = \"hello\"\n",
    )
    .unwrap();
    install_invalid(&t.join("home"), &local.display().to_string(), &base, &t).expect(
        1,
        str![[r#"
plugins::aoe::reserved_namespace

  ⚠ plugin id "agent-of-empires.mine" uses a reserved namespace (aoe.* / agent-of-empires.*); only
  │ a featured-verified plugin may claim one
   ╭─[[TMP]/local/aoe-plugin.toml:1:6]
 1 │ id = "agent-of-empires.mine"
   ·      ───────────────────────
 2 │ name = "Mine"
   ╰────
  help: only a plugin of aoe's featured index, at a tree hash the index pins, may claim it; choose
        your own namespace, e.g. "dev.example.name"
    Valid aoe plugin `agent-of-empires.mine` 1.0.0 at [TMP]/local (1 warning)

"#]],
        str![[r#"
    Fetching [TMP]/local
      Copied 1 file, 105 bytes
plugins::install::invalid

  × refusing to install: agent-of-empires.mine would be refused by its host's installer (the
  │ warning above)
  help: the diagnostics above say why; `plugins validate` on a checkout shows the same

"#]],
    );
}

/// On a terminal the fetch spinner counts the bytes received and the rate while libgit2
/// downloads (here 2 MiB of incompressible bytes from a git daemon); off a terminal the
/// `Fetching`/`Fetched` lines stay as they were.
#[test]
fn a_fetch_on_a_terminal_shows_the_bytes_received() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    // xorshift bytes: zlib cannot shrink them, so the transfer is about their size.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let blob: Vec<u8> = (0..2 * 1024 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    std::fs::write(repo.dir.join("blob.bin"), blob).unwrap();
    repo.commit("big");
    let served = tmp.path().join("served");
    repo.clone_bare(&served.join("big.git"));
    let daemon = Daemon::serve(&served);
    // Through a relay that trickles the answer, so the transfer outlasts a few spinner
    // ticks however fast the machine is.
    let trickle = Trickle::to(daemon.port);
    let url = format!("git://127.0.0.1:{}/big.git", trickle.port);
    let home = tmp.path().join("home");
    let out = Plugins::new()
        .args(["install", &url, "--yes"])
        .home(&home)
        .env("COLUMNS", "120")
        .in_pty()
        .output();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen:?}");
    // One redraw of the spinner's line: `⠁ Fetching URL 1.23 MiB received, 4.56 MiB/s`.
    let counted = screen.split(['\r', '\n']).any(|frame| {
        let Some(rest) = frame.split(&format!("Fetching {url} ")).nth(1) else {
            return false;
        };
        let mut words = rest.split_whitespace();
        let figure = words.next().unwrap_or("");
        figure.parse::<f64>().is_ok()
            && words.next().is_some_and(|unit| unit.ends_with('B'))
            && words.next() == Some("received,")
            && words.next().is_some()
            && words.next().is_some_and(|unit| unit.ends_with("B/s"))
    });
    assert!(counted, "no byte count on the fetch line: {screen:?}");
    assert!(
        home.join("plugins/dev.example.pinned").is_dir(),
        "{screen:?}"
    );

    // Off a terminal: the lines, no counts.
    installing(&tmp.path().join("home2"), &[&url])
        .redact("[URL]", &url)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ b74196c262 in [TMP]/home2/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched b74196c26241

"#]]);
}
