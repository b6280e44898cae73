_plugins() {
    local line="${COMP_LINE:0:COMP_POINT}"
    if [[ $line =~ (^|[[:space:]])(-A|--allow)(=|[[:space:]]+)([^[:space:]=]*)$ ]]; then
        local word="${BASH_REMATCH[4]}"
        local typed="${word%"${word##*:}"}"
        COMPREPLY=($(compgen -W "plugins::aoe::unknown_capability plugins::aoe::reserved_namespace plugins::aoe::builtin_id plugins::aoe::shipped_build_dir plugins::aoe::symlink plugins::aoe::archive_without_bin plugins::aoe::bin_path plugins::aoe::ignored_key plugins::aoe::inert_property plugins::aoe::duplicate plugins::aoe::doc_gate plugins::aoe::version_not_semver plugins::aoe::placeholder_id plugins::aoe::keybind_chord plugins::aoe::theme_name plugins::aoe::theme_path plugins::aoe::entrypoint plugins::aoe::build_program plugins::aoe::asset_template plugins::aoe::missing_file plugins::aoe::schema_disagrees plugins::aworld::schema plugins::aworld::shadowed_name plugins::aworld::hook_point plugins::aworld::hook_priority plugins::aworld::context_phases plugins::aworld::missing_target plugins::aworld::unknown_kind plugins::aworld::id_not_installable plugins::aworld::legacy_undiscovered plugins::protoagent::unknown_key plugins::protoagent::duplicate_key plugins::protoagent::truthy_string plugins::protoagent::ignored_value plugins::protoagent::reserved_section plugins::protoagent::setting plugins::protoagent::view plugins::protoagent::view_origin plugins::protoagent::view_palette plugins::protoagent::public_path plugins::protoagent::core_route plugins::protoagent::federation_path plugins::protoagent::settings_tab plugins::protoagent::settings_tab_apply plugins::protoagent::settings_tab_path plugins::protoagent::setting_tab plugins::protoagent::command plugins::protoagent::command_action plugins::protoagent::command_route plugins::protoagent::command_topic plugins::protoagent::command_chain plugins::protoagent::emits plugins::protoagent::requires_pip plugins::protoagent::requires_runtimes plugins::protoagent::supersedes plugins::protoagent::enables plugins::protoagent::bundled_only plugins::protoagent::pip_spec plugins::protoagent::min_version plugins::protoagent::requires_env plugins::protoagent::relative_plugins_dir plugins::protoagent::entrypoint_escapes plugins::config::unknown_key plugins::config::invalid_value plugins::install::deps_skipped plugins::install::unverifiable plugins::install::runtime_missing plugins::sync::no_source plugins::sync::unlocked_plugin plugins::git::cleartext plugins::doctor::leftover plugins::doctor::cron plugins::doctor::clock_ahead plugins::doctor::step_isolation plugins::doctor::rate_limit" -- "$word"))
        COMPREPLY=("${COMPREPLY[@]#"$typed"}")
        return 0
    fi
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="plugins"
                ;;
            plugins,activity)
                cmd="plugins__subcmd__activity"
                ;;
            plugins,autoupdate)
                cmd="plugins__subcmd__autoupdate"
                ;;
            plugins,bundle)
                cmd="plugins__subcmd__bundle"
                ;;
            plugins,completions)
                cmd="plugins__subcmd__completions"
                ;;
            plugins,disable)
                cmd="plugins__subcmd__disable"
                ;;
            plugins,doctor)
                cmd="plugins__subcmd__doctor"
                ;;
            plugins,enable)
                cmd="plugins__subcmd__enable"
                ;;
            plugins,help)
                cmd="plugins__subcmd__help"
                ;;
            plugins,hold)
                cmd="plugins__subcmd__hold"
                ;;
            plugins,homes)
                cmd="plugins__subcmd__homes"
                ;;
            plugins,info)
                cmd="plugins__subcmd__info"
                ;;
            plugins,install)
                cmd="plugins__subcmd__install"
                ;;
            plugins,list)
                cmd="plugins__subcmd__list"
                ;;
            plugins,lsp)
                cmd="plugins__subcmd__lsp"
                ;;
            plugins,man)
                cmd="plugins__subcmd__man"
                ;;
            plugins,new)
                cmd="plugins__subcmd__new"
                ;;
            plugins,outdated)
                cmd="plugins__subcmd__outdated"
                ;;
            plugins,remove)
                cmd="plugins__subcmd__remove"
                ;;
            plugins,resolve)
                cmd="plugins__subcmd__resolve"
                ;;
            plugins,rollback)
                cmd="plugins__subcmd__rollback"
                ;;
            plugins,schema)
                cmd="plugins__subcmd__schema"
                ;;
            plugins,search)
                cmd="plugins__subcmd__search"
                ;;
            plugins,sync)
                cmd="plugins__subcmd__sync"
                ;;
            plugins,unhold)
                cmd="plugins__subcmd__unhold"
                ;;
            plugins,update)
                cmd="plugins__subcmd__update"
                ;;
            plugins,validate)
                cmd="plugins__subcmd__validate"
                ;;
            plugins,verify)
                cmd="plugins__subcmd__verify"
                ;;
            plugins__subcmd__activity,help)
                cmd="plugins__subcmd__activity__subcmd__help"
                ;;
            plugins__subcmd__activity,hold)
                cmd="plugins__subcmd__activity__subcmd__hold"
                ;;
            plugins__subcmd__activity,touch)
                cmd="plugins__subcmd__activity__subcmd__touch"
                ;;
            plugins__subcmd__activity__subcmd__help,help)
                cmd="plugins__subcmd__activity__subcmd__help__subcmd__help"
                ;;
            plugins__subcmd__activity__subcmd__help,hold)
                cmd="plugins__subcmd__activity__subcmd__help__subcmd__hold"
                ;;
            plugins__subcmd__activity__subcmd__help,touch)
                cmd="plugins__subcmd__activity__subcmd__help__subcmd__touch"
                ;;
            plugins__subcmd__help,activity)
                cmd="plugins__subcmd__help__subcmd__activity"
                ;;
            plugins__subcmd__help,autoupdate)
                cmd="plugins__subcmd__help__subcmd__autoupdate"
                ;;
            plugins__subcmd__help,bundle)
                cmd="plugins__subcmd__help__subcmd__bundle"
                ;;
            plugins__subcmd__help,completions)
                cmd="plugins__subcmd__help__subcmd__completions"
                ;;
            plugins__subcmd__help,disable)
                cmd="plugins__subcmd__help__subcmd__disable"
                ;;
            plugins__subcmd__help,doctor)
                cmd="plugins__subcmd__help__subcmd__doctor"
                ;;
            plugins__subcmd__help,enable)
                cmd="plugins__subcmd__help__subcmd__enable"
                ;;
            plugins__subcmd__help,help)
                cmd="plugins__subcmd__help__subcmd__help"
                ;;
            plugins__subcmd__help,hold)
                cmd="plugins__subcmd__help__subcmd__hold"
                ;;
            plugins__subcmd__help,homes)
                cmd="plugins__subcmd__help__subcmd__homes"
                ;;
            plugins__subcmd__help,info)
                cmd="plugins__subcmd__help__subcmd__info"
                ;;
            plugins__subcmd__help,install)
                cmd="plugins__subcmd__help__subcmd__install"
                ;;
            plugins__subcmd__help,list)
                cmd="plugins__subcmd__help__subcmd__list"
                ;;
            plugins__subcmd__help,lsp)
                cmd="plugins__subcmd__help__subcmd__lsp"
                ;;
            plugins__subcmd__help,man)
                cmd="plugins__subcmd__help__subcmd__man"
                ;;
            plugins__subcmd__help,new)
                cmd="plugins__subcmd__help__subcmd__new"
                ;;
            plugins__subcmd__help,outdated)
                cmd="plugins__subcmd__help__subcmd__outdated"
                ;;
            plugins__subcmd__help,remove)
                cmd="plugins__subcmd__help__subcmd__remove"
                ;;
            plugins__subcmd__help,resolve)
                cmd="plugins__subcmd__help__subcmd__resolve"
                ;;
            plugins__subcmd__help,rollback)
                cmd="plugins__subcmd__help__subcmd__rollback"
                ;;
            plugins__subcmd__help,schema)
                cmd="plugins__subcmd__help__subcmd__schema"
                ;;
            plugins__subcmd__help,search)
                cmd="plugins__subcmd__help__subcmd__search"
                ;;
            plugins__subcmd__help,sync)
                cmd="plugins__subcmd__help__subcmd__sync"
                ;;
            plugins__subcmd__help,unhold)
                cmd="plugins__subcmd__help__subcmd__unhold"
                ;;
            plugins__subcmd__help,update)
                cmd="plugins__subcmd__help__subcmd__update"
                ;;
            plugins__subcmd__help,validate)
                cmd="plugins__subcmd__help__subcmd__validate"
                ;;
            plugins__subcmd__help,verify)
                cmd="plugins__subcmd__help__subcmd__verify"
                ;;
            plugins__subcmd__help__subcmd__activity,hold)
                cmd="plugins__subcmd__help__subcmd__activity__subcmd__hold"
                ;;
            plugins__subcmd__help__subcmd__activity,touch)
                cmd="plugins__subcmd__help__subcmd__activity__subcmd__touch"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        plugins)
            opts="-q -v -h -V --color --quiet --verbose --log-format --timestamps --help --version new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity)
            opts="-q -v -h -V --home --color --quiet --verbose --log-format --timestamps --help --version touch hold help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__help)
            opts="touch hold help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__help__subcmd__hold)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__help__subcmd__touch)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__hold)
            opts="-q -v -h -V --home --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__activity__subcmd__touch)
            opts="-q -v -h -V --home --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__autoupdate)
            opts="-j -q -v -h -V --home --force --grace --jobs --timeout --pre --cooldown --aoe-api --host-version --json --exit-code --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cooldown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__bundle)
            opts="-o -q -v -h -V --home --output --push --plain-http --force --python --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --push)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --python)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__completions)
            opts="-q -v -h -V --color --quiet --verbose --log-format --timestamps --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__disable)
            opts="-q -v -h -V --home --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__doctor)
            opts="-j -q -v -h -V --home --jobs --timeout --pre --cooldown --aoe-api --host-version --offline --grace --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cooldown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__enable)
            opts="-q -v -h -V --home --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help)
            opts="new validate search install list info homes enable disable remove rollback bundle hold unhold verify sync outdated update autoupdate activity doctor resolve schema lsp completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__activity)
            opts="touch hold"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__activity__subcmd__hold)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__activity__subcmd__touch)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__autoupdate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__bundle)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__disable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__doctor)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__enable)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__hold)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__homes)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__info)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__install)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__lsp)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__new)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__outdated)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__resolve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__rollback)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__schema)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__search)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__sync)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__unhold)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__validate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__help__subcmd__verify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__hold)
            opts="-q -v -h -V --home --json --no-wait --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__homes)
            opts="-q -v -h -V --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__info)
            opts="-q -v -h -V --home --json --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__install)
            opts="-y -q -v -h -V --ref --subdir --home --yes --no-build --force --deps --python --build-timeout --no-wait --json --strict --aoe-api --host-version --require-signed --allowed-signers --no-detect --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --ref)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --subdir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --python)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --build-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --allowed-signers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__list)
            opts="-q -v -h -V --home --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__lsp)
            opts="-A -q -v -h -V --aoe-api --strict --allow --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --allow)
                    COMPREPLY=($(compgen -W "plugins::aoe::unknown_capability plugins::aoe::reserved_namespace plugins::aoe::builtin_id plugins::aoe::shipped_build_dir plugins::aoe::symlink plugins::aoe::archive_without_bin plugins::aoe::bin_path plugins::aoe::ignored_key plugins::aoe::inert_property plugins::aoe::duplicate plugins::aoe::doc_gate plugins::aoe::version_not_semver plugins::aoe::placeholder_id plugins::aoe::keybind_chord plugins::aoe::theme_name plugins::aoe::theme_path plugins::aoe::entrypoint plugins::aoe::build_program plugins::aoe::asset_template plugins::aoe::missing_file plugins::aoe::schema_disagrees plugins::aworld::schema plugins::aworld::shadowed_name plugins::aworld::hook_point plugins::aworld::hook_priority plugins::aworld::context_phases plugins::aworld::missing_target plugins::aworld::unknown_kind plugins::aworld::id_not_installable plugins::aworld::legacy_undiscovered plugins::protoagent::unknown_key plugins::protoagent::duplicate_key plugins::protoagent::truthy_string plugins::protoagent::ignored_value plugins::protoagent::reserved_section plugins::protoagent::setting plugins::protoagent::view plugins::protoagent::view_origin plugins::protoagent::view_palette plugins::protoagent::public_path plugins::protoagent::core_route plugins::protoagent::federation_path plugins::protoagent::settings_tab plugins::protoagent::settings_tab_apply plugins::protoagent::settings_tab_path plugins::protoagent::setting_tab plugins::protoagent::command plugins::protoagent::command_action plugins::protoagent::command_route plugins::protoagent::command_topic plugins::protoagent::command_chain plugins::protoagent::emits plugins::protoagent::requires_pip plugins::protoagent::requires_runtimes plugins::protoagent::supersedes plugins::protoagent::enables plugins::protoagent::bundled_only plugins::protoagent::pip_spec plugins::protoagent::min_version plugins::protoagent::requires_env plugins::protoagent::relative_plugins_dir plugins::protoagent::entrypoint_escapes plugins::config::unknown_key plugins::config::invalid_value plugins::install::deps_skipped plugins::install::unverifiable plugins::install::runtime_missing plugins::sync::no_source plugins::sync::unlocked_plugin plugins::git::cleartext plugins::doctor::leftover plugins::doctor::cron plugins::doctor::clock_ahead plugins::doctor::step_isolation plugins::doctor::rate_limit" -- "${cur}"))
                    return 0
                    ;;
                -A)
                    COMPREPLY=($(compgen -W "plugins::aoe::unknown_capability plugins::aoe::reserved_namespace plugins::aoe::builtin_id plugins::aoe::shipped_build_dir plugins::aoe::symlink plugins::aoe::archive_without_bin plugins::aoe::bin_path plugins::aoe::ignored_key plugins::aoe::inert_property plugins::aoe::duplicate plugins::aoe::doc_gate plugins::aoe::version_not_semver plugins::aoe::placeholder_id plugins::aoe::keybind_chord plugins::aoe::theme_name plugins::aoe::theme_path plugins::aoe::entrypoint plugins::aoe::build_program plugins::aoe::asset_template plugins::aoe::missing_file plugins::aoe::schema_disagrees plugins::aworld::schema plugins::aworld::shadowed_name plugins::aworld::hook_point plugins::aworld::hook_priority plugins::aworld::context_phases plugins::aworld::missing_target plugins::aworld::unknown_kind plugins::aworld::id_not_installable plugins::aworld::legacy_undiscovered plugins::protoagent::unknown_key plugins::protoagent::duplicate_key plugins::protoagent::truthy_string plugins::protoagent::ignored_value plugins::protoagent::reserved_section plugins::protoagent::setting plugins::protoagent::view plugins::protoagent::view_origin plugins::protoagent::view_palette plugins::protoagent::public_path plugins::protoagent::core_route plugins::protoagent::federation_path plugins::protoagent::settings_tab plugins::protoagent::settings_tab_apply plugins::protoagent::settings_tab_path plugins::protoagent::setting_tab plugins::protoagent::command plugins::protoagent::command_action plugins::protoagent::command_route plugins::protoagent::command_topic plugins::protoagent::command_chain plugins::protoagent::emits plugins::protoagent::requires_pip plugins::protoagent::requires_runtimes plugins::protoagent::supersedes plugins::protoagent::enables plugins::protoagent::bundled_only plugins::protoagent::pip_spec plugins::protoagent::min_version plugins::protoagent::requires_env plugins::protoagent::relative_plugins_dir plugins::protoagent::entrypoint_escapes plugins::config::unknown_key plugins::config::invalid_value plugins::install::deps_skipped plugins::install::unverifiable plugins::install::runtime_missing plugins::sync::no_source plugins::sync::unlocked_plugin plugins::git::cleartext plugins::doctor::leftover plugins::doctor::cron plugins::doctor::clock_ahead plugins::doctor::step_isolation plugins::doctor::rate_limit" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__man)
            opts="-q -v -h -V --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__new)
            opts="-y -q -v -h -V --dialect --runtime --id --description --dir --with-tests --ci-from --yes --list --json --no-git --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dialect)
                    COMPREPLY=($(compgen -W "aoe aworld protoagent" -- "${cur}"))
                    return 0
                    ;;
                --runtime)
                    COMPREPLY=($(compgen -W "python node rust none" -- "${cur}"))
                    return 0
                    ;;
                --id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --description)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ci-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__outdated)
            opts="-j -q -v -h -V --home --jobs --timeout --pre --cooldown --aoe-api --host-version --json --exit-code --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cooldown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__remove)
            opts="-q -v -h -V --home --json --no-wait --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__resolve)
            opts="-p -q -v -h -V --path --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -p)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__rollback)
            opts="-q -v -h -V --to --home --json --no-wait --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__schema)
            opts="-q -v -h -V --aoe-api --color --quiet --verbose --log-format --timestamps --help --version aoe aworld protoagent"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__search)
            opts="-q -v -h -V --home --index --json --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --index)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__sync)
            opts="-y -j -q -v -h -V --home --yes --force --repair --no-build --python --jobs --json --frozen --from --plain-http --aoe-api --host-version --require-signed --allowed-signers --color --quiet --verbose --log-format --timestamps --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --python)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --allowed-signers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__unhold)
            opts="-q -v -h -V --home --json --no-wait --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__update)
            opts="-y -j -q -v -h -V --all --dry-run --yes --home --jobs --timeout --pre --cooldown --aoe-api --host-version --require-signed --allowed-signers --json --python --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cooldown)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --allowed-signers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --python)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__validate)
            opts="-p -r -A -q -v -h -V --path --recursive --dialect --aoe-api --host-version --deny-warnings --strict --allow --featured --bundled --format --json --home --stdin --stdin-filename --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --path)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -p)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dialect)
                    COMPREPLY=($(compgen -W "aoe aworld protoagent" -- "${cur}"))
                    return 0
                    ;;
                --aoe-api)
                    COMPREPLY=($(compgen -W "12 15" -- "${cur}"))
                    return 0
                    ;;
                --host-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --allow)
                    COMPREPLY=($(compgen -W "plugins::aoe::unknown_capability plugins::aoe::reserved_namespace plugins::aoe::builtin_id plugins::aoe::shipped_build_dir plugins::aoe::symlink plugins::aoe::archive_without_bin plugins::aoe::bin_path plugins::aoe::ignored_key plugins::aoe::inert_property plugins::aoe::duplicate plugins::aoe::doc_gate plugins::aoe::version_not_semver plugins::aoe::placeholder_id plugins::aoe::keybind_chord plugins::aoe::theme_name plugins::aoe::theme_path plugins::aoe::entrypoint plugins::aoe::build_program plugins::aoe::asset_template plugins::aoe::missing_file plugins::aoe::schema_disagrees plugins::aworld::schema plugins::aworld::shadowed_name plugins::aworld::hook_point plugins::aworld::hook_priority plugins::aworld::context_phases plugins::aworld::missing_target plugins::aworld::unknown_kind plugins::aworld::id_not_installable plugins::aworld::legacy_undiscovered plugins::protoagent::unknown_key plugins::protoagent::duplicate_key plugins::protoagent::truthy_string plugins::protoagent::ignored_value plugins::protoagent::reserved_section plugins::protoagent::setting plugins::protoagent::view plugins::protoagent::view_origin plugins::protoagent::view_palette plugins::protoagent::public_path plugins::protoagent::core_route plugins::protoagent::federation_path plugins::protoagent::settings_tab plugins::protoagent::settings_tab_apply plugins::protoagent::settings_tab_path plugins::protoagent::setting_tab plugins::protoagent::command plugins::protoagent::command_action plugins::protoagent::command_route plugins::protoagent::command_topic plugins::protoagent::command_chain plugins::protoagent::emits plugins::protoagent::requires_pip plugins::protoagent::requires_runtimes plugins::protoagent::supersedes plugins::protoagent::enables plugins::protoagent::bundled_only plugins::protoagent::pip_spec plugins::protoagent::min_version plugins::protoagent::requires_env plugins::protoagent::relative_plugins_dir plugins::protoagent::entrypoint_escapes plugins::config::unknown_key plugins::config::invalid_value plugins::install::deps_skipped plugins::install::unverifiable plugins::install::runtime_missing plugins::sync::no_source plugins::sync::unlocked_plugin plugins::git::cleartext plugins::doctor::leftover plugins::doctor::cron plugins::doctor::clock_ahead plugins::doctor::step_isolation plugins::doctor::rate_limit" -- "${cur}"))
                    return 0
                    ;;
                -A)
                    COMPREPLY=($(compgen -W "plugins::aoe::unknown_capability plugins::aoe::reserved_namespace plugins::aoe::builtin_id plugins::aoe::shipped_build_dir plugins::aoe::symlink plugins::aoe::archive_without_bin plugins::aoe::bin_path plugins::aoe::ignored_key plugins::aoe::inert_property plugins::aoe::duplicate plugins::aoe::doc_gate plugins::aoe::version_not_semver plugins::aoe::placeholder_id plugins::aoe::keybind_chord plugins::aoe::theme_name plugins::aoe::theme_path plugins::aoe::entrypoint plugins::aoe::build_program plugins::aoe::asset_template plugins::aoe::missing_file plugins::aoe::schema_disagrees plugins::aworld::schema plugins::aworld::shadowed_name plugins::aworld::hook_point plugins::aworld::hook_priority plugins::aworld::context_phases plugins::aworld::missing_target plugins::aworld::unknown_kind plugins::aworld::id_not_installable plugins::aworld::legacy_undiscovered plugins::protoagent::unknown_key plugins::protoagent::duplicate_key plugins::protoagent::truthy_string plugins::protoagent::ignored_value plugins::protoagent::reserved_section plugins::protoagent::setting plugins::protoagent::view plugins::protoagent::view_origin plugins::protoagent::view_palette plugins::protoagent::public_path plugins::protoagent::core_route plugins::protoagent::federation_path plugins::protoagent::settings_tab plugins::protoagent::settings_tab_apply plugins::protoagent::settings_tab_path plugins::protoagent::setting_tab plugins::protoagent::command plugins::protoagent::command_action plugins::protoagent::command_route plugins::protoagent::command_topic plugins::protoagent::command_chain plugins::protoagent::emits plugins::protoagent::requires_pip plugins::protoagent::requires_runtimes plugins::protoagent::supersedes plugins::protoagent::enables plugins::protoagent::bundled_only plugins::protoagent::pip_spec plugins::protoagent::min_version plugins::protoagent::requires_env plugins::protoagent::relative_plugins_dir plugins::protoagent::entrypoint_escapes plugins::config::unknown_key plugins::config::invalid_value plugins::install::deps_skipped plugins::install::unverifiable plugins::install::runtime_missing plugins::sync::no_source plugins::sync::unlocked_plugin plugins::git::cleartext plugins::doctor::leftover plugins::doctor::cron plugins::doctor::clock_ahead plugins::doctor::step_isolation plugins::doctor::rate_limit" -- "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "human json github sarif" -- "${cur}"))
                    return 0
                    ;;
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stdin-filename)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        plugins__subcmd__verify)
            opts="-q -v -h -V --home --json --strict --record --no-wait --color --quiet --verbose --log-format --timestamps --help --version"
            [[ ${cur} == -* ]] || opts="$(plugins __complete ids 2>/dev/null) ${opts}"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --home)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _plugins -o nosort -o bashdefault -o default plugins
else
    complete -F _plugins -o bashdefault -o default plugins
fi
