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
