//! Unknown and duplicate keys, against the keys `plugin.schema.json` declares.
//!
//! The walk needs only the schema's `properties` (in order: a did-you-mean picks from them in
//! that order) and `items`, so those are read straight from the embedded text
//! (`manifest::keys::Keys::from_text`),
//! skipping descriptions without building a JSON value of the whole schema, which was a
//! quarter of one protoAgent root's instructions (docs/PERFORMANCE.md, issue 43).

use std::sync::LazyLock;

use super::{KEYS_0218, Out, Profile, warn};
use crate::diagnostic::{Code, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::keys::Keys;

/// protoAgent's `plugin.schema.json`, read once.
fn of_schema() -> &'static Keys {
    static K: LazyLock<Keys> =
        LazyLock::new(|| Keys::from_text(super::super::SCHEMA).expect("embedded schema is JSON"));
    &K
}

/// Unknown keys (the host ignores them) and duplicates (the last wins), recursively
/// where the schema describes the table.
pub(super) fn keys(doc: &Node, profile: Profile, out: &mut Out) {
    walk(doc, of_schema(), &Pointer::default(), profile, out);
}

fn walk(node: &Node, schema: &Keys, at: &Pointer, profile: Profile, out: &mut Out) {
    match &node.value {
        Value::Table(entries) => {
            let declared = schema.props.as_deref();
            let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
            for e in entries {
                let here = at.join(e.key.clone());
                if !seen.insert(&e.key) {
                    warn(
                        out,
                        Finding::new(
                            Code::ProtoDuplicateKey,
                            format!("duplicate key `{}`; the last one wins", e.key),
                            here.clone(),
                        )
                        .on_key(),
                    );
                }
                let Some(known) = declared else {
                    continue;
                };
                let newer = profile == Profile::V0145
                    && (at.0.is_empty() && KEYS_0218.contains(&e.key.as_str())
                        || at.0.len() == 2
                            && at.0[0] == crate::manifest::doc::Seg::from("settings")
                            && e.key == "tab");
                if newer {
                    warn(
                        out,
                        Finding::new(
                            Code::ProtoUnknownKey,
                            format!(
                                "unknown key `{}` in {} is ignored by protoAgent 0.145",
                                e.key,
                                if at.0.is_empty() { "the manifest".to_owned() } else { at.dotted() }
                            ),
                            here,
                        )
                        .on_key()
                        .help("protoAgent 0.218 reads it; validate with `--host-version 0.218` for its rules"),
                    );
                } else if let Some((_, sub)) = known.iter().find(|(k, _)| *k == e.key) {
                    walk(&e.node, sub, &here, profile, out);
                } else {
                    let place = if at.0.is_empty() {
                        "the manifest".to_owned()
                    } else {
                        at.dotted()
                    };
                    let mut f = Finding::new(
                        Code::ProtoUnknownKey,
                        format!("unknown key `{}` in {place} is ignored by the host", e.key),
                        here,
                    )
                    .on_key();
                    if let Some(s) = did_you_mean(&e.key, known.iter().map(|(k, _)| k.as_str())) {
                        f = f.help(format!("did you mean `{s}`?"));
                        f = f.fix(s);
                    }
                    warn(out, f);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = schema.items.as_deref().filter(|i| i.props.is_some()) {
                for (i, n) in list.iter().enumerate() {
                    walk(n, item, &at.join(i), profile, out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::manifest::keys::Keys;

    /// The keys read from the text are the keys of the schema as a JSON value, in order.
    #[test]
    fn the_keys_are_the_schemas() {
        assert_eq!(
            super::of_schema(),
            &Keys::of(super::super::super::schema_value())
        );
    }
}
