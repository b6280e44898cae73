//! `plugins resolve`: which AWorld plugins would activate, and why the rest would not.

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::ExitStatus;
use crate::error::{Error, Result};
use crate::printer::Printer;
use crate::render::display_path;
use crate::resolve::{Candidate, Decision, resolve};

/// Show AWorld activation resolution: active and skipped plugins, in discovery order.
///
/// Each PATH is a plugin root or a directory of plugin roots (like
/// `~/.aworld/plugins`). Roots are discovered in PATH order, each directory's
/// children sorted by name: AWorld itself uses unsorted directory order, so
/// `plugins` fixes one to be reproducible. Dependencies must come earlier in that
/// order. Invalid roots are skipped with the validator's message.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins resolve --path ~/.aworld/plugins
  plugins resolve --path builtin_plugins --path ~/.aworld/plugins --json

Exit codes: 0 every plugin activates, 1 some plugin is skipped, 2 the command could not run.")]
pub struct ResolveArgs {
    /// A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]
    #[arg(short, long = "path", value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Print one JSON document instead of a table
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    format_version: u32,
    order: &'static str,
    active: Vec<&'a Decision>,
    skipped: Vec<&'a Decision>,
}

/// Plugin roots in discovery order: a root itself, or its sorted children.
fn roots(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = Vec::new();
    for path in paths {
        if !path.is_dir() {
            return Err(Error::PathNotFound(path.clone()));
        }
        if crate::host::is_resolve_root(path) {
            out.push(path.clone());
            continue;
        }
        let mut children: Vec<PathBuf> = fs_err::read_dir(path)
            .map_err(|e| Error::io("cannot list directory", e))?
            .filter_map(std::result::Result::ok)
            .filter(|e| e.path().is_dir() && !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        children.sort();
        out.extend(children);
    }
    // The host deduplicates by resolved path.
    let mut seen = Vec::new();
    out.retain(|p| {
        let key = fs_err::canonicalize(p).unwrap_or_else(|_| p.clone());
        let fresh = !seen.contains(&key);
        seen.push(key);
        fresh
    });
    Ok(out)
}

fn candidate(root: PathBuf) -> std::result::Result<Candidate, Decision> {
    let manifest = root.join(crate::host::RESOLVES.spec().manifest);
    let (outcome, summary) = if manifest.exists() {
        // The same guards as `validate`: size, file type, UTF-8.
        match crate::validate::read_manifest(&manifest, crate::host::RESOLVES) {
            Ok(text) => crate::host::activation(&root, Some(&text)),
            Err((e, _)) => {
                let name = root
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                return Err(Decision {
                    id: name,
                    path: root,
                    framework: "manifest",
                    skipped: Some(format!("unreadable manifest: {}", e.message)),
                });
            }
        }
    } else {
        crate::host::activation(&root, None)
    };
    match summary {
        Some(s) => Ok(Candidate {
            id: s.id,
            path: root,
            framework: s.framework,
            dependencies: s.dependencies,
            conflicts: s.conflicts,
        }),
        None => Err(Decision {
            id: outcome.id.unwrap_or_else(|| {
                root.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            }),
            path: root,
            framework: "manifest",
            skipped: Some(format!(
                "invalid plugin root: {}",
                outcome.host_message.unwrap_or_default()
            )),
        }),
    }
}

pub fn run(args: &ResolveArgs, printer: &Printer) -> Result<ExitStatus> {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let found: Vec<_> = roots(&paths)?.into_iter().map(candidate).collect();
    let candidates: Vec<Candidate> = found
        .iter()
        .filter_map(|c| c.as_ref().ok().cloned())
        .collect();
    // Invalid roots keep their place in discovery order.
    let mut resolved = resolve(&candidates).into_iter();
    let decisions: Vec<Decision> = found
        .into_iter()
        .map(|c| match c {
            Ok(_) => resolved.next().expect("one decision per candidate"),
            Err(d) => d,
        })
        .collect();
    let active: Vec<&Decision> = decisions.iter().filter(|d| d.skipped.is_none()).collect();
    let skipped: Vec<&Decision> = decisions.iter().filter(|d| d.skipped.is_some()).collect();
    let text = if args.json {
        let report = Report {
            format_version: 1,
            order: "path order, children sorted by name",
            active: active.clone(),
            skipped: skipped.clone(),
        };
        let mut s = serde_json::to_string_pretty(&report).expect("report serializes");
        s.push('\n');
        s
    } else {
        let mut s = format!("active ({}):\n", active.len());
        for d in &active {
            s.push_str(&format!(
                "  {:<28} {:<8} {}\n",
                d.id,
                d.framework,
                display_path(&d.path)
            ));
        }
        s.push_str(&format!("skipped ({}):\n", skipped.len()));
        for d in &skipped {
            s.push_str(&format!(
                "  {:<28} {}\n",
                d.id,
                d.skipped.as_deref().unwrap_or_default()
            ));
        }
        s
    };
    printer
        .out(&text)
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(if skipped.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}
