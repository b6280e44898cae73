//! Process groups: the step running now, killing or stopping a group, the signal
//! handlers that take the running step down with `plugins`, and keeping `plugins`'
//! own process to itself (non-dumpable).

use std::time::Duration;

/// The process group of the step running now, for the signal handler.
pub(super) static RUNNING_GROUP: std::sync::atomic::AtomicI32 =
    std::sync::atomic::AtomicI32::new(0);

/// Kill a whole process group (a step, a host probe or a git session, and everything it
/// started); `pgid` is one this process created, and not 0 (its own group).
pub(crate) fn kill_group(pgid: i32) {
    if pgid > 0 {
        // SAFETY: kill(2) on a process group we created.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// End a step or a probe that ran out of time: its leader (the process that waits for it,
/// [`contain`]) is asked first (`SIGTERM`: the reaper then kills all the command left,
/// `setsid` children included; pid 1's namespace dies with it), given up to a second, then
/// the whole group is killed in any case.
pub(crate) fn stop_group(pgid: i32) {
    if pgid <= 0 {
        return;
    }
    // SAFETY: kill(2) on the leader of a group we created.
    unsafe {
        libc::kill(pgid, libc::SIGTERM);
    }
    let until = std::time::Instant::now() + Duration::from_secs(1);
    while std::time::Instant::now() < until {
        // SAFETY: waitid(2) on our own child, into a zeroed siginfo_t; WNOWAIT leaves it
        // to be reaped by its owner.
        let exited = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            let r = libc::waitid(
                libc::P_PID,
                pgid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            );
            r != 0 || info.si_pid() != 0
        };
        if exited {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    kill_group(pgid);
}

extern "C" fn on_signal(sig: libc::c_int) {
    let pgid = RUNNING_GROUP.load(std::sync::atomic::Ordering::SeqCst);
    // On Linux the group's leader is the process that waits for the step ([`contain`]):
    // `SIGTERM` ends it, and with it the step and all it left (pid 1's namespace, or what
    // the reaper kills). Elsewhere the group is killed.
    #[cfg(target_os = "linux")]
    if pgid > 0 {
        // SAFETY: kill(2) on the leader of a group we created; async-signal-safe.
        unsafe {
            libc::kill(pgid, libc::SIGTERM);
        }
    }
    #[cfg(not(target_os = "linux"))]
    kill_group(pgid);
    // SAFETY: async-signal-safe calls only: restore the default and re-raise.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// On Ctrl-C or termination of `plugins`, the running step and all it started die too
/// (the interrupted install is undone by the next command's recovery).
pub(super) fn install_signal_handlers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only calls async-signal-safe functions.
            unsafe {
                libc::signal(sig, on_signal as *const () as libc::sighandler_t);
            }
        }
    });
}

/// Keep `plugins`' own process to itself while it holds secrets (tokens and passwords in its
/// environment and memory): non-dumpable (`PR_SET_DUMPABLE 0`), its `/proc/<pid>/environ`
/// and `mem` are readable only with `CAP_SYS_PTRACE` in its user namespace, so not by a
/// build step, pip or a host probe of the same user, nor by one of root's run in a user
/// namespace of its own ([`isolation`]). Called once, first thing.
pub fn keep_to_itself() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) on this process.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
    }
}

/// Whether `plugins` is non-dumpable ([`keep_to_itself`]), for `doctor`.
pub fn kept_to_itself() -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) on this process.
    unsafe {
        libc::prctl(libc::PR_GET_DUMPABLE) == 0
    }
    #[cfg(not(target_os = "linux"))]
    false
}
