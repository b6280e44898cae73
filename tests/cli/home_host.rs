//! A home names its host in `<home>/.plugins/host`, written before its lock is first
//! written: the record wins over a guess from the lock's contents (kept only for homes
//! from before the record, which get it with their next lock write), and a home whose
//! record names no host `plugins` serves is refused by name.

use snapbox::{IntoData, str};

use plugins::dialect::Dialect;
use plugins::store::Home;

use crate::support::Plugins;
use crate::support::fixtures::static_aoe;

fn record(home: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(home.join(".plugins/host")).ok()
}

#[test]
fn an_install_writes_the_record_and_the_record_names_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, home) = (tmp.path().join("src"), tmp.path().join("home"));
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    assert_eq!(record(&home), None);
    let (code, _, stderr) = crate::support::fixtures::install(&home, &[src.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(record(&home).as_deref(), Some("aoe\n"));
    // The record, not the plugin going in nor the lock, names the host from now on.
    std::fs::write(home.join(".plugins/host"), "aworld\n").unwrap();
    let named = Home::named(&home, Some(Dialect::Protoagent)).unwrap();
    assert_eq!(named.dialect.spec().name, "aworld");
}

#[test]
fn a_home_from_before_the_record_is_its_locks_host_and_gets_the_record_when_written() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(home.join("plugins.lock"), "{\"plugins\": []}\n").unwrap();
    let named = Home::named(&home, Some(Dialect::Aoe)).unwrap();
    assert_eq!(named.dialect.spec().name, "protoagent");
    // Reading writes nothing.
    let mut lock = named.load_lock().unwrap();
    assert!(!lock.save().unwrap());
    assert_eq!(record(&home), None);
    Plugins::new()
        .args(["list", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
no plugins installed

"#]],
            str![],
        );
    assert_eq!(record(&home), None, "list writes nothing");
    // The next write of its lock names the host first.
    let entry = plugins::lock::Entry {
        id: "notes".into(),
        source: "https://example.com/notes.git".into(),
        version: "1.0.0".into(),
        ..Default::default()
    };
    lock.upsert(&entry, "cli", "2026-01-01T00:00:00Z");
    assert!(lock.save().unwrap());
    assert_eq!(record(&home).as_deref(), Some("protoagent\n"));
}

#[test]
fn a_home_whose_host_cannot_be_known_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".plugins")).unwrap();
    std::fs::write(home.join("plugins.lock"), "lock_version = 2\n").unwrap();
    std::fs::write(home.join(".plugins/host"), "hermes\n").unwrap();
    assert!(Home::named(&home, Some(Dialect::Aoe)).is_err());
    for args in [&["list"][..], &["remove", "notes"], &["outdated"]] {
        Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("COLUMNS", "400")
            .tmp(tmp.path())
            .run()
            .code(2)
            .stderr_eq(str![[r#"
plugins::home::unknown_host

  × [TMP]/home/.plugins/host: the host of the home [TMP]/home cannot be known: it names "hermes", which is no host this plugins serves (aoe, aworld, protoagent)
  help: a newer plugins wrote it, or it was edited: use that plugins for this home, or write the home's host (aoe, aworld, protoagent) into [TMP]/home/.plugins/host

"#]]
            .raw());
    }
    // Nothing was read as any host's, nor written.
    assert_eq!(
        std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
        "lock_version = 2\n"
    );
    assert_eq!(record(&home).as_deref(), Some("hermes\n"));
}
