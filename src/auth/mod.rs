//! Credentials for remote sources, kept apart from everything that is shown or
//! stored: a URL's userinfo (`https://user:token@host/...`) is split off when a
//! source is parsed, so locks, host records, progress lines and errors only
//! ever see the bare URL, and the secret travels only to the transfer.

use std::path::Path;

mod redact;

#[cfg(test)]
use redact::{
    HIDDEN, SECRET_PARAMS, SECRET_SCHEMES, credential_like, escape_controls, hidden_control, plain,
    redact_userinfo, redact_values,
};
pub use redact::{escape, has_secret_values, redact, redact_json, redact_styled};

/// A username and password taken from a URL. `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct Userinfo {
    pub user: String,
    pub password: String,
}

impl std::fmt::Debug for Userinfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Userinfo")
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// Percent-decode a userinfo part (`%40` → `@`); bad escapes stay as they are.
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where the userinfo of the URL at the start of `url` is: `(start, at)`, the byte range
/// of `user:password` with the `@` at `at`. A password may hold raw `#`, `?`, `/` or `@`
/// (written unescaped by hand): the userinfo runs to the *last* `@` before the path, the
/// path starting at the first `/` after the first `@`. An `@` after a path or query that
/// no `user:` precedes (`host/a@b`, `host:8080/a@b`) is not userinfo.
fn userinfo_span(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let rest = &url[start..];
    let first_at = rest.find('@')?;
    let head = &rest[..first_at];
    if let Some(slash) = head.find('/') {
        let before = &head[..slash];
        let host_port = before.rsplit_once(':').is_some_and(|(h, p)| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (!h.contains(':') || h.starts_with('['))
        });
        if !before.contains(':') || host_port {
            return None;
        }
    }
    let path = rest[first_at..]
        .find('/')
        .map_or(rest.len(), |i| first_at + i);
    let at = rest[..path].rfind('@')?;
    Some((start, start + at))
}

/// Where a URL's authority starts and ends (after `scheme://` and any userinfo, up to
/// the first `/`, `?` or `#`).
fn authority(url: &str) -> Option<(usize, usize)> {
    let start = match userinfo_span(url) {
        Some((_, at)) => at + 1,
        None => url.find("://")? + 3,
    };
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some((start, end))
}

/// Split `scheme://user:pass@host/...` into the URL without userinfo and the
/// userinfo. URLs without userinfo come back unchanged.
pub fn split_userinfo(url: &str) -> (String, Option<Userinfo>) {
    let Some((start, at)) = userinfo_span(url) else {
        return (url.to_owned(), None);
    };
    let info = &url[start..at];
    let bare = format!("{}{}", &url[..start], &url[at + 1..]);
    let (user, password) = info.split_once(':').unwrap_or((info, ""));
    let userinfo = Userinfo {
        user: unescape(user),
        password: unescape(password),
    };
    (bare, Some(userinfo))
}

/// The lowercased host of a URL (no port, no userinfo, IPv6 brackets kept).
pub fn host(url: &str) -> Option<String> {
    let (start, end) = authority(url)?;
    let auth = &url[start..end];
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let host = if auth.starts_with('[') {
        auth.split_once(']').map_or(auth, |(h, _)| h).to_owned() + "]"
    } else {
        auth.split(':').next().unwrap_or(auth).to_owned()
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// Whether a URL's scheme sends everything in the clear.
pub fn is_cleartext(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("git://")
}

/// A `.netrc` entry's login and password for `host` (a `machine` entry, else
/// `default`). Tokens are whitespace-separated; `macdef` bodies are skipped.
pub fn netrc_lookup(text: &str, host: &str) -> Option<(String, String)> {
    let mut tokens = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() == Some(&"macdef") {
            // A macro body runs to the next empty line.
            for body in lines.by_ref() {
                if body.trim().is_empty() {
                    break;
                }
            }
            continue;
        }
        if words.first().is_some_and(|w| w.starts_with('#')) {
            continue;
        }
        tokens.extend(words);
    }
    let mut found: Option<(String, String)> = None;
    let mut fallback: Option<(String, String)> = None;
    let mut i = 0;
    while i < tokens.len() {
        let (matches, is_default) = match tokens[i] {
            "machine" => {
                i += 1;
                (
                    tokens.get(i).is_some_and(|m| m.eq_ignore_ascii_case(host)),
                    false,
                )
            }
            "default" => (true, true),
            _ => {
                i += 1;
                continue;
            }
        };
        i += 1;
        let (mut login, mut password) = (String::new(), String::new());
        while i < tokens.len() && !matches!(tokens[i], "machine" | "default") {
            match (tokens[i], tokens.get(i + 1)) {
                ("login", Some(v)) => login = (*v).to_owned(),
                ("password", Some(v)) => password = (*v).to_owned(),
                _ => {
                    i += 1;
                    continue;
                }
            }
            i += 2;
        }
        if matches && found.is_none() && !is_default {
            found = Some((login, password));
        } else if matches && is_default && fallback.is_none() {
            fallback = Some((login, password));
        }
    }
    found.or(fallback)
}

/// [`netrc_lookup`] on a file; a missing or unreadable file has no entries.
pub fn netrc_file(path: &Path, host: &str) -> Option<(String, String)> {
    let text = crate::file::read_to_string(path).ok()?;
    netrc_lookup(&text, host)
}

/// Whether `host` (and `port`) is excluded by a `NO_PROXY` list, with curl's rules as
/// reqwest's matcher implements them: `*`, a host, a domain with or without a leading dot
/// (`example.com` and `.example.com` both cover `a.example.com`), an IP address or a CIDR
/// range (`127.0.0.0/8`, `fd00::/8`); each entry may end in `:port`, which must match too.
pub fn no_proxy_matches(list: &str, host: &str, port: Option<u16>) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    // The matcher is asked about a URL: an IPv6 host in brackets.
    let Ok(uri) = (if host.contains(':') {
        format!("http://[{host}]/")
    } else {
        format!("http://{host}/")
    })
    .parse() else {
        return false;
    };
    list.split([',', ' '])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            let (name, want_port) = match entry.rsplit_once(':') {
                Some((n, p)) if !n.contains(':') || n.ends_with(']') => match p.parse::<u16>() {
                    Ok(p) => (n, Some(p)),
                    Err(_) => (entry, None),
                },
                _ => (entry, None),
            };
            if want_port.is_some() && want_port != port {
                return false;
            }
            // `*.example.com` (not curl's, but common) means `.example.com`.
            let name = name
                .strip_prefix("*.")
                .map_or(name.to_owned(), |d| format!(".{d}"));
            let name = name.trim_start_matches('[').trim_end_matches(']');
            let matcher = hyper_util::client::proxy::matcher::Matcher::builder()
                .all("http://proxy.invalid")
                .no(name)
                .build();
            matcher.intercept(&uri).is_none()
        })
}

/// The explicit or default port of a URL.
pub fn port(url: &str) -> Option<u16> {
    let (start, end) = authority(url)?;
    let auth = &url[start..end];
    let auth = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    let after = auth.rsplit_once(']').map_or(auth, |(_, p)| p);
    if let Some((_, p)) = after.rsplit_once(':') {
        return p.parse().ok();
    }
    match url.split_once("://")?.0 {
        "https" => Some(443),
        "http" => Some(80),
        "git" => Some(9418),
        "ssh" => Some(22),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzz of the redaction: arbitrary Unicode (typographic quotes, bidi controls,
    /// wide and combining characters, emoji) around URLs and scp-like sources with a
    /// password. It never panics, and the password never survives.
    #[test]
    fn redaction_survives_any_text_around_a_secret() {
        const PIECES: &[&str] = &[
            "«",
            "»",
            "“",
            "”",
            "é",
            "中",
            "\u{200f}",
            "\u{202e}",
            "🦀",
            "e\u{301}",
            " ",
            "\n",
            "\t",
            "\"",
            "'",
            "`",
            "<",
            ">",
            ":",
            "@",
            "/",
            "#",
            "?",
            "=",
            "&",
            "\\",
            "x",
            "0",
            ".",
            "-",
            "+",
            "://",
            "\u{7f}",
            "\u{85}",
            "ｈｔｔｐｓ",
        ];
        const SCHEMES: &[&str] = &[
            "https://",
            "http://",
            "git://",
            "ssh://",
            "git+ssh://",
            "HTTPS://",
        ];
        let mut rng = Xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let (n1, n2) = (1 + rng.below(4), rng.below(4));
            let (before, after) = (rng.pick(PIECES, n1), rng.pick(PIECES, n2));
            let secret = "S3cretPw";
            let text = match rng.below(3) {
                0 => format!(
                    "{before}{}user:{secret}@host.example/p{after}",
                    SCHEMES[rng.below(SCHEMES.len())]
                ),
                1 => format!("{before} git:{secret}@host.example:acme/x.git{after}"),
                _ => {
                    let n = rng.below(12);
                    format!("{before}{}{after}", rng.pick(PIECES, n))
                }
            };
            let shown = redact(&text);
            let styled = redact_styled(&text);
            assert!(
                !shown.contains(secret) && !styled.contains(secret),
                "{text:?} -> {shown:?}"
            );
        }
    }

    struct Xorshift(u64);

    impl Xorshift {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }

        fn pick(&mut self, from: &[&str], k: usize) -> String {
            (0..k).map(|_| from[self.below(from.len())]).collect()
        }
    }

    #[test]
    fn an_scp_like_source_loses_its_password() {
        assert_eq!(
            redact("Fetching git:pw@host:path/x.git"),
            "Fetching git:***@host:path/x.git"
        );
        assert_eq!(redact("«git:pw@host:p»"), "«git:***@host:p»");
        // An ssh user without a password, a path and an address stay as they are.
        for kept in [
            "git@github.com:acme/x.git",
            "C:\\x@y:z",
            "a/b:c@d:e",
            "a@b",
            "the URL's `user:password@` alone",
            // A wrapped line may start inside an OCI reference: name:tag@digest.
            &format!("plugins:v1@sha256:{}`", "ab".repeat(32)),
            &format!("oci://r.io:5000/fleet/plugins:v1@sha256:{}", "0".repeat(64)),
        ] {
            assert_eq!(redact(kept), kept);
        }
        // Anything else after the `@` is still a host.
        assert_eq!(redact("u:pw@sha256:zz"), "u:***@sha256:zz");
        assert_eq!(redact("«https://u:p@h/x»"), "«https://***@h/x»");
    }

    /// The shortcut of [`redact`] takes only text the full pass leaves as it is, and
    /// never text with a secret or a control character in it.
    #[test]
    fn plain_text_is_what_redaction_leaves_alone() {
        for text in [
            "",
            "dev.bench.p1",
            "refs/tags/v1.19.0",
            "b49000fcb57848e3bcde572cfe570406c8d814d7",
            "a/b?c&d#e",
        ] {
            assert!(plain(text), "{text}");
            let full = escape_controls(&redact_values(&redact_userinfo(text)), false);
            assert_eq!(full, text);
        }
        for text in [
            "x?token=abc123",
            "https://u:p@h/x",
            "Bearer abcdefgh12345",
            "a\u{1b}b",
            "a\tb",
            "a\u{7f}b",
        ] {
            assert!(!plain(text), "{text:?}");
        }
        assert_eq!(redact("x?token=abc123"), format!("x?token={HIDDEN}"));
    }

    // The implementations before runs were copied whole, kept to check that the faster
    // ones give the same text.

    /// Escape [`hidden_control`] characters as `\uXXXX`; with `keep_sgr`, an SGR color
    /// sequence (`ESC [` digits and `;` `m`) is kept as it is.
    fn escape_controls_reference(text: &str, keep_sgr: bool) -> String {
        let mut out = String::with_capacity(text.len());
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if keep_sgr && c == '\u{1b}' {
                let rest = &text[i + 1..];
                let sgr = rest.strip_prefix('[').and_then(|r| {
                    let n = r.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
                    r[n..].starts_with('m').then_some(n + 2)
                });
                if let Some(len) = sgr {
                    out.push_str(&text[i..i + 1 + len]);
                    for _ in 0..len {
                        chars.next();
                    }
                    continue;
                }
            }
            if hidden_control(c, chars.peek().map(|(_, n)| *n)) {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            } else {
                out.push(c);
            }
        }
        out
    }

    /// Replace the value after each marker (case-insensitive) with `***`: up to white
    /// space, `&`, `#`, a quote or a backslash, or a whole quoted value.
    fn redact_values_reference(text: &str) -> String {
        let lower = text.to_ascii_lowercase();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            let rest = &lower[i..];
            let hit = SECRET_PARAMS
                .iter()
                .chain(SECRET_SCHEMES.iter())
                .filter(|m| rest.starts_with(**m))
                // A parameter name starts after `?`, `&` or a non-word character.
                .find(|_| {
                    i == 0
                        || !lower.as_bytes()[i - 1].is_ascii_alphanumeric()
                            && lower.as_bytes()[i - 1] != b'_'
                });
            let hit = hit.filter(|m| {
                !SECRET_SCHEMES.contains(m) || credential_like(&text[i + m.len()..]) > 0
            });
            match hit {
                Some(m) if SECRET_SCHEMES.contains(m) => {
                    let start = i + m.len();
                    out.push_str(&text[i..start]);
                    out.push_str(HIDDEN);
                    i = start + credential_like(&text[start..]);
                }
                Some(m) => {
                    let mut start = i + m.len();
                    out.push_str(&text[i..start]);
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
                                c.is_whitespace()
                                    || matches!(c, '&' | '#' | '"' | '\'' | '`' | '\\')
                            })
                            .map_or(text.len(), |e| start + e),
                    };
                    if end > start {
                        out.push_str(HIDDEN);
                    }
                    i = end;
                }
                None => {
                    let c = text[i..].chars().next().expect("in bounds");
                    out.push(c);
                    i += c.len_utf8();
                }
            }
        }
        out
    }

    /// `NETRC` names the file: a FIFO or a device is no netrc (read at once, never
    /// blocking or without end); a regular file is read.
    #[cfg(unix)]
    #[test]
    fn a_netrc_that_is_no_regular_file_has_no_entries() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("netrc.fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(netrc_file(&fifo, "h"), None);
        assert_eq!(netrc_file(Path::new("/dev/zero"), "h"), None);
        let plain = dir.path().join("netrc");
        fs_err::write(&plain, "machine h login u password p\n").unwrap();
        assert_eq!(netrc_file(&plain, "h"), Some(("u".into(), "p".into())));
    }

    #[test]
    fn userinfo_is_split_off() {
        let (bare, info) = split_userinfo("https://me:s%40cret@example.com:8443/o/r.git");
        assert_eq!(bare, "https://example.com:8443/o/r.git");
        let info = info.unwrap();
        assert_eq!(
            (info.user.as_str(), info.password.as_str()),
            ("me", "s@cret")
        );
        assert!(!format!("{info:?}").contains("cret"));
        let (bare, info) = split_userinfo("https://tok@github.com/o/r");
        assert_eq!(bare, "https://github.com/o/r");
        assert_eq!(info.unwrap().password, "");
        assert_eq!(
            split_userinfo("https://example.com/a@b").0,
            "https://example.com/a@b"
        );
        assert!(split_userinfo("file:///tmp/x").1.is_none());
    }

    #[test]
    fn credentials_in_queries_and_headers_are_redacted() {
        assert_eq!(
            redact(
                "GET https://u:p@h/x?a=1&access_token=ghp_abc&b=2 Authorization: Bearer ghp_xyz0123456789"
            ),
            "GET https://***@h/x?a=1&access_token=***&b=2 Authorization: Bearer ***"
        );
        assert_eq!(
            redact("?token=t0k basic dXNlcjpwYXNz"),
            "?token=*** basic ***"
        );
        // Words that merely end in a marker are left alone, and so is prose.
        assert_eq!(redact("mytoken=1 a_token=2"), "mytoken=1 a_token=2");
        assert_eq!(
            redact("the operator bearer attached); basic auth"),
            "the operator bearer attached); basic auth"
        );
    }

    #[test]
    fn odd_passwords_are_split_and_redacted_whole() {
        for (url, password) in [
            ("https://u:s3#cr/et@h.example:8443/o/r.git", "s3#cr/et"),
            ("https://u:p@ss?w@h.example/o/r.git", "p@ss?w"),
            ("https://u:a/b/c@h.example", "a/b/c"),
        ] {
            let (bare, info) = split_userinfo(url);
            assert_eq!(info.unwrap().password, password, "{url}");
            assert!(bare.starts_with("https://h.example"), "{bare}");
            assert_eq!(host(url).as_deref(), Some("h.example"), "{url}");
            let shown = redact(&format!("cannot reach {url}: refused"));
            assert!(!shown.contains(password), "{shown}");
            assert!(
                shown.starts_with("cannot reach https://***@h.example"),
                "{shown}"
            );
        }
        assert_eq!(port("https://u:s3#cr/et@h.example:8443/o"), Some(8443));
        // An `@` in a path or query is not userinfo.
        for url in [
            "https://example.com/a@b",
            "https://example.com:8080/a@b",
            "https://[::1]:8080/a@b",
            "https://example.com/x?mail=a@b.example",
        ] {
            assert_eq!(split_userinfo(url).0, url);
            assert_eq!(redact(url), url);
        }
        // A token alone, and a proxy.
        assert_eq!(
            redact("proxy: http://user:s3cr3t@127.0.0.1:1; https://ghp_tok@github.com/o/r"),
            "proxy: http://***@127.0.0.1:1; https://***@github.com/o/r"
        );
        // An ssh user is no secret; an ssh password is.
        assert_eq!(
            redact("ssh://git@h:2222/o/r and ssh://git:pw@h/o/r"),
            "ssh://git@h:2222/o/r and ssh://***@h/o/r"
        );
    }

    /// The redaction that copies runs whole gives the text the one that went character by
    /// character gave, on every sequence of up to three pieces that each touch one of its
    /// cases (markers at and inside words, quoted and bare values, schemes with and without
    /// a credential, multi-byte characters before a marker, controls, SGR sequences, a
    /// name inside a longer one at the same `=`, a bare `=` or `b`).
    #[test]
    fn redaction_copying_runs_matches_the_character_by_character_one() {
        let pieces = [
            "token=abc",
            "Bearer abcdefgh12",
            "basic dXNlcjpwYXNzd29yZA==",
            "bearer attached",
            "?access_token=\"x y\"",
            "&KEY='q r'",
            "akey=2",
            "_key=1",
            "x-amz-signature=zz#f",
            "sig=",
            "é",
            "─╭",
            "ké=",
            "\u{1b}[31m",
            "\u{1b}[x",
            "\u{1b}",
            "\r\n",
            "\r",
            "\u{202e}",
            "\u{85}",
            "╭─",
            "é",
            "\u{2069}",
            "\u{7f}",
            "\u{0}",
            " ",
            "\t",
            "\\",
            "`",
            "password",
            "x-amz-security-token=v",
            "=",
            "Basic ",
            "b=",
        ];
        let mut checked = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for text in [format!("{a}{b}{c}"), format!("{a}{b}"), a.to_owned()] {
                        assert_eq!(
                            redact_values(&text),
                            redact_values_reference(&text),
                            "{text:?}"
                        );
                        for keep_sgr in [false, true] {
                            assert_eq!(
                                escape_controls(&text, keep_sgr),
                                escape_controls_reference(&text, keep_sgr),
                                "{text:?}"
                            );
                            assert_eq!(
                                escape(&text, keep_sgr),
                                escape_controls_reference(&text, keep_sgr),
                                "{text:?}"
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 19_000);
    }

    /// Every character beyond ASCII is hidden by its UTF-8 bytes exactly when it is by
    /// [`hidden_control`], and a run of them is copied whole up to the first hidden one.
    #[test]
    fn hidden_characters_are_known_by_their_bytes() {
        let mut buf = [0u8; 4];
        for c in ('\u{80}'..=char::MAX).filter(|c| !c.is_ascii()) {
            let encoded = c.encode_utf8(&mut buf).as_bytes();
            assert_eq!(
                super::redact::hidden_encoded(encoded),
                hidden_control(c, None),
                "{c:?}"
            );
        }
        let text = "╭─[a.json:1:1] × ⚠ é\u{10348}\u{2066}x";
        assert_eq!(
            escape_controls(text, false),
            "╭─[a.json:1:1] × ⚠ é\u{10348}\\u2066x"
        );
        assert_eq!(
            escape_controls(text, false),
            escape_controls_reference(text, false)
        );
    }

    #[test]
    fn control_and_bidi_characters_are_escaped() {
        assert_eq!(
            redact("https://h/o/\u{202e}r.git\x1b[2J\r\nnext\ttab\rover"),
            "https://h/o/\\u202er.git\\u001b[2J\r\nnext\ttab\\u000dover"
        );
        assert_eq!(
            redact_styled("\x1b[1;31merror\x1b[0m \x1b[8mhidden\x1b]0;title\x07"),
            "\x1b[1;31merror\x1b[0m \x1b[8mhidden\\u001b]0;title\\u0007"
        );
        // A JSON document stays one.
        let doc = serde_json::json!({"m": "a\u{2066}b ?token=x \"q\" https://u:p@h/"}).to_string();
        let shown = redact(&doc);
        assert!(!shown.contains('\u{2066}'), "{shown}");
        let back: serde_json::Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(back["m"], "a\u{2066}b ?token=*** \"q\" https://***@h/");
        assert_eq!(redact("token=\"x y\""), "token=\"***\"");
        let mut v = serde_json::json!({"url": "https://u:p@h/x", "list": ["?sig=abc"]});
        redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"url": "https://***@h/x", "list": ["?sig=***"]})
        );
        // Redacting twice changes nothing more.
        let once = redact("https://u:p@h/?token=t \u{202e}");
        assert_eq!(redact(&once), once);
    }

    #[test]
    fn redaction_and_hosts() {
        assert_eq!(
            redact("cannot reach `https://u:p@h.example/x.git`: 401 and http://t@x/y"),
            "cannot reach `https://***@h.example/x.git`: 401 and http://***@x/y"
        );
        assert_eq!(
            host("https://u:p@GitHub.com:443/x").as_deref(),
            Some("github.com")
        );
        assert_eq!(host("http://[::1]:80/x").as_deref(), Some("[::1]"));
        assert_eq!(port("https://h/x"), Some(443));
        assert_eq!(port("http://127.0.0.1:8080/x"), Some(8080));
        assert!(is_cleartext("git://h/x") && !is_cleartext("https://h/x"));
    }

    #[test]
    fn netrc_entries() {
        let text = "# comment\nmachine a.example login al password one\n\
                    macdef init\nmachine b.example login evil password x\n\n\
                    machine b.example\n  login bo\n  password two\ndefault login anon password three\n";
        assert_eq!(
            netrc_lookup(text, "a.example"),
            Some(("al".into(), "one".into()))
        );
        assert_eq!(
            netrc_lookup(text, "B.example"),
            Some(("bo".into(), "two".into()))
        );
        assert_eq!(
            netrc_lookup(text, "c.example"),
            Some(("anon".into(), "three".into()))
        );
        assert_eq!(netrc_lookup("machine x login y", "z"), None);
    }

    #[test]
    fn no_proxy_lists() {
        assert!(no_proxy_matches("*", "x", None));
        assert!(no_proxy_matches(
            "localhost, .example.com",
            "a.example.com",
            Some(443)
        ));
        assert!(no_proxy_matches("example.com", "example.com", Some(443)));
        assert!(!no_proxy_matches(
            "example.com",
            "badexample.com",
            Some(443)
        ));
        assert!(no_proxy_matches("127.0.0.1:8080", "127.0.0.1", Some(8080)));
        assert!(!no_proxy_matches("127.0.0.1:8080", "127.0.0.1", Some(9000)));
        assert!(no_proxy_matches("[::1]", "[::1]", Some(80)));
        assert!(!no_proxy_matches("", "x", None));
        // CIDR ranges and addresses, as curl (7.86) reads them.
        assert!(no_proxy_matches("127.0.0.0/8", "127.0.0.1", Some(443)));
        assert!(no_proxy_matches(
            "10.0.0.0/8, 127.0.0.0/8",
            "127.1.2.3",
            None
        ));
        assert!(!no_proxy_matches("10.0.0.0/8", "127.0.0.1", Some(443)));
        assert!(no_proxy_matches("::1", "[::1]", Some(443)));
        assert!(no_proxy_matches("fd00::/8", "fd12::1", None));
        assert!(!no_proxy_matches("fd00::/8", "fe80::1", None));
        assert!(no_proxy_matches(
            "127.0.0.0/8:8080",
            "127.0.0.1",
            Some(8080)
        ));
        // Leading dots and case.
        assert!(no_proxy_matches(".Example.COM", "a.example.com", None));
        assert!(no_proxy_matches(".example.com", "example.com", None));
        assert!(no_proxy_matches("*.example.com", "a.example.com", None));
        assert!(!no_proxy_matches(".example.com", "example.org", None));
    }
}
