//! GitHub workflow steps, read out of a workflow file and run as a runner runs them.

use std::path::Path;
use std::process::Command;

/// The `run:` script of the step named `name` in a workflow (a `run: |` block dedented, or a
/// one-line `run: X`).
pub(crate) fn step_script(workflow: &str, name: &str) -> String {
    let mut lines = workflow
        .lines()
        .skip_while(|l| l.trim() != format!("- name: {name}"))
        .skip(1);
    let run = lines
        .by_ref()
        .find(|l| l.trim_start().starts_with("run: "))
        .unwrap_or_else(|| panic!("no `run:` for step {name}:\n{workflow}"));
    if run.trim_start() != "run: |" {
        let one = run.trim_start().trim_start_matches("run: ");
        return format!("{one}\n");
    }
    let indent = run.len() - run.trim_start().len();
    let mut script = String::new();
    for line in lines.take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
    {
        script.push_str(line.get(indent + 2..).unwrap_or(""));
        script.push('\n');
    }
    script
}

/// `script` as a runner's `shell: bash` runs it (`bash --noprofile --norc -eo pipefail`), in
/// `cwd`, with only `env` and a PATH of the system's directories.
pub(crate) fn bash_step(script: &str, cwd: &Path, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}
