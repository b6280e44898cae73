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

/// `--require-signed` and `--allowed-signers` on the commands that install (`install`,
/// `update`, `sync`): with `[trust]` of the home's `plugins.toml`, which plugins must be
/// signed and whose ssh keys are allowed.
#[derive(Debug, Clone, Default, Args)]
pub struct SigningArgs {
    /// Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock
    /// records the signer's key, and another key later asks consent again [default:
    /// `require_signed` in [trust] of <home>/plugins.toml]
    #[arg(long)]
    pub require_signed: bool,
    /// The allowed signers file ssh signatures are checked against (git's
    /// gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of
    /// <home>/plugins.toml, else git's own setting]
    #[arg(long, value_name = "PATH")]
    pub allowed_signers: Option<std::path::PathBuf>,
}

impl SigningArgs {
    /// The signing options, `--allowed-signers` made absolute; a file that does not exist
    /// is refused before anything is fetched.
    pub fn sign_args(
        &self,
        cx: &crate::context::Context,
    ) -> crate::error::Result<crate::signing::SignArgs> {
        let allowed_signers = self.allowed_signers.as_deref().map(|p| cx.absolute(p));
        if let Some(file) = &allowed_signers {
            // What it is, said as it is: a FIFO, a device or a directory is no signers file.
            let why = match fs_err::metadata(file) {
                Ok(m) if m.is_file() => None,
                Ok(m) => Some(format!(
                    "it is a {}, not a regular file",
                    crate::file::kind(&m)
                )),
                Err(e) => Some(crate::file::reason(&e).into_owned()),
            };
            if let Some(why) = why {
                return Err(crate::error::Error::InvalidArgument(format!(
                    "--allowed-signers {}: {why}",
                    file.display()
                )));
            }
        }
        Ok(crate::signing::SignArgs {
            require: self.require_signed,
            allowed_signers,
        })
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
    /// How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)
    #[arg(short, long, value_name = "N", default_value_t = 256)]
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
    #[command(flatten)]
    pub profile: ProfileArgs,
}

impl CheckArgs {
    /// `--timeout`: how long one remote may take.
    pub fn timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.timeout)
    }

    /// The options the checks take.
    pub fn options(&self) -> crate::ops::check::CheckOptions {
        crate::ops::check::CheckOptions {
            jobs: self.jobs,
            timeout: self.timeout(),
            pre: self.pre,
            cooldown: self.cooldown,
            profile: self.profile.profile(),
        }
    }
}
