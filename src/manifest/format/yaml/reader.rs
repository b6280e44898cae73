//! The text around the event parser: what PyYAML's reader and scanner refuse that the
//! event parser reads (a non-printable character, a `\U` escape past Unicode, a document
//! end marker it would not take), and the rewrites that make the event parser read what
//! PyYAML reads (lone surrogate escapes, YAML 1.1 line breaks, a lone `\r`).

use super::*;

/// The first `\U` escape of the double-quoted scalar at `at` naming no code point:
/// PyYAML's `chr()` raises (`ValueError` past U+10FFFF, `OverflowError` past a C int).
pub(super) fn chr_out_of_range(text: &str, at: usize) -> Option<SyntaxError> {
    let body = text.get(at..)?.strip_prefix('"')?;
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                let (_, kind) = chars.next()?;
                let value = (kind == 'U')
                    .then(|| body.get(i + 2..i + 10))
                    .flatten()
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok());
                if let Some(v) = value.filter(|v| *v > 0x10ffff) {
                    let span = at + 1 + i..at + 1 + i + 10;
                    return Some(if v > 0x7fff_ffff {
                        raise(
                            "OverflowError",
                            "Python int too large to convert to C int".to_owned(),
                            span,
                        )
                    } else {
                        raise(
                            "ValueError",
                            "chr() arg not in range(0x110000)".to_owned(),
                            span,
                        )
                    });
                }
            }
            _ => {}
        }
    }
    None
}

/// Private-use stand-ins for lone surrogates while the event parser reads the text:
/// U+F000 + (s − U+D800), one per code unit, so `\ud83d\ude00` stays two as PyYAML keeps
/// it. `None` when the text has no surrogate escape in a double-quoted scalar, or uses
/// that private-use range itself (then the event parser's refusal stands).
pub(super) fn surrogate_stand_ins(text: &str) -> Option<String> {
    // (offset of the backslash, escape length, value) of every `\u`/`\U` escape.
    let mut escapes = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let len = match b.get(i + 1) {
            Some(b'u') => 6,
            Some(b'U') => 10,
            _ => {
                i += 2;
                continue;
            }
        };
        if let Some(v) = text
            .get(i + 2..i + len)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
        {
            escapes.push((i, len, v));
        }
        i += 2;
    }
    let lone: Vec<(usize, usize, u32)> = escapes
        .iter()
        .copied()
        .filter(|(_, _, v)| (0xd800..=0xdfff).contains(v))
        .collect();
    if lone.is_empty()
        || escapes
            .iter()
            .any(|(_, _, v)| (0xf000..=0xf7ff).contains(v))
        || text.contains(|c| ('\u{f000}'..='\u{f7ff}').contains(&c))
    {
        return None;
    }
    let rewrite = |which: &[(usize, usize, u32)]| {
        let mut out = text.to_owned();
        for (at, len, v) in which {
            let hex = format!("{:0w$X}", v - 0xd800 + 0xf000, w = len - 2);
            out.replace_range(at + 2..at + len, &hex);
        }
        out
    };
    let all = rewrite(&lone);
    // Escapes mean something only in double-quoted scalars; elsewhere the text stays.
    let Ok((_, (_, mut quoted), breaks)) = composed(&all) else {
        return Some(all);
    };
    for (r, _) in &mut quoted {
        breaks.span(r);
    }
    let inside: Vec<(usize, usize, u32)> = lone
        .iter()
        .copied()
        .filter(|(at, ..)| {
            quoted
                .iter()
                .any(|(r, block)| !block && all[r.clone()].starts_with('"') && r.contains(at))
        })
        .collect();
    if inside.is_empty() {
        None
    } else if inside.len() == lone.len() {
        Some(all)
    } else {
        Some(rewrite(&inside))
    }
}

/// Lone surrogates back from their stand-ins, as [`crate::manifest::pyval::surrogate`]
/// chars (U+10F800 + (s − U+D800)): `repr()` shows them as Python does (`'\ud800'`).
pub(super) fn restore_surrogates(node: &mut Node<'_>) {
    fn fix(s: &mut std::borrow::Cow<'_, str>) {
        if s.contains(|c| ('\u{f000}'..='\u{f7ff}').contains(&c)) {
            *s = s
                .chars()
                .map(|c| match u32::from(c) {
                    n @ 0xf000..=0xf7ff => crate::manifest::pyval::surrogate(n - 0xf000 + 0xd800),
                    _ => c,
                })
                .collect();
        }
    }
    match &mut node.value {
        Value::Str(s) => fix(s),
        Value::Array(items) => items.iter_mut().for_each(restore_surrogates),
        Value::Table(entries) => {
            for e in entries {
                fix(&mut e.key);
                restore_surrogates(&mut e.node);
            }
        }
        _ => {}
    }
}

/// PyYAML's parser on a `...` document-end marker (a line starting `...` and a blank):
/// before any content it is "expected the node content", and content after it is a
/// second document `safe_load` refuses, where the event parser starts a new one.
pub(super) fn pyyaml_document_end(text: &str) -> Result<(), SyntaxError> {
    let marker = |l: &str, m: &str| {
        l.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '\r']))
    };
    let blank = |l: &str| {
        let t = l.trim_start_matches([' ', '\t', '\r', '\u{feff}']);
        t.is_empty() || t.starts_with('#')
    };
    let mut at = 0;
    let mut started = false;
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let l = line.trim_end_matches('\n').trim_start_matches('\u{feff}');
        if marker(l, "...") {
            let after = lines.clone().any(|l| !blank(l.trim_end_matches('\n')));
            if !started {
                return Err(error_at(
                    text,
                    "while parsing a block node: expected the node content, but found '<document end>'",
                    at,
                ));
            }
            if after {
                return Err(error_at(
                    text,
                    "expected '<document start>' after the document end, but found more content",
                    at,
                ));
            }
            return Ok(());
        }
        if !blank(l) && !l.starts_with('%') {
            started = true;
        }
        at += line.len();
    }
    Ok(())
}

/// What PyYAML's reader and scanner refuse that the event parser accepts.
pub(super) fn pyyaml_reader_refusal(text: &str) -> Option<SyntaxError> {
    // PyYAML's Reader: only printable characters (a BOM only as the first).
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some((at, c)) = body.char_indices().find(|(_, c)| !printable(*c)) {
        let at = at + (text.len() - body.len());
        return Some(error_at(
            text,
            &format!(
                "unacceptable character #x{:04x}: special characters are not allowed",
                u32::from(c)
            ),
            at,
        ));
    }
    None
}

pub(super) fn lone_cr_to_lf(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '\r' && b.get(i + 1) != Some(&b'\n') {
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

/// YAML 1.1 line breaks the event parser reads as content: U+0085 becomes
/// `\r\n`, U+2028 and U+2029 ` \r\n` (same length, so spans hold), except
/// inside quoted scalars (`flow_quoted`), where PyYAML keeps them too.
pub(super) fn yaml11_breaks(text: &str, flow_quoted: &[Span]) -> String {
    let inside = |at: usize| flow_quoted.iter().any(|r| r.start <= at && at < r.end);
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        match c {
            '\u{85}' if !inside(i) => out.push_str("\r\n"),
            '\u{2028}' | '\u{2029}' if !inside(i) => out.push_str(" \r\n"),
            c => out.push(c),
        }
    }
    out
}

/// A tab PyYAML's scanner refuses: anywhere but inside a quoted or block
/// scalar (`quoted`) or a comment. PyYAML skips only spaces between tokens
/// and ends plain scalars at tabs.
pub(super) fn pyyaml_scanner_refusal(
    text: &str,
    quoted: &[(Span, bool)],
) -> Result<(), SyntaxError> {
    // The only refusal is a tab: without one there is nothing to look for (the walk below
    // asks every quoted span about every character).
    if !text.contains('\t') {
        return Ok(());
    }
    let inside = |at: usize| quoted.iter().any(|(r, _)| r.start <= at && at < r.end);
    let mut comment = false;
    let mut prev = '\n';
    for (i, c) in text.char_indices() {
        if inside(i) {
            prev = c;
            continue;
        }
        match c {
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => comment = false,
            '#' if matches!(prev, ' ' | '\t' | '\n' | '\r' | '\u{feff}') => comment = true,
            '\t' if !comment => {
                return Err(error_at(
                    text,
                    "found character '\\t' that cannot start any token",
                    i,
                ));
            }
            _ => {}
        }
        prev = c;
    }
    Ok(())
}

/// PyYAML's `Reader.NON_PRINTABLE` complement.
pub(super) fn printable(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{85}')
        || ('\u{20}'..='\u{7e}').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || ('\u{e000}'..='\u{fffd}').contains(&c)
        || ('\u{10000}'..='\u{10ffff}').contains(&c)
}
