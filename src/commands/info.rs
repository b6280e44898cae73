//! `plugins info`: one installed plugin: what the lock pins and what it asks for.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Refusal, Result};
use crate::printer::Printer;
use crate::profile::HostProfile;
use crate::validate::{ValidateOptions, validate_root};

/// Show an installed plugin: source, ref, commit, hashes, and the host's verdict on it now.
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
    Error::plugin_name(&args.id)?;
    for (home, dialect, lock) in cx.locked_homes(args.home.as_ref())? {
        let Some(e) = lock.get(&args.id) else {
            continue;
        };
        let dir = home.locked_dir(&e)?;
        // Valid to the host the home remembers (`[host]` in plugins.toml).
        let remembered = HostProfile::load(&home);
        // Else the installed host's, detected (`aoe --version`, the host's Python).
        let detected = crate::host::detect::wanted(dialect, &remembered)
            .then(|| {
                let python = crate::host::detect::host_python(None, Some(&home));
                crate::host::detect::detect(dialect, &python)
            })
            .flatten();
        let host = match &detected {
            Some(d) => remembered.or(d.profile.clone()),
            None => remembered.clone(),
        };
        let mut opts = ValidateOptions::default();
        host.apply(&mut opts);
        let report = dir.is_dir().then(|| validate_root(&dir, &opts));
        let valid = report.as_ref().map(crate::validate::PluginReport::is_valid);
        if args.json {
            // The envelope every document shares: `{"format_version": 1, ...}`.
            let doc = serde_json::json!({
                "id": e.id, "dialect": dialect, "version": e.version, "source": e.source,
                "requested_ref": e.requested_ref, "ref_kind": e.ref_kind, "commit": e.commit,
                "manifest_hash": e.manifest_hash, "tree_hash": e.tree_hash, "path": dir.display().to_string(),
                "present": dir.is_dir(), "valid": valid, "unbuilt": e.unbuilt, "subdir": e.subdir,
                "signer_key": e.signer_key,
                "host": (!host.is_empty()).then(|| serde_json::json!({"aoe_api": host.aoe_api, "version": host.version,
                    "detected": detected.as_ref().map(|d| d.how.clone())})),
                "release": e.release.as_ref().map(|r| serde_json::json!({"tag": r.tag, "asset": r.asset, "sha256": r.sha256})),
            });
            printer
                .json(doc)
                .map_err(|e| Error::io("cannot write output", e))?;
            return Ok(ExitStatus::Success);
        }
        let text = {
            let mut s = format!("{} {} ({dialect})\n", e.id, e.version);
            s.push_str(&format!("  source:   {}\n", e.source));
            if let Some(subdir) = &e.subdir {
                s.push_str(&format!("  subdir:   {subdir}\n"));
            }
            if !e.requested_ref.is_empty() {
                s.push_str(&format!(
                    "  ref:      {} ({})\n",
                    e.requested_ref,
                    e.ref_kind.map_or("?", |k| k.as_str())
                ));
            }
            s.push_str(&format!(
                "  commit:   {}\n",
                e.commit.as_deref().unwrap_or("(local copy)")
            ));
            s.push_str(&format!(
                "  manifest: {}\n  tree:     {}\n",
                e.manifest_hash, e.tree_hash
            ));
            if let Some(r) = &e.release {
                s.push_str(&format!("  release:  {} {} {}\n", r.tag, r.asset, r.sha256));
            }
            if let Some(k) = &e.signer_key {
                s.push_str(&format!("  signer:   {k}\n"));
            }
            s.push_str(&format!(
                "  path:     {}{}\n",
                dir.display(),
                if dir.is_dir() { "" } else { " (missing)" }
            ));
            if e.unbuilt {
                s.push_str(
                    "  built:    no (installed with --no-build; `plugins sync` builds it)\n",
                );
            }
            if !remembered.is_empty() {
                s.push_str(&format!(
                    "  host:     {} (remembered in {})\n",
                    crate::host::detect::describe(&remembered),
                    home.settings().display()
                ));
            }
            if let Some(d) = &detected {
                s.push_str(&format!(
                    "  host:     {} (detected: {})\n",
                    crate::host::detect::describe(&d.profile),
                    d.how
                ));
            }
            if let Some(valid) = valid {
                s.push_str(&format!(
                    "  valid:    {}\n",
                    if valid {
                        "yes"
                    } else {
                        "no (run `plugins validate` on it)"
                    }
                ));
            }
            s
        };
        printer
            .out(&text)
            .map_err(|e| Error::io("cannot write output", e))?;
        return Ok(ExitStatus::Success);
    }
    Err(Refusal::NotInstalled {
        id: args.id.clone(),
    }
    .into())
}
