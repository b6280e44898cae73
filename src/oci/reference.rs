//! `oci://REGISTRY/NAME[:TAG][@sha256:DIGEST]`: where a bundle is pushed to or pulled from,
//! parsed by the distribution spec's grammar (hostile input: a reference comes from a command
//! line, a script or a fleet's configuration, and is shown in messages).

use std::fmt;

use super::OciError;

/// A parsed `oci://` reference. The registry is always explicit (no Docker Hub default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OciRef {
    /// `host[:port]`, lower-cased.
    pub registry: String,
    /// The repository path (`fleet/plugins`).
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:` and 64 lower-case hex.
    pub digest: Option<String>,
}

/// The longest reference read, in bytes (the distribution spec caps a name at 255).
const MAX_LEN: usize = 1024;

impl OciRef {
    /// Parse `text` (with its `oci://` prefix).
    pub fn parse(text: &str) -> Result<OciRef, OciError> {
        let bad = |why: &str| OciError::Reference {
            reference: crate::auth::redact(&text.chars().take(200).collect::<String>()),
            why: why.to_owned(),
        };
        if text.len() > MAX_LEN {
            return Err(bad("it is longer than 1024 bytes"));
        }
        let rest = text
            .strip_prefix("oci://")
            .ok_or_else(|| bad("it does not start with oci://"))?;
        if rest.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(bad("it holds a space or a control character"));
        }
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| bad("it names no repository (oci://REGISTRY/NAME:TAG)"))?;
        if registry.contains('@') {
            return Err(bad(
                "credentials do not belong in a reference: plugins reads them as docker does (~/.docker/config.json, REGISTRY_AUTH_FILE, PLUGINS_REGISTRY_TOKEN)",
            ));
        }
        if !valid_registry(registry) {
            return Err(bad(
                "its registry is not a host name or address with an optional :port",
            ));
        }
        let (path, digest) = match path.split_once('@') {
            Some((p, d)) => (p, Some(d)),
            None => (path, None),
        };
        if let Some(d) = digest
            && !valid_digest(d)
        {
            return Err(bad(
                "its digest is not sha256: and 64 lower-case hex digits",
            ));
        }
        // A tag follows the last `:` after the last `/`.
        let (repository, tag) = match path.rfind(':') {
            Some(i) if !path[i..].contains('/') => (&path[..i], Some(&path[i + 1..])),
            _ => (path, None),
        };
        if let Some(t) = tag
            && !valid_tag(t)
        {
            return Err(bad(
                "its tag is not [A-Za-z0-9_][A-Za-z0-9._-]{0,127} (the distribution spec's)",
            ));
        }
        if !valid_repository(repository) || registry.len() + 1 + repository.len() > 255 {
            return Err(bad(
                "its name is not lower-case path components ([a-z0-9] joined by . _ __ -), 255 bytes at most",
            ));
        }
        Ok(OciRef {
            registry: registry.to_ascii_lowercase(),
            repository: repository.to_owned(),
            tag: tag.map(str::to_owned),
            digest: digest.map(str::to_owned),
        })
    }

    /// The same repository at `digest`, keeping the tag (for messages and records).
    pub fn at(&self, digest: &str) -> OciRef {
        OciRef {
            digest: Some(digest.to_owned()),
            ..self.clone()
        }
    }

    /// `REGISTRY/NAME` (what a tag record is kept under, with the tag).
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// The client's reference: by digest when there is one, else by tag (`latest` when
    /// neither is given, as every container tool pulls; a push without a tag puts the
    /// manifest by its digest instead).
    pub(super) fn client_ref(&self) -> oci_client::Reference {
        match &self.digest {
            Some(d) => oci_client::Reference::with_digest(
                self.registry.clone(),
                self.repository.clone(),
                d.clone(),
            ),
            None => oci_client::Reference::with_tag(
                self.registry.clone(),
                self.repository.clone(),
                self.tag.clone().unwrap_or_else(|| "latest".to_owned()),
            ),
        }
    }
}

impl fmt::Display for OciRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oci://{}/{}", self.registry, self.repository)?;
        if let Some(t) = &self.tag {
            write!(f, ":{t}")?;
        }
        if let Some(d) = &self.digest {
            write!(f, "@{d}")?;
        }
        Ok(())
    }
}

fn valid_registry(r: &str) -> bool {
    let (host, port) = if let Some(v6) = r.strip_prefix('[') {
        let Some((addr, after)) = v6.split_once(']') else {
            return false;
        };
        if addr.parse::<std::net::Ipv6Addr>().is_err() {
            return false;
        }
        match after {
            "" => return true,
            p => ("v6", p.strip_prefix(':').unwrap_or("x")),
        }
    } else {
        match r.split_once(':') {
            Some((h, p)) => (h, p),
            None => (r, "1"),
        }
    };
    let port_ok = !port.is_empty()
        && port.len() <= 5
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u16>().is_ok_and(|p| p > 0);
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    port_ok && host_ok
}

/// `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*`
fn valid_repository(repo: &str) -> bool {
    !repo.is_empty()
        && repo.split('/').all(|component| {
            let b = component.as_bytes();
            if b.is_empty() || !alnum(b[0]) || !alnum(b[b.len() - 1]) {
                return false;
            }
            let mut i = 0;
            while i < b.len() {
                if alnum(b[i]) {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < b.len() && !alnum(b[i]) {
                    i += 1;
                }
                let sep = &component[start..i];
                let ok = sep == "." || sep == "_" || sep == "__" || sep.bytes().all(|c| c == b'-');
                if !ok {
                    return false;
                }
            }
            true
        })
}

fn alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn valid_tag(t: &str) -> bool {
    let b = t.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphanumeric() || b[0] == b'_')
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// `sha256:` and 64 lower-case hex digits: the only digest plugins reads or writes.
pub fn valid_digest(d: &str) -> bool {
    crate::hash::is_sha256_digest(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_by_the_distribution_grammar() {
        let r = OciRef::parse("oci://127.0.0.1:5000/fleet/plugins:v1").unwrap();
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str(), r.tag.as_deref()),
            ("127.0.0.1:5000", "fleet/plugins", Some("v1"))
        );
        let d = format!("sha256:{}", "a".repeat(64));
        let r = OciRef::parse(&format!("oci://ghcr.io/o/p:v1@{d}")).unwrap();
        assert_eq!(r.digest.as_deref(), Some(d.as_str()));
        assert_eq!(r.to_string(), format!("oci://ghcr.io/o/p:v1@{d}"));
        assert_eq!(
            OciRef::parse("oci://[::1]:5000/a").unwrap().registry,
            "[::1]:5000"
        );
        for (host, loopback) in [
            ("127.0.0.1", true),
            ("127.8.0.1", true),
            ("[::1]", true),
            ("localhost", true),
            ("ghcr.io", false),
            ("10.0.0.1", false),
        ] {
            assert_eq!(crate::net::is_loopback(host), loopback, "{host}");
        }
        for bad in [
            "ghcr.io/o/p",
            "oci://ghcr.io",
            "oci://user:pw@ghcr.io/o/p",
            "oci://ghcr.io/O/p",
            "oci://ghcr.io/o/../p",
            "oci://ghcr.io/o/p:-x",
            "oci://ghcr.io/o/p@sha256:ABC",
            "oci://ghcr.io:99999/o/p",
            "oci://gh cr.io/o/p",
            "oci://ghcr.io/o/p\n",
            "oci://ghcr.io/o//p",
        ] {
            assert!(OciRef::parse(bad).is_err(), "{bad}");
        }
        let long = format!("oci://r.io/{}", "a".repeat(300));
        assert!(OciRef::parse(&long).is_err());
    }
}
