//! Tests compare what users see (issue #41, item 6): in the files converted to
//! `Ran::expect(code, stdout, stderr)`, a `.parts()` (the exit code and both streams, judged
//! by hand) stays only where a snapshot cannot work, with the reason on its own line or the
//! line above: `// parts: <reason>`.

use std::path::Path;

/// The test files whose runs are checked with `.expect` snapshots, relative to `tests/cli/`.
const CONVERTED: &[&str] = &[
    "doctor.rs",
    "hosts.rs",
    "new.rs",
    "cli.rs",
    "validate_aoe.rs",
    "validate_aworld.rs",
    "formats.rs",
    "search.rs",
    "bad_input.rs",
    "views.rs",
    "trust.rs",
    "hostile.rs",
    "deps.rs",
    "lock_contract.rs",
    "install.rs",
    "update.rs",
    "rollback.rs",
    "crash.rs",
    "pool.rs",
    "release.rs",
    "resolve.rs",
    "featured.rs",
    "review.rs",
    "signed.rs",
    "github.rs",
    "frozen.rs",
    "auth.rs",
    "bounds.rs",
    "workflows.rs",
    "validate_protoagent.rs",
    "protoagent_0218.rs",
    "lock_fuzz.rs",
    "sarif.rs",
    "pre_commit.rs",
    "lsp.rs",
    "home_host.rs",
    "editor.rs",
    "protoagent_0218_install.rs",
    "monorepo.rs",
    "pins.rs",
    "ssh.rs",
    "soak.rs",
];

/// Each `.parts()` in `text` (comment lines aside) without a `// parts:` reason on its line
/// or the line above, as its line number (from 1) and the line.
fn unexplained(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let reason = |l: &str| l.contains("// parts:");
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//") && l.contains(".parts()"))
        .filter(|(i, l)| !reason(l) && !i.checked_sub(1).is_some_and(|p| reason(lines[p])))
        .map(|(i, l)| (i + 1, l.trim().to_owned()))
        .collect()
}

/// The rule itself: a reason on the line or the line above explains a `.parts()`; one two
/// lines up, a plain comment or none does not.
#[test]
fn a_parts_call_needs_its_reason_beside_it() {
    let text = "\
let a = ran.parts(); // parts: huge
// parts: the order of these lines varies
let b = ran.parts();
// parts: too far up
let x = 1;
let c = ran.parts();
// a comment that gives no reason
let d = ran.parts();
// `.parts()` named in a comment is no call
let e = ran.redacted_parts();
";
    assert_eq!(
        unexplained(text),
        [
            (6, "let c = ran.parts();".to_owned()),
            (8, "let d = ran.parts();".to_owned()),
        ]
    );
}

/// The converted files keep to it, so they cannot drift back to hand-written checks.
#[test]
fn converted_files_use_parts_only_with_a_reason() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let mut found = Vec::new();
    for file in CONVERTED {
        let text = std::fs::read_to_string(dir.join(file))
            .unwrap_or_else(|e| panic!("tests/cli/{file}: {e}"));
        for (line, call) in unexplained(&text) {
            found.push(format!("tests/cli/{file}:{line}: {call}"));
        }
    }
    assert!(
        found.is_empty(),
        "`.parts()` without a `// parts: <reason>` on its line or the line above (use \
         `.expect(code, stdout, stderr)`, or say why a snapshot cannot work):\n{}",
        found.join("\n")
    );
}
