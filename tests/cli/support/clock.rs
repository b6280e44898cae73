//! A skewed real clock for one command: libfaketime (Debian's `faketime` package) preloaded,
//! so the process and its children read a wall clock shifted by an offset. Only the wall
//! clock: monotonic time (timeouts) and the times the file system stamps stay real, as on a
//! machine whose clock is set wrong for a while.

use std::path::PathBuf;

/// libfaketime's preload library; `None` (with a line saying the test was skipped) where
/// it is not installed, and a failure under CI, which installs it (`.ci/run`).
pub(crate) fn faketime() -> Option<PathBuf> {
    let found = [
        "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
        "/usr/lib/faketime/libfaketime.so.1",
        "/usr/lib64/faketime/libfaketime.so.1",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists());
    if found.is_none() {
        use std::io::Write as _;
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have libfaketime (.ci/run installs the faketime package)"
        );
        let test = std::thread::current()
            .name()
            .map_or(String::new(), |n| format!(" {n}"));
        // Straight to stderr: libtest hides what `eprintln!` prints in a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "skipped{test}: libfaketime is not installed (apt-get install faketime)"
        );
    }
    found
}

/// Runs `cmd` with its wall clock `offset_secs` seconds ahead (negative: behind) of the real
/// one, ticking at the real pace.
pub(crate) fn skew(cmd: &mut super::Plugins, lib: &std::path::Path, offset_secs: i64) {
    cmd.env("LD_PRELOAD", lib)
        .env("FAKETIME", format!("{offset_secs:+}"))
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("NO_FAKE_STAT", "1");
}
