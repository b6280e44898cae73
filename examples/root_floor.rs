//! The floor one `plugins validate --path ROOT` is measured against (docs/PERFORMANCE.md,
//! "aoe: no schema on the valid path"): a process that starts, reads ROOT's manifest and parses
//! it once into a generic value with the crate `plugins` itself uses for that format (`toml`,
//! `serde_json`, `serde-saphyr`), and prints how many top-level keys it has. No spans, no
//! host rules, no schema, no hashing, no report.
//!
//!     cargo build --release --example root_floor
//!     target/release/examples/root_floor tests/fixtures/aoe/hello

// The floor reads with plain `std::fs` and prints its one number.
#![allow(clippy::print_stdout, clippy::disallowed_methods)]

use std::path::Path;

fn main() {
    let root = std::env::args().nth(1).expect("usage: root_floor ROOT");
    let root = Path::new(&root);
    let keys = if let Ok(text) = std::fs::read_to_string(root.join("aoe-plugin.toml")) {
        text.parse::<toml::Table>().map_or(0, |t| t.len())
    } else if let Ok(text) = std::fs::read_to_string(root.join(".aworld-plugin/plugin.json")) {
        serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.as_object().map(|o| o.len()))
            .unwrap_or(0)
    } else if let Ok(text) = std::fs::read_to_string(root.join("protoagent.plugin.yaml")) {
        serde_saphyr::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.as_object().map(|o| o.len()))
            .unwrap_or(0)
    } else {
        0
    };
    println!("{keys}");
}
