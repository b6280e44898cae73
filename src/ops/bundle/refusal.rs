//! The refusals of `plugins bundle` (what it will not write, nor write to) and of `plugins
//! sync --from` (a bundle it will not install from), one variant each (cargo-deny's
//! `src/bans/diags.rs`): each names what happened, and its message, code and way out are
//! written once, here.

use std::path::PathBuf;

use crate::diagnostic::Code;
use crate::error::{Error, NamedRefusal};

/// Why a bundle is not written, or not installed from.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// `sync --from`: a home without the lock the bundle was made from.
    #[error(
        "{} has no plugins.lock: a bundle installs the lock committed beside it; nothing was changed",
        home.display()
    )]
    NoLock { home: PathBuf, lockfile: PathBuf },
    /// `sync --from`: the bundle was made from another lock than the home's.
    #[error(
        "the bundle was made from another lock than {} ({there} there, {bundled} bundled); nothing was changed",
        lockfile.display()
    )]
    OtherLock {
        lockfile: PathBuf,
        there: String,
        bundled: String,
    },
    /// `sync --from`: an archive `plugins bundle` did not write (or not as it wrote it).
    #[error("{shown} is not a bundle plugins can install: {why}; nothing was changed")]
    NotABundle { shown: String, why: String },
    /// `sync --from`: builds for another platform than this machine's.
    #[error(
        "{shown} carries plugins built for {named} ({}), but this machine is {here}; nothing was changed",
        built.join(", ")
    )]
    Platform {
        shown: String,
        named: String,
        built: Vec<String>,
        here: String,
    },
    /// `sync --from`: the bundle holds no tree of a locked plugin.
    #[error("the bundle holds no tree of {id}; nothing was changed")]
    NoTree { id: String },
    /// `sync --from`: the bundled build output does not hash to the lock's.
    #[error(
        "the bundled build output of {id} hashes to {} but the lock pins {}; nothing was changed",
        hash.as_deref().unwrap_or("nothing"),
        locked.as_deref().unwrap_or("none")
    )]
    BuildMismatch {
        id: String,
        hash: Option<String>,
        locked: Option<String>,
    },
    /// `bundle`: an installed tree that cannot be walked.
    #[error("{why}")]
    Unwalkable { why: crate::tree::WalkError },
    /// `bundle`: a file inside a `.git` directory of an installed tree.
    #[error(
        "{path} is inside a .git directory, which no hash covers and a bundle never carries; nothing was written"
    )]
    GitDir { path: String },
    /// `bundle`: a symbolic link in an installed tree.
    #[error("{path} is a symbolic link, which a bundle cannot carry; nothing was written")]
    Symlink { path: String },
    /// `bundle`: the archive cannot be written.
    #[error("cannot write {}: {why}; nothing was written", output.display())]
    Unwritable {
        output: PathBuf,
        why: std::io::Error,
    },
    /// `bundle -o` inside the home being bundled.
    #[error(
        "{}: it is inside the home {} being bundled; nothing was written",
        output.display(),
        home.display()
    )]
    OutputInHome { output: PathBuf, home: PathBuf },
    /// `bundle -o` of an existing file, without `--force`.
    #[error("{}: it exists; nothing was written", output.display())]
    OutputExists { output: PathBuf },
    /// `bundle -o` of something other than a regular file.
    #[error(
        "{}: it is a {kind} (not a regular file), which is never replaced; nothing was written",
        output.display()
    )]
    OutputKind { output: PathBuf, kind: &'static str },
    /// `bundle -o` of a path that cannot be looked at.
    #[error("{}: {why}; nothing was written", output.display())]
    OutputUnusable { output: PathBuf, why: String },
}

/// The way out of a bundle that lacks what the lock pins.
const BUNDLE_THIS_LOCK: &str = "bundle the lock this home has: `plugins bundle --home H -o FILE`";

impl NamedRefusal for Refusal {
    fn code(&self) -> Code {
        match self {
            Refusal::Platform { .. } => Code::SyncBundlePlatform,
            _ => Code::SyncBundle,
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            Refusal::NoLock { lockfile, .. } => format!(
                "put the committed plugins.lock at {} (the bundle was made from it), then run the same command",
                lockfile.display()
            ),
            Refusal::OtherLock { .. } => "make the bundle from the lock this home has (`plugins bundle --home H -o FILE`), or put the bundled plugins.lock in the home".into(),
            Refusal::NotABundle { .. } => "use an archive `plugins bundle` wrote, as it wrote it".into(),
            Refusal::Platform { here, .. } => format!(
                "make the bundle on a {here} machine (`plugins bundle` carries the builds of the platform it runs on)"
            ),
            Refusal::NoTree { .. } | Refusal::BuildMismatch { .. } => BUNDLE_THIS_LOCK.into(),
            Refusal::Unwalkable { .. } => "bundle a lock whose trees are plain files".into(),
            Refusal::GitDir { .. } => {
                "remove it from the installed plugin (`plugins sync --repair`)".into()
            }
            Refusal::Symlink { .. } => {
                "sync such a plugin online (`plugins sync --frozen` through a mirror)".into()
            }
            Refusal::Unwritable { .. } => {
                "choose a writable -o path that does not exist (or a regular file, with --force)"
                    .into()
            }
            Refusal::OutputInHome { .. } => {
                "write the bundle outside the home (`-o ../plugins-bundle.tar`)".into()
            }
            Refusal::OutputExists { .. } => {
                "pass --force to replace it, or choose another -o path".into()
            }
            Refusal::OutputKind { .. } | Refusal::OutputUnusable { .. } => {
                "choose another -o path".into()
            }
        })
    }
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Error {
        Error::Named(Box::new(r))
    }
}
