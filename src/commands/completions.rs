//! `plugins completions`: shell completion scripts.

use clap::Args;
use clap_complete::Shell;

use super::ExitStatus;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::printer::Printer;

/// Print a completion script for a shell.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  plugins completions bash > ~/.local/share/bash-completion/completions/plugins
  plugins completions zsh > ~/.zfunc/_plugins
  plugins completions fish > ~/.config/fish/completions/plugins.fish")]
pub struct CompletionsArgs {
    /// The shell to generate for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// What the completion scripts ask `plugins __complete` for.
#[derive(Debug, Args)]
pub struct CompleteArgs {
    #[arg(value_enum)]
    pub what: Completable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Completable {
    /// The ids installed in every home `plugins list` reads
    Ids,
}

/// The subcommands whose plugin-id arguments complete to installed ids.
const TAKE_IDS: [&str; 10] = [
    "info", "enable", "disable", "remove", "rollback", "hold", "unhold", "verify", "update",
    "validate",
];

/// The completion script for `shell`: clap's, taught to complete installed plugin ids (from
/// `plugins __complete ids`) where a command takes one.
pub fn script(shell: Shell, mut cmd: clap::Command) -> String {
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "plugins", &mut buf);
    let script = String::from_utf8(buf).expect("completion scripts are UTF-8");
    match shell {
        Shell::Bash => bash_codes(&bash_ids(&script)),
        Shell::Zsh => zsh_codes(&zsh_ids(&script)),
        Shell::Fish => fish_ids(script),
        _ => script,
    }
}

/// After each id-taking command's `opts=` line, put the ids first unless an option is being
/// typed.
fn bash_ids(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut pending = false;
    for line in script.split_inclusive('\n') {
        out.push_str(line);
        let trimmed = line.trim();
        if let Some(cmd) = trimmed
            .strip_prefix("plugins__subcmd__")
            .and_then(|r| r.strip_suffix(')'))
        {
            pending = TAKE_IDS.contains(&cmd);
        } else if pending && trimmed.starts_with("opts=") {
            out.push_str(
                "            [[ ${cur} == -* ]] || opts=\"$(plugins __complete ids 2>/dev/null) ${opts}\"\n",
            );
            pending = false;
        }
    }
    out
}

/// bash splits the word being completed at `:` (`COMP_WORDBREAKS`), so clap's own
/// `--allow` rule never sees `-A plugins::aoe::ver` as one word: complete the whole code from
/// the line, then drop the part bash already treats as typed.
fn bash_codes(script: &str) -> String {
    let codes: Vec<&str> = warning_codes().collect();
    let block = format!(
        r#"    local line="${{COMP_LINE:0:COMP_POINT}}"
    if [[ $line =~ (^|[[:space:]])(-A|--allow)(=|[[:space:]]+)([^[:space:]=]*)$ ]]; then
        local word="${{BASH_REMATCH[4]}}"
        local typed="${{word%"${{word##*:}}"}}"
        COMPREPLY=($(compgen -W "{}" -- "$word"))
        COMPREPLY=("${{COMPREPLY[@]#"$typed"}}")
        return 0
    fi
"#,
        codes.join(" ")
    );
    match script.find("_plugins() {\n") {
        Some(at) => {
            let at = at + "_plugins() {\n".len();
            format!("{}{block}{}", &script[..at], &script[at..])
        }
        None => script.to_owned(),
    }
}

/// zsh takes the `\\:` clap writes inside a `((value\\:description))` action for the
/// separator, so `plugins::aoe::x` would complete as `plugins`: `--allow`'s action becomes
/// `_plugins_codes`, defined before the script's last block.
fn zsh_codes(script: &str) -> String {
    let mut out = String::with_capacity(script.len());
    let mut rest = script;
    while let Some(at) = rest.find(":CODE:((") {
        out.push_str(&rest[..at]);
        out.push_str(":CODE:_plugins_codes'");
        rest = &rest[at..];
        match rest.find("))'") {
            Some(end) => rest = &rest[end + "))'".len()..],
            None => return script.to_owned(),
        }
    }
    out.push_str(rest);
    let codes: Vec<&str> = warning_codes().collect();
    let helper = format!(
        "(( $+functions[_plugins_codes] )) ||\n_plugins_codes() {{\n    local -a codes\n    \
         codes=({})\n    compadd -a codes\n}}\n\n",
        codes.join(" ")
    );
    let at = out
        .rfind("if [ \"$funcstack[1]\" = \"_plugins\" ]")
        .unwrap_or(out.len());
    out.insert_str(at, &helper);
    out
}

/// The codes `--allow` can drop: every warning code.
fn warning_codes() -> impl Iterator<Item = &'static str> {
    crate::diagnostic::Code::ALL
        .iter()
        .filter(|c| c.default_severity() == crate::diagnostic::Severity::Warning)
        .map(|c| c.as_str())
}

/// The id arguments' action becomes `_plugins_ids`, defined before the script's last block.
fn zsh_ids(script: &str) -> String {
    let mut out = script
        .replace(
            ":id -- The plugin id:_default'",
            ":id -- The plugin id:_plugins_ids'",
        )
        .replace(
            "::id -- Only this plugin:_default'",
            "::id -- Only this plugin:_plugins_ids'",
        )
        .replace(
            "::ids -- Plugins to update:_default'",
            "::ids -- Plugins to update:_plugins_ids'",
        )
        // `validate` takes ids and manifest paths alike.
        .replace(
            "(so pre-commit can pass file names):_default'",
            "(so pre-commit can pass file names):{_plugins_ids; _files}'",
        );
    let helper = "(( $+functions[_plugins_ids] )) ||\n_plugins_ids() {\n    local -a ids\n    \
                  ids=(${(f)\"$(plugins __complete ids 2>/dev/null)\"})\n    \
                  compadd -a ids\n}\n\n";
    let at = out
        .rfind("if [ \"$funcstack[1]\" = \"_plugins\" ]")
        .unwrap_or(out.len());
    out.insert_str(at, helper);
    out
}

/// One more rule per id-taking command.
fn fish_ids(mut script: String) -> String {
    for cmd in TAKE_IDS {
        // `validate` takes manifest paths too: files stay offered.
        let no_files = if cmd == "validate" { "" } else { " -f" };
        script.push_str(&format!(
            "complete -c plugins -n \"__fish_plugins_using_subcommand {cmd}\"{no_files} -a \"(plugins __complete ids 2>/dev/null)\"\n"
        ));
    }
    script
}

/// `plugins __complete ids`: one installed id a line; a home that cannot be read adds nothing.
pub fn run_complete(args: &CompleteArgs, cx: &Context, printer: &Printer) -> Result<ExitStatus> {
    let mut ids = Vec::new();
    match args.what {
        Completable::Ids => {
            for home in cx.homes(None).unwrap_or_default() {
                if let Ok(lock) = home.load_lock() {
                    ids.extend(lock.entries().into_iter().map(|e| e.id));
                }
            }
        }
    }
    ids.sort();
    ids.dedup();
    let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
    let _ = printer.out(&text);
    Ok(ExitStatus::Success)
}

pub fn run(args: &CompletionsArgs, cli: clap::Command, printer: &Printer) -> Result<ExitStatus> {
    printer
        .out(&script(args.shell, cli))
        .map_err(|e| Error::io("cannot write output", e))?;
    Ok(ExitStatus::Success)
}
