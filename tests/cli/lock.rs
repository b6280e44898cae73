//! Lockfiles round-trip byte for byte against the hosts' real files.

use plugins::lock::Lock;
use plugins::manifest::Dialect;

use crate::support::corpus_dir;

#[test]
fn protoagent_locks_round_trip_byte_stable() {
    let Some(corpus) = corpus_dir() else { return };
    let dir = corpus.join("protoagent/locks");
    for name in [
        "upstream-head-empty.plugins.lock",
        "upstream-2026-06-09-artifact.plugins.lock",
        "upstream-2026-06-12-artifact-doom.plugins.lock",
    ] {
        let path = dir.join(name);
        let lock = Lock::load(&path, Dialect::Protoagent).unwrap();
        assert_eq!(
            lock.render(),
            std::fs::read_to_string(&path).unwrap(),
            "{name}"
        );
    }
    // The legacy wheel-deps layout is migrated exactly as the host writes it.
    let lock = Lock::load(
        &dir.join("fixture-legacy-wheel-deps.input.plugins.lock"),
        Dialect::Protoagent,
    )
    .unwrap();
    assert_eq!(
        lock.render(),
        std::fs::read_to_string(dir.join("fixture-legacy-wheel-deps.normalized.plugins.lock"))
            .unwrap()
    );
}

#[test]
fn unknown_fields_survive_an_upsert_and_writes_happen_only_on_change() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("plugins.lock");
    std::fs::write(&path, "lock_version = 2\nfuture_key = \"kept\"\n\n[plugins.\"a.b\"]\nsource = \"gh:x/y\"\nversion = \"1\"\nmanifest_hash = \"sha256:0\"\ntree_hash = \"sha256:1\"\ntrust = \"featured\"\nextra = 5\n").unwrap();
    let mut lock = Lock::load(&path, Dialect::Aoe).unwrap();
    assert!(!lock.save().unwrap(), "nothing changed, nothing written");
    let mut e = lock.get("a.b").unwrap();
    e.version = "2".into();
    lock.upsert(&e, "cli", "now");
    assert!(lock.save().unwrap());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("future_key = \"kept\"")
            && text.contains("extra = 5")
            && text.contains("trust = \"featured\""),
        "{text}"
    );
    assert!(text.contains("version = \"2\""));
    std::fs::write(&path, "lock_version = 3\n").unwrap();
    let err = Lock::load(&path, Dialect::Aoe).unwrap_err().to_string();
    assert!(err.contains("lock_version 3"), "{err}");
}
