//! Size: how long a production file and a function are, read from the source text (the
//! production part of a file ends at its inline `mod tests {`), with strings, characters
//! and comments blanked so that a brace inside them does not count.

/// The production part of a file: everything before its inline `mod tests {` (with any
/// visibility); a `mod tests;` declaration ends nothing.
pub(super) fn production(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        let t = t
            .strip_prefix("pub")
            .map(|r| r.trim_start_matches(|c: char| c != ' ').trim_start())
            .unwrap_or(t);
        if t == "mod tests {" {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// `text` with every comment, string and character literal replaced by spaces (line
/// breaks kept), so that only code is left to count braces in.
pub(super) fn blanked(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        let after_ident = i > 0 && ident(b[i - 1]);
        let end = if rest.starts_with("//") {
            i + rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            i + rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else if let Some(raw) = (!after_ident)
            .then(|| rest.strip_prefix('b').unwrap_or(rest))
            .and_then(|r| r.strip_prefix('r'))
            .filter(|r| r.trim_start_matches('#').starts_with('"'))
        {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            let close = format!("\"{}", "#".repeat(hashes));
            let open = rest.len() - raw.len() + hashes + 1;
            i + open
                + rest[open..]
                    .find(&close)
                    .map_or(rest.len() - open, |e| e + close.len())
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i + 2 + rest[2..].find('\'').map_or(0, |e| e + 1)
        } else if b[i] == b'\'' && rest.chars().nth(2) == Some('\'') {
            i + rest.char_indices().nth(3).map_or(rest.len(), |(e, _)| e)
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end.max(i + 1);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Each `fn` with a body in `code` (already [`blanked`]): its name, the line its `fn` is on
/// (from 1) and its length in lines, from that line to its closing brace.
pub(super) fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let name: String = code[at + 3..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = code[at..].find(['{', ';']).map(|o| at + o) else {
            continue;
        };
        if name.is_empty() || b[open] == b';' {
            continue;
        }
        let mut depth = 0usize;
        let mut close = open;
        for (i, c) in code[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let line = code[..at].matches('\n').count() + 1;
        let last = code[..close].matches('\n').count() + 1;
        out.push((name, line, last - line + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_in_strings_characters_and_comments_do_not_count() {
        let code = "fn a<'x>(s: &'x str) -> char {\n    let _ = \"}\\\"}\";\n    let _ = r#\"}\"#;\n    // }\n    /* } */\n    let _ = b'}';\n    '}'\n}\nfn b() {}\n";
        let found = functions(&blanked(code));
        assert_eq!(found, vec![("a".to_owned(), 1, 8), ("b".to_owned(), 9, 1)]);
    }

    #[test]
    fn a_signature_without_a_body_is_no_function_and_a_nested_one_counts_apart() {
        let code = "trait T {\n    fn t(&self);\n}\nfn outer() {\n    fn inner() {\n    }\n}\n";
        let found = functions(&blanked(code));
        assert_eq!(
            found,
            vec![("outer".to_owned(), 4, 4), ("inner".to_owned(), 5, 2)]
        );
    }

    #[test]
    fn production_ends_at_the_inline_test_module_only() {
        let text = "mod tests;\nfn a() {}\n#[cfg(test)]\npub(crate) mod tests {\n}\n";
        assert_eq!(production(text), "mod tests;\nfn a() {}\n#[cfg(test)]\n");
        assert_eq!(production("fn a() {}\n"), "fn a() {}\n");
    }
}
