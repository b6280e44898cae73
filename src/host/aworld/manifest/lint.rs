//! AWorld lints: the schema's view (the host never applies it) and what the
//! runtime skips or refuses after `validate` said yes (spec `aworld.md` §6, §7, §9).

use std::path::Path;

use crate::diagnostic::{Code, Diagnostic, Severity, did_you_mean};
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Seg, Value};
use crate::manifest::pyval::{py_str, truthy};
use crate::manifest::schema::{self as json_schema, Problem};
use crate::ptr;

use super::Options;
use super::loader::{At, Loaded, Targets, kind_at};

/// Kinds some host loader or the registry consumes.
const KNOWN_KINDS: &[&str] = &[
    "commands",
    "cli_commands",
    "skill_commands",
    "hooks",
    "hud",
    "contexts",
    "skills",
    "agents",
    "swarms",
    "tools",
    "mcp_servers",
    "runners",
];

/// Top-level command names the host reserves in code (`main.py`).
const RESERVED: &[&str] = &["interactive", "list", "serve", "gateway"];

/// Names bundled commands already take (documented reserved names included).
const BUNDLED_NAMES: &[&str] = &[
    "resume",
    "plugins",
    "plugin",
    "batch-job",
    "batch",
    "skill",
    "run",
    "config",
    "examples",
    "help-zh",
    "evaluator",
    "optimize",
    "acp",
];

/// Hook points the host emits.
const HOOK_POINTS: &[&str] = &[
    "task_started",
    "task_progress",
    "task_completed",
    "task_error",
    "task_interrupted",
    "stop",
    "steering_checkpoint",
    "user_input_received",
    "evaluator.pre_discover",
    "evaluator.post_discover",
    "evaluator.pre_run",
    "evaluator.post_run",
    "evaluator.render_summary",
];

const CONTEXT_PHASES: &[&str] = &["schema", "bootstrap", "enrich", "propagate", "persist"];

/// `plugin.schema.json` violations, as warnings.
pub(super) fn schema(errors: Vec<json_schema::SchemaError>) -> Vec<Finding> {
    errors
        .into_iter()
        .map(|e| {
            let path = if e.at.0.is_empty() { "the manifest".to_owned() } else { format!("`{}`", e.at.dotted()) };
            let message = match &e.problem {
                Problem::Missing(key) => format!("plugin.schema.json requires `{key}`"),
                Problem::Type(t) => format!("{path} should be {} per plugin.schema.json", t.join(" or ")),
                Problem::Enum(allowed) => format!("{path} should be one of {} per plugin.schema.json", allowed.join(", ")),
                Problem::Shape => format!("{path} must not be empty per plugin.schema.json"),
                Problem::Unknown(key) => format!("plugin.schema.json does not allow `{key}`"),
                Problem::Range | Problem::Other(_) => format!("{path} violates plugin.schema.json"),
            };
            let f = Finding::new(Code::AworldSchema, message, e.at.clone())
                .help("the host never applies plugin.schema.json, so it accepts this; editors and other tools do not");
            if matches!(e.problem, Problem::Missing(_)) { f.on_key() } else { f }
        })
        .collect()
}

fn entry_name(ep: &Node) -> String {
    let name = ep.get("name").map(|e| &e.node).filter(|n| truthy(n));
    py_str(name.unwrap_or_else(|| &ep.get("id").expect("loader checked").node))
}

fn metadata<'a>(ep: &'a Node<'a>, key: &str) -> Option<&'a Node<'a>> {
    ep.get("metadata")?.node.get(key).map(|e| &e.node)
}

/// Lints over a manifest the loader accepted.
pub(super) fn check(
    loaded: &Loaded<'_>,
    root: &Path,
    targets: &Targets<'_>,
    opts: &Options,
) -> Vec<(Finding, Severity)> {
    let mut out = Vec::new();
    let warn = |f: Finding| (f, Severity::Warning);
    let pid = &loaded.id;
    if let Err(why) = crate::name::Name::new(pid) {
        out.push(warn(
            Finding::new(
                Code::AworldIdNotInstallable,
                format!("plugin id {pid:?} cannot be a directory name: {why}"),
                ptr!["id"],
            )
            .help(
                "`plugins install` refuses it; use letters, digits, `-`, `_` and `.` (not first)",
            ),
        ));
    }
    for (kind, eps) in &loaded.kinds {
        if !KNOWN_KINDS.contains(kind) {
            let mut f = Finding::new(
                Code::AworldUnknownKind,
                format!("entrypoint kind `{kind}` has no loader in the host; it is only indexed"),
                kind_at(kind),
            )
            .on_key();
            if let Some(s) = did_you_mean(kind, KNOWN_KINDS.iter().copied()) {
                f = f.help(format!("did you mean `{s}`?")).fix(s);
            }
            out.push(warn(f));
        }
        for (i, ep) in eps {
            let at = At { kind, i: *i };
            let eid = py_str(&ep.get("id").expect("loader checked").node);
            let target = ep.get("target").map(|e| &e.node).filter(|t| truthy(t));
            out.extend(
                target_findings(kind, (pid, &eid), target, (root, targets), at)
                    .into_iter()
                    .map(warn),
            );
            match *kind {
                "cli_commands" if !opts.bundled => out.extend(names(pid, &eid, ep, at)),
                "hooks" => out.extend(hooks(pid, &eid, ep, at).into_iter().map(warn)),
                "contexts" => out.extend(contexts(pid, &eid, ep, at).into_iter().map(warn)),
                "skills" => {
                    let found = target
                        .and_then(|t| {
                            if let Value::Str(t) = &t.value {
                                Some(t)
                            } else {
                                None
                            }
                        })
                        .is_some_and(|t| root.join(&**t).is_file())
                        || root.join("skills").join(&eid).join("SKILL.md").is_file()
                        || root.join(&eid).join("SKILL.md").is_file();
                    if !found {
                        out.push(warn(Finding::new(
                            Code::AworldMissingTarget,
                            format!("skill '{pid}:{eid}' has no SKILL.md (its target, skills/{eid}/SKILL.md or {eid}/SKILL.md), so the host drops it"),
                            at.ptr(),
                        ).on_key()));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// An entrypoint's target: missing where the host needs one, or naming no file where the
/// host imports or runs it (`pid`, `eid`: the plugin's and the entrypoint's ids).
fn target_findings(
    kind: &str,
    (pid, eid): (&str, &str),
    target: Option<&Node>,
    (root, targets): (&Path, &Targets<'_>),
    at: At<'_>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let label = match kind {
        "cli_commands" => Some("plugin cli command"),
        "skill_commands" => Some("plugin skill command"),
        "hud" => Some("plugin hud entrypoint"),
        "hooks" => Some("plugin hook"),
        _ => None,
    };
    if let (Some(label), None) = (label, target) {
        out.push(
            Finding::new(
                Code::AworldMissingTarget,
                format!("{label} '{pid}:{eid}' is missing a target"),
                at.ptr(),
            )
            .on_key(),
        );
    }
    if let Some(Value::Str(t)) = target.map(|t| &t.value)
        && !matches!(
            kind,
            "agents" | "swarms" | "tools" | "mcp_servers" | "runners" | "skills"
        )
        && !targets.exist(root, t)
    {
        let why = if t.ends_with(".py") && kind == "commands" {
            "importing it fails and drops every plugin for the session"
        } else {
            "it fails when the host loads or runs it"
        };
        out.push(Finding::new(
            Code::AworldMissingTarget,
            format!("target {t:?} of '{pid}:{eid}' does not exist; {why}"),
            at.join(&["target"]),
        ));
    }
    out
}

/// Reserved and shadowed top-level command names (§7).
fn names(pid: &str, eid: &str, ep: &Node, at: At<'_>) -> Vec<(Finding, Severity)> {
    // Each name with where it is written: the keys below the entrypoint, and an alias's
    // place in its list.
    let written: &[&'static str] = if ep.get("name").is_some_and(|e| truthy(&e.node)) {
        &["name"]
    } else {
        &["id"]
    };
    const ALIASES: &[&str] = &["metadata", "aliases"];
    let mut candidates = vec![(entry_name(ep), written, None)];
    if let Some(aliases) = metadata(ep, "aliases") {
        match &aliases.value {
            Value::Str(s) => candidates.push((s.to_string(), ALIASES, None)),
            Value::Array(items) => {
                for (j, a) in items.iter().enumerate() {
                    let s = py_str(a).trim().to_owned();
                    if !s.is_empty() {
                        candidates.push((s, ALIASES, Some(j)));
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (name, keys, index) in candidates {
        let reserved = RESERVED.contains(&name.as_str());
        if !reserved && !BUNDLED_NAMES.contains(&name.as_str()) {
            continue;
        }
        let mut at = at.join(keys);
        at.0.extend(index.map(Seg::Index));
        out.push(if reserved {
            (
                Finding::new(Code::AworldReservedName, format!("Top-level command '{name}' is reserved"), at)
                    .help(format!("'{pid}:{eid}': pick another name; `interactive`, `list`, `serve` and `gateway` belong to aworld-cli (pass --bundled for a plugin shipped inside aworld-cli)")),
                Severity::Error,
            )
        } else {
            (
                Finding::new(Code::AworldShadowedName, format!("top-level command '{name}' is already taken by a bundled aworld-cli command, so this entry never registers"), at),
                Severity::Warning,
            )
        });
    }
    out
}

fn hooks(pid: &str, eid: &str, ep: &Node, at: At<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let point = metadata(ep, "hook_point")
        .map(|p| py_str(p).trim().to_lowercase())
        .filter(|p| !p.is_empty() && p != "none");
    match point {
        None => out.push(
            Finding::new(
                Code::AworldHookPoint,
                format!("plugin hook '{pid}:{eid}' is missing metadata.hook_point"),
                at.ptr(),
            )
            .on_key()
            .help(format!(
                "the host skips the whole plugin at run time; set one of: {}",
                HOOK_POINTS.join(", ")
            )),
        ),
        Some(p) if !HOOK_POINTS.contains(&p.as_str()) => {
            let mut f = Finding::new(
                Code::AworldHookPoint,
                format!(
                    "hook point {p:?} is never emitted by the host, so '{pid}:{eid}' never fires"
                ),
                at.join(&["metadata", "hook_point"]),
            );
            if let Some(s) = did_you_mean(&p, HOOK_POINTS.iter().copied()) {
                f = f.help(format!("did you mean \"{s}\"?")).fix(s);
            }
            out.push(f);
        }
        Some(_) => {}
    }
    if let Some(priority) = metadata(ep, "priority") {
        let ok = match &priority.value {
            Value::Int(_) | Value::Bool(_) => true,
            Value::Float(x) => x.is_finite(),
            Value::Str(s) => s
                .trim()
                .trim_start_matches(['+', '-'])
                .replace('_', "")
                .parse::<u64>()
                .is_ok(),
            _ => false,
        };
        if !ok {
            out.push(Finding::new(Code::AworldHookPriority, format!("metadata.priority of '{pid}:{eid}' is not an integer; sorting hooks fails and the plugin is skipped"), at.join(&["metadata", "priority"])));
        }
    }
    out
}

fn contexts(pid: &str, eid: &str, ep: &Node, at: At<'_>) -> Vec<Finding> {
    let Some(phases) = metadata(ep, "phases") else {
        return Vec::new();
    };
    let pat = at.join(&["metadata", "phases"]);
    let Value::Array(items) = &phases.value else {
        return vec![Finding::new(
            Code::AworldContextPhases,
            format!("context entrypoint '{pid}:{eid}' metadata.phases must be a list"),
            pat,
        )];
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(j, p)| {
            let phase = py_str(p).to_lowercase();
            (!CONTEXT_PHASES.contains(&phase.as_str())).then(|| {
                Finding::new(
                    Code::AworldContextPhases,
                    format!("unsupported context phase '{phase}' for '{pid}:{eid}'"),
                    pat.join(j),
                )
                .help(format!(
                    "known phases: {}; the host skips the plugin",
                    CONTEXT_PHASES.join(", ")
                ))
            })
        })
        .collect()
}

fn has_skill_dirs(dir: &Path) -> bool {
    fs_err::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(Result::ok)
            .any(|e| e.path().join("SKILL.md").is_file())
    })
}

/// Skill packs directly under the root, which discovery loads but validate refuses.
pub(super) fn direct_root_skills(root: &Path) -> bool {
    fs_err::read_dir(root).is_ok_and(|rd| {
        rd.filter_map(Result::ok).any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.')
                && name != "agents"
                && name != "skills"
                && e.path().join("SKILL.md").is_file()
        })
    })
}

/// A legacy root `validate` accepts but discovery would not load.
pub(super) fn legacy(root: &Path) -> Vec<Diagnostic> {
    let agents = root.join("agents").exists();
    let skills = has_skill_dirs(&root.join("skills")) || direct_root_skills(root);
    if agents || skills {
        return Vec::new();
    }
    vec![Diagnostic::new(
        Code::AworldLegacyUndiscovered,
        "validate accepts this legacy root, but run-time discovery finds no agents/ and no skills/<name>/SKILL.md, so it is never loaded",
    )
    .with_help("add agents/ or a skill directory with a SKILL.md, or a .aworld-plugin/plugin.json manifest")]
}
