//! The house rules of docs/contributing.md that a reader of `src/` can check: no command
//! imports another, and the top-level modules form no import cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without comment lines and without its `#[cfg(test)] mod tests`.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A module's node: `commands::<name>` for each command, else the top-level module.
fn node(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p != "mod")
        .collect();
    match parts.as_slice() {
        [c, name, ..] if c == "commands" => format!("commands::{name}"),
        [first, ..] => first.clone(),
        [] => unreachable!(),
    }
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let commands: BTreeSet<String> = files
        .iter()
        .map(|f| node(f.strip_prefix(&src).unwrap()))
        .filter(|n| n.starts_with("commands::"))
        .collect();
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let from = node(f.strip_prefix(&src).unwrap());
        let text = code(&std::fs::read_to_string(f).unwrap());
        let edges = g.entry(from.clone()).or_default();
        for (prefix, nest) in [("crate::", false), ("super::", true)] {
            for hit in text.split(prefix).skip(1) {
                let name: String = hit
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                let to = if nest && from.starts_with("commands::") {
                    format!("commands::{name}")
                } else if !nest && name == "commands" {
                    let sub: String = hit["commands::".len().min(hit.len())..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                        .collect();
                    format!("commands::{sub}")
                } else if nest {
                    continue;
                } else {
                    name
                };
                let to = if to.starts_with("commands::") && !commands.contains(&to) {
                    "commands".to_owned()
                } else {
                    to
                };
                if !to.is_empty() && to != from {
                    edges.insert(to);
                }
            }
        }
    }
    g
}

#[test]
fn no_command_imports_another() {
    let g = graph();
    let shared = ["commands::args", "commands"];
    let mut found = Vec::new();
    for (from, to) in &g {
        if from.starts_with("commands::") && !shared.contains(&from.as_str()) {
            for t in to {
                if t.starts_with("commands::") && !shared.contains(&t.as_str()) {
                    found.push(format!("{from} -> {t}"));
                }
            }
        }
    }
    assert!(found.is_empty(), "commands importing commands: {found:?}");
}

#[test]
fn modules_form_no_import_cycle() {
    let g = graph();
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_owned(), 1);
        path.push(n.to_owned());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()) {
                Some(1) => {
                    let at = path.iter().position(|p| p == m).unwrap();
                    let mut cycle = path[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, g, state, path) {
                        return Some(c);
                    }
                }
            }
        }
        path.pop();
        state.insert(n.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if !state.contains_key(n.as_str())
            && let Some(cycle) = visit(n, &g, &mut state, &mut Vec::new())
        {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}
