//! `plugins search`: find plugins to install, and how.

use std::path::PathBuf;

use clap::Args;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::printer::{Line, Printer};
use crate::search::Hit;

/// Find plugins in the featured index, the hosts' catalogs and the installed homes, with
/// the install command.
///
/// Searches aoe's featured index, shipped in the binary (or the file
/// PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH names); protoAgent's own catalog of
/// each protoAgent home (the instance's config/plugin-catalog.json, else the one bundled in
/// the host's package, as the host reads it); and the plugins locked in the homes (--home,
/// $PLUGINS_HOME, else every host's own home). Every word of QUERY must be in a plugin's id,
/// source or host name, or in a catalog entry's name, tagline and what it adds
/// (case-insensitive); without QUERY, everything is listed. Each hit shows the `plugins
/// install` command line and what it would do.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins search                              # everything featured or installed
  plugins search github
  plugins search kanban --json

Exit codes: 0 (also when nothing matches), 2 could not run.")]
pub struct SearchArgs {
    /// Words that must all appear in the id, source or host name
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,
    /// The plugin home [default: $PLUGINS_HOME, else every host's own home]
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// An index of plugins to search too (JSON, docs/schema/index.json): a file, or an
    /// https:// URL; repeatable, and added to each home's `[search] indexes` in plugins.toml
    #[arg(long, value_name = "FILE|URL")]
    pub index: Vec<String>,
    /// Print one JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &SearchArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let index = crate::install::featured::Index::load(cx.featured_index.as_deref())?;
    let homes = cx.locked_homes(args.home.as_ref())?;
    let home = args
        .home
        .as_ref()
        .map(|h| cx.absolute(h).display().to_string());
    let mut named = args.index.clone();
    for (h, _) in &homes {
        named.extend(crate::search::configured(h)?);
    }
    named.dedup();
    let indexes = named
        .iter()
        .map(|at| crate::search::load_index(at, &cx.cwd, &cx.gh_base()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let hits = crate::search::search(&args.query, &index, &indexes, &homes, home.as_deref());
    let written = if args.json {
        printer.json(serde_json::json!({ "query": args.query.join(" "), "plugins": hits }))
    } else {
        printer.report(&report(&hits, &args.query))
    };
    written.map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}

/// Per hit: the id, host, where it comes from and whether it is installed, then the
/// install command and what it does.
fn report(hits: &[Hit], query: &[String]) -> Vec<Line> {
    if hits.is_empty() {
        let what = if query.is_empty() {
            "nothing is featured or installed".to_owned()
        } else {
            format!("no plugin matches `{}`", query.join(" "))
        };
        return vec![Line::Outcome(format!(
            "{what} (searched the featured index, the hosts' catalogs and the installed homes)\n"
        ))];
    }
    let mut lines = Vec::new();
    for h in hits {
        let mut tags = Vec::new();
        if let Some(c) = &h.catalog {
            tags.push(match (c.listed_by, c.entry.official, c.entry.bundled) {
                ("index", ..) => format!("in the index {}", c.file.display()),
                (_, _, true) => "in protoAgent's catalog, bundled with the host".to_owned(),
                (_, true, false) => "in protoAgent's catalog (official)".to_owned(),
                (_, false, false) => "in protoAgent's catalog".to_owned(),
            });
        }
        if let Some(f) = &h.featured {
            tags.push(match f.versions.first() {
                Some(v) => format!("featured, pinned up to {v}"),
                None => "featured".to_owned(),
            });
        }
        for i in &h.installed {
            tags.push(format!("installed {} in {}", i.version, i.home.display()));
        }
        lines.push(Line::Data(format!(
            "{} ({}) from {}: {}\n    {}\n    {}\n",
            h.id,
            h.dialect,
            h.source,
            tags.join("; "),
            h.install,
            h.does
        )));
    }
    lines
}
