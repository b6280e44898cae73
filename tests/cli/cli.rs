//! The command line itself: help, version, usage errors, and generated files
//! (completions, schemas) that must not drift from the binary.

use std::path::Path;

use clap::CommandFactory;

use snapbox::str;

use crate::support::*;

#[test]
fn cli_definition_is_consistent() {
    plugins::cli::Cli::command().debug_assert();
}

#[test]
fn version_and_help() {
    Plugins::new()
        .redact("[VERSION]", env!("CARGO_PKG_VERSION"))
        .arg("--version")
        .run()
        .expect(
            0,
            str![[r#"
plugins [VERSION]

"#]],
            str![""],
        );
    let ran = Plugins::new().arg("--help").run();
    ran.expect(
        0,
        str![[r#"
One toolchain for agent-host plugins: scaffold, validate, install, update (aoe, aworld, protoagent)

Usage: plugins [OPTIONS] <COMMAND>

Commands:
  new          Scaffold a plugin for any dialect from the built-in templates
  validate     Check plugin manifests exactly as the host does, plus lints
  search       Find plugins in the featured index and the installed homes, with the install command
  install      Install a plugin from git or a local directory, pinned in the lock
  list         List installed plugins
  info         Show one installed plugin
  homes        Show where each host keeps its plugins, lock and config
  enable       Turn an installed plugin on where its host reads it
  disable      Turn an installed plugin off where its host reads it
  remove       Remove an installed plugin and its lock entry
  rollback     Put back a version an update replaced (the last two are kept), and hold it
  bundle       Write one archive of everything a home's lock pins, for `sync --frozen --from`
  hold         Hold a plugin at its version: `update --all` and `autoupdate` skip it
  unhold       Lift a plugin's hold: updates take it again
  verify       Check installed plugins against the hashes in the lock
  sync         Install what the lock says, at the locked commits
  outdated     Show what is pinned and what is newer (reads remote refs only)
  update       Update plugins to their newer commits
  autoupdate   One auto-update sweep under each home's policy, <home>/plugins.toml (for cron)
  activity     Mark a home busy so auto-update waits (touch, or hold while a command runs)
  doctor       Check homes, locks, leftovers, hosts, sources, proxies and credentials
  resolve      Show which AWorld plugins activate, in discovery order, and why others do not
  schema       Print the JSON Schema of a dialect's manifest
  lsp          Run a language server that publishes validate's diagnostics as you type
  completions  Print shell completions
  man          Write the manual pages (plugins.1 and one per subcommand) into a directory
  help         Print this message or the help of the given subcommand(s)

Options:
      --color <WHEN>         When to use color: auto honours NO_COLOR and whether output is a
                             terminal [default: auto] [possible values: auto, always, never]
  -q, --quiet                Print only problems: no status lines, no progress, no summary of what
                             went well
  -v, --verbose              Show the git and HTTP steps on stderr: each URL with its proxy and
                             credential source, ref listings, fetches, downloads, redirects (secrets
                             redacted)
      --log-format <FORMAT>  Status lines and errors on stderr as text, or one JSON object per line
                             with an RFC 3339 timestamp (for logs) [default: text] [possible values:
                             text, json]
      --timestamps           Text logs: start each status line, warning and error on stderr (and
                             autoupdate's report lines) with an RFC 3339 timestamp, one line each.
                             autoupdate does so whenever stderr is not a terminal
  -h, --help                 Print help
  -V, --version              Print version

Examples:
  plugins new my-plugin --dialect aoe       scaffold a plugin (templates: plugins new --list)
  plugins validate                          validate the plugin in the current directory
  plugins validate --path . --format github annotate a pull request from CI
  plugins validate -r --path plugins/       every plugin root below plugins/
  plugins search github                     find a plugin, and the line that installs it
  plugins install gh:owner/repo@v1.2.0      install, pinned to the tag's commit
  plugins resolve --path ~/.aworld/plugins  AWorld activation order and skips
  plugins schema aoe > aoe.schema.json      JSON Schema for editors
  plugins completions zsh > _plugins        shell completions

Exit codes: 0 all valid, 1 a plugin is invalid, 2 the command could not run.

"#]],
        str![""],
    );
    assert!(
        ran.stdout.contains(
            "Exit codes: 0 all valid, 1 a plugin is invalid, 2 the command could not run."
        )
    );
    let ran = Plugins::new().args(["validate", "--help"]).run();
    ran.expect(
        0,
        str![[r#"
Check plugin manifests exactly as the host does, plus lints

Usage: plugins validate [OPTIONS] [PLUGIN-ID]...
       plugins validate [OPTIONS] --stdin --stdin-filename <PATH>

Arguments:
  [PLUGIN-ID]...
          Installed plugins to validate, looked up as <home>/plugins/<PLUGIN-ID>/; a path no id can
          be (., ../x) or an existing manifest file counts as --path (so pre-commit can pass file
          names)

Options:
      --color <WHEN>
          When to use color: auto honours NO_COLOR and whether output is a terminal
          
          [default: auto]
          [possible values: auto, always, never]

  -p, --path <PATH>
          A plugin root, a manifest file, or with --recursive a directory of plugin roots [default:
          .]

  -q, --quiet
          Print only problems: no status lines, no progress, no summary of what went well

  -r, --recursive
          Find every plugin root below each --path

      --dialect <DIALECT>
          Validate as this dialect instead of detecting it from the manifest name

          Possible values:
          - aoe:        Agent of Empires: `aoe-plugin.toml`
          - aworld:     AWorld: `.aworld-plugin/plugin.json`
          - protoagent: protoAgent: `protoagent.plugin.yaml`

  -v, --verbose
          Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref
          listings, fetches, downloads, redirects (secrets redacted)

      --aoe-api <API>
          aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)
          
          [default: 15]
          [possible values: 12, 15]

      --log-format <FORMAT>
          Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339
          timestamp (for logs)
          
          [default: text]
          [possible values: text, json]

      --host-version <X.Y.Z>
          Check the manifest's version requirement (aoe_version) against this host version

      --timestamps
          Text logs: start each status line, warning and error on stderr (and autoupdate's report
          lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is
          not a terminal

      --strict
          Warnings fail validation too (exit 1)
          
          [alias: --deny-warnings]

  -A, --allow <CODE>
          Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)

      --featured
          Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)

      --bundled
          Treat plugins as bundled with their host (AWorld: reserved command names allowed;
          protoAgent: bundled plugin ids allowed)

      --format <FORMAT>
          Output format

          Possible values:
          - human:  Graphical diagnostics with source snippets (plain text without a terminal)
          - json:   One JSON document for the whole run
          - github: GitHub Actions workflow commands that annotate the diff
          - sarif:  One SARIF 2.1.0 log, for GitHub code scanning and SARIF viewers
          
          [default: human]

      --json
          Same as --format json

      --home <DIR>
          Plugin home for PLUGIN-IDs [default: $PLUGINS_HOME, else the aoe app dir]

      --stdin
          Read the manifest from standard input (an editor's buffer); needs --stdin-filename

      --stdin-filename <PATH>
          With --stdin: the manifest's path, which names its dialect and plugin root in reports

  -h, --help
          Print help (see a summary with '-h')

  -V, --version
          Print version

Examples:
  plugins validate
  plugins validate --path my-plugin --strict
  plugins validate -r --path plugins/ --format json
  plugins validate --aoe-api 12 --host-version 1.14.0
  plugins validate --home ~/.config/agent-of-empires dev.example.kanban
  plugins validate --format sarif > plugins.sarif
  plugins validate --stdin --stdin-filename aoe-plugin.toml --format json < buffer

Exit codes: 0 all valid, 1 a plugin is invalid, 2 the command could not run.

"#]],
        str![""],
    );
    let stdout = &ran.stdout;
    for flag in [
        "--path",
        "--recursive",
        "--strict",
        "--deny-warnings",
        "--format",
        "--aoe-api",
        "--host-version",
        "Examples:",
    ] {
        assert!(stdout.contains(flag), "validate --help lacks {flag}");
    }
}

#[test]
fn usage_errors_exit_2() {
    for (args, stderr) in [
        (
            &["frobnicate"][..],
            str![[r#"
error: unrecognized subcommand 'frobnicate'

Usage: plugins [OPTIONS] <COMMAND>

For more information, try '--help'.

"#]],
        ),
        (
            &["validate", "--aoe-api", "13"],
            str![[r#"
error: invalid value '13' for '--aoe-api <API>'
  [possible values: 12, 15]

For more information, try '--help'.

"#]],
        ),
        (
            &["validate", "--format", "xml"],
            str![[r#"
error: invalid value 'xml' for '--format <FORMAT>'
  [possible values: human, json, github, sarif]

For more information, try '--help'.

"#]],
        ),
        (
            &["validate", "-A", "plugins::nope"],
            str![[r#"
plugins::usage::invalid_argument

  × unknown diagnostic code `plugins::nope`
  help: `--allow` takes a full code, like `plugins::aoe::version_not_semver`; docs/diagnostics.md
        lists them

"#]],
        ),
    ] {
        let ran = Plugins::new().args(args).run();
        ran.expect(2, str![""], stderr);
        assert!(!ran.stderr.is_empty(), "{args:?}");
    }
}

/// Compare generated text with a committed file; `SNAPSHOTS=overwrite` rewrites it.
fn assert_committed(path: &Path, generated: &str, how: &str) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var_os("SNAPSHOTS").is_some_and(|v| v == "overwrite") {
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, generated).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&full).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date with `{how}`; regenerate with `SNAPSHOTS=overwrite cargo test --test cli`",
        path.display()
    );
}

/// What the wheel installs under its environment's prefix (`pyproject.toml`'s
/// `[tool.maturin] data`): the pages and the completions where bash-completion, zsh and fish
/// look under a prefix.
const WHEEL_DATA: &str = "packaging/wheel-data/data/share";

#[test]
fn committed_completions_match_the_cli() {
    for (shell, file, wheel) in [
        (
            "bash",
            "plugins.bash",
            Some("bash-completion/completions/plugins"),
        ),
        ("zsh", "_plugins", Some("zsh/site-functions/_plugins")),
        (
            "fish",
            "plugins.fish",
            Some("fish/vendor_completions.d/plugins.fish"),
        ),
        ("powershell", "_plugins.ps1", None),
        ("elvish", "plugins.elv", None),
    ] {
        // parts: the script (700 to 1,700 lines) is compared with the committed file below.
        let (code, stdout, _) = Plugins::new().args(["completions", shell]).run().parts();
        assert_eq!(code, 0);
        assert!(stdout.contains("validate"), "{shell}");
        let how = format!("plugins completions {shell}");
        assert_committed(&Path::new("completions").join(file), &stdout, &how);
        if let Some(wheel) = wheel {
            assert_committed(&Path::new(WHEEL_DATA).join(wheel), &stdout, &how);
        }
    }
}

/// The manual pages the wheel carries are `plugins man`'s, one for every subcommand, and
/// only those.
#[test]
fn committed_man_pages_match_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    Plugins::new().arg("man").arg(tmp.path()).run().success();
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let generated = names(tmp.path());
    let mut every = man_pages();
    every.sort();
    assert_eq!(generated, every, "a page per subcommand");
    let committed_dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(WHEEL_DATA)
        .join("man/man1");
    for name in &generated {
        let page = std::fs::read_to_string(tmp.path().join(name)).unwrap();
        assert_committed(
            &Path::new(WHEEL_DATA).join("man/man1").join(name),
            &page,
            "plugins man",
        );
    }
    let stale: Vec<String> = names(&committed_dir)
        .into_iter()
        .filter(|n| !generated.contains(n))
        .collect();
    assert!(
        stale.is_empty(),
        "pages for no subcommand: {stale:?} (delete them)"
    );
}

#[test]
fn bash_completion_script_loads() {
    // parts: the script (1,700 lines) is what bash loads; committed_completions… compares it.
    let (_, script, _) = Plugins::new().args(["completions", "bash"]).run().parts();
    let (code, _, stderr) =
        run(std::process::Command::new("bash")
            .args(["-c", &format!("{script}\ncomplete -p plugins")]));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn committed_schemas_match_the_cli_and_validate_documents() {
    for api in ["12", "15"] {
        let (code, stdout, _) = Plugins::new()
            .args(["schema", "aoe", "--aoe-api", api])
            .run()
            // parts: the schema, hundreds of lines, is compared with the committed file below.
            .parts();
        assert_eq!(code, 0);
        let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_committed(
            &Path::new("docs/schema").join(format!("aoe-api{api}.schema.json")),
            &stdout,
            "plugins schema aoe",
        );
        // Usable by other tools: it accepts a valid manifest and rejects a broken one.
        let validator = jsonschema::validator_for(&schema).unwrap();
        let good: serde_json::Value =
            serde_json::to_value(toml::from_str::<toml::Table>(CLEAN_AOE).unwrap()).unwrap();
        assert!(validator.is_valid(&good));
        let bad = serde_json::json!({"id": "Bad", "name": "x", "version": "1", "api_version": 1, "panes": []});
        assert_eq!(
            validator.iter_errors(&bad).count(),
            2,
            "bad id and unknown key"
        );
    }
    for (dialect, file) in [
        ("aworld", "aworld.plugin.schema.json"),
        ("protoagent", "protoagent.plugin.schema.json"),
    ] {
        // parts: the schema, hundreds of lines, is compared with the committed file below.
        let (code, stdout, _) = Plugins::new().args(["schema", dialect]).run().parts();
        assert_eq!(code, 0);
        let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(
            jsonschema::validator_for(&schema).is_ok(),
            "{dialect}: a usable schema"
        );
        assert_committed(
            &Path::new("docs/schema").join(file),
            &stdout,
            &format!("plugins schema {dialect}"),
        );
    }
}

/// Every property of every manifest schema `plugins` ships (`plugins schema`, and the
/// `.plugins-schema.json` `plugins new` writes) says what it is: editors show the
/// description on hover and in completion.
#[test]
fn every_shipped_schema_property_has_a_description() {
    fn walk(schema: &serde_json::Value, at: &str, missing: &mut Vec<String>) {
        match schema {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let here = format!("{at}/{k}");
                    if matches!(k.as_str(), "properties" | "patternProperties")
                        && let Some(props) = v.as_object()
                    {
                        for (name, sub) in props {
                            let described = sub
                                .get("description")
                                .and_then(serde_json::Value::as_str)
                                .is_some_and(|d| !d.trim().is_empty());
                            if !described {
                                missing.push(format!("{here}/{name}"));
                            }
                        }
                    }
                    walk(v, &here, missing);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{at}/{i}"), missing);
                }
            }
            _ => {}
        }
    }
    let mut checked = 0;
    for args in [
        &["schema", "aoe", "--aoe-api", "15"][..],
        &["schema", "aoe", "--aoe-api", "12"],
        &["schema", "aworld"],
        &["schema", "protoagent"],
    ] {
        // parts: the schema, hundreds of lines, is walked (and committed, tested above).
        let (code, stdout, _) = Plugins::new().args(args).run().parts();
        assert_eq!(code, 0);
        let schema: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let mut missing = Vec::new();
        walk(&schema, "", &mut missing);
        assert!(
            missing.is_empty(),
            "{args:?}: no description at {missing:#?}"
        );
        checked += stdout.matches("\"description\"").count();
    }
    assert!(
        checked > 250,
        "the walk sees the schemas' properties ({checked})"
    );
}

#[test]
fn allow_suggests_the_full_code() {
    let dir = clean_aoe_root();
    Plugins::new()
        .args(["validate", "-A", "version_not_semver"])
        .current_dir(dir.path())
        .run()
        .expect(
            2,
            str![""],
            str![[r#"
plugins::usage::invalid_argument

  × unknown diagnostic code `version_not_semver`
  help: did you mean `plugins::aoe::version_not_semver`?

"#]],
        );
    Plugins::new()
        .args(["validate", "-A", "symlink"])
        .current_dir(dir.path())
        .run()
        .expect(
            2,
            str![[""]],
            str![[r#"
plugins::usage::invalid_argument

  × unknown diagnostic code `symlink`
  help: did you mean `plugins::aoe::symlink` or `plugins::install::symlink`?

"#]],
        );
}

/// `sh` run with the binary's directory first on PATH and `PLUGINS_HOME` at `home`.
fn shell_with_home(sh: &str, home: &Path) -> std::process::Command {
    let bin = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let mut cmd = std::process::Command::new(sh);
    cmd.env("PATH", path)
        .env("PLUGINS_HOME", home)
        .env("HOME", home.parent().unwrap());
    cmd
}

#[test]
fn complete_ids_prints_installed_ids_and_nothing_on_error() {
    let tmp = tempfile::tempdir().unwrap();
    let home = home_with_two_plugins(tmp.path());
    Plugins::new()
        .args(["__complete", "ids"])
        .env("PLUGINS_HOME", &home)
        .run()
        .expect(
            0,
            str![[r#"
dev.example.alpha
dev.example.beta

"#]],
            str![""],
        );
    std::fs::write(home.join("plugins.lock"), "not = [toml").unwrap();
    Plugins::new()
        .args(["__complete", "ids"])
        .env("PLUGINS_HOME", &home)
        .run()
        .expect(0, str![""], str![""]);
    // The command is not offered by the completion scripts.
    // parts: the script (1,700 lines) is compared in committed_completions_match_the_cli.
    let (_, script, _) = Plugins::new().args(["completions", "bash"]).run().parts();
    assert!(!script.contains("plugins,__complete"));
}

/// Call `_plugins` as bash does: the command, the word being completed and the one before.
const CALL: &str = r#"_plugins plugins "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}""#;

#[test]
fn bash_completes_installed_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let home = home_with_two_plugins(tmp.path());
    for words in [
        "plugins remove \"\"",
        "plugins update dev.example.alpha \"\"",
    ] {
        let cword = words.split(' ').count() - 1;
        let script = format!(
            "source completions/plugins.bash; COMP_WORDS=({words}); COMP_CWORD={cword}; {CALL}; printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let (code, stdout, stderr) = run(shell_with_home("bash", &home).args(["-c", &script]));
        assert_eq!(code, 0, "{stderr}");
        let got: Vec<&str> = stdout.lines().collect();
        assert!(got.contains(&"dev.example.alpha"), "{words}: {got:?}");
        assert!(got.contains(&"dev.example.beta"), "{words}: {got:?}");
    }
    // An option being typed completes options only.
    let script = "source completions/plugins.bash; COMP_WORDS=(plugins remove --); COMP_CWORD=2; _plugins plugins -- remove; printf '%s\\n' \"${COMPREPLY[@]}\"";
    let (_, stdout, _) = run(shell_with_home("bash", &home).args(["-c", script]));
    assert!(
        stdout.contains("--home") && !stdout.contains("dev.example"),
        "{stdout}"
    );
}

#[test]
fn fish_completes_installed_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let home = home_with_two_plugins(tmp.path());
    let script = "source completions/plugins.fish; complete -C 'plugins remove '";
    let (code, stdout, stderr) = run(shell_with_home("fish", &home).args(["-c", script]));
    assert_eq!(code, 0, "{stderr}");
    let got: Vec<&str> = stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert!(got.contains(&"dev.example.alpha"), "{got:?}");
    assert!(got.contains(&"dev.example.beta"), "{got:?}");
}

#[test]
fn zsh_id_completion_offers_installed_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let home = home_with_two_plugins(tmp.path());
    let dump = tmp.path().join("zcompdump");
    let script = format!(
        "autoload -U compinit; compinit -u -d '{}'; source completions/_plugins; \
         compadd() {{ print -l -- ${{(P)2}} }}; _plugins_ids",
        dump.display()
    );
    let (code, stdout, stderr) = run(shell_with_home("zsh", &home).args(["-fc", &script]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "dev.example.alpha\ndev.example.beta\n");
    let committed = std::fs::read_to_string("completions/_plugins").unwrap();
    assert!(committed.contains("':id -- The plugin id:_plugins_ids'"));
    assert!(committed.contains("'*::ids -- Plugins to update:_plugins_ids'"));
}

/// `plugins ARGS` on a pseudo-terminal (util-linux `script`) with `env` set: what the
/// terminal received.
fn on_terminal(args: &str, env: &[(&str, &str)]) -> String {
    let mut cmd = Plugins::new();
    cmd.args(args.split_whitespace())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.in_pty().output();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn dumb_terminals_no_color_and_color_never_get_no_escape_codes_anywhere() {
    if !have_pty() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("aoe-plugin.toml"), "id = \"x\"\nname = 3\n").unwrap();
    let report = format!("validate --path {}", tmp.path().display());
    // A report (miette) and a usage error (clap) each, on a color terminal: escapes.
    for args in [report.as_str(), "validate --bogus"] {
        assert!(
            on_terminal(args, &[("TERM", "xterm")]).contains("\x1b["),
            "{args}: a color terminal gets color"
        );
        for (what, env, extra) in [
            ("TERM=dumb", &[("TERM", "dumb")][..], ""),
            ("NO_COLOR", &[("TERM", "xterm"), ("NO_COLOR", "1")][..], ""),
            (
                "CLICOLOR=0",
                &[("TERM", "xterm"), ("CLICOLOR", "0")][..],
                "",
            ),
            ("--color never", &[("TERM", "xterm")][..], " --color never"),
        ] {
            let seen = on_terminal(&format!("{args}{extra}"), env);
            assert!(
                !seen.contains('\x1b') && seen.contains("plugins"),
                "{what} {args}: {seen:?}"
            );
        }
    }
}

/// `plugins man DIR` writes a manual page for the program and for every subcommand (one
/// `plugins-<sub>.1` each, nested ones too), generated from the same definition as --help,
/// and `man` renders each.
#[test]
fn man_writes_a_page_for_every_subcommand() {
    use clap::CommandFactory;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man1");
    Plugins::new().arg("man").arg(&dir).run().success();
    let mut want = vec!["plugins.1".to_owned()];
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            if sub.get_name() == "help" {
                continue;
            }
            let name = format!("{prefix}-{}", sub.get_name());
            out.push(format!("{name}.1"));
            walk(sub, &name, out);
        }
    }
    walk(&plugins::cli::Cli::command(), "plugins", &mut want);
    want.sort();
    let mut have: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    have.sort();
    assert_eq!(have, want);
    assert!(want.len() > 25, "{want:?}");
    // Each page is roff that names its command (what `man` shows as NAME).
    for page in &have {
        let text = std::fs::read_to_string(dir.join(page)).unwrap();
        let name = page.trim_end_matches(".1");
        assert!(
            text.starts_with(".ie \\n(.g .ds Aq") || text.contains(".TH"),
            "{page}"
        );
        assert!(
            text.contains(&format!("{name} \\-"))
                || text.contains(&format!("{} \\-", name.replace('-', "\\-"))),
            "{page}: {text}"
        );
    }
}

/// Each shared library costs every process its loading, relocation and page faults
/// (docs/PERFORMANCE.md, issue 43): the binary needs libc and libgcc_s, not libm
/// (indicatif's one `pow` is the libm crate's, `src/main.rs`) nor libz (built in).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_binary_loads_no_library_it_can_do_without() {
    let out = std::process::Command::new("readelf")
        .args(["-d", BIN])
        .output()
        .expect("readelf (binutils) runs");
    assert!(out.status.success());
    let dynamic = String::from_utf8(out.stdout).unwrap();
    let needed: Vec<&str> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split_once('[').map(|(_, lib)| lib.trim_end_matches(']')))
        .filter(|lib| !lib.starts_with("ld-linux"))
        .collect();
    assert_eq!(needed, ["libgcc_s.so.1", "libc.so.6"], "{dynamic}");
}
