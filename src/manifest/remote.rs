//! The plugin root's own git remote, read from `.git/config` as plain text (no
//! git2 and no `git` process, so validation stays read-only and cheap), and the
//! reverse-DNS namespace a remote URL suggests.

use std::path::Path;

/// The URL of `origin` (else the first remote) when `root` is itself the top of
/// a git repository; `None` for a subdirectory of one, or without remotes.
pub fn url(root: &Path) -> Option<String> {
    let dot_git = root.join(".git");
    let meta = fs_err::symlink_metadata(&dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        // A worktree or submodule: `gitdir: <path>`.
        let text = crate::file::read_to_string(&dot_git).ok()?;
        root.join(text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim())
    } else {
        return None;
    };
    let common = match crate::file::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir,
    };
    remote_in(&crate::file::read_to_string(common.join("config")).ok()?)
}

/// `remote.origin.url`, else the first `remote.*.url`, from git config text.
fn remote_in(config: &str) -> Option<String> {
    let (mut section, mut origin, mut first) = (None::<String>, None, None);
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line
                .strip_prefix("[remote \"")
                .and_then(|r| r.strip_suffix("\"]"))
                .map(str::to_owned);
        } else if let (Some(name), Some((key, value))) = (&section, line.split_once('='))
            && key.trim().eq_ignore_ascii_case("url")
        {
            let value = value.trim().trim_matches('"').to_owned();
            if name == "origin" && origin.is_none() {
                origin = Some(value.clone());
            }
            first.get_or_insert(value);
        }
    }
    origin.or(first)
}

/// Forges where the owner, not the host, names the namespace.
const FORGES: &[(&str, &str)] = &[
    ("github.com", "io.github"),
    ("gitlab.com", "io.gitlab"),
    ("codeberg.org", "org.codeberg"),
    ("bitbucket.org", "org.bitbucket"),
];

/// The namespace a remote URL suggests: `io.github.<owner>` on a forge, the
/// reversed host otherwise (`git.acme.com` → `com.acme`). `None` for a local path.
pub fn namespace(url: &str) -> Option<String> {
    let (host, path) = if let Some((_, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let host = authority.rsplit('@').next().unwrap_or(authority);
        (host.split(':').next().unwrap_or(host), path)
    } else {
        // scp-like `git@host:owner/repo.git`; a path with a slash first is local.
        let (authority, path) = url.split_once(':')?;
        if authority.contains('/') {
            return None;
        }
        (authority.rsplit('@').next().unwrap_or(authority), path)
    };
    let host = host.to_ascii_lowercase();
    if host.is_empty() || !host.contains('.') {
        return None;
    }
    let segments: Vec<String> = match FORGES.iter().find(|(h, _)| *h == host) {
        Some((_, ns)) => {
            let owner = path.trim_start_matches('/').split('/').next()?;
            ns.split('.')
                .map(str::to_owned)
                .chain([segment(owner)?])
                .collect()
        }
        None => host
            .split('.')
            .rev()
            .filter(|l| !["git", "www", "gitlab", "github", "gitea"].contains(l))
            .map(segment)
            .collect::<Option<_>>()?,
    };
    Some(segments.join("."))
}

/// An aoe id segment from a name: lowercase, `[a-z0-9-]`, starting with a letter.
fn segment(name: &str) -> Option<String> {
    let s: String = name
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let s = s.trim_matches('-').to_owned();
    s.starts_with(|c: char| c.is_ascii_lowercase()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_wins_over_other_remotes() {
        let config = "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://x.org/a/b\n[remote \"origin\"]\n\turl = git@github.com:Alice_B/kanban.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
        assert_eq!(
            remote_in(config).as_deref(),
            Some("git@github.com:Alice_B/kanban.git")
        );
        assert_eq!(remote_in("[core]\n"), None);
    }

    #[test]
    fn namespaces_from_urls() {
        for (url, ns) in [
            (
                "https://github.com/alice/kanban.git",
                Some("io.github.alice"),
            ),
            (
                "git@github.com:Alice_B/kanban.git",
                Some("io.github.alice-b"),
            ),
            ("ssh://git@gitlab.com:22/team/x", Some("io.gitlab.team")),
            ("https://git.acme.com/tools/x.git", Some("com.acme")),
            ("https://github.com/4ever/x", None),
            ("/srv/git/x.git", None),
            ("file:///srv/git/x.git", None),
            ("../x", None),
        ] {
            assert_eq!(namespace(url).as_deref(), ns, "{url}");
        }
    }
}
