//! Resource bounds: build steps leave nothing running, build output is capped,
//! stalled servers give up within the no-progress limit, memory does not grow
//! with file sizes.

use std::io::{BufRead, Write};

use snapbox::str;
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::git::{Repo, git};
use crate::support::measure::{peak_rss_kib, random_file};
use crate::support::*;

fn running(pattern: &str) -> bool {
    std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_build_step_leaves_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, (build, stderr)) in [
        (
            "#!/bin/sh\nsleep 7771 &\nsleep 7772\n",
            str![[r#"
    Fetching file://[TMP]/repo0
     Fetched 8f436c56c81b
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo0 @ 8f436c56c81b
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) timed out after 1 s

"#]],
        ),
        (
            "#!/bin/sh\nsleep 7773 &\nexit 1\n",
            str![[r#"
    Fetching file://[TMP]/repo1
     Fetched 4d5204e86011
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo1 @ 4d5204e86011
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) failed with exit status: 1

"#]],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let repo = Repo::init(&tmp.path().join(format!("repo{i}")));
        built_aoe(&repo, "1.0.0", build);
        let home = tmp.path().join(format!("home{i}"));
        let start = Instant::now();
        installing(&home, &[&repo.url(), "--build-timeout", "1"])
            .tmp(tmp.path())
            .run()
            .expect(2, "", stderr);
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(200));
        for pattern in ["sleep 7771", "sleep 7772", "sleep 7773"] {
            assert!(!running(pattern), "{pattern} survived the build");
        }
        assert!(!home.join("plugins/dev.example.built").exists());
    }
}

/// Issue #40: `kill -9` of `plugins` while a build step runs leaves nothing the step
/// started running: not the step, not a child in its process group, not one that left it
/// with `setsid`. (Before, all three sleeps survived.) Nor do `SIGTERM` and Ctrl-C's
/// `SIGINT`, which `plugins` handles.
#[test]
fn a_kill_9_of_plugins_mid_step_leaves_nothing_running() {
    for signal in [libc::SIGKILL, libc::SIGTERM, libc::SIGINT] {
        killed_mid_step(signal);
    }
}

fn killed_mid_step(signal: i32) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(
        &repo,
        "1.0.0",
        "#!/bin/sh\nsetsid sleep 7781 &\nsleep 7782 &\nsleep 7783\n",
    );
    let home = tmp.path().join("home");
    let mut plugins = Plugins::new();
    plugins
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home);
    let markers = ["sleep 7781", "sleep 7782", "sleep 7783"];
    assert_eq!(
        survivors(&mut plugins, markers, signal),
        Vec::<&str>::new(),
        "survived signal {signal} to plugins"
    );
}

/// Start `plugins`, wait until every process `markers` names runs, send `signal` to
/// `plugins`, and say which of them still run 5 s after it ended.
fn survivors(plugins: &mut Plugins, markers: [&'static str; 3], signal: i32) -> Vec<&'static str> {
    let mut child = plugins
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let started = Instant::now();
    while !markers.iter().all(|m| running(m)) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{markers:?} did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill(2) on the plugins this test started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
    child.wait().unwrap();
    let killed = Instant::now();
    let left = || {
        markers
            .into_iter()
            .filter(|p| running(p))
            .collect::<Vec<_>>()
    };
    while !left().is_empty() && killed.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    left()
}

/// Issue #40: the same for pip. `install --deps` runs the host's pip as a step; a pip that
/// hangs (here a stand-in interpreter whose `-m pip` starts a `setsid` child, a background
/// child and a foreground sleep) is gone with everything it started once `plugins` is killed
/// with `-9`.
#[test]
fn a_kill_9_of_plugins_mid_pip_leaves_nothing_running() {
    let tmp = tempfile::tempdir().unwrap();
    let python = tmp.path().join("python");
    std::fs::write(
        &python,
        "#!/bin/sh\ncase \" $* \" in *\" pip \"*) setsid sleep 7791 & sleep 7792 & sleep 7793 ;; esac\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip: [demolib]\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("v1");
    let home = tmp.path().join("instance");
    crate::support::protoagent::instance(&home, None);
    let mut plugins = Plugins::new();
    plugins
        .args(["install", &repo.url(), "--yes", "--deps"])
        .args(["--host-version", "0.218.1", "--python"])
        .arg(&python)
        .arg("--home")
        .arg(&home);
    let markers = ["sleep 7791", "sleep 7792", "sleep 7793"];
    assert_eq!(
        survivors(&mut plugins, markers, libc::SIGKILL),
        Vec::<&str>::new(),
        "survived a kill -9 of plugins mid-pip"
    );
}

#[test]
fn build_output_is_capped_in_the_log_and_on_screen() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    built_aoe(
        &repo,
        "1.0.0",
        "#!/bin/sh\nhead -c 20000000 /dev/zero | tr '\\0' x\necho\necho the last line\nexit 3\n",
    );
    let home = tmp.path().join("home");
    let ran = installing(&home, &[&repo.url()]).tmp(tmp.path()).run();
    ran.expect(2, "", str![[r#"
    Fetching file://[TMP]/repo
     Fetched 81f0b3feb9cf
aoe plugin `dev.example.built` 1.0.0 from file://[TMP]/repo @ 81f0b3feb9cf
  capabilities: runtime.worker
  build steps:  ./build.sh
    Building step 1/1: ./build.sh
plugins::install::build

  × build step 1 (./build.sh) failed with exit status: 3
  help: last output:
        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        [... line cut]
        the last line

"#]]);
    let stderr = &ran.stderr;
    assert!(stderr.len() < 16 * 1024, "{} bytes on stderr", stderr.len());
    let log = home.join("logs/dev.example.built-build.log");
    let len = std::fs::metadata(&log).unwrap().len();
    assert!(len <= 1024 * 1024 + 80 * 1024, "log is {len} bytes");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("more bytes not logged"), "the cut is said");
    // A second install starts a fresh log.
    installing(&home, &[&repo.url()]).run().code(2);
    assert_eq!(std::fs::metadata(&log).unwrap().len(), len);
}

/// A server that accepts connections and never answers.
fn silent_server() -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let mut held = Vec::new();
        listener.set_nonblocking(true).unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(40) {
            if let Ok((s, _)) = listener.accept() {
                held.push(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    (format!("http://{addr}"), handle)
}

#[test]
fn a_silent_git_server_gives_up_within_the_limit() {
    let (base, _server) = silent_server();
    let tmp = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let ran = Plugins::new()
        .args(["install", &format!("{base}/acme/x.git"), "--yes"])
        .home(&tmp.path().join("home"))
        .env("PLUGINS_NET_TIMEOUT", "2")
        .env("COLUMNS", "400")
        .redact("[SERVER]", &base)
        .run();
    let took = start.elapsed();
    ran.expect(2, "", str![[r#"
    Fetching [SERVER]/acme/x.git
warning[plugins::git::cleartext]: [SERVER]/acme/x.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::fetch

  × [SERVER]/acme/x.git stalled while connecting and listing refs: no progress for 2 s (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)

"#]]);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A release server whose asset download sends its headers and a few bytes,
/// then stalls.
fn stalling_release_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let me = base.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(8) {
            let mut stream = stream.unwrap();
            let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            reader.read_line(&mut first).unwrap();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
                    break;
                }
            }
            let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
            if first.contains("/releases/") {
                let body = serde_json::json!({"tag_name": "v1.2.0", "assets": [{
                    "name": format!("tool-{os}-{arch}"), "size": 1000,
                    "browser_download_url": format!("{me}/download/tool"),
                }]})
                .to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            } else {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n0123456789"
                );
                let _ = stream.flush();
                held.push(stream);
            }
        }
    });
    base
}

#[test]
fn a_stalled_download_gives_up_within_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    let manifest = static_aoe("1.2.0").replace("dev.example.pinned", "dev.example.tool")
        + "\n[runtime]\nkind = \"release-binary\"\nasset = \"tool-${os}-${arch}\"\n";
    repo.file("aoe-plugin.toml", &manifest);
    repo.commit("tool");
    repo.tag("v1.2.0");
    repo.clone_bare(&tmp.path().join("mirror/acme/tool.git"));
    let api = stalling_release_server();
    let start = Instant::now();
    let ran = Plugins::new()
        .args(["install", "gh:acme/tool@v1.2.0", "--yes"])
        .home(&tmp.path().join("home"))
        .env(
            "PLUGINS_GH_BASE",
            format!("file://{}", tmp.path().join("mirror").display()),
        )
        .env("PLUGINS_GITHUB_API", &api)
        .env("PLUGINS_NET_TIMEOUT", "2")
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .redact("[API]", &api)
        .run();
    let took = start.elapsed();
    // The stall is named as one (it said "was cut short: error decoding response body").
    ran.expect(2, "", str![[r#"
    Fetching file://[TMP]/mirror/acme/tool.git
     Fetched eda18d1dc965
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ eda18d1dc965
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::release

  × the download of tool-linux-x86_64 stalled: no progress for 2 s after 10 of 1000 bytes (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)

"#]]);
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(!tmp.path().join("home/plugins/dev.example.tool").exists());
}

/// Peak memory does not follow the size of a committed file over a packed fetch: a 96 MiB
/// incompressible file (under the 100 MiB cap) costs about its own size once (libgit2
/// reads a packed file whole; the pack's mapped windows are capped); a loose object, a
/// local directory and `verify` stream it; one over the cap is refused while it arrives.
#[test]
fn memory_stays_bounded_with_a_large_incompressible_file() {
    if !Path::new("/usr/bin/time").exists() {
        assert!(std::env::var_os("CI").is_none(), "CI must have GNU time");
        return;
    }
    const MIB: u64 = 96;
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    random_file(&repo.dir.join("data.bin"), MIB);
    repo.commit("big");
    let served = tmp.path().join("served");
    repo.clone_bare(&served.join("big.git"));
    let daemon = crate::support::net::Daemon::serve(&served);
    let url = format!("git://127.0.0.1:{}/big.git", daemon.port);
    let peak = |args: &[&str], home: &Path, cap: Option<&str>| {
        let mut cmd = Plugins::new();
        cmd.args(args).home(home);
        if let Some(cap) = cap {
            cmd.env("PLUGINS_MAX_FILE_MIB", cap);
        }
        peak_rss_kib(&mut cmd)
    };

    // Under the cap: the file once, and at most 16 MiB of mapped pack (without that cap
    // the whole pack was mapped too: 2 x 96 MiB).
    let home = tmp.path().join("home-git");
    let (code, kib, out) = peak(&["install", &url, "--yes"], &home, None);
    assert_eq!(code, 0, "{out}");
    assert!(
        kib < (MIB + 64) * 1024,
        "git:// install: peak RSS {kib} KiB"
    );
    let (code, kib, out) = peak(&["verify"], &home, None);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 48 * 1024, "verify: peak RSS {kib} KiB");

    // A loose object (the work repository read in place) is inflated in a stream.
    let loose = tmp.path().join("home-loose");
    let (code, kib, out) = peak(&["install", &repo.url(), "--yes"], &loose, None);
    assert_eq!(code, 0, "{out}");
    assert!(
        kib < 48 * 1024,
        "file:// install of a loose object: peak RSS {kib} KiB"
    );

    // Over the cap: stopped while it arrives, so the fetch never holds it.
    let refused = tmp.path().join("home-refused");
    let (code, kib, out) = peak(&["install", &url, "--yes"], &refused, Some("16"));
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("plugins::install::file_too_large"), "{out}");
    assert!(
        kib < 48 * 1024,
        "refused git:// install: peak RSS {kib} KiB"
    );
    assert!(!refused.join("plugins").exists());

    // A local directory is copied and hashed in streams.
    let dir = tmp.path().join("dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    std::fs::rename(repo.dir.join("data.bin"), dir.join("data.bin")).unwrap();
    let home = tmp.path().join("home-dir");
    let (code, kib, out) = peak(&["install", dir.to_str().unwrap(), "--yes"], &home, None);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 48 * 1024, "directory install: peak RSS {kib} KiB");
    let (code, kib, out) = peak(&["verify"], &home, None);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 48 * 1024, "verify: peak RSS {kib} KiB");
}

/// A committed file over the cap (1 MiB here, `PLUGINS_MAX_FILE_MIB`; 100 MiB by
/// default) is refused by name before consent is asked, whichever way the source is
/// fetched, and nothing is written to the home; `update` keeps what is installed.
#[test]
fn a_file_over_the_cap_is_refused_before_consent() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // An AWorld plugin with Python asks for consent (its code runs inside the host).
    let repo = Repo::init(&t.join("work"));
    repo.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "helper", "version": "1.0.0"}"#,
    )
    .file("hooks/done.py", "def run():\n    pass\n");
    repo.commit("helper");
    let served = t.join("served");
    repo.clone_bare(&served.join("helper.git"));
    let daemon = crate::support::net::Daemon::serve(&served);
    let git_url = format!("git://127.0.0.1:{}/helper.git", daemon.port);
    let home = t.join("home");
    installing(&home, &[&git_url])
        .tmp(t)
        .redact("[PORT]", daemon.port.to_string())
        .run()
        .expect(0, str![[r#"
   Installed helper 1.0.0 @ 935a24ee42 in [TMP]/home/plugins/helper

"#]], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 935a24ee4228
aworld plugin `helper` 1.0.0 from git://127.0.0.1:[PORT]/helper.git @ 935a24ee4228
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]]);
    let before = std::fs::read(home.join("plugins.lock")).unwrap();

    // 2 MiB arrives whole and is refused by name; 3 MiB is stopped as it arrives.
    std::fs::create_dir_all(repo.dir.join("assets")).unwrap();
    random_file(&repo.dir.join("assets/data.bin"), 2);
    let two = repo.commit("two MiB of data");
    git(
        &repo.dir,
        &[
            "push",
            "-q",
            served.join("helper.git").to_str().unwrap(),
            "main",
        ],
    );
    let screen = |args: &[&str], home: &Path, env: &[(&str, &str)]| {
        let mut cmd = Plugins::new();
        cmd.args(args)
            .home(home)
            .env("PLUGINS_MAX_FILE_MIB", "1")
            .stdin(std::process::Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.tmp(t)
            .redact("[PORT]", daemon.port.to_string())
            .redact("[COMMIT]", &two)
            .redact("[FETCHED]", &two[..12])
            .redact("[SHORT]", &two[..10])
            .run()
    };

    // file:// (read in place), and git:// with the git command: named with its size.
    let fresh = t.join("fresh");
    screen(&["install", &repo.url()], &fresh, &[]).expect(
        2,
        str![],
        str![[r#"
    Fetching file://[TMP]/work
plugins::install::file_too_large

  × assets/data.bin in commit [COMMIT] is 2097152 bytes (2.0 MiB),
  │ over the 1 MiB a committed file may be
  help: ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses
        files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>,
        at the cost of about that much memory; nothing was installed or changed

"#]],
    );
    assert!(!fresh.exists() || !fresh.join("plugins").exists());
    screen(
        &["install", &git_url],
        &fresh,
        &[("PLUGINS_GIT_FETCH_WITH_CLI", "1")],
    ).expect(2, str![], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::install::file_too_large

  × assets/data.bin in commit [COMMIT] is 2097152 bytes (2.0 MiB),
  │ over the 1 MiB a committed file may be
  help: ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses
        files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>,
        at the cost of about that much memory; nothing was installed or changed

"#]]);
    assert!(!fresh.join("plugins").exists());

    // update over git:// with libgit2: refused, the installed version kept.
    screen(&["update", "--all"], &home, &[]).expect(1, str![], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::install::file_too_large

  × assets/data.bin in commit [COMMIT] is 2097152 bytes (2.0 MiB),
  │ over the 1 MiB a committed file may be
  help: ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses
        files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>,
        at the cost of about that much memory; nothing was installed or changed

"#]]);
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), before);
    assert!(!home.join("plugins/helper/assets").exists());

    // sync of a lock that pins the commit (installed under a higher cap): refused too.
    let allowed = t.join("allowed");
    screen(
        &["install", &git_url, "--yes"],
        &allowed,
        &[("PLUGINS_MAX_FILE_MIB", "4")],
    )
    .expect(0, str![[r#"
   Installed helper 1.0.0 @ [SHORT] in [TMP]/allowed/plugins/helper

"#]], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched [FETCHED]
aworld plugin `helper` 1.0.0 from git://127.0.0.1:[PORT]/helper.git @ [FETCHED]
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]]);
    let synced = t.join("synced");
    std::fs::create_dir_all(&synced).unwrap();
    std::fs::copy(allowed.join("plugins.lock"), synced.join("plugins.lock")).unwrap();
    screen(&["sync", "--yes"], &synced, &[]).expect(2, str![], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::install::file_too_large

  × assets/data.bin in commit [COMMIT] is 2097152 bytes (2.0 MiB),
  │ over the 1 MiB a committed file may be
  help: ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses
        files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>,
        at the cost of about that much memory; nothing was installed or changed

"#]]);
    assert!(!synced.join("plugins/helper").exists());

    // A larger file is stopped before it is whole.
    random_file(&repo.dir.join("assets/data.bin"), 3);
    repo.commit("three MiB of data");
    git(
        &repo.dir,
        &[
            "push",
            "-q",
            served.join("helper.git").to_str().unwrap(),
            "main",
        ],
    );
    screen(&["install", &git_url], &fresh, &[]).expect(2, str![], str![[r#"
    Fetching git://127.0.0.1:[PORT]/helper.git
warning[plugins::git::cleartext]: git://127.0.0.1:[PORT]/helper.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::install::file_too_large

  × git://127.0.0.1:[PORT]/helper.git sent a file over the 1 MiB a committed file may be: the
  │ transfer was stopped
  help: ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses
        files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>,
        at the cost of about that much memory; nothing was installed or changed

"#]]);
    assert!(!fresh.join("plugins").exists());
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), before);
}

#[test]
fn verify_covers_symlinks_where_a_host_allows_them() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: notebook\nname: Notes\nversion: 0.2.0\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n")
    .file("data/a.txt", "a");
    std::os::unix::fs::symlink("data/a.txt", repo.dir.join("current")).unwrap();
    repo.commit("notes");
    let home = tmp.path().join("home");
    installing(&home, &[&repo.url()])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
   Installed notebook 0.2.0 @ 27468743bc in [TMP]/home/plugins/notebook

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 27468743bc7d
protoagent plugin `notebook` 0.2.0 from file://[TMP]/repo @ 27468743bc7d
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
        );
    Plugins::new()
        .args(["verify"])
        .home(&home)
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
          ok notebook
1 verified, 0 changed

"#]],
            str![],
        );
    // Re-pointing the link is a change verify sees.
    let link = home.join("plugins/notebook/current");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    Plugins::new()
        .args(["verify"])
        .home(&home)
        .tmp(tmp.path())
        .run()
        .expect(1, str![[r#"
    tampered notebook: the files changed since install (tree sha256:049535515d6fc300d21e0401604dde32db5591b5ae70a217f04ff931ca8ed34b, locked sha256:857dcf28aac1da5f1f16c1ce49ada2ddbf63b996d93948de85b64ba170387dd6)
     changed current
1 verified, 1 changed

"#]], str![]);
}

/// `n` aoe plugin roots under `dir`, each with a long manifest and two warnings.
fn many_roots(dir: &Path, n: usize) {
    let description = "word ".repeat(400);
    for i in 0..n {
        let root = dir.join(format!("p{i:05}"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("aoe-plugin.toml"),
            format!(
                "id = \"dev.example.p{i}\"\nname = \"P\"\nversion = \"1.0\"\napi_version = 6\n\
                 description = \"{description}\"\n\n[[commands]]\nid = \"hello\"\ncolour = 1\n"
            ),
        )
        .unwrap();
    }
}

#[test]
fn validate_r_memory_is_flat_in_the_number_of_roots() {
    if !Path::new("/usr/bin/time").exists() {
        assert!(std::env::var_os("CI").is_none(), "CI must have GNU time");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (small, large) = (tmp.path().join("small"), tmp.path().join("large"));
    many_roots(&small, 100);
    many_roots(&large, 1000);
    for format in ["human", "json", "github", "sarif"] {
        let peak = |dir: &Path| {
            let (code, kib, out) = peak_rss_kib(
                Plugins::new()
                    .args(["validate", "-r", "--format", format, "--path"])
                    .arg(dir)
                    .env_remove("GITHUB_STEP_SUMMARY"),
            );
            let tail: Vec<&str> = out.lines().rev().take(5).collect();
            assert_eq!(code, 0, "{format}: {tail:?}");
            kib
        };
        let (small_kib, large_kib) = (peak(&small), peak(&large));
        // Holding every report grew 6 KiB a root and more here (5.7 to 16 MiB
        // for 900 more roots); streaming keeps a path per root, and what waits
        // for the end of the document spills to a file past 1 MiB.
        assert!(
            large_kib < small_kib + 3 * 1024,
            "{format}: peak RSS {small_kib} KiB at 100 roots, {large_kib} KiB at 1,000"
        );
    }
}
