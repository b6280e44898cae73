//! The Python wheel (`pyproject.toml`, maturin, `bindings = "bin"`): built from this checkout,
//! installed into a fresh virtualenv with no Rust on PATH, where `plugins` runs; and the
//! `language: python` pre-commit hook, which pre-commit and prek install from a clone of this
//! repository by themselves. Slow (a build), so only with `PLUGINS_SLOW_TESTS=1`; `.ci/run`
//! installs maturin, pre-commit and prek from PyPI, pinned (`PLUGINS_MATURIN`,
//! `PLUGINS_PRE_COMMIT`, `PLUGINS_PREK`).

use std::path::{Path, PathBuf};
use std::process::Command;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::{Repo, git};
use crate::support::hooks::{hook_runner, slow_pre_commit};
use crate::support::*;

/// One build at a time in [`target_dir`] (two checkouts building there at once would overwrite
/// each other's artifacts).
static BUILD: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Where the wheel and the hooks' packages are built: a target directory of their own beside
/// the test binary's (a build there never replaces the `plugins` other tests run), kept
/// across runs so that only the first build is cold.
fn target_dir() -> PathBuf {
    Path::new(BIN)
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("wheel-build")
}

fn tool(var: &str, name: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(|| PathBuf::from(name), PathBuf::from)
}

/// PATH without any directory that holds a `plugins` (the test binary's, an installed one):
/// what the hook runs must be what it installed into its own environment.
fn path_without_plugins() -> std::ffi::OsString {
    std::env::join_paths(
        std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .filter(|dir| !dir.join("plugins").exists()),
    )
    .unwrap()
}

fn output(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("it runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_wheel_installs_plugins_into_a_virtualenv_with_no_rust() {
    if slow_pre_commit().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let wheels = tmp.path().join("wheels");
    let one_build = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    let (code, stdout, stderr) = output(
        Command::new(tool("PLUGINS_MATURIN", "maturin"))
            .args(["build", "--locked", "--profile", "dev", "--out"])
            .arg(&wheels)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("CARGO_TARGET_DIR", target_dir()),
    );
    drop(one_build);
    assert_eq!(code, 0, "maturin build: {stdout}{stderr}");
    let wheel = std::fs::read_dir(&wheels)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel");
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with(&format!(
            "agent_host_plugins-{}-py3-none-",
            env!("CARGO_PKG_VERSION")
        )),
        "{name}"
    );
    let venv = tmp.path().join("venv");
    let (code, _, stderr) = output(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = output(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--no-index",
                "--disable-pip-version-check",
            ])
            .arg(&wheel),
    );
    assert_eq!(code, 0, "{stderr}");
    // No cargo, no rustc, no checkout: the venv's `plugins` alone.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aoe/hello");
    let (code, stdout, stderr) = output(
        Command::new(venv.join("bin/plugins"))
            .args(["validate", "--strict", "--path"])
            .arg(&fixture)
            .env("PATH", "/usr/bin:/bin")
            .env("NO_COLOR", "1")
            .env_remove("PLUGINS_HOME")
            .current_dir(tmp.path()),
    );
    assert_eq!((code, stderr.as_str()), (0, ""), "{stdout}");
    assert_data_eq!(
        stdout.replace(&fixture.display().to_string(), "[FIXTURE]"),
        str![[r#"
    Valid aoe plugin `dev.example.hello` 0.1.0 at [FIXTURE]

"#]]
        .raw()
    );
    // The wheel's data: a manual page per subcommand and the completions, under the prefix.
    let share = venv.join("share");
    let missing: Vec<String> = man_pages()
        .into_iter()
        .map(|page| format!("man/man1/{page}"))
        .chain(
            [
                "bash-completion/completions/plugins",
                "zsh/site-functions/_plugins",
                "fish/vendor_completions.d/plugins.fish",
            ]
            .map(str::to_owned),
        )
        .filter(|f| !share.join(f).is_file())
        .collect();
    assert!(missing.is_empty(), "not installed: {missing:?}");

    from_a_package_index(tmp.path(), &wheel);
}

/// The wheel published to a package index on loopback (PEP 503, each link carrying its
/// `#sha256=`, as PyPI's do): pip installs it by name and version into a fresh virtualenv,
/// and refuses it, naming it, once its bytes no longer match the index's hash.
fn from_a_package_index(tmp: &Path, wheel: &Path) {
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    let project = tmp.join("index/simple/agent-host-plugins");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::copy(wheel, project.join(&name)).unwrap();
    let sha256 = plugins::hash::bytes(&std::fs::read(wheel).unwrap())["sha256:".len()..].to_owned();
    std::fs::write(
        project.join("index.html"),
        format!("<!DOCTYPE html>\n<html><body><a href=\"{name}#sha256={sha256}\">{name}</a></body></html>\n"),
    )
    .unwrap();
    let server = crate::support::net::FileServer::start(&tmp.join("index"));
    let install = |venv: &Path| {
        let (code, _, stderr) = output(Command::new("python3").args(["-m", "venv"]).arg(venv));
        assert_eq!(code, 0, "{stderr}");
        // pip as a user has it, reading no configuration of this machine's (its
        // PIP_FIND_LINKS, pip.conf).
        output(
            Command::new(venv.join("bin/pip"))
                .env_clear()
                .env("PATH", "/usr/bin:/bin")
                .env("HOME", tmp)
                .env("PIP_CONFIG_FILE", "/dev/null")
                .args([
                    "install",
                    "--no-cache-dir",
                    "--disable-pip-version-check",
                    "--index-url",
                ])
                .arg(format!("{}/simple/", server.base))
                .arg(format!("agent-host-plugins=={}", env!("CARGO_PKG_VERSION"))),
        )
    };
    let (code, stdout, stderr) = install(&tmp.join("from-index"));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, version, _) =
        output(Command::new(tmp.join("from-index/bin/plugins")).arg("--version"));
    assert_eq!(
        (code, version),
        (0, format!("plugins {}\n", env!("CARGO_PKG_VERSION")))
    );

    // Tampered: the index's wheel changes, its hash does not.
    let mut bytes = std::fs::read(project.join(&name)).unwrap();
    bytes.extend_from_slice(b"tampered");
    std::fs::write(project.join(&name), &bytes).unwrap();
    let tampered = &plugins::hash::bytes(&bytes)["sha256:".len()..];
    let (code, _, stderr) = install(&tmp.join("tampered"));
    assert_eq!(code, 1, "{stderr}");
    let refusal: String = stderr
        .lines()
        .filter(|l| {
            ["sha256", &name, "HASHES", tampered]
                .iter()
                .any(|k| l.contains(k))
        })
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    assert_data_eq!(
        refusal
            .replace(&server.base, "[SERVER]")
            .replace(&name, "[WHEEL]")
            .replace(&sha256, "[SHA256]")
            .replace(tampered, "[TAMPERED]")
            .replace(env!("CARGO_PKG_VERSION"), "[VERSION]"),
        str![[r#"
ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes. Otherwise, examine the package contents carefully; someone may have tampered with them.
agent-host-plugins==[VERSION] from [SERVER]/simple/agent-host-plugins/[WHEEL]#sha256=[SHA256]:
Expected sha256 [SHA256]
Got        [TAMPERED]

"#]]
        .raw()
    );
    assert!(
        !tmp.join("tampered/bin/plugins").exists(),
        "nothing installed"
    );
}

/// A clone of this repository as the hooks repository: every tracked file as it is in the
/// working tree, committed.
fn hooks_repo(dir: &Path) -> Repo {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = Repo::init(dir);
    for file in git(
        root,
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
    )
    .split('\0')
    .filter(|f| !f.is_empty())
    {
        let from = root.join(file);
        if from.is_file() {
            let to = dir.join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
    repo.commit("this checkout");
    repo
}

#[test]
fn pre_commit_and_prek_install_the_python_hook_by_themselves() {
    if slow_pre_commit().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let hooks = hooks_repo(&tmp.path().join("hooks"));
    let sample = Repo::init(&tmp.path().join("sample"));
    sample
        .file(
            "bad/protoagent.plugin.yaml",
            "id: demo\nname: Demo\nenabled: maybe\n",
        )
        .file("bad/__init__.py", "");
    sample.commit("plugins");
    let run = |var: &str, name: &str| {
        let _one_build = BUILD.lock().unwrap_or_else(|e| e.into_inner());
        let home = tmp.path().join(format!("{name}-home"));
        let (code, stdout, stderr) = output(
            hook_runner(&tool(var, name), &sample.dir, &home)
                .arg(&hooks.dir)
                .args(["plugins-validate", "--all-files"])
                .env("PATH", path_without_plugins())
                // The hook's environment builds the package from source here (no wheel is
                // published yet): a debug build, in the wheel's own target directory.
                .env("MATURIN_PEP517_ARGS", "--profile dev")
                .env("CARGO_TARGET_DIR", target_dir()),
        );
        // The verdict of the plugins it installed (none is on PATH), as the hook shows it.
        let shown = format!("{stdout}{stderr}")
            .lines()
            .map(|l| match (l.split_once("rev: "), l.starts_with("rev = ")) {
                (Some((indent, _)), _) => format!("{indent}rev: [REV]"),
                (None, true) => "rev = [REV]".to_owned(),
                (None, false) => l.replace(&tmp.path().display().to_string(), "[TMP]"),
            })
            .collect::<Vec<_>>()
            .join("\n");
        (code, shown)
    };
    let (code, shown) = run("PLUGINS_PRE_COMMIT", "pre-commit");
    assert_eq!(code, 1, "{shown}");
    assert_data_eq!(
        shown,
        str![[r#"
===============================================================================
Using config:
===============================================================================
repos:
-   repo: ../hooks
    rev: [REV]
    hooks:
    -   id: plugins-validate
===============================================================================
[INFO] Initializing environment for ../hooks.
[INFO] Installing environment for ../hooks.
[INFO] Once installed this environment will be reused.
[INFO] This may take a few minutes...
plugins validate.........................................................Failed
- hook id: plugins-validate
- exit code: 1

plugins::protoagent::truthy_string

  × `enabled` is a str, which Python's bool() reads as true
   ╭─[bad/protoagent.plugin.yaml:3:10]
 2 │ name: Demo
 3 │ enabled: maybe
   ·          ─────
   ╰────
  help: write `enabled: true` or `enabled: false` (unquoted); as written, the host treats it as
        true
  Invalid protoagent plugin `demo` 0.0.0 at bad (1 error)

"#]]
        .raw()
    );
    let (code, shown) = run("PLUGINS_PREK", "prek");
    assert_eq!(code, 1, "{shown}");
    assert_data_eq!(
        shown,
        str![[r#"
Using generated `prek.toml`:
[[repos]]
repo = "[TMP]/hooks"
rev = [REV]
hooks = [
  { id = "plugins-validate" },
]

plugins validate.........................................................Failed
- hook id: plugins-validate
- description: Check agent-host plugin manifests (aoe, AWorld, protoAgent) as the host does
- exit code: 1

  plugins::protoagent::truthy_string

    × `enabled` is a str, which Python's bool() reads as true
     ╭─[bad/protoagent.plugin.yaml:3:10]
   2 │ name: Demo
   3 │ enabled: maybe
     ·          ─────
     ╰────
    help: write `enabled: true` or `enabled: false` (unquoted); as written, the host treats it as
          true
    Invalid protoagent plugin `demo` 0.0.0 at bad (1 error)
"#]]
        .raw()
    );
}
