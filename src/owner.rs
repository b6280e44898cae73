//! Who made a temporary file: its name carries the owner, `<pid>-<start>` (the process id
//! and its start time in clock ticks after boot, field 22 of `/proc/<pid>/stat`), so that
//! recovery deletes it only when that process is gone. Writers of the same home do not all
//! hold the home lock (an `autoupdate` sweep records its time, `outdated` its first-seen
//! versions, a host probe its answer), so "a temp file is a killed writer's" is true only
//! of a temp file whose owner is dead; a pid reused since is another process, which the
//! start time tells apart.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// This process's tag, `<pid>-<start>` (`<pid>-0` where `/proc` cannot tell the start).
pub fn tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let pid = std::process::id();
        format!("{pid}-{}", start_time(pid).unwrap_or(0))
    })
}

/// Whether the process `tag` names may still be running: `None` when `tag` is not a tag
/// (a temp file an older `plugins` made, or no one's), which is no live owner.
pub fn alive(tag: &str) -> Option<bool> {
    let (pid, start) = tag.split_once('-')?;
    let pid: u32 = pid.parse().ok()?;
    let start: u64 = start.parse().ok()?;
    if pid == std::process::id() {
        return Some(tag == self::tag());
    }
    let Ok(signed) = i32::try_from(pid) else {
        return Some(false);
    };
    // Signal 0 checks for existence; ESRCH means no such process (EPERM: one of another
    // user's, alive).
    // SAFETY: kill(2) with signal 0 sends nothing.
    let r = unsafe { libc::kill(signed, 0) };
    if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
        return Some(false);
    }
    // A live pid is the owner unless it started at another time (the pid was reused). An
    // unknown start (no `/proc`) cannot tell: alive, so nothing live is ever deleted.
    Some(match (start, start_time(pid)) {
        (0, _) | (_, None) => true,
        (start, Some(now)) => start == now,
    })
}

/// The owner tag in a temp file name `<prefix><tag>.<random><suffix>`, if it has one.
pub fn of_name<'a>(name: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    let middle = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    let (tag, _random) = middle.split_once('.')?;
    Some(tag)
}

/// Whether the temp file `name` (`<prefix><tag>.<random><suffix>`) belongs to a process
/// that may still be writing it; one without a tag is no one's.
pub fn live_owner(name: &str, prefix: &str, suffix: &str) -> bool {
    of_name(name, prefix, suffix)
        .and_then(alive)
        .unwrap_or(false)
}

/// How many random letters and digits a temp file written beside a target has.
pub const BESIDE_RANDOM: usize = 6;

/// The prefix of this process's temp file beside a target named `file_name`:
/// `.<file_name>.<tag>.` (then [`BESIDE_RANDOM`] random letters or digits and `.tmp`).
pub fn beside_prefix(file_name: &str) -> String {
    format!(".{file_name}.{}.", tag())
}

/// Whether `tag` has a tag's shape: `<pid>-<start>`, both in digits.
pub fn is_tag(tag: &str) -> bool {
    let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    tag.split_once('-')
        .is_some_and(|(pid, start)| digits(pid) && digits(start))
}

/// Whether `random` is a temp name's random part as this crate asks tempfile for it:
/// [`BESIDE_RANDOM`] letters or digits.
pub fn is_random(random: &str) -> bool {
    random.len() == BESIDE_RANDOM && random.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The temp files writers of `target` left beside it when they were killed (`kill -9`, a
/// reboot): exactly `.<name>.<pid>-<start>.<6 letters or digits>.tmp` for `target`'s own
/// name, regular files (a link is not followed), whose owner is gone. Another process
/// writing the same target now (two `plugins bundle -o` at once) owns its temp file and is
/// alive: its file is never one of these. Nothing is removed here.
pub fn stale_beside(target: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let stale = |file: &str| {
        let Some(middle) = file
            .strip_prefix(&prefix)
            .and_then(|m| m.strip_suffix(".tmp"))
        else {
            return false;
        };
        let Some((owner, random)) = middle.split_once('.') else {
            return false;
        };
        is_tag(owner) && is_random(random) && alive(owner) == Some(false)
    };
    let mut out: Vec<PathBuf> = fs_err::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(stale))
        .filter(|e| fs_err::symlink_metadata(e.path()).is_ok_and(|m| m.file_type().is_file()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// `pid`'s start time in clock ticks after boot (field 22 of `/proc/<pid>/stat`; the
/// command name, field 2, may hold spaces and parentheses, so fields count from its last
/// `)`).
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs_err::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    // `rest` starts with field 3 (the state).
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_names_a_live_process_until_it_exits() {
        assert_eq!(alive(tag()), Some(true));
        assert!(!tag().ends_with("-0"), "/proc tells the start: {}", tag());
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let start = start_time(child.id()).unwrap();
        let theirs = format!("{}-{start}", child.id());
        assert_eq!(alive(&theirs), Some(true));
        // The same pid, started at another time: a reused pid, not the owner.
        assert_eq!(alive(&format!("{}-{}", child.id(), start + 1)), Some(false));
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(alive(&theirs), Some(false));
        assert_eq!(alive("k1ll3d"), None);
        let name = format!("plugins.lock.{theirs}.AbC123.tmp");
        assert_eq!(
            of_name(&name, "plugins.lock.", ".tmp"),
            Some(theirs.as_str())
        );
        assert!(!live_owner(&name, "plugins.lock.", ".tmp"));
        assert!(live_owner(
            &format!("plugins.lock.{}.AbC123.tmp", tag()),
            "plugins.lock.",
            ".tmp"
        ));
        assert!(!live_owner(
            "plugins.lock.AbC123.tmp",
            "plugins.lock.",
            ".tmp"
        ));
    }

    #[test]
    fn only_a_dead_writers_own_temp_files_beside_a_target_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = format!("{}-{}", gone.id(), start_time(gone.id()).unwrap());
        gone.wait().unwrap();
        let at = |name: &str| dir.path().join(name);
        let plain = |name: &str| fs_err::write(at(name), b"x").unwrap();
        plain(&format!(".out.tar.{dead}.AbC123.tmp"));
        // A live writer's (this process's), one without an owner, another target's (whose
        // name starts with this one's), another random length: not stale.
        plain(&format!(".out.tar.{}.AbC123.tmp", tag()));
        plain(".out.tar.AbC123.tmp");
        plain(&format!(".out.tar.x.{dead}.AbC123.tmp"));
        plain(&format!(".out.tar.{dead}.AbC1234.tmp"));
        plain(&format!("out.tar.{dead}.AbC123.tmp"));
        // Not regular files.
        fs_err::create_dir(at(&format!(".out.tar.{dead}.DiR123.tmp"))).unwrap();
        std::os::unix::fs::symlink(
            at(".out.tar.AbC123.tmp"),
            at(&format!(".out.tar.{dead}.LnK123.tmp")),
        )
        .unwrap();
        assert_eq!(
            stale_beside(&at("out.tar")),
            vec![at(&format!(".out.tar.{dead}.AbC123.tmp"))]
        );
        assert!(beside_prefix("out.tar").starts_with(&format!(".out.tar.{}.", tag())));
    }
}
