//! The keys a JSON Schema declares, table by table: what the unknown-key lints of aoe and
//! protoAgent walk a manifest against (`properties` in the schema's order, since a
//! did-you-mean picks from them in that order; `additionalProperties: false`; `items`).
//!
//! The keys of each built-in schema are compiled in, as a static each host folder holds
//! (`schema_keys.rs`, written from the schema by a test that fails when they differ):
//! reading them from the schema's text at run time was 6% of one aoe root's instructions and
//! 15% of a protoAgent root's (docs/PERFORMANCE.md, issue 43).

/// The keys one schema declares, each with its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Keys {
    /// `properties`, in the schema's order; `None` where the schema declares none.
    pub props: Option<&'static [(&'static str, Keys)]>,
    /// `additionalProperties: false`.
    pub closed: bool,
    /// `items`.
    pub items: Option<&'static Keys>,
}

impl Keys {
    /// A schema that declares nothing: no properties, open, no items.
    pub const ANY: Keys = Keys {
        props: None,
        closed: false,
        items: None,
    };

    /// The keys declared for `key`, if the schema declares it.
    pub fn get(&self, key: &str) -> Option<&Keys> {
        self.props?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, sub)| sub)
    }

    /// The keys of a schema value (tests: what the compiled-in keys are checked against).
    /// Leaks what it builds, as the compiled-in keys are `'static`.
    #[cfg(test)]
    pub fn of(schema: &serde_json::Value) -> Keys {
        Keys {
            props: schema
                .get("properties")
                .and_then(serde_json::Value::as_object)
                .map(|props| {
                    let props: Vec<_> = props
                        .iter()
                        .map(|(k, sub)| (&*k.clone().leak(), Keys::of(sub)))
                        .collect();
                    &*props.leak()
                }),
            closed: schema.get("additionalProperties") == Some(&serde_json::Value::Bool(false)),
            items: schema
                .get("items")
                .map(|items| &*Box::leak(Box::new(Keys::of(items)))),
        }
    }

    /// A Rust module that declares these keys as `pub(super) static KEYS` (what each host
    /// folder's `schema_keys.rs` holds), one property a line. `schema` names where they
    /// come from and `test` the test that writes the file.
    #[cfg(test)]
    pub fn to_rust(&self, schema: &str, test: &str) -> String {
        fn literal(keys: &Keys, depth: usize, out: &mut String) {
            if *keys == Keys::ANY {
                out.push_str("Keys::ANY");
                return;
            }
            out.push_str("Keys {\n");
            let pad = "    ".repeat(depth + 1);
            match keys.props {
                None => out.push_str(&format!("{pad}props: None,\n")),
                Some(props) => {
                    out.push_str(&format!("{pad}props: Some(&[\n"));
                    for (k, sub) in props {
                        out.push_str(&format!("{pad}    ({k:?}, "));
                        literal(sub, depth + 2, out);
                        out.push_str("),\n");
                    }
                    out.push_str(&format!("{pad}]),\n"));
                }
            }
            out.push_str(&format!("{pad}closed: {},\n", keys.closed));
            match keys.items {
                None => out.push_str(&format!("{pad}items: None,\n")),
                Some(items) => {
                    out.push_str(&format!("{pad}items: Some(&"));
                    literal(items, depth + 1, out);
                    out.push_str("),\n");
                }
            }
            out.push_str(&"    ".repeat(depth));
            out.push('}');
        }
        let mut out = format!(
            "//! The keys {schema} declares (`crate::manifest::keys`), written by\n\
             //! `{test}`\n\
             //! with `SNAPSHOTS=overwrite`: that test fails when they differ from the schema's.\n\n\
             use crate::manifest::keys::Keys;\n\n\
             pub(super) static KEYS: Keys = "
        );
        literal(self, 0, &mut out);
        out.push_str(";\n");
        out
    }
}

/// Check a host folder's `schema_keys.rs` against the keys of its schema, each value of
/// `schemas` (the host profiles: their keys must agree, or the lint needs a file per
/// profile); `SNAPSHOTS=overwrite` writes the file from the first. `compiled` is the
/// file's `KEYS` as this build compiled it.
#[cfg(test)]
// The test's own switch (not the program's environment).
#[allow(clippy::disallowed_methods)]
pub fn check_compiled(
    path: &str,
    schema: &str,
    test: &str,
    schemas: &[&serde_json::Value],
    compiled: &Keys,
) {
    let text = |v| Keys::of(v).to_rust(schema, test);
    if std::env::var_os("SNAPSHOTS").is_some_and(|v| v == "overwrite") {
        fs_err::write(path, text(schemas[0])).unwrap();
    }
    let written = fs_err::read_to_string(path).unwrap();
    for (i, value) in schemas.iter().enumerate() {
        assert_eq!(written, text(value), "schema {i}: SNAPSHOTS=overwrite");
        assert_eq!(*compiled, Keys::of(value), "rebuild: {path} changed");
    }
}

#[cfg(test)]
mod tests {
    use super::Keys;

    /// The keys of a value are its properties in order, its `additionalProperties: false`
    /// and its `items`; the Rust text declares them as a literal.
    #[test]
    fn the_keys_of_a_schema_and_their_rust() {
        let schema = serde_json::json!({"description": "d", "type": "object",
            "additionalProperties": false,
            "properties": {"b": {"type": "string"}, "a": {"additionalProperties": {"type": "x"},
            "properties": {"z": {}}}, "l": {"items": {"properties": {"k": {}},
            "additionalProperties": true}}}});
        let keys = Keys::of(&schema);
        assert!(keys.closed);
        assert_eq!(keys.get("a").map(|a| a.closed), Some(false));
        assert_eq!(keys.get("b"), Some(&Keys::ANY));
        assert_eq!(
            keys.props
                .iter()
                .flat_map(|p| p.iter())
                .map(|(k, _)| *k)
                .collect::<Vec<_>>(),
            ["b", "a", "l"]
        );
        snapbox::assert_data_eq!(
            keys.to_rust("the test's schema", "this test"),
            snapbox::str![[r#"
//! The keys the test's schema declares (`crate::manifest::keys`), written by
//! `this test`
//! with `SNAPSHOTS=overwrite`: that test fails when they differ from the schema's.

use crate::manifest::keys::Keys;

pub(super) static KEYS: Keys = Keys {
    props: Some(&[
        ("b", Keys::ANY),
        ("a", Keys {
            props: Some(&[
                ("z", Keys::ANY),
            ]),
            closed: false,
            items: None,
        }),
        ("l", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("k", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
    ]),
    closed: true,
    items: None,
};

"#]]
        );
    }
}
