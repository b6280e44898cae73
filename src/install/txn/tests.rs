//! Unit tests of the transaction's paths.

use super::*;

#[test]
fn ids_with_dots_get_their_own_records() {
    let home = Home::new("/h", crate::dialect::Dialect::Aoe);
    let a = record(&home, &Name::new("dev.example.a").unwrap());
    let b = record(&home, &Name::new("dev.example.b").unwrap());
    assert_ne!(a, b);
    assert_eq!(a, Path::new("/h/.plugins/txn/dev.example.a.json"));
    assert_eq!(a.parent(), Some(Path::new("/h/.plugins/txn")));
}

/// A staging directory names its owner by pid and start time: this process's is live, one of
/// a process that is gone (or of a pid reused since) is not; an older `s-<pid>-<random>` is
/// judged by its pid.
#[test]
fn a_staging_directory_is_stale_once_its_owner_is_gone() {
    let mine = format!("{}AbC123", staging_prefix());
    assert!(!recovery::owner_gone(&mine));
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let stat = fs_err::read_to_string(format!("/proc/{}/stat", gone.id())).unwrap();
    let start = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_owned();
    let theirs = format!("s-{}-{start}-AbC123", gone.id());
    gone.wait().unwrap();
    assert!(recovery::owner_gone(&theirs));
    let me = std::process::id();
    assert!(
        recovery::owner_gone(&format!("s-{me}-1-AbC123")),
        "a reused pid"
    );
    assert!(!recovery::owner_gone(&format!("s-{me}-abc")));
    assert!(recovery::owner_gone("s-999999999-abc"));
}
