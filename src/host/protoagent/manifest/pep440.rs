//! PEP 440 versions, enough to order `min_protoagent_version` against a host
//! version as `packaging.version.Version` does (`0.34` == `0.34.0`, `1.0rc1` < `1.0`).

use std::cmp::Ordering;

/// A parsed PEP 440 version, ordered as `packaging.version.Version` orders it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Version {
    epoch: u64,
    release: Vec<u64>,
    pre: Option<(u8, u64)>,
    post: Option<u64>,
    dev: Option<u64>,
    /// The local segment's parts (`+ubuntu.1`): numbers sort above words, and
    /// any local version above the same public one, as `packaging` does.
    local: Option<Vec<(u64, String)>>,
}

fn number(s: &str) -> Option<(u64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// An optional separator (`.`, `-`, `_`) then an optional number (default 0).
fn sep_number(s: &str) -> (u64, &str) {
    let s = s.strip_prefix(['.', '-', '_']).unwrap_or(s);
    number(s).unwrap_or((0, s))
}

/// (epoch, release without trailing zeros, pre, post, dev), each phase as (rank, number).
type SortKey = (
    u64,
    Vec<u64>,
    (i8, u64),
    (i8, u64),
    (i8, u64),
    Option<Vec<(u8, u64, String)>>,
);

impl Version {
    /// Parse with PEP 440's normalisation (case, `v` prefix, spellings, separators).
    pub(crate) fn parse(text: &str) -> Option<Version> {
        let lower = text.trim().to_ascii_lowercase();
        let mut s = lower.strip_prefix('v').unwrap_or(&lower);
        let mut local = None;
        if let Some((public, segment)) = s.split_once('+') {
            s = public;
            let parts: Vec<&str> = segment.split(['.', '-', '_']).collect();
            if parts
                .iter()
                .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_alphanumeric()))
            {
                return None;
            }
            local = Some(
                parts
                    .iter()
                    .map(|p| match p.parse::<u64>() {
                        Ok(n) => (n, String::new()),
                        Err(_) => (u64::MAX, (*p).to_owned()),
                    })
                    .collect(),
            );
        }
        let (epoch, rest) = match s.split_once('!') {
            Some((e, r)) => (e.parse().ok()?, r),
            None => (0, s),
        };
        let mut release = Vec::new();
        let (first, mut rest) = number(rest)?;
        release.push(first);
        while let Some(r) = rest.strip_prefix('.') {
            let Some((n, r)) = number(r) else { break };
            release.push(n);
            rest = r;
        }
        let mut v = Version {
            epoch,
            release,
            pre: None,
            post: None,
            dev: None,
            local,
        };
        let pre_words: [(&str, u8); 8] = [
            ("alpha", 0),
            ("beta", 1),
            ("preview", 2),
            ("pre", 2),
            ("rc", 2),
            ("a", 0),
            ("b", 1),
            ("c", 2),
        ];
        let trimmed = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
        if let Some((word, kind)) = pre_words.iter().find(|(w, _)| trimmed.starts_with(w)) {
            let (n, r) = sep_number(&trimmed[word.len()..]);
            v.pre = Some((*kind, n));
            rest = r;
        }
        let trimmed = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
        if let Some(word) = ["post", "rev", "r"]
            .iter()
            .find(|w| trimmed.starts_with(**w))
        {
            let (n, r) = sep_number(&trimmed[word.len()..]);
            v.post = Some(n);
            rest = r;
        } else if let Some(r) = rest.strip_prefix('-').and_then(number) {
            v.post = Some(r.0);
            rest = r.1;
        }
        let trimmed = rest.strip_prefix(['.', '-', '_']).unwrap_or(rest);
        if let Some(r) = trimmed.strip_prefix("dev") {
            let (n, r) = sep_number(r);
            v.dev = Some(n);
            rest = r;
        }
        rest.is_empty().then_some(v)
    }

    fn key(&self) -> SortKey {
        let mut release = self.release.clone();
        while release.len() > 1 && release.last() == Some(&0) {
            release.pop();
        }
        // A dev release with no pre or post sorts before every pre-release.
        let pre = match (self.pre, self.post, self.dev) {
            (Some((k, n)), _, _) => (i8::try_from(k).unwrap_or(0), n),
            (None, None, Some(_)) => (-1, 0),
            (None, _, _) => (3, 0),
        };
        let post = self.post.map_or((-1, 0), |n| (0, n));
        let dev = self.dev.map_or((1, 0), |n| (0, n));
        let local = self.local.as_ref().map(|parts| {
            parts
                .iter()
                .map(|(n, word)| {
                    if word.is_empty() {
                        (1, *n, String::new())
                    } else {
                        (0, 0, word.clone())
                    }
                })
                .collect()
        });
        (self.epoch, release, pre, post, dev, local)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(&other.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap_or_else(|| panic!("{s} parses"))
    }

    #[test]
    fn ordering() {
        assert_eq!(v("0.34").cmp(&v("0.34.0")), Ordering::Equal);
        assert!(v("1.0rc1") < v("1.0"));
        assert!(v("1.0.dev0") < v("1.0a1"));
        assert!(v("1.0a1") < v("1.0b2") && v("1.0b2") < v("1.0rc1"));
        assert!(v("1.0") < v("1.0.post1"));
        assert!(v("0.9.0") < v("0.10.0"));
        assert!(v("1!0.1") > v("99.0"));
        assert_eq!(v("V1.0-RC.1"), v("1.0rc1"));
        assert_eq!(v("1.0-1"), v("1.0.post1"));
        // Local versions order as `packaging` orders them: above the public
        // version, numbers above words, a longer segment above its prefix.
        assert!(v("1.0+local.7") > v("1.0"));
        assert!(v("0.218.1+local") > v("0.218.1"));
        assert!(v("1.0+2") > v("1.0+abc"));
        assert!(v("1.0+abc.1") > v("1.0+abc"));
        assert!(v("1.0+local") < v("1.0.post1"));
        assert_eq!(v("1.0+Ubuntu-1"), v("1.0+ubuntu.1"));
    }

    #[test]
    fn garbage() {
        for bad in [
            "not-a-version",
            "",
            "1.0.x",
            "one",
            "1.0+",
            "1.0+a..b",
            "1.0+a!",
        ] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
    }
}
