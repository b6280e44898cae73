//! `kill -9` of a whole command at one of its syscalls, children included: the crash
//! sweep's injector. A command and every process and thread it starts (git, ssh, pip, build
//! steps, whatever their session or process group) run under a seccomp filter that stops
//! them, for this tracer, at the syscalls of one family; the tracer counts those calls over
//! all of them, in the order they happen, and at the chosen one kills every process of the
//! command while the caller is stopped before its syscall runs — as a reboot would.
//!
//! strace cannot do this: `strace -f -e inject=…:signal=KILL:when=N` counts per process and
//! kills only the process that makes the call, so a kill in a child would leave `plugins`
//! running on to handle its child's death (a different fault from a reboot).

use std::collections::BTreeSet;
use std::io;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Syscall families, each injected on its own; a kill point is the n-th call of one family
/// over every process of the command.
pub(crate) const FAMILIES: [(&str, &[libc::c_long]); 6] = [
    (
        "rename",
        &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_rename,
            libc::SYS_renameat,
            libc::SYS_renameat2,
        ],
    ),
    ("fsync", &[libc::SYS_fsync, libc::SYS_fdatasync]),
    ("flock", &[libc::SYS_flock]),
    (
        "unlink",
        &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_unlink,
            libc::SYS_unlinkat,
            #[cfg(target_arch = "x86_64")]
            libc::SYS_rmdir,
        ],
    ),
    (
        "mkdir",
        &[
            #[cfg(target_arch = "x86_64")]
            libc::SYS_mkdir,
            libc::SYS_mkdirat,
        ],
    ),
    (
        "write",
        &[libc::SYS_write, libc::SYS_pwrite64, libc::SYS_writev],
    ),
];

/// What a traced run did.
#[derive(Debug)]
pub(crate) struct Traced {
    /// The command was killed at the chosen call (it made at least that many).
    pub(crate) killed: bool,
    /// The call it was killed at was a child's (git, pip, a build step), not one of the
    /// command's own threads'.
    pub(crate) in_child: bool,
    /// The command's exit code when it ran to its end (`None` when a signal ended it).
    pub(crate) code: Option<i32>,
    /// Calls of each family of [`FAMILIES`] seen (the filtered ones only when killing).
    pub(crate) calls: [usize; 6],
    /// How many processes and threads took part.
    pub(crate) tasks: usize,
}

/// The seccomp program: a traced stop (its data the family's index) at the syscalls of the
/// families in `families`, every other syscall allowed.
fn filter(families: &[usize]) -> Vec<libc::sock_filter> {
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    // seccomp_data.nr is at offset 0.
    let mut prog = vec![op(LD_W_ABS, 0, 0, 0)];
    for &f in families {
        for &nr in FAMILIES[f].1 {
            prog.push(op(JEQ_K, 0, 1, nr as u32));
            prog.push(op(RET_K, 0, 0, libc::SECCOMP_RET_TRACE | f as u32));
        }
    }
    prog.push(op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW));
    prog
}

fn ptrace(req: libc::c_uint, pid: libc::pid_t, data: usize) -> libc::c_long {
    // SAFETY: plain ptrace requests on our tracees; `data` is a value or a valid pointer.
    unsafe { libc::ptrace(req, pid, std::ptr::null_mut::<libc::c_void>(), data) }
}

/// Runs `cmd` (its stdio set to null) with every process it starts traced. With
/// `kill_at = Some((family, n))`, at the `n`-th call of `FAMILIES[family]` over all of them
/// (counted from 1), every process of the command is killed with SIGKILL before that call
/// runs; the run is over once all of them are gone. `Err` when the command cannot be traced
/// (no ptrace here).
pub(crate) fn run(cmd: &mut Command, kill_at: Option<(usize, usize)>) -> io::Result<Traced> {
    let families: Vec<usize> = match kill_at {
        Some((f, _)) => vec![f],
        None => (0..FAMILIES.len()).collect(),
    };
    let prog = filter(&families);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: only async-signal-safe syscalls between fork and exec; `prog` outlives it.
    unsafe {
        cmd.pre_exec(move || {
            let fprog = libc::sock_fprog {
                len: prog.len() as u16,
                filter: prog.as_ptr().cast_mut(),
            };
            if libc::ptrace(
                libc::PTRACE_TRACEME,
                0,
                std::ptr::null_mut::<libc::c_void>(),
                0,
            ) != 0
                || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::c_ulong::from(libc::SECCOMP_MODE_FILTER),
                    &raw const fprog,
                ) != 0
            {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The tracer is this thread: every ptrace call and wait below is made from it.
    let child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    drop(child); // reaped below, by pid
    let mut status = 0;
    // The stop at exec (PTRACE_TRACEME), before the command's first instruction.
    // SAFETY: waiting for our own child.
    let r = unsafe { libc::waitpid(pid, &raw mut status, libc::__WALL) };
    assert_eq!(r, pid, "{}", io::Error::last_os_error());
    assert!(libc::WIFSTOPPED(status), "the traced command stops at exec");
    let options = libc::PTRACE_O_TRACESECCOMP
        | libc::PTRACE_O_TRACEFORK
        | libc::PTRACE_O_TRACEVFORK
        | libc::PTRACE_O_TRACECLONE
        | libc::PTRACE_O_TRACEEXEC
        | libc::PTRACE_O_EXITKILL;
    assert_eq!(
        ptrace(libc::PTRACE_SETOPTIONS, pid, options as usize),
        0,
        "{}",
        io::Error::last_os_error()
    );
    assert_eq!(ptrace(libc::PTRACE_CONT, pid, 0), 0);

    let mut tracees: BTreeSet<libc::pid_t> = BTreeSet::from([pid]);
    // Tasks whose first stop (the SIGSTOP a new tracee starts with) was seen.
    let mut started: BTreeSet<libc::pid_t> = BTreeSet::from([pid]);
    let mut out = Traced {
        killed: false,
        in_child: false,
        code: None,
        calls: [0; 6],
        tasks: 1,
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    let kill_all = |tracees: &BTreeSet<libc::pid_t>| {
        for &t in tracees {
            // SAFETY: a signal to a task we trace (gone ones are ignored).
            unsafe { libc::kill(t, libc::SIGKILL) };
        }
    };
    let mut idle = 0u32;
    while !tracees.is_empty() {
        if Instant::now() > deadline && !out.killed {
            // A command that never ends: end it, and say so.
            kill_all(&tracees);
            out.killed = true;
            out.code = Some(-1);
        }
        let mut seen = false;
        // Each known task is waited for by id: this test binary runs other tests' children,
        // whose exits a wait for any child would steal.
        for t in tracees.clone() {
            // SAFETY: waiting for one of our tracees without blocking.
            let r = unsafe { libc::waitpid(t, &raw mut status, libc::WNOHANG | libc::__WALL) };
            if r == 0 {
                continue;
            }
            seen = true;
            if r < 0 {
                tracees.remove(&t); // no longer ours (ECHILD)
                continue;
            }
            if libc::WIFEXITED(status) || libc::WIFSIGNALED(status) {
                tracees.remove(&t);
                if t == pid && !out.killed {
                    out.code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
                }
                continue;
            }
            if !libc::WIFSTOPPED(status) {
                continue;
            }
            let event = status >> 16;
            let sig = libc::WSTOPSIG(status);
            let mut inject = 0;
            match event {
                libc::PTRACE_EVENT_SECCOMP => {
                    let mut msg: libc::c_ulong = 0;
                    ptrace(libc::PTRACE_GETEVENTMSG, t, (&raw mut msg) as usize);
                    let family = msg as usize;
                    if family < out.calls.len() {
                        out.calls[family] += 1;
                        if kill_at == Some((family, out.calls[family])) && !out.killed {
                            // Everything at once; this task dies before its call runs.
                            out.killed = true;
                            out.in_child = thread_group(t) != Some(pid);
                            kill_all(&tracees);
                            continue;
                        }
                    }
                }
                libc::PTRACE_EVENT_FORK | libc::PTRACE_EVENT_VFORK | libc::PTRACE_EVENT_CLONE => {
                    let mut msg: libc::c_ulong = 0;
                    ptrace(libc::PTRACE_GETEVENTMSG, t, (&raw mut msg) as usize);
                    let new = msg as libc::pid_t;
                    tracees.insert(new);
                    out.tasks += 1;
                    if out.killed {
                        // SAFETY: as in kill_all.
                        unsafe { libc::kill(new, libc::SIGKILL) };
                    }
                }
                0 if sig == libc::SIGSTOP && !started.contains(&t) => {
                    // A new tracee's first stop: not a signal to pass on.
                    started.insert(t);
                }
                0 => inject = sig as usize,
                _ => {} // exec and the other events: go on
            }
            started.insert(t);
            if out.killed {
                // SAFETY: as in kill_all.
                unsafe { libc::kill(t, libc::SIGKILL) };
            }
            ptrace(libc::PTRACE_CONT, t, inject);
        }
        if seen {
            idle = 0;
        } else {
            idle += 1;
            if idle < 200 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }
    Ok(out)
}

/// The process a task (thread) belongs to.
fn thread_group(task: libc::pid_t) -> Option<libc::pid_t> {
    let status = std::fs::read_to_string(format!("/proc/{task}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Whether this machine lets a test trace its children; `false` (with a line saying the
/// test was skipped) where it does not, and a failure under CI.
pub(crate) fn available() -> bool {
    let ok = run(&mut Command::new("/bin/true"), None).is_ok_and(|t| t.code == Some(0));
    if !ok {
        use std::io::Write as _;
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must let tests trace their children (ptrace and seccomp)"
        );
        let test = std::thread::current()
            .name()
            .map_or(String::new(), |n| format!(" {n}"));
        // Straight to stderr: libtest hides what `eprintln!` prints in a passing test.
        let _ = writeln!(
            io::stderr(),
            "skipped{test}: this machine does not let tests trace a command (ptrace, seccomp)"
        );
    }
    ok
}
