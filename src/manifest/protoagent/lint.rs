//! protoAgent lints and static load gates: what `load_manifest` silently drops
//! or coerces, what the loader warns about, and what stops a plugin loading.

use std::path::Path;

use super::{Options, pep440, schema_value};
use crate::diagnostic::{Code, Severity, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::contain;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::{py_repr, py_str, repr_str, truthy, type_name};
use crate::manifest::schema::{declared_keys, sub_schema};
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

type Out = Vec<(Finding, Severity)>;

fn warn(out: &mut Out, f: Finding) {
    out.push((f, Severity::Warning));
}

pub(super) fn check(doc: &Node, id: &str, root: &Path, opts: &Options) -> Out {
    let mut out = Vec::new();
    keys(doc, &mut out);
    for key in ["enabled", "builtin", "test"] {
        if let Some(e) = doc.get(key)
            && !matches!(e.node.value, Value::Bool(_) | Value::Null)
        {
            let effective = if truthy(&e.node) { "true" } else { "false" };
            warn(
                &mut out,
                Finding::new(
                    Code::ProtoTruthyString,
                    format!(
                        "`{key}` is a {}, which Python's bool() reads as {effective}",
                        type_name(&e.node)
                    ),
                    ptr![key],
                )
                .help(truthy_help(key, &e.node, effective)),
            );
        }
    }
    for (key, want_list) in [
        ("requires_env", true),
        ("secrets", true),
        ("settings", true),
        ("views", true),
        ("public_paths", true),
        ("emits", true),
        ("subscribes", true),
        ("requires_pip", true),
        ("capabilities", false),
        ("config", false),
    ] {
        if let Some(e) = doc.get(key) {
            let ok = matches!(
                (&e.node.value, want_list),
                (Value::Array(_), true) | (Value::Table(_), false) | (Value::Null, _)
            );
            if !ok {
                let want = if want_list { "a list" } else { "a mapping" };
                warn(
                    &mut out,
                    Finding::new(
                        Code::ProtoIgnoredValue,
                        format!(
                            "`{key}` is a {}, not {want}, so the host ignores it",
                            type_name(&e.node)
                        ),
                        ptr![key],
                    ),
                );
            }
        }
    }
    section(doc, id, &mut out);
    settings(doc, &mut out);
    paths(doc, id, &mut out);
    emits(doc, root, &mut out);
    requires_pip(doc, &mut out);
    gates(doc, root, opts, &mut out);
    out
}

/// The fix for a non-boolean flag follows what the author wrote (`"false"` →
/// `false`), not what Python makes of it.
fn truthy_help(key: &str, node: &Node, effective: &str) -> String {
    let written = match &node.value {
        Value::Str(s) => match s.trim().to_lowercase().as_str() {
            "true" | "yes" | "on" | "y" | "1" => Some("true"),
            "false" | "no" | "off" | "n" | "0" | "" => Some("false"),
            _ => None,
        },
        Value::Int(_) | Value::BigInt(_) | Value::Float(_) => Some(effective),
        _ => None,
    };
    match written {
        Some(w) if w == effective => format!("write `{key}: {w}` (unquoted)"),
        Some(w) => {
            format!("write `{key}: {w}` (unquoted); as written, the host treats it as {effective}")
        }
        None => format!(
            "write `{key}: true` or `{key}: false` (unquoted); as written, the host treats it as {effective}"
        ),
    }
}

fn items(doc: &Node, key: &str) -> Vec<(usize, Node)> {
    match doc.get(key).map(|e| &e.node.value) {
        Some(Value::Array(items)) => items.iter().cloned().enumerate().collect(),
        _ => Vec::new(),
    }
}

/// Unknown keys (the host ignores them) and duplicates (the last wins), recursively
/// where the schema describes the table.
fn keys(doc: &Node, out: &mut Out) {
    walk(doc, schema_value(), &Pointer::default(), out);
}

fn walk(node: &Node, schema: &serde_json::Value, at: &Pointer, out: &mut Out) {
    match &node.value {
        Value::Table(entries) => {
            let declared = declared_keys(schema);
            let mut seen: Vec<&str> = Vec::new();
            for e in entries {
                let here = at.join(e.key.clone());
                if seen.contains(&e.key.as_str()) {
                    warn(
                        out,
                        Finding::new(
                            Code::ProtoDuplicateKey,
                            format!("duplicate key `{}`; the last one wins", e.key),
                            here.clone(),
                        )
                        .on_key(),
                    );
                }
                seen.push(&e.key);
                let Some((known, _)) = &declared else {
                    continue;
                };
                if known.contains(&e.key.as_str()) {
                    if let Some(sub) = sub_schema(
                        schema,
                        &Pointer(vec![crate::manifest::doc::Seg::Key(e.key.clone().into())]),
                    ) {
                        walk(&e.node, sub, &here, out);
                    }
                } else {
                    let place = if at.0.is_empty() {
                        "the manifest".to_owned()
                    } else {
                        at.dotted()
                    };
                    let mut f = Finding::new(
                        Code::ProtoUnknownKey,
                        format!("unknown key `{}` in {place} is ignored by the host", e.key),
                        here,
                    )
                    .on_key();
                    if let Some(s) = did_you_mean(&e.key, known.iter().copied()) {
                        f = f.help(format!("did you mean `{s}`?"));
                    }
                    warn(out, f);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = schema
                .get("items")
                .filter(|i| i.get("properties").is_some())
            {
                for (i, n) in list.iter().enumerate() {
                    walk(n, item, &at.join(i), out);
                }
            }
        }
        _ => {}
    }
}

fn section(doc: &Node, id: &str, out: &mut Out) {
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

fn settings(doc: &Node, out: &mut Out) {
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

/// `public_paths` and `views`: what the host keeps public, drops or warns about.
fn paths(doc: &Node, id: &str, out: &mut Out) {
    let ns = [format!("/plugins/{id}/"), format!("/api/plugins/{id}/")];
    let outside = |p: &str| !ns.iter().any(|n| p.starts_with(n.as_str()));
    for (i, p) in items(doc, "public_paths") {
        let s = py_str(&p).trim().to_owned();
        if !s.is_empty() && outside(&s) {
            warn(out, Finding::new(Code::ProtoPublicPath, format!("public_path '{s}' is outside the plugin namespace (/plugins/{id}/… or /api/plugins/{id}/…) — ignored"), ptr!["public_paths", i])
                .help(format!("public paths must start with /plugins/{id}/ or /api/plugins/{id}/ (the trailing slash counts)")));
        }
    }
    let origin = |p: &str| {
        let l = p.to_ascii_lowercase();
        l.starts_with("http://")
            || l.starts_with("https://")
            || l.starts_with("//")
            || l.contains("localhost")
            || l.as_bytes()
                .windows(2)
                .any(|w| w[0] == b':' && w[1].is_ascii_digit())
    };
    for (i, v) in items(doc, "views") {
        let at = ptr!["views", i];
        let field = |k: &str| v.get(k).map(|e| &e.node).filter(|n| truthy(n));
        let (Some(_), Some(path)) = (field("id"), field("path")) else {
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
        if origin(&path) {
            warn(
                out,
                Finding::new(
                    Code::ProtoView,
                    format!("view path {} is not same-origin relative", repr_str(&path)),
                    at.join("path"),
                ),
            );
        }
        let bare = path.split(['?', '#']).next().unwrap_or_default();
        if outside(bare) {
            warn(
                out,
                Finding::new(
                    Code::ProtoPublicPath,
                    format!(
                        "view path '{bare}' is outside the plugin namespace, so it is not made public"
                    ),
                    at.join("path"),
                ),
            );
        }
    }
}

fn emits(doc: &Node, root: &Path, out: &mut Out) {
    let base = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for (i, e) in items(doc, "emits") {
        let at = ptr!["emits", i];
        let Value::Table(_) = e.value else { continue };
        let topic = e.get("topic").map_or_else(String::new, |t| {
            if truthy(&t.node) {
                py_str(&t.node).trim().to_owned()
            } else {
                String::new()
            }
        });
        if topic.is_empty() {
            warn(
                out,
                Finding::new(
                    Code::ProtoEmits,
                    format!("emits entry {} has no 'topic' — skipped", py_repr(&e)),
                    at,
                ),
            );
            continue;
        }
        let Some(schema) = e.get("schema").map(|s| &s.node) else {
            continue;
        };
        let sat = at.join("schema");
        let reference = match &schema.value {
            Value::Str(s) => Some((s.trim().to_owned(), sat.clone())),
            Value::Table(entries) if entries.len() == 1 && entries[0].key == "$ref" => {
                match &entries[0].node.value {
                    Value::Str(s) => Some((s.trim().to_owned(), sat.join("$ref"))),
                    _ => None,
                }
            }
            Value::Table(_) => None,
            _ => {
                warn(
                    out,
                    Finding::new(
                        Code::ProtoEmits,
                        format!(
                            "emits '{topic}' schema must be a mapping or a $ref path, got {} — keeping the topic name only",
                            type_name(schema)
                        ),
                        sat,
                    ),
                );
                None
            }
        };
        let Some((r, rat)) = reference else { continue };
        let escapes = match contain::resolve(&base, &r) {
            Ok(p) => !contain::inside(&base, &p),
            Err(_) => true,
        };
        if escapes {
            warn(
                out,
                Finding::new(
                    Code::ProtoEmits,
                    format!(
                        "emits '{topic}' schema $ref '{r}' escapes the plugin directory — ignored"
                    ),
                    rat,
                ),
            );
            continue;
        }
        match std::fs::read_to_string(base.join(&r))
            .map_err(|e| e.to_string())
            .and_then(|t| crate::manifest::format::parse_yaml(&t).map_err(|e| e.message))
        {
            Err(why) => warn(
                out,
                Finding::new(
                    Code::ProtoEmits,
                    format!(
                        "emits '{topic}' schema $ref '{r}' is unreadable ({why}) — keeping the topic name only"
                    ),
                    rat,
                ),
            ),
            Ok(n) if !matches!(n.value, Value::Table(_)) => {
                warn(
                    out,
                    Finding::new(
                        Code::ProtoEmits,
                        format!(
                            "emits '{topic}' schema $ref '{r}' is not a mapping — keeping the topic name only"
                        ),
                        rat,
                    ),
                );
            }
            Ok(_) => {}
        }
    }
}

fn requires_pip(doc: &Node, out: &mut Out) {
    for (i, e) in items(doc, "requires_pip") {
        let at = ptr!["requires_pip", i];
        let Value::Table(_) = e.value else {
            pip_spec(&py_str(&e), at, out);
            continue;
        };
        let pkg = e.get("pkg").map_or_else(String::new, |p| {
            if truthy(&p.node) {
                py_str(&p.node).trim().to_owned()
            } else {
                String::new()
            }
        });
        if pkg.is_empty() {
            warn(
                out,
                Finding::new(
                    Code::ProtoRequiresPip,
                    format!("requires_pip entry {} has no 'pkg' — skipped", py_repr(&e)),
                    at,
                ),
            );
            continue;
        }
        pip_spec(&pkg, at.join("pkg"), out);
        if let Some(scope) = e.get("scope") {
            let s = py_str(&scope.node).to_lowercase();
            if s != "host" && s != "runtime" {
                warn(
                    out,
                    Finding::new(
                        Code::ProtoRequiresPip,
                        format!(
                            "requires_pip entry {} has unknown scope '{s}' (expected host or runtime) — treating as 'runtime'",
                            py_repr(&e)
                        ),
                        at.join("scope"),
                    ),
                );
            }
        }
    }
}

/// What `install-deps` (and `plugins install --deps`) would refuse to install.
fn pip_spec(spec: &str, at: Pointer, out: &mut Out) {
    if let Some(why) = super::pip_spec_problem(spec) {
        warn(
            out,
            Finding::new(
                Code::ProtoPipSpec,
                format!("requires_pip entry {spec:?} {why}"),
                at,
            )
            .help("`install-deps` and `plugins install --deps` refuse it and install none of the deps; require a package by name from an index (like `mypkg>=1.2`), or vendor the code in the plugin"),
        );
    }
}

/// Load gates: the entry module, `min_protoagent_version`, `requires_env`.
fn gates(doc: &Node, root: &Path, opts: &Options, out: &mut Out) {
    let entrypoint = doc
        .get("entrypoint")
        .map(|e| py_str(&e.node).trim().to_owned())
        .filter(|e| !e.is_empty() && e != "None");
    match &entrypoint {
        Some(ep) => {
            let base = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            if contain::resolve(&base, ep).map_or(true, |p| !contain::inside(&base, &p)) {
                warn(
                    out,
                    Finding::new(
                        Code::ProtoEntrypointEscapes,
                        format!(
                            "entrypoint {} resolves outside the plugin directory",
                            repr_str(ep)
                        ),
                        ptr!["entrypoint"],
                    )
                    .help("the host imports it anyway; keep the module inside the plugin"),
                );
            }
            if !root.join(ep).is_file() {
                out.push((Finding::new(Code::ProtoEntrypoint, "no entry module (expected __init__.py or plugin.py)", ptr!["entrypoint"])
                    .label("this file does not exist")
                    .help("a set `entrypoint` that does not exist does not fall back to __init__.py; the plugin does not load"), Severity::Error));
            }
        }
        None if !root.join("__init__.py").is_file() && !root.join("plugin.py").is_file() => {
            let f = Finding::new(
                Code::ProtoEntrypoint,
                "no entry module (expected __init__.py or plugin.py)",
                ptr!["id"],
            )
            .label("this plugin has no module to import")
            .help("add __init__.py with a `register(registry)` function, or set `entrypoint`");
            out.push((f, Severity::Error));
        }
        None => {}
    }
    if let Some(e) = doc.get("min_protoagent_version") {
        let declared = py_str(&e.node).trim().to_owned();
        let host = opts.host_version.as_deref();
        match (pep440::Version::parse(&declared), host.map(pep440::Version::parse)) {
            (None, _) if !declared.is_empty() => warn(out, Finding::new(Code::ProtoMinVersion, format!("unparseable min_protoagent_version '{declared}' (host '{}') — loading anyway", host.unwrap_or("unknown")), ptr!["min_protoagent_version"])
                .help("use a PEP 440 version such as \"0.85.0\"")),
            (Some(need), Some(Some(have))) if need > have => out.push((
                Finding::new(Code::ProtoHostVersion, format!("requires protoAgent >= {declared} but this host is {}", host.unwrap_or_default()), ptr!["min_protoagent_version"])
                    .help("the host refuses to load the plugin; upgrade protoAgent or lower the requirement"),
                Severity::Error,
            )),
            _ => {}
        }
    }
    if let (Some(env), Some(Value::Array(vars))) =
        (&opts.env, doc.get("requires_env").map(|e| &e.node.value))
    {
        let missing: Vec<String> = vars
            .iter()
            .map(py_str)
            .filter(|v| !env.contains(v))
            .collect();
        if !missing.is_empty() {
            warn(out, Finding::new(Code::ProtoRequiresEnv, format!("missing env: {}", missing.join(", ")), ptr!["requires_env"])
                .help("the host does not load the plugin until these are set and non-empty where it runs"));
        }
    }
}
