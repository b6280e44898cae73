//! ssh sources end to end (issue #15): a real OpenSSH server on 127.0.0.1, started
//! by the test on a free port with its own host key and one authorized client
//! key, serves bare repositories; `plugins` fetches them with the system git
//! (the git-command fetch mode), through an `ssh` on PATH that reads the test's
//! ssh config (ssh takes `~/.ssh` from the password database, not `$HOME`).
//!
//! Without `/usr/sbin/sshd` the tests that need it skip with one line, unless
//! `CI` is set: then they fail (`.ci/run` installs openssh-server).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::*;

const SSHD: &str = "/usr/sbin/sshd";

/// A throwaway ed25519 key pair at `path` (and `path.pub`); returns the public key.
fn keygen(path: &Path) -> String {
    let out = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "plugins-test", "-f"])
        .arg(path)
        .output()
        .expect("ssh-keygen runs");
    assert!(out.status.success(), "{out:?}");
    std::fs::read_to_string(path.with_extension("pub"))
        .unwrap()
        .trim()
        .to_owned()
}

/// The user sshd logs the client in as: whoever runs the tests.
fn me() -> String {
    let out = Command::new("id").arg("-un").output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// An sshd on 127.0.0.1, killed on drop.
struct Sshd {
    child: Child,
    port: u16,
    /// `[127.0.0.1]:PORT ssh-ed25519 ...`: the line known_hosts needs.
    known_host: String,
    /// The authorized client key.
    client_key: PathBuf,
    log: PathBuf,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failing test shows what sshd said too.
        if std::thread::panicking() {
            let _ = writeln!(std::io::stderr(), "sshd: {}", self.log());
        }
    }
}

impl Sshd {
    /// sshd's log, for failure messages.
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Whether the ssh tests can run; skip (one line) or, with `CI` set, fail.
fn available() -> bool {
    let client = Command::new("ssh").arg("-V").output().is_ok()
        && Command::new("ssh-keygen").arg("--help").output().is_ok();
    if Path::new(SSHD).is_file() && client {
        return true;
    }
    skip(
        &format!("no OpenSSH server at {SSHD} or no ssh client (apt-get install openssh-server)"),
        "the ssh tests",
    );
    false
}

/// Start sshd in `dir/sshd` on a free loopback port, or `None` (skipped).
fn sshd(dir: &Path) -> Option<Sshd> {
    if !available() {
        return None;
    }
    let dir = dir.join("sshd");
    std::fs::create_dir_all(&dir).unwrap();
    let host_pub = keygen(&dir.join("host_key"));
    let client_key = dir.join("client_key");
    std::fs::write(dir.join("authorized_keys"), keygen(&client_key) + "\n").unwrap();
    // As root, sshd wants its privilege separation directory.
    if me() == "root" {
        let _ = std::fs::create_dir_all("/run/sshd");
    }
    let config = dir.join("sshd_config");
    std::fs::write(
        &config,
        format!(
            "ListenAddress 127.0.0.1\nHostKey {dir}/host_key\nPidFile none\nAuthorizedKeysFile {dir}/authorized_keys\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\nPermitUserEnvironment no\nPrintMotd no\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    let log = dir.join("sshd.log");
    // A free port: bound, released, then taken by sshd (retried if lost meanwhile).
    for _ in 0..5 {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .arg("-p")
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("sshd starts");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            if std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("Server listening")
            {
                return Some(Sshd {
                    child,
                    port,
                    known_host: format!("[127.0.0.1]:{port} {host_pub}"),
                    client_key,
                    log,
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!(
        "sshd did not start: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// The client side in `tmp/client`: an ssh config (`Host sshalias` is the
/// server), a known_hosts file holding `known_hosts`, and an `ssh` wrapper on
/// PATH that reads that config.
struct Client {
    bin: PathBuf,
    user_home: PathBuf,
    git_config: PathBuf,
    tmp: PathBuf,
    port: u16,
}

fn client(tmp: &Path, sshd: &Sshd, known_hosts: &str, identity: Option<&Path>) -> Client {
    let dir = tmp.join("client");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let user_home = dir.join("home");
    std::fs::create_dir_all(&user_home).unwrap();
    std::fs::write(dir.join("known_hosts"), known_hosts).unwrap();
    let identity = match identity {
        Some(key) => format!("  IdentityFile {}\n  IdentitiesOnly yes\n", key.display()),
        None => String::new(),
    };
    std::fs::write(
        dir.join("ssh_config"),
        format!(
            "Host sshalias\n  HostName 127.0.0.1\n  Port {port}\n  User {me}\nHost *\n{identity}  UserKnownHostsFile {kh}\n  GlobalKnownHostsFile /dev/null\n",
            port = sshd.port,
            me = me(),
            kh = dir.join("known_hosts").display(),
        ),
    )
    .unwrap();
    let real = Command::new("sh")
        .args(["-c", "command -v ssh"])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_owned();
    let wrapper = bin.join("ssh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec {real} -F {} \"$@\"\n",
            dir.join("ssh_config").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let git_config = dir.join("gitconfig");
    std::fs::write(&git_config, "").unwrap();
    Client {
        bin,
        user_home,
        git_config,
        tmp: tmp.to_path_buf(),
        port: sshd.port,
    }
}

impl Client {
    /// `plugins` with this client's ssh and no ssh or git settings from outside; the temp
    /// dir shows as `[TMP]`, sshd's port as `[PORT]` and the user it logs in as `[USER]`.
    fn plugins(&self) -> Plugins {
        let mut c = Plugins::new();
        for k in [
            "GIT_SSH_COMMAND",
            "GIT_SSH",
            "SSH_AUTH_SOCK",
            "PLUGINS_GIT_FETCH_WITH_CLI",
            "GIT_ALLOW_PROTOCOL",
        ] {
            c.env_remove(k);
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![self.bin.clone()];
        dirs.extend(std::env::split_paths(&path));
        c.env("PATH", std::env::join_paths(dirs).unwrap())
            .env("HOME", &self.user_home)
            .env("GIT_CONFIG_GLOBAL", &self.git_config)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("COLUMNS", "400")
            .stdin(Stdio::null())
            .tmp(&self.tmp)
            .redact_word("[PORT]", self.port)
            .redact_login("[USER]", &me());
        c
    }
}

/// A bare `kit.git` under `tmp/srv`: main at 1.0.0, tagged v1.0.0; returns the work repo.
fn served(tmp: &Path) -> (Repo, PathBuf) {
    let repo = Repo::init(&tmp.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    repo.tag("v1.0.0");
    let bare = tmp.join("srv/kit.git");
    repo.clone_bare(&bare);
    (repo, bare)
}

#[test]
fn ssh_url_installs_checks_and_updates() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(sshd) = sshd(tmp.path()) else {
        return;
    };
    let (repo, bare) = served(tmp.path());
    let c = client(tmp.path(), &sshd, &sshd.known_host, Some(&sshd.client_key));
    let home = tmp.path().join("home");
    let url = format!("ssh://{}@127.0.0.1:{}{}", me(), sshd.port, bare.display());
    let started = Instant::now();
    c.plugins()
        .args(["install", &url, "--ref", "v1.0.0", "--yes", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
     Fetched 98dbc36b17da

"#]],
        );
    assert_eq!(
        locked(&home, "dev.example.pinned", "source"),
        url,
        "recorded as typed"
    );
    assert_eq!(
        locked(&home, "dev.example.pinned", "requested_ref"),
        "v1.0.0"
    );

    // outdated lists the refs over ssh: nothing newer, then a new release.
    let outdated = |c: &Client| {
        c.plugins()
            .args(["outdated", "--json", "--home"])
            .arg(&home)
            .run()
    };
    outdated(&c).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "up_to_date"
    }
  ]
}

"#]],
        str![],
    );
    repo.file("aoe-plugin.toml", &static_aoe("1.1.0"));
    let c2 = repo.commit("v1.1");
    repo.tag("v1.1.0");
    git(
        &repo.dir,
        &["push", "-q", bare.to_str().unwrap(), "main", "--tags"],
    );
    outdated(&c).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "727c12d858314de8669c2b187d96ddef87a94a1b"
    }
  ]
}

"#]],
        str![],
    );

    c.plugins()
        .args(["update", "--all", "--yes", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
     Updated dev.example.pinned to v1.1.0 @ 727c12d858

"#]],
            str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
     Fetched 727c12d85831

"#]],
        );
    assert_eq!(
        locked(&home, "dev.example.pinned", "requested_ref"),
        "v1.1.0"
    );
    assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c2);
    assert_eq!(locked(&home, "dev.example.pinned", "source"), url);
    outdated(&c).expect(
        0,
        str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git",
      "requested_ref": "v1.1.0",
      "ref_kind": "tag",
      "current": "727c12d858314de8669c2b187d96ddef87a94a1b",
      "status": "up_to_date"
    }
  ]
}

"#]],
        str![],
    );

    // sync on a fresh home fetches the locked commit (a full fetch) after main moved
    // on, through the user's own GIT_SSH_COMMAND, which is used as it is.
    repo.file("aoe-plugin.toml", &static_aoe("1.2.0"));
    repo.commit("v1.2");
    git(&repo.dir, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let fresh = tmp.path().join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    let marker = tmp.path().join("user-ssh-ran");
    c.plugins()
        .env(
            "GIT_SSH_COMMAND",
            format!("touch {}; ssh", marker.display()),
        )
        .args(["sync", "--yes", "--home"])
        .arg(&fresh)
        .run()
        .expect(
            0,
            str![[r#"
      Synced dev.example.pinned 1.1.0

"#]],
            str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
     Fetched 727c12d85831

"#]],
        );
    assert!(marker.exists(), "the user's GIT_SSH_COMMAND ran");
    assert_eq!(locked(&fresh, "dev.example.pinned", "resolved_commit"), c2);
    let installed =
        std::fs::read_to_string(fresh.join("plugins/dev.example.pinned/aoe-plugin.toml")).unwrap();
    assert!(installed.contains("version = \"1.1.0\""), "{installed}");
    let _ = writeln!(
        std::io::stderr(),
        "ssh install, 3 outdated checks, an update and a sync took {:?}",
        started.elapsed()
    );
}

#[test]
fn scp_like_alias_installs_with_the_ssh_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(sshd) = sshd(tmp.path()) else {
        return;
    };
    let (_, bare) = served(tmp.path());
    // The key is only in the agent: the ssh config names no IdentityFile.
    let sock = tmp.path().join("agent.sock");
    let mut agent = Command::new("ssh-agent")
        .arg("-D")
        .arg("-a")
        .arg(&sock)
        .stdout(Stdio::null())
        .spawn()
        .expect("ssh-agent starts");
    struct Kill(Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let start = Instant::now();
    while !sock.exists() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = agent.try_wait();
    let _agent = Kill(agent);
    let added = Command::new("ssh-add")
        .arg(&sshd.client_key)
        .env("SSH_AUTH_SOCK", &sock)
        .output()
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    let c = client(tmp.path(), &sshd, &sshd.known_host, None);
    let home = tmp.path().join("home");
    let source = format!("sshalias:{}", bare.display());
    c.plugins()
        .env("SSH_AUTH_SOCK", &sock)
        .args(["install", &source, "--yes", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching sshalias:[TMP]/srv/kit.git
     Fetched 98dbc36b17da

"#]],
        );
    assert_eq!(locked(&home, "dev.example.pinned", "source"), source);
    c.plugins()
        .env("SSH_AUTH_SOCK", &sock)
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.example.pinned",
      "source": "sshalias:[TMP]/srv/kit.git",
      "requested_ref": "",
      "ref_kind": "default",
      "current": "98dbc36b17da9b3db35834c2a7d382bb249e05d4",
      "status": "up_to_date"
    }
  ]
}

"#]],
            str![],
        );
}

#[test]
fn host_key_and_key_failures_are_explained() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(sshd) = sshd(tmp.path()) else {
        return;
    };
    let (_, bare) = served(tmp.path());
    let home = tmp.path().join("home");
    let url = format!("ssh://{}@127.0.0.1:{}{}", me(), sshd.port, bare.display());
    let install = |c: &Client| {
        c.plugins()
            .args(["install", &url, "--yes", "--home"])
            .arg(&home)
            .run()
    };

    // An unknown host: never accepted, and the way to accept it named.
    let unknown = client(tmp.path(), &sshd, "", Some(&sshd.client_key));
    install(&unknown).expect(2, str![], str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
plugins::git::host_key

  × ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git: the ssh host key of 127.0.0.1 is not known (not in known_hosts), and plugins never accepts one itself
  help: check the host's key fingerprint with its owner, then accept it once with `ssh -p [PORT] [USER]@127.0.0.1` (answer yes) or add it with `ssh-keyscan -p [PORT] 127.0.0.1 >> ~/.ssh/known_hosts`

"#]]);

    // A host whose key changed.
    let other = keygen(&tmp.path().join("other_host_key"));
    let changed = client(
        tmp.path(),
        &sshd,
        &format!("[127.0.0.1]:{} {other}\n", sshd.port),
        Some(&sshd.client_key),
    );
    install(&changed).expect(2, str![], str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
plugins::git::host_key

  × ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git: the ssh host key of 127.0.0.1 differs from the one in known_hosts (REMOTE HOST IDENTIFICATION HAS CHANGED)
  help: this is what an attack looks like; only if the host's owner confirms the new key, remove the old one with `ssh-keygen -R '[127.0.0.1]:[PORT]'` and accept the new one with `ssh -p [PORT]
        [USER]@127.0.0.1`

"#]]);

    // A key the server does not know.
    keygen(&tmp.path().join("stranger_key"));
    let refused = client(
        tmp.path(),
        &sshd,
        &sshd.known_host,
        Some(&tmp.path().join("stranger_key")),
    );
    install(&refused).expect(2, str![], str![[r#"
    Fetching ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git
plugins::git::auth

  × ssh://[USER]@127.0.0.1:[PORT][TMP]/srv/kit.git: the ssh server accepted none of the keys offered: [USER]@127.0.0.1: Permission denied (publickey).
  help: ssh offers the keys of your ssh-agent (`ssh-add -l` lists them) and those ~/.ssh/config names (IdentityFile); add the right one, and check that the account has access

"#]]);
    assert!(!home.join("plugins.lock").exists());
}

#[test]
fn hostile_sources_are_refused_before_git_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("pwned");
    let home = tmp.path().join("home");
    let m = marker.display();
    let cmd = || {
        let mut c = Plugins::new();
        c.env("COLUMNS", "400").tmp(tmp.path());
        c
    };
    for (source, stderr) in [
        (
            format!("ext::sh -c touch% {m}"),
            str![[r#"
plugins::usage::invalid_argument

  × refusing source "ext::sh -c touch% [TMP]/pwned": git's `ext::` remote-helper transports can run commands; use an https://, ssh:// or file:// URL

"#]],
        ),
        (
            format!("--upload-pack=touch {m}"),
            str![[r#"
plugins::usage::invalid_argument

  × refusing source "--upload-pack=touch [TMP]/pwned": it starts with `-`, which git would read as an option

"#]],
        ),
        (
            format!("ssh://-oProxyCommand=touch%20{m}/x"),
            str![[r#"
plugins::usage::invalid_argument

  × refusing source "ssh://-oProxyCommand=touch%20[TMP]/pwned/x": an ssh host, user or path starting with `-` would be read by ssh as an option

"#]],
        ),
        (
            "git@-oProxyCommand=x:y".to_owned(),
            str![[r#"
plugins::usage::invalid_argument

  × refusing source "git@-oProxyCommand=x:y": an ssh host, user or path starting with `-` would be read by ssh as an option

"#]],
        ),
        (
            "ssh://me:hunter2@example.invalid/x.git".to_owned(),
            str![[r#"
plugins::usage::invalid_argument

  × refusing source "ssh://***@example.invalid/x.git": an ssh URL cannot carry a password (ssh authenticates with keys: ssh-agent or IdentityFile in ~/.ssh/config)

"#]],
        ),
    ] {
        let ran = cmd()
            .args(["install", "--yes", "--home"])
            .arg(&home)
            .arg("--")
            .arg(&source)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", "1")
            .run();
        ran.expect(2, str![], stderr);
        assert!(!ran.stderr.contains("hunter2"), "{}", ran.stderr);
    }
    assert!(!marker.exists(), "a hostile source ran a command");

    // A rewrite to `ext::` (here by git config) is refused by git itself: only the
    // ssh, https, http, git and file protocols are allowed.
    let config = tmp.path().join("gitconfig");
    std::fs::write(
        &config,
        format!("[url \"ext::sh -c touch% {m}% \"]\n\tinsteadOf = https://rewritten.invalid/\n"),
    )
    .unwrap();
    cmd()
        .args([
            "install",
            "https://rewritten.invalid/x.git",
            "--yes",
            "--home",
        ])
        .arg(&home)
        .env("PLUGINS_GIT_FETCH_WITH_CLI", "1")
        .env("GIT_CONFIG_GLOBAL", &config)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_ALLOW_PROTOCOL", "ext:https")
        .run()
        .expect(2, str![], str![[r#"
    Fetching https://rewritten.invalid/x.git
plugins::usage::invalid_argument

  × https://rewritten.invalid/x.git: git may use only the ssh, https, http, git and file protocols, also after `insteadOf` rewrites: fatal: transport 'ext' not allowed

"#]]);
    assert!(
        !marker.exists(),
        "an insteadOf rewrite to ext:: ran a command"
    );

    // A hand-edited lock with a hostile source: `outdated` reports it, `sync` refuses
    // it, and nothing runs.
    let locked_home = tmp.path().join("locked");
    std::fs::create_dir_all(locked_home.join("plugins")).unwrap();
    std::fs::write(
        locked_home.join("plugins.lock"),
        format!(
            "lock_version = 2\n\n[plugins.\"dev.example.x\"]\nsource = \"ext::sh -c touch% {m}\"\nversion = \"1.0.0\"\nmanifest_hash = \"sha256:00\"\ntree_hash = \"sha256:00\"\nrequested_ref = \"main\"\nresolved_commit = \"0000000000000000000000000000000000000000\"\n"
        ),
    )
    .unwrap();
    cmd()
        .args(["outdated", "--home"])
        .arg(&locked_home)
        .run()
        .expect(1, str![[r#"
dev.example.x                    main @ 0000000000            check failed: refusing source "ext::sh -c touch% [TMP]/pwned": git's `ext::` remote-helper transports can run commands; use an https://, ssh:// or file:// URL

"#]], str![]);
    cmd()
        .args(["sync", "--yes", "--home"])
        .arg(&locked_home)
        .run()
        .expect(2, str![], str![[r#"
    Fetching ext::sh -c touch% [TMP]/pwned
plugins::usage::invalid_argument

  × refusing source "ext::sh -c touch% [TMP]/pwned": git's `ext::` remote-helper transports can run commands; use an https://, ssh:// or file:// URL

"#]]);
    assert!(!marker.exists(), "a hostile lock entry ran a command");
}

#[test]
fn ssh_without_git_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    Plugins::new()
        .args([
            "install",
            "git@example.invalid:acme/kit.git",
            "--yes",
            "--home",
        ])
        .arg(&home)
        .env("PATH", tmp.path())
        .env("COLUMNS", "400")
        .run()
        .expect(2, str![], str![[r#"
    Fetching git@example.invalid:acme/kit.git
plugins::git::no_git

  × git@example.invalid:acme/kit.git is fetched with the system `git`, which could not be run: No such file or directory (os error 2)
  help: install git (ssh sources and PLUGINS_GIT_FETCH_WITH_CLI run `git fetch`), or use an https:// URL

"#]]);
}

/// The git-command mode for any remote, opted into by the git config key or the
/// variable: the user's `insteadOf` applies (libgit2 would ignore it); the URL's
/// userinfo reaches its own host through git, never another host a rewrite points
/// at, and is never stored or shown.
#[test]
fn fetch_with_cli_uses_git_config_and_keeps_secrets() {
    const SECRET: &str = "s3cr3t-cli-4711";
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    repo.clone_bare(&tmp.path().join("srv/acme/kit.git"));
    let server = crate::support::net::GitServer::start(&tmp.path().join("srv"), SECRET);
    let config = tmp.path().join("gitconfig");
    let cmd = || {
        let mut c = Plugins::new();
        for k in [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
            "PLUGINS_GIT_FETCH_WITH_CLI",
        ] {
            c.env_remove(k);
        }
        c.env("GIT_CONFIG_GLOBAL", &config)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", tmp.path())
            .env("NETRC", tmp.path().join("no-netrc"))
            .env("COLUMNS", "400")
            .stdin(Stdio::null())
            .tmp(tmp.path())
            .redact("[SERVER]", &server.base);
        c
    };
    let sent = || {
        let basic = crate::support::net::basic("me", SECRET);
        let seen = server.seen.lock().unwrap();
        seen.iter()
            .filter(|s| s.authorization.as_deref() == Some(basic.as_str()))
            .count()
    };
    let shown = |ran: &Ran| ran.stdout.contains(SECRET) || ran.stderr.contains(SECRET);

    // The config key, and a rewrite on the same host (only git resolves `alias/`).
    std::fs::write(
        &config,
        format!(
            "[plugins]\n\tgitFetchWithCli = true\n[url \"{base}/acme/\"]\n\tinsteadOf = {base}/alias/\n",
            base = server.base
        ),
    )
    .unwrap();
    let home = tmp.path().join("home");
    let source = format!("{}/alias/kit.git", server.base).replacen(
        "http://",
        &format!("http://me:{SECRET}@"),
        1,
    );
    let ran = cmd()
        .args(["install", &source, "--yes", "--home"])
        .arg(&home)
        .run();
    ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/home/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/alias/kit.git
warning[plugins::git::cleartext]: [SERVER]/alias/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da

"#]]);
    assert!(
        sent() > 0,
        "the URL's credentials reached the server through git"
    );
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    assert!(!lock.contains(SECRET) && !shown(&ran));
    assert_eq!(
        locked(&home, "dev.example.pinned", "source"),
        format!("{}/alias/kit.git", server.base)
    );

    // The variable, and a rewrite to another host: the credentials stay behind,
    // and git, which never prompts here, says so.
    std::fs::write(
        &config,
        format!(
            "[url \"{}/\"]\n\tinsteadOf = http://mirror.invalid/\n",
            server.base
        ),
    )
    .unwrap();
    let before = sent();
    let ran = cmd()
        .env("PLUGINS_GIT_FETCH_WITH_CLI", "1")
        .args([
            "install",
            &format!("http://me:{SECRET}@mirror.invalid/acme/kit.git"),
        ])
        .args(["--yes", "--home"])
        .arg(tmp.path().join("other"))
        .run();
    ran.expect(2, str![], str![[r#"
    Fetching http://mirror.invalid/acme/kit.git
warning[plugins::git::cleartext]: http://mirror.invalid/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::auth

  × http://mirror.invalid/acme/kit.git needs credentials and git found none that were accepted: fatal: could not read Username for '[SERVER]': terminal prompts disabled
  help: with the git command, credentials come from the URL's user:password@ alone (for its own host only), else git's credential helpers and then GITHUB_TOKEN/GH_TOKEN (GitHub hosts), and git reads
        ~/.netrc; nothing prompts without a terminal

"#]]);
    assert_eq!(
        sent(),
        before,
        "no credentials for the host a rewrite points at"
    );
    assert!(!shown(&ran));

    // A GitHub token for a `gh:` source (its clone base is a GitHub host).
    std::fs::write(&config, "").unwrap();
    let gh = tmp.path().join("gh");
    let ran = cmd()
        .env("PLUGINS_GIT_FETCH_WITH_CLI", "1")
        .env("GITHUB_TOKEN", SECRET)
        .env("PLUGINS_GH_BASE", &server.base)
        .args(["install", "gh:acme/kit@main", "--yes", "--home"])
        .arg(&gh)
        .run();
    ran.expect(0, str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/gh/plugins/dev.example.pinned

"#]], str![[r#"
    Fetching [SERVER]/acme/kit.git
warning[plugins::git::cleartext]: [SERVER]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched 98dbc36b17da
aoe plugin `dev.example.pinned` 1.0.0 from gh:acme/kit @ 98dbc36b17da
  capabilities: none
  build steps:  none
  unverified:   un-audited code (not a GitHub release of the repository)

"#]]);
    let token = crate::support::net::basic("x-access-token", SECRET);
    assert!(
        server
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|s| s.authorization.as_deref() == Some(token.as_str())),
        "the token reached the server through git"
    );
    let lock = std::fs::read_to_string(gh.join("plugins.lock")).unwrap();
    assert!(!lock.contains(SECRET) && !shown(&ran));
}

/// A server that accepts the connection and then says nothing: git and its ssh are
/// killed after `PLUGINS_NET_TIMEOUT` without output, and the phase is named.
#[test]
fn a_silent_ssh_server_is_given_up_on() {
    if !available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming() {
            held.push(s);
        }
    });
    let started = Instant::now();
    Plugins::new()
        .args([
            "install",
            &format!("ssh://git@127.0.0.1:{port}/x.git"),
            "--yes",
            "--home",
        ])
        .arg(tmp.path().join("home"))
        .env("PLUGINS_NET_TIMEOUT", "2")
        .env_remove("GIT_SSH_COMMAND")
        .env_remove("GIT_SSH")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("COLUMNS", "400")
        .stdin(Stdio::null())
        .redact_word("[PORT]", port)
        .run()
        .expect(2, str![], str![[r#"
    Fetching ssh://git@127.0.0.1:[PORT]/x.git
plugins::git::fetch

  × ssh://git@127.0.0.1:[PORT]/x.git stalled while connecting and listing refs: no progress for 2 s (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)

"#]]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

/// On a terminal (here a pty from util-linux `script`), ssh may ask about a new host
/// key as `git clone` would: answered yes, the install goes on and known_hosts
/// learns the key.
#[test]
fn on_a_terminal_ssh_asks_about_a_new_host_key() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(sshd) = sshd(tmp.path()) else {
        return;
    };
    if !have_pty() {
        return;
    }
    let (_, bare) = served(tmp.path());
    let c = client(tmp.path(), &sshd, "", Some(&sshd.client_key));
    let home = tmp.path().join("home");
    let url = format!("ssh://{}@127.0.0.1:{}{}", me(), sshd.port, bare.display());
    let mut script = c.plugins();
    script
        .args(["install", &url, "--yes", "--home"])
        .arg(&home)
        .in_pty();
    let mut child = script
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let mut stdout = child.stdout.take().unwrap();
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = std::io::Read::read(&mut stdout, &mut buf) {
            if n == 0 {
                break;
            }
            log.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let start = Instant::now();
    while !seen.lock().unwrap().contains("continue connecting") {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no host key question: {}",
            seen.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.stdin.as_mut().unwrap().write_all(b"yes\n").unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{}",
            seen.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{}", seen.lock().unwrap());
    let known = std::fs::read_to_string(tmp.path().join("client/known_hosts")).unwrap();
    assert!(
        known.contains(&format!("[127.0.0.1]:{}", sshd.port)),
        "{known}"
    );
    assert_eq!(locked(&home, "dev.example.pinned", "source"), url);
}

/// A server that answers the SSH banner and then says nothing: `outdated`, `update` and
/// `doctor` give up at their `--timeout`, and no git, `sh -c ssh` or ssh they started
/// outlives them (hourly cron runs used to pile them up).
#[test]
fn nothing_outlives_a_check_against_a_server_silent_after_its_banner() {
    if !available() {
        return;
    }
    use std::io::Write as _;
    let tmp = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut s in listener.incoming().flatten() {
            let _ = s.write_all(b"SSH-2.0-OpenSSH_9.2p1 silent\r\n");
            held.push(s);
        }
    });
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        format!(
            "lock_version = 2\n\n[plugins.\"dev.example.silent\"]\nsource = \"ssh://git@127.0.0.1:{port}/x.git\"\nrequested_ref = \"main\"\nref_kind = \"branch\"\nresolved_commit = \"{}\"\nversion = \"1.0.0\"\n",
            "a".repeat(40)
        ),
    )
    .unwrap();
    let survivors = || {
        let out = Command::new("pgrep")
            .args([
                "-f",
                &format!("127.0.0.1.*{port}|{port}.*127.0.0.1|-p {port}"),
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    for (args, code, stdout, stderr) in [
        (
            &["outdated", "--timeout", "2"][..],
            1,
            str![[r#"
dev.example.silent               main @ aaaaaaaaaa            check failed: listing ssh://git@127.0.0.1:[PORT]/x.git timed out after 2 s

"#]],
            str![],
        ),
        (
            &["update", "--all", "--yes", "--timeout", "2"][..],
            1,
            str![],
            str![[r#"
      Failed dev.example.silent: listing ssh://git@127.0.0.1:[PORT]/x.git timed out after 2 s

"#]],
        ),
        // What doctor finds of the hosts depends on the machine (its PATH, its python3).
        (
            &["doctor", "--timeout", "2"][..],
            1,
            str![[r#"
aoe home [TMP]/home
  ok    [TMP]/home exists
  ok    [TMP]/home/plugins.lock (aoe) loads: 1 plugin
  fail  dev.example.silent: [TMP]/home/plugins/dev.example.silent is missing [plugins::install::missing]
        help: `plugins sync` installs it again at the locked commit
  ok    no interrupted change, no stale staging directory
  info  idle signal [TMP]/home/activity: never touched (idle); no autoupdate sweep yet
  info  autoupdate policy [TMP]/home/plugins.toml: none (nothing is auto-updated)
  info  17 * * * * mkdir -p [TMP]/user/.local/state && [EXE] autoupdate -q --home [TMP]/home >>[TMP]/user/.local/state/plugins-autoupdate.log 2>&1 || { tail -n 20 [TMP]/user/.local/state/plugins-autoupdate.log; exit 1; }
  ok    the crontab line can run: [EXE] is executable; [TMP]/user is writable (the line's `mkdir -p` creates [TMP]/user/.local/state)
hosts
...
sources
  fail  dev.example.silent: listing ssh://git@127.0.0.1:[PORT]/x.git timed out after 2 s [plugins::git::fetch]
        help: proxy: none; credentials if asked: none (PLUGINS_NET_TIMEOUT and --timeout bound each attempt)
doctor: 4 ok, 0 warn, 2 fail

"#]],
            str![],
        ),
    ] {
        let started = Instant::now();
        let ran = Plugins::new()
            .args(args)
            .arg("--home")
            .arg(&home)
            .env("PLUGINS_NET_TIMEOUT", "60")
            .env_remove("GIT_SSH_COMMAND")
            .env_remove("GIT_SSH")
            .isolated(tmp.path())
            .stdin(Stdio::null())
            .tmp(tmp.path())
            .redact_word("[PORT]", port)
            .run();
        let took = started.elapsed();
        ran.expect(code, stdout, stderr);
        assert!(took < Duration::from_secs(30), "{args:?} took {took:?}");
        // SIGKILL is delivered before `plugins` exits; the kernel may take a moment to
        // tear the processes down.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !survivors().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(survivors(), "", "{args:?} left processes running");
    }
}
