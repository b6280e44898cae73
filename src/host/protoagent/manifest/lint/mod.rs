//! protoAgent lints and static load gates: what `load_manifest` silently drops
//! or coerces (and warns about, in its order and with its text), what the
//! loader warns about, and what stops a plugin loading.
//!
//! Host warnings follow `load_manifest`'s order for the profile
//! (`protoagent-0218.md` §2.0): on 0.218 settings tabs, settings, views,
//! commands, public paths, federation paths, emits, requires_pip,
//! requires_runtimes, supersedes, enables; on 0.145 views, public paths,
//! emits, requires_pip. Lints of our own sit between them.

mod commands;
mod deps;
mod gates;
mod keys;
#[rustfmt::skip]
mod schema_keys;
mod paths;
mod settings;
mod sources;

pub(crate) use sources::canonical_source;

use std::path::Path;

use super::{Options, Profile, profile};
use crate::diagnostic::{Code, Severity};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::{dict_items, py_repr, py_str, repr_str, truthy, type_name};
use crate::ptr;

type Out = Vec<(Finding, Severity)>;

fn warn(out: &mut Out, f: Finding) {
    out.push((f, Severity::Warning));
}

/// Top-level keys protoAgent 0.218 added; 0.145 ignores them silently.
pub(super) const KEYS_0218: &[&str] = &[
    "settings_tabs",
    "commands",
    "federation_paths",
    "requires_runtimes",
    "supersedes",
    "enables",
];

pub(super) fn check(doc: &Node, id: &str, root: &Path, opts: &Options) -> Out {
    let profile = profile(opts);
    let mut out = Vec::new();
    keys::keys(doc, profile, &mut out);
    truthy_strings(doc, &mut out);
    ignored_shapes(doc, profile, &mut out);
    settings::section(doc, id, &mut out);
    match profile {
        Profile::V0218 => {
            let tabs = settings::settings_tabs(doc, id, &mut out);
            settings::settings(doc, Some(&tabs), &mut out);
            let views = paths::views(doc, profile, &mut out);
            commands::commands(doc, id, &views, &mut out);
            paths::public(doc, id, profile, &views, &mut out);
            paths::federation(doc, id, &mut out);
            deps::emits(doc, root, &mut out);
            deps::requires_pip(doc, &mut out);
            deps::requires_runtimes(doc, &mut out);
            sources::supersedes(doc, &mut out);
            sources::enables(doc, id, &mut out);
            sources::bundled_only(doc, &mut out);
        }
        Profile::V0145 => {
            settings::settings(doc, None, &mut out);
            let views = paths::views(doc, profile, &mut out);
            paths::public(doc, id, profile, &views, &mut out);
            deps::emits(doc, root, &mut out);
            deps::requires_pip(doc, &mut out);
        }
    }
    gates::gates(doc, root, opts, &mut out);
    out
}

/// `enabled`, `builtin` and `test` that are not booleans: Python's bool() reads them, and a
/// string such as "false" is true.
fn truthy_strings(doc: &Node, out: &mut Out) {
    for key in ["enabled", "builtin", "test"] {
        if let Some(e) = doc.get(key)
            && !matches!(e.node.value, Value::Bool(_) | Value::Null)
        {
            let effective = if truthy(&e.node) { "true" } else { "false" };
            let mut f = Finding::new(
                Code::ProtoTruthyString,
                format!(
                    "`{key}` is a {}, which Python's bool() reads as {effective}",
                    type_name(&e.node)
                ),
                ptr![key],
            )
            .help(truthy_help(key, &e.node, effective));
            // One boolean named: the quick fix writes it, unquoted.
            if let Some(w) = truthy_written(&e.node, effective) {
                f = f.fix_raw(w);
            }
            warn(out, f);
        }
    }
}

/// The keys of the wrong shape (a list for a mapping, or the other way), which the host
/// ignores.
fn ignored_shapes(doc: &Node, profile: Profile, out: &mut Out) {
    let mut shapes = vec![
        ("requires_env", true),
        ("secrets", true),
        ("settings", true),
        ("views", true),
        ("public_paths", true),
        ("emits", true),
        ("subscribes", true),
        ("requires_pip", true),
        ("capabilities", false),
        ("config", false),
    ];
    if profile == Profile::V0218 {
        // `requires_runtimes`, `supersedes` and `enables` of the wrong shape are host warnings.
        shapes.extend([
            ("settings_tabs", true),
            ("commands", true),
            ("federation_paths", true),
        ]);
    }
    for (key, want_list) in shapes {
        if let Some(e) = doc.get(key) {
            let ok = matches!(
                (&e.node.value, want_list),
                (Value::Array(_), true) | (Value::Table(_), false) | (Value::Null, _)
            );
            if !ok {
                let want = if want_list { "a list" } else { "a mapping" };
                warn(
                    out,
                    Finding::new(
                        Code::ProtoIgnoredValue,
                        format!(
                            "`{key}` is a {}, not {want}, so the host ignores it",
                            type_name(&e.node)
                        ),
                        ptr![key],
                    ),
                );
            }
        }
    }
}

/// Python's `str.isspace()` (and `\s` of `re`): Unicode whitespace and the
/// separators U+001C..U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
fn strip(s: &str) -> &str {
    s.trim_matches(py_space)
}

/// `\d` of Python's `re`: a Unicode decimal digit (category Nd), approximated
/// as a numeric character outside the common No/Nl blocks.
fn py_decimal(c: char) -> bool {
    c.is_ascii_digit()
        || (!c.is_ascii()
            && c.is_numeric()
            && !matches!(c, '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{bc}'..='\u{be}' | '\u{2070}'..='\u{209f}' | '\u{2150}'..='\u{218f}' | '\u{2460}'..='\u{24ff}' | '\u{2776}'..='\u{2793}' | '\u{3007}' | '\u{3021}'..='\u{303a}' | '\u{3192}'..='\u{3195}' | '\u{3220}'..='\u{325f}' | '\u{3280}'..='\u{32bf}' | '\u{16ee}'..='\u{16f0}'))
}

/// Python's `repr()` of a value, with PyYAML's dates and naive datetimes as
/// `datetime.date(…)`/`datetime.datetime(…)` (`py_repr` shows their `str()`).
fn repr(node: &Node) -> String {
    match &node.value {
        Value::Datetime(s) => datetime_repr(s).unwrap_or_else(|| repr_str(s)),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(repr).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Table(_) => {
            let parts: Vec<String> = dict_items(node)
                .into_iter()
                .map(|(k, v)| format!("{}: {}", repr_str(k), repr(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        _ => py_repr(node),
    }
}

/// `repr()` of a date (`2001-01-01`) or naive datetime (`2001-12-14 21:59:43.100000`).
fn datetime_repr(s: &str) -> Option<String> {
    let num = |t: &str| t.parse::<u32>().ok();
    let (date, time) = match s.split_once(' ') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut d = date.splitn(3, '-').map(num);
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let Some(time) = time else {
        return Some(format!("datetime.date({y}, {m}, {day})"));
    };
    let (hms, micro) = match time.split_once('.') {
        Some((a, b)) => (a, num(b)?),
        None => (time, 0),
    };
    let mut t = hms.splitn(3, ':').map(num);
    let (h, mi, sec) = (t.next()??, t.next()??, t.next()??);
    let mut fields = vec![y, m, day, h, mi];
    if sec != 0 || micro != 0 {
        fields.push(sec);
    }
    if micro != 0 {
        fields.push(micro);
    }
    let fields: Vec<String> = fields.iter().map(u32::to_string).collect();
    Some(format!("datetime.datetime({})", fields.join(", ")))
}

/// `str(v or "")`: "" for a missing or falsy value.
fn or_empty(node: Option<&Node>) -> String {
    node.filter(|n| truthy(n)).map(py_str).unwrap_or_default()
}

/// `str(raw.get(key, ""))`: "" for a missing key, `str()` of the value otherwise.
fn get_str(node: &Node, key: &str) -> String {
    node.get(key).map(|e| py_str(&e.node)).unwrap_or_default()
}

/// The boolean a non-boolean flag spells (`"false"`, `"no"`, a number), which its fix
/// writes; `None` when it spells none (the help then names both).
fn truthy_written(node: &Node, effective: &'static str) -> Option<&'static str> {
    match &node.value {
        Value::Str(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" | "on" | "y" | "1" => Some("true"),
            "false" | "no" | "off" | "n" | "0" | "" => Some("false"),
            _ => None,
        },
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => Some(effective),
        _ => None,
    }
}

/// The fix for a non-boolean flag follows what the author wrote (`"false"` →
/// `false`), not what Python makes of it.
fn truthy_help(key: &str, node: &Node, effective: &'static str) -> String {
    match truthy_written(node, effective) {
        Some(w) if w == effective => format!("write `{key}: {w}` (unquoted)"),
        Some(w) => {
            format!("write `{key}: {w}` (unquoted); as written, the host treats it as {effective}")
        }
        None => format!(
            "write `{key}: true` or `{key}: false` (unquoted); as written, the host treats it as {effective}"
        ),
    }
}

fn items<'t>(doc: &Node<'t>, key: &str) -> Vec<(usize, Node<'t>)> {
    match doc.get(key).map(|e| &e.node.value) {
        Some(Value::Array(items)) => items.iter().cloned().enumerate().collect(),
        _ => Vec::new(),
    }
}

/// A value the host reads as a list, a bare string being a one-entry list and
/// null an empty one: `None` for any other shape (the host warns).
fn items_or_str<'t>(doc: &Node<'t>, key: &str) -> Option<Vec<(Node<'t>, Pointer)>> {
    let Some(e) = doc.get(key) else {
        return Some(Vec::new());
    };
    match &e.node.value {
        Value::Null => Some(Vec::new()),
        Value::Str(_) => Some(vec![(e.node.clone(), ptr![key.to_owned()])]),
        Value::Array(list) => Some(
            list.iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), ptr![key.to_owned(), i]))
                .collect(),
        ),
        _ => None,
    }
}
