use super::Lock;
use super::atomic::follow_links;

#[test]
fn follows_chains_and_dangling_links() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::os::unix::fs::symlink("b", d.join("a")).unwrap();
    std::os::unix::fs::symlink(d.join("sub/c"), d.join("b")).unwrap();
    assert_eq!(follow_links(&d.join("a")).unwrap(), d.join("sub/c"));
    std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
    assert!(follow_links(&d.join("loop")).is_err());
}

/// `get` reads one row, and says what `entries` says of it: the last row of an id (the one
/// the host reads), a missing id, TOML and JSON alike.
#[test]
fn get_is_entries_of_one_id() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("proto.lock");
    fs_err::write(
        &json,
        r#"{"plugins": [
            {"id": "a", "source_url": "https://x/first", "resolved_sha": ""},
            {"id": "b", "source_url": "https://x/b"},
            {"id": "a", "source_url": "https://x/last", "requested_ref": "v1"},
            {"source_url": "https://x/no-id"}
        ]}"#,
    )
    .unwrap();
    let toml = dir.path().join("aoe.lock");
    fs_err::write(
        &toml,
        "lock_version = 2\n[plugins.\"a\"]\nsource = \"gh:o/a\"\n[plugins.\"b\"]\nsource = \"gh:o/b\"\nrequested_ref = \"v2\"\n",
    )
    .unwrap();
    for (path, dialect) in [
        (&json, crate::dialect::Dialect::Protoagent),
        (&toml, crate::dialect::Dialect::Aoe),
    ] {
        let lock = Lock::load(path, dialect).unwrap();
        for id in ["a", "b", "missing", ""] {
            assert_eq!(
                lock.get(id),
                lock.entries().into_iter().find(|e| e.id == id),
                "{id} in {}",
                path.display()
            );
        }
    }
    let lock = Lock::load(&json, crate::dialect::Dialect::Protoagent).unwrap();
    assert_eq!(lock.get("a").unwrap().source, "https://x/last");
}
