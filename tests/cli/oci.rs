//! Fleets through a real OCI registry (the CNCF `distribution` registry on loopback):
//! `plugins bundle --push oci://…` uploads a bundle as an artifact whose unchanged plugins are
//! not uploaded twice; `plugins sync --frozen --from oci://…` pulls it by tag or digest, over
//! TLS with basic auth, checks every layer, refuses a tampered or missing layer and a moved
//! tag, resumes a pull killed mid-layer, and pulls through a pull-through cache with the
//! origin stopped.

use std::path::{Path, PathBuf};

use crate::support::git::Repo;
use crate::support::registry::{Ca, Options, Registry};
use crate::support::*;

const PASSWORD: &str = "s3cret-registry-pw";

/// An AWorld plugin `id` at `version` in its own repository under `t`, with `extra` bytes of
/// a file that differs by version.
fn plugin(t: &Path, id: &str, version: &str) -> Repo {
    let repo = Repo::init(&t.join(format!("src-{id}")));
    repo.file(
        ".aworld-plugin/plugin.json",
        &format!(r#"{{"id": "{id}", "version": "{version}"}}"#),
    );
    repo.file("README.md", &format!("{id} {version}\n"));
    repo.commit(version);
    repo
}

/// A home with `alpha` and `beta` installed from their repositories.
fn fleet_home(t: &Path) -> (PathBuf, Repo, Repo) {
    let (alpha, beta) = (plugin(t, "alpha", "1.0.0"), plugin(t, "beta", "1.0.0"));
    let home = t.join("origin-home");
    for repo in [&alpha, &beta] {
        Plugins::new()
            .args(["install", &repo.url(), "--yes", "--home"])
            .arg(&home)
            .run()
            .success();
    }
    (home, alpha, beta)
}

/// A new home holding only `from`'s lock (what a fleet machine has before its first sync).
fn empty_home_with_lock_of(t: &Path, name: &str, from: &Path) -> PathBuf {
    let home = t.join(name);
    std::fs::create_dir_all(&home).unwrap();
    std::fs::copy(from.join("plugins.lock"), home.join("plugins.lock")).unwrap();
    home
}

/// `plugins` with the registry's CA trusted and its credentials in a docker config file.
fn with_registry(ca: Option<&Ca>, docker_config: Option<&Path>) -> Plugins {
    let mut cmd = Plugins::new();
    cmd.env("COLUMNS", "100").without_proxies();
    if let Some(ca) = ca {
        cmd.env("SSL_CERT_FILE", &ca.cert);
    }
    match docker_config {
        Some(dir) => cmd.env("DOCKER_CONFIG", dir),
        None => cmd.env("DOCKER_CONFIG", "/nonexistent"),
    };
    cmd
}

/// A docker config under `dir` with `user:password` for `registry`, as `docker login` writes it.
fn docker_login(dir: &Path, registry: &str) -> PathBuf {
    let dc = dir.join("docker");
    std::fs::create_dir_all(&dc).unwrap();
    let auth = crate::support::net::basic("fleet", PASSWORD);
    let auth = auth.trim_start_matches("Basic ");
    std::fs::write(
        dc.join("config.json"),
        format!(r#"{{"auths": {{"{registry}": {{"auth": "{auth}"}}}}}}"#),
    )
    .unwrap();
    dc
}

fn push(cmd: &mut Plugins, home: &Path, reference: &str, extra: &[&str]) -> Ran {
    cmd.args(["bundle", "--json", "--home"])
        .arg(home)
        .args(["--push", reference])
        .args(extra)
        .run()
}

fn pushed_digest(ran: &Ran) -> String {
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).expect("JSON");
    v["bundle"]["pushed"]["digest"].as_str().unwrap().to_owned()
}

fn sync_from(cmd: &mut Plugins, home: &Path, reference: &str, extra: &[&str]) -> Ran {
    cmd.args(["sync", "--frozen", "--yes", "--home"])
        .arg(home)
        .args(["--from", reference])
        .args(extra)
        .run()
}

/// Every file under `dir`, to grep for a secret.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                stack.push(e.path());
            } else if ft.is_file() {
                out.push(e.path());
            }
        }
    }
    out
}

/// A registry under `t` serving HTTPS with a throwaway CA's certificate and demanding basic
/// auth for `fleet` and [`PASSWORD`].
fn tls_registry(t: &Path) -> (Ca, Registry) {
    let ca = Ca::make(&t.join("ca"));
    let reg = Registry::start(
        &t.join("registry"),
        &Options {
            tls: Some(ca.clone()),
            user: Some(("fleet".into(), PASSWORD.into())),
            ..Options::default()
        },
    );
    (ca, reg)
}

#[test]
fn a_fleet_pushes_over_tls_with_auth_and_pulls_by_tag_and_by_digest_uploading_only_what_changed() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (ca, reg) = tls_registry(&t);
    let host = reg.host();
    let docker = docker_login(&t, &host);
    let (home, alpha, _beta) = fleet_home(&t);
    let tag = format!("oci://{host}/fleet/plugins:v1");

    // Without the CA, TLS is not trusted; without credentials, the registry says 401 and the
    // message names where credentials were looked for. Nothing is fetched first.
    let mut ran = push(&mut with_registry(None, Some(&docker)), &home, &tag, &[]);
    ran.redact("[REG]", &host);
    ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::oci::registry

  × oci://[REG]/fleet/plugins:v1: signing in to push failed: error sending request for
  │ url (https://[REG]/v2/): client error (Connect): invalid peer certificate:
  │ UnknownIssuer
  help: check the registry's address, `--plain-http` for a registry without TLS, SSL_CERT_FILE for
        a private CA, and its credentials (`plugins doctor` names their source for each registry a
        home synced from)

"#]]);
    let mut ran = push(&mut with_registry(Some(&ca), None), &home, &tag, &[]);
    ran.redact("[REG]", &host);
    ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::oci::registry

  × oci://[REG]/fleet/plugins:v1: asking for a layer failed: HTTP status client error
  │ (401 Unauthorized) for url
  │ (https://[REG]/v2/fleet/plugins/blobs/sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855)
  │ (credentials: none (anonymous))
  help: check the registry's address, `--plain-http` for a registry without TLS, SSL_CERT_FILE for
        a private CA, and its credentials (`plugins doctor` names their source for each registry a
        home synced from)

"#]]);

    // The first push uploads the config, the lock and one layer per plugin.
    let ran = push(
        &mut with_registry(Some(&ca), Some(&docker)),
        &home,
        &tag,
        &[],
    );
    ran.success();
    let v1 = pushed_digest(&ran);
    let mut ran = ran;
    ran.redact("[REG]", &host).redact("[FIRST]", &v1);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    ran.redacted_eq(
        &serde_json::to_string_pretty(&v["bundle"]["pushed"]).unwrap(),
        snapbox::str![[r#"
{
  "reference": "oci://[REG]/fleet/plugins:v1@[FIRST]",
  "digest": "[FIRST]",
  "uploaded": 4,
  "uploaded_bytes": [..],
  "reused": 0
}
"#]],
    );
    assert_matches_output_schema("bundle.json", &v);
    // The same lock pushed again is the same digest, and nothing is uploaded.
    let again = push(
        &mut with_registry(Some(&ca), Some(&docker)),
        &home,
        &tag,
        &[],
    );
    let a: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(
        (pushed_digest(&again), &a["bundle"]["pushed"]["uploaded"]),
        (v1.clone(), &serde_json::json!(0))
    );

    // A fleet machine pulls by tag, another by digest; both verify clean.
    let by_tag = empty_home_with_lock_of(&t, "machine-1", &home);
    let mut ran = sync_from(
        &mut with_registry(Some(&ca), Some(&docker)),
        &by_tag,
        &tag,
        &[],
    );
    ran.redact("[REG]", &host)
        .redact("[FIRST]", &v1)
        .redact("[T]", &t);
    ran.success().stdout_eq(snapbox::str![[r#"
      Synced alpha 1.0.0
      Synced beta 1.0.0

"#]]);
    assert!(
        ran.redacted(&ran.stderr).contains(
            "      Pulled oci://[REG]/fleet/plugins:v1@[FIRST] (4 of 4 blobs downloaded,"
        ),
        "{}",
        ran.stderr
    );
    let by_digest = empty_home_with_lock_of(&t, "machine-2", &home);
    sync_from(
        &mut with_registry(Some(&ca), Some(&docker)),
        &by_digest,
        &format!("oci://{host}/fleet/plugins@{v1}"),
        &["--json"],
    )
    .success();
    for h in [&by_tag, &by_digest] {
        Plugins::new()
            .args(["verify", "--home"])
            .arg(h)
            .run()
            .success();
        assert_eq!(
            std::fs::read(h.join("plugins.lock")).unwrap(),
            std::fs::read(home.join("plugins.lock")).unwrap()
        );
    }

    // alpha moves to 2.0.0: the next push uploads the config, the lock and alpha's layer;
    // beta's layer is already there.
    plugin(&t, "alpha", "2.0.0");
    let _ = alpha;
    Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    let v2tag = format!("oci://{host}/fleet/plugins:v2");
    let ran = push(
        &mut with_registry(Some(&ca), Some(&docker)),
        &home,
        &v2tag,
        &[],
    );
    ran.success();
    let p: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(
        (
            &p["bundle"]["pushed"]["uploaded"],
            &p["bundle"]["pushed"]["reused"]
        ),
        (&serde_json::json!(3), &serde_json::json!(1)),
        "{p}"
    );
    // machine-1 takes v2 with v2's lock: only the three new blobs are downloaded.
    std::fs::copy(home.join("plugins.lock"), by_tag.join("plugins.lock")).unwrap();
    let ran = sync_from(
        &mut with_registry(Some(&ca), Some(&docker)),
        &by_tag,
        &v2tag,
        &["--json"],
    );
    ran.success();
    let s: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("change.json", &s);
    assert_eq!(
        (&s["pulled"]["fetched"], &s["pulled"]["cached"]),
        (&serde_json::json!(3), &serde_json::json!(1)),
        "{s}"
    );
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&by_tag)
        .run()
        .success();

    // The password is in no file of any home, and was in no output above.
    for h in [&home, &by_tag, &by_digest] {
        for f in all_files(h) {
            let bytes = std::fs::read(&f).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(PASSWORD),
                "{} holds the password",
                f.display()
            );
        }
    }
}

/// A plain-HTTP registry and a home synced from it once, for the refusal tests.
struct Fleet {
    t: PathBuf,
    reg: Registry,
    home: PathBuf,
    tag: String,
    digest: String,
}

/// `sync --frozen --from REFERENCE --plain-http` into `home`, with no registry credentials.
fn pull_plain(home: &Path, reference: &str) -> Ran {
    sync_from(
        &mut with_registry(None, None),
        home,
        reference,
        &["--plain-http"],
    )
}

fn plain_fleet(t: &Path) -> Fleet {
    let reg = Registry::start(&t.join("registry"), &Options::default());
    let (home, _, _) = fleet_home(t);
    let tag = format!("oci://{}/fleet/plugins:v1", reg.host());
    let ran = push(
        &mut with_registry(None, None),
        &home,
        &tag,
        &["--plain-http"],
    );
    ran.success();
    let digest = pushed_digest(&ran);
    Fleet {
        t: t.to_path_buf(),
        reg,
        home,
        tag,
        digest,
    }
}

/// The layer digests of an artifact, from the registry's storage (its manifest blob).
fn layers(reg: &Registry, digest: &str) -> Vec<String> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(reg.blob(digest)).unwrap()).unwrap();
    manifest["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["digest"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_tampered_or_missing_layer_and_plain_http_without_the_flag_are_refused_and_nothing_changes() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let f = plain_fleet(&tmp.path().canonicalize().unwrap());
    let host = f.reg.host();
    let machine = empty_home_with_lock_of(&f.t, "machine", &f.home);

    // Plain HTTP is never used without --plain-http.
    let mut ran = sync_from(&mut with_registry(None, None), &machine, &f.tag, &[]);
    ran.redact("[REG]", &host);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let registry_code = "plugins::oci::registry";
    assert!(ran.stderr.starts_with(registry_code), "{}", ran.stderr);

    // One byte of the last layer (a plugin's tree) changed in the registry's storage.
    let tree = layers(&f.reg, &f.digest).pop().unwrap();
    let blob = f.reg.blob(&tree);
    let mut bytes = std::fs::read(&blob).unwrap();
    bytes[600] ^= 1;
    std::fs::write(&blob, &bytes).unwrap();
    let mut ran = pull_plain(&machine, &f.tag);
    ran.redact("[REG]", &host)
        .redact("[DIGEST]", &f.digest)
        .redact("[LAYER]", &tree);
    ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::oci::artifact

  × oci://[REG]/fleet/plugins:v1: layer
  │ [LAYER] hashes to
  │ sha256:[..]: it was changed after
  │ it was pushed; nothing was changed
  help: the registry serves another content than was pushed: push the bundle again (`plugins
        bundle --push`) and pull by its digest

"#]]);
    let artifact_code = "plugins::oci::artifact";
    assert!(ran.stderr.starts_with(artifact_code), "{}", ran.stderr);
    assert!(!machine.join("plugins").exists(), "nothing was installed");
    assert!(!machine.join(".plugins/oci-tags.json").exists());
    let cached: Vec<String> = std::fs::read_dir(machine.join(".plugins/oci/blobs/sha256"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !cached
            .iter()
            .any(|c| tree.ends_with(c.trim_end_matches(".partial"))),
        "the tampered blob is not kept: {cached:?}"
    );

    // The layer removed from the registry's storage.
    std::fs::remove_dir_all(blob.parent().unwrap()).unwrap();
    let mut ran = pull_plain(&machine, &f.tag);
    ran.redact("[REG]", &host).redact("[LAYER]", &tree);
    ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::oci::artifact

  × oci://[REG]/fleet/plugins:v1: layer
  │ [LAYER] is missing from the
  │ registry; nothing was changed
  help: the registry serves another content than was pushed: push the bundle again (`plugins
        bundle --push`) and pull by its digest

"#]]);
    assert!(!machine.join("plugins").exists());
}

#[test]
fn a_moved_tag_is_refused_by_name_until_its_new_digest_is_named() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let f = plain_fleet(&tmp.path().canonicalize().unwrap());
    let host = f.reg.host();
    let machine = empty_home_with_lock_of(&f.t, "machine", &f.home);
    pull_plain(&machine, &f.tag).success();
    let doctor = |machine: &Path| {
        let ran = with_registry(None, None)
            .args(["doctor", "--json", "--home"])
            .arg(machine)
            .run();
        let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
        let checks: Vec<serde_json::Value> = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["area"] == "registry")
            .cloned()
            .collect();
        serde_json::to_string_pretty(&checks).unwrap()
    };
    let t = f.t.display().to_string();
    let pairs = [
        ("[REG]", host.clone()),
        ("[FIRST]", f.digest.clone()),
        ("[T]", t.clone()),
    ];
    assert_redacted(
        &doctor(&machine),
        &pairs,
        snapbox::str![[r#"
[
  {
    "area": "registry",
    "status": "ok",
    "message": "oci://[REG]/fleet/plugins:v1: pinned [FIRST] is there and the tag names it (credentials: none (anonymous))",
    "home": "[T]/machine"
  }
]
"#]],
    );

    // Someone pushes another lock over the tag.
    plugin(&f.t, "alpha", "2.0.0");
    Plugins::new()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&f.home)
        .run()
        .success();
    let moved = pushed_digest(
        push(
            &mut with_registry(None, None),
            &f.home,
            &f.tag,
            &["--plain-http"],
        )
        .success(),
    );
    std::fs::copy(f.home.join("plugins.lock"), machine.join("plugins.lock")).unwrap();
    let mut ran = pull_plain(&machine, &f.tag);
    ran.redact("[REG]", &host)
        .redact("[FIRST]", &f.digest)
        .redact("[MOVED]", &moved);
    ran.code(2).stderr_eq(snapbox::str![[r#"
plugins::oci::tag_moved

  × oci://[REG]/fleet/plugins:v1 moved: it named
  │ [FIRST] when this home last
  │ synced from it, and names
  │ [MOVED] now; nothing was
  │ changed
  help: to take what the tag names now, pull it by digest: `plugins sync --frozen --from
        oci://[REG]/fleet/plugins:v1@[MOVED]`
        (it is recorded as the tag's digest)

"#]]);
    // doctor says the pinned digest is still there and the tag names another one.
    let pairs = [
        ("[REG]", host.clone()),
        ("[FIRST]", f.digest.clone()),
        ("[MOVED]", moved.clone()),
        ("[T]", t),
    ];
    assert_redacted(
        &doctor(&machine),
        &pairs,
        snapbox::str![[r#"
[
  {
    "area": "registry",
    "status": "warn",
    "message": "oci://[REG]/fleet/plugins:v1: pinned [FIRST] is there, but the tag names [MOVED] now (credentials: none (anonymous))",
    "code": "plugins::oci::tag_moved",
    "help": "a sync from the tag is refused; to take it: `plugins sync --frozen --from oci://[REG]/fleet/plugins:v1@[MOVED]`",
    "home": "[T]/machine"
  }
]
"#]],
    );
    // The pinned manifest removed from the registry's storage: doctor says it is gone.
    let revision = f
        .reg
        .storage
        .join("docker/registry/v2/repositories/fleet/plugins/_manifests/revisions/sha256")
        .join(f.digest.trim_start_matches("sha256:"));
    std::fs::remove_dir_all(&revision).unwrap();
    assert_redacted(
        &doctor(&machine),
        &pairs,
        snapbox::str![[r#"
[
  {
    "area": "registry",
    "status": "fail",
    "message": "oci://[REG]/fleet/plugins:v1: the pinned [FIRST] is gone from the registry (credentials: none (anonymous))",
    "code": "plugins::oci::artifact",
    "help": "push the bundle again (`plugins bundle --push`) and sync from its digest",
    "home": "[T]/machine"
  }
]
"#]],
    );
    // The way out it names works, and records the new digest: the tag pulls again.
    pull_plain(&machine, &format!("{}@{moved}", f.tag)).success();
    pull_plain(&machine, &f.tag).success();
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&machine)
        .run()
        .success();
}

#[test]
fn a_pull_killed_mid_layer_resumes_where_it_stopped_and_converges() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let reg = Registry::start(&t.join("registry"), &Options::default());
    // One plugin with 8 MiB of incompressible data: its layer takes seconds through the
    // trickle relay (64 KiB every 20 ms).
    let repo = Repo::init(&t.join("src-big"));
    repo.file(
        ".aworld-plugin/plugin.json",
        r#"{"id": "big", "version": "1.0.0"}"#,
    );
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let data: Vec<u8> = (0..8 << 20)
        .map(|_| (crate::support::net::xorshift(&mut state) >> 24) as u8)
        .collect();
    std::fs::write(repo.dir.join("data.bin"), &data).unwrap();
    repo.commit("1.0.0");
    let home = t.join("origin-home");
    Plugins::new()
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    let direct = format!("oci://{}/fleet/big:v1", reg.host());
    push(
        &mut with_registry(None, None),
        &home,
        &direct,
        &["--plain-http"],
    )
    .success();

    let trickle = crate::support::net::Trickle::to(reg.port);
    let slow = format!("oci://127.0.0.1:{}/fleet/big:v1", trickle.port);
    let machine = empty_home_with_lock_of(&t, "machine", &home);
    let blobs = machine.join(".plugins/oci/blobs/sha256");
    let mut cmd = with_registry(None, None);
    cmd.args([
        "sync",
        "--frozen",
        "--yes",
        "--json",
        "--plain-http",
        "--home",
    ])
    .arg(&machine)
    .args(["--from", &slow]);
    let mut child = cmd.spawn();
    // Killed once a part of the big layer is on disk.
    let start = std::time::Instant::now();
    let partial = loop {
        let found = std::fs::read_dir(&blobs).ok().and_then(|d| {
            d.flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|x| x == "partial"))
                .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 1 << 20))
        });
        if let Some(p) = found {
            break p;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "no partial download appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = std::fs::metadata(&partial).unwrap().len();
    assert!(
        !machine.join("plugins/big").exists(),
        "nothing installed at the kill"
    );

    // The same command again: it downloads only what the kill left missing.
    let ran = sync_from(
        &mut with_registry(None, None),
        &machine,
        &slow,
        &["--plain-http", "--json"],
    );
    ran.success();
    let s: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let fetched = s["pulled"]["fetched_bytes"].as_u64().unwrap();
    let big = std::fs::metadata(machine.join("plugins/big/data.bin"))
        .unwrap()
        .len();
    assert!(
        fetched < big && fetched + kept >= big,
        "resumed: {fetched} bytes fetched after {kept} kept, layer of {big}+"
    );
    assert!(!partial.exists());
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&machine)
        .run()
        .success();
    // And once more, with nothing to do: nothing is downloaded.
    let ran = sync_from(
        &mut with_registry(None, None),
        &machine,
        &slow,
        &["--plain-http", "--json"],
    );
    let s: serde_json::Value = serde_json::from_str(&ran.success().stdout).unwrap();
    assert_eq!(s["pulled"]["fetched_bytes"], 0, "{s}");
}

#[test]
fn a_pull_through_cache_serves_the_fleet_with_the_origin_stopped_each_blob_fetched_once() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let mut f = plain_fleet(&t);
    let cache = Registry::start(
        &t.join("cache"),
        &Options {
            proxy_of: Some(format!("http://{}", f.reg.host())),
            ..Options::default()
        },
    );
    let through = format!("oci://{}/fleet/plugins:v1", cache.host());
    let origin_gets = |reg: &Registry| reg.blob_gets().iter().map(|(_, n)| n).sum::<usize>();
    let machine = |n: usize| {
        let m = empty_home_with_lock_of(&t, &format!("machine-{n}"), &f.home);
        pull_plain(&m, &through).success();
        Plugins::new()
            .args(["verify", "--home"])
            .arg(&m)
            .run()
            .success();
    };
    machine(1);
    // distribution 2.8's cache fetches a blob it lacks from the origin twice (once to serve
    // it, once to store it), and never again: the fleet's size does not reach the origin.
    let gets = f.reg.blob_gets();
    assert_eq!(
        gets.len(),
        4,
        "the config, the lock, alpha's and beta's layer: {gets:?}"
    );
    assert!(gets.iter().all(|(_, n)| (1..=2).contains(n)), "{gets:?}");
    let after_first = origin_gets(&f.reg);
    for n in 2..=3 {
        machine(n);
    }
    assert_eq!(
        origin_gets(&f.reg),
        after_first,
        "machines 2 and 3 came from the cache"
    );
    // With the origin stopped, a new machine still pulls by tag through the cache.
    f.reg.stop();
    machine(4);
}

#[test]
fn credentials_come_from_a_helper_registry_auth_file_or_the_environment_and_are_never_shown() {
    if !registry::available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let (ca, reg) = tls_registry(&t);
    let host = reg.host();
    let (home, _, _) = fleet_home(&t);
    let tag = format!("oci://{host}/fleet/plugins:v1");
    // The environment: PLUGINS_REGISTRY_USERNAME and PLUGINS_REGISTRY_TOKEN.
    let mut cmd = with_registry(Some(&ca), None);
    cmd.env("PLUGINS_REGISTRY_USERNAME", "fleet")
        .env("PLUGINS_REGISTRY_TOKEN", PASSWORD);
    let pushed = push(&mut cmd, &home, &tag, &[]);
    pushed.success();
    let mut outputs = vec![pushed.stdout.clone(), pushed.stderr.clone()];

    // A credential helper named by docker's config (`credHelpers`), found on PATH.
    let bin = t.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let helper = bin.join("docker-credential-fleetvault");
    std::fs::write(
        &helper,
        format!(
            "#!/bin/sh\nread registry\n[ \"$1\" = get ] && [ \"$registry\" = {host} ] || exit 1\nprintf '{{\"Username\":\"fleet\",\"Secret\":\"{PASSWORD}\"}}'\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let docker = t.join("docker");
    std::fs::create_dir_all(&docker).unwrap();
    std::fs::write(
        docker.join("config.json"),
        format!(r#"{{"credHelpers": {{"{host}": "fleetvault"}}}}"#),
    )
    .unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let by_helper = empty_home_with_lock_of(&t, "machine-1", &home);
    let mut cmd = with_registry(Some(&ca), Some(&docker));
    cmd.env("PATH", &path);
    let ran = sync_from(&mut cmd, &by_helper, &tag, &[]);
    ran.success();
    outputs.extend([ran.stdout.clone(), ran.stderr.clone()]);
    // doctor names the helper, not what it said.
    let mut cmd = with_registry(Some(&ca), Some(&docker));
    cmd.env("PATH", &path);
    let mut ran = cmd
        .args(["doctor", "--json", "--home"])
        .arg(&by_helper)
        .run();
    outputs.extend([ran.stdout.clone(), ran.stderr.clone()]);
    ran.redact("[REG]", &host).redact("[T]", &t);
    let v: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let registry_check = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == "registry")
        .cloned()
        .unwrap();
    ran.redacted_eq(
        registry_check["message"].as_str().unwrap(),
        snapbox::str!["oci://[REG]/fleet/plugins:v1: pinned [..] is there and the tag names it (credentials: docker's config [T]/docker/config.json (docker-credential-fleetvault))"],
    );

    // Docker's `credsStore` (every registry), with no credHelpers entry: a helper that
    // answers and leaves a child holding its output open. The answer is taken and the
    // child stopped with the helper's group: nothing outlives the command.
    let lingering = bin.join("docker-credential-lingering");
    std::fs::write(
        &lingering,
        std::fs::read_to_string(&helper).unwrap() + "sleep 317 &\n",
    )
    .unwrap();
    std::fs::set_permissions(&lingering, std::fs::Permissions::from_mode(0o755)).unwrap();
    let store = t.join("docker-store");
    std::fs::create_dir_all(&store).unwrap();
    std::fs::write(store.join("config.json"), r#"{"credsStore": "lingering"}"#).unwrap();
    let by_store = empty_home_with_lock_of(&t, "machine-store", &home);
    let mut cmd = with_registry(Some(&ca), Some(&store));
    cmd.env("PATH", &path);
    let ran = sync_from(&mut cmd, &by_store, &tag, &["--json"]);
    ran.success();
    outputs.extend([ran.stdout.clone(), ran.stderr.clone()]);
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&by_store)
        .run()
        .success();
    let left = std::process::Command::new("pgrep")
        .args(["-f", "sleep 317"])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "the helper's child outlived the command: {}",
        String::from_utf8_lossy(&left.stdout)
    );

    // REGISTRY_AUTH_FILE (podman's and skopeo's), which comes before docker's config.
    let auth_file = t.join("auth.json");
    let basic = crate::support::net::basic("fleet", PASSWORD);
    std::fs::write(
        &auth_file,
        format!(
            r#"{{"auths": {{"{host}": {{"auth": "{}"}}}}}}"#,
            basic.trim_start_matches("Basic ")
        ),
    )
    .unwrap();
    let by_file = empty_home_with_lock_of(&t, "machine-2", &home);
    let mut cmd = with_registry(Some(&ca), Some(&docker));
    cmd.env("REGISTRY_AUTH_FILE", &auth_file);
    let ran = sync_from(&mut cmd, &by_file, &tag, &[]);
    ran.success();
    outputs.extend([ran.stdout.clone(), ran.stderr.clone()]);

    // A wrong password: the registry's 401, and where the credentials came from.
    let wrong = crate::support::net::basic("fleet", "not-the-password");
    std::fs::write(
        &auth_file,
        format!(
            r#"{{"auths": {{"{host}": {{"auth": "{}"}}}}}}"#,
            wrong.trim_start_matches("Basic ")
        ),
    )
    .unwrap();
    let refused = empty_home_with_lock_of(&t, "machine-3", &home);
    let mut cmd = with_registry(Some(&ca), None);
    cmd.env("REGISTRY_AUTH_FILE", &auth_file);
    let mut ran = sync_from(&mut cmd, &refused, &tag, &[]);
    outputs.extend([ran.stdout.clone(), ran.stderr.clone()]);
    ran.redact("[REG]", &host).redact("[T]", &t);
    ran.code(2);
    // Unwrapped first; the file's directory is a wildcard (the message may wrap inside it).
    let flat = ran.stderr.replace("\n  │ ", " ").replace("\n        ", " ");
    ran.redacted_eq(&flat, snapbox::str![[r#"
plugins::oci::registry

  × oci://[REG]/fleet/plugins:v1: reading its manifest failed: Not authorized: url https://[REG]/v2/fleet/plugins/manifests/v1 (credentials: REGISTRY_AUTH_FILE [..]/auth.json (auths))
  help: check the registry's address, `--plain-http` for a registry without TLS, SSL_CERT_FILE for a private CA, and its credentials (`plugins doctor` names their source for each registry a home synced from)

"#]]);
    assert!(!refused.join("plugins").exists());

    for text in &outputs {
        assert!(!text.contains(PASSWORD), "the password was shown: {text}");
    }
    for h in [&by_helper, &by_store, &by_file, &refused] {
        for f in all_files(h) {
            let bytes = std::fs::read(&f).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(PASSWORD),
                "{} holds the password",
                f.display()
            );
        }
    }
}

/// Peak memory does not follow a layer's size: 96 MiB of incompressible bytes in one plugin
/// (a directory source, which is copied and hashed in streams) is pushed in chunks, pulled to
/// disk, checked and unpacked in streams.
#[test]
fn memory_stays_bounded_pushing_and_pulling_a_large_incompressible_layer() {
    if !registry::available() {
        return;
    }
    if !Path::new("/usr/bin/time").exists() {
        assert!(std::env::var_os("CI").is_none(), "CI must have GNU time");
        return;
    }
    const MIB: u64 = 96;
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let reg = Registry::start(&t.join("registry"), &Options::default());
    let dir = t.join("big");
    std::fs::create_dir_all(dir.join(".aworld-plugin")).unwrap();
    std::fs::write(
        dir.join(".aworld-plugin/plugin.json"),
        r#"{"id": "big", "version": "1.0.0"}"#,
    )
    .unwrap();
    crate::support::measure::random_file(&dir.join("data.bin"), MIB);
    let home = t.join("origin-home");
    Plugins::new()
        .args(["install", dir.to_str().unwrap(), "--yes", "--home"])
        .arg(&home)
        .run()
        .success();
    let tag = format!("oci://{}/fleet/big:v1", reg.host());
    let mut cmd = with_registry(None, None);
    cmd.args(["bundle", "--plain-http", "--home"])
        .arg(&home)
        .args(["--push", &tag]);
    let (code, kib, out) = crate::support::measure::peak_rss_kib(&mut cmd);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 64 * 1024, "bundle --push: peak RSS {kib} KiB");
    let machine = empty_home_with_lock_of(&t, "machine", &home);
    let mut cmd = with_registry(None, None);
    cmd.args(["sync", "--frozen", "--yes", "--plain-http", "--home"])
        .arg(&machine)
        .args(["--from", &tag]);
    let (code, kib, out) = crate::support::measure::peak_rss_kib(&mut cmd);
    assert_eq!(code, 0, "{out}");
    assert!(kib < 64 * 1024, "sync --from oci://: peak RSS {kib} KiB");
    Plugins::new()
        .args(["verify", "--home"])
        .arg(&machine)
        .run()
        .success();
}
