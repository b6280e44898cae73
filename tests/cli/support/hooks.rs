//! The hook runners the slow tests drive: the real `pre-commit` and `prek`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The `pre-commit` to run, or `None` (after a note) when slow tests are off.
pub(crate) fn slow_pre_commit() -> Option<PathBuf> {
    if std::env::var_os("PLUGINS_SLOW_TESTS").is_none_or(|v| v != "1") {
        // Straight to stderr: libtest hides what `eprintln!` prints in a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: set PLUGINS_SLOW_TESTS=1 to run pre-commit"
        );
        return None;
    }
    Some(
        std::env::var_os("PLUGINS_PRE_COMMIT")
            .map_or_else(|| PathBuf::from("pre-commit"), PathBuf::from),
    )
}

/// `TOOL try-repo` (pre-commit or prek) run in `sample`, its cache in `home`, no colour.
pub(crate) fn hook_runner(tool: &Path, sample: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(tool);
    cmd.args(["try-repo", "--color", "never"])
        .current_dir(sample)
        .env("PRE_COMMIT_HOME", home)
        .env("PREK_HOME", home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .env_remove("PLUGINS_HOME");
    cmd
}
