//! The cron line `plugins autoupdate` runs from: the line for a home, and whether the
//! binary, the log directory and the log it names are there and usable.

use std::path::{Path, PathBuf};

use super::{Check, Mark, Options};
use crate::diagnostic::Code;
use crate::store::Home;

/// `path` as one shell word.
pub(super) fn shell_word(path: &Path) -> String {
    let s = path.display().to_string();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Where the crontab line appends its output: `~/.local/state/plugins-autoupdate.log`.
fn cron_log(opts: &Options) -> Option<PathBuf> {
    opts.user_home
        .as_ref()
        .map(|h| h.join(".local/state/plugins-autoupdate.log"))
}

/// The crontab line `docs/cli.md` documents, for this home and this binary. It creates
/// the log's directory itself (`mkdir -p`), so it works on an account that has none: the
/// shell opens the `>>` file before `plugins` runs. Everything goes to the log; when the
/// sweep exits non-zero (an update failed or needs approval) the log's tail is printed too,
/// which cron mails.
pub(super) fn cron_line(home: &Home, opts: &Options) -> Option<String> {
    let binary = opts.binary.as_ref()?;
    let command = format!(
        "{} autoupdate -q --home {}",
        shell_word(binary),
        shell_word(&home.root)
    );
    Some(match cron_log(opts) {
        Some(log) => {
            let dir = log.parent().expect("the log is in a directory");
            format!(
                "17 * * * * mkdir -p {} && {command} >>{} 2>&1 || {{ tail -n 20 {}; exit 1; }}",
                shell_word(dir),
                shell_word(&log),
                shell_word(&log)
            )
        }
        None => format!("17 * * * * {command}"),
    })
}

/// What the crontab line needs: an absolute, executable binary (not one a rebuild
/// replaced), and a log directory it can create or write to.
pub(super) fn examine_cron(opts: &Options) -> Check {
    let mut problems = Vec::new();
    let mut fine = Vec::new();
    if let Some(binary) = &opts.binary {
        let shown = binary.display();
        if !binary.is_absolute() {
            problems.push(format!("{shown} is not an absolute path"));
        } else if !binary.is_file() {
            problems.push(format!(
                "{shown} is not a file (replaced or deleted since it started?)"
            ));
        } else if !access(binary, libc::X_OK) {
            problems.push(format!("{shown} is not executable"));
        } else {
            fine.push(format!("{shown} is executable"));
        }
    }
    if let Some(log) = cron_log(opts) {
        let dir = log.parent().expect("the log is in a directory");
        // The directory that exists: the log's, or the nearest one above that `mkdir -p`
        // creates it in.
        let existing = dir.ancestors().find(|d| d.exists()).unwrap_or(dir);
        if !existing.is_dir() {
            problems.push(format!("{} is not a directory", existing.display()));
        } else if !access(existing, libc::W_OK | libc::X_OK) {
            problems.push(format!("{} is not writable", existing.display()));
        } else if log.exists() && !access(&log, libc::W_OK) {
            problems.push(format!("{} is not writable", log.display()));
        } else if existing == dir {
            fine.push(format!("{} is writable", dir.display()));
        } else {
            fine.push(format!(
                "{} is writable (the line's `mkdir -p` creates {})",
                existing.display(),
                dir.display()
            ));
        }
    }
    if problems.is_empty() {
        Check::new(
            "cron",
            Mark::Ok,
            format!("the crontab line can run: {}", fine.join("; ")),
        )
    } else {
        Check::new(
            "cron",
            Mark::Warn,
            format!("the crontab line would fail: {}", problems.join("; ")),
        )
        .code(Code::DoctorCron)
        .help("install plugins at a lasting absolute path (install.sh puts it in ~/.local/bin), run `plugins doctor` from there, and use the line it prints")
    }
}

/// `access(2)`: whether this user may use `path` as `mode` says.
fn access(path: &Path, mode: libc::c_int) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}
