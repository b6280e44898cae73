//! Keys the host ignores: those its lenient tables accept but no field of its serde
//! structs reads (spec `aoe.md` §19 step 6), found from the manifest's JSON Schema.

use crate::diagnostic::{Code, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::keys::Keys;
use crate::ptr;
/// Keys in lenient tables that the host silently ignores.
pub(super) fn ignored_keys(doc: &Node, keys: Keys) -> Vec<Finding> {
    let mut out = Vec::new();
    walk_keys(doc, keys, &Pointer::default(), &mut out);
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
/// Only tables and arrays are descended into, and a key's pointer is built only when it is
/// needed (this walk runs on every manifest of a `-r` run).
fn walk_keys(node: &Node, keys: Keys, at: &Pointer, out: &mut Vec<Finding>) {
    let nested = |n: &Node| matches!(n.value, Value::Table(_) | Value::Array(_));
    match &node.value {
        Value::Table(entries) => {
            let Some(props) = keys.props() else {
                return;
            };
            for e in entries {
                let Some((_, sub)) = props.iter().find(|(k, _)| *k == e.key.as_str()) else {
                    if !keys.closed() {
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
                    walk_keys(&e.node, Keys::of(sub), &at.join(e.key.clone()), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_keys) = keys.items() {
                for (i, item) in items.iter().enumerate() {
                    if nested(item) {
                        walk_keys(item, item_keys, &at.join(i), out);
                    }
                }
            }
        }
        _ => {}
    }
}
