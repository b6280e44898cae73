//! The built part of a bundle (`builds/<id>/.aoe-build/…`): an aoe plugin's build output,
//! taken from the bundling home's installed plugin where it still hashes to the lock's
//! `build_output_hash`, so that `sync --frozen --from` puts it in place instead of running
//! the build steps (which may need the network). A build runs only on the platform it was
//! made for, so the manifest names that platform and a bundle carrying builds for another
//! one is refused by name (`plugins::sync::bundle_platform`) before anything changes.

use std::path::Path;

use super::Manifest;
use crate::error::Result;
use crate::lock::Entry;
use crate::store::Home;

/// The top folder of the built part.
pub(super) const BUILDS: &str = "builds";

/// This machine's platform as a bundle records it: Rust's `std::env::consts` `OS-ARCH`
/// (`linux-x86_64`, `macos-aarch64`), the names aoe's `platforms` and `${os}`/`${arch}` use.
pub fn platform() -> String {
    format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH)
}

/// Whether a plugin's build output went into the bundle.
pub(super) enum Carried {
    /// Copied, hashing to the lock's `build_output_hash` (this one).
    Built(String),
    /// The lock records no build output (no build steps, a release-binary worker, or a row
    /// from before it was recorded): nothing to carry.
    Nothing,
    /// Not carried, for this reason: the fleet runs the build steps, as before.
    Not(String),
}

/// Copy `entry`'s build output from the home's installed plugin into `dest/.aoe-build`
/// when the lock records its hash, the plugin verifies clean, and the output holds regular
/// files only (a bundle carries no link).
pub(super) fn carry(
    home: &Home,
    entry: &Entry,
    dest: &Path,
    remembered: &crate::profile::Remembered<'_>,
) -> Carried {
    // A release-binary worker's output is its asset, which `assets/<id>/` carries.
    let Some(locked) = entry
        .build_hash
        .as_ref()
        .filter(|_| entry.release.is_none())
    else {
        return Carried::Nothing;
    };
    let dir = match home.locked_dir(entry) {
        Ok(dir) => dir,
        Err(e) => return Carried::Not(e.to_string()),
    };
    let verdict = crate::verify::entry(home, entry, remembered);
    if !verdict.ok() {
        let why = verdict.problems.first().cloned().unwrap_or_default();
        return Carried::Not(format!("it is not installed here as locked ({why})"));
    }
    let output = dir.join(crate::hash::AOE_BUILD_DIR);
    let walked = match crate::tree::walk(&output, &|_, _| false) {
        Ok(walked) => walked,
        Err(e) => return Carried::Not(e.to_string()),
    };
    if let Some(link) = walked.iter().find(|e| e.kind == crate::tree::Kind::Symlink) {
        return Carried::Not(format!(
            "{}/{} is a symbolic link, which a bundle cannot carry",
            crate::hash::AOE_BUILD_DIR,
            link.display()
        ));
    }
    let target = dest.join(crate::hash::AOE_BUILD_DIR);
    if let Err(e) = crate::tree::copy(&output, &target, &|_, _| false) {
        return Carried::Not(e.to_string());
    }
    // What was copied, hashed again: a build output changed meanwhile is not carried.
    match crate::hash::build_output(dest) {
        Ok(Some(hash)) if hash == *locked => Carried::Built(hash),
        _ => {
            let _ = fs_err::remove_dir_all(dest);
            Carried::Not("its build output changed while it was copied".to_owned())
        }
    }
}

/// `sync --from`: a bundle that carries builds must name this platform (a build output's
/// programs run only where they were built); refused by name before anything changes.
pub(super) fn check_platform(manifest: &Manifest, shown: &str) -> Result<()> {
    let built: Vec<&str> = manifest
        .plugins
        .iter()
        .filter(|p| p.build.is_some())
        .map(|p| p.id.as_str())
        .collect();
    let carries = manifest
        .files
        .keys()
        .any(|p| p.starts_with(&format!("{BUILDS}/")));
    if !carries && built.is_empty() {
        return Ok(());
    }
    let here = platform();
    let named = manifest.platform.as_deref().unwrap_or("no platform");
    if named == here {
        return Ok(());
    }
    Err(super::Refusal::Platform {
        shown: shown.to_owned(),
        named: named.to_owned(),
        built: built.into_iter().map(str::to_owned).collect(),
        here,
    }
    .into())
}
