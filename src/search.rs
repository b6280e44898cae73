//! `plugins search`: find plugins in the featured index shipped in the binary (or the file
//! `PLUGINS_FEATURED_INDEX` / `AOE_FEATURED_INDEX_PATH` names) and in the installed homes,
//! and say what `plugins install` would do for each: the command line and its effect.

use std::path::PathBuf;

use crate::dialect::Dialect;
use crate::install::featured::Index;
use crate::lock::{Entry, Lock};
use crate::store::Home;

/// One plugin found: featured, installed, or both (one hit per id and source).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Hit {
    pub id: String,
    pub dialect: Dialect,
    /// Where it installs from: the featured source, else the locked one.
    pub source: String,
    /// In the featured index: its pinned versions, newest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub featured: Option<Featured>,
    /// In a host's own catalog (protoAgent's `plugin-catalog.json`): what it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Listed>,
    /// Where it is installed.
    pub installed: Vec<Installed>,
    /// The command line that installs it.
    pub install: String,
    /// What that command does.
    pub does: String,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Featured {
    /// The versions whose files the index pins, newest first.
    pub versions: Vec<String>,
}

/// A host catalog's entry, or an index file's, as `--json` shows it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Listed {
    /// The catalog or index file read.
    pub file: PathBuf,
    /// `host_catalog` (protoAgent's own) or `index` (a file given with `--index`).
    pub listed_by: &'static str,
    #[serde(flatten)]
    pub entry: crate::host::CatalogEntry,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Installed {
    pub home: PathBuf,
    pub version: String,
    #[serde(rename = "ref")]
    pub ref_: String,
    pub commit: Option<String>,
}

/// Whether every word of `query` (case-insensitive) is in the id, the source or the
/// dialect's name; an empty query matches everything.
fn matches(query: &[String], id: &str, source: &str, dialect: Dialect) -> bool {
    let hay = format!("{id} {source} {dialect}").to_lowercase();
    query
        .iter()
        .flat_map(|q| q.split_whitespace())
        .all(|word| hay.contains(&word.to_lowercase()))
}

/// Whether every word of `query` is in a catalog or index entry: its id, source and host,
/// or its name, description and what it adds.
fn listed_matches(query: &[String], e: &crate::host::CatalogEntry, dialect: Dialect) -> bool {
    let words = format!("{} {} {} {}", e.id, e.name, e.tagline, e.adds.join(" "));
    matches(query, &words, &e.repo, dialect)
}

/// The command line that installs `e` again as it was installed: `gh:owner/repo/PATH@ref`,
/// else `URL --subdir PATH --ref REF`, else the local directory.
fn install_line(e: &Entry, home: Option<&str>) -> String {
    let at = |r: &str| {
        if r.is_empty() {
            String::new()
        } else {
            format!("@{r}")
        }
    };
    let mut line = if e.commit.as_deref().is_none_or(str::is_empty) {
        format!("plugins install {}", e.source)
    } else if e.source.starts_with("gh:") {
        let sub = e.subdir.as_ref().map_or(String::new(), |s| format!("/{s}"));
        format!("plugins install {}{sub}{}", e.source, at(&e.requested_ref))
    } else {
        let mut line = format!("plugins install {}", e.source);
        if let Some(s) = &e.subdir {
            line.push_str(&format!(" --subdir {s}"));
        }
        if !e.requested_ref.is_empty() {
            line.push_str(&format!(" --ref {}", e.requested_ref));
        }
        line
    };
    if let Some(h) = home {
        line.push_str(&format!(" --home {h}"));
    }
    line
}

/// The semver-greatest first; versions that are not semver after them, as written.
fn newest_first(versions: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = versions.collect();
    v.sort_by(|a, b| {
        match (semver::Version::parse(a), semver::Version::parse(b)) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            (Ok(_), Err(_)) => std::cmp::Ordering::Greater,
            (Err(_), Ok(_)) => std::cmp::Ordering::Less,
            (Err(_), Err(_)) => b.cmp(a),
        }
        .reverse()
    });
    v
}

/// A catalog entry as a hit: not yet installed (an installed one joins its row's hit).
fn catalog_hit(
    (file, listed_by): (&std::path::Path, &'static str),
    e: &crate::host::CatalogEntry,
    dialect: Dialect,
    home: Option<&str>,
) -> Hit {
    let mut install = format!("plugins install {}", e.repo);
    if let Some(h) = home {
        install.push_str(&format!(" --home {h}"));
    }
    let adds = if e.adds.is_empty() {
        String::new()
    } else {
        format!(" (adds: {})", e.adds.join(", "))
    };
    let does = if e.bundled {
        format!(
            "nothing: {dialect} ships {} itself, and its installer refuses to install over a built-in",
            e.id
        )
    } else {
        let what = if e.name.is_empty() { &e.id } else { &e.name };
        let tagline = if e.tagline.is_empty() {
            String::new()
        } else {
            format!(": {}", e.tagline)
        };
        format!("installs {what}{tagline}{adds}")
    };
    Hit {
        id: e.id.clone(),
        dialect,
        source: e.repo.clone(),
        featured: None,
        catalog: Some(Listed {
            file: file.to_path_buf(),
            listed_by,
            entry: e.clone(),
        }),
        installed: Vec::new(),
        install,
        does,
    }
}

/// An index file a user adds (`plugins search --index FILE`), in the documented format
/// (`docs/schema/index.json`): `{"format_version": 1, "plugins": [{"id", "dialect",
/// "source", "name", "description", "adds"}]}`. Hostile input: read bounded, every field
/// checked, and every source must be one `plugins install` takes.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    format_version: u32,
    plugins: Vec<IndexEntry>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexEntry {
    id: String,
    dialect: Dialect,
    source: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    adds: Vec<String>,
}

/// Why an index file cannot be searched.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read the index {path}: {why}")]
    Read { path: String, why: String },
    #[error("{path} is not a plugins index: {why}")]
    Format { path: String, why: String },
    #[error("{path}: plugin {id:?}: {why}")]
    Entry {
        path: String,
        id: String,
        why: String,
    },
}

impl crate::refusal::NamedRefusal for IndexError {
    fn code(&self) -> crate::diagnostic::Code {
        crate::diagnostic::Code::SearchIndex
    }

    fn help(&self) -> Option<String> {
        Some("an index is JSON as docs/schema/index.json describes it: {\"format_version\": 1, \"plugins\": [{\"id\", \"dialect\", \"source\", \"name\", \"description\", \"adds\"}]}, each source one `plugins install` takes".to_owned())
    }
}

/// The most bytes an index file is read up to.
const MAX_INDEX: u64 = 16 << 20;

/// An index file, read: its path and its entries, each with its host.
pub struct UserIndex {
    pub file: PathBuf,
    pub entries: Vec<(Dialect, crate::host::CatalogEntry)>,
}

/// Read the index `at`: a file, or an `https://` URL (`http://` only on this machine),
/// read up to 16 MiB; sources are checked as `plugins install` parses them, with `gh_base`.
pub fn load_index(at: &str, cwd: &std::path::Path, gh_base: &str) -> Result<UserIndex, IndexError> {
    let remote = at.starts_with("https://") || at.starts_with("http://");
    let shown = if remote {
        crate::auth::redact(at)
    } else {
        cwd.join(at).display().to_string()
    };
    let read = |why: String| IndexError::Read {
        path: shown.clone(),
        why,
    };
    let (file, bytes) = if remote {
        let loopback = crate::auth::host(at).is_some_and(|h| crate::net::is_loopback(&h));
        if at.starts_with("http://") && !loopback {
            return Err(read(
                "http:// is cleartext: anyone on the path could change what it lists; use https://"
                    .into(),
            ));
        }
        let bytes = crate::release::get_at_most(at, MAX_INDEX).map_err(|e| read(e.to_string()))?;
        (PathBuf::from(&shown), bytes)
    } else {
        let path = cwd.join(at);
        let bytes = crate::file::read_at_most(&path, MAX_INDEX)
            .map_err(|e| read(crate::file::reason(&e).into_owned()))?;
        (path, bytes)
    };
    let index: IndexFile = serde_json::from_slice(&bytes).map_err(|e| IndexError::Format {
        path: shown.clone(),
        why: e.to_string(),
    })?;
    if index.format_version != 1 {
        return Err(IndexError::Format {
            path: shown,
            why: format!("format_version {} (plugins reads 1)", index.format_version),
        });
    }
    let mut entries = Vec::new();
    for e in index.plugins {
        let bad = |why: String| IndexError::Entry {
            path: shown.clone(),
            id: e.id.clone(),
            why,
        };
        crate::name::Name::new(&e.id).map_err(|why| bad(why.to_string()))?;
        crate::source::parse(&e.source, None, gh_base).map_err(|why| bad(why.to_string()))?;
        entries.push((
            e.dialect,
            crate::host::CatalogEntry {
                id: e.id,
                name: e.name,
                category: String::new(),
                official: false,
                repo: e.source,
                tagline: e.description,
                adds: e.adds,
                bundled: false,
                installed: None,
            },
        ));
    }
    Ok(UserIndex { file, entries })
}

/// `[search] indexes = ["FILE or URL", …]` of `home`'s `plugins.toml` (a relative file is
/// taken against the home); none when the file or table is absent.
pub fn configured(home: &crate::store::Home) -> Result<Vec<String>, IndexError> {
    let path = home.settings();
    let bad = |why: String| IndexError::Format {
        path: path.display().to_string(),
        why,
    };
    let text = match crate::file::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(bad(crate::file::reason(&e).into_owned())),
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| bad(e.message().to_owned()))?;
    let Some(search) = table.get("search") else {
        return Ok(Vec::new());
    };
    let indexes = search.as_table().and_then(|t| t.get("indexes")).map(|v| {
        v.as_array().and_then(|a| {
            a.iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        })
    });
    match indexes {
        None => Ok(Vec::new()),
        Some(Some(list)) => Ok(list
            .into_iter()
            .map(|i| {
                if i.contains("://") || std::path::Path::new(&i).is_absolute() {
                    i
                } else {
                    home.root.join(i).display().to_string()
                }
            })
            .collect()),
        Some(None) => Err(bad(
            "[search] indexes must be a list of index files or URLs: indexes = [\"team-index.json\"]".into(),
        )),
    }
}

/// Search `index` and the `homes` for `query`. `home` is the `--home` the user gave,
/// repeated in the install command lines. Hits are sorted by id.
pub fn search(
    query: &[String],
    index: &Index,
    indexes: &[UserIndex],
    homes: &[(Home, Lock)],
    home: Option<&str>,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    // The index files given with `--index`, each entry a hit (an installed one joins its row).
    for ix in indexes {
        for (dialect, e) in &ix.entries {
            if listed_matches(query, e, *dialect) {
                hits.push(catalog_hit((&ix.file, "index"), e, *dialect, home));
            }
        }
    }
    // The featured index is the host's whose install policy has one (aoe).
    if let Some(dialect) = crate::dialect::ALL
        .into_iter()
        .find(|d| crate::host::install_policy(*d).featured_index)
    {
        for (id, f) in &index.plugins {
            if matches(query, id, &f.source, dialect) {
                hits.push(featured_hit(id, f, dialect, home));
            }
        }
    }
    for (home_dir, lock) in homes {
        installed_hits(query, (home_dir, lock), home, &mut hits);
    }
    hits.sort_by(|a, b| a.id.cmp(&b.id).then_with(|| a.source.cmp(&b.source)));
    hits
}

/// A featured plugin as a hit (`dialect`: the host whose index it is in): what its
/// versions pinned in the index make of an install from its source.
fn featured_hit(
    id: &str,
    f: &crate::install::featured::Featured,
    dialect: Dialect,
    home: Option<&str>,
) -> Hit {
    let versions = newest_first(f.versions.keys().cloned());
    let pinned = match versions.as_slice() {
        [] => "no version is pinned yet, so it installs as a community plugin".to_owned(),
        [one] => format!("featured-verified when it is the pinned {one}"),
        [newest, rest @ ..] => format!(
            "featured-verified when it is one of the {} pinned versions ({newest} and {} earlier)",
            rest.len() + 1,
            rest.len()
        ),
    };
    let mut install = format!("plugins install {}", f.source);
    if let Some(h) = home {
        install.push_str(&format!(" --home {h}"));
    }
    Hit {
        id: id.to_owned(),
        dialect,
        source: f.source.clone(),
        featured: Some(Featured { versions }),
        catalog: None,
        installed: Vec::new(),
        install,
        does: format!(
            "installs the latest GitHub release of {}; {pinned}",
            f.source.trim_start_matches("gh:")
        ),
    }
}

/// The hits of one home: its host's catalog entries not yet found, and its lock's rows
/// (each joins the hit of its featured source or catalog entry, else is one of its own).
fn installed_hits(
    query: &[String],
    (home_dir, lock): (&Home, &Lock),
    home: Option<&str>,
    hits: &mut Vec<Hit>,
) {
    let dialect = &home_dir.dialect;
    let rows = lock.entries();
    // The host's own catalog (protoAgent's), matched against the lock as the host does.
    let catalog = crate::host::catalog(home_dir, &rows);
    for (c, e) in catalog
        .iter()
        .flat_map(|c| c.entries.iter().map(move |e| (c, e)))
    {
        let seen = hits.iter().any(|h| h.id == e.id && h.catalog.is_some());
        if seen || !listed_matches(query, e, *dialect) {
            continue;
        }
        hits.push(catalog_hit((&c.file, "host_catalog"), e, *dialect, home));
    }
    for e in rows {
        if !matches(query, &e.id, &e.source, *dialect) {
            continue;
        }
        let installed = Installed {
            home: home_dir.root.clone(),
            version: e.version.clone(),
            ref_: e.requested_ref.clone(),
            commit: e.commit.clone(),
        };
        let does = format!(
            "installed in {} ({}): installing it again at the same commit changes nothing; `plugins update {}` takes a newer version",
            home_dir.root.display(),
            e.version,
            e.id
        );
        if let Some(hit) = joined(hits, &e) {
            hit.installed.push(installed);
            hit.does = if hit.source.eq_ignore_ascii_case(&e.source) {
                does
            } else {
                format!(
                    "{}; installed from {} in {} ({})",
                    hit.does,
                    e.source,
                    home_dir.root.display(),
                    e.version
                )
            };
            continue;
        }
        hits.push(Hit {
            id: e.id.clone(),
            dialect: *dialect,
            source: e.source.clone(),
            featured: None,
            catalog: None,
            installed: vec![installed],
            install: install_line(&e, home),
            does,
        });
    }
}

/// The hit an installed row `e` joins: a featured plugin installed from its featured
/// source, or a catalog entry installed as this row.
fn joined<'h>(hits: &'h mut [Hit], e: &Entry) -> Option<&'h mut Hit> {
    hits.iter_mut().find(|h| {
        (h.id == e.id && h.featured.is_some() && h.source.eq_ignore_ascii_case(&e.source))
            || h.catalog.as_ref().is_some_and(|l| {
                l.entry.installed.as_deref() == Some(e.id.as_str())
                    || (l.listed_by == "index"
                        && h.id == e.id
                        && h.source.eq_ignore_ascii_case(&e.source))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_must_all_match_in_any_field() {
        let q = |s: &str| vec![s.to_owned()];
        let gh = "gh:agent-of-empires/plugin-github";
        let d = crate::dialect::ALL[0];
        assert!(matches(&[], "x", "y", d));
        assert!(matches(&q("GitHub"), "agent-of-empires.github", gh, d));
        assert!(matches(&q("plugin-github empires"), "x", gh, d));
        assert!(!matches(
            &q("github kanban"),
            "agent-of-empires.github",
            gh,
            d
        ));
    }

    #[test]
    fn the_builtin_index_is_searched() {
        let hits = search(&["github".to_owned()], &Index::builtin(), &[], &[], None);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            hits[0].install,
            "plugins install gh:agent-of-empires/plugin-github"
        );
        assert_eq!(
            hits[0]
                .featured
                .as_ref()
                .unwrap()
                .versions
                .first()
                .map(String::as_str),
            Some("1.7.0")
        );
        assert!(
            search(
                &["no-such-plugin".to_owned()],
                &Index::builtin(),
                &[],
                &[],
                None
            )
            .is_empty()
        );
    }
}
