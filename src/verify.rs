//! Does an installed plugin still match what its lock entry pinned? (`plugins verify`, and
//! `plugins sync`, which reinstalls with `--repair` what no longer matches.)

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::install::txn::FileChanges;
use crate::lock::Entry;
use crate::store::Home;

/// The verdict on one locked plugin.
#[derive(Debug)]
pub struct Verdict {
    /// `plugins::install::tampered` (or `unbuilt`, or the lock entry's own error code).
    pub code: Code,
    /// What does not match, one sentence each; empty when the plugin matches its lock.
    pub problems: Vec<String>,
    /// The changed, added and removed paths, when the install recorded per-file hashes.
    pub changes: Option<FileChanges>,
    /// The directory is there but its manifest, release asset or files differ from the lock
    /// (what `plugins sync --repair` reinstalls).
    pub changed: bool,
}

impl Verdict {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Recompute the manifest, release-asset and tree hashes of `entry`'s installed directory
/// and compare them with the lock.
pub fn entry(home: &Home, dialect: Dialect, e: &Entry) -> Verdict {
    let dir = match home.locked_dir(e) {
        Ok(dir) => dir,
        Err(err) => {
            return Verdict {
                code: err.code(),
                problems: vec![err.to_string()],
                changes: None,
                changed: false,
            };
        }
    };
    let mut problems = Vec::new();
    let mut changes = None;
    let mut changed = false;
    // A hand-edited row can name any subdirectory; update and sync refuse it, say so here.
    if let Some(Err(why)) = e.subdir.as_deref().map(crate::source::subdir_path) {
        problems.push(format!("the lock's subdir: {why}"));
    }
    if home
        .locked_name(e)
        .is_ok_and(|n| crate::install::txn::pending(home, &n))
    {
        problems.push(
            "a change to it was interrupted; the next `plugins sync` finishes or undoes it"
                .to_owned(),
        );
    }
    if !dir.is_dir() {
        problems.push(format!("{} is missing", dir.display()));
    } else {
        let manifest =
            fs_err::read(dir.join(dialect.spec().manifest)).map(|b| crate::hash::bytes(&b));
        if !e.manifest_hash.is_empty() && manifest.as_ref().ok() != Some(&e.manifest_hash) {
            let grant = if crate::host::install_policy(dialect).manifest_grant {
                "; aoe's capability grant no longer covers it"
            } else {
                ""
            };
            problems.push(format!("the manifest changed since install{grant}"));
            changed = true;
        }
        if let Some(r) = &e.release
            && crate::release::kept_hash(&dir, &r.asset).as_ref() != Some(&r.sha256)
        {
            problems.push(format!(
                "the release asset {} no longer hashes to the locked {}",
                r.asset, r.sha256
            ));
            changed = true;
        }
        // The installed hash covers symlinks and any name; aoe's tree hash (what a
        // host-written lock has) does not.
        let (locked, now) = match e.installed_hash.as_deref().filter(|h| !h.is_empty()) {
            Some(h) => (h.to_owned(), crate::hash::installed(&dir)),
            None => (e.tree_hash.clone(), crate::hash::tree(&dir)),
        };
        if locked.is_empty() {
            problems.push("cannot verify: the lock records no hash of its files".into());
        } else {
            match now {
                Ok(h) if h == locked => {}
                Ok(h) => {
                    changed = true;
                    problems.push(format!(
                        "the files changed since install (tree {h}, locked {locked})"
                    ));
                    changes = home
                        .locked_name(e)
                        .ok()
                        .and_then(|n| crate::install::txn::file_changes(home, &n, &dir));
                }
                Err(err) => problems.push(format!("cannot verify: {err}")),
            }
        }
    }
    let mut code = Code::InstallTampered;
    if e.unbuilt && dir.is_dir() {
        if problems.is_empty() {
            code = Code::InstallUnbuilt;
        }
        problems.push(
            "installed with --no-build: its build did not run; `plugins sync` builds it".to_owned(),
        );
    }
    Verdict {
        code,
        problems,
        changes,
        changed,
    }
}
