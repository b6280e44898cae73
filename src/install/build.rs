//! Running what an install builds: aoe build steps and protoAgent `--deps`.

use std::path::Path;
use std::time::Duration;

use super::{Event, InstallError, Request, refused};
use crate::diagnostic::Code;
use crate::name::Name;
use crate::steps::{self, Step};
use crate::store::Home;

/// Run steps in the plugin directory, reporting each as it starts.
fn run_steps(
    steps: &[&Step],
    target: &Path,
    id: &Name,
    timeout: Duration,
    log: &mut steps::Log,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), steps::StepError> {
    steps::run(
        steps,
        target,
        id.as_str(),
        timeout,
        log,
        |n, total, argv| {
            on_event(Event::Building {
                n,
                total,
                command: argv.join(" "),
            });
        },
    )
}

pub(super) fn run_build(
    build: &[Step],
    target: &Path,
    id: &Name,
    entrypoint: Option<&(String, bool)>,
    home: &Home,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let steps = steps::for_this_platform(build);
    let mut log = steps::Log::create(&home.build_log(id))?;
    run_steps(&steps, target, id, timeout, &mut log, on_event)?;
    if let Some((program, false)) = entrypoint {
        let path = target.join(program);
        let runnable = std::fs::metadata(&path).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        });
        if !runnable {
            return Err(refused(
                Code::InstallNotRunnable,
                format!(
                    "plugin {id}: worker command is not runnable after install (a build step may have been skipped on this platform, or did not produce it)"
                ),
                format!("expected an executable at {}", path.display()),
            ));
        }
    }
    Ok(())
}

/// `--deps`: a plugin-local virtualenv with the hard requirements (optional ones best-effort).
pub(super) fn install_deps(
    request: &Request,
    target: &Path,
    id: &Name,
    home: &Home,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let mut pip = vec![
        ".venv/bin/pip".to_owned(),
        "install".to_owned(),
        "--disable-pip-version-check".to_owned(),
        "--".to_owned(),
    ];
    pip.extend(request.pip.iter().cloned());
    let venv = Step {
        argv: vec!["python3".into(), "-m".into(), "venv".into(), ".venv".into()],
        platforms: Vec::new(),
    };
    let hard = Step {
        argv: pip.clone(),
        platforms: Vec::new(),
    };
    let mut steps = vec![&venv];
    if !request.pip.is_empty() {
        steps.push(&hard);
    }
    let mut log = steps::Log::create(&home.build_log(id))?;
    run_steps(&steps, target, id, timeout, &mut log, on_event)?;
    if !request.optional_pip.is_empty() {
        pip.truncate(4);
        pip.extend(request.optional_pip.iter().cloned());
        let optional = Step {
            argv: pip,
            platforms: Vec::new(),
        };
        // Optional requirements never fail the install (protoAgent only warns).
        let _ = run_steps(&[&optional], target, id, timeout, &mut log, on_event);
    }
    Ok(())
}
