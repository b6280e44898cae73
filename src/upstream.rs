//! Where `plugins` itself comes from: `Cargo.toml`'s `repository` and `version`, the one
//! place that names the project's home. SARIF's `informationUri`, the language server's
//! links to docs/diagnostics.md, the JSON Schemas' `$id` and the CI workflow `plugins new`
//! writes all read it from here; `install.sh` reads `Cargo.toml` itself, and
//! tests/cli/upstream.rs fails on any other copy of the URL in the repository.
//!
//! `repository` is unset until the project has a public home: no release of `plugins` is
//! published anywhere yet, so nothing may point at one. Until then each consumer leaves the
//! link out or works from an override (`plugins new --ci-from URL`, `PLUGINS_REPOSITORY`
//! for `install.sh` and the Action) and says that no published release exists yet.

/// The version being built (`Cargo.toml`'s `version`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What every consumer says while `repository` is unset.
pub const NO_RELEASE: &str = "no published release of `plugins` exists yet";

/// `Cargo.toml`'s `repository` (`https://github.com/owner/name`), without a trailing
/// slash; `None` while it is unset.
pub fn repository() -> Option<&'static str> {
    let repo = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    (!repo.is_empty()).then_some(repo)
}

/// The GitHub release of this version, where release.yml publishes the archives
/// (`<repository>/releases/download/v<version>`); `None` while `repository` is unset.
pub fn release_download() -> Option<String> {
    repository().map(|repo| format!("{repo}/releases/download/v{VERSION}"))
}

/// A file of this repository at this version's tag (`<repository>/blob/v<version>/<path>`).
pub fn file_url(path: &str) -> Option<String> {
    repository().map(|repo| format!("{repo}/blob/v{VERSION}/{path}"))
}

/// The `$id` of a schema `plugins` publishes as docs/schema/`file`: where that file is at
/// this version's tag; `None` (no `$id`) while `repository` is unset.
pub fn schema_id(file: &str) -> Option<String> {
    file_url(&format!("docs/schema/{file}"))
}

/// Give `schema` the `$id` of its published copy docs/schema/`file`, right after its
/// `$schema`; none while `repository` is unset.
pub fn identify(schema: &mut serde_json::Value, file: &str) {
    if let (Some(map), Some(id)) = (schema.as_object_mut(), schema_id(file)) {
        let at = usize::from(map.contains_key("$schema"));
        map.shift_insert(at, "$id".to_owned(), serde_json::Value::String(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_link_follows_the_repository() {
        match repository() {
            None => {
                assert_eq!(release_download(), None);
                assert_eq!(schema_id("x.json"), None);
            }
            Some(repo) => {
                assert!(repo.starts_with("https://"), "{repo}");
                assert_eq!(
                    schema_id("x.json").unwrap(),
                    format!("{repo}/blob/v{VERSION}/docs/schema/x.json")
                );
            }
        }
    }
}
