//! What a forked child does for a step before exec (Linux), with async-signal-safe calls
//! only: its mounts made private, its `/proc` files written, and the namespaces' first
//! process waiting for pid 1 to exit as it did.

/// The namespaces' first process, once pid 1 is forked (Linux): it lets go of the parent's
/// files, takes the default handling of signals, waits for pid 1 and exits as it did
/// (killed by the same signal). Only async-signal-safe calls.
pub(super) fn exit_as(pid: libc::pid_t) -> ! {
    // SAFETY: close_range/close/signal/waitpid/kill/_exit on this process's own files and
    // child.
    unsafe {
        // This process holds the parent's spawn pipe: closing it (and every file but
        // the command's output) lets the spawn return once the command has exec'd.
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..1024 {
                libc::close(fd);
            }
        }
        // Not `plugins`' handlers, inherited by the fork: a signal ends this process,
        // and pid 1's namespace with it.
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut status = 0;
        loop {
            let r = libc::waitpid(pid, &raw mut status, 0);
            if r == pid {
                break;
            }
            if r < 0 && *libc::__errno_location() != libc::EINTR {
                libc::_exit(127);
            }
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status));
    }
}

/// Make every mount of the (new) mount namespace private, so that what is mounted next is
/// seen in it alone (in a forked child: async-signal-safe calls only).
pub(super) fn mounts_private() -> std::io::Result<()> {
    let none = std::ptr::null();
    // SAFETY: mount(2) with a NUL-terminated target and null source, type and data.
    let r = unsafe {
        libc::mount(
            none,
            c"/".as_ptr(),
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            none.cast(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Write `data` to a `/proc` file (in a forked child: async-signal-safe calls only).
pub(super) fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> std::io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a prepared buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        if n < 0 || n as usize != data.len() {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}
