//! The real hosts, run from the venv `.ci/hosts-venv` builds, behind
//! `tests/hosts/host.py` (one long-lived process judging cases read on stdin).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The host interpreter: `PLUGINS_HOST_PYTHON`, else `bin/python` of
/// `PLUGINS_HOST_VENV` (default `target/hosts-venv`).
///
/// `None` when it is absent: the calling test returns at once after one
/// `skipped` line on stderr. With `CI` set, a missing venv fails the test.
pub(crate) fn host_python() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("PLUGINS_HOST_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let venv = std::env::var_os("PLUGINS_HOST_VENV")
                .map_or_else(|| root.join("target/hosts-venv"), PathBuf::from);
            root.join(venv).join("bin/python")
        });
    if python.is_file() {
        return Some(python);
    }
    super::skip(
        &format!(
            "no host venv at {} (run .ci/hosts-venv, or set PLUGINS_HOST_PYTHON)",
            python.display()
        ),
        "host parity tests",
    );
    None
}

/// One host process.
pub(crate) struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Host {
    pub(crate) fn start(python: &Path) -> Host {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hosts/host.py");
        let mut child = Command::new(python)
            .arg(script)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            // `str()` of a set (`!!set`) follows string hashes: fix them.
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONIOENCODING", "utf-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the host python starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Host {
            child,
            stdin,
            stdout,
        }
    }

    /// Judge every case (JSON objects, see host.py); verdicts come back in order.
    pub(crate) fn judge(&mut self, cases: &[serde_json::Value]) -> Vec<serde_json::Value> {
        let stdin = self.stdin.as_mut().expect("the host's stdin is open");
        let stdout = &mut self.stdout;
        // Write from a second thread so a full stdout pipe never deadlocks us.
        std::thread::scope(|s| {
            s.spawn(move || {
                for c in cases {
                    stdin
                        .write_all(format!("{c}\n").as_bytes())
                        .expect("write a case");
                }
                stdin.flush().expect("flush the cases");
            });
            let mut out = Vec::with_capacity(cases.len());
            let mut line = String::new();
            for _ in cases {
                line.clear();
                let n = stdout.read_line(&mut line).expect("read a verdict");
                assert!(n > 0, "the host process ended early");
                let verdict = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not a JSON verdict ({e}): {line:?}"));
                out.push(verdict);
            }
            out
        })
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // End of input ends the host; after a panic mid-judge, kill it too.
        drop(self.stdin.take());
        if std::thread::panicking() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
