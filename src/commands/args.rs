//! Argument groups several commands share (flattened into their `Args`), and value
//! parsers. Not a command: commands may use it; it uses no command.

use clap::Args;

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
    /// How many remotes to query at once (at most 4 per git:// or ssh server)
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
    /// `--timeout`: how long one remote may take.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout)
    }

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
            self.timeout(),
            self.pre,
            &cx.gh_base(),
        ))
    }

    /// Note the newer versions in each home's first-seen record and hold back those younger
    /// than its cooldown (`--cooldown`, else `cooldown` in its `plugins.toml`), counted from
    /// when the home first saw them or from their GitHub release; `note`: write the record
    /// (not on a dry run). Returns the policy files read, whose warnings the command shows.
    pub fn hold_back(
        &self,
        checks: &mut [(
            crate::store::Home,
            crate::manifest::Dialect,
            crate::update::Check,
        )],
        cx: &crate::context::Context,
        note: bool,
    ) -> crate::error::Result<Vec<crate::autoupdate::PolicyFile>> {
        let (cooldowns, files) = crate::update::cooldowns(checks, self.cooldown)
            .map_err(crate::error::Error::InvalidArgument)?;
        crate::update::hold_back(
            checks,
            &|h| cooldowns.get(&h.root).copied().unwrap_or(0),
            self.jobs,
            self.timeout(),
            &cx.github_api,
            note,
        );
        Ok(files)
    }
}
