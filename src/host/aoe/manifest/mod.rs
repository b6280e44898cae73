//! Agent of Empires (`aoe-plugin.toml`): the host's parse pipeline, install-time
//! refusals and lints (spec `aoe.md` §1, §19).

mod check;
mod ignored;
mod install;
mod lint;
// The schema's constraints per host profile, compiled in: the keys the ignored-keys lint walks
// on every manifest, and the structural findings of a manifest the host's typed parse
// rejects. Building the schema on each root was a quarter to a third of that root's
// instructions (docs/PERFORMANCE.md, issue 43). Written and checked by
// `tests::the_compiled_constraints_are_the_schemas`.
#[rustfmt::skip]
mod schema_constraints;
pub(crate) mod profile;
pub(crate) mod raw;
pub(crate) mod rules;
pub(crate) mod schema;
mod structural;

use std::path::Path;

use self::profile::Profile;
use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::manifest::doc::{Locator, Node};
use crate::manifest::keys::Keys;
use crate::manifest::{Facts, Finding, HostClass, Outcome, ReleaseWorker, format, subset};
use structural::structural_finding;

/// How to validate: which host, and what the caller asserts about it.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub profile: Profile,
    /// Check `aoe_version` against this host version.
    pub host_version: Option<semver::Version>,
    /// The plugin is featured-verified, so a reserved namespace is allowed.
    pub featured: bool,
    /// aoe's featured index (id → pinned version and tree hash): a tree whose hash one of
    /// its id's versions pins is featured-verified, as aoe verifies it at load.
    pub featured_index: std::collections::BTreeMap<String, Vec<(String, String)>>,
    /// Check the JSON Schema on manifests the host's typed parse accepts too, reporting
    /// `plugins::aoe::schema_disagrees` where they differ: a test of `plugins`' own schema
    /// (the corpus test sets it). Off, the schema is compiled only when the typed parse
    /// rejects, where its errors are the diagnostics.
    pub self_check: bool,
}

/// The schema's findings on `doc` (a manifest the host's typed parse rejects, or a
/// self-check), evaluated as data (`manifest::subset`) over the profile's compiled-in
/// constraints: compiling the schema with `jsonschema` cost more than the rest of the root,
/// and building it with `json!` a third of it (tests/ compare the findings with jsonschema's
/// on the built schema).
fn structural(at: &Locator<'_>, profile: Profile) -> Vec<Finding> {
    let schema = constraints(profile);
    subset::validate(schema, at.root())
        .into_iter()
        .map(|e| structural_finding(e, at, schema, profile))
        .collect()
}

/// The [`subset::constraints`] of the profile's schema, compiled in.
fn constraints(profile: Profile) -> &'static crate::manifest::static_json::StaticJson {
    match profile {
        Profile::H12 => &schema_constraints::H12,
        Profile::H15 => &schema_constraints::H15,
    }
}

/// What a syntax error or a too-new `api_version` leaves unchecked: the host stops there.
const EVERYTHING_ELSE: &str = "the structural and semantic passes, install refusals and lints";

/// Validate `text` (the manifest at `root/aoe-plugin.toml`). `root` enables the
/// checks that look at the plugin tree; `None` validates the text alone.
pub fn validate(text: &str, root: Option<&Path>, opts: &Options) -> Outcome {
    let profile = opts.profile;
    // One parse: the spanned tree for labels and lints, and the document the
    // host's typed parse deserializes from.
    let (doc, table) = match format::parse_toml_table(text) {
        Ok(parsed) => parsed,
        Err(e) => return unparsed(text, e),
    };
    let string = |key| {
        doc.get(key)
            .and_then(|e| e.node.as_str())
            .map(str::to_owned)
    };
    let (id, version) = (string("id"), string("version"));
    if let Some(outcome) = unsupported(&doc, profile) {
        return Outcome {
            id,
            version,
            ..outcome
        };
    }

    let at = Locator::new(&doc);
    let mut diagnostics = Vec::new();
    let mut lints = ignored::ignored_keys(&doc, Keys::of(constraints(profile)));
    let mut skipped = None;
    let mut facts = Facts::default();
    let (class, host_message) = match raw::from_table(table, text, profile) {
        Err(e) => {
            // The host's semantic pass needs the typed manifest serde could not build.
            skipped = Some("the semantic pass, install refusals and the remaining lints");
            let structural = structural(&at, profile);
            let structural = resolve(structural, &at, Severity::Error).collect();
            diagnostics.extend(not_deserialized(&e, structural));
            (
                HostClass::Parse,
                Some(format!("manifest is not valid TOML: {e}")),
            )
        }
        Ok(m) => {
            // The host accepted it: a schema error is a schema bug, asked only by a self-check.
            let structural = match opts.self_check {
                true => structural(&at, profile),
                false => Vec::new(),
            };
            diagnostics.extend(
                structural
                    .into_iter()
                    .map(|f| Finding {
                        code: Code::AoeSchemaDisagrees,
                        ..f
                    })
                    .map(|f| f.resolve(&at, Severity::Warning)),
            );
            let semantic = check::validate(&m, profile);
            let class_msg = verdict(&semantic);
            diagnostics.extend(resolve(semantic, &at, Severity::Error));
            diagnostics.extend(
                install::check(&m, root, opts)
                    .into_iter()
                    .map(|(f, sev)| f.resolve(&at, sev)),
            );
            lints.extend(lint::check(&m, &doc, root, profile));
            facts = install_facts(&m);
            class_msg
        }
    };
    diagnostics.extend(resolve(lints, &at, Severity::Warning));
    Outcome {
        class,
        host_message,
        diagnostics,
        id,
        version,
        skipped,
        facts,
    }
}

/// The host's verdict on a manifest it deserialized: valid, or invalid with its semantic
/// pass's messages, one a line.
fn verdict(semantic: &[Finding]) -> (HostClass, Option<String>) {
    if semantic.is_empty() {
        (HostClass::Valid, None)
    } else {
        let lines: Vec<&str> = semantic.iter().map(|f| f.message.as_str()).collect();
        (
            HostClass::Invalid,
            Some(format!("manifest is invalid:\n{}", lines.join("\n"))),
        )
    }
}

/// What the host says of a manifest that is not TOML.
fn unparsed(text: &str, e: format::SyntaxError) -> Outcome {
    let mut d = Diagnostic::new(Code::SyntaxToml, e.message.clone())
        .with_label(e.span.clone().unwrap_or(0..0), None);
    d.help = format::template_help(text, e.span.map(|s| s.start));
    Outcome {
        class: HostClass::Parse,
        host_message: Some(format!("manifest is not valid TOML: {}", e.display)),
        diagnostics: vec![d],
        id: None,
        version: None,
        skipped: Some(EVERYTHING_ELSE),
        facts: Facts::default(),
    }
}

/// The diagnostics of a manifest serde could not deserialize: the structural ones, the
/// one at the place the host stops carrying the host's own words (serde's: `sequence`,
/// `map`, `u32`, …), and serde's error on its own when no structural one is there.
fn not_deserialized(e: &toml::de::Error, mut structural: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let host_text = e.message().trim_end();
    let at_host = e.span().and_then(|span| {
        structural
            .iter()
            .position(|d| d.labels.first().is_some_and(|l| l.span == span))
    });
    match at_host {
        Some(i) => host_text.clone_into(&mut structural[i].message),
        None if !structural.iter().any(|d| d.message == host_text) => {
            // The schema missed what serde caught, or put it elsewhere: report
            // serde's own error too.
            diagnostics.push(
                Diagnostic::new(Code::AoeParse, host_text)
                    .with_label(e.span().unwrap_or(0..0), None),
            );
        }
        None => {}
    }
    diagnostics.extend(structural);
    diagnostics
}

/// What install needs from the typed manifest the host's parse built.
fn install_facts(m: &raw::Manifest) -> Facts {
    let mut facts = Facts {
        capabilities: m.capabilities.clone(),
        ui: m
            .ui
            .iter()
            .map(|u| format!("{} {}", u.slot.as_str(), u.id))
            .collect(),
        ..Facts::default()
    };
    match &m.runtime {
        Some(raw::Runtime::Command {
            command,
            system,
            build,
        }) => {
            facts.build = build
                .iter()
                .map(|s| crate::steps::Step {
                    argv: s.command.clone(),
                    platforms: s.platforms.clone(),
                })
                .collect();
            facts.entrypoint = command.first().map(|p| (p.clone(), *system));
        }
        Some(raw::Runtime::ReleaseBinary { asset, bin }) => {
            facts.release = Some(ReleaseWorker {
                asset: asset.clone(),
                bin: bin.clone(),
                version: m.version.clone(),
            });
        }
        None => {}
    }
    facts
}

fn resolve<'a>(
    findings: Vec<Finding>,
    at: &'a Locator<'_>,
    severity: Severity,
) -> impl Iterator<Item = Diagnostic> + 'a {
    findings.into_iter().map(move |f| f.resolve(at, severity))
}

/// The permissive pre-parse: a newer `api_version` is reported alone (§1 step 1).
fn unsupported(doc: &Node, profile: Profile) -> Option<Outcome> {
    // The host's pre-check reads the document as a `toml::Value` first, which holds no
    // integer past i64: with one anywhere it fails, the check is skipped, and the typed
    // parse reports what it meets (issue #42).
    if holds_big_int(doc) {
        return None;
    }
    let entry = doc.get("api_version")?;
    let crate::manifest::doc::Value::Int(found) = entry.node.value else {
        return None;
    };
    let max = profile.api_version();
    if found <= i64::from(max) {
        return None;
    }
    let message = format!(
        "manifest targets api_version {found} but this host supports 1..={max}; upgrade aoe"
    );
    let mut d = Diagnostic::new(Code::AoeUnsupportedApiVersion, message.clone()).with_label(
        entry.node.span.clone(),
        Some(format!("newer than api_version {max}")),
    );
    d = if profile == Profile::H12 && found <= 15 {
        d.with_help("aoe 1.19 supports it: validate with `--aoe-api 15`, or upgrade aoe")
    } else {
        d.with_help(format!(
            "no profile `plugins` knows supports api_version {found}; the newest is 15"
        ))
    };
    Some(Outcome {
        class: HostClass::Unsupported,
        host_message: Some(message),
        diagnostics: vec![d],
        id: None,
        version: None,
        skipped: Some(EVERYTHING_ELSE),
        facts: Facts::default(),
    })
}

/// Whether an integer past i64 is anywhere in `node`.
fn holds_big_int(node: &Node) -> bool {
    use crate::manifest::doc::Value;
    match &node.value {
        Value::BigInt(_) => true,
        Value::Array(items) => items.iter().any(holds_big_int),
        Value::Table(entries) => entries.iter().any(|e| holds_big_int(&e.node)),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
