//! `sync`, `update --all` and `outdated` over many remotes at once: a real `git-daemon`
//! on 127.0.0.1, results in lock order, locked commits fetched alone where the server
//! allows it and in full where it does not.

use std::path::{Path, PathBuf};

use snapbox::{assert_data_eq, file, str};

use crate::support::git::{Repo, git};
use crate::support::net::Daemon;
use crate::support::*;

fn manifest(i: usize, version: &str) -> String {
    format!(
        "id = \"dev.pool.p{i}\"\nname = \"P{i}\"\nversion = \"{version}\"\napi_version = 6\n\n[[commands]]\nid = \"hello\"\n"
    )
}

/// `n` plugins `dev.pool.p<i>`, each with a history (v1.0.0, then two more commits,
/// the last tagged v2.0.0), served bare as `p<i>.git` under `served`; the even ones
/// allow wanting any reachable commit (as GitHub does), the odd ones do not (git's
/// default). Returns the work repositories.
fn plugins_served(t: &Path, served: &Path, n: usize) -> Vec<Repo> {
    (0..n)
        .map(|i| {
            let repo = Repo::init(&t.join(format!("work/p{i}")));
            repo.file("aoe-plugin.toml", &manifest(i, "1.0.0"));
            repo.commit("one");
            repo.tag("v1.0.0");
            repo.file("README.md", "more history\n");
            repo.commit("two");
            let bare = served.join(format!("p{i}.git"));
            repo.clone_bare(&bare);
            if i % 2 == 0 {
                git(
                    &bare,
                    &["config", "uploadpack.allowReachableSHA1InWant", "true"],
                );
            }
            repo
        })
        .collect()
}

fn home_with(t: &Path, name: &str, urls: &[String], reference: &str) -> PathBuf {
    let home = t.join(name);
    for url in urls {
        Plugins::new()
            .args(["install", url, "--ref", reference, "--yes", "--home"])
            .arg(&home)
            .run()
            .success();
    }
    home
}

#[test]
fn sync_fetches_several_at_once_and_installs_in_lock_order() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let served = t.join("served");
    let repos = plugins_served(t, &served, 6);
    let daemon = Daemon::serve(&served);
    let urls: Vec<String> = (0..6)
        .map(|i| format!("git://127.0.0.1:{}/p{i}.git", daemon.port))
        .collect();
    let first = home_with(t, "first", &urls, "v1.0.0");
    // The tags move on; a fresh home synced from the lock gets the locked commits.
    for (i, repo) in repos.iter().enumerate() {
        repo.file("aoe-plugin.toml", &manifest(i, "9.0.0"));
        repo.commit("moved");
        git(&repo.dir, &["tag", "-f", "v1.0.0"]);
        git(
            &repo.dir,
            &[
                "push",
                "-q",
                "-f",
                served.join(format!("p{i}.git")).to_str().unwrap(),
                "main",
                "v1.0.0",
            ],
        );
    }
    let fresh = t.join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(first.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    let ran = Plugins::new()
        .args(["-v", "sync", "--yes", "--jobs", "3", "--home"])
        .arg(&fresh)
        .run();
    // parts: -v logs three jobs' fetches in the order they run; searched for how servers answer
    let (code, stdout, stderr) = ran.parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_data_eq!(
        stdout,
        str![[r#"
      Synced dev.pool.p0 1.0.0
      Synced dev.pool.p1 1.0.0
      Synced dev.pool.p2 1.0.0
      Synced dev.pool.p3 1.0.0
      Synced dev.pool.p4 1.0.0
      Synced dev.pool.p5 1.0.0

"#]]
    );
    for i in 0..6 {
        let id = format!("dev.pool.p{i}");
        assert_eq!(
            locked(&fresh, &id, "resolved_commit"),
            locked(&first, &id, "resolved_commit")
        );
        let text =
            std::fs::read_to_string(fresh.join(format!("plugins/{id}/aoe-plugin.toml"))).unwrap();
        assert!(text.contains("version = \"1.0.0\""), "{id}: {text}");
    }
    // The even servers gave the locked commit alone; the odd ones refused, and their whole
    // history was fetched instead.
    let mut alone = Vec::new();
    let mut refused = Vec::new();
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix("debug: git: git://127.0.0.1:") else {
            continue;
        };
        let path = rest.split('/').nth(1).unwrap_or_default();
        let repo = path.split(':').next().unwrap_or_default().to_owned();
        if rest.contains(" alone, 1 deep") {
            alone.push(repo.clone());
        }
        if rest.contains(" refused (") {
            refused.push(repo);
        }
    }
    alone.sort();
    refused.sort();
    assert_eq!(
        (alone.join(" "), refused.join(" ")),
        (
            "p0.git p1.git p2.git p3.git p4.git p5.git".to_owned(),
            "p1.git p3.git p5.git".to_owned()
        ),
        "{stderr}"
    );
    Plugins::new()
        .args(["sync", "--yes", "--home"])
        .arg(&fresh)
        .run()
        .expect(
            0,
            str![[r#"
everything locked is installed

"#]],
            str![],
        );
    // The git-command mode gets the same commits. git speaks protocol v2, whose servers
    // give any reachable commit asked for by id: each comes alone.
    let cli = t.join("cli");
    std::fs::create_dir_all(&cli).unwrap();
    std::fs::copy(first.join("plugins.lock"), cli.join("plugins.lock")).unwrap();
    let ran = Plugins::new()
        .args(["-v", "sync", "--yes", "--jobs", "4", "--home"])
        .arg(&cli)
        .env("PLUGINS_GIT_FETCH_WITH_CLI", "1")
        .run();
    // parts: -v logs the fetches of four jobs in the order they run; searched for refusals
    let (code, stdout, stderr) = ran.parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let refused: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("alone was refused"))
        .collect();
    assert_eq!(refused, Vec::<&str>::new(), "{stderr}");
    for i in 0..6 {
        let id = format!("dev.pool.p{i}");
        assert_eq!(
            locked(&cli, &id, "resolved_commit"),
            locked(&first, &id, "resolved_commit")
        );
    }
}

#[test]
fn update_all_fetches_several_at_once_and_updates_in_lock_order() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let served = t.join("served");
    let repos = plugins_served(t, &served, 5);
    let daemon = Daemon::serve(&served);
    let urls: Vec<String> = (0..5)
        .map(|i| format!("git://127.0.0.1:{}/p{i}.git", daemon.port))
        .collect();
    let home = home_with(t, "home", &urls, "v1.0.0");
    for (i, repo) in repos.iter().enumerate() {
        repo.file("aoe-plugin.toml", &manifest(i, "2.0.0"));
        repo.commit("two");
        repo.tag("v2.0.0");
        git(
            &repo.dir,
            &[
                "push",
                "-q",
                served.join(format!("p{i}.git")).to_str().unwrap(),
                "main",
                "v2.0.0",
            ],
        );
    }
    // stdout in lock order (stderr: the Fetching lines of three jobs, in the order they run).
    Plugins::new()
        .args(["update", "--all", "--yes", "--jobs", "3", "--home"])
        .arg(&home)
        .run()
        .code(0)
        .stdout_eq(str![[r#"
     Updated dev.pool.p0 to v2.0.0 @ [..]
     Updated dev.pool.p1 to v2.0.0 @ [..]
     Updated dev.pool.p2 to v2.0.0 @ [..]
     Updated dev.pool.p3 to v2.0.0 @ [..]
     Updated dev.pool.p4 to v2.0.0 @ [..]

"#]]);
    for i in 0..5 {
        assert_eq!(
            locked(&home, &format!("dev.pool.p{i}"), "requested_ref"),
            "v2.0.0"
        );
    }
}

#[test]
fn outdated_checks_many_git_daemon_remotes_at_the_default_jobs_without_a_failed_row() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let served = t.join("served");
    let n = 24;
    let repos = plugins_served(t, &served, n);
    let daemon = Daemon::serve(&served);
    let urls: Vec<String> = (0..n)
        .map(|i| format!("git://127.0.0.1:{}/p{i}.git", daemon.port))
        .collect();
    let home = home_with(t, "home", &urls, "v1.0.0");
    // Every third gets a newer release (annotated: the peeled commit is reported).
    let mut newer = Vec::new();
    for (i, repo) in repos.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
        repo.annotated_tag("v1.1.0");
        let commit = git(&repo.dir, &["rev-parse", "HEAD"]);
        git(
            &repo.dir,
            &[
                "push",
                "-q",
                served.join(format!("p{i}.git")).to_str().unwrap(),
                "v1.1.0",
            ],
        );
        newer.push(commit);
    }
    let outdated = |home: &Path| {
        let mut cmd = Plugins::new();
        cmd.args(["outdated", "--json", "--home"])
            .arg(home)
            .redact("[DAEMON]", format!("git://127.0.0.1:{}", daemon.port));
        for commit in &newer {
            cmd.redact("[NEWER]", commit);
        }
        cmd.run()
    };
    // Every row in lock order; the newer ones at the peeled commit (`[NEWER]`).
    outdated(&home).expect(0, file!["../snapshots/pool/outdated-24.json"], str![]);
    // A repository the daemon does not serve fails its own row, named.
    let gone = t.join("gone");
    std::fs::create_dir_all(&gone).unwrap();
    let text = std::fs::read_to_string(home.join("plugins.lock"))
        .unwrap()
        .replace("/p1.git", "/missing.git");
    std::fs::write(gone.join("plugins.lock"), text).unwrap();
    outdated(&gone).expect(1, file!["../snapshots/pool/outdated-24-gone.json"], str![]);
}

/// libgit2 sends an http:// remote's requests to the server even with a proxy set, so
/// such a remote is fetched and listed with the system git, given the proxy `plugins`
/// chose (here an upper-case HTTP_PROXY, which curl itself would ignore): the proxy sees
/// every request, for `install` and for `outdated`; with NO_PROXY covering the host it
/// sees none.
#[test]
fn http_sources_go_through_the_proxy_for_install_and_outdated() {
    use crate::support::net::{GitServer, Proxy};
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let repo = Repo::init(&t.join("work"));
    repo.file("aoe-plugin.toml", &manifest(0, "1.0.0"));
    repo.commit("one");
    repo.tag("v1.0.0");
    repo.clone_bare(&t.join("srv/acme/kit.git"));
    let server = GitServer::start(&t.join("srv"), "pr0xy-s3cret");
    let proxy = Proxy::start();
    let source = format!("{}/acme/kit.git", server.base);
    // The credentials come from a git credential helper, for the install and the check.
    std::fs::write(
        t.join("gitconfig"),
        "[credential]\n\thelper = \"!f() { echo username=me; echo password=pr0xy-s3cret; }; f\"\n",
    )
    .unwrap();
    let cmd = |proxy_url: &str, no_proxy: Option<&str>| {
        let mut c = Plugins::new();
        c.without_proxies()
            .env_remove("PLUGINS_GIT_FETCH_WITH_CLI")
            .env("GIT_CONFIG_GLOBAL", t.join("gitconfig"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HTTP_PROXY", proxy_url)
            .env("PLUGINS_NET_TIMEOUT", "10");
        if let Some(n) = no_proxy {
            c.env("NO_PROXY", n);
        }
        c
    };
    let home = t.join("home");
    let ran = cmd(&proxy.url, None)
        .args(["install", &source, "--ref", "v1.0.0", "--yes", "--home"])
        .arg(&home)
        .redact("[GIT]", &server.base)
        .tmp(t)
        .run();
    ran.expect(0, str![[r#"
   Installed dev.pool.p0 1.0.0 @ cc92c3ce17 in [TMP]/home/plugins/dev.pool.p0

"#]], str![[r#"
    Fetching [GIT]/acme/kit.git
warning[plugins::git::cleartext]: [GIT]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched cc92c3ce1726

"#]]);
    // The password never shows.
    assert!(!format!("{}{}", ran.stdout, ran.stderr).contains("pr0xy-s3cret"));
    let through = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let l = l.replace(&server.base, "[GIT]");
                let mut parts = l.split_whitespace();
                let method = parts.next().unwrap_or_default();
                let target = parts.next().unwrap_or_default().split('?').next();
                format!("{method} {}", target.unwrap_or_default())
            })
            .collect()
    };
    let mut seen = through(&proxy.lines());
    seen.dedup();
    assert_data_eq!(
        seen.join("\n"),
        str![[r#"
GET [GIT]/acme/kit.git/info/refs
POST [GIT]/acme/kit.git/git-upload-pack
"#]]
    );
    let before = proxy.lines().len();
    repo.file("README.md", "newer\n");
    repo.commit("two");
    repo.tag("v1.1.0");
    git(
        &repo.dir,
        &[
            "push",
            "-q",
            t.join("srv/acme/kit.git").to_str().unwrap(),
            "v1.1.0",
        ],
    );
    // The cooldown counts from this home's first sight of the newer version: nothing is
    // fetched to date it, only the refs are listed, through the proxy.
    cmd(&proxy.url, None)
        .args(["outdated", "--json", "--cooldown", "1d", "--home"])
        .arg(&home)
        .redact("[GIT]", &server.base)
        .tmp(t)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.pool.p0",
      "source": "[GIT]/acme/kit.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "cc92c3ce1726d83ed1aeb7dc7771c79b0c22f17a",
      "status": "held_back",
      "new_ref": "v1.1.0",
      "commit": "c508efa4562d4c8f95cfde6f5befba0e38001a0e",
      "released_at": "[AT]",
      "age_from": "first_seen",
      "left_secs": [..],
      "cooldown_secs": 86400
    }
  ]
}

"#]],
            str![],
        );
    let mut seen = through(&proxy.lines()[before..]);
    seen.dedup();
    assert_data_eq!(
        seen.join("\n"),
        str![[r#"
GET [GIT]/acme/kit.git/info/refs
"#]]
    );
    // `update --dry-run` reviews the commits it would bring, read through the proxy.
    let before = proxy.lines().len();
    cmd(&proxy.url, None)
        .args(["update", "--all", "--dry-run", "--home"])
        .arg(&home)
        .redact("[GIT]", &server.base)
        .tmp(t)
        .run()
        .expect(
            0,
            str![[r#"
Would update dev.pool.p0 to v1.1.0 @ [..]
  1 commit since [..]:
    [..] two
  permissions: unchanged
  consent: not needed

"#]],
            str![[r#"
    Fetching [GIT]/acme/kit.git
warning[plugins::git::cleartext]: [GIT]/acme/kit.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
     Fetched c508efa4562d

"#]],
        );
    assert!(proxy.lines().len() > before);
    // NO_PROXY covers the host: libgit2 goes straight to the server.
    let before = proxy.lines().len();
    cmd(&proxy.url, Some("127.0.0.1"))
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .redact("[GIT]", &server.base)
        .tmp(t)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.pool.p0",
      "source": "[GIT]/acme/kit.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "cc92c3ce1726d83ed1aeb7dc7771c79b0c22f17a",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "c508efa4562d4c8f95cfde6f5befba0e38001a0e"
    }
  ]
}

"#]],
            str![],
        );
    assert_eq!(proxy.lines()[before..].to_vec(), Vec::<String>::new());
}

/// Forty plugins on one `git daemon`, whose accept queue holds 5 and whose dropped
/// connects would wait 1 s, 3 s, 7 s: `outdated` at the default jobs and `sync` at 16 jobs
/// keep to the per-server cap, so every row succeeds within a 3-second transfer limit
/// (which a single dropped connect's second retry would exceed).
#[test]
fn forty_remotes_on_one_daemon_all_succeed_for_outdated_and_sync() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let served = t.join("served");
    let n = 40;
    plugins_served(t, &served, n);
    let daemon = Daemon::serve(&served);
    let urls: Vec<String> = (0..n)
        .map(|i| format!("git://127.0.0.1:{}/p{i}.git", daemon.port))
        .collect();
    let home = home_with(t, "home", &urls, "v1.0.0");
    Plugins::new()
        .args(["outdated", "--json", "--home"])
        .arg(&home)
        .env("PLUGINS_NET_TIMEOUT", "3")
        .redact("[DAEMON]", format!("git://127.0.0.1:{}", daemon.port))
        .run()
        .expect(0, file!["../snapshots/pool/outdated-40.json"], str![]);
    let fresh = t.join("fresh");
    std::fs::create_dir_all(&fresh).unwrap();
    std::fs::copy(home.join("plugins.lock"), fresh.join("plugins.lock")).unwrap();
    // stdout in lock order (stderr: the Fetching lines of sixteen jobs, in the order they
    // run).
    Plugins::new()
        .args(["sync", "--yes", "--jobs", "16", "--home"])
        .arg(&fresh)
        .env("PLUGINS_NET_TIMEOUT", "3")
        .run()
        .code(0)
        .stdout_eq(file!["../snapshots/pool/sync-40.txt"]);
    for i in 0..n {
        let id = format!("dev.pool.p{i}");
        assert_eq!(
            locked(&fresh, &id, "resolved_commit"),
            locked(&home, &id, "resolved_commit")
        );
    }
}

/// `n` plugins served by a keep-alive smart-HTTP server, installed into one home.
fn http_home(t: &Path, n: usize) -> (crate::support::net::KeepAliveServer, PathBuf) {
    let served = t.join("served");
    plugins_served(t, &served, n);
    let server = crate::support::net::KeepAliveServer::start(&served);
    let urls: Vec<String> = (0..n)
        .map(|i| format!("{}/p{i}.git", server.base))
        .collect();
    let home = home_with(t, "home", &urls, "v1.0.0");
    (server, home)
}

/// The checks of one run share one connection pool: over a server that keeps
/// connections alive, checked one at a time, they all go over fewer connections than
/// there are remotes (one, here); checked four at a time, never more than four connections.
#[test]
fn http_checks_of_one_run_reuse_connections() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let n = 12;
    let (server, home) = http_home(t, n);
    for (jobs, most) in [("1", 1), ("4", 4)] {
        *server.connections.lock().unwrap() = 0;
        *server.requests.lock().unwrap() = 0;
        Plugins::new()
            .args(["outdated", "--json", "--jobs", jobs, "--home"])
            .arg(&home)
            .redact("[SERVER]", &server.base)
            .run()
            .expect(0, file!["../snapshots/pool/outdated-12-http.json"], str![]);
        let connections = *server.connections.lock().unwrap();
        let requests = *server.requests.lock().unwrap();
        assert!(requests >= n, "jobs {jobs}: {requests} requests");
        assert!(
            connections <= most,
            "jobs {jobs}: {connections} connections for {requests} requests"
        );
    }
}

/// `outdated` lists each remote once: a newer row's trust check (its locked commit still a
/// branch or tag tip) reads the listing its update check made, rather than listing again
/// (which doubled the round trips of a run where every row is newer). A locked commit the
/// listing does not show is still found out (`trust::` tests).
#[test]
fn outdated_lists_each_remote_once_when_every_row_is_newer() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let n = 6;
    let (server, home) = http_home(t, n);
    for i in 0..n {
        git(
            &t.join("served").join(format!("p{i}.git")),
            &["tag", "v1.1.0", "HEAD"],
        );
    }
    *server.requests.lock().unwrap() = 0;
    // Every row newer, none with a problem; one request each.
    Plugins::new()
        .args(["outdated", "--json"])
        .home(&home)
        .redact("[SERVER]", &server.base)
        .run()
        .expect(
            0,
            str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.pool.p0",
      "source": "[SERVER]/p0.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "cc92c3ce1726d83ed1aeb7dc7771c79b0c22f17a",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "288a2577e8fcde9aad1abd393910053fabe60702"
    },
    {
      "id": "dev.pool.p1",
      "source": "[SERVER]/p1.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "289a31e889583d6944ada837ec071ad4aafd190f",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "57cb5ca965223bab06c786de995a72e4c32ead3d"
    },
    {
      "id": "dev.pool.p2",
      "source": "[SERVER]/p2.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "350d0aad98ccc862c5b9925a2b49c7ce85f43376",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "51099532619f7f84af2c68c10fddeff4fddc60cb"
    },
    {
      "id": "dev.pool.p3",
      "source": "[SERVER]/p3.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "b5949c45e1c4e11a6c1ae9d7e57abb537df47e4f",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "8f96841b8b2139a2e8a767365bfd787cc0b0f25a"
    },
    {
      "id": "dev.pool.p4",
      "source": "[SERVER]/p4.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "c0b33c1e56ee2d51e44d63f4381e32416e54843b",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "4dc0aea469a868b64dc95a31dadba09e039758b2"
    },
    {
      "id": "dev.pool.p5",
      "source": "[SERVER]/p5.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "6fbab0ef1dd6118308dd3da0b61bb2ae9a393750",
      "status": "behind",
      "new_ref": "v1.1.0",
      "commit": "7c3f6c2dd5acef1b996377a927d264a07ae082a0"
    }
  ]
}

"#]],
            str![],
        );
    assert_eq!(*server.requests.lock().unwrap(), n);
}

/// `outdated` reads each home's lock a fixed number of times, not once more per row (it
/// was read again for every row after the checks: 402 reads, 0.6 s of CPU, for 200 rows),
/// here with every row newer, so that each pass over the newer rows runs.
#[cfg(target_os = "linux")]
#[test]
fn outdated_reads_the_lock_a_fixed_number_of_times_not_per_row() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let n = 12;
    let (_server, home) = http_home(t, n);
    for i in 0..n {
        git(
            &t.join("served").join(format!("p{i}.git")),
            &["tag", "v1.1.0", "HEAD"],
        );
    }
    let trace = t.join("trace");
    let out = Plugins::new()
        .args(["outdated", "--json"])
        .home(&home)
        .wrapped_in(
            strace,
            [
                "-f".as_ref(),
                "-qq".as_ref(),
                "-e".as_ref(),
                "trace=openat".as_ref(),
                "-o".as_ref(),
                trace.as_os_str(),
            ],
        )
        .output();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["plugins"].as_array().unwrap();
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["status"] == "behind"), "{json}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let reads = text
        .lines()
        .filter(|l| l.contains("plugins.lock\"") && !l.contains("ENOENT"))
        .count();
    assert!(
        reads <= 4,
        "{n} rows, {reads} reads of plugins.lock:\n{text}"
    );
}

/// `outdated` starts a thread for each remote it lists, not another for each row's trust
/// check when the listing already showed the locked commit as a tip (200 such threads, at
/// most 24 at a time per `git://` server, were 75 ms of a 200-remote run at a 40 ms round
/// trip): here every row is newer and its locked commit still tagged.
#[cfg(target_os = "linux")]
#[test]
fn outdated_starts_no_thread_for_a_trust_check_that_needs_no_remote() {
    let Some(strace) = crate::support::strace() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let n = 12;
    let (_server, home) = http_home(t, n);
    for i in 0..n {
        git(
            &t.join("served").join(format!("p{i}.git")),
            &["tag", "v1.1.0", "HEAD"],
        );
    }
    let trace = t.join("trace");
    let out = Plugins::new()
        .args(["outdated", "--json"])
        .home(&home)
        .wrapped_in(
            strace,
            [
                "-f".as_ref(),
                "-qq".as_ref(),
                "-e".as_ref(),
                "trace=clone,clone3".as_ref(),
                "-o".as_ref(),
                trace.as_os_str(),
            ],
        )
        .output();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["plugins"].as_array().unwrap();
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["status"] == "behind"), "{json}");
    assert!(rows.iter().all(|r| r.get("problems").is_none()), "{json}");
    let text = std::fs::read_to_string(&trace).unwrap();
    let threads = text
        .lines()
        .filter(|l| l.contains("clone") && l.contains("CLONE_THREAD"))
        .count();
    // One per listing, and a few of the HTTP client's own.
    assert!(
        threads < n + n / 2,
        "{n} rows, {threads} threads started:\n{text}"
    );
}

/// A server whose ref list never ends is cut off at the limit, with the limit named.
#[test]
fn an_endless_ref_list_is_refused_at_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let server = crate::support::net::KeepAliveServer::start(&t.join("served"));
    Plugins::new()
        .args([
            "install",
            &format!("{}/huge.git", server.base),
            "--yes",
            "--home",
        ])
        .arg(t.join("home"))
        .redact("[SERVER]", &server.base)
        .run()
        .expect(2, str![], str![[r#"
    Fetching [SERVER]/huge.git
warning[plugins::git::cleartext]: [SERVER]/huge.git is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::fetch

  × cannot reach [SERVER]/huge.git: the server sent more than 64 MiB

"#]]);
}

/// A server whose accept queue is full drops the connect's SYN, which the kernel would
/// only resend after 1 s, then 3 s: the check tries a connect that gets no answer again
/// at once, and succeeds once the server accepts.
#[cfg(target_os = "linux")]
#[test]
fn an_unanswered_http_connect_is_tried_again() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (first, home) = http_home(t, 1);
    let busy = crate::support::net::KeepAliveServer::start_on(
        crate::support::net::full_listener(),
        &t.join("served"),
        Some(std::time::Duration::from_millis(1500)),
    );
    let lock = home.join("plugins.lock");
    let text = std::fs::read_to_string(&lock)
        .unwrap()
        .replace(&first.base, &busy.base);
    std::fs::write(&lock, text).unwrap();
    let ran = Plugins::new()
        .args(["-v", "outdated", "--json", "--home"])
        .arg(&home)
        .run();
    // parts: -v logs each connect tried, as many as the busy server takes to accept
    let (code, stdout, stderr) = ran.parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["plugins"][0]["status"], "up_to_date", "{stdout}");
    assert!(
        stderr.contains("no answer to connect: trying again"),
        "{stderr}"
    );
}

/// An `https://` connect is not abandoned at the quick limit that an `http://` one gets:
/// reqwest's connect timeout covers the TLS handshake, and a busy server still working
/// on it would get the handshake begun again on a new connection. Here the server
/// accepts and stays silent for longer than that limit (400 ms), then hangs up: one
/// connection, not three.
#[test]
fn a_slow_tls_handshake_is_not_begun_again() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let (first, home) = http_home(t, 1);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { break };
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(1200));
                drop(conn);
            });
        }
    });
    let lock = home.join("plugins.lock");
    let text = std::fs::read_to_string(&lock)
        .unwrap()
        .replace(&first.base, &format!("https://127.0.0.1:{port}"));
    std::fs::write(&lock, text).unwrap();
    // One connection, no connect tried again.
    Plugins::new()
        .args(["-v", "outdated", "--json", "--home"])
        .arg(&home)
        .redact("[URL]", format!("https://127.0.0.1:{port}"))
        .run()
        .expect(1, str![[r#"
{
  "format_version": 1,
  "plugins": [
    {
      "id": "dev.pool.p0",
      "source": "[URL]/p0.git",
      "requested_ref": "v1.0.0",
      "ref_kind": "tag",
      "current": "cc92c3ce1726d83ed1aeb7dc7771c79b0c22f17a",
      "status": "error",
      "message": "cannot reach [URL]/p0.git: failed to connect to 127.0.0.1: Connection reset by peer"
    }
  ]
}

"#]], str![[r#"
debug: git: [URL]/p0.git: connecting (credentials if asked: none)
debug: git: [URL]/p0.git: proxy none

"#]]);
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
}
