//! Real git repositories for install tests: the git CLI with a fixed identity
//! and dates, no user or system config.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Run git in `dir` and return stdout; panics with stderr on failure.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    git_env(dir, args, &[])
}

/// [`git`] with more environment (`GNUPGHOME` for a gpg signature).
pub(crate) fn git_env(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> String {
    let out = Command::new("git")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A work repository on branch `main`.
pub(crate) struct Repo {
    pub(crate) dir: PathBuf,
}

impl Repo {
    pub(crate) fn init(dir: &Path) -> Repo {
        std::fs::create_dir_all(dir).unwrap();
        git(dir, &["init", "-q", "-b", "main"]);
        Repo {
            dir: dir.to_path_buf(),
        }
    }

    pub(crate) fn file(&self, rel: &str, contents: &str) -> &Repo {
        let path = self.dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
        self
    }

    pub(crate) fn executable(&self, rel: &str, contents: &str) -> &Repo {
        self.file(rel, contents);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.dir.join(rel), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        self
    }

    /// Commit everything; returns the 40-hex commit.
    pub(crate) fn commit(&self, message: &str) -> String {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-q", "-m", message]);
        git(&self.dir, &["rev-parse", "HEAD"])
    }

    pub(crate) fn tag(&self, name: &str) -> &Repo {
        git(&self.dir, &["tag", name]);
        self
    }

    pub(crate) fn annotated_tag(&self, name: &str) -> &Repo {
        git(&self.dir, &["tag", "-a", name, "-m", name]);
        self
    }

    /// A bare clone at `dest` (parents created), as a forge or mirror serves it.
    pub(crate) fn clone_bare(&self, dest: &Path) {
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        git(
            dest.parent().unwrap(),
            &[
                "clone",
                "-q",
                "--bare",
                self.dir.to_str().unwrap(),
                dest.to_str().unwrap(),
            ],
        );
    }

    pub(crate) fn url(&self) -> String {
        format!("file://{}", self.dir.display())
    }
}
