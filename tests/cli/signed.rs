//! Signed releases (issue #27): under `require_signed`, a tag or commit installs only with a
//! signature git's own verification accepts (`git verify-tag`/`verify-commit` against an
//! allowed signers file); the lock pins the signer's key on first install, and an update
//! signed by another key asks consent again. Keys come from `ssh-keygen`, signatures from
//! `git tag -s`/`git commit -S` with `gpg.format=ssh` (no gpg); the repository is served by
//! `git daemon` on loopback, and `plugins` runs with HOME and git's global config in the
//! test's temp dir. gpg signatures come from keys made in a throwaway keyring (`GNUPGHOME`
//! in the temp dir, `%no-protection` batch generation).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;
use snapbox::str;

use crate::support::git::{Repo, git, git_env};
use crate::support::net::Daemon;
use crate::support::*;

const ID: &str = "dev.example.pinned";

/// An ssh key made for the test: its private key file, its allowed-signers line and its
/// fingerprint as git reports it (`SHA256:…`).
struct Key {
    private: PathBuf,
    line: String,
    fingerprint: String,
}

fn key(dir: &Path, name: &str, principal: &str) -> Key {
    let private = dir.join(name);
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", principal, "-f"])
        .arg(&private)
        .output()
        .expect("ssh-keygen runs");
    assert!(out.status.success(), "{out:?}");
    let public = std::fs::read_to_string(private.with_extension("pub")).unwrap();
    let listed = Command::new("ssh-keygen")
        .arg("-lf")
        .arg(private.with_extension("pub"))
        .output()
        .unwrap();
    let fingerprint = String::from_utf8(listed.stdout)
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_owned();
    Key {
        private,
        line: format!("{principal} {}", public.trim()),
        fingerprint,
    }
}

/// git in `dir` signing with `key` (ssh signatures).
fn signing(dir: &Path, key: &Key, args: &[&str]) -> String {
    let signing_key = format!("user.signingKey={}", key.private.display());
    let mut all = vec!["-c", "gpg.format=ssh", "-c", &signing_key];
    all.extend_from_slice(args);
    git(dir, &all)
}

/// A repository served by `git daemon` as `kit`, the publisher's and another key, and the
/// temp dir `plugins` takes as HOME.
struct World {
    _daemon: Daemon,
    tmp: tempfile::TempDir,
    repo: Repo,
    url: String,
    publisher: Key,
    other: Key,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let keys = tmp.path().join("keys");
        std::fs::create_dir_all(&keys).unwrap();
        let publisher = key(&keys, "publisher", "publisher@example.com");
        let other = key(&keys, "other", "other@example.com");
        let served = tmp.path().join("served");
        let repo = Repo::init(&served.join("kit"));
        // As GitHub does: `sync` fetches a locked commit by id (and its tag along with it).
        git(
            &repo.dir,
            &["config", "uploadpack.allowReachableSHA1InWant", "true"],
        );
        let daemon = Daemon::serve(&served);
        let url = format!("git://127.0.0.1:{}/kit", daemon.port);
        World {
            _daemon: daemon,
            tmp,
            repo,
            url,
            publisher,
            other,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// Commit version `version` of the plugin; the commit is signed by `key`, if any.
    fn commit(&self, version: &str, key: Option<&Key>) -> String {
        self.repo.file("aoe-plugin.toml", &static_aoe(version));
        git(&self.repo.dir, &["add", "-A"]);
        let message = format!("v{version}");
        match key {
            Some(k) => signing(&self.repo.dir, k, &["commit", "-q", "-S", "-m", &message]),
            None => git(&self.repo.dir, &["commit", "-q", "-m", &message]),
        };
        git(&self.repo.dir, &["rev-parse", "HEAD"])
    }

    /// An annotated tag signed by `key`.
    fn signed_tag(&self, name: &str, key: &Key) {
        signing(&self.repo.dir, key, &["tag", "-s", "-m", name, name]);
    }

    /// An allowed signers file listing `keys`.
    fn allowed(&self, name: &str, keys: &[&Key]) -> PathBuf {
        let path = self.path(name);
        let lines: Vec<&str> = keys.iter().map(|k| k.line.as_str()).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    /// `plugins install URL --ref v1.0.0 --yes --require-signed --allowed-signers ALLOWED
    /// --home HOME` in fetch mode `mode`.
    fn install_signed_v1(&self, mode: &str, allowed: &Path, home: &Path) -> Ran {
        self.plugins(mode)
            .args(["install", &self.url, "--ref", "v1.0.0", "--yes"])
            .arg("--require-signed")
            .arg("--allowed-signers")
            .arg(allowed)
            .arg("--home")
            .arg(home)
            .run()
    }

    /// `plugins` isolated in the temp dir (HOME, git's global config), no terminal on
    /// stdin, fetching with libgit2 (`mode` "0") or the git command ("1").
    fn plugins(&self, mode: &str) -> Plugins {
        let mut cmd = Plugins::new();
        cmd.isolated(self.tmp.path())
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400")
            .stdin(Stdio::null())
            // What differs between runs: the fingerprints, the URL and the temp dir.
            .redact("[PUBLISHER]", &self.publisher.fingerprint)
            .redact("[OTHER]", &self.other.fingerprint)
            .redact("[URL]", &self.url)
            .tmp(self.tmp.path());
        cmd
    }
}

/// Both fetch modes: libgit2, and the git command (as ssh sources use).
const MODES: [&str; 2] = ["0", "1"];

#[test]
fn a_signed_tag_installs_and_the_lock_pins_its_key() {
    let w = World::new();
    w.commit("1.0.0", None);
    w.signed_tag("v1.0.0", &w.publisher);
    let allowed = w.allowed("allowed_signers", &[&w.publisher]);
    for mode in MODES {
        let home = w.path(&format!("home-{mode}"));
        w.install_signed_v1(mode, &allowed, &home)
            .redact("[HOME]", &home)
            .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 3b8393457e in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
    Verified tag v1.0.0: signed by [PUBLISHER] (publisher@example.com)

"#]]);
        assert_eq!(locked(&home, ID, "signer_key"), w.publisher.fingerprint);
    }

    // A signed commit on a branch, required by the home's `[trust]` (no flags), with the
    // allowed signers file named relative to the home.
    let c2 = w.commit("1.1.0", Some(&w.publisher));
    let home = w.path("home-branch");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::copy(&allowed, home.join("signers")).unwrap();
    std::fs::write(
        home.join("plugins.toml"),
        "[trust]\nrequire_signed = true\nallowed_signers = \"signers\"\n",
    )
    .unwrap();
    // `[SIGNED]` the signed commit (its signature differs from run to run, and so its id).
    w.plugins("0")
        .args(["install", &w.url, "--ref", "main", "--yes", "--home"])
        .arg(&home)
        .redact("[SIGNED]", &c2)
        .redact("[SIGNED]", &c2[..12])
        .redact("[SIGNED]", &c2[..10])
        .run()
        .expect(0, str![[r#"
   Installed dev.example.pinned 1.1.0 @ [SIGNED] in [TMP]/home-branch/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [SIGNED]
    Verified commit [SIGNED]: signed by [PUBLISHER] (publisher@example.com)

"#]]);
    assert_eq!(locked(&home, ID, "signer_key"), w.publisher.fingerprint);
    assert_eq!(locked(&home, ID, "resolved_commit"), c2);
}

#[test]
fn unsigned_and_unknown_signatures_are_refused() {
    let w = World::new();
    w.commit("1.0.0", None);
    w.repo.annotated_tag("v1.1.0");
    w.repo.tag("v1.2.0");
    w.signed_tag("v1.3.0", &w.other);
    w.signed_tag("v1.0.0", &w.publisher);
    // A hostile mirror serving the signed v1.0.0 as v9.0.0 (an old release as a new one).
    let tag_object = git(&w.repo.dir, &["rev-parse", "v1.0.0"]);
    git(
        &w.repo.dir,
        &["update-ref", "refs/tags/v9.0.0", tag_object.as_str()],
    );
    w.allowed("allowed_signers", &[&w.publisher]);
    let home = w.path("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("plugins.toml"),
        format!(
            "[trust]\nallowed_signers = \"{}\"\n\n[trust.\"{ID}\"]\nrequire_signed = true\n",
            w.path("allowed_signers").display()
        ),
    )
    .unwrap();
    // Refused (exit 2): nothing is installed or locked.
    let install = |tag: &str, mode: &str, refused: snapbox::data::Inline| {
        w.plugins(mode)
            .args(["install", &w.url, "--ref", tag, "--yes", "--home"])
            .arg(&home)
            .run()
            .expect(2, str![""], refused);
        assert!(
            !home.join("plugins").join(ID).exists() && !home.join("plugins.lock").exists(),
            "{tag}: nothing is installed or locked"
        );
    };
    for mode in MODES {
        install(
            "v1.1.0",
            mode,
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [..]
plugins::git::unsigned

  × tag v1.1.0 of [URL] is not signed, and neither is its commit [..]
  help: require_signed accepts only a tag or commit signed with a key you allow; ask the publisher to sign their releases (`git tag -s`), or set `require_signed = false` in [trust."<id>"] of the
        home's plugins.toml for this plugin

"#]],
        );
        // A lightweight tag: the commit's signature, and there is none.
        install(
            "v1.2.0",
            mode,
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
plugins::git::unsigned

  × commit 3b8393457e of [URL] is not signed
  help: require_signed accepts only a tag or commit signed with a key you allow; ask the publisher to sign their releases (`git tag -s`), or set `require_signed = false` in [trust."<id>"] of the
        home's plugins.toml for this plugin

"#]],
        );
        install(
            "v1.3.0",
            mode,
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [..]
plugins::git::bad_signature

  × the signature of tag v1.3.0 of [URL] does not verify: signed with the key [OTHER], which the allowed signers file does not list as
  │ valid for this signature (not listed, or outside its valid-after/valid-before)
  help: check the key with the publisher, then add it to the allowed signers file (`allowed_signers` in [trust] of the home's plugins.toml, or --allowed-signers PATH; a line `<principal> <key type>
        <key>` as ssh-keygen reads it); nothing was installed

"#]],
        );
        install(
            "v9.0.0",
            mode,
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
plugins::git::bad_signature

  × the signature of tag v9.0.0 of [URL] does not verify: the signed tag object is named v1.0.0, not v9.0.0: a signed tag served under another name (an older release passed off
  │ as this one) is refused
  help: the key is not the problem: the server serves a tag signed under one name as another; install the release by the name it was signed with, and ask the publisher (or the mirror's operator) why
        it serves it renamed (`--ref v1.0.0`, if that is the release you want); nothing was installed

"#]],
        );
    }

    // `[trust]` decides what is installed: a mistake in it refuses, never passes.
    std::fs::write(home.join("plugins.toml"), "[trust]\nrequire_signd = true\n").unwrap();
    install(
        "v1.0.0",
        "0",
        str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
plugins::config::trust

  × unknown key `require_signd` in [trust] of [TMP]/home/plugins.toml (did you mean `require_signed`?); it knows `require_signed` and `allowed_signers`, and a table per plugin id
  help: fix [trust] in the home's plugins.toml: `require_signed = true|false` and `allowed_signers = "PATH"`, for the home or under [trust."<id>"]

"#]],
    );
    // A plain directory carries no signature at all.
    w.plugins("0")
        .args(["install", "--require-signed", "--yes", "--home"])
        .arg(w.path("home-dir"))
        .arg(&w.repo.dir)
        .run()
        .expect(2, str![], str![[r#"
    Fetching [TMP]/served/kit
      Copied 1 file, 103 bytes
plugins::git::unsigned

  × dev.example.pinned must be signed, and a directory ([TMP]/served/kit) carries no signature
  help: install it from a git repository whose tags or commits are signed (a local repository as a file:// URL)

"#]]);
    assert!(!w.path("home-dir").join("plugins").join(ID).exists());
    // Without `require_signed` nothing is verified, and no key is pinned.
    std::fs::remove_file(home.join("plugins.toml")).unwrap();
    w.plugins("0")
        .args(["install", &w.url, "--ref", "v1.1.0", "--yes", "--home"])
        .arg(&home)
        .run()
        .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 3b8393457e in [TMP]/home/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4

"#]]);
    assert_eq!(locked(&home, ID, "signer_key"), "");
}

#[test]
fn an_update_signed_by_another_key_asks_consent_again() {
    let w = World::new();
    w.commit("1.0.0", None);
    w.signed_tag("v1.0.0", &w.publisher);
    w.allowed("allowed_signers", &[&w.publisher, &w.other]);
    let home = w.path("home");
    std::fs::create_dir_all(&home).unwrap();
    let trust = format!(
        "[trust]\nrequire_signed = true\nallowed_signers = \"{}\"\n",
        w.path("allowed_signers").display()
    );
    std::fs::write(home.join("plugins.toml"), &trust).unwrap();
    let plugins = |args: &[&str]| w.plugins("0").args(args).arg("--home").arg(&home).run();
    plugins(&["install", &w.url, "--ref", "v1.0.0", "--yes"]).expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 3b8393457e in [TMP]/home/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
    Verified tag v1.0.0: signed by [PUBLISHER] (publisher@example.com)

"#]]);
    let c1 = locked(&home, ID, "resolved_commit");
    assert_eq!(locked(&home, ID, "signer_key"), w.publisher.fingerprint);

    // The next release is signed by another key, which the allowed signers file also lists.
    let c2 = w.commit("2.0.0", None);
    w.signed_tag("v2.0.0", &w.other);
    plugins(&["update", ID, "--dry-run"]).expect(
        0,
        str![[r#"
Would update dev.example.pinned to v2.0.0 @ [..]
  1 commit since [..]:
    [..] v2.0.0
  signed by a different key: [PUBLISHER] -> [OTHER]
  consent: would be asked (--yes grants it): signed by a different key: [PUBLISHER] -> [OTHER]

"#]],
        str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)

"#]],
    );
    let ran = plugins(&["update", ID, "--dry-run", "--json"]);
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "dry_run": true,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "would_update",
      "from_commit": "3b8393457ec42bd34a080d68edc55d0bb2883910",
      "new_ref": "v2.0.0",
      "commit": "0adb99d2e124331a96f9e1ded1c7304f5d8ed5ec",
      "home": "[TMP]/home",
      "commits": [
        {
          "id": "0adb99d2e124331a96f9e1ded1c7304f5d8ed5ec",
          "subject": "v2.0.0"
        }
      ],
      "more_commits": 0,
      "commits_complete": true,
      "permissions": {
        "capabilities": {
          "added": [],
          "removed": []
        },
        "build_steps": {
          "added": [],
          "removed": []
        },
        "ui": {
          "added": [],
          "removed": []
        },
        "pip": {
          "added": [],
          "removed": []
        },
        "signer_key": {
          "before": "[PUBLISHER]",
          "after": "[OTHER]"
        }
      },
      "consent_needed": true,
      "consent_reasons": [
        "signed by a different key: [PUBLISHER] -> [OTHER]"
      ]
    }
  ]
}

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)

"#]]);
    // The document matches its schema.
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/change.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");

    // Without a terminal and without --yes: refused, nothing changes.
    plugins(&["update", ID]).expect(
        1,
        str![],
        str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [..]
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)
aoe plugin `dev.example.pinned` 2.0.0 from [URL] @ 0adb99d2e124
  asked again:  signed by a different key: [PUBLISHER] -> [OTHER]
  capabilities: none
  build steps:  none
plugins::git::signer_changed

  × dev.example.pinned is signed by a different key than the one the lock recorded ([PUBLISHER] -> [OTHER]), and the
  │ new key was not accepted; nothing was changed
  help: check the new key with the publisher; to trust it, run the command again on a terminal and accept it, or pass --yes (the lock then records the new key)

"#]],
    );
    assert_eq!(locked(&home, ID, "resolved_commit"), c1);
    assert_eq!(locked(&home, ID, "signer_key"), w.publisher.fingerprint);
    let manifest = home.join("plugins").join(ID).join("aoe-plugin.toml");
    assert!(
        std::fs::read_to_string(&manifest)
            .unwrap()
            .contains("1.0.0")
    );

    // `--yes` accepts the new key: the lock pins it.
    plugins(&["update", ID, "--yes"]).expect(0, str![[r#"
     Updated dev.example.pinned to v2.0.0 @ 0adb99d2e1

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)
aoe plugin `dev.example.pinned` 2.0.0 from [URL] @ 0adb99d2e124
  asked again:  signed by a different key: [PUBLISHER] -> [OTHER]
  capabilities: none
  build steps:  none

"#]]);
    assert_eq!(locked(&home, ID, "resolved_commit"), c2);
    assert_eq!(locked(&home, ID, "signer_key"), w.other.fingerprint);
    plugins(&["info", ID]).expect(
        0,
        str![[r#"
dev.example.pinned 2.0.0 (aoe)
  source:   [URL]
  ref:      v2.0.0 (tag)
  commit:   0adb99d2e124331a96f9e1ded1c7304f5d8ed5ec
  manifest: sha256:af7447e360cca54f56dbad59e8f84474396e5f630a3a8bf04816d9bbdf46d271
  tree:     sha256:68ab178dfa3879825f264942e53139b0a17a16dac4abe8d690d59b6f5a04423e
  signer:   [OTHER]
  path:     [TMP]/home/plugins/dev.example.pinned
  enabled:  yes
  valid:    yes

"#]],
        str![],
    );

    // `sync` from that lock into a fresh home fetches the locked commit and, with it, the
    // tag the row was installed from, whose signature it verifies (the same key: no consent).
    for mode in MODES {
        let fresh = w.path(&format!("fresh-{mode}"));
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
        std::fs::write(fresh.join("plugins.toml"), &trust).unwrap();
        w.plugins(mode)
            .args(["sync", "--home"])
            .arg(&fresh)
            .run()
            .expect(0, str![[r#"
      Synced dev.example.pinned 2.0.0

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)

"#]]);
        assert_eq!(locked(&fresh, ID, "signer_key"), w.other.fingerprint);
    }

    // A lock whose recorded key is not the one that signed its commit (a hostile edit, or
    // a key rotated since): sync asks, and without a terminal or --yes installs nothing.
    let edited = w.path("edited");
    std::fs::create_dir_all(&edited).unwrap();
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    std::fs::write(
        edited.join("plugins.lock"),
        lock.replace(&w.other.fingerprint, &w.publisher.fingerprint),
    )
    .unwrap();
    std::fs::write(edited.join("plugins.toml"), &trust).unwrap();
    w.plugins("0")
        .args(["sync", "--home"])
        .arg(&edited)
        .run()
        .expect(2, str![], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (other@example.com)
aoe plugin `dev.example.pinned` 2.0.0 from [URL] @ 0adb99d2e124
  asked again:  signed by a different key: [PUBLISHER] -> [OTHER]
  capabilities: none
  build steps:  none
plugins::git::signer_changed

  × dev.example.pinned is signed by a different key than the one the lock recorded ([PUBLISHER] -> [OTHER]), and the
  │ new key was not accepted; nothing was changed
  help: check the new key with the publisher; to trust it, run the command again on a terminal and accept it, or pass --yes (the lock then records the new key)

"#]]);
    assert!(!edited.join("plugins").join(ID).exists());

    // autoupdate never applies a change of key: it waits for approval.
    w.commit("3.0.0", None);
    w.signed_tag("v3.0.0", &w.publisher);
    std::fs::write(
        home.join("plugins.toml"),
        format!("{trust}\n[update_policy.\"{ID}\"]\ntrack = \"v3\"\nwhen = \"always\"\n"),
    )
    .unwrap();
    // It needs approval: exit 1.
    plugins(&["autoupdate", "--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "updated": [],
  "changes": [],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [
    "dev.example.pinned"
  ],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]], str![[r#"
[AT] Fetching [URL]
[AT] warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
[AT] Fetched 31eddcfc1d51
[AT] Verified tag v3.0.0: signed by [PUBLISHER] (publisher@example.com)

"#]]);
    assert_eq!(locked(&home, ID, "resolved_commit"), c2);
    assert_eq!(locked(&home, ID, "signer_key"), w.other.fingerprint);
}

/// A throwaway gpg keyring (`GNUPGHOME` in the test's temp dir); the agent gpg starts for
/// it is stopped when it goes.
struct Gpg {
    home: PathBuf,
}

impl Gpg {
    fn new(home: PathBuf) -> Gpg {
        std::fs::create_dir_all(&home).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o700)).unwrap();
        }
        Gpg { home }
    }

    fn gpg(&self, args: &[&str], stdin: Option<&str>) -> String {
        use std::io::Write;
        let mut child = Command::new("gpg")
            .args(["--batch", "--quiet", "--no-tty"])
            .args(args)
            .env("GNUPGHOME", &self.home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("gpg runs");
        let mut input = child.stdin.take().unwrap();
        input
            .write_all(stdin.unwrap_or_default().as_bytes())
            .unwrap();
        drop(input);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "gpg {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// A new signing key without a passphrase; its primary key's fingerprint (what git's
    /// `VALIDSIG` names and the lock records).
    fn key(&self, name: &str, email: &str) -> String {
        let batch = format!(
            "%no-protection\nKey-Type: eddsa\nKey-Curve: ed25519\nKey-Usage: sign\nName-Real: {name}\nName-Email: {email}\nExpire-Date: 0\n%commit\n"
        );
        self.gpg(&["--gen-key"], Some(&batch));
        let listed = self.gpg(&["--with-colons", "--list-keys", email], None);
        listed
            .lines()
            .find_map(|l| l.strip_prefix("fpr:"))
            .and_then(|l| l.split(':').find(|f| f.len() == 40))
            .expect("a fingerprint")
            .to_owned()
    }

    /// An annotated tag in `dir` signed with gpg key `fingerprint` (`-f`: moved if it exists).
    fn tag(&self, dir: &Path, name: &str, fingerprint: &str) {
        let key = format!("user.signingKey={fingerprint}");
        git_env(
            dir,
            &[
                "-c",
                "gpg.format=openpgp",
                "-c",
                &key,
                "tag",
                "-f",
                "-s",
                "-m",
                name,
                name,
            ],
            &[("GNUPGHOME", &self.home)],
        );
    }
}

impl Drop for Gpg {
    fn drop(&mut self) {
        let _ = Command::new("gpgconf")
            .args(["--kill", "all"])
            .env("GNUPGHOME", &self.home)
            .status();
    }
}

#[test]
fn a_gpg_signed_release_installs_and_a_rekeyed_one_asks_again() {
    let w = World::new();
    let gpg = Gpg::new(w.path("gnupg"));
    let publisher = gpg.key("Publisher", "publisher@example.com");
    let other = gpg.key("Other", "other@example.com");
    let c1 = w.commit("1.0.0", None);
    gpg.tag(&w.repo.dir, "v1.0.0", &publisher);
    // `[trust]` of the home; gpg signatures are checked against the user's keyring.
    let trust = "[trust]\nrequire_signed = true\n";
    let plugins = |mode: &str, home: &Path, args: &[&str]| {
        w.plugins(mode)
            .env("GNUPGHOME", &gpg.home)
            .args(args)
            .arg("--home")
            .arg(home)
            .redact("[PUBLISHER]", &publisher)
            .redact("[OTHER]", &other)
            // gpg names a key by its long id, the last 16 digits of its fingerprint.
            .redact("[PUBLISHER]", &publisher[24..])
            .redact("[OTHER]", &other[24..])
            .run()
    };
    for mode in MODES {
        let home = w.path(&format!("home-{mode}"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("plugins.toml"), trust).unwrap();
        plugins(
            mode,
            &home,
            &["install", &w.url, "--ref", "v1.0.0", "--yes"],
        )
        .redact("[HOME]", &home)
        .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 3b8393457e in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
    Verified tag v1.0.0: signed by [PUBLISHER] (Publisher <publisher@example.com>)

"#]]);
        assert_eq!(locked(&home, ID, "signer_key"), publisher);
        assert_eq!(locked(&home, ID, "resolved_commit"), c1);
    }
    let home = w.path("home-0");
    // outdated and doctor verify the locked tag again: it holds.
    plugins("0", &home, &["outdated"]).expect(
        0,
        str![[r#"
dev.example.pinned               v1.0.0 @ 3b8393457e          up to date

"#]],
        str![],
    );

    // The next release is signed by another key of the keyring: consent is asked again.
    let c2 = w.commit("2.0.0", None);
    gpg.tag(&w.repo.dir, "v2.0.0", &other);
    plugins("0", &home, &["update", ID]).expect(1, str![], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (Other <other@example.com>)
aoe plugin `dev.example.pinned` 2.0.0 from [URL] @ 0adb99d2e124
  asked again:  signed by a different key: [PUBLISHER] -> [OTHER]
  capabilities: none
  build steps:  none
plugins::git::signer_changed

  × dev.example.pinned is signed by a different key than the one the lock recorded ([PUBLISHER] -> [OTHER]), and the new key was not
  │ accepted; nothing was changed
  help: check the new key with the publisher; to trust it, run the command again on a terminal and accept it, or pass --yes (the lock then records the new key)

"#]]);
    assert_eq!(locked(&home, ID, "resolved_commit"), c1);
    assert_eq!(locked(&home, ID, "signer_key"), publisher);
    plugins("0", &home, &["update", ID, "--yes"]).expect(0, str![[r#"
     Updated dev.example.pinned to v2.0.0 @ 0adb99d2e1

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 0adb99d2e124
    Verified tag v2.0.0: signed by [OTHER] (Other <other@example.com>)
aoe plugin `dev.example.pinned` 2.0.0 from [URL] @ 0adb99d2e124
  asked again:  signed by a different key: [PUBLISHER] -> [OTHER]
  capabilities: none
  build steps:  none

"#]]);
    assert_eq!(locked(&home, ID, "resolved_commit"), c2);
    assert_eq!(locked(&home, ID, "signer_key"), other);

    // The release is signed again, by the first key: the lock's key no longer signs it.
    gpg.tag(&w.repo.dir, "v2.0.0", &publisher);
    plugins("0", &home, &["outdated"]).expect(
        1,
        str![[r#"
dev.example.pinned               v2.0.0 @ [..]          up to date
  error[plugins::git::signer_changed]: dev.example.pinned: tag v2.0.0 is now signed by [PUBLISHER], not by the key the lock recorded ([OTHER])
    help: the release was signed again with another key, or the lock was edited: check the key with the publisher; `plugins sync --yes` (or an update accepted on a terminal) records the new key

"#]],
        str![],
    );
    for mode in MODES {
        // parts: doctor's other checks depend on the machine (the hosts installed, the home)
        let (code, json, _) = plugins(mode, &home, &["doctor", "--json"]).parts();
        assert_eq!(code, 1, "mode {mode}: {json}");
        let doc: Value = serde_json::from_str(&json).unwrap();
        let found: Vec<&Value> = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["code"] == "plugins::git::signer_changed")
            .collect();
        assert_eq!(found.len(), 1, "mode {mode}: {doc}");
        assert_eq!(found[0]["status"], "fail");
        assert_eq!(found[0]["id"], ID);
    }

    // The signing key leaves the keyring: the signature no longer verifies.
    gpg.gpg(
        &["--yes", "--delete-secret-and-public-key", &publisher],
        None,
    );
    plugins("1", &home, &["outdated", "--json"]).expect(1, str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "[URL]",
      "requested_ref": "v2.0.0",
      "ref_kind": "tag",
      "current": "0adb99d2e124331a96f9e1ded1c7304f5d8ed5ec",
      "status": "up_to_date",
      "problems": [
        {
          "code": "plugins::git::bad_signature",
          "message": "dev.example.pinned: the signature of tag v2.0.0 of [URL] does not verify: signed with the gpg key [PUBLISHER], which is not in your keyring",
          "help": "check the key's fingerprint with the publisher; it must be in your gpg keyring (`gpg --import`), not expired or revoked"
        }
      ]
    }
  ]
}

"#]], str![]);
}

/// A key the allowed signers file retired (`valid-before`) cannot sign a tag that claims an
/// older date: git itself checks the signature as of the tag's own date and accepts it;
/// `plugins` checks it as of when it first saw the tag, and refuses it. The lock records that
/// moment (`signer_seen_at`), and `sync` on another machine checks as of it.
#[test]
fn a_retired_key_cannot_sign_a_backdated_tag() {
    let w = World::new();
    w.commit("1.0.0", None);
    // The publisher's key, retired at the start of 2020; the tag claims 2019.
    let allowed = w.path("allowed_signers");
    std::fs::write(
        &allowed,
        format!(
            "{} valid-before=\"20200101\" {}\n",
            "publisher@example.com",
            w.publisher.line.split_once(' ').unwrap().1
        ),
    )
    .unwrap();
    let signing_key = format!("user.signingKey={}", w.publisher.private.display());
    let out = Command::new("git")
        .current_dir(&w.repo.dir)
        .env("GIT_COMMITTER_DATE", "2019-06-01T00:00:00Z")
        .args(["-c", "gpg.format=ssh", "-c", &signing_key])
        .args(["tag", "-s", "-m", "v1.0.0", "v1.0.0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // git's own check takes the tag's word for its date.
    let allowed_cfg = format!("gpg.ssh.allowedSignersFile={}", allowed.display());
    let ok = Command::new("git")
        .current_dir(&w.repo.dir)
        .args(["-c", &allowed_cfg, "verify-tag", "v1.0.0"])
        .output()
        .unwrap();
    assert!(ok.status.success(), "git accepts it: {ok:?}");
    for mode in MODES {
        let home = w.path(&format!("retired-{mode}"));
        w.install_signed_v1(mode, &allowed, &home)
            .redact("[HOME]", &home)
            .expect(2, str![], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
plugins::git::bad_signature

  × the signature of tag v1.0.0 of [URL] does not verify: signed with the key [PUBLISHER], which the allowed signers file does not list as
  │ valid for this signature (not listed, or outside its valid-after/valid-before)
  help: check the key with the publisher, then add it to the allowed signers file (`allowed_signers` in [trust] of the home's plugins.toml, or --allowed-signers PATH; a line `<principal> <key type>
        <key>` as ssh-keygen reads it); nothing was installed

"#]]);
        assert!(!home.join("plugins.lock").exists(), "mode {mode}");
    }
    // A key valid now: installed, and the lock records when it was seen.
    std::fs::write(&allowed, format!("{}\n", w.publisher.line)).unwrap();
    let home = w.path("valid");
    w.install_signed_v1("0", &allowed, &home)
        .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 3b8393457e in [TMP]/valid/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 3b8393457ec4
    Verified tag v1.0.0: signed by [PUBLISHER] (publisher@example.com)

"#]]);
    let seen = locked(&home, ID, "signer_seen_at");
    assert!(seen.starts_with("20"), "{seen}");
}
