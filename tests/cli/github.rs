//! `--format github` in a real repository: annotation paths from the
//! repository root, GitHub's per-step annotation caps, the job summary.

use std::path::Path;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

/// `CLEAN_AOE` with one warning (`version_not_semver`).
fn warned() -> String {
    CLEAN_AOE.replace("version = \"0.1.0\"", "version = \"v1\"")
}

fn github(cwd: &Path, args: &[&str]) -> (i32, String) {
    let (code, stdout, stderr) = Plugins::new()
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["validate", "--format", "github"])
        .args(args)
        .current_dir(cwd)
        .run()
        .parts();
    assert_eq!(stderr, "");
    (code, stdout)
}

#[test]
fn github_annotations_name_files_from_the_repository_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("plugins/broken/aoe-plugin.toml", BROKEN);
    // `working-directory: plugins/broken`, the plugin in the current directory.
    let (code, stdout) = github(&repo.dir.join("plugins/broken"), &[]);
    assert_eq!(code, 1);
    assert_data_eq!(stdout.clone(), str![[r#"
::error file=plugins/broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=plugins/broken/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error

"#]]
    .raw());
    // `working-directory: plugins`, with a relative `--path`.
    let (_, from_parent) = github(&repo.dir.join("plugins"), &["--path", "broken"]);
    assert_eq!(from_parent, stdout);

    // Outside a repository the path stays as given.
    std::fs::remove_dir_all(repo.dir.join(".git")).unwrap();
    let (_, no_repo) = github(&repo.dir.join("plugins"), &["--path", "broken"]);
    assert!(
        no_repo.starts_with("::error file=broken/aoe-plugin.toml,line=7,"),
        "{no_repo}"
    );
}

#[test]
fn github_caps_annotations_at_ten_of_each_kind_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    for i in 0..11 {
        repo.file(&format!("broken-{i:02}/aoe-plugin.toml"), BROKEN);
        repo.file(&format!("warned-{i:02}/aoe-plugin.toml"), &warned())
            .executable(&format!("warned-{i:02}/bin/worker"), "#!/bin/sh\n");
    }
    let (code, stdout) = github(&repo.dir, &["-r", "--path", "."]);
    assert_eq!(code, 1);
    let count = |prefix: &str| stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(
        (count("::error "), count("::warning "), count("::notice ")),
        (10, 10, 10)
    );
    let tail: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("::group::"))
        .collect();
    assert_data_eq!(tail.join("\n"), str![[r#"
::group::Not annotated: 1 error, 1 warning and 1 note
broken-10/aoe-plugin.toml:7:8: error plugins::aoe::unknown_variant: unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
broken-10/aoe-plugin.toml: note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
warned-10/aoe-plugin.toml:3:11: warning plugins::aoe::version_not_semver: version "v1" is not a semantic version
    help: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::endgroup::
note: GitHub annotates at most 10 errors, 10 warnings and 10 notes per step; 1 error, 1 warning and 1 note are listed in the group above instead
22 plugins: 11 valid, 11 invalid; 11 errors, 11 warnings
"#]]
    .raw());
}

#[test]
fn github_appends_a_job_summary_when_the_step_has_one() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("plugins/broken/aoe-plugin.toml", BROKEN)
        .file("plugins/warned/aoe-plugin.toml", &warned())
        .executable("plugins/warned/bin/worker", "#!/bin/sh\n")
        .file(
            "plugins/pipe|d/protoagent.plugin.yaml",
            "id: <b>x</b>\nname: X\n",
        );
    let summary = tmp.path().join("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let (code, stdout, stderr) = Plugins::new()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["validate", "--format", "github", "-r", "--path", "."])
        .current_dir(repo.dir.join("plugins"))
        .run()
        .parts();
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert!(
        stdout.starts_with("::error file=plugins/broken/"),
        "{stdout}"
    );
    assert_data_eq!(std::fs::read_to_string(&summary).unwrap(), str![[r##"
# earlier step

### `plugins validate`

| plugin | dialect | manifest | verdict | errors | warnings |
|---|---|---|---|---:|---:|
| `dev.example.x` 1.0.0 | aoe | `plugins/broken/aoe-plugin.toml` | ❌ invalid | 1 | 0 |
| — | protoagent | `plugins/pipe\|d/protoagent.plugin.yaml` | ❌ invalid | 1 | 0 |
| `dev.example.hello` v1 | aoe | `plugins/warned/aoe-plugin.toml` | ✅ valid | 0 | 1 |

3 plugins: 1 valid, 2 invalid; 2 errors, 1 warning

<details><summary>Diagnostics</summary>

- ❌ `plugins/broken/aoe-plugin.toml:7:8` `plugins::aoe::unknown_variant`: unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
- ❌ `plugins/pipe|d/protoagent.plugin.yaml:1:5` `plugins::protoagent::invalid_id`: invalid or reserved plugin id '&lt;b&gt;x&lt;/b&gt;' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route
- ⚠️ `plugins/warned/aoe-plugin.toml:3:11` `plugins::aoe::version_not_semver`: version "v1" is not a semantic version

</details>


"##]]
    .raw());

    // Other formats leave the summary alone.
    let before = std::fs::read_to_string(&summary).unwrap();
    let (code, _, _) = Plugins::new()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["validate", "--format", "json", "-r", "--path", "."])
        .current_dir(repo.dir.join("plugins"))
        .run()
        .parts();
    assert_eq!(code, 1);
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), before);
}
