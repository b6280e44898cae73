//! `plugins info`: one installed plugin: what the lock pins and what it asks for.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::lock::no_source;
use crate::ops::{self, info::Info};
use crate::printer::{Line, Printer};

/// Show an installed plugin: source, ref, commit, hashes, and the host's verdict on it now.
///
/// Also what its host's own records say: whether the host runs it (its enable/disable
/// switch), the version a row the host's own installer wrote does not record (read from
/// the installed manifest), a protoAgent plugin's installed wheel deps (the lock row's
/// `deps`), and a hold (`plugins hold`, `plugins rollback`) with why and since when.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  plugins info dev.example.kanban\n  plugins info notes --home ~/.protoagent --json"
)]
pub struct InfoArgs {
    /// The plugin id
    #[arg(value_name = "PLUGIN-ID")]
    pub id: String,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &InfoArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let info = ops::info::info(&args.id, args.home.as_ref(), cx)?;
    let written = if args.json {
        printer.json(serde_json::to_value(&info).expect("serializes"))
    } else {
        printer.report(&[Line::Data(text(&info))])
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// `id version (dialect)`, then one `key: value` line per fact.
fn text(i: &Info) -> String {
    let version = if i.version.is_empty() {
        "-"
    } else {
        &i.version
    };
    let mut s = format!("{} {version} ({})\n", i.id, i.dialect);
    // `key:` padded to one column; an empty key continues the line above.
    let mut line = |key: &str, value: &str| {
        let key = if key.is_empty() {
            String::new()
        } else {
            format!("{key}:")
        };
        s.push_str(&format!("  {key:<10}{value}\n"));
    };
    locked(i, &mut line);
    state(i, &mut line);
    s
}

/// The lines of what the lock pins for `i` (its source, ref, commit, hashes, release and
/// signer) and where it is.
fn locked(i: &Info, line: &mut dyn FnMut(&str, &str)) {
    // A row that names no source (protoAgent's migrated wheel-deps pins).
    let none = "(none recorded)";
    line(
        "source",
        if no_source(&i.source) {
            none
        } else {
            &i.source
        },
    );
    if let Some(subdir) = &i.subdir {
        line("subdir", subdir);
    }
    if !i.requested_ref.is_empty() {
        let kind = i.ref_kind.map_or("?", |k| k.as_str());
        line("ref", &format!("{} ({kind})", i.requested_ref));
    }
    let copy = if no_source(&i.source) {
        none
    } else {
        "(local copy)"
    };
    line("commit", i.commit.as_deref().unwrap_or(copy));
    // A row the host's own installer wrote records no hashes.
    let hash = |h: &str| {
        if h.is_empty() {
            "(not recorded; `plugins verify --record` records it)".to_owned()
        } else {
            h.to_owned()
        }
    };
    line("manifest", &hash(&i.manifest_hash));
    line("tree", &hash(&i.tree_hash));
    if let Some(r) = &i.release {
        line("release", &format!("{} {} {}", r.tag, r.asset, r.sha256));
    }
    if let Some(k) = &i.signer_key {
        line("signer", k);
    }
    let missing = if i.present { "" } else { " (missing)" };
    line("path", &format!("{}{missing}", i.path));
}

/// The lines of the plugin's state: unbuilt, enabled, held, its deps, the host profile it
/// validates under, and whether it is valid.
fn state(i: &Info, line: &mut dyn FnMut(&str, &str)) {
    if i.unbuilt {
        line(
            "built",
            "no (installed with --no-build; `plugins sync` builds it)",
        );
    }
    match i.enabled {
        Some(true) => line("enabled", "yes"),
        Some(false) => line(
            "enabled",
            &format!("no (`plugins enable {}` turns it on)", i.id),
        ),
        None => {}
    }
    if let Some(h) = &i.hold {
        line(
            "held",
            &format!(
                "since {} ({}; `plugins unhold {}` lifts it)",
                h.since, h.reason, i.id
            ),
        );
    }
    if let Some(deps) = &i.deps {
        if deps.is_empty() {
            line(
                "deps",
                "none (installed with --deps; nothing needed installing)",
            );
        }
        for (n, d) in deps.iter().enumerate() {
            let sha = &d.sha256()[..12];
            let key = if n == 0 { "deps" } else { "" };
            line(
                key,
                &format!("{} {} (sha256 {sha}…)", d.name(), d.version()),
            );
        }
    }
    if let Some((what, file)) = &i.remembered {
        line(
            "host",
            &format!("{what} (remembered in {})", file.display()),
        );
    }
    if let Some((what, how)) = &i.detected {
        line("host", &format!("{what} (detected: {how})"));
    }
    if let Some(valid) = i.valid {
        let verdict = if valid {
            "yes"
        } else {
            "no (run `plugins validate` on it)"
        };
        line("valid", verdict);
    }
}
