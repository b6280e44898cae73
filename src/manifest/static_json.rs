//! JSON compiled in as a static: the constraints of the built-in schemas that
//! [`super::subset`] evaluates.
//!
//! Building aoe's schema with `json!` on each root the host's typed parse rejects was
//! 0.37 M instructions, and parsing it from embedded text costs more; a static costs nothing
//! at run time (docs/PERFORMANCE.md, issue 43). Each host folder holds its file
//! (`schema_constraints.rs`), written from the schema by a test that fails when the two
//! differ ([`check_compiled`]). The schemas `plugins schema` prints are still built from
//! their source.

/// A JSON value whose arrays and objects are `'static` slices; an object keeps its members'
/// order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StaticJson {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    Array(&'static [StaticJson]),
    Object(&'static [(&'static str, StaticJson)]),
}

impl StaticJson {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&'static StaticJson> {
        self.as_object()?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    pub fn as_object(&self) -> Option<&'static [(&'static str, StaticJson)]> {
        match self {
            StaticJson::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&'static [StaticJson]> {
        match self {
            StaticJson::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&'static str> {
        match self {
            StaticJson::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A non-negative integer, as `serde_json::Value::as_u64` reads one.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            StaticJson::Int(i) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// A number, as `serde_json::Value::as_f64` reads one.
    pub fn as_f64(&self) -> Option<f64> {
        #[allow(clippy::cast_precision_loss)] // as `serde_json::Number::as_f64` converts it
        match self {
            StaticJson::Int(i) => Some(*i as f64),
            StaticJson::Float(x) => Some(*x),
            _ => None,
        }
    }

    /// The sub-schema describing the value at `pointer`, following `properties` and `items`
    /// (as [`super::schema::sub_schema`] does for a `serde_json::Value`).
    pub fn sub_schema(&'static self, pointer: &super::doc::Pointer) -> Option<&'static StaticJson> {
        use super::doc::Seg;
        pointer.0.iter().try_fold(self, |s, seg| match seg {
            Seg::Key(k) => s.get("properties")?.get(k),
            Seg::Index(_) => s.get("items"),
        })
    }

    pub fn is_object(&self) -> bool {
        matches!(self, StaticJson::Object(_))
    }

    /// The same value as a `serde_json::Value` (tests: what the static is checked against).
    #[cfg(test)]
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match *self {
            StaticJson::Null => Value::Null,
            StaticJson::Bool(b) => Value::Bool(b),
            StaticJson::Int(i) => Value::from(i),
            StaticJson::Float(x) => Value::from(x),
            StaticJson::Str(s) => Value::from(s),
            StaticJson::Array(items) => items.iter().map(StaticJson::to_value).collect(),
            StaticJson::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// `value` as a Rust expression of [`StaticJson`] (spelled `J`), indented for `depth`: a
/// value that fits on its line is written on one, else one member or item a line. A value
/// that is one of `named` (the same place in the same value) is written as its name (a
/// `const` the file declares).
#[cfg(test)]
fn to_rust(
    value: &serde_json::Value,
    depth: usize,
    named: &[(String, &serde_json::Value)],
) -> String {
    use serde_json::Value;
    if let Some((name, _)) = named.iter().find(|(_, v)| std::ptr::eq(*v, value)) {
        return name.clone();
    }
    let pad = "    ".repeat(depth);
    let one_line = |v: &Value| to_rust(v, 0, named).replace('\n', " ");
    let whole = match value {
        Value::Null => return "J::Null".to_owned(),
        Value::Bool(b) => return format!("J::Bool({b})"),
        Value::Number(n) => {
            return match n.as_i64() {
                Some(i) => format!("J::Int({i})"),
                None => format!("J::Float({:?})", n.as_f64().expect("a JSON number")),
            };
        }
        Value::String(s) => return format!("J::Str({s:?})"),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(one_line).collect();
            format!("J::Array(&[{}])", parts.join(", "))
        }
        Value::Object(members) => {
            let parts: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("({k:?}, {})", one_line(v)))
                .collect();
            format!("J::Object(&[{}])", parts.join(", "))
        }
    };
    if pad.len() + whole.len() <= 100 {
        return whole;
    }
    let inner = "    ".repeat(depth + 1);
    let mut out = String::new();
    match value {
        // Scalars fill their lines, the rest have one each.
        Value::Array(items) => {
            out.push_str("J::Array(&[\n");
            let mut line = String::new();
            for item in items {
                let text = to_rust(item, depth + 1, named);
                let scalar = !matches!(item, Value::Array(_) | Value::Object(_));
                if !line.is_empty() && (!scalar || inner.len() + line.len() + text.len() > 99) {
                    out.push_str(&format!("{inner}{}\n", line.trim_end()));
                    line.clear();
                }
                line.push_str(&format!("{text}, "));
                if !scalar {
                    out.push_str(&format!("{inner}{}\n", line.trim_end()));
                    line.clear();
                }
            }
            if !line.is_empty() {
                out.push_str(&format!("{inner}{}\n", line.trim_end()));
            }
        }
        Value::Object(members) => {
            out.push_str("J::Object(&[\n");
            for (k, v) in members {
                out.push_str(&format!(
                    "{inner}({k:?}, {}),\n",
                    to_rust(v, depth + 1, named)
                ));
            }
        }
        _ => unreachable!("scalars are written on one line"),
    }
    out.push_str(&format!("{pad}])"));
    out
}

/// Check a host folder's `schema_constraints.rs` against its schemas: `statics` names each
/// static, the value it must equal and the static as this build compiled it.
/// `SNAPSHOTS=overwrite` writes the file; `what` names where the values come from and `test`
/// the test that writes it. A top-level property that is the same in every static and takes
/// more than a line is declared once, as a `const` named after it.
#[cfg(test)]
// The test's own switch (not the program's environment).
#[allow(clippy::disallowed_methods)]
pub fn check_compiled(
    path: &str,
    what: &str,
    test: &str,
    statics: &[(&str, &serde_json::Value, &StaticJson)],
) {
    let mut text = format!(
        "//! {what},\n\
         //! compiled in (`crate::manifest::static_json`): written by\n\
         //! `{test}`\n\
         //! with `SNAPSHOTS=overwrite`, which fails when they differ from the schema.\n\n\
         use crate::manifest::static_json::StaticJson as J;\n"
    );
    let property = |value: &'_ serde_json::Value, key: &str| {
        value.get("properties").and_then(|p| p.get(key)).cloned()
    };
    let mut shared: Vec<(String, &str)> = Vec::new();
    if let [(_, first, _), rest @ ..] = statics
        && !rest.is_empty()
    {
        for (key, sub) in first
            .get("properties")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
        {
            let everywhere = rest
                .iter()
                .all(|(_, other, _)| property(other, key).as_ref() == Some(sub));
            if everywhere && to_rust(sub, 1, &[]).contains('\n') {
                let name = key
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_uppercase()
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>();
                text.push_str(&format!("\nconst {name}: J = {};\n", to_rust(sub, 0, &[])));
                shared.push((name, key));
            }
        }
    }
    for (name, value, _) in statics {
        let named: Vec<(String, &serde_json::Value)> = shared
            .iter()
            .map(|(name, key)| (name.clone(), &value["properties"][*key]))
            .collect();
        text.push_str(&format!(
            "\npub(super) static {name}: J = {};\n",
            to_rust(value, 0, &named)
        ));
    }
    if std::env::var_os("SNAPSHOTS").is_some_and(|v| v == "overwrite") {
        fs_err::write(path, &text).unwrap();
    }
    let written = fs_err::read_to_string(path).unwrap();
    assert_eq!(written, text, "{path}: SNAPSHOTS=overwrite");
    for (name, value, compiled) in statics {
        assert_eq!(
            &compiled.to_value(),
            *value,
            "rebuild: {path} changed ({name})"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::StaticJson as J;

    static VALUE: J = J::Object(&[
        ("a", J::Array(&[J::Int(-1), J::Float(0.5), J::Null])),
        ("b", J::Object(&[("c", J::Bool(true)), ("d", J::Str("e"))])),
    ]);

    /// A static reads as the `serde_json::Value` it is written from, and its Rust text is
    /// that static.
    #[test]
    fn a_static_is_the_value_it_is_written_from() {
        let value = serde_json::json!({"a": [-1, 0.5, null], "b": {"c": true, "d": "e"}});
        assert_eq!(VALUE.to_value(), value);
        assert_eq!(
            super::to_rust(&value, 0, &[]),
            "J::Object(&[\n    (\"a\", J::Array(&[J::Int(-1), J::Float(0.5), J::Null])),\n    \
             (\"b\", J::Object(&[(\"c\", J::Bool(true)), (\"d\", J::Str(\"e\"))])),\n])"
        );
        assert_eq!(
            super::to_rust(&serde_json::json!({"a": [1]}), 0, &[]),
            r#"J::Object(&[("a", J::Array(&[J::Int(1)]))])"#
        );
        assert_eq!(VALUE.get("b").and_then(|b| b.get("d")), Some(&J::Str("e")));
        assert_eq!(
            VALUE.get("a").and_then(J::as_array).map(<[J]>::len),
            Some(3)
        );
        assert_eq!(J::Int(-1).as_u64(), None);
        assert_eq!(J::Int(7).as_u64(), Some(7));
        assert_eq!(J::Int(7).as_f64(), Some(7.0));
        let long = serde_json::json!({"k": ["x".repeat(60), "y".repeat(60), 1]});
        assert_eq!(
            super::to_rust(&long, 0, &[]),
            format!(
                "J::Object(&[\n    (\"k\", J::Array(&[\n        J::Str(\"{}\"),\n        J::Str(\"{}\"), J::Int(1),\n    ])),\n])",
                "x".repeat(60),
                "y".repeat(60)
            )
        );
    }
}
