//! Unknown and duplicate keys, against the keys `plugin.schema.json` declares.
//!
//! The walk needs only the schema's `properties` (in order: a did-you-mean picks from them in
//! that order) and `items`, which are compiled in (`schema_keys.rs`, the schema's
//! `manifest::keys::keys_only`, checked against the embedded schema by
//! `tests::the_compiled_keys_are_the_schemas`): building a JSON value of
//! the whole schema was a quarter of one protoAgent root's instructions, and reading its
//! keys from the text at start another 15% (docs/PERFORMANCE.md, issue 43).

use super::{KEYS_0218, Out, Profile, warn};
use crate::diagnostic::{Code, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::keys::Keys;

/// Unknown keys (the host ignores them) and duplicates (the last wins), recursively
/// where the schema describes the table.
pub(super) fn keys(doc: &Node, profile: Profile, out: &mut Out) {
    walk(
        doc,
        Keys::of(&super::schema_keys::KEYS),
        &Pointer::default(),
        profile,
        out,
    );
}

fn walk(node: &Node, schema: Keys, at: &Pointer, profile: Profile, out: &mut Out) {
    match &node.value {
        Value::Table(entries) => {
            let declared = schema.props();
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
                    && (at.0.is_empty() && KEYS_0218.contains(&e.key.as_ref())
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
                    walk(&e.node, Keys::of(sub), &here, profile, out);
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
                    if let Some(s) = did_you_mean(&e.key, known.iter().map(|(k, _)| *k)) {
                        f = f.help(format!("did you mean `{s}`?"));
                        f = f.fix(s);
                    }
                    warn(out, f);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = schema.items().filter(|i| i.props().is_some()) {
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
    /// The compiled-in keys are the embedded schema's, in order.
    #[test]
    fn the_compiled_keys_are_the_schemas() {
        crate::manifest::static_json::check_compiled(
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/src/host/protoagent/manifest/lint/schema_keys.rs"
            ),
            "The keys protoAgent's `plugin.schema.json` declares (`crate::manifest::keys`)",
            "host::protoagent::manifest::lint::keys::tests::the_compiled_keys_are_the_schemas",
            &[(
                "KEYS",
                &crate::manifest::keys::keys_only(super::super::super::schema_value()),
                &super::super::schema_keys::KEYS,
            )],
        );
    }
}
