//! The host's `validate()`: every semantic problem, collected in the host's
//! order with the host's exact messages (spec `aoe.md` §2–§16, §19 step 4).

use std::collections::HashSet;

use super::profile::{Gate, PLATFORMS, Profile};
use super::raw::{Action, Field, Manifest, Runtime, Setting};
use super::rules;
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::Pointer;
use crate::ptr;

/// Collects findings; `check(ok, …)` mirrors the host's closure.
struct Cx {
    out: Vec<Finding>,
}

impl Cx {
    fn check(&mut self, ok: bool, f: impl FnOnce() -> Finding) {
        if !ok {
            self.out.push(f());
        }
    }
}

fn err(code: Code, message: impl Into<String>, at: Pointer) -> Finding {
    Finding::new(code, message, at)
}

/// Run the semantic pass over a manifest that passed the typed parse.
pub(super) fn validate(m: &Manifest, profile: Profile) -> Vec<Finding> {
    let mut cx = Cx { out: Vec::new() };
    let max = profile.api_version();
    cx.check((1..=max).contains(&m.api_version), || {
        err(
            Code::AoeApiVersion,
            format!(
                "api_version {} is not supported (host supports 1..={max})",
                m.api_version
            ),
            ptr!["api_version"],
        )
    });
    cx.check(!m.version.is_empty(), || {
        err(Code::AoeEmpty, "version must not be empty", ptr!["version"])
    });
    cx.check(!m.name.is_empty(), || {
        err(Code::AoeEmpty, "name must not be empty", ptr!["name"])
    });
    runtime(&mut cx, m);
    commands(&mut cx, m, profile);
    for (i, k) in m.keybinds.iter().enumerate() {
        cx.check(!k.command.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("keybinds[{i}].command must not be empty"),
                ptr!["keybinds", i, "command"],
            )
        });
        cx.check(!k.key.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("keybinds[{i}].key must not be empty"),
                ptr!["keybinds", i, "key"],
            )
        });
    }
    settings(&mut cx, m);
    for (i, t) in m.themes.iter().enumerate() {
        cx.check(!t.name.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("themes[{i}].name must not be empty"),
                ptr!["themes", i, "name"],
            )
        });
        cx.check(!t.path.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("themes[{i}].path must not be empty"),
                ptr!["themes", i, "path"],
            )
        });
    }
    for (i, s) in m.status.iter().enumerate() {
        cx.check(!s.id.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("status[{i}].id must not be empty"),
                ptr!["status", i, "id"],
            )
        });
    }
    media(&mut cx, m);
    if let Some(req) = &m.aoe_version {
        cx.check(semver::VersionReq::parse(req).is_ok(), || {
            let why = semver::VersionReq::parse(req).err().map(|e| e.to_string());
            let f = err(
                Code::AoeAoeVersion,
                format!("aoe_version {req:?} is not a valid semver requirement"),
                ptr!["aoe_version"],
            )
            .help("use Cargo-style comparators, e.g. \">=1.11.0, <2.0.0\"");
            match why {
                Some(why) => f.label(why),
                None => f,
            }
        });
    }
    gates(&mut cx, m, profile);
    for (key, value) in &m.setting_defaults {
        cx.check(key.contains('.') && !key.starts_with('.') && !key.ends_with('.'), || {
            let f = err(
                Code::AoeSettingDefaultsKey,
                format!("setting_defaults key {key:?} must be a dotted core path like \"section.field\""),
                ptr!["setting_defaults", key.clone()],
            )
            .on_key();
            if value.is_table() {
                f.help(format!(
                    "an unquoted dotted key makes a nested table; quote the whole path, e.g. \"{key}.field\" = …"
                ))
            } else {
                f
            }
        });
    }
    for (i, u) in m.ui.iter().enumerate() {
        cx.check(!u.id.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("ui[{i}].id must not be empty"),
                ptr!["ui", i, "id"],
            )
        });
    }
    cx.out
}

/// An absolute worker program is usually a host program: offer its bare name
/// with `system = true`, and the in-plugin alternative.
fn absolute_program_help(program: &str) -> String {
    let inside = "point at a file inside the plugin, e.g. \".aoe-build/bin/worker\"";
    match bare_name(program) {
        Some(name) => format!(
            "to run the host's `{name}` from PATH, write the bare name \"{name}\" and add `system = true`; or {inside}"
        ),
        None => inside.to_owned(),
    }
}

/// The last path component of a program, if it has one.
fn bare_name(program: &str) -> Option<&str> {
    program.rsplit(['/', '\\']).next().filter(|n| !n.is_empty())
}

fn runtime(cx: &mut Cx, m: &Manifest) {
    match &m.runtime {
        Some(Runtime::Command {
            command,
            system,
            build,
        }) => {
            cx.check(!command.is_empty(), || {
                err(
                    Code::AoeRuntimeCommand,
                    "runtime command must not be empty",
                    ptr!["runtime", "command"],
                )
            });
            let empty_at = command.iter().position(String::is_empty);
            cx.check(empty_at.is_none(), || {
                err(
                    Code::AoeRuntimeCommand,
                    "runtime command must not contain empty arguments",
                    ptr!["runtime", "command", empty_at.unwrap_or(0)],
                )
            });
            if let Some(program) = command.first().filter(|a| !a.is_empty()) {
                let at = ptr!["runtime", "command", 0];
                if *system {
                    cx.check(!rules::looks_like_path(program), || {
                        err(
                            Code::AoeRuntimeCommand,
                            format!(
                                "runtime command program {program:?} has `system = true` but is a path; \
                                 a system dependency must be a bare program name resolved on PATH (like \"uv\" or \"python3\")"
                            ),
                            at.clone(),
                        )
                        .also(ptr!["runtime", "system"], "`system = true` set here")
                        .help(bare_name(program).map_or_else(
                            || "write a bare program name, or drop `system = true` for a program inside the plugin".to_owned(),
                            |name| format!("write the bare name \"{name}\", or drop `system = true` for a program inside the plugin"),
                        ))
                    });
                } else {
                    let ok = rules::looks_like_path(program) && !rules::is_absolute(program);
                    cx.check(ok, || {
                        err(
                            Code::AoeRuntimeCommand,
                            format!(
                                "runtime command program {program:?} must be a plugin-relative path \
                                 (containing a separator, like \".venv/bin/worker\"); set `system = true` \
                                 to depend on a program from the host PATH instead"
                            ),
                            at.clone(),
                        )
                        .help(if rules::is_absolute(program) {
                            absolute_program_help(program)
                        } else {
                            format!("write \"./{program}\" for a file in the plugin root, or add `system = true`")
                        })
                    });
                }
            }
            for (i, step) in build.iter().enumerate() {
                cx.check(!step.command.is_empty(), || {
                    err(
                        Code::AoeBuildStep,
                        format!("runtime.build[{i}].command must not be empty"),
                        ptr!["runtime", "build", i, "command"],
                    )
                });
                let empty_at = step.command.iter().position(String::is_empty);
                cx.check(empty_at.is_none(), || {
                    err(
                        Code::AoeBuildStep,
                        format!("runtime.build[{i}].command must not contain empty arguments"),
                        ptr!["runtime", "build", i, "command", empty_at.unwrap_or(0)],
                    )
                });
                for (j, p) in step.platforms.iter().enumerate() {
                    cx.check(PLATFORMS.contains(&p.as_str()), || {
                        let f = err(
                            Code::AoeBuildStep,
                            format!(
                                "runtime.build[{i}].platforms contains unknown platform {p:?}; expected one of linux, macos, windows"
                            ),
                            ptr!["runtime", "build", i, "platforms", j],
                        );
                        match crate::diagnostic::did_you_mean(p, PLATFORMS.iter().copied()) {
                            Some(s) => f.help(format!("did you mean \"{s}\"?")),
                            None => f,
                        }
                    });
                }
            }
        }
        Some(Runtime::ReleaseBinary { asset, bin }) => {
            cx.check(!asset.is_empty(), || {
                err(
                    Code::AoeEmpty,
                    "runtime release-binary asset must not be empty",
                    ptr!["runtime", "asset"],
                )
            });
            cx.check(bin.as_ref().is_none_or(|b| !b.is_empty()), || {
                err(
                    Code::AoeEmpty,
                    "runtime release-binary bin must not be empty",
                    ptr!["runtime", "bin"],
                )
            });
        }
        None => {}
    }
}

fn commands(cx: &mut Cx, m: &Manifest, profile: Profile) {
    let has_browser_open = m.capabilities.iter().any(|c| c == "browser_open");
    for (i, c) in m.commands.iter().enumerate() {
        cx.check(!c.id.is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("commands[{i}].id must not be empty"),
                ptr!["commands", i, "id"],
            )
        });
        let Some(Action::OpenUiLink { slot, id }) = &c.action else {
            continue;
        };
        let at = ptr!["commands", i, "action"];
        cx.check(m.api_version >= 6, || {
            err(
                Code::AoeApiGate,
                format!("commands[{i}].action requires api_version >= 6"),
                at.clone(),
            )
            .on_key()
            .also(ptr!["api_version"], "api_version declared here")
        });
        cx.check(has_browser_open, || {
            err(
                Code::AoeCommandAction,
                format!("commands[{i}].action needs the `browser_open` capability"),
                at.clone(),
            )
            .on_key()
            .help("add \"browser_open\" to `capabilities`")
        });
        cx.check(profile.is_per_session(slot.as_str()), || {
            err(
                Code::AoeCommandAction,
                format!("commands[{i}].action open-ui-link slot must be per-session"),
                at.join("slot"),
            )
            .help("per-session slots: row-badge, row-column, pane, composer-action, detail-badge")
        });
        let matches =
            m.ui.iter()
                .filter(|u| u.slot.as_str() == slot.as_str() && &u.id == id)
                .count();
        cx.check(matches == 1, || {
            err(
                Code::AoeCommandAction,
                format!(
                    "commands[{i}].action must reference exactly one ui slot ({}, {id})",
                    slot.as_str()
                ),
                at.join("id"),
            )
            .label(format!("{matches} matching [[ui]] entries"))
        });
    }
}

fn settings(cx: &mut Cx, m: &Manifest) {
    let setting_keys: HashSet<&str> = m.settings.iter().map(|s| s.key.as_str()).collect();
    let agent_keys: HashSet<&str> = m
        .settings
        .iter()
        .filter(|s| s.option_source.as_ref().is_some_and(|o| *o == "acp.agents"))
        .map(|s| s.key.as_str())
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

fn is_acp_scoped(source: Option<&super::raw::OptionSource>) -> bool {
    source.is_some_and(|o| *o == "acp.models" || *o == "acp.modes")
}

/// Dependencies must be distinct siblings other than the item itself.
fn depends_on(
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
                Some(s) => f.help(format!("did you mean \"{s}\"?")),
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

fn setting_structure(
    cx: &mut Cx,
    i: usize,
    s: &Setting,
    keys: &HashSet<&str>,
    agents: &HashSet<&str>,
) {
    let at = ptr!["settings", i];
    match s.value_type.as_str() {
        "dynamic_select" => {
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
                &at,
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
        "object_list" => {
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

fn object_fields(cx: &mut Cx, i: usize, s: &Setting, id_key: &str) {
    let field_keys: HashSet<&str> = s.fields.iter().map(|f| f.key.as_str()).collect();
    let agent_fields: HashSet<&str> = s
        .fields
        .iter()
        .filter(|f| f.option_source.as_ref().is_some_and(|o| *o == "acp.agents"))
        .map(|f| f.key.as_str())
        .collect();
    let mut seen = HashSet::new();
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
        cx.check(seen.insert(f.key.as_str()), || {
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

/// `SettingType`'s `Debug` name, as the host prints it.
fn debug_name(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_ascii_uppercase().to_string() + c.as_str()
            })
        })
        .collect()
}

fn is_string_array(v: &toml::Value) -> bool {
    v.as_array()
        .is_some_and(|a| a.iter().all(toml::Value::is_str))
}

fn setting_default(cx: &mut Cx, i: usize, s: &Setting, def: &toml::Value) {
    let at = ptr!["settings", i, "default"];
    let ty = s.value_type.as_str();
    let type_ok = match ty {
        "bool" => def.is_bool(),
        "integer" => def.is_integer(),
        "object_list" => def.is_array(),
        "string_list" => is_string_array(def),
        _ => def.is_str(),
    };
    cx.check(type_ok, || {
        err(
            Code::AoeSettingDefault,
            format!(
                "settings[{i}].default does not match type {}",
                debug_name(ty)
            ),
            at.clone(),
        )
        .label(format!("this is a {}", def.type_str()))
    });
    if ty == "select"
        && let (Some(d), false) = (def.as_str(), s.options.is_empty())
    {
        cx.check(s.options.iter().any(|o| o == d), || {
            err(
                Code::AoeSettingDefault,
                format!("settings[{i}].default {d:?} is not one of the options"),
                at.clone(),
            )
            .also(ptr!["settings", i, "options"], "options")
        });
    }
    if ty == "integer"
        && let Some(v) = def.as_integer()
    {
        if let Some(lo) = s.min {
            cx.check(v >= lo, || {
                err(
                    Code::AoeSettingDefault,
                    format!("settings[{i}].default {v} is below min {lo}"),
                    at.clone(),
                )
            });
        }
        if let Some(hi) = s.max {
            cx.check(v <= hi, || {
                err(
                    Code::AoeSettingDefault,
                    format!("settings[{i}].default {v} is above max {hi}"),
                    at.clone(),
                )
            });
        }
    }
    if ty == "object_list"
        && let Some(items) = def.as_array()
    {
        object_list_default(cx, i, s, items);
    }
}

fn field_value_ok(f: &Field, v: &toml::Value) -> bool {
    match f.value_type.as_str() {
        "bool" => v.is_bool(),
        "integer" => v.is_integer(),
        "dynamic_multi_select" | "string_list" => is_string_array(v),
        _ => v.is_str(),
    }
}

fn object_list_default(cx: &mut Cx, i: usize, s: &Setting, items: &[toml::Value]) {
    let id_key = s.item_id_key.as_deref().unwrap_or("_id");
    for (k, item) in items.iter().enumerate() {
        let at = ptr!["settings", i, "default", k];
        let ctx = format!("settings[{i}].default[{k}]");
        let Some(table) = item.as_table() else {
            cx.check(false, || {
                err(
                    Code::AoeSettingDefault,
                    format!("{ctx} must be a table"),
                    at.clone(),
                )
            });
            continue;
        };
        let has_id = table
            .get(id_key)
            .and_then(toml::Value::as_str)
            .is_some_and(|v| !v.trim().is_empty());
        cx.check(has_id, || {
            err(
                Code::AoeSettingDefault,
                format!("{ctx} must carry a non-empty {id_key:?} id"),
                at.clone(),
            )
        });
        for key in table.keys() {
            cx.check(
                key == id_key || s.fields.iter().any(|f| &f.key == key),
                || {
                    err(
                        Code::AoeSettingDefault,
                        format!("{ctx} has undeclared key {key:?}"),
                        at.join(key.clone()),
                    )
                    .on_key()
                },
            );
        }
        for f in &s.fields {
            let here = at.join(f.key.clone());
            let Some(v) = table.get(&f.key) else {
                cx.check(!f.required, || {
                    err(
                        Code::AoeSettingDefault,
                        format!("{ctx} is missing required field {:?}", f.key),
                        at.clone(),
                    )
                });
                continue;
            };
            let ty = f.value_type.as_str();
            cx.check(field_value_ok(f, v), || {
                err(
                    Code::AoeSettingDefault,
                    format!("{ctx}.{} does not match type {}", f.key, debug_name(ty)),
                    here.clone(),
                )
            });
            let blank = v.as_str().is_some_and(|s| s.trim().is_empty())
                || (matches!(ty, "dynamic_multi_select" | "string_list")
                    && v.as_array().is_some_and(Vec::is_empty));
            cx.check(!(f.required && blank), || {
                err(
                    Code::AoeSettingDefault,
                    format!("{ctx}.{} is required but empty", f.key),
                    here.clone(),
                )
            });
            if ty == "integer"
                && let Some(iv) = v.as_integer()
            {
                if let Some(lo) = f.min {
                    cx.check(iv >= lo, || {
                        err(
                            Code::AoeSettingDefault,
                            format!("{ctx}.{} {iv} is below min {lo}", f.key),
                            here.clone(),
                        )
                    });
                }
                if let Some(hi) = f.max {
                    cx.check(iv <= hi, || {
                        err(
                            Code::AoeSettingDefault,
                            format!("{ctx}.{} {iv} is above max {hi}", f.key),
                            here.clone(),
                        )
                    });
                }
            }
            if ty == "select"
                && !f.options.is_empty()
                && let Some(sv) = v.as_str()
            {
                cx.check(f.options.iter().any(|o| o == sv), || {
                    err(
                        Code::AoeSettingDefault,
                        format!("{ctx}.{} {sv:?} is not one of the options", f.key),
                        here.clone(),
                    )
                });
            }
        }
    }
}

fn media(cx: &mut Cx, m: &Manifest) {
    let n = m.screenshots.len();
    cx.check(n <= 8, || {
        err(
            Code::AoeScreenshot,
            format!("at most 8 screenshots are allowed (got {n})"),
            ptr!["screenshots", 8],
        )
        .on_key()
        .label("the ninth screenshot")
    });
    for (i, s) in m.screenshots.iter().enumerate() {
        cx.check(rules::screenshot_path_ok(&s.path), || {
            err(
                Code::AoeScreenshot,
                format!(
                    "screenshots[{i}].path {:?} must be a repository-relative image path \
                     (png/jpg/jpeg/gif/webp), not a URL or an absolute/traversing path",
                    s.path
                ),
                ptr!["screenshots", i, "path"],
            )
        });
        cx.check(!s.alt.trim().is_empty(), || {
            err(
                Code::AoeEmpty,
                format!("screenshots[{i}].alt must not be empty"),
                ptr!["screenshots", i, "alt"],
            )
        });
    }
    if let Some(icon) = &m.icon {
        cx.check(rules::lucide_icon_name_ok(icon), || {
            err(
                Code::AoeIcon,
                format!("icon {icon:?} must be a lucide kebab-case icon name"),
                ptr!["icon"],
            )
            .help("lowercase words joined by single hyphens, e.g. \"git-branch\"")
        });
    }
    if let Some(path) = &m.icon_asset {
        cx.check(rules::screenshot_path_ok(path), || {
            err(
                Code::AoeIcon,
                format!(
                    "icon_asset {path:?} must be a repository-relative image path \
                     (png/jpg/jpeg/gif/webp), not a URL or an absolute/traversing path"
                ),
                ptr!["icon_asset"],
            )
        });
    }
}

/// The first use of a gated feature, to label; `None` when unused.
fn gate_use(m: &Manifest, gate: Gate) -> Option<Pointer> {
    let slot = |name: &str| {
        m.ui.iter()
            .position(|u| u.slot == name)
            .map(|i| ptr!["ui", i, "slot"])
    };
    let setting_type = |pred: &dyn Fn(&str) -> bool| {
        m.settings
            .iter()
            .position(|s| pred(s.value_type.as_str()))
            .map(|i| ptr!["settings", i, "type"])
    };
    let field_type = |name: &str| {
        m.settings.iter().enumerate().find_map(|(i, s)| {
            s.fields
                .iter()
                .position(|f| f.value_type == name)
                .map(|j| ptr!["settings", i, "fields", j, "type"])
        })
    };
    match gate {
        Gate::Status => (!m.status.is_empty()).then(|| ptr!["status"]),
        Gate::AoeVersion => m.aoe_version.is_some().then(|| ptr!["aoe_version"]),
        Gate::Screenshots => (!m.screenshots.is_empty()).then(|| ptr!["screenshots"]),
        Gate::Icon => m.icon.is_some().then(|| ptr!["icon"]),
        Gate::IconAsset => m.icon_asset.is_some().then(|| ptr!["icon_asset"]),
        Gate::ComposerAction => slot("composer-action"),
        Gate::V9SettingTypes => {
            setting_type(&|t| matches!(t, "dynamic_select" | "object_list" | "cron"))
        }
        Gate::SettingsPage => slot("settings-page"),
        Gate::ToolCardBadge => slot("tool-card-badge"),
        Gate::DynamicMultiSelect => field_type("dynamic_multi_select"),
        Gate::HomePane => slot("home-pane"),
        Gate::StringList => {
            setting_type(&|t| t == "string_list").or_else(|| field_type("string_list"))
        }
        Gate::SessionMessage => m
            .capabilities
            .iter()
            .position(|c| c == "session.message")
            .map(|i| ptr!["capabilities", i]),
    }
}

fn gates(cx: &mut Cx, m: &Manifest, profile: Profile) {
    for &gate in profile.gates() {
        let (min, message) = gate.requirement();
        if m.api_version >= min {
            continue;
        }
        if let Some(at) = gate_use(m, gate) {
            let key_like = matches!(
                gate,
                Gate::Status | Gate::Screenshots | Gate::AoeVersion | Gate::Icon | Gate::IconAsset
            );
            let f = err(Code::AoeApiGate, message, at)
                .also(
                    ptr!["api_version"],
                    format!("api_version is {}", m.api_version),
                )
                .help(format!(
                    "set `api_version = {min}` or higher (hosts before that version refuse it)"
                ));
            cx.out.push(if key_like { f.on_key() } else { f });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::aoe::raw;

    fn messages(text: &str, profile: Profile) -> Vec<String> {
        let m = raw::parse(text, profile).expect("parses");
        validate(&m, profile)
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    const HEAD: &str = "id = \"a.b\"\nname = \"B\"\nversion = \"1.0.0\"\n";

    #[test]
    fn v9_types_gate_at_8() {
        let text = format!("{HEAD}api_version = 8\n[[settings]]\nkey = \"c\"\ntype = \"cron\"\n");
        assert_eq!(
            messages(&text, Profile::H12),
            ["dynamic_select / object_list / cron settings require api_version >= 9"]
        );
    }

    #[test]
    fn api_zero_and_empty_identity_in_host_order() {
        let text = "id = \"a\"\nname = \"\"\nversion = \"\"\napi_version = 0\n";
        assert_eq!(
            messages(text, Profile::H12),
            [
                "api_version 0 is not supported (host supports 1..=12)",
                "version must not be empty",
                "name must not be empty"
            ]
        );
    }

    #[test]
    fn h15_gates() {
        let text = format!(
            "{HEAD}api_version = 12\ncapabilities = [\"session.message\"]\n[[settings]]\nkey = \"l\"\ntype = \"string_list\"\n[[ui]]\nslot = \"home-pane\"\nid = \"h\"\n"
        );
        assert_eq!(
            messages(&text, Profile::H15),
            [
                "home-pane UI slots require api_version >= 13",
                "string_list settings require api_version >= 14",
                "the session.message capability requires api_version >= 15"
            ]
        );
    }

    #[test]
    fn string_list_default_must_be_strings() {
        let text = format!(
            "{HEAD}api_version = 14\n[[settings]]\nkey = \"l\"\ntype = \"string_list\"\ndefault = [1]\n"
        );
        assert_eq!(
            messages(&text, Profile::H15),
            ["settings[0].default does not match type StringList"]
        );
    }

    #[test]
    fn object_list_default_item_rules() {
        let text = format!(
            "{HEAD}api_version = 11\n[[settings]]\nkey = \"jobs\"\ntype = \"object_list\"\nitem_id_key = \"id\"\n\
             default = [{{ id = \"\", extra = 1, n = 99, kind = \"z\" }}, 3]\n\
             [[settings.fields]]\nkey = \"n\"\ntype = \"integer\"\nmax = 10\n\
             [[settings.fields]]\nkey = \"kind\"\ntype = \"select\"\noptions = [\"a\"]\n\
             [[settings.fields]]\nkey = \"must\"\nrequired = true\n"
        );
        assert_eq!(
            messages(&text, Profile::H12),
            [
                "settings[0].default[0] must carry a non-empty \"id\" id",
                "settings[0].default[0] has undeclared key \"extra\"",
                "settings[0].default[0].n 99 is above max 10",
                "settings[0].default[0].kind \"z\" is not one of the options",
                "settings[0].default[0] is missing required field \"must\"",
                "settings[0].default[1] must be a table",
            ]
        );
    }

    #[test]
    fn debug_names() {
        assert_eq!(debug_name("dynamic_multi_select"), "DynamicMultiSelect");
        assert_eq!(debug_name("bool"), "Bool");
    }
}
