//! Document text as the protocol edits it, and `file:` URIs as paths.

use std::path::PathBuf;

use serde_json::Value;

use super::convert;

/// Apply one `contentChanges` entry: a whole new text, or a range edit.
pub(super) fn apply_change(text: &mut String, change: &Value) {
    let Some(new) = change.get("text").and_then(Value::as_str) else {
        return;
    };
    let Some(range) = change.get("range") else {
        new.clone_into(text);
        return;
    };
    let at = |key: &str| -> Option<(usize, usize)> {
        let p = range.get(key)?;
        let line = usize::try_from(p.get("line")?.as_u64()?).ok()?;
        let character = usize::try_from(p.get("character")?.as_u64()?).ok()?;
        Some((line, character))
    };
    let (Some(start), Some(end)) = (at("start"), at("end")) else {
        return;
    };
    let index = convert::LineIndex::new(text);
    let start = index.offset(start.0, start.1);
    let end = index.offset(end.0, end.1).max(start);
    text.replace_range(start..end, new);
}

/// The path of a `file:` URI; other schemes (`untitled:`) by their path part,
/// which still names the dialect.
pub(super) fn uri_path(uri: &str) -> Option<PathBuf> {
    let (scheme, rest) = uri.split_once(':')?;
    let rest = if scheme.eq_ignore_ascii_case("file") {
        // file:///path, or file://host/path with the host ignored.
        let rest = rest.strip_prefix("//").unwrap_or(rest);
        &rest[rest.find('/')?..]
    } else {
        rest
    };
    let bytes = percent_decode(rest)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        // file:///C:/x → C:/x
        let s = String::from_utf8(bytes).ok()?;
        let s = match s.as_bytes() {
            [b'/', _, b':', ..] => s[1..].to_owned(),
            _ => s,
        };
        Some(PathBuf::from(s))
    }
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            uri_path("file:///w/my%20plugin/.aworld-plugin/plugin.json"),
            Some(PathBuf::from("/w/my plugin/.aworld-plugin/plugin.json"))
        );
        assert_eq!(
            uri_path("untitled:aoe-plugin.toml"),
            Some(PathBuf::from("aoe-plugin.toml"))
        );
        assert_eq!(uri_path("file:///x%2"), None);
        assert_eq!(uri_path("nonsense"), None);
    }

    #[test]
    fn applies_range_edits() {
        let mut text = "a = \"é\"\nb = 2\n".to_owned();
        let edit = json!({
            "range": { "start": { "line": 0, "character": 5 }, "end": { "line": 1, "character": 1 } },
            "text": "x\"\nc",
        });
        apply_change(&mut text, &edit);
        assert_eq!(text, "a = \"x\"\nc = 2\n");
        apply_change(&mut text, &json!({ "text": "whole" }));
        assert_eq!(text, "whole");
    }
}
