//! `plugins new`: generated trees (snapshots), `validate --strict` on each, the
//! generated plugins' own tests, and refusals.

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::str;

use crate::support::*;

const COMBOS: &[(&str, &str)] = &[
    ("aoe", "python"),
    ("aoe", "node"),
    ("aoe", "rust"),
    ("aoe", "none"),
    ("aworld", "python"),
    ("protoagent", "python"),
];

fn generate(parent: &Path, dialect: &str, runtime: &str, tests: bool) -> PathBuf {
    let dir = parent.join(format!("{dialect}-{runtime}"));
    let mut cmd = Plugins::new();
    cmd.args([
        "new",
        "Demo Board",
        "--yes",
        "--dialect",
        dialect,
        "--runtime",
        runtime,
        "--dir",
    ])
    .arg(&dir);
    if tests {
        cmd.arg("--with-tests");
    }
    cmd.run().success();
    dir
}

/// Every file `plugins new` wrote (not the repository `git init` made).
fn tree(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p == root.join(".git") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The tree and the manifest, compared with `tests/snapshots/new/<dialect>-<runtime>.txt`.
#[test]
fn generated_trees_match_their_snapshots() {
    let tmp = tempfile::tempdir().unwrap();
    for (dialect, runtime) in COMBOS {
        let root = generate(tmp.path(), dialect, runtime, true);
        let manifest = [
            "aoe-plugin.toml",
            ".aworld-plugin/plugin.json",
            "protoagent.plugin.yaml",
        ]
        .iter()
        .map(|m| root.join(m))
        .find(|p| p.exists())
        .unwrap();
        let snapshot = format!(
            "# plugins new \"Demo Board\" --dialect {dialect} --runtime {runtime} --with-tests\n{}\n\n## {}\n{}",
            tree(&root).join("\n"),
            manifest.strip_prefix(&root).unwrap().display(),
            std::fs::read_to_string(&manifest).unwrap()
        );
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/snapshots/new/{dialect}-{runtime}.txt"));
        if std::env::var_os("SNAPSHOTS").is_some_and(|v| v == "overwrite") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &snapshot).unwrap();
        } else {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                committed,
                snapshot,
                "{} drifted; `SNAPSHOTS=overwrite cargo test --test cli new` updates it",
                path.display()
            );
        }
    }
}

#[test]
fn every_generated_plugin_validates_strict_on_every_profile() {
    let tmp = tempfile::tempdir().unwrap();
    // The 24 runs, each as `# case: code` and what it printed, in one snapshot.
    let mut seen = String::new();
    for (dialect, runtime) in COMBOS {
        for tests in [false, true] {
            let parent = tmp.path().join(if tests { "with" } else { "without" });
            let root = generate(&parent, dialect, runtime, tests);
            for api in ["15", "12"] {
                let ran = Plugins::new()
                    .redact("[ROOT]", &root)
                    .args(["validate", "--strict", "--aoe-api", api, "--path"])
                    .arg(&root)
                    .run();
                assert!(
                    !ran.stdout.contains('⚠') && !ran.stdout.contains('×'),
                    "{}",
                    ran.stdout
                );
                seen += &format!(
                    "# {dialect}/{runtime} tests={tests} api {api}: {}\n{}{}",
                    ran.code,
                    ran.redacted(&ran.stdout),
                    ran.redacted(&ran.stderr)
                );
            }
        }
    }
    assert_redacted(
        &seen,
        &[],
        str![[r#"
# aoe/python tests=false api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/python tests=false api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/python tests=true api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/python tests=true api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/node tests=false api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/node tests=false api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/node tests=true api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/node tests=true api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/rust tests=false api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/rust tests=false api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/rust tests=true api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/rust tests=true api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/none tests=false api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/none tests=false api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/none tests=true api 15: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aoe/none tests=true api 12: 0
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [ROOT]
# aworld/python tests=false api 15: 0
    Valid aworld plugin `demo-board` 0.1.0 at [ROOT]
# aworld/python tests=false api 12: 0
    Valid aworld plugin `demo-board` 0.1.0 at [ROOT]
# aworld/python tests=true api 15: 0
    Valid aworld plugin `demo-board` 0.1.0 at [ROOT]
# aworld/python tests=true api 12: 0
    Valid aworld plugin `demo-board` 0.1.0 at [ROOT]
# protoagent/python tests=false api 15: 0
    Valid protoagent plugin `demo-board` 0.1.0 at [ROOT]
# protoagent/python tests=false api 12: 0
    Valid protoagent plugin `demo-board` 0.1.0 at [ROOT]
# protoagent/python tests=true api 15: 0
    Valid protoagent plugin `demo-board` 0.1.0 at [ROOT]
# protoagent/python tests=true api 12: 0
    Valid protoagent plugin `demo-board` 0.1.0 at [ROOT]

"#]],
    );
}

/// The editor directives (`"$schema"` in AWorld's plugin.json, the
/// yaml-language-server modeline in protoagent.plugin.yaml) leave the real
/// hosts' verdict alone: valid, with no warnings.
#[test]
fn generated_manifests_are_valid_to_the_real_hosts() {
    let Some(python) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for (host, manifest, directive) in [
        ("aworld", ".aworld-plugin/plugin.json", "\"$schema\""),
        (
            "protoagent",
            "protoagent.plugin.yaml",
            "yaml-language-server",
        ),
    ] {
        let root = generate(tmp.path(), host, "python", false);
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        assert!(text.contains(directive), "{host}: {text}");
        cases.push(serde_json::json!({ "host": host, "text": text }));
    }
    let verdicts = crate::support::hosts::Host::start(&python).judge(&cases);
    for v in &verdicts {
        assert_eq!(v["verdict"], "valid", "{v}");
        assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
    }
}

fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn generated_python_tests_pass() {
    let tmp = tempfile::tempdir().unwrap();
    for dialect in ["aoe", "aworld", "protoagent"] {
        let root = generate(tmp.path(), dialect, "python", true);
        let out = Command::new("python3")
            .args(["-m", "unittest", "discover", "-s", "tests", "-v"])
            .current_dir(&root)
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{dialect}: {log}");
        assert!(
            log.contains("OK") && !log.contains("Ran 0 tests"),
            "{dialect}: {log}"
        );
    }
}

#[test]
#[allow(clippy::print_stderr)] // say why the test did nothing
fn generated_node_tests_pass_where_node_exists() {
    if !has("node") {
        eprintln!("skipping: node is not installed");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let root = generate(tmp.path(), "aoe", "node", true);
    let out = Command::new("node")
        .args(["--test", "test/"])
        .current_dir(&root)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && log.contains("# pass 4"), "{log}");
}

#[test]
fn generated_rust_tests_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let root = generate(tmp.path(), "aoe", "rust", true);
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--locked", "--offline", "-q"])
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", tmp.path().join("target"))
        .output()
        .unwrap();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{log}");
    assert!(log.contains("3 passed"), "{log}");
}

#[test]
fn never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let root = generate(tmp.path(), "protoagent", "python", false);
    std::fs::write(root.join("__init__.py"), "# mine\n").unwrap();
    Plugins::new()
        .tmp(tmp.path())
        // Unwrapped: where the report wraps depends on the temp dir's length.
        .env("COLUMNS", "400")
        .args([
            "new",
            "Demo Board",
            "--yes",
            "--dialect",
            "protoagent",
            "--dir",
        ])
        .arg(&root)
        .run()
        .expect(2, str![""], str![[r#"
plugins::new::exists

  × `[TMP]/protoagent-python/.github/workflows/plugin.yml` already exists; `plugins new` never overwrites files
  help: choose another --dir, or remove the existing files

"#]]);
    assert_eq!(
        std::fs::read_to_string(root.join("__init__.py")).unwrap(),
        "# mine\n"
    );
}

#[test]
fn refusals_propose_a_valid_id() {
    let tmp = tempfile::tempdir().unwrap();
    for (args, stderr) in [
        (
            &["new", "Sync", "--dialect", "protoagent"][..],
            str![[r#"
plugins::new::refused

  × plugin id "sync" is reserved: it would shadow a core /api/plugins/ route
  help: try `--id sync-plugin`

"#]],
        ),
        (
            &["new", "2 Fast", "--dialect", "aoe"],
            str![[r#"
plugins::new::refused

  × invalid plugin id "dev.example.2-fast": each dot-separated segment must start with a lowercase
  │ letter
  help: try `--id dev.example.plugin-2-fast`

"#]],
        ),
        (
            &["new", "Web", "--dialect", "aoe", "--id", "aoe.web"],
            str![[r#"
plugins::new::refused

  × plugin id "aoe.web" is reserved: aoe.* and agent-of-empires.* belong to featured plugins
  help: try `--id dev.example.web`

"#]],
        ),
        (
            &["new", "x", "--dialect", "aworld", "--runtime", "rust"],
            str![[r#"
plugins::new::refused

  × aworld plugins have no `rust` runtime
  help: choose one of: python

"#]],
        ),
    ] {
        Plugins::new()
            .args(args)
            .arg("--yes")
            .current_dir(tmp.path())
            .run()
            .expect(2, str![""], stderr);
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
    // Accepting the proposal works.
    Plugins::new()
        .args([
            "new",
            "Sync",
            "--dialect",
            "protoagent",
            "--id",
            "sync-plugin",
            "--yes",
        ])
        .current_dir(tmp.path())
        .run()
        .expect(0, str![[r#"
   Created protoagent plugin `sync-plugin` (python runtime) in sync
            .github/workflows/plugin.yml
            .plugins-schema.json
            README.md
            __init__.py
            protoagent.plugin.yaml
            skills/sync-plugin-skill/SKILL.md
       Git initialized a repository in sync
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd sync && plugins validate --strict

"#]], str![[""]]);
    assert!(tmp.path().join("sync/protoagent.plugin.yaml").is_file());
}

#[test]
fn scripts_get_clear_errors_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    Plugins::new()
        .args(["new", "demo"])
        .current_dir(tmp.path())
        .run()
        .expect(
            2,
            str![[""]],
            str![[r#"
plugins::usage::invalid_argument

  × Dialect (aoe, aworld, protoagent): pass --dialect (no terminal to ask on)

"#]],
        );
    let ran = Plugins::new()
        .args(["new", "demo", "--dialect", "aworld", "--json"])
        .current_dir(tmp.path())
        .run();
    ran.expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "root": "demo",
  "dialect": "aworld",
  "runtime": "python",
  "id": "demo",
  "files": [
    ".aworld-plugin/plugin.json",
    ".github/workflows/plugin.yml",
    ".plugins-schema.json",
    "README.md",
    "commands/hello.md",
    "commands/status.py",
    "hooks/task_completed.py",
    "hud/status.py"
  ],
  "kept": [],
  "git": "initialized"
}

"#]],
        str![[""]],
    );
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(doc["id"], "demo");
    assert_eq!(doc["root"], "demo");
    assert!(
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == ".aworld-plugin/plugin.json")
    );
    Plugins::new()
        .args(["new", "--list"])
        .run()
        .expect(0, str![[r#"
templates (dialect / runtime):
  aoe         python  (default)
  aoe         node
  aoe         rust
  aoe         none
  aworld      python  (default)
  protoagent  python  (default)

variables:
  {{name}}              display name, as given
  {{id}}                plugin id (aoe: dotted namespace.slug; others: the slug), or --id
  {{slug}}              kebab-case name, for directories, packages and binaries
  {{module}}            the slug with `_` for `-`, for Python modules and Rust crates
  {{description}}       one line, --description or a default
  {{plugins_release}}   the GitHub release the CI workflow downloads `plugins` from (this version's; empty with --ci-from, or while none is published)
  {{plugins_git}}       the git URL the CI workflow builds `plugins` from without a release (--ci-from, else Cargo.toml's repository, else empty)

"#]], str![[""]]);
}

#[test]
fn prompts_on_a_terminal() {
    // util-linux `script` gives the process a pseudo-terminal; answers arrive on it.
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Plugins::new()
        .args(["new", "Tty Demo", "--dir", "tty-demo"])
        .current_dir(tmp.path())
        .in_pty()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"aoe\nrust\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(
        screen.contains("Dialect (aoe, aworld, protoagent) [aoe]:")
            && screen.contains("Runtime (python, node, rust, none) [python]:"),
        "{screen}"
    );
    assert!(
        tmp.path().join("tty-demo/Cargo.toml").is_file(),
        "the answers chose the rust runtime: {screen}"
    );
}

/// Run `plugins new <args>` on a pseudo-terminal (util-linux `script`) in `dir`,
/// typing each answer once its prompt has appeared (so the echo lands after
/// it); returns (exit code, screen with `\r\n` as `\n`).
fn converse(dir: &Path, args: &[&str], answers: &[(&str, &str)]) -> (i32, String) {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    let mut child = Plugins::new()
        .arg("new")
        .args(args)
        .current_dir(dir)
        .in_pty()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn();
    let screen = Arc::new(Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let screen = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let mut stdin = child.stdin.take().unwrap();
    let mut seen = 0;
    for (prompt, answer) in answers {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let text = screen.lock().unwrap().clone();
            if let Some(i) = text[seen..].find(prompt) {
                seen += i + prompt.len();
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no prompt {prompt:?} on the screen:\n{text}"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        stdin.write_all(answer.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
    // A command that asks for more than `answers` would wait forever: stop it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!(
                "`plugins new {args:?}` is still waiting:\n{}",
                screen.lock().unwrap()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    drop(stdin);
    reader.join().unwrap();
    let screen = screen.lock().unwrap().replace("\r\n", "\n");
    (status.code().unwrap_or(-1), screen)
}

#[test]
fn empty_answers_take_the_defaults_the_prompts_show() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, screen) = converse(
        tmp.path(),
        &["Tty Demo", "--dir", "tty-demo"],
        &[("[aoe]: ", "\n"), ("[python]: ", "\n")],
    );
    assert_eq!(code, 0, "{screen}");
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
Dialect (aoe, aworld, protoagent) [aoe]: 
Runtime (python, node, rust, none) [python]: 
   Created aoe plugin `dev.example.tty-demo` (python runtime) in tty-demo
            .github/workflows/plugin.yml
            .gitignore
            .plugins-schema.json
            CHANGELOG.md
            README.md
            aoe-plugin.toml
            pyproject.toml
            src/tty_demo/__init__.py
            src/tty_demo/rpc.py
            src/tty_demo/worker.py
       Git initialized a repository in tty-demo
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd tty-demo && plugins validate --strict

"#]]
    );
    assert!(tmp.path().join("tty-demo/aoe-plugin.toml").is_file());
}

#[test]
fn an_unknown_answer_asks_again() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, screen) = converse(
        tmp.path(),
        &["Tty Demo", "--dir", "tty-demo"],
        &[("[aoe]: ", "aeo\n"), ("[aoe]: ", "ProtoAgent\n")],
    );
    assert_eq!(code, 0, "{screen}");
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
Dialect (aoe, aworld, protoagent) [aoe]: aeo
unknown dialect "aeo"; choose aoe, aworld, protoagent, or press Enter for aoe
Dialect (aoe, aworld, protoagent) [aoe]: ProtoAgent
   Created protoagent plugin `tty-demo` (python runtime) in tty-demo
            .github/workflows/plugin.yml
            .plugins-schema.json
            README.md
            __init__.py
            protoagent.plugin.yaml
            skills/tty-demo-skill/SKILL.md
       Git initialized a repository in tty-demo
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd tty-demo && plugins validate --strict

"#]]
    );
    assert!(tmp.path().join("tty-demo/protoagent.plugin.yaml").is_file());
}

#[test]
fn ctrl_d_cancels_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, screen) = converse(
        tmp.path(),
        &["Tty Demo", "--dir", "tty-demo"],
        &[("[aoe]: ", "aoe\n"), ("[python]: ", "\u{4}")],
    );
    assert_eq!(code, 2, "{screen}");
    assert_eq!(screen.lines().nth(2), Some("plugins::new::cancelled"));
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
Dialect (aoe, aworld, protoagent) [aoe]: aoe
Runtime (python, node, rust, none) [python]: 
plugins::new::cancelled

  × cancelled: no answer (end of input); nothing was written
  help: answer the prompts, or pass --runtime to skip them

"#]]
    );
    assert!(!tmp.path().join("tty-demo").exists(), "nothing written");
}

#[test]
fn a_reserved_id_is_refused_before_the_runtime_is_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, screen) = converse(
        tmp.path(),
        &["Web", "--id", "aoe.web"],
        &[("[aoe]: ", "aoe\n")],
    );
    assert_eq!(code, 2, "{screen}");
    snapbox::assert_data_eq!(
        screen,
        snapbox::str![[r#"
Dialect (aoe, aworld, protoagent) [aoe]: aoe
plugins::new::refused

  × plugin id "aoe.web" is reserved: aoe.* and agent-of-empires.* belong to featured plugins
  help: try `--id dev.example.web`

"#]]
    );
}

#[test]
fn a_fresh_github_repository_keeps_its_readme_gitignore_and_license() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("demo-board");
    crate::support::git::Repo::init(&repo);
    for (file, text) in [
        ("README.md", "# demo-board\n"),
        (".gitignore", "target/\n*.log\n"),
        ("LICENSE", "MIT License\n"),
    ] {
        std::fs::write(repo.join(file), text).unwrap();
    }
    Plugins::new()
        .args([
            "new",
            "Demo Board",
            "--yes",
            "--dialect",
            "aoe",
            "--runtime",
            "none",
        ])
        .current_dir(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Created aoe plugin `dev.example.demo-board` (none runtime) in demo-board
            .github/workflows/plugin.yml
            .plugins-schema.json
            CHANGELOG.md
            aoe-plugin.toml
      Kept .gitignore (it exists; `plugins new` never overwrites files)
            the template also ignores: .aoe-build/ __pycache__/ node_modules/
      Kept README.md (it exists; `plugins new` never overwrites files)
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd demo-board && plugins validate --strict

"#]],
            str![""],
        );
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "# demo-board\n",
        "never overwritten"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".gitignore")).unwrap(),
        "target/\n*.log\n"
    );
    Plugins::new()
        .redact("[REPO]", &repo)
        .args(["validate", "--strict", "--path"])
        .arg(&repo)
        .run()
        .expect(
            0,
            str![[r#"
    Valid aoe plugin `dev.example.demo-board` 0.1.0 at [REPO]

"#]],
            str![[""]],
        );
}

#[test]
fn a_new_directory_becomes_a_git_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let new = |dir: &str, extra: &[&str], path: Option<&Path>, expected: snapbox::data::Inline| {
        let mut cmd = Plugins::new();
        cmd.args(["new", "Demo", "--dialect", "aworld", "--json", "--dir", dir])
            .args(extra)
            .current_dir(tmp.path());
        if let Some(path) = path {
            cmd.env("PATH", path);
        }
        let ran = cmd.run();
        ran.expect(0, expected, str![""]);
        let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
        (
            doc["git"].as_str().unwrap().to_owned(),
            tmp.path().join(dir).join(".git").is_dir(),
        )
    };
    assert_eq!(
        new(
            "a",
            &[],
            None,
            str![[r#"
{
  "format_version": 1,
  "root": "a",
  "dialect": "aworld",
  "runtime": "python",
  "id": "demo",
  "files": [
    ".aworld-plugin/plugin.json",
    ".github/workflows/plugin.yml",
    ".plugins-schema.json",
    "README.md",
    "commands/hello.md",
    "commands/status.py",
    "hooks/task_completed.py",
    "hud/status.py"
  ],
  "kept": [],
  "git": "initialized"
}

"#]]
        ),
        ("initialized".into(), true)
    );
    assert_eq!(
        crate::support::git::git(&tmp.path().join("a"), &["rev-parse", "--show-toplevel"]),
        tmp.path()
            .join("a")
            .canonicalize()
            .unwrap()
            .to_string_lossy()
    );
    assert_eq!(
        new(
            "b",
            &["--no-git"],
            None,
            str![[r#"
{
  "format_version": 1,
  "root": "b",
  "dialect": "aworld",
  "runtime": "python",
  "id": "demo",
  "files": [
    ".aworld-plugin/plugin.json",
    ".github/workflows/plugin.yml",
    ".plugins-schema.json",
    "README.md",
    "commands/hello.md",
    "commands/status.py",
    "hooks/task_completed.py",
    "hud/status.py"
  ],
  "kept": [],
  "git": "skipped"
}

"#]]
        ),
        ("skipped".into(), false)
    );
    // Inside a work tree, the plugin joins that repository.
    assert_eq!(
        new(
            "a/nested",
            &[],
            None,
            str![[r#"
{
  "format_version": 1,
  "root": "a/nested",
  "dialect": "aworld",
  "runtime": "python",
  "id": "demo",
  "files": [
    ".aworld-plugin/plugin.json",
    ".github/workflows/plugin.yml",
    ".plugins-schema.json",
    "README.md",
    "commands/hello.md",
    "commands/status.py",
    "hooks/task_completed.py",
    "hud/status.py"
  ],
  "kept": [],
  "git": "inside-work-tree"
}

"#]]
        ),
        ("inside-work-tree".into(), false)
    );
    let no_git = tempfile::tempdir().unwrap();
    assert_eq!(
        new(
            "c",
            &[],
            Some(no_git.path()),
            str![[r#"
{
  "format_version": 1,
  "root": "c",
  "dialect": "aworld",
  "runtime": "python",
  "id": "demo",
  "files": [
    ".aworld-plugin/plugin.json",
    ".github/workflows/plugin.yml",
    ".plugins-schema.json",
    "README.md",
    "commands/hello.md",
    "commands/status.py",
    "hooks/task_completed.py",
    "hud/status.py"
  ],
  "kept": [],
  "git": "not-found"
}

"#]]
        ),
        ("not-found".into(), false)
    );
    Plugins::new()
        .args([
            "new",
            "Demo",
            "--dialect",
            "aoe",
            "--runtime",
            "none",
            "--dir",
            "d",
        ])
        .current_dir(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Created aoe plugin `dev.example.demo` (none runtime) in d
            .github/workflows/plugin.yml
            .gitignore
            .plugins-schema.json
            CHANGELOG.md
            README.md
            aoe-plugin.toml
       Git initialized a repository in d
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd d && plugins validate --strict

"#]],
            str![[""]],
        );
}

/// protoAgent 0.218's bundled ids (`notes`, `artifact`, `cowork`, …) and 0.218's three new
/// reserved routes: install refuses them, so `new` does, with install's code and words
/// for a bundled id; and `validate --strict` of such a plugin fails with the same.
#[test]
fn protoagent_bundled_and_0218_reserved_ids_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    Plugins::new()
        .args(["new", "notes", "--dialect", "protoagent", "--yes"])
        .current_dir(tmp.path())
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::install::builtin

  × plugin id 'notes' is a built-in — cannot install over it.
  help: protoAgent 0.218 ships a plugin with this id and its installer refuses to install over it;
        try `--id notes-plugin`

"#]],
        );
    for (args, code_, stderr) in [
        (
            &["Artifact"][..],
            "plugins::install::builtin",
            str![[r#"
plugins::install::builtin

  × plugin id 'artifact' is a built-in — cannot install over it.
  help: protoAgent 0.218 ships a plugin with this id and its installer refuses to install over it;
        try `--id artifact-plugin`

"#]],
        ),
        (
            &["Browser", "--id", "agent_browser"],
            "plugins::install::builtin",
            str![[r#"
plugins::install::builtin

  × plugin id 'agent_browser' is a built-in — cannot install over it.
  help: protoAgent 0.218 ships a plugin with this id and its installer refuses to install over it;
        try `--id browser-plugin`

"#]],
        ),
        (
            &["cowork"],
            "plugins::install::builtin",
            str![[r#"
plugins::install::builtin

  × plugin id 'cowork' is a built-in — cannot install over it.
  help: protoAgent 0.218 ships a plugin with this id and its installer refuses to install over it;
        try `--id cowork-plugin`

"#]],
        ),
        (
            &["bundles"],
            "plugins::new::refused",
            str![[r#"
plugins::new::refused

  × plugin id "bundles" is reserved: it would shadow a core /api/plugins/ route
  help: try `--id bundles-plugin`

"#]],
        ),
        (
            &["x", "--id", "install-deps"],
            "plugins::new::refused",
            str![[r#"
plugins::new::refused

  × plugin id "install-deps" is reserved: it would shadow a core /api/plugins/ route
  help: try `--id x-plugin`

"#]],
        ),
    ] {
        let ran = Plugins::new()
            .arg("new")
            .args(args)
            .args(["--dialect", "protoagent", "--yes"])
            .current_dir(tmp.path())
            .run();
        ran.expect(2, str![""], stderr);
        assert!(ran.stderr.starts_with(code_), "{}", ran.stderr);
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "nothing written"
    );
    // Not bundled in AWorld: the same name is fine there.
    Plugins::new()
        .args(["new", "notes", "--dialect", "aworld", "--yes", "--no-git"])
        .current_dir(tmp.path())
        .run()
        .expect(0, str![[r#"
   Created aworld plugin `notes` (python runtime) in notes
            .aworld-plugin/plugin.json
            .github/workflows/plugin.yml
            .plugins-schema.json
            README.md
            commands/hello.md
            commands/status.py
            hooks/task_completed.py
            hud/status.py
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd notes && plugins validate --strict

"#]], str![[""]]);
}

/// The generated workflow installs `plugins` from `--ci-from` with `cargo install --git`;
/// it names no action but GitHub's own.
#[test]
fn ci_from_names_where_the_workflow_installs_plugins_from() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    Plugins::new()
        .tmp(tmp.path())
        .args(["new", "demo", "--dialect", "aworld", "--yes", "--no-git"])
        .args(["--ci-from", "https://github.com/acme/plugins.git", "--dir"])
        .arg(&dir)
        .run()
        .expect(
            0,
            str![[r#"
   Created aworld plugin `demo` (python runtime) in [TMP]/demo
            .aworld-plugin/plugin.json
            .github/workflows/plugin.yml
            .plugins-schema.json
            README.md
            commands/hello.md
            commands/status.py
            hooks/task_completed.py
            hud/status.py

Next: cd [TMP]/demo && plugins validate --strict

"#]],
            str![[""]],
        );
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/plugin.yml")).unwrap();
    snapbox::assert_data_eq!(
        workflow,
        snapbox::str![[r#"
name: plugin
on: [push, pull_request]
permissions:
  contents: read
env:
  # The GitHub release of `plugins` to install: its archive is downloaded and checked against
  # its SHA-256. `plugins new` writes the release of the version that wrote this file, or
  # nothing while no published release of `plugins` exists yet.
  PLUGINS_RELEASE: ""
  # Without a release: the git repository `plugins` is built from (`plugins new --ci-from URL`
  # sets it), at PLUGINS_REF, a tag or branch (empty: its default branch).
  PLUGINS_GIT: "https://github.com/acme/plugins.git"
  PLUGINS_REF: ""
jobs:
  validate:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      security-events: write # upload the SARIF log to code scanning
    steps:
      - uses: actions/checkout@v7
      # The release, or the commit PLUGINS_REF names (what cargo builds): half the cache key.
      - name: resolve plugins
        id: plugins
        shell: bash
        run: |
          if [ -n "$PLUGINS_RELEASE" ]; then
            echo "rev=release" >> "$GITHUB_OUTPUT"
            echo "source=$(printf '%s' "$PLUGINS_RELEASE" | sha256sum | cut -c1-16)" >> "$GITHUB_OUTPUT"
            exit 0
          fi
          if [ -z "$PLUGINS_GIT" ]; then
            echo "::error::no published release of plugins exists yet: set PLUGINS_GIT in .github/workflows/plugin.yml (plugins new --ci-from URL)"
            exit 1
          fi
          ref="${PLUGINS_REF:-HEAD}"
          # An annotated tag's peeled line (ref^{}) names its commit.
          rev="$(git ls-remote "$PLUGINS_GIT" "$ref" "$ref^{}" |
            awk 'NR == 1 { first = $1 } index($2, "^{}") { peeled = $1 } END { print (peeled != "" ? peeled : first) }')"
          if [ -z "$rev" ]; then
            echo "::error::$PLUGINS_GIT has no ref $ref (set PLUGINS_REF in .github/workflows/plugin.yml to a tag or branch)"
            exit 1
          fi
          echo "rev=$rev" >> "$GITHUB_OUTPUT"
          echo "source=$(printf '%s' "$PLUGINS_GIT" | sha256sum | cut -c1-16)" >> "$GITHUB_OUTPUT"
      # The installed binary, keyed on the URL and the commit: a later run at the same
      # commit restores it and skips the build. Saved right after the build (actions/cache
      # alone saves only when the whole job passes, and a plugin with findings fails it).
      - name: restore plugins
        id: cache
        uses: actions/cache/restore@v6
        with:
          path: ~/.cache/plugins-ci
          key: plugins-${{ runner.os }}-${{ runner.arch }}-${{ steps.plugins.outputs.source }}-${{ steps.plugins.outputs.rev }}
      # The release build for this runner (Linux x86_64), refused unless its SHA-256 matches
      # the release's; else a source build with cargo.
      - name: install plugins
        if: steps.cache.outputs.cache-hit != 'true'
        shell: bash
        env:
          REV: ${{ steps.plugins.outputs.rev }}
        run: |
          set -euo pipefail
          if [ -z "$PLUGINS_RELEASE" ]; then
            cargo install --locked --git "$PLUGINS_GIT" --rev "$REV" --root ~/.cache/plugins-ci agent-host-plugins
            exit 0
          fi
          archive=plugins-x86_64-unknown-linux-musl.tar.gz
          tmp="$(mktemp -d)"
          curl -fsSL --retry 3 -o "$tmp/$archive" "$PLUGINS_RELEASE/$archive"
          curl -fsSL --retry 3 -o "$tmp/$archive.sha256" "$PLUGINS_RELEASE/$archive.sha256"
          want="$(cut -d' ' -f1 < "$tmp/$archive.sha256")"
          got="$(sha256sum "$tmp/$archive" | cut -d' ' -f1)"
          if [ "$want" != "$got" ]; then
            echo "::error::checksum mismatch for $PLUGINS_RELEASE/$archive: expected $want, got $got"
            exit 1
          fi
          tar -xzf "$tmp/$archive" -C "$tmp"
          mkdir -p ~/.cache/plugins-ci/bin
          cp "$tmp/plugins-x86_64-unknown-linux-musl/plugins" ~/.cache/plugins-ci/bin/
          echo "installed $PLUGINS_RELEASE/$archive (sha256 $got)"
      - name: save plugins
        if: steps.cache.outputs.cache-hit != 'true'
        uses: actions/cache/save@v6
        with:
          path: ~/.cache/plugins-ci
          key: ${{ steps.cache.outputs.cache-primary-key }}
      - name: put plugins on PATH
        run: echo "$HOME/.cache/plugins-ci/bin" >> "$GITHUB_PATH"
      # Validates with --strict (annotations on the diff), then writes a SARIF log.
      - name: plugins validate
        run: |
          status=0
          plugins validate --path . --strict --format github || status=$?
          plugins validate --path . --strict --format sarif > plugins.sarif || true
          exit "$status"
      - name: upload SARIF
        if: always() && hashFiles('plugins.sarif') != ''
        continue-on-error: true
        uses: github/codeql-action/upload-sarif@v4
        with:
          sarif_file: plugins.sarif
          category: plugins

"#]]
    );
}

/// Without `--ci-from` the install step fails, saying what to set.
#[test]
fn without_ci_from_the_workflow_fails_saying_what_to_set() {
    let tmp = tempfile::tempdir().unwrap();
    let root = generate(tmp.path(), "aoe", "none", false);
    let workflow = std::fs::read_to_string(root.join(".github/workflows/plugin.yml")).unwrap();
    assert!(workflow.contains("  PLUGINS_GIT: \"\"\n"), "{workflow}");
    assert!(workflow.contains("  PLUGINS_RELEASE: \"\"\n"), "{workflow}");
    assert!(
        workflow.contains(
            "echo \"::error::no published release of plugins exists yet: set PLUGINS_GIT in .github/workflows/plugin.yml (plugins new --ci-from URL)\""
        ),
        "{workflow}"
    );
    for line in workflow.lines().filter(|l| l.contains("uses:")) {
        assert!(
            [
                "actions/checkout@",
                "actions/cache/",
                "github/codeql-action/"
            ]
            .iter()
            .any(|a| line.contains(&format!("uses: {a}"))),
            "{line}"
        );
    }
}

#[test]
fn ci_from_must_be_an_https_or_ssh_git_url() {
    let tmp = tempfile::tempdir().unwrap();
    Plugins::new()
        .args(["new", "demo", "--dialect", "aworld", "--yes", "--no-git"])
        .args(["--ci-from", "http://github.com/acme/plugins"])
        .current_dir(tmp.path())
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::new::refused

  × the --ci-from URL "http://github.com/acme/plugins" is not an https or ssh git URL
  help: pass an https or ssh git URL (https://host/path, ssh://host/path or user@host:path)

"#]],
        );
    assert!(!tmp.path().join("demo").exists());
}
