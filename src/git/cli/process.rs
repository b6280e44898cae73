//! Running the system git: a clean, bounded environment, stdout and stderr
//! pumped with caps, killed after the idle timeout.

use super::*;
/// The protocols git may use, also after the user's `url.<base>.insteadOf`
/// rewrites: never a remote helper such as `ext::` (which runs commands).
pub(super) const ALLOWED_PROTOCOLS: &str = "ssh:https:http:git:file";

/// The variables that point git at another repository or config
/// (`git rev-parse --local-env-vars`), removed so the caller's never leak in.
pub(super) const LOCAL_ENV: &[&str] = &[
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_OBJECT_DIRECTORY",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_IMPLICIT_WORK_TREE",
    "GIT_GRAFT_FILE",
    "GIT_INDEX_FILE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_REPLACE_REF_BASE",
    "GIT_PREFIX",
    "GIT_SHALLOW_FILE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
];

/// The most of git's standard output kept (a ref listing); more is an error.
pub(super) const MAX_STDOUT: usize = 64 << 20;
/// The tail of git's standard error kept for the error message.
pub(super) const MAX_STDERR: usize = 64 << 10;
/// The credential helper that answers with `PLUGINS_GIT_USERNAME` and
/// `PLUGINS_GIT_PASSWORD` (the secret travels in the child's environment, not
/// its arguments), and only for the source's own host `PLUGINS_GIT_HOST`: never
/// after a redirect or an `insteadOf` rewrite to another host.
pub(super) const ENV_HELPER: &str = "!f() { test \"$1\" = get || return 0; h=; while read -r l; do case \"$l\" in host=*) h=\"${l#host=}\";; esac; done; h=\"${h%:[0-9]*}\"; test -n \"$h\" && test \"$h\" = \"$PLUGINS_GIT_HOST\" && printf 'username=%s\\npassword=%s\\n' \"$PLUGINS_GIT_USERNAME\" \"$PLUGINS_GIT_PASSWORD\"; }; f";

/// Whether the user configured an ssh command git would use.
fn user_ssh_command() -> bool {
    crate::net::settings().git_cli.user_ssh || super::super::user_git().ssh_command
}

/// `git -c ... <args>` with a clean, bounded environment, in `dir`. `prompt`:
/// git and ssh may ask on the terminal (an install with one on stdin).
pub(super) fn command(url: &str, dir: &Path, userinfo: Option<&Userinfo>, prompt: bool) -> Command {
    let secs = crate::net::timeout().as_secs().max(1);
    let mut c = Command::new("git");
    for k in LOCAL_ENV {
        c.env_remove(k);
    }
    c.current_dir(dir)
        .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
        .env("LC_ALL", "C")
        .args(["-c", "protocol.allow=never"])
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        // `git index-pack` keeps each fetched file whole in memory up to this size (git's
        // default is 512 MiB) and streams larger ones: a large file costs git no memory.
        .args(["-c", "core.bigFileThreshold=8m"])
        .args(["-c", "http.lowSpeedLimit=1"])
        .arg("-c")
        .arg(format!("http.lowSpeedTime={secs}"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for p in ALLOWED_PROTOCOLS.split(':') {
        c.arg("-c").arg(format!("protocol.{p}.allow=always"));
    }
    if !prompt {
        never_prompt(&mut c, secs);
    }
    // The proxy `plugins` chose, given to git as config: curl ignores an upper-case
    // HTTP_PROXY, and the value (which may hold a proxy password) stays out of argv.
    if (url.starts_with("http://") || url.starts_with("https://"))
        && let Some(proxy) = super::super::proxy_for(url)
    {
        c.env("GIT_CONFIG_COUNT", "1")
            .env("GIT_CONFIG_KEY_0", "http.proxy")
            .env("GIT_CONFIG_VALUE_0", proxy);
    }
    credentials(&mut c, url, userinfo);
    #[cfg(unix)]
    session(&mut c, !prompt);
    c
}

/// Without a terminal, git and ssh never ask: no prompt for credentials, and (unless the
/// user configured an ssh command) ssh in batch mode, bounded by `secs` to connect and by
/// keepalives after.
fn never_prompt(c: &mut Command, secs: u64) {
    c.env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .env("SSH_ASKPASS_REQUIRE", "never");
    if !user_ssh_command() {
        // Keepalives bound a server that answers the banner and then goes silent.
        let interval = (secs / 3).max(1);
        c.env(
            "GIT_SSH_COMMAND",
            format!(
                "ssh -o BatchMode=yes -o ConnectTimeout={secs} -o ServerAliveInterval={interval} -o ServerAliveCountMax=3"
            ),
        );
    }
}

/// The credentials git is given for `url`, through [`ENV_HELPER`] (never in argv): the
/// URL's userinfo, else a GitHub token for it; without either, none.
fn credentials(c: &mut Command, url: &str, userinfo: Option<&Userinfo>) {
    // The URL's userinfo comes first (git's own helpers are not asked); a
    // GitHub token comes after them.
    let secret = match userinfo {
        Some(u) => {
            c.args(["-c", "credential.helper="]);
            Some((u.user.clone(), u.password.clone()))
        }
        None => {
            crate::net::github_token_for(url).map(|t| ("x-access-token".to_owned(), t.0.clone()))
        }
    };
    if let Some((user, password)) = secret {
        c.arg("-c")
            .arg(format!("credential.helper={ENV_HELPER}"))
            .env(
                "PLUGINS_GIT_HOST",
                crate::auth::host(url).unwrap_or_default(),
            )
            .env("PLUGINS_GIT_USERNAME", user)
            .env("PLUGINS_GIT_PASSWORD", password);
    } else {
        for k in [
            "PLUGINS_GIT_HOST",
            "PLUGINS_GIT_USERNAME",
            "PLUGINS_GIT_PASSWORD",
        ] {
            c.env_remove(k);
        }
    }
}

/// What git's process does before exec: lead a session of its own when `own_session` (with
/// no terminal to ask on; the session is what [`kill_stragglers`] ends), and, on Linux, die
/// with this process.
#[cfg(unix)]
fn session(c: &mut Command, own_session: bool) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid and prctl in the child before exec; async-signal-safe.
    unsafe {
        c.pre_exec(move || {
            if own_session && libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// What a pipe's pump tells [`run`]: the pipe ended (its last bytes are in the buffer), or
/// standard output went over [`MAX_STDOUT`].
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Pumped {
    Ended,
    Over,
}

/// Copy a pipe into `buf`, marking activity; `tail` keeps only the last
/// [`MAX_STDERR`] bytes, otherwise more than [`MAX_STDOUT`] sets `over`. `told` hears
/// when it goes over and when the pipe ends.
pub(super) fn pump(
    mut pipe: impl Read + Send + 'static,
    buf: Arc<Mutex<Vec<u8>>>,
    seen: Arc<AtomicU64>,
    start: Instant,
    tail: bool,
    over: Arc<AtomicBool>,
    told: std::sync::mpsc::Sender<Pumped>,
) {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            let n = match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let now = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
            seen.store(now, Ordering::Relaxed);
            let mut b = buf.lock().expect("not poisoned");
            b.extend_from_slice(&chunk[..n]);
            if tail && b.len() > 2 * MAX_STDERR {
                let cut = b.len() - MAX_STDERR;
                b.drain(..cut);
            } else if !tail && b.len() > MAX_STDOUT {
                if !over.swap(true, Ordering::Relaxed) {
                    let _ = told.send(Pumped::Over);
                }
                b.clear();
            }
        }
        let _ = told.send(Pumped::Ended);
    });
}

/// The sessions (process groups) of git commands still running: git and everything it
/// started — `sh -c ssh`, `ssh`, `git remote-http` — which [`kill_stragglers`] ends.
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kill every git session still running: a check the pool gave up on at its `--timeout`
/// goes on in its thread, and its git, ssh or remote helper would otherwise outlive the
/// command (hourly cron runs piled them up against a server silent after its banner).
pub fn kill_stragglers() {
    #[cfg(unix)]
    for pid in LIVE.lock().map(|v| v.clone()).unwrap_or_default() {
        // A session this process created with setsid.
        crate::steps::kill_group(pid);
    }
}

/// How long [`run`] waits on git's pipes before it looks whether git exited anyway (a
/// pipe held open by a process git started).
const STILL_OPEN: Duration = Duration::from_millis(50);

/// What a finished git command left.
pub(super) struct Ran {
    pub(super) ok: bool,
    pub(super) stdout: Vec<u8>,
    pub(super) stderr: String,
}

/// Run `cmd`, killing it (and, without a terminal, the ssh it started) when
/// it writes nothing for `PLUGINS_NET_TIMEOUT`.
pub(super) fn run(
    mut cmd: Command,
    url: &str,
    phase: &'static str,
    own_session: bool,
) -> Result<Ran, GitError> {
    let limit = crate::net::timeout();
    let mut child = cmd.spawn().map_err(|e| CliError::NoGit {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    drop(cmd);
    let session = i32::try_from(child.id()).ok().filter(|_| own_session);
    if let Some(pid) = session
        && let Ok(mut live) = LIVE.lock()
    {
        live.push(pid);
    }
    let start = Instant::now();
    let seen = Arc::new(AtomicU64::new(0));
    let over = Arc::new(AtomicBool::new(false));
    let (out, err) = (Arc::default(), Arc::default());
    let (told, heard) = std::sync::mpsc::channel();
    let pumping = |pipe: Box<dyn Read + Send>, buf: &Arc<Mutex<Vec<u8>>>, tail| {
        pump(
            pipe,
            Arc::clone(buf),
            seen.clone(),
            start,
            tail,
            over.clone(),
            told.clone(),
        )
    };
    // The pipes being read, each until it tells it ended.
    let mut open = [
        child
            .stdout
            .take()
            .map(|p| pumping(Box::new(p), &out, false)),
        child
            .stderr
            .take()
            .map(|p| pumping(Box::new(p), &err, true)),
    ]
    .into_iter()
    .flatten()
    .count();
    drop(told);
    let status = wait(&mut child, &heard, &mut open, (start, &seen, &over), limit);
    stop(&mut child, session, status.is_some());
    drain(&heard, open);
    let stderr = String::from_utf8_lossy(&err.lock().expect("not poisoned")).into_owned();
    if over.load(Ordering::Relaxed) {
        return Err(CliError::Failed {
            url: url.to_owned(),
            verb: phase,
            detail: format!("git wrote more than {} MiB", MAX_STDOUT >> 20),
        }
        .into());
    }
    let Some(status) = status else {
        return Err(GitError::Stalled {
            url: url.to_owned(),
            phase,
            secs: limit.as_secs(),
        });
    };
    let stdout = std::mem::take(&mut *out.lock().expect("not poisoned"));
    Ok(Ran {
        ok: status.success(),
        stdout,
        stderr,
    })
}

/// Wait for git to exit, woken when a pipe ends or goes over, not by polling: git has
/// exited, or is about to, once both of its pipes ended. While a pipe is open (perhaps held
/// by something git started), whether git exited is looked at every [`STILL_OPEN`], so its
/// exit is not missed for long. `open` counts the pipes still open; `None`: git wrote
/// nothing for `limit`, went over [`MAX_STDOUT`], or could not be waited for.
fn wait(
    child: &mut std::process::Child,
    heard: &std::sync::mpsc::Receiver<Pumped>,
    open: &mut usize,
    (start, seen, over): (Instant, &AtomicU64, &AtomicBool),
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let mut reap = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        let idle = start
            .elapsed()
            .saturating_sub(Duration::from_millis(seen.load(Ordering::Relaxed)));
        if idle > limit || over.load(Ordering::Relaxed) {
            break None;
        }
        if *open == 0 {
            // Both pipes ended: git is exiting; reaped within a few milliseconds.
            std::thread::sleep(reap);
            reap = (reap * 2).min(Duration::from_millis(10));
            continue;
        }
        match heard.recv_timeout((limit - idle).min(STILL_OPEN)) {
            Ok(Pumped::Ended) => *open -= 1,
            Ok(Pumped::Over) | Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => *open = 0,
        }
    }
}

/// Git's session is no longer live; unless git `exited`, it is killed (with the session it
/// leads) and reaped.
fn stop(child: &mut std::process::Child, session: Option<i32>, exited: bool) {
    if let Some(pid) = session
        && let Ok(mut live) = LIVE.lock()
    {
        live.retain(|p| *p != pid);
    }
    if !exited {
        #[cfg(unix)]
        if let Some(pid) = session {
            // The session (and group) git leads, not yet reaped.
            crate::steps::kill_group(pid);
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The pipes end with git and its ssh; one that outlives a kill (a prompt on a terminal) is
/// not waited for past a second.
fn drain(heard: &std::sync::mpsc::Receiver<Pumped>, mut open: usize) {
    let drained = Instant::now() + Duration::from_secs(1);
    while open > 0 {
        match heard.recv_timeout(drained.saturating_duration_since(Instant::now())) {
            Ok(Pumped::Ended) => open -= 1,
            Ok(Pumped::Over) => {}
            Err(_) => break,
        }
    }
}
