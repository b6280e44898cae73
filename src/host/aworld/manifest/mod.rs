//! AWorld (`.aworld-plugin/plugin.json`, or a legacy root with `agents/` or
//! `skills/`): the host loader's verdict, the containment rule, and lints for
//! what the runtime skips (spec `aworld.md`).

mod lint;
pub(crate) mod loader;
// The schema's constraints, compiled in: parsing the embedded schema on each root cost more
// than the lint it serves (docs/PERFORMANCE.md, issue 43); written and checked by
// `tests::the_compiled_constraints_are_the_schemas`.
#[rustfmt::skip]
mod schema_constraints;

use std::path::Path;
use std::sync::LazyLock;

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::manifest::doc::{Locator, Part};
use crate::manifest::{Facts, HostClass, Outcome, format};

/// The shipped `plugin.schema.json`, which the host never evaluates.
pub const SCHEMA: &str = include_str!("plugin.schema.json");

/// How to validate.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The plugin ships inside aworld-cli (`source = "builtin"`), so reserved
    /// top-level command names are its own.
    pub bundled: bool,
}

/// What the host's `validate` answered, for `resolve` and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub id: String,
    pub framework: &'static str,
    pub capabilities: Vec<String>,
    pub dependencies: Vec<String>,
    pub conflicts: Vec<String>,
}

/// The embedded schema, read once.
fn schema_value() -> &'static serde_json::Value {
    static S: LazyLock<serde_json::Value> =
        LazyLock::new(|| serde_json::from_str(SCHEMA).expect("embedded schema is JSON"));
    &S
}

/// The schema as `plugins schema aworld` prints it (read, not compiled: printing it and
/// the editor's hints do without the validator).
pub(crate) fn schema() -> serde_json::Value {
    schema_value().clone()
}

/// Validate a manifest plugin whose `plugin.json` text is `text`.
pub fn validate(text: &str, root: &Path, opts: &Options) -> (Outcome, Option<Summary>) {
    validate_at(text, root, None, opts)
}

/// [`validate`], given `root`'s canonical path when the caller already knows
/// it (recursive discovery does), so it is not resolved again.
pub(crate) fn validate_at(
    text: &str,
    root: &Path,
    canonical: Option<&Path>,
    opts: &Options,
) -> (Outcome, Option<Summary>) {
    let doc = match format::parse_json(text) {
        Ok(doc) => doc,
        Err(e) => return (unparsed(text, e), None),
    };
    let scalar = |k: &str| doc.get(k).map(|e| crate::manifest::pyval::py_str(&e.node));
    let mut schema_view = lint::schema(crate::manifest::subset::validate(
        &schema_constraints::SCHEMA,
        &doc,
    ));
    let at = Locator::new(&doc);
    let mut diagnostics = Vec::new();
    // `loader::validate`, in two steps to say what a failure leaves unchecked.
    let verdict = match loader::load(&doc) {
        Err(f) => Err((
            f,
            "the loader's later checks, the target containment check and lints",
        )),
        Ok(loaded) => match loader::check_targets_at(&loaded, root, canonical) {
            Ok(targets) => Ok((loaded, targets)),
            Err(f) => Err((
                f,
                "the other targets' containment and lints (reserved command names, hooks, missing targets)",
            )),
        },
    };
    let mut skipped = None;
    let (class, host_message, summary) = match verdict {
        Err((f, unchecked)) => {
            skipped = Some(unchecked);
            // `item["id"]` raises KeyError, whose `str()` is just the key's repr.
            let message = if f.message == "entrypoint is missing required field: id" {
                "'id'".to_owned()
            } else if f.code == Code::AworldNotObject {
                loader::non_object_host_message(&doc)
            } else {
                f.message.clone()
            };
            // The schema's view of the same value would only repeat the error.
            schema_view.retain(|s| s.at != f.at);
            diagnostics.push(resolve_error(f, &at));
            (HostClass::Invalid, Some(message), None)
        }
        Ok((loaded, targets)) => {
            diagnostics.extend(
                lint::check(&loaded, root, &targets, opts)
                    .into_iter()
                    .map(|(f, sev)| f.resolve(&at, sev)),
            );
            (HostClass::Valid, None, Some(summary_of(&loaded)))
        }
    };
    diagnostics.extend(
        schema_view
            .into_iter()
            .map(|f| f.resolve(&at, Severity::Warning)),
    );
    let outcome = Outcome {
        class,
        host_message,
        diagnostics,
        id: scalar("id"),
        version: scalar("version"),
        skipped,
        facts: Facts::default(),
    };
    (outcome, summary)
}

/// What the host says of a manifest that is not JSON (its positions counted as
/// `json.loads` counts them, with universal newlines).
fn unparsed(text: &str, mut e: format::SyntaxError) -> Outcome {
    // The host reads with universal newlines: CRLF and CR are `\n` to
    // `json.loads`, so its positions count lines (and chars) that way.
    if text.contains('\r')
        && let Err(host) = format::parse_json(&text.replace("\r\n", "\n").replace('\r', "\n"))
    {
        e.display = host.display;
    }
    let mut d = Diagnostic::new(Code::SyntaxJson, e.display.clone())
        .with_label(e.span.clone().unwrap_or(0..0), None);
    d.help = format::template_help(text, e.span.map(|s| s.start));
    Outcome {
        class: HostClass::Parse,
        host_message: Some(e.display),
        diagnostics: vec![d],
        id: None,
        version: None,
        skipped: Some("the loader, the target containment check and lints"),
        facts: Facts::default(),
    }
}

/// The resolver's view of a loaded manifest: its id, capabilities (sorted), dependencies
/// and conflicts.
fn summary_of(loaded: &loader::Loaded<'_>) -> Summary {
    let mut capabilities: Vec<String> = loaded.kinds.iter().map(|(k, _)| (*k).to_owned()).collect();
    capabilities.sort();
    Summary {
        id: loaded.id.clone(),
        framework: "manifest",
        capabilities,
        dependencies: loaded.dependencies.clone(),
        conflicts: loaded.conflicts.clone(),
    }
}

/// A missing top-level key is labelled at the opening brace, not the whole document.
fn resolve_error(f: crate::manifest::Finding, at: &Locator<'_>) -> Diagnostic {
    let doc = at.root();
    if f.at.0.len() == 1 && f.part == Part::Key && at.locate(&f.at).is_none() {
        let brace = doc.span.start..doc.span.start + 1;
        let mut d =
            Diagnostic::new(f.code, f.message).with_label(brace, Some("in this object".to_owned()));
        d.help = f.help;
        return d;
    }
    f.resolve(at, Severity::Error)
}

/// Validate a root without a manifest: a legacy plugin, or nothing (§4.3, §5).
pub fn validate_legacy(root: &Path) -> (Outcome, Option<Summary>) {
    let caps: Vec<String> = ["agents", "skills"]
        .iter()
        .filter(|d| root.join(d).exists())
        .map(|d| (*d).to_owned())
        .collect();
    let name = fs_err::canonicalize(root)
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    if caps.is_empty() {
        let message = "plugin validation requires a valid .aworld-plugin/plugin.json or a legacy plugin directory with agents/ or skills/";
        let mut d = Diagnostic::new(Code::AworldNoPlugin, message);
        if lint::direct_root_skills(root) {
            d = d.with_help("skills directly under the root (`<dir>/SKILL.md`) load at run time, but validate and install refuse them: move them under `skills/`");
        }
        let outcome = Outcome {
            class: HostClass::Invalid,
            host_message: Some(message.to_owned()),
            diagnostics: vec![d],
            id: None,
            version: None,
            skipped: None,
            facts: Facts::default(),
        };
        return (outcome, None);
    }
    let diagnostics = lint::legacy(root);
    let summary = Summary {
        id: name.clone(),
        framework: "legacy",
        capabilities: caps,
        dependencies: Vec::new(),
        conflicts: Vec::new(),
    };
    let outcome = Outcome {
        class: HostClass::Valid,
        host_message: None,
        diagnostics,
        id: Some(name),
        version: None,
        skipped: None,
        facts: Facts::default(),
    };
    (outcome, Some(summary))
}

/// Whether `root` looks like an AWorld legacy plugin (no manifest of any dialect).
pub(crate) fn is_legacy_root(root: &Path) -> bool {
    root.join("agents").exists() || root.join("skills").exists()
}

#[cfg(test)]
mod tests;
