//! The binary: [`plugins::exit_code`] over the command line.
//!
//! On linux-gnu it starts at C's `main` (`no_main`) rather than through std's runtime start,
//! which asks glibc for the main thread's stack bounds (glibc reads and parses
//! `/proc/self/maps` for that) to set up a stack-overflow message: about 60 µs and a tenth of
//! the instructions of a one-root `validate` (docs/PERFORMANCE.md, issue 43). What of that
//! start `plugins` relies on is done here instead, in the same order: descriptors 0 to 2 are
//! open (on `/dev/null` if they were closed, so no file a command opens becomes its output),
//! SIGPIPE is ignored (a closed pipe is an error the printer ends on quietly), a panic exits
//! with 101, and `std::process::exit` runs std's cleanup (stdout flushed). A stack overflow still stops at
//! the guard page, with SIGSEGV instead of std's message; the parsers bound their nesting.
//! (Built as a test, the harness brings its own `main`.)
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn main() -> std::process::ExitCode {
    plugins::run(std::env::args_os())
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    open_standard_descriptors();
    // SAFETY: setting a signal's disposition to SIG_IGN, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    // glibc hands std the arguments at load time, so they are there without std's start. A
    // panic ends the process with 101, as under std's start (its message is printed by the
    // panic hook; unwinding out of this `extern "C"` function would abort instead).
    let code =
        std::panic::catch_unwind(|| plugins::exit_code(std::env::args_os())).map_or(101, i32::from);
    std::process::exit(code)
}

/// As std's start does: a closed descriptor 0, 1 or 2 is opened on `/dev/null`, and one
/// that cannot be is the end of the process.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn open_standard_descriptors() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd for the call's duration.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    if polled == -1 {
        // No answer (e.g. EINTR, EAGAIN): ask each descriptor instead.
        for fd in 0..3 {
            // SAFETY: F_GETFD only reads the descriptor's flags.
            if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
                reopen(fd);
            }
        }
        return;
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            reopen(pfd.fd);
        }
    }
}

/// Open `/dev/null` as the closed descriptor `fd` (open returns the lowest free one, and the
/// lower ones are open by now), else end the process.
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
fn reopen(fd: libc::c_int) {
    // SAFETY: a NUL-terminated path and plain flags.
    let opened = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    if opened != fd {
        // SAFETY: abort(3) ends the process.
        unsafe { libc::abort() }
    }
}

/// `pow` for indicatif's rate estimate (`f64::powf`), the binary's only use of libm: defined
/// here, the linker needs no libm.so.6, and every process skips loading it (about 12 page
/// faults and 30 µs of each start; docs/PERFORMANCE.md, issue 43). The libm crate is a port
/// of musl's; an estimate of the time left needs no more than that.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
