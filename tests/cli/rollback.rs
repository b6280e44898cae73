//! `plugins rollback`: updates keep the last two replaced versions; a rollback
//! restores one (files and lock entry) as a transaction.

use std::path::Path;

use snapbox::str;

use crate::support::git::Repo;
use crate::support::*;

const ID: &str = "dev.example.pinned";

fn rollback(home: &Path, extra: &[&str]) -> Ran {
    Plugins::new()
        .args(["rollback", ID])
        .args(extra)
        .home(home)
        .env("COLUMNS", "400")
        .redact("[HOME]", home)
        .run()
}

fn update(home: &Path) {
    Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(home)
        .run()
        .success();
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
    rollback(&home, &[]).expect(
        2,
        str![],
        str![[r#"
plugins::rollback::no_history

  × no previous version of dev.example.pinned is kept in [HOME]
  help: updates keep the previous version; a plugin that was only installed has none

"#]],
    );

    for v in 2..=4 {
        repo.file("aoe-plugin.toml", &static_aoe(&format!("{v}.0.0")));
        commits.push(repo.commit(&format!("v{v}")));
        update(&home);
    }
    // v2 and v3 are kept; v1 was dropped; nothing is kept inside plugins/.
    assert_eq!(kept(&home), ["2", "3"]);
    assert!(!home.join("plugins/.plugins").exists());

    rollback(&home, &[])
        .redact("[FROM]", &commits[3][..7])
        .redact("[TO]", &commits[2][..7])
        .success()
        .stdout_eq(str![[r#"
 Rolled back dev.example.pinned 4.0.0 ([FROM]) -> 3.0.0 ([TO]) in [HOME]
        Held dev.example.pinned at 3.0.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.pinned` or `plugins unhold dev.example.pinned`

"#]]
    );
    assert_eq!(locked(&home, ID, "version"), "3.0.0");
    assert_eq!(locked(&home, ID, "resolved_commit"), commits[2]);
    // The restored slot is gone; the version rolled back from is kept.
    assert_eq!(kept(&home), ["2", "4"]);
    // The restored files match the restored entry.
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

    // --to picks a kept commit by prefix; the installed one is up to date.
    rollback(&home, &["--to", &commits[1][..10], "--json"])
        .redact("[FROM]", &commits[2])
        .redact("[TO]", &commits[1])
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "rolled_back",
      "home": "[HOME]",
      "dir": "[HOME]/plugins/dev.example.pinned",
      "version": "2.0.0",
      "commit": "[TO]",
      "from_commit": "[FROM]",
      "hold": {
        "since": "[AT]",
        "by": "rollback",
        "reason": "rolled back from 3.0.0 (5761a5f)"
      }
    }
  ]
}

"#]],
            str![],
        );
    assert_eq!(locked(&home, ID, "version"), "2.0.0");
    rollback(&home, &["--to", &commits[1], "--json"])
        .redact("[TO]", &commits[1])
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "up_to_date",
      "home": "[HOME]",
      "dir": "[HOME]/plugins/dev.example.pinned",
      "version": "2.0.0",
      "commit": "[TO]",
      "from_commit": "[TO]",
      "hold": null
    }
  ]
}

"#]],
            str![],
        );

    // v1 was dropped long ago.
    rollback(&home, &["--to", &commits[0][..8]]).expect(2, str![], str![[r#"
plugins::rollback::not_kept

  × no kept version of dev.example.pinned is at commit 98dbc36b (kept: 5761a5fef946fe40ce19de2275f882b3b7c1403c, 1f61bc6e384230236837dfe84a72ee588469ccd9)
  help: the last two versions an update replaced are kept; `plugins info` shows the installed commit

"#]]);

    // A removal takes the plugin's history with it.
    Plugins::new()
        .args(["remove", ID, "--home"])
        .arg(&home)
        .redact("[HOME]", &home)
        .run()
        .expect(
            0,
            str![[r#"
     Removed dev.example.pinned from [HOME]

"#]],
            str![],
        );
    assert!(kept(&home).is_empty());
    rollback(&home, &[]).expect(
        2,
        str![],
        str![[r#"
plugins::install::not_installed

  × plugin 'dev.example.pinned' is not installed
  help: `plugins list` shows what is installed; pass --home for another home

"#]],
    );
}

/// Rollback re-checks a kept slot before restoring it: a modified file, a `tree` that is
/// a symlink out of the home, symlinks aoe refuses, an entry naming another plugin, and a
/// damaged newest slot are each refused by name, and the home is left as it was.
#[test]
fn a_tampered_history_slot_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let template = tmp.path().join("template");
    let (code, o, e) = install(&template, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    update(&template);
    assert_eq!(kept(&template), ["1"]);
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    type Tamper = fn(&Path, &Path);
    let cases: [(&str, Tamper, snapbox::data::Inline); 7] = [
        (
            "modified",
            |slot, _| std::fs::write(slot.join("tree/aoe-plugin.toml"), "# changed\n").unwrap(),
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: its files changed since it was kept
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        (
            "tree-symlink",
            |slot, outside| {
                std::fs::remove_dir_all(slot.join("tree")).unwrap();
                std::os::unix::fs::symlink(outside, slot.join("tree")).unwrap();
            },
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: its tree is not a plain directory
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        (
            "symlink-inside",
            |slot, _| std::os::unix::fs::symlink("/etc/passwd", slot.join("tree/passwd")).unwrap(),
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: it holds symlinks, which the host refuses in a plugin tree
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        (
            "other-id",
            |slot, _| {
                let p = slot.join("entry.json");
                let text = std::fs::read_to_string(&p).unwrap();
                std::fs::write(&p, text.replace(ID, "dev.example.other")).unwrap();
            },
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: its entry names another plugin ("dev.example.other")
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        (
            "no-hash",
            |slot, _| {
                let p = slot.join("entry.json");
                let mut entry: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                entry.as_object_mut().unwrap().remove("installed_hash");
                std::fs::write(&p, entry.to_string()).unwrap();
            },
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: it records no hash of its files, so it cannot be checked
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        (
            "unreadable-entry",
            |slot, _| std::fs::write(slot.join("entry.json"), "{").unwrap(),
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: its entry.json does not read
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
        // Issue #40: before, the lock took it (and the next `sync --force` refused it).
        (
            "ext-source",
            |slot, _| {
                let p = slot.join("entry.json");
                let mut entry: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                entry["source"] = "ext::sh -c touch% /tmp/pwned".into();
                std::fs::write(&p, entry.to_string()).unwrap();
            },
            str![[r#"
plugins::rollback::damaged

  × history slot 1 of dev.example.pinned is damaged: its entry names a source install refuses: refusing source "ext::sh -c touch% /tmp/pwned": git's `ext::` remote-helper transports can run
  │ commands; use an https://, ssh:// or file:// URL
  help: delete [HOME]/.plugins/history/dev.example.pinned/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]],
        ),
    ];
    for (name, tamper, expected) in cases {
        let home = tmp.path().join(name);
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(&template)
            .arg(&home)
            .status()
            .unwrap();
        assert!(status.success());
        tamper(&home.join(".plugins/history").join(ID).join("1"), &outside);
        let before = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
        rollback(&home, &[]).expect(2, str![""], expected);
        assert_eq!(
            std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
            before,
            "{name}: the lock changed"
        );
        assert_eq!(locked(&home, ID, "version"), "2.0.0", "{name}");
    }
}

/// AWorld allows symlinks in a plugin tree, but none that leads out of it: a kept slot given
/// one is refused by name (before its hash is compared), as install refuses such a tree.
#[test]
fn a_kept_slot_with_a_symlink_out_of_it_is_refused_where_symlinks_are_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    let manifest = |v: &str| format!(r#"{{"id": "helper", "version": "{v}"}}"#);
    repo.file(".aworld-plugin/plugin.json", &manifest("1.0.0"));
    repo.commit("v1");
    let home = tmp.path().join("home");
    let (code, o, e) = install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    repo.file(".aworld-plugin/plugin.json", &manifest("2.0.0"));
    repo.commit("v2");
    update(&home);
    let slot = home.join(".plugins/history/helper/1");
    assert!(slot.join("tree").is_dir(), "a slot was kept");
    std::os::unix::fs::symlink("../../../../..", slot.join("tree/out")).unwrap();
    let before = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    Plugins::new()
        .args(["rollback", "helper", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .redact("[HOME]", &home)
        .run()
        .expect(2, str![], str![[r#"
plugins::rollback::damaged

  × history slot 1 of helper is damaged: it holds symlinks that point outside it: out
  help: delete [HOME]/.plugins/history/helper/1 to roll back to an older kept version, or reinstall with `plugins install --force`

"#]]);
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        before
    );
}

/// Update, then roll back `id` in `home`: the rollback succeeds, saying `rolled_back`
/// (`[HOME]`, `[OLD]` and `[NEW]` the home and the two commits), `verify` passes, and the
/// restored venv's interpreter still runs.
fn updates_and_rolls_back(
    repo: &Repo,
    home: &Path,
    id: &str,
    bump: &dyn Fn(&str),
    rolled_back: snapbox::data::Inline,
) {
    let (code, o, e) = install(home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{o}{e}");
    let v1 = locked(home, id, "resolved_commit");
    let python = home
        .join("plugins")
        .join(id)
        .join(".aoe-build/venv/bin/python");
    assert!(
        std::fs::read_link(&python).is_ok(),
        "the build made a venv whose interpreter is a symlink"
    );
    bump("0.2.0");
    repo.commit("v2");
    update(home);
    assert_eq!(locked(home, id, "version"), "0.2.0");
    let v2 = locked(home, id, "resolved_commit");
    Plugins::new()
        .args(["rollback", id])
        .home(home)
        .env("COLUMNS", "400")
        .redact("[HOME]", home)
        .redact("[OLD]", &v1[..7])
        .redact("[NEW]", &v2[..7])
        .run()
        .expect(0, rolled_back, str![]);
    assert_ne!(locked(home, id, "version"), "0.2.0");
    crate::support::home::verify_ok(home).unwrap();
    let ran = std::process::Command::new(&python)
        .args(["-c", "print(1)"])
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
}

/// Issue #40: a plugin whose build makes a Python venv under `.aoe-build` (whose
/// `bin/python` links to the interpreter, outside the tree) rolls back, as it installs and
/// updates: the build's outputs are held to install's rules, not the source's. Before, the
/// kept slot was refused ("it holds symlinks that point outside it:
/// .aoe-build/venv/bin/python, …"). A plugin-github-shaped fixture (its manifest's worker
/// and build steps) and the tree `plugins new --dialect aoe --runtime python` writes.
#[test]
fn a_plugin_whose_build_makes_a_venv_rolls_back() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // plugin-github's shape: a venv in `.aoe-build/venv`, then the worker installed in it
    // (written by the venv's own interpreter here, so that no index is needed).
    let github = Repo::init(&t.join("github"));
    let manifest = |version: &str| {
        format!(
            "id = \"dev.example.github\"\nname = \"GitHub\"\nversion = \"{version}\"\napi_version = 6\n\
             capabilities = [\"runtime.worker\"]\n\n[[commands]]\nid = \"open_pr\"\n\n\
             [runtime]\nkind = \"command\"\ncommand = [\".aoe-build/venv/bin/aoe-github-worker\"]\n\n\
             [[runtime.build]]\ncommand = [\"python3\", \"-m\", \"venv\", \"--without-pip\", \".aoe-build/venv\"]\nplatforms = [\"linux\", \"macos\"]\n\n\
             [[runtime.build]]\ncommand = [\".aoe-build/venv/bin/python\", \"install_worker.py\"]\nplatforms = [\"linux\", \"macos\"]\n"
        )
    };
    github.file("aoe-plugin.toml", &manifest("0.1.0")).file(
        "install_worker.py",
        "import os, sys\np = os.path.join(sys.prefix, 'bin', 'aoe-github-worker')\n\
         open(p, 'w').write('#!' + sys.executable + '\\nprint(\"worker\")\\n')\nos.chmod(p, 0o755)\n",
    );
    github.commit("v1");
    updates_and_rolls_back(
        &github,
        &t.join("home-github"),
        "dev.example.github",
        &|v| {
            github.file("aoe-plugin.toml", &manifest(v));
        },
        str![[r#"
 Rolled back dev.example.github 0.2.0 ([NEW]) -> 0.1.0 ([OLD]) in [HOME]
        Held dev.example.github at 0.1.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.github` or `plugins unhold dev.example.github`

"#]],
    );

    // The python template, as `plugins new` writes it (its build pip-installs the package).
    let dir = t.join("template");
    Plugins::new()
        .args([
            "new",
            "Demo Board",
            "--yes",
            "--dialect",
            "aoe",
            "--runtime",
            "python",
            "--dir",
        ])
        .arg(&dir)
        .run()
        .success();
    crate::support::git::git(&dir, &["checkout", "-q", "-B", "main"]);
    let template = Repo { dir };
    template.commit("v1");
    let manifest = template.dir.join("aoe-plugin.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("version = \"0.1.0\""), "{text}");
    updates_and_rolls_back(
        &template,
        &t.join("home-template"),
        "dev.example.demo-board",
        &|v| {
            std::fs::write(
                &manifest,
                text.replace("version = \"0.1.0\"", &format!("version = \"{v}\"")),
            )
            .unwrap();
        },
        str![[r#"
 Rolled back dev.example.demo-board 0.2.0 ([NEW]) -> 0.1.0 ([OLD]) in [HOME]
        Held dev.example.demo-board at 0.1.0: `update --all` and `autoupdate` skip it until `plugins update dev.example.demo-board` or `plugins unhold dev.example.demo-board`

"#]],
    );
}
