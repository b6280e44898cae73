//! `emits`, `requires_pip` and the 0.218 `requires_runtimes`
//! (`protoagent.md` §2.4–2.5, `protoagent-0218.md` §2.8).

use std::path::Path;

use super::{Out, items, or_empty, py_decimal, py_space, repr, strip, warn};
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::contain;
use crate::manifest::doc::{Node, Pointer, Value};
use crate::manifest::pyval::{dict_items, py_str, repr_str, type_name};
use crate::ptr;

pub(super) fn emits(doc: &Node, root: &Path, out: &mut Out) {
    // `root` is already resolved (`validate_at`).
    let base = root.to_path_buf();
    for (i, e) in items(doc, "emits") {
        let at = ptr!["emits", i];
        let Value::Table(_) = e.value else { continue };
        let topic = strip(&or_empty(e.get("topic").map(|t| &t.node))).to_owned();
        if topic.is_empty() {
            warn(
                out,
                Finding::new(
                    Code::ProtoEmits,
                    format!("emits entry {} has no 'topic' — skipped", repr(&e)),
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
            Value::Str(s) => Some((strip(s).to_owned(), sat.clone())),
            Value::Table(_) if dict_items(schema).len() == 1 && schema.get("$ref").is_some() => {
                match schema.get("$ref").map(|e| &e.node.value) {
                    Some(Value::Str(s)) => Some((strip(s).to_owned(), sat.join("$ref"))),
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
                            "emits {} schema must be a mapping or a $ref path, got {} — keeping the topic name only",
                            repr_str(&topic),
                            type_name(schema)
                        ),
                        sat,
                    ),
                );
                None
            }
        };
        let Some((r, rat)) = reference else { continue };
        schema_ref(&base, &topic, &r, rat, out);
    }
}

/// An `emits` schema given as a `$ref` path (`r`, at `rat`): inside the plugin
/// directory `base`, and a YAML mapping there.
fn schema_ref(base: &Path, topic: &str, r: &str, rat: Pointer, out: &mut Out) {
    let escapes = match contain::resolve(base, r) {
        Ok(p) => !contain::inside(base, &p),
        Err(_) => true,
    };
    if escapes {
        warn(
            out,
            Finding::new(
                Code::ProtoEmits,
                format!(
                    "emits {} schema $ref {} escapes the plugin directory — ignored",
                    repr_str(topic),
                    repr_str(r)
                ),
                rat,
            ),
        );
        return;
    }
    match crate::file::read_to_string(base.join(r))
        .map_err(|e| crate::file::reason(&e).into_owned())
        .and_then(|t| crate::manifest::format::parse_yaml(&t).map_err(|e| e.message))
    {
        Err(why) => warn(
            out,
            Finding::new(
                Code::ProtoEmits,
                format!(
                    "emits {} schema $ref {} is unreadable ({why}) — keeping the topic name only",
                    repr_str(topic),
                    repr_str(r)
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
                        "emits {} schema $ref {} is not a mapping — keeping the topic name only",
                        repr_str(topic),
                        repr_str(r)
                    ),
                    rat,
                ),
            );
        }
        Ok(_) => {}
    }
}

pub(super) fn requires_pip(doc: &Node, out: &mut Out) {
    for (i, e) in items(doc, "requires_pip") {
        let at = ptr!["requires_pip", i];
        let Value::Table(_) = e.value else {
            pip_spec(&py_str(&e), at, out);
            continue;
        };
        let pkg = strip(&or_empty(e.get("pkg").map(|p| &p.node))).to_owned();
        if pkg.is_empty() {
            warn(
                out,
                Finding::new(
                    Code::ProtoRequiresPip,
                    format!("requires_pip entry {} has no 'pkg' — skipped", repr(&e)),
                    at,
                ),
            );
            continue;
        }
        pip_spec(&pkg, at.join("pkg"), out);
        let scope = strip(&or_empty(e.get("scope").map(|s| &s.node))).to_lowercase();
        if !scope.is_empty() && scope != "host" && scope != "runtime" {
            warn(
                out,
                Finding::new(
                    Code::ProtoRequiresPip,
                    format!(
                        "requires_pip entry {} has unknown scope {} (expected host or runtime) — treating as 'runtime'",
                        repr_str(&pkg),
                        repr_str(&scope)
                    ),
                    at.join("scope"),
                ),
            );
        }
    }
}

/// What `install-deps` (and `plugins install --deps`) would refuse to install.
fn pip_spec(spec: &str, at: Pointer, out: &mut Out) {
    if let Some(why) = super::super::pip_spec_problem(spec) {
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

/// `_RUNTIME_SPEC_RE`: `^(?:>=\s*)?v?(\d+(?:\.\d+){0,2})$`.
fn version_floor(spec: &str) -> bool {
    let rest = match spec.strip_prefix(">=") {
        Some(r) => r.trim_start_matches(py_space),
        None => spec,
    };
    let rest = rest.strip_prefix('v').unwrap_or(rest);
    let parts: Vec<&str> = rest.split('.').collect();
    parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(py_decimal))
}

/// `_parse_requires_runtimes` (0.218): only `node`, with a version floor.
pub(super) fn requires_runtimes(doc: &Node, out: &mut Out) {
    let Some(e) = doc.get("requires_runtimes") else {
        return;
    };
    let at = ptr!["requires_runtimes"];
    match &e.node.value {
        Value::Null => return,
        Value::Table(_) => {}
        _ => {
            warn(
                out,
                Finding::new(
                    Code::ProtoRequiresRuntimes,
                    "requires_runtimes must be a mapping like {node: '>=20'} — ignored",
                    at,
                )
                .help("write `requires_runtimes: {node: \">=20\"}`"),
            );
            return;
        }
    }
    for (name, spec) in dict_items(&e.node) {
        let here: Pointer = at.join(name.to_owned());
        if strip(name).to_lowercase() != "node" {
            warn(
                out,
                Finding::new(
                    Code::ProtoRequiresRuntimes,
                    format!(
                        "requires_runtimes names unknown runtime {} (known: node) — ignored",
                        repr_str(name)
                    ),
                    here,
                )
                .on_key(),
            );
            continue;
        }
        let ok = match &spec.value {
            Value::Int(_) | Value::BigInt(_) => version_floor(&py_str(spec)),
            Value::Str(s) => version_floor(strip(s)),
            _ => false,
        };
        if !ok {
            warn(out, Finding::new(
                Code::ProtoRequiresRuntimes,
                format!(
                    "requires_runtimes.node spec {} is not a version floor ('>=N[.N[.N]]' or 'N[.N[.N]]') — ignored",
                    repr(spec)
                ),
                here,
            ).help("write a floor such as \">=20\" or \">=20.6\" (quoted; a YAML float like 20.6 is refused)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::version_floor;

    #[test]
    fn runtime_floors_as_the_delta_lists_them() {
        for ok in [
            ">=20",
            ">= 20.1.2",
            "20",
            "20.6",
            "v20",
            ">= v20",
            ">=\u{a0}20",
        ] {
            assert!(version_floor(ok), "{ok}");
        }
        for bad in [
            "^20", "<22", "20.x", ">=20 <22", "V20", "", "1.2.3.4", ">=", "v",
        ] {
            assert!(!version_floor(bad), "{bad}");
        }
    }
}
