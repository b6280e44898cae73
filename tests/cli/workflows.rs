//! The release workflow and the installers agree: every release build `install.sh` or the
//! GitHub Action downloads is one `.github/workflows/release.yml` builds. (actionlint is not
//! run: its PyPI package downloads the binary from GitHub when installed, which this
//! workplace cannot reach.)

use std::path::Path;

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
