//! One module per subcommand: parse arguments, call the domain, print the result.

pub mod activity;
pub mod autoupdate;
pub mod completions;
pub mod doctor;
pub mod enable;
pub mod homes;
pub mod info;
pub mod install;
pub mod list;
pub mod lsp;
pub mod new;
pub mod outdated;
pub mod remove;
pub mod resolve;
pub mod rollback;
pub mod schema;
pub mod sync;
pub mod update;
pub mod validate;
pub mod verify;

use crate::cli::Command;
use crate::context::Context;
use crate::error::Result;
use crate::printer::Printer;

/// How a command ended, as an exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: everything checked out.
    Success,
    /// 1: the command ran and found a problem (an invalid plugin).
    Failure,
    /// 2: the command could not run.
    Error,
    /// 3, only with `--exit-code`: `autoupdate` applied at least one update (and none
    /// failed); `outdated` found a newer version (and no check failed).
    Updated,
    /// A child's exit code, passed through (`activity hold`).
    Child(u8),
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(match s {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
            ExitStatus::Updated => 3,
            ExitStatus::Child(n) => n,
        })
    }
}

pub fn dispatch(command: Command, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    match command {
        Command::Validate(args) => validate::run(args, cx, printer),
        Command::Schema(args) => schema::run(&args, printer),
        Command::Resolve(args) => resolve::run(&args, printer),
        Command::New(args) => new::run(&args, printer),
        Command::Install(args) => install::run(&args, cx, printer),
        Command::List(args) => list::run(&args, cx, printer),
        Command::Homes(args) => homes::run(&args, cx, printer),
        Command::Enable(args) => enable::run(&args, true, cx, printer),
        Command::Disable(args) => enable::run(&args, false, cx, printer),
        Command::Info(args) => info::run(&args, cx, printer),
        Command::Remove(args) => remove::run(&args, cx, printer),
        Command::Rollback(args) => rollback::run(&args, cx, printer),
        Command::Verify(args) => verify::run(&args, cx, printer),
        Command::Sync(args) => sync::run(&args, cx, printer),
        Command::Outdated(args) => outdated::run(&args, cx, printer),
        Command::Update(args) => update::run(&args, cx, printer),
        Command::Autoupdate(args) => autoupdate::run(&args, cx, printer),
        Command::Activity(args) => activity::run(&args, cx, printer),
        Command::Doctor(args) => doctor::run(&args, cx, printer),
        Command::Lsp(args) => lsp::run(&args, cx),
        Command::Completions(args) => completions::run(&args, printer),
    }
}
