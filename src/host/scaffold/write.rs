//! Writing a planned plugin: never over an existing file, keeping a user's README,
//! `.gitignore` and LICENSE, then `git init`.

use std::path::{Path, PathBuf};

use super::Plan;

/// Why writing failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("`{}` already exists; `plugins new` never overwrites files", .0.display())]
    Exists(PathBuf),
    #[error("cannot write `{}`: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Files a fresh repository often has already (GitHub creates them): an
/// existing one is kept as it is, instead of blocking the whole plugin.
const KEPT_IF_PRESENT: &[&str] = &["README.md", ".gitignore", "LICENSE"];

/// What `write` did.
#[derive(Debug, Default)]
pub struct Written {
    /// Files written, relative to the root, in plan order.
    pub files: Vec<PathBuf>,
    /// Existing files kept instead of the template's ([`KEPT_IF_PRESENT`]).
    pub kept: Vec<Kept>,
}

/// An existing file the template would have written.
#[derive(Debug)]
pub struct Kept {
    pub path: PathBuf,
    /// For `.gitignore`: the template's patterns the existing file lacks.
    pub missing: Vec<String>,
}

/// The template's `.gitignore` patterns that `existing` does not list.
pub(super) fn missing_patterns(template: &str, existing: &str) -> Vec<String> {
    let have: Vec<&str> = existing.lines().map(str::trim).collect();
    template
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !have.contains(l))
        .map(str::to_owned)
        .collect()
}

/// Write the plan under `root`. Nothing is written if any file already exists,
/// except a top-level README.md, .gitignore or LICENSE, which is kept as it is;
/// on an I/O failure, what was written is removed again.
pub fn write(plan: &Plan, root: &Path) -> Result<Written, WriteError> {
    let mut kept = Vec::new();
    let mut todo = Vec::new();
    for (rel, contents) in &plan.files {
        let path = root.join(rel);
        if fs_err::symlink_metadata(&path).is_err() {
            todo.push((rel, contents));
        } else if KEPT_IF_PRESENT.iter().any(|k| Path::new(k) == rel) {
            let missing = if rel == Path::new(".gitignore") {
                crate::file::read_to_string(&path)
                    .map(|existing| missing_patterns(contents, &existing))
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            kept.push(Kept {
                path: rel.clone(),
                missing,
            });
        } else {
            return Err(WriteError::Exists(path));
        }
    }
    let root_existed = root.exists();
    let mut written = Vec::new();
    for (rel, contents) in todo {
        let path = root.join(rel);
        let result = path
            .parent()
            .map_or(Ok(()), fs_err::create_dir_all)
            .and_then(|()| {
                fs_err::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
            })
            .and_then(|mut f| std::io::Write::write_all(&mut f, contents.as_bytes()));
        if let Err(source) = result {
            for p in &written {
                let _ = fs_err::remove_file(root.join(p));
            }
            if !root_existed {
                let _ = fs_err::remove_dir_all(root);
            }
            return Err(WriteError::Io { path, source });
        }
        #[cfg(unix)]
        if contents.starts_with("#!") {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755));
        }
        written.push(rel.clone());
    }
    Ok(Written {
        files: written,
        kept,
    })
}

/// What [`git_init`] found or did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GitInit {
    /// A new repository was created in the plugin root.
    Initialized,
    /// The root is already inside a git work tree (the plugin joins that repository).
    InsideWorkTree,
    /// `git` is not on PATH.
    NotFound,
}

/// Why `git init` failed: git could not be run, or it refused (its message).
#[derive(Debug, thiserror::Error)]
pub enum GitInitError {
    #[error("{0}")]
    Run(#[from] std::io::Error),
    #[error("{0}")]
    Git(String),
}

/// Run `git init` in `root` unless it is already inside a git work tree; do
/// nothing without git on PATH. Git's output is captured, never shown; a
/// failure returns git's message.
pub fn git_init(root: &Path) -> Result<GitInit, GitInitError> {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .stdin(std::process::Stdio::null())
            .output()
    };
    let inside = match run(&["rev-parse", "--is-inside-work-tree"]) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(GitInit::NotFound),
        Err(e) => return Err(e.into()),
        Ok(out) => out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "true",
    };
    if inside {
        return Ok(GitInit::InsideWorkTree);
    }
    match run(&["init", "-q"]) {
        Ok(out) if out.status.success() => Ok(GitInit::Initialized),
        Ok(out) => Err(GitInitError::Git(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        )),
        Err(e) => Err(e.into()),
    }
}
