//! aoe release-binary workers: a real HTTP server on loopback serves the release
//! listing and the assets.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::*;

/// Path → (body, declared length).
type Routes = Mutex<HashMap<String, (Vec<u8>, Option<usize>)>>;
/// Each request's line and `Authorization` header, in order.
type Seen = Mutex<Vec<(String, Option<String>)>>;

/// A route table served on 127.0.0.1 by a minimal
/// HTTP/1.1 server that closes every connection after one response, so a
/// declared length longer than the body reads as a cut-short download.
struct Server {
    base: String,
    routes: Arc<Routes>,
    seen: Arc<Seen>,
}

impl Server {
    fn start() -> Server {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let routes: Arc<Routes> = Arc::default();
        let seen: Arc<Seen> = Arc::default();
        let (table, log) = (routes.clone(), seen.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let _ = respond(stream, &table, &log);
            }
        });
        Server { base, routes, seen }
    }

    fn route(&self, path: &str, body: Vec<u8>, declared: Option<usize>) {
        self.routes
            .lock()
            .unwrap()
            .insert(path.to_owned(), (body, declared));
    }

    /// A release listing with these asset names (each served under /download/).
    fn release(&self, tag: &str, assets: &[(&str, &[u8], Option<&str>)]) {
        let list: Vec<serde_json::Value> = assets
            .iter()
            .map(|(name, bytes, digest)| {
                self.route(&format!("/download/{tag}/{name}"), bytes.to_vec(), None);
                let mut a = serde_json::json!({"name": name, "size": bytes.len(), "browser_download_url": format!("{}/download/{tag}/{name}", self.base)});
                if let Some(d) = digest {
                    a["digest"] = (*d).into();
                }
                a
            })
            .collect();
        let body = serde_json::json!({"tag_name": tag, "assets": list})
            .to_string()
            .into_bytes();
        self.route(
            &format!("/repos/acme/tool/releases/tags/{tag}"),
            body.clone(),
            None,
        );
        self.route("/repos/acme/tool/releases/latest", body, None);
    }
}

fn respond(mut stream: std::net::TcpStream, routes: &Routes, seen: &Seen) -> std::io::Result<()> {
    use std::io::{BufRead, Write};
    let mut reader = std::io::BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut authorization = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" {
            break;
        }
        if let Some((k, v)) = header.split_once(':')
            && k.eq_ignore_ascii_case("authorization")
        {
            authorization = Some(v.trim().to_owned());
        }
    }
    seen.lock()
        .unwrap()
        .push((request_line.trim_end().to_owned(), authorization));
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_owned();
    let found = routes.lock().unwrap().get(&path).cloned();
    let (status, body, declared) = match found {
        Some((body, declared)) => ("200 OK", body.clone(), declared.unwrap_or(body.len())),
        None => ("404 Not Found", b"not found".to_vec(), 9),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
    )?;
    stream.write_all(&body)?;
    stream.shutdown(std::net::Shutdown::Both)
}

fn os_arch() -> (&'static str, &'static str) {
    (std::env::consts::OS, std::env::consts::ARCH)
}

fn targz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    for (path, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        builder.append_data(&mut h, path, *data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// A gh: mirror of a plugin whose runtime is a release binary, plus a home path.
fn plugin(tmp: &Path, runtime: &str) -> (String, std::path::PathBuf) {
    let repo = Repo::init(&tmp.join("work"));
    let manifest = static_aoe("1.2.0").replace("dev.example.pinned", "dev.example.tool")
        + &format!("\n[runtime]\nkind = \"release-binary\"\n{runtime}");
    repo.file("aoe-plugin.toml", &manifest);
    repo.commit("tool");
    repo.tag("v1.2.0");
    repo.clone_bare(&tmp.join("mirror/acme/tool.git"));
    (
        format!("file://{}", tmp.join("mirror").display()),
        tmp.join("home"),
    )
}

/// `plugins ARGS --home HOME` against the git mirror and the release server; the
/// mirror, the server, the home and this platform's `<os>-<arch>` redacted.
fn tool(mirror: &str, server: &Server, home: &Path, args: &[&str]) -> Ran {
    let (os, arch) = os_arch();
    Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
        .env("PLUGINS_GH_BASE", mirror)
        .env("PLUGINS_GITHUB_API", &server.base)
        .env("COLUMNS", "400")
        .redact("[MIRROR]", mirror)
        .redact("[API]", &server.base)
        .redact("[HOME]", home)
        .redact("[PLATFORM]", format!("{os}-{arch}"))
        .run()
}

fn install_tool(mirror: &str, server: &Server, home: &Path) -> Ran {
    tool(
        mirror,
        server,
        home,
        &["install", "gh:acme/tool@v1.2.0", "--yes"],
    )
}

/// A plugin whose worker is `worker` in a per-platform tarball, its server and asset name.
fn tarball_plugin(tmp: &Path) -> (String, std::path::PathBuf, Server, String) {
    let (mirror, home) = plugin(
        tmp,
        "asset = \"tool-${os}-${arch}.tar.gz\"\nbin = \"worker\"\n",
    );
    let (os, arch) = os_arch();
    (
        mirror,
        home,
        Server::start(),
        format!("tool-{os}-{arch}.tar.gz"),
    )
}

#[test]
fn archives_are_unpacked_pinned_and_verified() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home) = plugin(
        tmp.path(),
        "asset = \"tool-${os}-${arch}-${version}.tar.gz\"\nbin = \"tool/bin/worker\"\n",
    );
    let server = Server::start();
    let (os, arch) = os_arch();
    let archive = targz(&[
        ("tool/bin/worker", b"#!/bin/sh\necho released\n"),
        ("tool/README", b"docs"),
    ]);
    let name = format!("tool-{os}-{arch}-1.2.0.tar.gz");
    server.release(
        "v1.2.0",
        &[
            (&name, &archive, None),
            ("tool-plan9-mips-1.2.0.tar.gz", b"x", None),
        ],
    );
    install_tool(&mirror, &server, &home).expect(
        0,
        str![[r#"
   Installed dev.example.tool 1.2.0 @ 92f9ec447d in [HOME]/plugins/dev.example.tool

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 92f9ec447dd3
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 92f9ec447dd3
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM]-1.2.0.tar.gz [..] bytes

"#]],
    );
    let worker = home.join("plugins/dev.example.tool/tool/bin/worker");
    let out = std::process::Command::new(&worker).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "released",
        "unpacked and executable"
    );
    assert_eq!(locked(&home, "dev.example.tool", "release_tag"), "v1.2.0");
    assert_eq!(locked(&home, "dev.example.tool", "asset_name"), name);
    assert_eq!(
        locked(&home, "dev.example.tool", "asset_sha256"),
        plugins::hash::bytes(&archive)
    );
    let hash = plugins::hash::bytes(&archive);
    tool(
        &mirror,
        &server,
        &home,
        &["info", "dev.example.tool", "--json"],
    )
    .redact("[ASSET_SHA]", &hash)
    .expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "id": "dev.example.tool",
  "dialect": "aoe",
  "version": "1.2.0",
  "source": "gh:acme/tool",
  "requested_ref": "v1.2.0",
  "ref_kind": "tag",
  "commit": "92f9ec447dd3d5bb9cc1e981df1675c4c9a8d0df",
  "manifest_hash": "sha256:da43ff254ebdfc988149492777eb671883c32f278af31e07b679ee5fe0bfefd7",
  "tree_hash": "sha256:8fa2f3e5db597a2750a3ef5a3480ead04abc3c1b3a61490d7be7f4da91968e68",
  "path": "[HOME]/plugins/dev.example.tool",
  "present": true,
  "valid": true,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": {
    "tag": "v1.2.0",
    "asset": "tool-[PLATFORM]-1.2.0.tar.gz",
    "sha256": "[ASSET_SHA]"
  },
  "home": "[HOME]",
  "enabled": true,
  "hold": null,
  "deps": null
}

"#]],
        str![],
    );
    tool(&mirror, &server, &home, &["verify"]).expect(
        0,
        str![[r#"
          ok dev.example.tool
1 verified, 0 changed

"#]],
        str![],
    );
    std::fs::write(
        home.join("plugins/dev.example.tool/.aoe-build/release")
            .join(&name),
        b"tampered",
    )
    .unwrap();
    tool(&mirror, &server, &home, &["verify"])
        .redact("[ASSET_SHA]", &hash)
        .expect(1, str![[r#"
    tampered dev.example.tool: the release asset tool-[PLATFORM]-1.2.0.tar.gz no longer hashes to the locked [ASSET_SHA]
    tampered dev.example.tool: its build output (.aoe-build) changed since it was built (sha256:557f795e17e602be89dbd6179f4633d21dc96802a7afcecd5997523e5ce38e53, locked sha256:0b497b72ace4f6a8dfda92fb6f438fc565686ed5f0281a8d5ace15b4bad5939b)
1 verified, 1 changed

"#]], str![]);
}

#[test]
fn raw_binaries_are_written_under_their_rendered_name() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home) = plugin(tmp.path(), "asset = \"tool-${os}-${arch}\"\n");
    let server = Server::start();
    let (os, arch) = os_arch();
    let name = format!("tool-{os}-{arch}");
    let digest = plugins::hash::bytes(b"#!/bin/sh\necho raw\n");
    server.release(
        "v1.2.0",
        &[(&name, b"#!/bin/sh\necho raw\n", Some(&digest))],
    );
    install_tool(&mirror, &server, &home).expect(
        0,
        str![[r#"
   Installed dev.example.tool 1.2.0 @ eda18d1dc9 in [HOME]/plugins/dev.example.tool

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched eda18d1dc965
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ eda18d1dc965
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM] [..] bytes

"#]],
    );
    let out = std::process::Command::new(home.join("plugins/dev.example.tool").join(&name))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "raw");
}

#[test]
fn bad_downloads_never_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    let good = targz(&[("worker", b"#!/bin/sh\n")]);

    // A missing platform asset lists what exists.
    server.release("v1.2.0", &[("tool-plan9-mips.tar.gz", &good, None)]);
    install_tool(&mirror, &server, &home).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 278b4ec96909
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::release

  × release v1.2.0 has no asset "tool-[PLATFORM].tar.gz" for this platform; available: [tool-plan9-mips.tar.gz]

"#]]);

    // A wrong hash (the release's digest disagrees with the bytes).
    server.release("v1.2.0", &[(&name, &good, Some("sha256:0000"))]);
    install_tool(&mirror, &server, &home).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 278b4ec96909
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM].tar.gz [..] bytes
plugins::install::release

  × tool-[PLATFORM].tar.gz hashes to sha256:21d8d9764371354f7222fb9fcdc9cc17debec0d5d2b37acd24242093bd06dfa8, but the release says sha256:0000

"#]]);

    // An archive with a `../` entry.
    let mut evil = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::fast(),
    ));
    let mut h = tar::Header::new_gnu();
    h.as_gnu_mut().unwrap().name[..9].copy_from_slice(b"../escape");
    h.set_size(1);
    h.set_mode(0o644);
    h.set_cksum();
    evil.append(&h, &b"x"[..]).unwrap();
    let evil = evil.into_inner().unwrap().finish().unwrap();
    server.release("v1.2.0", &[(&name, &evil, None)]);
    install_tool(&mirror, &server, &home).expect(
        2,
        str![],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 278b4ec96909
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM].tar.gz [..] bytes
plugins::install::release

  × archive tool-[PLATFORM].tar.gz has an entry that escapes the plugin directory: ../escape

"#]],
    );
    assert!(
        !tmp.path().join("home/plugins/escape").exists()
            && !tmp.path().join("home/escape").exists()
    );

    // A truncated download (the server declares more bytes than it sends).
    server.release("v1.2.0", &[(&name, &good, None)]);
    server.route(
        &format!("/download/v1.2.0/{name}"),
        good.clone(),
        Some(good.len() + 1000),
    );
    install_tool(&mirror, &server, &home).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 278b4ec96909
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::release

  × the download of tool-[PLATFORM].tar.gz was cut short: the server sends 1111 bytes but the release says 111

"#]]);
    assert!(
        !home.join("plugins/dev.example.tool").exists(),
        "nothing was installed"
    );

    // A good download installs; a later different download under the same lock is refused.
    server.route(&format!("/download/v1.2.0/{name}"), good.clone(), None);
    install_tool(&mirror, &server, &home).success();
    let other = targz(&[("worker", b"#!/bin/sh\necho changed\n")]);
    server.route(&format!("/download/v1.2.0/{name}"), other.clone(), None);
    std::fs::remove_dir_all(home.join("plugins/dev.example.tool")).unwrap();
    // A body whose length differs from the release's `size` is refused first.
    tool(&mirror, &server, &home, &["sync", "--yes"]).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
plugins::install::release

  × the download of tool-[PLATFORM].tar.gz was cut short: the server sends 120 bytes but the release says 111

"#]]);
    // The release now lists the new asset: the lock's pin refuses it.
    server.release("v1.2.0", &[(&name, &other, None)]);
    tool(&mirror, &server, &home, &["sync", "--yes"]).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
 Downloading tool-[PLATFORM].tar.gz [..] bytes
plugins::install::release

  × tool-[PLATFORM].tar.gz hashes to sha256:8d74b9f5e2a928f19e6e5ea967f5d34d5472073204fe44ad36ef986742d44bb5, but the lock says
  │ sha256:21d8d9764371354f7222fb9fcdc9cc17debec0d5d2b37acd24242093bd06dfa8

"#]]);
    // `--frozen`: the same refusal has its own code, and nothing is installed.
    let lock = std::fs::read(home.join("plugins.lock")).unwrap();
    tool(&mirror, &server, &home, &["sync", "--frozen", "--yes"]).expect(2, str![], str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
 Downloading tool-[PLATFORM].tar.gz [..] bytes
plugins::sync::asset_mismatch

  × dev.example.tool: the locked release asset cannot be had as locked: tool-[PLATFORM].tar.gz hashes to sha256:8d74b9f5e2a928f19e6e5ea967f5d34d5472073204fe44ad36ef986742d44bb5, but the lock says
  │ sha256:21d8d9764371354f7222fb9fcdc9cc17debec0d5d2b37acd24242093bd06dfa8; nothing was changed
  help: --frozen installs only what the lock pins; the release must still serve the asset with the lock's sha256

"#]]);
    assert!(!home.join("plugins/dev.example.tool").exists());
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);
}

#[test]
fn a_failed_update_download_keeps_the_working_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    let good = targz(&[("worker", b"#!/bin/sh\necho v1.2.0\n")]);
    server.release("v1.2.0", &[(&name, &good, None)]);
    install_tool(&mirror, &server, &home).success();

    // v1.3.0 is tagged, but its release asset is cut short.
    let work = tmp.path().join("work");
    let manifest = std::fs::read_to_string(work.join("aoe-plugin.toml"))
        .unwrap()
        .replace("version = \"1.2.0\"", "version = \"1.3.0\"");
    std::fs::write(work.join("aoe-plugin.toml"), manifest).unwrap();
    git(&work, &["commit", "-qam", "v1.3.0"]);
    git(&work, &["tag", "v1.3.0"]);
    git(
        &work,
        &[
            "push",
            "-q",
            tmp.path().join("mirror/acme/tool.git").to_str().unwrap(),
            "v1.3.0",
        ],
    );
    let newer = targz(&[("worker", b"#!/bin/sh\necho v1.3.0\n")]);
    server.release("v1.3.0", &[(&name, &newer, None)]);
    server.route(
        &format!("/download/v1.3.0/{name}"),
        newer[..newer.len() / 2].to_vec(),
        Some(newer.len()),
    );
    let update = || tool(&mirror, &server, &home, &["update", "--all", "--yes"]);
    update().expect(
        1,
        str![],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched e4593c148997
plugins::install::release

  × the download of tool-[PLATFORM].tar.gz was cut short: request or response body error

"#]],
    );
    let worker = home.join("plugins/dev.example.tool/worker");
    let ran = |w: &Path| {
        String::from_utf8_lossy(&std::process::Command::new(w).output().unwrap().stdout)
            .trim()
            .to_owned()
    };
    assert_eq!(ran(&worker), "v1.2.0", "the working install stays");
    assert_eq!(locked(&home, "dev.example.tool", "release_tag"), "v1.2.0");
    tool(&mirror, &server, &home, &["verify"]).expect(
        0,
        str![[r#"
          ok dev.example.tool
1 verified, 0 changed

"#]],
        str![],
    );

    // Once the asset is whole, the update lands and re-pins.
    server.route(&format!("/download/v1.3.0/{name}"), newer.clone(), None);
    update().expect(
        0,
        str![[r#"
     Updated dev.example.tool to v1.3.0 @ e4593c1489

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched e4593c148997
 Downloading tool-[PLATFORM].tar.gz [..] bytes

"#]],
    );
    assert_eq!(ran(&worker), "v1.3.0");
    assert_eq!(
        locked(&home, "dev.example.tool", "asset_sha256"),
        plugins::hash::bytes(&newer)
    );
}

#[test]
fn sync_refetches_the_locked_release_not_the_latest() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    let old = targz(&[("worker", b"#!/bin/sh\necho old\n")]);
    server.release("v1.2.0", &[(&name, &old, None)]);
    // No tag requested: the latest release is used and pinned.
    tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    )
    .expect(
        0,
        str![[r#"
   Installed dev.example.tool 1.2.0 @ 278b4ec969 in [HOME]/plugins/dev.example.tool

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
 Downloading tool-[PLATFORM].tar.gz [..] bytes

"#]],
    );
    assert_eq!(locked(&home, "dev.example.tool", "release_tag"), "v1.2.0");

    server.release(
        "v1.3.0",
        &[(&name, &targz(&[("worker", b"#!/bin/sh\necho new\n")]), None)],
    );
    std::fs::remove_dir_all(home.join("plugins/dev.example.tool")).unwrap();
    tool(&mirror, &server, &home, &["sync", "--yes"]).expect(
        0,
        str![[r#"
      Synced dev.example.tool 1.2.0

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
 Downloading tool-[PLATFORM].tar.gz [..] bytes

"#]],
    );
    let out = std::process::Command::new(home.join("plugins/dev.example.tool/worker"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "old");
}

/// `plugins bundle` carries the locked release asset, and `sync --frozen --from` installs it
/// with neither the git mirror nor the release server reachable; a bundled asset that does
/// not hash to the lock is refused with nothing installed.
#[test]
fn a_bundle_carries_the_locked_release_asset() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    let asset = targz(&[("worker", b"#!/bin/sh\necho bundled\n")]);
    server.release("v1.2.0", &[(&name, &asset, None)]);
    install_tool(&mirror, &server, &home).success();
    let bundle = tmp.path().join("plugins.tar");
    let mut ran = tool(
        &mirror,
        &server,
        &home,
        &["bundle", "-o", bundle.to_str().unwrap(), "--json"],
    );
    ran.redact("[BUNDLE]", &bundle).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "bundle": {
    "output": "[BUNDLE]",
    "bytes": 6144,
    "plugins": [
      {
        "id": "dev.example.tool",
        "commit": "278b4ec969091f0836b5d6433585dec888ba694f",
        "tree_hash": "sha256:304f0373419b2b9c070d942a029ab5f57af149df59c1c9450bd695b5bbb7c615",
        "wheels": 0
      }
    ]
  }
}

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
 Downloading tool-[PLATFORM].tar.gz [..] bytes

"#]],
    );
    assert_matches_output_schema("bundle.json", &serde_json::from_str(&ran.stdout).unwrap());
    let listed = std::process::Command::new("tar")
        .arg("-tf")
        .arg(&bundle)
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains(&format!("assets/dev.example.tool/{name}")),
        "{listed}"
    );

    // A fresh home with the lock alone; nothing to fetch from: no mirror, no release server.
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    let nowhere = "http://127.0.0.1:9";
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&bundle)
        .arg("--home")
        .arg(&fresh)
        .env("PLUGINS_GH_BASE", nowhere)
        .env("PLUGINS_GITHUB_API", nowhere)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
      Synced dev.example.tool 1.2.0

"#]],
            str![[r#"
    Fetching gh:acme/tool from the bundle
     Fetched 278b4ec96909

"#]],
        );
    let out = std::process::Command::new(fresh.join("plugins/dev.example.tool/worker"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "bundled");
    assert_eq!(
        std::fs::read(fresh.join("plugins.lock")).unwrap(),
        std::fs::read(home.join("plugins.lock")).unwrap()
    );

    // A bundle whose asset was swapped (its manifest rewritten to match): the asset does
    // not hash to the lock's pin, so it is refused and nothing is installed.
    let swapped = tmp.path().join("swapped.tar");
    let evil = targz(&[("worker", b"#!/bin/sh\necho evil\n")]);
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut archive = tar::Archive::new(std::fs::File::open(&bundle).unwrap());
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_string_lossy().into_owned();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut bytes).unwrap();
        entries.push((path, bytes));
    }
    let asset_path = format!("assets/dev.example.tool/{name}");
    for (path, bytes) in &mut entries {
        if *path == asset_path {
            *bytes = evil.clone();
        }
    }
    for (path, bytes) in &mut entries {
        if path.ends_with(".json") && !path.contains('/') {
            let mut manifest: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            manifest["files"][&asset_path] = plugins::hash::bytes(&evil).into();
            *bytes = serde_json::to_vec(&manifest).unwrap();
        }
    }
    let mut builder = tar::Builder::new(std::fs::File::create(&swapped).unwrap());
    for (path, bytes) in &entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        builder
            .append_data(&mut header, path, bytes.as_slice())
            .unwrap();
    }
    builder.finish().unwrap();
    let again = tmp.path().join("again");
    std::fs::create_dir_all(&again).unwrap();
    std::fs::copy(home.join("plugins.lock"), again.join("plugins.lock")).unwrap();
    Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&swapped)
        .arg("--home")
        .arg(&again)
        .env("PLUGINS_GH_BASE", nowhere)
        .env("PLUGINS_GITHUB_API", nowhere)
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .redact("[PLATFORM]", format!("{}-{}", os_arch().0, os_arch().1))
        .run()
        .expect(2, str![], str![[r#"
    Fetching gh:acme/tool from the bundle
     Fetched 278b4ec96909
plugins::sync::asset_mismatch

  × dev.example.tool: the locked release asset cannot be had as locked: tool-[PLATFORM].tar.gz hashes to sha256:a32f5ab666ea49f48d5fd17dfa1b0885bdf331fd81564117c1a353730a365731, but the lock says
  │ sha256:d1975cf52224d1eecd4e67076387c26f2c8df5f351f1693d63a8cb8c80d29471; nothing was changed
  help: --frozen installs only what the lock pins; the release must still serve the asset with the lock's sha256

"#]]);
    assert!(!again.join("plugins").join("dev.example.tool").exists());
    assert_eq!(
        std::fs::read(again.join("plugins.lock")).unwrap(),
        std::fs::read(home.join("plugins.lock")).unwrap()
    );
}

#[test]
fn asset_names_that_leave_the_plugin_are_refused_before_any_download() {
    for (runtime, version, refused) in [
        (
            "asset = \"../../../escape-${os}\"\n",
            "1.2.0",
            str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched f04235442f76
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ f04235442f76
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::unsafe_name

  × the release asset name "../../../escape-[OS]" cannot be a file name: it contains a path separator (`/` or `\`)

"#]],
        ),
        (
            "asset = \"w-${version}\"\n",
            "1.2.0/../../../../escape",
            str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 554ac185505c
aoe plugin `dev.example.tool` 1.2.0/../../../../escape from gh:acme/tool @ 554ac185505c
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
plugins::install::unsafe_name

  × the release asset name "w-1.2.0/../../../../escape" cannot be a file name: it contains a path separator (`/` or `\`)

"#]],
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let (mirror, home) = plugin(tmp.path(), runtime);
        if version != "1.2.0" {
            let work = tmp.path().join("work");
            let text = std::fs::read_to_string(work.join("aoe-plugin.toml")).unwrap();
            std::fs::write(
                work.join("aoe-plugin.toml"),
                text.replace("\"1.2.0\"", &format!("{version:?}")),
            )
            .unwrap();
            git(&work, &["commit", "-qam", "hostile version"]);
            git(&work, &["tag", "-f", "v1.2.0"]);
            git(
                &work,
                &[
                    "push",
                    "-q",
                    "-f",
                    tmp.path().join("mirror/acme/tool.git").to_str().unwrap(),
                    "main",
                    "v1.2.0",
                ],
            );
        }
        // The server would serve the hostile name; it must never be asked.
        let server = Server::start();
        let name = plugins::release::render(runtime.split('"').nth(1).unwrap(), version);
        server.release("v1.2.0", &[(&name, b"#!/bin/sh\n", None)]);
        let before: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        install_tool(&mirror, &server, &home)
            .redact("[OS]", os_arch().0)
            .expect(2, str![], refused);
        let mut after: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        after.retain(|n| n != "home");
        assert_eq!(after, before, "nothing written beside the home");
        assert!(!home.join("plugins.lock").exists());
    }
}

#[test]
fn an_archive_that_unpacks_too_large_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    // One entry whose header claims 600 MiB: more than max(512 MiB, 20 x the
    // compressed size). Nothing past the header is read.
    let mut header = tar::Header::new_gnu();
    header.set_path("worker").unwrap();
    header.set_size(600 * 1024 * 1024);
    header.set_mode(0o755);
    header.set_cksum();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, header.as_bytes()).unwrap();
    std::io::Write::write_all(&mut gz, &[0u8; 4096]).unwrap();
    let bomb = gz.finish().unwrap();
    server.release("v1.2.0", &[(&name, &bomb, None)]);
    install_tool(&mirror, &server, &home).expect(
        2,
        str![],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 278b4ec96909
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ 278b4ec96909
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM].tar.gz [..] bytes
plugins::install::release

  × archive tool-[PLATFORM].tar.gz is too large: it unpacks to more than 512 MiB

"#]],
    );
    assert!(!home.join("plugins/dev.example.tool").exists());
    assert_eq!(plugins::release::unpack_limit(1 << 20), 512 << 20);
    assert_eq!(plugins::release::unpack_limit(100 << 20), 2000 << 20);
}

/// `GITHUB_TOKEN` reaches the API host as a Bearer token, and API and download
/// traffic goes through `HTTP_PROXY` (reqwest's own reading of the environment
/// is off: the same settings as git's decide).
#[test]
fn the_token_and_the_proxy_reach_the_api() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home) = plugin(tmp.path(), "asset = \"tool-${os}-${arch}\"\n");
    let server = Server::start();
    let (os, arch) = os_arch();
    let name = format!("tool-{os}-{arch}");
    server.release("v1.2.0", &[(&name, b"#!/bin/sh\necho raw\n", None)]);
    let proxy = crate::support::net::Proxy::start();
    let token = "ghp_t0ken-never-shown";
    let ran = Plugins::new()
        .without_proxies()
        .env_remove("GH_TOKEN")
        .args(["install", "gh:acme/tool@v1.2.0", "--yes", "--home"])
        .arg(&home)
        .env("PLUGINS_GH_BASE", &mirror)
        .env("PLUGINS_GITHUB_API", &server.base)
        .env("GITHUB_TOKEN", token)
        .env("HTTP_PROXY", &proxy.url)
        .redact("[MIRROR]", &mirror)
        .redact("[HOME]", &home)
        .redact("[PLATFORM]", format!("{}-{}", os_arch().0, os_arch().1))
        .run();
    ran.expect(
        0,
        str![[r#"
   Installed dev.example.tool 1.2.0 @ eda18d1dc9 in [HOME]/plugins/dev.example.tool

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched eda18d1dc965
aoe plugin `dev.example.tool` 1.2.0 from gh:acme/tool @ eda18d1dc965
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)
 Downloading tool-[PLATFORM] [..] bytes

"#]],
    );
    let seen = server.seen.lock().unwrap().clone();
    let bearer = format!("Bearer {token}");
    assert!(
        seen.iter().any(|(line, auth)| line
            .starts_with("GET /repos/acme/tool/releases/tags/v1.2.0 ")
            && auth.as_deref() == Some(&bearer)),
        "{seen:?}"
    );
    let api = format!("GET {}/repos/acme/tool/releases/tags/v1.2.0 ", server.base);
    let download = format!("GET {}/download/v1.2.0/{name} ", server.base);
    let through = proxy.lines();
    assert!(through.iter().any(|l| l.starts_with(&api)), "{through:?}");
    assert!(
        through.iter().any(|l| l.starts_with(&download)),
        "{through:?}"
    );
    assert!(!format!("{}{}", ran.stdout, ran.stderr).contains(token));
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(!lock.contains(token), "{lock}");
}

/// `gh:acme/tool` on a mirror whose main is one commit past tag v1.0.0 (1.0.0, then 2.0.0).
fn released_then_moved(tmp: &Path) -> (String, std::path::PathBuf, [String; 2]) {
    let repo = Repo::init(&tmp.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("one");
    repo.tag("v1.0.0");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    let c2 = repo.commit("two");
    repo.clone_bare(&tmp.join("mirror/acme/tool.git"));
    (
        format!("file://{}", tmp.join("mirror").display()),
        tmp.join("home"),
        [c1, c2],
    )
}

#[test]
fn a_gh_source_without_a_ref_installs_the_latest_release() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, [c1, _]) = released_then_moved(tmp.path());
    let server = Server::start();
    server.release("v1.0.0", &[]);
    tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    )
    .expect(
        0,
        str![[r#"
   Installed dev.example.pinned 1.0.0 @ 1e89944df1 in [HOME]/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 1e89944df1ab

"#]],
    );
    let id = "dev.example.pinned";
    assert_eq!(locked(&home, id, "version"), "1.0.0");
    assert_eq!(locked(&home, id, "requested_ref"), "v1.0.0");
    assert_eq!(locked(&home, id, "ref_kind"), "tag");
    assert_eq!(locked(&home, id, "resolved_commit"), c1);
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|(line, _)| line.starts_with("GET /repos/acme/tool/releases/latest ")),
    );
}

#[test]
fn a_gh_source_without_a_release_installs_the_default_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, [_, c2]) = released_then_moved(tmp.path());
    // The server has no release: /releases/latest is 404.
    let server = Server::start();
    tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    )
    .expect(
        0,
        str![[r#"
   Installed dev.example.pinned 2.0.0 @ 247df5be2d in [HOME]/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 247df5be2d6a
aoe plugin `dev.example.pinned` 2.0.0 from gh:acme/tool @ 247df5be2d6a
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
    );
    let id = "dev.example.pinned";
    assert_eq!(locked(&home, id, "version"), "2.0.0");
    assert_eq!(locked(&home, id, "requested_ref"), "");
    assert_eq!(locked(&home, id, "ref_kind"), "default");
    assert_eq!(locked(&home, id, "resolved_commit"), c2);
    // An explicit ref asks no release.
    let before = server.seen.lock().unwrap().len();
    tool(
        &mirror,
        &server,
        &tmp.path().join("home2"),
        &["install", "gh:acme/tool@v1.0.0", "--yes"],
    )
    .expect(
        0,
        str![[r#"
   Installed dev.example.pinned 1.0.0 @ 1e89944df1 in [HOME]/plugins/dev.example.pinned

"#]],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
     Fetched 1e89944df1ab
aoe plugin `dev.example.pinned` 1.0.0 from gh:acme/tool @ 1e89944df1ab
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]],
    );
    assert_eq!(server.seen.lock().unwrap().len(), before);
}

#[test]
fn a_failing_release_lookup_stops_the_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, _) = released_then_moved(tmp.path());
    let server = Server::start();
    server.route(
        "/repos/acme/tool/releases/latest",
        b"{not json".to_vec(),
        None,
    );
    tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    )
    .expect(
        2,
        str![],
        str![[r#"
    Fetching [MIRROR]/acme/tool.git
plugins::install::release

  × [API]/repos/acme/tool/releases/latest: not a release: key must be a string at line 1 column 2

"#]],
    );
    assert!(
        !home.join("plugins").exists()
            || std::fs::read_dir(home.join("plugins"))
                .unwrap()
                .next()
                .is_none()
    );
}
