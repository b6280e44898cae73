//! `install.sh` with a release build published for this version: downloaded,
//! checked against its SHA-256, and installed without cargo.

use std::path::Path;
use std::process::Command;

use snapbox::{assert_data_eq, str};

use crate::support::run;

const TARGET: &str = "x86_64-unknown-linux-musl";

/// Only Linux x86_64 has a release target `install.sh` would pick here.
fn linux_x86_64() -> bool {
    cfg!(all(target_os = "linux", target_arch = "x86_64"))
}

/// `bash install.sh ARGS` with a `file://` release server and no cargo on PATH.
fn install_sh(server: &Path, args: &[&str]) -> (i32, String, String) {
    let checkout = env!("CARGO_MANIFEST_DIR");
    let (code, stdout, stderr) = run(Command::new("bash")
        .arg(Path::new(checkout).join("install.sh"))
        .args(args)
        .env("PLUGINS_REPOSITORY", "acme/plugins")
        .env(
            "PLUGINS_RELEASE_BASE",
            format!("file://{}", server.display()),
        )
        .env("PATH", "/usr/bin:/bin")
        .env_remove("PWD"));
    let redact = |s: String| {
        s.replace(checkout, "[CHECKOUT]")
            .replace(&server.display().to_string(), "[SERVER]")
            .replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
    };
    (code, redact(stdout), redact(stderr))
}

/// Publish this build as `release.yml` names it; returns the archive's hex SHA-256.
fn publish(server: &Path) -> String {
    let dir = server.join(format!("v{}", env!("CARGO_PKG_VERSION")));
    let stage = server.join("stage").join(format!("plugins-{TARGET}"));
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    crate::support::copy_binary(&stage.join("plugins"));
    let archive = dir.join(format!("plugins-{TARGET}.tar.gz"));
    let ok = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(server.join("stage"))
        .arg(format!("plugins-{TARGET}"))
        .status()
        .unwrap();
    assert!(ok.success());
    let hash = plugins::hash::bytes(&std::fs::read(&archive).unwrap());
    let hex = hash.strip_prefix("sha256:").unwrap().to_owned();
    std::fs::write(
        dir.join(format!("plugins-{TARGET}.tar.gz.sha256")),
        format!("{hex}  plugins-{TARGET}.tar.gz\n"),
    )
    .unwrap();
    hex
}

#[test]
fn install_sh_downloads_the_release_build_when_there_is_one() {
    if !linux_x86_64() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let server = tmp.path().join("server");
    let root = tmp.path().join("root");
    let root_arg = root.to_str().unwrap();
    let (code, stdout, stderr) = install_sh(&server, &["--dry-run", "--root", root_arg]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_data_eq!(
        stdout.replace(root_arg, "[ROOT]"),
        str![[r#"
download file://[SERVER]/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz (and its .sha256) into [ROOT]/bin; if there is none:
cargo install --path [CHECKOUT] --locked --force --root [ROOT]

"#]]
    );

    let hex = publish(&server);
    let (code, stdout, stderr) = install_sh(&server, &["--root", root_arg, "--no-completions"]);
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        stdout.replace(&hex, "[SHA256]").replace(root_arg, "[ROOT]"),
        str![[r#"
installed the release build from file://[SERVER]/v[VERSION]/plugins-x86_64-unknown-linux-musl.tar.gz (sha256 [SHA256])
plugins [VERSION]
note: [ROOT]/bin is not on PATH

"#]]
    );
    assert!(root.join("bin/plugins").is_file());

    // A release whose checksum does not match is refused, not installed.
    std::fs::remove_file(root.join("bin/plugins")).unwrap();
    let sum = server.join(format!(
        "v{}/plugins-{TARGET}.tar.gz.sha256",
        env!("CARGO_PKG_VERSION")
    ));
    std::fs::write(&sum, format!("{}  x\n", "0".repeat(64))).unwrap();
    let (code, _, stderr) = install_sh(&server, &["--root", root_arg, "--no-completions"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("install.sh: checksum mismatch for file://[SERVER]/v[VERSION]/"),
        "{stderr}"
    );
    assert!(!root.join("bin/plugins").exists());

    // --from-source never downloads, says why it builds (and here, without cargo on PATH,
    // that it cannot).
    let (code, stdout, stderr) = install_sh(
        &server,
        &["--from-source", "--root", root_arg, "--no-completions"],
    );
    assert_eq!(
        (code, stdout.as_str()),
        (1, "building from source: --from-source was given\n")
    );
    assert_data_eq!(
        stderr,
        str![[r#"
install.sh: cargo not found; install Rust from https://rustup.rs first

"#]]
    );
}
