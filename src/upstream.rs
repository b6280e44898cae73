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

/// A home for the project: its repository URL, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Home(Option<&'static str>);

/// This build's home, `Cargo.toml`'s `repository`.
const THIS: Home = Home(match env!("CARGO_PKG_REPOSITORY").as_bytes() {
    [] => None,
    _ => Some(env!("CARGO_PKG_REPOSITORY")),
});

impl Home {
    fn repository(self) -> Option<&'static str> {
        self.0.map(|r| r.trim_end_matches('/'))
    }

    fn release_download(self) -> Option<String> {
        self.repository()
            .map(|repo| format!("{repo}/releases/download/v{VERSION}"))
    }

    fn file_url(self, path: &str) -> Option<String> {
        self.repository()
            .map(|repo| format!("{repo}/blob/v{VERSION}/{path}"))
    }

    fn identify(self, schema: &mut serde_json::Value, file: &str) {
        let id = self.file_url(&format!("docs/schema/{file}"));
        if let (Some(map), Some(id)) = (schema.as_object_mut(), id) {
            let at = usize::from(map.contains_key("$schema"));
            map.shift_insert(at, "$id".to_owned(), serde_json::Value::String(id));
        }
    }
}

/// `Cargo.toml`'s `repository` (`https://github.com/owner/name`), without a trailing
/// slash; `None` while it is unset.
pub fn repository() -> Option<&'static str> {
    THIS.repository()
}

/// The GitHub release of this version, where release.yml publishes the archives
/// (`<repository>/releases/download/v<version>`); `None` while `repository` is unset.
pub fn release_download() -> Option<String> {
    THIS.release_download()
}

/// A file of this repository at this version's tag (`<repository>/blob/v<version>/<path>`).
pub fn file_url(path: &str) -> Option<String> {
    THIS.file_url(path)
}

/// Give `schema` the `$id` of its published copy docs/schema/`file` (where that file is at
/// this version's tag), right after its `$schema`; none while `repository` is unset.
pub fn identify(schema: &mut serde_json::Value, file: &str) {
    THIS.identify(schema, file);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_a_repository_nothing_links_anywhere() {
        let home = Home(None);
        assert_eq!(home.release_download(), None);
        assert_eq!(home.file_url("docs/diagnostics.md"), None);
        let mut schema = json!({ "$schema": "s", "title": "t" });
        home.identify(&mut schema, "x.json");
        assert_eq!(schema, json!({ "$schema": "s", "title": "t" }));
    }

    #[test]
    fn with_a_repository_every_link_is_under_it_at_this_version() {
        let home = Home(Some("https://example.com/someone/tool/"));
        let repo = "https://example.com/someone/tool";
        assert_eq!(home.repository(), Some(repo));
        assert_eq!(
            home.release_download().unwrap(),
            format!("{repo}/releases/download/v{VERSION}")
        );
        let mut schema = json!({ "$schema": "s", "title": "t" });
        home.identify(&mut schema, "x.json");
        let keys: Vec<&String> = schema.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["$schema", "$id", "title"]);
        assert_eq!(
            schema["$id"],
            format!("{repo}/blob/v{VERSION}/docs/schema/x.json")
        );
    }

    #[test]
    fn this_build_is_cargo_toml_s() {
        let set = !env!("CARGO_PKG_REPOSITORY").is_empty();
        assert_eq!(repository().is_some(), set);
    }
}
