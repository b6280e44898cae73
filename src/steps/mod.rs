//! Build steps: aoe's `[[runtime.build]]` argv, run directly (no shell) in the
//! plugin directory with stdin closed, a scrubbed environment ([`StepEnv`]: an
//! allow-list, and `AOE_PLUGIN_ID`), a per-step timeout, and all output appended
//! to a log file.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod env;
#[cfg(target_os = "linux")]
mod forked;
mod group;
mod log;
#[cfg(target_os = "linux")]
mod reaper;
mod sandbox;

pub use env::{PASSED, PIP_INDEX, PROXIES, StepEnv, configure, on_path};
pub use group::{keep_to_itself, kept_to_itself};
pub(crate) use group::{kill_group, stop_group};
pub use log::{LOG_CAP, Log};
pub(crate) use sandbox::contain;
pub use sandbox::{Isolation, Overlay, isolation};

use env::{PIP_ISOLATION, step_env};
use group::{RUNNING_GROUP, install_signal_handlers};
use log::{Captured, capture, tail_text};
#[cfg(all(test, target_os = "linux"))]
use reaper::reaper;

/// One step to run.
#[derive(Clone, Debug)]
pub struct Step {
    pub argv: Vec<String>,
    /// Empty means every platform.
    pub platforms: Vec<String>,
}

/// How a step failed.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("build step {n} ({cmd}) failed with {status}")]
    Failed {
        n: usize,
        cmd: String,
        status: String,
        log_tail: String,
    },
    #[error("build step {n} ({cmd}) timed out after {secs} s")]
    TimedOut {
        n: usize,
        cmd: String,
        secs: u64,
        log_tail: String,
    },
    #[error("build step {n} ({cmd}) could not start: {source}")]
    Spawn {
        n: usize,
        cmd: String,
        source: std::io::Error,
    },
    #[error("build step {n} program {program:?} is an absolute path, which aoe refuses")]
    Absolute { n: usize, program: String },
    #[error("cannot write the build log {}: {source}", path.display())]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StepError {
    /// The last lines of the step's output, to show on failure.
    pub fn log_tail(&self) -> Option<&str> {
        match self {
            StepError::Failed { log_tail, .. } | StepError::TimedOut { log_tail, .. } => {
                Some(log_tail)
            }
            _ => None,
        }
    }
}

/// The steps for this OS, in order.
pub fn for_this_platform(steps: &[Step]) -> Vec<&Step> {
    steps
        .iter()
        .filter(|s| s.platforms.is_empty() || s.platforms.iter().any(|p| p == std::env::consts::OS))
        .collect()
}

/// Run `steps` in `dir`; `on_step(n, total, argv)` is called before each.
/// Each step runs in its own process group, which is killed when the step
/// ends (success, failure or timeout) so that nothing it started outlives it.
pub fn run(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &mut Log,
    overlay: Option<&Overlay>,
    on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    let run = Run {
        dir,
        overlay,
        plugin_id,
        timeout,
        own: false,
    };
    run_steps(steps, &run, log, on_step)
}

/// [`run`] for commands `plugins` itself composes (never a plugin's): the program may be
/// an absolute path (the host's interpreter given with `--python`).
pub fn run_own(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &mut Log,
    on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    let run = Run {
        dir,
        overlay: None,
        plugin_id,
        timeout,
        own: true,
    };
    run_steps(steps, &run, log, on_step)
}

/// Where and how one run's steps go: in `dir` (under `overlay`, seen there from the staged
/// tree), for the plugin `plugin_id`, each within `timeout`; `own` for commands `plugins`
/// composes ([`run_own`]).
struct Run<'a> {
    dir: &'a Path,
    overlay: Option<&'a Overlay>,
    plugin_id: &'a str,
    timeout: Duration,
    own: bool,
}

/// [`run`] or [`run_own`]: each of `steps` as `run` says, its output logged to `log`.
fn run_steps(
    steps: &[&Step],
    run: &Run<'_>,
    log: &mut Log,
    mut on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    let (dir, timeout, own) = (run.dir, run.timeout, run.own);
    install_signal_handlers();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let cmd = step.argv.join(" ");
        on_step(n, steps.len(), &step.argv);
        let resolved = program(step, n, dir, own)?;
        log.write(format!("$ {cmd}\n").as_bytes())?;
        let spawn_err = |source| StepError::Spawn {
            n,
            cmd: cmd.clone(),
            source,
        };
        let (reader, writer) = std::io::pipe().map_err(spawn_err)?;
        let writer_err = writer.try_clone().map_err(spawn_err)?;
        let mut command = command(step, resolved, run, (writer, writer_err));
        let mut child = command.spawn().map_err(spawn_err)?;
        // The pipe's write ends now live only in the child (and its children).
        drop(command);
        let pgid = child.id() as i32;
        RUNNING_GROUP.store(pgid, std::sync::atomic::Ordering::SeqCst);
        let (captured, read_all) = capture(reader, LOG_CAP.saturating_sub(log.written));
        let in_time = exits_in_time(pgid, timeout);
        if in_time {
            kill_group(pgid);
        } else {
            stop_group(pgid);
        }
        RUNNING_GROUP.store(0, std::sync::atomic::Ordering::SeqCst);
        let status = match child.wait() {
            Ok(status) if in_time => Some(status),
            Ok(_) => None,
            Err(source) => return Err(spawn_err(source)),
        };
        // The group is gone, so the pipe reaches its end; a process that left
        // the group (setsid) may hold it open, so wait only briefly.
        let _ = read_all.recv_timeout(Duration::from_secs(1));
        let tail = log_output(log, &captured)?;
        finished(status, n, cmd, timeout, tail)?;
    }
    Ok(())
}

/// The program step `n` runs: a path with a separator is the plugin's (under `dir`), a
/// bare name is looked up on PATH; an absolute path is refused, unless `own` (a command
/// `plugins` composes, taken as given).
fn program(step: &Step, n: usize, dir: &Path, own: bool) -> Result<OsString, StepError> {
    let program = &step.argv[0];
    if own && program.starts_with('/') {
        // Taken as given, not relative to the plugin.
    } else if program.starts_with('/') {
        return Err(StepError::Absolute {
            n,
            program: program.clone(),
        });
    }
    // A separator means plugin-relative; a bare name is resolved on PATH.
    Ok(if own && program.starts_with('/') {
        program.into()
    } else if program.contains('/') {
        dir.join(program).into_os_string()
    } else {
        program.into()
    })
}

/// The command for `step`: `resolved` with the step's arguments, in the scrubbed
/// environment (with pip's isolation for a command of `plugins`' own), stdin closed, both
/// outputs into the pipe's write ends, in a process group of its own, contained (and under
/// `overlay`, where there is one).
fn command(
    step: &Step,
    resolved: OsString,
    run: &Run<'_>,
    (writer, writer_err): (std::io::PipeWriter, std::io::PipeWriter),
) -> Command {
    let Run {
        dir,
        overlay,
        plugin_id,
        own,
        ..
    } = *run;
    let mut command = Command::new(resolved);
    let env = step_env();
    command
        .env_clear()
        .envs(env.base.iter().map(|(k, v)| (k, v)));
    if own {
        command.envs(env.pip.iter().map(|(k, v)| (k, v))).envs(
            PIP_ISOLATION
                .iter()
                .map(|(k, v)| (OsStr::new(k), OsStr::new(v))),
        );
    }
    command
        .args(&step.argv[1..])
        // Under an overlay the plugin directory may not exist out here (a first
        // install): the step starts in the staged tree and enters `dir` once it is
        // mounted there.
        .current_dir(overlay.map_or(dir, Overlay::staged))
        .env("AOE_PLUGIN_ID", plugin_id)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(writer_err);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    contain(&mut command, overlay);
    command
}

/// Whether the step (the leader of process group `pgid`) exits within `timeout`. Its exit
/// is waited for on a thread of its own and heard at once, not found by polling it (a
/// 20 ms poll added 10 ms to every step on average). That thread only waits (`WNOWAIT`):
/// the step is reaped by the caller, after its group is killed, so the group's id cannot
/// have been given to another group by then.
fn exits_in_time(pgid: i32, timeout: Duration) -> bool {
    let (exited, exit) = std::sync::mpsc::channel();
    let pid = pgid;
    std::thread::spawn(move || {
        let waited = loop {
            // SAFETY: waitid(2) on our own child, into a zeroed siginfo_t; WNOWAIT
            // leaves it to be reaped by the caller's `child.wait`.
            let waited = unsafe {
                let mut info: libc::siginfo_t = std::mem::zeroed();
                libc::waitid(
                    libc::P_PID,
                    pid as libc::id_t,
                    &mut info,
                    libc::WEXITED | libc::WNOWAIT,
                )
            };
            if waited == -1
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
                continue;
            }
            break waited;
        };
        let _ = exited.send(waited);
    });
    exit.recv_timeout(timeout).is_ok()
}

/// Append what the step wrote to `log` (past [`LOG_CAP`], a note of what was left out and
/// the last lines); returns those last lines, to show on failure.
fn log_output(log: &mut Log, captured: &std::sync::Mutex<Captured>) -> Result<String, StepError> {
    let (tail, for_log, omitted) = {
        let c = captured.lock().expect("not poisoned");
        (tail_text(&c.tail), c.for_log.clone(), c.omitted)
    };
    log.write(&for_log)?;
    if omitted > 0 {
        log.append(
            format!("\n[... {omitted} more bytes not logged; the last lines:]\n{tail}\n")
                .as_bytes(),
        )?;
    }
    Ok(tail)
}

/// How step `n` ended (`None`: it ran out of `timeout`), as an error unless it succeeded.
fn finished(
    status: Option<std::process::ExitStatus>,
    n: usize,
    cmd: String,
    timeout: Duration,
    tail: String,
) -> Result<(), StepError> {
    match status {
        None => Err(StepError::TimedOut {
            n,
            cmd,
            secs: timeout.as_secs(),
            log_tail: tail,
        }),
        Some(status) if !status.success() => Err(StepError::Failed {
            n,
            cmd,
            status: status.to_string(),
            log_tail: tail,
        }),
        Some(_) => Ok(()),
    }
}

#[cfg(all(test, target_os = "linux"))]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// What a step sees through an overlay entered one way: the staged file at the
    /// plugin directory's path, which keeps the installed file for everyone else.
    fn seen_through(user_ns: bool) -> Option<String> {
        let tmp = tempfile::tempdir().unwrap();
        let (installed, staged) = (tmp.path().join("installed"), tmp.path().join("staged"));
        for (dir, text) in [(&installed, "installed\n"), (&staged, "staged\n")] {
            fs_err::create_dir(dir).unwrap();
            fs_err::write(dir.join("file"), text).unwrap();
        }
        let overlay = Overlay::with(&staged, &installed, user_ns).unwrap();
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", "cat file; pwd"]).current_dir(&staged);
        // SAFETY: as in run_steps.
        unsafe {
            sh.pre_exec(move || overlay.enter());
        }
        let out = sh.output().ok().filter(|o| o.status.success())?;
        assert_eq!(
            fs_err::read_to_string(installed.join("file")).unwrap(),
            "installed\n"
        );
        let shown = String::from_utf8(out.stdout).unwrap();
        Some(shown.replace(&installed.display().to_string(), "[INSTALLED]"))
    }

    /// The pids of running (not zombie) processes whose command line is `sleep <mark>`
    /// (also what the host probe's tests count).
    pub(crate) fn sleeping(mark: &str) -> Vec<i32> {
        let want = format!("sleep\0{mark}\0");
        fs_err::read_dir("/proc")
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                let cmd = fs_err::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let zombie = fs_err::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .is_some_and(|s| {
                        s.rsplit_once(')')
                            .and_then(|(_, r)| r.split_whitespace().next())
                            == Some("Z")
                    });
                cmd == want.as_bytes() && !zombie
            })
            .collect()
    }

    /// Wait up to 5 s for `marks` to be gone; the survivors (killed, so the test leaves
    /// nothing).
    fn survivors(marks: &[&str]) -> Vec<i32> {
        let left = || marks.iter().flat_map(|m| sleeping(m)).collect::<Vec<_>>();
        for _ in 0..500 {
            if left().is_empty() {
                return Vec::new();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let left = left();
        for pid in &left {
            // SAFETY: kill(2) on a sleep this test started.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        left
    }

    /// A shell run as [`contain`] runs it where there are no namespaces: through the
    /// reaper.
    fn reaped(script: &str) -> Command {
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        // SAFETY: as in `contain`.
        unsafe {
            sh.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                reaper()
            });
        }
        sh
    }

    /// Without namespaces, the reaper kills what a step leaves when it ends (a background
    /// child, one that left with `setsid`), keeps its exit status, and kills the step and
    /// all it started when `plugins` (here the thread that spawned it) dies mid-step.
    #[test]
    fn without_namespaces_the_reaper_leaves_nothing_running() {
        let status = reaped("setsid sleep 6031 & sleep 6032 & exit 3")
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(survivors(&["6031", "6032"]), Vec::<i32>::new());

        let marks = ["6033", "6034", "6035"];
        let spawner = std::thread::spawn(move || {
            let child = reaped("setsid sleep 6033 & sleep 6034 & sleep 6035")
                .spawn()
                .unwrap();
            while marks.iter().any(|m| sleeping(m).is_empty()) {
                std::thread::sleep(Duration::from_millis(10));
            }
            child
        });
        // The spawning thread ends here, as `plugins` would on kill -9.
        let mut reaper = spawner.join().unwrap();
        assert_eq!(survivors(&marks), Vec::<i32>::new());
        assert!(!reaper.wait().unwrap().success());

        // A step that runs out of time: `stop_group` asks the reaper first.
        let marks = ["6036", "6037"];
        let mut child = reaped("setsid sleep 6036 & sleep 6037").spawn().unwrap();
        while marks.iter().any(|m| sleeping(m).is_empty()) {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop_group(child.id() as i32);
        assert!(!child.wait().unwrap().success());
        assert_eq!(survivors(&marks), Vec::<i32>::new());
    }

    /// Root enters the mount namespace directly (its capabilities kept); another user
    /// through a user namespace. Each way the step sees the staged tree at the plugin
    /// directory's path. (A way this system refuses is skipped: no root, or no
    /// unprivileged user namespaces.)
    #[test]
    fn a_step_sees_the_staged_tree_at_the_plugin_directory() {
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        for user_ns in [false, true] {
            match seen_through(user_ns) {
                Some(shown) => assert_eq!(shown, "staged\n[INSTALLED]\n", "user_ns: {user_ns}"),
                None => assert!(user_ns || !root, "root could not enter a mount namespace"),
            }
        }
    }
}
