//! aoe release-binary workers: a real HTTP server on loopback serves the release
//! listing and the assets.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

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

/// `plugins ARGS --home HOME` against the git mirror and the release server.
fn tool(mirror: &str, server: &Server, home: &Path, args: &[&str]) -> (i32, String, String) {
    Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
        .env("PLUGINS_GH_BASE", mirror)
        .env("PLUGINS_GITHUB_API", &server.base)
        .env("COLUMNS", "400")
        .run()
        .parts()
}

fn install_tool(mirror: &str, server: &Server, home: &Path) -> (i32, String, String) {
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
    let (code, stdout, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (_, info, _) = Plugins::new()
        .args(["info", "dev.example.tool", "--json", "--home"])
        .arg(&home)
        .run()
        .parts();
    let info: serde_json::Value = serde_json::from_str(&info).unwrap();
    assert_eq!(info["release"]["asset"], name.as_str());
    assert_eq!(
        info["release"]["sha256"],
        plugins::hash::bytes(&archive).as_str()
    );
    assert_eq!(
        Plugins::new()
            .args(["verify", "--home"])
            .arg(&home)
            .run()
            .parts()
            .0,
        0
    );
    std::fs::write(
        home.join("plugins/dev.example.tool/.aoe-build/release")
            .join(&name),
        b"tampered",
    )
    .unwrap();
    let (code, stdout, _) = Plugins::new()
        .args(["verify", "--home"])
        .arg(&home)
        .run()
        .parts();
    assert_eq!(code, 1);
    assert!(stdout.contains("the release asset"), "{stdout}");
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
    let (code, stdout, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, _, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 2);
    assert!(stderr.contains("plugins::install::release") && stderr.contains(&format!("release v1.2.0 has no asset {name:?} for this platform; available: [tool-plan9-mips.tar.gz]")), "{stderr}");

    // A wrong hash (the release's digest disagrees with the bytes).
    server.release("v1.2.0", &[(&name, &good, Some("sha256:0000"))]);
    let (code, _, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("but the release says sha256:0000"),
        "{stderr}"
    );

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
    let (code, _, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("has an entry that escapes the plugin directory: ../escape"),
        "{stderr}"
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
    let (code, _, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 2);
    assert!(stderr.contains("was cut short"), "{stderr}");
    assert!(
        !home.join("plugins/dev.example.tool").exists(),
        "nothing was installed"
    );

    // A good download installs; a later different download under the same lock is refused.
    server.route(&format!("/download/v1.2.0/{name}"), good.clone(), None);
    assert_eq!(install_tool(&mirror, &server, &home).0, 0);
    let other = targz(&[("worker", b"#!/bin/sh\necho changed\n")]);
    server.route(&format!("/download/v1.2.0/{name}"), other.clone(), None);
    std::fs::remove_dir_all(home.join("plugins/dev.example.tool")).unwrap();
    // A body whose length differs from the release's `size` is refused first.
    let (code, _, stderr) = tool(&mirror, &server, &home, &["sync", "--yes"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!(
            "the server sends {} bytes but the release says {}",
            other.len(),
            good.len()
        )),
        "{stderr}"
    );
    // The release now lists the new asset: the lock's pin refuses it.
    server.release("v1.2.0", &[(&name, &other, None)]);
    let (code, _, stderr) = tool(&mirror, &server, &home, &["sync", "--yes"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("but the lock says"), "{stderr}");
    // `--frozen`: the same refusal has its own code, and nothing is installed.
    let lock = std::fs::read(home.join("plugins.lock")).unwrap();
    let (code, _, stderr) = tool(&mirror, &server, &home, &["sync", "--frozen", "--yes"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("plugins::sync::asset_mismatch")
            && stderr.contains("the locked release asset cannot be had as locked"),
        "{stderr}"
    );
    assert!(!home.join("plugins/dev.example.tool").exists());
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);
}

#[test]
fn a_failed_update_download_keeps_the_working_install() {
    let tmp = tempfile::tempdir().unwrap();
    let (mirror, home, server, name) = tarball_plugin(tmp.path());
    let good = targz(&[("worker", b"#!/bin/sh\necho v1.2.0\n")]);
    server.release("v1.2.0", &[(&name, &good, None)]);
    assert_eq!(install_tool(&mirror, &server, &home).0, 0);

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
    let (code, stdout, stderr) = update();
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(stderr.contains("was cut short"), "{stderr}");
    let worker = home.join("plugins/dev.example.tool/worker");
    let ran = |w: &Path| {
        String::from_utf8_lossy(&std::process::Command::new(w).output().unwrap().stdout)
            .trim()
            .to_owned()
    };
    assert_eq!(ran(&worker), "v1.2.0", "the working install stays");
    assert_eq!(locked(&home, "dev.example.tool", "release_tag"), "v1.2.0");
    assert_eq!(
        Plugins::new()
            .args(["verify", "--home"])
            .arg(&home)
            .run()
            .parts()
            .0,
        0
    );

    // Once the asset is whole, the update lands and re-pins.
    server.route(&format!("/download/v1.3.0/{name}"), newer.clone(), None);
    let (code, stdout, stderr) = update();
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(locked(&home, "dev.example.tool", "release_tag"), "v1.2.0");

    server.release(
        "v1.3.0",
        &[(&name, &targz(&[("worker", b"#!/bin/sh\necho new\n")]), None)],
    );
    std::fs::remove_dir_all(home.join("plugins/dev.example.tool")).unwrap();
    let (code, stdout, stderr) = tool(&mirror, &server, &home, &["sync", "--yes"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let bundle = tmp.path().join("plugins.tar");
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &home,
        &["bundle", "-o", bundle.to_str().unwrap(), "--json"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_matches_output_schema("bundle.json", &serde_json::from_str(&stdout).unwrap());
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
    let (code, stdout, stderr) = Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&bundle)
        .arg("--home")
        .arg(&fresh)
        .env("PLUGINS_GH_BASE", nowhere)
        .env("PLUGINS_GITHUB_API", nowhere)
        .run()
        .parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = Plugins::new()
        .args(["sync", "--frozen", "--yes", "--from"])
        .arg(&swapped)
        .arg("--home")
        .arg(&again)
        .env("PLUGINS_GH_BASE", nowhere)
        .env("PLUGINS_GITHUB_API", nowhere)
        .run()
        .parts();
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("plugins::sync::asset_mismatch") && stderr.contains("the lock"),
        "{stderr}"
    );
    assert!(!again.join("plugins").join("dev.example.tool").exists());
    assert_eq!(
        std::fs::read(again.join("plugins.lock")).unwrap(),
        std::fs::read(home.join("plugins.lock")).unwrap()
    );
}

#[test]
fn asset_names_that_leave_the_plugin_are_refused_before_any_download() {
    for (runtime, version) in [
        ("asset = \"../../../escape-${os}\"\n", "1.2.0"),
        ("asset = \"w-${version}\"\n", "1.2.0/../../../../escape"),
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
        let (code, stdout, stderr) = install_tool(&mirror, &server, &home);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stderr.contains("plugins::install::unsafe_name"), "{stderr}");
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
    let (code, _, stderr) = install_tool(&mirror, &server, &home);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("is too large: it unpacks to more than 512 MiB"),
        "{stderr}"
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
    let (code, stdout, stderr) = Plugins::new()
        .without_proxies()
        .env_remove("GH_TOKEN")
        .args(["install", "gh:acme/tool@v1.2.0", "--yes", "--home"])
        .arg(&home)
        .env("PLUGINS_GH_BASE", &mirror)
        .env("PLUGINS_GITHUB_API", &server.base)
        .env("GITHUB_TOKEN", token)
        .env("HTTP_PROXY", &proxy.url)
        .run()
        .parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    assert!(!format!("{stdout}{stderr}").contains(token));
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
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let id = "dev.example.pinned";
    assert_eq!(locked(&home, id, "version"), "2.0.0");
    assert_eq!(locked(&home, id, "requested_ref"), "");
    assert_eq!(locked(&home, id, "ref_kind"), "default");
    assert_eq!(locked(&home, id, "resolved_commit"), c2);
    // An explicit ref asks no release.
    let before = server.seen.lock().unwrap().len();
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &tmp.path().join("home2"),
        &["install", "gh:acme/tool@v1.0.0", "--yes"],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let (code, stdout, stderr) = tool(
        &mirror,
        &server,
        &home,
        &["install", "gh:acme/tool", "--yes"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("plugins::install::release"), "{stderr}");
    assert!(stderr.contains("not a release"), "{stderr}");
    assert!(
        !home.join("plugins").exists()
            || std::fs::read_dir(home.join("plugins"))
                .unwrap()
                .next()
                .is_none()
    );
}
