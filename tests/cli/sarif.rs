//! `--format sarif`: a SARIF 2.1.0 log that the official schema accepts, with
//! rules from the code table and paths relative to the repository root.

use std::path::Path;

use snapbox::{IntoData, assert_data_eq, str};

use crate::support::git::Repo;
use crate::support::*;

/// Warnings (one with a secondary label) in a plugin that is otherwise valid.
const WARNED: &str = "id = \"dev.example.warned\"\nname = \"Warned\"\nversion = \"v1\"\napi_version = 15\ncapabilities = [\"runtime.worker\", \"nope\", \"nada\"]\n\n[runtime]\nkind = \"command\"\ncommand = [\"./bin/worker\"]\n";

/// An error that stops the host's parse (a `skipped` note follows).
const BROKEN: &str = "id = \"dev.example.x\"\nname = \"X\"\nversion = \"1.0.0\"\napi_version = 12\n\n[[ui]]\nslot = \"sidebar\"\nid = \"s\"\n";

fn sarif_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif/sarif-schema-2.1.0.json"),
    )
    .unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
        .expect("the SARIF schema compiles")
}

/// Run `plugins validate --format sarif` in `cwd`; the log, checked against the schema.
fn sarif(cwd: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let (code, stdout, stderr) = Plugins::new()
        .args(["validate", "--format", "sarif"])
        .args(args)
        .current_dir(cwd)
        .run()
        // parts: the log is checked against the SARIF schema, then by its results (below).
        .parts();
    assert_eq!(stderr, "");
    let log: serde_json::Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    let problems: Vec<String> = sarif_schema()
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "not valid SARIF 2.1.0: {problems:#?}");
    (code, log)
}

/// The run without its (long) rule table, against `expected` with the plugin root (the
/// machine's path) shown as `[ROOT]` and this version as `[VERSION]`.
#[track_caller]
fn assert_results(log: &serde_json::Value, root: &Path, expected: impl snapbox::IntoData) {
    let mut run = log["runs"][0].clone();
    run["tool"]["driver"]["rules"] = serde_json::json!("[..]");
    let text = serde_json::to_string_pretty(&run).unwrap().replace(
        &format!("\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"[VERSION]\"",
    );
    let root = root.canonicalize().unwrap().display().to_string();
    assert_redacted(&text, &[("[ROOT]", root)], expected);
}

#[test]
fn sarif_is_valid_and_paths_are_relative_to_the_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = Repo::init(&tmp.path().join("repo"));
    repo.file("plugins/warned/aoe-plugin.toml", WARNED)
        .executable("plugins/warned/bin/worker", "#!/bin/sh\n")
        .file("plugins/broken/aoe-plugin.toml", BROKEN);
    // From a subdirectory, as a `working-directory:` step runs.
    let (code, log) = sarif(&repo.dir.join("plugins"), &["-r", "--path", "."]);
    assert_eq!(code, 1);
    assert_eq!(log["version"], "2.1.0");
    // The schema is a real check: a log without its version is refused.
    let mut broken = log.clone();
    broken.as_object_mut().unwrap().remove("version");
    assert!(!sarif_schema().is_valid(&broken));
    assert_results(
        &log,
        &repo.dir,
        str![[r#"
{
  "tool": {
    "driver": {
      "name": "plugins",
      "version": "[VERSION]",
      "semanticVersion": "[VERSION]",
      "rules": "[..]"
    }
  },
  "invocations": [
    {
      "executionSuccessful": true,
      "toolExecutionNotifications": [
        {
          "level": "note",
          "message": {
            "text": "further checks skipped until this is fixed: the semantic pass, install refusals and the remaining lints"
          },
          "locations": [
            {
              "physicalLocation": {
                "artifactLocation": {
                  "uri": "plugins/broken/aoe-plugin.toml",
                  "uriBaseId": "%SRCROOT%"
                }
              }
            }
          ]
        }
      ]
    }
  ],
  "originalUriBaseIds": {
    "%SRCROOT%": {
      "uri": "file://[ROOT]/"
    }
  },
  "columnKind": "unicodeCodePoints",
  "results": [
    {
      "ruleId": "plugins::aoe::unknown_variant",
      "level": "error",
      "message": {
        "text": "unknown variant `sidebar`, expected one of `status-bar`, `row-badge`, `row-column`, `sort-key`, `filter-facet`, `card`, `pane`, `composer-action`, `detail-badge`, `home-pane`, `notification`"
      },
      "locations": [
        {
          "physicalLocation": {
            "artifactLocation": {
              "uri": "plugins/broken/aoe-plugin.toml",
              "uriBaseId": "%SRCROOT%"
            },
            "region": {
              "startLine": 7,
              "startColumn": 8,
              "endLine": 7,
              "endColumn": 17
            }
          }
        }
      ],
      "ruleIndex": 12
    },
    {
      "ruleId": "plugins::aoe::version_not_semver",
      "level": "warning",
      "message": {
        "text": "version \"v1\" is not a semantic version\nhelp: the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\""
      },
      "locations": [
        {
          "physicalLocation": {
            "artifactLocation": {
              "uri": "plugins/warned/aoe-plugin.toml",
              "uriBaseId": "%SRCROOT%"
            },
            "region": {
              "startLine": 3,
              "startColumn": 11,
              "endLine": 3,
              "endColumn": 15
            }
          }
        }
      ],
      "ruleIndex": 39
    },
    {
      "ruleId": "plugins::aoe::unknown_capability",
      "level": "warning",
      "message": {
        "text": "plugin requests capabilities this host does not support: nope, nada; upgrade aoe"
      },
      "locations": [
        {
          "message": {
            "text": "not a capability of aoe 1.19.0"
          },
          "physicalLocation": {
            "artifactLocation": {
              "uri": "plugins/warned/aoe-plugin.toml",
              "uriBaseId": "%SRCROOT%"
            },
            "region": {
              "startLine": 5,
              "startColumn": 35,
              "endLine": 5,
              "endColumn": 41
            }
          }
        }
      ],
      "ruleIndex": 27,
      "relatedLocations": [
        {
          "message": {
            "text": "also unknown"
          },
          "physicalLocation": {
            "artifactLocation": {
              "uri": "plugins/warned/aoe-plugin.toml",
              "uriBaseId": "%SRCROOT%"
            },
            "region": {
              "startLine": 5,
              "startColumn": 43,
              "endLine": 5,
              "endColumn": 49
            }
          },
          "id": 1
        }
      ]
    }
  ]
}
"#]]
        .raw()
    );
}

#[test]
fn sarif_rules_are_the_code_table_with_help() {
    let dir = clean_aoe_root();
    let (code, log) = sarif(dir.path(), &[]);
    assert_eq!(code, 0);
    let run = &log["runs"][0];
    assert_eq!(run["results"], serde_json::json!([]));
    assert_eq!(run["tool"]["driver"]["name"], "plugins");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let expected: Vec<&str> = plugins::diagnostic::Code::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|c| {
            ["file", "syntax", "aoe", "aworld", "protoagent"]
                .iter()
                .any(|area| c.starts_with(&format!("plugins::{area}::")))
        })
        .collect();
    assert_eq!(ids, expected, "every code validate reports, in table order");
    let unknown_key = rules
        .iter()
        .find(|r| r["id"] == "plugins::aoe::unknown_key")
        .unwrap();
    assert_data_eq!(
        serde_json::to_string_pretty(unknown_key).unwrap(),
        str![[r#"
{
  "id": "plugins::aoe::unknown_key",
  "shortDescription": {
    "text": "A key the host rejects (top level, `[[screenshots]]`, `[[runtime.build]]`)."
  },
  "fullDescription": {
    "text": "A key the host rejects. Only the top level, `[[screenshots]]` and `[[runtime.build]]` deny unknown keys; elsewhere see `plugins::aoe::ignored_key`. The help suggests the closest known key."
  },
  "help": {
    "text": "A key the host rejects. Only the top level, `[[screenshots]]` and `[[runtime.build]]` deny unknown keys; elsewhere see `plugins::aoe::ignored_key`. The help suggests the closest known key.\n\n```toml\n[[runtime.build]]\ncommand = [\"make\"]\nplatform = [\"linux\"]\n```\n\n```text\nunknown field `platform`, expected `command` or `platforms`\n```",
    "markdown": "A key the host rejects. Only the top level, `[[screenshots]]` and `[[runtime.build]]` deny unknown keys; elsewhere see `plugins::aoe::ignored_key`. The help suggests the closest known key.\n\n```toml\n[[runtime.build]]\ncommand = [\"make\"]\nplatform = [\"linux\"]\n```\n\n```text\nunknown field `platform`, expected `command` or `platforms`\n```"
  },
  "defaultConfiguration": {
    "level": "error"
  },
  "properties": {
    "tags": [
      "aoe"
    ]
  }
}
"#]]
        .raw()
    );
}

#[test]
fn sarif_outside_a_repository_is_relative_to_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("my plugin")).unwrap();
    std::fs::write(tmp.path().join("my plugin/aoe-plugin.toml"), BROKEN).unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let (code, log) = sarif(tmp.path(), &["--path", "my plugin", "--path", "empty"]);
    assert_eq!(code, 1);
    let run = &log["runs"][0];
    assert_eq!(
        run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"],
        serde_json::json!({ "uri": "my%20plugin/aoe-plugin.toml", "uriBaseId": "%SRCROOT%" })
    );
    // No manifest: a result on the directory, without a region.
    assert_eq!(
        run["results"][1]["locations"][0],
        serde_json::json!({ "physicalLocation": { "artifactLocation": { "uri": "empty", "uriBaseId": "%SRCROOT%" } } })
    );
    assert_eq!(run["results"][1]["ruleId"], "plugins::file::missing");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert_eq!(
        base.replace(
            &tmp.path().canonicalize().unwrap().display().to_string(),
            "[TMP]"
        ),
        "file://[TMP]/"
    );
}

/// A did-you-mean with one answer is a SARIF `fix`: applying its replacement
/// (1-based lines, code-point columns) fixes the manifest.
#[test]
fn sarif_fixes_apply_and_fix() {
    let dir = clean_aoe_root();
    let manifest = dir.path().join("aoe-plugin.toml");
    let broken = CLEAN_AOE.replace(
        "capabilities = [\"runtime.worker\"]",
        "capabilities = [\"é\", \"runtime.workr\"]",
    );
    std::fs::write(&manifest, &broken).unwrap();
    let (_, log) = sarif(dir.path(), &[]);
    let result = &log["runs"][0]["results"][0];
    assert_data_eq!(
        serde_json::to_string_pretty(&result["fixes"]).unwrap(),
        str![[r#"
[
  {
    "description": {
      "text": "Replace with `runtime.worker`"
    },
    "artifactChanges": [
      {
        "artifactLocation": {
          "uri": "aoe-plugin.toml",
          "uriBaseId": "%SRCROOT%"
        },
        "replacements": [
          {
            "deletedRegion": {
              "startLine": 6,
              "startColumn": 23,
              "endLine": 6,
              "endColumn": 36
            },
            "insertedContent": {
              "text": "runtime.worker"
            }
          }
        ]
      }
    ]
  }
]
"#]]
        .raw()
    );
    let replacement = &result["fixes"][0]["artifactChanges"][0]["replacements"][0];
    let region = &replacement["deletedRegion"];
    let line = broken
        .lines()
        .nth(usize::try_from(region["startLine"].as_u64().unwrap() - 1).unwrap())
        .unwrap();
    let column = |key: &str| usize::try_from(region[key].as_u64().unwrap() - 1).unwrap();
    let chars: Vec<char> = line.chars().collect();
    let fixed_line: String = chars[..column("startColumn")]
        .iter()
        .chain(
            replacement["insertedContent"]["text"]
                .as_str()
                .unwrap()
                .chars()
                .collect::<Vec<_>>()
                .iter(),
        )
        .chain(chars[column("endColumn")..].iter())
        .collect();
    assert_eq!(fixed_line, "capabilities = [\"é\", \"runtime.worker\"]");
    std::fs::write(&manifest, broken.replace(line, &fixed_line)).unwrap();
    let (_, log) = sarif(dir.path(), &[]);
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert!(results[0].get("fixes").is_none(), "{results:#?}");
}
