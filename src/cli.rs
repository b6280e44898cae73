//! Command-line definition (clap derive). Help text here is the user manual's first page.

use clap::{CommandFactory, Parser, Subcommand};

use crate::commands::{
    activity::ActivityArgs, autoupdate::AutoupdateArgs, bundle::BundleArgs,
    completions::CompleteArgs, completions::CompletionsArgs, doctor::DoctorArgs,
    enable::SwitchArgs, hold::HoldArgs, homes::HomesArgs, info::InfoArgs, install::InstallArgs,
    list::ListArgs, lsp::LspArgs, man::ManArgs, new::NewArgs, outdated::OutdatedArgs,
    remove::RemoveArgs, resolve::ResolveArgs, rollback::RollbackArgs, schema::SchemaArgs,
    search::SearchArgs, sync::SyncArgs, unhold::UnholdArgs, update::UpdateArgs,
    validate::ValidateArgs, verify::VerifyArgs,
};

const EXAMPLES: &str = "\
Examples:
  plugins new my-plugin --dialect aoe       scaffold a plugin (templates: plugins new --list)
  plugins validate                          validate the plugin in the current directory
  plugins validate --path . --format github annotate a pull request from CI
  plugins validate -r --path plugins/       every plugin root below plugins/
  plugins search github                     find a plugin, and the line that installs it
  plugins install gh:owner/repo@v1.2.0      install, pinned to the tag's commit
  plugins resolve --path ~/.aworld/plugins  AWorld activation order and skips
  plugins schema aoe > aoe.schema.json      JSON Schema for editors
  plugins completions zsh > _plugins        shell completions

Exit codes: 0 all valid, 1 a plugin is invalid, 2 the command could not run.";

/// The toolchain for agent-host plugins: Agent of Empires (aoe), AWorld, protoAgent.
#[derive(Debug, Parser)]
#[command(name = "plugins", version, about, after_help = EXAMPLES, propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scaffold a plugin for any dialect from the built-in templates
    New(NewArgs),
    /// Check plugin manifests exactly as the host does, plus lints
    Validate(ValidateArgs),
    /// Find plugins in the featured index and the installed homes, with the install command
    Search(SearchArgs),
    /// Install a plugin from git or a local directory, pinned in the lock
    Install(InstallArgs),
    /// List installed plugins
    List(ListArgs),
    /// Show one installed plugin
    Info(InfoArgs),
    /// Show where each host keeps its plugins, lock and config
    Homes(HomesArgs),
    /// Turn an installed plugin on where its host reads it
    Enable(SwitchArgs),
    /// Turn an installed plugin off where its host reads it
    Disable(SwitchArgs),
    /// Remove an installed plugin and its lock entry
    Remove(RemoveArgs),
    /// Put back a version an update replaced (the last two are kept), and hold it
    Rollback(RollbackArgs),
    /// Write one archive of everything a home's lock pins, for `sync --frozen --from`
    Bundle(BundleArgs),
    /// Hold a plugin at its version: `update --all` and `autoupdate` skip it
    Hold(HoldArgs),
    /// Lift a plugin's hold: updates take it again
    Unhold(UnholdArgs),
    /// Check installed plugins against the hashes in the lock
    Verify(VerifyArgs),
    /// Install what the lock says, at the locked commits
    Sync(SyncArgs),
    /// Show what is pinned and what is newer (reads remote refs only)
    Outdated(OutdatedArgs),
    /// Update plugins to their newer commits
    Update(UpdateArgs),
    /// One auto-update sweep under each home's policy, <home>/plugins.toml (for cron)
    Autoupdate(AutoupdateArgs),
    /// Mark a home busy so auto-update waits (touch, or hold while a command runs)
    Activity(ActivityArgs),
    /// Check homes, locks, leftovers, hosts, sources, proxies and credentials
    Doctor(DoctorArgs),
    /// Show which AWorld plugins activate, in discovery order, and why others do not
    Resolve(ResolveArgs),
    /// Print the JSON Schema of a dialect's manifest
    Schema(SchemaArgs),
    /// Run a language server that publishes validate's diagnostics as you type
    Lsp(LspArgs),
    /// Print shell completions
    Completions(CompletionsArgs),
    /// Write the manual pages (plugins.1 and one per subcommand) into a directory
    Man(ManArgs),
}

/// `plugins validate …` parsed by a definition holding the root's options and `validate`'s
/// own, not every subcommand's: building all 26 took a third of a one-root `validate`
/// (docs/PERFORMANCE.md, issue 43). `None` unless `validate` is the first argument and the
/// line parses: help, version and usage errors are left to the whole definition, so what
/// clap prints never comes from this one (`tests`: its arguments are the whole one's).
pub fn parse_validate(args: &[std::ffi::OsString]) -> Option<Cli> {
    let line = args
        .get(1..)
        .filter(|line| line.first().is_some_and(|a| a == "validate"))?;
    let mut command = validate_only();
    let parsed = command
        .try_get_matches_from_mut(line)
        .ok()
        .and_then(|mut m| {
            use clap::FromArgMatches;
            let global = GlobalArgs::from_arg_matches_mut(&mut m).ok()?;
            let validate = ValidateArgs::from_arg_matches_mut(&mut m).ok()?;
            // What is left of the matches is freed by the process exit, as the definition is.
            std::mem::forget(m);
            Some(Cli {
                global,
                command: Command::Validate(validate),
            })
        });
    // As `lib::parse` does: the process exit frees the definition.
    std::mem::forget(command);
    parsed
}

/// The command line's value, taken out of its matches rather than from a copy of them
/// (`FromArgMatches::from_arg_matches` clones them first); what is left of the matches is
/// freed by the process exit, as the definition is (docs/PERFORMANCE.md, issue 43).
pub fn from_matches(mut matches: clap::ArgMatches) -> std::result::Result<Cli, clap::Error> {
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches_mut(&mut matches);
    std::mem::forget(matches);
    cli
}

/// `validate` as one command holding the root's options and its own (no subcommand, so
/// nothing to propagate the root's options into, and no help or version flag: those
/// lines are the whole definition's). It is given the line from `validate` on, the word
/// `validate` standing where a program's name stands.
fn validate_only() -> clap::Command {
    use clap::Args;
    let command = clap::Command::new("validate")
        .disable_help_flag(true)
        .disable_version_flag(true);
    ValidateArgs::augment_args(GlobalArgs::augment_args(command))
}

/// `plugins __complete`: what the completion scripts ask for. It is parsed apart from [`Cli`]
/// so that the generated scripts do not offer it.
#[derive(Debug, Parser)]
#[command(name = "plugins __complete")]
pub struct CompleteCli {
    #[command(flatten)]
    pub args: CompleteArgs,
}

use crate::context::Context;
use crate::error::Result;
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// Run the parsed command: the one place that knows every command.
pub fn dispatch(command: Command, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    use crate::commands::*;
    match command {
        Command::Validate(args) => validate::run(args, cx, printer),
        Command::Schema(args) => schema::run(&args, printer),
        Command::Resolve(args) => resolve::run(&args, printer),
        Command::New(args) => new::run(&args, printer),
        Command::Search(args) => search::run(&args, cx, printer),
        Command::Install(args) => install::run(&args, cx, printer),
        Command::List(args) => list::run(&args, cx, printer),
        Command::Homes(args) => homes::run(&args, cx, printer),
        Command::Enable(args) => enable::run(&args, true, cx, printer),
        Command::Disable(args) => enable::run(&args, false, cx, printer),
        Command::Info(args) => info::run(&args, cx, printer),
        Command::Remove(args) => remove::run(&args, cx, printer),
        Command::Rollback(args) => rollback::run(&args, cx, printer),
        Command::Hold(args) => hold::run(&args, cx, printer),
        Command::Bundle(args) => bundle::run(&args, cx, printer),
        Command::Unhold(args) => unhold::run(&args, cx, printer),
        Command::Verify(args) => verify::run(&args, cx, printer),
        Command::Sync(args) => sync::run(&args, cx, printer),
        Command::Outdated(args) => outdated::run(&args, cx, printer),
        Command::Update(args) => update::run(&args, cx, printer),
        Command::Autoupdate(args) => autoupdate::run(&args, cx, printer),
        Command::Activity(args) => activity::run(&args, cx, printer),
        Command::Doctor(args) => doctor::run(&args, cx, printer),
        Command::Lsp(args) => lsp::run(&args, cx),
        Command::Completions(args) => completions::run(&args, Cli::command(), printer),
        Command::Man(args) => man::run(&args, Cli::command(), printer),
    }
}

pub use crate::commands::args::{AllowCodeParser, CheckArgs, ProfileArgs, aoe_api_parser};
pub use crate::printer::{ColorChoice, GlobalArgs, LogFormat};

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::{Cli, parse_validate, validate_only};

    /// Each argument as clap shows it, but for its place in the help (which the two
    /// definitions number differently, and which parsing never reads).
    fn arguments(command: &clap::Command) -> Vec<String> {
        let shown = |a: &clap::Arg| format!("{:?}", a.clone().display_order(None));
        let mut all: Vec<String> = command
            .get_arguments()
            .filter(|a| !["help", "version"].contains(&a.get_id().as_str()))
            .map(shown)
            .collect();
        all.sort();
        all
    }

    /// What `validate` parses with is the whole definition's `validate`, argument for
    /// argument (names, actions, parsers, defaults, conflicts, help; the root's options
    /// included, as clap propagates them), but for help and version.
    #[test]
    fn validate_only_has_the_whole_definitions_arguments() {
        let (mut whole, mut only) = (Cli::command(), validate_only());
        whole.build();
        only.build();
        let validate = whole.find_subcommand("validate").unwrap();
        assert_eq!(arguments(&only), arguments(validate));
        assert_eq!(only.get_subcommands().count(), 0);
        // The root's own group names no argument.
        let groups = |c: &clap::Command| {
            c.get_groups()
                .filter(|g| g.get_args().next().is_some())
                .map(|g| format!("{g:?}"))
                .collect::<Vec<_>>()
        };
        let mut expected = groups(&whole);
        expected.extend(groups(validate));
        assert_eq!(groups(&only), expected);
    }

    /// A line either parses to what the whole definition parses it to, or is left to it.
    #[test]
    fn a_validate_line_parses_as_the_whole_definition_parses_it() {
        let lines: &[&[&str]] = &[
            &["validate"],
            &["validate", "dev.example.kanban", "-r", "--format", "json"],
            &[
                "validate",
                "--path",
                "a",
                "-p",
                "b",
                "--strict",
                "-A",
                "plugins::lint::unknown_key",
            ],
            &[
                "validate",
                "--aoe-api",
                "12",
                "--host-version",
                "1.14.0",
                "--color",
                "never",
            ],
            &[
                "validate",
                "-q",
                "--stdin",
                "--stdin-filename",
                "aoe-plugin.toml",
            ],
            &[
                "validate",
                "--deny-warnings",
                "-v",
                "--log-format",
                "json",
                "x",
            ],
            &["validate", "x", "--timestamps", "--json", "--", "--path"],
            &[
                "validate",
                "-rqp",
                "a",
                "--dialect=aworld",
                "--featured",
                "--bundled",
            ],
            &["validate", "-q", "help"],
        ];
        for line in lines {
            let args: Vec<_> = std::iter::once("plugins")
                .chain(line.iter().copied())
                .collect();
            let whole = Cli::try_parse_from(&args).map(|c| format!("{c:?}"));
            let only = parse_validate(&args.iter().map(Into::into).collect::<Vec<_>>());
            assert_eq!(
                only.map(|c| format!("{c:?}")),
                Some(whole.unwrap()),
                "{line:?}"
            );
        }
        let left: &[&[&str]] = &[
            &["validate", "--help"],
            &["validate", "-h"],
            &["validate", "--version"],
            &["validate", "--nope"],
            &["validate", "--stdin"],
            &["validate", "--format", "xml"],
            &["validate", "--json", "--format", "json"],
            &["--color", "never", "validate"],
            &["list"],
            &["help", "validate"],
        ];
        for line in left {
            let args = std::iter::once("plugins").chain(line.iter().copied());
            let args: Vec<std::ffi::OsString> = args.map(Into::into).collect();
            assert!(parse_validate(&args).is_none(), "{line:?}");
        }
    }
}
