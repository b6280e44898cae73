//! Redaction and escaping of everything `plugins` shows: credentials in URLs (userinfo,
//! secret query values, `scp`-style addresses), authorization values, and terminal
//! control characters, found in one pass over the text.

use std::borrow::Cow;

use super::userinfo_span;

/// Query parameters (and `key=value` words) whose values are credentials.
pub(super) const SECRET_PARAMS: [&str; 17] = [
    "access_token=",
    "token=",
    "private_token=",
    "auth_token=",
    "password=",
    "passwd=",
    "secret=",
    "client_secret=",
    "key=",
    "api_key=",
    "apikey=",
    "sig=",
    "signature=",
    "x-amz-signature=",
    "x-amz-credential=",
    "x-amz-security-token=",
    "x-goog-signature=",
];

/// Words after which the next word is a credential (`Authorization: Bearer …`; not
/// `token `, which prose uses too), when it looks like one ([`credential_like`]).
pub(super) const SECRET_SCHEMES: [&str; 2] = ["bearer ", "basic "];

/// The length of the credential at the start of `text` after a [`SECRET_SCHEMES`] word:
/// a run of RFC 7235 token68 characters, at least 8 long and not a lowercase word
/// (`bearer attached` is prose).
pub(super) fn credential_like(text: &str) -> usize {
    let n = text
        .find(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '/' | '='))
        })
        .unwrap_or(text.len());
    let word = &text[..n];
    if n >= 8 && !word.bytes().all(|b| b.is_ascii_lowercase()) {
        n
    } else {
        0
    }
}

/// What a secret is replaced with.
pub(super) const HIDDEN: &str = "***";

/// The one redaction of everything `plugins` shows (status lines, `-v` logs, errors,
/// reports in every format, events) that may quote a URL, a proxy or a server's words:
/// a URL's userinfo becomes `***` (an ssh URL keeps a user without a password: `git@`),
/// also when its password holds raw `#`, `?`, `/` or `@`; the values of credential
/// query parameters (`?access_token=…`, `sig=`, `key=` …) and of `Bearer`/`Basic`
/// authorizations become `***`; and control characters (but newlines and tabs) and
/// Unicode bidi controls are escaped as `\uXXXX` (a valid JSON escape, so a JSON document
/// stays one), so that a hostile source or server cannot rewrite what the terminal shows.
pub fn redact(text: &str) -> String {
    if plain(text) {
        return text.to_owned();
    }
    escape_controls(&redact_values(&redact_scp(&redact_userinfo(text))), false)
}

/// Text [`redact`] leaves as it is, known without scanning for each secret: printable
/// ASCII without `=` (every [`SECRET_PARAMS`] name ends in one), a space (every
/// [`SECRET_SCHEMES`] word ends in one) or `:` (a URL's `://`). Most strings of a JSON
/// document (ids, refs, commits, statuses) are such; `outdated --json` of 1,000 rows spent
/// a tenth of its CPU redacting them one pattern at a time.
pub(super) fn plain(text: &str) -> bool {
    text.bytes()
        .all(|b| (0x21..0x7f).contains(&b) && !matches!(b, b'=' | b':'))
}

/// [`redact`] for text the printer colored itself: its SGR sequences (`ESC [ … m`) stay.
pub fn redact_styled(text: &str) -> String {
    escape_controls(&redact_values(&redact_scp(&redact_userinfo(text))), true)
}

/// Only the control-character half of [`redact`]: for text `plugins` shows but did not
/// write (a host's message, a quoted snippet of the user's own file), whose words must
/// stay as they are while a hostile one still cannot rewrite the terminal. With
/// `keep_sgr`, the printer's own SGR sequences stay (as in [`redact_styled`]).
pub fn escape(text: &str, keep_sgr: bool) -> Cow<'_, str> {
    // Borrowed when nothing needs escaping: a `validate -r` report is megabytes, and it
    // was copied whole here (docs/PERFORMANCE.md, issue 43).
    if never_escaped(text.as_bytes()) == text.len() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(escape_controls(text, keep_sgr))
    }
}

/// Whether `text` holds a credential value [`redact`] would hide (`?access_token=…`).
pub fn has_secret_values(text: &str) -> bool {
    redact_values(text) != text
}

/// [`redact`] every string in a JSON value (keys too).
pub fn redact_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) => *s = redact(s),
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_json),
        serde_json::Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut v) in entries {
                redact_json(&mut v);
                map.insert(redact(&k), v);
            }
        }
        _ => {}
    }
}

/// Whether `c` is escaped when shown: C0 controls but `\n` and `\t` (a `\r` only when
/// no `\n` follows), DEL, C1 controls, and the bidi and line-separator controls.
pub(super) fn hidden_control(c: char, next: Option<char>) -> bool {
    match c {
        '\n' | '\t' => false,
        '\r' => next != Some('\n'),
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// The length of the run at the start of `bytes` (a whole text's, or from a character
/// boundary of one) that [`escape_controls`] copies as it is: printable ASCII, newlines,
/// tabs, and the characters beyond ASCII that are not [`hidden_control`] (a human report's
/// box drawing and icons). ASCII is looked at 16 bytes at a time (a test of all 16 the
/// compiler vectorizes); a character beyond it by its UTF-8 bytes ([`hidden_encoded`]).
fn never_escaped(bytes: &[u8]) -> usize {
    let kept = |b: u8| matches!(b, b'\n' | b'\t' | b' '..=b'~');
    let mut n = 0;
    loop {
        while let Some(chunk) = bytes.get(n..n + 16) {
            if !chunk.iter().fold(true, |all, b| all & kept(*b)) {
                // Straight to the first byte that is not: a human report's lines hold a
                // box-drawing character or two among ASCII, and stepping up to each one a
                // byte at a time was most of this function's cost on them.
                n += chunk.iter().position(|b| !kept(*b)).unwrap_or(0);
                break;
            }
            n += 16;
        }
        match bytes.get(n) {
            None => return n,
            Some(&b) if kept(b) => n += 1,
            Some(&b) if b >= 0x80 => {
                // A lead byte: `bytes` starts on a character boundary and runs whole
                // characters.
                let len = match b {
                    0xf0.. => 4,
                    0xe0.. => 3,
                    _ => 2,
                };
                let encoded = &bytes[n..(n + len).min(bytes.len())];
                if hidden_encoded(encoded) {
                    return n;
                }
                n += len;
            }
            Some(_) => return n,
        }
    }
}

/// Whether the UTF-8 bytes of one character beyond ASCII encode a [`hidden_control`]: a C1
/// control (U+0080 to U+009F), U+061C, U+200E, U+200F, U+2028 to U+202E, or U+2066 to
/// U+2069 (`tests`: every character agrees with [`hidden_control`]).
pub(super) fn hidden_encoded(encoded: &[u8]) -> bool {
    matches!(
        encoded,
        [0xc2, 0x80..=0x9f]
            | [0xd8, 0x9c]
            | [0xe2, 0x80, 0x8e | 0x8f | 0xa8..=0xae]
            | [0xe2, 0x81, 0xa6..=0xa9]
    )
}

/// Escape [`hidden_control`] characters as `\uXXXX`; with `keep_sgr`, an SGR color
/// sequence (`ESC [` digits and `;` `m`) is kept as it is.
///
/// Everything written passes through here (a `validate -r` report is megabytes), so runs of
/// what is never escaped ([`never_escaped`]) are copied whole; only the other characters
/// are looked at one by one.
pub(super) fn escape_controls(text: &str, keep_sgr: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let run = never_escaped(&bytes[i..]);
        // ASCII bytes end on a character boundary.
        out.push_str(&text[i..i + run]);
        i += run;
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        if keep_sgr && c == '\u{1b}' {
            let rest = &text[i + 1..];
            let sgr = rest.strip_prefix('[').and_then(|r| {
                let n = r.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
                r[n..].starts_with('m').then_some(n + 2)
            });
            if let Some(len) = sgr {
                out.push_str(&text[i..i + 1 + len]);
                i += 1 + len;
                continue;
            }
        }
        let next = text[i + c.len_utf8()..].chars().next();
        if hidden_control(c, next) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
        i += c.len_utf8();
    }
    out
}

/// Whether a marker starting at byte `i` of `bytes` starts a word: a parameter name
/// starts after `?`, `&` or any other non-word character.
fn word_start(bytes: &[u8], i: usize) -> bool {
    i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'_'
}

/// Where the next marker [`redact_values`] acts on starts, at or after `from`, and which
/// it is: a [`SECRET_PARAMS`] name (case-insensitive, at a word start), or a
/// [`SECRET_SCHEMES`] word followed by a credential.
///
/// Found from the rare bytes every marker holds rather than byte by byte: each parameter
/// name ends in its only `=`, and each scheme word starts with `b`. The next of each is
/// kept, so a whole text is searched once.
struct Markers<'a> {
    text: &'a str,
    /// The next `=` at or after the last search (`None`: there is none).
    eq: Option<usize>,
    /// The next `b` or `B` likewise.
    b: Option<usize>,
}

impl<'a> Markers<'a> {
    fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        Markers {
            text,
            eq: memchr::memchr(b'=', bytes),
            b: memchr::memchr2(b'b', b'B', bytes),
        }
    }

    fn next(&mut self, from: usize) -> Option<(usize, &'static str)> {
        let param = self.param(from);
        // A scheme word before the parameter is the hit; one after it is looked for
        // again after the parameter's value.
        let limit = param.map_or(self.text.len(), |(at, _)| at);
        self.scheme(from, limit).or(param)
    }

    /// The first parameter name starting at or after `from`.
    fn param(&mut self, from: usize) -> Option<(usize, &'static str)> {
        let bytes = self.text.as_bytes();
        loop {
            let eq = self.eq?;
            if eq < from {
                self.eq = memchr::memchr(b'=', &bytes[from..]).map(|e| from + e);
                continue;
            }
            // A name holds no `=` but its last byte, so the names ending at this `=`
            // start after every earlier `=`: the first `=` with a name is the first name.
            let hit = SECRET_PARAMS
                .iter()
                .filter_map(|m| {
                    let at = (eq + 1).checked_sub(m.len())?;
                    (at >= from
                        && bytes[at..=eq].eq_ignore_ascii_case(m.as_bytes())
                        && word_start(bytes, at))
                    .then_some((at, *m))
                })
                .min_by_key(|(at, _)| *at);
            if hit.is_some() {
                return hit;
            }
            self.eq = memchr::memchr(b'=', &bytes[eq + 1..]).map(|e| eq + 1 + e);
        }
    }

    /// The first scheme word followed by a credential starting at or after `from` and
    /// before `limit`.
    fn scheme(&mut self, from: usize, limit: usize) -> Option<(usize, &'static str)> {
        let bytes = self.text.as_bytes();
        loop {
            let b = self.b?;
            if b < from {
                self.b = memchr::memchr2(b'b', b'B', &bytes[from..]).map(|e| from + e);
                continue;
            }
            if b >= limit {
                return None;
            }
            let hit = SECRET_SCHEMES.iter().find(|m| {
                bytes[b..]
                    .get(..m.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(m.as_bytes()))
            });
            if let Some(m) = hit
                && word_start(bytes, b)
                && credential_like(&self.text[b + m.len()..]) > 0
            {
                return Some((b, m));
            }
            self.b = memchr::memchr2(b'b', b'B', &bytes[b + 1..]).map(|e| b + 1 + e);
        }
    }
}

/// Replace the value after each marker (case-insensitive) with `***`: up to white
/// space, `&`, `#`, a quote or a backslash, or a whole quoted value.
///
/// Only the markers are looked at ([`Markers`]); text between them is copied whole, and
/// text without any is returned as it is.
pub(super) fn redact_values(text: &str) -> Cow<'_, str> {
    let mut markers = Markers::new(text);
    let mut out = String::new();
    // `text[..copied]` is in `out`.
    let mut copied = 0;
    while let Some((i, m)) = markers.next(copied) {
        if out.capacity() == 0 {
            out.reserve(text.len() + HIDDEN.len());
        }
        let mut start = i + m.len();
        out.push_str(&text[copied..start]);
        if SECRET_SCHEMES.contains(&m) {
            out.push_str(HIDDEN);
            copied = start + credential_like(&text[start..]);
            continue;
        }
        let quote = text[start..]
            .chars()
            .next()
            .filter(|q| matches!(q, '"' | '\''));
        let end = match quote {
            Some(q) => {
                out.push(q);
                start += 1;
                text[start..].find(q).map_or(text.len(), |e| start + e)
            }
            None => text[start..]
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '&' | '#' | '"' | '\'' | '`' | '\\')
                })
                .map_or(text.len(), |e| start + e),
        };
        if end > start {
            out.push_str(HIDDEN);
        }
        copied = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Every `scheme://` URL in `text` with its userinfo ([`userinfo_span`]) replaced by
/// `***`; an ssh URL's user without a password is kept. A URL runs to white space, a
/// quote, a backtick or `<`/`>`.
pub(super) fn redact_userinfo(text: &str) -> Cow<'_, str> {
    if memchr::memmem::find(text.as_bytes(), b"://").is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        // The scheme starts after the last character that cannot be in one, which may be
        // any character (`«https://…`): past it by its own length, not by one byte.
        let scheme_start = rest[..i]
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |(j, c)| j + c.len_utf8());
        let scheme = rest[scheme_start..i].to_ascii_lowercase();
        let tail = &rest[i + 3..];
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
            .unwrap_or(tail.len());
        let url = &rest[scheme_start..i + 3 + end];
        out.push_str(&rest[..scheme_start]);
        match userinfo_span(url) {
            Some((start, at)) => {
                let info = &url[start..at];
                let ssh_user = scheme.ends_with("ssh") && !info.contains(':');
                out.push_str(&url[..start]);
                out.push_str(if ssh_user { info } else { HIDDEN });
                // What follows the userinfo is looked at again, for a URL inside it.
                rest = &rest[scheme_start + at..];
            }
            // No userinfo: what follows `://` is looked at again, for a URL inside it
            // (`://x/https://u:p@h`, a redirect's `?next=https://…`).
            None => {
                out.push_str(&rest[scheme_start..i + 3]);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Every word of `text` in git's scp-like form with a password, `user:password@host:path`
/// (no `/` or `\\` before the `@`, so no URL, and `host:` after it), with the password
/// replaced by `***`. A word runs to white space, a quote, a backtick or `<`/`>`, as a URL
/// does.
fn redact_scp(text: &str) -> Cow<'_, str> {
    if !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut copied = 0;
    let ends = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>');
    let mut start = 0;
    while start < text.len() {
        let word_end = text[start..].find(ends).map_or(text.len(), |e| start + e);
        let word = &text[start..word_end];
        if let Some(at) = word.find('@')
            && let Some(colon) = word[..at].find(':')
            && colon + 1 < at
            && !word[..at].contains(['/', '\\'])
            // `host:path` after the `@`, as git's scp-like form has it.
            && word[at + 1..].find(':').is_some_and(|c| c > 0)
            // Not an OCI reference's `name:tag@sha256:<digest>` (a line of a wrapped
            // message may start inside one): a digest is no host.
            && !crate::hash::is_sha256_digest(
                word[at + 1..].trim_end_matches(|c: char| !c.is_ascii_hexdigit()),
            )
        {
            out.push_str(&text[copied..start + colon + 1]);
            out.push_str(HIDDEN);
            copied = start + at;
        }
        // Past the word and the one character that ended it.
        start = text[word_end..]
            .chars()
            .next()
            .map_or(text.len(), |c| word_end + c.len_utf8());
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}
