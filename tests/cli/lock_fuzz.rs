//! Locks written by the hosts (or damaged) are read without panics: a deterministic
//! loop of mutated lock texts through every reader, and `plugins list`/`info` on some.

use plugins::dialect::Dialect;
use plugins::lock::Lock;
use snapbox::str;

use crate::support::*;

const PROTO_LOCK: &str = r#"{
  "plugins": [
    {"id": "artifact", "source_url": "https://github.com/protoLabsAI/artifact-plugin", "requested_ref": "v0.2.1", "resolved_sha": "e49f185f8366bb371114ef3eb35f1cec3842f321", "installed_at": "2026-06-12T22:33:42.127934+00:00", "by": "console"},
    {"id": "local", "source_url": "/src/local", "requested_ref": "", "resolved_sha": "", "installed_at": "x", "by": "cli"},
    {"id": "doom", "source_url": "https://github.com/x/doom", "requested_ref": "", "resolved_sha": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9", "deps": [{"name": "a", "version": "1", "sha256": "0000000000000000000000000000000000000000000000000000000000000000"}]}
  ],
  "bundles": [],
  "legacy": {"deps": []}
}
"#;

const AOE_LOCK: &str = r#"lock_version = 2

[plugins."agent-of-empires.github"]
source = "gh:agent-of-empires/plugin-github"
resolved_commit = "352a981352a981352a981352a981352a981352a9"
version = "1.6.1"
manifest_hash = "sha256:00"
tree_hash = "sha256:11"
trust = "featured"

[plugins."dev.local"]
source = "/src/local"
version = "0.1.0"
manifest_hash = "sha256:22"
tree_hash = "sha256:33"
trust = "community"
"#;

const SNIPPETS: &[&str] = &[
    "\"\"",
    "null",
    "[]",
    "{}",
    "0",
    "\"resolved_sha\": \"\"",
    "\"id\": 3",
    "\"\u{e9}\"",
    ",",
    "\"",
    "]",
    "}",
    "=",
    "\n[plugins.x]\n",
    "resolved_commit = \"\"\n",
    "lock_version = 9\n",
    "\"requested_ref\": \"0123456789012345678901234567890123456789\"",
    "\"../..\"",
];

/// A small deterministic generator (xorshift), so a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut s: Vec<char> = text.chars().collect();
    for _ in 0..=rng.below(3) {
        let at = rng.below(s.len() + 1);
        match rng.below(4) {
            0 if !s.is_empty() => {
                let end = (at + rng.below(20)).min(s.len());
                s.drain(at.min(end)..end);
            }
            1 => {
                let snippet = SNIPPETS[rng.below(SNIPPETS.len())];
                s.splice(at..at, snippet.chars());
            }
            2 if at < s.len() => s[at] = char::from(b' ' + (rng.below(95) as u8)),
            _ => {
                let (a, b) = (rng.below(s.len()), rng.below(s.len()));
                let (a, b) = (a.min(b), a.max(b).min(a.min(b) + 40));
                let dup: Vec<char> = s[a..b].to_vec();
                s.splice(at.min(s.len())..at.min(s.len()), dup);
            }
        }
    }
    s.into_iter().collect()
}

#[test]
fn mutated_locks_never_panic_the_readers() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("plugins.lock");
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..3000 {
        let (base, dialect) = match i % 3 {
            0 => (PROTO_LOCK, Dialect::Protoagent),
            1 => (AOE_LOCK, Dialect::Aoe),
            _ => (AOE_LOCK, Dialect::Aworld),
        };
        let text = mutate(base, &mut rng);
        std::fs::write(&path, &text).unwrap();
        let _ = plugins::dialect::from_lockfile(&path);
        let Ok(mut lock) = Lock::load(&path, dialect) else {
            continue;
        };
        for e in lock.entries() {
            if let Some(c) = &e.commit {
                assert_eq!(c.len(), 40, "case {i}: {text}");
            }
            let _ = plugins::update::decide(&e, &[], false);
            lock.upsert(&e, "cli", "now");
        }
        let _ = lock.render();
    }
}

#[test]
fn list_and_info_survive_mutated_host_locks() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut rng = Rng(42);
    for i in 0..60 {
        let base = if i % 2 == 0 { PROTO_LOCK } else { AOE_LOCK };
        let text = mutate(base, &mut rng);
        std::fs::write(home.join("plugins.lock"), &text).unwrap();
        for args in [&["list"][..], &["list", "--json"], &["info", "local"]] {
            let (code, stdout, stderr) = Plugins::new()
                .args(args)
                .arg("--home")
                .arg(&home)
                .run()
                // parts: a randomly mutated lock: the property is that nothing panics.
                .parts();
            assert!(
                !stderr.contains("panicked") && code != 101,
                "case {i} {args:?}: {text}\n{stdout}{stderr}"
            );
        }
    }
}

#[test]
fn a_host_written_lock_is_adopted() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("plugins.lock"), PROTO_LOCK).unwrap();
    let ran = Plugins::new()
        .args(["list", "--json", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run();
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "artifact",
      "dialect": "protoagent",
      "version": "",
      "source": "https://github.com/protoLabsAI/artifact-plugin",
      "requested_ref": "v0.2.1",
      "ref_kind": null,
      "commit": "e49f185f8366bb371114ef3eb35f1cec3842f321",
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    },
    {
      "id": "doom",
      "dialect": "protoagent",
      "version": "",
      "source": "https://github.com/x/doom",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": [
        {
          "name": "a",
          "version": "1",
          "sha256": "0000000000000000000000000000000000000000000000000000000000000000"
        }
      ]
    },
    {
      "id": "legacy",
      "dialect": "protoagent",
      "version": "",
      "source": "",
      "requested_ref": "",
      "ref_kind": null,
      "commit": null,
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": []
    },
    {
      "id": "local",
      "dialect": "protoagent",
      "version": "",
      "source": "/src/local",
      "requested_ref": "",
      "ref_kind": null,
      "commit": null,
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        str![],
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let kinds: Vec<(String, serde_json::Value, serde_json::Value)> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_owned(),
                p["ref_kind"].clone(),
                p["commit"].clone(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            // A tag or branch: only the remote's refs can tell (outdated lists them).
            (
                "artifact".into(),
                serde_json::Value::Null,
                "e49f185f8366bb371114ef3eb35f1cec3842f321".into()
            ),
            (
                "doom".into(),
                "default".into(),
                "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9".into()
            ),
            // The legacy top-level `{"<id>": {"deps": ...}}` layout, migrated as the host does.
            (
                "legacy".into(),
                serde_json::Value::Null,
                serde_json::Value::Null
            ),
            // protoAgent writes an empty commit for a copy that is not a checkout.
            (
                "local".into(),
                serde_json::Value::Null,
                serde_json::Value::Null
            ),
        ]
    );
    // The copy that is not a checkout shows as "(local copy)".
    Plugins::new()
        .args(["list", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
ID        VERSION  DIALECT     REF           COMMIT      SOURCE
artifact  -        protoagent  v0.2.1        e49f185f83  https://github.com/protoLabsAI/artifact-plugin  (missing: run `plugins sync`)
doom      -        protoagent  (default)     0d6f91b0d6  https://github.com/x/doom  (missing: run `plugins sync`)
legacy    -        protoagent  -             -           -  (missing, and the lock records no source: `plugins remove legacy` drops the row)
local     -        protoagent  (local copy)  -           /src/local  (missing: run `plugins sync`)

"#]], str![]);
}

#[test]
fn ref_kinds_are_inferred_from_the_remote() {
    use plugins::git::RefKind;
    use plugins::update::infer_kind;
    let refs = vec![
        ("HEAD".to_owned(), "a".repeat(40)),
        ("refs/heads/main".to_owned(), "a".repeat(40)),
        ("refs/heads/v1".to_owned(), "b".repeat(40)),
        ("refs/tags/v1".to_owned(), "c".repeat(40)),
    ];
    assert_eq!(infer_kind("", &refs), Some(RefKind::Default));
    assert_eq!(infer_kind("main", &refs), Some(RefKind::Branch));
    assert_eq!(
        infer_kind("v1", &refs),
        Some(RefKind::Tag),
        "a tag before a branch, as git"
    );
    assert_eq!(infer_kind(&"d".repeat(40), &refs), Some(RefKind::Commit));
    assert_eq!(infer_kind("gone", &refs), None);
}

#[test]
fn outdated_works_on_a_host_written_row_without_a_ref_kind() {
    use crate::support::git::Repo;
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: tagged\nname: T\nversion: 1.0.0\n",
    );
    let first = repo.commit("one");
    repo.tag("v1.0.0");
    repo.file(
        "protoagent.plugin.yaml",
        "id: tagged\nname: T\nversion: 1.1.0\n",
    );
    let second = repo.commit("two");
    repo.tag("v1.1.0");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        format!(
            "{{\n  \"plugins\": [\n    {{\n      \"id\": \"tagged\",\n      \"source_url\": \"{}\",\n      \"requested_ref\": \"v1.0.0\",\n      \"resolved_sha\": \"{first}\",\n      \"installed_at\": \"2026-01-01T00:00:00+00:00\",\n      \"by\": \"cli\"\n    }}\n  ]\n}}\n",
            repo.url()
        ),
    )
    .unwrap();
    // The newer tag v1.1.0 at the second commit.
    Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .tmp(tmp.path())
        .redact("[FIRST]", &first)
        .redact("[SECOND]", &second)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "tagged",
      "source": "file://[TMP]/repo",
      "requested_ref": "v1.0.0",
      "ref_kind": null,
      "current": "[FIRST]",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "[SECOND]"
    }
  ]
}

"#]],
            str![],
        );
}

/// A lock whose source has a character that is not ASCII right before `scheme://` (a source
/// pasted with typographic quotes) or a password in scp-like form: every command that shows
/// it answers (no panic), and no password is shown.
#[test]
fn sources_with_typographic_quotes_and_scp_passwords_are_shown_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for (source, shown) in [
        (
            "«https://u:S3cretPw@example.com/x.git»",
            [
                str![[r#"
ID    VERSION  DIALECT     REF        COMMIT      SOURCE
doom  -        protoagent  (default)  0d6f91b0d6  «https://***@example.com/x.git»  (missing: run `plugins sync`)

"#]],
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "doom",
      "dialect": "protoagent",
      "version": "",
      "source": "«https://***@example.com/x.git»",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
                str![[r#"
doom - (protoagent)
  source:   «https://***@example.com/x.git»
  commit:   0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9
  manifest: (not recorded; `plugins verify --record` records it)
  tree:     (not recorded; `plugins verify --record` records it)
  path:     [TMP]/home/plugins/doom (missing)

"#]],
                str![[r#"
{
  "format_version": 1,
  "id": "doom",
  "dialect": "protoagent",
  "version": "",
  "source": "«https://***@example.com/x.git»",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
  "manifest_hash": "",
  "tree_hash": "",
  "path": "[TMP]/home/plugins/doom",
  "present": false,
  "valid": null,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": null,
  "hold": null,
  "deps": null
}

"#]],
                str![[r#"
     missing doom: [TMP]/home/plugins/doom is missing; `plugins sync` installs it again at the locked commit
1 verified, 0 changed, 1 missing

"#]],
            ],
        ),
        (
            "“git://u:S3cretPw@example.com/x”",
            [
                str![[r#"
ID    VERSION  DIALECT     REF        COMMIT      SOURCE
doom  -        protoagent  (default)  0d6f91b0d6  “git://***@example.com/x”  (missing: run `plugins sync`)

"#]],
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "doom",
      "dialect": "protoagent",
      "version": "",
      "source": "“git://***@example.com/x”",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
                str![[r#"
doom - (protoagent)
  source:   “git://***@example.com/x”
  commit:   0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9
  manifest: (not recorded; `plugins verify --record` records it)
  tree:     (not recorded; `plugins verify --record` records it)
  path:     [TMP]/home/plugins/doom (missing)

"#]],
                str![[r#"
{
  "format_version": 1,
  "id": "doom",
  "dialect": "protoagent",
  "version": "",
  "source": "“git://***@example.com/x”",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
  "manifest_hash": "",
  "tree_hash": "",
  "path": "[TMP]/home/plugins/doom",
  "present": false,
  "valid": null,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": null,
  "hold": null,
  "deps": null
}

"#]],
                str![[r#"
     missing doom: [TMP]/home/plugins/doom is missing; `plugins sync` installs it again at the locked commit
1 verified, 0 changed, 1 missing

"#]],
            ],
        ),
        (
            "git:S3cretPw@example.com:acme/x.git",
            [
                str![[r#"
ID    VERSION  DIALECT     REF        COMMIT      SOURCE
doom  -        protoagent  (default)  0d6f91b0d6  git:***@example.com:acme/x.git  (missing: run `plugins sync`)

"#]],
                str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "doom",
      "dialect": "protoagent",
      "version": "",
      "source": "git:***@example.com:acme/x.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
      "home": "[TMP]/home",
      "present": false,
      "unbuilt": false,
      "subdir": null,
      "enabled": null,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
                str![[r#"
doom - (protoagent)
  source:   git:***@example.com:acme/x.git
  commit:   0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9
  manifest: (not recorded; `plugins verify --record` records it)
  tree:     (not recorded; `plugins verify --record` records it)
  path:     [TMP]/home/plugins/doom (missing)

"#]],
                str![[r#"
{
  "format_version": 1,
  "id": "doom",
  "dialect": "protoagent",
  "version": "",
  "source": "git:***@example.com:acme/x.git",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9",
  "manifest_hash": "",
  "tree_hash": "",
  "path": "[TMP]/home/plugins/doom",
  "present": false,
  "valid": null,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": null,
  "hold": null,
  "deps": null
}

"#]],
                str![[r#"
     missing doom: [TMP]/home/plugins/doom is missing; `plugins sync` installs it again at the locked commit
1 verified, 0 changed, 1 missing

"#]],
            ],
        ),
    ] {
        let lock = serde_json::json!({"plugins": [{"id": "doom", "source_url": source,
            "requested_ref": "", "resolved_sha": "0d6f91b0d6f91b0d6f91b0d6f91b0d6f91b0d6f9"}]});
        std::fs::write(home.join("plugins.lock"), lock.to_string()).unwrap();
        // What each command shows (verify: the copy is missing); outdated, which asks
        // example.com, is judged below.
        for (args, stdout) in [
            &["list"][..],
            &["list", "--json"],
            &["info", "doom"],
            &["info", "doom", "--json"],
            &["verify"],
        ]
        .into_iter()
        .zip(shown)
        {
            let code = if args == ["verify"] { 1 } else { 0 };
            let ran = Plugins::new()
                .args(args)
                .arg("--home")
                .arg(&home)
                .tmp(tmp.path())
                .run();
            ran.expect(code, stdout, str![]);
            assert!(
                !ran.stdout.contains("S3cretPw") && !ran.stderr.contains("S3cretPw"),
                "{source} {args:?}: {}{}",
                ran.stdout,
                ran.stderr
            );
        }
        {
            let args = ["outdated", "--timeout", "5"];
            let (code, stdout, stderr) = Plugins::new()
                .args(args)
                .arg("--home")
                .arg(&home)
                .run()
                // parts: it asks example.com; what it says depends on the network.
                .parts();
            assert!(
                code != 101 && !stderr.contains("panicked"),
                "{source} {args:?}: {stdout}{stderr}"
            );
            assert!(
                !stdout.contains("S3cretPw") && !stderr.contains("S3cretPw"),
                "{source} {args:?}: {stdout}{stderr}"
            );
        }
    }
}
