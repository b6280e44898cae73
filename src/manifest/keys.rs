//! The keys a JSON Schema declares, table by table: what the unknown-key lints of aoe and
//! protoAgent walk a manifest against (`properties` in the schema's order, since a
//! did-you-mean picks from them in that order; `additionalProperties: false`; `items`).
//!
//! Read from a schema value ([`Keys::of`], aoe's, which is built in code) or straight from a
//! schema's text ([`Keys::from_text`], protoAgent's embedded file), which skips descriptions
//! without building a JSON value of the whole schema (docs/PERFORMANCE.md, issue 43).

use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};

/// The keys one schema declares, each with its own.
#[derive(Debug, Default, PartialEq, Deserialize)]
pub struct Keys {
    /// `properties`, in the schema's order; `None` where the schema declares none.
    #[serde(default, rename = "properties", deserialize_with = "in_order")]
    pub props: Option<Vec<(String, Keys)>>,
    /// `additionalProperties: false`.
    #[serde(
        default,
        rename = "additionalProperties",
        deserialize_with = "is_false"
    )]
    pub closed: bool,
    /// `items`.
    #[serde(default)]
    pub items: Option<Box<Keys>>,
}

impl Keys {
    /// The keys of a schema value.
    pub fn of(schema: &serde_json::Value) -> Keys {
        Keys {
            props: schema
                .get("properties")
                .and_then(serde_json::Value::as_object)
                .map(|props| {
                    props
                        .iter()
                        .map(|(k, sub)| (k.clone(), Keys::of(sub)))
                        .collect()
                }),
            closed: schema.get("additionalProperties") == Some(&serde_json::Value::Bool(false)),
            items: schema.get("items").map(|items| Box::new(Keys::of(items))),
        }
    }

    /// These keys as the JSON text of a schema that declares only them (what
    /// [`Keys::from_text`] reads back), for the keys a build embeds.
    #[cfg(test)]
    pub fn to_text(&self) -> String {
        fn value(keys: &Keys) -> serde_json::Value {
            let mut schema = serde_json::Map::new();
            if let Some(props) = &keys.props {
                let props = props.iter().map(|(k, sub)| (k.clone(), value(sub)));
                schema.insert("properties".into(), props.collect());
            }
            if keys.closed {
                schema.insert("additionalProperties".into(), false.into());
            }
            if let Some(items) = &keys.items {
                schema.insert("items".into(), value(items));
            }
            schema.into()
        }
        let mut text = serde_json::to_string_pretty(&value(self)).expect("a JSON value");
        text.push('\n');
        text
    }

    /// The keys of a schema's JSON text, read without building its value.
    pub fn from_text(text: &str) -> serde_json::Result<Keys> {
        serde_json::from_str(text)
    }

    /// The keys declared for `key`, if the schema declares it.
    pub fn get(&self, key: &str) -> Option<&Keys> {
        self.props
            .as_deref()?
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, sub)| sub)
    }
}

/// A JSON object's members in the order written.
fn in_order<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Vec<(String, Keys)>>, D::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, Keys)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object of schemas")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(entry) = map.next_entry()? {
                out.push(entry);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Members).map(Some)
}

/// Whether `additionalProperties` is `false` (a schema there is not).
fn is_false<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct False;
    impl<'de> Visitor<'de> for False {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a boolean or a schema")
        }
        fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<bool, E> {
            Ok(!b)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(false)
        }
    }
    d.deserialize_any(False)
}

#[cfg(test)]
mod tests {
    use super::Keys;

    /// Read from the text, the keys are those of the schema's value, in order.
    #[test]
    fn the_text_and_the_value_give_the_same_keys() {
        let text = r#"{"description": "d", "type": "object", "additionalProperties": false,
            "properties": {"b": {"type": "string"}, "a": {"additionalProperties": {"type": "x"},
            "properties": {"z": {}}}, "l": {"items": {"properties": {"k": {}},
            "additionalProperties": true}}}}"#;
        let keys = Keys::from_text(text).unwrap();
        assert_eq!(keys, Keys::of(&serde_json::from_str(text).unwrap()));
        assert!(keys.closed);
        assert_eq!(keys.get("a").map(|a| a.closed), Some(false));
        assert_eq!(
            keys.props
                .iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            ["b", "a", "l"]
        );
    }
}
