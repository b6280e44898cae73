//! protoAgent's wheel pins (`deps: [{name, version, sha256}]` in a lock row), read by
//! grammar. A lock arrives in pull requests and bundles, and a pin becomes a line of the
//! requirements file pip reads (`name==version --hash=sha256:…`): a field holding a newline,
//! `#`, `@ URL`, `;` or an option would be pip syntax, not a pin. So a pin is built only
//! from a PEP 508 distribution name, a PEP 440 version and 64 lower-case hex digits, and
//! every way into [`DepPin`] (the lock, a kept slot's record, pip's report) goes through
//! [`DepPin::new`].

use std::sync::LazyLock;

/// A wheel installed into protoAgent's `plugin-deps/<id>`, pinned as the host's wheel
/// installer pins it (`deps: [{name, version, sha256}]` in the plugin's lock row). Its
/// fields are checked when it is made (see the module doc), so its requirement line can
/// carry nothing but the pin.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "RawPin")]
pub struct DepPin {
    name: String,
    version: String,
    /// The wheel's sha256, lower-case hex.
    sha256: String,
}

#[derive(serde::Deserialize)]
struct RawPin {
    name: String,
    version: String,
    sha256: String,
}

impl TryFrom<RawPin> for DepPin {
    type Error = PinError;
    fn try_from(raw: RawPin) -> Result<Self, PinError> {
        DepPin::new(raw.name, raw.version, raw.sha256)
    }
}

/// Why a pin is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    #[error(
        "the name {0:?} is not a Python distribution name (PEP 508: letters, digits, `.`, `_`, `-`)"
    )]
    Name(String),
    #[error("the version {0:?} is not a PEP 440 version")]
    Version(String),
    #[error("the sha256 {0:?} is not 64 lower-case hex digits")]
    Sha256(String),
    #[error("a pin is an object of three strings: name, version and sha256")]
    Shape,
}

/// PEP 508's distribution name (`packaging`'s `NAME` pattern, case-insensitive).
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    match b {
        [] => false,
        [c] => edge(c),
        [first, middle @ .., last] => {
            edge(first)
                && edge(last)
                && middle
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
        }
    }
}

/// PEP 440's `VERSION_PATTERN` (as `packaging.version` has it, case-insensitive), anchored
/// at both ends with no surrounding whitespace: `$` in the `regex` crate matches only at the
/// end of the text, never before a trailing newline as Python's does.
static VERSION: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?ix)^
        v?
        (?:
            (?:[0-9]+!)?
            [0-9]+(?:\.[0-9]+)*
            (?:[-_\.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_\.]?[0-9]*)?
            (?:(?:-[0-9]+)|(?:[-_\.]?(?:post|rev|r)[-_\.]?[0-9]*))?
            (?:[-_\.]?dev[-_\.]?[0-9]*)?
        )
        (?:\+[a-z0-9]+(?:[-_\.][a-z0-9]+)*)?
        $",
    )
    .expect("the PEP 440 pattern compiles")
});

fn is_version(s: &str) -> bool {
    s.is_ascii() && VERSION.is_match(s)
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

impl DepPin {
    /// A pin, if each field is what its grammar allows (see the module doc).
    pub fn new(name: String, version: String, sha256: String) -> Result<DepPin, PinError> {
        if !is_name(&name) {
            return Err(PinError::Name(name));
        }
        if !is_version(&version) {
            return Err(PinError::Version(version));
        }
        if !is_sha256(&sha256) {
            return Err(PinError::Sha256(sha256));
        }
        Ok(DepPin {
            name,
            version,
            sha256,
        })
    }

    /// A pin from one item of a lock row's `deps` list.
    pub(crate) fn from_json(item: &serde_json::Value) -> Result<DepPin, PinError> {
        let obj = item.as_object().ok_or(PinError::Shape)?;
        let s = |k: &str| {
            obj.get(k)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
                .ok_or(PinError::Shape)
        };
        DepPin::new(s("name")?, s("version")?, s("sha256")?)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// `name==version`, as consent and messages list it.
    pub fn spec(&self) -> String {
        format!("{}=={}", self.name, self.version)
    }

    /// The pin's one line in a pip requirements file: `name==version --hash=sha256:…`.
    /// Safe by construction: no field can hold a space, newline, `#`, `;` or `@`.
    pub fn requirement_line(&self) -> String {
        format!(
            "{}=={} --hash=sha256:{}\n",
            self.name, self.version, self.sha256
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pin(name: &str, version: &str, sha: &str) -> Result<DepPin, PinError> {
        DepPin::new(name.into(), version.into(), sha.into())
    }

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn real_pins_are_pins() {
        for (name, version) in [
            ("demolib", "1.0.0"),
            ("PyYAML", "6.0.2"),
            ("zope.interface", "7.2"),
            ("typing_extensions", "4.12.2"),
            ("a", "1"),
            ("x-y", "1!2.0rc1.post3.dev4+local.7"),
            ("x", "2.0.0a1"),
            ("x", "1.0-1"),
            ("x", "V1.0.POST1"),
        ] {
            assert!(pin(name, version, SHA).is_ok(), "{name} {version}");
        }
    }

    #[test]
    fn what_pip_would_read_as_syntax_is_refused() {
        let bad_names = [
            "",
            "evilpkg @ http://127.0.0.1/evil-1.tar.gz --hash=sha256:00 #",
            "a\nb",
            "-r",
            "--index-url",
            "x;python_version>'3'",
            "x[extra]",
            "x ",
            "x.",
            "é",
        ];
        for name in bad_names {
            assert_eq!(pin(name, "1.0", SHA), Err(PinError::Name(name.into())));
        }
        let bad_versions = [
            "",
            "1.0\n--index-url http://127.0.0.1/simple/",
            "1.0 #",
            "1.0\n",
            " 1.0",
            ">=1.0",
            "1.0;x",
            "1.0@x",
            "١",
        ];
        for version in bad_versions {
            assert_eq!(
                pin("x", version, SHA),
                Err(PinError::Version(version.into()))
            );
        }
        let bad_shas = [
            String::new(),
            format!("{SHA}\n--index-url http://127.0.0.1/simple/"),
            SHA.to_ascii_uppercase(),
            SHA[..63].to_owned(),
            format!("{SHA}0"),
            format!("{}g", &SHA[..63]),
        ];
        for sha in bad_shas {
            assert_eq!(pin("x", "1.0", &sha), Err(PinError::Sha256(sha.clone())));
        }
    }

    #[test]
    fn deserializing_checks_the_grammar() {
        let ok: Result<DepPin, _> =
            serde_json::from_value(serde_json::json!({"name": "x", "version": "1", "sha256": SHA}));
        assert!(ok.is_ok());
        let bad: Result<DepPin, _> = serde_json::from_value(
            serde_json::json!({"name": "x #", "version": "1", "sha256": SHA}),
        );
        assert!(bad.is_err());
    }
}
