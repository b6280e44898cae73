//! Where completion thinks the cursor is, in each format.

use super::*;

/// The place at `|` in `text`: the path (dotted) and the present keys.
fn at(f: fn(&str, usize) -> Option<Place>, marked: &str) -> Option<(String, Vec<String>, bool)> {
    let at = marked.find('|').unwrap();
    let text = marked.replacen('|', "", 1);
    let place = f(&text, at)?;
    let path = Pointer(place.path).to_string();
    Some((path, place.present, place.quote))
}

fn keys(k: &[&str]) -> Vec<String> {
    k.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn toml_tables_from_headers() {
    let text = "id = 1\nname = \"x\"\n|\n[runtime]\nkind = \"command\"\n";
    assert_eq!(
        at(toml_place, text),
        Some((String::new(), keys(&["name", "id", "runtime"]), false))
    );
    let text = "id = 1\n[runtime]\nkind = 1\nbu|\n\n[[commands]]\nid = 1\n";
    assert_eq!(
        at(toml_place, text),
        Some(("/runtime".into(), keys(&["kind"]), false))
    );
    let text = "[[commands]]\nid = 1\n[commands.action]\n|";
    assert_eq!(
        at(toml_place, text),
        Some(("/commands/action".into(), vec![], false))
    );
    assert_eq!(
        at(toml_place, "[runtime.|").map(|p| p.0),
        Some("/runtime".into())
    );
    // A value is being typed: no keys.
    assert_eq!(at(toml_place, "kind = |"), None);
    // Keys that headers define are present, though no `key =` line names them.
    let text = "id = 1\n|\n[runtime]\nkind = 1\n[[commands]]\nid = 1\n[settings.x]\n";
    assert_eq!(
        at(toml_place, text),
        Some((
            String::new(),
            keys(&["id", "runtime", "commands", "settings"]),
            false
        ))
    );
    // In an array of tables, only the element's own sub-tables.
    let text = "[[commands]]\nid = 1\n[commands.action]\nkind = 1\n[[commands]]\n|\n[[commands]]\n[commands.action]\n";
    assert_eq!(
        at(toml_place, text),
        Some(("/commands".into(), vec![], false))
    );
    let text = "[[commands]]\nid = 1\n|\n[commands.action]\nkind = 1\n[[commands]]\n";
    assert_eq!(
        at(toml_place, text),
        Some(("/commands".into(), keys(&["id", "action"]), false))
    );
}

#[test]
fn yaml_mappings_from_indentation() {
    let text =
        "id: x\nsettings:\n  - key: a\n    label: b\n    |\n  - key: c\n    type: d\nname: n\n";
    assert_eq!(
        at(yaml_place, text),
        Some(("/settings/0".into(), keys(&["label", "key"]), false))
    );
    let text = "id: x\n|\nname: n\nsettings:\n  - key: a\n";
    assert_eq!(
        at(yaml_place, text),
        Some((String::new(), keys(&["name", "settings", "id"]), false))
    );
    let text = "settings:\n- key: a\n  |";
    assert_eq!(
        at(yaml_place, text),
        Some(("/settings/0".into(), keys(&["key"]), false))
    );
    let text = "settings:\n  - |";
    assert_eq!(
        at(yaml_place, text),
        Some(("/settings/0".into(), vec![], false))
    );
    assert_eq!(at(yaml_place, "id: |"), None);
}

#[test]
fn json_objects_from_brackets() {
    let text = "{\"id\": \"a\", |, \"version\": \"1\"}";
    assert_eq!(
        at(json_place, text),
        Some((String::new(), keys(&["id", "version"]), true))
    );
    let text = "{\"id\": \"a\", \"entrypoints\": {\"commands\": [{\"id\": \"x\"}, {\"ta|\"}]}}";
    assert_eq!(
        at(json_place, text),
        Some(("/entrypoints/commands/1".into(), vec![], false))
    );
    // Unterminated, as typed.
    let text = "{\"id\": \"a\", \"na|";
    assert_eq!(
        at(json_place, text),
        Some((String::new(), keys(&["id"]), false))
    );
    // A value, not a key.
    assert_eq!(at(json_place, "{\"id\": |}"), None);
    assert_eq!(at(json_place, "[|]"), None);
}

/// Every format's reader at every position of odd texts: no panic.
#[test]
fn any_position_of_any_text_is_safe() {
    let texts = [
        "",
        "[",
        "[[a.\"b\nc = 'x",
        "\"\\",
        "{\"a\\\": [{\"é\": {\"😀\"",
        "- - -\n  -\n- a: b:\n    c:\n\t- x",
        "a:\r\n  b:\r  - c: d\n    '😀': 1\n",
        "}}]]{[,,\":\",{",
    ];
    for text in texts {
        for (at, _) in text.char_indices().chain([(text.len(), ' ')]) {
            for f in [toml_place, yaml_place, json_place] {
                let _ = f(text, at);
            }
        }
    }
}
