//! Lockfiles round-trip byte for byte against the hosts' real files.

use plugins::dialect::Dialect;
use plugins::lock::Lock;

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

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Files in `dir` other than `keep`: leftovers such as temp files.
fn others(dir: &std::path::Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect()
}

#[test]
fn a_rewritten_lock_keeps_its_mode_and_a_new_one_is_a_plain_create() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("plugins.lock");
    for kept in [0o644, 0o640, 0o664] {
        std::fs::write(&path, "lock_version = 2\n").unwrap();
        set_mode(&path, kept);
        plugins::lock::write_atomic(&path, b"lock_version = 2\n# rewritten\n").unwrap();
        assert_eq!(mode(&path), kept, "{kept:o}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "lock_version = 2\n# rewritten\n"
        );
    }
    // A new file: 0644 less the umask, which `std::fs::write` (0666 less the umask) shows.
    let plain = tmp.path().join("plain");
    std::fs::write(&plain, "").unwrap();
    let fresh = tmp.path().join("new/plugins.lock");
    plugins::lock::write_atomic(&fresh, b"lock_version = 2\n").unwrap();
    assert_eq!(mode(&fresh), mode(&plain) & 0o644);
    let left = others(tmp.path(), &["plugins.lock", "plain", "new"]);
    assert!(left.is_empty(), "no temp file left: {left:?}");
}

#[test]
fn a_symlinked_lock_is_written_through_and_stays_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, [_, _, c3]) = crate::support::history(&tmp.path().join("repo"));
    let (home, dotfiles) = (tmp.path().join("home"), tmp.path().join("dotfiles"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("plugins.lock"), "lock_version = 2\n").unwrap();
    set_mode(&dotfiles.join("plugins.lock"), 0o644);
    std::os::unix::fs::symlink("../dotfiles/plugins.lock", home.join("plugins.lock")).unwrap();

    let (code, stdout, stderr) = crate::support::install(&home, &[&repo.url(), "--ref", "main"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(
        std::fs::read_link(home.join("plugins.lock")).unwrap(),
        std::path::Path::new("../dotfiles/plugins.lock"),
        "still the same link"
    );
    assert_eq!(
        crate::support::locked(&home, "dev.example.pinned", "resolved_commit"),
        c3
    );
    let target = std::fs::read_to_string(dotfiles.join("plugins.lock")).unwrap();
    assert!(
        target.contains(&c3),
        "the link's target was written: {target}"
    );
    assert_eq!(mode(&dotfiles.join("plugins.lock")), 0o644);
    let left = others(&dotfiles, &["plugins.lock"]);
    assert!(left.is_empty(), "no temp file left: {left:?}");
}
