//! The home lock (taken with recovery of what killed processes left) and the staging
//! directory of one install.

use std::path::PathBuf;

use crate::store::Home;

use super::{Event, InstallError, io, txn};

/// Staging for one install: a directory only this process uses, named with
/// its pid so that recovery can tell a live staging from a killed one.
pub(super) struct Staging {
    pub(super) dir: tempfile::TempDir,
}

impl Staging {
    /// In the home's state directory when the home is known (one file system,
    /// so the swap is a rename), else in the temp directory. A home that cannot
    /// be written (read-only) stages in the temp directory too.
    pub(super) fn new(home: Option<&Home>) -> Result<Staging, InstallError> {
        let prefix = txn::staging_prefix();
        let in_home = home.and_then(|h| {
            let parent = txn::staging_dir(h);
            fs_err::create_dir_all(&parent).ok()?;
            tempfile::Builder::new()
                .prefix(&prefix)
                .tempdir_in(parent)
                .ok()
        });
        let dir = match in_home {
            Some(d) => d,
            None => {
                crate::scratch::dir("staging").map_err(io("cannot create a staging directory"))?
            }
        };
        Ok(Staging { dir })
    }

    pub(super) fn tree(&self) -> PathBuf {
        self.dir.path().join("tree")
    }
}

/// Scratch space for a command that works on `home` without changing it (`plugins bundle`,
/// the unpacked archive of `sync --from`): in the home's staging directory, named with the
/// process id as a staging directory is, so recovery removes it once its process is gone
/// (after a `kill -9`); in the temp directory for a home that cannot be written.
pub fn scratch(home: &Home) -> Result<tempfile::TempDir, InstallError> {
    Staging::new(Some(home)).map(|s| s.dir)
}

/// Take the home lock and finish or undo whatever a killed process left.
pub fn lock_home(
    home: &Home,
    wait: bool,
    on_event: &mut dyn FnMut(Event),
) -> Result<crate::store::Guard, InstallError> {
    let guard = home
        .lock(wait, || on_event(Event::WaitingForLock(home.root.clone())))
        .map_err(io(format!("cannot lock {}", home.root.display())))?;
    let recovered = txn::recover(home)?;
    if !recovered.plugins.is_empty() || recovered.cleaned > 0 {
        on_event(Event::Recovered(recovered));
    }
    Ok(guard)
}

/// Recovery first, for a command that may end without changing the home ("up to date",
/// "nothing to update"): when a killed command left an intent record, an unreadable record,
/// a stale staging directory or the temp file of an atomic write in `home`, take the home lock — which finishes or undoes
/// the change and cleans up — and release it, so the command reads the home as recovery
/// left it and never mistakes its own recovery for a concurrent change. A home another
/// process holds is left to that process (it recovers under the lock it holds). Reads two
/// directories when nothing is left.
pub fn recover_first(home: &Home, on_event: &mut dyn FnMut(Event)) -> Result<(), InstallError> {
    let left = txn::leftovers(home);
    if left.pending.is_empty()
        && left.broken_records.is_empty()
        && left.stale_staging.is_empty()
        && left.temp_files.is_empty()
    {
        return Ok(());
    }
    match lock_home(home, false, on_event) {
        Ok(_guard) => Ok(()),
        Err(InstallError::Io { cause, .. }) if cause.kind() == std::io::ErrorKind::WouldBlock => {
            Ok(())
        }
        Err(e) => Err(e),
    }
}
