//! protoAgent `--deps` and `kill -9`: the plugin and its `plugin-deps/<id>` change
//! together, so a kill at any rename leaves the old pair or the new pair, never a mix.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::git::{Repo, git};
use crate::support::*;

/// A pure-Python wheel `<name>-<version>` written by hand into `dir`.
fn wheel(dir: &Path, name: &str, version: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "import zipfile\n\
         with zipfile.ZipFile('{name}-{version}-py3-none-any.whl', 'w') as z:\n\
         \x20   z.writestr('{name}/__init__.py', 'VERSION = \"{version}\"\\n')\n\
         \x20   z.writestr('{name}-{version}.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n')\n\
         \x20   z.writestr('{name}-{version}.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')\n\
         \x20   z.writestr('{name}-{version}.dist-info/RECORD', '')\n"
    );
    let out = Command::new("python3")
        .args(["-c", &script])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The lock's rows (id, commit, deps) and the files under `plugins/` and `plugin-deps/`.
fn state(home: &Path) -> String {
    let mut rows = Vec::new();
    if let Ok(text) = std::fs::read_to_string(home.join("plugins.lock")) {
        let lock: serde_json::Value = serde_json::from_str(&text).expect("the lock parses");
        for p in lock["plugins"].as_array().unwrap() {
            rows.push(format!(
                "lock {} {} {}",
                p["id"], p["resolved_sha"], p["deps"]
            ));
        }
    }
    for sub in ["plugins", "plugin-deps"] {
        let root = home.join(sub);
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let text = std::fs::read(&path).unwrap_or_default();
                    let rel = path.strip_prefix(home).unwrap().display().to_string();
                    rows.push(format!("file {rel} {}", text.len()));
                }
            }
        }
    }
    rows.sort();
    rows.join("\n")
}

fn leftovers(home: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for sub in ["txn", "staging", "backup", "backup-deps"] {
        if let Ok(rd) = std::fs::read_dir(home.join(".plugins").join(sub)) {
            out.extend(rd.map(|e| format!(".plugins/{sub}/{:?}", e.unwrap().file_name())));
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(from)
            .arg(to)
            .status()
            .unwrap()
            .success()
    );
}

fn with_index(cmd: &mut Command, index: &Path) {
    cmd.env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", index)
        .env_remove("PLUGINS_HOME")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null());
}

#[test]
#[allow(clippy::print_stderr)] // the count of kill points
fn kill_nine_during_a_deps_update_keeps_the_plugin_and_its_deps_together() {
    let Some(strace) = ["/usr/bin/strace", "/bin/strace"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
    else {
        assert!(std::env::var_os("CI").is_none(), "CI must have strace");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let index = t.join("wheels");
    wheel(&index, "demolib", "1.0.0");
    wheel(&index, "helperlib", "2.0.0");
    let repo = Repo::init(&t.join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip: [demolib]\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("v1");
    git(&repo.dir, &["tag", "v1"]);
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 2.0.0\nrequires_pip: [helperlib]\n",
    );
    repo.commit("v2");
    let install = |home: &Path, reference: &str| -> Command {
        let mut cmd = plugins();
        cmd.args([
            "install",
            &repo.url(),
            "--ref",
            reference,
            "--yes",
            "--deps",
            "--home",
        ])
        .arg(home);
        with_index(&mut cmd, &index);
        cmd
    };
    let template = t.join("v1-home");
    let (code, o, e) = run(&mut install(&template, "v1"));
    assert_eq!(code, 0, "{o}{e}");
    let reference = t.join("v2-home");
    copy_dir(&template, &reference);
    let (code, o, e) = run(&mut install(&reference, "main"));
    assert_eq!(code, 0, "{o}{e}");
    let (old, new) = (state(&template), state(&reference));
    assert!(
        old.contains("plugin-deps/deppy/demolib/__init__.py"),
        "{old}"
    );
    assert!(
        new.contains("plugin-deps/deppy/helperlib/__init__.py") && !new.contains("demolib"),
        "{new}"
    );

    let home = t.join("run");
    let mut points = 0;
    let mut failures = Vec::new();
    // strace counts `when=N` per syscall, so each is injected on its own.
    let mut done = std::collections::BTreeSet::new();
    for (syscall, n) in ["rename", "renameat"]
        .into_iter()
        .flat_map(|s| (1..=40).map(move |n| (s, n)))
    {
        if done.contains(syscall) || failures.len() > 3 {
            continue;
        }
        copy_dir(&template, &home);
        let cmd = install(&home, "main");
        let mut traced = Command::new(&strace);
        traced
            .args(["-o", "/dev/null", "-e"])
            .arg(format!("trace={syscall}"))
            .arg("-e")
            .arg(format!("inject={syscall}:signal=KILL:when={n}"))
            .arg(cmd.get_program())
            .args(cmd.get_args());
        with_index(&mut traced, &index);
        traced.env("COLUMNS", "100");
        let status = traced.output().unwrap().status;
        let killed = {
            use std::os::unix::process::ExitStatusExt;
            status.signal() == Some(9) || status.code() == Some(128 + 9)
        };
        if !killed {
            done.insert(syscall); // fewer than n such calls
            continue;
        }
        points += 1;
        // Any command under the home lock recovers first.
        let (code, o, e) = run(plugins().args(["sync", "--home"]).arg(&home));
        let now = state(&home);
        if code != 0 {
            failures.push(format!("{syscall} #{n}: recovering sync: {o}{e}"));
        } else if now != old && now != new {
            failures.push(format!("{syscall} #{n}: neither old nor new:\n{now}"));
        } else if !leftovers(&home).is_empty() {
            failures.push(format!("{syscall} #{n}: leftovers {:?}", leftovers(&home)));
        } else {
            let (code, o, e) = run(plugins().args(["verify", "--home"]).arg(&home));
            if code != 0 {
                failures.push(format!("{syscall} #{n}: verify: {o}{e}"));
            }
        }
    }
    eprintln!("deps crash consistency: {points} kill points (renames)");
    assert!(points >= 5, "kills were injected: {points}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
