//! The plain values the dispatch file ([`super`]) hands out: what a host decides about
//! installs, its catalog's entries, an installer's refusal, a bundled plugin. Data only:
//! the capabilities that fill them are in `src/host/mod.rs`.

use std::path::PathBuf;

/// What a host decides about installing, updating and removing its plugins: plain flags,
/// one `const` per host (`aoe::INSTALL`, …) so a new host must state every one of them.
#[derive(Debug)]
pub struct InstallPolicy {
    /// The host refuses symlinks in a plugin tree (aoe's tree hash); the Python hosts copy
    /// through them.
    pub refuses_symlinks: bool,
    /// Build steps and release-binary workers run at install (`--no-build` locks the plugin
    /// as unbuilt).
    pub builds: bool,
    /// The directory at the plugin's root where build steps put what they make (aoe's
    /// `BUILD_OUTPUT_DIR`, `.aoe-build`, which its tree hash leaves out). Install checks
    /// the source before the build and not what the build makes (a venv links to the
    /// interpreter), so rollback leaves it out of the source's checks too.
    pub build_output: Option<&'static str>,
    /// `requires_pip` wheels are installed per plugin and travel with it (protoAgent's
    /// `plugin-deps/<id>`).
    pub wheel_deps: bool,
    /// The host's own config names the source as the user typed it, with the requested
    /// ref when one was given (aoe's `persisted_source`, `gh:o/r@ref`): a new ref is a full
    /// install even when the files are the same.
    pub ref_in_host_config: bool,
    /// A `gh:` install from an explicit ref, or from a default branch without a release, is
    /// unverified code and asks (aoe §17).
    pub gh_ref_unverified: bool,
    /// The host grants capabilities per manifest hash (aoe's `config.toml` grant).
    pub manifest_grant: bool,
    /// A default-branch `gh:` install follows the repository's latest release (aoe).
    pub follows_gh_releases: bool,
    /// `--python` is remembered for the home (the host imports wheels built for it).
    pub remembers_python: bool,
    /// The host ships a featured index that verifies trees by hash (aoe).
    pub featured_index: bool,
    /// The host's lock names the URL its own installer, update check and sync fetch
    /// (protoAgent's `source_url`, which refuses `gh:`): a `gh:` source is locked as its
    /// clone URL, `plugins`' spelling beside it in a key the host ignores.
    pub lock_fetch_url: bool,
}

/// A host's own catalog of installable plugins (protoAgent's `plugin-catalog.json`).
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The file it was read from.
    pub file: PathBuf,
    pub entries: Vec<CatalogEntry>,
}

/// One plugin a host's catalog lists.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CatalogEntry {
    pub id: String,
    pub name: String,
    pub category: String,
    pub official: bool,
    /// Where it installs from (a GitHub repository, or a directory of one at a ref).
    pub repo: String,
    pub tagline: String,
    /// What it adds (`tool`, `surface`, `secrets`, `view`, …).
    pub adds: Vec<String>,
    /// The host ships it itself: never offered for install.
    pub bundled: bool,
    /// The id of the locked row it is installed as, matched as the host matches.
    #[serde(skip)]
    pub installed: Option<String>,
}

/// A host's installer refusing a fetched, valid plugin: its code and help, written once
/// in the host's folder.
#[derive(Debug)]
pub struct Gate {
    pub code: crate::diagnostic::Code,
    pub message: String,
    pub help: String,
}

/// A plugin the host ships itself that takes the place of a source (protoAgent 0.218's
/// `supersedes`): installing from there installs nothing.
#[derive(Debug)]
pub struct Superseded {
    /// The bundled plugin's id.
    pub id: &'static str,
    /// Its bundled version.
    pub version: &'static str,
}
