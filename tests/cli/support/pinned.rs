//! A locked protoAgent home with wheel deps, as the lock-contract tests (`frozen`, `pins`)
//! make and judge it: the origin that installs `deppy` with `--deps`, fresh homes holding only
//! a lock, and `plugins` run with pip limited to a local index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::git::{Repo, git};
use super::net::Daemon;
use super::{Plugins, Ran, wheel_with};

/// Every file under `plugins/` and `plugin-deps/` of `home`, with its bytes.
pub(crate) fn files(home: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for sub in ["plugins", "plugin-deps"] {
        let mut stack = vec![home.join(sub)];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(home).unwrap().display().to_string();
                    out.insert(rel, std::fs::read(&path).unwrap());
                }
            }
        }
    }
    out
}

/// A fresh home holding only `lock` (the file a fleet commits).
pub(crate) fn fresh(dir: &Path, lock: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("plugins.lock"), lock).unwrap();
    dir.to_path_buf()
}

/// `plugins <args> --home <home>` with pip limited to `index` and the host's Python; in
/// snapshots the home shows as `[HOME]`, the index as `[INDEX]`, the Python as `[PYTHON]`.
pub(crate) fn plugins_in(
    home: &Path,
    index: &Path,
    py: &Path,
    env: &[(&str, &str)],
    args: &[&str],
) -> Ran {
    let mut cmd = Plugins::new();
    cmd.args(args)
        .arg("--home")
        .arg(home)
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", index)
        .env("PLUGINS_HOST_PYTHON", py)
        .env_remove("PLUGINS_HOME")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "1000")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .redact("[HOME]", home)
        .redact("[INDEX]", index)
        .redact("[PYTHON]", py);
    // The host's interpreter is named: a fresh home remembers none.
    if matches!(args.first(), Some(&"sync")) {
        cmd.arg("--python").arg(py);
    }
    cmd.run()
}

/// The error code a failed command printed.
pub(crate) fn code_of(stderr: &str) -> &str {
    stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("plugins::"))
        .unwrap_or_default()
}

/// A plugin `deppy` needing `demolib` (1.0.0 in the index), served as `gh:acme/deppy` by a
/// `git daemon`; installed with `--deps` under `--host-version 0.218.1` into `origin`.
/// Returns the index, the served directory, the lock text and the daemon.
pub(crate) fn origin(t: &Path, py: &Path) -> (PathBuf, PathBuf, String, Daemon) {
    let index = t.join("wheels");
    wheel_with(py, &index, "demolib", "1.0.0", "VERSION = '1.0.0'\n");
    let repo = Repo::init(&t.join("src"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.0\nrequires_pip: [demolib]\n",
    )
    .file(
        "__init__.py",
        "import demolib\n\ndef register(registry):\n    assert demolib.VERSION == '1.0.0'\n",
    );
    repo.commit("v1");
    git(&repo.dir, &["tag", "v1.0.0"]);
    let served = t.join("served");
    repo.clone_bare(&served.join("acme/deppy.git"));
    let daemon = Daemon::serve(&served);
    let base = format!("git://127.0.0.1:{}", daemon.port);
    let home = t.join("origin");
    crate::support::protoagent::instance(&home, None);
    let py_arg = py.display().to_string();
    plugins_in(
        &home,
        &index,
        py,
        &[("PLUGINS_GH_BASE", &base)],
        &[
            "install",
            "gh:acme/deppy@v1.0.0",
            "--yes",
            "--deps",
            "--python",
            &py_arg,
            "--host-version",
            "0.218.1",
        ],
    )
    .success();
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    (index, served, lock, daemon)
}
