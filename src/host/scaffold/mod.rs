//! `plugins new`: plan a plugin from the embedded templates, then write it
//! without ever overwriting a file.
//!
//! A template is layers of `templates/<dialect>/<layer>/`: `common`, then the
//! runtime (`python`, `node`, `rust`, `none`), then `<runtime>.tests` with
//! `--with-tests`. `{{var}}` in paths and contents is replaced by the variables.

use std::path::PathBuf;

use crate::dialect::Dialect;
use crate::host::aoe::manifest::profile::BUILTIN_IDS;
use crate::host::aoe::manifest::rules::{id_problem, is_reserved_namespace};
use crate::host::protoagent::manifest::{
    Profile as ProtoProfile, RESERVED_IDS_0218, builtin_message, id_grammar_ok, is_bundled,
};

mod write;
pub use write::{GitInit, GitInitError, Kept, WriteError, Written, git_init, write};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// The manifest's JSON Schema, written into every new plugin's root so editors
/// validate as the author types: the aoe manifest's `#:schema` directive
/// (taplo, Even Better TOML), protoAgent's `yaml-language-server` modeline and
/// AWorld's `"$schema"` key point at it by a relative path.
pub const SCHEMA_FILE: &str = ".plugins-schema.json";

/// What `plugins schema <dialect>` prints (aoe: the default host profile).
pub fn schema_text(dialect: Dialect) -> String {
    let value = crate::host::schema(dialect, &crate::host::HostOptions::default());
    let mut text = serde_json::to_string_pretty(&value).expect("schema serializes");
    text.push('\n');
    text
}

/// The worker language of the generated plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Runtime {
    Python,
    Node,
    Rust,
    /// No worker: a static, metadata-only plugin (aoe only)
    None,
}

impl Runtime {
    pub fn as_str(self) -> &'static str {
        match self {
            Runtime::Python => "python",
            Runtime::Node => "node",
            Runtime::Rust => "rust",
            Runtime::None => "none",
        }
    }

    /// The runtimes a dialect supports; the first is the default.
    pub fn supported(dialect: Dialect) -> &'static [Runtime] {
        match dialect {
            Dialect::Aoe => &[Runtime::Python, Runtime::Node, Runtime::Rust, Runtime::None],
            Dialect::Aworld | Dialect::Protoagent => &[Runtime::Python],
        }
    }
}

/// The template variables, with what each holds.
pub const VARIABLES: &[(&str, &str)] = &[
    ("name", "display name, as given"),
    (
        "id",
        "plugin id (aoe: dotted namespace.slug; others: the slug), or --id",
    ),
    (
        "slug",
        "kebab-case name, for directories, packages and binaries",
    ),
    (
        "module",
        "the slug with `_` for `-`, for Python modules and Rust crates",
    ),
    ("description", "one line, --description or a default"),
    (
        "plugins_release",
        "the GitHub release the CI workflow downloads `plugins` from (this version's; empty with --ci-from, or while none is published)",
    ),
    (
        "plugins_git",
        "the git URL the CI workflow builds `plugins` from without a release (--ci-from, else Cargo.toml's repository, else empty)",
    ),
];

/// What `plugins new` was asked for.
#[derive(Clone, Debug)]
pub struct NewOptions {
    pub dialect: Dialect,
    pub runtime: Runtime,
    pub name: String,
    pub id: Option<String>,
    pub description: Option<String>,
    pub with_tests: bool,
    /// The git URL the generated workflow installs `plugins` from (`--ci-from`).
    pub ci_from: Option<String>,
}

/// Why a plugin cannot be generated as asked.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    /// Install's code where install would refuse the same (`plugins::install::builtin`);
    /// `None` for `plugins new`'s own.
    pub code: Option<crate::diagnostic::Code>,
    pub message: String,
    /// A valid alternative to suggest.
    pub help: Option<String>,
}

fn refuse(message: impl Into<String>, help: impl Into<Option<String>>) -> Refusal {
    Refusal {
        code: None,
        message: message.into(),
        help: help.into(),
    }
}

/// Check a `--ci-from` URL: an https or ssh git URL (`https://host/path`,
/// `ssh://[user@]host/path` or `user@host:path`) with nothing the workflow's YAML or
/// shell would read specially.
pub fn check_git_url(url: &str) -> Result<(), Refusal> {
    let help = || {
        Some(
            "pass an https or ssh git URL (https://host/path, ssh://host/path or user@host:path)"
                .to_owned(),
        )
    };
    if let Some(c) = url
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-._~:/@%+".contains(*c)))
    {
        return Err(refuse(
            format!("the --ci-from URL {url:?} contains {c:?}"),
            help(),
        ));
    }
    let host_and_path = |rest: &str, sep: char| {
        rest.split_once(sep)
            .is_some_and(|(host, path)| !host.is_empty() && !path.trim_matches('/').is_empty())
    };
    let ok = if let Some(rest) = url.strip_prefix("https://") {
        host_and_path(rest, '/')
    } else if let Some(rest) = url.strip_prefix("ssh://") {
        let rest = rest.split_once('@').map_or(rest, |(_, r)| r);
        host_and_path(rest, '/')
    } else if let Some((user, rest)) = url.split_once('@') {
        !user.is_empty()
            && !user.starts_with('-')
            && !user.contains('/')
            && !rest.contains("//")
            && host_and_path(rest, ':')
    } else {
        false
    };
    if ok {
        Ok(())
    } else {
        Err(refuse(
            format!("the --ci-from URL {url:?} is not an https or ssh git URL"),
            help(),
        ))
    }
}

/// The release the written CI workflow installs: this version's, unless `--ci-from` asks
/// for a source build (empty while no published release exists).
fn ci_release(ci_from: Option<&str>) -> String {
    match ci_from {
        Some(_) => String::new(),
        None => crate::upstream::release_download().unwrap_or_default(),
    }
}

/// The git repository the written CI workflow builds from when it has no release.
fn ci_git(ci_from: Option<&str>) -> String {
    ci_from
        .or(crate::upstream::repository())
        .unwrap_or_default()
        .to_owned()
}

/// A generated plugin, not yet on disk.
#[derive(Debug)]
pub struct Plan {
    pub id: String,
    pub slug: String,
    pub vars: Vec<(&'static str, String)>,
    /// (path relative to the plugin root, contents), sorted.
    pub files: Vec<(PathBuf, String)>,
}

/// protoAgent's `slug()`: lowercase, runs of anything but `[a-z0-9-]` become `-`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

/// The id for `name` in `dialect`, or a refusal proposing a valid one.
pub fn derive_id(dialect: Dialect, name: &str, explicit: Option<&str>) -> Result<String, Refusal> {
    let s = slug(name);
    match dialect {
        Dialect::Aoe => {
            let proposal = format!(
                "dev.example.{}",
                if s.starts_with(|c: char| c.is_ascii_lowercase()) {
                    s.clone()
                } else {
                    format!("plugin-{s}")
                }
            );
            let id = explicit.map_or_else(
                || {
                    if s.is_empty() {
                        String::new()
                    } else {
                        format!("dev.example.{s}")
                    }
                },
                str::to_owned,
            );
            if let Some(why) = id_problem(&id) {
                return Err(refuse(
                    format!("invalid plugin id {id:?}: {why}"),
                    format!("try `--id {}`", proposal.trim_end_matches('.')),
                ));
            }
            if is_reserved_namespace(&id) || BUILTIN_IDS.contains(&id.as_str()) {
                return Err(refuse(
                    format!(
                        "plugin id {id:?} is reserved: aoe.* and agent-of-empires.* belong to featured plugins"
                    ),
                    format!("try `--id {proposal}`"),
                ));
            }
            Ok(id)
        }
        Dialect::Aworld | Dialect::Protoagent => {
            let id = explicit.map_or_else(|| s.clone(), str::to_owned);
            let proposal = if s.is_empty() {
                "my-plugin".to_owned()
            } else {
                format!("{s}-plugin")
            };
            // The newest protoAgent (0.218) is the one a new plugin is for.
            if matches!(dialect, Dialect::Protoagent)
                && RESERVED_IDS_0218.contains(&id.to_lowercase().as_str())
            {
                return Err(refuse(
                    format!(
                        "plugin id {id:?} is reserved: it would shadow a core /api/plugins/ route"
                    ),
                    format!("try `--id {proposal}`"),
                ));
            }
            if matches!(dialect, Dialect::Protoagent) && is_bundled(&id, ProtoProfile::V0218) {
                return Err(Refusal {
                    code: Some(crate::diagnostic::Code::InstallBuiltin),
                    ..refuse(
                        builtin_message(&id),
                        format!(
                            "protoAgent 0.218 ships a plugin with this id and its installer refuses to install over it; try `--id {proposal}`"
                        ),
                    )
                });
            }
            if !id_grammar_ok(&id) {
                return Err(refuse(
                    format!(
                        "invalid plugin id {id:?}: use letters, digits, `-` and `_`, starting with a letter or digit"
                    ),
                    format!("try `--id {proposal}`"),
                ));
            }
            Ok(id)
        }
    }
}

/// The name's and id's checks, which need no runtime: the id, or why not.
pub fn check_identity(dialect: Dialect, name: &str, id: Option<&str>) -> Result<String, Refusal> {
    check_text("name", name)?;
    derive_id(dialect, name, id)
}

/// Text that goes verbatim into TOML, JSON, YAML, Python and Rust strings.
fn check_text(what: &str, text: &str) -> Result<(), Refusal> {
    match text
        .chars()
        .find(|c| matches!(c, '"' | '\\' | '{' | '}') || c.is_control())
    {
        Some(c) => Err(refuse(
            format!("the {what} {text:?} contains {c:?}, which the templates cannot quote"),
            "use letters, digits, spaces and simple punctuation".to_owned(),
        )),
        None if text.trim().is_empty() => {
            Err(refuse(format!("the {what} must not be empty"), None))
        }
        None => Ok(()),
    }
}

fn render(text: &str, vars: &[(&str, String)]) -> String {
    let mut out = text.to_owned();
    for (k, v) in vars {
        out = out.replace(&format!("{{{{{k}}}}}"), v);
    }
    out
}

/// The templates that exist: (dialect, runtime) pairs.
pub fn available() -> Vec<(Dialect, Runtime)> {
    crate::dialect::ALL
        .into_iter()
        .flat_map(|d| Runtime::supported(d).iter().map(move |r| (d, *r)))
        .collect()
}

/// Plan the files for `opts`.
pub fn plan(opts: &NewOptions) -> Result<Plan, Refusal> {
    if !Runtime::supported(opts.dialect).contains(&opts.runtime) {
        let list: Vec<&str> = Runtime::supported(opts.dialect)
            .iter()
            .map(|r| r.as_str())
            .collect();
        return Err(refuse(
            format!(
                "{} plugins have no `{}` runtime",
                opts.dialect,
                opts.runtime.as_str()
            ),
            format!("choose one of: {}", list.join(", ")),
        ));
    }
    let id = check_identity(opts.dialect, &opts.name, opts.id.as_deref())?;
    let slug = match slug(&opts.name) {
        s if s.is_empty() || !s.starts_with(|c: char| c.is_ascii_lowercase()) => {
            format!("plugin-{s}").trim_end_matches('-').to_owned()
        }
        s => s,
    };
    let description = opts
        .description
        .clone()
        .unwrap_or_else(|| match opts.dialect {
            Dialect::Aoe => "An Agent of Empires plugin.".to_owned(),
            Dialect::Aworld => "An AWorld plugin.".to_owned(),
            Dialect::Protoagent => "A protoAgent plugin.".to_owned(),
        });
    check_text("description", &description)?;
    if let Some(url) = &opts.ci_from {
        check_git_url(url)?;
    }
    let vars = vec![
        ("name", opts.name.trim().to_owned()),
        ("id", id.clone()),
        ("module", slug.replace('-', "_")),
        ("slug", slug.clone()),
        ("description", description),
        ("plugins_release", ci_release(opts.ci_from.as_deref())),
        ("plugins_git", ci_git(opts.ci_from.as_deref())),
    ];
    let runtime = opts.runtime.as_str();
    let mut layers = vec!["common".to_owned(), runtime.to_owned()];
    if opts.with_tests {
        layers.push(format!("{runtime}.tests"));
    }
    let prefix = format!("{}/", opts.dialect);
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for layer in &layers {
        let layer_prefix = format!("{prefix}{layer}/");
        for (path, contents) in embedded::FILES {
            if let Some(rel) = path.strip_prefix(&layer_prefix) {
                files.push((PathBuf::from(render(rel, &vars)), render(contents, &vars)));
            }
        }
    }
    files.push((PathBuf::from(SCHEMA_FILE), schema_text(opts.dialect)));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Plan {
        id,
        slug,
        vars,
        files,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::write::missing_patterns;
    use super::*;

    #[test]
    fn slugs_like_protoagent() {
        assert_eq!(slug("My Plugin"), "my-plugin");
        assert_eq!(slug("  Hello__World!! "), "hello-world");
        assert_eq!(slug("日本"), "");
    }

    #[test]
    fn ids_per_dialect() {
        assert_eq!(
            derive_id(Dialect::Aoe, "My Plugin", None),
            Ok("dev.example.my-plugin".into())
        );
        assert_eq!(
            derive_id(Dialect::Protoagent, "My Plugin", None),
            Ok("my-plugin".into())
        );
        let r = derive_id(Dialect::Aoe, "2 Fast", None).unwrap_err();
        assert_eq!(
            r.help.as_deref(),
            Some("try `--id dev.example.plugin-2-fast`")
        );
        assert_eq!(
            derive_id(Dialect::Aoe, "x", Some("dev.example.plugin-2-fast")),
            Ok("dev.example.plugin-2-fast".into())
        );
        let r = derive_id(Dialect::Aoe, "Web", Some("aoe.web")).unwrap_err();
        assert!(r.message.contains("reserved"), "{}", r.message);
        let r = derive_id(Dialect::Protoagent, "Sync", None).unwrap_err();
        assert_eq!(r.help.as_deref(), Some("try `--id sync-plugin`"));
        assert!(derive_id(Dialect::Protoagent, "日本", None).is_err());
    }

    #[test]
    fn every_manifest_points_editors_at_the_schema_file() {
        for (dialect, runtime) in available() {
            let opts = NewOptions {
                dialect,
                runtime,
                name: "Demo".to_owned(),
                id: None,
                description: None,
                ci_from: None,
                with_tests: false,
            };
            let plan = plan(&opts).expect("plans");
            let text = |p: &str| {
                plan.files
                    .iter()
                    .find(|(path, _)| path == Path::new(p))
                    .map(|(_, t)| t.clone())
                    .unwrap_or_else(|| panic!("{dialect}/{runtime:?}: no {p}"))
            };
            assert_eq!(text(SCHEMA_FILE), schema_text(dialect));
            let (manifest, directive) = match dialect {
                Dialect::Aoe => ("aoe-plugin.toml", "#:schema ./.plugins-schema.json\n"),
                Dialect::Aworld => (
                    ".aworld-plugin/plugin.json",
                    "{\n  \"$schema\": \"../.plugins-schema.json\",\n",
                ),
                Dialect::Protoagent => (
                    "protoagent.plugin.yaml",
                    "# yaml-language-server: $schema=./.plugins-schema.json\n",
                ),
            };
            assert!(
                text(manifest).starts_with(directive),
                "{dialect}/{runtime:?}"
            );
        }
    }

    #[test]
    fn every_template_variable_is_known() {
        let known: Vec<String> = VARIABLES
            .iter()
            .map(|(k, _)| format!("{{{{{k}}}}}"))
            .collect();
        for (path, contents) in embedded::FILES {
            for text in [*path, *contents] {
                let mut rest = text;
                while let Some(i) = rest.find("{{") {
                    let tail = &rest[i..];
                    let end = tail.find("}}").map_or(tail.len(), |e| e + 2);
                    let token = &tail[..end];
                    let is_var = token[2..token.len().saturating_sub(2)]
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_');
                    assert!(
                        !is_var || known.iter().any(|k| k == token),
                        "{path}: unknown variable {token}"
                    );
                    rest = &tail[2..];
                }
            }
        }
    }

    #[test]
    fn ci_from_urls() {
        for ok in [
            "https://github.com/acme/plugins.git",
            "https://git.example.com:8443/tools/plugins",
            "ssh://git@github.com/acme/plugins.git",
            "git@github.com:acme/plugins.git",
        ] {
            assert_eq!(check_git_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "http://github.com/acme/plugins",
            "file:///srv/plugins",
            "github.com/acme/plugins",
            "https://github.com",
            "https://github.com/acme/plugins\"; rm -rf /",
            "https://x/${{ github.token }}",
            "git@github.com:",
            "-u@host:path",
            "",
        ] {
            assert!(check_git_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_gitignore_patterns() {
        assert_eq!(
            missing_patterns("# build\n.aoe-build/\ntarget/\n", "target/\n*.log\n"),
            [".aoe-build/"]
        );
    }

    #[test]
    fn unquotable_names_are_refused() {
        let opts = NewOptions {
            dialect: Dialect::Aoe,
            runtime: Runtime::Python,
            name: "Bad \"name\"".into(),
            id: None,
            description: None,
            ci_from: None,
            with_tests: false,
        };
        assert!(plan(&opts).unwrap_err().message.contains("cannot quote"));
    }
}
