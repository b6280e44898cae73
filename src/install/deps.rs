//! The plugin's wheel deps before the home lock: the requirements checked, the lock's pins
//! checked and listed for consent (`sync`), and the deps staged to swap in with the tree.

use crate::host::pip_spec_problem;

use super::lockhome::Staging;
use super::{DepsRefusal, Event, InstallError, InstallOptions, Request, build};

/// Only plain PEP 508 requirements are installed: never options, URLs, VCS references or
/// local paths.
pub(super) fn plain_pip_specs(request: &Request) -> Result<(), InstallError> {
    for spec in request.pip.iter().chain(&request.optional_pip) {
        if let Some(why) = pip_spec_problem(spec) {
            return Err(DepsRefusal::NotPlain {
                spec: spec.clone(),
                why,
            }
            .into());
        }
    }
    Ok(())
}

/// `sync`: the wheels the lock pins (when the plugin keeps its deps), checked against the
/// manifest and listed in the consent (`request.pins`) before anything is fetched for them.
pub(super) fn locked_pins(
    opts: &InstallOptions,
    home: &crate::store::Home,
    keep_deps: bool,
    name: &crate::name::Name,
    request: &mut Request,
) -> Result<Option<Vec<crate::lock::DepPin>>, InstallError> {
    let locked_pins = match &opts.pin {
        Some(_) if keep_deps => home.load_lock()?.deps(name.as_str()),
        _ => None,
    };
    if let Some(pins) = &locked_pins {
        let needs_pip = !(request.pip.is_empty() && request.optional_pip.is_empty());
        build::refuse_stray_pins(name, pins, needs_pip)?;
        request.pins = pins.iter().map(crate::lock::DepPin::spec).collect();
    }
    Ok(locked_pins)
}

/// A plugin's wheel deps as staged to swap in with its tree: their pins, and the directory
/// pip installed them into (`None`: the version needs none, and the previous ones go).
pub(super) type Wheels = (Vec<crate::lock::DepPin>, Option<std::path::PathBuf>);

/// The plugin's wheel deps, staged in full (network work) before the home lock and swapped
/// in with the tree: `sync` installs the wheels the lock pins, exactly (no resolution);
/// `--deps`, an update or an autoupdate resolve `requires_pip` again; a version that needs
/// none drops the previous ones (they go with the previous code). `None`: no deps change.
pub(super) fn stage_deps(
    opts: &InstallOptions,
    home: &crate::store::Home,
    request: &Request,
    (keep_deps, locked): (bool, Option<Vec<crate::lock::DepPin>>),
    staging: &Staging,
    name: &crate::name::Name,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<Wheels>, InstallError> {
    let needs_pip = !(request.pip.is_empty() && request.optional_pip.is_empty());
    Ok(
        if let Some(pins) = locked.filter(|p| needs_pip || !p.is_empty()) {
            let python = build::python_for(opts.python.as_deref(), home);
            let dir = build::install_locked_deps(
                &pins,
                opts.wheels_from.as_deref(),
                staging.dir.path(),
                name,
                home,
                (&python, opts.build_timeout),
                on_event,
            )?;
            Some((pins, Some(dir)))
        } else if keep_deps && needs_pip {
            let python = build::python_for(opts.python.as_deref(), home);
            let (pins, dir) = build::install_deps(
                request,
                staging.dir.path(),
                name,
                home,
                &python,
                opts.build_timeout,
                on_event,
            )?;
            Some((pins, Some(dir)))
        } else if keep_deps {
            log::debug!("{name}: no requires_pip; its plugin-deps directory goes");
            Some((Vec::new(), None))
        } else {
            None
        },
    )
}
