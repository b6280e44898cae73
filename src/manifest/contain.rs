//! Path containment as the Python hosts judge it (AWorld's `resolve_asset`,
//! spec `aworld.md` §4.5; protoAgent's `$ref` check, `protoagent.md` §2.4):
//! `(root / target).resolve()` must be the root or below it. Resolution is
//! Python's non-strict `Path.resolve()`: symlinks are followed component by
//! component, `..` applies *after* a symlink (physically), missing components are
//! kept as written, and an absolute target replaces the root.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Links followed before declaring a loop (Linux's own limit is 40).
const MAX_LINKS: usize = 40;

/// Why a target could not be resolved.
#[derive(Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// Python 3.11: `RuntimeError: Symlink loop from '<path>'`.
    Loop(PathBuf),
    /// `ValueError: embedded null byte`.
    Nul,
}

/// Resolve `target` against the canonical `root` the way Python does.
pub fn resolve(root: &Path, target: &str) -> Result<PathBuf, ResolveError> {
    if target.contains('\0') {
        return Err(ResolveError::Nul);
    }
    resolve_from(PathBuf::from("/"), &root.join(target))
}

/// [`resolve`] for a `root` known to be canonical (what `canonicalize`
/// returned): its own components hold no symlink, so only the target's are
/// looked up, one `readlink` each, instead of every component from `/`.
pub fn resolve_below(canonical_root: &Path, target: &str) -> Result<PathBuf, ResolveError> {
    if target.contains('\0') {
        return Err(ResolveError::Nul);
    }
    if Path::new(target).has_root() || !canonical_root.is_absolute() {
        return resolve_from(PathBuf::from("/"), &canonical_root.join(target));
    }
    resolve_from(canonical_root.to_path_buf(), Path::new(target))
}

/// Resolve the components of `rest` one by one, starting at `resolved` (a
/// path without symlinks).
fn resolve_from(mut resolved: PathBuf, rest: &Path) -> Result<PathBuf, ResolveError> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    for c in rest.components() {
        match c {
            Component::Normal(n) => pending.push_back(n.to_os_string()),
            Component::ParentDir => pending.push_back("..".into()),
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
        }
    }
    let mut links = 0;
    // Once a component is missing (or not a directory), nothing below it is a symlink:
    // the components after it are kept as written with no `readlink`, until a `..` climbs
    // back above it. Holds the depth of the missing component.
    let mut missing_at: Option<usize> = None;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            resolved.pop();
            if missing_at.is_some_and(|depth| resolved.components().count() < depth) {
                missing_at = None;
            }
            continue;
        }
        let candidate = resolved.join(&part);
        if missing_at.is_some() {
            resolved = candidate;
            continue;
        }
        match fs_err::read_link(&candidate) {
            Ok(link) => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(ResolveError::Loop(candidate));
                }
                if link.is_absolute() {
                    resolved = PathBuf::from("/");
                }
                for c in link.components().rev() {
                    match c {
                        Component::Normal(n) => pending.push_front(n.to_os_string()),
                        Component::ParentDir => pending.push_front("..".into()),
                        Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
                    }
                }
            }
            Err(e) => {
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) {
                    missing_at = Some(candidate.components().count());
                }
                resolved = candidate;
            }
        }
    }
    Ok(resolved)
}

/// Whether `path` is `root` or below it, component-wise.
pub fn inside(root: &Path, path: &Path) -> bool {
    path.starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn fixture() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("plug");
        fs_err::create_dir_all(root.join("commands")).unwrap();
        fs_err::create_dir_all(dir.path().join("outside/deep")).unwrap();
        let root = fs_err::canonicalize(root).unwrap();
        (dir, root)
    }

    fn escapes(root: &Path, target: &str) -> bool {
        let resolved = resolve(root, target);
        assert_eq!(resolve_below(root, target), resolved, "{target}");
        !inside(root, &resolved.unwrap())
    }

    #[test]
    fn the_spec_table() {
        let (dir, root) = fixture();
        let outside = fs_err::canonicalize(dir.path()).unwrap().join("outside");
        assert!(
            !escapes(&root, "commands/missing.md"),
            "existence is not checked"
        );
        assert!(!escapes(&root, "commands/../x.md"));
        assert!(escapes(&root, "../x.md"));
        assert!(
            !escapes(&root, root.join("commands/a.md").to_str().unwrap()),
            "absolute inside"
        );
        assert!(escapes(&root, "/etc/passwd"));
        assert!(!escapes(&root, "."));
        assert!(!escapes(&root, "~/x"));
        assert!(
            !escapes(&root, "..\\x.md"),
            "a backslash is a filename character"
        );
        symlink(&outside, root.join("out")).unwrap();
        assert!(escapes(&root, "out/x.md"));
        symlink(root.join("commands"), root.join("in")).unwrap();
        assert!(!escapes(&root, "in/x.md"));
        symlink(outside.join("deep"), root.join("deep")).unwrap();
        assert!(
            escapes(&root, "deep/../x"),
            "`..` applies after the symlink"
        );
        symlink("..", root.join("up")).unwrap();
        let back_in = format!(
            "up/{}/commands/a.md",
            root.file_name().unwrap().to_str().unwrap()
        );
        assert!(!escapes(&root, &back_in), "leaving and coming back is fine");
        symlink("/nonexistent/elsewhere", root.join("dangling")).unwrap();
        assert!(escapes(&root, "dangling/x"));
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        assert!(matches!(
            resolve(&root, "loop1/x"),
            Err(ResolveError::Loop(_))
        ));
        // Below a missing component nothing is looked up; `..` climbs back out of it as
        // written, and a symlink after that is followed again.
        assert!(escapes(&root, "missing/deeper/../../out/x.md"));
        assert!(!escapes(&root, "missing/../in/x.md"));
        assert_eq!(
            resolve_below(&root, "missing/deeper/../x").unwrap(),
            root.join("missing/x")
        );
        fs_err::write(root.join("file"), "").unwrap();
        assert_eq!(resolve_below(&root, "file/x/../../out").unwrap(), outside);
        assert_eq!(resolve(&root, "a\0b"), Err(ResolveError::Nul));
        assert_eq!(resolve_below(&root, "a\0b"), Err(ResolveError::Nul));
        assert_eq!(
            resolve_below(&root, "loop1/x"),
            resolve(&root, "loop1/x"),
            "the same loop, named by the same path"
        );
    }
}
