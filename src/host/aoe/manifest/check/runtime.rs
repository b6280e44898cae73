//! `[runtime]`: the worker command, build steps and release binaries, in the host's order.

use super::super::profile::PLATFORMS;
use super::super::raw::{BuildStep, Manifest, Runtime};
use super::super::rules;
use super::{Cx, err};
use crate::diagnostic::Code;
use crate::ptr;

/// An absolute worker program is usually a host program: offer its bare name
/// with `system = true`, and the in-plugin alternative.
pub(super) fn absolute_program_help(program: &str) -> String {
    let inside = "point at a file inside the plugin, e.g. \".aoe-build/bin/worker\"";
    match bare_name(program) {
        Some(name) => format!(
            "to run the host's `{name}` from PATH, write the bare name \"{name}\" and add `system = true`; or {inside}"
        ),
        None => inside.to_owned(),
    }
}

/// The last path component of a program, if it has one.
pub(super) fn bare_name(program: &str) -> Option<&str> {
    program.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())
}

pub(super) fn runtime(cx: &mut Cx, m: &Manifest) {
    match &m.runtime {
        Some(Runtime::Command {
            command,
            system,
            build,
        }) => {
            cx.check(!command.is_empty(), || {
                err(
                    Code::AoeRuntimeCommand,
                    "runtime command must not be empty",
                    ptr!["runtime", "command"],
                )
            });
            let empty_at = command.iter().position(String::is_empty);
            cx.check(empty_at.is_none(), || {
                err(
                    Code::AoeRuntimeCommand,
                    "runtime command must not contain empty arguments",
                    ptr!["runtime", "command", empty_at.unwrap_or(0)],
                )
            });
            if let Some(program) = command.first().filter(|a| !a.is_empty()) {
                program_check(cx, program, *system);
            }
            build_steps(cx, build);
        }
        Some(Runtime::ReleaseBinary { asset, bin }) => {
            cx.check(!asset.is_empty(), || {
                err(
                    Code::AoeEmpty,
                    "runtime release-binary asset must not be empty",
                    ptr!["runtime", "asset"],
                )
            });
            cx.check(bin.as_ref().is_none_or(|b| !b.is_empty()), || {
                err(
                    Code::AoeEmpty,
                    "runtime release-binary bin must not be empty",
                    ptr!["runtime", "bin"],
                )
            });
        }
        None => {}
    }
}

/// The worker program, `command[0]`: a bare name from PATH with `system = true`, else a
/// plugin-relative path.
fn program_check(cx: &mut Cx, program: &str, system: bool) {
    let at = ptr!["runtime", "command", 0];
    if system {
        cx.check(!rules::looks_like_path(program), || {
            let f = err(
                Code::AoeRuntimeCommand,
                format!(
                    "runtime command program {program:?} has `system = true` but is a path; \
                     a system dependency must be a bare program name resolved on PATH (like \"uv\" or \"python3\")"
                ),
                at.clone(),
            )
            .also(ptr!["runtime", "system"], "`system = true` set here")
            .help(bare_name(program).map_or_else(
                || "write a bare program name, or drop `system = true` for a program inside the plugin".to_owned(),
                |name| format!("write the bare name \"{name}\", or drop `system = true` for a program inside the plugin"),
            ));
            match bare_name(program) {
                Some(name) => f.fix(name),
                None => f,
            }
        });
    } else {
        let ok = rules::looks_like_path(program) && !rules::is_absolute(program);
        cx.check(ok, || {
            let f = err(
                Code::AoeRuntimeCommand,
                format!(
                    "runtime command program {program:?} must be a plugin-relative path \
                     (containing a separator, like \".venv/bin/worker\"); set `system = true` \
                     to depend on a program from the host PATH instead"
                ),
                at.clone(),
            )
            .help(if rules::is_absolute(program) {
                absolute_program_help(program)
            } else {
                format!(
                    "write \"./{program}\" for a file in the plugin root, or add `system = true`"
                )
            });
            if rules::is_absolute(program) {
                f
            } else {
                f.fix(format!("./{program}"))
            }
        });
    }
}

/// `[[runtime.build]]`: each step's argv, and the platforms it runs on.
fn build_steps(cx: &mut Cx, build: &[BuildStep]) {
    for (i, step) in build.iter().enumerate() {
        cx.check(!step.command.is_empty(), || {
            err(
                Code::AoeBuildStep,
                format!("runtime.build[{i}].command must not be empty"),
                ptr!["runtime", "build", i, "command"],
            )
        });
        let empty_at = step.command.iter().position(String::is_empty);
        cx.check(empty_at.is_none(), || {
            err(
                Code::AoeBuildStep,
                format!("runtime.build[{i}].command must not contain empty arguments"),
                ptr!["runtime", "build", i, "command", empty_at.unwrap_or(0)],
            )
        });
        for (j, p) in step.platforms.iter().enumerate() {
            cx.check(PLATFORMS.contains(&p.as_str()), || {
                let f = err(
                    Code::AoeBuildStep,
                    format!(
                        "runtime.build[{i}].platforms contains unknown platform {p:?}; expected one of linux, macos, windows"
                    ),
                    ptr!["runtime", "build", i, "platforms", j],
                );
                match crate::diagnostic::did_you_mean(p, PLATFORMS.iter().copied()) {
                    Some(s) => f.help(format!("did you mean \"{s}\"?")).fix(s),
                    None => f,
                }
            });
        }
    }
}
