//! The one apply pipeline: the sources of a list of installs are fetched and checked ahead
//! in the bounded pool ([`prepared_in_order`]), then an [`Applier`] installs each, one at a
//! time and in order: consent under the caller's [`Consent`], home lock, swap, and why it
//! stopped ([`Stop`]). `install`, `update`, `sync` and `autoupdate` differ only in the
//! steps they pass and their consent; `rollback` restores a kept version through the same
//! [`Applier`] (no fetch, no consent).

use std::io::IsTerminal;

use crate::diagnostic::Code;
use crate::error::{Error, NamedRefusal, Refusal};
use crate::install::{Event, InstallError, InstallOptions, Installed, Prepared, Request};
use crate::install::{SharedFetches, Stage};
use crate::printer::Printer;
use crate::reporter::Pause;
use crate::source::Source;

/// `update` and `autoupdate` fetch at most this many newer versions at once, whatever
/// `--jobs` says (the checks before take the full `--jobs`); `sync`, whose `--jobs` is
/// about fetching, takes it as given.
pub const MAX_FETCHES: usize = 8;

/// What an apply does when an install asks for consent (uv's `Modifications`: one mode,
/// chosen by the caller, read in one place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consent {
    /// Show what the plugin asks for and ask on a terminal; without one (or from a command
    /// that never prompts) refuse, saying how to grant it.
    Ask,
    /// Never ask and never grant: the install stops, and the caller gets why it asked
    /// (`autoupdate` leaves it for approval).
    Refuse,
    /// Show what the plugin asks for and grant it (`--yes`).
    Grant,
}

impl Consent {
    /// `--yes` grants; without it, the command asks.
    pub fn asking(yes: bool) -> Consent {
        if yes { Consent::Grant } else { Consent::Ask }
    }
}

/// The command that applies: the words of its prompt and of its no-terminal refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Install,
    Update,
    Sync,
    Autoupdate,
    Rollback,
}

impl Caller {
    fn name(self) -> &'static str {
        match self {
            Caller::Install => "install",
            Caller::Update => "update",
            Caller::Sync => "sync",
            Caller::Autoupdate => "autoupdate",
            Caller::Rollback => "rollback",
        }
    }

    /// Why consent cannot be asked when it is not: `sync` never prompts; the others prompt
    /// only on a terminal.
    fn unasked_why(self, terminal: bool) -> Option<&'static str> {
        match self {
            Caller::Install | Caller::Update if terminal => None,
            Caller::Install | Caller::Update => Some("stdin is not a terminal"),
            Caller::Sync | Caller::Autoupdate | Caller::Rollback => Some("it never prompts"),
        }
    }

    /// The prompt, for a caller that prompts.
    fn prompt(self, r: &Request) -> String {
        let verb = match self {
            Caller::Update => "Update",
            _ => "Install",
        };
        format!("{verb} {} and grant this? [y/N]", r.id)
    }

    /// The command line to re-run with `--yes`, when it is not the user's own.
    fn again(self, r: &Request) -> Option<String> {
        match self {
            Caller::Install => None,
            Caller::Update => Some(format!("plugins update {}", r.id)),
            Caller::Sync | Caller::Autoupdate | Caller::Rollback => {
                Some(format!("plugins {}", self.name()))
            }
        }
    }

    /// The no-terminal refusal: why nobody could be asked, what it would have granted, and
    /// how to grant it. A changed signer is refused by the pipeline, by name.
    fn unasked(self, why: &'static str, r: &Request) -> Option<Error> {
        if r.signer_change.is_some() {
            return None;
        }
        if r.unverified {
            return Some(Refusal::UnverifiedWithoutTerminal.into());
        }
        Some(
            Unasked {
                command: self.name(),
                why,
                id: r.id.clone(),
                asks_for: crate::reporter::asks_for(r),
                again: self.again(r),
            }
            .into(),
        )
    }
}

/// A consent that could not be asked: which command, what it would have granted, and the
/// flag that grants it.
#[derive(Debug, thiserror::Error)]
#[error(
    "`plugins {command}` cannot ask for consent ({why}): {id} asks for {asks_for}; nothing was granted"
)]
pub struct Unasked {
    command: &'static str,
    /// Why nobody was asked (`stdin is not a terminal`).
    why: &'static str,
    id: String,
    asks_for: String,
    /// The command line to re-run with `--yes`, when it is not the user's own.
    again: Option<String>,
}

impl NamedRefusal for Unasked {
    fn code(&self) -> Code {
        Code::InstallDeclined
    }

    fn help(&self) -> Option<String> {
        Some(match &self.again {
            Some(again) => format!("re-run with --yes to grant it: {again} --yes"),
            None => format!(
                "re-run the same `plugins {}` with --yes to grant it",
                self.command
            ),
        })
    }
}

impl From<Unasked> for Error {
    fn from(r: Unasked) -> Error {
        Error::Named(Box::new(r))
    }
}

/// Why one install of an apply stopped.
#[derive(Debug)]
pub enum Stop {
    /// Consent could not be asked (no terminal, or a command that never prompts): the
    /// refusal that says how to grant it.
    Unasked(Error),
    /// [`Consent::Refuse`]: the install asks for consent; why it asks.
    NeedsConsent {
        reasons: Vec<String>,
        error: Box<InstallError>,
    },
    /// Another command changed the plugin meanwhile (`sync` skips it, `autoupdate` defers
    /// it to the next sweep).
    Raced(Box<InstallError>),
    /// Any other failure, a declined prompt included.
    Failed(Box<InstallError>),
}

impl From<Stop> for Error {
    fn from(stop: Stop) -> Error {
        match stop {
            Stop::Unasked(e) => e,
            Stop::NeedsConsent { error, .. } | Stop::Raced(error) | Stop::Failed(error) => {
                Error::Install(error)
            }
        }
    }
}

/// When a caller tells of a plugin whose install failed. (`sync` keeps no failed row: a
/// failed install stops it, and the command's error is told once, as it ends.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tell {
    /// On stderr as it happens, before the caller's row (`update`); an invalid plugin's
    /// report comes first.
    Now,
    /// Only in the report the caller ends with (`autoupdate`: the summary cron mails, where
    /// a line on stderr as it happens would say it twice).
    InReport,
}

/// A plugin whose install (or the review of its newer version) failed, as the caller's row
/// records it: the error's message and code.
#[derive(Debug)]
pub struct Failure {
    pub id: String,
    pub message: String,
    pub code: Code,
}

/// The failed row of every apply: why `id`'s install failed, told as `tell` says.
pub fn failed(printer: &Printer, id: &str, error: impl Into<Error>, tell: Tell) -> Failure {
    let error = error.into();
    if tell == Tell::Now {
        printer.fail(&error);
    }
    Failure {
        id: id.to_owned(),
        message: error.to_string(),
        code: error.code(),
    }
}

/// What an install starts from: nothing yet, what [`prepared_in_order`] fetched, or (`sync
/// --frozen`) a stage already consented to.
pub enum Ready {
    Unfetched,
    Prepared(Box<Prepared>),
    Staged(Stage),
}

/// Installs one at a time under one consent mode, with the progress they report through
/// (a spinner on a terminal, paused while consent is asked; cleared when dropped).
pub struct Applier<'p> {
    printer: &'p Printer,
    consent: Consent,
    caller: Caller,
    terminal: bool,
    on_event: Box<dyn FnMut(Event) + 'p>,
    pause: Pause,
}

impl<'p> Applier<'p> {
    pub fn new(printer: &'p Printer, consent: Consent, caller: Caller) -> Applier<'p> {
        let (on_event, pause) = crate::reporter::progress_pausable(printer);
        Applier {
            printer,
            consent,
            caller,
            terminal: std::io::stdin().is_terminal(),
            on_event: Box::new(on_event),
            pause,
        }
    }

    /// The progress the installs report through, for what the caller does around them
    /// (taking a home's lock, recovering first).
    pub fn on_event(&mut self) -> &mut dyn FnMut(Event) {
        &mut *self.on_event
    }

    /// Install `opts` from `ready`: consent, home lock, swap.
    pub fn install(&mut self, opts: &InstallOptions, ready: Ready) -> Result<Installed, Stop> {
        self.run(|consent, on_event| match ready {
            Ready::Unfetched => crate::install::install(opts, consent, on_event),
            Ready::Prepared(p) => crate::install::install_prepared(opts, *p, consent, on_event),
            Ready::Staged(stage) => crate::install::finish(opts, stage, on_event),
        })
    }

    /// Stage what was fetched, consent included, up to the home lock (`sync --frozen`
    /// stages every plugin before it swaps any in).
    pub fn stage(&mut self, opts: &InstallOptions, prepared: Prepared) -> Result<Stage, Stop> {
        self.run(|consent, on_event| {
            crate::install::stage_prepared(opts, prepared, consent, on_event)
        })
    }

    /// `rollback`: put the kept version of `id` at `to` (else the newest) back, under the
    /// home lock, as a swap. Nothing is fetched and no consent is asked: the kept version
    /// was granted when it was installed. `Ok(None)`: `id` is not installed in `home`.
    pub fn restore(
        &mut self,
        home: &crate::store::Home,
        id: &crate::name::Name,
        to: Option<&str>,
        wait: bool,
        now: &str,
    ) -> Result<Option<crate::rollback::RolledBack>, Stop> {
        crate::rollback::rollback(home, id, to, wait, now, &mut *self.on_event).map_err(stopped)
    }

    /// Run one install step with the consent this applier gives, and say why it stopped.
    fn run<T>(
        &mut self,
        step: impl FnOnce(
            &mut dyn FnMut(&Request) -> bool,
            &mut dyn FnMut(Event),
        ) -> Result<T, InstallError>,
    ) -> Result<T, Stop> {
        let (printer, caller, pause) = (self.printer, self.caller, &self.pause);
        let (consent, terminal) = (self.consent, self.terminal);
        let mut unasked = None;
        let mut asked = None;
        let mut answer = |r: &Request| match consent {
            Consent::Refuse => {
                asked = Some(r.reasons.clone());
                false
            }
            Consent::Grant => {
                pause.during(|| printer.status(&crate::reporter::consent_text(r)));
                true
            }
            Consent::Ask => pause.during(|| {
                printer.status(&crate::reporter::consent_text(r));
                match caller.unasked_why(terminal) {
                    Some(why) => {
                        unasked = caller.unasked(why, r);
                        false
                    }
                    None => printer
                        .prompt(&caller.prompt(r))
                        .is_ok_and(|a| matches!(a.to_lowercase().as_str(), "y" | "yes")),
                }
            }),
        };
        let done = step(&mut answer, &mut *self.on_event);
        done.map_err(|error| match (error, unasked, asked) {
            (error, _, Some(reasons)) => Stop::NeedsConsent {
                reasons,
                error: Box::new(error),
            },
            (InstallError::Refusal(crate::install::Refusal::Declined), Some(refusal), None) => {
                Stop::Unasked(refusal)
            }
            (error, _, None) => stopped(error),
        })
    }
}

/// Why an install (or a restore) stopped, when consent had no part in it.
fn stopped(error: InstallError) -> Stop {
    match error {
        InstallError::Refusal(crate::install::Refusal::Concurrent { .. }) => {
            Stop::Raced(Box::new(error))
        }
        error => Stop::Failed(Box::new(error)),
    }
}

/// One step of an apply, in lock order: `install` is fetched ahead; a step without one
/// (a row that is only reported) keeps its place in the order.
pub struct Step<T> {
    pub item: T,
    pub install: Option<InstallOptions>,
}

/// Fetch and check every step's source ahead — at most `jobs` at once, bounded per server
/// as the checks are — and yield the steps in their order with what was fetched
/// ([`Ready::Prepared`]), for an [`Applier`] to install one at a time.
///
/// Monorepo plugins fetched at the same commit share one fetch
/// ([`crate::install::SharedFetches`]): one per repository and commit for the command.
pub fn prepared_in_order<T: Send + 'static>(
    mut steps: Vec<Step<T>>,
    jobs: usize,
) -> impl Iterator<Item = (T, Option<(InstallOptions, Ready)>)> {
    let shared = SharedFetches::of(steps.iter().filter_map(|s| s.install.as_ref()));
    if !shared.is_empty() {
        let shared = std::sync::Arc::new(shared);
        for opts in steps.iter_mut().filter_map(|s| s.install.as_mut()) {
            opts.shared = Some(shared.clone());
        }
    }
    let url = |step: &Step<T>| match step.install.as_ref().map(|o| &o.source) {
        Some(Source::Git { url, .. }) => Some(url.clone()),
        _ => None,
    };
    crate::update::ordered_per_host(steps, url, jobs, |step| {
        let fetched = step.install.map(|opts| {
            let prepared = crate::install::prepare(&opts);
            (opts, Ready::Prepared(Box::new(prepared)))
        });
        (step.item, fetched)
    })
}

#[cfg(test)]
mod tests {
    use super::{Caller, Consent};
    use crate::diagnostic::Code;

    fn request() -> crate::install::Request {
        crate::install::Request {
            capabilities: vec!["net".into()],
            ..crate::install::Request::granting_nothing(
                "dev.example.kanban".into(),
                crate::host::NO_MANIFEST,
                "1.0.0".into(),
                "gh:example/kanban".into(),
                None,
            )
        }
    }

    #[test]
    fn yes_grants_and_its_absence_asks() {
        assert_eq!(Consent::asking(true), Consent::Grant);
        assert_eq!(Consent::asking(false), Consent::Ask);
    }

    #[test]
    fn only_install_and_update_prompt_and_only_on_a_terminal() {
        for caller in [Caller::Install, Caller::Update] {
            assert_eq!(caller.unasked_why(true), None);
            assert_eq!(caller.unasked_why(false), Some("stdin is not a terminal"));
        }
        for caller in [Caller::Sync, Caller::Autoupdate, Caller::Rollback] {
            assert_eq!(caller.unasked_why(true), Some("it never prompts"));
        }
    }

    #[test]
    fn the_no_terminal_refusal_names_the_command_that_grants() {
        let r = request();
        let unasked = |caller: Caller| caller.unasked("stdin is not a terminal", &r).unwrap();
        let update = unasked(Caller::Update);
        assert_eq!(update.code(), Code::InstallDeclined);
        assert_eq!(
            update.help().as_deref(),
            Some("re-run with --yes to grant it: plugins update dev.example.kanban --yes")
        );
        assert_eq!(
            unasked(Caller::Sync).help().as_deref(),
            Some("re-run with --yes to grant it: plugins sync --yes")
        );
        assert_eq!(
            unasked(Caller::Install).help().as_deref(),
            Some("re-run the same `plugins install` with --yes to grant it")
        );
        assert!(update.to_string().starts_with(
            "`plugins update` cannot ask for consent (stdin is not a terminal): dev.example.kanban asks for capabilities [net]"
        ));
    }

    #[test]
    fn a_changed_signer_is_left_to_the_pipeline_and_unverified_code_is_aoes_refusal() {
        let mut r = request();
        r.signer_change = Some(("old".into(), "new".into()));
        assert!(Caller::Install.unasked("why", &r).is_none());
        r.signer_change = None;
        r.unverified = true;
        let refused = Caller::Install.unasked("why", &r).unwrap();
        assert_eq!(
            refused.to_string(),
            "this is unverified, un-audited code; re-run with --yes to install it"
        );
    }
}
