//! `plugins schema`: print a dialect's manifest JSON Schema.

use clap::Args;

use super::ExitStatus;
use crate::dialect::Dialect;
use crate::error::{Error, Result};
use crate::printer::Printer;

/// Print the JSON Schema of a dialect's manifest, for editors and other tools.
///
/// aoe: the host's structural rules (point taplo or Even Better TOML at it).
/// aworld: the `plugin.schema.json` AWorld ships (the host itself never applies it).
/// protoagent: the fields protoAgent reads, for YAML language servers.
/// `plugins validate` adds every rule a schema cannot express.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins schema aoe > aoe.schema.json\n  plugins schema aoe --aoe-api 12"
)]
pub struct SchemaArgs {
    /// Which dialect's manifest
    #[arg(value_enum)]
    pub dialect: Dialect,
    /// aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)
    #[arg(long, value_name = "API", default_value = "15", value_parser = super::args::aoe_api_parser())]
    pub aoe_api: u32,
}

pub fn run(args: &SchemaArgs, printer: &Printer) -> Result<ExitStatus> {
    let host = crate::host::validate_options(crate::host::HostArgs {
        aoe_api: args.aoe_api,
        ..crate::host::HostArgs::default()
    })
    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let value = crate::host::schema(args.dialect, &host);
    let mut text = serde_json::to_string_pretty(&value).expect("schema serializes");
    text.push('\n');
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
