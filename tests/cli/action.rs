//! `scripts/action.sh`, the logic of `action.yml`, run locally with a fake
//! GitHub environment: a `file://` release server, a fake `cargo`, and the
//! step's output, path and summary files.

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

const TARGET: &str = "x86_64-unknown-linux-musl";
const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

/// A fake runner: its temp dir, the step's files, a release server.
struct Runner {
    tmp: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["runner-temp", "server", "fake-bin"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        for file in ["github_path", "github_output", "summary.md"] {
            std::fs::write(tmp.path().join(file), "").unwrap();
        }
        Runner { tmp }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    /// A file with the runner's temp root shown as `[RUNNER]`.
    fn read_redacted(&self, rel: &str) -> String {
        self.read(rel)
            .replace(&self.tmp.path().display().to_string(), "[RUNNER]")
    }

    /// Publish this build of `plugins` as release `tag`, as release.yml names it.
    fn publish(&self, tag: &str) {
        let dl = self.path(&format!("server/acme/plugins/releases/download/{tag}"));
        let stage = self.path(&format!("stage/plugins-{TARGET}"));
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::create_dir_all(&dl).unwrap();
        crate::support::copy_binary(&stage.join("plugins"));
        let archive = format!("plugins-{TARGET}.tar.gz");
        let ok = Command::new("tar")
            .arg("-czf")
            .arg(dl.join(&archive))
            .arg("-C")
            .arg(self.path("stage"))
            .arg(format!("plugins-{TARGET}"))
            .status()
            .unwrap();
        assert!(ok.success());
        let bytes = std::fs::read(dl.join(&archive)).unwrap();
        let hash = plugins::hash::bytes(&bytes);
        let hex = hash.strip_prefix("sha256:").unwrap();
        std::fs::write(
            dl.join(format!("{archive}.sha256")),
            format!("{hex}  {archive}\n"),
        )
        .unwrap();
    }

    /// `scripts/action.sh <step>` in `cwd` with GitHub's variables and `env`.
    fn step(&self, step: &str, cwd: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action.sh");
        let mut cmd = Command::new("bash");
        cmd.arg(script).arg(step).current_dir(cwd).env_clear();
        let path = format!("{}:/usr/bin:/bin", self.path("fake-bin").display());
        let root = self.tmp.path().display().to_string();
        let vars = [
            ("PATH", path),
            ("HOME", root.clone()),
            ("NO_COLOR", "1".into()),
            ("COLUMNS", "100".into()),
            ("RUNNER_OS", "Linux".into()),
            ("RUNNER_ARCH", "X64".into()),
            ("RUNNER_TEMP", format!("{root}/runner-temp")),
            ("GITHUB_SERVER_URL", format!("file://{root}/server")),
            ("GITHUB_PATH", format!("{root}/github_path")),
            ("GITHUB_OUTPUT", format!("{root}/github_output")),
            ("GITHUB_STEP_SUMMARY", format!("{root}/summary.md")),
            ("PLUGINS_REPOSITORY", "acme/plugins".into()),
        ];
        for (k, v) in vars {
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let (code, stdout, stderr) = run(&mut cmd);
        (
            code,
            stdout.replace(&root, "[RUNNER]"),
            stderr.replace(&root, "[RUNNER]"),
        )
    }

    /// A `cargo` that records its arguments and "installs" this build.
    fn fake_cargo(&self) {
        let script = format!(
            "#!/bin/sh\necho \"cargo $*\" >> {log}\nwhile [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=\"$2\"; shift; done\nmkdir -p \"$root/bin\" && cp {bin} \"$root/bin/plugins\"\n",
            log = self.path("cargo.log").display(),
            bin = BIN,
        );
        let path = self.path("fake-bin/cargo");
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn action_installs_the_release_build_for_its_tag() {
    let runner = Runner::new();
    runner.publish("v9.9.9");
    runner.fake_cargo();
    let cwd = runner.path("runner-temp");
    let (code, stdout, stderr) = runner.step("install", &cwd, &[("PLUGINS_ACTION_REF", "v9.9.9")]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    let version = format!("plugins {}", env!("CARGO_PKG_VERSION"));
    assert_data_eq!(
        stdout.replace(&version, "plugins [VERSION]").replace(
            &plugins::hash::bytes(
                &std::fs::read(runner.path(&format!(
                    "server/acme/plugins/releases/download/v9.9.9/plugins-{TARGET}.tar.gz"
                )))
                .unwrap()
            )["sha256:".len()..],
            "[SHA256]"
        ),
        str![[r#"
installed the v9.9.9 release build (x86_64-unknown-linux-musl), sha256 [SHA256]
plugins [VERSION]

"#]]
        .raw()
    );
    assert_eq!(
        runner.read("github_path"),
        format!(
            "{}\n",
            runner.path("runner-temp/plugins-action/bin").display()
        )
    );
    assert!(!runner.path("cargo.log").exists(), "no source build");
}

#[test]
fn action_refuses_a_release_whose_checksum_does_not_match() {
    let runner = Runner::new();
    runner.publish("v9.9.9");
    runner.fake_cargo();
    let sum = runner.path(&format!(
        "server/acme/plugins/releases/download/v9.9.9/plugins-{TARGET}.tar.gz.sha256"
    ));
    std::fs::write(&sum, format!("{}  x\n", "0".repeat(64))).unwrap();
    let (code, stdout, _) = runner.step(
        "install",
        &runner.path("runner-temp"),
        &[("INPUT_VERSION", "v9.9.9")],
    );
    assert_eq!(code, 2);
    assert!(
        stdout.starts_with("::error title=plugins action::checksum mismatch for file://[RUNNER]/server/acme/plugins/releases/download/v9.9.9/plugins-x86_64-unknown-linux-musl.tar.gz: expected 0000"),
        "{stdout}"
    );
    assert!(
        !runner.path("cargo.log").exists(),
        "no fallback past a bad checksum"
    );
    assert_eq!(runner.read("github_path"), "");
}

#[test]
fn action_builds_from_source_without_a_release() {
    let runner = Runner::new();
    runner.fake_cargo();
    let cwd = runner.path("runner-temp");
    // A branch ref with no release at all: the newest release is missing too.
    let (code, stdout, stderr) = runner.step("install", &cwd, &[("PLUGINS_ACTION_REF", "main")]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        runner.read_redacted("cargo.log"),
        str![[r#"
cargo install --locked --git file://[RUNNER]/server/acme/plugins --branch main --root [RUNNER]/runner-temp/plugins-action --force

"#]]
        .raw()
    );
    // An unsupported runner builds from source at the tag.
    std::fs::remove_file(runner.path("cargo.log")).unwrap();
    runner.publish("v9.9.9");
    let (code, _, _) = runner.step(
        "install",
        &cwd,
        &[("RUNNER_ARCH", "ARM64"), ("PLUGINS_ACTION_REF", "v9.9.9")],
    );
    assert_eq!(code, 0);
    assert_data_eq!(
        runner.read_redacted("cargo.log"),
        str![[r#"
cargo install --locked --git file://[RUNNER]/server/acme/plugins --tag v9.9.9 --root [RUNNER]/runner-temp/plugins-action --force

"#]]
        .raw()
    );
}

/// A local action (`uses: ./path`, what works while no release is published) has no
/// repository to download from: it builds its own checkout, saying so.
#[test]
fn a_local_action_builds_its_own_checkout() {
    let runner = Runner::new();
    runner.fake_cargo();
    let cwd = runner.path("runner-temp");
    let (code, stdout, stderr) = runner.step("install", &cwd, &[("PLUGINS_REPOSITORY", "")]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    let checkout = env!("CARGO_MANIFEST_DIR");
    assert_data_eq!(
        stdout
            .replace(checkout, "[CHECKOUT]")
            .replace(env!("CARGO_PKG_VERSION"), "[VERSION]"),
        str![[r#"
building plugins from source at [CHECKOUT] (a few minutes): a local action names no repository to download a release from
plugins [VERSION]

"#]]
        .raw()
    );
    assert_data_eq!(
        runner
            .read_redacted("cargo.log")
            .replace(checkout, "[CHECKOUT]"),
        str![[r#"
cargo install --locked --path [CHECKOUT] --root [RUNNER]/runner-temp/plugins-action --force

"#]]
        .raw()
    );
}

#[test]
fn action_validates_each_profile_and_writes_sarif() {
    let runner = Runner::new();
    std::fs::create_dir_all(runner.path("fake-bin")).unwrap();
    std::os::unix::fs::symlink(BIN, runner.path("fake-bin/plugins")).unwrap();
    let repo = Repo::init(&runner.path("repo"));
    repo.file("plugins/broken/aoe-plugin.toml", BROKEN);
    let (code, stdout, stderr) = runner.step(
        "validate",
        &repo.dir,
        &[
            ("INPUT_PATH", "plugins/broken"),
            ("INPUT_STRICT", "true"),
            ("INPUT_AOE_API", "15 12"),
            ("INPUT_SARIF_FILE", "plugins.sarif"),
        ],
    );
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
plugins validate --format github --aoe-api 15 --strict --path plugins/broken
::error file=plugins/broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=plugins/broken/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error
plugins validate --format github --aoe-api 12 --strict --path plugins/broken
::error file=plugins/broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `settings-page`, `tool-card-badge`, `notification`
1 plugin: 0 valid, 1 invalid; 1 error
1 finding shared with an earlier profile is not annotated again

"#]]
        .raw()
    );
    assert_eq!(runner.read("github_output"), "sarif-file=plugins.sarif\n");
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo.dir.join("plugins.sarif")).unwrap())
            .unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "plugins/broken/aoe-plugin.toml"
    );
    let summary = runner.read("summary.md");
    assert_eq!(
        summary.matches("#### aoe API ").collect::<Vec<_>>().len(),
        2,
        "{summary}"
    );

    // A clean plugin passes, and an empty sarif-file writes none.
    let clean = clean_aoe_root();
    let (code, _, _) = runner.step(
        "validate",
        clean.path(),
        &[("INPUT_AOE_API", "15"), ("INPUT_SARIF_FILE", "")],
    );
    assert_eq!(code, 0);
    assert!(!clean.path().join("plugins.sarif").exists());
}

/// A finding both profiles report the same (file, line, code and message) is annotated once,
/// by the first profile's run; the second says it left it out. The step still fails.
#[test]
fn action_annotates_a_finding_two_profiles_share_once() {
    let runner = Runner::new();
    std::os::unix::fs::symlink(BIN, runner.path("fake-bin/plugins")).unwrap();
    let repo = Repo::init(&runner.path("repo"));
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\nunknown_key = 1\n",
    );
    let (code, stdout, stderr) = runner.step(
        "validate",
        &repo.dir,
        &[("INPUT_AOE_API", "15 12"), ("INPUT_SARIF_FILE", "")],
    );
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
plugins validate --format github --aoe-api 15 --strict --path .
::error file=aoe-plugin.toml,line=5,col=1,endColumn=12,title=plugins%3A%3Aaoe%3A%3Aunknown_key::unknown field `unknown_key`, expected one of `id`, `name`, `version`, `api_version`, `description`, `screenshots`, `icon`, `icon_asset`, `capabilities`, `commands`, `keybinds`, `settings`, `setting_defaults`, `themes`, `status`, `ui`, `runtime`, `aoe_version`
::notice file=aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error
plugins validate --format github --aoe-api 12 --strict --path .
1 plugin: 0 valid, 1 invalid; 1 error
2 findings shared with an earlier profile are not annotated again

"#]]
        .raw()
    );
}
