//! Completion in the real shells, typed at a pseudo-terminal: bash with Debian's
//! bash-completion, zsh with compinit, fish. `tests/shells/drive.py` types the keys, presses
//! TAB, enters the line and reports what a `plugins` stand-in on PATH received; the stand-in
//! hands `plugins __complete` to the binary under test.

use std::path::{Path, PathBuf};

use snapbox::{assert_data_eq, str};

use crate::support::{BIN, home_with_two_plugins, skip};

/// Debian's bash-completion, which a user's interactive bash loads first.
const BASH_COMPLETION: &str = "/usr/share/bash-completion/bash_completion";

/// Whether `program` runs; when it does not, one `skipped` line (or, under CI, a failure).
fn have(program: &str, check: &[&str]) -> bool {
    let ok = std::process::Command::new(program)
        .args(check)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(
            &format!("{program} is not installed"),
            "the shell tests (.ci/run installs it)",
        );
    }
    ok
}

/// A directory holding the `plugins` stand-in and each shell's start-up files, with `home`
/// as `PLUGINS_HOME`.
struct Desk {
    dir: PathBuf,
    home: PathBuf,
}

impl Desk {
    fn new(tmp: &Path, home: &Path) -> Desk {
        let dir = tmp.join("desk");
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let stand_in = bin.join("plugins");
        std::fs::write(
            &stand_in,
            format!(
                "#!/bin/sh\nif [ \"$1\" = __complete ]; then exec '{}' \"$@\"; fi\nprintf 'ARGS:%s\\n' \"$*\"\n",
                BIN
            ),
        )
        .unwrap();
        let mut perms = std::fs::metadata(&stand_in).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&stand_in, perms).unwrap();
        let completions = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
        std::fs::write(
            dir.join("bashrc"),
            format!(
                "PS1='$ '\nsource {BASH_COMPLETION}\nsource '{}'\n",
                completions.join("plugins.bash").display()
            ),
        )
        .unwrap();
        let zdot = dir.join("zdot");
        std::fs::create_dir_all(&zdot).unwrap();
        std::fs::write(
            zdot.join(".zshrc"),
            format!(
                "PS1='$ '\nfpath=('{}' $fpath)\nautoload -U compinit; compinit -u -d '{}'\n",
                completions.display(),
                dir.join("zcompdump").display()
            ),
        )
        .unwrap();
        Desk {
            dir,
            home: home.to_owned(),
        }
    }

    /// Type `keys` (TAB included) into `shell` and return the line the stand-in received.
    fn type_in(&self, shell: &str, keys: &str) -> String {
        let completions = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
        let argv: Vec<String> = match shell {
            "bash" => vec![
                "bash".into(),
                "--noprofile".into(),
                "--rcfile".into(),
                self.dir.join("bashrc").display().to_string(),
                "-i".into(),
            ],
            "zsh" => vec!["zsh".into(), "-i".into()],
            "fish" => vec![
                "fish".into(),
                "--no-config".into(),
                "-i".into(),
                "-C".into(),
                format!("source '{}'", completions.join("plugins.fish").display()),
            ],
            _ => unreachable!(),
        };
        let output = std::process::Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shells/drive.py"))
            .arg(keys)
            .args(&argv)
            .env_clear()
            .env(
                "PATH",
                format!(
                    "{}:/usr/local/bin:/usr/bin:/bin",
                    self.dir.join("bin").display()
                ),
            )
            .env("HOME", &self.dir)
            .env("ZDOTDIR", self.dir.join("zdot"))
            .env("TERM", "xterm")
            .env("PLUGINS_HOME", &self.home)
            .output()
            .expect("python3 runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            stdout.starts_with("ARGS:"),
            "{shell} {keys:?}: the line was never entered; the terminal showed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }
}

fn shells_ready() -> bool {
    have("python3", &["--version"])
        && have("bash", &["--version"])
        && have("zsh", &["--version"])
        && have("fish", &["--version"])
        && (Path::new(BASH_COMPLETION).is_file() || {
            skip(
                "Debian's bash-completion is not installed",
                "the shell tests (.ci/run installs it)",
            );
            false
        })
}

#[test]
fn every_shell_completes_installed_ids_at_a_terminal() {
    if !shells_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = home_with_two_plugins(tmp.path());
    let desk = Desk::new(tmp.path(), &home);
    let got: Vec<String> = ["bash", "zsh", "fish"]
        .iter()
        .flat_map(|sh| {
            [
                format!(
                    "{sh}: {}",
                    desk.type_in(sh, "plugins remove dev.example.al\t")
                ),
                format!("{sh}: {}", desk.type_in(sh, "plugins info dev.example.b\t")),
                format!(
                    "{sh}: {}",
                    desk.type_in(sh, "plugins validate dev.example.al\t")
                ),
            ]
        })
        .collect();
    assert_data_eq!(
        got.concat(),
        str![[r#"
bash: ARGS:remove dev.example.alpha
bash: ARGS:info dev.example.beta
bash: ARGS:validate dev.example.alpha
zsh: ARGS:remove dev.example.alpha
zsh: ARGS:info dev.example.beta
zsh: ARGS:validate dev.example.alpha
fish: ARGS:remove dev.example.alpha
fish: ARGS:info dev.example.beta
fish: ARGS:validate dev.example.alpha

"#]]
    );
}

#[test]
fn every_shell_completes_diagnostic_codes_for_allow_at_a_terminal() {
    if !shells_ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let desk = Desk::new(tmp.path(), &home);
    // bash splits words at `:`; each shell must still complete the whole code.
    let got: Vec<String> = ["bash", "zsh", "fish"]
        .iter()
        .flat_map(|sh| {
            [
                format!(
                    "{sh}: {}",
                    desk.type_in(sh, "plugins validate -A plugins::aoe::version_n\t")
                ),
                format!(
                    "{sh}: {}",
                    desk.type_in(sh, "plugins validate --allow plugins::git::clear\t")
                ),
            ]
        })
        .collect();
    assert_data_eq!(
        got.concat(),
        str![[r#"
bash: ARGS:validate -A plugins::aoe::version_not_semver
bash: ARGS:validate --allow plugins::git::cleartext
zsh: ARGS:validate -A plugins::aoe::version_not_semver
zsh: ARGS:validate --allow plugins::git::cleartext
fish: ARGS:validate -A plugins::aoe::version_not_semver
fish: ARGS:validate --allow plugins::git::cleartext

"#]]
    );
}
