//! `git verify-tag` and `git verify-commit`: git's own signature verification, run on a
//! repository `plugins` made (never the source's).

use super::*;

/// What git's verification said: whether it accepted the signature, and its raw output
/// (`--raw`: gpg's status lines, or ssh-keygen's words).
pub(in crate::git) struct Verified {
    pub(in crate::git) ok: bool,
    pub(in crate::git) output: String,
}

/// Run `git verify-<kind> --raw <id>` in the bare repository `dir`, with
/// `gpg.ssh.allowedSignersFile` set to `allowed_signers` when given (git expands a
/// leading `~/`); the user's git config (`gpg.program`, `gpg.ssh.program`, a revocation
/// file) applies, the caller's repository variables do not.
pub(in crate::git) fn verify(
    dir: &Path,
    kind: &str,
    id: Oid,
    allowed_signers: Option<&str>,
) -> Result<Verified, GitError> {
    let mut c = Command::new("git");
    for k in LOCAL_ENV {
        c.env_remove(k);
    }
    c.current_dir(dir)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("--git-dir")
        .arg(dir);
    if let Some(file) = allowed_signers {
        c.arg("-c")
            .arg(format!("gpg.ssh.allowedSignersFile={file}"));
    }
    c.arg(format!("verify-{kind}"))
        .arg("--raw")
        .arg(id.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid and prctl in the child before exec; async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                #[cfg(target_os = "linux")]
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
    }
    let ran = run(c, "git's signature check", "verifying", true).map_err(|e| match e {
        GitError::Cli(CliError::NoGit { reason, .. }) => CliError::NoGitToVerify { reason }.into(),
        e => e,
    })?;
    let mut output = String::from_utf8_lossy(&ran.stdout).into_owned();
    output.push_str(&ran.stderr);
    Ok(Verified { ok: ran.ok, output })
}
