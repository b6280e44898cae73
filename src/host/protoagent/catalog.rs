//! protoAgent's own catalog of installable plugins (`plugin-catalog.json`,
//! `protoagent-0218.md` §8.1): the instance's `config/plugin-catalog.json` when it exists,
//! else the one bundled in the host's package, read whole (no merge), as the host reads it.
//! An entry is installed when its normalised `repo` is a locked row's normalised source URL
//! or its id is locked, and bundled when the host's installer calls its id built-in.

use std::path::{Path, PathBuf};

use crate::host::{Catalog, CatalogEntry};
use crate::lock::Entry;
use crate::store::Home;

/// The most bytes a catalog is read up to (0.218.1's is about 9 KB).
const MAX_BYTES: u64 = 4 << 20;

#[derive(serde::Deserialize)]
struct File {
    #[serde(default)]
    plugins: Vec<serde_json::Value>,
}

/// The host's normalisation of a repository URL: stripped, trailing `/` and `.git`
/// removed, lower-cased.
fn normalised(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    url.strip_suffix(".git").unwrap_or(url).to_lowercase()
}

/// The catalog the host would show for `home`: the instance's, else the bundled one in
/// `site` (the host package's `site-packages`, from the home's probe record).
pub(crate) fn load(home: &Home, site: Option<&Path>, rows: &[Entry]) -> Option<Catalog> {
    let instance = home.root.join("config").join("plugin-catalog.json");
    let file: PathBuf = if instance.is_file() {
        instance
    } else {
        site?.join("config").join("plugin-catalog.json")
    };
    let bytes = crate::file::read_at_most(&file, MAX_BYTES).ok()?;
    let parsed: File = serde_json::from_slice(&bytes).ok()?;
    let entries = parsed
        .plugins
        .iter()
        .filter_map(|p| {
            let s = |k: &str| {
                p.get(k)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            };
            let id = s("id")?;
            let repo = s("repo").or_else(|| s("install_url"))?;
            // Only what `plugins install` takes as a GitHub source: a repository or one of
            // its directories at a ref (`…/tree/REF/PATH`), parsed as install parses it (a
            // newline, a `..` path or userinfo in it is no source).
            if !repo.starts_with("https://github.com/")
                || crate::source::parse(&repo, None, "https://github.com").is_err()
                || crate::name::Name::new(&id).is_err()
            {
                return None;
            }
            let key = normalised(&repo);
            let installed = rows
                .iter()
                .find(|r| {
                    r.id == id || normalised(r.host_source.as_deref().unwrap_or(&r.source)) == key
                })
                .map(|r| r.id.clone());
            Some(CatalogEntry {
                bundled: super::manifest::is_bundled(&id, super::manifest::Profile::V0218),
                name: s("name").unwrap_or_default(),
                category: s("category").unwrap_or_default(),
                tagline: s("tagline").unwrap_or_default(),
                official: p.get("official").and_then(serde_json::Value::as_bool) == Some(true),
                adds: p
                    .get("adds")
                    .and_then(serde_json::Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|w| w.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
                id,
                repo,
                installed,
            })
        })
        .collect();
    Some(Catalog { file, entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_normalised_as_the_host_does() {
        assert_eq!(
            normalised(" https://github.com/ProtoLabsAI/Discord-Plugin.git/ "),
            "https://github.com/protolabsai/discord-plugin"
        );
    }
}
