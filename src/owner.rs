//! Who made a temporary file: its name carries the owner, `<pid>-<start>` (the process id
//! and its start time in clock ticks after boot, field 22 of `/proc/<pid>/stat`), so that
//! recovery deletes it only when that process is gone. Writers of the same home do not all
//! hold the home lock (an `autoupdate` sweep records its time, `outdated` its first-seen
//! versions, a host probe its answer), so "a temp file is a killed writer's" is true only
//! of a temp file whose owner is dead; a pid reused since is another process, which the
//! start time tells apart.

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
}
