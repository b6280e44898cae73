//! How a command ended, as the process's exit code.

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

impl ExitStatus {
    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::Failure => 1,
            ExitStatus::Error => 2,
            ExitStatus::Updated => 3,
            ExitStatus::Child(n) => n,
        }
    }
}

impl From<ExitStatus> for std::process::ExitCode {
    fn from(s: ExitStatus) -> Self {
        std::process::ExitCode::from(s.code())
    }
}
