//! The floor `plugins validate -r` is measured against (`bench/validate.py`), the one issue 43
//! names: find the manifests below each directory, then read each and parse it once into a
//! generic value with the crate `plugins` itself uses for its format (`toml`, `serde_json`,
//! `serde-saphyr`), and nothing else: no hashing, no schema, no spans, no host rules, no lints,
//! no report. (Until 2026-12-05 it also hashed each manifest and checked it against the
//! dialect's JSON Schema, a floor that flattered the ratios.)
//!
//!     cargo run --release --example validate_floor -- aoe DIR...
//!
//! Prints the number of manifests and of top-level keys parsed (so the work cannot be
//! optimized away); the caller times the process.

// The floor reads with plain `std::fs` (no path in its errors: it prints none).
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

/// What `validate -r` never descends into.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    ".aoe-build",
    "__pycache__",
];

#[derive(Clone, Copy)]
enum Dialect {
    Aoe,
    Aworld,
    Protoagent,
}

impl Dialect {
    fn manifest(self) -> &'static str {
        match self {
            Dialect::Aoe => "aoe-plugin.toml",
            Dialect::Aworld => ".aworld-plugin/plugin.json",
            Dialect::Protoagent => "protoagent.plugin.yaml",
        }
    }

    /// The top-level keys of one parse of `text`, as `examples/root_floor.rs` parses it.
    fn parse(self, text: &str) -> usize {
        let json_keys = |v: serde_json::Value| v.as_object().map_or(0, |o| o.len());
        match self {
            Dialect::Aoe => text.parse::<toml::Table>().map_or(0, |t| t.len()),
            Dialect::Aworld => serde_json::from_str(text).map_or(0, json_keys),
            Dialect::Protoagent => serde_saphyr::from_str(text).map_or(0, json_keys),
        }
    }
}

/// Plugin roots below `dir`: a directory whose listing has the manifest's
/// first component is a root (and is not descended into).
fn find(dir: &Path, first: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut subdirs = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == first {
            out.push(dir.to_path_buf());
            return;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) && !SKIP_DIRS.iter().any(|s| name == *s) {
            subdirs.push(entry.path());
        }
    }
    subdirs.sort();
    for d in subdirs {
        find(&d, first, out);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dialect = match args.next().as_deref() {
        Some("aoe") => Dialect::Aoe,
        Some("aworld") => Dialect::Aworld,
        Some("protoagent") => Dialect::Protoagent,
        _ => {
            eprintln!("usage: validate_floor aoe|aworld|protoagent DIR...");
            std::process::exit(2);
        }
    };
    let manifest = dialect.manifest();
    let first = manifest.split('/').next().unwrap_or(manifest);
    let mut roots = Vec::new();
    for dir in args {
        find(Path::new(&dir), first, &mut roots);
    }
    let (mut manifests, mut keys) = (0usize, 0usize);
    for root in roots {
        let Ok(text) = std::fs::read_to_string(root.join(manifest)) else {
            continue;
        };
        manifests += 1;
        keys += dialect.parse(&text);
    }
    println!("{manifests} manifests, {keys} top-level keys");
}
