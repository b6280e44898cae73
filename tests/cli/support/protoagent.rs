//! protoAgent 0.218 fixtures: the host's own Python code run against an instance
//! (`host`, `host_install`), `plugins install` without network, instances and plugin
//! repositories. Used by `protoagent_0218` and `protoagent_0218_install`.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::Plugins;
use super::git::Repo;

/// Run `code` in the host's Python with `PROTOAGENT_HOME=home` (nothing else of
/// protoAgent's from outside); the last stdout line, parsed as JSON.
pub(crate) fn host(py: &Path, home: &Path, code: &str) -> Value {
    host_env(py, home, &[], code)
}

/// [`host`] with more environment.
pub(crate) fn host_env(py: &Path, home: &Path, env: &[(&str, &str)], code: &str) -> Value {
    let mut cmd = Command::new(py);
    cmd.envs(env.iter().copied());
    for v in [
        "PROTOAGENT_INSTANCE",
        "PROTOAGENT_BOX_ROOT",
        "PROTOAGENT_PLUGINS_DIR",
        "PROTOAGENT_PLUGINS_LOCK",
        "PROTOAGENT_CONFIG_DIR",
    ] {
        cmd.env_remove(v);
    }
    let full = format!(
        "import json, logging\nlogging.disable(logging.CRITICAL)\nfrom graph.plugins import installer, loader, manifest, trust\n{code}"
    );
    let out = cmd
        .arg("-c")
        .arg(full)
        .env("PROTOAGENT_HOME", home)
        .current_dir(home)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{code}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The host CLI's install (`install(url, force, by="cli", allow=configured_allowlist())`):
/// `{"ok": id, "superseded": bool}` or `{"err": message}`.
const HOST_INSTALL: &str = r#"
import sys
def run(url, force):
    try:
        s = installer.install(url, force=force, allow=installer.configured_allowlist())
        return {"ok": s["id"], "version": s["version"], "superseded": bool(s.get("superseded"))}
    except Exception as e:
        return {"err": str(e)}
print(json.dumps(run(URL, FORCE)))
"#;

pub(crate) fn host_install(py: &Path, home: &Path, url: &str, force: bool) -> Value {
    let code = HOST_INSTALL
        .replace("URL", &serde_json::to_string(url).unwrap())
        .replace("FORCE", if force { "True" } else { "False" });
    host(py, home, &code)
}

/// The host CLI's `plugin sync` (`installer.sync(allow=configured_allowlist())`), without
/// network: each lock row's id with its status (`installed`, `present`, `superseded`,
/// `failed`, …).
pub(crate) fn host_sync(py: &Path, home: &Path) -> Value {
    host_env(
        py,
        home,
        &NO_NETWORK,
        "print(json.dumps({r['id']: r['status'] for r in installer.sync(allow=installer.configured_allowlist())}))",
    )
}

/// `plugins install <url> --yes --home <home> [extra]`: (exit code, the error's code and
/// first message line, or the empty strings).
pub(crate) fn plugins_install(home: &Path, url: &str, extra: &[&str]) -> (i32, String, String) {
    let (code, stdout, stderr) = plugins_installing(home, url, extra).run().parts();
    let err_code = stderr
        .lines()
        .find(|l| l.starts_with("plugins::"))
        .unwrap_or_default()
        .to_owned();
    let message = stderr
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("× "))
        .unwrap_or_default()
        .to_owned();
    let _ = stdout;
    (code, err_code, message)
}

/// The same `plugins install`, to run and compare with [`super::Ran::expect`] once the caller
/// has added its redactions.
pub(crate) fn plugins_installing(home: &Path, url: &str, extra: &[&str]) -> Plugins {
    let mut cmd = Plugins::new();
    cmd.args(["install", url, "--yes", "--home"])
        .arg(home)
        .args(extra)
        .envs(NO_NETWORK)
        .env("COLUMNS", "1000");
    cmd
}

/// Should a check that fetches nothing regress, the fetch goes to a closed loopback port.
pub(crate) const NO_NETWORK: [(&str, &str); 4] = [
    ("HTTPS_PROXY", "http://127.0.0.1:9"),
    ("https_proxy", "http://127.0.0.1:9"),
    ("ALL_PROXY", "http://127.0.0.1:9"),
    ("GIT_SSH_COMMAND", "false"),
];

pub(crate) fn instance(root: &Path, config: Option<&str>) {
    std::fs::create_dir_all(root.join("config")).unwrap();
    if let Some(c) = config {
        std::fs::write(root.join("config/langgraph-config.yaml"), c).unwrap();
    }
}

pub(crate) fn plugin_repo(dir: &Path, id: &str) -> Repo {
    let repo = Repo::init(dir);
    repo.file(
        "protoagent.plugin.yaml",
        &format!("id: {id}\nname: N\nversion: 1.0.0\n"),
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit(id);
    repo
}
