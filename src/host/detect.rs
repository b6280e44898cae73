//! Which host is installed here, and so which profile to validate as when neither a flag
//! nor the home says: `aoe --version`, and the protoAgent and AWorld packages of the
//! host's Python (`--python`, the home's `[host] python`, else `python3` on PATH). Each
//! probe runs for at most [`TIMEOUT`]; a host that is absent, hangs or answers nonsense is
//! simply not detected. Used by installs (and so `update`, `sync`, `autoupdate`), `info`
//! and `doctor`. Domain code: it reports through `log::debug!` and never prints.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::dialect::Dialect;
use crate::profile::HostProfile;
use crate::store::Home;

/// How long one probe (`aoe --version`, the Python query) may take.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Python distributions of the hosts: (host, distribution).
pub const PYTHON_HOSTS: [(&str, &str); 2] =
    [("protoagent", "protolabs-agent"), ("aworld", "aworld")];

/// Why a probe (`aoe --version`, the host's Python) gave no answer; `doctor` shows it.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("not found on PATH")]
    NotFound,
    #[error("{0}")]
    Spawn(std::io::Error),
    #[error("no answer within {} s", .0.as_secs())]
    NoAnswer(Duration),
    #[error("exited with {0}")]
    Exited(std::process::ExitStatus),
}

/// Run a command for at most `timeout`; its trimmed stdout, or why not.
///
/// The probe leads a process group of its own, and one that does not answer in time is
/// killed with everything it started in it: nothing a probe starts outlives the command.
/// It also dies with the thread that started it (`PR_SET_PDEATHSIG`), which waits for it,
/// so an interrupted command does not leave it running; and where the system allows, it
/// runs as pid 1 of namespaces of its own ([`crate::steps::contain`]), which cannot see
/// `plugins`' process.
pub fn output_of(mut cmd: Command, timeout: Duration) -> Result<String, ProbeError> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    // Where the system allows, as pid 1 of namespaces of its own, like a build step.
    crate::steps::contain(&mut cmd, None);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ProbeError::NotFound,
            _ => ProbeError::Spawn(e),
        })?;
    let mut stdout = child.stdout.take().expect("piped");
    // The answer is complete when stdout ends, which is when the probe exits: waited for
    // as such, not by polling the child (a 20 ms poll added 10 ms to a probe on average,
    // a sixth of a 60 ms probe).
    let (tx, rx) = std::sync::mpsc::channel();
    // Read as bytes: a stray byte that is not UTF-8 (a locale's version banner) costs that
    // character, not the whole answer, which `read_to_string` would drop.
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut bytes);
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    let deadline = Instant::now() + timeout;
    let answered = rx.recv_timeout(timeout).ok().and_then(|text| {
        // stdout ended: the probe has exited (the kernel closes its files a moment before
        // it can be reaped, so an answer just before the deadline gets a short grace), or
        // it closed stdout and runs on, which is no answer once the deadline has passed.
        let until = deadline.max(Instant::now() + Duration::from_millis(100));
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Some(Ok((status, text))),
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(1)),
                Ok(None) => return None,
                Err(e) => return Some(Err(ProbeError::Spawn(e))),
            }
        }
    });
    let (status, text) = match answered {
        Some(answer) => answer?,
        None => {
            // No answer in time (or stdout held open past it, by the probe or a child
            // of its): the probe's group is killed before the probe is reaped (so its id
            // is still the group's), and the reading thread ends with the pipe.
            #[cfg(unix)]
            if let Ok(pgid) = i32::try_from(child.id()) {
                crate::steps::stop_group(pgid);
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(ProbeError::NoAnswer(timeout));
        }
    };
    if !status.success() {
        return Err(ProbeError::Exited(status));
    }
    Ok(text.trim().to_owned())
}

/// The first line of `aoe --version`.
pub fn aoe_version(timeout: Duration) -> Result<String, ProbeError> {
    let mut cmd = Command::new("aoe");
    cmd.arg("--version");
    let text = output_of(cmd, timeout)?;
    Ok(text.lines().next().unwrap_or_default().to_owned())
}

/// Finds each distribution as `importlib.metadata.version` does — the first
/// `<name>-<version>.dist-info` (or `.egg-info`) on `sys.path` under the normalized name —
/// without importing `importlib.metadata`, which cost most of the probe (about 50 ms of a
/// 60 ms probe; the directory scan takes about 12 ms in all, measured with the hosts venv).
///
/// After the versions, one `W <mtime_ns> <path>` line per directory the answer depends on:
/// each `sys.path` directory it listed (installing, upgrading or removing a distribution
/// adds or removes an entry there) and each metadata directory it found, each stated
/// before it is read (a change after the stat changes the time); `!` when a path cannot be
/// written as one line of UTF-8, so the answer is not remembered.
const PYTHON_HOSTS_SCRIPT: &str = r#"import sys, os, re
want = ['protolabs_agent', 'aworld']
found = {}
watch = []
for p in sys.path:
    try:
        st = os.stat(p or '.')
        names = os.listdir(p or '.')
    except OSError:
        continue
    watch.append((st.st_mtime_ns, os.path.abspath(p or '.')))
    for n in names:
        for ext in ('.dist-info', '.egg-info'):
            if n.endswith(ext):
                name, _, version = n[:-len(ext)].partition('-')
                name = re.sub(r'[-_.]+', '_', name).lower()
                if name in want and name not in found and version:
                    found[name] = version.split('-py')[0]
                    try:
                        d = os.path.join(os.path.abspath(p or '.'), n)
                        watch.append((os.stat(d).st_mtime_ns, d))
                    except OSError:
                        pass
for w in want:
    print(found.get(w, '-'))
for t, d in watch:
    try:
        d.encode('utf-8')
        one_line = '\n' not in d and '\r' not in d
    except UnicodeEncodeError:
        one_line = False
    print('W', t, d) if one_line else print('!')
"#;

/// What [`PYTHON_HOSTS_SCRIPT`] answered: the versions of [`PYTHON_HOSTS`] (`None`: not
/// installed there) and the directories that answer depends on, with their mtimes (`None`:
/// it cannot be remembered).
type Answer = (Vec<Option<String>>, Option<Vec<(std::path::PathBuf, i128)>>);

fn ask_python(python: &str, timeout: Duration) -> Result<Answer, ProbeError> {
    let mut cmd = Command::new(python);
    cmd.args(["-I", "-c", PYTHON_HOSTS_SCRIPT]);
    let text = output_of(cmd, timeout)?;
    let lines: Vec<&str> = text.lines().collect();
    let versions = (0..PYTHON_HOSTS.len())
        .map(|i| {
            lines
                .get(i)
                .map(|v| v.trim())
                .filter(|v| *v != "-" && !v.is_empty())
                .map(str::to_owned)
        })
        .collect();
    let watched = lines
        .iter()
        .skip(PYTHON_HOSTS.len())
        .map(|l| {
            let (t, path) = l.strip_prefix("W ")?.split_once(' ')?;
            // A path that was not UTF-8 came through decoded lossily: it names no
            // directory, so the answer is not remembered.
            if path.contains('\u{fffd}') {
                return None;
            }
            Some((std::path::PathBuf::from(path), t.parse().ok()?))
        })
        .collect();
    Ok((versions, watched))
}

/// The versions of [`PYTHON_HOSTS`] in `python` (`None`: not installed there).
pub fn python_hosts(python: &str, timeout: Duration) -> Result<Vec<Option<String>>, ProbeError> {
    ask_python(python, timeout).map(|(versions, _)| versions)
}

/// A file's or directory's mtime in nanoseconds since the epoch, as Python's
/// `os.stat(p).st_mtime_ns` gives it (symlinks followed).
fn mtime_ns(path: &std::path::Path) -> Option<i128> {
    let modified = fs_err::metadata(path).ok()?.modified().ok()?;
    Some(match modified.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i128::try_from(d.as_nanos()).ok()?,
        Err(e) => -i128::try_from(e.duration().as_nanos()).ok()?,
    })
}

/// One program's answer (an interpreter's, `aoe --version`'s), remembered in the home with
/// what it depends on.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Remembered {
    /// The program as named (`python3`, `/opt/venv/bin/python`, `aoe`).
    python: String,
    /// The file that name found, and its size and mtime (symlinks followed), and the
    /// mtime of the name itself (a venv's `python` is a symlink that can be repointed).
    exe: std::path::PathBuf,
    exe_size: u64,
    exe_mtime_ns: i128,
    link_mtime_ns: Option<i128>,
    /// The directories the answer depends on ([`PYTHON_HOSTS_SCRIPT`]) and their mtimes.
    watched: Vec<(std::path::PathBuf, i128)>,
    versions: Vec<Option<String>>,
}

/// Where the protoAgent package the home's probe record found lives (the `site-packages`
/// holding `protolabs_agent-<version>.dist-info`), if a probe found one; read only, no probe
/// runs. The host's bundled files (its `config/plugin-catalog.json`) are there.
pub fn protoagent_site(home: &Home) -> Option<std::path::PathBuf> {
    let text = crate::file::read_to_string(home.host_probe_record()).ok()?;
    let kept: Vec<Remembered> = serde_json::from_str(&text).ok()?;
    kept.iter()
        .filter(|r| r.versions.first().is_some_and(Option::is_some))
        .flat_map(|r| &r.watched)
        .find(|(dir, _)| {
            dir.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("protolabs_agent-") && n.ends_with(".dist-info"))
        })
        .and_then(|(dir, _)| dir.parent().map(std::path::Path::to_path_buf))
}

/// The interpreters whose answers a home keeps at most.
const REMEMBERED: usize = 8;

/// The file `python` names (a bare name is looked up on `PATH`), with its size, mtime and
/// its own (unfollowed) mtime; `None` when it cannot be said.
fn identify(python: &str) -> Option<(std::path::PathBuf, u64, i128, Option<i128>)> {
    let named = std::path::Path::new(python);
    let exe = if named.components().count() > 1 {
        named.to_path_buf()
    } else {
        crate::steps::on_path(python)?
    };
    let meta = fs_err::metadata(&exe).ok()?;
    let link = fs_err::symlink_metadata(&exe)
        .ok()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i128::try_from(d.as_nanos()).ok());
    Some((exe.clone(), meta.len(), mtime_ns(&exe)?, link))
}

/// The versions of [`PYTHON_HOSTS`] in `python`, from `home`'s record when neither the
/// interpreter nor any directory its answer came from changed since it was asked; else
/// asked ([`python_hosts`]) and, when `home` exists, remembered there. About 1 ms of
/// `stat`s instead of 50 to 180 ms of starting Python on every install.
pub fn python_hosts_remembered(
    python: &str,
    home: Option<&Home>,
    timeout: Duration,
) -> Result<Vec<Option<String>>, ProbeError> {
    remembered(python, home, || ask_python(python, timeout))
}

/// The first line of `aoe --version`, from `home`'s record while the `aoe` on PATH is the
/// same file (path, size, mtime); else asked and remembered.
pub fn aoe_version_remembered(
    home: Option<&Home>,
    timeout: Duration,
) -> Result<String, ProbeError> {
    let versions = remembered("aoe", home, || {
        aoe_version(timeout).map(|line| (vec![Some(line)], Some(Vec::new())))
    })?;
    Ok(versions.into_iter().next().flatten().unwrap_or_default())
}

/// `program`'s answer from `home`'s probe record when neither the program's file nor any
/// directory the answer depends on changed since it was asked; else `ask` and, when `home`
/// exists, remember it.
fn remembered(
    program: &str,
    home: Option<&Home>,
    ask: impl FnOnce() -> Result<Answer, ProbeError>,
) -> Result<Vec<Option<String>>, ProbeError> {
    let Some(home) = home else {
        return ask().map(|(versions, _)| versions);
    };
    let record = home.host_probe_record();
    let mut kept: Vec<Remembered> = crate::file::read_to_string(&record)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let before = identify(program);
    if let Some((exe, size, mtime, link)) = &before
        && let Some(hit) = kept.iter().find(|r| {
            r.python == program
                && r.exe == *exe
                && r.exe_size == *size
                && r.exe_mtime_ns == *mtime
                && r.link_mtime_ns == *link
                && r.watched.iter().all(|(d, t)| mtime_ns(d) == Some(*t))
        })
    {
        log::debug!(
            "host: {program}: answered as remembered in {} (the program and what its answer depends on are unchanged)",
            record.display()
        );
        return Ok(hit.versions.clone());
    }
    let (versions, watched) = ask()?;
    if let (Some((exe, exe_size, exe_mtime_ns, link_mtime_ns)), Some(watched)) = (before, watched)
        && home.root.is_dir()
    {
        kept.retain(|r| r.python != program);
        kept.insert(
            0,
            Remembered {
                python: program.to_owned(),
                exe,
                exe_size,
                exe_mtime_ns,
                link_mtime_ns,
                watched,
                versions: versions.clone(),
            },
        );
        kept.truncate(REMEMBERED);
        let mut text = serde_json::to_string_pretty(&kept).expect("serializes");
        text.push('\n');
        if let Err(e) = crate::lock::write_atomic(&record, text.as_bytes()) {
            log::debug!("host: not remembering {program}'s answer: {e}");
        }
    }
    Ok(versions)
}

/// The version in `aoe --version`'s line (`aoe 1.14.0`, `v1.19.0`).
pub fn parse_aoe_version(line: &str) -> Option<semver::Version> {
    line.split_whitespace()
        .find_map(|w| semver::Version::parse(w.strip_prefix('v').unwrap_or(w)).ok())
}

/// The aoe plugin API profile of an aoe release: 15 from 1.19.0 (the release it was read
/// from), else 12 (read from 1.14.0, the closest older profile `plugins` knows).
pub fn aoe_api_for(version: &semver::Version) -> u32 {
    if *version >= semver::Version::new(1, 19, 0) {
        15
    } else {
        12
    }
}

/// The interpreter the home's host runs: `given` (`--python`), else the home's
/// `[host] python` in `plugins.toml`, else `python3` on PATH.
pub fn host_python(given: Option<&std::path::Path>, home: Option<&Home>) -> String {
    given
        .map(|p| p.display().to_string())
        .or_else(|| home.and_then(remembered_python))
        .unwrap_or_else(|| "python3".to_owned())
}

/// `[host] python` of `<home>/plugins.toml`.
pub fn remembered_python(home: &Home) -> Option<String> {
    let text = crate::file::read_to_string(home.settings()).ok()?;
    let doc: toml::Table = text.parse().ok()?;
    doc.get("host")?
        .get("python")?
        .as_str()
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
}

/// A profile found on this machine, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detected {
    pub profile: HostProfile,
    /// What answered (`aoe --version`, `python3: protolabs-agent`).
    pub how: String,
}

/// Whether `profile` (from flags and the home) leaves anything for detection to fill for
/// `dialect`: aoe when neither the api nor the version is given, protoAgent when its
/// version is not; AWorld has no profile.
pub fn wanted(dialect: Dialect, profile: &HostProfile) -> bool {
    match dialect {
        Dialect::Aoe => profile.aoe_api.is_none() && profile.version.is_none(),
        Dialect::Protoagent => profile.version.is_none(),
        Dialect::Aworld => false,
    }
}

/// What each (dialect, interpreter) detected, once per process.
type Cache = HashMap<(String, String), Option<Detected>>;

/// Detect `dialect`'s installed host (once per process, interpreter and dialect; the
/// Python probe's answer is remembered in `home` across processes until the interpreter or
/// its packages change: [`python_hosts_remembered`]).
pub fn detect(dialect: Dialect, python: &str, home: Option<&Home>) -> Option<Detected> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let key = (dialect.to_string(), python.to_owned());
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return hit;
    }
    let found = probe(dialect, python, home);
    match &found {
        Some(d) => log::debug!(
            "host: detected {} ({}); validating as it",
            describe(&d.profile),
            d.how
        ),
        None => log::debug!("host: no {dialect} host detected; validating as the newest"),
    }
    if let Ok(mut c) = cache.lock() {
        c.insert(key, found.clone());
    }
    found
}

fn probe(dialect: Dialect, python: &str, home: Option<&Home>) -> Option<Detected> {
    match dialect {
        Dialect::Aoe => {
            let line = aoe_version_remembered(home, TIMEOUT)
                .map_err(|why| log::debug!("host: `aoe --version`: {why}"))
                .ok()?;
            let version = parse_aoe_version(&line)?;
            Some(Detected {
                profile: HostProfile {
                    aoe_api: Some(aoe_api_for(&version)),
                    version: Some(version.to_string()),
                },
                how: "aoe --version".to_owned(),
            })
        }
        Dialect::Protoagent => {
            let versions = python_hosts_remembered(python, home, TIMEOUT)
                .map_err(|why| log::debug!("host: {python}: {why}"))
                .ok()?;
            let version = versions.first().cloned().flatten()?;
            Some(Detected {
                profile: HostProfile {
                    aoe_api: None,
                    version: Some(version),
                },
                how: format!("{python}: {}", PYTHON_HOSTS[0].1),
            })
        }
        Dialect::Aworld => None,
    }
}

/// `aoe api 12, version 1.14.0`.
pub fn describe(profile: &HostProfile) -> String {
    let mut what = Vec::new();
    if let Some(api) = profile.aoe_api {
        what.push(format!("aoe api {api}"));
    }
    if let Some(v) = &profile.version {
        what.push(format!("version {v}"));
    }
    what.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    /// A probe's answer is its whole stdout once it exits (also when it writes after a
    /// pause, or writes a lot); a probe that fails or does not answer in time says so, and
    /// one that answers but leaves a child holding its stdout open past the limit did not
    /// answer.
    #[cfg(unix)]
    #[test]
    fn a_probe_answers_with_its_stdout_once_it_exits() {
        let limit = Duration::from_secs(10);
        assert_eq!(
            output_of(sh("echo ' aoe 1.2.3 '"), limit).unwrap(),
            "aoe 1.2.3"
        );
        assert_eq!(
            output_of(sh("sleep 0.2; echo late"), limit).unwrap(),
            "late"
        );
        assert_eq!(
            output_of(sh("printf 'aoe\\377 1.2.3'"), limit).unwrap(),
            "aoe\u{fffd} 1.2.3"
        );
        let long = output_of(
            sh("i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done"),
            limit,
        )
        .unwrap();
        assert_eq!(long.lines().count(), 20_000);
        assert_eq!(long.lines().last(), Some("line19999"));
        assert!(matches!(
            output_of(sh("echo partial; exit 3"), limit),
            Err(ProbeError::Exited(s)) if s.code() == Some(3)
        ));
        assert!(matches!(
            output_of(sh("exec sleep 30"), Duration::from_millis(300)),
            Err(ProbeError::NoAnswer(_))
        ));
        // A child left holding stdout: where the probe is pid 1 of its own namespace, the
        // child dies with it and the answer is complete; elsewhere it is no answer.
        let held = output_of(sh("echo hi; sleep 2 & exit 0"), Duration::from_millis(300));
        if crate::steps::isolation() == crate::steps::Isolation::None {
            assert!(matches!(held, Err(ProbeError::NoAnswer(_))), "{held:?}");
        } else {
            assert_eq!(held.unwrap(), "hi");
        }
        assert!(matches!(
            output_of(Command::new("/nonexistent/probe"), limit),
            Err(ProbeError::NotFound)
        ));
    }

    /// A probe that does not answer in time is killed with what it started: nothing it
    /// started is left running; where it runs as pid 1 of its own namespace, not even what
    /// left its session (`setsid`).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_probe_that_does_not_answer_leaves_nothing_running() {
        let isolated = crate::steps::isolation() != crate::steps::Isolation::None;
        // Each with a duration no other process uses, found by its command line.
        let mut marks = vec!["6017", "6018"];
        let mut script = "sleep 6017 >/dev/null 2>&1 & ".to_owned();
        if isolated {
            marks.push("6019");
            script.push_str("setsid sleep 6019 >/dev/null 2>&1 & ");
        }
        script.push_str("sleep 6018");
        let probe = sh(&script);
        let started = std::time::Instant::now();
        assert!(matches!(
            output_of(probe, Duration::from_millis(500)),
            Err(ProbeError::NoAnswer(_))
        ));
        assert!(started.elapsed() < Duration::from_secs(5));
        let left = || {
            marks
                .iter()
                .flat_map(|m| crate::steps::tests::sleeping(m))
                .collect::<Vec<_>>()
        };
        let gone = (0..300).any(|_| {
            let none = left().is_empty();
            if !none {
                std::thread::sleep(Duration::from_millis(10));
            }
            none
        });
        let survivors = left();
        for pid in &survivors {
            // SAFETY: kill(2) on a sleep this test started, so the test leaves nothing.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        assert!(gone, "the probe's children {survivors:?} outlived it");
    }

    /// The directories an answer depends on are remembered only when each came through
    /// whole: one that was not UTF-8 (decoded lossily) makes the answer one not to keep.
    #[cfg(unix)]
    #[test]
    fn a_path_that_is_not_utf8_is_not_remembered() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let python = |name: &str, body: &str| {
            let path = tmp.path().join(name);
            fs_err::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            path.display().to_string()
        };
        let limit = Duration::from_secs(10);
        let good = python("good", r"printf '1.0\n-\nW 5 /a b\n'");
        let (versions, watched) = ask_python(&good, limit).unwrap();
        assert_eq!(versions, [Some("1.0".to_owned()), None]);
        assert_eq!(watched, Some(vec![("/a b".into(), 5)]));
        let bad = python("bad", r"printf '1.0\n-\nW 5 /a\377b\n'");
        let (versions, watched) = ask_python(&bad, limit).unwrap();
        assert_eq!(versions, [Some("1.0".to_owned()), None]);
        assert_eq!(watched, None);
    }

    #[test]
    fn aoe_versions_pick_the_profile() {
        let v = |s: &str| parse_aoe_version(s).map(|v| aoe_api_for(&v));
        assert_eq!(v("aoe 1.14.0"), Some(12));
        assert_eq!(v("aoe v1.18.3"), Some(12));
        assert_eq!(v("aoe 1.19.0"), Some(15));
        assert_eq!(v("aoe 2.0.0-beta.1 (abc)"), Some(15));
        assert_eq!(v("aoe"), None);
        assert_eq!(v(""), None);
    }

    #[test]
    fn only_what_flags_and_the_home_leave_open_is_detected() {
        let none = HostProfile::default();
        let api = HostProfile {
            aoe_api: Some(12),
            version: None,
        };
        assert!(wanted(Dialect::Aoe, &none));
        assert!(!wanted(Dialect::Aoe, &api));
        assert!(wanted(Dialect::Protoagent, &api));
        assert!(!wanted(Dialect::Aworld, &none));
    }
}
