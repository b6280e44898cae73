//! What a home holds, as the crash sweep and the soak judge it: its state as a user can
//! tell, what a killed command may leave behind, the plugin directories a host loads.

use std::path::Path;
use std::process::Command;

use super::Plugins;

/// What a home holds, as far as a user can tell: the lock's rows and the files.
pub(crate) fn state(home: &Path) -> String {
    let (code, stdout, stderr) = Plugins::new()
        .args(["list", "--json", "--home"])
        .arg(home)
        .run()
        .parts();
    assert_eq!(code, 0, "the lock parses: {stdout}{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let mut rows: Vec<String> = doc["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("lock {} {} {}", p["id"], p["version"], p["present"]))
        .collect();
    if let Ok(rd) = std::fs::read_dir(home.join("plugins")) {
        for e in rd {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.path().is_dir() {
                continue;
            }
            rows.push(format!("dir {name} {}", tree_hash(&e.path())));
        }
    }
    rows.sort();
    rows.join("\n")
}

/// A plugin directory's tree hash (or why there is none).
pub(crate) fn tree_hash(dir: &Path) -> String {
    plugins::hash::tree(dir).unwrap_or_else(|e| e.to_string())
}

/// The entries of this user's scratch parent in `tmpdir` (none when it is missing).
pub(crate) fn scratch_left(tmpdir: &Path) -> Vec<String> {
    // SAFETY: geteuid cannot fail.
    let parent = tmpdir.join(format!("plugins-{}", unsafe { libc::geteuid() }));
    let mut out: Vec<String> = std::fs::read_dir(parent)
        .into_iter()
        .flatten()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// Files a crash must never leave behind once a command has recovered.
pub(crate) fn leftovers(home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in [
        "txn",
        "staging",
        "backup",
        "backup-deps",
        "incoming",
        "incoming-deps",
    ] {
        if let Ok(rd) = std::fs::read_dir(home.join(".plugins").join(sub)) {
            out.extend(rd.map(|e| format!(".plugins/{sub}/{:?}", e.unwrap().file_name())));
        }
    }
    // Half-written or half-deleted history slots (`.new`, `.gone-<n>`).
    for plugin in std::fs::read_dir(home.join(".plugins/history"))
        .into_iter()
        .flatten()
    {
        for e in std::fs::read_dir(plugin.unwrap().path()).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                out.push(format!(".plugins/history/{name}"));
            }
        }
    }
    for dir in [
        home.to_path_buf(),
        home.join("plugins"),
        home.join(".plugins"),
        home.join(".plugins/files"),
    ] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(".tmp") || name.starts_with(".staging-") || name.contains(".old-")
                {
                    out.push(name);
                }
            }
        }
    }
    out
}

/// The plugin directories a host would load from `home` (dot-entries are not plugins).
pub(crate) fn plugin_dirs(home: &Path) -> std::collections::BTreeSet<String> {
    std::fs::read_dir(home.join("plugins"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect()
}

/// `cp -a from to`, replacing `to`.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success());
}

/// `plugins verify` passes on `home` (no lock at all, a fresh install undone, too).
pub(crate) fn verify_ok(home: &Path) -> Result<(), String> {
    let (code, stdout, stderr) = Plugins::new()
        .args(["verify", "--home"])
        .arg(home)
        .run()
        .parts();
    if code == 0 || (!home.join("plugins.lock").exists() && code == 2) {
        Ok(())
    } else {
        Err(format!("verify: {stdout}{stderr}"))
    }
}
