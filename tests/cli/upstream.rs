//! One place names the project's home: `Cargo.toml`'s `repository` (and `version`). Every
//! tracked file (`git ls-files`) is scanned for a placeholder standing in for it, and for a
//! copy of it that differs: the Action in a `uses:` line, a pre-commit `repo:` URL and its
//! `rev:`, a URL naming the crate, a JSON Schema's `$id`, a pinned version of the Python
//! package. `repository` is unset while no published release exists, so today no file may
//! carry a copy at all (src/upstream.rs).
//!
//! Test sources are scanned for placeholders only: they stand up fake repositories and
//! releases (`acme/plugins`, `v9.9.9`) on purpose.

use std::path::Path;
use std::process::Command;

use regex::Regex;

/// What stood in for the home before Cargo.toml held it.
const PLACEHOLDERS: &[&str] = &[
    "PLUGINS_REPO",
    "OWNER/",
    "owner/plugins",
    "plugins.invalid",
    "plugins.dev",
    "this repository's URL>",
];

/// Owners of the third-party actions the workflows and docs use.
const THIRD_PARTY_ACTIONS: &[&str] = &[
    "actions",
    "github",
    "dtolnay",
    "pypa",
    "rust-lang",
    "Swatinem",
];

/// The JSON Schema whose `$id` is a host's own: AWorld's shipped `plugin.schema.json`.
const HOST_SCHEMA_IDS: &[&str] = &["https://aworld.dev/schemas/plugin.schema.json"];

/// This file: it names the placeholders it looks for.
const SELF: &str = "tests/cli/upstream.rs";

/// `Cargo.toml`'s `repository` (None when unset) and `version`.
fn home() -> (Option<String>, String) {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let package = doc["package"].as_table().unwrap();
    let repository = package
        .get("repository")
        .map(|r| r.as_str().unwrap().trim_end_matches('/').to_owned());
    let version = package["version"].as_str().unwrap().to_owned();
    // The binary was built from the same Cargo.toml.
    assert_eq!(
        repository.as_deref(),
        plugins::upstream::repository(),
        "the binary's repository"
    );
    assert_eq!(version, plugins::upstream::VERSION);
    (repository, version)
}

/// Every tracked text file: (path, contents).
fn tracked() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(out.status.success(), "git ls-files");
    let listed = String::from_utf8(out.stdout).unwrap();
    let files: Vec<(String, String)> = listed
        .split('\0')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let bytes = std::fs::read(root.join(p)).ok()?;
            Some((p.to_owned(), String::from_utf8(bytes).ok()?))
        })
        .collect();
    assert!(files.len() > 100, "{} tracked text files", files.len());
    files
}

/// Whether `found` is a copy of the home that matches `repository` (`owner/name` for
/// `uses:`, the URL otherwise).
fn is_home(found: &str, repository: Option<&str>) -> bool {
    repository.is_some_and(|repo| {
        found.trim_end_matches(".git") == repo
            || repo.strip_prefix("https://github.com/") == Some(found)
    })
}

/// What `text` (the file `path`) gets wrong about the home, one line each.
fn problems(path: &str, text: &str, repository: Option<&str>, version: &str) -> Vec<String> {
    let uses = Regex::new(r#"uses:\s*([^\s@`'"]+)@([^\s`'"]+)"#).unwrap();
    let repo = Regex::new(r"^\s*(?:#\s*)?-?\s*repo:\s*(\S+)").unwrap();
    let rev = Regex::new(r"\brev:\s*v(\d+\.\d+\.\d+)").unwrap();
    let crate_url = Regex::new(r"[a-z]+://[^\s/]+/[^\s/]+/agent-host-plugins[^\s)`]*").unwrap();
    let id = Regex::new(r#""\$id":\s*"([^"]+)""#).unwrap();
    let pin = Regex::new(r"agent-host-plugins==(\d[^\s`'\x22]*)").unwrap();
    let in_tests = path.starts_with("tests/");
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = format!("{path}:{}", n + 1);
        for p in PLACEHOLDERS.iter().filter(|p| line.contains(*p)) {
            if *p != "PLUGINS_REPO" || line.replace("PLUGINS_REPOSITORY", "").contains(p) {
                found.push(format!("{at}: placeholder {p:?}: {line}"));
            }
        }
        if in_tests {
            continue;
        }
        for c in uses.captures_iter(line) {
            let (action, reference) = (&c[1], &c[2]);
            let owner = action.split('/').next().unwrap_or_default();
            if action.starts_with("./")
                || action.starts_with("docker://")
                || THIRD_PARTY_ACTIONS.contains(&owner)
                || action.starts_with("${{")
            {
                continue;
            }
            if !is_home(action, repository) {
                found.push(format!(
                    "{at}: `uses: {action}` is not Cargo.toml's repository: {line}"
                ));
            } else if reference != format!("v{version}") {
                found.push(format!(
                    "{at}: `uses: …@{reference}` is not v{version}: {line}"
                ));
            }
        }
        if let Some(c) = repo.captures(line) {
            let url = &c[1];
            let remote = url.contains("://") || url.contains('@');
            if remote && !is_home(url, repository) {
                found.push(format!(
                    "{at}: `repo: {url}` is not Cargo.toml's repository: {line}"
                ));
            }
        }
        for c in rev.captures_iter(line).chain(pin.captures_iter(line)) {
            if c[1] != *version {
                found.push(format!(
                    "{at}: version {} is not Cargo.toml's {version}: {line}",
                    &c[1]
                ));
            }
        }
        for m in crate_url.find_iter(line) {
            let url = m.as_str();
            if !repository.is_some_and(|r| url.starts_with(r)) {
                found.push(format!("{at}: {url} is not under Cargo.toml's repository"));
            }
        }
        for c in id.captures_iter(line) {
            let schema = &c[1];
            let ours = repository.is_some_and(|r| schema.starts_with(r));
            if !ours && !HOST_SCHEMA_IDS.contains(&schema) {
                found.push(format!(
                    "{at}: $id {schema} is not under Cargo.toml's repository"
                ));
            }
        }
    }
    found
}

#[test]
fn every_tracked_file_names_the_home_as_cargo_toml_does() {
    let (repository, version) = home();
    let found: Vec<String> = tracked()
        .iter()
        .filter(|(path, _)| path != SELF)
        .flat_map(|(path, text)| problems(path, text, repository.as_deref(), &version))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The scan finds what it looks for: each kind of stray copy, in a file of its kind.
#[test]
fn the_scan_finds_each_kind_of_stray_copy() {
    let version = "0.1.0";
    let cases = [
        ("README.md", "uses: PLUGINS_REPO@v0.1.0"),
        ("README.md", "  - uses: someone/plugins@v0.1.0"),
        (
            "docs/cli.md",
            "  - repo: https://github.com/someone/plugins",
        ),
        (".pre-commit-hooks.yaml", "#       rev: v0.0.9"),
        ("docs/x.md", "pip install agent-host-plugins==0.0.9"),
        (
            "docs/x.md",
            "see https://github.com/someone/agent-host-plugins/releases",
        ),
        (
            "src/x.rs",
            r#"  "$id": "https://example.com/schemas/aoe.json","#,
        ),
        ("tests/cli/x.rs", "https://github.com/OWNER/plugins"),
    ];
    for (path, line) in cases {
        assert!(
            !problems(path, line, None, version).is_empty(),
            "{path}: {line}"
        );
    }
    let fine = [
        ("README.md", "  - uses: actions/checkout@v7"),
        ("README.md", "  - uses: ./.plugins"),
        ("docs/cli.md", "  - repo: ../plugins"),
        ("docs/cli.md", "    rev: v0.1.0"),
        (
            "action.yml",
            "PLUGINS_REPOSITORY: ${{ github.action_repository }}",
        ),
        ("tests/cli/x.rs", "uses: acme/plugins@v9.9.9"),
        (
            "docs/schema/aworld.plugin.schema.json",
            r#""$id": "https://aworld.dev/schemas/plugin.schema.json","#,
        ),
    ];
    for (path, line) in fine {
        assert_eq!(problems(path, line, None, version), Vec::<String>::new());
    }
    // Once repository is set, its own copies pass and others still fail.
    let repo = Some("https://github.com/someone/agent-host-plugins");
    assert!(
        problems(
            "README.md",
            "uses: someone/agent-host-plugins@v0.1.0",
            repo,
            version
        )
        .is_empty()
    );
    assert_eq!(
        problems(
            "README.md",
            "uses: someone/agent-host-plugins@v0.0.9",
            repo,
            version
        )
        .len(),
        1
    );
    assert!(
        problems(
            "docs/x.md",
            "  - repo: https://github.com/someone/agent-host-plugins",
            repo,
            version
        )
        .is_empty()
    );
    assert!(problems("src/x.rs", r#""$id": "https://github.com/someone/agent-host-plugins/blob/v0.1.0/docs/schema/x.json""#, repo, version).is_empty());
    assert_eq!(
        problems(
            "README.md",
            "uses: other/agent-host-plugins@v0.1.0",
            repo,
            version
        )
        .len(),
        1
    );
}
