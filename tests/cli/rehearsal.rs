//! A release rehearsal on loopback. This machine's build is packaged by the steps of
//! `.github/workflows/release.yml` themselves (its `package` and `checksums` scripts, read
//! out of the workflow and run as a runner runs them), laid out as a GitHub release
//! (`<owner>/<name>/releases/download/<tag>/…` and `…/releases/latest/download/…`) under a
//! stand-in HTTP server on 127.0.0.1, then installed by each installer a user meets:
//! `install.sh`, the Action's install step (`scripts/action.sh install`) and the install step
//! of the workflow `plugins new` writes. Each installs the archive and checks its SHA-256
//! against the release's `.sha256`; each refuses a tampered archive, naming it, and installs
//! nothing. The build is this machine's, under the name of the target the installers pick on
//! Linux x86_64 (`x86_64-unknown-linux-musl`).

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::net::FileServer;
use crate::support::workflow::{bash_step, step_script};
use crate::support::*;

const TARGET: &str = "x86_64-unknown-linux-musl";
const VERSION: &str = env!("CARGO_PKG_VERSION");
const CHECKOUT: &str = env!("CARGO_MANIFEST_DIR");

/// A published release on loopback.
struct Release {
    tmp: tempfile::TempDir,
    server: FileServer,
    /// The archive's SHA-256 (hex), as its `.sha256` says.
    sha256: String,
}

impl Release {
    /// Package this build with release.yml's own steps and serve it as release `v<version>`
    /// of `acme/plugins`.
    fn publish() -> Release {
        let tmp = tempfile::tempdir().unwrap();
        let dist = package(&tmp.path().join("runner"));
        let served = tmp.path().join("server/acme/plugins/releases");
        for dir in [format!("download/v{VERSION}"), "latest/download".to_owned()] {
            std::fs::create_dir_all(served.join(&dir)).unwrap();
            for file in std::fs::read_dir(&dist).unwrap() {
                let file = file.unwrap().path();
                std::fs::copy(&file, served.join(&dir).join(file.file_name().unwrap())).unwrap();
            }
        }
        let sums = std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap();
        let sha256 = sums
            .lines()
            .find_map(|l| l.strip_suffix(&format!("  {}", archive())))
            .expect("SHA256SUMS lists the archive")
            .to_owned();
        let server = FileServer::start(&tmp.path().join("server"));
        Release {
            tmp,
            server,
            sha256,
        }
    }

    /// The release's download directory: `<server>/acme/plugins/releases/download/v<version>`.
    fn download(&self) -> String {
        format!(
            "{}/acme/plugins/releases/download/v{VERSION}",
            self.server.base
        )
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// Replace the served archive with another build of `plugins` (a script), keeping the
    /// release's `.sha256`.
    fn tamper(&self) {
        let stage = self.path(&format!("evil/plugins-{TARGET}"));
        std::fs::create_dir_all(&stage).unwrap();
        std::fs::write(stage.join("plugins"), "#!/bin/sh\necho tampered\n").unwrap();
        for dir in [format!("download/v{VERSION}"), "latest/download".to_owned()] {
            let to = self.path(&format!("server/acme/plugins/releases/{dir}/{}", archive()));
            let ok = Command::new("tar")
                .arg("-C")
                .arg(self.path("evil"))
                .arg("-czf")
                .arg(&to)
                .arg(format!("plugins-{TARGET}"))
                .status()
                .unwrap();
            assert!(ok.success());
        }
    }

    /// `text` with the server, the version and the archive's hashes as placeholders.
    fn redact(&self, text: &str) -> String {
        let tampered = self.path(&format!(
            "server/acme/plugins/releases/download/v{VERSION}/{}",
            archive()
        ));
        let mut text = text
            .replace(&self.server.base, "[SERVER]")
            .replace(&self.tmp.path().display().to_string(), "[TMP]")
            .replace(&self.sha256, "[SHA256]")
            .replace(VERSION, "[VERSION]");
        if let Ok(bytes) = std::fs::read(tampered) {
            let hash = plugins::hash::bytes(&bytes);
            text = text.replace(&hash["sha256:".len()..], "[TAMPERED]");
        }
        text
    }

    /// Whether the installer fetched the archive and its checksum.
    fn fetched_archive_and_checksum(&self, prefix: &str) -> bool {
        let requests = self.server.requests();
        let asked = |file: String| requests.iter().any(|r| r.contains(&file));
        asked(format!("{prefix}/{}", archive())) && asked(format!("{prefix}/{}.sha256", archive()))
    }
}

fn archive() -> String {
    format!("plugins-{TARGET}.tar.gz")
}

/// Run release.yml's `package` step for [`TARGET`] in a runner directory holding this
/// checkout's README.md and completions/ and this build as `target/<target>/dist/plugins`,
/// then its `checksums` step over the result; returns `dist/`, what the release uploads.
fn package(runner: &Path) -> PathBuf {
    let release =
        std::fs::read_to_string(Path::new(CHECKOUT).join(".github/workflows/release.yml")).unwrap();
    let built = runner.join(format!("target/{TARGET}/dist"));
    std::fs::create_dir_all(&built).unwrap();
    copy_binary(&built.join("plugins"));
    std::fs::copy(
        Path::new(CHECKOUT).join("README.md"),
        runner.join("README.md"),
    )
    .unwrap();
    let ok = Command::new("cp")
        .arg("-R")
        .arg(Path::new(CHECKOUT).join("completions"))
        .arg(runner)
        .status()
        .unwrap();
    assert!(ok.success());
    for (step, env) in [
        ("package", [("TARGET", TARGET), ("RUNNER_OS", "Linux")]),
        ("checksums", [("TARGET", TARGET), ("RUNNER_OS", "Linux")]),
    ] {
        let (code, stdout, stderr) =
            run(&mut bash_step(&step_script(&release, step), runner, &env));
        assert_eq!(code, 0, "release.yml {step}: {stdout}{stderr}");
    }
    runner.join("dist")
}

/// `install.sh ARGS` from this checkout, downloading from the release, with no cargo on PATH
/// and a home of its own.
fn install_sh(release: &Release, args: &[&str]) -> (i32, String, String) {
    let home = release.path("home");
    std::fs::create_dir_all(&home).unwrap();
    let (code, stdout, stderr) = run(Command::new("bash")
        .arg(Path::new(CHECKOUT).join("install.sh"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .env("PLUGINS_REPOSITORY", "acme/plugins")
        .env(
            "PLUGINS_RELEASE_BASE",
            format!("{}/acme/plugins/releases/download", release.server.base),
        ));
    (
        code,
        release.redact(&stdout.replace(CHECKOUT, "[CHECKOUT]")),
        release.redact(&stderr),
    )
}

/// Whether the installed `plugins` at `bin` is this build.
fn is_this_build(bin: &Path) -> bool {
    Command::new(bin)
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout) == format!("plugins {VERSION}\n"))
}

#[test]
fn the_release_packages_as_release_yml_names_it() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return;
    }
    let release = Release::publish();
    let listed: Vec<String> = {
        let mut names: Vec<String> = std::fs::read_dir(release.path("runner/dist"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        listed,
        [
            "SHA256SUMS".to_owned(),
            archive(),
            format!("{}.sha256", archive())
        ]
    );
    let sums = std::fs::read_to_string(release.path("runner/dist/SHA256SUMS")).unwrap();
    let bytes = std::fs::read(release.path(&format!("runner/dist/{}", archive()))).unwrap();
    assert_eq!(
        sums,
        format!(
            "{}  {}\n",
            &plugins::hash::bytes(&bytes)["sha256:".len()..],
            archive()
        )
    );
    // The archive holds the binary, the README and the completions, in one directory.
    let out = Command::new("tar")
        .arg("-tzf")
        .arg(release.path(&format!("runner/dist/{}", archive())))
        .output()
        .unwrap();
    let entries = String::from_utf8(out.stdout).unwrap();
    for entry in ["plugins", "README.md", "completions/plugins.bash"] {
        assert!(
            entries
                .lines()
                .any(|l| l == format!("plugins-{TARGET}/{entry}")),
            "{entry}: {entries}"
        );
    }
}

#[test]
fn install_sh_installs_the_release_and_refuses_a_tampered_one() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return;
    }
    let release = Release::publish();
    let root = release.path("root");
    let root_arg = root.to_str().unwrap();
    let (code, stdout, stderr) = install_sh(&release, &["--root", root_arg]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        stdout,
        str![[r#"
installed the release build from [SERVER]/acme/plugins/releases/download/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz (sha256 [SHA256])
completions: bash, zsh ([TMP]/home/.local/share/zsh/site-functions must be on $fpath), fish
  powershell and elvish scripts are in completions/ (or: plugins completions SHELL)
manual pages: [TMP]/home/.local/share/man/man1 (man plugins, man plugins-install, ...)
plugins [VERSION]
note: [TMP]/root/bin is not on PATH

"#]]
        .raw()
    );
    assert!(is_this_build(&root.join("bin/plugins")));
    assert!(release.fetched_archive_and_checksum(&format!("/download/v{VERSION}")));

    // Every subcommand has its manual page.
    let man = release.path("home/.local/share/man/man1");
    let mut missing = Vec::new();
    for page in man_pages() {
        if !man.join(&page).is_file() {
            missing.push(page);
        }
    }
    assert!(missing.is_empty(), "no page: {missing:?}");

    release.tamper();
    std::fs::remove_dir_all(&root).unwrap();
    let (code, stdout, stderr) = install_sh(&release, &["--root", root_arg, "--no-completions"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_data_eq!(
        stderr,
        str![[r#"
install.sh: checksum mismatch for [SERVER]/acme/plugins/releases/download/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz: expected [SHA256], got [TAMPERED]

"#]]
        .raw()
    );
    assert!(!root.join("bin/plugins").exists(), "nothing installed");
}

/// The Action's install step (`scripts/action.sh install`), as action.yml runs it for the
/// action at `reference`: GitHub's variables, the release server standing in for github.com.
fn action_install(release: &Release, reference: &str) -> (i32, String, String) {
    let runner = release.path("action");
    std::fs::create_dir_all(runner.join("temp")).unwrap();
    std::fs::write(runner.join("github_path"), "").unwrap();
    let (code, stdout, stderr) = run(Command::new("bash")
        .arg(Path::new(CHECKOUT).join("scripts/action.sh"))
        .arg("install")
        .current_dir(&runner)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &runner)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TEMP", runner.join("temp"))
        .env("GITHUB_SERVER_URL", &release.server.base)
        .env("GITHUB_PATH", runner.join("github_path"))
        .env("PLUGINS_REPOSITORY", "acme/plugins")
        .env("PLUGINS_ACTION_REF", reference));
    (code, release.redact(&stdout), release.redact(&stderr))
}

#[test]
fn the_action_installs_the_release_and_refuses_a_tampered_one() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return;
    }
    let release = Release::publish();
    let tag = format!("v{VERSION}");
    let (code, stdout, stderr) = action_install(&release, &tag);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        stdout,
        str![[r#"
installed the v[VERSION] release build (x86_64-unknown-linux-musl), sha256 [SHA256]
plugins [VERSION]

"#]]
        .raw()
    );
    let bin = release.path("action/temp/plugins-action/bin");
    assert!(is_this_build(&bin.join("plugins")));
    assert!(release.fetched_archive_and_checksum(&format!("/download/v{VERSION}")));
    assert_eq!(
        std::fs::read_to_string(release.path("action/github_path")).unwrap(),
        format!("{}\n", bin.display())
    );

    // An action at a branch installs the newest release.
    std::fs::remove_dir_all(release.path("action")).unwrap();
    let (code, stdout, stderr) = action_install(&release, "main");
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert!(
        stdout.starts_with("installed the latest release build"),
        "{stdout}"
    );
    assert!(is_this_build(&bin.join("plugins")));
    assert!(release.fetched_archive_and_checksum("/latest/download"));

    release.tamper();
    std::fs::remove_dir_all(release.path("action")).unwrap();
    let (code, stdout, stderr) = action_install(&release, &tag);
    assert_eq!((code, stderr.as_str()), (2, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
::error title=plugins action::checksum mismatch for [SERVER]/acme/plugins/releases/download/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz: expected [SHA256], got [TAMPERED]

"#]]
        .raw()
    );
    assert!(!bin.join("plugins").exists(), "nothing installed");
    assert_eq!(
        std::fs::read_to_string(release.path("action/github_path")).unwrap(),
        ""
    );
}

/// The `install plugins` step of the workflow `plugins new` writes, run as the runner runs
/// it with the workflow's PLUGINS_RELEASE pointing at the release.
fn workflow_install(release: &Release, script: &str) -> (i32, String, String) {
    let home = release.path("ci-home");
    std::fs::create_dir_all(&home).unwrap();
    let download = release.download();
    let home_str = home.display().to_string();
    let (code, stdout, stderr) = run(&mut bash_step(
        script,
        &home,
        &[
            ("HOME", &home_str),
            ("PLUGINS_RELEASE", &download),
            ("PLUGINS_GIT", ""),
            ("REV", "release"),
        ],
    ));
    (code, release.redact(&stdout), release.redact(&stderr))
}

#[test]
fn the_scaffolded_workflow_installs_the_release_and_refuses_a_tampered_one() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return;
    }
    let release = Release::publish();
    let dir = release.path("demo");
    Plugins::new()
        .args([
            "new",
            "demo",
            "--dialect",
            "aworld",
            "--yes",
            "--no-git",
            "--dir",
        ])
        .arg(&dir)
        .run()
        .success();
    let workflow = std::fs::read_to_string(dir.join(".github/workflows/plugin.yml")).unwrap();
    let script = step_script(&workflow, "install plugins");

    let (code, stdout, stderr) = workflow_install(&release, &script);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        stdout,
        str![[r#"
installed [SERVER]/acme/plugins/releases/download/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz (sha256 [SHA256])

"#]]
        .raw()
    );
    let bin = release.path("ci-home/.cache/plugins-ci/bin/plugins");
    assert!(is_this_build(&bin));
    assert!(release.fetched_archive_and_checksum(&format!("/download/v{VERSION}")));

    release.tamper();
    std::fs::remove_dir_all(release.path("ci-home")).unwrap();
    let (code, stdout, stderr) = workflow_install(&release, &script);
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
::error::checksum mismatch for [SERVER]/acme/plugins/releases/download/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz: expected [SHA256], got [TAMPERED]

"#]]
        .raw()
    );
    assert!(!bin.exists(), "nothing installed");
}
