//! Private, proxied and authenticated sources (issue #15): a loopback smart-HTTP
//! git server that demands Basic auth; every credential source is tried, and no
//! secret is ever stored or shown.

use std::path::{Path, PathBuf};

use snapbox::{assert_data_eq, str};

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
/// config, no netrc, no token, no proxy.
fn cmd(tmp: &Path) -> Plugins {
    let mut c = Plugins::new();
    c.isolated(tmp).env("COLUMNS", "400");
    c
}

fn install(mut c: Plugins, source: &str, home: &Path) -> (i32, String, String) {
    c.args(["install", source, "--yes", "--home"])
        .arg(home)
        .run()
        .parts()
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
    let (code, stdout, stderr) = install(cmd(tmp.path()), &source, &home);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("me", SECRET))),
        "the URL's credentials reached the server"
    );
    assert!(stderr.contains(&format!("Fetching {url}\n")), "{stderr}");
    assert!(stderr.contains("plugins::git::cleartext"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "warning[plugins::git::cleartext]: {url} is fetched unencrypted"
        )),
        "{stderr}"
    );
    assert_eq!(
        crate::support::locked(&home, "dev.example.pinned", "source"),
        url
    );
    let mut outputs = vec![stdout, stderr];
    for args in [
        &["list"][..],
        &["list", "--json"],
        &["info", "dev.example.pinned"],
        &["info", "dev.example.pinned", "--json"],
        &["verify"],
        &["outdated"],
    ] {
        let (_, out, err) = cmd(tmp.path())
            .args(args)
            .arg("--home")
            .arg(&home)
            .run()
            .parts();
        outputs.push(out);
        outputs.push(err);
    }
    assert!(outputs.iter().any(|o| o.contains(&url)), "{outputs:?}");
    let shown: Vec<&str> = outputs.iter().map(String::as_str).collect();
    assert_no_secret(&home, &shown);
    // A refused password is not shown either.
    let (code, stdout, stderr) = install(
        cmd(tmp.path()),
        &with_userinfo(&url, "me:wrong-password-99"),
        &tmp.path().join("home2"),
    );
    assert_ne!(code, 0);
    assert!(
        stderr.contains("plugins::git::auth")
            && stderr.contains("refused those from the URL's user:password@"),
        "{stderr}"
    );
    assert!(
        !format!("{stdout}{stderr}").contains("wrong-password-99"),
        "{stderr}"
    );
}

#[test]
fn without_credentials_the_error_names_where_it_looked() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let url = format!("{}/acme/kit.git", server.base);
    let (code, _, stderr) = install(cmd(tmp.path()), &url, &tmp.path().join("home"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("plugins::git::auth")
            && stderr.contains(&format!("× {url} needs credentials and none were found")),
        "{stderr}"
    );
    assert!(
        stderr.contains("git's credential helpers, GITHUB_TOKEN or GH_TOKEN (GitHub hosts only), and .netrc; it never prompts"),
        "{stderr}"
    );
}

#[test]
fn a_git_credential_helper_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    let helper = tmp.path().join("helper.sh");
    std::fs::write(
        &helper,
        format!("#!/bin/sh\ntest \"$1\" = get || exit 0\necho username=helper-user\necho password={SECRET}\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        tmp.path().join("gitconfig"),
        format!("[credential]\n\thelper = {}\n", helper.display()),
    )
    .unwrap();
    let home = tmp.path().join("home");
    let (code, stdout, stderr) = install(
        cmd(tmp.path()),
        &format!("{}/acme/kit.git", server.base),
        &home,
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("helper-user", SECRET)))
    );
    assert_no_secret(&home, &[&stdout, &stderr]);
}

#[test]
fn the_github_token_goes_to_github_hosts_only() {
    let tmp = tempfile::tempdir().unwrap();
    let server = served(tmp.path());
    for var in ["GITHUB_TOKEN", "GH_TOKEN"] {
        let home = tmp.path().join(format!("home-{var}"));
        let mut c = cmd(tmp.path());
        c.env(var, SECRET).env("PLUGINS_GH_BASE", &server.base);
        let (code, stdout, stderr) = install(c, "gh:acme/kit@main", &home);
        assert_eq!(code, 0, "{var}: {stdout}{stderr}");
        assert_eq!(
            crate::support::locked(&home, "dev.example.pinned", "source"),
            "gh:acme/kit"
        );
        assert_no_secret(&home, &[&stdout, &stderr]);
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
    let (code, _, stderr) = install(
        c,
        &format!("{other}/acme/kit.git"),
        &tmp.path().join("home-other"),
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("none were found"), "{stderr}");
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
    let (code, stdout, stderr) = install(c, &format!("{}/acme/kit.git", server.base), &home);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(&basic("netrc-user", SECRET)))
    );
    assert_no_secret(&home, &[&stdout, &stderr]);
    // ~/.netrc when NETRC is not set.
    std::fs::copy(&netrc, tmp.path().join("user/.netrc")).unwrap();
    let mut c = cmd(tmp.path());
    c.env_remove("NETRC");
    let (code, stdout, stderr) = install(
        c,
        &format!("{}/acme/kit.git", server.base),
        &tmp.path().join("home2"),
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
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
    let attempt = |mut c: Plugins, what: &str| {
        c.env("PLUGINS_NET_TIMEOUT", "5");
        let before = proxy.lines().len();
        let home = tmp.path().join(format!("home-{what}"));
        let (code, stdout, stderr) = install(c, &source, &home);
        assert_ne!(code, 0, "{what}: {stdout}{stderr}");
        assert!(!format!("{stdout}{stderr}").contains(SECRET), "{stderr}");
        proxy.lines()[before..].to_vec()
    };
    for var in ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"] {
        let mut c = cmd(tmp.path());
        c.env(var, &proxy.url);
        let seen = attempt(c, var);
        assert!(
            seen.iter().any(|l| l.starts_with(&connect)),
            "{var}: {seen:?}"
        );
    }
    // NO_PROXY covers the host: straight to the server.
    let mut c = cmd(tmp.path());
    c.env("HTTPS_PROXY", &proxy.url)
        .env("NO_PROXY", "localhost,127.0.0.1");
    assert_eq!(attempt(c, "no-proxy"), Vec::<String>::new());
    // As curl reads it: a CIDR range covers the address, with or without a port.
    for (no_proxy, direct) in [
        ("127.0.0.0/8", true),
        (" 10.0.0.0/8 , 127.0.0.0/8 ", true),
        ("10.0.0.0/8", false),
        (".localhost", false),
    ] {
        let mut c = cmd(tmp.path());
        c.env("HTTPS_PROXY", &proxy.url).env("NO_PROXY", no_proxy);
        let seen = attempt(c, &format!("cidr-{}", no_proxy.trim().replace('/', "_")));
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
    let seen = attempt(cmd(tmp.path()), "http.proxy");
    assert!(seen.iter().any(|l| l.starts_with(&connect)), "{seen:?}");
    let mut c = cmd(tmp.path());
    c.env("NO_PROXY", "127.0.0.1");
    assert_eq!(attempt(c, "config-no-proxy"), Vec::<String>::new());
}

#[test]
fn install_strict_refuses_cleartext_sources_before_any_transfer() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    for source in [
        format!("http://me:{SECRET}@127.0.0.1:9/acme/kit.git"),
        "git://127.0.0.1:9/acme/kit.git".to_owned(),
    ] {
        let (code, stdout, stderr) = Plugins::new()
            .args(["install", "--strict", "--yes", &source, "--home"])
            .arg(&home)
            .env("COLUMNS", "200")
            .run()
            .parts();
        assert_eq!((code, stdout.as_str()), (2, ""));
        assert!(
            !stderr.contains(SECRET) && !stderr.contains("Fetching"),
            "{stderr}"
        );
        assert_data_eq!(
            stderr.replace("git://", "http://"),
            str![[r#"
plugins::git::cleartext

  × http://127.0.0.1:9/acme/kit.git would be fetched unencrypted, which --strict refuses
  help: use the https:// (or ssh://) URL of the repository

"#]]
        );
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
    let (code, stdout, stderr) = install(cmd(tmp.path()), &source, &tmp.path().join("home"));
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("plugins::git::auth"), "{stderr}");
    let seen = server.seen.lock().unwrap();
    assert!(
        seen.iter()
            .any(|s| s.line.contains("/acme/kit.git/info/refs")),
        "the redirect was followed: {seen:?}"
    );
    assert!(seen.iter().all(|s| s.authorization.is_none()), "{seen:?}");
    assert!(!format!("{stdout}{stderr}").contains(SECRET), "{stderr}");
}
