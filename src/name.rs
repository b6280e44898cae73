//! Untrusted names that become paths. A [`Name`] is one path component that is
//! safe to join below one directory: plugin ids (from the command line, lock
//! files and manifests of every dialect), release asset names and `gh:` owner
//! and repo parts all pass through here before they touch the filesystem.

use std::fmt;
use std::path::{Path, PathBuf};

/// The longest name accepted, in bytes: room for the suffixes `plugins` adds
/// (`-build.log`, `.old-<pid>`) within a file system's 255-byte limit.
pub const MAX_LEN: usize = 200;

/// One checked path component.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(String);

/// Why a string cannot be a [`Name`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("it is empty")]
    Empty,
    #[error("`.` and `..` name directories, not plugins")]
    Dots,
    #[error("it contains a path separator (`/` or `\\`)")]
    Separator,
    #[error("it contains a control character ({0:?})")]
    Control(char),
    #[error("it starts with a dot (hosts skip hidden directories)")]
    LeadingDot,
    #[error("it is longer than {MAX_LEN} bytes")]
    TooLong,
}

impl Name {
    /// Check `s`: not empty, not `.` or `..`, no `/` or `\` (so never absolute),
    /// no NUL or other control character, no leading dot, at most [`MAX_LEN`] bytes.
    pub fn new(s: &str) -> Result<Name, NameError> {
        if s.is_empty() {
            return Err(NameError::Empty);
        }
        if s == "." || s == ".." {
            return Err(NameError::Dots);
        }
        if s.contains(['/', '\\']) {
            return Err(NameError::Separator);
        }
        if let Some(c) = s.chars().find(|c| c.is_control()) {
            return Err(NameError::Control(c));
        }
        if s.starts_with('.') {
            return Err(NameError::LeadingDot);
        }
        if s.len() > MAX_LEN {
            return Err(NameError::TooLong);
        }
        Ok(Name(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `dir/<name>`. The result's parent is `dir` by construction; the assertion
    /// keeps it so should the checks above ever change.
    pub fn under(&self, dir: &Path) -> PathBuf {
        let path = dir.join(&self.0);
        assert_eq!(path.parent(), Some(dir), "a Name is one path component");
        path
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A relative path inside a plugin (`bin/worker`): every component is a normal
/// name (no `..`, `.`-only, absolute or empty parts, no `\`, no control
/// characters). Leading dots are allowed inside a plugin (`.aoe-build/...`).
pub fn relative_path(s: &str) -> Option<PathBuf> {
    if s.is_empty() || s.starts_with('/') || s.contains('\\') {
        return None;
    }
    let mut out = PathBuf::new();
    for part in s.split('/') {
        match part {
            "" | "." => continue,
            ".." => return None,
            p if p.chars().any(char::is_control) => return None,
            p => out.push(p),
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_class_is_refused() {
        let cases: &[(&str, NameError)] = &[
            ("", NameError::Empty),
            (".", NameError::Dots),
            ("..", NameError::Dots),
            ("../../x", NameError::Separator),
            ("/etc", NameError::Separator),
            ("a/b", NameError::Separator),
            ("..\\..\\dev\\zero", NameError::Separator),
            ("a\0b", NameError::Control('\0')),
            ("a\nb", NameError::Control('\n')),
            ("a\u{7f}", NameError::Control('\u{7f}')),
            (".hidden", NameError::LeadingDot),
            (".staging-1", NameError::LeadingDot),
        ];
        for (s, want) in cases {
            assert_eq!(Name::new(s).as_ref(), Err(want), "{s:?}");
        }
        assert_eq!(Name::new(&"a".repeat(201)), Err(NameError::TooLong));
        for ok in ["a", "dev.example.kanban", "a..b", "x-1.0.tar.gz", "名前"] {
            assert_eq!(Name::new(ok).unwrap().as_str(), ok);
        }
    }

    /// A deterministic fuzz loop: whatever the generated string, an accepted
    /// name joins to a direct child of the directory, and nothing else does.
    #[test]
    fn generated_names_never_leave_the_directory() {
        const ALPHABET: &[&str] = &[
            "a", "Z", "0", ".", "..", "/", "\\", "\0", "\n", "\u{1b}", "-", "_", " ", "~", ":",
            "é", "\u{202e}", "%2e", "*",
        ];
        let dir = Path::new("/home/u/.aoe/plugins");
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut accepted = 0;
        for _ in 0..20_000 {
            let len = (next() % 6) as usize;
            let s: String = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            match Name::new(&s) {
                Ok(name) => {
                    accepted += 1;
                    let path = name.under(dir);
                    assert_eq!(path.parent(), Some(dir), "{s:?}");
                    assert_eq!(path.file_name().and_then(|n| n.to_str()), Some(s.as_str()));
                    assert!(!s.starts_with('.') && !s.contains(['/', '\\', '\0']));
                }
                Err(_) => assert!(
                    s.is_empty()
                        || s.starts_with('.')
                        || s.contains(['/', '\\'])
                        || s.chars().any(char::is_control),
                    "{s:?} refused without a reason"
                ),
            }
        }
        assert!(accepted > 1_000, "the generator reaches valid names");
    }

    #[test]
    fn relative_paths_stay_inside() {
        assert_eq!(
            relative_path("bin/worker"),
            Some(PathBuf::from("bin/worker"))
        );
        assert_eq!(relative_path("./worker"), Some(PathBuf::from("worker")));
        assert_eq!(
            relative_path(".aoe-build/w"),
            Some(PathBuf::from(".aoe-build/w"))
        );
        for bad in ["", "/abs", "../w", "a/../../w", "a\\b", "a/\0", ".", "./"] {
            assert_eq!(relative_path(bad), None, "{bad:?}");
        }
    }
}
