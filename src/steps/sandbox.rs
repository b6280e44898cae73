//! How a step is kept from `plugins`' own process: the isolation this kernel allows
//! ([`Isolation`]), the PID, user and mount namespaces a step runs in, and the overlay a
//! build sees its staged tree through at the plugin directory.

use std::path::Path;
use std::process::{Command, Stdio};

#[cfg(target_os = "linux")]
use super::forked::{exit_as, mounts_private, write_proc};
#[cfg(target_os = "linux")]
use super::reaper::reaper;

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
        // SAFETY: unshare/fork in the forked child, before exec.
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
                self.map_ids()?;
            }
            let pid = libc::fork();
            if pid < 0 {
                return fail();
            }
            if pid == 0 {
                return self.pid_one();
            }
            exit_as(pid)
        }
    }

    /// Map the user's own ids in the new user namespace. A non-dumpable process's /proc
    /// files are root's: dumpable for as long as it takes to write its maps (nothing runs
    /// in the namespace yet). Only async-signal-safe calls.
    fn map_ids(&self) -> std::io::Result<()> {
        // SAFETY: prctl with constant arguments; the maps are buffers prepared before the
        // fork.
        unsafe {
            libc::prctl(libc::PR_SET_DUMPABLE, 1);
            let _ = write_proc(c"/proc/self/setgroups", b"deny");
            let mapped = write_proc(c"/proc/self/uid_map", &self.uid_map)
                .and_then(|()| write_proc(c"/proc/self/gid_map", &self.gid_map));
            libc::prctl(libc::PR_SET_DUMPABLE, 0);
            mapped
        }
    }

    /// Pid 1 of the new PID namespace, before it returns to exec the command: its mounts
    /// are private, its `/proc` its own, and the overlay's staged tree is bound at the
    /// plugin directory (over a tmpfs for a first install), which it enters. Only
    /// async-signal-safe calls.
    fn pid_one(&self) -> std::io::Result<()> {
        let fail = || Err(std::io::Error::last_os_error());
        // SAFETY: prctl/mount/mkdir/chdir with NUL-terminated strings prepared before the
        // fork.
        unsafe {
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
            Ok(())
        }
    }
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
    pub(super) fn with(source: &Path, target: &Path, user_ns: bool) -> Option<Overlay> {
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
    pub(super) fn enter(&self) -> std::io::Result<()> {
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
