//! One module per subcommand: parse arguments, call the domain, print the result.

pub mod activity;
pub mod args;
pub mod autoupdate;
pub mod bundle;
pub mod completions;
pub mod doctor;
pub mod enable;
pub mod hold;
pub mod homes;
pub mod info;
pub mod install;
pub mod list;
pub mod lsp;
pub mod man;
pub mod new;
pub mod outdated;
pub mod remove;
pub mod resolve;
pub mod rollback;
pub mod schema;
pub mod search;
pub mod sync;
pub mod unhold;
pub mod update;
pub mod validate;
pub mod verify;

pub use crate::exit::ExitStatus;
