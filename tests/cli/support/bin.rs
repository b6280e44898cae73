//! The one way a test runs `plugins`: [`Plugins`], a builder over the binary with a clean
//! environment (just's `Test`), and [`Ran`], what one run printed, compared to snapshots
//! through the redactions the run was given (uv's `uv_snapshot!` filters).
//!
//! ```ignore
//! let ran = Plugins::new().args(["list"]).home(&home).run();
//! ran.expect(0, str![[r#"..."#]], str![""]); // code, stdout, stderr; temp paths redacted
//! ```
//!
//! Placeholders (every test uses these names for these things): `[TMP]` a test's temp
//! dir ([`Plugins::tmp`]); `[HOME]` a home where the snapshot shows it apart from the
//! temp dir; `[EXE]` the binary under test; `[AT]` an RFC 3339 time the printer wrote
//! (always redacted). Test-specific ones (`[URL]`, `[C1]`, `[PORT]`…) come from
//! [`Plugins::redact`], or for a value short enough to occur inside other text (a port, a
//! user name), from [`Plugins::redact_word`] and [`Plugins::redact_login`], which replace it
//! only where it stands alone. The architecture test keeps `CARGO_BIN_EXE_plugins` in this
//! folder, so no test spawns the binary around this builder.

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use snapbox::{IntoData, RedactedValue, Redactions};

/// The binary under test. Tests pass it to other programs (`script`, `bash`, `strace`,
/// an editor); they run it through [`Plugins`].
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_plugins");

/// protoAgent's locations from the environment (home, instance, box root, plugins dir and
/// lock, auto scope, config dir): kept out of `plugins` ([`Plugins::without_host_env`]) and
/// of the host's own Python where a test runs it.
pub(crate) const PROTOAGENT_VARS: &[&str] = &[
    "PROTOAGENT_HOME",
    "PROTOAGENT_INSTANCE",
    "PROTOAGENT_BOX_ROOT",
    "PROTOAGENT_PLUGINS_DIR",
    "PROTOAGENT_PLUGINS_LOCK",
    "PROTOAGENT_AUTO_SCOPE",
    "PROTOAGENT_CONFIG_DIR",
];

/// `plugins` to run: no `PLUGINS_HOME` or forced colour from outside, `NO_COLOR=1`,
/// `COLUMNS=100`. Methods take `&mut self` as [`Command`]'s do, so a builder can be
/// made in steps.
pub(crate) struct Plugins {
    cmd: Command,
    input: Option<Vec<u8>>,
    stdin_set: bool,
    deadline: Option<Duration>,
    redactions: Vec<(&'static str, RedactedValue)>,
}

impl Plugins {
    pub(crate) fn new() -> Plugins {
        Plugins::wrapped(Command::new(BIN))
    }

    /// `program [args…]`, whose last arg is the binary ([`BIN`] or a copy made by
    /// [`super::copy_binary`]), or a copy itself: the binary run as another user
    /// (`setpriv`), or from elsewhere, with the same environment.
    pub(crate) fn under<S: AsRef<OsStr>>(
        program: impl AsRef<OsStr>,
        args: impl IntoIterator<Item = S>,
    ) -> Plugins {
        let mut cmd = Command::new(program);
        cmd.args(args);
        Plugins::wrapped(cmd)
    }

    fn wrapped(mut cmd: Command) -> Plugins {
        cmd.env_remove("PLUGINS_HOME")
            .env_remove("CLICOLOR_FORCE")
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100");
        Plugins {
            cmd,
            input: None,
            stdin_set: false,
            deadline: None,
            redactions: vec![("[EXE]", BIN.to_owned().into())],
        }
    }

    pub(crate) fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut Plugins {
        self.cmd.arg(arg);
        self
    }

    pub(crate) fn args<S: AsRef<OsStr>>(
        &mut self,
        args: impl IntoIterator<Item = S>,
    ) -> &mut Plugins {
        self.cmd.args(args);
        self
    }

    /// `--home <home>`.
    pub(crate) fn home(&mut self, home: &Path) -> &mut Plugins {
        self.cmd.arg("--home").arg(home);
        self
    }

    /// The test's temp dir: shows as `[TMP]` in snapshots.
    pub(crate) fn tmp(&mut self, tmp: &Path) -> &mut Plugins {
        self.redact("[TMP]", tmp)
    }

    /// Show `value` as `placeholder` (`[NAME]`) in snapshots; the longest value wins where
    /// two overlap, so a home inside the temp dir shows as `[HOME]`.
    pub(crate) fn redact(
        &mut self,
        placeholder: &'static str,
        value: impl AsRef<OsStr>,
    ) -> &mut Plugins {
        let value = value.as_ref().to_string_lossy().into_owned();
        if !value.is_empty() {
            self.redactions.push((placeholder, value.into()));
        }
        self
    }

    /// Show `value` as `placeholder` only where it is a word of its own, not part of a longer
    /// run of letters, digits or `_`: a port in `127.0.0.1:40123` or `-p 40123`, never the
    /// same digits inside a hash or a number.
    pub(crate) fn redact_word(
        &mut self,
        placeholder: &'static str,
        value: impl std::fmt::Display,
    ) -> &mut Plugins {
        let word = regex::escape(&value.to_string());
        self.pattern(placeholder, &format!(r"\b(?<redacted>{word})\b"))
    }

    /// Show the user name `user` as `placeholder` only where it logs in, before an `@`
    /// (`[USER]@127.0.0.1`): a user named `root` leaves the word "root" alone elsewhere.
    pub(crate) fn redact_login(&mut self, placeholder: &'static str, user: &str) -> &mut Plugins {
        let user = regex::escape(user);
        self.pattern(placeholder, &format!(r"\b(?<redacted>{user})@"))
    }

    /// Show what the `redacted` group of `pattern` matches as `placeholder`.
    fn pattern(&mut self, placeholder: &'static str, pattern: &str) -> &mut Plugins {
        let regex = regex::Regex::new(pattern).expect("a valid pattern");
        self.redactions.push((placeholder, regex.into()));
        self
    }

    /// No proxy from outside: `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, either
    /// case.
    pub(crate) fn without_proxies(&mut self) -> &mut Plugins {
        for k in [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
            "NO_PROXY",
            "no_proxy",
        ] {
            self.cmd.env_remove(k);
        }
        self
    }

    /// No host location from outside: `XDG_CONFIG_HOME` and protoAgent's `PROTOAGENT_*`
    /// (home, instance, box root, plugins dir and lock, auto scope, config dir).
    pub(crate) fn without_host_env(&mut self) -> &mut Plugins {
        for k in std::iter::once("XDG_CONFIG_HOME").chain(PROTOAGENT_VARS.iter().copied()) {
            self.cmd.env_remove(k);
        }
        self
    }

    /// Nothing of the user's from outside: `HOME` is `<tmp>/user` (made), git's global
    /// config `<tmp>/gitconfig` (made empty unless it is there) and no system config, no
    /// netrc, no GitHub token, base or API override, no proxy.
    pub(crate) fn isolated(&mut self, tmp: &Path) -> &mut Plugins {
        let user = tmp.join("user");
        std::fs::create_dir_all(&user).unwrap();
        let config = tmp.join("gitconfig");
        if !config.exists() {
            std::fs::write(&config, "").unwrap();
        }
        for k in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "PLUGINS_GH_BASE",
            "AOE_GITHUB_CLONE_BASE",
            "PLUGINS_GITHUB_API",
        ] {
            self.cmd.env_remove(k);
        }
        self.without_proxies()
            .env("HOME", user)
            .env("GIT_CONFIG_GLOBAL", config)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NETRC", tmp.join("no-netrc"))
    }

    pub(crate) fn env(&mut self, key: impl AsRef<OsStr>, val: impl AsRef<OsStr>) -> &mut Plugins {
        self.cmd.env(key, val);
        self
    }

    pub(crate) fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        &mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> &mut Plugins {
        self.cmd.envs(vars);
        self
    }

    pub(crate) fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut Plugins {
        self.cmd.env_remove(key);
        self
    }

    pub(crate) fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut Plugins {
        self.cmd.current_dir(dir);
        self
    }

    /// Write `input` to the run's stdin, then close it.
    pub(crate) fn stdin_bytes(&mut self, input: impl Into<Vec<u8>>) -> &mut Plugins {
        self.input = Some(input.into());
        self
    }

    /// Stdin for [`Plugins::run`] (null by default) or [`Plugins::spawn`].
    pub(crate) fn stdin(&mut self, cfg: impl Into<Stdio>) -> &mut Plugins {
        self.cmd.stdin(cfg);
        self.stdin_set = true;
        self
    }

    pub(crate) fn stdout(&mut self, cfg: impl Into<Stdio>) -> &mut Plugins {
        self.cmd.stdout(cfg);
        self
    }

    pub(crate) fn stderr(&mut self, cfg: impl Into<Stdio>) -> &mut Plugins {
        self.cmd.stderr(cfg);
        self
    }

    /// Kill the run and fail the test after `limit`, so a hang cannot stall the suite.
    pub(crate) fn deadline(&mut self, limit: Duration) -> &mut Plugins {
        self.deadline = Some(limit);
        self
    }

    /// Run it under `program args…` (`strace`, `/usr/bin/time`): the same command line
    /// and environment, after the wrapper's own arguments.
    pub(crate) fn wrapped_in<S: AsRef<OsStr>>(
        &mut self,
        program: impl AsRef<OsStr>,
        args: impl IntoIterator<Item = S>,
    ) -> &mut Plugins {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .arg(self.cmd.get_program())
            .args(self.cmd.get_args());
        self.rebuild(cmd)
    }

    /// Run it on a terminal: under `script -qefc <command line> /dev/null` (util-linux),
    /// stdin, stdout and stderr still the test's to configure.
    pub(crate) fn in_pty(&mut self) -> &mut Plugins {
        let line = std::iter::once(self.cmd.get_program())
            .chain(self.cmd.get_args())
            .map(|a| shell_quote(&a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ");
        let mut cmd = Command::new("script");
        cmd.args(["-qefc", &line, "/dev/null"]);
        self.rebuild(cmd)
    }

    fn rebuild(&mut self, mut cmd: Command) -> &mut Plugins {
        for (k, v) in self.cmd.get_envs() {
            match v {
                Some(v) => cmd.env(k, v),
                None => cmd.env_remove(k),
            };
        }
        if let Some(dir) = self.cmd.get_current_dir() {
            cmd.current_dir(dir);
        }
        self.cmd = cmd;
        self
    }

    /// The command itself, for a runner that needs one: the crash sweep's tracer
    /// (`support::kill::run`) starts it under its seccomp filter.
    pub(crate) fn into_command(self) -> Command {
        self.cmd
    }

    /// Start it (a server, a process a test holds or kills); stdio as configured.
    pub(crate) fn spawn(&mut self) -> Child {
        self.cmd.spawn().expect("plugins starts")
    }

    /// Run it to the end capturing its output, however it ended (killed by a signal too).
    pub(crate) fn output(&mut self) -> std::process::Output {
        if !self.stdin_set {
            self.cmd.stdin(Stdio::null());
        }
        self.cmd.output().expect("plugins runs")
    }

    /// Run it to the end; only the exit status (output inherited).
    pub(crate) fn status(&mut self) -> ExitStatus {
        self.cmd.status().expect("plugins runs")
    }

    /// Run it to the end and capture what it printed.
    #[track_caller]
    pub(crate) fn run(&mut self) -> Ran {
        if self.input.is_some() {
            self.cmd.stdin(Stdio::piped());
        } else if !self.stdin_set {
            self.cmd.stdin(Stdio::null());
        }
        let mut child = self
            .cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("plugins runs");
        if let Some(input) = self.input.take() {
            let mut stdin = child.stdin.take().unwrap();
            // A run may exit before it reads everything: a broken pipe is its answer.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
        }
        if let Some(limit) = self.deadline {
            let start = Instant::now();
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > limit {
                    child.kill().unwrap();
                    panic!("still running after {limit:?}");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let out = child.wait_with_output().expect("plugins runs");
        Ran {
            code: out.status.code().expect("exited normally"),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
            redactions: self.redactions.clone(),
        }
    }
}

/// What one run printed. `stdout` and `stderr` are as printed; the `*_eq` assertions
/// compare them redacted.
pub(crate) struct Ran {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    redactions: Vec<(&'static str, RedactedValue)>,
}

impl Ran {
    /// What users see, in one call: stdout and stderr against snapshots (redacted;
    /// `SNAPSHOTS=overwrite` fills them), then the exit code exactly (a wrong one fails
    /// showing both streams). The form every test that checks output uses (just's
    /// `Test::stdout(…).stderr(…).status(…)`); the streams go first so that a changed
    /// message shows as a diff, and an overwrite fills both before a code is judged.
    #[track_caller]
    pub(crate) fn expect(&self, code: i32, stdout: impl IntoData, stderr: impl IntoData) -> &Ran {
        self.streams_eq(stdout, stderr).code(code)
    }

    /// stdout and stderr as [`Ran::expect`] compares them, for a helper whose callers judge
    /// the exit code themselves.
    #[track_caller]
    pub(crate) fn streams_eq(&self, stdout: impl IntoData, stderr: impl IntoData) -> &Ran {
        let redactions = redactions(&self.redactions);
        compare(&self.stdout, &redactions, stdout, false);
        compare(&self.stderr, &redactions, stderr, false);
        self
    }

    /// (exit code, stdout, stderr), for tests that judge them piecemeal: only where a
    /// snapshot cannot work, with a `// parts: <reason>` comment (architecture test).
    pub(crate) fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }

    /// (exit code, stdout, stderr) redacted, for tests that judge the text piecemeal.
    pub(crate) fn redacted_parts(&self) -> (i32, String, String) {
        (
            self.code,
            self.redacted(&self.stdout),
            self.redacted(&self.stderr),
        )
    }

    /// Show `value` as `placeholder` too (a value known only after the run).
    pub(crate) fn redact(
        &mut self,
        placeholder: &'static str,
        value: impl AsRef<OsStr>,
    ) -> &mut Ran {
        let value = value.as_ref().to_string_lossy().into_owned();
        if !value.is_empty() {
            self.redactions.push((placeholder, value.into()));
        }
        self
    }

    /// Exit code 0, else fail showing what it printed.
    #[track_caller]
    pub(crate) fn success(&self) -> &Ran {
        self.code(0)
    }

    #[track_caller]
    pub(crate) fn code(&self, code: i32) -> &Ran {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// stdout against a snapshot (`SNAPSHOTS=overwrite` fills it).
    #[track_caller]
    pub(crate) fn stdout_eq(&self, expected: impl IntoData) -> &Ran {
        compare(&self.stdout, &redactions(&self.redactions), expected, true);
        self
    }

    #[track_caller]
    pub(crate) fn stderr_eq(&self, expected: impl IntoData) -> &Ran {
        compare(&self.stderr, &redactions(&self.redactions), expected, true);
        self
    }

    /// `text` with this run's redactions applied (for a snapshot of a file it wrote).
    pub(crate) fn redacted(&self, text: &str) -> String {
        redactions(&self.redactions).redact(&untimed(text))
    }

    #[track_caller]
    pub(crate) fn redacted_eq(&self, text: &str, expected: impl IntoData) -> &Ran {
        compare(text, &redactions(&self.redactions), expected, true);
        self
    }
}

/// `s` as one POSIX shell word.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+%".contains(&b))
    {
        return s.to_owned();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn redactions(pairs: &[(&'static str, RedactedValue)]) -> Redactions {
    let mut r = Redactions::new();
    for (placeholder, value) in pairs {
        r.insert(placeholder, value.clone())
            .unwrap_or_else(|e| panic!("redaction {placeholder}: {e}"));
    }
    r
}

/// Compare `actual`, timestamps as `[AT]` and `pairs` redacted, with `expected`.
#[track_caller]
pub(crate) fn assert_redacted(
    actual: &str,
    pairs: &[(&'static str, String)],
    expected: impl IntoData,
) {
    let pairs: Vec<_> = pairs.iter().map(|(p, v)| (*p, v.into())).collect();
    compare(actual, &redactions(&pairs), expected, true);
}

/// [`assert_redacted`]; without `paths`, a `\` stays a `\` (snapbox otherwise shows
/// every backslash as `/`, so a JSON `\"` would read `/"`).
#[track_caller]
fn compare(actual: &str, redactions: &Redactions, expected: impl IntoData, paths: bool) {
    // Redacted here too: snapbox redacts only for a snapshot that is not `.raw()`.
    let actual = redactions.redact(&untimed(actual));
    snapbox::Assert::new()
        .action_env(snapbox::assert::DEFAULT_ACTION_ENV)
        .redact_with(redactions.clone())
        .normalize_paths(paths)
        .eq(actual, expected);
}

/// `text` with each RFC 3339 timestamp the printer writes (`2026-12-02T21:02:00+00:00`)
/// replaced by `[AT]`, for snapshots of timestamped log lines.
pub(crate) fn untimed(text: &str) -> String {
    let shape = b"dddd-dd-ddTdd:dd:dd+00:00";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let fits = bytes.len() - i >= shape.len()
            && shape.iter().zip(&bytes[i..]).all(|(s, b)| match s {
                b'd' => b.is_ascii_digit(),
                s => s == b,
            });
        if fits {
            out.push_str("[AT]");
            i += shape.len();
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}
