//! One locked plugin in format-neutral terms ([`Entry`]), and how the fields of a row any
//! host wrote are read into one.

use crate::git::RefKind;

use super::HostProfile;

/// One locked plugin, in format-neutral terms.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub id: String,
    /// The source as given (aoe: `gh:owner/repo` without the ref).
    pub source: String,
    /// The ref as given; empty for the default branch or a local directory.
    pub requested_ref: String,
    /// `None` for a local directory.
    pub ref_kind: Option<RefKind>,
    /// The resolved 40-hex commit; `None` for a local directory.
    pub commit: Option<String>,
    pub version: String,
    pub manifest_hash: String,
    /// The source tree's hash before any build (aoe's `tree_hash`).
    pub tree_hash: String,
    /// The installed directory's hash after the build, which `verify` compares.
    pub installed_hash: Option<String>,
    /// The hash of the build output (aoe's `.aoe-build`, which the tree hashes skip) as the
    /// build left it ([`crate::hash::build_output`]); `None` without one or for a row
    /// written before it was recorded. Locked as `build_output_hash`, a key of `plugins`
    /// that the hosts ignore.
    #[serde(default)]
    pub build_hash: Option<String>,
    /// An aoe release-binary worker: the release, asset and its `sha256:`.
    pub release: Option<crate::release::Placed>,
    /// Installed with `--no-build`: its build steps (or release-binary download) did not
    /// run; `verify` reports it and `sync` builds it. Locked as `unbuilt = true`.
    #[serde(default)]
    pub unbuilt: bool,
    /// aoe: the tree is pinned in the featured index (`trust = "featured"`, else `community`).
    #[serde(default)]
    pub featured: bool,
    /// The plugin's directory inside its git repository (a monorepo); `None`: the root.
    /// Locked as `subdir`, a key of `plugins` that the hosts ignore (none of them can
    /// fetch a subdirectory: their own update or sync of the entry fetches the root).
    #[serde(default)]
    pub subdir: Option<String>,
    /// The source as the host's own records name it, where they name it otherwise:
    /// * protoAgent's lock `source_url`, which the host's installer, update check and sync
    ///   fetch: a `gh:` source's clone URL (resolved against the gh base in use), with
    ///   `source` locked beside it as `plugins_source`, a key the host ignores; read back;
    /// * aoe's `config.toml` `source`, as the user typed it at install (`persisted_source`:
    ///   `gh:owner/repo` without the ref it resolved to, so aoe's update follows the latest
    ///   release); no lock holds it, so it is `None` once read back, and an update, sync or
    ///   rollback keeps the form `config.toml` has (`host::record_install`).
    ///
    /// `None` when the host's spelling is `source` (a URL, an ssh remote, a path).
    #[serde(default)]
    pub host_source: Option<String>,
    /// aoe: the source was typed as `gh:owner/repo` without a ref, which aoe's own updater
    /// reads as "follow the latest release" (its `config.toml` `source` has no `@ref`).
    /// Locked as `follows_latest_release = true`, a key of `plugins` that the hosts ignore,
    /// so that a `sync` of the lock on another machine writes `config.toml` as the install
    /// did.
    #[serde(default)]
    pub follows_latest: bool,
    /// The fingerprint of the key that signed the plugin when it was last verified
    /// (`require_signed`): recorded on the first verified install, compared with on every
    /// later one (another key asks consent). Locked as `signer_key`, a key of `plugins` that
    /// the hosts ignore.
    #[serde(default)]
    pub signer_key: Option<String>,
    /// When `plugins` first saw the signed tag or commit it verified (RFC 3339): every later
    /// check of its signature (`sync`, `outdated`, `doctor`) is as of this moment, never the
    /// date the tag or commit claims for itself. Locked as `signer_seen_at`, a key of
    /// `plugins` that the hosts ignore.
    #[serde(default)]
    pub signer_seen: Option<String>,
    /// The host profile the plugin was validated under when it was installed (`--aoe-api`,
    /// `--host-version`, given or remembered by the home), so that `sync` into a fresh home
    /// from the lock alone validates as the original install did. Locked as `host_aoe_api`
    /// and `host_version`, keys of `plugins` that the hosts ignore; `None` when neither was
    /// given (the newest profile, or the installed host's detected one).
    #[serde(default)]
    pub profile: Option<HostProfile>,
}

/// The host profile a lock row records (`host_aoe_api`, `host_version`), if any.
pub(crate) fn read_profile(aoe_api: Option<i64>, version: Option<String>) -> Option<HostProfile> {
    HostProfile {
        aoe_api: aoe_api.and_then(|n| u32::try_from(n).ok()),
        version,
    }
    .recorded()
}

impl Entry {
    /// The row names no source (protoAgent's migrated wheel-deps pins): [`no_source`].
    pub fn names_no_source(&self) -> bool {
        no_source(&self.source)
    }
}

/// A lock row's `source` that names nothing (empty or blank): never taken for a path, where
/// an empty one would name the current directory.
pub fn no_source(source: &str) -> bool {
    source.trim().is_empty()
}

/// A full 40-hex commit id.
pub fn is_commit(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A locked commit as read: a host writes `""` for a copy that is not a git checkout
/// (and anything but 40 hex cannot be fetched), which is no commit.
pub(crate) fn read_commit(s: Option<String>) -> Option<String> {
    s.filter(|c| is_commit(c))
}

/// The ref kind of an entry a host wrote without one: a local copy has none; an empty
/// ref is the default branch and a 40-hex ref a commit; otherwise only the remote's ref
/// list can tell (`update::infer_kind`), so it stays unknown.
pub(crate) fn adopt_kind(
    recorded: Option<RefKind>,
    requested: &str,
    commit: Option<&str>,
) -> Option<RefKind> {
    match (recorded, commit) {
        (_, None) => None,
        (Some(k), _) => Some(k),
        (None, Some(_)) if requested.is_empty() => Some(RefKind::Default),
        (None, Some(_)) if is_commit(requested) => Some(RefKind::Commit),
        (None, Some(_)) => None,
    }
}
