//! Command-line definition (clap derive). Help text here is the user manual's first page.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::commands::{
    activity::ActivityArgs, autoupdate::AutoupdateArgs, completions::CompleteArgs,
    completions::CompletionsArgs, doctor::DoctorArgs, enable::SwitchArgs, homes::HomesArgs,
    info::InfoArgs, install::InstallArgs, list::ListArgs, new::NewArgs, outdated::OutdatedArgs,
    remove::RemoveArgs, resolve::ResolveArgs, rollback::RollbackArgs, schema::SchemaArgs,
    sync::SyncArgs, update::UpdateArgs, validate::ValidateArgs, verify::VerifyArgs,
};

const EXAMPLES: &str = "\
Examples:
  plugins new my-plugin --dialect aoe       scaffold a plugin (templates: plugins new --list)
  plugins validate                          validate the plugin in the current directory
  plugins validate --path . --format github annotate a pull request from CI
  plugins validate -r --path plugins/       every plugin root below plugins/
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

/// Options every command accepts.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// When to use color: auto honours NO_COLOR and whether output is a terminal
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Print only problems: no status lines, no progress, no summary of what went well
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Show the git and HTTP steps on stderr: each URL with its proxy and credential
    /// source, ref listings, fetches, downloads, redirects (secrets redacted)
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Status lines and errors on stderr as text, or one JSON object per line with an
    /// RFC 3339 timestamp (for logs)
    #[arg(long, value_enum, global = true, default_value_t = LogFormat::Text, value_name = "FORMAT")]
    pub log_format: LogFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scaffold a plugin for any dialect from the built-in templates
    New(NewArgs),
    /// Check plugin manifests exactly as the host does, plus lints
    Validate(ValidateArgs),
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
    /// Put back a version an update replaced (the last two are kept)
    Rollback(RollbackArgs),
    /// Check installed plugins against the hashes in the lock
    Verify(VerifyArgs),
    /// Install what the lock says, at the locked commits
    Sync(SyncArgs),
    /// Show what is pinned and what is newer (reads remote refs only)
    Outdated(OutdatedArgs),
    /// Update plugins to their newer commits
    Update(UpdateArgs),
    /// One auto-update sweep under each home's policy (for cron)
    Autoupdate(AutoupdateArgs),
    /// Mark a home busy so auto-update waits (touch, or hold while a command runs)
    Activity(ActivityArgs),
    /// Check homes, locks, leftovers, hosts, sources, proxies and credentials
    Doctor(DoctorArgs),
    /// Show which AWorld plugins activate, in discovery order, and why others do not
    Resolve(ResolveArgs),
    /// Print the JSON Schema of a dialect's manifest
    Schema(SchemaArgs),
    /// Print shell completions
    Completions(CompletionsArgs),
}

/// `plugins __complete`: what the completion scripts ask for. It is parsed apart from [`Cli`]
/// so that the generated scripts do not offer it.
#[derive(Debug, Parser)]
#[command(name = "plugins __complete")]
pub struct CompleteCli {
    #[command(flatten)]
    pub args: CompleteArgs,
}

/// `--aoe-api`: the aoe host profiles `plugins` knows.
pub fn aoe_api_parser() -> impl clap::builder::TypedValueParser<Value = u32> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(["12", "15"]).map(|s| s.parse::<u32>().unwrap_or(15))
}

/// `--aoe-api` and `--host-version` on the commands that install: which host to validate as.
/// Given, they win over the home's remembered profile (`[host]` in `plugins.toml`) and are
/// remembered; not given, the home's profile applies, else the newest.
#[derive(Debug, Clone, Default, Args)]
pub struct ProfileArgs {
    /// aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the
    /// home's remembered profile, else 15]
    #[arg(long, value_name = "API", value_parser = aoe_api_parser())]
    pub aoe_api: Option<u32>,
    /// The host's version (aoe: X.Y.Z for aoe_version; protoAgent: for
    /// min_protoagent_version and its 0.145/0.218 rules) [default: the home's remembered one]
    #[arg(long, value_name = "VERSION")]
    pub host_version: Option<String>,
}

impl ProfileArgs {
    pub fn profile(&self) -> crate::profile::HostProfile {
        crate::profile::HostProfile {
            aoe_api: self.aoe_api,
            version: self.host_version.clone(),
        }
    }
}

/// `--allow CODE`: any string (an unknown code is refused later, with a did-you-mean), but
/// the completion scripts offer every warning code (only warnings can be dropped).
#[derive(Clone, Copy, Debug)]
pub struct AllowCodeParser;

impl clap::builder::TypedValueParser for AllowCodeParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        use crate::diagnostic::{Code, Severity};
        Some(Box::new(
            Code::ALL
                .iter()
                .filter(|c| c.default_severity() == Severity::Warning)
                // The shells' quoting of descriptions is fragile (`${target}` breaks fish).
                .map(|c| {
                    let help = c.description().replace(['`', '$', '"', '\'', '\\'], "");
                    clap::builder::PossibleValue::new(c.as_str()).help(help)
                }),
        ))
    }
}

/// Options shared by `outdated`, `update` and `autoupdate`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// How many remotes to query at once (at most 4 per git:// or ssh server, 8 per other
    /// self-hosted server)
    #[arg(short, long, value_name = "N", default_value_t = 64)]
    pub jobs: usize,
    /// Seconds to wait for each remote
    #[arg(long, value_name = "SECS", default_value_t = 20)]
    pub timeout: u64,
    /// Consider pre-release tags (v2.0.0-rc1) newer releases
    #[arg(long)]
    pub pre: bool,
    /// Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none)
    /// [default: `cooldown` in <home>/plugins.toml, else none]
    #[arg(long, value_name = "DURATION", value_parser = crate::review::parse_duration)]
    pub cooldown: Option<u64>,
}

impl CheckArgs {
    /// Check every locked plugin of the homes `--home` (or the hosts' own) names.
    pub fn check_homes(
        &self,
        home: Option<&std::path::PathBuf>,
        cx: &crate::context::Context,
    ) -> Result<
        Vec<(
            crate::store::Home,
            crate::manifest::Dialect,
            crate::update::Check,
        )>,
        crate::lock::LockError,
    > {
        Ok(crate::update::check_homes(
            cx.locked_homes(home)?,
            self.jobs,
            std::time::Duration::from_secs(self.timeout),
            self.pre,
            &cx.gh_base(),
        ))
    }
}
