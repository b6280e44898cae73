//! The systemd timer in docs/cli.md: its service's `ExecStart` run as systemd runs it, with
//! no shell and an environment holding none of the user's variables.

use std::path::Path;

use crate::support::{BIN, history, install, locked, static_aoe};

/// The `ExecStart=` of the documented `plugins-autoupdate.service`, as argv.
fn documented_exec_start() -> Vec<String> {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")).unwrap();
    let unit = docs
        .split("```ini\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("docs/cli.md has the systemd units");
    assert!(
        unit.contains("[Timer]") && unit.contains("Type=oneshot"),
        "{unit}"
    );
    let line = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("the service has an ExecStart");
    // systemd splits on whitespace (no shell); the documented line uses no quoting.
    assert!(!line.contains(['"', '\'', '$', '>', '|']), "{line}");
    line.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn the_documented_systemd_service_runs_as_written() {
    let argv = documented_exec_start();
    assert_eq!(
        argv[0], "/usr/local/bin/plugins",
        "an absolute path, as systemd needs"
    );
    let tmp = tempfile::tempdir().unwrap();
    let (repo, _) = history(&tmp.path().join("repo"));
    let me = tmp.path().join("me");
    let home = me.join(".config/agent-of-empires");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let locked_before = locked(&home, "dev.example.pinned", "resolved_commit");
    repo.file("aoe-plugin.toml", &static_aoe("5.0.0"));
    let c5 = repo.commit("v5");
    std::fs::write(
        home.join("plugins.toml"),
        "[update_policy.\"dev.example.pinned\"]\ntrack = \"main\"\nwhen = \"always\"\n",
    )
    .unwrap();
    let argv: Vec<String> = argv
        .iter()
        .map(|a| {
            a.replace("/usr/local/bin/plugins", BIN)
                .replace("/home/me", me.to_str().unwrap())
        })
        .collect();
    // What systemd gives a system service: a fixed PATH, LANG, no HOME of the user's shell.
    let out = std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .env_clear()
        .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin")
        .env("LANG", "C.UTF-8")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(locked(&home, "dev.example.pinned", "resolved_commit"), c5);
    // -q with --log-format json: a sweep writes one JSON line per change to the journal,
    // and nothing else when nothing failed.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["level"], "info");
    assert!(lines[0]["at"].as_str().unwrap().ends_with("+00:00"));
    assert_eq!(
        lines[0]["message"],
        format!(
            "Updated dev.example.pinned 3.0.0 (main @ {}) -> 5.0.0 (main @ {}) in {}: branch main has new commits",
            &locked_before[..10],
            &c5[..10],
            home.display()
        )
    );
}
