//! The floor `plugins validate -r` is measured against (`bench/validate.py`):
//! find the manifests below each directory, then read, hash, parse and
//! schema-check each with the crates `plugins` itself uses (`toml`,
//! `serde_json`, `serde-saphyr`, `sha2`, `jsonschema`) and nothing else: no
//! spans, no host rules, no lints, no report.
//!
//!     cargo run --release --example validate_floor -- aoe DIR...
//!
//! Prints the number of manifests and schema errors found (so the work cannot
//! be optimized away); the caller times the process.

// The floor reads with plain `std::fs` (no path in its errors: it prints none).
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

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

    fn schema(self) -> serde_json::Value {
        match self {
            Dialect::Aoe => {
                plugins::host::testing::aoe::schema(plugins::host::testing::aoe::Profile::H15)
            }
            Dialect::Aworld => {
                serde_json::from_str(plugins::host::testing::aworld::SCHEMA).unwrap()
            }
            Dialect::Protoagent => {
                serde_json::from_str(plugins::host::testing::protoagent::SCHEMA).unwrap()
            }
        }
    }

    fn parse(self, text: &str) -> Option<serde_json::Value> {
        match self {
            Dialect::Aoe => toml::from_str(text).ok(),
            Dialect::Aworld => serde_json::from_str(text).ok(),
            Dialect::Protoagent => serde_saphyr::from_str(text).ok(),
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
    // Compiled as `plugins` compiles its schemas (draft 7), over `serde_json` values.
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .build(&dialect.schema())
        .expect("built-in schema compiles");
    let (mut manifests, mut errors, mut bytes_hashed) = (0usize, 0usize, 0usize);
    for root in roots {
        let Ok(bytes) = std::fs::read(root.join(manifest)) else {
            continue;
        };
        manifests += 1;
        let digest = Sha256::digest(&bytes);
        bytes_hashed += usize::from(digest[0]) + bytes.len();
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        if let Some(value) = dialect.parse(&text) {
            errors += validator.iter_errors(&value).count();
        }
    }
    println!("{manifests} manifests, {errors} schema errors ({bytes_hashed})");
}
