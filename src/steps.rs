//! Build steps: aoe's `[[runtime.build]]` argv, run directly (no shell) in the
//! plugin directory with stdin closed, a scrubbed environment ([`StepEnv`]: an
//! allow-list, and `AOE_PLUGIN_ID`), a per-step timeout, and all output appended
//! to a log file.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The variables a build step gets from `plugins`' own environment, when set: where
/// things are (`PATH`, `HOME`, temp, config and cache directories, the Rust
/// toolchain's homes), who and where the user is (`USER`, `LOGNAME`, `SHELL`,
/// `TERM`, `TZ`, the locale) and which TLS roots to trust. Nothing else: not
/// `GITHUB_TOKEN`/`GH_TOKEN`, `PLUGINS_*`, git's (`GIT_ASKPASS`, `GIT_CONFIG_*`,
/// `GIT_SSH_COMMAND`), `SSH_ASKPASS`, `SSH_AUTH_SOCK`, cloud or CI credentials, or
/// `PYTHONPATH`/`LD_PRELOAD`-style injection points. `docs/SECURITY.md` lists them.
pub const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "TZ",
    "LANG",
    "LANGUAGE",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// Proxy variables, passed only when they carry no `user:password@`.
pub const PROXIES: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
    "NO_PROXY",
    "no_proxy",
];

/// What tells pip which index to use: passed to `plugins`' own pip commands
/// (`install --deps`) only, never to a plugin's build step.
pub const PIP_INDEX: &[&str] = &[
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_NO_INDEX",
    "PIP_TRUSTED_HOST",
    "PIP_CERT",
];

/// The environment build steps run with, chosen once from `plugins`' own
/// ([`StepEnv::from_vars`], by `Context`) and given to [`configure`].
#[derive(Clone, Debug, Default)]
pub struct StepEnv {
    /// Every step: [`PASSED`], `LC_*`, and [`PROXIES`] without credentials.
    pub base: Vec<(OsString, OsString)>,
    /// `plugins`' own pip commands, besides `base`: [`PIP_INDEX`].
    pub pip: Vec<(OsString, OsString)>,
}

impl StepEnv {
    /// Pick the allowed variables out of an environment.
    pub fn from_vars(vars: impl IntoIterator<Item = (OsString, OsString)>) -> StepEnv {
        let mut env = StepEnv::default();
        for (k, v) in vars {
            let Some(name) = k.to_str() else { continue };
            if PASSED.contains(&name) || name.starts_with("LC_") {
                env.base.push((k, v));
            } else if PROXIES.contains(&name) {
                // A proxy's `user:password@` stays with `plugins`' own transfers.
                if !v.to_string_lossy().contains('@') {
                    env.base.push((k, v));
                }
            } else if PIP_INDEX.contains(&name) {
                env.pip.push((k, v));
            }
        }
        env
    }
}

static STEP_ENV: std::sync::OnceLock<StepEnv> = std::sync::OnceLock::new();

/// Set the environment every build step runs with (at start-up; before it, steps get
/// an empty one).
pub fn configure(env: StepEnv) {
    let _ = STEP_ENV.set(env);
}

/// Where a bare program name (`python3`) is found, as a spawn would find it: the first
/// executable file of that name on the `PATH` the steps run with; `None` when there is none.
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    let env = STEP_ENV.get()?;
    let path = env.base.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v)?;
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// What pip is run with besides [`StepEnv::pip`]: no pip config file (user, site or
/// global), no user site-packages, and the working directory not on `sys.path`.
const PIP_ISOLATION: &[(&str, &str)] = &[
    ("PIP_CONFIG_FILE", "/dev/null"),
    ("PYTHONNOUSERSITE", "1"),
    ("PYTHONSAFEPATH", "1"),
];

/// One step to run.
#[derive(Clone, Debug)]
pub struct Step {
    pub argv: Vec<String>,
    /// Empty means every platform.
    pub platforms: Vec<String>,
}

/// How a step failed.
#[derive(Debug, thiserror::Error)]
pub enum StepError {
    #[error("build step {n} ({cmd}) failed with {status}")]
    Failed {
        n: usize,
        cmd: String,
        status: String,
        log_tail: String,
    },
    #[error("build step {n} ({cmd}) timed out after {secs} s")]
    TimedOut {
        n: usize,
        cmd: String,
        secs: u64,
        log_tail: String,
    },
    #[error("build step {n} ({cmd}) could not start: {source}")]
    Spawn {
        n: usize,
        cmd: String,
        source: std::io::Error,
    },
    #[error("build step {n} program {program:?} is an absolute path, which aoe refuses")]
    Absolute { n: usize, program: String },
    #[error("cannot write the build log {}: {source}", path.display())]
    Log {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl StepError {
    /// The last lines of the step's output, to show on failure.
    pub fn log_tail(&self) -> Option<&str> {
        match self {
            StepError::Failed { log_tail, .. } | StepError::TimedOut { log_tail, .. } => {
                Some(log_tail)
            }
            _ => None,
        }
    }
}

/// The steps for this OS, in order.
pub fn for_this_platform(steps: &[Step]) -> Vec<&Step> {
    steps
        .iter()
        .filter(|s| s.platforms.is_empty() || s.platforms.iter().any(|p| p == std::env::consts::OS))
        .collect()
}

/// The most build output kept in the log file per install.
pub const LOG_CAP: usize = 1024 * 1024;
/// The most recent output kept in memory for the tail shown on failure.
const TAIL_CAP: usize = 64 * 1024;
/// Lines and line length of the tail shown on failure.
const TAIL_LINES: usize = 20;
const TAIL_LINE_CHARS: usize = 300;

/// A build log: truncated when an install starts, capped at [`LOG_CAP`] bytes
/// (what comes after is counted, and its tail kept), never read back whole.
pub struct Log {
    path: PathBuf,
    file: fs_err::File,
    written: usize,
}

impl Log {
    /// Start the log for one install (an earlier install's log is replaced).
    pub fn create(path: &Path) -> Result<Log, StepError> {
        let log_err = |source| StepError::Log {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent).map_err(log_err)?;
        }
        let file = fs_err::File::create(path).map_err(log_err)?;
        Ok(Log {
            path: path.to_path_buf(),
            file,
            written: 0,
        })
    }

    /// Append within the cap; what does not fit is dropped.
    fn write(&mut self, bytes: &[u8]) -> Result<(), StepError> {
        let room = LOG_CAP.saturating_sub(self.written);
        let take = bytes.len().min(room);
        self.append(&bytes[..take])?;
        self.written += take;
        Ok(())
    }

    /// Append past the cap (a bounded note: what was cut, and the tail).
    fn append(&mut self, bytes: &[u8]) -> Result<(), StepError> {
        self.file.write_all(bytes).map_err(|source| StepError::Log {
            path: self.path.clone(),
            source,
        })
    }
}

/// One step's output as it arrives: the bytes for the log (until the cap),
/// the bytes past it (counted), and a bounded tail.
#[derive(Default)]
struct Captured {
    for_log: Vec<u8>,
    omitted: u64,
    tail: std::collections::VecDeque<u8>,
}

/// Read `pipe` until every writer is gone, keeping at most `log_room` bytes
/// for the log and [`TAIL_CAP`] bytes of tail; the receiver hears when it has.
fn capture(
    mut pipe: std::io::PipeReader,
    log_room: usize,
) -> (
    std::sync::Arc<std::sync::Mutex<Captured>>,
    std::sync::mpsc::Receiver<()>,
) {
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Captured::default()));
    let out = shared.clone();
    let (ended, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = std::io::Read::read(&mut pipe, &mut buf) {
            if n == 0 {
                break;
            }
            let mut c = out.lock().expect("not poisoned");
            let room = log_room.saturating_sub(c.for_log.len());
            let keep = n.min(room);
            c.for_log.extend_from_slice(&buf[..keep]);
            c.omitted += (n - keep) as u64;
            c.tail.extend(&buf[..n]);
            let excess = c.tail.len().saturating_sub(TAIL_CAP);
            c.tail.drain(..excess);
        }
        let _ = ended.send(());
    });
    (shared, heard)
}

/// The last lines of a step's output, each cut to a readable length.
fn tail_text(tail: &std::collections::VecDeque<u8>) -> String {
    let bytes: Vec<u8> = tail.iter().copied().collect();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| {
            if l.chars().count() > TAIL_LINE_CHARS {
                let cut: String = l.chars().take(TAIL_LINE_CHARS).collect();
                format!("{cut} [... line cut]")
            } else {
                (*l).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The process group of the step running now, for the signal handler.
static RUNNING_GROUP: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

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
fn install_signal_handlers() {
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

/// How build steps, `plugins`' pip and host probes are kept from `plugins`' own process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Each runs as pid 1 of a PID namespace of its own, with a `/proc` of its own, inside a
    /// user namespace (that maps the user's own ids, root's too, to themselves) and a mount
    /// namespace: it sees no process of `plugins`, and no `/proc` it can mount or uncover
    /// lets it read one (`plugins` is non-dumpable and outside its user namespace).
    /// Everything it starts dies with it.
    Namespaces,
    /// As [`Isolation::Namespaces`] without the user namespace (root, where user namespaces
    /// are off): root's step can unmount its `/proc` and read `plugins`' environment.
    PidOnly,
    /// Neither (not Linux, or the kernel refuses): a step of the same user cannot read
    /// `plugins`' environment (non-dumpable), one of root's can. On Linux a subreaper kills
    /// what a step leaves when it ends, runs out of time or `plugins` dies.
    None,
}

impl Isolation {
    /// One line for `doctor`.
    pub fn describe(self) -> &'static str {
        match self {
            Isolation::Namespaces => {
                "build steps, pip and host probes run as pid 1 of their own PID, user and mount namespaces with a /proc of their own: they cannot see or read plugins' process, and nothing they start outlives them"
            }
            Isolation::PidOnly => {
                "build steps, pip and host probes run in their own PID and mount namespaces without a user namespace (user namespaces are off): a step running as root can unmount its /proc and read plugins' environment"
            }
            Isolation::None => {
                "build steps, pip and host probes share plugins' PID namespace (this kernel refuses new ones): one running as the same user cannot read plugins' environment (plugins is non-dumpable), one running as root can; what they leave is killed by a subreaper"
            }
        }
    }
}

/// How this system isolates steps (asked once per process, by running `/bin/sh` so).
pub fn isolation() -> Isolation {
    #[cfg(target_os = "linux")]
    {
        static ASKED: std::sync::OnceLock<Isolation> = std::sync::OnceLock::new();
        *ASKED.get_or_init(|| {
            // SAFETY: geteuid cannot fail.
            let root = unsafe { libc::geteuid() } == 0;
            let modes: &[(bool, Isolation)] = if root {
                &[(true, Isolation::Namespaces), (false, Isolation::PidOnly)]
            } else {
                &[(true, Isolation::Namespaces)]
            };
            modes
                .iter()
                .find(|(user_ns, _)| Sandbox::new(*user_ns, None).probe())
                .map_or(Isolation::None, |(_, mode)| *mode)
        })
    }
    #[cfg(not(target_os = "linux"))]
    Isolation::None
}

/// Run `cmd` (a build step, `plugins`' pip, a host probe) kept from `plugins`: it dies with
/// the thread that starts it (`PR_SET_PDEATHSIG`), and where [`isolation`] allows, runs as
/// pid 1 of namespaces of its own (the staged tree bind-mounted over the plugin directory
/// when `overlay` is given); else through `overlay` alone, as before.
pub(crate) fn contain(cmd: &mut Command, overlay: Option<&Overlay>) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let sandbox = match isolation() {
            Isolation::Namespaces => Some(Sandbox::new(true, overlay)),
            Isolation::PidOnly => Some(Sandbox::new(false, overlay)),
            Isolation::None => None,
        };
        let overlay = overlay.cloned();
        // SAFETY: prctl, and the sandbox's or the overlay's unshare/open/write/mount/fork/
        // waitpid/chdir, in the child before exec: async-signal-safe calls on memory
        // prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                match (&sandbox, &overlay) {
                    (Some(s), _) => s.enter(),
                    (None, overlay) => {
                        if let Some(o) = overlay {
                            o.enter()?;
                        }
                        reaper()
                    }
                }
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (cmd, overlay);
}

/// The namespaces a contained command runs in (Linux): made in the forked child, which
/// then forks the command as pid 1 of the new PID namespace and waits for it, exiting as it
/// does (a process that never execs, and holds no file of the parent's but the command's
/// output).
#[cfg(target_os = "linux")]
#[derive(Clone, Debug)]
struct Sandbox {
    user_ns: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The overlay's staged tree, plugin directory and, for a first install, the plugins
    /// directory to put a tmpfs over.
    bind: Option<(
        std::ffi::CString,
        std::ffi::CString,
        Option<std::ffi::CString>,
    )>,
}

#[cfg(target_os = "linux")]
impl Sandbox {
    fn new(user_ns: bool, overlay: Option<&Overlay>) -> Sandbox {
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        // The user's own ids, mapped to themselves: all a process may map in a namespace
        // it made (root too: a wider map must be written from the parent namespace).
        let map = |id: u32| format!("{id} {id} 1\n").into_bytes();
        Sandbox {
            user_ns,
            uid_map: map(uid),
            gid_map: map(gid),
            bind: overlay.map(|o| (o.source.clone(), o.target.clone(), o.fresh_parent.clone())),
        }
    }

    /// Whether a command can run so here: `/bin/sh` as pid 1 with its own `/proc`.
    fn probe(&self) -> bool {
        use std::os::unix::process::CommandExt;
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", "[ $$ = 1 ] && [ -r /proc/1/stat ]"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let me = self.clone();
        // SAFETY: as in `contain`.
        unsafe {
            sh.pre_exec(move || me.enter());
        }
        sh.status().is_ok_and(|s| s.success())
    }

    /// In the forked child: new namespaces, then the command forked as pid 1 of the PID
    /// namespace (which returns, to exec it), while this process waits for it and exits
    /// as it did. Only async-signal-safe calls.
    fn enter(&self) -> std::io::Result<()> {
        let fail = || Err(std::io::Error::last_os_error());
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWPID;
        if self.user_ns {
            flags |= libc::CLONE_NEWUSER;
        }
        // SAFETY: unshare/prctl/fork/mount/chdir/waitpid/_exit with NUL-terminated strings
        // and buffers prepared before the fork.
        unsafe {
            if libc::unshare(flags) != 0 {
                // Refused now though the probe passed (a namespace limit reached): without
                // an overlay to mount, the reaper keeps what it can.
                return match self.bind {
                    None => reaper(),
                    Some(_) => fail(),
                };
            }
            if self.user_ns {
                // A non-dumpable process's /proc files are root's: dumpable for as long
                // as it takes to write its maps (nothing runs in the namespace yet).
                libc::prctl(libc::PR_SET_DUMPABLE, 1);
                let _ = write_proc(c"/proc/self/setgroups", b"deny");
                let mapped = write_proc(c"/proc/self/uid_map", &self.uid_map)
                    .and_then(|()| write_proc(c"/proc/self/gid_map", &self.gid_map));
                libc::prctl(libc::PR_SET_DUMPABLE, 0);
                mapped?;
            }
            let pid = libc::fork();
            if pid < 0 {
                return fail();
            }
            if pid == 0 {
                // Pid 1: when it dies, the kernel kills everything left in its namespace.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                let none: *const libc::c_char = std::ptr::null();
                mounts_private()?;
                if libc::mount(
                    c"proc".as_ptr(),
                    c"/proc".as_ptr(),
                    c"proc".as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    none.cast(),
                ) != 0
                {
                    return fail();
                }
                if let Some((source, target, fresh_parent)) = &self.bind {
                    if let Some(parent) = fresh_parent {
                        // A first install: the plugin directory exists only here.
                        if libc::mount(
                            c"tmpfs".as_ptr(),
                            parent.as_ptr(),
                            c"tmpfs".as_ptr(),
                            libc::MS_NOSUID | libc::MS_NODEV,
                            c"mode=0755".as_ptr().cast(),
                        ) != 0
                            || libc::mkdir(target.as_ptr(), 0o755) != 0
                        {
                            return fail();
                        }
                    }
                    if libc::mount(
                        source.as_ptr(),
                        target.as_ptr(),
                        none,
                        libc::MS_BIND | libc::MS_REC,
                        none.cast(),
                    ) != 0
                    {
                        return fail();
                    }
                    // The fork's `chdir` ran before the mount, into the directory under it.
                    if libc::chdir(target.as_ptr()) != 0 {
                        return fail();
                    }
                }
                return Ok(());
            }
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
}

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
fn reaper() -> std::io::Result<()> {
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

/// Make every mount of the (new) mount namespace private, so that what is mounted next is
/// seen in it alone (in a forked child: async-signal-safe calls only).
#[cfg(target_os = "linux")]
fn mounts_private() -> std::io::Result<()> {
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
#[cfg(target_os = "linux")]
fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> std::io::Result<()> {
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

/// A build that runs "in" the plugin directory while the host still sees the installed
/// version there (Linux): each step gets a private mount namespace (for a user other than
/// root, inside a user namespace that maps only the user's own ids; root needs none and
/// keeps its capabilities, as in a first install's build) in which the staged tree is
/// bind-mounted over the plugin directory. A build's outputs that name their directory (a venv's scripts) name
/// the plugin directory, and the tree is swapped in whole once it is built.
#[derive(Clone, Debug)]
pub struct Overlay {
    /// The staged tree, where the steps' outputs land.
    staged: std::path::PathBuf,
    #[cfg(target_os = "linux")]
    source: std::ffi::CString,
    #[cfg(target_os = "linux")]
    target: std::ffi::CString,
    #[cfg(target_os = "linux")]
    uid_map: Vec<u8>,
    #[cfg(target_os = "linux")]
    gid_map: Vec<u8>,
    /// Enter a user namespace first (every user but root).
    #[cfg(target_os = "linux")]
    user_ns: bool,
    /// A first install's: the plugin directory does not exist yet, so the steps see a
    /// directory of their own (a tmpfs) at its parent, holding only the plugin directory.
    #[cfg(target_os = "linux")]
    fresh_parent: Option<std::ffi::CString>,
}

impl Overlay {
    /// For a first install (or a sync of a missing plugin): `source` shown at `target`, which
    /// does not exist yet, to steps run in namespaces of their own ([`isolation`]), so that
    /// the plugin is built before it appears; `None` where steps cannot run so, and the
    /// caller builds in place.
    pub fn fresh(source: &Path, target: &Path) -> Option<Overlay> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::ffi::OsStrExt;
            if isolation() == Isolation::None || target.exists() {
                return None;
            }
            // The parent (the plugins directory) must exist to be mounted over; an empty
            // plugins directory is nothing a host loads.
            let parent = target.parent()?;
            fs_err::create_dir_all(parent).ok()?;
            let mut overlay = Overlay::linux(source, target)?;
            overlay.fresh_parent =
                Some(std::ffi::CString::new(parent.as_os_str().as_bytes()).ok()?);
            Some(overlay)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (source, target);
            None
        }
    }

    /// `source` shown at `target` to the build steps, when this system allows it (user and
    /// mount namespaces; asked once per process); `None` otherwise, and the caller builds
    /// in place.
    pub fn new(source: &Path, target: &Path) -> Option<Overlay> {
        #[cfg(target_os = "linux")]
        {
            let overlay = Overlay::linux(source, target)?;
            static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            AVAILABLE.get_or_init(Overlay::probe).then_some(overlay)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (source, target);
            None
        }
    }

    /// The staged tree the steps see at the plugin directory: where their outputs are.
    pub fn staged(&self) -> &Path {
        &self.staged
    }

    #[cfg(target_os = "linux")]
    fn linux(source: &Path, target: &Path) -> Option<Overlay> {
        // SAFETY: geteuid cannot fail.
        Overlay::with(source, target, unsafe { libc::geteuid() } != 0)
    }

    /// The overlay, entered through a user namespace or (root) directly.
    #[cfg(target_os = "linux")]
    fn with(source: &Path, target: &Path, user_ns: bool) -> Option<Overlay> {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).ok();
        // SAFETY: geteuid/getegid cannot fail.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        Some(Overlay {
            staged: source.to_owned(),
            source: c(source)?,
            target: c(target)?,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            user_ns,
            fresh_parent: None,
        })
    }

    /// Whether a child can enter an overlay here: `/bin/sh -c :` run in one that shows a
    /// temporary directory over itself.
    #[cfg(target_os = "linux")]
    fn probe() -> bool {
        use std::os::unix::process::CommandExt;
        let Ok(dir) = tempfile::tempdir() else {
            return false;
        };
        let Some(overlay) = Overlay::linux(dir.path(), dir.path()) else {
            return false;
        };
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", ":"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: as in run_steps: only async-signal-safe calls in the child.
        unsafe {
            sh.pre_exec(move || overlay.enter());
        }
        let ok = sh.status().is_ok_and(|s| s.success());
        log::debug!(
            "build: {} build in a private mount namespace here",
            if ok { "steps" } else { "steps cannot" }
        );
        ok
    }

    /// In the child, before exec: a mount namespace of its own (in a user namespace of its
    /// own unless root), the staged tree
    /// bind-mounted over the plugin directory, and the working directory entered again
    /// (the fork's `chdir` ran before the mount, into the directory under it).
    #[cfg(target_os = "linux")]
    fn enter(&self) -> std::io::Result<()> {
        let fail = || Err(std::io::Error::last_os_error());
        // SAFETY: unshare/mount/chdir with NUL-terminated strings prepared before the fork.
        unsafe {
            if !self.user_ns {
                if libc::unshare(libc::CLONE_NEWNS) != 0 {
                    return fail();
                }
            } else {
                if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                    return fail();
                }
                // Kernels before 3.19 have no setgroups file; nothing to deny there.
                let _ = write_proc(c"/proc/self/setgroups", b"deny");
                write_proc(c"/proc/self/uid_map", &self.uid_map)?;
                write_proc(c"/proc/self/gid_map", &self.gid_map)?;
            }
            let none = std::ptr::null();
            mounts_private()?;
            let bind = libc::MS_BIND | libc::MS_REC;
            if libc::mount(
                self.source.as_ptr(),
                self.target.as_ptr(),
                none,
                bind,
                none.cast(),
            ) != 0
            {
                return fail();
            }
            if libc::chdir(self.target.as_ptr()) != 0 {
                return fail();
            }
        }
        Ok(())
    }
}

/// Run `steps` in `dir`; `on_step(n, total, argv)` is called before each.
/// Each step runs in its own process group, which is killed when the step
/// ends (success, failure or timeout) so that nothing it started outlives it.
pub fn run(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &mut Log,
    overlay: Option<&Overlay>,
    on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    run_steps(steps, dir, plugin_id, timeout, log, false, overlay, on_step)
}

/// [`run`] for commands `plugins` itself composes (never a plugin's): the program may be
/// an absolute path (the host's interpreter given with `--python`).
pub fn run_own(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &mut Log,
    on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    run_steps(steps, dir, plugin_id, timeout, log, true, None, on_step)
}

#[allow(clippy::too_many_arguments)] // each is one part of the one run, passed down as it is
fn run_steps(
    steps: &[&Step],
    dir: &Path,
    plugin_id: &str,
    timeout: Duration,
    log: &mut Log,
    own: bool,
    overlay: Option<&Overlay>,
    mut on_step: impl FnMut(usize, usize, &[String]),
) -> Result<(), StepError> {
    install_signal_handlers();
    for (i, step) in steps.iter().enumerate() {
        let n = i + 1;
        let cmd = step.argv.join(" ");
        on_step(n, steps.len(), &step.argv);
        let program = &step.argv[0];
        if own && program.starts_with('/') {
            // Taken as given, not relative to the plugin.
        } else if program.starts_with('/') {
            return Err(StepError::Absolute {
                n,
                program: program.clone(),
            });
        }
        // A separator means plugin-relative; a bare name is resolved on PATH.
        let resolved = if own && program.starts_with('/') {
            program.into()
        } else if program.contains('/') {
            dir.join(program).into_os_string()
        } else {
            program.into()
        };
        log.write(format!("$ {cmd}\n").as_bytes())?;
        let spawn_err = |source| StepError::Spawn {
            n,
            cmd: cmd.clone(),
            source,
        };
        let (reader, writer) = std::io::pipe().map_err(spawn_err)?;
        let writer_err = writer.try_clone().map_err(spawn_err)?;
        let mut command = Command::new(resolved);
        let env = STEP_ENV.get_or_init(StepEnv::default);
        command
            .env_clear()
            .envs(env.base.iter().map(|(k, v)| (k, v)));
        if own {
            command.envs(env.pip.iter().map(|(k, v)| (k, v))).envs(
                PIP_ISOLATION
                    .iter()
                    .map(|(k, v)| (OsStr::new(k), OsStr::new(v))),
            );
        }
        command
            .args(&step.argv[1..])
            // Under an overlay the plugin directory may not exist out here (a first
            // install): the step starts in the staged tree and enters `dir` once it is
            // mounted there.
            .current_dir(overlay.map_or(dir, Overlay::staged))
            .env("AOE_PLUGIN_ID", plugin_id)
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(writer_err);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        contain(&mut command, overlay);
        let mut child = command.spawn().map_err(spawn_err)?;
        // The pipe's write ends now live only in the child (and its children).
        drop(command);
        let pgid = child.id() as i32;
        RUNNING_GROUP.store(pgid, std::sync::atomic::Ordering::SeqCst);
        let (captured, read_all) = capture(reader, LOG_CAP.saturating_sub(log.written));
        // The step's exit is waited for on a thread of its own and heard at once, not
        // found by polling it (a 20 ms poll added 10 ms to every step on average). That
        // thread only waits (`WNOWAIT`): the step is reaped here, after its group is
        // killed, so the group's id cannot have been given to another group by then.
        let (exited, exit) = std::sync::mpsc::channel();
        let pid = pgid;
        std::thread::spawn(move || {
            let waited = loop {
                // SAFETY: waitid(2) on our own child, into a zeroed siginfo_t; WNOWAIT
                // leaves it to be reaped by `child.wait` below.
                let waited = unsafe {
                    let mut info: libc::siginfo_t = std::mem::zeroed();
                    libc::waitid(
                        libc::P_PID,
                        pid as libc::id_t,
                        &mut info,
                        libc::WEXITED | libc::WNOWAIT,
                    )
                };
                if waited == -1
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                break waited;
            };
            let _ = exited.send(waited);
        });
        let in_time = exit.recv_timeout(timeout).is_ok();
        if in_time {
            kill_group(pgid);
        } else {
            stop_group(pgid);
        }
        RUNNING_GROUP.store(0, std::sync::atomic::Ordering::SeqCst);
        let status = match child.wait() {
            Ok(status) if in_time => Some(status),
            Ok(_) => None,
            Err(source) => return Err(spawn_err(source)),
        };
        // The group is gone, so the pipe reaches its end; a process that left
        // the group (setsid) may hold it open, so wait only briefly.
        let _ = read_all.recv_timeout(Duration::from_secs(1));
        let (tail, for_log, omitted) = {
            let c = captured.lock().expect("not poisoned");
            (tail_text(&c.tail), c.for_log.clone(), c.omitted)
        };
        log.write(&for_log)?;
        if omitted > 0 {
            log.append(
                format!("\n[... {omitted} more bytes not logged; the last lines:]\n{tail}\n")
                    .as_bytes(),
            )?;
        }
        match status {
            None => {
                return Err(StepError::TimedOut {
                    n,
                    cmd,
                    secs: timeout.as_secs(),
                    log_tail: tail,
                });
            }
            Some(status) if !status.success() => {
                return Err(StepError::Failed {
                    n,
                    cmd,
                    status: status.to_string(),
                    log_tail: tail,
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    /// What a step sees through an overlay entered one way: the staged file at the
    /// plugin directory's path, which keeps the installed file for everyone else.
    fn seen_through(user_ns: bool) -> Option<String> {
        let tmp = tempfile::tempdir().unwrap();
        let (installed, staged) = (tmp.path().join("installed"), tmp.path().join("staged"));
        for (dir, text) in [(&installed, "installed\n"), (&staged, "staged\n")] {
            fs_err::create_dir(dir).unwrap();
            fs_err::write(dir.join("file"), text).unwrap();
        }
        let overlay = Overlay::with(&staged, &installed, user_ns).unwrap();
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", "cat file; pwd"]).current_dir(&staged);
        // SAFETY: as in run_steps.
        unsafe {
            sh.pre_exec(move || overlay.enter());
        }
        let out = sh.output().ok().filter(|o| o.status.success())?;
        assert_eq!(
            fs_err::read_to_string(installed.join("file")).unwrap(),
            "installed\n"
        );
        let shown = String::from_utf8(out.stdout).unwrap();
        Some(shown.replace(&installed.display().to_string(), "[INSTALLED]"))
    }

    /// The pids of running (not zombie) processes whose command line is `sleep <mark>`
    /// (also what the host probe's tests count).
    pub(crate) fn sleeping(mark: &str) -> Vec<i32> {
        let want = format!("sleep\0{mark}\0");
        fs_err::read_dir("/proc")
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                let cmd = fs_err::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let zombie = fs_err::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .is_some_and(|s| {
                        s.rsplit_once(')')
                            .and_then(|(_, r)| r.split_whitespace().next())
                            == Some("Z")
                    });
                cmd == want.as_bytes() && !zombie
            })
            .collect()
    }

    /// Wait up to 5 s for `marks` to be gone; the survivors (killed, so the test leaves
    /// nothing).
    fn survivors(marks: &[&str]) -> Vec<i32> {
        let left = || marks.iter().flat_map(|m| sleeping(m)).collect::<Vec<_>>();
        for _ in 0..500 {
            if left().is_empty() {
                return Vec::new();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let left = left();
        for pid in &left {
            // SAFETY: kill(2) on a sleep this test started.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        left
    }

    /// A shell run as [`contain`] runs it where there are no namespaces: through the
    /// reaper.
    fn reaped(script: &str) -> Command {
        let mut sh = Command::new("/bin/sh");
        sh.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        // SAFETY: as in `contain`.
        unsafe {
            sh.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                reaper()
            });
        }
        sh
    }

    /// Without namespaces, the reaper kills what a step leaves when it ends (a background
    /// child, one that left with `setsid`), keeps its exit status, and kills the step and
    /// all it started when `plugins` (here the thread that spawned it) dies mid-step.
    #[test]
    fn without_namespaces_the_reaper_leaves_nothing_running() {
        let status = reaped("setsid sleep 6031 & sleep 6032 & exit 3")
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(3));
        assert_eq!(survivors(&["6031", "6032"]), Vec::<i32>::new());

        let marks = ["6033", "6034", "6035"];
        let spawner = std::thread::spawn(move || {
            let child = reaped("setsid sleep 6033 & sleep 6034 & sleep 6035")
                .spawn()
                .unwrap();
            while marks.iter().any(|m| sleeping(m).is_empty()) {
                std::thread::sleep(Duration::from_millis(10));
            }
            child
        });
        // The spawning thread ends here, as `plugins` would on kill -9.
        let mut reaper = spawner.join().unwrap();
        assert_eq!(survivors(&marks), Vec::<i32>::new());
        assert!(!reaper.wait().unwrap().success());

        // A step that runs out of time: `stop_group` asks the reaper first.
        let marks = ["6036", "6037"];
        let mut child = reaped("setsid sleep 6036 & sleep 6037").spawn().unwrap();
        while marks.iter().any(|m| sleeping(m).is_empty()) {
            std::thread::sleep(Duration::from_millis(10));
        }
        stop_group(child.id() as i32);
        assert!(!child.wait().unwrap().success());
        assert_eq!(survivors(&marks), Vec::<i32>::new());
    }

    /// Root enters the mount namespace directly (its capabilities kept); another user
    /// through a user namespace. Each way the step sees the staged tree at the plugin
    /// directory's path. (A way this system refuses is skipped: no root, or no
    /// unprivileged user namespaces.)
    #[test]
    fn a_step_sees_the_staged_tree_at_the_plugin_directory() {
        // SAFETY: geteuid cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        for user_ns in [false, true] {
            match seen_through(user_ns) {
                Some(shown) => assert_eq!(shown, "staged\n[INSTALLED]\n", "user_ns: {user_ns}"),
                None => assert!(user_ns || !root, "root could not enter a mount namespace"),
            }
        }
    }
}
