
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'plugins' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'plugins'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'plugins' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Scaffold a plugin for any dialect from the built-in templates')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check plugin manifests exactly as the host does, plus lints')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find plugins in the featured index and the installed homes, with the install command')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install a plugin from git or a local directory, pinned in the lock')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed plugins')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show one installed plugin')
            [CompletionResult]::new('homes', 'homes', [CompletionResultType]::ParameterValue, 'Show where each host keeps its plugins, lock and config')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Turn an installed plugin on where its host reads it')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Turn an installed plugin off where its host reads it')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove an installed plugin and its lock entry')
            [CompletionResult]::new('rollback', 'rollback', [CompletionResultType]::ParameterValue, 'Put back a version an update replaced (the last two are kept), and hold it')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write one archive of everything a home''s lock pins, for `sync --frozen --from`')
            [CompletionResult]::new('hold', 'hold', [CompletionResultType]::ParameterValue, 'Hold a plugin at its version: `update --all` and `autoupdate` skip it')
            [CompletionResult]::new('unhold', 'unhold', [CompletionResultType]::ParameterValue, 'Lift a plugin''s hold: updates take it again')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check installed plugins against the hashes in the lock')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Install what the lock says, at the locked commits')
            [CompletionResult]::new('outdated', 'outdated', [CompletionResultType]::ParameterValue, 'Show what is pinned and what is newer (reads remote refs only)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Update plugins to their newer commits')
            [CompletionResult]::new('autoupdate', 'autoupdate', [CompletionResultType]::ParameterValue, 'One auto-update sweep under each home''s policy, <home>/plugins.toml (for cron)')
            [CompletionResult]::new('activity', 'activity', [CompletionResultType]::ParameterValue, 'Mark a home busy so auto-update waits (touch, or hold while a command runs)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check homes, locks, leftovers, hosts, sources, proxies and credentials')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Show which AWorld plugins activate, in discovery order, and why others do not')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of a dialect''s manifest')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run a language server that publishes validate''s diagnostics as you type')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the manual pages (plugins.1 and one per subcommand) into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'plugins;new' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Which host the plugin is for')
            [CompletionResult]::new('--runtime', '--runtime', [CompletionResultType]::ParameterName, 'The worker''s language (aoe: python, node, rust or none; others: python)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Use this id instead of deriving one from NAME')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'A one-line description')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Where to write the plugin [default: ./<slug>]')
            [CompletionResult]::new('--ci-from', '--ci-from', [CompletionResultType]::ParameterName, 'The git URL (https or ssh) the CI workflow builds `plugins` from with `cargo install --git`, instead of installing a release; while no published release exists, without it the workflow fails, saying to set PLUGINS_GIT')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--with-tests', '--with-tests', [CompletionResultType]::ParameterName, 'Include tests and a CI workflow that runs them')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Accept defaults instead of asking (for scripts)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Accept defaults instead of asking (for scripts)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the templates and their variables, then exit')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print what was written as JSON')
            [CompletionResult]::new('--no-git', '--no-git', [CompletionResultType]::ParameterName, 'Skip `git init` (it runs when git is on PATH and DIR is not inside a git work tree)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;validate' {
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Validate as this dialect instead of detecting it from the manifest name')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'Check the manifest''s version requirement (aoe_version) against this host version')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'Plugin home for PLUGIN-IDs [default: $PLUGINS_HOME, else the aoe app dir]')
            [CompletionResult]::new('--stdin-filename', '--stdin-filename', [CompletionResultType]::ParameterName, 'With --stdin: the manifest''s path, which names its dialect and plugin root in reports')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Find every plugin root below each --path')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Find every plugin root below each --path')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Warnings fail validation too (exit 1)')
            [CompletionResult]::new('--deny-warnings', '--deny-warnings', [CompletionResultType]::ParameterName, 'Warnings fail validation too (exit 1)')
            [CompletionResult]::new('--featured', '--featured', [CompletionResultType]::ParameterName, 'Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)')
            [CompletionResult]::new('--bundled', '--bundled', [CompletionResultType]::ParameterName, 'Treat plugins as bundled with their host (AWorld: reserved command names allowed; protoAgent: bundled plugin ids allowed)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Same as --format json')
            [CompletionResult]::new('--stdin', '--stdin', [CompletionResultType]::ParameterName, 'Read the manifest from standard input (an editor''s buffer); needs --stdin-filename')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;search' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'An index of plugins to search too (JSON, docs/schema/index.json): a file, or an https:// URL; repeatable, and added to each home''s `[search] indexes` in plugins.toml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;install' {
            [CompletionResult]::new('--ref', '--ref', [CompletionResultType]::ParameterName, 'Branch, tag, or full or short commit to install')
            [CompletionResult]::new('--subdir', '--subdir', [CompletionResultType]::ParameterName, 'The plugin''s directory inside the git repository (a monorepo); also gh:owner/repo/PATH')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else the host''s own]')
            [CompletionResult]::new('--python', '--python', [CompletionResultType]::ParameterName, 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps (remembered) [default: the home''s remembered one, else python3 on PATH]')
            [CompletionResult]::new('--build-timeout', '--build-timeout', [CompletionResultType]::ParameterName, 'Seconds each build step may take')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--allowed-signers', '--allowed-signers', [CompletionResultType]::ParameterName, 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Grant what the plugin asks for without asking (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Grant what the plugin asks for without asking (required without a terminal)')
            [CompletionResult]::new('--no-build', '--no-build', [CompletionResultType]::ParameterName, 'Do not run build steps')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace an install from another source, or reinstall the same commit')
            [CompletionResult]::new('--deps', '--deps', [CompletionResultType]::ParameterName, 'protoAgent: install `requires_pip` into <instance>/plugin-deps/<id>, as the host does (pip of --python); updates and syncs keep them matching the plugin')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Refuse what would only warn: validation warnings, and a cleartext (http://, git://) source')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]')
            [CompletionResult]::new('--no-detect', '--no-detect', [CompletionResultType]::ParameterName, 'Do not run the installed host (`aoe --version`, the host''s Python) to pick the profile when neither a flag nor the home names one: validate as the newest')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;list' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;info' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;homes' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;enable' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;disable' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;remove' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;rollback' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The kept version to restore, by commit (a prefix will do) [default: the most recent]')
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;bundle' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home whose lock to bundle [default: $PLUGINS_HOME, else the one host''s own home with a lock]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The archive to write: a new file, written atomically beside it (never inside the home)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The archive to write: a new file, written atomically beside it (never inside the home)')
            [CompletionResult]::new('--push', '--push', [CompletionResultType]::ParameterName, 'Push the bundle to an OCI registry instead, as an artifact whose unchanged plugins are not uploaded again; prints the digest to sync from')
            [CompletionResult]::new('--python', '--python', [CompletionResultType]::ParameterName, 'protoAgent: the host''s Python, whose pip downloads the locked wheels [default: the home''s remembered one, else python3 on PATH]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--plain-http', '--plain-http', [CompletionResultType]::ParameterName, 'Talk to the registry over plain HTTP (never without this flag)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace FILE if it is a regular file (a FIFO, device, directory or link never is)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;hold' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;unhold' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome line')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;verify' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'A plugin the lock records no hash of is a failure (exit 1)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Record the files of each plugin the lock records no hash of, as they are now, as its baseline (in the lock row, under the home lock); plugins with hashes are only verified')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Fail at once if another plugins process holds the home, instead of waiting (--record)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;sync' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--python', '--python', [CompletionResultType]::ParameterName, 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps [default: the home''s remembered one, else python3 on PATH]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many sources to fetch at once (installs still happen one at a time, in lock order)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many sources to fetch at once (installs still happen one at a time, in lock order)')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'With --frozen: install from this archive (`plugins bundle -o`), or from this artifact in an OCI registry (`plugins bundle --push`), instead of the network: every tree and wheel comes from it, checked against the lock')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--allowed-signers', '--allowed-signers', [CompletionResultType]::ParameterName, 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Grant what each plugin asks for without asking (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Grant what each plugin asks for without asking (required without a terminal)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Reinstall plugins that are present too')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Reinstall present plugins whose files changed since install (as `plugins verify` reports them) from their locked source')
            [CompletionResult]::new('--no-build', '--no-build', [CompletionResultType]::ParameterName, 'Do not run build steps')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome lines')
            [CompletionResult]::new('--frozen', '--frozen', [CompletionResultType]::ParameterName, 'Install exactly the lock, or change nothing: every plugin at its locked commit with its locked tree hash, release asset sha256 and wheels, all fetched and checked before any is put in place (a plugin whose files changed is reinstalled as locked); anything that would change the lock is an error')
            [CompletionResult]::new('--plain-http', '--plain-http', [CompletionResultType]::ParameterName, 'With --from oci://…: talk to the registry over plain HTTP (never without this flag)')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;outdated' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each remote')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'Consider pre-release tags (v2.0.0-rc1) newer releases')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit 3 (instead of 0) when any plugin has a newer version')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;update' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each remote')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--allowed-signers', '--allowed-signers', [CompletionResultType]::ParameterName, 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]')
            [CompletionResult]::new('--python', '--python', [CompletionResultType]::ParameterName, 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps [default: the home''s remembered one, else python3 on PATH]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Update every locked plugin')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what each update would bring (commits, permission changes, consent) without installing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Grant changed permissions without asking (required without a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Grant changed permissions without asking (required without a terminal)')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'Consider pre-release tags (v2.0.0-rc1) newer releases')
            [CompletionResult]::new('--require-signed', '--require-signed', [CompletionResultType]::ParameterName, 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the outcome lines')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;autoupdate' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds after the last activity during which the host counts as busy')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each remote')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Sweep even if the last sweep is younger than the interval')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'Consider pre-release tags (v2.0.0-rc1) newer releases')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of the text report')
            [CompletionResult]::new('--exit-code', '--exit-code', [CompletionResultType]::ParameterName, 'Exit 3 (instead of 0) when at least one plugin was updated')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;activity' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('touch', 'touch', [CompletionResultType]::ParameterValue, 'Touch `<home>/activity`: the host was just active')
            [CompletionResult]::new('hold', 'hold', [CompletionResultType]::ParameterValue, 'Run a command while holding the activity lock (in flight), touching it before and after')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'plugins;activity;touch' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;activity;hold' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;activity;help' {
            [CompletionResult]::new('touch', 'touch', [CompletionResultType]::ParameterValue, 'Touch `<home>/activity`: the host was just active')
            [CompletionResult]::new('hold', 'hold', [CompletionResultType]::ParameterValue, 'Run a command while holding the activity lock (in flight), touching it before and after')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'plugins;activity;help;touch' {
            break
        }
        'plugins;activity;help;hold' {
            break
        }
        'plugins;activity;help;help' {
            break
        }
        'plugins;doctor' {
            [CompletionResult]::new('--home', '--home', [CompletionResultType]::ParameterName, 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Seconds to wait for each remote')
            [CompletionResult]::new('--cooldown', '--cooldown', [CompletionResultType]::ParameterName, 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]')
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]')
            [CompletionResult]::new('--host-version', '--host-version', [CompletionResultType]::ParameterName, 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]')
            [CompletionResult]::new('--grace', '--grace', [CompletionResultType]::ParameterName, 'Seconds after the last activity during which the host counts as busy')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'Consider pre-release tags (v2.0.0-rc1) newer releases')
            [CompletionResult]::new('--offline', '--offline', [CompletionResultType]::ParameterName, 'Skip the remotes and the GitHub API: local checks only')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;resolve' {
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print one JSON document instead of a table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;schema' {
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;lsp' {
            [CompletionResult]::new('--aoe-api', '--aoe-api', [CompletionResultType]::ParameterName, 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)')
            [CompletionResult]::new('--allow', '--allow', [CompletionResultType]::ParameterName, 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Report warnings as errors, as `validate --strict` does')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;man' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use color: auto honours NO_COLOR and whether output is a terminal')
            [CompletionResult]::new('--log-format', '--log-format', [CompletionResultType]::ParameterName, 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only problems: no status lines, no progress, no summary of what went well')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)')
            [CompletionResult]::new('--timestamps', '--timestamps', [CompletionResultType]::ParameterName, 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'plugins;help' {
            [CompletionResult]::new('new', 'new', [CompletionResultType]::ParameterValue, 'Scaffold a plugin for any dialect from the built-in templates')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check plugin manifests exactly as the host does, plus lints')
            [CompletionResult]::new('search', 'search', [CompletionResultType]::ParameterValue, 'Find plugins in the featured index and the installed homes, with the install command')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install a plugin from git or a local directory, pinned in the lock')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List installed plugins')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Show one installed plugin')
            [CompletionResult]::new('homes', 'homes', [CompletionResultType]::ParameterValue, 'Show where each host keeps its plugins, lock and config')
            [CompletionResult]::new('enable', 'enable', [CompletionResultType]::ParameterValue, 'Turn an installed plugin on where its host reads it')
            [CompletionResult]::new('disable', 'disable', [CompletionResultType]::ParameterValue, 'Turn an installed plugin off where its host reads it')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove an installed plugin and its lock entry')
            [CompletionResult]::new('rollback', 'rollback', [CompletionResultType]::ParameterValue, 'Put back a version an update replaced (the last two are kept), and hold it')
            [CompletionResult]::new('bundle', 'bundle', [CompletionResultType]::ParameterValue, 'Write one archive of everything a home''s lock pins, for `sync --frozen --from`')
            [CompletionResult]::new('hold', 'hold', [CompletionResultType]::ParameterValue, 'Hold a plugin at its version: `update --all` and `autoupdate` skip it')
            [CompletionResult]::new('unhold', 'unhold', [CompletionResultType]::ParameterValue, 'Lift a plugin''s hold: updates take it again')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check installed plugins against the hashes in the lock')
            [CompletionResult]::new('sync', 'sync', [CompletionResultType]::ParameterValue, 'Install what the lock says, at the locked commits')
            [CompletionResult]::new('outdated', 'outdated', [CompletionResultType]::ParameterValue, 'Show what is pinned and what is newer (reads remote refs only)')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Update plugins to their newer commits')
            [CompletionResult]::new('autoupdate', 'autoupdate', [CompletionResultType]::ParameterValue, 'One auto-update sweep under each home''s policy, <home>/plugins.toml (for cron)')
            [CompletionResult]::new('activity', 'activity', [CompletionResultType]::ParameterValue, 'Mark a home busy so auto-update waits (touch, or hold while a command runs)')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check homes, locks, leftovers, hosts, sources, proxies and credentials')
            [CompletionResult]::new('resolve', 'resolve', [CompletionResultType]::ParameterValue, 'Show which AWorld plugins activate, in discovery order, and why others do not')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema of a dialect''s manifest')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'Run a language server that publishes validate''s diagnostics as you type')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write the manual pages (plugins.1 and one per subcommand) into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'plugins;help;new' {
            break
        }
        'plugins;help;validate' {
            break
        }
        'plugins;help;search' {
            break
        }
        'plugins;help;install' {
            break
        }
        'plugins;help;list' {
            break
        }
        'plugins;help;info' {
            break
        }
        'plugins;help;homes' {
            break
        }
        'plugins;help;enable' {
            break
        }
        'plugins;help;disable' {
            break
        }
        'plugins;help;remove' {
            break
        }
        'plugins;help;rollback' {
            break
        }
        'plugins;help;bundle' {
            break
        }
        'plugins;help;hold' {
            break
        }
        'plugins;help;unhold' {
            break
        }
        'plugins;help;verify' {
            break
        }
        'plugins;help;sync' {
            break
        }
        'plugins;help;outdated' {
            break
        }
        'plugins;help;update' {
            break
        }
        'plugins;help;autoupdate' {
            break
        }
        'plugins;help;activity' {
            [CompletionResult]::new('touch', 'touch', [CompletionResultType]::ParameterValue, 'Touch `<home>/activity`: the host was just active')
            [CompletionResult]::new('hold', 'hold', [CompletionResultType]::ParameterValue, 'Run a command while holding the activity lock (in flight), touching it before and after')
            break
        }
        'plugins;help;activity;touch' {
            break
        }
        'plugins;help;activity;hold' {
            break
        }
        'plugins;help;doctor' {
            break
        }
        'plugins;help;resolve' {
            break
        }
        'plugins;help;schema' {
            break
        }
        'plugins;help;lsp' {
            break
        }
        'plugins;help;completions' {
            break
        }
        'plugins;help;man' {
            break
        }
        'plugins;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
