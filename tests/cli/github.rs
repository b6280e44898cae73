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

/// `plugins validate --format github <args>` in `cwd`, without a job summary.
fn github(cwd: &Path, args: &[&str]) -> Ran {
    Plugins::new()
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(["validate", "--format", "github"])
        .args(args)
        .current_dir(cwd)
        .run()
}

#[test]
fn github_annotations_name_files_from_the_repository_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("plugins/broken/aoe-plugin.toml", BROKEN);
    // `working-directory: plugins/broken`, the plugin in the current directory.
    let first = github(&repo.dir.join("plugins/broken"), &[]);
    first.expect(
        1,
        str![[r#"
::error file=plugins/broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=plugins/broken/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error

"#]]
        .raw(),
        str![""],
    );
    // `working-directory: plugins`, with a relative `--path`: the same annotations.
    let from_parent = github(&repo.dir.join("plugins"), &["--path", "broken"]);
    from_parent.code(1);
    assert_eq!(from_parent.stdout, first.stdout);

    // Outside a repository the path stays as given.
    std::fs::remove_dir_all(repo.dir.join(".git")).unwrap();
    github(&repo.dir.join("plugins"), &["--path", "broken"]).expect(1, str![[r#"
::error file=broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
1 plugin: 0 valid, 1 invalid; 1 error

"#]].raw(), str![""]);
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
    let ran = github(&repo.dir, &["-r", "--path", "."]);
    ran.expect(1, str![[r#"
::error file=broken-00/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-00/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-01/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-01/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-02/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-02/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-03/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-03/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-04/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-04/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-05/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-05/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-06/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-06/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-07/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-07/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-08/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-08/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=broken-09/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=broken-09/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::warning file=warned-00/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-01/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-02/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-03/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-04/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-05/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-06/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-07/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-08/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::warning file=warned-09/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::group::Not annotated: 1 error, 1 warning and 1 note
broken-10/aoe-plugin.toml:7:8: error plugins::aoe::unknown_variant: unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
broken-10/aoe-plugin.toml: note: further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
warned-10/aoe-plugin.toml:3:11: warning plugins::aoe::version_not_semver: version "v1" is not a semantic version
    help: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
::endgroup::
note: GitHub annotates at most 10 errors, 10 warnings and 10 notes per step; 1 error, 1 warning and 1 note are listed in the group above instead
22 plugins: 11 valid, 11 invalid; 11 errors, 11 warnings

"#]].raw(), str![""]);
    // Ten annotations of each kind; the rest in the group after them.
    let count = |prefix: &str| ran.stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(
        (count("::error "), count("::warning "), count("::notice ")),
        (10, 10, 10)
    );
    let tail: Vec<&str> = ran
        .stdout
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
    Plugins::new()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["validate", "--format", "github", "-r", "--path", "."])
        .current_dir(repo.dir.join("plugins"))
        .run()
        .expect(1, str![[r#"
::error file=plugins/broken/aoe-plugin.toml,line=7,col=8,endColumn=17,title=plugins%3A%3Aaoe%3A%3Aunknown_variant::unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`
::notice file=plugins/broken/aoe-plugin.toml::further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints
::error file=plugins/pipe|d/protoagent.plugin.yaml,line=1,col=5,endColumn=13,title=plugins%3A%3Aprotoagent%3A%3Ainvalid_id::invalid or reserved plugin id '<b>x</b>' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route%0Ahelp: start with a letter or digit; then letters, digits, `_` and `-` only
::notice file=plugins/pipe|d/protoagent.plugin.yaml::further checks skipped until this is fixed: the load gates (entry module, min_protoagent_version, requires_env) and lints
::warning file=plugins/warned/aoe-plugin.toml,line=3,col=11,endColumn=15,title=plugins%3A%3Aaoe%3A%3Aversion_not_semver::version "v1" is not a semantic version%0Ahelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. "1.2.0"
3 plugins: 1 valid, 2 invalid; 2 errors, 1 warning

"#]].raw(), str![""]);
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
    Plugins::new()
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(["validate", "--format", "json", "-r", "--path", "."])
        .current_dir(repo.dir.join("plugins"))
        .tmp(tmp.path())
        .run()
        .expect(1, str![[r#"
{
  "format_version": 1,
  "valid": false,
  "aoe_api": 15,
  "summary": {
    "plugins": 3,
    "valid": 1,
    "invalid": 2,
    "errors": 2,
    "warnings": 1
  },
  "plugins": [
    {
      "root": "broken",
      "manifest": "broken/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.x",
      "version": "1.0.0",
      "valid": false,
      "host": {
        "verdict": "parse",
        "message": "manifest is not valid TOML: TOML parse error at line 7, column 8\n  |\n7 | slot = \"sidebar\"\n  |        ^^^^^^^^^\nunknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`\n"
      },
      "manifest_hash": "sha256:8704905407af3b564659fc9dcec82896394b8b9c7eb5afbc83117de01246a48a",
      "diagnostics": [
        {
          "code": "plugins::aoe::unknown_variant",
          "severity": "error",
          "message": "unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`",
          "help": null,
          "labels": [
            {
              "start": 82,
              "end": 91,
              "line": 7,
              "column": 8,
              "end_line": 7,
              "end_column": 17,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
    },
    {
      "root": "pipe|d",
      "manifest": "pipe|d/protoagent.plugin.yaml",
      "dialect": "protoagent",
      "id": null,
      "version": null,
      "valid": false,
      "host": {
        "verdict": "invalid",
        "message": "[plugins] pipe|d: invalid or reserved plugin id '<b>x</b>' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route; skipping"
      },
      "manifest_hash": "sha256:fd7d4bd78e6f07e2a3f3cc62a9763ff7b1d8c2397d27eda855df4a1f28294e07",
      "diagnostics": [
        {
          "code": "plugins::protoagent::invalid_id",
          "severity": "error",
          "message": "invalid or reserved plugin id '<b>x</b>' — must match ^[A-Za-z0-9][A-Za-z0-9_-]*$ and must not shadow a core /api/plugins/ route",
          "help": "start with a letter or digit; then letters, digits, `_` and `-` only",
          "labels": [
            {
              "start": 4,
              "end": 12,
              "line": 1,
              "column": 5,
              "end_line": 1,
              "end_column": 13,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": "further checks skipped until this is fixed: the load gates (entry module, min_protoagent_version, requires_env) and lints"
    },
    {
      "root": "warned",
      "manifest": "warned/aoe-plugin.toml",
      "dialect": "aoe",
      "id": "dev.example.hello",
      "version": "v1",
      "valid": true,
      "host": {
        "verdict": "valid",
        "message": null
      },
      "manifest_hash": "sha256:b85a39f39e602eca44b5a98a1887d8281fbeccfe24b8c79f85f36575df0e84bc",
      "diagnostics": [
        {
          "code": "plugins::aoe::version_not_semver",
          "severity": "warning",
          "message": "version \"v1\" is not a semantic version",
          "help": "the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\"",
          "labels": [
            {
              "start": 50,
              "end": 54,
              "line": 3,
              "column": 11,
              "end_line": 3,
              "end_column": 15,
              "text": null
            }
          ],
          "fixes": []
        }
      ],
      "skipped": null
    }
  ]
}

"#]], str![""]);
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), before);
}
