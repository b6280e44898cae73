//! The shape of a named refusal, apart from [`crate::error`] (which names `install`) so
//! that every family can declare one, `install` included.

use crate::diagnostic::Code;

/// A refusal of one command family, declared beside the family (cargo-deny's
/// `src/bans/diags.rs`): a named type whose message (its `Display`), code and way out are
/// written once there — `ops::bundle::Refusal`, `ops::sync::frozen::Refusal`,
/// `ops::sync::Tampered`, `ops::apply::Unasked`, `install::DepsRefusal`,
/// `rollback::Refusal`, `update::NoRelease`, and the domain errors `lock::LockError`,
/// `search::IndexError`, `oci::OciError` — carried by `error::Error::Named` (or
/// `install::InstallError::Named`).
pub trait NamedRefusal: std::error::Error + Send + Sync + 'static {
    /// The stable code a user sees.
    fn code(&self) -> Code;
    /// The way out, where there is one.
    fn help(&self) -> Option<String>;
}
