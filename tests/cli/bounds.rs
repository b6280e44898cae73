//! Resource bounds: build steps leave nothing running, build output is capped,
//! stalled servers give up within the no-progress limit, memory does not grow
//! with file sizes.

use std::io::{BufRead, Write};
use std::net::TcpListener;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::git::Repo;
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
    for (i, (build, why)) in [
        ("#!/bin/sh\nsleep 7771 &\nsleep 7772\n", "timed out"),
        ("#!/bin/sh\nsleep 7773 &\nexit 1\n", "failed"),
    ]
    .iter()
    .enumerate()
    {
        let repo = Repo::init(&tmp.path().join(format!("repo{i}")));
        built_aoe(&repo, "1.0.0", build);
        let home = tmp.path().join(format!("home{i}"));
        let start = Instant::now();
        let (code, stdout, stderr) = install(&home, &[&repo.url(), "--build-timeout", "1"]);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stderr.contains(why), "{stderr}");
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(200));
        for pattern in ["sleep 7771", "sleep 7772", "sleep 7773"] {
            assert!(!running(pattern), "{pattern} survived the build");
        }
        assert!(!home.join("plugins/dev.example.built").exists());
    }
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
    let (code, _, stderr) = install(&home, &[&repo.url()]);
    assert_eq!(code, 2);
    assert!(stderr.len() < 16 * 1024, "{} bytes on stderr", stderr.len());
    assert!(stderr.contains("the last line"), "{stderr}");
    assert!(stderr.contains("[... line cut]"), "{stderr}");
    let log = home.join("logs/dev.example.built-build.log");
    let len = std::fs::metadata(&log).unwrap().len();
    assert!(len <= 1024 * 1024 + 80 * 1024, "log is {len} bytes");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("more bytes not logged"), "the cut is said");
    // A second install starts a fresh log.
    let (code, _, _) = install(&home, &[&repo.url()]);
    assert_eq!(code, 2);
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
    let (code, _, stderr) = run(plugins()
        .args(["install", &format!("{base}/acme/x.git"), "--yes", "--home"])
        .arg(tmp.path().join("home"))
        .env("PLUGINS_NET_TIMEOUT", "2")
        .env("COLUMNS", "400"));
    let took = start.elapsed();
    assert_eq!(code, 2, "{stderr}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(
        stderr.contains("stalled while connecting and listing refs: no progress for 2 s (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)"),
        "{stderr}"
    );
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
    let (code, _, stderr) = run(plugins()
        .args(["install", "gh:acme/tool@v1.2.0", "--yes", "--home"])
        .arg(tmp.path().join("home"))
        .env(
            "PLUGINS_GH_BASE",
            format!("file://{}", tmp.path().join("mirror").display()),
        )
        .env("PLUGINS_GITHUB_API", &api)
        .env("PLUGINS_NET_TIMEOUT", "2")
        .env("COLUMNS", "400"));
    let took = start.elapsed();
    assert_eq!(code, 2, "{stderr}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    // The stall is named as one (it said "was cut short: error decoding response body").
    assert!(
        stderr.contains("stalled: no progress for 2 s after"),
        "{stderr}"
    );
    assert!(!tmp.path().join("home/plugins/dev.example.tool").exists());
}

/// Peak resident memory of a command, in KiB, from GNU time.
fn peak_rss_kib(cmd: &mut std::process::Command) -> (i32, u64, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let mut timed = std::process::Command::new("/usr/bin/time");
    timed
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(report.path())
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let (code, stdout, stderr) = run(&mut timed);
    let kib = std::fs::read_to_string(report.path())
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    (code, kib, format!("{stdout}{stderr}"))
}

fn big_file(path: &Path, mib: usize) {
    let mut f = std::fs::File::create(path).unwrap();
    let chunk = vec![b'x'; 1024 * 1024];
    for _ in 0..mib {
        f.write_all(&chunk).unwrap();
    }
}

#[test]
fn installing_a_200_mb_file_stays_under_64_mb() {
    if !Path::new("/usr/bin/time").exists() {
        assert!(std::env::var_os("CI").is_none(), "CI must have GNU time");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // A local directory, and a git repository (loose objects stream).
    let dir = tmp.path().join("dir");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("aoe-plugin.toml"), static_aoe("1.0.0")).unwrap();
    big_file(&dir.join("data.bin"), 200);
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    std::fs::copy(dir.join("data.bin"), repo.dir.join("data.bin")).unwrap();
    repo.commit("big");
    for (i, source) in [dir.display().to_string(), repo.url()].iter().enumerate() {
        let home = tmp.path().join(format!("home{i}"));
        let (code, kib, out) = peak_rss_kib(
            plugins()
                .args(["install", source, "--yes", "--home"])
                .arg(&home),
        );
        assert_eq!(code, 0, "{out}");
        assert!(kib < 64 * 1024, "{source}: peak RSS {kib} KiB");
        let (code, kib, out) = peak_rss_kib(plugins().args(["verify", "--home"]).arg(&home));
        assert_eq!(code, 0, "{out}");
        assert!(kib < 64 * 1024, "verify: peak RSS {kib} KiB");
    }
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
    let (code, o, e) = install(&home, &[&repo.url()]);
    assert_eq!(code, 0, "{o}{e}");
    let (code, o, e) = run(plugins().args(["verify", "--home"]).arg(&home));
    assert_eq!(code, 0, "{o}{e}");
    // Re-pointing the link is a change verify sees.
    let link = home.join("plugins/notebook/current");
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &link).unwrap();
    let (code, stdout, _) = run(plugins().args(["verify", "--home"]).arg(&home));
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("the files changed since install"),
        "{stdout}"
    );
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
                plugins()
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
