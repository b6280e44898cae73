//! Where a plugin sits on disk: the plugin root above a directory (found as
//! cargo and git find theirs) and the repository root that CI annotations and
//! SARIF paths are relative to. Reads the file system, never writes.

use std::path::{Component, Path, PathBuf};

/// The git work tree holding `path`: the nearest ancestor (or `path` itself)
/// with a `.git` directory or file (worktrees and submodules have a file).
/// The result is canonical; `None` outside a repository.
pub fn repo_root(path: &Path) -> Option<PathBuf> {
    RepoRoots::default().root(path)
}

/// [`repo_root`] for the many plugin roots of one command: what each directory above a
/// root answered is kept, so sibling roots look for `.git` in the ancestors they share
/// once (`validate -r --format github` looked in every ancestor of every root again:
/// docs/PERFORMANCE.md, issue 43). A root's own answer is not kept: it is asked once.
#[derive(Default)]
pub struct RepoRoots(std::collections::HashMap<PathBuf, Option<PathBuf>>);

impl RepoRoots {
    /// [`repo_root`] of `path`.
    pub fn root(&mut self, path: &Path) -> Option<PathBuf> {
        self.root_of_canonical(&fs_err::canonicalize(path).ok()?)
    }

    /// [`RepoRoots::root`] of a path already canonical.
    pub fn root_of_canonical(&mut self, start: &Path) -> Option<PathBuf> {
        let mut asked = Vec::new();
        let mut found = None;
        for dir in start.ancestors() {
            if let Some(known) = self.0.get(dir) {
                found.clone_from(known);
                break;
            }
            asked.push(dir);
            if fs_err::symlink_metadata(dir.join(".git")).is_ok() {
                found = Some(dir.to_path_buf());
                break;
            }
        }
        // Each directory asked lies at or below the answer, so the answer is its too.
        for dir in asked.into_iter().skip(1) {
            self.0.insert(dir.to_path_buf(), found.clone());
        }
        found
    }

    /// `path` (a file under `root`) relative to the root of the repository holding
    /// `root`; `None` outside a repository. `canonical`: `root`'s canonical path, when
    /// the caller knows it (recursive discovery does), so it is not resolved again.
    pub fn relative(
        &mut self,
        path: &Path,
        root: &Path,
        canonical: Option<&Path>,
    ) -> Option<String> {
        let repo = match canonical {
            Some(start) => self.root_of_canonical(start),
            None => self.root(root),
        };
        relative_to_in(path, &repo?, canonical.map(|c| (root, c)))
    }
}

/// The directory report paths are relative to: the repository holding
/// `root` (the first plugin), else the current directory's repository, else
/// the current directory itself.
pub fn base_dir(root: Option<&Path>) -> PathBuf {
    let cwd = std::env::current_dir().ok();
    root.and_then(repo_root)
        .or_else(|| cwd.as_deref().and_then(repo_root))
        .or_else(|| cwd.and_then(|d| fs_err::canonicalize(d).ok()))
        .unwrap_or_default()
}

/// The plugin root at or above `dir`, as a path relative to `dir` (`.`, `..`,
/// `../..`), so reports keep naming files relative to where the user stands.
///
/// `dir` itself may be any plugin root, an AWorld legacy one included. Above it
/// only a directory holding a manifest file counts (a stray `skills/` folder
/// in a home directory is not a plugin), and the search stops at the
/// repository root, which a plugin never sits above.
pub fn find_plugin_root(dir: &Path) -> Option<PathBuf> {
    if crate::host::detect_first(dir).is_some() {
        return Some(PathBuf::from("."));
    }
    let start = fs_err::canonicalize(dir).ok()?;
    let stop = repo_root(&start);
    let mut up = PathBuf::new();
    for ancestor in start.ancestors().skip(1) {
        up.push("..");
        let has_manifest = crate::dialect::ALL
            .iter()
            .any(|d| fs_err::symlink_metadata(ancestor.join(d.spec().manifest)).is_ok());
        if has_manifest {
            return Some(up);
        }
        if stop.as_deref() == Some(ancestor) {
            break;
        }
    }
    None
}

/// `path` relative to `base` (a canonical repository root), with `/`
/// separators; `None` when it lies outside `base` or does not exist.
/// The last component is kept as is, so a symlinked manifest is named by its
/// own path rather than its target's.
pub fn relative_to(path: &Path, base: &Path) -> Option<String> {
    relative_to_in(path, base, None)
}

/// [`relative_to`], given `known`: a directory at or above `path` and its canonical path
/// (a plugin root recursive discovery found). The directories from it down to `path`'s
/// are then asked one `lstat` each, not resolved from `/` again (docs/PERFORMANCE.md,
/// issue 43); a symlink among them, or anything unusual, takes the full resolution.
pub fn relative_to_in(path: &Path, base: &Path, known: Option<(&Path, &Path)>) -> Option<String> {
    let absolute = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            let resolved = known.and_then(|(dir, canonical)| below(dir, canonical, parent));
            match resolved {
                Some(resolved) => resolved.join(name),
                None => fs_err::canonicalize(parent).ok()?.join(name),
            }
        }
        _ => fs_err::canonicalize(path).ok()?,
    };
    let rel = absolute.strip_prefix(base).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Option<_>>()?;
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// The canonical path of `path`, a directory at or below `dir` (whose canonical path is
/// `canonical`) through names that are directories and not symlinks; `None` otherwise.
fn below(dir: &Path, canonical: &Path, path: &Path) -> Option<PathBuf> {
    let rest = path.strip_prefix(dir).ok()?;
    let mut resolved = canonical.to_path_buf();
    let mut at = dir.to_path_buf();
    for c in rest.components() {
        let Component::Normal(name) = c else {
            return None;
        };
        at.push(name);
        if !fs_err::symlink_metadata(&at).is_ok_and(|m| m.is_dir()) {
            return None;
        }
        resolved.push(name);
    }
    Some(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_root_and_relative_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs_err::create_dir_all(repo.join(".git")).unwrap();
        fs_err::create_dir_all(repo.join("plugins/kanban")).unwrap();
        fs_err::write(repo.join("plugins/kanban/aoe-plugin.toml"), "").unwrap();
        let root = repo_root(&repo.join("plugins/kanban")).unwrap();
        assert_eq!(root, fs_err::canonicalize(&repo).unwrap());
        assert_eq!(
            relative_to(&repo.join("plugins/kanban/aoe-plugin.toml"), &root).as_deref(),
            Some("plugins/kanban/aoe-plugin.toml")
        );
        assert_eq!(relative_to(&repo, &root).as_deref(), Some("."));
        assert_eq!(relative_to(tmp.path(), &root), None, "outside the repo");
        assert_eq!(repo_root(tmp.path()), None);
    }

    /// One `RepoRoots` asked about many paths, in an order that answers later ones from
    /// what earlier ones found, agrees with a fresh search for each: nested repositories
    /// (a submodule's `.git` file), paths outside any, a root that is a repository.
    #[test]
    fn kept_answers_agree_with_a_fresh_search() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        for dir in ["a/one", "a/two", "sub/x/three", "sub/four", "own/.git"] {
            fs_err::create_dir_all(repo.join(dir)).unwrap();
        }
        fs_err::create_dir_all(repo.join(".git")).unwrap();
        fs_err::write(repo.join("sub/.git"), "gitdir: ../.git/modules/sub\n").unwrap();
        fs_err::create_dir_all(tmp.path().join("out/five")).unwrap();
        let paths = [
            "repo/a/one",
            "repo/sub/four",
            "repo/sub/x/three",
            "repo/a/two",
            "repo/own",
            "repo",
            "out/five",
            "repo/sub",
            "missing",
        ];
        let mut kept = RepoRoots::default();
        for order in [paths.to_vec(), paths.iter().rev().copied().collect()] {
            for p in order {
                let p = tmp.path().join(p);
                assert_eq!(kept.root(&p), repo_root(&p), "{}", p.display());
            }
        }
        let sub = fs_err::canonicalize(repo.join("sub")).unwrap();
        assert_eq!(kept.root(&repo.join("sub/x/three")), Some(sub));
        assert_eq!(kept.root(&tmp.path().join("out/five")), None);
    }

    /// Knowing a root's canonical path changes no answer: a manifest at the root, in a
    /// directory below it, in a symlinked directory (resolved in full), a root reached
    /// through a symlink, a missing manifest, one outside the repository.
    #[cfg(unix)]
    #[test]
    fn a_known_root_gives_the_same_relative_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs_err::create_dir_all(repo.join(".git")).unwrap();
        fs_err::create_dir_all(repo.join("p/.aworld-plugin")).unwrap();
        fs_err::create_dir_all(repo.join("elsewhere")).unwrap();
        fs_err::create_dir_all(tmp.path().join("outside")).unwrap();
        std::os::unix::fs::symlink(repo.join("elsewhere"), repo.join("p/linked")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("outside"), repo.join("p/out")).unwrap();
        std::os::unix::fs::symlink(repo.join("p"), tmp.path().join("via")).unwrap();
        for f in [
            "p/aoe-plugin.toml",
            "p/.aworld-plugin/plugin.json",
            "elsewhere/x.yaml",
            "../outside/y.yaml",
        ] {
            fs_err::write(repo.join(f), "").unwrap();
        }
        let base = fs_err::canonicalize(&repo).unwrap();
        for root in [repo.join("p"), tmp.path().join("via")] {
            let canonical = fs_err::canonicalize(&root).unwrap();
            for file in [
                "aoe-plugin.toml",
                ".aworld-plugin/plugin.json",
                "linked/x.yaml",
                "out/y.yaml",
                "missing/z",
                "gone.toml",
            ] {
                let path = root.join(file);
                assert_eq!(
                    relative_to_in(&path, &base, Some((&root, &canonical))),
                    relative_to(&path, &base),
                    "{}",
                    path.display()
                );
            }
        }
        let at = |f: &str| {
            relative_to_in(
                &repo.join("p").join(f),
                &base,
                Some((&repo.join("p"), &base.join("p"))),
            )
        };
        assert_eq!(at("linked/x.yaml").as_deref(), Some("elsewhere/x.yaml"));
        assert_eq!(
            at(".aworld-plugin/plugin.json").as_deref(),
            Some("p/.aworld-plugin/plugin.json")
        );
        assert_eq!(at("out/y.yaml"), None);
    }

    #[test]
    fn plugin_root_is_found_above_but_not_past_the_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs_err::create_dir_all(repo.join(".git")).unwrap();
        fs_err::create_dir_all(repo.join("src/deep")).unwrap();
        fs_err::write(repo.join("protoagent.plugin.yaml"), "").unwrap();
        assert_eq!(
            find_plugin_root(&repo.join("src/deep")),
            Some(PathBuf::from("../.."))
        );
        assert_eq!(find_plugin_root(&repo), Some(PathBuf::from(".")));

        // A manifest above the repository root does not count.
        fs_err::remove_file(repo.join("protoagent.plugin.yaml")).unwrap();
        fs_err::write(tmp.path().join("aoe-plugin.toml"), "").unwrap();
        assert_eq!(find_plugin_root(&repo.join("src")), None);
        // A legacy AWorld folder counts only where the search starts.
        fs_err::create_dir(repo.join("skills")).unwrap();
        assert_eq!(find_plugin_root(&repo.join("src")), None);
        assert_eq!(find_plugin_root(&repo), Some(PathBuf::from(".")));
    }
}
