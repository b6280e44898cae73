//! `views`, `public_paths` and the 0.218 `federation_paths`: what the host keeps
//! public, drops or warns about (`protoagent.md` §2.2–2.3, `protoagent-0218.md`
//! §2.2, 2.2b, 2.3).

use super::super::Profile;
use super::{Out, items, or_empty, py_decimal, repr, strip, warn};
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::{py_str, repr_str, truthy};
use crate::ptr;

/// A `views` entry the host keeps.
pub(super) struct View {
    /// `str(v.get("id"))`.
    pub id: String,
    /// Not a chat-slot claimant nor a utility widget (0.218 `_navigable_view_ids`).
    pub navigable: bool,
    /// Candidate public paths (`str(c or "")`, unstripped) and where they are.
    pub pages: Vec<(String, Pointer)>,
}

/// `_NON_SAME_ORIGIN_PATH`: `https?://|^//|localhost|:\d`, case-insensitive, unanchored.
pub(super) fn non_same_origin(path: &str) -> bool {
    // Python's IGNORECASE folds U+017F (long s) to `s`.
    let l: String = path
        .chars()
        .map(|c| match c {
            '\u{17f}' => 's',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    let chars: Vec<char> = l.chars().collect();
    l.contains("http://")
        || l.contains("https://")
        || l.starts_with("//")
        || l.contains("localhost")
        || chars.windows(2).any(|w| w[0] == ':' && py_decimal(w[1]))
}

/// `urllib.parse.unquote`: `%XX` runs decoded as UTF-8 (invalid bytes become
/// U+FFFD), non-ASCII text left alone.
fn unquote(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut run: Vec<u8> = Vec::new();
    let flush = |run: &mut Vec<u8>, out: &mut String| {
        out.push_str(&String::from_utf8_lossy(run));
        run.clear();
    };
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !c.is_ascii() {
            flush(&mut run, &mut out);
            let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
            continue;
        }
        if c == b'%'
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("00");
            run.push(u8::from_str_radix(hex, 16).unwrap_or(0));
            i += 3;
            continue;
        }
        run.push(c);
        i += 1;
    }
    flush(&mut run, &mut out);
    out
}

/// `_percent_decoded`: `unquote` until the text stops changing.
pub(super) fn percent_decoded(value: &str) -> String {
    let mut value = value.to_owned();
    loop {
        let decoded = unquote(&value);
        if decoded == value {
            return value;
        }
        value = decoded;
    }
}

/// `_iframe_page_route`: stripped, query and fragment cut, decoded to a fixpoint.
pub(super) fn iframe_page_route(path: &str) -> String {
    let s = strip(path);
    let s = s.split('?').next().unwrap_or_default();
    let s = s.split('#').next().unwrap_or_default();
    percent_decoded(s)
}

/// `_parse_views`: the kept views, and the host's same-origin and (0.218) palette warnings.
pub(super) fn views(doc: &Node, profile: Profile, out: &mut Out) -> Vec<View> {
    let mut kept = Vec::new();
    for (i, v) in items(doc, "views") {
        let at = ptr!["views", i];
        let field = |k: &str| v.get(k).map(|e| &e.node).filter(|n| truthy(n));
        let (Some(vid), Some(path)) = (field("id"), field("path")) else {
            warn(
                out,
                Finding::new(
                    Code::ProtoView,
                    format!("views[{i}] needs a truthy `id` and `path`; the host drops it"),
                    at,
                ),
            );
            continue;
        };
        let path = py_str(path);
        if non_same_origin(&path) {
            warn(
                out,
                Finding::new(
                    Code::ProtoViewOrigin,
                    format!(
                        "view {} path {} is not same-origin relative — a scheme/host breaks the fleet proxy + the postMessage token handshake; use a relative path",
                        repr(vid),
                        repr_str(&path)
                    ),
                    at.join("path"),
                )
                .help("use a path such as /plugins/<id>/view, without a scheme, host or port"),
            );
        }
        let mut pages = vec![(path.clone(), at.join("path"))];
        if let Some(palette) = v.get("palette").map(|e| &e.node) {
            pages.extend(palette_page(palette, vid, &at, profile, out));
        }
        let chat = v
            .get("slot")
            .is_some_and(|s| matches!(&s.node.value, Value::Str(s) if s == "chat"));
        let utility = v
            .get("utility")
            .is_some_and(|u| !matches!(u.node.value, Value::Null | Value::Bool(false)));
        kept.push(View {
            id: py_str(vid),
            navigable: !chat && !utility,
            pages,
        });
    }
    kept
}

/// The page of view `vid`'s `palette` (at `at`): a `{path: …}` mapping's path, unless
/// 0.218's console drops the morph (neither the literal 'inline' nor a path); there, a path
/// that is not same-origin relative is a warning.
fn palette_page(
    palette: &Node,
    vid: &Node,
    at: &Pointer,
    profile: Profile,
    out: &mut Out,
) -> Option<(String, Pointer)> {
    let raw_path = palette.get("path").map(|p| or_empty(Some(&p.node)));
    let is_map = matches!(palette.value, Value::Table(_));
    let mut keep = true;
    if profile == Profile::V0218 {
        let morph = raw_path.as_deref().map(strip).unwrap_or_default();
        let inline = matches!(&palette.value, Value::Str(s) if s == "inline");
        if !inline && morph.is_empty() {
            keep = false;
            warn(out, Finding::new(
                Code::ProtoViewPalette,
                format!(
                    "view {} palette {} is neither the literal 'inline' nor a {{path: …}} mapping — the console reads only those two, so the inline morph is dropped (the view itself still loads, and is already a palette entry without opting in — `palette` only ever selects the inline morph)",
                    repr(vid),
                    repr(palette)
                ),
                at.join("palette"),
            ).help("write `palette: inline`, or `palette: {path: /plugins/<id>/…}` for a different page"));
        } else if !morph.is_empty() && non_same_origin(morph) {
            warn(
                out,
                Finding::new(
                    Code::ProtoViewPalette,
                    format!(
                        "view {} palette path {} is not same-origin relative — a scheme/host breaks the fleet proxy + the postMessage token handshake; use a relative path",
                        repr(vid),
                        repr_str(morph)
                    ),
                    at.join("palette").join("path"),
                ),
            );
        }
    }
    (keep && is_map).then(|| {
        (
            raw_path.unwrap_or_default(),
            at.join("palette").join("path"),
        )
    })
}

/// `_CORE_PLUGIN_ROUTE_RE`: `^/api/plugins/(?:[^/]+/(?:enabled|update)/?$|bundles(?:/|$))`.
fn core_route(s: &str) -> bool {
    let Some(rest) = s.strip_prefix("/api/plugins/") else {
        return false;
    };
    if rest == "bundles" || rest.starts_with("bundles/") {
        return true;
    }
    match rest.split_once('/') {
        Some((seg, tail)) if !seg.is_empty() => {
            matches!(tail, "enabled" | "update" | "enabled/" | "update/")
        }
        _ => false,
    }
}

/// `_parse_public_paths(paths, id, kind=…)`: warns on core routes (0.218) and
/// on paths outside the plugin's namespace.
fn parse(entries: &[(String, Pointer)], id: &str, kind: &str, profile: Profile, out: &mut Out) {
    let roots = [format!("/plugins/{id}/"), format!("/api/plugins/{id}/")];
    for (p, at) in entries {
        let s = strip(p);
        let inside = roots.iter().any(|r| s.starts_with(r.as_str()));
        if inside && profile == Profile::V0218 && core_route(s) {
            warn(out, Finding::new(
                Code::ProtoCoreRoute,
                format!("{kind} {} is a core operator route (plugin update / enable) — ignored", repr_str(s)),
                at.clone(),
            ).help(format!("/api/plugins/{id}/update and /api/plugins/{id}/enabled stay behind the operator credential; declare the plugin's own routes instead")));
        } else if !inside && !s.is_empty() {
            let code = if kind == "public_path" {
                Code::ProtoPublicPath
            } else {
                Code::ProtoFederationPath
            };
            warn(out, Finding::new(
                code,
                format!("{kind} {} is outside the plugin namespace (/plugins/{id}/… or /api/plugins/{id}/…) — ignored", repr_str(s)),
                at.clone(),
            ).help(format!("paths must start with /plugins/{id}/ or /api/plugins/{id}/ (the trailing slash counts)")));
        }
    }
}

/// `public_paths`: the explicit entries, then the view-derived pages (tab-derived
/// pages are always inside the namespace).
pub(super) fn public(doc: &Node, id: &str, profile: Profile, views: &[View], out: &mut Out) {
    let explicit: Vec<(String, Pointer)> = items(doc, "public_paths")
        .into_iter()
        .map(|(i, p)| (py_str(&p), ptr!["public_paths", i]))
        .collect();
    parse(&explicit, id, "public_path", profile, out);
    let derived: Vec<(String, Pointer)> = views
        .iter()
        .flat_map(|v| v.pages.iter())
        .map(|(page, at)| {
            let route = match profile {
                Profile::V0218 => iframe_page_route(page),
                Profile::V0145 => {
                    let s = page.split('?').next().unwrap_or_default();
                    strip(s.split('#').next().unwrap_or_default()).to_owned()
                }
            };
            (route, at.clone())
        })
        .filter(|(route, _)| !route.is_empty())
        .collect();
    parse(&derived, id, "public_path", profile, out);
}

/// `federation_paths` (0.218): the same namespace and core-route rules.
pub(super) fn federation(doc: &Node, id: &str, out: &mut Out) {
    let entries: Vec<(String, Pointer)> = items(doc, "federation_paths")
        .into_iter()
        .map(|(i, p)| (py_str(&p), ptr!["federation_paths", i]))
        .collect();
    parse(&entries, id, "federation_path", Profile::V0218, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_to_a_fixpoint() {
        assert_eq!(
            iframe_page_route(" /plugins/x/v%69ew?q=1#f "),
            "/plugins/x/view"
        );
        assert_eq!(
            percent_decoded("/plugins/x/%252e%252e/z"),
            "/plugins/x/../z"
        );
        assert_eq!(percent_decoded("%C3%A9%"), "é%");
        assert_eq!(percent_decoded("%FF%zz"), "\u{fffd}%zz");
        assert_eq!(percent_decoded("%C3é%A9"), "\u{fffd}é\u{fffd}");
    }

    #[test]
    fn core_routes() {
        for s in [
            "/api/plugins/x/update",
            "/api/plugins/x/update/",
            "/api/plugins/x/enabled",
        ] {
            assert!(core_route(s), "{s}");
        }
        for s in [
            "/api/plugins/x/Update",
            "/api/plugins/x/updates",
            "/api/plugins/x/update/sub",
            "/api/plugins/x/",
            "/plugins/x/update",
        ] {
            assert!(!core_route(s), "{s}");
        }
    }

    #[test]
    fn same_origin() {
        for s in [
            "/plugins/x/localhost",
            "/plugins/x/a:1",
            "HTTPS://x",
            "//h/x",
            "/a?u=http://b",
        ] {
            assert!(non_same_origin(s), "{s}");
        }
        assert!(!non_same_origin("/plugins/x/view:a"));
    }
}
