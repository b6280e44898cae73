//! Every stable diagnostic code, its default severity and a one-line description.
//!
//! Codes are part of the CLI's contract: scripts match on them and
//! `docs/diagnostics.md` has one heading per code (a test checks both).

use super::Severity;

macro_rules! codes {
    ($($variant:ident => $code:literal, $sev:ident, $desc:literal;)+) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code { $($variant,)+ }

        impl Code {
            /// Every code, in documentation order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)+];

            /// The stable string form, e.g. `plugins::aoe::unknown_key`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)+ }
            }

            /// Severity before `--strict` or `--allow` apply.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)+ }
            }

            /// What the code means, in one line.
            pub fn description(self) -> &'static str {
                match self { $(Code::$variant => $desc,)+ }
            }
        }
    };
}

codes! {
    // Reading the manifest file.
    FileMissing => "plugins::file::missing", Error, "no manifest file was found in the plugin root";
    FileNotRegular => "plugins::file::not_regular", Error, "the manifest path is a directory or another non-file";
    FileTooLarge => "plugins::file::too_large", Error, "the manifest is larger than 1 MiB";
    FileUnreadable => "plugins::file::unreadable", Error, "the manifest could not be read (permissions, I/O error)";
    FileNotUtf8 => "plugins::file::not_utf8", Error, "the manifest is not valid UTF-8";
    // Format-level syntax.
    SyntaxToml => "plugins::syntax::toml", Error, "the manifest is not valid TOML";
    SyntaxYaml => "plugins::syntax::yaml", Error, "the manifest is not valid YAML, or exceeds the alias/depth budget";
    SyntaxJson => "plugins::syntax::json", Error, "the manifest is not valid JSON (Python `json.loads` rules)";
    // aoe: forward-compatibility gate and structural pass (the host's Parse class).
    AoeUnsupportedApiVersion => "plugins::aoe::unsupported_api_version", Error, "`api_version` is newer than the host profile supports";
    AoeUnknownKey => "plugins::aoe::unknown_key", Error, "a key the host rejects (top level, `[[screenshots]]`, `[[runtime.build]]`)";
    AoeMissingKey => "plugins::aoe::missing_key", Error, "a required key is absent";
    AoeInvalidType => "plugins::aoe::invalid_type", Error, "a value has the wrong type or is out of range for its type";
    AoeUnknownVariant => "plugins::aoe::unknown_variant", Error, "a value is not one of the host's closed set (slot, type, kind, option source)";
    AoeInvalidId => "plugins::aoe::invalid_id", Error, "the plugin id does not match the host's id grammar";
    AoeParse => "plugins::aoe::parse", Error, "the host's typed parse failed in a way no finer code describes";
    // aoe: semantic pass (the host's Invalid class), in the host's order.
    AoeApiVersion => "plugins::aoe::api_version", Error, "`api_version` is outside 1..=API_VERSION";
    AoeEmpty => "plugins::aoe::empty", Error, "a required string or list is empty";
    AoeRuntimeCommand => "plugins::aoe::runtime_command", Error, "the worker command is empty or its program has the wrong shape";
    AoeBuildStep => "plugins::aoe::build_step", Error, "a `[[runtime.build]]` step is malformed";
    AoeCommandAction => "plugins::aoe::command_action", Error, "a command's `open-ui-link` action is not usable";
    AoeSetting => "plugins::aoe::setting", Error, "a setting's structure is inconsistent with its type";
    AoeSettingDefault => "plugins::aoe::setting_default", Error, "a setting's `default` does not fit its type, bounds or options";
    AoeScreenshot => "plugins::aoe::screenshot", Error, "too many screenshots, or a screenshot path that is not a repository image path";
    AoeIcon => "plugins::aoe::icon", Error, "`icon` is not a lucide name or `icon_asset` is not a repository image path";
    AoeAoeVersion => "plugins::aoe::aoe_version", Error, "`aoe_version` is not a valid semver requirement";
    AoeApiGate => "plugins::aoe::api_gate", Error, "a feature needs a higher `api_version` than the manifest declares";
    AoeSettingDefaultsKey => "plugins::aoe::setting_defaults_key", Error, "a `[setting_defaults]` key is not a dotted core path";
    // aoe: install-time refusals that need no network (warnings: only install refuses).
    AoeUnknownCapability => "plugins::aoe::unknown_capability", Warning, "install refuses capabilities this host does not know";
    AoeReservedNamespace => "plugins::aoe::reserved_namespace", Warning, "the id claims `aoe.*` / `agent-of-empires.*`, which only featured plugins may";
    AoeBuiltinId => "plugins::aoe::builtin_id", Warning, "the id collides with a builtin plugin";
    AoeShippedBuildDir => "plugins::aoe::shipped_build_dir", Warning, "the source tree ships the reserved `.aoe-build/` directory";
    AoeSymlink => "plugins::aoe::symlink", Warning, "the plugin tree contains a symlink, which install refuses";
    AoeArchiveWithoutBin => "plugins::aoe::archive_without_bin", Warning, "a `.tar.gz` release asset without `bin` cannot be installed";
    AoeBinPath => "plugins::aoe::bin_path", Warning, "release-binary `bin` is absolute or traverses out of the plugin";
    AoeHostVersion => "plugins::aoe::host_version", Error, "`aoe_version` excludes the host version given with `--host-version`";
    // aoe: lints for what the host accepts but breaks later.
    AoeIgnoredKey => "plugins::aoe::ignored_key", Warning, "a key the host silently ignores (often a typo)";
    AoeInertProperty => "plugins::aoe::inert_property", Warning, "a setting property that has no effect for the setting's type";
    AoeDuplicate => "plugins::aoe::duplicate", Warning, "a duplicate id, key, capability or UI slot entry";
    AoeDocGate => "plugins::aoe::doc_gate", Warning, "a feature used below the `api_version` the docs name (the host does not enforce it)";
    AoeVersionNotSemver => "plugins::aoe::version_not_semver", Warning, "`version` is not a semantic version";
    AoePlaceholderId => "plugins::aoe::placeholder_id", Warning, "the id keeps a placeholder namespace like `dev.example` in a plugin repository that has a remote";
    AoeKeybindChord => "plugins::aoe::keybind_chord", Warning, "a keybind chord the host cannot parse, so it is skipped at run time";
    AoeThemeName => "plugins::aoe::theme_name", Warning, "a theme name that collides with a builtin theme, so it is dropped";
    AoeThemePath => "plugins::aoe::theme_path", Warning, "a theme path the host drops at load (absolute, traversing, escaping, missing)";
    AoeEntrypoint => "plugins::aoe::entrypoint", Warning, "the worker program escapes the plugin directory or has a drive/UNC prefix";
    AoeBuildProgram => "plugins::aoe::build_program", Warning, "a build step program is an absolute path, which the host rejects when it runs";
    AoeAssetTemplate => "plugins::aoe::asset_template", Warning, "a release-binary asset template that installs but cannot launch, or uses `${target}`";
    AoeMissingFile => "plugins::aoe::missing_file", Warning, "a screenshot or icon asset path that does not exist in the plugin tree";
    AoeSchemaDisagrees => "plugins::aoe::schema_disagrees", Warning, "the JSON Schema rejects what the host's parser accepts (report this as a bug)";
    // aworld: the host loader and `validate` (errors), in the host's order.
    AworldNotObject => "plugins::aworld::not_object", Error, "the manifest's top level is not a JSON object";
    AworldMissingField => "plugins::aworld::missing_field", Error, "`id` or `version` is missing, or an entrypoint has no `id`";
    AworldNotMapping => "plugins::aworld::not_mapping", Error, "`entrypoints`, `source`, `policy`, `metadata` or `permissions` is not an object";
    AworldNotList => "plugins::aworld::not_list", Error, "`dependencies` or `conflicts` is not a list";
    AworldEntrypointNotObject => "plugins::aworld::entrypoint_not_object", Error, "an entrypoint is not an object";
    AworldDuplicateEntrypoint => "plugins::aworld::duplicate_entrypoint", Error, "two entrypoints of one kind share an `id`";
    AworldTypeError => "plugins::aworld::type_error", Error, "a value the loader iterates, hashes or joins has a type Python rejects";
    AworldEscapesRoot => "plugins::aworld::escapes_root", Error, "an entrypoint `target` resolves outside the plugin root";
    AworldPathError => "plugins::aworld::path_error", Error, "an entrypoint `target` cannot be resolved (symlink loop, NUL byte, lone surrogate)";
    AworldNoPlugin => "plugins::aworld::no_plugin", Error, "neither `.aworld-plugin/plugin.json` nor a legacy `agents/` or `skills/` directory";
    AworldReservedName => "plugins::aworld::reserved_name", Error, "a top-level command name or alias the host reserves for itself";
    // aworld: lints (the schema's view, and what the runtime skips).
    AworldSchema => "plugins::aworld::schema", Warning, "`plugin.schema.json` rejects what the host's loader accepts";
    AworldShadowedName => "plugins::aworld::shadowed_name", Warning, "a top-level command name a bundled command already takes, so it never registers";
    AworldHookPoint => "plugins::aworld::hook_point", Warning, "a hook without `metadata.hook_point` (the plugin is skipped at run time) or with one the host never emits";
    AworldHookPriority => "plugins::aworld::hook_priority", Warning, "a hook `metadata.priority` that `int()` rejects (the plugin is skipped at run time)";
    AworldContextPhases => "plugins::aworld::context_phases", Warning, "a context's `metadata.phases` is not a list or names an unknown phase (the plugin is skipped)";
    AworldMissingTarget => "plugins::aworld::missing_target", Warning, "an entrypoint needs a `target` it lacks, or its target file does not exist";
    AworldUnknownKind => "plugins::aworld::unknown_kind", Warning, "an entrypoint kind no host loader consumes (only indexed)";
    AworldIdNotInstallable => "plugins::aworld::id_not_installable", Warning, "the plugin `id` cannot be a directory name (`/`, `..`, a leading dot, ...), so it can never be installed";
    AworldLegacyUndiscovered => "plugins::aworld::legacy_undiscovered", Warning, "a legacy root that `validate` accepts but run-time discovery never loads";
    // protoagent: what makes `load_manifest` return None, and the load gates (errors).
    ProtoNotMapping => "plugins::protoagent::not_mapping", Error, "the manifest's top level is not a mapping";
    ProtoMissingIdName => "plugins::protoagent::missing_id_name", Error, "`id` or `name` is missing or blank";
    ProtoInvalidId => "plugins::protoagent::invalid_id", Error, "the id breaks `^[A-Za-z0-9][A-Za-z0-9_-]*$` or is reserved";
    ProtoEntrypoint => "plugins::protoagent::entrypoint", Error, "no entry module: the `entrypoint`, or `__init__.py`/`plugin.py`, does not exist";
    ProtoHostVersion => "plugins::protoagent::host_version", Error, "`min_protoagent_version` is newer than `--host-version`, so the host refuses to load it";
    // protoagent: lints for what the host ignores, drops or warns about.
    ProtoUnknownKey => "plugins::protoagent::unknown_key", Warning, "a key the host silently ignores (often a typo)";
    ProtoDuplicateKey => "plugins::protoagent::duplicate_key", Warning, "a mapping key given twice (the last one wins)";
    ProtoTruthyString => "plugins::protoagent::truthy_string", Warning, "`enabled`, `builtin` or `test` is not a boolean, and Python's `bool()` decides";
    ProtoIgnoredValue => "plugins::protoagent::ignored_value", Warning, "a field of the wrong shape that the host replaces with an empty default";
    ProtoReservedSection => "plugins::protoagent::reserved_section", Warning, "the config section is a built-in one, so the plugin's config and settings are ignored";
    ProtoSetting => "plugins::protoagent::setting", Warning, "a `settings` entry the host drops or cannot render as intended";
    ProtoView => "plugins::protoagent::view", Warning, "a `views` entry the host drops (no truthy `id` or `path`)";
    ProtoViewOrigin => "plugins::protoagent::view_origin", Warning, "a view path that is not same-origin relative (a scheme, `//`, `localhost` or a `:port`); the host warns and keeps the view";
    ProtoViewPalette => "plugins::protoagent::view_palette", Warning, "a `views[].palette` other than `inline` or `{path: …}` (0.218 drops it), or a palette path that is not same-origin relative";
    ProtoPublicPath => "plugins::protoagent::public_path", Warning, "a public path outside `/plugins/<id>/` or `/api/plugins/<id>/`, which the host ignores";
    ProtoCoreRoute => "plugins::protoagent::core_route", Warning, "a public or federation path equal to the core route `/api/plugins/<id>/update` or `/enabled` (0.218 drops it)";
    ProtoFederationPath => "plugins::protoagent::federation_path", Warning, "a `federation_paths` entry outside `/plugins/<id>/` or `/api/plugins/<id>/`, which the host ignores";
    ProtoSettingsTab => "plugins::protoagent::settings_tab", Warning, "a `settings_tabs` entry the host drops: not a mapping, no safe id or label, or a duplicate id";
    ProtoSettingsTabApply => "plugins::protoagent::settings_tab_apply", Warning, "a settings tab `apply` other than `live`, which the host drops (the tab keeps save-then-apply)";
    ProtoSettingsTabPath => "plugins::protoagent::settings_tab_path", Warning, "a path-backed settings tab whose `path` is not a page under `/plugins/<id>/`; the host drops the tab";
    ProtoSettingTab => "plugins::protoagent::setting_tab", Warning, "a `settings[].tab` naming an unknown or path-backed settings tab; the setting shows under Configuration";
    ProtoCommand => "plugins::protoagent::command", Warning, "a `commands` entry the host drops: not a mapping, no safe id or title, a duplicate id, or neither action nor provider";
    ProtoCommandAction => "plugins::protoagent::command_action", Warning, "a command `action` or `provider` the host cannot dispatch (shape, type, view, method, data, target, result_action); the command is dropped";
    ProtoCommandRoute => "plugins::protoagent::command_route", Warning, "a command route that is not a relative route inside `/api/plugins/<id>/`; the command is dropped";
    ProtoCommandTopic => "plugins::protoagent::command_topic", Warning, "a command `emit` topic outside the plugin's own event namespace; the command is dropped";
    ProtoCommandChain => "plugins::protoagent::command_chain", Warning, "a `type: command` chain that names an undeclared command or never ends; the command is dropped";
    ProtoEmits => "plugins::protoagent::emits", Warning, "an `emits` entry without a topic, or a schema `$ref` that escapes, is unreadable or not a mapping";
    ProtoRequiresPip => "plugins::protoagent::requires_pip", Warning, "a `requires_pip` entry without `pkg`, or with an unknown scope";
    ProtoRequiresRuntimes => "plugins::protoagent::requires_runtimes", Warning, "`requires_runtimes` that is not a mapping, names a runtime other than `node`, or a spec that is not a version floor";
    ProtoSupersedes => "plugins::protoagent::supersedes", Warning, "`supersedes` that is not a list, or an entry that is not one remote git repository URL";
    ProtoEnables => "plugins::protoagent::enables", Warning, "`enables` that is not a list, or an entry that is not another plugin's id";
    ProtoBundledOnly => "plugins::protoagent::bundled_only", Warning, "`supersedes` or `enables` in a manifest: protoAgent honours them only on its own bundled plugins";
    ProtoPipSpec => "plugins::protoagent::pip_spec", Warning, "a `requires_pip` entry `install-deps` refuses: a pip option, a URL/VCS/direct reference, not a PEP 508 name, or (`plugins install --deps` only) a local path or archive";
    ProtoMinVersion => "plugins::protoagent::min_version", Warning, "`min_protoagent_version` is not a PEP 440 version, so the host ignores it";
    ProtoRequiresEnv => "plugins::protoagent::requires_env", Warning, "`requires_env` names variables unset here; the host does not load the plugin without them";
    ProtoRelativePluginsDir => "plugins::protoagent::relative_plugins_dir", Warning, "`PROTOAGENT_PLUGINS_DIR` or the config's `plugins.dir` is relative, which protoAgent 0.218 ignores; plugins go to the instance's own directory";
    ProtoEntrypointEscapes => "plugins::protoagent::entrypoint_escapes", Warning, "`entrypoint` resolves outside the plugin directory (the host does not check)";
    // `<home>/plugins.toml`, the auto-update policy (warnings: the default is used instead).
    ConfigUnknownKey => "plugins::config::unknown_key", Warning, "a `plugins.toml` key `plugins` does not know (often a typo); it is ignored";
    ConfigInvalidValue => "plugins::config::invalid_value", Warning, "a `plugins.toml` value of the wrong type or outside its closed set; the default is used";
    // `[trust]` fails closed: an error, nothing installed under it.
    ConfigTrust => "plugins::config::trust", Error, "`[trust]` in `plugins.toml` has an unknown key or a value of the wrong type, or an allowed signers file that does not exist; nothing is installed under it until it is fixed";
    // Running the command (exit code 2).
    UsagePathNotFound => "plugins::usage::path_not_found", Error, "a `--path` does not exist";
    UsageNoPlugins => "plugins::usage::no_plugins", Error, "`--recursive` found no plugin root under a path";
    UsageNotInstalled => "plugins::usage::not_installed", Error, "a plugin id given on the command line is not installed in the home";
    UsageInvalidArgument => "plugins::usage::invalid_argument", Error, "an argument value is malformed (e.g. `--host-version`)";
    InstallInvalid => "plugins::install::invalid", Error, "the fetched plugin is invalid, or the host's install would refuse it";
    InstallSymlink => "plugins::install::symlink", Error, "the plugin tree has symlinks the host refuses (any for aoe, escaping ones for all)";
    InstallExists => "plugins::install::exists", Error, "the plugin is installed from another source, or an untracked directory is in the way";
    InstallDeclined => "plugins::install::declined", Error, "consent was declined, or not given without a terminal";
    InstallIdChanged => "plugins::install::id_changed", Error, "the source now holds a plugin with another id";
    InstallNotRunnable => "plugins::install::not_runnable", Error, "after the build, the worker program does not exist or is not executable";
    InstallBuild => "plugins::install::build", Error, "a build step failed, timed out or could not start";
    InstallDeps => "plugins::install::deps", Error, "a protoAgent `requires_pip` entry is not a plain package requirement (an option, URL, VCS reference, local path or archive), or pip's resolution cannot be pinned (with `--deps`)";
    InstallDepsSkipped => "plugins::install::deps_skipped", Warning, "with `--deps`, optional requirements that could not be resolved, or packages the host's Python already has at another version, were not installed";
    InstallSubdir => "plugins::install::subdir", Error, "the subdirectory of a git source is not a directory of the repository at the fetched commit, or passes through a symlink";
    InstallFeatured => "plugins::install::featured", Error, "a featured aoe plugin id from another source than the featured index names, or with a release-binary worker, or an unusable index override";
    InstallUnbuilt => "plugins::install::unbuilt", Error, "the plugin was installed with `--no-build`: its build steps or release-binary worker are missing until `plugins sync` builds it";
    InstallRelease => "plugins::install::release", Error, "an aoe release-binary worker could not be downloaded, verified or unpacked";
    InstallNotInstalled => "plugins::install::not_installed", Error, "the plugin is not installed in the home";
    InstallUnsafeName => "plugins::install::unsafe_name", Error, "a plugin id, release asset name or `gh:` part cannot be used as a directory or file name";
    InstallUnsafeTree => "plugins::install::unsafe_tree", Error, "the plugin tree holds an entry no host can install (a `\\` in a name, a FIFO, socket or device, or too many or too deep entries)";
    InstallConcurrent => "plugins::install::concurrent", Error, "another command changed the plugin in the home while this one was fetching; nothing was changed";
    InstallTampered => "plugins::install::tampered", Error, "an installed plugin's files differ from what the lock pinned";
    InstallMissing => "plugins::install::missing", Error, "a locked plugin's directory is gone from its home; `plugins sync` installs it again at the locked commit";
    InstallUnverifiable => "plugins::install::unverifiable", Warning, "the lock records no hash of an installed plugin's files (the host's own installer writes none), so `verify` cannot tell whether they changed; `plugins verify --record` records them as they are";
    InstallBuiltin => "plugins::install::builtin", Error, "protoAgent ships a plugin with this id (bundled, per `--host-version`); its installer refuses to install over it";
    InstallSuperseded => "plugins::install::superseded", Error, "the source is a repository a plugin bundled with protoAgent 0.218 supersedes: the host fetches nothing and runs its bundled copy";
    InstallAllowlist => "plugins::install::allowlist", Error, "protoAgent's `plugins.sources.allow` does not admit the source, or cannot be read (0.218 fails closed)";
    InstallRuntimeMissing => "plugins::install::runtime_missing", Warning, "the plugin's `requires_runtimes` Node.js floor is not met by the `node` on PATH; protoAgent 0.218 loads it with a setup gap";
    InstallFileTooLarge => "plugins::install::file_too_large", Error, "a git source's commit holds a file larger than the cap (100 MiB, GitHub's own limit; `PLUGINS_MAX_FILE_MIB`): refused right after the fetch, before consent, nothing written";
    RollbackNoHistory => "plugins::rollback::no_history", Error, "`plugins rollback`: no previous version of the plugin is kept (it was never updated here)";
    RollbackNotKept => "plugins::rollback::not_kept", Error, "`plugins rollback --to`: no kept version is at that commit";
    RollbackDamaged => "plugins::rollback::damaged", Error, "`plugins rollback`: the kept version is damaged (unreadable entry, a tree that is not a plain directory, another plugin's entry, files changed since it was kept, or symlinks the host refuses); nothing is restored";
    SyncLockedDeps => "plugins::sync::locked_deps", Error, "`plugins sync`: a protoAgent plugin's locked wheels (`name==version` and sha256) cannot be installed as pinned; sync never resolves again";
    SyncMissingCommit => "plugins::sync::missing_commit", Error, "`plugins sync --frozen`: the locked commit (or a locked row without one) cannot be fetched from the source or the bundle; nothing was changed";
    SyncTreeMismatch => "plugins::sync::tree_mismatch", Error, "`plugins sync --frozen`: the locked commit's files do not hash to the lock's `tree_hash` (or the lock records none); nothing was changed";
    SyncProfileMismatch => "plugins::sync::profile_mismatch", Error, "`plugins sync --frozen`: `--aoe-api`/`--host-version` differ from the host profile the lock recorded, or the locked plugin is invalid under it; nothing was changed";
    SyncAssetMismatch => "plugins::sync::asset_mismatch", Error, "`plugins sync --frozen`: an aoe release asset cannot be had with the locked sha256 (or a row locks none); nothing was changed";
    SyncBundle => "plugins::sync::bundle", Error, "`plugins bundle` / `plugins sync --from`: the archive cannot be written, or is not one `plugins bundle` wrote for this lock (a bad path, a link, too large, a hash that differs, a release asset); nothing was changed";
    SyncBundlePlatform => "plugins::sync::bundle_platform", Error, "`plugins sync --from`: the bundle carries built plugins (aoe's `.aoe-build`) for another platform (`os-arch`) than this machine's; nothing was changed";
    OciRegistry => "plugins::oci::registry", Error, "`plugins bundle --push oci://…` / `plugins sync --from oci://…`: the registry could not be reached, refused the credentials, or answered with an error (TLS is verified; plain HTTP only with `--plain-http`); nothing was changed";
    OciArtifact => "plugins::oci::artifact", Error, "`plugins sync --from oci://…`: the artifact is not a bundle `plugins bundle --push` wrote (its manifest, artifactType or layers), or a layer is missing or does not hash to its digest; nothing was changed";
    OciTagMoved => "plugins::oci::tag_moved", Error, "`plugins sync --from oci://…:TAG`: the tag names another digest than when this home last synced from it; pull the new digest by name to take it";
    SyncNoSource => "plugins::sync::no_source", Warning, "`plugins sync`: a locked row names no source (protoAgent's migrated wheel-deps pins) and its host ships no plugin of that id: there is nothing to fetch it from (never the current directory); the other rows are synced";
    SyncUnlockedPlugin => "plugins::sync::unlocked_plugin", Warning, "`plugins sync --frozen`: a directory in the plugins directory that the lock does not name (left as it is: it may be the host's own plugin, installed by hand)";
    UpdateNoRelease => "plugins::update::no_release", Error, "aoe: a `gh:` plugin that follows the latest release cannot be updated: its repository has no published release; the prior version is kept";
    GitRefNotFound => "plugins::git::ref_not_found", Error, "the branch, tag or commit does not exist on the remote";
    GitFetch => "plugins::git::fetch", Error, "the remote could not be reached or fetched";
    GitAuth => "plugins::git::auth", Error, "the remote needs credentials and none that plugins found were accepted (it never prompts)";
    GitHostKey => "plugins::git::host_key", Error, "the ssh host key of the remote is not in known_hosts, or differs from the one there; plugins never accepts a host key itself";
    GitNoGit => "plugins::git::no_git", Error, "the source is fetched with the system `git` (ssh sources, `PLUGINS_GIT_FETCH_WITH_CLI`), which could not be run";
    GitBadObject => "plugins::git::bad_object", Error, "a fetched commit cannot be read: a malformed author, committer or tagger line (an unparsable time), which git's own fsck refuses too";
    GitImpostorCommit => "plugins::git::impostor_commit", Error, "the commit is on no branch or tag of the remote (on GitHub any fork's commit is fetchable through the parent's URL), so it is refused";
    GitUnsigned => "plugins::git::unsigned", Error, "`require_signed`: neither the tag nor the commit to install carries a signature (or the source is a plain directory)";
    GitBadSignature => "plugins::git::bad_signature", Error, "`require_signed`: git does not verify the tag's or commit's signature (a key the allowed signers file or the gpg keyring lacks, a signature that does not match, a signed tag served under another name)";
    GitSignerChanged => "plugins::git::signer_changed", Error, "the new version is signed by another key than the one the lock recorded, and the change was not accepted (declined, or no terminal and no `--yes`)";
    GitCleartext => "plugins::git::cleartext", Warning, "the source is fetched over unencrypted `http://` or `git://`";
    LockUnsafeId => "plugins::lock::unsafe_id", Error, "a lock entry's id cannot name a plugin directory (`..`, `/`, empty, ...); it is never used as a path";
    UpdateTagMoved => "plugins::update::tag_moved", Error, "a locked tag now names another commit than the one installed (re-pointed, with no newer release): `outdated` reports it, `update` asks consent with the old and new commit, `autoupdate` never takes it";
    UpdateForcePushed => "plugins::update::force_pushed", Error, "a locked branch now names a commit that does not contain the one installed (force-pushed to another history): `outdated` reports it, `update` asks consent with the old and new commit, `autoupdate` never takes it";
    SearchIndex => "plugins::search::index", Error, "`plugins search --index FILE`: the file cannot be read, is not the documented index format, or lists an id or source `plugins install` would refuse";
    LockBadPin => "plugins::lock::bad_pin", Error, "a protoAgent lock row's `deps` pin is not a PEP 508 name, a PEP 440 version and 64 lower-case hex digits; the lock is refused before pip sees it";
    LockStrayPins => "plugins::lock::stray_pins", Error, "a protoAgent lock row pins wheels (`deps`) for a plugin whose manifest has no `requires_pip`; nothing is installed for it";
    LockError => "plugins::lock::error", Error, "the lockfile is unreadable, newer than `plugins` understands, or cannot be written";
    HomeUnknownHost => "plugins::home::unknown_host", Error, "the home's host record (`<home>/.plugins/host`) names a host this `plugins` does not serve, or cannot be read; nothing in the home is read as any host's";
    DoctorHome => "plugins::doctor::home", Error, "`plugins doctor`: the home named with `--home` or `PLUGINS_HOME` does not exist";
    DoctorLeftover => "plugins::doctor::leftover", Warning, "`plugins doctor`: an interrupted change or a stale staging directory waits in the home; the next command that changes it recovers it";
    DoctorCron => "plugins::doctor::cron", Warning, "`plugins doctor`: the crontab line it prints would fail (the binary is not an absolute executable file, or the log directory cannot be written)";
    DoctorClockAhead => "plugins::doctor::clock_ahead", Warning, "`plugins doctor`: the home records a time in the future (the last autoupdate sweep, the idle signal, a first-seen version): the clock was once ahead; each is taken as now";
    DoctorStepIsolation => "plugins::doctor::step_isolation", Warning, "`plugins doctor`: this system cannot run build steps, pip and host probes in PID and user namespaces of their own, so a step running as root can read `plugins`' environment (its tokens), and what a step leaves is killed by a subreaper, not with a namespace of its own";
    DoctorRateLimit => "plugins::doctor::rate_limit", Warning, "`plugins doctor`: the GitHub API rate limit is used up, or could not be read";
    NewRefused => "plugins::new::refused", Error, "`plugins new` cannot generate the plugin as asked (invalid or reserved name or id, unsupported runtime)";
    NewExists => "plugins::new::exists", Error, "`plugins new` would overwrite an existing file";
    NewCancelled => "plugins::new::cancelled", Error, "`plugins new` was cancelled at a prompt (end of input, Ctrl-D); nothing was written";
    Io => "plugins::io", Error, "an I/O error outside a manifest (writing output, reading a directory)";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::str::FromStr for Code {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| format!("unknown diagnostic code `{s}`"))
    }
}

impl Code {
    /// Codes an unknown `--allow` value probably meant: those ending in it
    /// (`version_not_semver`, `aoe::version_not_semver`), else a close spelling.
    pub fn suggestions(s: &str) -> Vec<Code> {
        let s = s.trim().trim_matches(':');
        if s.is_empty() {
            return Vec::new();
        }
        let suffix = format!("::{s}");
        let ending: Vec<Code> = Code::ALL
            .iter()
            .copied()
            .filter(|c| c.as_str().ends_with(&suffix))
            .collect();
        if !ending.is_empty() {
            return ending;
        }
        // Compare without the prefix every code shares.
        let rest = |c: &'static str| c.strip_prefix("plugins::").unwrap_or(c);
        let given = s.strip_prefix("plugins::").unwrap_or(s);
        super::did_you_mean(given, Code::ALL.iter().map(|c| rest(c.as_str())))
            .and_then(|r| Code::ALL.iter().copied().find(|c| rest(c.as_str()) == r))
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for code in Code::ALL {
            let s = code.as_str();
            assert!(seen.insert(s), "duplicate code {s}");
            assert!(s.starts_with("plugins::"), "{s}");
            assert!(
                s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == ':' || c == '_'),
                "{s} must be snake_case"
            );
            assert_eq!(s.parse::<Code>().unwrap(), *code);
        }
    }

    #[test]
    fn suggestions_for_partial_codes() {
        assert_eq!(
            Code::suggestions("version_not_semver"),
            [Code::AoeVersionNotSemver]
        );
        assert_eq!(
            Code::suggestions("aoe::symlink"),
            [Code::AoeSymlink],
            "more segments narrow it"
        );
        assert_eq!(
            Code::suggestions("symlink"),
            [Code::AoeSymlink, Code::InstallSymlink]
        );
        assert_eq!(
            Code::suggestions("plugins::aoe::version_not_semvar"),
            [Code::AoeVersionNotSemver]
        );
        assert!(Code::suggestions("nope").is_empty());
        assert!(Code::suggestions("").is_empty());
    }
}
