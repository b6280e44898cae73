//! Every plugin of `shared/corpus/protoagent` against its upstream verdict in
//! SOURCES.md, with each plugin directory recreated from its listing.

use std::path::{Path, PathBuf};

use plugins::diagnostic::{Code, Severity};
use plugins::host::testing::protoagent::{self, Options};
use plugins::validate::{ValidateOptions, validate_root};

use crate::support::{corpus_dir, touch_missing, verdict_failure};

struct Entry {
    name: String,
    valid: bool,
    /// The host's log line for invalid entries, `<dir>` filled in.
    message: Option<String>,
    /// A valid manifest the upstream loader refuses (`REFUSED at load`).
    refused_at_load: bool,
    files: Vec<String>,
    dirs: Vec<String>,
}

/// Split a listing on commas outside `{…}`.
fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_owned());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_owned());
    }
    out
}

fn listing(s: &str) -> (Vec<String>, Vec<String>) {
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    for item in split_top(s) {
        if let Some((prefix, inner)) = item.split_once('{') {
            for f in inner.trim_end_matches('}').split(',') {
                files.push(format!("{prefix}{}", f.trim()));
            }
        } else if let Some((dir, _)) = item.split_once(' ') {
            dirs.push(dir.trim_end_matches('/').to_owned()); // `vendor/ (11 files)`, `skills/ (empty)`
        } else {
            files.push(item);
        }
    }
    (files, dirs)
}

fn entries(corpus: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus.join("protoagent/SOURCES.md")).unwrap();
    let mut out = Vec::new();
    for section in text.split("\n## `").skip(1) {
        let name = section.split('/').next().unwrap().to_owned();
        let verdict = section
            .lines()
            .find_map(|l| l.strip_prefix("- upstream verdict: "))
            .unwrap_or_else(|| panic!("{name}"));
        if verdict.starts_with("bundle manifest") || verdict.starts_with("valid bundle") {
            continue; // bundle manifests are not plugin manifests
        }
        let valid = verdict.starts_with("valid");
        assert!(valid || verdict.starts_with("INVALID"), "{name}: {verdict}");
        let message = (!valid)
            .then(|| {
                verdict
                    .split('`')
                    .find(|m| m.starts_with("[plugins]"))
                    .map(|m| m.replace("<dir>", &name))
            })
            .flatten();
        let list = section
            .lines()
            .find_map(|l| l.strip_prefix("- plugin dir listing: "))
            .unwrap_or_else(|| panic!("{name}"));
        let (files, dirs) = listing(list);
        out.push(Entry {
            name,
            valid,
            message,
            refused_at_load: verdict.contains("REFUSED at load"),
            files,
            dirs,
        });
    }
    out
}

fn recreate(corpus: &Path, entry: &Entry, tmp: &Path) -> PathBuf {
    let root = tmp.join(&entry.name);
    let src = corpus.join("protoagent").join(&entry.name);
    std::fs::create_dir_all(&root).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(root.join(e.file_name())).unwrap();
            for f in std::fs::read_dir(e.path()).unwrap() {
                let f = f.unwrap();
                std::fs::copy(f.path(), root.join(e.file_name()).join(f.file_name())).unwrap();
            }
        } else {
            std::fs::copy(e.path(), root.join(e.file_name())).unwrap();
        }
    }
    for d in &entry.dirs {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    touch_missing(&root, &entry.files);
    root
}

fn opts(host: Option<&str>) -> ValidateOptions {
    ValidateOptions {
        host: protoagent::host(Options {
            host_version: host.map(str::to_owned),
            ..Options::default()
        }),
        ..ValidateOptions::default()
    }
}

#[test]
fn every_corpus_plugin_matches_the_upstream_verdict() {
    let Some(corpus) = corpus_dir() else { return };
    let entries = entries(&corpus);
    let dirs = std::fs::read_dir(corpus.join("protoagent"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(
        entries.len(),
        dirs - 3,
        "every corpus dir but locks/ and the two bundles"
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for entry in &entries {
        let root = recreate(&corpus, entry, tmp.path());
        let report = validate_root(&root, &opts(None));
        let got = &report.outcome;
        // A loader refusal (`min_protoagent_version` newer than the default host, 0.218.1):
        // the host's manifest verdict, and not installable as it is.
        if entry.refused_at_load {
            if got.class != plugins::manifest::HostClass::Valid || report.is_valid() {
                failures.push(format!("{}: not refused at load: {got:#?}", entry.name));
            }
            continue;
        }
        if let Some(failure) = verdict_failure(&entry.name, entry.valid, &report) {
            failures.push(failure);
            continue;
        }
        if let Some(m) = &entry.message
            && got.host_message.as_deref() != Some(m.as_str())
        {
            failures.push(format!(
                "{}: host said {:?}, expected {m:?}",
                entry.name, got.host_message
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} verdicts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn warnings(corpus: &Path, name: &str, host: Option<&str>) -> Vec<(Code, Severity, String)> {
    let tmp = tempfile::tempdir().unwrap();
    let entry = entries(corpus)
        .into_iter()
        .find(|e| e.name == name)
        .unwrap();
    let root = recreate(corpus, &entry, tmp.path());
    validate_root(&root, &opts(host))
        .outcome
        .diagnostics
        .into_iter()
        .map(|d| (d.code, d.severity, d.message))
        .collect()
}

#[test]
fn degraded_plugins_warn_as_the_host_does() {
    let Some(corpus) = corpus_dir() else { return };
    let ds = warnings(&corpus, "fixture-emits-invalid-refs", None);
    let msgs: Vec<&str> = ds.iter().map(|d| d.2.as_str()).collect();
    // The reason as the OS gives it (Python adds its errno and the path; the parity test
    // compares up to the parenthesis), never fs_err's restatement of the operation.
    assert!(
        msgs.contains(&"emits 'ev3.missing' schema $ref 'events/nope.json' is unreadable (No such file or directory (os error 2)) — keeping the topic name only"),
        "{msgs:#?}"
    );
    assert!(msgs.contains(&"emits 'ev3.escape' schema $ref '../../outside.json' escapes the plugin directory — ignored"), "{msgs:#?}");
    assert!(msgs.contains(&"emits 'ev3.badtype' schema must be a mapping or a $ref path, got int — keeping the topic name only"), "{msgs:#?}");
    assert!(
        msgs.contains(&"emits entry {'summary': 'no topic here'} has no 'topic' — skipped"),
        "{msgs:#?}"
    );
    assert!(
        ds.iter()
            .all(|d| d.0 == Code::ProtoEmits && d.1 == Severity::Warning)
    );

    let ds = warnings(&corpus, "fixture-requires-pip-malformed", None);
    assert_eq!(
        ds.iter()
            .filter(|d| d.0 == Code::ProtoRequiresPip && d.2.ends_with("has no 'pkg' — skipped"))
            .count(),
        2,
        "{ds:#?}"
    );

    let ds = warnings(&corpus, "fixture-public-paths-scoped", None);
    let paths: Vec<&str> = ds
        .iter()
        .filter(|d| d.0 == Code::ProtoPublicPath)
        .map(|d| d.2.as_str())
        .collect();
    assert_eq!(
        paths,
        [
            "public_path '/api/config' is outside the plugin namespace (/plugins/wh/… or /api/plugins/wh/…) — ignored",
            "public_path '/plugins/other/x' is outside the plugin namespace (/plugins/wh/… or /api/plugins/wh/…) — ignored",
        ]
    );

    for name in ["fixture-section-collision-model", "bundled-workflows"] {
        let ds = warnings(&corpus, name, None);
        assert!(
            ds.iter().any(|d| d.0 == Code::ProtoReservedSection),
            "{name}: {ds:#?}"
        );
    }
    let ds = warnings(&corpus, "bundled-coder", None);
    assert!(
        ds.iter()
            .any(|d| d.0 == Code::ProtoUnknownKey && d.2.contains("requires_plugins")),
        "{ds:#?}"
    );
    assert!(
        warnings(&corpus, "ext-pr-reviewer", None)
            .iter()
            .any(|d| d.0 == Code::ProtoSetting && d.2.contains("'int'"))
    );
    assert!(
        warnings(&corpus, "fixture-views-missing-path", None)
            .iter()
            .any(|d| d.0 == Code::ProtoView)
    );
    // protoAgent's own `hello`, validated as a plugin to install: the installer refuses
    // its id (`--bundled` says it ships inside protoAgent).
    assert_eq!(
        warnings(&corpus, "bundled-hello", None),
        [(
            Code::InstallBuiltin,
            Severity::Warning,
            "plugin id 'hello' is a built-in — cannot install over it.".to_owned()
        )]
    );
    // Clean real-world plugins stay clean.
    for name in [
        "ext-discord",
        "ext-rss-atom",
        "scaffold-default",
        "fixture-views-auto-public",
    ] {
        assert_eq!(warnings(&corpus, name, None), [], "{name}");
    }
}

#[test]
fn min_version_against_the_host_version() {
    let Some(corpus) = corpus_dir() else { return };
    let ds = warnings(&corpus, "fixture-min-version-too-new", Some("0.32.0"));
    assert_eq!(
        ds,
        [(
            Code::ProtoHostVersion,
            Severity::Error,
            "requires protoAgent >= 99.0.0 but this host is 0.32.0".to_owned()
        )]
    );
    let ds = warnings(&corpus, "fixture-min-version-garbage", Some("0.32.0"));
    assert_eq!(
        ds,
        [(
            Code::ProtoMinVersion,
            Severity::Warning,
            "unparseable min_protoagent_version 'not-a-version' (host '0.32.0') — loading anyway"
                .to_owned()
        )]
    );
    // PEP 440: 0.34 == 0.34.0, so ext-discord's 0.34.0 loads on a 0.34 host.
    assert_eq!(warnings(&corpus, "ext-discord", Some("0.34")), []);
    assert_eq!(
        warnings(&corpus, "ext-discord", Some("0.34.0rc1")).len(),
        1,
        "a pre-release is older"
    );
}

/// `protoagent-0218.md` §12: over the corpus, no verdict and no host warning
/// changes between the 0.145 and 0.218 parsers; six plugins warn, identically.
#[test]
fn the_two_host_profiles_read_the_corpus_alike() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut warned = Vec::new();
    for entry in entries(&corpus) {
        let root = recreate(&corpus, &entry, tmp.path());
        let old = validate_root(&root, &opts(Some("0.145.0"))).outcome;
        let new = validate_root(&root, &opts(Some("0.218.1"))).outcome;
        assert_eq!(old.class, new.class, "{}", entry.name);
        assert_eq!(old.host_message, new.host_message, "{}", entry.name);
        let (a, b) = (protoagent::host_log(&old), protoagent::host_log(&new));
        assert_eq!(a, b, "{}", entry.name);
        if !b.is_empty() {
            warned.push((entry.name.clone(), b.len()));
        }
    }
    warned.sort();
    assert_eq!(
        warned,
        [
            ("fixture-emits-invalid-refs".to_owned(), 4),
            ("fixture-public-paths-scoped".to_owned(), 2),
            ("fixture-requires-pip-malformed".to_owned(), 2),
        ]
    );
}
