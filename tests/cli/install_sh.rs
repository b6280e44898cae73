//! `install.sh`: its help, its argument errors, and where `--root` lands (via `--dry-run`).

use std::path::Path;
use std::process::Command;

use snapbox::{assert_data_eq, str};

use crate::support::run;

/// `bash install.sh ARGS` from `cwd`, with the checkout shown as `[CHECKOUT]` and `cwd` as `[CWD]`.
fn install_sh(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let checkout = env!("CARGO_MANIFEST_DIR");
    let cwd = cwd.canonicalize().unwrap();
    let (code, stdout, stderr) = run(Command::new("bash")
        .arg(Path::new(checkout).join("install.sh"))
        .args(args)
        .current_dir(&cwd)
        // bash then takes its $PWD from getcwd(), the canonical path.
        .env_remove("PWD"));
    let redact = |s: String| {
        s.replace(checkout, "[CHECKOUT]")
            .replace(&cwd.display().to_string(), "[CWD]")
    };
    (code, redact(stdout), redact(stderr))
}

#[test]
fn help_is_the_comment_block_only() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = install_sh(tmp.path(), &["--help"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
Install `plugins` with cargo, then its shell completions for bash, zsh and fish, and its
manual pages.

  ./install.sh                 install into cargo's bin dir (~/.cargo/bin)
  ./install.sh --root DIR      install into DIR/bin instead (relative to where you run it)
  ./install.sh --no-completions  no shell completions and no manual pages
  ./install.sh --dry-run       print the cargo install command, run nothing
  ./install.sh --from-source   never download a release build

When the project's GitHub repository is known (PLUGINS_REPOSITORY=owner/name, else
`repository` in Cargo.toml, which is unset while no published release exists) and it
publishes a release build of this version for the platform (Linux x86_64 and aarch64,
macOS), that build is downloaded and checked against its SHA-256 instead.
A source build uses cargo's `release` profile (no LTO: minutes on 2 cores); the published
builds use the heavier `dist` profile (thin LTO, see Cargo.toml and release.yml).

"#]]
    );
}

#[test]
fn root_without_a_directory_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["--root"][..],
        &["--root", ""],
        &["--root="],
        &["--root", "--dry-run"],
    ] {
        let (code, stdout, stderr) = install_sh(tmp.path(), args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}");
        assert_data_eq!(
            stderr,
            str![[r#"
install.sh: --root needs a directory (--root DIR)

"#]]
        );
    }
}

#[test]
fn a_relative_root_is_resolved_where_the_script_is_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = install_sh(tmp.path(), &["--root", "tools/x", "--dry-run"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_data_eq!(
        stdout,
        str![[r#"
building from source: no published release of `plugins` exists yet (Cargo.toml names no repository; PLUGINS_REPOSITORY=owner/name downloads from a GitHub repository's releases)
cargo install --path [CHECKOUT] --locked --force --root [CWD]/tools/x

"#]]
    );
    let (_, stdout, _) = install_sh(tmp.path(), &["--dry-run", "--root=/opt/plugins"]);
    assert_data_eq!(
        stdout,
        str![[r#"
building from source: no published release of `plugins` exists yet (Cargo.toml names no repository; PLUGINS_REPOSITORY=owner/name downloads from a GitHub repository's releases)
cargo install --path [CHECKOUT] --locked --force --root /opt/plugins

"#]]
    );
    let (_, stdout, _) = install_sh(tmp.path(), &["--dry-run"]);
    assert_data_eq!(
        stdout,
        str![[r#"
building from source: no published release of `plugins` exists yet (Cargo.toml names no repository; PLUGINS_REPOSITORY=owner/name downloads from a GitHub repository's releases)
cargo install --path [CHECKOUT] --locked --force

"#]]
    );
}
