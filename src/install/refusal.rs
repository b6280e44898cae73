//! The refusals of `plugins install` (and of `sync` and `bundle`, which install and fetch
//! through it), one variant each (cargo-deny's `src/bans/diags.rs`): each names what it
//! refuses and holds its data, and its message, code and way out are written once, here.

use std::path::PathBuf;

use crate::diagnostic::Code;
use crate::dialect::Dialect;
use crate::refusal::NamedRefusal;

/// Why an install is refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A `--home` whose lock is another host's.
    #[error(
        "{} is in the {format} format; {dialect} plugins need their own home",
        lockfile.display()
    )]
    OtherHostsHome {
        lockfile: PathBuf,
        format: Dialect,
        dialect: Dialect,
    },
    /// No `--home`, and the host has no default home.
    #[error("no default home for {dialect} plugins: pass --home or set PLUGINS_HOME")]
    NoDefaultHome { dialect: Dialect },
    /// A tree that cannot be hashed, where the host refuses symlinks (aoe).
    #[error("{why}")]
    Unhashable { why: crate::hash::TreeError },
    /// `sync --frozen`: the locked commit's files are not the locked files.
    #[error(
        "{id} at {} hashes to {} but the lock pins {}; nothing was changed",
        commit.as_deref().unwrap_or("its locked source"),
        if tree_hash.is_empty() { "nothing (a tree with symlinks)" } else { tree_hash },
        if pinned.is_empty() { "no tree_hash" } else { pinned }
    )]
    TreeMismatch {
        id: String,
        commit: Option<String>,
        tree_hash: String,
        pinned: String,
    },
    /// A lock row that names no source: never taken for a path (an empty one would name
    /// the current directory).
    #[error("{id}: the lock records no source: there is nothing to fetch it from")]
    NoSource { id: String },
    /// The id is installed from another source.
    #[error("{id} is already installed from {from}; use --force to replace it")]
    AlreadyInstalled { id: String, from: String },
    /// The plugin directory is there, but not in the lock.
    #[error(
        "{} exists but is not in {}; use --force to replace it",
        target.display(),
        lockfile.display()
    )]
    NotInLock { target: PathBuf, lockfile: PathBuf },
    /// Another process changed the plugin while this one fetched.
    #[error("{id} changed in the home while this command was fetching; nothing was changed")]
    Concurrent { id: String },
    /// A `[trust]` table that cannot be read.
    #[error("{why}")]
    Trust { why: crate::store::SettingsError },
    /// A plugin that must be signed, installed from a directory.
    #[error("{id} must be signed, and a directory ({shown}) carries no signature")]
    UnsignedDirectory { id: String, shown: String },
    /// The allowed signers file the rule names is not there (the words are the rule's).
    #[error("{why}")]
    NoSignersFile { why: String },
    /// A new signing key that was not accepted.
    #[error(
        "{id} is signed by a different key than the one the lock recorded ({old} -> {new}), and the new key was not accepted; nothing was changed"
    )]
    SignerChanged {
        id: String,
        old: String,
        new: String,
    },
    /// `--subdir` that is not a relative path.
    #[error("subdirectory {subdir:?} is not a relative path inside the repository")]
    SubdirOutside { subdir: String },
    /// `--subdir` through a symlink.
    #[error(
        "subdirectory {subdir:?} passes through a symlink ({path}) at commit {}",
        &commit[..commit.len().min(10)]
    )]
    SubdirSymlink {
        subdir: String,
        path: String,
        commit: String,
    },
    /// `--subdir` that is not a directory.
    #[error(
        "subdirectory {subdir:?} is not a directory of the repository at commit {}",
        &commit[..commit.len().min(10)]
    )]
    SubdirNotDir { subdir: String, commit: String },
    /// aoe's release-binary worker, missing from a source that does not download releases.
    #[error(
        "plugin {id}: the release-binary worker {name:?} is not in the source, and only GitHub sources download releases"
    )]
    ReleaseNotInSource { id: String, name: String },
    /// `sync --frozen` of a downloaded release-binary worker the lock does not pin.
    #[error(
        "plugin {id}: its release-binary worker is downloaded, but the lock pins no release asset (release_tag, asset_name, asset_sha256); nothing was changed"
    )]
    FrozenNoAsset { id: String },
    /// A plugin-relative worker that is not an executable after the build.
    #[error(
        "plugin {id}: worker command is not runnable after install (a build step may have been skipped on this platform, or did not produce it)"
    )]
    NotRunnable { id: String, program: String },
    /// The capabilities were not granted.
    #[error("install cancelled; no capabilities were granted")]
    Declined,
    /// `bundle`: the locked commit's files are not the locked files.
    #[error(
        "{id} at {} hashes to {hash} but the lock pins {pinned}; nothing was bundled",
        commit.as_deref().unwrap_or("its locked source")
    )]
    BundleTreeMismatch {
        id: String,
        commit: Option<String>,
        hash: String,
        pinned: String,
    },
    /// `bundle`: a release asset whose name cannot name a file.
    #[error("{id}: release asset {asset:?}: {why}")]
    AssetName {
        id: String,
        asset: String,
        why: crate::name::NameError,
    },
    /// `bundle` without a home.
    #[error("no home to bundle: pass --home")]
    NoBundleHome,
    /// `sync --from`: the bundled build output is not the locked one.
    #[error(
        "the bundled build output of {id} hashes to {} but the lock pins {}",
        bundled.as_deref().unwrap_or("nothing"),
        locked.as_deref().unwrap_or("none")
    )]
    BundledBuild {
        id: String,
        bundled: Option<String>,
        locked: Option<String>,
    },
    /// `PLUGINS_FEATURED_INDEX` names an index that cannot be used.
    #[error("cannot use the featured index {}: {why}", path.display())]
    FeaturedIndex { path: PathBuf, why: String },
    /// A featured id from another source than the index's.
    #[error(
        "{id} is featured from {featured:?} but you are installing from {slug:?}; refusing install"
    )]
    FeaturedElsewhere {
        id: String,
        featured: String,
        slug: String,
    },
    /// A featured id with a release-binary worker.
    #[error(
        "{id} is featured but ships a release-binary worker, which the featured index cannot pin yet; refusing install"
    )]
    FeaturedReleaseBinary { id: String },
    /// protoAgent: a source a bundled plugin supersedes, asked for as a new install.
    #[error("{id} ships with protoAgent now (bundled v{version}) — nothing fetched from {shown}.")]
    Superseded {
        id: &'static str,
        version: &'static str,
        shown: String,
    },
    /// protoAgent: a source a bundled plugin supersedes, asked for by a lock row.
    #[error(
        "'{id}' now ships with protoAgent (bundled v{version}), which supersedes {shown} — the copy installed from there is ignored and has nothing to update. The bundled copy updates with protoAgent itself; uninstall the old copy to clean it up (your settings and enabled state are kept)."
    )]
    SupersededCopy {
        id: &'static str,
        version: &'static str,
        shown: String,
    },
    /// A host installer's gate ([`crate::host::gates`]): its code, words and way out are the
    /// host module's, passed through.
    #[error("{}", gate.message)]
    Host { gate: crate::host::Gate },
    /// A manifest id that cannot name a directory.
    #[error("plugin id {id:?} cannot name a plugin directory: {why}")]
    UnsafeName {
        id: String,
        why: crate::name::NameError,
    },
    /// A manifest without an id.
    #[error("the manifest has no id")]
    NoId,
    /// A source that resolves to another plugin than its lock row's (or `--expect-id`).
    #[error("source {shown} now resolves to plugin {id:?}, not {expected}")]
    IdChanged {
        shown: String,
        id: String,
        expected: String,
    },
    /// Symlinks that lead out of the tree.
    #[error("the plugin tree has symlinks pointing outside it: {}", links.join(", "))]
    EscapingSymlinks { links: Vec<String> },
}

impl Refusal {
    /// The stable code a user sees.
    pub fn code(&self) -> Code {
        match self {
            Refusal::OtherHostsHome { .. } => Code::LockError,
            Refusal::NoDefaultHome { .. } | Refusal::NoBundleHome => Code::UsageInvalidArgument,
            Refusal::Unhashable { .. } | Refusal::EscapingSymlinks { .. } => Code::InstallSymlink,
            Refusal::TreeMismatch { .. } | Refusal::BundleTreeMismatch { .. } => {
                Code::SyncTreeMismatch
            }
            Refusal::AlreadyInstalled { .. } | Refusal::NotInLock { .. } => Code::InstallExists,
            Refusal::Concurrent { .. } => Code::InstallConcurrent,
            Refusal::NoSource { .. } => Code::SyncNoSource,
            Refusal::Trust { .. } | Refusal::NoSignersFile { .. } => Code::ConfigTrust,
            Refusal::UnsignedDirectory { .. } => Code::GitUnsigned,
            Refusal::SignerChanged { .. } => Code::GitSignerChanged,
            Refusal::SubdirOutside { .. }
            | Refusal::SubdirSymlink { .. }
            | Refusal::SubdirNotDir { .. } => Code::InstallSubdir,
            Refusal::ReleaseNotInSource { .. } | Refusal::NotRunnable { .. } => {
                Code::InstallNotRunnable
            }
            Refusal::FrozenNoAsset { .. } => Code::SyncAssetMismatch,
            Refusal::Declined => Code::InstallDeclined,
            Refusal::AssetName { .. } | Refusal::BundledBuild { .. } => Code::SyncBundle,
            Refusal::FeaturedIndex { .. }
            | Refusal::FeaturedElsewhere { .. }
            | Refusal::FeaturedReleaseBinary { .. } => Code::InstallFeatured,
            Refusal::Superseded { .. } | Refusal::SupersededCopy { .. } => Code::InstallSuperseded,
            Refusal::Host { gate } => gate.code,
            Refusal::UnsafeName { .. } => Code::InstallUnsafeName,
            Refusal::NoId => Code::InstallInvalid,
            Refusal::IdChanged { .. } => Code::InstallIdChanged,
        }
    }

    /// The way out, where there is one.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            Refusal::OtherHostsHome { .. } => "pass a different --home for each host".into(),
            Refusal::TreeMismatch { .. } => "the source (or the mirror or bundle it came from) serves other files under the locked commit, or the lock was edited; inspect it before trusting it, or `plugins sync` without --frozen to pin what is served".into(),
            Refusal::AlreadyInstalled { .. } => "`plugins remove` it first, or pass --force".into(),
            Refusal::Concurrent { .. } => "run the command again".into(),
            Refusal::NoSource { id } => format!(
                "`plugins remove {id}` drops the row; `plugins install SOURCE` installs it again"
            ),
            Refusal::Trust { .. } => crate::signing::FIX_TRUST.into(),
            Refusal::UnsignedDirectory { .. } => "install it from a git repository whose tags or commits are signed (a local repository as a file:// URL)".into(),
            Refusal::NoSignersFile { .. } => crate::signing::FIX_SIGNERS_FILE.into(),
            Refusal::SignerChanged { .. } => "check the new key with the publisher; to trust it, run the command again on a terminal and accept it, or pass --yes (the lock then records the new key)".into(),
            Refusal::SubdirOutside { .. }
            | Refusal::SubdirSymlink { .. }
            | Refusal::SubdirNotDir { .. } => {
                "name a directory of the repository that holds the plugin's manifest".into()
            }
            Refusal::FrozenNoAsset { .. } => "a row installed with --no-build pins none; `plugins sync` without --frozen downloads and pins it".into(),
            // Named in the plugin's tree: the staging copy it was looked for in is gone.
            Refusal::NotRunnable { program, .. } => format!(
                "expected an executable at {program} in the plugin's tree after its build steps"
            ),
            Refusal::BundleTreeMismatch { .. } => {
                "the source serves other files under the locked commit, or the lock was edited"
                    .into()
            }
            Refusal::BundledBuild { .. } => {
                "make the bundle from the lock this home has (`plugins bundle --home H -o FILE`)"
                    .into()
            }
            Refusal::FeaturedIndex { .. } => {
                "fix or unset PLUGINS_FEATURED_INDEX / AOE_FEATURED_INDEX_PATH".into()
            }
            Refusal::FeaturedElsewhere { featured, .. } => format!("install it from {featured}"),
            Refusal::Superseded { id, .. } => format!(
                "To turn it on, add '{id}' to plugins.enabled in your config, then restart."
            ),
            Refusal::SupersededCopy { id, .. } => {
                format!("`plugins remove {id}` removes the ignored copy")
            }
            Refusal::Host { gate } => gate.help.clone(),
            Refusal::UnsafeName { .. } => "ids and names become directory names: use letters, digits, `-`, `_` and `.` (not first)".into(),
            Refusal::EscapingSymlinks { .. } => "a plugin must be self-contained".into(),
            Refusal::NoDefaultHome { .. }
            | Refusal::Unhashable { .. }
            | Refusal::NotInLock { .. }
            | Refusal::ReleaseNotInSource { .. }
            | Refusal::Declined
            | Refusal::AssetName { .. }
            | Refusal::NoBundleHome
            | Refusal::FeaturedReleaseBinary { .. }
            | Refusal::NoId
            | Refusal::IdChanged { .. } => return None,
        })
    }
}

/// Why a plugin's wheel deps are not installed (or bundled), one variant each: its message,
/// code and way out are written once, here.
#[derive(Debug, thiserror::Error)]
pub enum DepsRefusal {
    /// A `requires_pip` entry that is not a plain PEP 508 requirement.
    #[error("requires_pip entry {spec:?} {why}")]
    NotPlain { spec: String, why: &'static str },
    /// pip's `--report` that cannot be read.
    #[error("cannot read pip's install report {}: {why}", path.display())]
    Report { path: PathBuf, why: String },
    /// A resolved requirement that is not an archive with a sha256.
    #[error("{name} {version} is not a downloaded archive with a sha256, so it cannot be pinned")]
    NotArchive { name: String, version: String },
    /// A resolved requirement whose name, version or hash cannot be a pin.
    #[error("pip's report names {name} {version}, which cannot be pinned: {why}")]
    Unpinnable {
        name: String,
        version: String,
        why: crate::lock::PinError,
    },
    /// The lock pins wheels for a plugin whose manifest asks for none.
    #[error(
        "{id}: the lock pins the wheels {} but the plugin's manifest has no requires_pip; nothing was installed or written",
        pins.join(", ")
    )]
    StrayPins { id: String, pins: Vec<String> },
    /// `sync`: the locked wheels cannot be installed as pinned (`said`: pip's last words).
    #[error(
        "{id}: the locked wheels {} cannot be installed as pinned (name, version and sha256); nothing was changed",
        pins.join(", ")
    )]
    NotInstallable {
        id: String,
        pins: Vec<String>,
        said: String,
    },
    /// `bundle`: the locked wheels cannot be downloaded as pinned.
    #[error("{id}: the locked wheels cannot be downloaded as pinned: {why}")]
    NotDownloadable {
        id: String,
        why: crate::steps::StepError,
    },
}

impl NamedRefusal for DepsRefusal {
    fn code(&self) -> Code {
        match self {
            DepsRefusal::NotPlain { .. }
            | DepsRefusal::Report { .. }
            | DepsRefusal::NotArchive { .. }
            | DepsRefusal::Unpinnable { .. } => Code::InstallDeps,
            DepsRefusal::StrayPins { .. } => Code::LockStrayPins,
            DepsRefusal::NotInstallable { .. } | DepsRefusal::NotDownloadable { .. } => {
                Code::SyncLockedDeps
            }
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            DepsRefusal::NotPlain { .. } => "only plain PEP 508 requirements are installed, never options, URLs, VCS references or local paths".into(),
            DepsRefusal::Report { .. } => "`--deps` needs pip 22.2 or later in the host's Python (`--python`, else `python3` on PATH)".into(),
            DepsRefusal::NotArchive { .. } | DepsRefusal::Unpinnable { .. } => {
                "requirements must resolve to wheels from an index".into()
            }
            DepsRefusal::StrayPins { id, .. } => format!(
                "if the lock came from elsewhere (a pull request, a bundle), do not use it; else remove {id}'s `deps` from the lock"
            ),
            DepsRefusal::NotInstallable { id, said, .. } => format!(
                "sync installs only what the lock pins and never resolves again; make the pinned files reachable (a pip index or find-links mirror: PIP_INDEX_URL, PIP_FIND_LINKS), or `plugins update {id}` to resolve and pin anew{}",
                if said.is_empty() { String::new() } else { format!("\npip said:\n{said}") }
            ),
            DepsRefusal::NotDownloadable { .. } => "the bundle is made where the pinned files are reachable (PIP_INDEX_URL, PIP_FIND_LINKS)".into(),
        })
    }
}
