//! Build steps: aoe's `[[runtime.build]]` argv, run directly (no shell) in the
//! plugin directory with stdin closed, `AOE_PLUGIN_ID` set, a per-step timeout,
//! and all output appended to a log file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Run `steps` in `dir`; `on_step(n, total, argv)` is called before each.
pub fn run(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &Path,
    mut on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    let log_err = |source| StepError::Log {
        path: log.to_path_buf(),
        source,
    };
    if let Some(parent) = log.parent() {
        std::fs::create_dir_all(parent).map_err(log_err)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(log_err)?;
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let cmd = step.argv.join(" ");
        on_step(n, steps.len(), &step.argv);
        let program = &step.argv[0];
        if program.starts_with('/') {
            return Err(StepError::Absolute {
                n,
                program: program.clone(),
            });
        }
        // A separator means plugin-relative; a bare name is resolved on PATH.
        let resolved = if program.contains('/') {
            dir.join(program).into_os_string()
        } else {
            program.into()
        };
        writeln!(file, "$ {cmd}").map_err(log_err)?;
        let out = file.try_clone().map_err(log_err)?;
        let err = file.try_clone().map_err(log_err)?;
        let mut child = Command::new(resolved)
            .args(&step.argv[1..])
            .current_dir(dir)
            .env("AOE_PLUGIN_ID", plugin_id)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|source| StepError::Spawn {
                n,
                cmd: cmd.clone(),
                source,
            })?;
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|source| StepError::Spawn {
                n,
                cmd: cmd.clone(),
                source,
            })? {
                break status;
            }
            if start.elapsed() > timeout {
                let _ = child.kill();
                let _ = child.wait();
                return Err(StepError::TimedOut {
                    n,
                    cmd,
                    secs: timeout.as_secs(),
                    log_tail: tail(log, 20),
                });
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if !status.success() {
            return Err(StepError::Failed {
                n,
                cmd,
                status: status.to_string(),
                log_tail: tail(log, 20),
            });
        }
    }
    Ok(())
}
