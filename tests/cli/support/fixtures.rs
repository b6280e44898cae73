//! Fixtures several test files share: plugins, repositories with history, installs
//! into a home and reading its lock, wheels, and strace for the kill-point tests. Test
//! files import these from here, never from one another.

use std::path::{Path, PathBuf};

use super::Plugins;
use super::git::{Repo, git};

/// A static aoe plugin (no worker) whose version is `version`.
pub(crate) fn static_aoe(version: &str) -> String {
    format!(
        "id = \"dev.example.pinned\"\nname = \"Pinned\"\nversion = \"{version}\"\napi_version = 6\n\n[[commands]]\nid = \"hello\"\n"
    )
}

/// `plugins install <args> --home <home> --yes`, run: (exit code, stdout, stderr).
pub(crate) fn install(home: &Path, args: &[&str]) -> (i32, String, String) {
    installing(home, args).run().parts()
}

/// `plugins install <args> --home <home> --yes`, to run and compare with
/// [`super::Ran::expect`] once the caller has added its redactions.
pub(crate) fn installing(home: &Path, args: &[&str]) -> Plugins {
    let mut cmd = Plugins::new();
    cmd.arg("install")
        .args(args)
        .arg("--home")
        .arg(home)
        .arg("--yes");
    cmd
}

pub(crate) fn lock(home: &Path) -> toml::Table {
    std::fs::read_to_string(home.join("plugins.lock"))
        .unwrap()
        .parse()
        .unwrap()
}

pub(crate) fn locked(home: &Path, id: &str, key: &str) -> String {
    let lock = lock(home);
    lock["plugins"][id]
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// main: c1 (tag v1.0.0, lightweight) → c2 (tag v2.0.0, annotated; branch dev) → c3.
pub(crate) fn history(dir: &Path) -> (Repo, [String; 3]) {
    let repo = Repo::init(dir);
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    repo.tag("v1.0.0");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    let c2 = repo.commit("v2");
    repo.annotated_tag("v2.0.0");
    git(dir, &["branch", "dev"]);
    repo.file("aoe-plugin.toml", &static_aoe("3.0.0"));
    let c3 = repo.commit("v3");
    (repo, [c1, c2, c3])
}

/// An aoe plugin whose build step runs `build.sh` and must produce the worker.
pub(crate) fn built_aoe(repo: &Repo, version: &str, build: &str) -> String {
    repo.file(
        "aoe-plugin.toml",
        &format!(
            "id = \"dev.example.built\"\nname = \"Built\"\nversion = \"{version}\"\napi_version = 6\ncapabilities = [\"runtime.worker\"]\n\n\
             [runtime]\nkind = \"command\"\ncommand = [\".aoe-build/bin/worker\"]\n\n[[runtime.build]]\ncommand = [\"./build.sh\"]\n"
        ),
    );
    repo.executable("build.sh", build);
    repo.commit(version)
}

pub(crate) const GOOD_BUILD: &str = "#!/bin/sh\nset -e\nmkdir -p .aoe-build/bin\nprintf '#!/bin/sh\\necho %s\\n' \"$AOE_PLUGIN_ID\" > .aoe-build/bin/worker\nchmod +x .aoe-build/bin/worker\necho built for $AOE_PLUGIN_ID\n";

/// A pure-Python wheel for `name` 1.0.0 (`VALUE = 42`), written by hand into `dir`.
pub(crate) fn wheel(dir: &Path, name: &str) {
    wheel_with(Path::new("python3"), dir, name, "1.0.0", "VALUE = 42\n");
}

/// A pure-Python wheel `<name>-<version>` whose `__init__.py` is `init`, written into `dir`
/// by `python` (no network, no build backend).
pub(crate) fn wheel_with(python: &Path, dir: &Path, name: &str, version: &str, init: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let script = r#"import os, zipfile
name, version, init = os.environ["W_NAME"], os.environ["W_VERSION"], os.environ["W_INIT"]
info = f"{name}-{version}.dist-info"
with zipfile.ZipFile(f"{name}-{version}-py3-none-any.whl", "w") as z:
    z.writestr(f"{name}/__init__.py", init)
    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(f"{info}/RECORD", "")
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .env("W_NAME", name)
        .env("W_VERSION", version)
        .env("W_INIT", init)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The strace binary the tests that need it run under; `None` (with a line saying the test
/// was skipped) where it is not installed, and a failure under CI, which installs it.
pub(crate) fn strace() -> Option<PathBuf> {
    let found = ["/usr/bin/strace", "/bin/strace"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        super::skip(
            "strace is not installed (apt-get install strace)",
            "the strace tests (.ci/run installs it)",
        );
    }
    found
}

/// A home with two installed plugins, for completion tests.
pub(crate) fn home_with_two_plugins(tmp: &Path) -> std::path::PathBuf {
    let home = tmp.join("home");
    for id in ["dev.example.alpha", "dev.example.beta"] {
        let dir = tmp.join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("aoe-plugin.toml"),
            format!(
                "id = \"{id}\"\nname = \"P\"\nversion = \"1.0.0\"\napi_version = 6\n\n[[commands]]\nid = \"hello\"\n"
            ),
        )
        .unwrap();
        let (code, _, stderr) = Plugins::new()
            .arg("install")
            .arg(&dir)
            .arg("--yes")
            .arg("--home")
            .arg(&home)
            .run()
            .parts();
        assert_eq!(code, 0, "{stderr}");
    }
    home
}

/// A GitHub API on loopback whose `/repos/acme/tool/releases/latest` is `latest` (a JSON
/// body), or 404 (no release) when `None`; every other path is 404. Returns its base URL.
pub(crate) fn release_api(latest: Option<&'static str>) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let reply = match latest {
                Some(body) if first.starts_with("GET /repos/acme/tool/releases/latest ") => {
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                }
                _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_owned(),
            };
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    base
}

/// One plain plugin per dialect: the dialect and the plugin's id ([`commit_version`]).
pub(crate) const DIALECT_PLUGINS: [(&str, &str); 3] = [
    ("aoe", "dev.example.pinned"),
    ("aworld", "helper"),
    ("protoagent", "notebook"),
];

/// Commit version `v` of the dialect's plugin of [`DIALECT_PLUGINS`] to `repo`.
pub(crate) fn commit_version(repo: &Repo, dialect: &str, v: &str) -> String {
    match dialect {
        "aoe" => {
            repo.file("aoe-plugin.toml", &static_aoe(v));
        }
        "aworld" => {
            repo.file(
                ".aworld-plugin/plugin.json",
                &format!(r#"{{"id": "helper", "version": "{v}"}}"#),
            );
        }
        _ => {
            repo.file(
                "protoagent.plugin.yaml",
                &format!("id: notebook\nname: Notes\nversion: {v}\n"),
            );
            repo.file(
                "__init__.py",
                &format!("def register(r):\n    pass  # {v}\n"),
            );
        }
    }
    repo.commit(v)
}

/// A FIFO at `path` (a file that would hang a careless open).
pub(crate) fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().expect("a UTF-8 path")).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o600) },
        0,
        "{}",
        path.display()
    );
}

/// Run `python -c script args…` in `cwd`; its stdout, or fail the test with its stderr.
pub(crate) fn python_script(
    python: &Path,
    script: &str,
    args: &[&std::ffi::OsStr],
    cwd: &Path,
) -> String {
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(script)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
