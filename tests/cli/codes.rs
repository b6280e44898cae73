//! One minimal trigger per aoe diagnostic code, with the exact message.

use std::path::Path;

use plugins::diagnostic::{Code, Severity};
use plugins::host::testing::aoe::{Options, Profile, validate};

use crate::support::*;

const HEAD: &str = "id = \"dev.example.t\"\nname = \"T\"\nversion = \"1.0.0\"\napi_version = 12\n";

fn diagnostics(
    text: &str,
    root: Option<&Path>,
    opts: &Options,
) -> Vec<(Code, Severity, String, String)> {
    let outcome = validate(text, root, opts);
    outcome
        .diagnostics
        .into_iter()
        .map(|d| {
            let label = d
                .labels
                .first()
                .map_or(String::new(), |l| text[l.span.clone()].to_owned());
            (d.code, d.severity, d.message, label)
        })
        .collect()
}

fn expect(body: &str, code: Code, message: &str, label: &str) {
    let text = format!("{HEAD}{body}");
    let opts = Options {
        profile: Profile::H12,
        ..Options::default()
    };
    let found = diagnostics(&text, None, &opts);
    assert!(
        found
            .iter()
            .any(|d| d.0 == code && d.2 == message && d.3 == label),
        "{code}: expected {message:?} on {label:?}, got {found:#?}"
    );
}

#[test]
fn structural_codes() {
    expect(
        "icon = 7\n",
        Code::AoeInvalidType,
        "invalid type: integer `7`, expected a string",
        "7",
    );
    expect(
        "[[settings]]\nkey = \"k\"\ntype = \"object_list\"\nmin_items = -1\n[[settings.fields]]\nkey = \"f\"\n",
        Code::AoeInvalidType,
        "invalid value: integer `-1`, expected u32",
        "-1",
    );
    for (id, reason) in [
        (
            "dev.Example",
            "each dot-separated segment must start with a lowercase letter",
        ),
        (
            "dev.ex_ample",
            "segments may only contain lowercase letters, digits, and hyphens",
        ),
    ] {
        let text = HEAD.replace("dev.example.t", id);
        let found = diagnostics(&text, None, &Options::default());
        assert_eq!(found[0].0, Code::AoeInvalidId);
        assert_eq!(found[0].2, format!("invalid plugin id {id:?}: {reason}"));
        assert_eq!(found[0].3, format!("{id:?}"));
    }
}

#[test]
fn semantic_codes() {
    let zero = HEAD.replace("api_version = 12", "api_version = 0");
    let found = diagnostics(
        &zero,
        None,
        &Options {
            profile: Profile::H12,
            ..Options::default()
        },
    );
    assert_eq!(found[0].0, Code::AoeApiVersion);
    assert_eq!(
        found[0].2,
        "api_version 0 is not supported (host supports 1..=12)"
    );
    expect(
        "[runtime]\nkind = \"command\"\ncommand = [\"uv/x\"]\nsystem = true\n",
        Code::AoeRuntimeCommand,
        "runtime command program \"uv/x\" has `system = true` but is a path; a system dependency must be a bare program name resolved on PATH (like \"uv\" or \"python3\")",
        "\"uv/x\"",
    );
    expect(
        "[runtime]\nkind = \"command\"\ncommand = [\"./w\"]\n[[runtime.build]]\ncommand = [\"make\", \"\"]\n",
        Code::AoeBuildStep,
        "runtime.build[0].command must not contain empty arguments",
        "\"\"",
    );
    expect(
        "[[commands]]\nid = \"open\"\n[commands.action]\nkind = \"open-ui-link\"\nslot = \"card\"\nid = \"c\"\n[[ui]]\nslot = \"card\"\nid = \"c\"\n",
        Code::AoeCommandAction,
        "commands[0].action needs the `browser_open` capability",
        "action",
    );
    expect(
        "[[commands]]\nid = \"open\"\n[commands.action]\nkind = \"open-ui-link\"\nslot = \"card\"\nid = \"c\"\n[[ui]]\nslot = \"card\"\nid = \"c\"\n",
        Code::AoeCommandAction,
        "commands[0].action open-ui-link slot must be per-session",
        "\"card\"",
    );
    expect(
        "[[settings]]\nkey = \"on\"\ntype = \"bool\"\ndefault = \"yes\"\n",
        Code::AoeSettingDefault,
        "settings[0].default does not match type Bool",
        "\"yes\"",
    );
    expect(
        "[[screenshots]]\npath = \"../a.png\"\nalt = \"A\"\n",
        Code::AoeScreenshot,
        "screenshots[0].path \"../a.png\" must be a repository-relative image path (png/jpg/jpeg/gif/webp), not a URL or an absolute/traversing path",
        "\"../a.png\"",
    );
    let nine: String = (0..9)
        .map(|i| format!("[[screenshots]]\npath = \"s{i}.png\"\nalt = \"s\"\n"))
        .collect();
    expect(
        &nine,
        Code::AoeScreenshot,
        "at most 8 screenshots are allowed (got 9)",
        "[[screenshots]]",
    );
    expect(
        "aoe_version = \"1.x.y\"\n",
        Code::AoeAoeVersion,
        "aoe_version \"1.x.y\" is not a valid semver requirement",
        "\"1.x.y\"",
    );
    expect(
        "[setting_defaults]\ntheme.idle_decay_minutes = 10\n",
        Code::AoeSettingDefaultsKey,
        "setting_defaults key \"theme\" must be a dotted core path like \"section.field\"",
        "theme",
    );
    // The quoted form is the fix.
    let quoted = format!("{HEAD}[setting_defaults]\n\"theme.idle_decay_minutes\" = 10\n");
    assert!(diagnostics(&quoted, None, &Options::default()).is_empty());
}

#[test]
fn lint_codes() {
    expect(
        "[[settings]]\nkey = \"k\"\ntype = \"string\"\noptions = [\"a\"]\n",
        Code::AoeInertProperty,
        "`options` has no effect on a `string` setting",
        "options",
    );
}

#[test]
fn tree_codes() {
    let dir = aoe_root("");
    let text = format!("{HEAD}[[screenshots]]\npath = \"docs/board.png\"\nalt = \"Board\"\n")
        .replace("api_version = 12", "api_version = 5");
    std::fs::create_dir(dir.path().join(".aoe-build")).unwrap();
    std::os::unix::fs::symlink("aoe-plugin.toml", dir.path().join("link")).unwrap();
    let found = diagnostics(&text, Some(dir.path()), &Options::default());
    let codes: Vec<Code> = found.iter().map(|d| d.0).collect();
    for code in [
        Code::AoeShippedBuildDir,
        Code::AoeSymlink,
        Code::AoeMissingFile,
    ] {
        assert!(codes.contains(&code), "{code} missing from {found:#?}");
    }
    let missing = found.iter().find(|d| d.0 == Code::AoeMissingFile).unwrap();
    assert_eq!(
        missing.2,
        "\"docs/board.png\" does not exist in the plugin tree"
    );
    assert_eq!(missing.3, "\"docs/board.png\"");
    // Once the file exists, the lint goes away.
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/board.png"), b"png").unwrap();
    let found = diagnostics(&text, Some(dir.path()), &Options::default());
    assert!(found.iter().all(|d| d.0 != Code::AoeMissingFile));
}

#[test]
fn write_failures_are_io_errors() {
    let dir = clean_aoe_root();
    // A full disk: writing the report fails.
    let out = Plugins::new()
        .args(["validate", "--path", "."])
        .current_dir(dir.path())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("plugins::io"), "{stderr}");
    assert!(stderr.contains("cannot write output"), "{stderr}");
}
