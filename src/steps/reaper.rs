//! Without namespaces (Linux): the subreaper that a command runs under, which kills
//! what the command leaves behind and everything when `plugins` dies.

/// Set by the reaper's `SIGTERM` handler: `plugins` is gone.
#[cfg(target_os = "linux")]
static PLUGINS_GONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
extern "C" fn on_plugins_gone(_: libc::c_int) {
    PLUGINS_GONE.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Without namespaces (Linux), in the forked child: it becomes a subreaper
/// (`PR_SET_CHILD_SUBREAPER`) and forks the command, which dies with it. What the command
/// leaves when it ends (a background child, one that left its session with `setsid`) is
/// reparented to this process, which kills it all before it exits as the command did. It
/// hears `plugins` die (`PR_SET_PDEATHSIG` with `SIGTERM`, which it handles) and then kills
/// the command and everything reparented to it. Only async-signal-safe calls.
#[cfg(target_os = "linux")]
pub(super) fn reaper() -> std::io::Result<()> {
    let fail = || Err(std::io::Error::last_os_error());
    // SAFETY: prctl/sigaction/fork/waitpid/kill/_exit on prepared memory, in a forked child.
    unsafe {
        let parent = libc::getppid();
        if libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) != 0 {
            return fail();
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_plugins_gone as *const () as libc::sighandler_t;
        libc::sigemptyset(&raw mut action.sa_mask);
        // No SA_RESTART: the signal interrupts the wait below.
        if libc::sigaction(libc::SIGTERM, &raw const action, std::ptr::null_mut()) != 0 {
            return fail();
        }
        // Not `plugins`' handlers, inherited by the fork.
        libc::signal(libc::SIGINT, libc::SIG_DFL);
        libc::signal(libc::SIGHUP, libc::SIG_DFL);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
        if libc::getppid() != parent {
            // `plugins` died before the death signal was set.
            libc::_exit(137);
        }
        let pid = libc::fork();
        if pid < 0 {
            return fail();
        }
        if pid == 0 {
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            return Ok(());
        }
        // As in `Sandbox::enter`: the parent's spawn returns once the command has exec'd.
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..1024 {
                libc::close(fd);
            }
        }
        let mut ended = None;
        while ended.is_none() && !PLUGINS_GONE.load(std::sync::atomic::Ordering::SeqCst) {
            let mut status = 0;
            let r = libc::waitpid(-1, &raw mut status, 0);
            if r == pid {
                ended = Some(status);
            } else if r < 0 && *libc::__errno_location() != libc::EINTR {
                break;
            }
        }
        kill_children();
        match ended {
            Some(status) if libc::WIFEXITED(status) => libc::_exit(libc::WEXITSTATUS(status)),
            Some(status) if libc::WIFSIGNALED(status) => {
                let sig = libc::WTERMSIG(status);
                libc::signal(sig, libc::SIG_DFL);
                libc::kill(libc::getpid(), sig);
                libc::_exit(128 + sig)
            }
            _ => libc::_exit(137),
        }
    }
}

/// Kill every child of this (subreaper) process, and what is reparented to it as they die,
/// until none is left (`/proc/thread-self/children`). Where that file cannot be read, the
/// process group goes, this process with it.
#[cfg(target_os = "linux")]
fn kill_children() {
    // SAFETY: open/read/close/kill/waitpid on a stack buffer, in a forked child.
    unsafe {
        loop {
            let fd = libc::open(
                c"/proc/thread-self/children".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                libc::kill(-libc::getpgrp(), libc::SIGKILL);
                return;
            }
            let mut buf = [0u8; 4096];
            let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
            libc::close(fd);
            let mut pid: libc::pid_t = 0;
            for &b in &buf[..usize::try_from(n).unwrap_or(0)] {
                if b.is_ascii_digit() {
                    pid = pid * 10 + libc::pid_t::from(b - b'0');
                } else {
                    if pid > 0 {
                        libc::kill(pid, libc::SIGKILL);
                    }
                    pid = 0;
                }
            }
            if pid > 0 {
                libc::kill(pid, libc::SIGKILL);
            }
            let mut status = 0;
            let r = libc::waitpid(-1, &raw mut status, 0);
            if r < 0 && *libc::__errno_location() == libc::ECHILD {
                return;
            }
        }
    }
}
