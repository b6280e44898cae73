#![recursion_limit = "256"]
//! `plugins`: one toolchain for agent-host plugins.
//!
//! The binary is a thin shell over this library: `cli` parses, `commands`
//! orchestrate, domain modules (`manifest`, `validate`) compute, `render`
//! formats and `printer` writes.

pub mod auth;
pub mod autoupdate;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod context;
pub mod diagnostic;
pub mod dialect;
pub mod doctor;
pub mod error;
pub mod exit;
pub mod file;
pub mod git;
pub mod hash;
pub mod hold;
pub mod host;
pub mod install;
pub mod lock;
pub mod lsp;
pub mod manifest;
pub mod name;
pub mod net;
pub mod oci;
pub mod ops;
pub mod owner;
pub mod printer;
pub mod profile;
pub mod project;
pub mod refusal;
pub mod release;
pub mod render;
pub mod reporter;
pub mod resolve;
pub mod review;
pub mod rollback;
pub mod scratch;
pub mod search;
pub mod signing;
pub mod source;
pub mod steps;
pub mod store;
pub mod tree;
pub mod update;
pub mod upstream;
pub mod validate;
pub mod verify;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

/// Run the CLI with `args` (including the program name) and return the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    ExitCode::from(exit_code(args))
}

/// [`run`], its exit code as a number (`src/main.rs` passes it to `std::process::exit`).
pub fn exit_code(args: impl IntoIterator<Item = OsString>) -> u8 {
    // Its environment holds secrets (tokens, passwords) from the start.
    steps::keep_to_itself();
    let args: Vec<OsString> = args.into_iter().collect();
    if let [_, flag] = args.as_slice()
        && (flag == "--version" || flag == "-V")
    {
        // What clap prints, without building every subcommand's arguments first.
        use std::io::Write;
        let _ = writeln!(
            std::io::stdout().lock(),
            "plugins {}",
            env!("CARGO_PKG_VERSION")
        );
        return 0;
    }
    if args.get(1).is_some_and(|a| a == "__complete") {
        // Asked by a completion script: never an error, never a message.
        let Ok(complete) = cli::CompleteCli::try_parse_from(&args[1..]) else {
            return 0;
        };
        let cx = context::Context::from_env();
        let global = printer::GlobalArgs {
            color: printer::ColorChoice::Never,
            quiet: true,
            verbose: false,
            log_format: printer::LogFormat::Text,
            timestamps: false,
        };
        let printer = printer::Printer::new(&global, &cx);
        let _ = commands::completions::run_complete(&complete.args, &cx, &printer);
        return 0;
    }
    let cli = match parse(args) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let cx = context::Context::from_env();
    // Before any thread starts: libgit2's timeouts are process-wide. Setting
    // them initializes libgit2, which loads the system's CA certificates: the
    // commands that never touch the network do without.
    let offline = matches!(
        cli.command,
        cli::Command::Validate(_) | cli::Command::Schema(_) | cli::Command::Completions(_)
    );
    if !offline {
        net::configure(cx.net_timeout, cx.net.clone());
        git::set_timeout(cx.net_timeout);
        match &cx.max_file_mib {
            Ok(mib) => git::bound_memory(*mib),
            Err(not) => {
                let printer = printer::Printer::new(&cli.global, &cx);
                printer.fail(&error::Error::InvalidArgument(not.to_string()));
                return 2;
            }
        }
    }
    steps::configure(cx.environment());
    let printer = printer::Printer::new(&cli.global, &cx);
    printer.start_log();
    // What a killed command left in the temp directory (every command recovers first).
    let swept = scratch::sweep();
    if swept > 0 {
        log::debug!("scratch: removed {swept} directories killed commands left");
    }
    let ended = cli::dispatch(cli.command, &cx, &printer);
    // A check abandoned at its `--timeout` may still have git (and its ssh or remote
    // helper) running: nothing outlives the command.
    git::kill_stragglers();
    match ended {
        Ok(status) => status.code(),
        Err(e) => {
            printer.fail(&e);
            e.exit_status().code()
        }
    }
}

/// The command line, or the exit code of clap's help, version or usage error (printed).
fn parse(args: Vec<OsString>) -> Result<cli::Cli, u8> {
    if let Some(cli) = cli::parse_validate(&args) {
        return Ok(cli);
    }
    let color = context::clap_color(&args);
    let mut command = cli::Cli::command().color(color);
    let parsed = command
        .try_get_matches_from_mut(args)
        .and_then(cli::from_matches);
    // Nothing reads the definition of every subcommand after this, and freeing it took a
    // tenth of a one-root `validate` (docs/PERFORMANCE.md, issue 43): the process exit does.
    std::mem::forget(command);
    parsed.map_err(|e| {
        // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
        let _ = e.print();
        if e.use_stderr() { 2 } else { 0 }
    })
}
