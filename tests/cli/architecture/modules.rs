//! The module graph of `src/`: one node per file (`src/git/refs.rs` is `git::refs`,
//! `src/git/mod.rs` is `git`), one edge per module a file's production code names
//! (`crate::`, `super::`, `self::`, a child module, or a module brought in by `use`), and the
//! cycles in it (Tarjan's strongly connected components).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A graph of modules: each module and the modules it names.
pub(super) type Graph = BTreeMap<String, BTreeSet<String>>;

/// A file's module path: `src/git/refs.rs` → `[git, refs]`, `src/git/mod.rs` → `[git]`,
/// `src/lib.rs` → `[]`.
pub(super) fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// An identifier at the start of `s`.
fn ident(s: &str) -> &str {
    &s[..s.find(|c: char| !is_ident(c)).unwrap_or(s.len())]
}

/// The paths written at the start of `s`, each as its segments: `a::b::c` is one,
/// `a::{b, c::{d, e}}` is three (`a::b`, `a::c::d`, `a::c::e`); `self` in a group names
/// the group's prefix (`a::{self, b}` is `a` and `a::b`).
fn paths_at(s: &str) -> Vec<Vec<String>> {
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
        return items
            .into_iter()
            .flat_map(paths_at)
            .map(|p| p.into_iter().filter(|s| s != "self").collect())
            .collect();
    }
    if s.starts_with('*') {
        return vec![vec!["*".to_owned()]];
    }
    let first = ident(s);
    if first.is_empty() {
        return vec![Vec::new()];
    }
    match s[first.len()..].trim_start().strip_prefix("::") {
        Some(next) => paths_at(next)
            .into_iter()
            .map(|mut p| {
                p.insert(0, first.to_owned());
                p
            })
            .collect(),
        None => vec![vec![first.to_owned()]],
    }
}

/// Every path in `code` that starts a path expression or `use` (an identifier followed by
/// `::` and not itself preceded by `::`), with the position after it.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < code.len() {
        let c = bytes[i] as char;
        let starts = is_ident(c)
            && !c.is_ascii_digit()
            && (i == 0 || !is_ident(bytes[i - 1] as char))
            && !code[..i].trim_end().ends_with("::");
        if starts {
            let name = ident(&code[i..]);
            if code[i + name.len()..].trim_start().starts_with("::") {
                out.extend(paths_at(&code[i..]).into_iter().filter(|p| p.len() > 1));
            }
            i += name.len();
        } else {
            i += c.len_utf8();
        }
    }
    out
}

/// The identifiers in `code` that stand alone: not a field or method (after `.`), not a
/// path's later segment (after `::`), not a path's head (before `::`, read by
/// [`paths_in`]).
fn idents(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < code.len() {
        let c = code[i..].chars().next().unwrap_or(' ');
        if is_ident(c) && !c.is_ascii_digit() {
            let name = ident(&code[i..]);
            let before = code[..i].trim_end();
            let after = code[i + name.len()..].trim_start();
            // Nor a field named in a struct literal or a binding's type (`name: …`).
            let field = after.starts_with(':') && !after.starts_with("::");
            if !before.ends_with("::")
                && !before.ends_with('.')
                && !after.starts_with("::")
                && !field
            {
                out.insert(name.to_owned());
            }
            i += name.len();
        } else {
            i += c.len_utf8();
        }
    }
    out
}

/// The modules of a crate and what each re-exports.
pub(super) struct Crate {
    /// Every module, as its path.
    pub(super) modules: BTreeSet<Vec<String>>,
    /// For each module, the items its `use` statements bring in (`use a::b::C;`): name →
    /// the item's absolute path.
    reexports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// For each module, the names of the items it defines (`fn`, `struct`, `const`, …).
    defined: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// For each module, the modules whose items it brings in whole (`use super::*;`).
    globs: BTreeMap<Vec<String>, Vec<Vec<String>>>,
}

/// The names of the items `code` defines at its top level (a method or a function's
/// local item is not a name a glob brings in).
fn defined_in(code: &str) -> BTreeSet<String> {
    let code = super::size::blanked(code);
    let mut top = vec![false; code.len() + 1];
    let mut depth = 0usize;
    for (i, c) in code.char_indices() {
        top[i] = depth == 0;
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for kw in [
        "fn", "struct", "enum", "const", "static", "type", "trait", "union",
    ] {
        for (at, _) in code.match_indices(&format!("{kw} ")) {
            // Not `'static str`, `*const T`, nor the end of another word.
            let before = code[..at].chars().next_back().unwrap_or(' ');
            if !top[at] || is_ident(before) || before == '\'' || before == '*' {
                continue;
            }
            let name = ident(code[at + kw.len()..].trim_start());
            if !name.is_empty() && !["fn", "mut", "ref"].contains(&name) {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

impl Crate {
    /// The crate of `files`: each module's path and its production code.
    pub(super) fn new(files: &[(Vec<String>, String)]) -> Crate {
        let mut c = Crate {
            modules: files.iter().map(|(m, _)| m.clone()).collect(),
            reexports: BTreeMap::new(),
            defined: files
                .iter()
                .map(|(m, code)| (m.clone(), defined_in(code)))
                .collect(),
            globs: BTreeMap::new(),
        };
        for (at, code) in files {
            let aliases = c.aliases(at, code);
            let mut names = BTreeMap::new();
            let mut globs = Vec::new();
            // Every `use`, `pub` or not: a private one is still seen by the module's
            // children (`super::Choice`).
            for stmt in code.split("use ").skip(1) {
                for p in paths_at(stmt.split(';').next().unwrap_or_default()) {
                    let Some(abs) = c.absolute(at, &p, &aliases) else {
                        continue;
                    };
                    if p.last().is_some_and(|l| l == "*") {
                        globs.push(abs[..abs.len() - 1].to_vec());
                    } else {
                        names.insert(p.last().unwrap().clone(), abs);
                    }
                }
            }
            c.reexports.insert(at.clone(), names);
            c.globs.insert(at.clone(), globs);
        }
        c
    }

    /// The names a module's glob imports bring in, each with the module that defines it:
    /// what the globbed modules define, import by name, and glob in turn.
    fn glob_names(&self, at: &[String]) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        let mut seen = BTreeSet::from([at.to_vec()]);
        let mut todo: Vec<Vec<String>> = self.globs.get(at).cloned().unwrap_or_default();
        while let Some(g) = todo.pop() {
            if !seen.insert(g.clone()) {
                continue;
            }
            for name in self.defined.get(&g).into_iter().flatten() {
                out.entry(name.clone()).or_insert_with(|| g.clone());
            }
            for (name, path) in self.reexports.get(&g).into_iter().flatten() {
                if let Some(m) = self.module(path) {
                    out.entry(name.clone()).or_insert(m);
                }
            }
            todo.extend(self.globs.get(&g).cloned().unwrap_or_default());
        }
        out
    }

    /// The module an absolute path names: the deepest module it goes through, followed
    /// through re-exports (`crate::git::Oid`, re-exported by `git` from `git::refs`, names
    /// `git::refs`).
    fn module(&self, path: &[String]) -> Option<Vec<String>> {
        let mut path = path.to_vec();
        for _ in 0..16 {
            let m = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|m| self.modules.contains(m))?;
            let via = path
                .get(m.len())
                .and_then(|name| self.reexports.get(&m)?.get(name));
            match via {
                Some(target) if *target != path[..=m.len()] => {
                    let mut next = target.clone();
                    next.extend(path[m.len() + 1..].iter().cloned());
                    path = next;
                }
                _ => return Some(m),
            }
        }
        None
    }

    /// The names that stand for a module in module `at`: its children, and the modules its
    /// `use` statements bring in.
    fn aliases(&self, at: &[String], code: &str) -> BTreeMap<String, Vec<String>> {
        let mut aliases: BTreeMap<String, Vec<String>> = self
            .modules
            .iter()
            .filter(|m| m.len() == at.len() + 1 && m.starts_with(at))
            .map(|m| (m.last().unwrap().clone(), m.clone()))
            .collect();
        for stmt in code.split("use ").skip(1) {
            for p in paths_at(stmt.split(';').next().unwrap_or_default()) {
                if let Some(abs) = self.absolute(at, &p, &aliases)
                    && self.modules.contains(&abs)
                    && let Some(name) = abs.last()
                {
                    aliases.insert(name.clone(), abs);
                }
            }
        }
        aliases
    }

    /// `p`, written in module `at`, as an absolute path (`None` for another crate's).
    fn absolute(
        &self,
        at: &[String],
        p: &[String],
        aliases: &BTreeMap<String, Vec<String>>,
    ) -> Option<Vec<String>> {
        let (head, mut rest) = p.split_first()?;
        let mut base = match head.as_str() {
            "crate" => Vec::new(),
            "self" => at.to_vec(),
            "super" => at[..at.len().checked_sub(1)?].to_vec(),
            name => aliases.get(name)?.clone(),
        };
        while let Some((h, tail)) = rest.split_first()
            && h == "super"
        {
            base.pop();
            rest = tail;
        }
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The modules the production code of module `at` names.
    pub(super) fn edges(&self, at: &[String], code: &str) -> BTreeSet<String> {
        let aliases = self.aliases(at, code);
        // A bare name that only a glob import brings in (not defined or imported here).
        let globbed = self.glob_names(at);
        let own = &self.defined[at];
        let imported = &self.reexports[at];
        let bare = idents(&super::size::blanked(code))
            .into_iter()
            .filter(|n| !own.contains(n) && !imported.contains_key(n))
            .filter_map(|n| globbed.get(&n).cloned());
        paths_in(code)
            .iter()
            // A glob names no item itself: what it brings in counts where it is used.
            .filter(|p| p.last().is_none_or(|l| l != "*"))
            .filter_map(|p| self.module(&self.absolute(at, p, &aliases)?))
            .chain(bare)
            // A folder's `mod.rs` declares, re-exports and dispatches to its own files:
            // those edges are containment, not imports that could close a cycle.
            .filter(|m| !m.starts_with(at))
            .map(|m| m.join("::"))
            .collect()
    }
}

/// The strongly connected components of `g` with more than one module: each is a set of
/// modules that reach one another, that is one or more import cycles (Tarjan).
pub(super) fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, n: &'a str) {
            let i = self.index.len();
            self.index.insert(n, i);
            self.low.insert(n, i);
            self.stack.push(n);
            self.on_stack.insert(n);
            for m in self.g.get(n).into_iter().flatten() {
                if !self.index.contains_key(m.as_str()) {
                    self.visit(m);
                    let low = self.low[n].min(self.low[m.as_str()]);
                    self.low.insert(n, low);
                } else if self.on_stack.contains(m.as_str()) {
                    let low = self.low[n].min(self.index[m.as_str()]);
                    self.low.insert(n, low);
                }
            }
            if self.low[n] == self.index[n] {
                let mut scc = Vec::new();
                while let Some(m) = self.stack.pop() {
                    self.on_stack.remove(m);
                    scc.push(m.to_owned());
                    if m == n {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.found.push(scc);
                }
            }
        }
    }
    let mut t = Tarjan {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for n in g.keys() {
        if !t.index.contains_key(n.as_str()) {
            t.visit(n);
        }
    }
    t.found.sort();
    t.found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str)]) -> Graph {
        let mut g = Graph::new();
        for (from, to) in edges {
            g.entry((*from).to_owned())
                .or_default()
                .insert((*to).to_owned());
            g.entry((*to).to_owned()).or_default();
        }
        g
    }

    #[test]
    fn a_planted_cycle_is_found_with_every_module_in_it() {
        let g = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("e", "f")]);
        assert_eq!(cycles(&g), vec![vec!["a", "b", "c"]]);
        let g = graph(&[("a", "b"), ("b", "c"), ("d", "a"), ("e", "f"), ("f", "e")]);
        assert_eq!(cycles(&g), vec![vec!["e", "f"]]);
        assert!(cycles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    }

    /// A small crate: `x/mod.rs` re-exports `Thing` from `x/a.rs`, `x/c.rs` names it
    /// through `super::`, `x/a.rs` names `x/c.rs` back.
    fn planted(a: &str) -> Graph {
        let m = |p: &str| p.split('/').map(str::to_owned).collect::<Vec<_>>();
        let files = vec![
            (
                m("x"),
                "mod a;\nmod c;\npub use a::Thing;\nfn f() { c::g() }".to_owned(),
            ),
            (m("x/a"), a.to_owned()),
            (m("x/c"), "use super::Thing;\npub fn g() {}".to_owned()),
            (m("y"), "use crate::x::{self, a::Thing};".to_owned()),
        ];
        let krate = Crate::new(&files);
        files
            .iter()
            .map(|(at, code)| (at.join("::"), krate.edges(at, code)))
            .collect()
    }

    #[test]
    fn a_cycle_planted_in_a_folder_is_found_through_its_re_export() {
        let g = planted("pub struct Thing;\nfn h() { super::c::g() }");
        assert_eq!(g["x::c"], BTreeSet::from(["x::a".to_owned()]));
        assert_eq!(g["y"], BTreeSet::from(["x".to_owned(), "x::a".to_owned()]));
        // The folder's own `mod.rs` naming its files is containment, not an import.
        assert!(g["x"].is_empty());
        assert_eq!(cycles(&g), vec![vec!["x::a", "x::c"]]);
        let g = planted("pub struct Thing;\nfn h() { crate::x::c::g() }");
        assert_eq!(cycles(&g), vec![vec!["x::a", "x::c"]]);
        let g = planted("pub struct Thing;\nuse super::c;\nfn h() { c::g() }");
        assert_eq!(cycles(&g), vec![vec!["x::a", "x::c"]]);
        assert!(cycles(&planted("pub struct Thing;")).is_empty());
    }

    /// `yaml/mod.rs` globs its files and each file globs it back (`use super::*;`): a
    /// name used bare counts as an import of the file that defines it, and the glob
    /// itself names nothing.
    #[test]
    fn a_cycle_through_glob_imports_is_found() {
        let m = |p: &str| p.split('/').map(str::to_owned).collect::<Vec<_>>();
        let build = |b: &str| -> Graph {
            let files = vec![
                (
                    m("y"),
                    "mod a;\nmod b;\nuse a::*;\nuse b::*;\nfn f() -> Span {}".to_owned(),
                ),
                (
                    m("y/a"),
                    "use super::*;\npub(super) fn raise() { digits(1) }".to_owned(),
                ),
                (m("y/b"), b.to_owned()),
                (m("span"), "pub struct Span;".to_owned()),
            ];
            let krate = Crate::new(&files);
            files
                .iter()
                .map(|(at, code)| (at.join("::"), krate.edges(at, code)))
                .collect()
        };
        let g =
            build("use super::*;\npub(super) fn digits(n: u8) { raise(); let x: &'static str; }");
        assert_eq!(cycles(&g), vec![vec!["y::a", "y::b"]]);
        // A local binding, a field and `'static str` are no names from a glob.
        let g = build(
            "use super::*;\npub(super) fn digits(raise: u8) -> &'static str { S { raise: 1 } }",
        );
        assert_eq!(g["y::b"], BTreeSet::new());
        assert!(cycles(&g).is_empty());
    }
}
