//! protoAgent `--deps` and `kill -9`: the plugin and its `plugin-deps/<id>` change
//! together, so a kill at any rename leaves the old pair or the new pair, never a mix.

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::home::{copy_dir, leftovers};
use crate::support::*;

/// A pure-Python wheel `<name>-<version>` (`VERSION = "<version>"`) written into `dir`.
fn wheel(dir: &Path, name: &str, version: &str) {
    wheel_with(
        Path::new("python3"),
        dir,
        name,
        version,
        &format!("VERSION = \"{version}\"\n"),
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

fn with_index(cmd: &mut Plugins, index: &Path) {
    cmd.env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", index)
        .env_remove("PLUGINS_HOME")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null());
}

#[test]
#[allow(clippy::print_stderr)] // the count of kill points
fn kill_nine_during_a_deps_update_keeps_the_plugin_and_its_deps_together() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (index, repo) = deppy_v1(t, "v1");
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 2.0.0\nrequires_pip: [helperlib]\n",
    );
    repo.commit("v2");
    let install = |home: &Path, reference: &str| -> Plugins {
        let mut cmd = Plugins::new();
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
    install(&template, "v1").run().success();
    let reference = t.join("v2-home");
    copy_dir(&template, &reference);
    install(&reference, "main").run().success();
    let (old, new) = (state(&template), state(&reference));
    assert!(
        old.contains("plugin-deps/deppy/demolib/__init__.py"),
        "{old}"
    );
    assert!(
        new.contains("plugin-deps/deppy/helperlib/__init__.py") && !new.contains("demolib"),
        "{new}"
    );

    let (points, failures) = kill_at_every_rename(
        &strace,
        &template,
        &t.join("run"),
        (&old, &new),
        &index,
        |home| install(home, "main"),
    );
    eprintln!("deps crash consistency: {points} kill points (renames)");
    assert!(points >= 5, "kills were injected: {points}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A wheel index with `demolib` 1.0.0 and `helperlib` 2.0.0, and the plugin `deppy`
/// 1.0.0 requiring `demolib`, committed and tagged `tag`.
fn deppy_v1(t: &Path, tag: &str) -> (PathBuf, Repo) {
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
    git(&repo.dir, &["tag", tag]);
    (index, repo)
}

/// A `plugins update` (no `--deps`: the lock remembers them) killed at any rename leaves
/// the old code with the old deps, or the new code with the new deps.
#[test]
#[allow(clippy::print_stderr)] // the count of kill points
fn kill_nine_during_an_update_of_a_deps_plugin_keeps_the_plugin_and_its_deps_together() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (index, repo) = deppy_v1(t, "v1.0.0");
    let template = t.join("v1-home");
    let mut cmd = Plugins::new();
    cmd.args([
        "install",
        &repo.url(),
        "--ref",
        "v1.0.0",
        "--yes",
        "--deps",
        "--home",
    ])
    .arg(&template);
    with_index(&mut cmd, &index);
    cmd.run().success();
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 2.0.0\nrequires_pip: [helperlib]\n",
    );
    repo.commit("v2");
    git(&repo.dir, &["tag", "v2.0.0"]);
    let update = |home: &Path| -> Plugins {
        let mut cmd = Plugins::new();
        cmd.args(["update", "deppy", "--yes", "--home"]).arg(home);
        with_index(&mut cmd, &index);
        cmd
    };
    let reference = t.join("v2-home");
    copy_dir(&template, &reference);
    update(&reference).run().success();
    let (old, new) = (state(&template), state(&reference));
    assert!(
        old.contains("plugin-deps/deppy/demolib/__init__.py"),
        "{old}"
    );
    assert!(
        new.contains("plugin-deps/deppy/helperlib/__init__.py") && !new.contains("demolib"),
        "the update swapped the deps: {new}"
    );
    let (points, failures) = kill_at_every_rename(
        &strace,
        &template,
        &t.join("run"),
        (&old, &new),
        &index,
        update,
    );
    eprintln!("deps update crash consistency: {points} kill points (renames)");
    assert!(points >= 5, "kills were injected: {points}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // And the rollback from v2 to v1 (the history's tree and deps swapped back).
    let rollback = |home: &Path| -> Plugins {
        let mut cmd = Plugins::new();
        cmd.args(["rollback", "deppy", "--home"]).arg(home);
        with_index(&mut cmd, &index);
        cmd
    };
    let back = t.join("back-home");
    copy_dir(&reference, &back);
    rollback(&back).run().success();
    assert_eq!(state(&back), old, "the rollback restored v1 and its deps");
    let (points, failures) = kill_at_every_rename(
        &strace,
        &reference,
        &t.join("run-back"),
        (&new, &old),
        &index,
        rollback,
    );
    eprintln!("deps rollback crash consistency: {points} kill points (renames)");
    assert!(points >= 5, "kills were injected: {points}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// protoAgent's loader booting `inst` (`PROTOAGENT_HOME`): whether `deppy` loaded, its
/// `deps_missing`, and the lock's `deps` pins the host reads (names and versions).
const BOOT_PY: &str = r#"
import json, logging, types
logging.disable(logging.CRITICAL)
from graph.plugins import installer, loader
config = types.SimpleNamespace(plugins_enabled=["deppy"], plugins_disabled=[], plugins_dir="", plugin_config={})
result = loader.load_plugins(config)
meta = [p for p in result.meta if p["id"] == "deppy"][0]
deps = installer._lock_rows_by_id()["deppy"].get("deps")
print(json.dumps({
    "version": meta.get("version"),
    "loaded": meta["loaded"],
    "error": meta.get("error"),
    "deps_missing": meta["deps_missing"],
    "lock_deps": None if deps is None else [[d["name"], d["version"]] for d in deps],
}))
"#;

/// What protoAgent's own loader makes of the instance, as one line.
fn boot(py: &Path, t: &Path, instance: &Path) -> String {
    let out = Command::new(py)
        .args(["-c", BOOT_PY])
        .current_dir(t)
        .env("HOME", t.join("user"))
        .env("PROTOAGENT_HOME", instance)
        .env_remove("PROTOAGENT_INSTANCE")
        .env_remove("PROTOAGENT_BOX_ROOT")
        .env_remove("PROTOAGENT_PLUGINS_DIR")
        .env_remove("PROTOAGENT_PLUGINS_LOCK")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout.lines().last().unwrap_or_default().to_owned()
}

/// The top-level entries of `plugin-deps/deppy` (`-` when there is no such directory).
fn deps_dir(instance: &Path) -> String {
    match std::fs::read_dir(instance.join("plugin-deps/deppy")) {
        Ok(rd) => {
            let mut names: Vec<String> = rd
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names.join(" ")
        }
        Err(_) => "-".into(),
    }
}

#[test]
fn deps_follow_the_plugin_through_update_rollback_sync_and_a_version_without_any() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let index = t.join("wheels");
    wheel(&index, "demolib", "1.0.0");
    wheel(&index, "helperlib", "2.0.0");
    let repo = Repo::init(&t.join("repo"));
    let version = |v: &str, requires: &str, init: &str| {
        repo.file(
            "protoagent.plugin.yaml",
            &format!("id: deppy\nname: Deppy\nversion: {v}\n{requires}"),
        )
        .file("__init__.py", init);
        repo.commit(v);
        git(&repo.dir, &["tag", &format!("v{v}")]);
    };
    version(
        "1.0.0",
        "requires_pip: [demolib]\n",
        "import demolib\n\ndef register(registry):\n    assert demolib.VERSION == '1.0.0'\n",
    );
    let instance = t.join("inst");
    let plugins_in = |args: &[&str]| -> Ran {
        let mut cmd = Plugins::new();
        cmd.args(args).arg("--home").arg(&instance).current_dir(&t);
        with_index(&mut cmd, &index);
        // No python3 with pip on PATH: the interpreter is the host's, given once.
        cmd.env("PATH", "/usr/bin:/bin")
            .redact("[PYTHON]", &py)
            .tmp(&t);
        cmd.run()
    };
    let py_arg = py.display().to_string();
    plugins_in(&[
        "install",
        &repo.url(),
        "--ref",
        "v1.0.0",
        "--yes",
        "--deps",
        "--python",
        &py_arg,
    ])
    .success();
    let remembered = std::fs::read_to_string(instance.join("plugins.toml")).unwrap();
    assert_eq!(
        remembered,
        format!("[host]\npython = \"{}\"\n", py.display())
    );
    assert_eq!(deps_dir(&instance), "demolib demolib-1.0.0.dist-info");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "1.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": [["demolib", "1.0.0"]]}"#
    );

    // An update (no --deps, no --python) swaps the deps with the code.
    version(
        "2.0.0",
        "requires_pip: [helperlib]\n",
        "import helperlib\n\ndef register(registry):\n    assert helperlib.VERSION == '2.0.0'\n",
    );
    // -v names the interpreter; nothing names protoAgent's version: the home's Python says
    // which is installed.
    plugins_in(&["-v", "update", "deppy", "--yes"]).expect(0, str![[r#"
     Updated deppy to v2.0.0 @ 725aac5b68

"#]], str![[r#"
debug: git: reading the local repository file://[TMP]/repo
debug: host: [PYTHON]: answered as remembered in [TMP]/inst/.plugins/host-probe.json (the program and what its answer depends on are unchanged)
debug: host: detected version 0.218.1 ([PYTHON]: protolabs-agent); validating as it
    Fetching file://[TMP]/repo
     Fetched 725aac5b685b
protoagent plugin `deppy` 2.0.0 from file://[TMP]/repo @ 725aac5b685b
  asked again:  pip [demolib] -> [helperlib]
  capabilities: none
  build steps:  none
  pip:          helperlib
  runs code inside the host process
debug: deps: pip of [PYTHON] ([host] python in plugins.toml)
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- helperlib
    Building step 1/1: [PYTHON] -c import importlib.metadata as m, sys; open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()}))) deps-present.txt
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
    assert_eq!(deps_dir(&instance), "helperlib helperlib-2.0.0.dist-info");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "2.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": [["helperlib", "2.0.0"]]}"#
    );

    // A rollback puts the old code back with its old deps.
    plugins_in(&["rollback", "deppy"]).success();
    assert_eq!(deps_dir(&instance), "demolib demolib-1.0.0.dist-info");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "1.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": [["demolib", "1.0.0"]]}"#
    );

    // A repair reinstalls the deps too.
    std::fs::write(instance.join("plugins/deppy/__init__.py"), "broken\n").unwrap();
    std::fs::remove_dir_all(instance.join("plugin-deps/deppy")).unwrap();
    plugins_in(&["sync", "--repair", "--yes"]).success();
    assert_eq!(deps_dir(&instance), "demolib demolib-1.0.0.dist-info");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "1.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": [["demolib", "1.0.0"]]}"#
    );

    // A version that needs nothing: its deps go, and it stays recorded as a deps plugin
    // (`deps: []`), so that a later version's requirements are installed again.
    version("3.0.0", "", "def register(registry):\n    pass\n");
    plugins_in(&["update", "deppy", "--yes"]).success();
    assert_eq!(deps_dir(&instance), "-");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "3.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": []}"#
    );
    version(
        "4.0.0",
        "requires_pip: [helperlib]\n",
        "import helperlib\n\ndef register(registry):\n    pass\n",
    );
    plugins_in(&["update", "deppy", "--yes"]).success();
    assert_eq!(deps_dir(&instance), "helperlib helperlib-2.0.0.dist-info");
    assert_eq!(
        boot(&py, &t, &instance),
        r#"{"version": "4.0.0", "loaded": true, "error": null, "deps_missing": [], "lock_deps": [["helperlib", "2.0.0"]]}"#
    );
    // And back to 3.0.0: no deps directory, as it was.
    plugins_in(&["rollback", "deppy"]).success();
    assert_eq!(deps_dir(&instance), "-");
    plugins_in(&["verify"]).success();
    assert!(
        leftovers(&instance).is_empty(),
        "{:?}",
        leftovers(&instance)
    );
}

/// Run `cmd` (on a copy of `template`) killed at each rename in turn; after each kill, a
/// `sync` recovers and the home must be `old` or `new`, with no leftovers, verified.
/// Returns the number of kill points and what went wrong.
fn kill_at_every_rename(
    strace: &Path,
    template: &Path,
    home: &Path,
    (old, new): (&str, &str),
    index: &Path,
    cmd: impl Fn(&Path) -> Plugins,
) -> (usize, Vec<String>) {
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
        copy_dir(template, home);
        let mut traced = cmd(home);
        traced
            .wrapped_in(
                strace,
                [
                    "-o".to_owned(),
                    "/dev/null".to_owned(),
                    "-e".to_owned(),
                    format!("trace={syscall}"),
                    "-e".to_owned(),
                    format!("inject={syscall}:signal=KILL:when={n}"),
                ],
            )
            .env("COLUMNS", "100");
        with_index(&mut traced, index);
        let status = traced.output().status;
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
        let (code, o, e) = Plugins::new()
            .args(["sync", "--home"])
            .arg(home)
            .run()
            // parts: failures are gathered over every kill point, then reported together
            .parts();
        let now = state(home);
        if code != 0 {
            failures.push(format!("{syscall} #{n}: recovering sync: {o}{e}"));
        } else if now != old && now != new {
            failures.push(format!("{syscall} #{n}: neither old nor new:\n{now}"));
        } else if !leftovers(home).is_empty() {
            failures.push(format!("{syscall} #{n}: leftovers {:?}", leftovers(home)));
        } else {
            let (code, o, e) = Plugins::new()
                .args(["verify", "--home"])
                .arg(home)
                .run()
                // parts: failures are gathered over every kill point, then reported together
                .parts();
            if code != 0 {
                failures.push(format!("{syscall} #{n}: verify: {o}{e}"));
            }
        }
    }
    (points, failures)
}

/// `autoupdate` (cron) of a plugin installed with `--deps` installs its deps again with its
/// new code (here the same requirement, which now resolves to a newer wheel; a changed
/// requirement would need consent, which autoupdate never gives).
#[test]
fn autoupdate_keeps_the_deps_matching_the_code() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let index = t.join("wheels");
    wheel(&index, "demolib", "1.0.0");
    let repo = Repo::init(&t.join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip: [demolib]\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("v1");
    let home = t.join("home");
    let mut cmd = Plugins::new();
    cmd.args([
        "install",
        &repo.url(),
        "--ref",
        "main",
        "--yes",
        "--deps",
        "--home",
    ])
    .arg(&home);
    with_index(&mut cmd, &index);
    cmd.run().success();
    assert!(state(&home).contains("demolib-1.0.0.dist-info"));
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.deppy]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    wheel(&index, "demolib", "2.0.0");
    repo.file("__init__.py", "def register(r):\n    return None\n");
    repo.commit("v2");
    let mut cmd = Plugins::new();
    cmd.args(["autoupdate", "--json", "--home"]).arg(&home);
    with_index(&mut cmd, &index);
    let ran = cmd.tmp(t).run();
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "updated": [
    "deppy"
  ],
  "changes": [
    {
      "id": "deppy",
      "home": "[TMP]/home",
      "from": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "4860b978b99037936529b89316554eccb21b846b"
      },
      "to": {
        "version": "1.0.0",
        "ref": "main",
        "commit": "cf2c3b4538b21a783f1a919b36cd524c330ae119"
      },
      "why": "branch main has new commits"
    }
  ],
  "up_to_date": [],
  "deferred": [],
  "needs_approval": [],
  "held_back": [],
  "held": [],
  "failed": [],
  "skipped_homes": []
}

"#]], str![[r#"
[AT] Fetching file://[TMP]/repo
[AT] Fetched cf2c3b4538b2
[AT] Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --dry-run --quiet --report deps-report.json -- demolib
[AT] Building step 1/1: python3 -c import importlib.metadata as m, sys; open(sys.argv[1], 'w').write(chr(10).join(sorted({d.metadata['Name'] or '' for d in m.distributions()}))) deps-present.txt
[AT] Building step 1/1: python3 -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);
    let doc: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(doc["updated"].as_array().map(Vec::len), Some(1), "{doc}");
    let now = state(&home);
    assert!(
        now.contains("plugin-deps/deppy/demolib-2.0.0.dist-info/METADATA")
            && !now.contains("demolib-1.0.0"),
        "{now}"
    );
    assert!(now.contains(r#""version":"2.0.0""#), "{now}");
}
