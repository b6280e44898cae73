//! aoe's featured index (spec `aoe.md` §17, "Gates, in order" 1–2): which plugin ids are
//! featured, the one source each comes from, and the tree hash pinned for each version.
//! A featured-verified install may use the reserved `aoe.*` / `agent-of-empires.*`
//! namespace and is locked with `trust = "featured"`.
//!
//! The built-in table holds the facts of aoe's `plugins/featured.toml` (agent-of-empires
//! at `0f3b4229`); `PLUGINS_FEATURED_INDEX` / `AOE_FEATURED_INDEX_PATH` names a file in
//! the same schema that replaces it, as aoe's override does.

use std::collections::BTreeMap;
use std::path::Path;

use super::{InstallError, Refusal};

/// (id, source, [(version, tree hash)]) as aoe pins them.
type Pinned = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const BUILTIN: &[Pinned] = &[(
    "agent-of-empires.github",
    "gh:agent-of-empires/plugin-github",
    &[
        (
            "0.1.0",
            "sha256:6b506512d4efbc8a70c4d989188e701e547f5c35bd690c28276df435ced940fc",
        ),
        (
            "1.0.0",
            "sha256:b2f293d77244b03ddd98deb4426e96a09184a9454e2424bdd00a8e9d93ff4388",
        ),
        // 1.1.0 is left unpinned upstream (it builds a venv into the source root).
        (
            "1.2.0",
            "sha256:e5fe509a3e7d39030350d7ee7efcd94623e9ec8ce7707a121804ec95212aba8a",
        ),
        (
            "1.3.0",
            "sha256:112fc40480a0dff2abacaa38062f619653a8153ac61bfeab9f14721090ee8e28",
        ),
        (
            "1.4.0",
            "sha256:f2d231e8d0877a8092c75efaa06016359be8da30c2c4a9ffe88ee7c7f3dfac18",
        ),
        (
            "1.5.0",
            "sha256:c61ae57dd94baf895869279a0ebe63a4bf478c3356a26077a6f269ee16eb5685",
        ),
        (
            "1.6.0",
            "sha256:353e30d21a5ceee9c7522cec0ab49f2e66a234c6f6a318a40ec24bd9436de903",
        ),
        (
            "1.6.1",
            "sha256:b3067c0483b4fc12d32d5084809190216fe53a1c1e471dabfe8748bf37592511",
        ),
        (
            "1.7.0",
            "sha256:98e8c88e133de38df499433ec0a8dc0b1831066a4fc4d37a3bf275dcc6f21606",
        ),
    ],
)];

/// One featured plugin: its source slug and version → tree hash.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct Featured {
    pub source: String,
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
}

/// The featured index: id → featured plugin.
#[derive(Clone, Debug, PartialEq, Eq, Default, serde::Deserialize)]
pub struct Index {
    #[serde(default)]
    pub plugins: BTreeMap<String, Featured>,
}

impl Index {
    /// The index compiled in.
    pub fn builtin() -> Index {
        let plugins = BUILTIN
            .iter()
            .map(|(id, source, versions)| {
                let versions = versions
                    .iter()
                    .map(|(v, h)| ((*v).to_owned(), (*h).to_owned()))
                    .collect();
                (
                    (*id).to_owned(),
                    Featured {
                        source: (*source).to_owned(),
                        versions,
                    },
                )
            })
            .collect();
        Index { plugins }
    }

    /// The override file when one is named, else the built-in index.
    pub fn load(path: Option<&Path>) -> Result<Index, InstallError> {
        let Some(path) = path else {
            return Ok(Index::builtin());
        };
        let bad = |why: String| {
            InstallError::from(Refusal::FeaturedIndex {
                path: path.to_path_buf(),
                why,
            })
        };
        let text = crate::file::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        toml::from_str(&text).map_err(|e: toml::de::Error| bad(e.message().to_owned()))
    }

    /// aoe's `verify_featured`: `Ok(true)` when `id` is featured and `tree_hash` is
    /// one of its pinned versions; `Ok(false)` for a community plugin; a refusal when a
    /// featured id comes from another source or ships a release-binary worker.
    pub fn verify(
        &self,
        id: &str,
        slug: &str,
        tree_hash: &str,
        release_binary: bool,
    ) -> Result<bool, InstallError> {
        let Some(f) = self.plugins.get(id) else {
            return Ok(false);
        };
        if !f.source.eq_ignore_ascii_case(slug) {
            return Err(Refusal::FeaturedElsewhere {
                id: id.to_owned(),
                featured: f.source.clone(),
                slug: slug.to_owned(),
            }
            .into());
        }
        if release_binary {
            return Err(Refusal::FeaturedReleaseBinary { id: id.to_owned() }.into());
        }
        Ok(f.versions.values().any(|h| h == tree_hash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Code;

    const HUB: &str = "sha256:b3067c0483b4fc12d32d5084809190216fe53a1c1e471dabfe8748bf37592511";

    #[test]
    fn pinned_hashes_verify_and_others_are_community() {
        let index = Index::builtin();
        let id = "agent-of-empires.github";
        assert!(
            index
                .verify(id, "gh:Agent-of-Empires/Plugin-GitHub", HUB, false)
                .unwrap()
        );
        assert!(
            !index
                .verify(id, "gh:agent-of-empires/plugin-github", "sha256:00", false)
                .unwrap()
        );
        assert!(!index.verify("dev.x.y", "gh:o/r", HUB, false).unwrap());
        let e = index
            .verify(id, "gh:fork/plugin-github", HUB, false)
            .unwrap_err();
        assert_eq!(e.code(), Code::InstallFeatured);
        assert_eq!(
            e.to_string(),
            "agent-of-empires.github is featured from \"gh:agent-of-empires/plugin-github\" but you are installing from \"gh:fork/plugin-github\"; refusing install"
        );
        let e = index
            .verify(id, "gh:agent-of-empires/plugin-github", HUB, true)
            .unwrap_err();
        assert!(
            e.to_string().contains("ships a release-binary worker"),
            "{e}"
        );
    }

    /// The built-in table carries exactly the facts of aoe's published index.
    #[test]
    #[allow(clippy::disallowed_methods)] // a test's own switch, not the program's environment
    fn builtin_matches_the_corpus_index() {
        let corpus = std::env::var_os("PLUGINS_CORPUS_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
        let path = corpus.join("aoe/featured.toml");
        if !path.is_file() {
            assert!(std::env::var_os("CI").is_none(), "no {}", path.display());
            return;
        }
        assert_eq!(Index::load(Some(&path)).unwrap(), Index::builtin());
    }
}
