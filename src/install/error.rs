//! Why an install stopped: each failure carries its stable code and help.

use super::{Refusal, txn};
use crate::diagnostic::Code;
use crate::refusal::NamedRefusal;
use crate::steps;
use crate::validate::PluginReport;

/// Why an install stopped.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A refusal of install's own, named in [`Refusal`] (not `#[from]`: that would make it
    /// a cause, shown twice).
    #[error("{0}")]
    Refusal(Refusal),
    /// A refusal of a family that stops as an install does (the wheel deps', `rollback`'s,
    /// `update`'s), named beside it ([`NamedRefusal`]).
    #[error("{0}")]
    Named(Box<dyn NamedRefusal>),
    #[error("{}", refusing(.0))]
    Invalid(Box<PluginReport>),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Build(#[from] steps::StepError),
    #[error(transparent)]
    Release(#[from] crate::release::ReleaseError),
    #[error(transparent)]
    Lock(#[from] crate::lock::LockError),
    #[error(transparent)]
    Txn(#[from] txn::TxnError),
    // Not `#[from]`: that would make the walk error a cause, shown twice.
    #[error("refusing to install: {0}")]
    Tree(crate::tree::WalkError),
    /// Not a `source`: the message already ends with its reason, which a cause would show
    /// again beneath it.
    #[error("{context}: {}", crate::file::reason(cause))]
    Io {
        context: String,
        cause: std::io::Error,
    },
}

impl From<crate::tree::WalkError> for InstallError {
    fn from(e: crate::tree::WalkError) -> Self {
        InstallError::Tree(e)
    }
}

impl InstallError {
    /// The stable code a user sees.
    pub fn code(&self) -> Code {
        use crate::git::GitError;
        use crate::release::ReleaseError;
        match self {
            InstallError::Refusal(r) => r.code(),
            InstallError::Named(r) => r.code(),
            InstallError::Invalid(_) => Code::InstallInvalid,
            InstallError::Git(GitError::RefNotFound { .. }) => Code::GitRefNotFound,
            InstallError::Git(GitError::Auth { .. }) => Code::GitAuth,
            InstallError::Git(GitError::Cli(e)) => e.code(),
            InstallError::Git(GitError::Impostor { .. }) => Code::GitImpostorCommit,
            InstallError::Git(GitError::BadObject { .. }) => Code::GitBadObject,
            InstallError::Git(GitError::FileTooLarge { .. } | GitError::ObjectTooLarge { .. }) => {
                Code::InstallFileTooLarge
            }
            InstallError::Git(GitError::Unsigned { .. }) => Code::GitUnsigned,
            InstallError::Git(GitError::BadSignature { .. } | GitError::RenamedTag { .. }) => {
                Code::GitBadSignature
            }
            InstallError::Git(GitError::UnsafeEntry(_)) | InstallError::Tree(_) => {
                Code::InstallUnsafeTree
            }
            InstallError::Git(_) => Code::GitFetch,
            InstallError::Build(_) => Code::InstallBuild,
            InstallError::Release(ReleaseError::BadName { .. }) => Code::InstallUnsafeName,
            InstallError::Release(_) => Code::InstallRelease,
            InstallError::Lock(l) | InstallError::Txn(txn::TxnError::Lock(l)) => l.code(),
            InstallError::Txn(txn::TxnError::Io { .. }) | InstallError::Io { .. } => Code::Io,
        }
    }

    /// The way out, where there is one.
    pub fn help(&self) -> Option<String> {
        match self {
            InstallError::Refusal(r) => r.help(),
            InstallError::Named(r) => r.help(),
            InstallError::Invalid(_) => Some(
                "the diagnostics above say why; `plugins validate` on a checkout shows the same"
                    .into(),
            ),
            InstallError::Git(crate::git::GitError::RefNotFound { available, .. })
                if !available.is_empty() =>
            {
                let shown: Vec<&str> = available.iter().take(12).map(String::as_str).collect();
                Some(format!("available: {}", shown.join(", ")))
            }
            InstallError::Git(crate::git::GitError::Auth { .. }) => Some(format!(
                "plugins looks for credentials in {}; it never prompts",
                crate::git::CREDENTIAL_SOURCES
            )),
            InstallError::Git(crate::git::GitError::Cli(e)) => e.help(),
            InstallError::Git(e @ crate::git::GitError::Aborted { .. }) => e.help(),
            InstallError::Git(crate::git::GitError::Impostor { .. }) => Some(
                "a commit that no branch or tag holds can come from anyone's fork (GitHub serves every fork's commits through the parent's URL); install a branch or tag instead, or ask the publisher to push the commit to one; if a force-push dropped it from its branch, `plugins update` moves to the branch's new commit".into(),
            ),
            InstallError::Git(crate::git::GitError::BadObject { .. }) => Some(
                "the publisher's repository holds a commit git cannot read; ask them to fix it (`git fsck` names it), or install a ref below it".into(),
            ),
            InstallError::Git(
                crate::git::GitError::FileTooLarge { .. }
                | crate::git::GitError::ObjectTooLarge { .. },
            ) => Some(
                "ask the publisher to ship large files as a release asset or with Git LFS (GitHub refuses files over 100 MiB); to install it anyway, raise the cap with PLUGINS_MAX_FILE_MIB=<MiB>, at the cost of about that much memory; nothing was installed or changed".into(),
            ),
            InstallError::Git(crate::git::GitError::Unsigned { .. }) => Some(
                "require_signed accepts only a tag or commit signed with a key you allow; ask the publisher to sign their releases (`git tag -s`), or set `require_signed = false` in [trust.\"<id>\"] of the home's plugins.toml for this plugin".into(),
            ),
            InstallError::Git(crate::git::GitError::RenamedTag { named, .. }) => Some(format!(
                "{} (`--ref {named}`, if that is the release you want); nothing was installed",
                crate::git::RENAMED_TAG
            )),
            InstallError::Git(crate::git::GitError::BadSignature { format, .. }) => {
                Some(match format {
                    crate::git::SignFormat::Ssh => "check the key with the publisher, then add it to the allowed signers file (`allowed_signers` in [trust] of the home's plugins.toml, or --allowed-signers PATH; a line `<principal> <key type> <key>` as ssh-keygen reads it); nothing was installed",
                    _ => "check the key's fingerprint with the publisher, then import it into your gpg keyring (`gpg --import`); nothing was installed",
                }
                .into())
            }
            InstallError::Build(b) => b
                .log_tail()
                .filter(|t| !t.trim().is_empty())
                .map(|t| format!("last output:\n{t}")),
            InstallError::Lock(l) | InstallError::Txn(txn::TxnError::Lock(l)) => l.help(),
            InstallError::Tree(_) => {
                Some("remove or rename the entry in the plugin's source".into())
            }
            _ => None,
        }
    }
}

impl From<Refusal> for InstallError {
    fn from(r: Refusal) -> Self {
        InstallError::Refusal(r)
    }
}

impl From<super::DepsRefusal> for InstallError {
    fn from(r: super::DepsRefusal) -> Self {
        InstallError::Named(Box::new(r))
    }
}

/// Why a fetched plugin is not installed: the host rejects it, or (a report that validates,
/// with a warning its installer turns into a refusal) the host's installer refuses it.
fn refusing(report: &PluginReport) -> String {
    let id = report.outcome.id.as_deref().unwrap_or("the plugin");
    if report.is_valid() {
        format!(
            "refusing to install: {id} would be refused by its host's installer (the warning above)"
        )
    } else {
        format!("refusing to install: {id} is invalid for its host")
    }
}

pub(super) fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> InstallError {
    let context = context.into();
    move |cause| InstallError::Io { context, cause }
}
