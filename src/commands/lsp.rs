//! `plugins lsp`: the language server for editors, over stdin and stdout.

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Refusal, Result};
use crate::host::ValidateOptions;
use crate::lsp::{self, Ended};

/// Run a language server on stdin/stdout that publishes `plugins validate`'s
/// diagnostics for open manifests as you type.
///
/// It speaks the Language Server Protocol (JSON-RPC 2.0 with Content-Length
/// framing) and checks `aoe-plugin.toml`, `.aworld-plugin/plugin.json` and
/// `protoagent.plugin.yaml` buffers exactly as `plugins validate --stdin
/// --stdin-filename PATH` does, with the plugin tree on disk around the file
/// for the checks that need it (entrypoints, named files). Other files are
/// left alone. Start it from the editor, not by hand: docs/cli.md#editors.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins lsp
  plugins lsp --aoe-api 12 --strict

Exit codes: 0 after shutdown and exit, 1 when the client left without shutdown, 2 on an I/O error.")]
pub struct LspArgs {
    /// aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)
    #[arg(long, value_name = "API", default_value = "15", value_parser = super::args::aoe_api_parser())]
    pub aoe_api: u32,
    /// Report warnings as errors, as `validate --strict` does
    #[arg(long)]
    pub strict: bool,
    /// Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)
    #[arg(short = 'A', long, value_name = "CODE", value_parser = super::args::AllowCodeParser, hide_possible_values = true)]
    pub allow: Vec<String>,
}

pub fn run(args: &LspArgs, cx: &Context) -> Result<ExitStatus> {
    let allow = args
        .allow
        .iter()
        .map(|c| {
            c.parse::<Code>().map_err(|message| {
                Refusal::UnknownCode {
                    given: c.clone(),
                    message,
                }
                .into()
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let host = crate::host::validate_options(crate::host::HostArgs {
        aoe_api: args.aoe_api,
        env: Some(cx.env_names.clone()),
        ..crate::host::HostArgs::default()
    })
    .map_err(|e| Error::InvalidArgument(e.to_string()))?;
    let opts = ValidateOptions {
        host,
        strict: args.strict,
        allow,
        ..ValidateOptions::default()
    };
    // The protocol owns stdout: nothing else may write there while it runs.
    let ended = lsp::serve(std::io::stdin(), std::io::stdout().lock(), &opts)
        .map_err(|e| Error::io("the language server's stdin or stdout failed", e))?;
    Ok(match ended {
        Ended::Clean => ExitStatus::Success,
        Ended::Abruptly => ExitStatus::Failure,
    })
}
