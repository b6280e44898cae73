//! What protoAgent ships itself, per host profile (`protoagent-0218.md` §5.2, §12, §13):
//! the bundled plugin ids its installer refuses to install over, the git repositories a
//! bundled plugin supersedes (0.218), the source allowlist its CLI installer enforces
//! (`plugins.sources.allow`, §5.2 step 4) and the `.bak` swap leftovers its discovery
//! skips (§1.3). Pure: the caller passes paths and texts in.

use std::path::Path;

use crate::host::protoagent::manifest::{Profile, canonical_source};
use crate::manifest::doc::{Node, Value};
use crate::manifest::pyval::{dict_items, type_name};

/// The bundled ids live with the manifest rules (`validate` warns about them as `new`
/// refuses them); install checks them here, after the allowlist.
pub(crate) use crate::host::protoagent::manifest::{builtin_message, is_bundled};

/// The bundled plugins of 0.218 that supersede a git repository: (the repository's
/// `canonical_source`, the bundled id, its version).
pub(crate) const SUPERSEDING_0218: &[(&str, &str, &str)] = &[
    (
        "github.com/protolabsai/agent-browser-plugin",
        "agent_browser",
        "0.7.0",
    ),
    ("github.com/protolabsai/cowork-plugin", "cowork", "0.4.0"),
];

/// The bundled plugin that supersedes `url` (`superseding_plugin`): its id and version.
/// Only 0.218 has any.
pub fn superseding(url: &str, profile: Profile) -> Option<(&'static str, &'static str)> {
    if profile != Profile::V0218 {
        return None;
    }
    let canonical = canonical_source(url);
    if canonical.is_empty() {
        return None;
    }
    SUPERSEDING_0218
        .iter()
        .find(|(c, _, _)| *c == canonical)
        .map(|(_, id, v)| (*id, *v))
}

/// `manifest.is_swap_leftover`: a plugins-dir child named `*.bak` is the installer's swap
/// copy, which 0.218's discovery skips (0.145 discovers it).
pub(crate) fn is_swap_leftover(dir: &Path, profile: Profile) -> bool {
    profile == Profile::V0218
        && dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(".bak"))
}

/// Whether the host's discovery skips the plugin root `dir` ([`is_swap_leftover`], for the
/// host version `host_version` names).
pub(crate) fn discovery_skips(dir: &Path, host_version: Option<&str>) -> bool {
    let opts = crate::host::protoagent::manifest::Options {
        host_version: host_version.map(str::to_owned),
        ..Default::default()
    };
    is_swap_leftover(dir, crate::host::protoagent::manifest::profile(&opts))
}

/// `plugins.sources.allow` as the CLI installer reads it (`configured_allowlist`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Allow {
    /// No config file, or no `allow` key: any source.
    Open,
    /// The patterns; an empty list (or `null`) denies every source.
    List(Vec<String>),
}

/// Why protoAgent 0.218 cannot read its allowlist: the text after `Cannot read plugin
/// source allowlist: ` (the Python exception's message, as the host prints it).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unreadable(pub String);

/// `configured_allowlist()`: `Err` holds the text after `Cannot read plugin source
/// allowlist: ` (0.218 fails closed; 0.145 reads an unreadable config as open and
/// iterates a scalar: a string `"abc"` is the patterns `a`, `b`, `c`).
pub fn allowlist(config: &Path, profile: Profile) -> Result<Allow, Unreadable> {
    let text = match crate::file::read(config) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Allow::Open),
        Err(e) => return closed(profile, e.to_string()),
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => return closed(profile, e.to_string()),
        },
    };
    let doc = match crate::manifest::format::parse_yaml(&text) {
        Ok(d) => d,
        Err(e) => return closed(profile, e.message),
    };
    let step = allow_node(doc);
    let raw = match step {
        Ok(None) => return Ok(Allow::Open),
        Ok(Some(raw)) => raw,
        Err(e) => return closed(profile, e.0),
    };
    match (&raw.value, profile) {
        (Value::Null, _) => Ok(Allow::List(Vec::new())),
        (Value::Array(items), _) if items.iter().all(|i| matches!(i.value, Value::Str(_))) => Ok(
            Allow::List(items.iter().map(crate::manifest::pyval::py_str).collect()),
        ),
        (_, Profile::V0218) => Err(Unreadable(
            "plugins.sources.allow must be a list of strings".into(),
        )),
        // 0.145: `list(raw or [])`, then `str()` of each pattern.
        (Value::Str(s), Profile::V0145) => Ok(Allow::List(s.chars().map(String::from).collect())),
        (Value::Array(items), Profile::V0145) => Ok(Allow::List(
            items.iter().map(crate::manifest::pyval::py_str).collect(),
        )),
        (Value::Table(_), Profile::V0145) => Ok(Allow::List(
            dict_items(&raw)
                .into_iter()
                .map(|(k, _)| k.to_owned())
                .collect(),
        )),
        (_, Profile::V0145) if !crate::manifest::pyval::truthy(&raw) => Ok(Allow::List(Vec::new())),
        (_, Profile::V0145) => Ok(Allow::Open),
    }
}

/// `plugins.sources.allow` as the host reads it (`data = safe_load(...) or {};
/// ((data.get("plugins") or {}).get("sources")) or {}`, then `"allow" in sources`); `None`
/// when there is none.
fn allow_node<'t>(doc: Node<'t>) -> Result<Option<Node<'t>>, Unreadable> {
    let or_empty = |n: Option<Node<'t>>| n.filter(crate::manifest::pyval::truthy);
    let Some(data) = or_empty(Some(doc)) else {
        return Ok(None);
    };
    let Some(plugins) = or_empty(py_get(&data, "plugins")?) else {
        return Ok(None);
    };
    let Some(sources) = or_empty(py_get(&plugins, "sources")?) else {
        return Ok(None);
    };
    // `"allow" not in sources`: a membership test on a list, a substring test on a
    // string, a TypeError otherwise.
    let has = match &sources.value {
        Value::Table(_) => dict_items(&sources).iter().any(|(k, _)| *k == "allow"),
        Value::Array(items) => items
            .iter()
            .any(|i| matches!(&i.value, Value::Str(s) if s == "allow")),
        Value::Str(s) => s.contains("allow"),
        _ => {
            return Err(Unreadable(format!(
                "argument of type '{}' is not iterable",
                type_name(&sources)
            )));
        }
    };
    if !has {
        return Ok(None);
    }
    py_get(&sources, "allow")
}

/// `node.get(key)` in Python: a mapping's value, else the AttributeError.
fn py_get<'t>(node: &Node<'t>, key: &str) -> Result<Option<Node<'t>>, Unreadable> {
    match &node.value {
        Value::Table(_) => Ok(dict_items(node)
            .into_iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())),
        _ => Err(Unreadable(format!(
            "'{}' object has no attribute 'get'",
            type_name(node)
        ))),
    }
}

fn closed(profile: Profile, why: String) -> Result<Allow, Unreadable> {
    match profile {
        Profile::V0218 => Err(Unreadable(why)),
        Profile::V0145 => Ok(Allow::Open),
    }
}

/// The host's refusal of `url` under `allow` (`_source_allowed`), if it refuses.
pub(crate) fn allow_refusal(url: &str, allow: &Allow) -> Option<String> {
    match allow {
        Allow::Open => None,
        Allow::List(l) if l.is_empty() => Some(
            "plugins.sources.allow is an explicit empty list (deny-all) — list the origins you trust, or remove the key to allow any source."
                .into(),
        ),
        Allow::List(l) if source_matches(url, l) => None,
        Allow::List(_) => Some(format!(
            "source '{url}' is not on plugins.sources.allow — add it or install from an allowed origin."
        )),
    }
}

/// `trust._strip_source_prefix`.
fn strip_prefix(value: &str) -> String {
    let mut s = value;
    for scheme in ["https://", "http://", "git://", "ssh://"] {
        if let Some(rest) = s.strip_prefix(scheme) {
            s = rest;
            break;
        }
    }
    let s = s.strip_prefix("git@").unwrap_or(s);
    let norm = s.replace(':', "/");
    norm.trim_matches(py_space).trim_end_matches('/').to_owned()
}

/// Python's `str.strip()` whitespace.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `trust.source_matches`: both sides normalised, each pattern tried as `pat` and
/// `pat/*` with `fnmatch` (case-sensitive, as on POSIX).
pub fn source_matches(url: &str, patterns: &[String]) -> bool {
    let mut norm = strip_prefix(url);
    if norm.ends_with(".git") {
        norm.truncate(norm.len() - 4);
    }
    patterns.iter().any(|p| {
        let mut pat = strip_prefix(p);
        if pat.ends_with(".git") && !pat.contains(['*', '?', '[']) {
            pat.truncate(pat.len() - 4);
        }
        !pat.is_empty() && (fnmatch(&norm, &pat) || fnmatch(&norm, &format!("{pat}/*")))
    })
}

/// `fnmatch.fnmatchcase`: `*`, `?`, `[seq]`, `[!seq]` (an unclosed `[` is literal).
pub(crate) fn fnmatch(name: &str, pat: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pat.chars().collect();
    // Iterative matching with backtracking to the last `*`.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while i < n.len() {
        let step = if j < p.len() {
            match p[j] {
                '*' => {
                    star = Some((j, i));
                    j += 1;
                    continue;
                }
                '?' => Some(j + 1),
                '[' => match class(&p, j, n[i]) {
                    Some((true, next)) => Some(next),
                    Some((false, _)) => None,
                    None if n[i] == '[' => Some(j + 1),
                    None => None,
                },
                c if c == n[i] => Some(j + 1),
                _ => None,
            }
        } else {
            None
        };
        match (step, star) {
            (Some(next), _) => {
                i += 1;
                j = next;
            }
            (None, Some((sj, si))) => {
                star = Some((sj, si + 1));
                i = si + 1;
                j = sj + 1;
            }
            (None, None) => return false,
        }
    }
    p[j..].iter().all(|c| *c == '*')
}

/// A `[...]` class at `p[j]`: whether `c` is in it and the index after it; `None` when
/// the bracket is not closed (then it is a literal `[`).
fn class(p: &[char], j: usize, c: char) -> Option<(bool, usize)> {
    let mut k = j + 1;
    let negate = p.get(k) == Some(&'!');
    if negate {
        k += 1;
    }
    // A `]` first in the class is literal.
    let start = k;
    if p.get(k) == Some(&']') {
        k += 1;
    }
    while k < p.len() && p[k] != ']' {
        k += 1;
    }
    if k >= p.len() {
        return None;
    }
    let body = &p[start..k];
    let mut hit = false;
    let mut x = 0;
    while x < body.len() {
        if x + 2 < body.len() && body[x + 1] == '-' {
            if body[x] <= c && c <= body[x + 2] {
                hit = true;
            }
            x += 3;
        } else {
            if body[x] == c {
                hit = true;
            }
            x += 1;
        }
    }
    Some((hit != negate, k + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnmatch_as_python() {
        for (name, pat, want) in [
            ("github.com/o/r", "github.com/o/*", true),
            ("github.com/o/r/x", "github.com/o/*", true),
            ("github.com/o/r", "github.com/o", false),
            ("github.com/O/r", "github.com/o/*", false),
            ("a", "?", true),
            ("ab", "[!a]b", false),
            ("bb", "[!a]b", true),
            ("[", "[", true),
            ("c", "[a-c]", true),
            ("]", "[]]", true),
            ("", "*", true),
        ] {
            assert_eq!(fnmatch(name, pat), want, "{name} {pat}");
        }
    }

    #[test]
    fn bundled_and_superseded_per_profile() {
        assert!(is_bundled("artifact", Profile::V0145));
        assert!(!is_bundled("cowork", Profile::V0145));
        assert!(is_bundled("cowork", Profile::V0218));
        assert!(!is_bundled("coding_agent", Profile::V0218));
        let url = "git@github.com:protoLabsAI/Agent-Browser-Plugin.git";
        assert_eq!(
            superseding(url, Profile::V0218),
            Some(("agent_browser", "0.7.0"))
        );
        assert_eq!(superseding(url, Profile::V0145), None);
        assert!(is_swap_leftover(Path::new("/p/x.bak"), Profile::V0218));
        assert!(!is_swap_leftover(Path::new("/p/x.bak"), Profile::V0145));
    }
}
