//! The spanned tree as a JSON Schema instance, read in place.
//!
//! `jsonschema` validates any representation that implements its `json` traits. The
//! manifest's [`Node`] tree is one, so a schema check no longer builds a
//! `serde_json::Value` copy of every manifest first (the copy and its drop were about
//! two thirds of the check's instructions on a `validate -r`). The view is the one
//! [`Node::to_json`] builds, node for node: a datetime is a one-key object
//! `{"$datetime": text}`, an integer past `i64` a float, a non-finite float `null`, and
//! a table with a duplicate key (YAML, JSON) has that key once, where it first appears,
//! with its last value. A test validates documents with each of these both ways and
//! compares every error.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node as JsonNode, NodeIdentity, Object};
use serde_json::Value as Json_;

use super::doc::{Entry, Node, Value};

/// The key of a datetime's one-key object ([`Node::to_json`]).
const DATETIME: &str = "$datetime";

/// The representation: nodes of a [`Node`] tree.
pub struct Doc;

/// One value of the view.
#[derive(Clone, Copy)]
pub enum At<'a> {
    /// A node of the tree.
    Node(&'a Node<'a>),
    /// The string inside a datetime's object.
    Text(&'a str),
}

impl Json for Doc {
    type Node<'a> = At<'a>;
    type PreparedKey = String;
    type StringBuffer = ();

    // As `jsonschema`'s own `serde_json` representation, so that the same strategies (and
    // so the same order of errors) are chosen: a tree, small tables.
    const KEYS_PER_LOOKUP: usize = 2;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(At<'_>) -> T) -> T {
        f(At::Text(string))
    }
}

/// A number of the view: the `serde_json::Number` [`Node::to_json`] makes, read as
/// `jsonschema` reads that one.
pub struct Number(serde_json::Number);

impl JsonNumber for Number {
    fn as_u64(&self) -> Option<u64> {
        JsonNumber::as_u64(&&self.0)
    }
    fn as_i64(&self) -> Option<i64> {
        JsonNumber::as_i64(&&self.0)
    }
    fn as_f64(&self) -> Option<f64> {
        JsonNumber::as_f64(&&self.0)
    }
    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.0.to_string())
    }
    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Borrowed(&self.0)
    }
    fn is_integer(&self) -> bool {
        JsonNumber::is_integer(&&self.0)
    }
    fn is_written_as_integer(&self) -> bool {
        JsonNumber::is_written_as_integer(&&self.0)
    }
}

/// The number a value is in the view, if it is one.
fn number(value: &Value) -> Option<serde_json::Number> {
    match value {
        Value::Int(i) => Some(serde_json::Number::from(*i)),
        Value::BigInt(i) => i.parse::<f64>().ok().and_then(serde_json::Number::from_f64),
        Value::Float(x) => serde_json::Number::from_f64(*x),
        _ => None,
    }
}

impl<'a> JsonNode<'a, Doc> for At<'a> {
    type Object = Members<'a>;
    type Array = &'a [Node<'a>];
    type Number = Number;

    fn as_object(&self) -> Option<Members<'a>> {
        match self {
            At::Node(n) => match &n.value {
                Value::Table(entries) => Some(Members::Table(entries)),
                Value::Datetime(d) => Some(Members::Datetime(d)),
                _ => None,
            },
            At::Text(_) => None,
        }
    }

    fn as_array(&self) -> Option<&'a [Node<'a>]> {
        match self {
            At::Node(Node {
                value: Value::Array(items),
                ..
            }) => Some(items),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        match self {
            At::Node(Node {
                value: Value::Str(s),
                ..
            }) => Some(Cow::Borrowed(s)),
            At::Text(s) => Some(Cow::Borrowed(s)),
            At::Node(_) => None,
        }
    }

    fn as_number(&self) -> Option<Number> {
        match self {
            At::Node(n) => number(&n.value).map(Number),
            At::Text(_) => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self {
            At::Node(Node {
                value: Value::Bool(b),
                ..
            }) => Some(*b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.json_type() == JsonType::Null
    }

    fn json_type(&self) -> JsonType {
        let At::Node(n) = self else {
            return JsonType::String;
        };
        match &n.value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Int(_) => JsonType::Number,
            v @ (Value::BigInt(_) | Value::Float(_)) => {
                if number(v).is_some() {
                    JsonType::Number
                } else {
                    JsonType::Null
                }
            }
            Value::Str(_) => JsonType::String,
            Value::Datetime(_) | Value::Table(_) => JsonType::Object,
            Value::Array(_) => JsonType::Array,
        }
    }

    fn equals_value(&self, expected: &Json_) -> bool {
        // A string equals only the same string; everything else as `jsonschema` compares
        // the `serde_json` view.
        match self.as_string() {
            Some(s) => expected.as_str() == Some(&*s),
            None => jsonschema::json::cmp::equal(&self.to_value(), expected),
        }
    }

    fn to_value(&self) -> Cow<'a, Json_> {
        Cow::Owned(match self {
            At::Node(n) => n.to_json(),
            At::Text(s) => Json_::String((*s).to_owned()),
        })
    }

    fn identity(&self) -> Option<NodeIdentity> {
        match self {
            At::Node(n) => Some(NodeIdentity::new(std::ptr::from_ref::<Node>(n) as usize)),
            // A string never holds another node.
            At::Text(_) => None,
        }
    }
}

/// An object of the view: a table, or a datetime's one-key object.
#[derive(Clone, Copy)]
pub enum Members<'a> {
    Table(&'a [Entry<'a>]),
    Datetime(&'a str),
}

/// Whether `entries[i]` is the first entry with its key (the one a map keeps the place of).
fn first_of_key(entries: &[Entry<'_>], i: usize) -> bool {
    !entries[..i].iter().any(|e| e.key == entries[i].key)
}

/// The value of `entries[i]`'s key: the last entry with it (the one a map keeps).
fn last_of_key<'a>(entries: &'a [Entry<'a>], i: usize) -> &'a Node<'a> {
    entries[i + 1..]
        .iter()
        .rev()
        .find(|e| e.key == entries[i].key)
        .map_or(&entries[i].node, |e| &e.node)
}

impl<'a> Object<'a, Doc> for Members<'a> {
    type Node = At<'a>;
    type MemberName = &'a str;
    type MembersIter = Box<dyn Iterator<Item = (&'a str, At<'a>)> + 'a>;

    fn len(&self) -> usize {
        match self {
            Members::Table(entries) => (0..entries.len())
                .filter(|i| first_of_key(entries, *i))
                .count(),
            Members::Datetime(_) => 1,
        }
    }

    fn get(&self, key: &String) -> Option<At<'a>> {
        match self {
            // The last entry with the key holds its value, as in a map.
            Members::Table(entries) => entries
                .iter()
                .rev()
                .find(|e| e.key == *key)
                .map(|e| At::Node(&e.node)),
            Members::Datetime(d) => (key == DATETIME).then_some(At::Text(d)),
        }
    }

    fn members(&self) -> Self::MembersIter {
        match *self {
            Members::Table(entries) => Box::new(
                (0..entries.len())
                    .filter(move |i| first_of_key(entries, *i))
                    .map(move |i| (entries[i].key.as_ref(), At::Node(last_of_key(entries, i)))),
            ),
            Members::Datetime(d) => Box::new(std::iter::once((DATETIME, At::Text(d)))),
        }
    }
}

impl<'a> Array<'a, Doc> for &'a [Node<'a>] {
    type Node = At<'a>;
    type ElementsIter = std::iter::Map<std::slice::Iter<'a, Node<'a>>, fn(&'a Node<'a>) -> At<'a>>;

    fn len(&self) -> usize {
        <[Node<'a>]>::len(self)
    }

    fn elements(&self) -> Self::ElementsIter {
        self.iter().map(At::Node)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::format::{parse_json, parse_toml, parse_yaml};

    /// Every error, in order: where, what the schema says, and the message.
    fn errors_of<'a, F: Json>(
        validator: &'a jsonschema::Validator<F>,
        instance: F::Node<'a>,
    ) -> Vec<(String, String, String)> {
        validator
            .iter_errors(instance)
            .map(|e| {
                (
                    e.instance_path().to_string(),
                    e.schema_path().to_string(),
                    e.to_string(),
                )
            })
            .collect()
    }

    /// The tree read in place gives the errors, in order and word for word, that its
    /// `serde_json` copy gives: the three hosts' schemas, documents from all three formats
    /// with every kind of value the view maps (datetimes, integers past `i64`, non-finite
    /// floats, duplicate keys) in right and wrong places.
    #[test]
    fn the_tree_validates_as_its_json_copy() {
        let schemas = [
            crate::host::testing::aoe::schema(crate::host::testing::aoe::Profile::H15),
            serde_json::from_str(crate::host::testing::aworld::SCHEMA).unwrap(),
            serde_json::from_str(crate::host::testing::protoagent::SCHEMA).unwrap(),
        ];
        let docs: Vec<Node> = [
            parse_toml("id = \"dev.x.y\"\nversion = \"1.0.0\"\nname = \"Y\"\n[runtime]\nkind = \"command\"\ncommand = [\"run\"]\n"),
            parse_toml("id = 1979-05-27T07:32:00Z\nversion = 1.5\nname = inf\nextra = nan\n[[settings]]\nkey = \"k\"\ntype = \"bool\"\ndefault = 3\n[runtime]\nkind = \"self-exec\"\nwhen = 07:32:00\n"),
            parse_toml("id = \"aoe.x\"\nversion = \"x\"\ncapabilities = [\"a\", \"a\", 1]\n[hooks]\non = { at = 1979-05-27 }\n"),
            parse_yaml("name: p\nname: 2\nversion: 99999999999999999999\nskills: [1, .inf, ~]\nmcp:\n  a: {command: 1}\n  a: {url: x}\n"),
            parse_yaml("name: [a]\ndescription: 1e400\nversion: -0.0\nkeywords: {x: 1}\n"),
            parse_json(r#"{"name": "p", "name": 3, "version": 1.0, "author": {"name": 1, "name": "a"}, "skills": 12345678901234567890123}"#),
            parse_json(r#"{"name": "good-plugin", "version": "1.0.0", "description": "d"}"#),
            parse_json("[1, 2]"),
        ]
        .into_iter()
        .map(|d| d.expect("parses"))
        .collect();
        let mut compared = 0;
        for schema in &schemas {
            let ours = super::super::schema::compile(schema);
            let theirs = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft7)
                .build(schema)
                .unwrap();
            for doc in &docs {
                let copy = doc.to_json();
                let expected = errors_of(&theirs, &copy);
                assert_eq!(errors_of(&ours, At::Node(doc)), expected, "{copy}");
                assert_eq!(
                    ours.is_valid(At::Node(doc)),
                    theirs.is_valid(&copy),
                    "{copy}"
                );
                compared += expected.len();
            }
        }
        assert!(compared > 40, "{compared}");
    }
}
