//! Running what an install builds: aoe build steps and protoAgent `--deps` (staged).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{DepsRefusal, Event, InstallError, Refusal, Request, io};
use crate::diagnostic::Code;
use crate::lock::DepPin;
use crate::name::Name;
use crate::steps::{self, Step};
use crate::store::Home;

/// Report each step as it starts.
fn announce(on_event: &mut dyn FnMut(Event)) -> impl FnMut(usize, usize, &[String]) + '_ {
    |n: usize, total: usize, argv: &[String]| {
        on_event(Event::Building {
            n,
            total,
            command: argv.join(" "),
        });
    }
}

/// Run `plugins`' own steps (pip) in `target`: they may name the host's interpreter by
/// its absolute path.
fn run_steps(
    steps: &[&Step],
    target: &Path,
    id: &Name,
    timeout: Duration,
    log: &mut steps::Log,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), steps::StepError> {
    steps::run_own(steps, target, id.as_str(), timeout, log, announce(on_event))
}

/// A plugin's build: its steps, the tree they run in (aoe builds in place: a build's outputs,
/// such as a venv's scripts, name the directory they were built in), and the plugin.
pub(super) struct BuildAt<'a> {
    pub(super) build: &'a [Step],
    pub(super) target: &'a Path,
    pub(super) name: &'a Name,
    pub(super) entrypoint: Option<&'a (String, bool)>,
    pub(super) home: &'a Home,
}

/// Run a plugin's build steps in `at.target`; with `overlay`, `at.target` shows the staged
/// tree to the steps while the installed one stays where it is, and the outputs land in the
/// staged tree ([`steps::Overlay::staged`]).
pub(super) fn run_build(
    at: &BuildAt<'_>,
    overlay: Option<&steps::Overlay>,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let steps = steps::for_this_platform(at.build);
    let mut log = steps::Log::create(&at.home.build_log(at.name))?;
    let built = overlay.map_or(at.target, steps::Overlay::staged);
    steps::run(
        &steps,
        at.target,
        at.name.as_str(),
        timeout,
        &mut log,
        overlay,
        announce(on_event),
    )?;
    check_runnable(built, at.name, at.entrypoint)
}

/// After a build (or a bundled build output put in place): a plugin-relative worker must be
/// an executable file, as aoe checks.
pub(super) fn check_runnable(
    built: &Path,
    id: &Name,
    entrypoint: Option<&(String, bool)>,
) -> Result<(), InstallError> {
    if let Some((program, false)) = entrypoint {
        let path = built.join(program);
        let runnable = fs_err::metadata(&path).is_ok_and(|m| {
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
            return Err(Refusal::NotRunnable {
                id: id.to_string(),
                program: program.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// The interpreter whose pip installs `--deps` when none is known: the `python3` on PATH
/// (wheels and markers are judged for it, so it should be the host's).
const PYTHON: &str = "python3";

/// The interpreter whose pip installs a plugin's deps, as protoAgent's own `_host_pip()`
/// uses the server's `sys.executable`: `--python`, else the one the home remembers
/// (`[host] python` in `<home>/plugins.toml`, recorded by `install --python`), else
/// `python3` on PATH. Said in `-v`.
pub(super) fn python_for(given: Option<&Path>, home: &Home) -> String {
    let (python, why) = match given {
        Some(p) => (p.display().to_string(), "--python"),
        None => match crate::host::detect::remembered_python(home) {
            Some(p) => (p, "[host] python in plugins.toml"),
            None => (
                PYTHON.to_owned(),
                "on PATH; pass --python for the host's own",
            ),
        },
    };
    log::debug!("deps: pip of {python} ({why})");
    python
}

fn pip(python: &str, args: &[&str], specs: &[String]) -> Step {
    let mut argv: Vec<String> = [
        python,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        // Wheels only: pip never builds (runs) a source archive for a requirement or a pin,
        // and what is pinned is a wheel, which `sync` and `bundle` can take as pinned.
        "--only-binary",
        ":all:",
    ]
    .iter()
    .chain(args)
    .map(|s| (*s).to_owned())
    .collect();
    if !specs.is_empty() {
        argv.push("--".to_owned());
        argv.extend(specs.iter().cloned());
    }
    Step {
        argv,
        platforms: Vec::new(),
    }
}

/// PEP 503's normalized name (`Foo_Bar.baz` → `foo-bar-baz`).
fn canonical(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The wheels a `pip install --dry-run --report` would install: name, version, sha256.
fn read_report(path: &Path) -> Result<Vec<DepPin>, InstallError> {
    let bad = |why: String| {
        InstallError::from(DepsRefusal::Report {
            path: path.to_path_buf(),
            why,
        })
    };
    let text = fs_err::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let report: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let items = report
        .get("install")
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| bad("no `install` list".into()))?;
    items
        .iter()
        .map(|item| {
            let s = |ptr: &str| item.pointer(ptr).and_then(serde_json::Value::as_str);
            let name = s("/metadata/name").ok_or_else(|| bad("an item without a name".into()))?;
            let version = s("/metadata/version").unwrap_or_default();
            let sha256 = s("/download_info/archive_info/hashes/sha256")
                .or_else(|| s("/download_info/archive_info/hash")?.strip_prefix("sha256="))
                .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                .ok_or_else(|| DepsRefusal::NotArchive {
                    name: name.to_owned(),
                    version: version.to_owned(),
                })?;
            DepPin::new(
                name.to_owned(),
                version.to_owned(),
                sha256.to_ascii_lowercase(),
            )
            .map_err(|why| {
                DepsRefusal::Unpinnable {
                    name: name.to_owned(),
                    version: version.to_owned(),
                    why,
                }
                .into()
            })
        })
        .collect()
}

/// Lists the distributions `python3` already has (PEP 503 names), one per line.
const PRESENT_PY: &str = "import importlib.metadata as m, sys; \
open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()})))";

/// `--deps`, as protoAgent 0.218's wheel installer lays them out (spec §5.4): the
/// marker-applicable `requires_pip` (optional ones best-effort) and what they need, minus
/// what the host's Python already has, unpacked flat into `<staging>/deps` (pip
/// `--target`, `--no-compile`), each pinned by name, version and sha256. pip resolves
/// once (`--dry-run --report`), and the target install takes exactly those files
/// (`--require-hashes --no-deps`). pip runs in `<staging>/pip`, a directory made empty for
/// it (never beside the plugin's tree, whose files a requirement could otherwise name), and
/// its target moves to `<staging>/deps`. Nothing outside `staging` changes.
pub(super) fn install_deps(
    request: &Request,
    staging: &Path,
    id: &Name,
    home: &Home,
    python: &str,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(Vec<DepPin>, PathBuf), InstallError> {
    let report = "deps-report.json";
    let resolve =
        |specs: &[String]| pip(python, &["--dry-run", "--quiet", "--report", report], specs);
    let mut log = steps::Log::create(&home.build_log(id))?;
    let work = staging.join("pip");
    fs_err::create_dir(&work).map_err(io(format!("cannot create {}", work.display())))?;
    let all: Vec<String> = request
        .pip
        .iter()
        .chain(&request.optional_pip)
        .cloned()
        .collect();
    let resolved = run_steps(&[&resolve(&all)], &work, id, timeout, &mut log, on_event);
    let resolved = match resolved {
        Err(e) if !request.optional_pip.is_empty() => {
            // Optional requirements never fail the install (protoAgent only warns).
            on_event(Event::Warning {
                code: Code::InstallDepsSkipped,
                message: format!(
                    "{id}: optional requirements {} could not be resolved ({e}); installing the required ones only",
                    request.optional_pip.join(", ")
                ),
            });
            if request.pip.is_empty() {
                Ok(false)
            } else {
                run_steps(
                    &[&resolve(&request.pip)],
                    &work,
                    id,
                    timeout,
                    &mut log,
                    on_event,
                )
                .map(|()| true)
            }
        }
        other => other.map(|()| true),
    }?;
    let mut pins = if resolved {
        read_report(&work.join(report))?
    } else {
        Vec::new()
    };
    if !pins.is_empty() {
        drop_present(&mut pins, &work, id, (python, timeout), &mut log, on_event)?;
    }
    let dir = install_pins(
        &pins,
        None,
        staging,
        id,
        (python, timeout),
        &mut log,
        on_event,
    )?;
    Ok((pins, dir))
}

/// Leave out of `pins` what the host's Python has: never shadowed (the wheel installer's
/// `already_satisfied`), pip listed it only because the installed version does not fit.
/// Each left out is a warning.
fn drop_present(
    pins: &mut Vec<DepPin>,
    work: &Path,
    id: &Name,
    (python, timeout): (&str, Duration),
    log: &mut steps::Log,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    let present = Step {
        argv: [python, "-c", PRESENT_PY, "deps-present.txt"]
            .map(str::to_owned)
            .to_vec(),
        platforms: Vec::new(),
    };
    run_steps(&[&present], work, id, timeout, log, on_event)?;
    let text = fs_err::read_to_string(work.join("deps-present.txt"))
        .map_err(io(format!("cannot read what {python} has installed")))?;
    let have: std::collections::BTreeSet<String> = text.lines().map(canonical).collect();
    pins.retain(|p| {
        let shadows = have.contains(&canonical(p.name()));
        if shadows {
            on_event(Event::Warning {
                code: Code::InstallDepsSkipped,
                message: format!(
                    "{id}: {} {} is not installed into plugin-deps: the host's Python has another version of it, which protoAgent would keep using",
                    p.name(),
                    p.version()
                ),
            });
        }
        !shadows
    });
    Ok(())
}

/// A lock's pins for a plugin whose manifest asks for no pip requirement are not the
/// plugin's: a lock from elsewhere cannot make pip install wheels the code never asked for.
pub(super) fn refuse_stray_pins(
    id: &Name,
    pins: &[DepPin],
    requires_pip: bool,
) -> Result<(), InstallError> {
    if requires_pip || pins.is_empty() {
        return Ok(());
    }
    Err(DepsRefusal::StrayPins {
        id: id.to_string(),
        pins: pins.iter().map(DepPin::spec).collect(),
    }
    .into())
}

/// `sync`: the wheels the lock pins, exactly (`name==version --hash=sha256:…`, pip
/// `--require-hashes --no-deps`, no resolution), unpacked flat into `<staging>/deps` as
/// [`install_deps`] does. A pin pip cannot install as locked (the version or its file gone
/// from the index, another sha256) is refused with `plugins::sync::locked_deps`: `sync`
/// never re-resolves, which only `install` and `update` do.
pub(super) fn install_locked_deps(
    pins: &[DepPin],
    wheels_from: Option<&Path>,
    staging: &Path,
    id: &Name,
    home: &Home,
    (python, timeout): (&str, Duration),
    on_event: &mut dyn FnMut(Event),
) -> Result<PathBuf, InstallError> {
    let mut log = steps::Log::create(&home.build_log(id))?;
    let work = staging.join("pip");
    fs_err::create_dir(&work).map_err(io(format!("cannot create {}", work.display())))?;
    install_pins(
        pins,
        wheels_from,
        staging,
        id,
        (python, timeout),
        &mut log,
        on_event,
    )
    .map_err(|e| {
        let said = match &e {
            InstallError::Build(b) => b.log_tail().unwrap_or_default().to_owned(),
            other => other.to_string(),
        };
        DepsRefusal::NotInstallable {
            id: id.to_string(),
            pins: pins.iter().map(DepPin::spec).collect(),
            said,
        }
        .into()
    })
}

/// `plugins bundle`: the locked wheels' files, downloaded into `dest` as pinned (pip
/// `download --require-hashes --no-deps`, which checks each file's sha256).
pub(super) fn download_locked_wheels(
    pins: &[DepPin],
    dest: &Path,
    id: &Name,
    home: &Home,
    python: &str,
    timeout: Duration,
    on_event: &mut dyn FnMut(Event),
) -> Result<(), InstallError> {
    fs_err::create_dir_all(dest).map_err(io(format!("cannot create {}", dest.display())))?;
    if pins.is_empty() {
        return Ok(());
    }
    let mut log = steps::Log::create(&home.build_log(id))?;
    let reqs: String = pins.iter().map(DepPin::requirement_line).collect();
    fs_err::write(dest.join("requirements.txt"), reqs)
        .map_err(io("cannot write the pinned requirements"))?;
    let argv: Vec<String> = [
        python,
        "-m",
        "pip",
        "download",
        "--disable-pip-version-check",
        "--no-input",
        "--no-deps",
        "--require-hashes",
        "--only-binary",
        ":all:",
        "-d",
        ".",
        "-r",
        "requirements.txt",
    ]
    .map(str::to_owned)
    .to_vec();
    let step = Step {
        argv,
        platforms: Vec::new(),
    };
    run_steps(&[&step], dest, id, timeout, &mut log, on_event).map_err(|why| {
        DepsRefusal::NotDownloadable {
            id: id.to_string(),
            why,
        }
    })?;
    fs_err::remove_file(dest.join("requirements.txt"))
        .map_err(io("cannot remove the pinned requirements"))?;
    Ok(())
}

/// pip `--require-hashes --no-deps --target` of exactly `pins` in `work`, moved to
/// `<staging>/deps` (made empty when there is nothing to install).
fn install_pins(
    pins: &[DepPin],
    wheels_from: Option<&Path>,
    staging: &Path,
    id: &Name,
    (python, timeout): (&str, Duration),
    log: &mut steps::Log,
    on_event: &mut dyn FnMut(Event),
) -> Result<PathBuf, InstallError> {
    let work = staging.join("pip");
    let dir = staging.join("deps");
    if pins.is_empty() {
        fs_err::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
        return Ok(dir);
    }
    let reqs: String = pins.iter().map(DepPin::requirement_line).collect();
    fs_err::write(work.join("deps-requirements.txt"), reqs)
        .map_err(io("cannot write the pinned requirements"))?;
    let mut args = vec![
        "--no-deps",
        "--no-compile",
        "--require-hashes",
        "--target",
        "deps",
        "-r",
        "deps-requirements.txt",
    ];
    let links = wheels_from.map(|d| d.display().to_string());
    if let Some(links) = &links {
        args.extend(["--no-index", "--find-links", links.as_str()]);
    }
    let target = pip(python, &args, &[]);
    run_steps(&[&target], &work, id, timeout, log, on_event)?;
    fs_err::rename(work.join("deps"), &dir)
        .map_err(io(format!("cannot move pip's target to {}", dir.display())))?;
    Ok(dir)
}
