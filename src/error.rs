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
    #[error("plugin id {id:?} cannot name a plugin directory: {why}")]
    UnsafeName {
        id: String,
        why: crate::name::NameError,
    },
    /// A refusal with its own code and a suggestion.
    #[error("{message}")]
    Refused {
        code: Code,
        message: String,
        help: Option<String>,
    },
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
            Error::InvalidArgument(_) => Code::UsageInvalidArgument,
            Error::UnsafeName { .. } => Code::InstallUnsafeName,
            Error::Refused { code, .. } => *code,
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
            Error::Refused { help, .. } => help.clone(),
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

impl From<crate::lock::LockError> for Error {
    fn from(e: crate::lock::LockError) -> Self {
        Error::Refused {
            code: e.code(),
            message: e.to_string(),
            help: e.help(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
