//! Seeded mutations of manifests, for the tests that compare two evaluators of one schema
//! (aoe's and AWorld's manifest tests): a generator the same everywhere, the shared
//! corpus's manifests, and one mutation step over a JSON value.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// splitmix64: seedable and the same everywhere.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Every container in `v`, as JSON pointers.
fn containers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            out.push(at.clone());
            for (k, c) in o {
                containers(c, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            out.push(at.clone());
            for (i, c) in a.iter().enumerate() {
                containers(c, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// One mutation: a member set (to a value of `pool`, under a key of `doc` or of `keys`),
/// replaced or removed, or an item added, somewhere in `doc`.
pub(crate) fn mutate(doc: &mut Value, rng: &mut Rng, pool: &[Value], keys: &[&str]) {
    let mut places = Vec::new();
    containers(doc, String::new(), &mut places);
    let at = places[rng.below(places.len())].clone();
    let value = pool[rng.below(pool.len())].clone();
    match doc.pointer_mut(&at) {
        Some(Value::Object(o)) => {
            let key = if !o.is_empty() && rng.below(2) == 0 {
                o.keys()
                    .nth(rng.below(o.len()))
                    .cloned()
                    .unwrap_or_default()
            } else {
                keys[rng.below(keys.len())].to_owned()
            };
            if rng.below(4) == 0 {
                o.remove(&key);
            } else {
                o.insert(key, value);
            }
        }
        Some(Value::Array(a)) => {
            if !a.is_empty() && rng.below(2) == 0 {
                let i = rng.below(a.len());
                a[i] = value;
            } else {
                a.push(value);
            }
        }
        _ => {}
    }
}

// The test's own switches (not the program's environment) and its one `skipped` line.
#[allow(clippy::disallowed_methods, clippy::print_stderr)]
pub(crate) fn corpus(dialect: &str, manifest: &str) -> Vec<String> {
    let dir = std::env::var_os("PLUGINS_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
        .join(dialect);
    let Ok(entries) = fs_err::read_dir(&dir) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "no corpus at {}",
            dir.display()
        );
        eprintln!(
            "skipped the {dialect} corpus part: no corpus at {}",
            dir.display()
        );
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| fs_err::read_to_string(e.path().join(manifest)).ok())
        .collect();
    out.sort();
    out
}
