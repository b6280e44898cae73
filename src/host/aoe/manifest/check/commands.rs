//! `[[commands]]` and `[[keybinds]]`.

use super::super::profile::Profile;
use super::super::raw::{Action, Manifest};
use super::{Cx, err};
use crate::diagnostic::Code;
use crate::ptr;

pub(super) fn commands(cx: &mut Cx, m: &Manifest, profile: Profile) {
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
            // aoe 1.14's `is_per_session` also takes tool-card-badge (read at v1.14.0).
            .help(if profile.is_per_session("tool-card-badge") {
                "per-session slots: row-badge, row-column, pane, composer-action, detail-badge, tool-card-badge"
            } else {
                "per-session slots: row-badge, row-column, pane, composer-action, detail-badge"
            })
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
