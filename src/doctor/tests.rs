use std::path::Path;

use super::cron::shell_word;
use super::local::age;
use super::network::failure_code;
use super::*;

#[test]
fn failures_are_classified_by_what_the_check_says() {
    let auth = crate::git::GitError::Auth {
        url: "https://h/x".into(),
        offered: vec![],
    };
    assert_eq!(failure_code(&auth.to_string()), Code::GitAuth);
    let mut e = Entry {
        id: "x".into(),
        source: "s".into(),
        requested_ref: "gone".into(),
        ref_kind: Some(crate::git::RefKind::Branch),
        commit: Some("a".repeat(40)),
        ..Entry::default()
    };
    for kind in [Some(crate::git::RefKind::Branch), None] {
        e.ref_kind = kind;
        let crate::update::Status::Error { message } = crate::update::decide(&e, &[], false) else {
            panic!("a missing ref is an error")
        };
        assert_eq!(failure_code(&message), Code::GitRefNotFound, "{message}");
    }
    assert_eq!(
        failure_code("listing x timed out after 5 s"),
        Code::GitFetch
    );
}

#[test]
fn ages_and_shell_words() {
    assert_eq!(
        [age(5), age(600), age(10_000), age(400_000)],
        ["5 s", "10 min", "2 h", "4 d"]
    );
    assert_eq!(
        shell_word(Path::new("/usr/bin/plugins")),
        "/usr/bin/plugins"
    );
    assert_eq!(shell_word(Path::new("/a b/it's")), "'/a b/it'\\''s'");
}

/// Issue #40: doctor says so where steps cannot be isolated, and nothing where they are.
#[test]
fn step_isolation_is_reported_only_where_it_is_missing() {
    use crate::steps::Isolation;
    assert!(step_isolation(Isolation::Namespaces, true).is_none());
    for (isolation, root, says) in [
        (Isolation::PidOnly, true, "can unmount its /proc"),
        (Isolation::None, true, "one running as root can"),
        (Isolation::None, false, "one running as root can"),
    ] {
        let check = step_isolation(isolation, root).expect("reported");
        assert_eq!(check.status, Mark::Warn);
        assert_eq!(check.code, Some(Code::DoctorStepIsolation));
        assert!(check.message.contains(says), "{}", check.message);
    }
}
