//! `[[settings]]` and `[setting_defaults]`: structure and option sources (a setting's
//! default is checked in `defaults.rs`).

use std::collections::HashSet;

use super::super::raw::{Manifest, Setting};
use super::defaults::setting_default;
use super::{Cx, err};
use crate::diagnostic::Code;
use crate::manifest::doc::Pointer;
use crate::ptr;

pub(super) fn settings(cx: &mut Cx, m: &Manifest) {
    let setting_keys: HashSet<&str> = m.settings.iter().map(|s| s.key.as_ref()).collect();
    let agent_keys: HashSet<&str> = m
        .settings
        .iter()
        .filter(|s| s.option_source.as_ref().is_some_and(|o| *o == "acp.agents"))
        .map(|s| s.key.as_ref())
        .collect();
    for (i, s) in m.settings.iter().enumerate() {
        let at = ptr!["settings", i];
        cx.check(!s.key.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("settings[{i}].key must not be empty"),
                at.join("key"),
            )
        });
        cx.check(s.value_type != "select" || !s.options.is_empty(), || {
            err(
                Code::AoeSetting,
                format!("settings[{i}] is a select but declares no options"),
                at.join("type"),
            )
        });
        cx.check(
            !matches!((s.min, s.max), (Some(lo), Some(hi)) if lo > hi),
            || {
                err(
                    Code::AoeSetting,
                    format!("settings[{i}].min must not exceed max"),
                    at.join("min"),
                )
                .also(at.join("max"), "max")
            },
        );
        setting_structure(cx, i, s, &setting_keys, &agent_keys);
        if let Some(def) = &s.default {
            setting_default(cx, i, s, def);
        }
    }
}

pub(super) fn is_acp_scoped(source: Option<&super::super::raw::OptionSource>) -> bool {
    source.is_some_and(|o| *o == "acp.models" || *o == "acp.modes")
}

/// Dependencies must be distinct siblings other than the item itself.
pub(super) fn depends_on(
    cx: &mut Cx,
    ctx: &str,
    own_key: &str,
    deps: &[String],
    siblings: &HashSet<&str>,
    what: &str,
    at: &Pointer,
) {
    let mut seen = HashSet::new();
    for (d, dep) in deps.iter().enumerate() {
        let here = at.join("depends_on").join(d);
        cx.check(dep != own_key, || {
            err(
                Code::AoeSetting,
                format!("{ctx}: depends_on must not reference itself"),
                here.clone(),
            )
        });
        cx.check(siblings.contains(dep.as_str()), || {
            let f = err(
                Code::AoeSetting,
                format!("{ctx}: depends_on {dep:?} is not a sibling {what}"),
                here.clone(),
            );
            match crate::diagnostic::did_you_mean(dep, siblings.iter().copied()) {
                Some(s) => f.help(format!("did you mean \"{s}\"?")).fix(s),
                None => f,
            }
        });
        cx.check(seen.insert(dep.as_str()), || {
            err(
                Code::AoeSetting,
                format!("{ctx}: depends_on {dep:?} is listed twice"),
                here.clone(),
            )
        });
    }
}

pub(super) fn setting_structure(
    cx: &mut Cx,
    i: usize,
    s: &Setting,
    keys: &HashSet<&str>,
    agents: &HashSet<&str>,
) {
    let at = ptr!["settings", i];
    match s.value_type.as_str() {
        "dynamic_select" => dynamic_select(cx, i, s, (keys, agents), &at),
        "object_list" => object_list(cx, i, s, &at),
        _ => {
            cx.check(s.option_source.is_none(), || {
                err(
                    Code::AoeSetting,
                    format!("settings[{i}]: option_source is only valid on a dynamic_select"),
                    at.join("option_source"),
                )
                .on_key()
            });
            cx.check(s.depends_on.is_empty(), || {
                err(
                    Code::AoeSetting,
                    format!("settings[{i}]: depends_on is only valid on a dynamic_select"),
                    at.join("depends_on"),
                )
                .on_key()
            });
            cx.check(s.fields.is_empty(), || {
                err(
                    Code::AoeSetting,
                    format!("settings[{i}]: fields are only valid on an object_list"),
                    at.join("fields"),
                )
                .on_key()
            });
        }
    }
}

/// A `dynamic_select` setting: where its options come from, no object fields, and the
/// settings it depends on (`keys`: every setting's key; `agents`: the `acp.agents` ones).
fn dynamic_select(
    cx: &mut Cx,
    i: usize,
    s: &Setting,
    (keys, agents): (&HashSet<&str>, &HashSet<&str>),
    at: &Pointer,
) {
    cx.check(s.option_source.is_some(), || {
        err(
            Code::AoeSetting,
            format!("settings[{i}] is a dynamic_select but declares no option_source"),
            at.join("type"),
        )
    });
    cx.check(s.fields.is_empty(), || {
        err(
            Code::AoeSetting,
            format!("settings[{i}] is a dynamic_select and must not declare object fields"),
            at.join("fields"),
        )
        .on_key()
    });
    depends_on(
        cx,
        &format!("settings[{i}]"),
        &s.key,
        &s.depends_on,
        keys,
        "setting",
        at,
    );
    if is_acp_scoped(s.option_source.as_ref()) {
        cx.check(s.depends_on.iter().any(|d| agents.contains(d.as_str())), || {
                err(
                    Code::AoeSetting,
                    format!("settings[{i}]: acp.models/acp.modes require a depends_on referencing an acp.agents setting"),
                    at.join("option_source"),
                )
            });
    }
}

/// An `object_list` setting: its fields, the item bounds and the item id key.
fn object_list(cx: &mut Cx, i: usize, s: &Setting, at: &Pointer) {
    cx.check(!s.fields.is_empty(), || {
        err(
            Code::AoeSetting,
            format!("settings[{i}] is an object_list but declares no fields"),
            at.join("type"),
        )
    });
    cx.check(s.option_source.is_none() && s.depends_on.is_empty(), || {
            let key = if s.option_source.is_some() { "option_source" } else { "depends_on" };
            err(
                Code::AoeSetting,
                format!("settings[{i}] is an object_list; option_source/depends_on belong on its fields, not the list"),
                at.join(key),
            )
            .on_key()
        });
    cx.check(
        !matches!((s.min_items, s.max_items), (Some(lo), Some(hi)) if lo > hi),
        || {
            err(
                Code::AoeSetting,
                format!("settings[{i}].min_items must not exceed max_items"),
                at.join("min_items"),
            )
            .also(at.join("max_items"), "max_items")
        },
    );
    let id_key = s.item_id_key.as_deref().unwrap_or("_id");
    cx.check(!id_key.trim().is_empty(), || {
        err(
            Code::AoeEmpty,
            format!("settings[{i}].item_id_key must not be empty"),
            at.join("item_id_key"),
        )
    });
    object_fields(cx, i, s, id_key);
}

pub(super) fn object_fields(cx: &mut Cx, i: usize, s: &Setting, id_key: &str) {
    let field_keys: HashSet<&str> = s.fields.iter().map(|f| f.key.as_ref()).collect();
    let agent_fields: HashSet<&str> = s
        .fields
        .iter()
        .filter(|f| f.option_source.as_ref().is_some_and(|o| *o == "acp.agents"))
        .map(|f| f.key.as_ref())
        .collect();
    let mut seen: HashSet<&str> = HashSet::new();
    for (j, f) in s.fields.iter().enumerate() {
        let at = ptr!["settings", i, "fields", j];
        let ctx = format!("settings[{i}].fields[{j}]");
        cx.check(!f.key.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("{ctx}.key must not be empty"),
                at.join("key"),
            )
        });
        cx.check(seen.insert(f.key.as_ref()), || {
            err(
                Code::AoeSetting,
                format!("{ctx}.key {:?} is duplicated", f.key),
                at.join("key"),
            )
        });
        cx.check(f.key != id_key, || {
            let f = err(Code::AoeSetting, format!("{ctx}.key {:?} collides with the item id key", f.key), at.join("key"));
            if s.item_id_key.is_some() {
                f.also(ptr!["settings", i, "item_id_key"], "item id key declared here")
                    .help("the item id key is stored by the host; drop the field or choose another `item_id_key`")
            } else {
                f.help("`_id` is the default item id key; rename the field")
            }
        });
        cx.check(f.value_type != "select" || !f.options.is_empty(), || {
            err(
                Code::AoeSetting,
                format!("{ctx} is a select but declares no options"),
                at.join("type"),
            )
        });
        let dynamic = matches!(
            f.value_type.as_str(),
            "dynamic_select" | "dynamic_multi_select"
        );
        cx.check(dynamic == f.option_source.is_some(), || {
            err(
                Code::AoeSetting,
                format!("{ctx}: option_source is required for and exclusive to dynamic_select / dynamic_multi_select"),
                if dynamic { at.join("type") } else { at.join("option_source") },
            )
        });
        cx.check(dynamic || f.depends_on.is_empty(), || {
            err(
                Code::AoeSetting,
                format!(
                    "{ctx}: depends_on is only valid on a dynamic_select / dynamic_multi_select"
                ),
                at.join("depends_on"),
            )
            .on_key()
        });
        depends_on(cx, &ctx, &f.key, &f.depends_on, &field_keys, "field", &at);
        if is_acp_scoped(f.option_source.as_ref()) {
            cx.check(f.depends_on.iter().any(|d| agent_fields.contains(d.as_str())), || {
                err(
                    Code::AoeSetting,
                    format!("{ctx}: acp.models/acp.modes require a depends_on referencing an acp.agents field"),
                    at.join("option_source"),
                )
            });
        }
    }
}
