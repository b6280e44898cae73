# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_plugins_global_optspecs
    string join \n color= q/quiet v/verbose log-format= timestamps h/help V/version
end

function __fish_plugins_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_plugins_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_plugins_using_subcommand
    set -l cmd (__fish_plugins_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c plugins -n "__fish_plugins_needs_command" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_needs_command" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_needs_command" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_needs_command" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_needs_command" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_needs_command" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_needs_command" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "new" -d 'Scaffold a plugin for any dialect from the built-in templates'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "validate" -d 'Check plugin manifests exactly as the host does, plus lints'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "search" -d 'Find plugins in the featured index and the installed homes, with the install command'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "install" -d 'Install a plugin from git or a local directory, pinned in the lock'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "list" -d 'List installed plugins'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "info" -d 'Show one installed plugin'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "homes" -d 'Show where each host keeps its plugins, lock and config'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "enable" -d 'Turn an installed plugin on where its host reads it'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "disable" -d 'Turn an installed plugin off where its host reads it'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "remove" -d 'Remove an installed plugin and its lock entry'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "rollback" -d 'Put back a version an update replaced (the last two are kept), and hold it'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "bundle" -d 'Write one archive of everything a home\'s lock pins, for `sync --frozen --from`'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "hold" -d 'Hold a plugin at its version: `update --all` and `autoupdate` skip it'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "unhold" -d 'Lift a plugin\'s hold: updates take it again'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "verify" -d 'Check installed plugins against the hashes in the lock'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "sync" -d 'Install what the lock says, at the locked commits'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "outdated" -d 'Show what is pinned and what is newer (reads remote refs only)'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "update" -d 'Update plugins to their newer commits'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "autoupdate" -d 'One auto-update sweep under each home\'s policy, <home>/plugins.toml (for cron)'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "activity" -d 'Mark a home busy so auto-update waits (touch, or hold while a command runs)'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "doctor" -d 'Check homes, locks, leftovers, hosts, sources, proxies and credentials'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "resolve" -d 'Show which AWorld plugins activate, in discovery order, and why others do not'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "schema" -d 'Print the JSON Schema of a dialect\'s manifest'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "lsp" -d 'Run a language server that publishes validate\'s diagnostics as you type'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "man" -d 'Write the manual pages (plugins.1 and one per subcommand) into a directory'
complete -c plugins -n "__fish_plugins_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c plugins -n "__fish_plugins_using_subcommand new" -l dialect -d 'Which host the plugin is for' -r -f -a "aoe\t'Agent of Empires: `aoe-plugin.toml`'
aworld\t'AWorld: `.aworld-plugin/plugin.json`'
protoagent\t'protoAgent: `protoagent.plugin.yaml`'"
complete -c plugins -n "__fish_plugins_using_subcommand new" -l runtime -d 'The worker\'s language (aoe: python, node, rust or none; others: python)' -r -f -a "python\t''
node\t''
rust\t''
none\t'No worker: a static, metadata-only plugin (aoe only)'"
complete -c plugins -n "__fish_plugins_using_subcommand new" -l id -d 'Use this id instead of deriving one from NAME' -r
complete -c plugins -n "__fish_plugins_using_subcommand new" -l description -d 'A one-line description' -r
complete -c plugins -n "__fish_plugins_using_subcommand new" -l dir -d 'Where to write the plugin [default: ./<slug>]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand new" -l ci-from -d 'The git URL (https or ssh) the CI workflow builds `plugins` from with `cargo install --git`, instead of installing a release; while no published release exists, without it the workflow fails, saying to set PLUGINS_GIT' -r
complete -c plugins -n "__fish_plugins_using_subcommand new" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand new" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand new" -l with-tests -d 'Include tests and a CI workflow that runs them'
complete -c plugins -n "__fish_plugins_using_subcommand new" -s y -l yes -d 'Accept defaults instead of asking (for scripts)'
complete -c plugins -n "__fish_plugins_using_subcommand new" -l list -d 'List the templates and their variables, then exit'
complete -c plugins -n "__fish_plugins_using_subcommand new" -l json -d 'Print what was written as JSON'
complete -c plugins -n "__fish_plugins_using_subcommand new" -l no-git -d 'Skip `git init` (it runs when git is on PATH and DIR is not inside a git work tree)'
complete -c plugins -n "__fish_plugins_using_subcommand new" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand new" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand new" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand new" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c plugins -n "__fish_plugins_using_subcommand new" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s p -l path -d 'A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l dialect -d 'Validate as this dialect instead of detecting it from the manifest name' -r -f -a "aoe\t'Agent of Empires: `aoe-plugin.toml`'
aworld\t'AWorld: `.aworld-plugin/plugin.json`'
protoagent\t'protoAgent: `protoagent.plugin.yaml`'"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l aoe-api -d 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l host-version -d 'Check the manifest\'s version requirement (aoe_version) against this host version' -r
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s A -l allow -d 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)' -r -f -a "plugins::aoe::unknown_capability\t'install refuses capabilities this host does not know'
plugins::aoe::reserved_namespace\t'the id claims aoe.* / agent-of-empires.*, which only featured plugins may'
plugins::aoe::builtin_id\t'the id collides with a builtin plugin'
plugins::aoe::shipped_build_dir\t'the source tree ships the reserved .aoe-build/ directory'
plugins::aoe::symlink\t'the plugin tree contains a symlink, which install refuses'
plugins::aoe::archive_without_bin\t'a .tar.gz release asset without bin cannot be installed'
plugins::aoe::bin_path\t'release-binary bin is absolute or traverses out of the plugin'
plugins::aoe::ignored_key\t'a key the host silently ignores (often a typo)'
plugins::aoe::inert_property\t'a setting property that has no effect for the settings type'
plugins::aoe::duplicate\t'a duplicate id, key, capability or UI slot entry'
plugins::aoe::doc_gate\t'a feature used below the api_version the docs name (the host does not enforce it)'
plugins::aoe::version_not_semver\t'version is not a semantic version'
plugins::aoe::placeholder_id\t'the id keeps a placeholder namespace like dev.example in a plugin repository that has a remote'
plugins::aoe::keybind_chord\t'a keybind chord the host cannot parse, so it is skipped at run time'
plugins::aoe::theme_name\t'a theme name that collides with a builtin theme, so it is dropped'
plugins::aoe::theme_path\t'a theme path the host drops at load (absolute, traversing, escaping, missing)'
plugins::aoe::entrypoint\t'the worker program escapes the plugin directory or has a drive/UNC prefix'
plugins::aoe::build_program\t'a build step program is an absolute path, which the host rejects when it runs'
plugins::aoe::asset_template\t'a release-binary asset template that installs but cannot launch, or uses {target}'
plugins::aoe::missing_file\t'a screenshot or icon asset path that does not exist in the plugin tree'
plugins::aoe::schema_disagrees\t'the JSON Schema rejects what the hosts parser accepts (report this as a bug)'
plugins::aworld::schema\t'plugin.schema.json rejects what the hosts loader accepts'
plugins::aworld::shadowed_name\t'a top-level command name a bundled command already takes, so it never registers'
plugins::aworld::hook_point\t'a hook without metadata.hook_point (the plugin is skipped at run time) or with one the host never emits'
plugins::aworld::hook_priority\t'a hook metadata.priority that int() rejects (the plugin is skipped at run time)'
plugins::aworld::context_phases\t'a contexts metadata.phases is not a list or names an unknown phase (the plugin is skipped)'
plugins::aworld::missing_target\t'an entrypoint needs a target it lacks, or its target file does not exist'
plugins::aworld::unknown_kind\t'an entrypoint kind no host loader consumes (only indexed)'
plugins::aworld::id_not_installable\t'the plugin id cannot be a directory name (/, .., a leading dot, ...), so it can never be installed'
plugins::aworld::legacy_undiscovered\t'a legacy root that validate accepts but run-time discovery never loads'
plugins::protoagent::unknown_key\t'a key the host silently ignores (often a typo)'
plugins::protoagent::duplicate_key\t'a mapping key given twice (the last one wins)'
plugins::protoagent::truthy_string\t'enabled, builtin or test is not a boolean, and Pythons bool() decides'
plugins::protoagent::ignored_value\t'a field of the wrong shape that the host replaces with an empty default'
plugins::protoagent::reserved_section\t'the config section is a built-in one, so the plugins config and settings are ignored'
plugins::protoagent::setting\t'a settings entry the host drops or cannot render as intended'
plugins::protoagent::view\t'a views entry the host drops (no truthy id or path)'
plugins::protoagent::view_origin\t'a view path that is not same-origin relative (a scheme, //, localhost or a :port); the host warns and keeps the view'
plugins::protoagent::view_palette\t'a views[].palette other than inline or {path: …} (0.218 drops it), or a palette path that is not same-origin relative'
plugins::protoagent::public_path\t'a public path outside /plugins/<id>/ or /api/plugins/<id>/, which the host ignores'
plugins::protoagent::core_route\t'a public or federation path equal to the core route /api/plugins/<id>/update or /enabled (0.218 drops it)'
plugins::protoagent::federation_path\t'a federation_paths entry outside /plugins/<id>/ or /api/plugins/<id>/, which the host ignores'
plugins::protoagent::settings_tab\t'a settings_tabs entry the host drops: not a mapping, no safe id or label, or a duplicate id'
plugins::protoagent::settings_tab_apply\t'a settings tab apply other than live, which the host drops (the tab keeps save-then-apply)'
plugins::protoagent::settings_tab_path\t'a path-backed settings tab whose path is not a page under /plugins/<id>/; the host drops the tab'
plugins::protoagent::setting_tab\t'a settings[].tab naming an unknown or path-backed settings tab; the setting shows under Configuration'
plugins::protoagent::command\t'a commands entry the host drops: not a mapping, no safe id or title, a duplicate id, or neither action nor provider'
plugins::protoagent::command_action\t'a command action or provider the host cannot dispatch (shape, type, view, method, data, target, result_action); the command is dropped'
plugins::protoagent::command_route\t'a command route that is not a relative route inside /api/plugins/<id>/; the command is dropped'
plugins::protoagent::command_topic\t'a command emit topic outside the plugins own event namespace; the command is dropped'
plugins::protoagent::command_chain\t'a type: command chain that names an undeclared command or never ends; the command is dropped'
plugins::protoagent::emits\t'an emits entry without a topic, or a schema ref that escapes, is unreadable or not a mapping'
plugins::protoagent::requires_pip\t'a requires_pip entry without pkg, or with an unknown scope'
plugins::protoagent::requires_runtimes\t'requires_runtimes that is not a mapping, names a runtime other than node, or a spec that is not a version floor'
plugins::protoagent::supersedes\t'supersedes that is not a list, or an entry that is not one remote git repository URL'
plugins::protoagent::enables\t'enables that is not a list, or an entry that is not another plugins id'
plugins::protoagent::bundled_only\t'supersedes or enables in a manifest: protoAgent honours them only on its own bundled plugins'
plugins::protoagent::pip_spec\t'a requires_pip entry install-deps refuses: a pip option, a URL/VCS/direct reference, not a PEP 508 name, or (plugins install --deps only) a local path or archive'
plugins::protoagent::min_version\t'min_protoagent_version is not a PEP 440 version, so the host ignores it'
plugins::protoagent::requires_env\t'requires_env names variables unset here; the host does not load the plugin without them'
plugins::protoagent::relative_plugins_dir\t'PROTOAGENT_PLUGINS_DIR or the configs plugins.dir is relative, which protoAgent 0.218 ignores; plugins go to the instances own directory'
plugins::protoagent::entrypoint_escapes\t'entrypoint resolves outside the plugin directory (the host does not check)'
plugins::config::unknown_key\t'a plugins.toml key plugins does not know (often a typo); it is ignored'
plugins::config::invalid_value\t'a plugins.toml value of the wrong type or outside its closed set; the default is used'
plugins::install::deps_skipped\t'with --deps, optional requirements that could not be resolved, or packages the hosts Python already has at another version, were not installed'
plugins::install::unverifiable\t'the lock records no hash of an installed plugins files (the hosts own installer writes none), so verify cannot tell whether they changed; plugins verify --record records them as they are'
plugins::install::runtime_missing\t'the plugins requires_runtimes Node.js floor is not met by the node on PATH; protoAgent 0.218 loads it with a setup gap'
plugins::sync::no_source\t'plugins sync: a locked row names no source (protoAgents migrated wheel-deps pins) and its host ships no plugin of that id: there is nothing to fetch it from (never the current directory); the other rows are synced'
plugins::sync::unlocked_plugin\t'plugins sync --frozen: a directory in the plugins directory that the lock does not name (left as it is: it may be the hosts own plugin, installed by hand)'
plugins::git::cleartext\t'the source is fetched over unencrypted http:// or git://'
plugins::doctor::leftover\t'plugins doctor: an interrupted change or a stale staging directory waits in the home; the next command that changes it recovers it'
plugins::doctor::cron\t'plugins doctor: the crontab line it prints would fail (the binary is not an absolute executable file, or the log directory cannot be written)'
plugins::doctor::clock_ahead\t'plugins doctor: the home records a time in the future (the last autoupdate sweep, the idle signal, a first-seen version): the clock was once ahead; each is taken as now'
plugins::doctor::step_isolation\t'plugins doctor: this system cannot run build steps, pip and host probes in PID and user namespaces of their own, so a step running as root can read plugins environment (its tokens), and what a step leaves is killed by a subreaper, not with a namespace of its own'
plugins::doctor::rate_limit\t'plugins doctor: the GitHub API rate limit is used up, or could not be read'"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l format -d 'Output format' -r -f -a "human\t'Graphical diagnostics with source snippets (plain text without a terminal)'
json\t'One JSON document for the whole run'
github\t'GitHub Actions workflow commands that annotate the diff'
sarif\t'One SARIF 2.1.0 log, for GitHub code scanning and SARIF viewers'"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l home -d 'Plugin home for PLUGIN-IDs [default: $PLUGINS_HOME, else the aoe app dir]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l stdin-filename -d 'With --stdin: the manifest\'s path, which names its dialect and plugin root in reports' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s r -l recursive -d 'Find every plugin root below each --path'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l strict -l deny-warnings -d 'Warnings fail validation too (exit 1)'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l featured -d 'Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l bundled -d 'Treat plugins as bundled with their host (AWorld: reserved command names allowed; protoAgent: bundled plugin ids allowed)'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l json -d 'Same as --format json'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l stdin -d 'Read the manifest from standard input (an editor\'s buffer); needs --stdin-filename'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c plugins -n "__fish_plugins_using_subcommand validate" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand search" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand search" -l index -d 'An index of plugins to search too (JSON, docs/schema/index.json): a file, or an https:// URL; repeatable, and added to each home\'s `[search] indexes` in plugins.toml' -r
complete -c plugins -n "__fish_plugins_using_subcommand search" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand search" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand search" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand search" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand search" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand search" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand search" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand search" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l ref -d 'Branch, tag, or full or short commit to install' -r
complete -c plugins -n "__fish_plugins_using_subcommand install" -l subdir -d 'The plugin\'s directory inside the git repository (a monorepo); also gh:owner/repo/PATH' -r
complete -c plugins -n "__fish_plugins_using_subcommand install" -l home -d 'The plugin home [default: $PLUGINS_HOME, else the host\'s own]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand install" -l python -d 'protoAgent: the host\'s Python, whose pip installs plugins\' `requires_pip` into plugin-deps (remembered) [default: the home\'s remembered one, else python3 on PATH]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand install" -l build-timeout -d 'Seconds each build step may take' -r
complete -c plugins -n "__fish_plugins_using_subcommand install" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand install" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand install" -l allowed-signers -d 'The allowed signers file ssh signatures are checked against (git\'s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git\'s own setting]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand install" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand install" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand install" -s y -l yes -d 'Grant what the plugin asks for without asking (required without a terminal)'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l no-build -d 'Do not run build steps'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l force -d 'Replace an install from another source, or reinstall the same commit'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l deps -d 'protoAgent: install `requires_pip` into <instance>/plugin-deps/<id>, as the host does (pip of --python); updates and syncs keep them matching the plugin'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l strict -d 'Refuse what would only warn: validation warnings, and a cleartext (http://, git://) source'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l require-signed -d 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer\'s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l no-detect -d 'Do not run the installed host (`aoe --version`, the host\'s Python) to pick the profile when neither a flag nor the home names one: validate as the newest'
complete -c plugins -n "__fish_plugins_using_subcommand install" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand install" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand install" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand install" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand install" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand list" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand list" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand list" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand list" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand list" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand list" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand list" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand list" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand list" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand info" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand info" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand info" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand info" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand info" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand info" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand info" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand info" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand info" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand homes" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand homes" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand homes" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand enable" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand enable" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand enable" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand enable" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand enable" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand enable" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand enable" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand enable" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand disable" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand disable" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand disable" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand disable" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand disable" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand disable" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand disable" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand disable" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand remove" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l to -d 'The kept version to restore, by commit (a prefix will do) [default: the most recent]' -r
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l home -d 'The plugin home whose lock to bundle [default: $PLUGINS_HOME, else the one host\'s own home with a lock]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -s o -l output -d 'The archive to write: a new file, written atomically beside it (never inside the home)' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l push -d 'Push the bundle to an OCI registry instead, as an artifact whose unchanged plugins are not uploaded again; prints the digest to sync from' -r
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l python -d 'protoAgent: the host\'s Python, whose pip downloads the locked wheels [default: the home\'s remembered one, else python3 on PATH]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l plain-http -d 'Talk to the registry over plain HTTP (never without this flag)'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l force -d 'Replace FILE if it is a regular file (a FIFO, device, directory or link never is)'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand bundle" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand hold" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l json -d 'Print one JSON document instead of the outcome line'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l strict -d 'A plugin the lock records no hash of is a failure (exit 1)'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l record -d 'Record the files of each plugin the lock records no hash of, as they are now, as its baseline (in the lock row, under the home lock); plugins with hashes are only verified'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l no-wait -d 'Fail at once if another plugins process holds the home, instead of waiting (--record)'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand verify" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l python -d 'protoAgent: the host\'s Python, whose pip installs plugins\' `requires_pip` into plugin-deps [default: the home\'s remembered one, else python3 on PATH]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s j -l jobs -d 'How many sources to fetch at once (installs still happen one at a time, in lock order)' -r
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l from -d 'With --frozen: install from this archive (`plugins bundle -o`), or from this artifact in an OCI registry (`plugins bundle --push`), instead of the network: every tree and wheel comes from it, checked against the lock' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l allowed-signers -d 'The allowed signers file ssh signatures are checked against (git\'s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git\'s own setting]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s y -l yes -d 'Grant what each plugin asks for without asking (required without a terminal)'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l force -d 'Reinstall plugins that are present too'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l repair -d 'Reinstall present plugins whose files changed since install (as `plugins verify` reports them) from their locked source'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l no-build -d 'Do not run build steps'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l json -d 'Print one JSON document instead of the outcome lines'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l frozen -d 'Install exactly the lock, or change nothing: every plugin at its locked commit with its locked tree hash, release asset sha256 and wheels, all fetched and checked before any is put in place (a plugin whose files changed is reinstalled as locked); anything that would change the lock is an error'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l plain-http -d 'With --from oci://…: talk to the registry over plain HTTP (never without this flag)'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l require-signed -d 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer\'s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand sync" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -s j -l jobs -d 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)' -r
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l timeout -d 'Seconds to wait for each remote' -r
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l cooldown -d 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]' -r
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l pre -d 'Consider pre-release tags (v2.0.0-rc1) newer releases'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l exit-code -d 'Exit 3 (instead of 0) when any plugin has a newer version'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand outdated" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand update" -s j -l jobs -d 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)' -r
complete -c plugins -n "__fish_plugins_using_subcommand update" -l timeout -d 'Seconds to wait for each remote' -r
complete -c plugins -n "__fish_plugins_using_subcommand update" -l cooldown -d 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]' -r
complete -c plugins -n "__fish_plugins_using_subcommand update" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand update" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand update" -l allowed-signers -d 'The allowed signers file ssh signatures are checked against (git\'s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git\'s own setting]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand update" -l python -d 'protoAgent: the host\'s Python, whose pip installs plugins\' `requires_pip` into plugin-deps [default: the home\'s remembered one, else python3 on PATH]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand update" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand update" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand update" -l all -d 'Update every locked plugin'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l dry-run -d 'Show what each update would bring (commits, permission changes, consent) without installing'
complete -c plugins -n "__fish_plugins_using_subcommand update" -s y -l yes -d 'Grant changed permissions without asking (required without a terminal)'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l pre -d 'Consider pre-release tags (v2.0.0-rc1) newer releases'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l require-signed -d 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer\'s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l json -d 'Print one JSON document instead of the outcome lines'
complete -c plugins -n "__fish_plugins_using_subcommand update" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand update" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand update" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand update" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand update" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l grace -d 'Seconds after the last activity during which the host counts as busy' -r
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -s j -l jobs -d 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)' -r
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l timeout -d 'Seconds to wait for each remote' -r
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l cooldown -d 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]' -r
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l force -d 'Sweep even if the last sweep is younger than the interval'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l pre -d 'Consider pre-release tags (v2.0.0-rc1) newer releases'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l json -d 'Print one JSON document instead of the text report'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l exit-code -d 'Exit 3 (instead of 0) when at least one plugin was updated'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand autoupdate" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home with installed plugins]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -f -a "touch" -d 'Touch `<home>/activity`: the host was just active'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -f -a "hold" -d 'Run a command while holding the activity lock (in flight), touching it before and after'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and not __fish_seen_subcommand_from touch hold help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home with installed plugins]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from touch" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home with installed plugins]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from hold" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from help" -f -a "touch" -d 'Touch `<home>/activity`: the host was just active'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from help" -f -a "hold" -d 'Run a command while holding the activity lock (in flight), touching it before and after'
complete -c plugins -n "__fish_plugins_using_subcommand activity; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l home -d 'The plugin home [default: $PLUGINS_HOME, else every host\'s own home]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -s j -l jobs -d 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)' -r
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l timeout -d 'Seconds to wait for each remote' -r
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l cooldown -d 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]' -r
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l aoe-api -d 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home\'s remembered profile, else 15]' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l host-version -d 'The host\'s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home\'s remembered one]' -r
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l grace -d 'Seconds after the last activity during which the host counts as busy' -r
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l pre -d 'Consider pre-release tags (v2.0.0-rc1) newer releases'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l offline -d 'Skip the remotes and the GitHub API: local checks only'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l json -d 'Print one JSON document'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -s p -l path -d 'A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]' -r -F
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -l json -d 'Print one JSON document instead of a table'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand resolve" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand schema" -l aoe-api -d 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand schema" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand schema" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand schema" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand schema" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand schema" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c plugins -n "__fish_plugins_using_subcommand schema" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -l aoe-api -d 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)' -r -f -a "12\t''
15\t''"
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -s A -l allow -d 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)' -r -f -a "plugins::aoe::unknown_capability\t'install refuses capabilities this host does not know'
plugins::aoe::reserved_namespace\t'the id claims aoe.* / agent-of-empires.*, which only featured plugins may'
plugins::aoe::builtin_id\t'the id collides with a builtin plugin'
plugins::aoe::shipped_build_dir\t'the source tree ships the reserved .aoe-build/ directory'
plugins::aoe::symlink\t'the plugin tree contains a symlink, which install refuses'
plugins::aoe::archive_without_bin\t'a .tar.gz release asset without bin cannot be installed'
plugins::aoe::bin_path\t'release-binary bin is absolute or traverses out of the plugin'
plugins::aoe::ignored_key\t'a key the host silently ignores (often a typo)'
plugins::aoe::inert_property\t'a setting property that has no effect for the settings type'
plugins::aoe::duplicate\t'a duplicate id, key, capability or UI slot entry'
plugins::aoe::doc_gate\t'a feature used below the api_version the docs name (the host does not enforce it)'
plugins::aoe::version_not_semver\t'version is not a semantic version'
plugins::aoe::placeholder_id\t'the id keeps a placeholder namespace like dev.example in a plugin repository that has a remote'
plugins::aoe::keybind_chord\t'a keybind chord the host cannot parse, so it is skipped at run time'
plugins::aoe::theme_name\t'a theme name that collides with a builtin theme, so it is dropped'
plugins::aoe::theme_path\t'a theme path the host drops at load (absolute, traversing, escaping, missing)'
plugins::aoe::entrypoint\t'the worker program escapes the plugin directory or has a drive/UNC prefix'
plugins::aoe::build_program\t'a build step program is an absolute path, which the host rejects when it runs'
plugins::aoe::asset_template\t'a release-binary asset template that installs but cannot launch, or uses {target}'
plugins::aoe::missing_file\t'a screenshot or icon asset path that does not exist in the plugin tree'
plugins::aoe::schema_disagrees\t'the JSON Schema rejects what the hosts parser accepts (report this as a bug)'
plugins::aworld::schema\t'plugin.schema.json rejects what the hosts loader accepts'
plugins::aworld::shadowed_name\t'a top-level command name a bundled command already takes, so it never registers'
plugins::aworld::hook_point\t'a hook without metadata.hook_point (the plugin is skipped at run time) or with one the host never emits'
plugins::aworld::hook_priority\t'a hook metadata.priority that int() rejects (the plugin is skipped at run time)'
plugins::aworld::context_phases\t'a contexts metadata.phases is not a list or names an unknown phase (the plugin is skipped)'
plugins::aworld::missing_target\t'an entrypoint needs a target it lacks, or its target file does not exist'
plugins::aworld::unknown_kind\t'an entrypoint kind no host loader consumes (only indexed)'
plugins::aworld::id_not_installable\t'the plugin id cannot be a directory name (/, .., a leading dot, ...), so it can never be installed'
plugins::aworld::legacy_undiscovered\t'a legacy root that validate accepts but run-time discovery never loads'
plugins::protoagent::unknown_key\t'a key the host silently ignores (often a typo)'
plugins::protoagent::duplicate_key\t'a mapping key given twice (the last one wins)'
plugins::protoagent::truthy_string\t'enabled, builtin or test is not a boolean, and Pythons bool() decides'
plugins::protoagent::ignored_value\t'a field of the wrong shape that the host replaces with an empty default'
plugins::protoagent::reserved_section\t'the config section is a built-in one, so the plugins config and settings are ignored'
plugins::protoagent::setting\t'a settings entry the host drops or cannot render as intended'
plugins::protoagent::view\t'a views entry the host drops (no truthy id or path)'
plugins::protoagent::view_origin\t'a view path that is not same-origin relative (a scheme, //, localhost or a :port); the host warns and keeps the view'
plugins::protoagent::view_palette\t'a views[].palette other than inline or {path: …} (0.218 drops it), or a palette path that is not same-origin relative'
plugins::protoagent::public_path\t'a public path outside /plugins/<id>/ or /api/plugins/<id>/, which the host ignores'
plugins::protoagent::core_route\t'a public or federation path equal to the core route /api/plugins/<id>/update or /enabled (0.218 drops it)'
plugins::protoagent::federation_path\t'a federation_paths entry outside /plugins/<id>/ or /api/plugins/<id>/, which the host ignores'
plugins::protoagent::settings_tab\t'a settings_tabs entry the host drops: not a mapping, no safe id or label, or a duplicate id'
plugins::protoagent::settings_tab_apply\t'a settings tab apply other than live, which the host drops (the tab keeps save-then-apply)'
plugins::protoagent::settings_tab_path\t'a path-backed settings tab whose path is not a page under /plugins/<id>/; the host drops the tab'
plugins::protoagent::setting_tab\t'a settings[].tab naming an unknown or path-backed settings tab; the setting shows under Configuration'
plugins::protoagent::command\t'a commands entry the host drops: not a mapping, no safe id or title, a duplicate id, or neither action nor provider'
plugins::protoagent::command_action\t'a command action or provider the host cannot dispatch (shape, type, view, method, data, target, result_action); the command is dropped'
plugins::protoagent::command_route\t'a command route that is not a relative route inside /api/plugins/<id>/; the command is dropped'
plugins::protoagent::command_topic\t'a command emit topic outside the plugins own event namespace; the command is dropped'
plugins::protoagent::command_chain\t'a type: command chain that names an undeclared command or never ends; the command is dropped'
plugins::protoagent::emits\t'an emits entry without a topic, or a schema ref that escapes, is unreadable or not a mapping'
plugins::protoagent::requires_pip\t'a requires_pip entry without pkg, or with an unknown scope'
plugins::protoagent::requires_runtimes\t'requires_runtimes that is not a mapping, names a runtime other than node, or a spec that is not a version floor'
plugins::protoagent::supersedes\t'supersedes that is not a list, or an entry that is not one remote git repository URL'
plugins::protoagent::enables\t'enables that is not a list, or an entry that is not another plugins id'
plugins::protoagent::bundled_only\t'supersedes or enables in a manifest: protoAgent honours them only on its own bundled plugins'
plugins::protoagent::pip_spec\t'a requires_pip entry install-deps refuses: a pip option, a URL/VCS/direct reference, not a PEP 508 name, or (plugins install --deps only) a local path or archive'
plugins::protoagent::min_version\t'min_protoagent_version is not a PEP 440 version, so the host ignores it'
plugins::protoagent::requires_env\t'requires_env names variables unset here; the host does not load the plugin without them'
plugins::protoagent::relative_plugins_dir\t'PROTOAGENT_PLUGINS_DIR or the configs plugins.dir is relative, which protoAgent 0.218 ignores; plugins go to the instances own directory'
plugins::protoagent::entrypoint_escapes\t'entrypoint resolves outside the plugin directory (the host does not check)'
plugins::config::unknown_key\t'a plugins.toml key plugins does not know (often a typo); it is ignored'
plugins::config::invalid_value\t'a plugins.toml value of the wrong type or outside its closed set; the default is used'
plugins::install::deps_skipped\t'with --deps, optional requirements that could not be resolved, or packages the hosts Python already has at another version, were not installed'
plugins::install::unverifiable\t'the lock records no hash of an installed plugins files (the hosts own installer writes none), so verify cannot tell whether they changed; plugins verify --record records them as they are'
plugins::install::runtime_missing\t'the plugins requires_runtimes Node.js floor is not met by the node on PATH; protoAgent 0.218 loads it with a setup gap'
plugins::sync::no_source\t'plugins sync: a locked row names no source (protoAgents migrated wheel-deps pins) and its host ships no plugin of that id: there is nothing to fetch it from (never the current directory); the other rows are synced'
plugins::sync::unlocked_plugin\t'plugins sync --frozen: a directory in the plugins directory that the lock does not name (left as it is: it may be the hosts own plugin, installed by hand)'
plugins::git::cleartext\t'the source is fetched over unencrypted http:// or git://'
plugins::doctor::leftover\t'plugins doctor: an interrupted change or a stale staging directory waits in the home; the next command that changes it recovers it'
plugins::doctor::cron\t'plugins doctor: the crontab line it prints would fail (the binary is not an absolute executable file, or the log directory cannot be written)'
plugins::doctor::clock_ahead\t'plugins doctor: the home records a time in the future (the last autoupdate sweep, the idle signal, a first-seen version): the clock was once ahead; each is taken as now'
plugins::doctor::step_isolation\t'plugins doctor: this system cannot run build steps, pip and host probes in PID and user namespaces of their own, so a step running as root can read plugins environment (its tokens), and what a step leaves is killed by a subreaper, not with a namespace of its own'
plugins::doctor::rate_limit\t'plugins doctor: the GitHub API rate limit is used up, or could not be read'"
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -l strict -d 'Report warnings as errors, as `validate --strict` does'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand lsp" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand completions" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand completions" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand completions" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand completions" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand completions" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand completions" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand completions" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand man" -l color -d 'When to use color: auto honours NO_COLOR and whether output is a terminal' -r -f -a "auto\t''
always\t''
never\t''"
complete -c plugins -n "__fish_plugins_using_subcommand man" -l log-format -d 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)' -r -f -a "text\t''
json\t''"
complete -c plugins -n "__fish_plugins_using_subcommand man" -s q -l quiet -d 'Print only problems: no status lines, no progress, no summary of what went well'
complete -c plugins -n "__fish_plugins_using_subcommand man" -s v -l verbose -d 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
complete -c plugins -n "__fish_plugins_using_subcommand man" -l timestamps -d 'Text logs: start each status line, warning and error on stderr (and autoupdate\'s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
complete -c plugins -n "__fish_plugins_using_subcommand man" -s h -l help -d 'Print help'
complete -c plugins -n "__fish_plugins_using_subcommand man" -s V -l version -d 'Print version'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "new" -d 'Scaffold a plugin for any dialect from the built-in templates'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "validate" -d 'Check plugin manifests exactly as the host does, plus lints'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "search" -d 'Find plugins in the featured index and the installed homes, with the install command'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "install" -d 'Install a plugin from git or a local directory, pinned in the lock'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "list" -d 'List installed plugins'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "info" -d 'Show one installed plugin'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "homes" -d 'Show where each host keeps its plugins, lock and config'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "enable" -d 'Turn an installed plugin on where its host reads it'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "disable" -d 'Turn an installed plugin off where its host reads it'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "remove" -d 'Remove an installed plugin and its lock entry'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "rollback" -d 'Put back a version an update replaced (the last two are kept), and hold it'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "bundle" -d 'Write one archive of everything a home\'s lock pins, for `sync --frozen --from`'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "hold" -d 'Hold a plugin at its version: `update --all` and `autoupdate` skip it'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "unhold" -d 'Lift a plugin\'s hold: updates take it again'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "verify" -d 'Check installed plugins against the hashes in the lock'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "sync" -d 'Install what the lock says, at the locked commits'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "outdated" -d 'Show what is pinned and what is newer (reads remote refs only)'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "update" -d 'Update plugins to their newer commits'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "autoupdate" -d 'One auto-update sweep under each home\'s policy, <home>/plugins.toml (for cron)'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "activity" -d 'Mark a home busy so auto-update waits (touch, or hold while a command runs)'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "doctor" -d 'Check homes, locks, leftovers, hosts, sources, proxies and credentials'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "resolve" -d 'Show which AWorld plugins activate, in discovery order, and why others do not'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "schema" -d 'Print the JSON Schema of a dialect\'s manifest'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "lsp" -d 'Run a language server that publishes validate\'s diagnostics as you type'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "completions" -d 'Print shell completions'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "man" -d 'Write the manual pages (plugins.1 and one per subcommand) into a directory'
complete -c plugins -n "__fish_plugins_using_subcommand help; and not __fish_seen_subcommand_from new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c plugins -n "__fish_plugins_using_subcommand help; and __fish_seen_subcommand_from activity" -f -a "touch" -d 'Touch `<home>/activity`: the host was just active'
complete -c plugins -n "__fish_plugins_using_subcommand help; and __fish_seen_subcommand_from activity" -f -a "hold" -d 'Run a command while holding the activity lock (in flight), touching it before and after'
complete -c plugins -n "__fish_plugins_using_subcommand info" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand enable" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand disable" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand remove" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand rollback" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand hold" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand unhold" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand verify" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand update" -f -a "(plugins __complete ids 2>/dev/null)"
complete -c plugins -n "__fish_plugins_using_subcommand validate" -a "(plugins __complete ids 2>/dev/null)"
