//! Small pure predicates the host applies to single values (spec `aoe.md` §3, §8, §13, §14).

/// Why `id` is not a valid plugin id, in the host's order of reasons.
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        return Some("empty");
    }
    if id.len() > 64 {
        return Some("longer than 64 bytes");
    }
    for seg in id.split('.') {
        if !seg.starts_with(|c: char| c.is_ascii_lowercase()) {
            return Some("each dot-separated segment must start with a lowercase letter");
        }
        if !seg
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Some("segments may only contain lowercase letters, digits, and hyphens");
        }
    }
    None
}

/// Whether the id's first segment is reserved for featured plugins.
pub(crate) fn is_reserved_namespace(id: &str) -> bool {
    let first = id.split('.').next().unwrap_or_default();
    super::profile::RESERVED_NAMESPACES.contains(&first)
}

/// A repository-relative raster image path (`screenshot_path_ok`).
pub(crate) fn screenshot_path_ok(path: &str) -> bool {
    if path.is_empty() || path.len() > 512 {
        return false;
    }
    if path.starts_with('/') || path.contains(':') || path.contains('\\') {
        return false;
    }
    if path.chars().any(char::is_control) {
        return false;
    }
    if path.split('/').any(|seg| seg == ".." || seg.is_empty()) {
        return false;
    }
    match path.rsplit('.').next() {
        Some(ext) if ext != path => {
            ["png", "jpg", "jpeg", "gif", "webp"].contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => false,
    }
}

/// A lucide kebab-case icon name (`lucide_icon_name_ok`).
pub(crate) fn lucide_icon_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 80
        && name.split('-').all(|seg| {
            !seg.is_empty()
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Whether a program reads as a path rather than a bare name (`looks_like_path`).
/// Absoluteness is judged as on Unix, where the reference host runs.
pub(crate) fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || is_absolute(arg)
}

/// `Path::is_absolute` on Unix.
pub(crate) fn is_absolute(arg: &str) -> bool {
    arg.starts_with('/')
}

/// A Windows drive (`C:`) or UNC (`\\server`) prefix, absolute on Windows only.
pub(crate) fn has_windows_prefix(arg: &str) -> bool {
    let b = arg.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':')
        || arg.starts_with("\\\\")
        || arg.starts_with("//")
}

/// Why the TUI cannot parse a keybind chord (`bindings.rs::parse_chord`), if it cannot.
pub(crate) fn chord_problem(chord: &str) -> Option<String> {
    let mut key_tokens = 0;
    for token in chord.split('+').map(str::trim) {
        let lower = token.to_ascii_lowercase();
        match lower.as_str() {
            "ctrl" | "control" | "shift" => {}
            "alt" | "option" | "meta" | "super" | "cmd" => {
                return Some(format!(
                    "the `{token}` modifier is not supported (only Ctrl and Shift)"
                ));
            }
            "" => return Some("empty token between `+` separators".into()),
            _ => {
                let is_fn = lower.len() > 1
                    && lower.starts_with('f')
                    && lower[1..].bytes().all(|b| b.is_ascii_digit());
                if token.chars().count() != 1 && !is_fn {
                    return Some(format!(
                        "`{token}` is not a key (use a single character or F1..F24)"
                    ));
                }
                key_tokens += 1;
            }
        }
    }
    match key_tokens {
        1 => None,
        0 => Some("the chord has no key, only modifiers".into()),
        _ => Some("the chord names more than one key".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_grammar() {
        for ok in [
            "a",
            "a-",
            "a--b",
            "dev.example.my-plugin",
            "seluj78.agent-of-empires.github",
        ] {
            assert_eq!(id_problem(ok), None, "{ok}");
        }
        assert_eq!(id_problem(""), Some("empty"));
        assert_eq!(id_problem(&"a".repeat(65)), Some("longer than 64 bytes"));
        for bad in ["a..b", ".a", "a.", "aoe.2fast", "Aoe"] {
            assert_eq!(
                id_problem(bad),
                Some("each dot-separated segment must start with a lowercase letter"),
                "{bad}"
            );
        }
        assert_eq!(
            id_problem("a_b"),
            Some("segments may only contain lowercase letters, digits, and hyphens")
        );
    }

    #[test]
    fn reserved_namespace_is_first_segment_only() {
        assert!(is_reserved_namespace("aoe.web"));
        assert!(is_reserved_namespace("agent-of-empires.github"));
        assert!(!is_reserved_namespace("aoextra.thing"));
        assert!(!is_reserved_namespace("seluj78.agent-of-empires.github"));
    }

    #[test]
    fn screenshot_paths() {
        for ok in ["docs/a.png", "./a.PNG", "a.webp"] {
            assert!(screenshot_path_ok(ok), "{ok}");
        }
        for bad in [
            "",
            "/a.png",
            "https://x/a.png",
            "C:a.png",
            "a\\b.png",
            "../a.png",
            "a//b.png",
            "a.svg",
            "png",
            "a/",
        ] {
            assert!(!screenshot_path_ok(bad), "{bad}");
        }
    }

    #[test]
    fn icons() {
        assert!(lucide_icon_name_ok("git-branch"));
        assert!(!lucide_icon_name_ok("Git"));
        assert!(!lucide_icon_name_ok("a--b"));
        assert!(!lucide_icon_name_ok(""));
    }

    #[test]
    fn chords() {
        assert_eq!(chord_problem("Ctrl+K"), None);
        assert_eq!(chord_problem("shift + F5"), None);
        assert!(chord_problem("Alt+K").is_some());
        assert!(chord_problem("Ctrl").is_some());
        assert!(chord_problem("Ctrl+Enter").is_some());
        assert!(chord_problem("a+b").is_some());
    }

    #[test]
    fn program_shapes() {
        assert!(looks_like_path(".venv/bin/worker"));
        assert!(looks_like_path("bin\\worker"));
        assert!(!looks_like_path("uv"));
        assert!(has_windows_prefix("C:/tools/w.exe"));
        assert!(has_windows_prefix("\\\\srv\\share"));
        assert!(!has_windows_prefix("./x"));
    }
}
