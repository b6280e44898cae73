//! Lints: what the host accepts but ignores or breaks on later (spec `aoe.md` §19 step 6).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Component, Path};

use super::install::escapes;
use super::profile::{BUILTIN_THEMES, Profile};
use super::raw::{Manifest, Runtime};
use super::rules;
use crate::diagnostic::Code;
use crate::manifest::Finding;
use crate::manifest::doc::{Node, Pointer};
use crate::ptr;

/// An id still in an example namespace (`plugins new` and the aoe template
/// start with `dev.example`) once the plugin's repository has a remote, i.e.
/// is about to be shared: the namespace is meant to be the author's own.
/// Plugins without a remote (local work, tests) are left alone.
fn placeholder_id(id: &str, root: &Path) -> Option<Finding> {
    let mut segments = id.splitn(3, '.');
    let placeholder = match (segments.next()?, segments.next()) {
        ("example", _) => "example",
        (tld @ ("dev" | "com" | "org" | "net"), Some("example")) => &id[..tld.len() + 8],
        _ => return None,
    };
    let rest = id[placeholder.len()..].trim_start_matches('.');
    let url = crate::manifest::remote::url(root)?;
    let proposal = crate::manifest::remote::namespace(&url)
        .map(|ns| format!("{ns}.{rest}"))
        .filter(|p| !rest.is_empty() && rules::id_problem(p).is_none());
    let help = match proposal {
        Some(p) => format!(
            "use a namespace you own before publishing, e.g. \"{p}\" (from the remote {url})"
        ),
        None => format!(
            "use a reverse-DNS namespace you own before publishing, like \"io.github.<user>.{}\"",
            if rest.is_empty() { "name" } else { rest }
        ),
    };
    Some(
        Finding::new(
            Code::AoePlaceholderId,
            format!("plugin id {id:?} keeps the placeholder namespace `{placeholder}`"),
            ptr!["id"],
        )
        .help(help),
    )
}

/// Lints that need the typed manifest (and, when given, the plugin tree).
pub(super) fn check(
    m: &Manifest,
    doc: &Node,
    root: Option<&Path>,
    profile: Profile,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if semver::Version::parse(&m.version).is_err() && !m.version.is_empty() {
        out.push(
            Finding::new(Code::AoeVersionNotSemver, format!("version {:?} is not a semantic version", m.version), ptr!["version"])
                .help("the host does not check it, but updates and the featured index compare versions as semver, e.g. \"1.2.0\""),
        );
    }
    if let Some(f) = root.and_then(|root| placeholder_id(&m.id.0, root)) {
        out.push(f);
    }
    doc_gates(m, doc, profile, &mut out);
    duplicates(m, &mut out);
    inert_properties(m, &mut out);
    for (i, k) in m.keybinds.iter().enumerate() {
        if let Some(why) = rules::chord_problem(&k.key).filter(|_| !k.key.is_empty()) {
            out.push(
                Finding::new(Code::AoeKeybindChord, format!("keybinds[{i}].key {:?} cannot be parsed; the host skips it", k.key), ptr!["keybinds", i, "key"])
                    .label(why)
                    .help("chords are `Ctrl`/`Shift` plus one key: a single character or F1..F24, e.g. \"Ctrl+K\""),
            );
        }
    }
    themes(m, root, &mut out);
    runtime(m, root, &mut out);
    if let Some(root) = root {
        let assets = m
            .screenshots
            .iter()
            .enumerate()
            .map(|(i, s)| (s.path.as_str(), ptr!["screenshots", i, "path"]));
        let icon = m
            .icon_asset
            .iter()
            .map(|p| (p.as_str(), ptr!["icon_asset"]));
        for (path, at) in assets.chain(icon) {
            if rules::screenshot_path_ok(path) && fs_err::symlink_metadata(root.join(path)).is_err()
            {
                out.push(
                    Finding::new(Code::AoeMissingFile, format!("{path:?} does not exist in the plugin tree"), at)
                        .help("the host resolves it against the repository at the installed ref, so it must be committed"),
                );
            }
        }
    }
    out
}

fn doc_gates(m: &Manifest, doc: &Node, profile: Profile, out: &mut Vec<Finding>) {
    let mut gate = |min: u32, what: &str, at: Pointer, on_key: bool| {
        if m.api_version < min {
            let f = Finding::new(Code::AoeDocGate, format!("{what} is documented as api_version >= {min}; this manifest declares {}", m.api_version), at)
                    .also(ptr!["api_version"], "api_version declared here")
                    .help(format!("the host does not enforce it, but set `api_version = {min}` or higher to match the docs"));
            out.push(if on_key { f.on_key() } else { f });
        }
    };
    let contribution = [
        "capabilities",
        "commands",
        "keybinds",
        "settings",
        "setting_defaults",
        "themes",
        "ui",
        "runtime",
    ]
    .into_iter()
    .find(|k| doc.get(k).is_some());
    if let Some(key) = contribution {
        gate(2, &format!("`{key}`"), ptr![key], true);
    }
    if let Some(i) = m.ui.iter().position(|u| u.slot == "pane") {
        gate(3, "the `pane` slot", ptr!["ui", i, "slot"], false);
    }
    let multiline = m.settings.iter().enumerate().find_map(|(i, s)| {
        if doc.locate(&ptr!["settings", i, "multiline"]).is_some() {
            return Some(ptr!["settings", i, "multiline"]);
        }
        (0..s.fields.len())
            .map(|j| ptr!["settings", i, "fields", j, "multiline"])
            .find(|p| doc.locate(p).is_some())
    });
    if let Some(at) = multiline {
        gate(11, "`multiline`", at, true);
    }
    for (i, c) in m.capabilities.iter().enumerate() {
        let min = match c.as_str() {
            "acp.capabilities.probe" => 11,
            "session.message" => continue,
            c if c.starts_with("acp.capabilities.") || c.starts_with("session.") => 9,
            _ => continue,
        };
        if profile.capabilities().contains(&c.as_str()) {
            gate(
                min,
                &format!("the `{c}` capability"),
                ptr!["capabilities", i],
                false,
            );
        }
    }
}

fn duplicates(m: &Manifest, out: &mut Vec<Finding>) {
    let owned = |i, name: String| (i, Cow::Owned(name));
    report_duplicates(
        out,
        "command id",
        |i| ptr!["commands", i, "id"],
        m.commands
            .iter()
            .map(|c| c.id.as_str())
            .enumerate()
            .map(borrowed),
    );
    report_duplicates(
        out,
        "setting key",
        |i| ptr!["settings", i, "key"],
        m.settings
            .iter()
            .map(|s| s.key.as_ref())
            .enumerate()
            .map(borrowed),
    );
    report_duplicates(
        out,
        "status id",
        |i| ptr!["status", i, "id"],
        m.status
            .iter()
            .map(|s| s.id.as_str())
            .enumerate()
            .map(borrowed),
    );
    report_duplicates(
        out,
        "capability",
        |i| ptr!["capabilities", i],
        m.capabilities
            .iter()
            .map(String::as_str)
            .enumerate()
            .map(borrowed),
    );
    report_duplicates(
        out,
        "keybind key",
        |i| ptr!["keybinds", i, "key"],
        m.keybinds
            .iter()
            .enumerate()
            .map(|(i, k)| owned(i, k.key.to_ascii_lowercase())),
    );
    report_duplicates(
        out,
        "theme name",
        |i| ptr!["themes", i, "name"],
        m.themes
            .iter()
            .map(|t| t.name.as_str())
            .enumerate()
            .map(borrowed),
    );
    report_duplicates(
        out,
        "ui entry",
        |i| ptr!["ui", i, "id"],
        m.ui.iter()
            .enumerate()
            .filter(|(_, u)| !u.id.is_empty())
            .map(|(i, u)| owned(i, format!("{} {}", u.slot.as_str(), u.id))),
    );
}

fn borrowed((i, name): (usize, &str)) -> (usize, Cow<'_, str>) {
    (i, Cow::Borrowed(name))
}

/// A finding for each name after its first, at `at(index)`. Names are borrowed where they
/// can be, and a pointer is built only for a duplicate: this runs on every manifest, and
/// few have any (issue 43).
fn report_duplicates<'m>(
    out: &mut Vec<Finding>,
    what: &str,
    at: impl Fn(usize) -> Pointer,
    names: impl Iterator<Item = (usize, Cow<'m, str>)>,
) {
    let mut first: HashMap<Cow<'m, str>, usize> = HashMap::new();
    for (i, name) in names {
        if name.is_empty() {
            continue;
        }
        match first.entry(name) {
            std::collections::hash_map::Entry::Occupied(prev) => out.push(
                Finding::new(
                    Code::AoeDuplicate,
                    format!("duplicate {what} {:?}", prev.key()),
                    at(i),
                )
                .also(at(*prev.get()), "first declared here")
                .help("the host does not reject it, but only one of them is reachable"),
            ),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }
}

fn inert_properties(m: &Manifest, out: &mut Vec<Finding>) {
    let mut inert = |at: Pointer, key: &str, ty: &str| {
        out.push(
            Finding::new(
                Code::AoeInertProperty,
                format!("`{key}` has no effect on a `{ty}` setting"),
                at.join(key.to_owned()),
            )
            .on_key(),
        );
    };
    for (i, s) in m.settings.iter().enumerate() {
        let at = ptr!["settings", i];
        let ty = s.value_type.as_str();
        if ty != "object_list" {
            if s.item_id_key.is_some() {
                inert(at.clone(), "item_id_key", ty);
            }
            if s.min_items.is_some() {
                inert(at.clone(), "min_items", ty);
            }
            if s.max_items.is_some() {
                inert(at.clone(), "max_items", ty);
            }
        }
        if ty != "select" && !s.options.is_empty() {
            inert(at.clone(), "options", ty);
        }
        for (j, f) in s.fields.iter().enumerate() {
            if f.value_type != "select" && !f.options.is_empty() {
                inert(at.join("fields").join(j), "options", f.value_type.as_str());
            }
        }
    }
}

/// A plugin-relative path that climbs out of the plugin directory.
fn lexically_escapes(path: &str) -> bool {
    let mut depth: i64 = 0;
    for c in Path::new(&path.replace('\\', "/")).components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::RootDir | Component::Prefix(_) => return true,
            Component::CurDir => {}
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

fn themes(m: &Manifest, root: Option<&Path>, out: &mut Vec<Finding>) {
    for (i, t) in m.themes.iter().enumerate() {
        if BUILTIN_THEMES.contains(&t.name.as_str()) {
            out.push(
                Finding::new(
                    Code::AoeThemeName,
                    format!(
                        "theme name {:?} collides with a builtin theme, so the host drops it",
                        t.name
                    ),
                    ptr!["themes", i, "name"],
                )
                .help("pick a distinct name, e.g. prefix it with your plugin's name"),
            );
        }
        if t.path.is_empty() {
            continue;
        }
        let at = ptr!["themes", i, "path"];
        let why = if rules::is_absolute(&t.path) || rules::has_windows_prefix(&t.path) {
            Some("is absolute")
        } else if t.path.split(['/', '\\']).any(|s| s == "..") {
            Some("contains `..`")
        } else if let Some(root) = root {
            let full = root.join(&t.path);
            if fs_err::symlink_metadata(&full).is_err() {
                Some("does not exist in the plugin tree")
            } else if escapes(root, &full) {
                Some("resolves outside the plugin directory")
            } else {
                None
            }
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Finding::new(
                Code::AoeThemePath,
                format!(
                    "themes[{i}].path {:?} {why}, so the host drops the theme",
                    t.path
                ),
                at,
            ));
        }
    }
}

fn runtime(m: &Manifest, root: Option<&Path>, out: &mut Vec<Finding>) {
    match &m.runtime {
        Some(Runtime::Command {
            command,
            system,
            build,
        }) => {
            if let Some(program) = command.first().filter(|p| !p.is_empty() && !*system) {
                let at = ptr!["runtime", "command", 0];
                if rules::is_absolute(program) {
                    // The host's own rule (`runtime_command`) already refuses it
                    // and says how to fix it; a lint would only repeat it.
                } else if rules::has_windows_prefix(program) {
                    out.push(Finding::new(Code::AoeEntrypoint, format!("runtime command program {program:?} has a drive or UNC prefix; it is absolute on Windows"), at));
                } else if lexically_escapes(program) {
                    out.push(
                        Finding::new(Code::AoeEntrypoint, format!("runtime command program {program:?} escapes the plugin directory; the host refuses to launch it"), at)
                            .help("keep the worker inside the plugin, e.g. under `.aoe-build/`"),
                    );
                } else if let Some(root) = root {
                    let full = root.join(program);
                    let exists = fs_err::symlink_metadata(&full).is_ok();
                    if exists && escapes(root, &full) {
                        out.push(Finding::new(Code::AoeEntrypoint, format!("runtime command program {program:?} resolves outside the plugin directory (through a symlink)"), at));
                    } else if !exists && build.is_empty() {
                        out.push(
                            Finding::new(Code::AoeEntrypoint, format!("runtime command program {program:?} does not exist and no build step creates it"), at)
                                .help("commit the program or add a `[[runtime.build]]` step that produces it"),
                        );
                    }
                }
            }
            for (i, step) in build.iter().enumerate() {
                if let Some(p) = step
                    .command
                    .first()
                    .filter(|p| rules::is_absolute(p) || rules::has_windows_prefix(p))
                {
                    out.push(
                        Finding::new(Code::AoeBuildProgram, format!("runtime.build[{i}] program {p:?} is an absolute path, which the host rejects when it runs the step"), ptr!["runtime", "build", i, "command", 0])
                            .help("use a bare program name resolved on PATH, or a plugin-relative path"),
                    );
                }
            }
        }
        Some(Runtime::ReleaseBinary { asset, bin }) => {
            if asset.contains("${target}") {
                out.push(
                    Finding::new(Code::AoeAssetTemplate, "`${target}` is documented but the host does not substitute it in `asset`", ptr!["runtime", "asset"])
                        .help("use `${os}` and `${arch}` (and `${version}`), which the host does substitute"),
                );
            }
            if asset.contains("${") && bin.is_none() {
                out.push(
                    Finding::new(Code::AoeAssetTemplate, "a templated `asset` without `bin` installs but cannot launch: install writes the rendered name, launch looks for the template", ptr!["runtime", "asset"])
                        .help("set `bin` to the installed executable's name"),
                );
            }
        }
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_escape() {
        assert!(lexically_escapes("../x"));
        assert!(lexically_escapes("a/../../x"));
        assert!(!lexically_escapes("a/../x"));
        assert!(!lexically_escapes("./bin/x"));
    }
}
