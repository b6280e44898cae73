//! The host's loader and `validate_plugin_path` (spec `aworld.md` §3–§4): the
//! checks in the host's order, stopping at the first failure with the host's
//! exception text.

use std::path::Path;

use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::contain::{self, ResolveError};
use crate::manifest::doc::{Node, Pointer, Seg, Value};
use crate::manifest::pyval::{dict_items, py_repr, py_str, truthy, type_name};
use crate::ptr;

/// What a manifest that passed the loader declares.
#[derive(Debug)]
pub(crate) struct Loaded<'a> {
    pub id: String,
    /// `(kind, entrypoints)` in JSON order; entrypoints are `(index, node)`.
    pub kinds: Vec<(&'a str, Vec<(usize, &'a Node<'a>)>)>,
    pub dependencies: Vec<String>,
    pub conflicts: Vec<String>,
}

fn fail(code: Code, message: impl Into<String>, at: Pointer) -> Finding {
    Finding::new(code, message, at)
}

/// Python's `x in seen` for hashable scalars: `1`, `1.0` and `True` are equal.
fn py_eq(a: &Node, b: &Node) -> bool {
    fn num(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            Value::Int(i) => Some(*i as f64),
            Value::Float(x) => Some(*x),
            _ => None,
        }
    }
    match (&a.value, &b.value) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Null, Value::Null) => true,
        (x, y) => matches!((num(x), num(y)), (Some(p), Some(q)) if p == q),
    }
}

/// `raw.get(key) or default` must be of one container type.
#[allow(clippy::result_large_err)] // the first finding is the whole result, not a hot-path error
fn falsy_or(root: &Node, key: &'static str, want_table: bool) -> Result<(), Finding> {
    let Some(entry) = root.get(key) else {
        return Ok(());
    };
    let ok = !truthy(&entry.node)
        || matches!(
            (&entry.node.value, want_table),
            (Value::Table(_), true) | (Value::Array(_), false)
        );
    if ok {
        return Ok(());
    }
    Err(if want_table {
        fail(
            Code::AworldNotMapping,
            format!("{key} must be a mapping"),
            ptr![key],
        )
    } else {
        fail(
            Code::AworldNotList,
            format!("{key} must be a list"),
            ptr![key],
        )
    })
}

fn not_iterable(node: &Node, at: Pointer) -> Finding {
    fail(
        Code::AworldTypeError,
        format!("'{}' object is not iterable", type_name(node)),
        at,
    )
}

/// What the host's loader raises for a top level that is not an object: its
/// `"id" not in raw` is a membership test on a list, a substring test on a
/// string and a `TypeError` on anything else; past both tests, `.get` fails.
pub(crate) fn non_object_host_message(root: &Node) -> String {
    let has = |key: &str| match &root.value {
        Value::Array(items) => Some(
            items
                .iter()
                .any(|i| matches!(&i.value, Value::Str(s) if s == key)),
        ),
        Value::Str(s) => Some(s.contains(key)),
        _ => None,
    };
    match (has("id"), has("version")) {
        (None, _) => format!("argument of type '{}' is not iterable", type_name(root)),
        (Some(false), _) => "missing required field: id".to_owned(),
        (_, Some(false)) => "missing required field: version".to_owned(),
        _ => format!("'{}' object has no attribute 'get'", type_name(root)),
    }
}

/// `load_plugin_manifest`: the first failing check, or what the manifest declares.
#[allow(clippy::result_large_err)] // the first finding is the whole result, not a hot-path error
pub(crate) fn load<'a>(root: &'a Node<'a>) -> Result<Loaded<'a>, Finding> {
    if !matches!(root.value, Value::Table(_)) {
        return Err(fail(
            Code::AworldNotObject,
            format!(
                "the manifest must be a JSON object, not {}",
                type_name(root)
            ),
            ptr![],
        ));
    }
    for key in ["id", "version"] {
        if root.get(key).is_none() {
            return Err(fail(
                Code::AworldMissingField,
                format!("missing required field: {key}"),
                ptr![key],
            )
            .on_key());
        }
    }
    let entrypoints = root.get("entrypoints").map(|e| &e.node);
    if let Some(ep) = entrypoints
        && !matches!(ep.value, Value::Table(_))
    {
        return Err(fail(
            Code::AworldNotMapping,
            "entrypoints must be a mapping",
            ptr!["entrypoints"],
        ));
    }
    falsy_or(root, "source", true)?;
    falsy_or(root, "policy", true)?;
    falsy_or(root, "dependencies", false)?;
    falsy_or(root, "conflicts", false)?;
    let mut kinds = Vec::new();
    if let Some(ep) = entrypoints {
        for (kind, items) in dict_items(ep) {
            kinds.push((kind, entrypoints_of(kind, items)?));
        }
    }
    if let Some(lc) = root.get("lifecycle")
        && matches!(
            lc.node.value,
            Value::Null | Value::Bool(_) | Value::Int(_) | Value::BigInt(_) | Value::Float(_)
        )
    {
        return Err(not_iterable(&lc.node, ptr!["lifecycle"]));
    }
    let strings = |key: &str| -> Vec<String> {
        match root.get(key).map(|e| &e.node.value) {
            Some(Value::Array(items)) => items.iter().map(py_str).collect(),
            _ => Vec::new(),
        }
    };
    Ok(Loaded {
        id: py_str(&root.get("id").expect("checked above").node),
        kinds,
        dependencies: strings("dependencies"),
        conflicts: strings("conflicts"),
    })
}

/// Where an entrypoint sits (`entrypoints.<kind>[i]`), made into a pointer only for a
/// finding: most entrypoints have none, and building each one's pointer (and its
/// children's) was most of the loader's and the lints' allocations (docs/PERFORMANCE.md,
/// issue 43).
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) kind: &'a str,
    pub(super) i: usize,
}

impl At<'_> {
    pub(super) fn ptr(self) -> Pointer {
        let mut at = kind_at(self.kind);
        at.0.push(Seg::Index(self.i));
        at
    }

    /// The pointer to `keys` below the entrypoint.
    pub(super) fn join(self, keys: &[&'static str]) -> Pointer {
        let mut at = self.ptr();
        at.0.extend(keys.iter().map(|k| Seg::from(*k)));
        at
    }
}

/// Where a kind's entrypoints sit: `entrypoints.<kind>`.
pub(super) fn kind_at(kind: &str) -> Pointer {
    ptr!["entrypoints", kind.to_owned()]
}

/// One kind's entrypoints, checked as the loader iterates them.
#[allow(clippy::result_large_err)] // the first finding is the whole result, not a hot-path error
fn entrypoints_of<'a>(
    kind: &'a str,
    items: &'a Node<'a>,
) -> Result<Vec<(usize, &'a Node<'a>)>, Finding> {
    let at = || kind_at(kind);
    let list: &[Node] = match &items.value {
        Value::Array(list) => list,
        // A string iterates characters, a mapping its keys: both are not objects.
        Value::Str(s) if !s.is_empty() => {
            return Err(fail(
                Code::AworldEntrypointNotObject,
                "entrypoint must be an object",
                at(),
            ));
        }
        Value::Table(t) if !t.is_empty() => {
            return Err(fail(
                Code::AworldEntrypointNotObject,
                "entrypoint must be an object",
                at(),
            ));
        }
        Value::Str(_) | Value::Table(_) => &[],
        _ => return Err(not_iterable(items, at())),
    };
    let mut seen: Vec<(usize, &Node)> = Vec::new();
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let here = At { kind, i };
        if !matches!(item.value, Value::Table(_)) {
            return Err(fail(
                Code::AworldEntrypointNotObject,
                "entrypoint must be an object",
                here.ptr(),
            ));
        }
        let Some(id) = item.get("id").map(|e| &e.node) else {
            return Err(fail(Code::AworldMissingField, "entrypoint is missing required field: id", here.join(&["id"]))
                .on_key()
                .help("the host raises KeyError('id'), which `aworld-cli plugins validate` misreports as \"Plugin 'None' is not installed\""));
        };
        if matches!(id.value, Value::Array(_) | Value::Table(_)) {
            return Err(fail(
                Code::AworldTypeError,
                format!("unhashable type: '{}'", type_name(id)),
                here.join(&["id"]),
            ));
        }
        if let Some((first, _)) = seen.iter().find(|(_, s)| py_eq(s, id)) {
            return Err(fail(
                Code::AworldDuplicateEntrypoint,
                format!("duplicate entrypoint id: {kind}:{}", py_str(id)),
                here.join(&["id"]),
            )
            .also(At { kind, i: *first }.join(&["id"]), "first used here"));
        }
        seen.push((i, id));
        for key in ["metadata", "permissions"] {
            if let Some(e) = item.get(key)
                && !matches!(e.node.value, Value::Null | Value::Table(_))
            {
                return Err(fail(
                    Code::AworldNotMapping,
                    format!("{key} must be a mapping"),
                    here.join(&[key]),
                ));
            }
        }
        out.push((i, item));
    }
    Ok(out)
}

/// `validate_plugin_path`'s containment pass: the first escaping target (`root`'s
/// canonical path, when known, saves resolving it again).
#[allow(clippy::result_large_err)] // the first finding is the whole result, not a hot-path error
pub(crate) fn check_targets_at<'a>(
    loaded: &Loaded<'a>,
    root: &Path,
    canonical: Option<&Path>,
) -> Result<Targets<'a>, Finding> {
    let canonical = canonical.map_or_else(|| fs_err::canonicalize(root), |c| Ok(c.to_path_buf()));
    // Each target is resolved below the canonical root (as the host's
    // `(root / target).resolve()`); a root that cannot be canonicalized is
    // resolved from `/`, component by component.
    let mut lookups = contain::Lookups::default();
    let mut targets = Targets::default();
    let mut resolve = |target: &str| match &canonical {
        Ok(canonical) => contain::resolve_below_in(&mut lookups, canonical, target),
        Err(_) => {
            contain::resolve(root, target).map(|path| contain::Resolved { path, exists: None })
        }
    };
    let canonical = canonical.as_deref().unwrap_or(root);
    for (kind, eps) in &loaded.kinds {
        for (i, ep) in eps {
            let Some(target) = ep.get("target").map(|e| &e.node).filter(|t| truthy(t)) else {
                continue;
            };
            // Built only for a failure: most targets pass.
            let at = || At { kind, i: *i }.join(&["target"]);
            let Value::Str(target) = &target.value else {
                return Err(fail(
                    Code::AworldTypeError,
                    format!(
                        "unsupported operand type(s) for /: 'PosixPath' and '{}'",
                        type_name(target)
                    ),
                    at(),
                ));
            };
            if let Some(message) = unencodable(canonical, target) {
                return Err(fail(Code::AworldPathError, message, at()));
            }
            match resolve(target) {
                Ok(p) if contain::inside(canonical, &p.path) => {
                    targets.0.insert(target, p.exists);
                }
                Ok(_) => {
                    return Err(fail(
                        Code::AworldEscapesRoot,
                        format!("asset path escapes plugin root for {}: {target}", loaded.id),
                        at(),
                    ));
                }
                Err(ResolveError::Loop(p)) => {
                    return Err(fail(
                        Code::AworldPathError,
                        format!(
                            "Symlink loop from {}",
                            py_repr(&str_node(&p.to_string_lossy()))
                        ),
                        at(),
                    ));
                }
                Err(ResolveError::Nul) => {
                    return Err(fail(Code::AworldPathError, "embedded null byte", at()));
                }
            }
        }
    }
    Ok(targets)
}

/// Whether each target [`check_targets_at`] resolved exists, where its lookups told it.
#[derive(Default)]
pub(crate) struct Targets<'a>(std::collections::HashMap<&'a str, Option<bool>>);

impl Targets<'_> {
    /// Whether `root/target` exists (following links), as `Path::exists` answers: from the
    /// containment check's lookups when they tell it, else asked again.
    pub(crate) fn exist(&self, root: &Path, target: &str) -> bool {
        self.0
            .get(target)
            .copied()
            .flatten()
            .unwrap_or_else(|| root.join(target).exists())
    }
}

/// The `UnicodeEncodeError` the host's `(root / target).resolve()` raises for a lone
/// surrogate (`"\ud800"`, read as its stand-in) in `target`: `realpath` walks the target
/// one component at a time, `os.lstat`ing each joined path, whose file-system encoding
/// (UTF-8 with `surrogateescape`) fails on the first run of surrogates that holds one
/// outside U+DC80–U+DCFF (those are raw bytes). The position counts characters of the
/// joined path, so it depends on where the plugin is (the root's canonical path). `None`
/// when the walk gets past every component, or stops first at a NUL byte or a symlink loop
/// (which the resolution reports).
fn unencodable(canonical: &Path, target: &str) -> Option<String> {
    use crate::manifest::pyval::surrogate_of;
    let raw = |c: char| surrogate_of(c).is_some_and(|u| (0xdc80..=0xdcff).contains(&u));
    if !target.chars().any(|c| surrogate_of(c).is_some() && !raw(c)) {
        return None;
    }
    let (start, rest) = match target.strip_prefix('/') {
        Some(rest) => (Path::new("/"), rest),
        None => (canonical, target),
    };
    let mut walked: Vec<&str> = Vec::new();
    for name in rest.split('/') {
        if name.is_empty() || name == "." {
            continue;
        }
        if name.contains('\0') {
            return None;
        }
        let chars: Vec<char> = name.chars().collect();
        // CPython's UTF-8 encoder: a run of surrogates goes to `surrogateescape`, which
        // turns its leading U+DC80–U+DCFF into bytes and fails from the first other one
        // to the end of the run.
        let mut i = 0;
        let mut bad = None;
        while i < chars.len() {
            if surrogate_of(chars[i]).is_none() {
                i += 1;
                continue;
            }
            let end = i + chars[i..]
                .iter()
                .take_while(|c| surrogate_of(**c).is_some())
                .count();
            if let Some(k) = (i..end).find(|&k| !raw(chars[k])) {
                bad = Some((k, end));
                break;
            }
            i = end;
        }
        let Some((k, end)) = bad else {
            walked.push(name);
            continue;
        };
        let prefix = contain::resolve_below(start, &walked.join("/")).ok()?;
        let prefix = prefix.to_string_lossy();
        let sep = usize::from(!prefix.ends_with('/'));
        let at = prefix.chars().count() + sep + k;
        return Some(if end - k == 1 {
            let unit = surrogate_of(chars[k]).unwrap_or(0xd800);
            format!(
                "'utf-8' codec can't encode character '\\u{unit:04x}' in position {at}: surrogates not allowed"
            )
        } else {
            format!(
                "'utf-8' codec can't encode characters in position {at}-{}: surrogates not allowed",
                at + end - k - 1
            )
        });
    }
    None
}

fn str_node(s: &str) -> Node<'static> {
    Node {
        span: 0..0,
        value: Value::Str(s.to_owned().into()),
    }
}
