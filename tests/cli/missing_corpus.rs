//! Without the shared corpus, the corpus tests skip with one line each, unless `CI` is set.

use std::process::Command;

use snapbox::{assert_data_eq, str};

use crate::support::run;

/// Run this test binary's corpus tests with `PLUGINS_CORPUS_DIR` at an empty directory.
fn corpus_tests(ci: bool) -> (i32, String, String) {
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "corpus_",
        "lock::protoagent_locks",
        "--skip",
        "missing_corpus",
    ])
    .env("PLUGINS_CORPUS_DIR", empty.path())
    .env_remove("RUST_TEST_THREADS")
    .env_remove("RUST_BACKTRACE");
    if ci {
        cmd.env("CI", "true");
    } else {
        cmd.env_remove("CI");
    }
    let (code, stdout, stderr) = run(&mut cmd);
    let redact = |s: String| s.replace(&empty.path().display().to_string(), "[EMPTY]");
    (code, redact(stdout), redact(stderr))
}

/// The lines of `text` that start with `prefix`, sorted (tests run in parallel).
fn lines(text: &str, prefix: &str) -> String {
    let mut lines: Vec<&str> = text.lines().filter(|l| l.starts_with(prefix)).collect();
    lines.sort_unstable();
    lines.join("\n") + "\n"
}

#[test]
fn a_fresh_clone_skips_the_corpus_tests_with_one_line_each() {
    let (code, stdout, stderr) = corpus_tests(false);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_data_eq!(
        lines(&stderr, ""),
        str![[r#"
skipped corpus_aoe::every_corpus_manifest_matches_the_upstream_verdict: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aoe::install_refusals_from_the_notes: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aoe::plugin_mcp_says_why_on_both_profiles: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aoe::schema_never_disagrees_with_the_host_on_the_corpus: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aoe::the_jinja_template_is_not_toml: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aworld::capabilities_and_legacy_roots: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aworld::every_corpus_entry_matches_the_upstream_verdict: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_aworld::the_schema_agrees_with_sources_md: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_protoagent::degraded_plugins_warn_as_the_host_does: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_protoagent::every_corpus_plugin_matches_the_upstream_verdict: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_protoagent::min_version_against_the_host_version: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped corpus_protoagent::the_two_host_profiles_read_the_corpus_alike: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR
skipped lock::protoagent_locks_round_trip_byte_stable: the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR

"#]]
    );
    assert_data_eq!(
        lines(&stdout, "test result"),
        str![[r#"
test result: ok. 13 passed; 0 failed; 0 ignored; 0 measured; [..] filtered out; finished in [..]s

"#]]
    );
}

#[test]
fn under_ci_a_missing_corpus_fails() {
    let (code, stdout, _) = corpus_tests(true);
    assert_eq!(code, 101, "{stdout}");
    assert_data_eq!(
        lines(&stdout, "the shared corpus") + &lines(&stdout, "test result"),
        str![[r#"
the shared corpus is not at [EMPTY]; set PLUGINS_CORPUS_DIR (CI is set, so corpus tests fail instead of skipping)
...
test result: FAILED. 0 passed; 13 failed; 0 ignored; 0 measured; [..] filtered out; finished in [..]s

"#]]
    );
}
