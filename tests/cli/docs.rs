//! Every diagnostic code is documented (one heading with an example) and tested.

use std::path::Path;

use plugins::diagnostic::Code;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

#[test]
fn every_code_has_a_documented_heading_with_an_example() {
    let doc = read("docs/diagnostics.md");
    let headings: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("### `").and_then(|l| l.strip_suffix('`')))
        .collect();
    for code in Code::ALL {
        assert!(
            headings.contains(&code.as_str()),
            "docs/diagnostics.md has no `### `{code}`` heading"
        );
        let section = doc.split(&format!("### `{code}`")).nth(1).unwrap();
        let section = section.split("\n### ").next().unwrap();
        assert!(
            section.contains("```"),
            "{code}: the section has no example block"
        );
    }
    for h in &headings {
        assert!(
            h.parse::<Code>().is_ok(),
            "docs/diagnostics.md documents unknown code {h}"
        );
    }
    assert_eq!(headings.len(), Code::ALL.len(), "one heading per code");
}

#[test]
fn every_code_is_exercised_by_a_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    collect(&root.join("tests/cli"), &mut files);
    collect(&root.join("src"), &mut files);
    let this_file = root.join("tests/cli/docs.rs");
    let tests: String = files
        .iter()
        .filter(|(path, _)| *path != this_file)
        .map(|(path, text)| {
            if path.starts_with(root.join("src")) && !path.ends_with("tests.rs") {
                // In src, only the unit tests count: a `tests.rs` module file, or what
                // follows `#[cfg(test)]`.
                text.split_once("#[cfg(test)]").map_or("", |(_, t)| t)
            } else {
                text.as_str()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let untested: Vec<&str> = Code::ALL
        .iter()
        .filter(|code| {
            let variant = format!("Code::{code:?}");
            let quoted = format!("{}\"", code.as_str());
            // A snapshot of a report shows the code on a line of its own; one of a log line,
            // in brackets after its level (`warning[plugins::…]: …`).
            let shown = format!("\n{}\n", code.as_str());
            let logged = format!("[{}]: ", code.as_str());
            !tests.contains(&variant)
                && !tests.contains(&quoted)
                && !tests.contains(&shown)
                && !tests.contains(&logged)
        })
        .map(|c| c.as_str())
        .collect();
    assert!(
        untested.is_empty(),
        "no test mentions these codes: {untested:#?}"
    );
}

fn collect(dir: &Path, out: &mut Vec<(std::path::PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path, text));
        }
    }
}
