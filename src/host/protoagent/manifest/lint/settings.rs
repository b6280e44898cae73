//! `settings`, the 0.218 `settings_tabs` and `settings[].tab`, and the config
//! section (spec `protoagent.md` §2, `protoagent-0218.md` §2.5–2.6).

use super::super::id_grammar_ok;
use super::paths::iframe_page_route;
use super::{Out, get_str, items, or_empty, repr, strip, warn};
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::{py_str, repr_str, truthy, type_name};
use crate::ptr;

/// Built-in config sections a plugin may not claim (`pconfig._RESERVED_SECTIONS`).
const RESERVED_SECTIONS: &[&str] = &[
    "model",
    "subagents",
    "middleware",
    "knowledge",
    "memory",
    "skills",
    "workflows",
    "compaction",
    "checkpoint",
    "routing",
    "goal",
    "operator",
    "tools",
    "mcp",
    "plugins",
    "identity",
    "auth",
    "runtime",
    "telemetry",
    "instance",
    "prompt_cache",
    "enforcement",
    "ingest",
];

/// Setting types the settings UI documents (`path` included).
const SETTING_TYPES: &[&str] = &[
    "string",
    "text",
    "number",
    "bool",
    "select",
    "string_list",
    "secret",
    "path",
];

/// Undocumented spellings seen in the wild and what they probably mean.
const SETTING_TYPE_HINTS: &[(&str, &str)] = &[
    ("int", "number"),
    ("integer", "number"),
    ("float", "number"),
    ("boolean", "bool"),
    ("password", "secret"),
    ("list", "string_list"),
];

pub(super) fn section(doc: &Node, id: &str, out: &mut Out) {
    let declared = ["config", "settings", "secrets"]
        .iter()
        .any(|k| doc.get(k).is_some());
    let (name, at) = match doc.get("config_section") {
        Some(e) if !py_str(&e.node).trim().is_empty() => {
            (py_str(&e.node).trim().to_owned(), ptr!["config_section"])
        }
        _ => (id.to_owned(), ptr!["id"]),
    };
    if declared && RESERVED_SECTIONS.contains(&name.as_str()) {
        warn(out, Finding::new(Code::ProtoReservedSection, format!("config_section '{name}' collides with a built-in — ignored"), at)
            .help(format!("set `config_section` to a name of your own (built-ins: {}); until then the plugin's config, settings and secrets never reach the Settings UI", RESERVED_SECTIONS.join(", "))));
    }
}

/// A `settings_tabs` entry the host keeps.
pub(super) struct Tab {
    pub id: String,
    /// The stripped `path` of a path-backed tab.
    pub path: Option<String>,
}

/// `_parse_settings_tabs` (0.218): the kept tabs, in order, and the host's warnings.
pub(super) fn settings_tabs(doc: &Node, id: &str, out: &mut Out) -> Vec<Tab> {
    let mut kept: Vec<Tab> = Vec::new();
    for (i, raw) in items(doc, "settings_tabs") {
        let at = ptr!["settings_tabs", i];
        if !matches!(raw.value, Value::Table(_)) {
            warn(
                out,
                Finding::new(
                    Code::ProtoSettingsTab,
                    "settings_tabs entry must be a mapping — ignored",
                    at,
                ),
            );
            continue;
        }
        // `str(raw.get("id", ""))`, no `or ""`: `id: null` is the valid tab "None".
        let tab_id = strip(&get_str(&raw, "id")).to_owned();
        let label = strip(&get_str(&raw, "label")).to_owned();
        if !id_grammar_ok(&tab_id) || label.is_empty() {
            let bad = if id_grammar_ok(&tab_id) {
                "label"
            } else {
                "id"
            };
            let at = if raw.get(bad).is_some() {
                at.join(bad)
            } else {
                at
            };
            warn(
                out,
                Finding::new(
                    Code::ProtoSettingsTab,
                    "settings_tabs entry needs a safe id and non-empty label — ignored",
                    at,
                )
                .help("a tab needs an `id` matching ^[A-Za-z0-9][A-Za-z0-9_-]*$ and a non-empty `label`"),
            );
            continue;
        }
        if kept.iter().any(|t| t.id == tab_id) {
            warn(
                out,
                Finding::new(
                    Code::ProtoSettingsTab,
                    format!(
                        "duplicate settings tab id {} — keeping first",
                        repr_str(&tab_id)
                    ),
                    at.join("id"),
                ),
            );
            continue;
        }
        if let Some(apply) = raw.get("apply")
            && strip(&or_empty(Some(&apply.node))).to_lowercase() != "live"
        {
            let message = format!(
                "settings tab {} apply {} is not 'live' — ignored (the tab keeps save-then-apply)",
                repr_str(&tab_id),
                repr(&apply.node)
            );
            warn(
                out,
                Finding::new(Code::ProtoSettingsTabApply, message, at.join("apply"))
                    .help("write `apply: live`, or leave `apply` out for save-then-apply"),
            );
        }
        let mut path = None;
        if let Some(p) = raw.get("path") {
            let Some(stripped) = configure_path(&p.node, id, &tab_id, &at, out) else {
                continue;
            };
            path = Some(stripped);
        }
        kept.push(Tab { id: tab_id, path });
    }
    kept
}

/// A tab's Configure `path`, stripped: a same-origin page under `/plugins/<id>/`, else
/// `None` (the whole tab is dropped).
fn configure_path(p: &Node, id: &str, tab_id: &str, at: &Pointer, out: &mut Out) -> Option<String> {
    let stripped = strip(&or_empty(Some(p))).to_owned();
    let route = iframe_page_route(&stripped);
    let root = format!("/plugins/{id}/");
    if stripped.is_empty()
        || !route.starts_with(&root)
        || route.contains('\\')
        || route.split('/').any(|part| part == "." || part == "..")
    {
        warn(
            out,
            Finding::new(
                Code::ProtoSettingsTabPath,
                format!(
                    "settings tab {} Configure path {} must be a same-origin page under /plugins/{id}/... — ignored",
                    repr_str(tab_id),
                    repr_str(&stripped)
                ),
                at.join("path"),
            )
            .help(format!("the whole tab is dropped; point `path` at a page of this plugin, like /plugins/{id}/settings (no `..`, no backslash)")),
        );
        return None;
    }
    Some(stripped)
}

/// `settings[]`: what the host drops (and, on 0.218, `tab` references it
/// resets to Configuration) and what the settings UI cannot render.
pub(super) fn settings(doc: &Node, tabs: Option<&[Tab]>, out: &mut Out) {
    for (i, s) in items(doc, "settings") {
        let at = ptr!["settings", i];
        if !matches!(s.value, Value::Table(_)) {
            warn(
                out,
                Finding::new(
                    Code::ProtoSetting,
                    format!(
                        "settings[{i}] is a {}, not a mapping, so the host drops it",
                        type_name(&s)
                    ),
                    at,
                ),
            );
            continue;
        }
        if let (Some(tabs), Some(tab)) = (tabs, s.get("tab")) {
            setting_tab(&s, &tab.node, tabs, at.join("tab"), out);
        }
        if s.get("key").is_none_or(|k| !truthy(&k.node)) {
            warn(
                out,
                Finding::new(
                    Code::ProtoSetting,
                    format!("settings[{i}] has no `key`, so the settings UI skips it"),
                    at.clone(),
                ),
            );
        }
        let ty = s
            .get("type")
            .map_or_else(|| "string".to_owned(), |e| py_str(&e.node));
        if !SETTING_TYPES.contains(&ty.as_str()) {
            let mut f = Finding::new(
                Code::ProtoSetting,
                format!(
                    "settings[{i}].type {} is not a documented setting type; the UI cannot render it as intended",
                    repr_str(&ty)
                ),
                at.join("type"),
            );
            if let Some((_, to)) = SETTING_TYPE_HINTS.iter().find(|(from, _)| *from == ty) {
                f = f.help(format!("did you mean `{to}`?"));
                f = f.fix(*to);
            } else {
                f = f.help(format!("documented types: {}", SETTING_TYPES.join(", ")));
            }
            warn(out, f);
        }
        if let Some(key) = s.get("key").map(|k| py_str(&k.node))
            && s.get("required").is_some_and(|r| truthy(&r.node))
            && doc
                .get("config")
                .and_then(|c| c.node.get(&key))
                .is_none_or(|v| blank(&v.node))
        {
            warn(out, Finding::new(Code::ProtoSetting, format!("settings[{i}] `{key}` is required and has no default in `config`, so the plugin loads incomplete until it is set"), at.join("required"))
                .help("its tools reply \"needs setup\" until the operator sets it; give a default in `config` if one makes sense"));
        }
        if ty == "select" && s.get("options").is_none_or(|o| !truthy(&o.node)) {
            warn(
                out,
                Finding::new(
                    Code::ProtoSetting,
                    format!("settings[{i}] is a select without `options`"),
                    at.join("type"),
                ),
            );
        }
    }
}

/// `_parse_settings`' `tab` check: an unknown or path-backed tab falls back to Configuration.
fn setting_tab(
    s: &Node,
    tab: &Node,
    tabs: &[Tab],
    at: crate::manifest::doc::Pointer,
    out: &mut Out,
) {
    let tab_id = strip(&py_str(tab)).to_owned();
    let key = s
        .get("key")
        .map_or_else(|| "None".to_owned(), |k| repr(&k.node));
    let (message, help) = match tabs.iter().find(|t| t.id == tab_id) {
        None => (
            format!(
                "setting {key} references unknown settings tab {} — using Configuration",
                repr_str(&tab_id)
            ),
            if tabs.is_empty() {
                "declare the tab in `settings_tabs` ({id, label}), or drop `tab`".to_owned()
            } else {
                let ids: Vec<&str> = tabs.iter().map(|t| t.id.as_str()).collect();
                format!("declared tabs: {}", ids.join(", "))
            },
        ),
        Some(t) if t.path.is_some() => (
            format!(
                "setting {key} cannot target path-backed settings tab {} — using Configuration",
                repr_str(&tab_id)
            ),
            "a tab with a `path` shows the plugin's own page; target a tab without `path`"
                .to_owned(),
        ),
        Some(_) => return,
    };
    warn(
        out,
        Finding::new(Code::ProtoSettingTab, message, at).help(help),
    );
}

/// The soft gate's notion of blank: None, whitespace, or an empty collection (not 0 or false).
fn blank(node: &Node) -> bool {
    match &node.value {
        Value::Null => true,
        Value::Str(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Table(t) => t.is_empty(),
        _ => false,
    }
}
