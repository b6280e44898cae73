//! Operational failures: the command could not run (exit code 2).
//!
//! Problems *in* a plugin are [`crate::diagnostic::Diagnostic`]s, not errors.

use std::path::PathBuf;

use crate::diagnostic::Code;

/// Why a command could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("path `{}` does not exist", .0.display())]
    PathNotFound(PathBuf),
    #[error("no plugin root found under `{}`", .0.display())]
    NoPlugins(PathBuf),
    #[error("plugin `{id}` is not installed in `{}`", home.display())]
    NotInstalled { id: String, home: PathBuf },
    #[error("{0}")]
    InvalidArgument(String),
    /// A source (typed, or a lock row's) that names nothing `plugins` can fetch.
    #[error(transparent)]
    Source(#[from] crate::source::SourceError),
    #[error("plugin id {id:?} cannot name a plugin directory: {why}")]
    UnsafeName {
        id: String,
        why: crate::name::NameError,
    },
    /// A refusal a command makes itself, with its code and way out.
    #[error(transparent)]
    Refusal(#[from] Refusal),
    /// A refusal of one command family, named beside it ([`NamedRefusal`]), or a domain
    /// error with its own code and way out ([`crate::lock::LockError`],
    /// [`crate::search::IndexError`], [`crate::oci::OciError`]).
    #[error("{0}")]
    Named(Box<dyn NamedRefusal>),
    #[error("{context}: {}", crate::file::reason(source))]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// An install, update, sync or remove stopped (its code and help are its own).
    #[error(transparent)]
    Install(Box<crate::install::InstallError>),
}

impl From<crate::validate::DiscoverError> for Error {
    fn from(e: crate::validate::DiscoverError) -> Self {
        use crate::validate::DiscoverError as D;
        match e {
            D::PathNotFound(p) => Error::PathNotFound(p),
            D::NoPlugins(p) => Error::NoPlugins(p),
            D::List(e) => Error::io("cannot list directory", e),
        }
    }
}

/// A home's `plugins.toml` that a command cannot go on with (the usage code, as before the
/// error had a type).
impl From<crate::store::SettingsError> for Error {
    fn from(e: crate::store::SettingsError) -> Self {
        Error::InvalidArgument(e.to_string())
    }
}

impl From<crate::install::InstallError> for Error {
    fn from(e: crate::install::InstallError) -> Self {
        Error::Install(Box::new(e))
    }
}

impl Error {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// A plugin id from the command line, checked before it becomes a path.
    pub fn plugin_name(id: &str) -> Result<crate::name::Name> {
        crate::name::Name::new(id).map_err(|why| Error::UnsafeName {
            id: id.to_owned(),
            why,
        })
    }

    /// How the command ends: an invalid plugin is exit 1, anything else 2.
    pub fn exit_status(&self) -> crate::exit::ExitStatus {
        match self {
            Error::Install(e) if matches!(**e, crate::install::InstallError::Invalid(_)) => {
                crate::exit::ExitStatus::Failure
            }
            _ => crate::exit::ExitStatus::Error,
        }
    }

    pub fn code(&self) -> Code {
        match self {
            Error::PathNotFound(_) => Code::UsagePathNotFound,
            Error::NoPlugins(_) => Code::UsageNoPlugins,
            Error::NotInstalled { .. } => Code::UsageNotInstalled,
            Error::InvalidArgument(_) | Error::Source(_) => Code::UsageInvalidArgument,
            Error::UnsafeName { .. } => Code::InstallUnsafeName,
            Error::Refusal(r) => r.code(),
            Error::Named(r) => r.code(),
            Error::Io { .. } => Code::Io,
            Error::Install(e) => e.code(),
        }
    }

    pub fn help(&self) -> Option<String> {
        match self {
            Error::NoPlugins(_) => Some(
                "a plugin root holds aoe-plugin.toml, .aworld-plugin/plugin.json or protoagent.plugin.yaml".into(),
            ),
            Error::NotInstalled { .. } => Some(
                "pass `--home DIR` or set PLUGINS_HOME to the directory that holds `plugins/<id>/`".into(),
            ),
            Error::Refusal(r) => r.help(),
            Error::Named(r) => r.help(),
            Error::Install(e) => e.help(),
            Error::UnsafeName { .. } => {
                Some("`plugins list` shows the ids of installed plugins".into())
            }
            _ => None,
        }
    }
}

impl miette::Diagnostic for Error {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(Error::code(self).as_str()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Error::help(self).map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
}

impl From<crate::search::IndexError> for Error {
    fn from(e: crate::search::IndexError) -> Self {
        Error::Named(Box::new(e))
    }
}

impl From<crate::lock::LockError> for Error {
    fn from(e: crate::lock::LockError) -> Self {
        Error::Named(Box::new(e))
    }
}

/// Declared apart ([`crate::refusal`]) so that `install`, which this module names, can
/// carry one too; its `From` makes it an [`Error`] ([`Error::Named`]). The refusals several
/// commands share are [`Refusal`].
pub use crate::refusal::NamedRefusal;

/// The refusals commands make themselves: each names what happened, and its code and help
/// are fixed here (cargo-deny's diagnostic structs), not written at the call site.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// `remove`, `hold`, `unhold`, `enable`/`disable`, `info` of an id no home has.
    #[error("plugin '{id}' is not installed")]
    NotInstalled { id: String },
    /// `enable`/`disable`: the host's record of installed plugins lacks the id.
    #[error("{} has no record of '{id}'", path.display())]
    NoRecord { path: PathBuf, id: String },
    /// `plugins new`: a prompt met the end of input.
    #[error("cancelled: no answer (end of input); nothing was written")]
    NoAnswer { flag: String },
    /// `plugins new`: a file it would write is there already.
    #[error(
        "`{}` already exists; `plugins new` never overwrites files",
        crate::render::display_path(path)
    )]
    Exists { path: PathBuf },
    /// `plugins new`: the scaffold's own refusal (or install's, where install would refuse
    /// the same id).
    #[error("{}", .0.message)]
    Scaffold(crate::host::scaffold::Refusal),
    /// `--allow` (validate, lsp): not a code; `given` is what was typed.
    #[error("{message}")]
    UnknownCode { given: String, message: String },
    /// `validate --stdin-filename`: the name is no manifest's.
    #[error("`--stdin-filename {}` does not end in a manifest name", path.display())]
    NotAManifestName { path: PathBuf },
    /// `install --strict` of a cleartext (`git://`, `http://`) source.
    #[error("{url} would be fetched unencrypted, which --strict refuses")]
    Cleartext { url: String },
    /// `install` of aoe-unverified code with no terminal to ask on (aoe's own words, §17).
    #[error("this is unverified, un-audited code; re-run with --yes to install it")]
    UnverifiedWithoutTerminal,
}

impl Refusal {
    pub fn code(&self) -> Code {
        match self {
            Refusal::NotInstalled { .. } | Refusal::NoRecord { .. } => Code::InstallNotInstalled,
            Refusal::NoAnswer { .. } => Code::NewCancelled,
            Refusal::Exists { .. } => Code::NewExists,
            Refusal::Scaffold(r) => r.code.unwrap_or(Code::NewRefused),
            Refusal::UnknownCode { .. } | Refusal::NotAManifestName { .. } => {
                Code::UsageInvalidArgument
            }
            Refusal::Cleartext { .. } => Code::GitCleartext,
            Refusal::UnverifiedWithoutTerminal => Code::InstallDeclined,
        }
    }

    pub fn help(&self) -> Option<String> {
        Some(match self {
            Refusal::NotInstalled { .. } => {
                "`plugins list` shows what is installed; pass --home for another home".into()
            }
            Refusal::NoRecord { .. } => "reinstall it with `plugins install --force`".into(),
            Refusal::NoAnswer { flag } => {
                format!("answer the prompts, or pass {flag} to skip them")
            }
            Refusal::Exists { .. } => "choose another --dir, or remove the existing files".into(),
            Refusal::Scaffold(r) => return r.help.clone(),
            Refusal::UnknownCode { given, .. } => {
                let quoted: Vec<String> = Code::suggestions(given)
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect();
                match quoted.as_slice() {
                    [] => "`--allow` takes a full code, like `plugins::aoe::version_not_semver`; docs/diagnostics.md lists them".to_owned(),
                    [one] => format!("did you mean {one}?"),
                    [rest @ .., last] => format!("did you mean {} or {last}?", rest.join(", ")),
                }
            }
            Refusal::NotAManifestName { .. } => {
                let names: Vec<String> = crate::dialect::ALL
                    .iter()
                    .map(|d| format!("`{}`", d.spec().manifest))
                    .collect();
                format!("name the file ({}) or pass `--dialect`", names.join(", "))
            }
            Refusal::Cleartext { .. } => {
                "use the https:// (or ssh://) URL of the repository".into()
            }
            Refusal::UnverifiedWithoutTerminal => "pass --yes to grant what is listed above".into(),
        })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
