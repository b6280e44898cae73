//! A setting's `default`: its type, bounds and options, and each item of an
//! `object_list` default against the list's declared fields.

use super::super::raw::{Field, Setting};
use super::{Cx, err};
use crate::diagnostic::Code;
use crate::manifest::doc::Pointer;
use crate::ptr;

/// `SettingType`'s `Debug` name, as the host prints it.
pub(super) fn debug_name(snake: &str) -> String {
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

pub(super) fn is_string_array(v: &toml::Value) -> bool {
    v.as_array()
        .is_some_and(|a| a.iter().all(toml::Value::is_str))
}

pub(super) fn setting_default(cx: &mut Cx, i: usize, s: &Setting, def: &toml::Value) {
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

pub(super) fn field_value_ok(f: &Field, v: &toml::Value) -> bool {
    match f.value_type.as_str() {
        "bool" => v.is_bool(),
        "integer" => v.is_integer(),
        "dynamic_multi_select" | "string_list" => is_string_array(v),
        _ => v.is_str(),
    }
}

pub(super) fn object_list_default(cx: &mut Cx, i: usize, s: &Setting, items: &[toml::Value]) {
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
            item_field(cx, &ctx, f, v, &here);
        }
    }
}

/// One declared field's value in an `object_list` default's item (`ctx` names the item):
/// its type, required but empty, an integer's bounds, a select's options.
fn item_field(cx: &mut Cx, ctx: &str, f: &Field, v: &toml::Value, here: &Pointer) {
    let ty = f.value_type.as_str();
    cx.check(field_value_ok(f, v), || {
        err(
            Code::AoeSettingDefault,
            format!("{ctx}.{} does not match type {}", f.key, debug_name(ty)),
            here.clone(),
        )
    });
    // The host's `empty_required`: a list type is empty unless it is a non-empty
    // array (so a default of another type is also "required but empty", after
    // "does not match type"); any other type only when it is a blank string.
    let blank = if matches!(ty, "dynamic_multi_select" | "string_list") {
        v.as_array().is_none_or(Vec::is_empty)
    } else {
        v.as_str().is_some_and(|s| s.trim().is_empty())
    };
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
