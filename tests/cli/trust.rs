//! Supply-chain trust (issue #27): impostor commits, build-step environments, pip
//! requirements that name local paths, secrets in output, and cooldowns.

use std::path::{Path, PathBuf};

use snapbox::str;

use crate::support::git::{Repo, git};
use crate::support::net::Daemon;
use crate::support::*;

/// A repository served by `git daemon` on loopback as `kit.git`, with
/// `uploadpack.allowAnySHA1InWant` (as GitHub serves any fork's commit through the
/// parent's URL): main is c1 → c2; tag `v2.2` is c2 → r1 → r2 on no branch; and
/// `impostor` (version 6.6.6, a child of c1) is on no branch or tag at all.
struct Served {
    _daemon: Daemon,
    url: String,
    bare: PathBuf,
    c1: String,
    c2: String,
    r1: String,
    impostor: String,
}

fn served(tmp: &Path) -> Served {
    let repo = Repo::init(&tmp.join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    let c2 = repo.commit("v2");
    git(&repo.dir, &["checkout", "-q", "--detach", &c2]);
    repo.file("aoe-plugin.toml", &static_aoe("2.1.0"));
    let r1 = repo.commit("r1");
    repo.file("aoe-plugin.toml", &static_aoe("2.2.0"));
    repo.commit("r2");
    repo.tag("v2.2");
    git(&repo.dir, &["checkout", "-q", "-b", "fork", &c1]);
    repo.file("aoe-plugin.toml", &static_aoe("6.6.6"));
    let impostor = repo.commit("not the publisher's");
    git(&repo.dir, &["checkout", "-q", "main"]);
    let base = tmp.join("served");
    let bare = base.join("kit.git");
    repo.clone_bare(&bare);
    // The fork's branch goes; its commit stays in the served objects.
    git(&bare, &["branch", "-D", "fork"]);
    git(&bare, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let daemon = Daemon::serve(&base);
    let url = format!("git://127.0.0.1:{}/kit.git", daemon.port);
    Served {
        _daemon: daemon,
        url,
        bare,
        c1,
        c2,
        r1,
        impostor,
    }
}

/// Both fetch modes: libgit2, and the git command (as ssh sources use).
const MODES: [&str; 2] = ["0", "1"];

/// `install <args> --yes` in `home`, the URL, home and commits redacted.
fn install_in(s: &Served, mode: &str, home: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .arg("install")
        .args(args)
        .arg("--home")
        .arg(home)
        .arg("--yes")
        .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
        .env("COLUMNS", "400")
        .redact("[URL]", &s.url)
        .redact("[HOME]", home)
        .redact("[IMPOSTOR]", &s.impostor)
        .redact("[FIRST]", &s.c1)
        .redact("[SECOND]", &s.c2)
        .redact("[RELEASE]", &s.r1)
        .run()
}

#[test]
fn an_impostor_commit_is_refused_by_install_in_both_fetch_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let s = served(&tmp.path().join("s"));
    for mode in MODES {
        let home = tmp.path().join(format!("home-{mode}"));
        install_in(&s, mode, &home, &[&s.url, "--ref", &s.impostor]).expect(
            2,
            str![[""]],
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::impostor_commit

  × commit [IMPOSTOR] is on no branch or tag of [URL]
  help: a commit that no branch or tag holds can come from anyone's fork (GitHub serves every fork's commits through the parent's URL); install a branch or tag instead, or ask the publisher to push
        the commit to one; if a force-push dropped it from its branch, `plugins update` moves to the branch's new commit

"#]],
        );
        assert!(
            !home.join("plugins/dev.example.pinned").exists()
                && locked_or_empty(&home, "resolved_commit").is_empty(),
            "mode {mode}: nothing installed or locked"
        );
        // A ref that is no branch or tag (a pull request's head) is no way around it.
        git(
            &s.bare,
            &["update-ref", "refs/pull/1/head", s.impostor.as_str()],
        );
        install_in(&s, mode, &home, &[&s.url, "--ref", "refs/pull/1/head"]).expect(
            2,
            str![[""]],
            str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::impostor_commit

  × commit [IMPOSTOR] is on no branch or tag of [URL]
  help: a commit that no branch or tag holds can come from anyone's fork (GitHub serves every fork's commits through the parent's URL); install a branch or tag instead, or ask the publisher to push
        the commit to one; if a force-push dropped it from its branch, `plugins update` moves to the branch's new commit

"#]],
        );
        git(&s.bare, &["update-ref", "-d", "refs/pull/1/head"]);

        // Published commits install: a branch tip, one below it (found by fetching the
        // branches a bounded depth), and one only a tag holds (found by the full fetch).
        for (commit, version) in [(&s.c2, "2.0.0"), (&s.c1, "1.0.0"), (&s.r1, "2.1.0")] {
            let home = tmp.path().join(format!("ok-{mode}-{version}"));
            install_in(&s, mode, &home, &[&s.url, "--ref", commit]).success();
            assert_eq!(
                locked(&home, "dev.example.pinned", "resolved_commit"),
                **commit
            );
            let manifest =
                std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
                    .unwrap();
            assert!(manifest.contains(version), "{manifest}");
        }
    }
}

fn locked_or_empty(home: &Path, key: &str) -> String {
    if home.join("plugins.lock").is_file() {
        locked(home, "dev.example.pinned", key)
    } else {
        String::new()
    }
}

#[test]
fn sync_refuses_a_lock_row_pinned_to_an_impostor_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let s = served(&tmp.path().join("s"));
    let first = tmp.path().join("first");
    assert_eq!(install(&first, &[&s.url, "--ref", "main"]).0, 0);
    let lock = std::fs::read_to_string(first.join("plugins.lock")).unwrap();
    assert!(lock.contains(&s.c2), "{lock}");
    // A lock that names the repository at a commit its owners never published (a
    // hostile pull request to the project's lock, or a fork's commit pinned by id).
    let hostile = lock.replace(&s.c2, &s.impostor);
    for mode in MODES {
        let fresh = tmp.path().join(format!("fresh-{mode}"));
        std::fs::create_dir_all(&fresh).unwrap();
        std::fs::write(fresh.join("plugins.lock"), &hostile).unwrap();
        Plugins::new()
            .args(["sync", "--yes", "--home"])
            .arg(&fresh)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400")
            .redact("[URL]", &s.url)
            .redact("[HOME]", &fresh)
            .redact("[IMPOSTOR]", &s.impostor)
            .run()
            .expect(2, str![[""]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::impostor_commit

  × commit [IMPOSTOR] is on no branch or tag of [URL]
  help: a commit that no branch or tag holds can come from anyone's fork (GitHub serves every fork's commits through the parent's URL); install a branch or tag instead, or ask the publisher to push
        the commit to one; if a force-push dropped it from its branch, `plugins update` moves to the branch's new commit

"#]]);
        assert!(!fresh.join("plugins/dev.example.pinned").exists());
    }
}

#[test]
fn outdated_and_doctor_report_a_lock_row_pinned_to_an_impostor_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let s = served(&tmp.path().join("s"));
    // c1 is a commit pin below main's tip: published, found by fetching the branches.
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&s.url, "--ref", &s.c1]).0, 0);
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    // What a user sees, the URL, home and the impostor commit redacted.
    let at = |cmd: &str, mode: &str, args: &[&str]| {
        let ran = Plugins::new()
            .arg(cmd)
            .args(args)
            .home(&home)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400")
            .redact("[URL]", &s.url)
            .redact("[HOME]", &home)
            .redact("[IMPOSTOR]", &s.impostor)
            .redact("[IMPOSTOR]", &s.impostor[..10])
            .run();
        ran.redacted_parts()
    };
    let outdated = |mode: &str, args: &[&str]| at("outdated", mode, args);
    let doctor = |mode: &str, args: &[&str]| at("doctor", mode, args);
    for mode in MODES {
        let (code, stdout, stderr) = outdated(mode, &["--json"]);
        assert_eq!(code, 0, "mode {mode}: {stdout}{stderr}");
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(doc["plugins"][0].get("problems").is_none(), "{doc}");
        let (_, report, _) = doctor(mode, &["--json"]);
        assert!(!report.contains("impostor_commit"), "mode {mode}: {report}");
    }

    // The row now names a commit only a fork pushed (a hostile edit of the lock).
    std::fs::write(home.join("plugins.lock"), lock.replace(&s.c1, &s.impostor)).unwrap();
    for mode in MODES {
        let (code, stdout, stderr) = outdated(mode, &[]);
        assert_eq!(code, 1, "mode {mode}: {stdout}{stderr}");
        snapbox::assert_data_eq!(
            stdout,
            snapbox::str![[r#"
dev.example.pinned               [IMPOSTOR] @ [IMPOSTOR] pinned to a commit
  error[plugins::git::impostor_commit]: dev.example.pinned: the locked commit [IMPOSTOR] is on no branch or tag of [URL]: anyone's fork may have pushed it (install, update and sync refuse it)
    help: reinstall dev.example.pinned from a branch or tag of its source, or remove it (`plugins remove dev.example.pinned`); if a force-push dropped the commit from its branch, `plugins update dev.example.pinned` moves to the branch's new commit

"#]]
        );
        // Kept under -q: it needs a person.
        let (_, quiet, _) = outdated(mode, &["-q"]);
        assert!(quiet.contains("plugins::git::impostor_commit"), "{quiet}");
        let (code, stdout, _) = outdated(mode, &["--json"]);
        assert_eq!(code, 1);
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let problems = &doc["plugins"][0]["problems"];
        assert_eq!(
            problems[0]["code"], "plugins::git::impostor_commit",
            "{doc}"
        );
        let schema: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/outdated.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:#?}");

        let (code, stdout, stderr) = doctor(mode, &["-q"]);
        assert_eq!(code, 1, "mode {mode}: {stdout}{stderr}");
        assert!(
            stdout.contains("  fail  dev.example.pinned: the locked commit [IMPOSTOR] is on no branch or tag of [URL]: anyone's fork may have pushed it (install, update and sync refuse it) [plugins::git::impostor_commit]\n        help: reinstall dev.example.pinned from a branch or tag"),
            "mode {mode}: {stdout}"
        );
        let (_, json, _) = doctor(mode, &["--json"]);
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        let found: Vec<&serde_json::Value> = doc["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["code"] == "plugins::git::impostor_commit")
            .collect();
        assert_eq!(found.len(), 1, "{doc}");
        assert_eq!(found[0]["status"], "fail");
        assert_eq!(found[0]["id"], "dev.example.pinned");
        assert_eq!(doc["ok"], false);
    }
}

/// A branch moved to a commit whose committer time does not parse (written with
/// `git hash-object --literally`): update says which commit cannot be read and why, in both
/// fetch modes, never "cannot reach" or "ref not found"; the commit below it, still locked,
/// is no impostor to outdated.
#[test]
fn a_commit_whose_time_does_not_parse_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    let base = tmp.path().join("served");
    let bare = base.join("kit.git");
    repo.clone_bare(&bare);
    let tree = git(&repo.dir, &["rev-parse", "HEAD^{tree}"]);
    let object = format!(
        "tree {tree}\nparent {c1}\nauthor t <t@x> 99999999999999999999 +0000\ncommitter t <t@x> 99999999999999999999 +0000\n\nv2\n"
    );
    let raw = tmp.path().join("bad-commit");
    std::fs::write(&raw, object).unwrap();
    let raw = raw.display().to_string();
    let bad = git(
        &bare,
        &["hash-object", "-t", "commit", "-w", "--literally", &raw],
    );
    let daemon = Daemon::serve(&base);
    let url = format!("git://127.0.0.1:{}/kit.git", daemon.port);
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&url, "--ref", "main"]).0, 0);
    git(&bare, &["update-ref", "refs/heads/main", &bad]);
    for mode in MODES {
        Plugins::new()
            .args(["update", "--all", "--yes", "--home"])
            .arg(&home)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400")
            .redact("[URL]", &url)
            .redact("[HOME]", &home)
            .redact("[BAD]", &bad)
            .redact("[BAD]", &bad[..10])
            .redact("[FIRST]", &c1)
            .redact("[FIRST]", &c1[..10])
            .run()
            .expect(1, str![[""]], str![[r#"
    Fetching [URL]
warning[plugins::git::cleartext]: [URL] is fetched unencrypted: anyone on the network path can read or change the plugin; use an https:// URL
plugins::git::bad_object

  × commit [BAD] of [URL] cannot be read: failed to parse signature - invalid Unix timestamp (a malformed author, committer or tagger line;
  │ `git fsck` in a clone names it)
  help: the publisher's repository holds a commit git cannot read; ask them to fix it (`git fsck` names it), or install a ref below it

"#]]);
        assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c1);
        Plugins::new()
            .args(["outdated", "--home"])
            .arg(&home)
            .env("PLUGINS_GIT_FETCH_WITH_CLI", mode)
            .env("COLUMNS", "400")
            .redact("[URL]", &url)
            .redact("[HOME]", &home)
            .redact("[BAD]", &bad)
            .redact("[BAD]", &bad[..10])
            .redact("[FIRST]", &c1)
            .redact("[FIRST]", &c1[..10])
            .run()
            .expect(
                0,
                str![[r#"
dev.example.pinned               main @ [FIRST]            newer: [BAD]

"#]],
                str![[""]],
            );
    }
}

/// Secrets a user's or a CI job's environment may hold, each with a value found
/// nowhere else.
const PLANTED: &[(&str, &str)] = &[
    ("GITHUB_TOKEN", "ghp_plantedGithubToken1"),
    ("GH_TOKEN", "gho_plantedGhToken2"),
    ("PLUGINS_GIT_USERNAME", "planted-git-user3"),
    ("PLUGINS_GIT_PASSWORD", "planted-git-password4"),
    ("GIT_ASKPASS", "/opt/planted-askpass5"),
    ("SSH_ASKPASS", "/opt/planted-ssh-askpass6"),
    (
        "GIT_CONFIG_PARAMETERS",
        "'credential.helper'='planted-helper7'",
    ),
    ("GIT_CONFIG_COUNT", "1"),
    ("GIT_CONFIG_KEY_0", "http.extraHeader"),
    (
        "GIT_CONFIG_VALUE_0",
        "Authorization: Bearer planted-header8",
    ),
    (
        "HTTPS_PROXY",
        "http://proxyuser:planted-proxy-pass9@127.0.0.1:9",
    ),
    ("ALL_PROXY", "socks5://u:planted-all-proxy10@127.0.0.1:9"),
    ("AWS_SECRET_ACCESS_KEY", "planted-aws11"),
    ("NPM_TOKEN", "planted-npm12"),
    ("PYTHONPATH", "/opt/planted-pythonpath13"),
    ("NODE_OPTIONS", "--require=/opt/planted-node14.js"),
];

/// Every planted value found in `text`.
fn leaked(text: &str) -> Vec<&'static str> {
    PLANTED
        .iter()
        .map(|(_, v)| *v)
        .filter(|v| v.len() > 2 && text.contains(v))
        .collect()
}

/// Every file under `dir` (following no symlink), with its text.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                todo.push(path);
            } else if kind.is_file() {
                let bytes = std::fs::read(&path).unwrap_or_default();
                out.push((path, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
    }
    out
}

/// The variables the `env` dump in `text` names.
fn names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
        .filter(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn build_steps_run_with_an_allow_listed_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.envdump\"\nname = \"Env\"\nversion = \"1.0.0\"\napi_version = 6\ncapabilities = [\"runtime.worker\"]\n\n\
         [runtime]\nkind = \"command\"\ncommand = [\".aoe-build/worker\"]\n\n[[runtime.build]]\ncommand = [\"./build.sh\"]\n",
    );
    // The step writes its environment to a file and to its output (the build log).
    repo.executable(
        "build.sh",
        "#!/bin/sh\nset -e\nmkdir -p .aoe-build\nenv > .aoe-build/env.txt\nenv\nprintf '#!/bin/sh\\n' > .aoe-build/worker\nchmod +x .aoe-build/worker\n",
    );
    repo.commit("env");
    let home = tmp.path().join("home");
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "-v", "--home"])
        .arg(&home)
        .env("LANG", "C.UTF-8")
        .env("LC_TIME", "C")
        .env("HTTP_PROXY", "http://127.0.0.1:3128")
        .env("NO_PROXY", "localhost");
    for (k, v) in PLANTED {
        cmd.env(k, v);
    }
    // parts: `-v` logs the build step's whole environment dump; checked for planted secrets
    let (code, stdout, stderr) = cmd.run().parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let dump = std::fs::read_to_string(home.join("plugins/dev.example.envdump/.aoe-build/env.txt"))
        .unwrap();
    assert_eq!(leaked(&dump), Vec::<&str>::new(), "{dump}");
    assert_eq!(leaked(&stdout), Vec::<&str>::new(), "{stdout}");
    assert_eq!(leaked(&stderr), Vec::<&str>::new(), "{stderr}");
    for (path, text) in files_under(&home) {
        assert_eq!(leaked(&text), Vec::<&str>::new(), "{}", path.display());
    }
    // Only the allow-list (with what `sh` adds itself) and the host's AOE_PLUGIN_ID.
    let shell_own = ["PWD", "OLDPWD", "SHLVL", "_"];
    let extra: Vec<String> = names(&dump)
        .into_iter()
        .filter(|n| {
            !(plugins::steps::PASSED.contains(&n.as_str())
                || plugins::steps::PROXIES.contains(&n.as_str())
                || n.starts_with("LC_")
                || n == "AOE_PLUGIN_ID"
                || shell_own.contains(&n.as_str()))
        })
        .collect();
    assert_eq!(extra, Vec::<String>::new(), "{dump}");
    for expected in [
        "AOE_PLUGIN_ID=dev.example.envdump",
        "LANG=C.UTF-8",
        "LC_TIME=C",
        "HTTP_PROXY=http://127.0.0.1:3128",
        "NO_PROXY=localhost",
        "PATH=",
        "HOME=",
    ] {
        assert!(
            dump.lines().any(|l| l.starts_with(expected)),
            "{expected}: {dump}"
        );
    }
    assert!(
        !dump.contains("HTTPS_PROXY") && !dump.contains("ALL_PROXY"),
        "a proxy with a password is not passed: {dump}"
    );
}

/// A build step that looks for `plugins`' secrets where a process of the same user (or
/// root) could read them: every ancestor's `/proc/<pid>/environ` (following `PPid`), every
/// process's it can see, and again after trying to unmount its `/proc`. It writes what it
/// read to `.aoe-build/found.txt`.
const ENVIRON_WALK: &str = r#"#!/bin/sh
mkdir -p .aoe-build
out=.aoe-build/found.txt
: > "$out"
scan() {
  for f in /proc/[0-9]*/environ; do
    if cat "$f" > /dev/null 2>&1; then echo "readable $f" >> "$out"; fi
    cat "$f" 2>/dev/null | tr '\000' '\n' >> "$out"
    echo >> "$out"
  done
}
pid=$$
echo "step pid $pid" >> "$out"
while [ "$pid" -gt 1 ] 2>/dev/null; do
  ppid=$(sed -n 's/^PPid:[[:space:]]*//p' /proc/$pid/status 2>/dev/null)
  [ -n "$ppid" ] && [ "$ppid" -gt 0 ] || break
  echo "ancestor $ppid" >> "$out"
  cat /proc/$ppid/environ 2>/dev/null | tr '\000' '\n' >> "$out"
  echo >> "$out"
  pid=$ppid
done
scan
if umount /proc 2>/dev/null; then echo "unmounted /proc" >> "$out"; scan; fi
printf '#!/bin/sh\n' > .aoe-build/worker
chmod +x .aoe-build/worker
"#;

/// Issue #40: a build step cannot read the secrets `plugins` holds in its own environment
/// (`/proc/<pid>/environ` of `plugins` and of every other process it can see), as root and
/// as an unprivileged user (`nobody`, through `setpriv`, when the tests run as root). Before,
/// the step's own environment held none of them but it read all from its parent's.
#[test]
fn a_build_step_cannot_read_plugins_environment_through_proc() {
    let tmp = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "aoe-plugin.toml",
        "id = \"dev.example.walk\"\nname = \"Walk\"\nversion = \"1.0.0\"\napi_version = 6\ncapabilities = [\"runtime.worker\"]\n\n\
         [runtime]\nkind = \"command\"\ncommand = [\".aoe-build/worker\"]\n\n[[runtime.build]]\ncommand = [\"./build.sh\"]\n",
    );
    repo.executable("build.sh", ENVIRON_WALK);
    repo.commit("walk");
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let walk = |who: &str, mut cmd: Plugins, home: &Path| {
        cmd.args(["install", &repo.url(), "--yes", "--home"])
            .arg(home)
            .env("COLUMNS", "400");
        for (k, v) in PLANTED {
            cmd.env(k, v);
        }
        cmd.run().success();
        let found =
            std::fs::read_to_string(home.join("plugins/dev.example.walk/.aoe-build/found.txt"))
                .unwrap();
        assert!(
            found.contains("step pid") && found.contains("readable /proc/"),
            "{who}: the walk ran and read an environment (its own): {found}"
        );
        assert_eq!(leaked(&found), Vec::<&str>::new(), "{who}: {found}");
    };
    walk("this user", Plugins::new(), &tmp.path().join("home"));
    if is_root {
        // The binary where `nobody` can run it; the repository and a home `nobody` owns.
        let bin = tmp.path().join("bin/plugins");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        crate::support::copy_binary(&bin);
        let home = tmp.path().join("nobody-home");
        std::fs::create_dir_all(&home).unwrap();
        let owned = std::process::Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&home)
            .arg(&repo.dir)
            .status()
            .unwrap();
        assert!(owned.success());
        let mut nobody = Plugins::under(
            "setpriv",
            [
                "--reuid=65534".as_ref(),
                "--regid=65534".as_ref(),
                "--clear-groups".as_ref(),
                bin.as_os_str(),
            ],
        );
        nobody.env("HOME", &home);
        walk("nobody", nobody, &home);
    }
}

/// A `--python` that records, for each pip run, its working directory, what is in it
/// and its environment into `log`, then runs `python3`.
fn recording_python(dir: &Path, log: &Path) -> PathBuf {
    let path = dir.join("python.sh");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nif [ \"$1\" = -m ] && [ \"$2\" = pip ]; then\n  {{ echo \"CWD=$(pwd)\"; echo \"LS=$(ls -A | tr '\\n' ' ')\"; env; echo ---; }} >> '{}'\nfi\nexec python3 \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn pip_runs_with_the_allow_list_its_index_settings_and_no_config() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("wheels");
    crate::support::wheel(&index, "demolib");
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file(
        "protoagent.plugin.yaml",
        "id: deppy\nname: Deppy\nrequires_pip:\n  - demolib\n",
    )
    .file("__init__.py", "def register(r):\n    pass\n");
    repo.commit("deps");
    let log = tmp.path().join("pip-runs.txt");
    let python = recording_python(&tmp.path().join("bin"), &log);
    let home = tmp.path().join("home");
    let mut cmd = Plugins::new();
    cmd.args(["install", &repo.url(), "--yes", "--deps", "-v", "--python"])
        .arg(&python)
        .arg("--home")
        .arg(&home)
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", &index)
        .env("COLUMNS", "400");
    for (k, v) in PLANTED {
        cmd.env(k, v);
    }
    // parts: `-v` logs pip's whole output (versions, timings); checked for planted secrets
    let (code, stdout, stderr) = cmd.run().parts();
    assert_eq!(code, 0, "{stdout}{stderr}");
    let runs = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        runs.matches("---").count(),
        2,
        "resolve, then install: {runs}"
    );
    assert_eq!(leaked(&runs), Vec::<&str>::new(), "{runs}");
    assert_eq!(leaked(&stdout), Vec::<&str>::new(), "{stdout}");
    assert_eq!(leaked(&stderr), Vec::<&str>::new(), "{stderr}");
    for (path, text) in files_under(&home) {
        assert_eq!(leaked(&text), Vec::<&str>::new(), "{}", path.display());
    }
    for expected in [
        "PIP_CONFIG_FILE=/dev/null",
        "PYTHONNOUSERSITE=1",
        "PIP_NO_INDEX=1",
        &format!("PIP_FIND_LINKS={}", index.display()),
    ] {
        assert_eq!(
            runs.lines().filter(|l| *l == expected).count(),
            2,
            "{expected}: {runs}"
        );
    }
    // pip runs in an empty directory of its own: nothing of the plugin's there.
    let listings: Vec<&str> = runs.lines().filter(|l| l.starts_with("LS=")).collect();
    assert_eq!(listings.first(), Some(&"LS="), "{runs}");
    assert!(
        listings
            .iter()
            .all(|l| !l.contains("tree") && !l.contains(".yaml")),
        "{runs}"
    );
    assert!(
        runs.lines()
            .filter(|l| l.starts_with("CWD="))
            .all(|l| l.ends_with("/pip")),
        "{runs}"
    );
    let shell_own = ["PWD", "OLDPWD", "SHLVL", "_", "CWD", "LS"];
    let extra: Vec<String> = names(&runs)
        .into_iter()
        .filter(|n| {
            !(plugins::steps::PASSED.contains(&n.as_str())
                || plugins::steps::PROXIES.contains(&n.as_str())
                || plugins::steps::PIP_INDEX.contains(&n.as_str())
                || ["PIP_CONFIG_FILE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH"].contains(&n.as_str())
                || n.starts_with("LC_")
                || n == "AOE_PLUGIN_ID"
                || shell_own.contains(&n.as_str()))
        })
        .collect();
    assert_eq!(extra, Vec::<String>::new(), "{runs}");
    assert!(
        home.join("plugin-deps/deppy/demolib/__init__.py").is_file()
            || files_under(&home)
                .iter()
                .any(|(p, _)| p.ends_with("demolib/__init__.py")),
        "the deps were installed"
    );
}

#[test]
fn requires_pip_never_names_the_plugin_tree_or_a_local_file() {
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("wheels");
    crate::support::wheel(&index, "demolib");
    let marker = tmp.path().join("plugin-code-ran");
    // A plugin that is also a Python project (its setup.py, and an in-tree build backend,
    // which pip runs without fetching anything) leaving a marker, and ships an sdist of
    // itself: pip building any of them runs the plugin's code at `install --deps`.
    let payload = format!(
        "open({:?}, 'w').write('ran')\n",
        marker.display().to_string()
    );
    let setup =
        format!("{payload}from setuptools import setup\nsetup(name='evil', version='1.0')\n");
    let backend = format!("{payload}def get_requires_for_build_wheel(c=None):\n    return []\n");
    let pyproject = "[project]\nname = \"evil\"\nversion = \"1.0\"\n\n[build-system]\nrequires = []\nbuild-backend = \"evil_backend\"\nbackend-path = [\".\"]\n";
    let cases = [
        "tree/",
        "tree/[x]",
        "./tree",
        "../tree",
        "tree/ ; python_version > '2'",
        "tree/evil-1.0.tar.gz",
        "evil-1.0.tar.gz",
        "file:tree",
        "tree",
    ];
    for (i, spec) in cases.iter().enumerate() {
        let repo = Repo::init(&tmp.path().join(format!("repo-{i}")));
        repo.file(
            "protoagent.plugin.yaml",
            &format!("id: selfdep\nname: Selfdep\nrequires_pip:\n  - demolib\n  - {spec:?}\n"),
        )
        .file("__init__.py", "def register(r):\n    pass\n")
        .file("setup.py", &setup)
        .file("evil_backend.py", &backend)
        .file("pyproject.toml", pyproject);
        // The sdist of itself, made by hand.
        let sdist = std::process::Command::new("python3")
            .args([
                "-c",
                "import tarfile; t=tarfile.open('evil-1.0.tar.gz','w:gz'); [t.add(f,'evil-1.0/'+f) for f in ('setup.py','evil_backend.py','pyproject.toml')]; t.close()",
            ])
            .current_dir(&repo.dir)
            .status()
            .unwrap();
        assert!(sdist.success());
        repo.commit("self");
        let home = tmp.path().join(format!("home-{i}"));
        let (code, stdout, stderr) = Plugins::new()
            .args(["install", &repo.url(), "--yes", "--deps", "--home"])
            .arg(&home)
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", &index)
            .env("COLUMNS", "400")
            .run()
            // parts: pip's refusal differs by spec and pip version; the codes are checked
            .parts();
        assert!(!marker.exists(), "{spec}: the plugin's code ran: {stderr}");
        assert_ne!(code, 0, "{spec}: {stdout}{stderr}");
        if *spec != "tree" {
            // Refused before anything runs: no pip, no build log.
            assert!(
                stderr.contains("plugins::install::deps")
                    && stderr.contains("local path or archive")
                    || stderr.contains("VCS/URL/direct reference")
                    || stderr.contains("not a valid PEP 508"),
                "{spec}: {stderr}"
            );
            assert!(
                !home.join("logs/selfdep-build.log").exists(),
                "{spec}: pip ran"
            );
        }
    }
    // `validate` says so too, as a lint.
    Plugins::new()
        .args(["validate", "--path"])
        .arg(tmp.path().join("repo-0"))
        .env("COLUMNS", "400")
        .tmp(tmp.path())
        .run()
        .expect(0, str![[r#"
plugins::protoagent::pip_spec

  ⚠ requires_pip entry "tree/" names a local path or archive, which pip would build and run
   ╭─[[TMP]/repo-0/protoagent.plugin.yaml:5:5]
 4 │   - demolib
 5 │   - "tree/"
   ·     ───────
   ╰────
  help: `install-deps` and `plugins install --deps` refuse it and install none of the deps; require a package by name from an index (like `mypkg>=1.2`), or vendor the code in the plugin
    Valid protoagent plugin `selfdep` 0.0.0 at [TMP]/repo-0 (1 warning)

"#]], str![[""]]);
}

/// Secrets `plugins` is handed (in URLs, the environment, a lock), each distinct.
const SECRETS: &[&str] = &[
    "w0rd-s3cr3t",
    "prx-s3cr3t",
    "prx2-s3cr3t",
    "ghp_tok3nS3cr3t0123",
    "gh-base-s3cr3t",
    "aoe-base-s3cr3t",
    "qry-s3cr3t",
    "lock-s3cr3t",
];

/// Every secret (or a part of an odd-character password) in `text`, and raw bidi
/// controls.
fn exposed(text: &str) -> Vec<String> {
    let mut found: Vec<String> = SECRETS
        .iter()
        .chain(&["p#ss", "l0ck#pw"])
        .filter(|s| text.contains(**s))
        .map(|s| (*s).to_owned())
        .collect();
    if text.contains(['\u{202e}', '\u{2066}']) {
        found.push("a raw bidi control".to_owned());
    }
    found
}

#[test]
fn no_secret_is_shown_or_written_in_any_output_or_format() {
    let tmp = tempfile::tempdir().unwrap();
    let env: &[(&str, &str)] = &[
        ("HTTPS_PROXY", "http://user:prx-s3cr3t@127.0.0.1:1"),
        ("HTTP_PROXY", "http://user:prx2-s3cr3t@127.0.0.1:1"),
        ("GITHUB_TOKEN", "ghp_tok3nS3cr3t0123"),
        (
            "PLUGINS_GH_BASE",
            "https://ghuser:gh-base-s3cr3t@127.0.0.1:1",
        ),
        ("PLUGINS_NET_TIMEOUT", "5"),
        ("COLUMNS", "400"),
    ];
    let mut seen = String::new();
    let mut sh = |args: &[&str], extra: &[(&str, &str)]| {
        let mut cmd = Plugins::new();
        cmd.args(args);
        for (k, v) in env.iter().chain(extra) {
            cmd.env(k, v);
        }
        // parts: one secrets check over dozens of commands, flags and log formats
        let (code, stdout, stderr) = cmd.run().parts();
        let both = format!("{stdout}{stderr}");
        assert_eq!(exposed(&both), Vec::<String>::new(), "{args:?}: {both}");
        seen.push_str(&both);
        code
    };
    let home = tmp.path().join("home");
    let h = home.to_str().unwrap();
    // Installs from unreachable loopback URLs holding credentials, in every log format.
    let odd = "https://u:p#ss/w0rd-s3cr3t@127.0.0.1:1/o/r.git";
    let bidi = "https://127.0.0.1:1/o/\u{202e}r.git";
    for source in [
        odd,
        "gh:acme/kit",
        "https://127.0.0.1:1/o/r.git?access_token=qry-s3cr3t",
        bidi,
    ] {
        for flags in [
            &[][..],
            &["-v"],
            &["--log-format", "json"],
            &["-v", "--log-format", "json"],
        ] {
            let mut args = vec!["install", source, "--yes", "--home", h];
            args.extend(flags);
            assert_ne!(sh(&args, &[]), 0, "{source} is unreachable");
        }
    }
    for source in [odd, "gh:acme/kit"] {
        let args = ["install", "-v", source, "--yes", "--home", h];
        assert_ne!(sh(&args, &[("PLUGINS_GIT_FETCH_WITH_CLI", "1")]), 0);
    }
    sh(
        &["install", "-v", "gh:acme/kit", "--yes", "--home", h],
        &[
            ("PLUGINS_GH_BASE", ""),
            (
                "AOE_GITHUB_CLONE_BASE",
                "https://a:aoe-base-s3cr3t@127.0.0.1:1",
            ),
        ],
    );
    // A home whose lock names the same sources (a lock written by hand or another tool).
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    assert_eq!(install(&home, &[&repo.url()]).0, 0);
    let lock = std::fs::read_to_string(home.join("plugins.lock")).unwrap();
    let hostile = lock.replace(
        &format!("source = \"{}\"", repo.url()),
        "source = \"https://u:l0ck#pw/lock-s3cr3t@127.0.0.1:1/o/r.git\"",
    );
    assert_ne!(hostile, lock);
    let second = hostile
        .replace("dev.example.pinned", "dev.example.gh")
        .replace(
            "source = \"https://u:l0ck#pw/lock-s3cr3t@127.0.0.1:1/o/r.git\"",
            "source = \"gh:acme/kit\"",
        );
    let rows = second.split_once("[plugins.").map(|(_, r)| r).unwrap();
    std::fs::write(
        home.join("plugins.lock"),
        format!("{hostile}\n[plugins.{rows}"),
    )
    .unwrap();
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n\n[update_policy.\"dev.example.gh\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    for args in [
        &["outdated"][..],
        &["outdated", "--json"],
        &["-v", "outdated", "--log-format", "json"],
        &["update", "--all", "--yes"],
        &["update", "--all", "--yes", "--json"],
        &["update", "--all", "--dry-run"],
        &["sync", "--yes", "--force"],
        &["sync", "--yes", "--force", "--json", "--log-format", "json"],
        &["doctor"],
        &["doctor", "--json"],
        &["-v", "doctor", "--log-format", "json"],
        &["list", "--json"],
        &["info", "dev.example.pinned"],
        &["info", "dev.example.pinned", "--json"],
        &["verify", "--json"],
        &["autoupdate", "--force"],
        &["autoupdate", "--force", "--json"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--home", h]);
        sh(&all, &[]);
    }
    // The paths were taken: the URLs and the proxy were shown, redacted.
    for shown in [
        "https://***@127.0.0.1:1/o/r.git",
        "https://127.0.0.1:1/acme/kit.git",
        "proxy: http://***@127.0.0.1:1",
        "https://127.0.0.1:1/o/\\u202er.git",
        "carries a credential in its query",
    ] {
        assert!(seen.contains(shown), "{shown}: {seen}");
    }
    for (path, text) in files_under(&home) {
        let mut found = exposed(&text);
        // The lock was written with them by hand; every other file is clean.
        if path == home.join("plugins.lock") {
            found.retain(|s| s != "lock-s3cr3t" && s != "l0ck#pw");
        }
        assert_eq!(found, Vec::<String>::new(), "{}: {text}", path.display());
    }
}

/// git with the committer, author and tagger dates set to `date` (what a publisher can
/// write into history).
fn git_dated(dir: &Path, args: &[&str], date: &str) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

fn in_home(home: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Plugins::new();
    cmd.args(args).arg("--home").arg(home).env("COLUMNS", "200");
    for (k, v) in env {
        cmd.env(k, v);
    }
    // parts: cooldowns count time left from the wall clock (`left_secs`, "30d left")
    cmd.run().parts()
}

const DAY: u64 = 86_400;

#[test]
fn a_backdated_commit_or_tag_is_new_to_a_cooldown() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = crate::support::history(&tmp.path().join("repo"));
    let (branch, tag) = (tmp.path().join("branch"), tmp.path().join("tag"));
    assert_eq!(install(&branch, &[&repo.url(), "--ref", "main"]).0, 0);
    assert_eq!(install(&tag, &[&repo.url(), "--ref", "v2.0.0"]).0, 0);
    for home in [&branch, &tag] {
        std::fs::write(
            home.join("plugins.toml"),
            "cooldown = \"30d\"\n[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
        )
        .unwrap();
    }
    // The publisher (or whoever took over the account) dates the new version 2001: a
    // commit on the branch, and an annotated tag whose tagger date is 2001 too.
    repo.file("aoe-plugin.toml", &static_aoe("6.6.6"));
    git(&repo.dir, &["add", "-A"]);
    git_dated(
        &repo.dir,
        &["commit", "-q", "-m", "old, honest"],
        "2001-01-01T00:00:00Z",
    );
    git_dated(
        &repo.dir,
        &["tag", "-a", "v6.6.6", "-m", "v6.6.6"],
        "2001-01-01T00:00:00Z",
    );
    for home in [&branch, &tag] {
        let (code, stdout, stderr) = in_home(home, &["outdated"], &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("held back: 30d left (cooldown 30d)"),
            "{}: {stdout}",
            home.display()
        );
        let (code, stdout, stderr) = in_home(home, &["update", "--all", "--yes"], &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("Held back dev.example.pinned"), "{stdout}");
        let (_, stdout, _) = in_home(home, &["autoupdate", "--json"], &[]);
        let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(doc["updated"], serde_json::json!([]), "{stdout}");
        assert_eq!(doc["held_back"][0]["age_from"], "first_seen", "{stdout}");
        let left = doc["held_back"][0]["left_secs"].as_u64().unwrap();
        assert!(left > 30 * DAY - 600, "{left}");
        assert!(
            !std::fs::read_to_string(home.join("plugins/dev.example.pinned/aoe-plugin.toml"))
                .unwrap()
                .contains("6.6.6")
        );
    }
    // The record: JSON, written atomically; a write killed midway leaves a temp file that
    // the next change to the home removes.
    let record = branch.join(".plugins/first-seen.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(
        doc["sources"][repo.url()]["commits"]
            .as_object()
            .unwrap()
            .len(),
        1
    );
    let stale = branch.join(".plugins/first-seen.json.a1b2c3.tmp");
    std::fs::write(&stale, "{").unwrap();
    let (code, stdout, stderr) = in_home(
        &branch,
        &["update", "--all", "--yes", "--cooldown", "0"],
        &[],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("Updated dev.example.pinned to 6.6.6"),
        "{stdout}"
    );
    assert!(!stale.exists(), "recovery removes the record's temp file");
    assert!(record.is_file());
}

/// A GitHub API on loopback: `/repos/acme/kit/releases/tags/<tag>` answers with a
/// release published `ago` seconds before now for the tags in `tags`, 404 otherwise.
fn releases_api(tags: &'static [(&'static str, u64)]) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let found = tags.iter().find(|(t, _)| {
                first.starts_with(&format!("GET /repos/acme/kit/releases/tags/{t} "))
            });
            let reply = match found {
                Some((t, ago)) => {
                    let body = format!(
                        "{{\"tag_name\":\"{t}\",\"published_at\":\"{}\"}}",
                        rfc3339(now - ago)
                    );
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                }
                None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_owned(),
            };
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    base
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`, with the system's `date`.
fn rfc3339(secs: u64) -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "-d", &format!("@{secs}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_github_release_dates_a_tag_unless_the_tag_moved() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    repo.tag("v1.0.0");
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.commit("v2");
    repo.annotated_tag("v2.0.0");
    let mirror = tmp.path().join("mirror");
    let bare = mirror.join("acme/kit.git");
    repo.clone_bare(&bare);
    // v2.0.0 was published on GitHub 40 days ago.
    let api = releases_api(&[("v2.0.0", 40 * DAY)]);
    let base = format!("file://{}", mirror.display());
    let env = [
        ("PLUGINS_GH_BASE", base.as_str()),
        ("PLUGINS_GITHUB_API", api.as_str()),
    ];
    let home = tmp.path().join("home");
    let (code, o, e) = in_home(&home, &["install", "gh:acme/kit@v1.0.0", "--yes"], &env);
    assert_eq!(code, 0, "{o}{e}");
    let (code, stdout, stderr) = in_home(&home, &["outdated", "--json", "--cooldown", "30d"], &env);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["plugins"][0]["status"], "behind", "{stdout}");
    assert_eq!(doc["plugins"][0]["new_ref"], "v2.0.0", "{stdout}");
    // Under a longer cooldown the release's date is what it counts from.
    let (_, stdout, _) = in_home(&home, &["outdated", "--json", "--cooldown", "50d"], &env);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (row["status"].as_str(), row["age_from"].as_str()),
        (Some("held_back"), Some("github_release")),
        "{stdout}"
    );
    let left = row["left_secs"].as_u64().unwrap();
    // `plugins` reads its clock before it asks; the server dates the release when it
    // answers, which may be a second later (seen once under load: 864001).
    assert!((10 * DAY - 600..=10 * DAY + 1).contains(&left), "{left}");

    // The tag is moved to other code: its old release no longer dates it.
    repo.file("aoe-plugin.toml", &static_aoe("2.0.0"));
    repo.file("payload.txt", "not what was released\n");
    repo.commit("moved");
    git(&repo.dir, &["tag", "-f", "-a", "v2.0.0", "-m", "v2.0.0"]);
    std::fs::remove_dir_all(&bare).unwrap();
    repo.clone_bare(&bare);
    let (_, stdout, _) = in_home(&home, &["outdated", "--json", "--cooldown", "30d"], &env);
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (row["status"].as_str(), row["age_from"].as_str()),
        (Some("held_back"), Some("first_seen")),
        "{stdout}"
    );
    let (code, stdout, stderr) = in_home(
        &home,
        &["update", "--all", "--yes", "--cooldown", "30d"],
        &env,
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Held back"), "{stdout}");
}

/// The same over `file://`, where libgit2's local transport parsed every commit it listed:
/// install named "ref not found" and outdated "cannot reach" for a commit whose time does
/// not parse. Now the listing reads refs raw, and the commit is named when it is read.
#[test]
fn a_local_commit_whose_time_does_not_parse_is_named_too() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("work"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let c1 = repo.commit("v1");
    let bare = tmp.path().join("kit.git");
    repo.clone_bare(&bare);
    let tree = git(&repo.dir, &["rev-parse", "HEAD^{tree}"]);
    let raw = tmp.path().join("bad-commit");
    std::fs::write(
        &raw,
        format!("tree {tree}\nparent {c1}\nauthor t <t@x> 99999999999999999999 +0000\ncommitter t <t@x> 99999999999999999999 +0000\n\nv2\n"),
    )
    .unwrap();
    let raw = raw.display().to_string();
    let bad = git(
        &bare,
        &["hash-object", "-t", "commit", "-w", "--literally", &raw],
    );
    let url = format!("file://{}", bare.display());
    let home = tmp.path().join("home");
    assert_eq!(install(&home, &[&url, "--ref", "main"]).0, 0);
    git(&bare, &["update-ref", "refs/heads/main", &bad]);
    Plugins::new()
        .args(["outdated", "--home"])
        .arg(&home)
        .env("COLUMNS", "400")
        .redact("[URL]", &url)
        .redact("[HOME]", &home)
        .redact("[BAD]", &bad)
        .redact("[BAD]", &bad[..10])
        .redact("[FIRST]", &c1)
        .redact("[FIRST]", &c1[..10])
        .tmp(tmp.path())
        .run()
        .expect(
            0,
            str![[r#"
dev.example.pinned               main @ [FIRST]            newer: [BAD]

"#]],
            str![[""]],
        );
    let fresh = tmp.path().join("fresh");
    let (code, stdout, stderr) = install(&fresh, &[&url, "--ref", "main"]);
    assert_ne!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("plugins::git::bad_object") && !stderr.contains("not found"),
        "{stderr}"
    );
}
