//! Shared test helpers: the corpus location, running the binary, temp plugin roots.

use std::io::Write;
use std::path::{Path, PathBuf};
pub(crate) mod bin;
pub(crate) mod clock;
pub(crate) mod fixtures;
pub(crate) mod git;
pub(crate) mod home;
pub(crate) mod hooks;
pub(crate) mod hosts;
#[cfg(target_os = "linux")]
pub(crate) mod kill;
pub(crate) mod measure;
pub(crate) mod net;
pub(crate) mod pinned;
pub(crate) mod protoagent;
pub(crate) mod registry;
pub(crate) mod workflow;

pub(crate) use bin::{BIN, Plugins, Ran, assert_redacted, untimed};
pub(crate) use fixtures::*;

use std::process::{Command, Output};

/// The shared corpus: `PLUGINS_CORPUS_DIR`, else `shared/corpus` beside the checkout
/// (CI lays it out so).
///
/// `None` when it is absent: the calling test returns at once, after one `skipped` line
/// on stderr, so that `cargo test` passes on a fresh clone. When `CI` is set, a missing
/// corpus fails the test instead, so CI never skips silently.
pub(crate) fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PLUGINS_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("aoe/SOURCES.md").is_file() {
        return Some(dir);
    }
    skip(
        &format!(
            "the shared corpus is not at {}; set PLUGINS_CORPUS_DIR",
            dir.display()
        ),
        "corpus tests",
    );
    None
}

/// A test that cannot run here (a tool, a venv or the corpus is missing): one
/// `skipped <test>: <why>` line on stderr, and the caller returns. Under `CI`, which
/// installs everything, a failure instead (naming `tests`), so CI never skips silently.
#[track_caller]
pub(crate) fn skip(why: &str, tests: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why} (CI is set, so {tests} fail instead of skipping)"
    );
    // libtest names each test's thread after the test.
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map_or(String::new(), |n| format!(" {n}"));
    // Straight to stderr: libtest hides what `eprintln!` prints in a passing test.
    let _ = writeln!(std::io::stderr(), "skipped{test}: {why}");
}

/// Whether util-linux `script` (a pseudo-terminal for [`Plugins::in_pty`]) is here; when
/// not, [`skip`].
pub(crate) fn have_pty() -> bool {
    let ok = Command::new("script").arg("--version").output().is_ok();
    if !ok {
        skip("no `script` (util-linux) for a pty", "terminal tests");
    }
    ok
}

/// Run another program (git, bash, `script`…) and capture: (exit code, stdout, stderr).
/// `plugins` itself runs through [`Plugins::run`].
pub(crate) fn run(cmd: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = cmd.output().expect("the program runs");
    (
        status.code().expect("exited normally"),
        String::from_utf8(stdout).expect("stdout is UTF-8"),
        String::from_utf8(stderr).expect("stderr is UTF-8"),
    )
}

/// A temp dir holding one aoe plugin root with `manifest` as its `aoe-plugin.toml`.
pub(crate) fn aoe_root(manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("aoe-plugin.toml"), manifest).expect("write manifest");
    dir
}

/// A small, valid aoe manifest that trips no lint when its worker exists
/// (the `tests/fixtures/aoe/hello` plugin README.md validates).
pub(crate) const CLEAN_AOE: &str = include_str!("../../fixtures/aoe/hello/aoe-plugin.toml");

/// A plugin root with [`CLEAN_AOE`] and its worker, so validation is silent.
pub(crate) fn clean_aoe_root() -> tempfile::TempDir {
    let dir = aoe_root(CLEAN_AOE);
    std::fs::create_dir(dir.path().join("bin")).unwrap();
    std::fs::write(dir.path().join("bin/worker"), "#!/bin/sh\n").unwrap();
    dir
}

/// Whether a corpus entry got its upstream verdict: the host class and `is_valid` both
/// agree with `valid`; otherwise a line for the failure list.
pub(crate) fn verdict_failure(
    name: &str,
    valid: bool,
    report: &plugins::validate::PluginReport,
) -> Option<String> {
    let got = &report.outcome;
    let class = if valid {
        plugins::manifest::HostClass::Valid
    } else {
        plugins::manifest::HostClass::Invalid
    };
    (got.class != class || report.is_valid() != valid).then(|| {
        format!(
            "{name}: expected valid={valid}, got {:?}: {:#?}",
            got.class, got.diagnostics
        )
    })
}

/// The diagnostics of a `--format json` plugin as (code, message, labelled text) triples.
pub(crate) fn diags(plugin: &serde_json::Value, text: &str) -> Vec<(String, String, String)> {
    plugin["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let label = d["labels"].get(0).map_or(String::new(), |l| {
                text[l["start"].as_u64().unwrap() as usize..l["end"].as_u64().unwrap() as usize]
                    .to_owned()
            });
            (
                d["code"].as_str().unwrap().to_owned(),
                d["message"].as_str().unwrap().to_owned(),
                label,
            )
        })
        .collect()
}

/// Create each listed file under `root` as an empty file, unless it exists
/// (corpus entries record file names whose contents do not matter).
pub(crate) fn touch_missing(root: &Path, files: &[String]) {
    for f in files {
        let path = root.join(f);
        if !path.exists() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
        }
    }
}

/// What a user sees from `plugins validate` run inside `root` (so paths show
/// relative, e.g. `aoe-plugin.toml`): (exit code, stdout).
pub(crate) fn validate_screen(root: &Path, extra: &[&str]) -> (i32, String) {
    let (code, stdout, stderr) = Plugins::new()
        .arg("validate")
        .args(extra)
        .current_dir(root)
        .run()
        .parts();
    assert!(stderr.is_empty(), "{stderr}");
    (code, stdout)
}

/// Copy the binary under test to `dest`, through `cp`: a file this multi-threaded test
/// process had open for writing could leak into a child another test forks meanwhile, and
/// executing the copy would then fail with "Text file busy" (ETXTBSY).
pub(crate) fn copy_binary(dest: &Path) {
    let status = Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_plugins"))
        .arg(dest)
        .status()
        .expect("cp runs");
    assert!(status.success(), "cp {}", dest.display());
}

/// The schema `docs/schema/output/<file>`, compiled; a missing one fails the test that asks.
pub(crate) fn output_schema(file: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/schema/output")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (every --json document has a schema)",
            path.display()
        )
    });
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&doc).unwrap()
}

/// `doc` checked against `docs/schema/output/<file>`: panics with every error.
pub(crate) fn assert_matches_output_schema(file: &str, doc: &serde_json::Value) {
    let errors: Vec<String> = output_schema(file)
        .iter_errors(doc)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "against {file}: {errors:#?}\n{doc:#}");
}

/// `plugins.1` and `plugins-<sub>[-<sub>…].1` for every visible subcommand.
pub(crate) fn man_pages() -> Vec<String> {
    fn walk(cmd: &clap::Command, name: &str, out: &mut Vec<String>) {
        out.push(format!("{name}.1"));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            if sub.get_name() != "help" {
                walk(sub, &format!("{name}-{}", sub.get_name()), out);
            }
        }
    }
    use clap::CommandFactory;
    let mut out = Vec::new();
    walk(&plugins::cli::Cli::command(), "plugins", &mut out);
    assert!(out.len() > 20, "{out:?}");
    out
}
