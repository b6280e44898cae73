
use builtin;
use str;

set edit:completion:arg-completer[plugins] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'plugins'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'plugins'= {
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand new 'Scaffold a plugin for any dialect from the built-in templates'
            cand validate 'Check plugin manifests exactly as the host does, plus lints'
            cand search 'Find plugins in the featured index and the installed homes, with the install command'
            cand install 'Install a plugin from git or a local directory, pinned in the lock'
            cand list 'List installed plugins'
            cand info 'Show one installed plugin'
            cand homes 'Show where each host keeps its plugins, lock and config'
            cand enable 'Turn an installed plugin on where its host reads it'
            cand disable 'Turn an installed plugin off where its host reads it'
            cand remove 'Remove an installed plugin and its lock entry'
            cand rollback 'Put back a version an update replaced (the last two are kept), and hold it'
            cand bundle 'Write one archive of everything a home''s lock pins, for `sync --frozen --from`'
            cand hold 'Hold a plugin at its version: `update --all` and `autoupdate` skip it'
            cand unhold 'Lift a plugin''s hold: updates take it again'
            cand verify 'Check installed plugins against the hashes in the lock'
            cand sync 'Install what the lock says, at the locked commits'
            cand outdated 'Show what is pinned and what is newer (reads remote refs only)'
            cand update 'Update plugins to their newer commits'
            cand autoupdate 'One auto-update sweep under each home''s policy, <home>/plugins.toml (for cron)'
            cand activity 'Mark a home busy so auto-update waits (touch, or hold while a command runs)'
            cand doctor 'Check homes, locks, leftovers, hosts, sources, proxies and credentials'
            cand resolve 'Show which AWorld plugins activate, in discovery order, and why others do not'
            cand schema 'Print the JSON Schema of a dialect''s manifest'
            cand lsp 'Run a language server that publishes validate''s diagnostics as you type'
            cand completions 'Print shell completions'
            cand man 'Write the manual pages (plugins.1 and one per subcommand) into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'plugins;new'= {
            cand --dialect 'Which host the plugin is for'
            cand --runtime 'The worker''s language (aoe: python, node, rust or none; others: python)'
            cand --id 'Use this id instead of deriving one from NAME'
            cand --description 'A one-line description'
            cand --dir 'Where to write the plugin [default: ./<slug>]'
            cand --ci-from 'The git URL (https or ssh) the CI workflow builds `plugins` from with `cargo install --git`, instead of installing a release; while no published release exists, without it the workflow fails, saying to set PLUGINS_GIT'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --with-tests 'Include tests and a CI workflow that runs them'
            cand -y 'Accept defaults instead of asking (for scripts)'
            cand --yes 'Accept defaults instead of asking (for scripts)'
            cand --list 'List the templates and their variables, then exit'
            cand --json 'Print what was written as JSON'
            cand --no-git 'Skip `git init` (it runs when git is on PATH and DIR is not inside a git work tree)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;validate'= {
            cand -p 'A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]'
            cand --path 'A plugin root, a manifest file, or with --recursive a directory of plugin roots [default: .]'
            cand --dialect 'Validate as this dialect instead of detecting it from the manifest name'
            cand --aoe-api 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)'
            cand --host-version 'Check the manifest''s version requirement (aoe_version) against this host version'
            cand -A 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)'
            cand --allow 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)'
            cand --format 'Output format'
            cand --home 'Plugin home for PLUGIN-IDs [default: $PLUGINS_HOME, else the aoe app dir]'
            cand --stdin-filename 'With --stdin: the manifest''s path, which names its dialect and plugin root in reports'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -r 'Find every plugin root below each --path'
            cand --recursive 'Find every plugin root below each --path'
            cand --strict 'Warnings fail validation too (exit 1)'
            cand --deny-warnings 'Warnings fail validation too (exit 1)'
            cand --featured 'Assert the plugin is featured-verified (allows the aoe.* / agent-of-empires.* namespaces)'
            cand --bundled 'Treat plugins as bundled with their host (AWorld: reserved command names allowed; protoAgent: bundled plugin ids allowed)'
            cand --json 'Same as --format json'
            cand --stdin 'Read the manifest from standard input (an editor''s buffer); needs --stdin-filename'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;search'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --index 'An index of plugins to search too (JSON, docs/schema/index.json): a file, or an https:// URL; repeatable, and added to each home''s `[search] indexes` in plugins.toml'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;install'= {
            cand --ref 'Branch, tag, or full or short commit to install'
            cand --subdir 'The plugin''s directory inside the git repository (a monorepo); also gh:owner/repo/PATH'
            cand --home 'The plugin home [default: $PLUGINS_HOME, else the host''s own]'
            cand --python 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps (remembered) [default: the home''s remembered one, else python3 on PATH]'
            cand --build-timeout 'Seconds each build step may take'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --allowed-signers 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -y 'Grant what the plugin asks for without asking (required without a terminal)'
            cand --yes 'Grant what the plugin asks for without asking (required without a terminal)'
            cand --no-build 'Do not run build steps'
            cand --force 'Replace an install from another source, or reinstall the same commit'
            cand --deps 'protoAgent: install `requires_pip` into <instance>/plugin-deps/<id>, as the host does (pip of --python); updates and syncs keep them matching the plugin'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting'
            cand --json 'Print one JSON document instead of the outcome line'
            cand --strict 'Refuse what would only warn: validation warnings, and a cleartext (http://, git://) source'
            cand --require-signed 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
            cand --no-detect 'Do not run the installed host (`aoe --version`, the host''s Python) to pick the profile when neither a flag nor the home names one: validate as the newest'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;list'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;info'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;homes'= {
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;enable'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;disable'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;remove'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document instead of the outcome line'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;rollback'= {
            cand --to 'The kept version to restore, by commit (a prefix will do) [default: the most recent]'
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document instead of the outcome line'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;bundle'= {
            cand --home 'The plugin home whose lock to bundle [default: $PLUGINS_HOME, else the one host''s own home with a lock]'
            cand -o 'The archive to write: a new file, written atomically beside it (never inside the home)'
            cand --output 'The archive to write: a new file, written atomically beside it (never inside the home)'
            cand --push 'Push the bundle to an OCI registry instead, as an artifact whose unchanged plugins are not uploaded again; prints the digest to sync from'
            cand --python 'protoAgent: the host''s Python, whose pip downloads the locked wheels [default: the home''s remembered one, else python3 on PATH]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --plain-http 'Talk to the registry over plain HTTP (never without this flag)'
            cand --force 'Replace FILE if it is a regular file (a FIFO, device, directory or link never is)'
            cand --json 'Print one JSON document instead of the outcome line'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;hold'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document instead of the outcome line'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;unhold'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document instead of the outcome line'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;verify'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document'
            cand --strict 'A plugin the lock records no hash of is a failure (exit 1)'
            cand --record 'Record the files of each plugin the lock records no hash of, as they are now, as its baseline (in the lock row, under the home lock); plugins with hashes are only verified'
            cand --no-wait 'Fail at once if another plugins process holds the home, instead of waiting (--record)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;sync'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --python 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps [default: the home''s remembered one, else python3 on PATH]'
            cand -j 'How many sources to fetch at once (installs still happen one at a time, in lock order)'
            cand --jobs 'How many sources to fetch at once (installs still happen one at a time, in lock order)'
            cand --from 'With --frozen: install from this archive (`plugins bundle -o`), or from this artifact in an OCI registry (`plugins bundle --push`), instead of the network: every tree and wheel comes from it, checked against the lock'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --allowed-signers 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -y 'Grant what each plugin asks for without asking (required without a terminal)'
            cand --yes 'Grant what each plugin asks for without asking (required without a terminal)'
            cand --force 'Reinstall plugins that are present too'
            cand --repair 'Reinstall present plugins whose files changed since install (as `plugins verify` reports them) from their locked source'
            cand --no-build 'Do not run build steps'
            cand --json 'Print one JSON document instead of the outcome lines'
            cand --frozen 'Install exactly the lock, or change nothing: every plugin at its locked commit with its locked tree hash, release asset sha256 and wheels, all fetched and checked before any is put in place (a plugin whose files changed is reinstalled as locked); anything that would change the lock is an error'
            cand --plain-http 'With --from oci://…: talk to the registry over plain HTTP (never without this flag)'
            cand --require-signed 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;outdated'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand -j 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --jobs 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --timeout 'Seconds to wait for each remote'
            cand --cooldown 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --pre 'Consider pre-release tags (v2.0.0-rc1) newer releases'
            cand --json 'Print one JSON document'
            cand --exit-code 'Exit 3 (instead of 0) when any plugin has a newer version'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;update'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand -j 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --jobs 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --timeout 'Seconds to wait for each remote'
            cand --cooldown 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --allowed-signers 'The allowed signers file ssh signatures are checked against (git''s gpg.ssh.allowedSignersFile) [default: `allowed_signers` in [trust] of <home>/plugins.toml, else git''s own setting]'
            cand --python 'protoAgent: the host''s Python, whose pip installs plugins'' `requires_pip` into plugin-deps [default: the home''s remembered one, else python3 on PATH]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --all 'Update every locked plugin'
            cand --dry-run 'Show what each update would bring (commits, permission changes, consent) without installing'
            cand -y 'Grant changed permissions without asking (required without a terminal)'
            cand --yes 'Grant changed permissions without asking (required without a terminal)'
            cand --pre 'Consider pre-release tags (v2.0.0-rc1) newer releases'
            cand --require-signed 'Accept only a tag or commit with a signature git verifies (ssh or gpg); the lock records the signer''s key, and another key later asks consent again [default: `require_signed` in [trust] of <home>/plugins.toml]'
            cand --json 'Print one JSON document instead of the outcome lines'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;autoupdate'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand --grace 'Seconds after the last activity during which the host counts as busy'
            cand -j 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --jobs 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --timeout 'Seconds to wait for each remote'
            cand --cooldown 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --force 'Sweep even if the last sweep is younger than the interval'
            cand --pre 'Consider pre-release tags (v2.0.0-rc1) newer releases'
            cand --json 'Print one JSON document instead of the text report'
            cand --exit-code 'Exit 3 (instead of 0) when at least one plugin was updated'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;activity'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand touch 'Touch `<home>/activity`: the host was just active'
            cand hold 'Run a command while holding the activity lock (in flight), touching it before and after'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'plugins;activity;touch'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;activity;hold'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home with installed plugins]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;activity;help'= {
            cand touch 'Touch `<home>/activity`: the host was just active'
            cand hold 'Run a command while holding the activity lock (in flight), touching it before and after'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'plugins;activity;help;touch'= {
        }
        &'plugins;activity;help;hold'= {
        }
        &'plugins;activity;help;help'= {
        }
        &'plugins;doctor'= {
            cand --home 'The plugin home [default: $PLUGINS_HOME, else every host''s own home]'
            cand -j 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --jobs 'How many remotes to query at once (at most 30 per git:// server, 4 per ssh server)'
            cand --timeout 'Seconds to wait for each remote'
            cand --cooldown 'Hold back versions younger than this (3d, 72h, 1d12h, 90m; 0: none) [default: `cooldown` in <home>/plugins.toml, else none]'
            cand --aoe-api 'aoe host profile to validate against: 15 (aoe 1.19) or 12 (aoe 1.14) [default: the home''s remembered profile, else 15]'
            cand --host-version 'The host''s version (aoe: X.Y.Z for aoe_version; protoAgent: for min_protoagent_version and its 0.145/0.218 rules) [default: the home''s remembered one]'
            cand --grace 'Seconds after the last activity during which the host counts as busy'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --pre 'Consider pre-release tags (v2.0.0-rc1) newer releases'
            cand --offline 'Skip the remotes and the GitHub API: local checks only'
            cand --json 'Print one JSON document'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;resolve'= {
            cand -p 'A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]'
            cand --path 'A plugin root, or a directory whose subdirectories are plugin roots (repeatable) [default: .]'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --json 'Print one JSON document instead of a table'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;schema'= {
            cand --aoe-api 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;lsp'= {
            cand --aoe-api 'aoe host profile: 15 (aoe 1.19) or 12 (aoe 1.14)'
            cand -A 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)'
            cand --allow 'Drop warnings with this code, e.g. plugins::aoe::version_not_semver (repeatable)'
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand --strict 'Report warnings as errors, as `validate --strict` does'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;completions'= {
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;man'= {
            cand --color 'When to use color: auto honours NO_COLOR and whether output is a terminal'
            cand --log-format 'Status lines and errors on stderr as text, or one JSON object per line with an RFC 3339 timestamp (for logs)'
            cand -q 'Print only problems: no status lines, no progress, no summary of what went well'
            cand --quiet 'Print only problems: no status lines, no progress, no summary of what went well'
            cand -v 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --verbose 'Show the git and HTTP steps on stderr: each URL with its proxy and credential source, ref listings, fetches, downloads, redirects (secrets redacted)'
            cand --timestamps 'Text logs: start each status line, warning and error on stderr (and autoupdate''s report lines) with an RFC 3339 timestamp, one line each. autoupdate does so whenever stderr is not a terminal'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'plugins;help'= {
            cand new 'Scaffold a plugin for any dialect from the built-in templates'
            cand validate 'Check plugin manifests exactly as the host does, plus lints'
            cand search 'Find plugins in the featured index and the installed homes, with the install command'
            cand install 'Install a plugin from git or a local directory, pinned in the lock'
            cand list 'List installed plugins'
            cand info 'Show one installed plugin'
            cand homes 'Show where each host keeps its plugins, lock and config'
            cand enable 'Turn an installed plugin on where its host reads it'
            cand disable 'Turn an installed plugin off where its host reads it'
            cand remove 'Remove an installed plugin and its lock entry'
            cand rollback 'Put back a version an update replaced (the last two are kept), and hold it'
            cand bundle 'Write one archive of everything a home''s lock pins, for `sync --frozen --from`'
            cand hold 'Hold a plugin at its version: `update --all` and `autoupdate` skip it'
            cand unhold 'Lift a plugin''s hold: updates take it again'
            cand verify 'Check installed plugins against the hashes in the lock'
            cand sync 'Install what the lock says, at the locked commits'
            cand outdated 'Show what is pinned and what is newer (reads remote refs only)'
            cand update 'Update plugins to their newer commits'
            cand autoupdate 'One auto-update sweep under each home''s policy, <home>/plugins.toml (for cron)'
            cand activity 'Mark a home busy so auto-update waits (touch, or hold while a command runs)'
            cand doctor 'Check homes, locks, leftovers, hosts, sources, proxies and credentials'
            cand resolve 'Show which AWorld plugins activate, in discovery order, and why others do not'
            cand schema 'Print the JSON Schema of a dialect''s manifest'
            cand lsp 'Run a language server that publishes validate''s diagnostics as you type'
            cand completions 'Print shell completions'
            cand man 'Write the manual pages (plugins.1 and one per subcommand) into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'plugins;help;new'= {
        }
        &'plugins;help;validate'= {
        }
        &'plugins;help;search'= {
        }
        &'plugins;help;install'= {
        }
        &'plugins;help;list'= {
        }
        &'plugins;help;info'= {
        }
        &'plugins;help;homes'= {
        }
        &'plugins;help;enable'= {
        }
        &'plugins;help;disable'= {
        }
        &'plugins;help;remove'= {
        }
        &'plugins;help;rollback'= {
        }
        &'plugins;help;bundle'= {
        }
        &'plugins;help;hold'= {
        }
        &'plugins;help;unhold'= {
        }
        &'plugins;help;verify'= {
        }
        &'plugins;help;sync'= {
        }
        &'plugins;help;outdated'= {
        }
        &'plugins;help;update'= {
        }
        &'plugins;help;autoupdate'= {
        }
        &'plugins;help;activity'= {
            cand touch 'Touch `<home>/activity`: the host was just active'
            cand hold 'Run a command while holding the activity lock (in flight), touching it before and after'
        }
        &'plugins;help;activity;touch'= {
        }
        &'plugins;help;activity;hold'= {
        }
        &'plugins;help;doctor'= {
        }
        &'plugins;help;resolve'= {
        }
        &'plugins;help;schema'= {
        }
        &'plugins;help;lsp'= {
        }
        &'plugins;help;completions'= {
        }
        &'plugins;help;man'= {
        }
        &'plugins;help;help'= {
        }
    ]
    $completions[$command]
}
