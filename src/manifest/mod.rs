//! Host-neutral manifest machinery: formats, the spanned value tree, the schema check and
//! findings. Each host's own rules live in `src/host/<host>/manifest/`.

pub mod contain;
pub mod doc;
pub mod format;
pub mod instance;
pub mod keys;
#[cfg(test)]
pub(crate) mod mutate;
pub mod pyval;
pub mod remote;
pub mod schema;
pub mod static_json;
pub mod subset;

use crate::diagnostic::{Code, Diagnostic, Severity};
use doc::{Locator, Part, Pointer};
pub use format::Format;

/// A rule violation addressed by pointer; turned into a [`Diagnostic`] once
/// the pointer is resolved against the source tree.
#[derive(Clone, Debug)]
pub struct Finding {
    pub code: Code,
    pub message: String,
    pub at: Pointer,
    pub part: Part,
    pub label: Option<String>,
    pub help: Option<String>,
    /// A secondary location, e.g. the `api_version` a gate compares against.
    pub also: Option<(Pointer, String)>,
    /// Exact replacements: the key or value at a pointer should read a text.
    pub fixes: Vec<(Pointer, Part, String)>,
    /// Exact replacements written as they are over a scalar value, quotes and all
    /// (`"false"` → `false`).
    pub raw_fixes: Vec<(Pointer, String)>,
}

impl Finding {
    pub fn new(code: Code, message: impl Into<String>, at: Pointer) -> Self {
        Finding {
            code,
            message: message.into(),
            at,
            part: Part::Value,
            label: None,
            help: None,
            also: None,
            fixes: Vec::new(),
            raw_fixes: Vec::new(),
        }
    }

    /// Label the start of the file rather than the manifest: the finding is
    /// about the plugin's files.
    #[must_use]
    pub fn on_file(mut self) -> Self {
        self.part = Part::File;
        self
    }

    #[must_use]
    pub fn on_key(mut self) -> Self {
        self.part = Part::Key;
        self
    }

    #[must_use]
    pub fn label(mut self, text: impl Into<String>) -> Self {
        self.label = Some(text.into());
        self
    }

    #[must_use]
    pub fn help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }

    #[must_use]
    pub fn also(mut self, at: Pointer, text: impl Into<String>) -> Self {
        self.also = Some((at, text.into()));
        self
    }

    /// A fix: the labelled key or value should read `text` (a did-you-mean
    /// that names one exact replacement).
    #[must_use]
    pub fn fix(mut self, text: impl Into<String>) -> Self {
        self.fixes.push((self.at.clone(), self.part, text.into()));
        self
    }

    /// A fix that writes `text` as it is over the labelled scalar value, replacing its
    /// quotes too: a quoted `"false"` should be the boolean `false`.
    #[must_use]
    pub fn fix_raw(mut self, text: impl Into<String>) -> Self {
        self.raw_fixes.push((self.at.clone(), text.into()));
        self
    }

    /// A fix elsewhere than the label: the value at `at` should read `text`.
    #[must_use]
    pub fn fix_at(mut self, at: Pointer, text: impl Into<String>) -> Self {
        self.fixes.push((at, Part::Value, text.into()));
        self
    }

    /// Resolve the pointers against the document `root` locates in into a labelled
    /// diagnostic (one [`Locator`] for all of a document's findings).
    pub fn resolve(self, root: &Locator<'_>, severity: Severity) -> Diagnostic {
        let span = root.span_of(&self.at, self.part);
        let mut d = Diagnostic::new(self.code, self.message)
            .with_severity(severity)
            .with_label(span, self.label);
        if let Some((at, text)) = self.also {
            d = d.with_label(root.span_of(&at, Part::Value), Some(text));
        }
        if let Some(help) = self.help {
            d = d.with_help(help);
        }
        for (at, part, text) in self.fixes {
            // A key renamed to one its table already has would make a duplicate.
            let taken = part == Part::Key
                && at
                    .parent()
                    .and_then(|p| root.locate(&p))
                    .is_some_and(|(table, _)| root.get(table, &text).is_some());
            // Only where the pointer lands exactly: a fix never edits a parent.
            if let Some((node, key)) = root.locate(&at).filter(|_| !taken) {
                // A value fix replaces a string, never a table or list.
                let span = match (part, key) {
                    (Part::Key, Some(key)) => Some(key),
                    _ => node.as_str().map(|_| node.span.clone()),
                };
                if let Some(span) = span {
                    d = d.with_fix(span, text);
                }
            }
        }
        for (at, text) in self.raw_fixes {
            // A scalar only: never a table or list.
            if let Some((node, _)) = root.locate(&at)
                && node.scalar_text().is_some()
            {
                d = d.with_raw_fix(node.span.clone(), text);
            }
        }
        d
    }
}

/// The host's own verdict class for a manifest (for aoe: `ManifestError`'s variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HostClass {
    /// The host accepts the manifest.
    Valid,
    /// The file could not be read as a manifest at all.
    File,
    /// Syntax or structural (typed) parse failure.
    Parse,
    /// `api_version` newer than the host supports.
    Unsupported,
    /// The semantic pass found problems.
    Invalid,
}

/// What validating one manifest produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub class: HostClass,
    /// The host's error text, byte for byte where the spec quotes it.
    pub host_message: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub id: Option<String>,
    pub version: Option<String>,
    /// What did not run because the pipeline stopped where the host stops
    /// (e.g. "the semantic pass, install refusals and the remaining lints"):
    /// renderers say these further checks are skipped until the error is fixed.
    pub skipped: Option<&'static str>,
    /// What install needs from a manifest the host accepts, taken from the
    /// parse validation already did (empty otherwise).
    pub facts: Facts,
}

/// The normalized facts of a valid manifest that install, consent and update
/// reviews use: nothing downstream parses the manifest again.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Capabilities asked for (aoe `capabilities`, protoAgent `capabilities` keys).
    pub capabilities: Vec<String>,
    /// aoe UI contributions, as `<slot> <id>`.
    pub ui: Vec<String>,
    /// aoe build steps of a command worker.
    pub build: Vec<crate::steps::Step>,
    /// aoe: a command worker's program and whether it is a system command.
    pub entrypoint: Option<(String, bool)>,
    /// aoe: a release-binary worker.
    pub release: Option<ReleaseWorker>,
    /// protoAgent `requires_pip`: hard requirements, then optional ones.
    pub pip: Vec<String>,
    pub optional_pip: Vec<String>,
}

/// An aoe worker downloaded from the plugin repository's GitHub release.
#[derive(Clone, Debug)]
pub struct ReleaseWorker {
    /// The asset name template (`{version}`, `{os}`, … placeholders).
    pub asset: String,
    pub bin: Option<String>,
    /// The manifest's version, which the template renders with.
    pub version: String,
}

impl Outcome {
    /// An outcome that stops at a file-level problem.
    pub fn file_error(d: Diagnostic) -> Outcome {
        Outcome {
            class: HostClass::File,
            host_message: Some(d.message.clone()),
            diagnostics: vec![d],
            id: None,
            version: None,
            skipped: None,
            facts: Facts::default(),
        }
    }
}
