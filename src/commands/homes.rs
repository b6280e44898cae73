//! `plugins homes`: where each host looks for plugins, resolved as the host resolves it.

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::{Error, Result};
use crate::printer::Printer;

/// Show each host's own home: its plugins directory, lock and config file.
///
/// aoe: its app dir for this OS. protoAgent 0.218: `$PROTOAGENT_HOME`, else
/// `$PROTOAGENT_BOX_ROOT` (or `/sandbox`, or `~/.protoagent`) with
/// `$PROTOAGENT_INSTANCE` or `default`; plugins in the config's absolute `plugins.dir`,
/// else an absolute `$PROTOAGENT_PLUGINS_DIR`, else `<instance>/plugins`; the lock at
/// `$PROTOAGENT_PLUGINS_LOCK` or `<instance>/plugins.lock`. AWorld: `~/.aworld`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins homes\n  PROTOAGENT_INSTANCE=work plugins homes --json"
)]
pub struct HomesArgs {
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &HomesArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let defaults = cx.default_homes();
    let rows: Vec<_> = (defaults.0.iter())
        .map(|home| (home, crate::host::config_file(home, &cx.host)))
        .collect();
    let warnings = crate::dialect::ALL
        .into_iter()
        .flat_map(|d| crate::host::home_warnings(d, &cx.host));
    for w in warnings {
        let d = Diagnostic::new(w.code, w.message)
            .with_severity(Severity::Warning)
            .with_help(w.help);
        printer.file_diagnostics(&[d], &w.file, "");
    }
    let written = if args.json {
        let homes: Vec<HomeRow> = rows
            .iter()
            .map(|(h, config)| HomeRow {
                dialect: h.dialect,
                root: &h.root,
                plugins: h.plugins_dir(),
                lock: h.lockfile(),
                config: config.as_deref(),
            })
            .collect();
        printer.json(serde_json::json!({ "homes": homes }))
    } else {
        let mut out = String::new();
        for (h, config) in &rows {
            out.push_str(&format!(
                "{}\n  plugins: {}\n  lock:    {}\n",
                h.dialect,
                h.plugins_dir().display(),
                h.lockfile().display()
            ));
            if let Some(c) = config {
                out.push_str(&format!("  config:  {}\n", c.display()));
            }
        }
        printer.out(&out)
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// One home in `plugins homes --json` (docs/schema/output/homes.json).
#[derive(serde::Serialize)]
struct HomeRow<'a> {
    dialect: crate::dialect::Dialect,
    root: &'a std::path::Path,
    plugins: std::path::PathBuf,
    lock: std::path::PathBuf,
    config: Option<&'a std::path::Path>,
}
