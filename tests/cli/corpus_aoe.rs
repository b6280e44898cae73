//! Every manifest of `shared/corpus/aoe` against its upstream verdict in SOURCES.md,
//! on both host profiles.

use std::path::Path;

use plugins::diagnostic::{Code, Severity};
use plugins::host::testing::aoe::{self, Options, Profile};
use plugins::manifest::HostClass;
use plugins::validate::{PluginReport, ValidateOptions, validate_root};

use crate::support::corpus_dir;

/// One expected verdict for one profile.
#[derive(Debug, Clone)]
struct Expect {
    class: HostClass,
    /// Fragments the host message must contain, in order.
    messages: Vec<String>,
}

#[derive(Debug)]
struct Row {
    name: String,
    h12: Option<Expect>,
    h15: Option<Expect>,
}

/// Backtick spans of a markdown cell (`x` and ``x``).
fn backticked(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = cell;
    while let Some(start) = rest.find('`') {
        let fence = if rest[start..].starts_with("``") {
            "``"
        } else {
            "`"
        };
        let body = &rest[start + fence.len()..];
        let Some(end) = body.find(fence) else { break };
        out.push(body[..end].trim().to_owned());
        rest = &body[end + fence.len()..];
    }
    out
}

fn class_of(word: &str) -> HostClass {
    match word {
        "valid" => HostClass::Valid,
        "Parse" => HostClass::Parse,
        "Invalid" => HostClass::Invalid,
        "Unsupported" => HostClass::Unsupported,
        other => panic!("unknown verdict class {other:?}"),
    }
}

/// A real-world verdict cell: `valid`, `invalid (Parse: …)`, `invalid (same)`, `n/a`.
fn real_world_cell(cell: &str, same_as: Option<&Expect>) -> Option<Expect> {
    let cell = cell.trim();
    if cell == "n/a" {
        return None;
    }
    if cell == "valid" {
        return Some(Expect {
            class: HostClass::Valid,
            messages: vec![],
        });
    }
    let inner = cell
        .strip_prefix("invalid (")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unparsed verdict {cell:?}"));
    if inner == "same" {
        return same_as.cloned();
    }
    let (word, detail) = inner
        .split_once(':')
        .map_or((inner, ""), |(w, d)| (w, d.trim()));
    let class = class_of(word);
    let messages = match class {
        // "unknown variant `x`": the whole phrase is the serde message.
        HostClass::Parse if !detail.is_empty() => vec![detail.to_owned()],
        HostClass::Invalid => backticked(detail),
        _ => vec![],
    };
    Some(Expect { class, messages })
}

fn rows(corpus: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(corpus.join("aoe/SOURCES.md")).unwrap();
    let mut rows = Vec::new();
    for line in text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| short-name"))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let name = cells[1].split_whitespace().next().unwrap().to_owned();
        match cells.len() {
            9 => {
                let h12 = real_world_cell(cells[5], None);
                let h15 = real_world_cell(cells[6], h12.as_ref());
                rows.push(Row { name, h12, h15 });
            }
            6 => {
                let class = class_of(cells[3]);
                let expects = cells[4];
                let messages = match class {
                    HostClass::Parse => vec![expects.to_owned()],
                    HostClass::Invalid | HostClass::Unsupported => backticked(expects),
                    _ => vec![],
                };
                let h12 = Expect { class, messages };
                // Test-derived rows give H12; H15 differs only where noted.
                let h15 = if expects.contains("(H15: Parse") {
                    Expect {
                        class: HostClass::Parse,
                        messages: vec![],
                    }
                } else if class == HostClass::Unsupported {
                    Expect {
                        class,
                        messages: h12
                            .messages
                            .iter()
                            .map(|m| m.replace("1..=12", "1..=15"))
                            .collect(),
                    }
                } else {
                    h12.clone()
                };
                rows.push(Row {
                    name,
                    h12: Some(h12),
                    h15: Some(h15),
                });
            }
            n => panic!("unexpected table row with {n} cells: {line}"),
        }
    }
    rows
}

fn validate(corpus: &Path, name: &str, profile: Profile) -> PluginReport {
    let opts = ValidateOptions {
        host: aoe::host(Options {
            profile,
            // The schema checked against the host's typed parse on every manifest it accepts
            // (plugins::aoe::schema_disagrees), which a plain run does not do.
            self_check: true,
            ..Options::default()
        }),
        ..ValidateOptions::default()
    };
    validate_root(&corpus.join("aoe").join(name), &opts)
}

fn check(corpus: &Path, row: &Row, expect: &Expect, profile: Profile, failures: &mut Vec<String>) {
    let report = validate(corpus, &row.name, profile);
    let got = &report.outcome;
    let tag = format!("{} on {:?}", row.name, profile);
    if got.class != expect.class {
        failures.push(format!(
            "{tag}: expected {:?}, got {:?}: {:?}",
            expect.class, got.class, got.host_message
        ));
        return;
    }
    let host = got.host_message.clone().unwrap_or_default();
    for m in &expect.messages {
        if !host.contains(m.as_str()) {
            failures.push(format!("{tag}: host message lacks {m:?}:\n{host}"));
        }
    }
    // The verdict must agree with the exit status, and every error must be labelled.
    assert_eq!(
        report.is_valid(),
        expect.class == HostClass::Valid,
        "{tag}: {:#?}",
        got.diagnostics
    );
    for d in got
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
    {
        assert!(!d.labels.is_empty(), "{tag}: unlabelled error {d:?}");
    }
    if expect.class == HostClass::Parse {
        // The host's (serde's) first error is one of ours, word for word.
        let serde_message = host
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or_default();
        assert!(
            got.diagnostics.iter().any(|d| d.message == serde_message),
            "{tag}: no diagnostic says {serde_message:?}: {:#?}",
            got.diagnostics
        );
    }
    if expect.class == HostClass::Invalid {
        // Each semantic message is also a diagnostic of its own.
        let errors: Vec<&str> = got
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.message.as_str())
            .collect();
        for m in &expect.messages {
            assert!(
                errors.contains(&m.as_str()),
                "{tag}: no diagnostic {m:?} in {errors:?}"
            );
        }
    }
}

#[test]
fn every_corpus_manifest_matches_the_upstream_verdict() {
    let Some(corpus) = corpus_dir() else { return };
    let rows = rows(&corpus);
    assert_eq!(rows.len(), 41, "SOURCES.md lists 41 manifests");
    let mut failures = Vec::new();
    let mut checked = 0;
    for row in &rows {
        assert!(
            corpus
                .join("aoe")
                .join(&row.name)
                .join("aoe-plugin.toml")
                .is_file(),
            "{}",
            row.name
        );
        for (profile, expect) in [(Profile::H12, &row.h12), (Profile::H15, &row.h15)] {
            if let Some(expect) = expect {
                check(&corpus, row, expect, profile, &mut failures);
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} verdicts differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        checked, 80,
        "40 manifests × 2 profiles (the Jinja template has no verdict)"
    );
}

#[test]
fn the_jinja_template_is_not_toml() {
    let Some(corpus) = corpus_dir() else { return };
    let report = validate(&corpus, "plugin-template-raw", Profile::H15);
    assert_eq!(report.outcome.class, HostClass::Parse);
    assert_eq!(report.outcome.diagnostics[0].code, Code::SyntaxToml);
}

#[test]
fn plugin_mcp_says_why_on_both_profiles() {
    let Some(corpus) = corpus_dir() else { return };
    let h12 = validate(&corpus, "plugin-mcp-13b3e03", Profile::H12);
    let d = &h12
        .outcome
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .unwrap();
    assert_eq!(d.code, Code::AoeSetting);
    assert_eq!(
        d.message,
        "settings[0].fields[0].key \"name\" collides with the item id key"
    );
    assert_eq!(
        d.labels.len(),
        2,
        "the field key and the item_id_key are both labelled"
    );
    let text = h12.source.as_deref().unwrap();
    assert_eq!(&text[d.labels[0].span.clone()], "\"name\"");
    assert!(text[d.labels[1].span.clone()].contains("name"));

    let h15 = validate(&corpus, "plugin-mcp-13b3e03", Profile::H15);
    let d = &h15
        .outcome
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .unwrap();
    assert_eq!(d.code, Code::AoeUnknownVariant);
    assert!(
        d.message.starts_with("unknown variant `settings-page`"),
        "{}",
        d.message
    );
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("removed in api_version 15")
    );
}

/// Install-time refusals named in SOURCES.md notes: warnings on a valid manifest.
#[test]
fn install_refusals_from_the_notes() {
    let Some(corpus) = corpus_dir() else { return };
    let cases: &[(&str, Code, &str)] = &[
        (
            "aoe-web-builtin",
            Code::AoeBuiltinId,
            "plugin id \"aoe.web\" collides with a builtin plugin",
        ),
        (
            "fixture-browser-voice-microphone",
            Code::AoeUnknownCapability,
            "plugin requests capabilities this host does not support: browser.microphone; upgrade aoe",
        ),
        (
            "plugin-github-fe01382-v1.1.0-venv-in-root",
            Code::AoeReservedNamespace,
            "plugin id \"agent-of-empires.github\" uses a reserved namespace (aoe.* / agent-of-empires.*); only a featured-verified plugin may claim one",
        ),
        (
            "test-unknown-capability-parses",
            Code::AoeUnknownCapability,
            "plugin requests capabilities this host does not support: some.future.cap; upgrade aoe",
        ),
    ];
    for (name, code, message) in cases {
        for profile in [Profile::H12, Profile::H15] {
            let report = validate(&corpus, name, profile);
            assert_eq!(report.outcome.class, HostClass::Valid, "{name}");
            let found = report.outcome.diagnostics.iter().find(|d| d.code == *code);
            let d = found.unwrap_or_else(|| panic!("{name}: no {code}"));
            assert_eq!(d.message, *message);
            assert_eq!(d.severity, Severity::Warning);
        }
    }
    // A fork's id whose *second* segment is agent-of-empires is not reserved.
    let fork = validate(&corpus, "plugin-github-795c6d3-api3-fork-id", Profile::H15);
    assert!(
        fork.outcome
            .diagnostics
            .iter()
            .all(|d| d.code != Code::AoeReservedNamespace)
    );
}

/// The JSON Schema and the host's typed parse agree on the whole corpus.
#[test]
fn schema_never_disagrees_with_the_host_on_the_corpus() {
    let Some(corpus) = corpus_dir() else { return };
    for entry in std::fs::read_dir(corpus.join("aoe")).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        for profile in [Profile::H12, Profile::H15] {
            let name = path.file_name().unwrap().to_str().unwrap();
            let report = validate(&corpus, name, profile);
            let codes: Vec<Code> = report.outcome.diagnostics.iter().map(|d| d.code).collect();
            assert!(
                !codes.contains(&Code::AoeSchemaDisagrees),
                "{name} {profile:?}: {:#?}",
                report.outcome.diagnostics
            );
            assert!(
                !codes.contains(&Code::AoeParse),
                "{name} {profile:?}: schema missed a parse error: {:#?}",
                report.outcome.diagnostics
            );
        }
    }
    let _ = Path::new(".");
}
