//! One value tree for every manifest format, with the byte span of each key and value.
//!
//! TOML, JSON and YAML are all parsed into [`Node`]s so that schema errors and
//! semantic findings, which are addressed by a [`Pointer`], can be labelled on
//! the exact bytes of the source.

use std::borrow::Cow;
use std::fmt;

use crate::diagnostic::Span;

/// A value and the bytes it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Node<'t> {
    pub span: Span,
    pub value: Value<'t>,
}

/// A format-neutral value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'t> {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer past `i64` (Python's are unbounded), as its decimal text.
    BigInt(String),
    Float(f64),
    /// Borrowed from the manifest's text where it is written out there (no escape): a
    /// manifest's strings and keys were most of its allocations (issue 43).
    Str(Cow<'t, str>),
    /// A TOML datetime, kept as its source text.
    Datetime(String),
    Array(Vec<Node<'t>>),
    /// Entries in source order. A duplicate key (YAML/JSON) keeps every entry;
    /// lookups take the last one, as serde does.
    Table(Vec<Entry<'t>>),
}

/// One `key = value` of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry<'t> {
    pub key: Cow<'t, str>,
    pub key_span: Span,
    pub node: Node<'t>,
}

/// One step of a [`Pointer`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(Cow<'static, str>),
    Index(usize),
}

impl From<&'static str> for Seg {
    fn from(k: &'static str) -> Self {
        Seg::Key(Cow::Borrowed(k))
    }
}

impl From<String> for Seg {
    fn from(k: String) -> Self {
        Seg::Key(Cow::Owned(k))
    }
}

impl From<Cow<'_, str>> for Seg {
    fn from(k: Cow<'_, str>) -> Self {
        Seg::Key(Cow::Owned(k.into_owned()))
    }
}

impl From<usize> for Seg {
    fn from(i: usize) -> Self {
        Seg::Index(i)
    }
}

/// A path from the root to a value, like a JSON pointer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pointer(pub Vec<Seg>);

/// Build a [`Pointer`]: `ptr!["settings", i, "default"]`.
#[macro_export]
macro_rules! ptr {
    ($($seg:expr),* $(,)?) => {
        $crate::manifest::doc::Pointer(vec![$($crate::manifest::doc::Seg::from($seg)),*])
    };
}

impl Pointer {
    #[must_use]
    pub fn join(&self, seg: impl Into<Seg>) -> Pointer {
        let mut segs = self.0.clone();
        segs.push(seg.into());
        Pointer(segs)
    }

    /// Where a pointer lands, for messages: `settings[0].fields[1]`.
    pub fn dotted(&self) -> String {
        let mut out = String::new();
        for seg in &self.0 {
            match seg {
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        if out.is_empty() {
            "the top level".into()
        } else {
            out
        }
    }

    pub fn parent(&self) -> Option<Pointer> {
        let (_, rest) = self.0.split_last()?;
        Some(Pointer(rest.to_vec()))
    }
}

impl fmt::Display for Pointer {
    /// RFC 6901 form, e.g. `/settings/0/default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for seg in &self.0 {
            match seg {
                Seg::Key(k) => write!(f, "/{}", k.replace('~', "~0").replace('/', "~1"))?,
                Seg::Index(i) => write!(f, "/{i}")?,
            }
        }
        Ok(())
    }
}

/// Which bytes of an addressed entry to label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The key (`frobnicate` in `frobnicate = 1`); the value for array items.
    Key,
    /// The value.
    Value,
    /// No bytes: the start of the file. For findings about the plugin's files
    /// rather than the manifest (a symlink in the tree), which would otherwise
    /// underline the whole document.
    File,
}

/// Where pointers land in one document, each found in time linear in the pointer's
/// length: a table with many keys is indexed by key on its first lookup. A hostile manifest
/// may hold a hundred thousand unknown keys, each a finding whose span is looked up.
pub struct Locator<'a> {
    root: &'a Node<'a>,
    /// Each large table's entries by key (the last entry of a repeated key), by address.
    tables: std::cell::RefCell<std::collections::HashMap<*const Node<'a>, Index<'a>>>,
}

/// A large table's entries by key.
type Index<'a> = std::collections::HashMap<&'a str, &'a Entry<'a>>;

/// Tables up to this many entries are searched rather than indexed.
const SEARCHED: usize = 32;

impl<'a> Locator<'a> {
    pub fn new(root: &'a Node<'a>) -> Locator<'a> {
        Locator {
            root,
            tables: Default::default(),
        }
    }

    /// The document's root.
    pub fn root(&self) -> &'a Node<'a> {
        self.root
    }

    /// [`Node::get`] on `table`, indexed when it is large.
    pub fn get(&self, table: &'a Node<'a>, key: &str) -> Option<&'a Entry<'a>> {
        match &table.value {
            Value::Table(entries) if entries.len() > SEARCHED => {
                let mut tables = self.tables.borrow_mut();
                let index = tables
                    .entry(std::ptr::from_ref(table))
                    .or_insert_with(|| entries.iter().map(|e| (&*e.key, e)).collect());
                index.get(key).copied()
            }
            _ => table.get(key),
        }
    }

    /// The node at `pointer`, with the span of the key that holds it (if any).
    pub fn locate(&self, pointer: &Pointer) -> Option<(&'a Node<'a>, Option<Span>)> {
        let mut node = self.root;
        let mut key_span = None;
        for seg in &pointer.0 {
            match (seg, &node.value) {
                (Seg::Key(k), Value::Table(_)) => {
                    let entry = self.get(node, k)?;
                    key_span = Some(entry.key_span.clone());
                    node = &entry.node;
                }
                (Seg::Index(i), Value::Array(items)) => {
                    node = items.get(*i)?;
                    key_span = None;
                }
                _ => return None,
            }
        }
        Some((node, key_span))
    }

    /// The best span for `pointer`: the requested part if it exists, else the
    /// nearest ancestor that does (a missing key labels its parent table).
    pub fn span_of(&self, pointer: &Pointer, part: Part) -> Span {
        if part == Part::File {
            return 0..0;
        }
        let mut p = pointer.clone();
        loop {
            if let Some((node, key_span)) = self.locate(&p) {
                if p.0.is_empty() && !pointer.0.is_empty() {
                    // Missing at the top level: point at the start rather than
                    // underlining the whole document.
                    return 0..0;
                }
                return match (part, key_span) {
                    (Part::Key, Some(k)) if p == *pointer => k,
                    // A table reached by walking up: its key is the clearest label.
                    (_, Some(k)) if p != *pointer => k,
                    _ => node.span.clone(),
                };
            }
            match p.parent() {
                Some(parent) => p = parent,
                None => return 0..0,
            }
        }
    }
}

impl<'t> Node<'t> {
    /// The value under `key` in a table (the last one if the key repeats).
    pub fn get(&self, key: &str) -> Option<&Entry<'t>> {
        match &self.value {
            Value::Table(entries) => entries.iter().rev().find(|e| e.key == key),
            _ => None,
        }
    }

    pub fn as_table(&self) -> Option<&[Entry<'t>]> {
        match &self.value {
            Value::Table(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The node at `pointer`, with the span of the key that holds it (if any). For many
    /// pointers into one document, one [`Locator`].
    pub fn locate(&self, pointer: &Pointer) -> Option<(&Node<'_>, Option<Span>)> {
        Locator::new(self).locate(pointer)
    }

    /// The best span for `pointer`: the requested part if it exists, else the
    /// nearest ancestor that does (a missing key labels its parent table). For many
    /// pointers into one document, one [`Locator`].
    pub fn span_of(&self, pointer: &Pointer, part: Part) -> Span {
        Locator::new(self).span_of(pointer, part)
    }

    /// The type name users see in messages (`string`, `integer`, `table`, …).
    pub fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::BigInt(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Datetime(_) => "datetime",
            Value::Array(_) => "array",
            Value::Table(_) => "table",
        }
    }

    /// A short rendering of a scalar for messages; `None` for containers.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::Null => Some("null".into()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Int(i) => Some(i.to_string()),
            Value::BigInt(i) => Some(i.clone()),
            Value::Float(x) => Some(x.to_string()),
            Value::Str(s) => Some(format!("{s:?}")),
            Value::Datetime(d) => Some(d.clone()),
            Value::Array(_) | Value::Table(_) => None,
        }
    }

    /// The JSON view validated by JSON Schema. Datetimes become a one-key
    /// object so a schema expecting a string rejects them, as the host does.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::BigInt(i) => i
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map_or(J::Null, J::Number),
            Value::Float(x) => serde_json::Number::from_f64(*x).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.to_string()),
            Value::Datetime(d) => {
                let mut m = serde_json::Map::new();
                m.insert("$datetime".into(), J::String(d.clone()));
                J::Object(m)
            }
            Value::Array(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Table(entries) => {
                let mut m = serde_json::Map::with_capacity(entries.len());
                for e in entries {
                    m.insert(e.key.to_string(), e.node.to_json());
                }
                J::Object(m)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(span: Span, value: Value<'static>) -> Node<'static> {
        Node { span, value }
    }

    /// A large table is indexed, a small one searched: either way a key finds the last entry
    /// that has it, as [`Node::get`] does, and a key it lacks finds nothing.
    #[test]
    fn a_locator_finds_what_a_search_finds() {
        for n in [3, SEARCHED, SEARCHED + 1, 500] {
            let mut text = String::from("{");
            for i in 0..n {
                // Every third key repeats an earlier one (JSON keeps both entries).
                text.push_str(&format!(
                    "\"k{}\": {{\"v\": {i}}},",
                    if i % 3 == 2 { i / 2 } else { i }
                ));
            }
            text.push_str("\"last\": 0}");
            let doc = crate::manifest::format::parse_json(&text).unwrap();
            let at = Locator::new(&doc);
            for i in 0..=n {
                let key = format!("k{i}");
                let want = doc.as_table().unwrap().iter().rev().find(|e| e.key == key);
                let got = at.get(&doc, &key);
                assert_eq!(
                    got.map(std::ptr::from_ref),
                    want.map(std::ptr::from_ref),
                    "{n} {key}"
                );
                let pointer = Pointer(vec![Seg::Key(key.clone().into()), Seg::Key("v".into())]);
                let span = want
                    .and_then(|e| e.node.get("v"))
                    .map(|v| v.node.span.clone());
                assert_eq!(at.locate(&pointer).map(|(n, _)| n.span.clone()), span);
                assert_eq!(doc.locate(&pointer).map(|(n, _)| n.span.clone()), span);
            }
        }
    }

    #[test]
    fn pointer_display_escapes() {
        assert_eq!(ptr!["a/b", 0, "c~d"].to_string(), "/a~1b/0/c~0d");
    }

    #[test]
    fn missing_key_labels_parent_key() {
        let inner = leaf(10..20, Value::Table(vec![]));
        let root = leaf(
            0..20,
            Value::Table(vec![Entry {
                key: "runtime".into(),
                key_span: 1..8,
                node: inner,
            }]),
        );
        assert_eq!(root.span_of(&ptr!["runtime", "kind"], Part::Key), 1..8);
        assert_eq!(root.span_of(&ptr!["runtime"], Part::Value), 10..20);
        assert_eq!(root.span_of(&ptr!["runtime"], Part::Key), 1..8);
        assert_eq!(root.span_of(&ptr!["nope", "deeper"], Part::Key), 0..0);
        assert_eq!(root.span_of(&ptr![], Part::Value), 0..20);
    }
}
