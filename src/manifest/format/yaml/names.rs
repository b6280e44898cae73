//! Anchor and alias names as PyYAML's scanner reads them (its name grammar, where it ends
//! a name on `:` or `?`), and the event parser's scanner errors in PyYAML's words.

use super::*;

pub(super) fn scan_error(text: &str, e: &ScanError) -> SyntaxError {
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let message = e.info();
    let mut err = error_at(text, &message, at);
    err.display = e.to_string();
    err
}

/// PyYAML's `scan_anchor` on the `&name` or `*name` at `at`: the name is ASCII letters,
/// digits, `-` and `_`, and must be followed by a blank, a line break or one of
/// `?:,]}%@``; of those, `%`, `@` and a backquote then start no token.
pub(super) fn pyyaml_name(text: &str, at: usize, what: &str) -> Result<(), SyntaxError> {
    let start = at + 1;
    let len = text[start..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        .count();
    let end = start + len;
    let next = text[end..].chars().next();
    let repr = |c: Option<char>| crate::manifest::pyval::repr_str(&c.unwrap_or('\0').to_string());
    let terminates = next.is_none_or(|c| {
        matches!(
            c,
            '\0' | ' '
                | '\t'
                | '\r'
                | '\n'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
                | '?'
                | ':'
                | ','
                | ']'
                | '}'
                | '%'
                | '@'
                | '`'
        )
    });
    if len == 0 || !terminates {
        return Err(error_at(
            text,
            &format!(
                "while scanning {what}: expected alphabetic or numeric character, but found {}",
                repr(next)
            ),
            end,
        ));
    }
    if let Some(c @ ('%' | '@' | '`')) = next {
        return Err(error_at(
            text,
            &format!(
                "while scanning for the next token: found character {} that cannot start any token",
                repr(Some(c))
            ),
            end,
        ));
    }
    Ok(())
}

/// The length of the name PyYAML's `scan_anchor` reads after the `&` or `*` at `at`.
pub(super) fn pyyaml_name_len(text: &str, at: usize) -> usize {
    text[at + 1..]
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        .count()
}

/// Asks [`super::composed`] for a space where PyYAML's scanner ends an anchor or alias
/// name on `:` or `?` (`&id: x` is an anchored empty key to PyYAML), which the event
/// parser takes into the name (YAML 1.2's anchor characters). The span is where the space
/// goes.
pub(super) const NAME_BREAK: &str = "an anchor or alias name runs into `:` or `?`";
/// [`NAME_BREAK`] in a flow collection with no blank after the indicator: PyYAML's `:` and
/// `?` are indicators there whatever follows (`{&a:x}` is `{None: 'x'}`), the event
/// parser's start a plain scalar, so a second space goes after the indicator.
pub(super) const NAME_BREAK_FLOW: &str =
    "an anchor or alias name runs into `:` or `?` in a flow collection";
/// [`NAME_BREAK`] for an anchor before a block mapping's value indicator (`&id: x`): an
/// anchored empty key, which the event parser does not read in a block mapping, so the key
/// gets a `~` after the space (null, as PyYAML's empty key is).
pub(super) const NAME_BREAK_EMPTY_KEY: &str = "an anchor name runs into a block mapping's `:`";

/// [`NAME_BREAK`] for the first alias after `from` and on or before the line of the
/// scanner's error `e` whose
/// name PyYAML ends on `:` or `?` (one that starts a token: after a blank, a flow
/// indicator or the start of a line, outside a comment).
pub(super) fn name_break_before(
    text: &str,
    from: usize,
    e: &ScanError,
    flow: bool,
) -> Option<SyntaxError> {
    // The scanner may report at the alias or past it: up to the end of that line.
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let to = text[at..]
        .find(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
        .map_or(text.len(), |i| at + i);
    let from = from.min(at);
    let mut comment = false;
    let mut prev = text[..from].chars().next_back();
    for (i, c) in text[from..to].char_indices() {
        let at = from + i;
        let starts = prev.is_none_or(|p| {
            matches!(
                p,
                ' ' | '\t' | '\n' | '\r' | '[' | '{' | ',' | '\u{85}' | '\u{2028}' | '\u{2029}'
            )
        });
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => comment = false,
            '#' if starts => comment = true,
            '*' | '&' if starts && !comment => {
                if let Some(brk) = name_break(text, at, flow) {
                    return Some(brk);
                }
            }
            _ => {}
        }
        prev = Some(c);
    }
    None
}

/// [`NAME_BREAK`] for the `&name` or `*name` at `at` when PyYAML's name ends on `:` or `?`.
pub(super) fn name_break(text: &str, at: usize, flow: bool) -> Option<SyntaxError> {
    let len = pyyaml_name_len(text, at);
    let end = at + 1 + len;
    let next = text[end..].chars().next()?;
    if len == 0 || !matches!(next, ':' | '?') {
        return None;
    }
    let after = text[end + 1..].chars().next();
    let bare = after.is_some_and(|c| {
        !matches!(
            c,
            ' ' | '\t'
                | '\r'
                | '\n'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
                | ','
                | '['
                | ']'
                | '{'
                | '}'
        )
    });
    let message = if flow && bare {
        NAME_BREAK_FLOW
    } else if !flow && !bare && next == ':' && text[at..].starts_with('&') {
        NAME_BREAK_EMPTY_KEY
    } else {
        NAME_BREAK
    };
    Some(error_at(text, message, end))
}

/// 1-based line and column of byte `at`, as PyYAML's marks count them.
pub(super) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// The event parser's error, in PyYAML's words where it is an alias's: a name PyYAML
/// does not scan, one whose anchor is still open (recursive), or an undefined one.
pub(super) fn unknown_alias(
    text: &str,
    names: &std::collections::HashMap<String, usize>,
    e: &ScanError,
    flow: bool,
) -> SyntaxError {
    let err = scan_error(text, e);
    let at = err.span.as_ref().map_or(0, |s| s.start);
    if e.info() != "while parsing node, found unknown anchor" || !text[at..].starts_with('*') {
        return err;
    }
    if let Err(named) = pyyaml_name(text, at, "an alias") {
        return named;
    }
    if let Some(brk) = name_break(text, at, flow) {
        return brk;
    }
    let name: String = text[at + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .collect();
    if names.contains_key(&name) {
        return error_at(
            text,
            &format!(
                "found recursive alias *{name}: it refers to the collection it is inside, a self-referential value PyYAML builds and plugins does not read"
            ),
            at,
        );
    }
    error_at(
        text,
        &format!(
            "found undefined alias {}",
            crate::manifest::pyval::repr_str(&name)
        ),
        at,
    )
}
