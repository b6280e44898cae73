//! The 0.218 `supersedes` and `enables` (`protoagent-0218.md` §2.9–2.10): parsed
//! and warned on everywhere, honoured only on a bundled copy.

use super::{Out, items_or_str, repr, strip, warn};
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Value};
use crate::ptr;

/// `_SOURCE_URL_RE`'s scheme: `^[A-Za-z][A-Za-z0-9+.-]*://`.
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    (chars.next()?.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-')))
    .then_some(scheme)
}

/// `_source_parts`' host and path, or `None` when `text` is not a remote source.
fn source_parts(text: &str) -> Option<(String, String)> {
    let text = strip(text);
    if text.is_empty() || text.contains('\\') || text.chars().any(|c| c < ' ' || c == '\u{7f}') {
        return None;
    }
    if url_scheme(text).is_some() {
        // urllib.parse.urlsplit: the netloc runs to the first `/`, `?` or `#`.
        let (_, rest) = text.split_once("://")?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (netloc, tail) = rest.split_at(end);
        if netloc.contains('[') || netloc.contains(']') {
            return None; // `supersedes` refuses brackets before this point
        }
        let hostinfo = netloc.rsplit_once('@').map_or(netloc, |(_, h)| h);
        let host = hostinfo
            .split(':')
            .next()
            .unwrap_or_default()
            .to_lowercase();
        let path = tail.split(['?', '#']).next().unwrap_or_default().to_owned();
        return Some((host, path));
    }
    // scp form: `^(?:[^@/\s]+@)?(?P<host>[^:/\\\s]+):(?P<path>[^\\]+)$`.
    let scp = |s: &str| -> Option<(String, String)> {
        let end = s.find(|c: char| c == ':' || c == '/' || c == '\\' || c.is_whitespace())?;
        if end == 0 || !s[end..].starts_with(':') {
            return None;
        }
        let path = &s[end + 1..];
        if path.is_empty() {
            return None;
        }
        let path = path.split(['?', '#']).next().unwrap_or_default();
        Some((s[..end].to_owned(), path.to_owned()))
    };
    if let Some(at) = text.find('@') {
        let user = &text[..at];
        if !user.is_empty()
            && !user.contains('/')
            && !user.chars().any(char::is_whitespace)
            && let Some(found) = scp(&text[at + 1..])
        {
            return Some(found);
        }
    }
    scp(text)
}

/// `canonical_source`: `host/owner/repo`, lowercased, or "" for no remote source.
pub(crate) fn canonical_source(url: &str) -> String {
    let Some((host, path)) = source_parts(url) else {
        return String::new();
    };
    let host = host.to_lowercase();
    let host = host.trim_end_matches('.');
    let host = host.strip_prefix("www.").unwrap_or(host);
    let mut path = path.trim_matches('/');
    let lower = path.to_lowercase();
    if lower.ends_with(".git") && path.len() >= 4 && path.is_char_boundary(path.len() - 4) {
        path = path[..path.len() - 4].trim_end_matches('/');
    }
    if host.is_empty() || path.is_empty() {
        return String::new();
    }
    format!("{host}/{path}").to_lowercase()
}

const SCHEMES: &[&str] = &["https", "http", "ssh", "git", "git+ssh"];

/// `_parse_supersedes`.
pub(super) fn supersedes(doc: &Node, out: &mut Out) {
    let Some(list) = items_or_str(doc, "supersedes") else {
        warn(
            out,
            Finding::new(
                Code::ProtoSupersedes,
                "supersedes must be a list of git URLs — ignored",
                ptr!["supersedes"],
            )
            .help("write `supersedes: [https://github.com/<owner>/<repo>]`"),
        );
        return;
    };
    for (entry, at) in list {
        let url = match &entry.value {
            Value::Str(s) => strip(s).to_owned(),
            _ => String::new(),
        };
        let reason = if url.is_empty() {
            "is empty or not a string".to_owned()
        } else if url.chars().any(|c| {
            matches!(c, '*' | '?' | '[' | ']') || super::py_space(c) || c < ' ' || c == '\u{7f}'
        }) {
            "carries a glob character or whitespace (it must name one exact repo)".to_owned()
        } else if let Some(s) =
            url_scheme(&url).filter(|s| !SCHEMES.contains(&s.to_lowercase().as_str()))
        {
            format!("uses {s}:// (expected https, http, ssh or git)")
        } else if canonical_source(&url).is_empty() {
            "is not a remote git URL naming a repository".to_owned()
        } else {
            continue;
        };
        warn(
            out,
            Finding::new(
                Code::ProtoSupersedes,
                format!("supersedes entry {} {reason} — ignored", repr(&entry)),
                at,
            )
            .help("name one remote git repository, like https://github.com/<owner>/<repo> or git@github.com:<owner>/<repo>.git"),
        );
    }
}

/// `_parse_enables`.
pub(super) fn enables(doc: &Node, id: &str, out: &mut Out) {
    let Some(list) = items_or_str(doc, "enables") else {
        warn(
            out,
            Finding::new(
                Code::ProtoEnables,
                "enables must be a list of plugin ids — ignored",
                ptr!["enables"],
            )
            .help("write `enables: [<plugin id>, …]`"),
        );
        return;
    };
    for (item, at) in list {
        let pid = match &item.value {
            Value::Str(s) => strip(s),
            _ => "",
        };
        let mut chars = pid.chars();
        let grammar = chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        if !grammar || pid == id {
            warn(
                out,
                Finding::new(
                    Code::ProtoEnables,
                    format!(
                        "enables entry {} is not another plugin's id — dropped",
                        repr(&item)
                    ),
                    at,
                )
                .help("name another plugin by its id; a plugin cannot enable itself"),
            );
        }
    }
}

/// `supersedes` and `enables` are honoured only on the copy bundled with
/// protoAgent (its own `plugins/` tree): anywhere else they are inert.
pub(super) fn bundled_only(doc: &Node, out: &mut Out) {
    for (key, effect) in [
        ("supersedes", "retire the listed repositories' copies"),
        ("enables", "turn the listed plugins on"),
    ] {
        let declared = matches!(items_or_str(doc, key).as_deref(), Some([_, ..]));
        if declared {
            warn(
                out,
                Finding::new(
                    Code::ProtoBundledOnly,
                    format!("`{key}` is honoured only on a plugin bundled with protoAgent; installed from git, it is parsed and ignored"),
                    ptr![key],
                )
                .on_key()
                .help(format!("it cannot {effect} from a third-party plugin; leave it out unless this manifest ships in protoAgent's own plugins/ tree")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::canonical_source;

    #[test]
    fn canonical_sources() {
        for url in [
            "https://GitHub.com/o/r.git/",
            "git@github.com:o/r.git",
            "ssh://git@github.com/o/r",
            "https://token@www.github.com:443/o/r?ref=main#readme",
        ] {
            assert_eq!(canonical_source(url), "github.com/o/r", "{url}");
        }
        for url in [
            "github.com/o/r",
            "file:///some/dir",
            "https://evil.example#@github.com/o/r",
            "https://h",
        ] {
            assert_eq!(canonical_source(url), "", "{url}");
        }
    }
}
