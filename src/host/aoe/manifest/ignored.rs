//! Keys the host ignores: those its lenient tables accept but no field of its serde
//! structs reads (spec `aoe.md` §19 step 6), found from the manifest's JSON Schema.

use crate::diagnostic::{Code, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Seg, Value};
use crate::manifest::keys::Keys;
use crate::ptr;
/// Keys in lenient tables that the host silently ignores.
pub(super) fn ignored_keys(doc: &Node<'_>, keys: Keys) -> Vec<Finding> {
    let mut out = Vec::new();
    walk_keys(doc, keys, &mut Vec::new(), &mut out);
    // `[runtime]` is one table for both kinds; keys of the other kind are inert.
    if let Some(runtime) = doc.get("runtime") {
        let kind = runtime.node.get("kind").and_then(|e| e.node.as_str());
        let foreign: &[&str] = match kind {
            Some("command") => &["asset", "bin"],
            Some("release-binary") => &["command", "system", "build"],
            _ => &[],
        };
        for key in foreign {
            if runtime.node.get(key).is_some() {
                out.push(
                    Finding::new(
                        Code::AoeIgnoredKey,
                        format!(
                            "`{key}` has no effect on a `{}` runtime and is ignored by the host",
                            kind.unwrap_or_default()
                        ),
                        ptr!["runtime", *key],
                    )
                    .on_key(),
                );
            }
        }
    }
    out
}

/// Keys the schema does not declare where it leaves the table open: the host ignores them.
/// Only tables and arrays are descended into, and a pointer is built only for a finding
/// (this walk runs on every manifest of a `-r` run): `path` holds the steps down to `node`.
fn walk_keys<'a>(node: &'a Node<'a>, keys: Keys, path: &mut Vec<Step<'a>>, out: &mut Vec<Finding>) {
    let nested = |n: &Node| matches!(n.value, Value::Table(_) | Value::Array(_));
    match &node.value {
        Value::Table(entries) => {
            let Some(props) = keys.props() else {
                return;
            };
            for e in entries {
                let Some((_, sub)) = props.iter().find(|(k, _)| *k == e.key) else {
                    if !keys.closed() {
                        let at = pointer(path);
                        let place = if at.0.is_empty() {
                            "the top level".to_owned()
                        } else {
                            at.dotted()
                        };
                        let f = Finding::new(
                            Code::AoeIgnoredKey,
                            format!("unknown key `{}` in {place} is ignored by the host", e.key),
                            at.join(e.key.clone()),
                        )
                        .on_key();
                        out.push(match did_you_mean(&e.key, props.iter().map(|(k, _)| *k)) {
                            Some(s) => f.help(format!("did you mean `{s}`?")).fix(s),
                            None => f,
                        });
                    }
                    continue;
                };
                if nested(&e.node) {
                    path.push(Step::Key(&e.key));
                    walk_keys(&e.node, Keys::of(sub), path, out);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_keys) = keys.items() {
                for (i, item) in items.iter().enumerate() {
                    if nested(item) {
                        path.push(Step::Index(i));
                        walk_keys(item, item_keys, path, out);
                        path.pop();
                    }
                }
            }
        }
        _ => {}
    }
}

/// One step of the path [`walk_keys`] is at, borrowed from the document.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The pointer of a path.
fn pointer(path: &[Step<'_>]) -> Pointer {
    Pointer(
        path.iter()
            .map(|step| match step {
                Step::Key(k) => Seg::from((*k).to_owned()),
                Step::Index(i) => Seg::Index(*i),
            })
            .collect(),
    )
}
