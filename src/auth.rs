//! Credentials for remote sources, kept apart from everything that is shown or
//! stored: a URL's userinfo (`https://user:token@host/...`) is split off when a
//! source is parsed, so locks, host records, progress lines and errors only
//! ever see the bare URL, and the secret travels only to the transfer.

use std::path::Path;

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

/// Where a URL's authority starts and ends (`scheme://` … first `/`, `?` or `#`).
fn authority(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| start + i);
    Some((start, end))
}

/// Split `scheme://user:pass@host/...` into the URL without userinfo and the
/// userinfo. URLs without userinfo come back unchanged.
pub fn split_userinfo(url: &str) -> (String, Option<Userinfo>) {
    let Some((start, end)) = authority(url) else {
        return (url.to_owned(), None);
    };
    let Some(at) = url[start..end].rfind('@') else {
        return (url.to_owned(), None);
    };
    let info = &url[start..start + at];
    let bare = format!("{}{}", &url[..start], &url[start + at + 1..]);
    let (user, password) = info.split_once(':').unwrap_or((info, ""));
    let userinfo = Userinfo {
        user: unescape(user),
        password: unescape(password),
    };
    (bare, Some(userinfo))
}

/// Query parameters whose values are credentials.
const SECRET_PARAMS: [&str; 6] = [
    "access_token=",
    "token=",
    "private_token=",
    "password=",
    "sig=",
    "x-amz-signature=",
];

/// Words after which the next word is a credential (`Authorization: Bearer …`; not
/// `token `, which prose uses too).
const SECRET_SCHEMES: [&str; 2] = ["bearer ", "basic "];

/// `text` with the userinfo of every URL in it removed (for anything shown that
/// may quote a URL given by a server or a user), and the values of credential query
/// parameters (`?access_token=…`) and of `Bearer`/`Basic` authorizations
/// replaced by `<redacted>`.
pub fn redact(text: &str) -> String {
    redact_values(&strip_userinfo(text))
}

/// Replace the word after each marker (case-insensitive) with `<redacted>`.
fn redact_values(text: &str) -> String {
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
        match hit {
            Some(m) => {
                let start = i + m.len();
                let end = text[start..]
                    .find(|c: char| c.is_whitespace() || matches!(c, '&' | '#' | '"' | '\'' | '`'))
                    .map_or(text.len(), |e| start + e);
                out.push_str(&text[i..start]);
                if end > start {
                    out.push_str("<redacted>");
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

fn strip_userinfo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '/' | '?' | '#' | '"' | '\'' | '`'))
            .unwrap_or(tail.len());
        match tail[..end].rfind('@') {
            Some(at) => out.push_str(&tail[at + 1..end]),
            None => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
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
    let text = std::fs::read_to_string(path).ok()?;
    netrc_lookup(&text, host)
}

/// Whether `host` (and `port`) is excluded by a `NO_PROXY` list: `*`, exact
/// hosts, or domain suffixes (`example.com` and `.example.com` both cover
/// `a.example.com`), each optionally with `:port`.
pub fn no_proxy_matches(list: &str, host: &str, port: Option<u16>) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    list.split([',', ' '])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .any(|entry| {
            if entry == "*" {
                return true;
            }
            let (name, want_port) = match entry.rsplit_once(':') {
                Some((n, p)) if !n.contains(':') || n.ends_with(']') => (n, p.parse::<u16>().ok()),
                _ => (entry, None),
            };
            if want_port.is_some() && want_port != port {
                return false;
            }
            let name = name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim_start_matches("*.")
                .trim_start_matches('.')
                .to_ascii_lowercase();
            host == name || host.ends_with(&format!(".{name}"))
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
                "GET https://u:p@h/x?a=1&access_token=ghp_abc&b=2 Authorization: Bearer ghp_xyz"
            ),
            "GET https://h/x?a=1&access_token=<redacted>&b=2 Authorization: Bearer <redacted>"
        );
        assert_eq!(
            redact("?token=t0k basic dXNlcjpwYXNz"),
            "?token=<redacted> basic <redacted>"
        );
        // Words that merely end in a marker are left alone.
        assert_eq!(redact("mytoken=1 a_token=2"), "mytoken=1 a_token=2");
    }

    #[test]
    fn redaction_and_hosts() {
        assert_eq!(
            redact("cannot reach `https://u:p@h.example/x.git`: 401 and http://t@x/y"),
            "cannot reach `https://h.example/x.git`: 401 and http://x/y"
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
    }
}
