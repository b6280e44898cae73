//! Install sources: `gh:owner/repo[@ref]`, git URLs, and local directories.

use std::path::PathBuf;

/// Where a plugin comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A git remote, with an optional ref (branch, tag or commit). `url` and
    /// `display` never hold userinfo: a URL's `user:password@` is split off into
    /// `userinfo`, used for the transfer only and never recorded or shown.
    Git {
        url: String,
        reference: Option<String>,
        display: String,
        userinfo: Option<crate::auth::Userinfo>,
        /// The plugin's directory inside the repository (a monorepo), checked by
        /// [`subdir_path`]; `None`: the repository root.
        subdir: Option<String>,
    },
    /// A local directory, copied as it is (no git involved).
    Local { path: PathBuf },
}

impl Source {
    /// How the lock records the source (aoe's `gh:owner/repo` slug, else the URL or path).
    pub fn recorded(&self) -> String {
        match self {
            Source::Git { display, .. } => display.clone(),
            Source::Local { path } => path.display().to_string(),
        }
    }

    /// The GitHub owner and repo of a source, if it is on GitHub (or a `gh:` mirror).
    pub fn github_repo(&self) -> Option<(String, String)> {
        let Source::Git { url, display, .. } = self else {
            return None;
        };
        let path = display.strip_prefix("gh:").map(str::to_owned).or_else(|| {
            let rest = url.split_once("github.com/").map(|(_, r)| r)?;
            Some(
                rest.trim_end_matches('/')
                    .trim_end_matches(".git")
                    .to_owned(),
            )
        })?;
        let (owner, repo) = path.split_once('/')?;
        Some((owner.to_owned(), repo.to_owned()))
    }

    /// The source a lock entry was installed from: a local directory when no
    /// commit was locked, `gh:` resolved against `gh_base`, else the URL.
    pub fn of_entry(entry: &crate::lock::Entry, gh_base: &str) -> Result<Source, SourceError> {
        if entry.commit.as_deref().is_none_or(str::is_empty) {
            return Ok(Source::Local {
                path: PathBuf::from(&entry.source),
            });
        }
        let source = Source::of_git_entry(entry, gh_base)?;
        match &entry.subdir {
            Some(s) => source.with_subdir(s),
            None => Ok(source),
        }
    }

    /// Refuse a lock entry whose source an install would refuse before any transfer (a
    /// remote helper such as `ext::`, a leading `-`, a bad subdir), as [`parse`] refuses
    /// it when typed; the host's own fetch URL too, where the entry has one.
    pub fn check_entry(entry: &crate::lock::Entry) -> Result<(), SourceError> {
        if let Source::Git { url, .. } = Source::of_entry(entry, "https://github.com")? {
            crate::git::check_url(&url)?;
        }
        if let Some(host) = entry
            .host_source
            .as_deref()
            .filter(|h| !h.starts_with("gh:"))
        {
            crate::git::check_url(host)?;
        }
        Ok(())
    }

    fn of_git_entry(entry: &crate::lock::Entry, gh_base: &str) -> Result<Source, SourceError> {
        if entry.source.starts_with("gh:") {
            return parse(&entry.source, None, gh_base);
        }
        // A hostile source (`ext::`, a leading `-`) in a hand-edited lock is refused
        // by the transfer, so `outdated` reports it as an error.
        if crate::git::is_ssh(&entry.source) {
            return Ok(Source::Git {
                url: entry.source.clone(),
                display: entry.source.clone(),
                reference: None,
                userinfo: None,
                subdir: None,
            });
        }
        // A lock written by hand or by another tool may hold userinfo: it is
        // used, but not written back.
        let (url, userinfo) = crate::auth::split_userinfo(&entry.source);
        Ok(Source::Git {
            display: url.clone(),
            url,
            reference: None,
            userinfo,
            subdir: None,
        })
    }

    /// The plugin's directory inside a git repository, if not its root.
    pub fn subdir(&self) -> Option<&str> {
        match self {
            Source::Git { subdir, .. } => subdir.as_deref(),
            Source::Local { .. } => None,
        }
    }

    /// `--subdir PATH`: the plugin is that directory of the repository. A local source
    /// names its directory itself; a `gh:owner/repo/path` that says otherwise is refused.
    pub fn with_subdir(self, path: &str) -> Result<Source, SourceError> {
        let wanted = subdir_path(path)?;
        match self {
            Source::Local { .. } => Err(SourceError::SubdirOfLocal),
            Source::Git {
                subdir: Some(s), ..
            } if s != wanted => Err(SourceError::SubdirConflict {
                named: s,
                flag: wanted,
            }),
            Source::Git {
                url,
                reference,
                display,
                userinfo,
                ..
            } => Ok(Source::Git {
                url,
                reference,
                display,
                userinfo,
                subdir: Some(wanted),
            }),
        }
    }

    pub fn reference(&self) -> Option<&str> {
        match self {
            Source::Git { reference, .. } => reference.as_deref(),
            Source::Local { .. } => None,
        }
    }
}

/// A plugin's directory inside a repository, normalized (`plugins/web`): relative, every
/// part a plain name (no `..`, `.`-only, absolute or empty parts, `\\`, control characters).
pub fn subdir_path(s: &str) -> Result<String, SourceError> {
    let bad = || SourceError::Subdir(s.to_owned());
    let trimmed = s.strip_suffix('/').unwrap_or(s);
    // `p//web` and `./web` name the same directory, but the docs promise plain parts only.
    if trimmed
        .split('/')
        .any(|part| part.is_empty() || part == ".")
    {
        return Err(bad());
    }
    let rel = crate::name::relative_path(trimmed).ok_or_else(bad)?;
    Ok(crate::render::display_path(&rel))
}

/// GitHub's user and organization names: 1 to 39 ASCII letters, digits and
/// hyphens, not starting with a hyphen.
fn github_owner(s: &str) -> bool {
    (1..=39).contains(&s.len())
        && !s.starts_with('-')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// GitHub's repository names: 1 to 100 ASCII letters, digits, `-`, `_` and
/// `.`, other than `.` and `..`. Either way one safe path component.
fn github_repo(s: &str) -> bool {
    (1..=100).contains(&s.len())
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Parse a source as given on the command line. `gh_base` is the clone base for
/// `gh:` sources (`https://github.com` unless overridden for tests and mirrors).
pub fn parse(input: &str, flag_ref: Option<&str>, gh_base: &str) -> Result<Source, SourceError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(SourceError::Empty);
    }
    if let Some(rest) = input.strip_prefix("gh:") {
        return parse_gh(input, rest, flag_ref, gh_base);
    }
    // A GitHub page of a directory at a ref (`https://github.com/O/R/tree/REF/PATH`, the
    // form protoAgent's catalog lists): the `gh:O/R` source it is, that subdirectory at that
    // ref, so a gh mirror (`PLUGINS_GH_BASE`) and its credentials apply as to any `gh:`.
    if let Some(gh) = github_tree_url(input) {
        return parse(&gh, flag_ref, gh_base);
    }
    crate::git::check_url(input)?;
    let bad_ref = |r: &str| r.is_empty() || r.contains("..") || r.starts_with('-');
    // An ssh remote (`ssh://`, or scp-like `[user@]host:path` that is not an
    // existing path) is fetched with the system git and recorded as given.
    if crate::git::is_ssh(input) && (input.contains("://") || !PathBuf::from(input).exists()) {
        if let Some(r) = flag_ref.filter(|r| bad_ref(r)) {
            return Err(SourceError::BadRef(r.to_owned()));
        }
        return Ok(Source::Git {
            url: input.to_owned(),
            display: input.to_owned(),
            reference: with_ref(None, flag_ref)?,
            userinfo: None,
            subdir: None,
        });
    }
    let is_url = ["https://", "http://", "git://", "file://"]
        .iter()
        .any(|p| input.starts_with(p));
    if is_url {
        if let Some(r) = flag_ref.filter(|r| bad_ref(r)) {
            return Err(SourceError::BadRef(r.to_owned()));
        }
        let (url, userinfo) = crate::auth::split_userinfo(input);
        if crate::auth::has_secret_values(&url) {
            return Err(SourceError::CredentialInQuery { url });
        }
        return Ok(Source::Git {
            display: url.clone(),
            url,
            reference: with_ref(None, flag_ref)?,
            userinfo,
            subdir: None,
        });
    }
    local(input, flag_ref)
}

/// The ref a source names, or else the one `--ref` gives: both, and different, conflict.
fn with_ref(
    reference: Option<String>,
    flag_ref: Option<&str>,
) -> Result<Option<String>, SourceError> {
    match (reference, flag_ref) {
        (Some(a), Some(b)) if a != b => Err(SourceError::RefConflict {
            named: a,
            flag: b.to_owned(),
        }),
        (Some(a), _) => Ok(Some(a)),
        (None, b) => Ok(b.map(str::to_owned)),
    }
}

/// A `gh:owner/repo[/path][@ref]` source (`rest`: what follows `gh:` in `input`), cloned
/// from the GitHub base `gh_base`.
fn parse_gh(
    input: &str,
    rest: &str,
    flag_ref: Option<&str>,
    gh_base: &str,
) -> Result<Source, SourceError> {
    let (slug, reference) = match rest.split_once('@') {
        Some((_, "")) => return Err(SourceError::EmptyRef(input.to_owned())),
        Some((s, r)) => (s, Some(r.to_owned())),
        None => (rest, None),
    };
    // `gh:owner/repo/path`: the plugin is `path` of the repository (a monorepo).
    let mut parts = slug.splitn(3, '/');
    let (Some(owner), Some(repo), rest) = (parts.next(), parts.next(), parts.next()) else {
        return Err(SourceError::NotOwnerRepo(input.to_owned()));
    };
    let subdir = rest.map(subdir_path).transpose()?;
    if owner.is_empty() || repo.is_empty() {
        return Err(SourceError::NotOwnerRepo(input.to_owned()));
    }
    if !github_owner(owner) || !github_repo(repo) {
        return Err(SourceError::NotGitHub(input.to_owned()));
    }
    // A clone base with `user:password@` (`PLUGINS_GH_BASE`, `AOE_GITHUB_CLONE_BASE`)
    // gives the transfer its credentials; the URL shown and passed on is bare.
    let (base, userinfo) = crate::auth::split_userinfo(gh_base);
    let url = format!("{}/{owner}/{repo}.git", base.trim_end_matches('/'));
    Ok(Source::Git {
        url,
        reference: with_ref(reference, flag_ref)?,
        display: format!("gh:{owner}/{repo}"),
        userinfo,
        subdir,
    })
}

/// A source that is no URL: an existing directory (which takes no `--ref`), else
/// unsupported (with a hint at `gh:` for what looks like `owner/repo`).
fn local(input: &str, flag_ref: Option<&str>) -> Result<Source, SourceError> {
    let path = PathBuf::from(input);
    if path.is_dir() {
        if flag_ref.is_some() {
            return Err(SourceError::RefOfLocal);
        }
        // Recorded canonical (as aoe records a local source), so the lock and the
        // host's records name the directory wherever the command ran.
        let path = fs_err::canonicalize(&path).unwrap_or(path);
        return Ok(Source::Local { path });
    }
    // `owner/repo` that is not a directory most likely means GitHub.
    let hint = match input.split_once('/') {
        Some((o, r)) if github_owner(o) && github_repo(r.split('@').next().unwrap_or(r)) => {
            format!(" (did you mean gh:{input}?)")
        }
        _ => String::new(),
    };
    Err(SourceError::Unsupported {
        input: input.to_owned(),
        hint,
    })
}

/// `https://github.com/O/R/tree/REF[/PATH]` as `gh:O/R[/PATH]@REF`. The ref is the one
/// part after `tree/` (a branch named `a/b` cannot be told from a path in such a URL: use
/// `gh:O/R/PATH@a/b` for it); a query or fragment is no part of it.
fn github_tree_url(input: &str) -> Option<String> {
    let rest = input
        .strip_prefix("https://github.com/")
        .or_else(|| input.strip_prefix("https://www.github.com/"))?;
    let rest = rest.split(['?', '#']).next()?.trim_end_matches('/');
    let mut parts = rest.splitn(5, '/');
    let (owner, repo, tree, reference) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if tree != "tree" || reference.is_empty() {
        return None;
    }
    Some(match parts.next() {
        Some(path) => format!("gh:{owner}/{repo}/{path}@{reference}"),
        None => format!("gh:{owner}/{repo}@{reference}"),
    })
}

/// Why a source (typed, or read from a lock row) names no plugin `plugins` can fetch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("empty plugin source")]
    Empty,
    #[error("the source names ref {named:?} but --ref says {flag:?}")]
    RefConflict { named: String, flag: String },
    #[error("empty ref after '@' in {0:?}")]
    EmptyRef(String),
    #[error("expected gh:owner/repo, got {0:?}")]
    NotOwnerRepo(String),
    #[error(
        "{0:?} is not a GitHub repository: owners are letters, digits and `-`, repositories letters, digits, `-`, `_` and `.`"
    )]
    NotGitHub(String),
    #[error(transparent)]
    Hostile(#[from] crate::git::HostileUrl),
    #[error("invalid ref {0:?}: use a branch, tag, or commit SHA")]
    BadRef(String),
    #[error(
        "{url} carries a credential in its query, which the lock would record; give credentials as user:password@ in the URL (never recorded), or through {}",
        crate::git::CREDENTIAL_SOURCES.trim_start_matches("the URL's user:password@, ")
    )]
    CredentialInQuery { url: String },
    #[error("--ref needs a git source; a local directory is copied as it is")]
    RefOfLocal,
    #[error(
        "unsupported source {input:?}: use gh:owner/repo[@ref], an https://, ssh://, git:// or file:// git URL, git@host:owner/repo, or a local directory{hint}"
    )]
    Unsupported { input: String, hint: String },
    #[error(
        "--subdir needs a git source; for a local directory, name the plugin's directory itself"
    )]
    SubdirOfLocal,
    #[error("the source names subdirectory {named:?} but --subdir says {flag:?}")]
    SubdirConflict { named: String, flag: String },
    #[error(
        "subdirectory {0:?} is not a relative path inside the repository (no `..`, absolute or empty parts)"
    )]
    Subdir(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GitHub page of a directory at a ref is the `gh:` source it names, resolved against
    /// the gh base in use (a mirror), with its subdirectory and ref.
    #[test]
    fn github_tree_pages_are_gh_sources() {
        let mirror = "http://mirror.internal";
        let s = parse(
            "https://github.com/protoLabsAI/plugins/tree/main/plugins/weather/",
            None,
            mirror,
        )
        .unwrap();
        assert_eq!(
            s,
            Source::Git {
                url: "http://mirror.internal/protoLabsAI/plugins.git".into(),
                reference: Some("main".into()),
                display: "gh:protoLabsAI/plugins".into(),
                userinfo: None,
                subdir: Some("plugins/weather".into()),
            }
        );
        let root = parse("https://github.com/acme/kit/tree/v1.2.0", None, mirror).unwrap();
        assert_eq!(
            (root.subdir(), root.recorded()),
            (None, "gh:acme/kit".to_owned())
        );
        // `--ref` naming another ref is the conflict it is with `gh:…@ref`.
        assert!(parse("https://github.com/a/b/tree/main/x", Some("v1"), mirror).is_err());
        // A path out of the repository is refused as for `gh:`.
        assert!(parse("https://github.com/a/b/tree/main/../../etc", None, mirror).is_err());
        // Not a tree page: a plain git URL, as before.
        let plain = parse("https://github.com/a/b", None, mirror).unwrap();
        assert_eq!(plain.recorded(), "https://github.com/a/b");
    }

    #[test]
    fn gh_sources() {
        let s = parse("gh:acme/kit@v1.2.0", None, "https://github.com/").unwrap();
        assert_eq!(
            s,
            Source::Git {
                url: "https://github.com/acme/kit.git".into(),
                reference: Some("v1.2.0".into()),
                display: "gh:acme/kit".into(),
                userinfo: None,
                subdir: None,
            }
        );
        assert_eq!(
            parse("gh:acme/kit@", None, "x").unwrap_err().to_string(),
            "empty ref after '@' in \"gh:acme/kit@\""
        );
        assert!(
            parse("gh:acme", None, "x")
                .unwrap_err()
                .to_string()
                .starts_with("expected gh:owner/repo")
        );
        assert_eq!(
            parse("gh:a/b/plugins/web/@v1", None, "x").unwrap().subdir(),
            Some("plugins/web")
        );
        // `--subdir` and a lock row's `subdir` take plain parts only.
        for bad in ["p//web", "./web", "p/./web", "../..", "/etc", "", "p\\web"] {
            assert!(subdir_path(bad).is_err(), "{bad:?}");
        }
        assert_eq!(subdir_path("plugins/web/").unwrap(), "plugins/web");
        for bad in ["gh:a/b/../c", "gh:a/b//etc", "gh:a/b/x/../../y"] {
            assert!(
                parse(bad, None, "x")
                    .unwrap_err()
                    .to_string()
                    .contains("is not a relative path inside the repository"),
                "{bad}"
            );
        }
        assert!(
            parse("gh:a/b/web", None, "x")
                .unwrap()
                .with_subdir("other")
                .is_err()
        );
        for bad in [
            "gh:../x",
            "gh:a/..",
            "gh:a/.",
            "gh:-a/b",
            "gh:a b/c",
            "gh:a/b\\c",
            "gh:a/b%2f",
        ] {
            assert!(
                parse(bad, None, "x")
                    .unwrap_err()
                    .to_string()
                    .contains("is not a GitHub repository"),
                "{bad}"
            );
        }
        assert!(parse("gh:acme/.github", None, "x").is_ok());
        assert!(parse("gh:acme/kit@v1", Some("v2"), "x").is_err());
        assert_eq!(
            parse("gh:acme/kit", Some("main"), "x").unwrap().reference(),
            Some("main")
        );
    }

    fn locked(source: &str) -> crate::lock::Entry {
        crate::lock::Entry {
            id: "x".into(),
            source: source.into(),
            requested_ref: String::new(),
            ref_kind: None,
            commit: Some("0".repeat(40)),
            ..crate::lock::Entry::default()
        }
    }

    #[test]
    fn ssh_sources_are_recorded_as_given() {
        for given in [
            "git@github.com:acme/kit.git",
            "ssh://git@git.example:2222/acme/kit.git",
            "alias:/srv/kit.git",
        ] {
            let s = parse(given, Some("v1"), "x").unwrap();
            assert_eq!(s.recorded(), given);
            assert_eq!(s.reference(), Some("v1"));
            let entry = locked(given);
            assert_eq!(Source::of_entry(&entry, "x").unwrap().recorded(), given);
        }
        assert!(parse("git@h:o/r", Some("--upload-pack=x"), "x").is_err());
        let e = parse("ssh://git:hunter2@h/o/r", None, "x")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("hunter2"), "{e}");
    }

    #[test]
    fn hostile_sources_are_refused() {
        for bad in [
            "ext::sh -c touch% /tmp/pwned",
            "--upload-pack=touch /tmp/pwned",
            "ssh://-oProxyCommand=x/y",
        ] {
            assert!(
                parse(bad, None, "x")
                    .unwrap_err()
                    .to_string()
                    .starts_with("refusing source")
            );
            let Ok(Source::Git { url, .. }) = Source::of_entry(&locked(bad), "x") else {
                panic!("{bad}")
            };
            let e = crate::git::ls_remote(&url, None).unwrap_err();
            assert!(
                matches!(
                    e,
                    crate::git::GitError::Cli(crate::git::CliError::Refused { .. })
                ),
                "{bad}: {e:?}"
            );
        }
    }

    #[test]
    fn userinfo_is_never_recorded() {
        let s = parse("https://me:hunter2@git.example/o/r.git", None, "x").unwrap();
        assert_eq!(s.recorded(), "https://git.example/o/r.git");
        let Source::Git { url, userinfo, .. } = &s else {
            panic!("{s:?}")
        };
        assert_eq!(url, "https://git.example/o/r.git");
        assert_eq!(userinfo.as_ref().unwrap().password, "hunter2");
        assert!(!format!("{s:?}").contains("hunter2"));
    }

    #[test]
    fn urls_and_paths() {
        assert!(matches!(
            parse("file:///tmp/repo", Some("main"), "x"),
            Ok(Source::Git { .. })
        ));
        assert!(parse("https://example.com/x.git", Some("../evil"), "x").is_err());
        assert!(matches!(parse(".", None, "x"), Ok(Source::Local { .. })));
        assert_eq!(
            parse("acme/kit@v1", None, "x").unwrap_err().to_string(),
            "unsupported source \"acme/kit@v1\": use gh:owner/repo[@ref], an https://, ssh://, git:// or file:// git URL, git@host:owner/repo, or a local directory (did you mean gh:acme/kit@v1?)"
        );
        assert!(
            parse("no/such/dir", None, "x")
                .unwrap_err()
                .to_string()
                .starts_with("unsupported source")
        );
        assert_eq!(
            parse("  ", None, "x").unwrap_err().to_string(),
            "empty plugin source"
        );
    }
}
