//! `sync --frozen --from FILE` with no network (issue 39): an aoe plugin whose build step
//! fetches from the network installs from the bundle's built output, inside a network
//! namespace with only loopback and nothing listening, its step never run; a bundle whose
//! manifest names another platform is refused by name before anything changes.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::support::git::Repo;
use crate::support::*;

/// `unshare --net`, loopback up, then the command: no interface but `lo`, nothing listening.
const OFFLINE: [&str; 6] = [
    "--net",
    "--",
    "sh",
    "-c",
    "ip link set lo up && exec \"$@\"",
    "sh",
];

/// Whether this machine can run a command in a network namespace of its own (root, or
/// user namespaces); when not, [`skip`].
fn have_netns() -> bool {
    let ok = std::process::Command::new("unshare")
        .args(OFFLINE)
        .arg("true")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(
            "cannot run `unshare --net` with `ip link set lo up` here (needs root and util-linux, iproute2)",
            "offline bundle tests",
        );
    }
    ok
}

/// A loopback server that answers one connection with a worker script, then stops.
fn worker_server() -> (u16, std::thread::JoinHandle<()>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let served = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.write_all(b"#!/bin/sh\necho fetched worker\n").unwrap();
    });
    (port, served)
}

/// An aoe plugin whose build step notes that it ran in `marker`, then fetches its worker
/// from the loopback server at `port` (bash's `/dev/tcp`): it needs the network.
fn networked_plugin(t: &Path, port: u16, marker: &Path) -> Repo {
    let repo = Repo::init(&t.join("net-built"));
    let build = format!(
        "#!/bin/bash\nset -e\necho ran >> '{}'\nmkdir -p .aoe-build/bin\ncat < /dev/tcp/127.0.0.1/{port} > .aoe-build/bin/worker\nchmod +x .aoe-build/bin/worker\n",
        marker.display()
    );
    built_aoe(&repo, "1.0.0", &build);
    repo
}

/// A home with the networked plugin installed (built once, online), bundled to `<t>/b.tar`.
fn bundled_home(t: &Path, marker: &Path) -> (PathBuf, PathBuf) {
    let (port, served) = worker_server();
    let repo = networked_plugin(t, port, marker);
    let home = t.join("home");
    Plugins::new()
        .args(["install", &repo.url(), "--ref", "main", "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    served.join().unwrap();
    assert!(marker.is_file(), "the build step ran at install");
    let file = t.join("b.tar");
    Plugins::new()
        .args(["bundle", "-o"])
        .arg(&file)
        .arg("--home")
        .arg(&home)
        .run()
        .redact("[T]", t)
        .success()
        .stderr_eq(snapbox::str![[r#"
    Fetching file://[T]/net-built
     Fetched [..]

"#]]);
    std::fs::remove_file(marker).unwrap();
    (home, file)
}

/// A fresh machine's home: only the committed lock.
fn fleet_home(t: &Path, home: &Path, name: &str) -> PathBuf {
    let fleet = t.join(name);
    std::fs::create_dir_all(&fleet).unwrap();
    std::fs::copy(home.join("plugins.lock"), fleet.join("plugins.lock")).unwrap();
    fleet
}

/// Every path under `dir`, sorted, but `plugins`' own bookkeeping (`.plugins/`, its empty
/// scratch, and the home's lock guard `.plugins.guard`).
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.is_symlink() {
                todo.push(p.clone());
            }
            let rel = p.strip_prefix(dir).unwrap().to_owned();
            if ![".plugins", ".plugins/staging", ".plugins.guard"]
                .iter()
                .any(|own| rel == Path::new(own))
            {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

#[cfg(target_os = "linux")]
#[test]
fn issue_39_offline_sync_from_a_bundle_puts_the_built_output_in_place() {
    if !have_netns() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let marker = t.join("build-ran");
    let (home, file) = bundled_home(&t, &marker);
    let fleet = fleet_home(&t, &home, "fleet");
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&file)
        .arg("--home")
        .arg(&fleet)
        .wrapped_in("unshare", OFFLINE)
        .run()
        .success()
        .stdout_eq(snapbox::str![[r#"
      Synced dev.example.built 1.0.0

"#]]);
    assert!(!marker.exists(), "the build step ran offline");
    let worker = fleet.join("plugins/dev.example.built/.aoe-build/bin/worker");
    let ran = std::process::Command::new(&worker).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "fetched worker\n");
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&fleet)
        .run()
        .success();
}

/// A copy of the bundle `file` at `out`: its manifest changed by `manifest`, the member
/// `replace.0` holding `replace.1` instead, and `extra` (a path and an entry type: a link
/// to `/etc/passwd`, or an empty file) appended.
fn edited(
    file: &Path,
    out: &Path,
    manifest: impl Fn(&mut serde_json::Value),
    replace: Option<(&str, &[u8])>,
    extra: Option<(&str, tar::EntryType)>,
) {
    let mut archive = tar::Archive::new(std::fs::File::open(file).unwrap());
    let mut tar = tar::Builder::new(std::fs::File::create(out).unwrap());
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let path = entry.path().unwrap().into_owned();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).unwrap();
        if path == Path::new("plugins-bundle.json") {
            let mut doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            assert_eq!(doc["format_version"], 2);
            manifest(&mut doc);
            bytes = serde_json::to_vec_pretty(&doc).unwrap();
        }
        if let Some((at, with)) = replace
            && path == Path::new(at)
        {
            bytes = with.to_vec();
        }
        let mut header = entry.header().clone();
        header.set_size(bytes.len() as u64);
        header.set_cksum();
        tar.append_data(&mut header, &path, bytes.as_slice())
            .unwrap();
    }
    if let Some((path, kind)) = extra {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(0);
        if kind == tar::EntryType::Symlink {
            header.set_link_name("/etc/passwd").unwrap();
        }
        header.set_cksum();
        tar.append_data(&mut header, path, std::io::empty())
            .unwrap();
    }
    tar.finish().unwrap();
}

/// The bundle with its manifest's `platform` set to `other` (nothing else changes: the
/// manifest is not among the hashed files).
fn retargeted(file: &Path, other: &str, out: &Path) {
    edited(file, out, |m| m["platform"] = other.into(), None, None);
}

#[cfg(target_os = "linux")]
#[test]
fn issue_39_a_bundle_built_for_another_platform_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let marker = t.join("build-ran");
    let (home, file) = bundled_home(&t, &marker);
    let here = format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH);
    let other = if std::env::consts::ARCH == "aarch64" {
        "linux-x86_64"
    } else {
        "linux-aarch64"
    };
    let edited = t.join("other.tar");
    retargeted(&file, other, &edited);
    let fleet = fleet_home(&t, &home, "fleet");
    let before = listing(&fleet);
    let lock = std::fs::read(fleet.join("plugins.lock")).unwrap();
    let ran = Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&edited)
        .arg("--home")
        .arg(&fleet)
        // One line each, whatever the temporary directory and platform names' lengths.
        .env("COLUMNS", "250")
        .run()
        .redact("[T]", &t)
        .redact("[HERE]", &here)
        .redact("[OTHER]", other)
        .code(2)
        .stdout_eq("")
        .stderr_eq(snapbox::str![[r#"
plugins::sync::bundle_platform

  × [T]/other.tar carries plugins built for [OTHER] (dev.example.built), but this machine is [HERE]; nothing was changed
  help: make the bundle on a [HERE] machine (`plugins bundle` carries the builds of the platform it runs on)

"#]])
        .redacted_parts();
    assert_eq!(
        ran.2.lines().next(),
        Some("plugins::sync::bundle_platform"),
        "refused by its own code"
    );
    assert!(!marker.exists(), "the build step ran");
    assert_eq!(listing(&fleet), before, "the home changed");
    assert_eq!(std::fs::read(fleet.join("plugins.lock")).unwrap(), lock);
}

/// The registry path carries the build output as one more layer (`builds/<id>`), and a sync
/// from the pulled artifact puts it in place as a sync from the file does: the build step,
/// whose server is gone, never runs.
#[cfg(target_os = "linux")]
#[test]
fn issue_39_a_pushed_bundle_carries_the_build_output_as_a_layer_of_its_own() {
    use crate::support::registry::{self, Options, Registry};
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let marker = t.join("build-ran");
    let (home, _) = bundled_home(&t, &marker);
    let reg = Registry::start(&t.join("registry"), &Options::default());
    let tag = format!("oci://{}/fleet/built:v1", reg.host());
    let mut cmd = Plugins::new();
    cmd.without_proxies().env("DOCKER_CONFIG", "/nonexistent");
    let pushed = cmd
        .args(["bundle", "--json", "--plain-http", "--home"])
        .arg(&home)
        .args(["--push", &tag])
        .run();
    pushed.success();
    let v: serde_json::Value = serde_json::from_str(&pushed.stdout).unwrap();
    let digest = v["bundle"]["pushed"]["digest"].as_str().unwrap();
    assert_matches_output_schema("bundle.json", &v);
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reg.blob(digest)).unwrap()).unwrap();
    let titles: Vec<&str> = manifest["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["annotations"]["org.opencontainers.image.title"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        titles,
        [
            "plugins.lock",
            "builds/dev.example.built",
            "trees/dev.example.built"
        ]
    );
    let fleet = fleet_home(&t, &home, "fleet");
    let mut cmd = Plugins::new();
    cmd.without_proxies().env("DOCKER_CONFIG", "/nonexistent");
    cmd.args(["sync", "--frozen", "--yes", "--plain-http", "--home"])
        .arg(&fleet)
        .args(["--from", &format!("{tag}@{digest}")])
        .run()
        .success()
        .stdout_eq(snapbox::str![[r#"
      Synced dev.example.built 1.0.0

"#]]);
    assert!(!marker.exists(), "the build step ran");
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&fleet)
        .run()
        .success();
}

/// A change to a bundle's manifest.
type EditManifest<'a> = dyn Fn(&mut serde_json::Value) + 'a;

/// The reader's rules cover `builds/`: a member the manifest does not hash, a link, a `.git`,
/// and a replaced worker whose manifest hash was rewritten to match (the lock's
/// `build_output_hash` refuses it) are each refused, and nothing is installed.
#[test]
fn issue_39_a_hostile_build_output_in_a_bundle_is_refused() {
    use sha2::Digest;
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let marker = t.join("build-ran");
    let (home, file) = bundled_home(&t, &marker);
    const WORKER: &str = "builds/dev.example.built/.aoe-build/bin/worker";
    let evil = b"#!/bin/sh\necho evil\n";
    let evil_hash: String = sha2::Sha256::digest(evil)
        .iter()
        .fold("sha256:".to_owned(), |h, b| format!("{h}{b:02x}"));
    let unhashed = |_: &mut serde_json::Value| {};
    let rehashed = |m: &mut serde_json::Value| m["files"][WORKER] = evil_hash.clone().into();
    let cases: [(&str, &EditManifest<'_>, _, _, _); 4] = [
        (
            "unhashed",
            &unhashed,
            None,
            Some((
                "builds/dev.example.built/.aoe-build/bin/extra",
                tar::EntryType::Regular,
            )),
            snapbox::str![[r#"
plugins::sync::bundle

  × [T]/hostile.tar is not a bundle plugins can install: "builds/dev.example.built/.aoe-build/bin/extra" does not hash as its manifest says; nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
        (
            "link",
            &unhashed,
            None,
            Some((
                "builds/dev.example.built/.aoe-build/bin/python",
                tar::EntryType::Symlink,
            )),
            snapbox::str![[r#"
plugins::sync::bundle

  × [T]/hostile.tar is not a bundle plugins can install: "builds/dev.example.built/.aoe-build/bin/python" is not a regular file (a link, device or other); nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
        (
            "git",
            &unhashed,
            None,
            Some((
                "builds/dev.example.built/.git/config",
                tar::EntryType::Regular,
            )),
            snapbox::str![[r#"
plugins::sync::bundle

  × [T]/hostile.tar is not a bundle plugins can install: "builds/dev.example.built/.git/config" is not a path a bundle holds; nothing was changed
  help: use an archive `plugins bundle` wrote, as it wrote it

"#]],
        ),
        (
            "replaced",
            &rehashed,
            Some((WORKER, evil.as_slice())),
            None,
            snapbox::str![[r#"
plugins::sync::bundle

  × the bundled build output of dev.example.built hashes to [BUILT] but the lock pins
  │ [LOCKED]; nothing was changed
  help: bundle the lock this home has: `plugins bundle --home H -o FILE`

"#]],
        ),
    ];
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    let locked = lock
        .lines()
        .find_map(|l| l.strip_prefix("build_output_hash = "))
        .unwrap()
        .trim_matches('"')
        .to_owned();
    for (what, manifest, replace, extra, expected) in cases {
        let hostile = t.join("hostile.tar");
        edited(&file, &hostile, manifest, replace, extra);
        let fleet = fleet_home(&t, &home, &format!("fleet-{what}"));
        let mut ran = Plugins::new()
            .args(["sync", "--frozen", "--yes", "--from"])
            .arg(&hostile)
            .arg("--home")
            .arg(&fleet)
            .env("COLUMNS", "400")
            .run();
        let built = ran
            .stderr
            .split("hashes to ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .unwrap_or("")
            .to_owned();
        ran.redact("[T]", &t)
            .redact("[LOCKED]", &locked)
            .redact("[BUILT]", &built);
        ran.code(2).stdout_eq("").stderr_eq(expected);
        assert_eq!(listing(&fleet), [PathBuf::from("plugins.lock")], "{what}");
        assert!(!marker.exists(), "{what}: the build step ran");
    }
}

/// A build output that no longer verifies at home is not carried, and `plugins bundle` says
/// so; a format 1 bundle (no platform, no builds), as `plugins` wrote before, still installs.
#[test]
fn issue_39_an_unverified_build_is_not_carried_and_a_format_1_bundle_still_installs() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let marker = t.join("build-ran");
    let (home, _) = bundled_home(&t, &marker);
    let worker = home.join("plugins/dev.example.built/.aoe-build/bin/worker");
    std::fs::write(&worker, "#!/bin/sh\necho replaced\n").unwrap();
    let file = t.join("unbuilt.tar");
    Plugins::new()
        .args(["bundle", "-o"])
        .arg(&file)
        .arg("--home")
        .arg(&home)
        .env("COLUMNS", "400")
        .run()
        .redact("[T]", &t)
        .success()
        .stderr_eq(snapbox::str![[r#"
    Fetching file://[T]/net-built
     Fetched [..]
    Bundling dev.example.built without its build output: it is not installed here as locked (its build output (.aoe-build) changed since it was built (sha256:[..], locked sha256:[..])); `sync --from` runs its build steps

"#]]);

    let repo = Repo::init(&t.join("helper"));
    commit_version(&repo, "aworld", "1.0.0");
    let aworld = t.join("aworld");
    Plugins::new()
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&aworld)
        .run()
        .success();
    let current = t.join("current.tar");
    Plugins::new()
        .args(["bundle", "-o"])
        .arg(&current)
        .arg("--home")
        .arg(&aworld)
        .run()
        .success();
    let old = t.join("format-1.tar");
    let format_1 = |m: &mut serde_json::Value| {
        m["format_version"] = 1.into();
        m.as_object_mut().unwrap().remove("platform");
    };
    edited(&current, &old, format_1, None, None);
    let fleet = fleet_home(&t, &aworld, "fleet");
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&old)
        .arg("--home")
        .arg(&fleet)
        .run()
        .success()
        .stdout_eq(snapbox::str![[r#"
      Synced helper 1.0.0

"#]]);
}
