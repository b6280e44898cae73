//! Private, proxied and authenticated sources (issue #15): a loopback smart-HTTP
//! git server that demands Basic auth; every credential source is tried, and no
//! secret is ever stored or shown.

use std::path::{Path, PathBuf};

use snapbox::str;

use crate::support::git::Repo;
use crate::support::net::{GitServer, Proxy, basic};
use crate::support::*;

const SECRET: &str = "s3cr3t-t0ken-4711";

/// A bare `acme/kit.git` under `tmp/srv` served with Basic auth, and the server.
fn served(tmp: &Path) -> GitServer {
    let repo = Repo::init(&tmp.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    repo.clone_bare(&tmp.join("srv/acme/kit.git"));
    GitServer::start(&tmp.join("srv"), SECRET)
}

/// `plugins` with no credential or proxy from the outside: an empty HOME and git
/// config, no netrc, no token, no proxy; the temp dir shows as `[TMP]`.
fn cmd(tmp: &Path) -> Plugins {
    let mut c = Plugins::new();
    c.isolated(tmp).env("COLUMNS", "400").tmp(tmp);
    c
}

/// A git credential helper (`tmp/helper.sh`) that answers `user` and the secret, named by the
/// git config `cmd` gives `plugins` (`tmp/gitconfig`).
fn credential_helper(tmp: &Path, user: &str) {
    use std::os::unix::fs::PermissionsExt;
    let helper = tmp.join("helper.sh");
    std::fs::write(
        &helper,
        format!(
            "#!/bin/sh\ntest \"$1\" = get || exit 0\necho username={user}\necho password={SECRET}\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        tmp.join("gitconfig"),
        format!("[credential]\n\thelper = {}\n", helper.display()),
    )
    .unwrap();
}

/// `install <source> --yes` into `home`; the server's base (its port) shows as `[SERVER]`,
/// the home as `[HOME]`.
fn install(mut c: Plugins, source: &str, home: &Path, server: &str) -> Ran {
    c.args(["install", source, "--yes", "--home"])
        .arg(home)
        .redact("[SERVER]", server)
        .redact("[HOME]", home)
        .run()
}

/// The server's base with `user:password@` put in.
fn with_userinfo(base: &str, info: &str) -> String {
    base.replacen("http://", &format!("http://{info}@"), 1)
}

/// Every file under `dir`, as (path, bytes).
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else if e.file_type().unwrap().is_file() {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Nothing under `home` and no output holds the secret (or its Basic form).
fn assert_no_secret(home: &Path, outputs: &[&str]) {
    let encoded = basic("me", SECRET);
    let encoded = encoded.trim_start_matches("Basic ");
    for (path, bytes) in files(home) {
        assert!(
            !contains(&bytes, SECRET) && !contains(&bytes, encoded),
            "{} holds the secret",
            path.display()
        );
    }
    for out in outputs {
        assert!(!out.contains(SECRET), "output shows the secret:\n{out}");
    }
}

#[test]
fn url_userinfo_is_used_for_the_transfer_and_never_stored_or_shown() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let home = tmp.path().join("home");
    let url = format!("{}/acme/kit.git", server.base);
    let source = with_userinfo(&url, &format!("me:{SECRET}"));
    // The source is shown without its user:password@.
    let ran = install(cmd(tmp.path()), &source, &home, &server.base);
    ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("me", SECRET))),
        "the URL's credentials reached the server"
    );
    assert_eq!(
        crate::support::locked(&home, "dev.example.pinned", "source"),
        url
    );
    let mut outputs = vec![ran.stdout, ran.stderr];
    for (args, code, stdout) in [
        (
            &["list"][..],
            0,
            str![[r#"
ID                  VERSION  DIALECT  REF        COMMIT      SOURCE
dev.example.pinned  1.0.0    aoe      (default)  98dbc36b17  [SERVER]/acme/kit.git

"#]],
        ),
        (
            &["list", "--json"],
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "dialect": "aoe",
      "version": "1.0.0",
      "source": "[SERVER]/acme/kit.git",
      "requested_ref": "",
      "ref_kind": "default",
      "commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "home": "[TMP]/home",
      "present": true,
      "unbuilt": false,
      "subdir": null,
      "enabled": true,
      "hold": null,
      "deps": null
    }
  ]
}

"#]],
        ),
        (
            &["info", "dev.example.pinned"],
            0,
            str![[r#"
dev.example.pinned 1.0.0 (aoe)
  source:   [SERVER]/acme/kit.git
  commit:   98dbc36b17da9b3db35834c2a7d382bb249e05d4
  manifest: sha256:bf409a77e6f5ab1bb4aea228bc8cd3156f42928ac6d642d729ef43fc0539e6db
  tree:     sha256:9aa39e730ca099a55b756e44556a8101307097c4f0520afb4764fd47a734bf57
  path:     [TMP]/home/plugins/dev.example.pinned
  enabled:  yes
  valid:    yes

"#]],
        ),
        (
            &["info", "dev.example.pinned", "--json"],
            0,
            str![[r#"
{
  "format_version": 1,
  "id": "dev.example.pinned",
  "dialect": "aoe",
  "version": "1.0.0",
  "source": "[SERVER]/acme/kit.git",
  "requested_ref": "",
  "ref_kind": "default",
  "commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
  "manifest_hash": "sha256:bf409a77e6f5ab1bb4aea228bc8cd3156f42928ac6d642d729ef43fc0539e6db",
  "tree_hash": "sha256:9aa39e730ca099a55b756e44556a8101307097c4f0520afb4764fd47a734bf57",
  "path": "[TMP]/home/plugins/dev.example.pinned",
  "present": true,
  "valid": true,
  "unbuilt": false,
  "subdir": null,
  "signer_key": null,
  "host": null,
  "release": null,
  "home": "[TMP]/home",
  "enabled": true,
  "hold": null,
  "deps": null
}

"#]],
        ),
        (
            &["verify"],
            0,
            str![[r#"
          ok dev.example.pinned
1 verified, 0 changed

"#]],
        ),
        (
            &["outdated"],
            // A check that needs the credentials the lock does not keep fails.
            1,
            str![[r#"
dev.example.pinned               HEAD @ 98dbc36b17            check failed: [SERVER]/acme/kit.git needs credentials and none were found
  help: the lock keeps no credentials (a URL's user:password@ is used for the install only): give them to git's credential helpers (credential.helper), GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), or a .netrc entry for the host; plugins never prompts

"#]],
        ),
        (
            // The way out names the lasting credential sources, never the secret.
            &["outdated", "--json"],
            1,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "[SERVER]/acme/kit.git",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "error",
      "message": "[SERVER]/acme/kit.git needs credentials and none were found",
      "help": "the lock keeps no credentials (a URL's user:password@ is used for the install only): give them to git's credential helpers (credential.helper), GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), or a .netrc entry for the host; plugins never prompts"
    }
  ]
}

"#]],
        ),
    ] {
        let ran = cmd(tmp.path())
            .args(args)
            .arg("--home")
            .arg(&home)
            .redact("[SERVER]", &server.base)
            .run();
        ran.expect(code, stdout, str![]);
        outputs.push(ran.stdout);
        outputs.push(ran.stderr);
    }
    assert!(outputs.iter().any(|o| o.contains(&url)), "{outputs:?}");
    let shown: Vec<&str> = outputs.iter().map(String::as_str).collect();
    assert_no_secret(&home, &shown);
    // So does `update`, with the code.
    for (args, stdout, stderr) in [
        (
            &["update", "--all"][..],
            str![],
            str![[r#"
      Failed dev.example.pinned: [SERVER]/acme/kit.git needs credentials and none were found
        help: the lock keeps no credentials (a URL's user:password@ is used for the install only): give them to git's credential helpers (credential.helper), GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), or a .netrc entry for the host; plugins never prompts

"#]],
        ),
        (
            &["update", "--all", "--json"],
            str![[r#"
{
  "format_version": 1,
  "dry_run": false,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "status": "failed",
      "message": "[SERVER]/acme/kit.git needs credentials and none were found",
      "code": "plugins::git::auth",
      "home": "[TMP]/home"
    }
  ]
}

"#]],
            str![[r#"
      Failed dev.example.pinned: [SERVER]/acme/kit.git needs credentials and none were found
        help: the lock keeps no credentials (a URL's user:password@ is used for the install only): give them to git's credential helpers (credential.helper), GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), or a .netrc entry for the host; plugins never prompts

"#]],
        ),
    ] {
        let ran = cmd(tmp.path())
            .args(args)
            .args(["--yes", "--home"])
            .arg(&home)
            .redact("[SERVER]", &server.base)
            .run();
        ran.expect(1, stdout, stderr);
        assert_no_secret(&home, &[&ran.stdout, &ran.stderr]);
    }
    // The way out the help names: a git credential helper answers the check.
    credential_helper(tmp.path(), "me");
    let ran = cmd(tmp.path())
        .args(["outdated", "--home"])
        .arg(&home)
        .run();
    ran.expect(
        0,
        str![[r#"
dev.example.pinned               HEAD @ 98dbc36b17            up to date

"#]],
        str![],
    );
    assert_no_secret(&home, &[&ran.stdout, &ran.stderr]);
    std::fs::remove_file(tmp.path().join("gitconfig")).unwrap();
    // A refused password is not shown either.
    let ran = install(
        cmd(tmp.path()),
        &with_userinfo(&url, "me:wrong-password-99"),
        &tmp.path().join("home2"),
        &server.base,
    );
    ran.expect(2, str![], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::auth

  × [SERVER]/acme/kit.git needs credentials and it refused those from the URL's user:password@
  help: plugins looks for credentials in the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc; it never prompts

"#]]);
    assert!(
        !format!("{}{}", ran.stdout, ran.stderr).contains("wrong-password-99"),
        "{}",
        ran.stderr
    );
}

#[test]
fn without_credentials_the_error_names_where_it_looked() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let url = format!("{}/acme/kit.git", server.base);
    install(cmd(tmp.path()), &url, &tmp.path().join("home"), &server.base).expect(
        2,
        str![],
        str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::auth

  × [SERVER]/acme/kit.git needs credentials and none were found
  help: plugins looks for credentials in the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc; it never prompts

"#]],
    );
}

#[test]
fn a_git_credential_helper_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    credential_helper(tmp.path(), "helper-user");
    let home = tmp.path().join("home");
    let ran = install(
        cmd(tmp.path()),
        &format!("{}/acme/kit.git", server.base),
        &home,
        &server.base,
    );
    ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("helper-user", SECRET)))
    );
    assert_no_secret(&home, &[&ran.stdout, &ran.stderr]);
}

#[test]
fn the_github_token_goes_to_github_hosts_only() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    for var in ["GITHUB_TOKEN", "GH_TOKEN"] {
        let home = tmp.path().join(format!("home-{var}"));
        let mut c = cmd(tmp.path());
        c.env(var, SECRET).env("PLUGINS_GH_BASE", &server.base);
        let ran = install(c, "gh:acme/kit@main", &home, &server.base);
        ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da
aoe plugin `dev.example.pinned` 1.0.0 from gh:acme/kit @ 98dbc36b17da
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]]);
        assert_eq!(
            crate::support::locked(&home, "dev.example.pinned", "source"),
            "gh:acme/kit"
        );
        assert_no_secret(&home, &[&ran.stdout, &ran.stderr]);
    }
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("x-access-token", SECRET)))
    );
    // The same server under another name is not a GitHub host: no token is sent.
    let before = server.seen.lock().unwrap().len();
    let other = server.base.replace("127.0.0.1", "localhost");
    let mut c = cmd(tmp.path());
    c.env("GITHUB_TOKEN", SECRET);
    let mut ran = install(
        c,
        &format!("{other}/acme/kit.git"),
        &tmp.path().join("home-other"),
        &server.base,
    );
    // The other name shows as `[OTHER]`.
    ran.redact("[OTHER]", &other)
        .expect(2, str![], str![[r#"
    Fetching [OTHER]/acme/kit.git
warning[plugins::git::cleartext]: [OTHER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::auth

  × [OTHER]/acme/kit.git needs credentials and none were found
  help: plugins looks for credentials in the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc; it never prompts

"#]]);
    let seen = server.seen.lock().unwrap();
    assert!(seen[before..].iter().all(|s| s.authorization.is_none()));
}

#[test]
fn netrc_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let netrc = tmp.path().join("netrc");
    std::fs::write(
        &netrc,
        format!("machine example.invalid login no password no\nmachine 127.0.0.1\n  login netrc-user\n  password {SECRET}\n"),
    )
    .unwrap();
    let home = tmp.path().join("home");
    let mut c = cmd(tmp.path());
    c.env("NETRC", &netrc);
    let ran = install(
        c,
        &format!("{}/acme/kit.git", server.base),
        &home,
        &server.base,
    );
    ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("netrc-user", SECRET)))
    );
    assert_no_secret(&home, &[&ran.stdout, &ran.stderr]);
    // ~/.netrc when NETRC is not set.
    std::fs::copy(&netrc, tmp.path().join("user/.netrc")).unwrap();
    let mut c = cmd(tmp.path());
    c.env_remove("NETRC");
    install(
        c,
        &format!("{}/acme/kit.git", server.base),
        &tmp.path().join("home2"),
        &server.base,
    )
    .expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [HOME]/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
}

/// libgit2 reaches a proxy for https:// remotes through a CONNECT tunnel, so the proxy is
/// checked on the CONNECT it sees: the TLS handshake after it fails, as the loopback server
/// speaks plain HTTP. (libgit2 does not proxy http:// remotes; `plugins` fetches those with
/// the system git when a proxy applies: `tests/cli/pool.rs`.)
#[test]
fn git_traffic_goes_through_the_proxy_unless_no_proxy_covers_the_host() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let proxy = Proxy::start();
    let authority = server.base.trim_start_matches("http://").to_owned();
    let source = format!("https://me:{SECRET}@{authority}/acme/kit.git");
    let connect = format!("CONNECT {authority} ");
    let attempt = |mut c: Plugins, what: &str, stderr: snapbox::data::Inline| {
        c.env("PLUGINS_NET_TIMEOUT", "5");
        let before = proxy.lines().len();
        let home = tmp.path().join(format!("home-{what}"));
        let ran = install(c, &source, &home, &authority);
        ran.expect(2, str![], stderr);
        assert!(
            !format!("{}{}", ran.stdout, ran.stderr).contains(SECRET),
            "{}",
            ran.stderr
        );
        proxy.lines()[before..].to_vec()
    };
    for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"] {
        let mut c = cmd(tmp.path());
        c.env(var, &proxy.url);
        let seen = attempt(
            c,
            var,
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
        );
        assert!(
            seen.iter().any(|l| l.starts_with(&connect)),
            "{var}: {seen:?}"
        );
    }
    // NO_PROXY covers the host: straight to the server.
    let mut c = cmd(tmp.path());
    c.env("HTTPS_PROXY", &proxy.url)
        .env("NO_PROXY", "localhost,127.0.0.1");
    assert_eq!(
        attempt(
            c,
            "no-proxy",
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]]
        ),
        Vec::<String>::new()
    );
    // As curl reads it: a CIDR range covers the address, with or without a port.
    for (no_proxy, direct, stderr) in [
        (
            "127.0.0.0/8",
            true,
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
        ),
        (
            " 10.0.0.0/8 , 127.0.0.0/8 ",
            true,
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
        ),
        (
            "10.0.0.0/8",
            false,
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
        ),
        (
            ".localhost",
            false,
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
        ),
    ] {
        let mut c = cmd(tmp.path());
        c.env("HTTPS_PROXY", &proxy.url).env("NO_PROXY", no_proxy);
        let what = format!("cidr-{}", no_proxy.trim().replace('/', "_"));
        let seen = attempt(c, &what, stderr);
        assert_eq!(
            seen.iter().all(|l| !l.starts_with(&connect)),
            direct,
            "NO_PROXY={no_proxy}: {seen:?}"
        );
    }
    // git's http.proxy, too (and NO_PROXY covers it as well).
    std::fs::write(
        tmp.path().join("gitconfig"),
        format!("[http]\n\tproxy = {}\n", proxy.url),
    )
    .unwrap();
    let seen = attempt(
        cmd(tmp.path()),
        "http.proxy",
        str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]],
    );
    assert!(seen.iter().any(|l| l.starts_with(&connect)), "{seen:?}");
    let mut c = cmd(tmp.path());
    c.env("NO_PROXY", "127.0.0.1");
    assert_eq!(
        attempt(
            c,
            "config-no-proxy",
            str![[r#"
    Fetching https://[SERVER]/acme/kit.git
plugins::git::fetch

  × cannot reach https://[SERVER]/acme/kit.git: failed to connect to 127.0.0.1: tls handshake eof

"#]]
        ),
        Vec::<String>::new()
    );
}

#[test]
fn install_strict_refuses_cleartext_sources_before_any_transfer() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    for (source, stderr) in [
        (
            format!("http://me:{SECRET}@127.0.0.1:9/acme/kit.git"),
            str![[r#"
plugins::git::cleartext

  × http://127.0.0.1:9/acme/kit.git would be fetched unencrypted, which --strict refuses
  help: use the https:// (or ssh://) URL of the repository

"#]],
        ),
        (
            "git://127.0.0.1:9/acme/kit.git".to_owned(),
            str![[r#"
plugins::git::cleartext

  × git://127.0.0.1:9/acme/kit.git would be fetched unencrypted, which --strict refuses
  help: use the https:// (or ssh://) URL of the repository

"#]],
        ),
    ] {
        let ran = Plugins::new()
            .args(["install", "--strict", "--yes", &source, "--home"])
            .arg(&home)
            .env("COLUMNS", "200")
            .run();
        ran.expect(2, "", stderr);
        assert!(!ran.stderr.contains(SECRET), "{}", ran.stderr);
    }
    assert!(!home.exists(), "nothing was written");
}

/// Credentials go to the source's own server only: a redirect to another server (here
/// the same machine under another port) is followed without them, and that server's
/// 401 is not answered with the source's credentials.
#[test]
fn credentials_do_not_follow_a_redirect_to_another_server() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let redirector = crate::support::net::Redirector::start(&server.base);
    let source = with_userinfo(
        &format!("{}/acme/kit.git", redirector.base),
        &format!("me:{SECRET}"),
    );
    let ran = install(
        cmd(tmp.path()),
        &source,
        &tmp.path().join("home"),
        &redirector.base,
    );
    ran.expect(2, str![], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::auth

  × [SERVER]/acme/kit.git needs credentials and none were found
  help: plugins looks for credentials in the URL's user:password@, git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc; it never prompts

"#]]);
    let seen = server.seen.lock().unwrap();
    assert!(
        seen.iter()
            .any(|s| s.line.contains("/acme/kit.git/info/refs")),
        "the redirect was followed: {seen:?}"
    );
    assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");
    assert!(
        !format!("{}{}", ran.stdout, ran.stderr).contains(SECRET),
        "{}",
        ran.stderr
    );
}
