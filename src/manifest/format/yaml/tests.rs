//! PyYAML parity cases: each expectation is what `yaml.safe_load` gives.

use super::*;

fn scalar(text: &str) -> Value<'static> {
    parse_yaml(&format!("v: {text}\n"))
        .unwrap()
        .get("v")
        .unwrap()
        .node
        .value
        .clone()
}

fn str_of(text: &str) -> String {
    let root = parse_yaml(&format!("v: {text}\n")).unwrap();
    crate::manifest::pyval::py_str(&root.get("v").unwrap().node)
}

#[test]
fn spans_scalars_and_duplicates() {
    let text = "id: hello\nversion: 1.0\nenabled: yes\nlist:\n  - a\n  - 2\nid: again\n";
    let root = parse_yaml(text).unwrap();
    let id = root.get("id").unwrap();
    assert_eq!(
        id.node.as_str(),
        Some("again"),
        "last duplicate wins, as PyYAML"
    );
    assert_eq!(&text[id.key_span.clone()], "id");
    assert_eq!(&text[id.node.span.clone()], "again");
    assert_eq!(root.get("version").unwrap().node.value, Value::Float(1.0));
    assert_eq!(
        root.get("enabled").unwrap().node.value,
        Value::Bool(true),
        "YAML 1.1 booleans"
    );
    assert_eq!(
        root.as_table().unwrap().len(),
        5,
        "duplicates are kept for linting"
    );
}

#[test]
fn pyyaml_implicit_resolution() {
    for (text, want) in [
        ("017", "15"),
        ("08", "08"),
        ("0o17", "0o17"),
        ("0x1F", "31"),
        ("-0b101", "-5"),
        ("12:30", "750"),
        ("1:60", "1:60"),
        ("190:20:30", "685230"),
        ("1_000", "1000"),
        ("0_", "0"),
        ("1e3", "1e3"),
        ("1.0e+3", "1000.0"),
        ("1e+300", "1e+300"),
        ("1.0e+300", "1e+300"),
        ("685.230_15e+03", "685230.15"),
        ("12:30.5", "750.5"),
        ("+.5", "+.5"),
        (".5", "0.5"),
        ("1.", "1.0"),
        (".nan", "nan"),
        ("-.inf", "-inf"),
        ("y", "y"),
        ("n", "n"),
        ("yes", "True"),
        ("Off", "False"),
        ("tRUE", "tRUE"),
        ("~", "None"),
        ("null", "None"),
        ("nULL", "nULL"),
        ("", "None"),
        ("2001-01-01", "2001-01-01"),
        ("2001-1-1", "2001-1-1"),
        (
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14 21:59:43.100000-05:00",
        ),
        ("2001-12-15 2:59:43.1234567", "2001-12-15 02:59:43.123456"),
        ("2001-12-15T02:59:43.1Z", "2001-12-15 02:59:43.100000+00:00"),
        ("!!timestamp 2001-01-01", "2001-01-01"),
        ("!!str 017", "017"),
        ("!!int \"3\"", "3"),
        ("!!float 1", "1.0"),
        ("! 017", "15"),
        ("! \"017\"", "15"),
        ("!!binary aGVsbG8=", "b'hello'"),
        ("12345678901234567890", "12345678901234567890"),
        ("'017'", "017"),
        ("=", "="),
    ] {
        if text == "=" {
            continue;
        }
        assert_eq!(str_of(text), want, "{text}");
    }
    assert_eq!(scalar("017"), Value::Int(15));
    assert_eq!(scalar("1e3"), Value::Str("1e3".into()));
}

#[test]
fn constructor_failures_escape_as_python_exceptions() {
    for (text, exception, message) in [
        ("2001-13-45", Some("ValueError"), "month must be in 1..12"),
        (
            "2001-02-29",
            Some("ValueError"),
            "day is out of range for month",
        ),
        (
            "1999-12-31T24:00:00Z",
            Some("ValueError"),
            "hour must be in 0..23",
        ),
        (
            "2001-12-14 21:59:43.10 +25:00",
            Some("ValueError"),
            "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not datetime.timedelta(days=1, seconds=3600).",
        ),
        ("!!bool maybe", Some("KeyError"), "'maybe'"),
        (
            "!!int 3.5",
            Some("ValueError"),
            "invalid literal for int() with base 10: '3.5'",
        ),
        (
            "!!float x",
            Some("ValueError"),
            "could not convert string to float: 'x'",
        ),
        (
            "!!timestamp x",
            Some("AttributeError"),
            "'NoneType' object has no attribute 'groupdict'",
        ),
        (
            "!!python/name:os.system",
            None,
            "could not determine a constructor for the tag 'tag:yaml.org,2002:python/name:os.system'",
        ),
        (
            "!foo bar",
            None,
            "could not determine a constructor for the tag '!foo'",
        ),
        (
            "=",
            None,
            "could not determine a constructor for the tag 'tag:yaml.org,2002:value'",
        ),
        (
            "!!str [a]",
            None,
            "expected a scalar node, but found sequence",
        ),
    ] {
        let e = parse_yaml(&format!("v: {text}\n")).unwrap_err();
        assert_eq!(
            (e.exception, e.message.as_str()),
            (exception, message),
            "{text}"
        );
    }
}

#[test]
fn merge_keys_and_value_keys() {
    let root = parse_yaml("<<: {id: merged, name: m}\nid: own\n=: eq\n").unwrap();
    assert_eq!(root.get("id").unwrap().node.as_str(), Some("own"));
    assert_eq!(root.get("name").unwrap().node.as_str(), Some("m"));
    assert_eq!(root.get("=").unwrap().node.as_str(), Some("eq"));
    assert!(parse_yaml("<<: x\n").is_err());
}

#[test]
fn billion_laughs_is_refused() {
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (i, name) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().enumerate() {
        let prev = ["a", "b", "c", "d", "e", "f", "g", "h"][i];
        let refs = vec![format!("*{prev}"); 9].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let e = parse_yaml(&text).unwrap_err();
    assert!(
        e.message.contains("budget") || e.message.contains("alias"),
        "{}",
        e.message
    );
}

/// A large document without aliases is no bomb: 64,000 keys (128,000 nodes, past the
/// alias budget) load as PyYAML loads them; the densest text (`?` lines: an empty key and its
/// empty value each) too.
#[test]
fn a_large_document_without_aliases_is_read() {
    let keys: String = (0..64_000).map(|i| format!("k{i}: 1\n")).collect();
    let doc = parse_yaml(&keys).unwrap();
    assert_eq!(doc.as_table().unwrap().len(), 64_000);
    let nulls = "- ?\n".repeat(60_000);
    let doc = parse_yaml(&nulls).unwrap();
    assert!(matches!(&doc.value, Value::Array(items) if items.len() == 60_000));
}

#[test]
fn unhashable_keys_are_errors_as_in_pyyaml() {
    for text in ["id: {{ cookiecutter.id }}\n", "? [a, b]\n: 1\n", "[1]: x\n"] {
        let e = parse_yaml(text).unwrap_err();
        assert!(
            e.message.starts_with("found unhashable key"),
            "{text}: {e:?}"
        );
    }
}

#[test]
fn deep_nesting_and_tabs_are_errors() {
    let deep = format!("a: {}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(parse_yaml(&deep).is_err());
    assert!(parse_yaml("a:\n\tb: 1\n").is_err());
}

#[test]
fn scanner_refusals_as_in_pyyaml() {
    for text in [
        "k:\tv\n",
        "k: a\tb\n",
        "k: v\t# c\n",
        "k: [a,\tb]\n",
        "k: a\u{2028}b\n",
        "k: a\u{85}b\n",
        "k: a # x\u{2028}y\n",
        "k: { a\n  b: 1 }\n",
        "k: {\"a\n b\": 1}\n",
        "k: {a: LayoutDashboard?, b: 1}\n",
        "k: >-\n  wit\u{2029}h no\n",
        "id: evil\n: 1\n",
    ] {
        assert!(parse_yaml(text).is_err(), "{text:?}");
    }
    for text in [
        "k: |\n  \tx\n",
        "k: \"a\tb\"\n",
        "k: v # a\tb\n",
        "k: \"a\u{2028}b\"\n",
        "k:\n  a\u{2028}  b\n",
        "k: [a\n  b]\n",
        "k: {api\n  _key:x}\n",
        "k: {a, api\u{85}_key:é ''}\n",
        "id: a\rname: b\r",
        "k: [?a]\n",
        "k: >-\n  text\n# a\tcomment after a block scalar\n",
        "? \n: 1\n",
    ] {
        assert!(parse_yaml(text).is_ok(), "{text:?}: {:?}", parse_yaml(text));
    }
    // A second BOM is content: the key is "\u{feff}id", not `id` (also in a text that
    // uses U+E000 itself).
    let root = parse_yaml("\u{feff}\u{feff}id: x\n").unwrap();
    assert!(root.get("id").is_none());
    let root = parse_yaml("\u{feff}\u{feff}id: x\nk\u{e000}: y\n").unwrap();
    assert!(root.get("id").is_none());
    assert!(root.get("\u{feff}id").is_some());
    // U+0085 is a line break: `name` is a key of its own.
    let root = parse_yaml("id: a\n\u{85}name: b\n").unwrap();
    assert_eq!(root.get("name").unwrap().node.as_str(), Some("b"));
}

#[test]
fn reader_refuses_non_printable() {
    let e = parse_yaml("id: a\u{7}b\n").unwrap_err();
    assert!(
        e.message.starts_with("unacceptable character #x0007"),
        "{}",
        e.message
    );
    assert!(parse_yaml("\u{feff}id: x\n").is_ok());
}

/// `x: &r [1, *r]` is a list holding itself for PyYAML; `plugins` refuses it, saying so
/// (docs/PARITY.md, deliberate), and never loops on it.
#[test]
fn recursive_aliases_are_refused_by_name() {
    for (text, alias) in [
        ("x: &r [1, *r]\n", "*r"),
        ("x: &r {a: *r}\n", "*r"),
        ("x: &r {*r: 1}\n", "*r"),
        ("x: &o [a, &i [b, *o]]\n", "*o"),
        ("x: &o [a, &i [b, *i]]\n", "*i"),
    ] {
        let e = parse_yaml(text).unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "found recursive alias {alias}: it refers to the collection it is inside, a self-referential value PyYAML builds and plugins does not read"
            ),
            "{text}"
        );
        assert_eq!(&text[e.span.unwrap()][..1], "*");
    }
    // An alias to a finished collection is not recursive.
    let root = parse_yaml("a: &a [1]\nb: [*a, *a]\n").unwrap();
    assert_eq!(
        crate::manifest::pyval::py_str(&root.get("b").unwrap().node),
        "[[1], [1]]"
    );
}

/// PyYAML's anchor names are ASCII letters, digits, `-` and `_`, ended by a blank or one
/// of `?:,]}%@``; an anchor may be defined once per document.
#[test]
fn anchor_names_and_duplicates_as_pyyaml() {
    for (text, message) in [
        (
            "k: &a.b x\n",
            "while scanning an anchor: expected alphabetic or numeric character, but found '.'",
        ),
        (
            "k: &a[x]\n",
            "while scanning an anchor: expected alphabetic or numeric character, but found '['",
        ),
        (
            "k: &é x\n",
            "while scanning an anchor: expected alphabetic or numeric character, but found 'é'",
        ),
        (
            "k: &a@ x\n",
            "while scanning for the next token: found character '@' that cannot start any token",
        ),
        (
            "a: &a x\nk: *a.b\n",
            "while scanning an alias: expected alphabetic or numeric character, but found '.'",
        ),
        (
            "k: &a x\nj: &a y\n",
            "found duplicate anchor 'a'; first occurrence at line 1, column 4",
        ),
        (
            "k: [&a x, &a y]\n",
            "found duplicate anchor 'a'; first occurrence at line 1, column 5",
        ),
    ] {
        assert_eq!(parse_yaml(text).unwrap_err().message, message, "{text}");
    }
    for text in [
        "k: &a-_9 x\nj: *a-_9\n",
        "k: [&a x, *a]\n",
        "k: {&a x: *a}\n",
    ] {
        assert!(parse_yaml(text).is_ok(), "{text}");
    }
}

/// In a flow collection `:` is always PyYAML's value indicator: where a node must
/// start (`{id: :x}`, `{: x}`, `[a, : x]`) it is an error, unless `?`, an anchor or a
/// tag gives the empty key a node.
#[test]
fn a_flow_node_cannot_start_with_a_colon() {
    for text in [
        "k: {id: :x}\n",
        "k: {label,: x}\n",
        "k: [:x]\n",
        "k: {: x}\n",
        "k: [a, : x]\n",
        "k: {a: b, : c}\n",
    ] {
        assert_eq!(
            parse_yaml(text).unwrap_err().message,
            "while parsing a flow node: expected the node content, but found ':'",
            "{text}"
        );
    }
    for text in [
        "k: {? : x}\n",
        "k: {&a : x}\n",
        "k: {!!str : x}\n",
        "k: [a:x]\n",
        "k: {a::x}\n",
        ": x\n".trim_start_matches(':'),
    ] {
        assert!(parse_yaml(text).is_ok(), "{text}: {:?}", parse_yaml(text));
    }
}

/// PyYAML needs no blank before a comment after a token: `[a, b]#c`, `"x"#c`, `[a,#c`.
#[test]
fn a_comment_may_follow_a_token_directly() {
    for (text, key, want) in [
        ("k: [a, b]#c\n", "k", "['a', 'b']"),
        ("k: {a: b}#c\nj: 2\n", "k", "{'a': 'b'}"),
        ("k: \"a\"#c\n", "k", "a"),
        ("k: 'a'#c é\n", "k", "a"),
        ("k: [a,#c\n  b]\n", "k", "['a', 'b']"),
        ("k: [a]#\n", "k", "['a']"),
        ("k: x#c\n", "k", "x#c"),
    ] {
        let root = parse_yaml(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        let node = &root.get(key).unwrap().node;
        assert_eq!(crate::manifest::pyval::py_str(node), want, "{text:?}");
    }
    // After a block scalar's header PyYAML wants its indicators instead.
    for text in ["k: >-#\n  x\n", "k: |#\n  x\n"] {
        assert!(parse_yaml(text).is_err(), "{text:?}");
    }
    let many = format!("{}k: 1\n", "a: [x]#c\n".repeat(500));
    assert!(parse_yaml(&many).is_ok());
}

/// A lone surrogate escape is the code unit for PyYAML (`"\ud800"`, and a pair written
/// as two escapes stays two); `repr()` shows it as Python does. A `\U` escape past
/// U+10FFFF is `chr()`'s exception escaping PyYAML.
#[test]
fn surrogate_escapes_as_pyyaml() {
    use crate::manifest::pyval::{py_str, repr_str};
    for (escape, repr) in [
        ("\\ud800", "'\\ud800'"),
        ("\\uDFFF", "'\\udfff'"),
        ("x\\U0000d800y", "'x\\ud800y'"),
        ("\\ud83d\\ude00", "'\\ud83d\\ude00'"),
        ("\\udc00\\ud800", "'\\udc00\\ud800'"),
    ] {
        let text = format!("k: \"{escape}\"\nj: '{escape}'\ni: {escape}\n");
        let root = parse_yaml(&text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"));
        assert_eq!(
            repr_str(&py_str(&root.get("k").unwrap().node)),
            repr,
            "{text:?}"
        );
        // Single-quoted and plain scalars keep the backslash text.
        assert_eq!(root.get("j").unwrap().node.as_str(), Some(escape));
        assert_eq!(root.get("i").unwrap().node.as_str(), Some(escape));
    }
    // A key too, and a genuine pair of the BMP's private use stays what it is.
    let root = parse_yaml("\"\\ud800\": 1\n").unwrap();
    assert_eq!(repr_str(&root.as_table().unwrap()[0].key), "'\\ud800'");
    let root = parse_yaml("k: \"\\uf000\"\nj: \"\\ud800\"\n");
    assert!(
        root.is_err(),
        "a document using the stand-ins' range keeps the refusal"
    );
    for (escape, exception, message) in [
        (
            "\\U00110000",
            "ValueError",
            "chr() arg not in range(0x110000)",
        ),
        (
            "\\U7FFFFFFF",
            "ValueError",
            "chr() arg not in range(0x110000)",
        ),
        (
            "a\\tb\\U80000000",
            "OverflowError",
            "Python int too large to convert to C int",
        ),
    ] {
        let e = parse_yaml(&format!("k: \"{escape}\"\n")).unwrap_err();
        assert_eq!(
            (e.exception, e.message.as_str()),
            (Some(exception), message),
            "{escape}"
        );
    }
}

/// In a flow mapping's value a `?` starts PyYAML's explicit key, where a node must be.
#[test]
fn a_flow_value_cannot_start_with_a_question_mark() {
    for text in [
        "k: {a: ?x}\n",
        "k: [a: ?x]\n",
        "k: [{ pkg: p, optional: ?true }]\n",
    ] {
        assert_eq!(
            parse_yaml(text).unwrap_err().message,
            "while parsing a flow node: expected the node content, but found '?'",
            "{text}"
        );
    }
    assert!(
        parse_yaml("j: ?x\nk: {a: b}\n").is_ok(),
        "outside a flow collection"
    );
}

/// A `...` document end: before any content PyYAML wants a node; content after it is
/// a second document. A trailing one (with comments and blanks after) is fine.
#[test]
fn a_document_end_marker_as_pyyaml_reads_it() {
    for text in [
        "...\nid: x\n",
        "# c\n...\nid: x\n",
        "...\n",
        "id: x\n...\nname: y\n",
        "id: x\n...\n---\nname: y\n",
        "---\n...\nid: x\n",
    ] {
        assert!(parse_yaml(text).is_err(), "{text:?}");
    }
    for text in [
        "id: x\n...\n",
        "id: x\n...\n# c\n\n  \n",
        "id: x\n... # c\n",
        "id: x\n...x: 1\n",
        "%YAML 1.1\n---\nid: x\n...\n",
        "---\n...\n",
    ] {
        assert!(parse_yaml(text).is_ok(), "{text:?}: {:?}", parse_yaml(text));
    }
}

/// PyYAML ends an anchor or alias name at `:` or `?` (issue #42): `&id: x` is an anchored
/// empty key, `&id:x` in a block the plain scalar `:x`, and in a flow collection the
/// indicator stands whatever follows it. Each expectation is `yaml.safe_load`'s (6.0.2),
/// with a key's `repr()` as the value tree keeps keys (strings: `None` is `'None'`).
#[test]
fn anchor_and_alias_names_end_at_a_colon_or_question_mark_as_pyyaml() {
    for (text, want) in [
        ("&id: x", "{'None': 'x'}"),
        ("&a: x", "{'None': 'x'}"),
        ("k: &a v\n*a: x", "{'k': 'v', 'v': 'x'}"),
        ("&id:x", "':x'"),
        ("k: &id:x", "{'k': ':x'}"),
        ("[&a: x]", "[{'None': 'x'}]"),
        ("{&a: x}", "{'None': 'x'}"),
        ("{&a:x}", "{'None': 'x'}"),
        ("- &a: x", "[{'None': 'x'}]"),
        ("&a:\n  b: 1", "{'None': {'b': 1}}"),
        ("k: &a v\nj: {*a: 1}", "{'k': 'v', 'j': {'v': 1}}"),
        ("id: x\n&a: y", "{'id': 'x', 'None': 'y'}"),
        ("k: &a v\nj: [*a:x]", "{'k': 'v', 'j': [{'v': 'x'}]}"),
    ] {
        let got =
            parse_yaml(text).map_or_else(|e| e.message, |n| crate::manifest::pyval::py_repr(&n));
        assert_eq!(got, want, "{text:?}");
    }
    // Refused where PyYAML refuses (its words are its own; only the verdict is compared).
    for text in [
        "k: &id: x",
        "k: &a v\nj: *a: x",
        "*a:",
        "&a? x",
        "k: &a?",
        "k: *a:x",
    ] {
        assert!(parse_yaml(text).is_err(), "{text:?}");
    }
    // Spans stay on the text as written.
    let text = "k: &a v\nj: {*a: 1}\nz: last\n";
    let root = parse_yaml(text).unwrap();
    let z = root.get("z").unwrap();
    assert_eq!(&text[z.key_span.clone()], "z");
    assert_eq!(&text[z.node.span.clone()], "last");
}
