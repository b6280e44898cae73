//! The structural pass's findings: a JSON Schema problem with the manifest, said as the
//! host's serde deserializer says it (unknown field, invalid type, unknown variant, …).

use super::profile::Profile;
use super::rules;
use crate::diagnostic::{Code, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Locator, Node, Pointer};
use crate::manifest::schema::{Problem, SchemaError};
use crate::manifest::static_json::StaticJson;
use crate::ptr;
/// serde's `OneOf` wording: "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`".
fn expected(items: &[String]) -> String {
    match items {
        [] => "there are none".to_owned(),
        [one] => format!("expected `{one}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        _ => {
            // Written into one string: a manifest of unknown keys lists every field each time.
            let mut out =
                String::with_capacity(16 + items.iter().map(|i| i.len() + 4).sum::<usize>());
            out.push_str("expected one of ");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                out.push('`');
                out.push_str(item);
                out.push('`');
            }
            out
        }
    }
}

/// Map a JSON Schema error to a finding with serde's wording, as the host prints it.
pub(super) fn structural_finding(
    e: SchemaError,
    doc: &Locator<'_>,
    schema: &'static StaticJson,
    profile: Profile,
) -> Finding {
    let node = doc.locate(&e.at).map(|(n, _)| n);
    let found = || {
        node.map_or_else(String::new, |n| match n.scalar_text() {
            Some(t) => format!("{} `{}`", n.type_name(), t.trim_matches('"')),
            None => n.type_name().to_owned(),
        })
    };
    match e.problem {
        Problem::Unknown(key) => unknown_key(key, e.at, schema),
        Problem::Missing(key) => Finding::new(
            Code::AoeMissingKey,
            format!("missing field `{key}`"),
            e.at.clone(),
        )
        .on_key()
        .label(format!(
            "`{key}` is required in {}",
            e.at.parent().unwrap_or_default().dotted()
        )),
        Problem::Type(expected) => {
            // Where the host deserializes one of its structs or tagged enums, serde names it.
            // Where the host deserializes one of its structs or tagged enums, the text is
            // serde's whole (`invalid type: string "k", expected struct KeybindContribution`).
            let message = match (expected.as_slice(), host_type(&e.at), node) {
                ([object], Some(name), Some(n)) if object == "object" => {
                    format!("invalid type: {}, expected {name}", serde_unexpected(n))
                }
                _ => format!(
                    "invalid type: {}, expected {}",
                    found(),
                    expected
                        .iter()
                        .map(|t| json_type_name(t))
                        .collect::<Vec<_>>()
                        .join(" or ")
                ),
            };
            Finding::new(Code::AoeInvalidType, message, e.at)
        }
        Problem::Enum(allowed) => unknown_variant(&allowed, node, e.at, profile),
        Problem::Shape if e.at == ptr!["id"] => {
            let id = node.and_then(Node::as_str).unwrap_or_default();
            let reason = rules::id_problem(id).unwrap_or("does not match the id grammar");
            Finding::new(
                Code::AoeInvalidId,
                format!("invalid plugin id {id:?}: {reason}"),
                e.at,
            )
            .help("ids are dot-separated lowercase segments like \"dev.example.my-plugin\"")
        }
        Problem::Shape => Finding::new(
            Code::AoeInvalidType,
            format!("invalid value: {}", found()),
            e.at,
        ),
        Problem::Range => Finding::new(
            Code::AoeInvalidType,
            format!("invalid value: {}, expected u32", found()),
            e.at,
        ),
        Problem::Other(message) => Finding::new(Code::AoeParse, message, e.at),
    }
}

/// An unknown key: serde's message with the keys the table declares, and a hint for the
/// names users reach for (`panes`, `actions`) or a close key.
fn unknown_key(key: String, at: Pointer, schema: &'static StaticJson) -> Finding {
    let parent = at.parent().unwrap_or_default();
    let known: Vec<String> = schema
        .sub_schema(&parent)
        .and_then(|s| s.get("properties")?.as_object())
        .into_iter()
        .flatten()
        .map(|(k, _)| (*k).to_owned())
        .collect();
    let f = Finding::new(
        Code::AoeUnknownKey,
        format!("unknown field `{key}`, {}", expected(&known)),
        at,
    )
    .on_key()
    .label("unknown key");
    match (
        key.as_str(),
        did_you_mean(&key, known.iter().map(String::as_str)),
    ) {
        ("panes", _) => f.help("panes are UI slots: declare `[[ui]]` with `slot = \"pane\"`"),
        ("actions", _) => {
            f.help("declare `[[commands]]`, optionally with a `[commands.action]` table")
        }
        (_, Some(s)) => f.help(format!("did you mean `{s}`?")).fix(s),
        _ => f,
    }
}

/// A value naming no variant of a closed set, as toml's enum access reads it: a string, or
/// the one key of a table whose value is then empty.
fn unknown_variant(
    allowed: &[String],
    node: Option<&Node>,
    at: Pointer,
    profile: Profile,
) -> Finding {
    use crate::manifest::doc::Value;
    // toml's enum access: a string names the variant, and so does the one key of
    // a table whose value is then empty; any other type is refused outright.
    let (value, message) = match node.map(|n| &n.value) {
        Some(Value::Str(s)) => (s.to_string(), None),
        Some(Value::Table(entries)) => match entries.as_slice() {
            [] => (
                String::new(),
                Some("wanted exactly 1 element, found 0 elements".to_owned()),
            ),
            [one] if allowed.iter().any(|a| *a == one.key) => (
                one.key.to_string(),
                match &one.node.value {
                    Value::Table(t) if !t.is_empty() => Some("expected empty table".to_owned()),
                    Value::Array(a) if !a.is_empty() => Some("expected empty array".to_owned()),
                    // The host reads it: the schema (strings only) disagrees.
                    Value::Table(_) | Value::Array(_) => Some(format!(
                        "a one-key table naming a variant is read as `{}` (toml's enum access); write the string",
                        one.key
                    )),
                    _ => Some(format!("expected table, found {}", one.node.type_name())),
                },
            ),
            [one] => (one.key.to_string(), None),
            _ => (
                String::new(),
                Some("wanted exactly 1 element, more than 1 element".to_owned()),
            ),
        },
        _ => (String::new(), Some("wanted string or table".to_owned())),
    };
    if let Some(message) = message {
        return Finding::new(Code::AoeUnknownVariant, message, at);
    }
    let f = Finding::new(
        Code::AoeUnknownVariant,
        format!("unknown variant `{value}`, {}", expected(allowed)),
        at,
    );
    if let Some(why) = profile.slot_history(&value) {
        f.help(format!("`{value}` was {why}"))
    } else if let Some(s) = did_you_mean(&value, allowed.iter().map(String::as_str)) {
        f.help(format!("did you mean `{s}`?")).fix(s)
    } else {
        f
    }
}

/// serde's `Unexpected` words for a TOML value (`string "k"`, `floating point `1.5``,
/// `sequence`, `map`).
fn serde_unexpected(n: &Node) -> String {
    use crate::manifest::doc::Value;
    match &n.value {
        Value::Str(s) => format!("string {s:?}"),
        // serde's `WithDecimalPoint`: Rust's `Display`, with `.0` when it has no point.
        Value::Float(x) => {
            let text = x.to_string();
            if x.is_finite() && !text.contains('.') {
                format!("floating point `{text}.0`")
            } else {
                format!("floating point `{text}`")
            }
        }
        Value::Array(_) => "sequence".to_owned(),
        // toml hands a datetime to serde as a map.
        Value::Table(_) | Value::Datetime(_) => "map".to_owned(),
        _ => match n.scalar_text() {
            Some(t) => format!("{} `{t}`", n.type_name()),
            None => n.type_name().to_owned(),
        },
    }
}

/// What serde expects at `at` where the host's type is a struct or an internally tagged
/// enum (`aoe-plugin-api/src/manifest.rs`): its words name the type.
fn host_type(at: &crate::manifest::doc::Pointer) -> Option<&'static str> {
    use crate::manifest::doc::Seg;
    let keys: Vec<&str> =
        at.0.iter()
            .map(|s| match s {
                Seg::Key(k) => k.as_ref(),
                Seg::Index(_) => "*",
            })
            .collect();
    Some(match keys.as_slice() {
        ["screenshots", "*"] => "struct Screenshot",
        ["commands", "*"] => "struct CommandContribution",
        ["commands", "*", "action"] => "internally tagged enum ClientAction",
        ["keybinds", "*"] => "struct KeybindContribution",
        ["settings", "*"] => "struct SettingContribution",
        ["settings", "*", "fields", "*"] => "struct ObjectFieldContribution",
        ["themes", "*"] => "struct ThemeContribution",
        ["status", "*"] => "struct StatusContribution",
        ["ui", "*"] => "struct UiContribution",
        ["runtime"] => "internally tagged enum RuntimeSpec",
        ["runtime", "build", "*"] => "struct BuildStep",
        _ => return None,
    })
}

/// JSON Schema type names as TOML users know them.
fn json_type_name(t: &str) -> &str {
    match t {
        "object" => "a table",
        "array" => "an array",
        "string" => "a string",
        "integer" => "an integer",
        "boolean" => "a boolean",
        "number" => "a number",
        other => other,
    }
}
