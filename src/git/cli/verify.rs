//! `git verify-tag` and `git verify-commit`: git's own signature verification, run on a
//! repository `plugins` made (never the source's).

use super::*;

/// What git's verification said: whether it accepted the signature, and its raw output
/// (`--raw`: gpg's status lines, or ssh-keygen's words).
pub(in crate::git) struct Verified {
    pub(in crate::git) ok: bool,
    pub(in crate::git) output: String,
}

/// What git runs for ssh signatures (`gpg.ssh.program`): ssh-keygen, with its
/// `-Overify-time` (which git takes from the tag's or commit's own date, which its signer
/// writes) replaced by `$PLUGINS_VERIFY_TIME`, in UTC. So a key the allowed signers file
/// retired (`valid-before`) cannot sign a tag that claims an older date.
const SSH_PROGRAM: &str = "#!/bin/sh\n\
for a do\n\
  shift\n\
  case \"$a\" in -Overify-time=*) ;; *) set -- \"$@\" \"$a\" ;; esac\n\
done\n\
TZ=UTC0 exec ssh-keygen \"$@\" \"-Overify-time=$PLUGINS_VERIFY_TIME\"\n";

/// `secs` as ssh-keygen's `YYYYMMDDHHMMSS` (UTC).
fn ssh_time(secs: u64) -> String {
    crate::clock::rfc3339(secs)
        .chars()
        .take(19)
        .filter(char::is_ascii_digit)
        .collect()
}

/// Run `git verify-<kind> --raw <id>` in the bare repository `dir`, with
/// `gpg.ssh.allowedSignersFile` set to `allowed_signers` when given (git expands a
/// leading `~/`), as of `at` (unix seconds: when `plugins` first saw the object), never the
/// object's own date: ssh signatures through [`SSH_PROGRAM`], written into `dir`. The
/// user's git config (`gpg.program`, a revocation file) applies, but `gpg.ssh.program`
/// (ssh-keygen from `PATH` instead); the caller's repository variables do not.
pub(in crate::git) fn verify(
    dir: &Path,
    kind: &str,
    id: Oid,
    allowed_signers: Option<&str>,
    at: u64,
) -> Result<Verified, GitError> {
    let program = dir.join("plugins-ssh-verify");
    {
        use fs_err::os::unix::fs::OpenOptionsExt;
        use std::io::Write;
        let mut f = fs_err::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o700)
            .open(&program)
            .map_err(|e| {
                git2::Error::from_str(&format!("cannot write {}: {e}", program.display()))
            })?;
        f.write_all(SSH_PROGRAM.as_bytes()).map_err(|e| {
            git2::Error::from_str(&format!("cannot write {}: {e}", program.display()))
        })?;
    }
    let mut c = Command::new("git");
    for k in LOCAL_ENV {
        c.env_remove(k);
    }
    c.current_dir(dir)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("PLUGINS_VERIFY_TIME", ssh_time(at))
        .arg("--git-dir")
        .arg(dir)
        .arg("-c")
        .arg(format!("gpg.ssh.program={}", program.display()));
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
