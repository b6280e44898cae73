//! Every entry of `shared/corpus/aworld` against its upstream verdict in SOURCES.md,
//! with each plugin root recreated from its listing (empty files).

use std::path::{Path, PathBuf};

use plugins::diagnostic::Code;
use plugins::host::testing::aworld::{self, Options};
use plugins::manifest::HostClass;
use plugins::validate::{ValidateOptions, validate_root};

use crate::support::{corpus_dir, touch_missing, verdict_failure};

struct Entry {
    name: String,
    valid: bool,
    /// The host's exception text for invalid entries.
    message: Option<String>,
    files: Vec<String>,
}

fn first_backticked(s: &str) -> Option<String> {
    let start = s.find('`')? + 1;
    let end = s[start..].find('`')? + start;
    Some(s[start..end].to_owned())
}

fn entries(corpus: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(corpus.join("aworld/SOURCES.md")).unwrap();
    let mut out = Vec::new();
    for section in text.split("\n### ").skip(1) {
        let name = section.split_whitespace().next().unwrap().to_owned();
        let status = section
            .lines()
            .find(|l| l.starts_with("- status:"))
            .unwrap_or_else(|| panic!("{name}: no status"));
        let valid = status.starts_with("- status: VALID");
        assert!(
            valid || status.starts_with("- status: INVALID"),
            "{name}: {status}"
        );
        let message = if valid {
            None
        } else {
            first_backticked(status)
        };
        let files = match section.split_once("```\n") {
            Some((_, rest)) => rest
                .split("```")
                .next()
                .unwrap()
                .lines()
                .map(|l| l.trim().to_owned())
                .filter(|l| !l.is_empty())
                .collect(),
            None => vec![".aworld-plugin/plugin.json".to_owned()],
        };
        out.push(Entry {
            name,
            valid,
            message,
            files,
        });
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The corpus entry recreated in a temp dir: corpus files plus empty listed files.
fn recreate(corpus: &Path, entry: &Entry, tmp: &Path) -> PathBuf {
    let root = tmp.join(&entry.name);
    copy_tree(&corpus.join("aworld").join(&entry.name), &root);
    touch_missing(&root, &entry.files);
    root
}

#[test]
fn every_corpus_entry_matches_the_upstream_verdict() {
    let Some(corpus) = corpus_dir() else { return };
    let entries = entries(&corpus);
    let dirs = std::fs::read_dir(corpus.join("aworld"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(entries.len(), dirs, "one SOURCES.md section per corpus dir");
    assert_eq!(entries.len(), 36, "35 manifests and the legacy fixture");
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for entry in &entries {
        let root = recreate(&corpus, entry, tmp.path());
        let opts = ValidateOptions {
            host: aworld::host(Options {
                bundled: entry.name.starts_with("builtin-"),
            }),
            ..ValidateOptions::default()
        };
        let report = validate_root(&root, &opts);
        let got = &report.outcome;
        if let Some(failure) = verdict_failure(&entry.name, entry.valid, &report) {
            failures.push(failure);
            continue;
        }
        if let Some(m) = &entry.message {
            if got.host_message.as_deref() != Some(m.as_str()) {
                failures.push(format!(
                    "{}: host message {:?}, expected {m:?}",
                    entry.name, got.host_message
                ));
            }
            let error = got.diagnostics.iter().find(|d| d.is_error()).unwrap();
            assert!(
                !error.labels.is_empty(),
                "{}: the error is labelled",
                entry.name
            );
        }
        if entry.valid {
            // Every target the listing recreates resolves: no missing-target lint for them.
            for d in got
                .diagnostics
                .iter()
                .filter(|d| d.code == Code::AworldMissingTarget)
            {
                let listed = entry
                    .files
                    .iter()
                    .any(|f| d.message.contains(&format!("{f:?}")));
                assert!(
                    !listed,
                    "{}: {} although the file exists",
                    entry.name, d.message
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} verdicts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn capabilities_and_legacy_roots() {
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let all = entries(&corpus);
    let by_name = |n: &str| all.iter().find(|e| e.name == n).unwrap();

    let root = recreate(&corpus, by_name("fixture-framework-minimal"), tmp.path());
    let text = std::fs::read_to_string(root.join(".aworld-plugin/plugin.json")).unwrap();
    let (outcome, summary) = aworld::validate(&text, &root, &Options::default());
    assert_eq!(outcome.class, HostClass::Valid);
    let summary = summary.unwrap();
    assert_eq!(
        summary.capabilities,
        ["commands", "hud"],
        "an empty `hud: []` is still a capability"
    );
    assert_eq!(
        (summary.id.as_str(), summary.framework),
        ("framework-minimal", "manifest")
    );

    let root = recreate(&corpus, by_name("fixture-legacy-agents-only"), tmp.path());
    let (outcome, summary) = aworld::validate_legacy(&root);
    assert_eq!(outcome.class, HostClass::Valid);
    let summary = summary.unwrap();
    assert_eq!(summary.framework, "legacy");
    assert_eq!(summary.capabilities, ["agents", "skills"]);
    assert_eq!(
        summary.id, "fixture-legacy-agents-only",
        "a legacy id is the directory name"
    );
}

#[test]
fn the_schema_agrees_with_sources_md() {
    // SOURCES.md: every VALID entry passes plugin.schema.json; every INVALID one fails it,
    // except the duplicate-id one (only the loader catches it).
    let Some(corpus) = corpus_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    for entry in entries(&corpus)
        .iter()
        .filter(|e| e.name != "fixture-legacy-agents-only")
    {
        let root = recreate(&corpus, entry, tmp.path());
        let report = validate_root(
            &root,
            &ValidateOptions {
                host: aworld::host(Options { bundled: true }),
                ..ValidateOptions::default()
            },
        );
        let text = std::fs::read_to_string(root.join(".aworld-plugin/plugin.json")).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let schema: serde_json::Value = serde_json::from_str(aworld::SCHEMA).unwrap();
        let schema_ok = jsonschema::validator_for(&schema).unwrap().is_valid(&value);
        let expect = entry.valid || entry.name == "inline-invalid-duplicate-entrypoint-id";
        assert_eq!(schema_ok, expect, "{}", entry.name);
        // Where only the schema objects, `plugins` says so as a warning, never an error.
        if entry.valid {
            assert!(
                report
                    .outcome
                    .diagnostics
                    .iter()
                    .all(|d| d.code != Code::AworldSchema || !d.is_error())
            );
        }
    }
}
