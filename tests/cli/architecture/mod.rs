//! The house rules of docs/contributing.md that a reader of `src/` can check: no command
//! imports another, neither the top-level modules nor the files form an import cycle
//! (grouped imports included; `modules.rs`), and host knowledge stays in `src/host/` and
//! `src/dialect.rs`; and one of the tests themselves: the converted test files check output
//! with `.expect` snapshots (`snapshots.rs`).

mod modules;
mod seal;
mod size;
mod snapshots;

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

/// The code of a file without comment lines and without its inline `mod tests { … }`
/// (which ends a file's production code, [`size::production`]). A `mod tests;` declaration (the tests in a
/// file of their own) ends nothing: the production lines after it are read too.
fn code(text: &str) -> String {
    size::production(text)
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The folders whose submodules are nodes of their own: `commands::<name>` for each
/// command (no command imports another), `host::<name>` for each host folder.
const SPLIT: [&str; 2] = ["commands", "host"];

/// A module's node: `commands::<name>` / `host::<name>` for a file under those folders,
/// else the top-level module.
fn node(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p != "mod")
        .collect();
    match parts.as_slice() {
        [c, name, ..] if SPLIT.contains(&c.as_str()) => format!("{c}::{name}"),
        [first, ..] => first.clone(),
        [] => unreachable!(),
    }
}

/// An identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The paths a `use` or an expression names after `crate::` / `super::`: one for
/// `a::b::c`, one per item for a group `{a::b, c, d::{e, f}}` (each as `a::b`, its first
/// two segments).
fn paths_after(s: &str) -> Vec<String> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('{') {
        let mut depth = 0;
        let mut items = Vec::new();
        let mut start = 0;
        for (i, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    items.push(&rest[start..i]);
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&rest[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return items.into_iter().flat_map(paths_after).collect();
    }
    let first = ident(s);
    if first.is_empty() {
        return Vec::new();
    }
    let rest = &s[first.len()..];
    match rest.strip_prefix("::") {
        Some(next) if !next.trim_start().starts_with('{') => {
            vec![format!("{first}::{}", ident(next))]
        }
        Some(next) => paths_after(next)
            .into_iter()
            .map(|p| format!("{first}::{p}"))
            .collect(),
        None => vec![first.to_owned()],
    }
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let nodes: BTreeSet<String> = files
        .iter()
        .map(|f| node(f.strip_prefix(&src).unwrap()))
        .collect();
    // A path's node: `host::aoe` when that is a node, else its top-level module.
    let to_node = |path: &str| -> String {
        let mut parts = path.split("::");
        let first = parts.next().unwrap_or_default().to_owned();
        match parts.next() {
            Some(second) if SPLIT.contains(&first.as_str()) => {
                let sub = format!("{first}::{second}");
                if nodes.contains(&sub) { sub } else { first }
            }
            _ => first,
        }
    };
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let from = node(f.strip_prefix(&src).unwrap());
        let text = code(&std::fs::read_to_string(f).unwrap());
        let edges = g.entry(from.clone()).or_default();
        for (prefix, nest) in [("crate::", false), ("super::", true)] {
            for hit in text.split(prefix).skip(1) {
                for path in paths_after(hit) {
                    // `super::` inside a command names a sibling command (or the shared
                    // `commands` module); elsewhere it stays inside the node.
                    let to = if nest && from.starts_with("commands::") {
                        to_node(&format!("commands::{path}"))
                    } else if nest {
                        continue;
                    } else {
                        to_node(&path)
                    };
                    // A split folder's parent and its children share one folder: their
                    // mutual imports are not cycles between modules.
                    let family = |n: &str| n.split("::").next().unwrap_or_default().to_owned();
                    let same_folder = SPLIT.contains(&family(&to).as_str())
                        && family(&to) == family(&from)
                        && (to == family(&to) || from == family(&from));
                    if !to.is_empty() && to != from && !same_folder {
                        edges.insert(to);
                    }
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

/// Refusals are named types (`error::Refusal`, `install::Refusal`, each family's
/// `error::NamedRefusal`, the domain errors), whose message, code and help are written
/// once, never a hand-built `Error::Refused { code, message, help }` (nor
/// `InstallError::Refused`). Every production line of `src/` is read.
#[test]
fn no_module_builds_a_refusal_by_hand() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.iter().any(|f| f.ends_with("ops/sync/frozen.rs")));
    let found: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = code(&std::fs::read_to_string(f).unwrap());
            // Not `CliError::Refused`, a named git refusal.
            text.match_indices("Error::Refused {")
                .any(|(at, _)| !text[..at].ends_with("Cli"))
        })
        .map(|f| f.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(found.is_empty(), "hand-built Error::Refused in {found:?}");
}

/// The library's errors are types (a code, a help, matchable causes), never bare strings:
/// no `Result<_, String>` and no `OnceLock`/field holding a `Result<_, String>` in `src/`
/// (its unit tests aside).
#[test]
fn library_errors_are_types_not_strings() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let flat: String = code(&std::fs::read_to_string(f).unwrap())
            .split_whitespace()
            .collect();
        // The error type is the last argument of a `Result<…>`: `, String>` closes it.
        for (at, _) in flat.match_indices(",String>") {
            let before = &flat[..at];
            let Some(open) = before.rfind("Result<") else {
                continue;
            };
            // Inside `Result<` at depth 0: its own argument, not one of a nested type
            // (nor text after a `Result<…>` that closed before it).
            let mut depth = 0i32;
            for c in before[open + "Result<".len()..].chars() {
                match c {
                    '<' | '(' | '[' | '{' => depth += 1,
                    '>' | ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
                if depth < 0 {
                    break;
                }
            }
            if depth == 0 {
                found.push(f.strip_prefix(&root).unwrap().display().to_string());
                break;
            }
        }
    }
    assert!(found.is_empty(), "Result<_, String> in {found:?}");
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

/// The files (relative to the repository) whose non-test code names a `Dialect` variant.
fn files_naming_variants() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files
        .into_iter()
        // Unit-test modules of their own file (`<module>/tests.rs`) are test code.
        .filter(|f| !f.ends_with("tests.rs"))
        .filter(|f| {
            let text = code(&std::fs::read_to_string(f).unwrap());
            ["Aoe", "Aworld", "Protoagent"]
                .iter()
                .any(|v| text.contains(&format!("Dialect::{v}")))
        })
        .map(|f| {
            f.strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

/// Host knowledge stays in `src/host/` and `src/dialect.rs`: no other file names a
/// variant (what a host decides is asked of `src/host/mod.rs`), and `Dialect` has no
/// `PartialEq`, so `==`/`!=` on dialects does not compile anywhere.
#[test]
fn dialect_variants_are_named_only_in_the_host_folders() {
    let outside: Vec<String> = files_naming_variants()
        .into_iter()
        .filter(|f| !f.starts_with("src/host/") && f != "src/dialect.rs")
        .collect();
    assert!(
        outside.is_empty(),
        "files outside src/host/ naming a Dialect variant (ask src/host/mod.rs instead): {outside:?}"
    );
}

/// A home knows its host (`Home::dialect`): no function takes a home and a dialect side by
/// side, and no tuple pairs them, so nothing can read one host's lock as another's. (A home
/// that is only a hint, `Option<&Home>`, may go with the dialect being asked about.)
#[test]
fn a_home_carries_its_host() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let mut found = Vec::new();
    for f in files {
        let text = code(&std::fs::read_to_string(&f).unwrap());
        let rel = f.strip_prefix(root).unwrap().display().to_string();
        for (i, _) in text.match_indices("fn ") {
            let sig = &text[i..];
            let sig = &sig[..sig.find(['{', ';']).unwrap_or(sig.len())];
            let mut params = sig.split("->").next().unwrap().to_owned();
            for module in ["store", "dialect"] {
                params = params.replace(&format!("{}::{module}::", "crate"), "");
            }
            let home = params.replace("Option<&Home>", "");
            if home.contains("Home") && params.contains("Dialect") {
                found.push(format!("{rel}: {}", params.split('(').next().unwrap()));
            }
        }
        let flat: String = text
            .split_whitespace()
            .collect::<String>()
            .replace(&format!("{}::", "crate"), "");
        for pair in [
            "(Home,Dialect",
            "(Dialect,Home",
            "store::Home,dialect::Dialect",
        ] {
            if flat.contains(pair) {
                found.push(format!("{rel}: a tuple {pair}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a home and a dialect passed apart: {found:#?}"
    );
}

/// docs/contributing.md's "Recipe: add a host" lists every file that names a variant
/// (each a `match` the compiler points at, or the host's own folder): the recipe stays
/// true while this passes.
#[test]
fn the_add_a_host_recipe_lists_every_file_naming_a_variant() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/contributing.md")).unwrap();
    let recipe = doc
        .split("## Recipe: add a host")
        .nth(1)
        .expect("docs/contributing.md has a `## Recipe: add a host` section");
    let recipe = recipe.split("\n## ").next().unwrap();
    let listed: BTreeSet<String> = recipe
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("src/"))
        .map(str::to_owned)
        .collect();
    let missing: Vec<String> = files_naming_variants()
        .into_iter()
        .filter(|f| {
            !listed.contains(f)
                && !listed.iter().any(|l| {
                    l.ends_with("<host>/") && f.starts_with("src/host/") && {
                        // `src/host/<host>/`: a host's own folder.
                        f.matches('/').count() >= 3
                    }
                })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "files naming a Dialect variant that the add-a-host recipe does not list: {missing:?}"
    );
}

/// Test files share fixtures through `tests/cli/support/` only: no test file imports
/// another (a helper in `install.rs` that 18 files used made every change there ripple).
#[test]
fn no_test_file_imports_another() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let test_files: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "main")
        .collect();
    let mut found = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = code(&std::fs::read_to_string(&path).unwrap());
        // `crate::x::…`, `super::x::…` (a test file's parent is the crate root), and each
        // item of a group `crate::{x::…, y}`.
        for hit in text
            .split("crate::")
            .skip(1)
            .chain(text.split("super::").skip(1))
        {
            for path in paths_after(hit) {
                let module = path.split("::").next().unwrap_or_default();
                if module != name && test_files.contains(module) {
                    found.push(format!("{name} -> {module}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "test files importing other test files (move the helper to support/): {found:?}"
    );
}

/// Tests run `plugins` through `support::Plugins` (its clean environment, and one set of
/// redactions for snapshots), never around it: outside `support/`, no test file names
/// the binary's build path, spawns it with `Command::new`, or passes it to a wrapper
/// program as an argument (`Plugins::wrapped_in` and `Plugins::in_pty` do that).
#[test]
fn test_files_run_plugins_only_through_the_builder() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let forbidden = [
        "CARGO_BIN_EXE",
        "cargo_bin",
        "Command::new(BIN",
        "Command::new(&BIN",
        "Command::new(support::BIN",
        "Command::new(crate::support::BIN",
        ".arg(BIN)",
        "'{bin}'",
        "{BIN}",
    ];
    let mut found = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = code(&std::fs::read_to_string(&path).unwrap());
        // This file names the patterns it forbids.
        if name == "architecture.rs" {
            continue;
        }
        for pattern in forbidden {
            if text.contains(pattern) {
                found.push(format!("{name}: {pattern}"));
            }
        }
        // The old bare-Command helper: `plugins()` called as a function.
        for (i, _) in text.match_indices("plugins()") {
            let before = text[..i].chars().next_back();
            if !before.is_some_and(|c| c == '.' || c == '_' || c.is_ascii_alphanumeric()) {
                found.push(format!("{name}: plugins()"));
                break;
            }
        }
    }
    assert!(
        found.is_empty(),
        "test files running plugins around support::Plugins: {found:?}"
    );
}

/// The module graph of `src/`, one node per file (`modules.rs`), unit-test files aside.
fn file_graph() -> modules::Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.retain(|f| !f.ends_with("tests.rs"));
    let files: Vec<(Vec<String>, String)> = files
        .iter()
        .map(|f| {
            let at = modules::module_of(f.strip_prefix(&src).unwrap());
            (at, code(&std::fs::read_to_string(f).unwrap()))
        })
        .collect();
    let krate = modules::Crate::new(&files);
    files
        .iter()
        .map(|(at, code)| (at.join("::"), krate.edges(at, code)))
        .collect()
}

/// Every module is a file, and no files import one another in a circle: inside a folder
/// too (`git::refs -> git::cli -> git::tree -> git::refs` was one), through re-exports
/// (`super::Choice` names the file that defines it) and through types. A folder's
/// `mod.rs` declares, re-exports and dispatches to its own files; only those edges, down
/// into the folder, are not imports (its files may use what it holds).
#[test]
fn files_form_no_import_cycle() {
    let found = modules::cycles(&file_graph());
    assert!(
        found.is_empty(),
        "modules that import one another in a circle: {}",
        found
            .iter()
            .map(|c| c.join(" <-> "))
            .collect::<Vec<_>>()
            .join("; ")
    );
}

/// Every production file of `src/` (unit-test files aside), relative to `src/`, with its
/// text.
fn production_files() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .filter(|f| !f.ends_with("tests.rs"))
        .map(|f| {
            let rel = f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&f).unwrap())
        })
        .collect()
}

/// The most lines a production file of `src/` may have (its inline tests aside).
const FILE_LINES: usize = 500;

/// Files over [`FILE_LINES`], each with the size it had when listed: it may only shrink,
/// and leaves the list once under the limit (split by responsibility, then drop the row).
const LONG_FILES: &[(&str, usize)] = &[];

/// The most lines a function may have, from its `fn` line to its closing brace.
const FN_LINES: usize = 80;

/// Functions over [`FN_LINES`] (file, name, lines when listed): each may only shrink, and
/// leaves the list once under the limit.
const LONG_FUNCTIONS: &[(&str, &str, usize)] = &[];

/// What is over `limit` and not allowed by `listed` at its listed size, and what `listed`
/// holds that is no longer over (or no longer there): both fail.
fn over(
    found: &BTreeMap<String, usize>,
    listed: &BTreeMap<String, usize>,
    limit: usize,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for (what, &n) in found.iter().filter(|(_, n)| **n > limit) {
        match listed.get(what) {
            None => wrong.push(format!("{what}: {n} lines (at most {limit})")),
            Some(&was) if n > was => wrong.push(format!("{what}: {n} lines, listed at {was}")),
            Some(_) => {}
        }
    }
    for (what, was) in listed {
        if found.get(what).is_none_or(|n| *n <= limit) {
            wrong.push(format!(
                "{what}: listed at {was} but no longer over {limit}: drop it"
            ));
        }
    }
    wrong
}

/// A listed size is a ceiling that only comes down: growing past it fails, and so does a
/// row left behind once its file or function is under the limit.
#[test]
fn a_listed_size_may_only_shrink() {
    let map = |rows: &[(&str, usize)]| -> BTreeMap<String, usize> {
        rows.iter().map(|(k, n)| ((*k).to_owned(), *n)).collect()
    };
    let listed = map(&[("a.rs", 600), ("b.rs", 520)]);
    assert!(over(&map(&[("a.rs", 600), ("b.rs", 510)]), &listed, 500).is_empty());
    assert_eq!(
        over(
            &map(&[("a.rs", 601), ("b.rs", 500), ("c.rs", 501)]),
            &listed,
            500
        ),
        [
            "a.rs: 601 lines, listed at 600",
            "c.rs: 501 lines (at most 500)",
            "b.rs: listed at 520 but no longer over 500: drop it",
        ]
    );
}

#[test]
fn no_production_file_is_over_500_lines() {
    let found: BTreeMap<String, usize> = production_files()
        .iter()
        .map(|(rel, text)| (rel.clone(), size::production(text).lines().count()))
        .collect();
    let listed = LONG_FILES
        .iter()
        .map(|(f, n)| ((*f).to_owned(), *n))
        .collect();
    let wrong = over(&found, &listed, FILE_LINES);
    assert!(wrong.is_empty(), "files too long:\n{}", wrong.join("\n"));
}

#[test]
fn no_function_is_over_80_lines() {
    let mut found: BTreeMap<String, usize> = BTreeMap::new();
    for (rel, text) in production_files() {
        for (name, _, n) in size::functions(&size::blanked(size::production(&text))) {
            let longest = found.entry(format!("{rel} {name}")).or_default();
            *longest = (*longest).max(n);
        }
    }
    let listed = LONG_FUNCTIONS
        .iter()
        .map(|(f, name, n)| (format!("{f} {name}"), *n))
        .collect();
    let wrong = over(&found, &listed, FN_LINES);
    assert!(
        wrong.is_empty(),
        "functions too long:\n{}",
        wrong.join("\n")
    );
}

/// A lint is allowed on the one item that needs it, with the reason beside it (a `//`
/// comment on the line or the line above, not the item's doc): never for a whole file or
/// crate (`#![allow]`).
#[test]
fn allow_attributes_sit_on_an_item_with_a_reason() {
    let mut wrong = Vec::new();
    for (rel, text) in production_files() {
        let lines: Vec<&str> = size::production(&text).lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if t.starts_with("#![allow") || t.starts_with("#![expect") {
                wrong.push(format!("src/{rel}:{}: a file-wide {t}", i + 1));
            } else if (t.starts_with("#[allow") || t.starts_with("#[expect"))
                && !t.contains("//")
                && !i.checked_sub(1).is_some_and(|p| {
                    // A plain comment above, not the item's doc.
                    let above = lines[p].trim_start();
                    above.starts_with("//")
                        && !above.starts_with("///")
                        && !above.starts_with("//!")
                })
            {
                wrong.push(format!("src/{rel}:{}: {t} without a reason", i + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "allow attributes:\n{}", wrong.join("\n"));
}
