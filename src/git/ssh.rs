//! ssh remotes (`ssh://[user@]host[:port]/path` and git's scp-like
//! `[user@]host:path`), and the checks that keep any remote from reaching git
//! as an option or a command: a leading `-`, remote-helper transports
//! (`ext::`, `fd::`), control characters, an ssh host or user that ssh would
//! read as an option.

/// The schemes git understands as ssh.
const SSH_SCHEMES: [&str; 3] = ["ssh://", "git+ssh://", "ssh+git://"];

/// The URL schemes a source may use.
const SCHEMES: [&str; 7] = [
    "https://",
    "http://",
    "git://",
    "file://",
    "ssh://",
    "git+ssh://",
    "ssh+git://",
];

/// Where an ssh remote points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target<'a> {
    pub(crate) user: Option<&'a str>,
    /// A host name, an address, or an alias from the user's ssh config.
    pub(crate) host: &'a str,
    pub(crate) port: Option<&'a str>,
    pub(crate) path: &'a str,
    /// `user:password@` was given (refused: ssh authenticates with keys).
    pub(crate) password: bool,
}

/// git's scp-like syntax: `[user@]host:path`, no `/` before the first `:`, and
/// not `scheme://`. One-letter hosts are left out (`C:\...` is a path).
fn scp_like(url: &str) -> Option<Target<'_>> {
    if url.contains("://") {
        return None;
    }
    let (before, path) = url.split_once(':')?;
    if before.contains('/') || before.contains('\\') || path.is_empty() {
        return None;
    }
    let (user, host) = match before.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, before),
    };
    if host.len() < 2 {
        return None;
    }
    Some(Target {
        user,
        host,
        port: None,
        path,
        password: false,
    })
}

/// `ssh://[user[:password]@]host[:port]/path` (also `git+ssh://`, `ssh+git://`).
fn ssh_url(url: &str) -> Option<Target<'_>> {
    let rest = SSH_SCHEMES.iter().find_map(|s| url.strip_prefix(s))?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let (user, password) = match userinfo.map(|u| u.split_once(':')) {
        Some(Some((u, _))) => (Some(u), true),
        Some(None) => (userinfo, false),
        None => (None, false),
    };
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h, after.strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    Some(Target {
        user,
        host,
        port,
        path,
        password,
    })
}

/// The ssh remote `url` names, if it is one.
pub(crate) fn target(url: &str) -> Option<Target<'_>> {
    ssh_url(url).or_else(|| scp_like(url))
}

/// Whether `url` is an ssh remote (fetched with the system git).
pub fn is_ssh(url: &str) -> bool {
    target(url).is_some()
}

/// A remote refused before any transfer: git or ssh could read it as an option or a
/// command. `shown` is the URL without any password.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refusing source {shown:?}: {why}")]
pub struct HostileUrl {
    pub shown: String,
    pub why: Hostile,
}

/// Why a remote is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Hostile {
    #[error("it starts with `-`, which git would read as an option")]
    LeadingDash,
    #[error("it holds a control character")]
    ControlCharacter,
    #[error(
        "git's `{0}::` remote-helper transports can run commands; use an https://, ssh:// or file:// URL"
    )]
    RemoteHelper(String),
    #[error(
        "the `{0}://` transport is not supported; use an https://, ssh://, git:// or file:// URL"
    )]
    Transport(String),
    #[error("no ssh host")]
    NoSshHost,
    #[error("an ssh host, user or path starting with `-` would be read by ssh as an option")]
    SshOption,
    #[error("`{0}` is not a host name")]
    HostName(String),
    #[error("the port is not a number")]
    Port,
    #[error(
        "an ssh URL cannot carry a password (ssh authenticates with keys: ssh-agent or IdentityFile in ~/.ssh/config)"
    )]
    SshPassword,
}

/// Refuse a remote that git or ssh could read as an option or a command. The
/// error names the URL without any password.
pub fn check_url(url: &str) -> Result<(), HostileUrl> {
    let refuse = |why| {
        Err(HostileUrl {
            shown: crate::auth::redact(url),
            why,
        })
    };
    if url.starts_with('-') {
        return refuse(Hostile::LeadingDash);
    }
    if url.chars().any(char::is_control) {
        return refuse(Hostile::ControlCharacter);
    }
    // `<transport>::<address>` runs git's remote helper `git-remote-<transport>`;
    // `ext::` runs any command.
    if let Some((helper, _)) = url.split_once("::")
        && !helper.is_empty()
        && !helper.contains('/')
        && helper
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.' | b'_'))
    {
        return refuse(Hostile::RemoteHelper(helper.to_owned()));
    }
    if url.contains("://") && !SCHEMES.iter().any(|s| url.starts_with(s)) {
        let scheme = url.split("://").next().unwrap_or_default();
        return refuse(Hostile::Transport(scheme.to_owned()));
    }
    if let Some(t) = target(url) {
        let optionish = |s: Option<&str>| s.is_some_and(|s| s.starts_with('-'));
        if t.host.is_empty() {
            return refuse(Hostile::NoSshHost);
        }
        if optionish(Some(t.host)) || optionish(t.user) || t.path.starts_with('-') {
            return refuse(Hostile::SshOption);
        }
        if !t
            .host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b':' | b'%'))
        {
            return refuse(Hostile::HostName(t.host.to_owned()));
        }
        if t.port
            .is_some_and(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
        {
            return refuse(Hostile::Port);
        }
        if t.password {
            return refuse(Hostile::SshPassword);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_forms() {
        let t = target("ssh://git@example.com:2222/acme/kit.git").unwrap();
        assert_eq!(
            (t.user, t.host, t.port, t.path),
            (Some("git"), "example.com", Some("2222"), "/acme/kit.git")
        );
        let t = target("git@github.com:acme/kit.git").unwrap();
        assert_eq!(
            (t.user, t.host, t.port, t.path),
            (Some("git"), "github.com", None, "acme/kit.git")
        );
        let t = target("alias:/srv/kit.git").unwrap();
        assert_eq!((t.user, t.host), (None, "alias"));
        let t = target("ssh://[::1]:22/x").unwrap();
        assert_eq!((t.host, t.port), ("::1", Some("22")));
        for not in [
            "https://example.com/x.git",
            "file:///tmp/x",
            "./a:b",
            "dir/a:b",
            "C:\\x",
            "gh",
            "x:",
        ] {
            assert!(!is_ssh(not), "{not}");
        }
    }

    #[test]
    fn hostile_urls_are_refused() {
        for bad in [
            "--upload-pack=touch /tmp/pwned",
            "-oProxyCommand=x",
            "ext::sh -c touch% /tmp/pwned",
            "fd::17",
            "ssh://-oProxyCommand=touch%20x/y",
            "ssh://-oProxyCommand=x@host/y",
            "-o@host:x",
            "git@-oProxyCommand=x:y",
            "host:-x",
            "ssh://host:abc/x",
            "ssh://ho st/x",
            "https://example.com/x\n.git",
            "gopher://example.com/x",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        let e = check_url("ssh://git:hunter2@example.com/x.git")
            .unwrap_err()
            .to_string();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(e.contains("cannot carry a password"), "{e}");
        for good in [
            "ssh://git@example.com:2222/acme/kit.git",
            "git@github.com:acme/kit.git",
            "https://example.com/x.git",
            "file:///tmp/x",
            "/tmp/x",
        ] {
            assert_eq!(check_url(good), Ok(()), "{good}");
        }
    }
}
