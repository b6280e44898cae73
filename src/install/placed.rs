//! `sync --from BUNDLE`: an aoe plugin's bundled build output put in place of its build
//! steps (which may need the network), when it hashes to the lock's `build_output_hash`.

use std::path::Path;

use super::build::{self, BuildAt};
use super::{InstallError, InstallOptions, Refusal};
use crate::hash::AOE_BUILD_DIR;
use crate::name::Name;
use crate::steps::Step;

/// Put `opts.build_from`'s `.aoe-build` into `tree` instead of running `build` (when it has
/// steps for this platform): `Ok(true)` once it is in place and its worker is runnable;
/// `Ok(false)` when there is nothing bundled to place (the steps run, as before). A build
/// output that does not hash to the lock's `build_output_hash` is refused by name.
pub(super) fn place_bundled(
    opts: &InstallOptions,
    build: &[Step],
    tree: &Path,
    id: &Name,
    entrypoint: Option<&(String, bool)>,
) -> Result<bool, InstallError> {
    let Some(dir) = &opts.build_from else {
        return Ok(false);
    };
    if crate::steps::for_this_platform(build).is_empty() {
        return Ok(false);
    }
    let locked = opts.pin.as_ref().and_then(|p| p.build_hash.as_deref());
    let bundled = crate::hash::build_output(dir).ok().flatten();
    if bundled.is_none() || bundled.as_deref() != locked {
        return Err(Refusal::BundledBuild {
            id: id.to_string(),
            bundled,
            locked: locked.map(str::to_owned),
        }
        .into());
    }
    crate::tree::copy(
        &dir.join(AOE_BUILD_DIR),
        &tree.join(AOE_BUILD_DIR),
        &|_, _| false,
    )?;
    build::check_runnable(tree, id, entrypoint)?;
    Ok(true)
}

impl BuildAt<'_> {
    /// Run the steps on the tree `swap` waits with: seen at the plugin's path in a mount
    /// namespace of their own while the host still sees the installed version there (a
    /// first install, or a sync of a missing plugin, is built before it appears too), else
    /// after the tree is put in place. Returns the built tree's hash and its build output's.
    pub(super) fn run(
        &self,
        opts: &InstallOptions,
        swap: &mut crate::install::txn::Swap,
        on_event: &mut dyn FnMut(crate::install::Event),
    ) -> Result<(Option<String>, Option<String>), InstallError> {
        let waiting = swap.waiting();
        let overlay = if self.target.is_dir() {
            crate::steps::Overlay::new(&waiting, self.target)
        } else {
            crate::steps::Overlay::fresh(&waiting, self.target)
        };
        if overlay.is_none() {
            swap.place()?;
        }
        let built = overlay
            .as_ref()
            .map_or(self.target, crate::steps::Overlay::staged);
        build::run_build(self, overlay.as_ref(), opts.build_timeout, on_event)?;
        let build_hash = crate::hash::build_output(built).ok().flatten();
        Ok((crate::hash::installed(built).ok(), build_hash))
    }
}
