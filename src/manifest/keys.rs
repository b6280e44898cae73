//! The keys a JSON Schema declares, table by table: what the unknown-key lints of aoe and
//! protoAgent walk a manifest against (`properties` in the schema's order, since a
//! did-you-mean picks from them in that order; `additionalProperties: false`; `items`).
//!
//! The schemas are compiled in as [`StaticJson`] (`crate::manifest::static_json`): aoe's
//! lint walks the constraints its structural findings evaluate, protoAgent's the
//! [`keys_only`] part of its schema. Reading them from the schema's text at run time was 6%
//! of one aoe root's instructions and 15% of a protoAgent root's (docs/PERFORMANCE.md,
//! issue 43).

use super::static_json::StaticJson;

/// The keys one compiled-in schema declares.
#[derive(Clone, Copy, Debug)]
pub struct Keys(&'static StaticJson);

impl Keys {
    pub fn of(schema: &'static StaticJson) -> Keys {
        Keys(schema)
    }

    /// `properties`, in the schema's order; `None` where the schema declares none.
    pub fn props(self) -> Option<&'static [(&'static str, StaticJson)]> {
        self.0.get("properties")?.as_object()
    }

    /// The keys declared for `key`, if the schema declares it.
    pub fn get(self, key: &str) -> Option<Keys> {
        self.props()?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, sub)| Keys(sub))
    }

    /// `additionalProperties: false`.
    pub fn closed(self) -> bool {
        self.0.get("additionalProperties") == Some(&StaticJson::Bool(false))
    }

    /// `items`.
    pub fn items(self) -> Option<Keys> {
        self.0.get("items").map(Keys)
    }
}

/// The part of `schema` that [`Keys`] reads: `properties` (each recursively), `items`
/// (recursively) and `additionalProperties: false`; what protoAgent's folder compiles in.
#[cfg(test)]
pub fn keys_only(schema: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    let mut out = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let props = props
            .iter()
            .map(|(k, sub)| (k.clone(), keys_only(sub)))
            .collect();
        out.insert("properties".to_owned(), Value::Object(props));
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    if let Some(items) = schema.get("items") {
        out.insert("items".to_owned(), keys_only(items));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::{Keys, keys_only};
    use crate::manifest::static_json::StaticJson as J;

    static SCHEMA: J = J::Object(&[
        ("additionalProperties", J::Bool(false)),
        (
            "properties",
            J::Object(&[
                ("b", J::Object(&[])),
                (
                    "a",
                    J::Object(&[
                        ("additionalProperties", J::Object(&[])),
                        ("properties", J::Object(&[("z", J::Object(&[]))])),
                    ]),
                ),
                (
                    "l",
                    J::Object(&[(
                        "items",
                        J::Object(&[
                            ("properties", J::Object(&[("k", J::Object(&[]))])),
                            ("additionalProperties", J::Bool(true)),
                        ]),
                    )]),
                ),
            ]),
        ),
    ]);

    /// The keys of a schema are its properties in order, its `additionalProperties: false`
    /// and its `items`; [`keys_only`] keeps exactly those.
    #[test]
    fn the_keys_of_a_schema() {
        let keys = Keys::of(&SCHEMA);
        assert!(keys.closed());
        assert_eq!(keys.get("a").map(Keys::closed), Some(false));
        let b = keys.get("b").unwrap();
        assert!(b.props().is_none() && !b.closed() && b.items().is_none());
        assert_eq!(
            keys.props()
                .into_iter()
                .flatten()
                .map(|(k, _)| *k)
                .collect::<Vec<_>>(),
            ["b", "a", "l"]
        );
        let item = keys.get("l").and_then(Keys::items).unwrap();
        assert_eq!(item.get("k").map(Keys::closed), Some(false));
        assert!(!item.closed());
        let schema = serde_json::json!({"description": "d", "type": "object",
            "additionalProperties": false,
            "properties": {"b": {"type": "string"}, "a": {"additionalProperties": {"type": "x"},
            "properties": {"z": {}}}, "l": {"items": {"properties": {"k": {}},
            "additionalProperties": true}}}});
        assert_eq!(
            keys_only(&schema),
            serde_json::json!({"properties": {"b": {}, "a": {"properties": {"z": {}}},
                "l": {"items": {"properties": {"k": {}}}}}, "additionalProperties": false})
        );
    }
}
