//! The 0.218 palette `commands` (`protoagent-0218.md` §2.7): strict, so every
//! entry that fails is dropped whole, with the host's warning.

use super::paths::{View, non_same_origin, percent_decoded};
use super::{Out, items, or_empty, py_space, strip, warn};
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::repr_str;
use crate::ptr;

const ACTIONS: &[&str] = &["navigate", "open_view", "tool", "emit", "command"];
const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
const ID_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_-]*$";

struct Ctx<'a> {
    id: &'a str,
    cid: String,
    views: &'a [View],
}

impl Ctx<'_> {
    fn drop(&self, out: &mut Out, code: Code, what: String, at: Pointer) {
        warn(
            out,
            Finding::new(code, format!("command {} {what}", repr_str(&self.cid)), at),
        );
    }
}

/// `str(raw.get(key, "") or "").strip()`.
fn field(node: &Node, key: &str) -> String {
    strip(&or_empty(node.get(key).map(|e| &e.node))).to_owned()
}

/// `_parse_command_route`: the relative route, or `None` (warned).
fn route(ctx: &Ctx, raw: Option<&Node>, label: &str, at: Pointer, out: &mut Out) -> Option<String> {
    let id = ctx.id;
    let declared = strip(&or_empty(raw)).to_owned();
    let route = percent_decoded(&declared);
    let reason = if route.is_empty() {
        "is empty"
    } else if route.chars().any(|c| c <= '\u{1f}' || c == '\u{7f}') {
        "carries a tab, newline or other control character — the URL parser deletes those before it resolves '..', so the route the browser requests is not the one declared"
    } else if non_same_origin(&route) {
        "carries a scheme, host or port"
    } else if route.starts_with('/') {
        "is absolute"
    } else if route.contains(['\\', '?', '#']) {
        "carries a backslash, query or fragment"
    } else if route.split('/').any(|s| s == "..") {
        "contains a '..' segment"
    } else {
        let parts: Vec<&str> = route
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        if !parts.is_empty() {
            return Some(parts.join("/"));
        }
        "normalizes outside the plugin namespace"
    };
    let f = Finding::new(
        Code::ProtoCommandRoute,
        format!(
            "command {} {label} {} {reason} — it must be a relative route inside /api/plugins/{id}/… (the console calls it with the operator bearer attached); dropped",
            repr_str(&ctx.cid),
            repr_str(&declared)
        ),
        at,
    )
    .help(format!("write a route relative to /api/plugins/{id}/, like `search` or `items/refresh`"));
    warn(out, f);
    None
}

/// `_parse_command_topic`: the namespaced topic, or `None` (warned).
fn topic(ctx: &Ctx, raw: Option<&Node>, at: Pointer, out: &mut Out) -> Option<String> {
    let id = ctx.id;
    let topic = strip(&or_empty(raw)).to_owned();
    let segments: Vec<&str> = topic.split('.').collect();
    if !topic.is_empty()
        && !topic.chars().any(py_space)
        && !topic.contains(['*', '#'])
        && segments.iter().all(|s| !s.is_empty())
        && (segments.len() == 1 || segments[0] == id)
    {
        return Some(topic);
    }
    let f = Finding::new(
        Code::ProtoCommandTopic,
        format!(
            "command {} emit topic {} is outside the plugin's own namespace (use a bare name, or prefix it with {}) — dropped",
            repr_str(&ctx.cid),
            repr_str(&topic),
            repr_str(&format!("{id}."))
        ),
        at,
    );
    warn(out, f);
    None
}

/// `_parse_command_action`: `Some(chained command id or "")` when kept.
fn action(
    ctx: &Ctx,
    raw: &Node,
    label: &str,
    at: Pointer,
    out: &mut Out,
) -> Option<Option<String>> {
    let a = Code::ProtoCommandAction;
    if !matches!(raw.value, Value::Table(_)) {
        ctx.drop(out, a, format!("{label} must be a mapping — dropped"), at);
        return None;
    }
    let kind = field(raw, "type");
    if !ACTIONS.contains(&kind.as_str()) {
        let at = if raw.get("type").is_some() {
            at.join("type")
        } else {
            at
        };
        ctx.drop(
            out,
            a,
            format!(
                "{label} type {} is not one of {} — dropped",
                repr_str(&kind),
                ACTIONS.join(", ")
            ),
            at,
        );
        return None;
    }
    let at_key = |k: &'static str| {
        if raw.get(k).is_some() {
            at.join(k)
        } else {
            at.clone()
        }
    };
    match kind.as_str() {
        "navigate" | "open_view" => view_action(ctx, raw, label, at_key("view"), out),
        "tool" => tool_action(ctx, raw, label, (at_key("route"), at_key("method")), out),
        "emit" => {
            topic(ctx, raw.get("topic").map(|e| &e.node), at_key("topic"), out)?;
            if let Some(data) = raw.get("data")
                && !matches!(data.node.value, Value::Null | Value::Table(_))
            {
                ctx.drop(
                    out,
                    a,
                    format!("{label} data must be a mapping — dropped"),
                    at.join("data"),
                );
                return None;
            }
            Some(None)
        }
        _ => {
            let target = field(raw, "command");
            if target.is_empty() {
                ctx.drop(
                    out,
                    a,
                    format!("{label} needs the id of the command to run — dropped"),
                    at_key("command"),
                );
                return None;
            }
            Some(Some(target))
        }
    }
}

/// A `navigate` or `open_view` action: kept when it opens a view of this manifest that
/// has a rail or dock surface.
fn view_action(
    ctx: &Ctx,
    raw: &Node,
    label: &str,
    view_at: Pointer,
    out: &mut Out,
) -> Option<Option<String>> {
    let a = Code::ProtoCommandAction;
    let view = field(raw, "view");
    let declared: Vec<&View> = ctx.views.iter().filter(|v| v.id == view).collect();
    if declared.iter().any(|v| v.navigable) {
        return Some(None);
    }
    let why = if declared.is_empty() {
        "which this manifest does not declare — a command may only open its own plugin's views; dropped"
    } else {
        "which is a chat-slot claimant or a utility widget — the console gives those no rail/dock surface, so there is nowhere for the row to go; dropped"
    };
    ctx.drop(
        out,
        a,
        format!("{label} targets view {}, {why}", repr_str(&view)),
        view_at,
    );
    None
}

/// A `tool` action: its route, and a method the host calls tools with.
fn tool_action(
    ctx: &Ctx,
    raw: &Node,
    label: &str,
    (route_at, method_at): (Pointer, Pointer),
    out: &mut Out,
) -> Option<Option<String>> {
    let a = Code::ProtoCommandAction;
    route(
        ctx,
        raw.get("route").map(|e| &e.node),
        &format!("{label} route"),
        route_at,
        out,
    )?;
    let method = {
        let m = or_empty(raw.get("method").map(|e| &e.node));
        let m = if m.is_empty() { "POST".to_owned() } else { m };
        strip(&m).to_uppercase()
    };
    if !METHODS.contains(&method.as_str()) {
        ctx.drop(
            out,
            a,
            format!(
                "{label} method {} is not one of {} — dropped",
                repr_str(&method),
                METHODS.join(", ")
            ),
            method_at,
        );
        return None;
    }
    Some(None)
}

/// `_parse_command_provider`: `Some(chained command id or "")` when kept.
fn provider(ctx: &Ctx, raw: &Node, at: Pointer, out: &mut Out) -> Option<Option<String>> {
    let a = Code::ProtoCommandAction;
    if !matches!(raw.value, Value::Table(_)) {
        ctx.drop(
            out,
            a,
            "provider must be a mapping — dropped".to_owned(),
            at,
        );
        return None;
    }
    let route_at = if raw.get("route").is_some() {
        at.join("route")
    } else {
        at.clone()
    };
    route(
        ctx,
        raw.get("route").map(|e| &e.node),
        "provider route",
        route_at,
        out,
    )?;
    let Some(result) = raw.get("result_action") else {
        ctx.drop(out, a, "provider declares no result_action — its result rows would have nothing to run when they are picked; dropped".to_owned(), at);
        return None;
    };
    action(
        ctx,
        &result.node,
        "provider result_action",
        at.join("result_action"),
        out,
    )
}

/// A command that parsed: its id, where it is, and the ids it chains to.
struct Kept {
    id: String,
    at: Pointer,
    chains: Vec<String>,
}

/// `_parse_commands(entries, id, views)`.
pub(super) fn commands(doc: &Node, id: &str, views: &[View], out: &mut Out) {
    let mut kept: Vec<Kept> = Vec::new();
    for (i, raw) in items(doc, "commands") {
        let at = ptr!["commands", i];
        if !matches!(raw.value, Value::Table(_)) {
            warn(
                out,
                Finding::new(
                    Code::ProtoCommand,
                    "commands entry must be a mapping — ignored",
                    at,
                ),
            );
            continue;
        }
        let cid = field(&raw, "id");
        let title = field(&raw, "title");
        if !super::super::id_grammar_ok(&cid) || title.is_empty() {
            warn(
                out,
                Finding::new(
                    Code::ProtoCommand,
                    format!(
                        "commands entry (id {}, title {}) needs a safe id ({ID_PATTERN}) and a non-empty title — ignored",
                        repr_str(&cid),
                        repr_str(&title)
                    ),
                    at,
                ),
            );
            continue;
        }
        if kept.iter().any(|k| k.id == cid) {
            warn(
                out,
                Finding::new(
                    Code::ProtoCommand,
                    format!("duplicate command id {} — keeping first", repr_str(&cid)),
                    at.join("id"),
                ),
            );
            continue;
        }
        let ctx = Ctx {
            id,
            cid: cid.clone(),
            views,
        };
        let (has_action, has_provider) = (raw.get("action"), raw.get("provider"));
        if has_action.is_none() && has_provider.is_none() {
            ctx.drop(out, Code::ProtoCommand, "declares neither an action nor a provider — there is nothing for the palette to run; ignored".to_owned(), at.join("id"));
            continue;
        }
        let mut chains = Vec::new();
        if let Some(a) = has_action {
            match action(&ctx, &a.node, "action", at.join("action"), out) {
                None => continue,
                Some(c) => chains.extend(c),
            }
        }
        if let Some(p) = has_provider {
            match provider(&ctx, &p.node, at.join("provider"), out) {
                None => continue,
                Some(c) => chains.extend(c),
            }
        }
        kept.push(Kept {
            id: cid,
            at,
            chains,
        });
    }
    unterminated_chains(&kept, out);
}

/// The kept commands whose chain of `type: command` actions does not end in one that
/// runs something else: each is dropped, saying whether it loops or names an unknown id.
fn unterminated_chains(kept: &[Kept], out: &mut Out) {
    // Chains: grow the terminating set to a fixpoint.
    let mut terminating: Vec<&str> = kept
        .iter()
        .filter(|c| c.chains.is_empty())
        .map(|c| c.id.as_str())
        .collect();
    loop {
        let grown: Vec<&str> = kept
            .iter()
            .filter(|c| c.chains.iter().all(|t| terminating.contains(&t.as_str())))
            .map(|c| c.id.as_str())
            .collect();
        if grown == terminating {
            break;
        }
        terminating = grown;
    }
    for c in kept {
        if terminating.contains(&c.id.as_str()) {
            continue;
        }
        let mut unknown: Vec<&str> = c
            .chains
            .iter()
            .map(String::as_str)
            .filter(|t| !kept.iter().any(|k| k.id == *t))
            .collect();
        unknown.sort_unstable();
        unknown.dedup();
        let why = if unknown.is_empty() {
            "it loops, or leads only into commands that were themselves dropped".to_owned()
        } else {
            format!(
                "it names {}, which this manifest does not declare",
                unknown.join(", ")
            )
        };
        warn(out, Finding::new(
            Code::ProtoCommandChain,
            format!(
                "command {} chain does not end — {why}; a command may only run another command this manifest declares, and the chain has to terminate; dropped",
                repr_str(&c.id)
            ),
            c.at.join("id"),
        ).help("a `type: command` action must name another command of this manifest, and the chain has to reach a command that runs something else"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::doc::Node;

    fn route_of(raw: &str) -> (Option<String>, Vec<String>) {
        let node = Node {
            span: 0..0,
            value: Value::Str(raw.into()),
        };
        let ctx = Ctx {
            id: "x",
            cid: "c".to_owned(),
            views: &[],
        };
        let mut out = Vec::new();
        let r = route(&ctx, Some(&node), "action route", ptr![], &mut out);
        (r, out.into_iter().map(|(f, _)| f.message).collect())
    }

    #[test]
    fn routes_normalize_or_drop() {
        assert_eq!(route_of("./a/./b/").0.as_deref(), Some("a/b"));
        assert_eq!(route_of(" search ").0.as_deref(), Some("search"));
        for (raw, reason) in [
            ("", "is empty"),
            ("%2e%09%2e/x", "carries a tab, newline"),
            ("localhost-sync", "carries a scheme, host or port"),
            ("v:2", "carries a scheme, host or port"),
            ("/abs", "is absolute"),
            ("a?b", "carries a backslash, query or fragment"),
            ("%252e%252e/config", "contains a '..' segment"),
            ("./", "normalizes outside the plugin namespace"),
        ] {
            let (r, ws) = route_of(raw);
            assert_eq!(r, None, "{raw}");
            assert!(ws[0].contains(reason), "{raw}: {ws:?}");
        }
    }
}
