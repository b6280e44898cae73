//! Path containment as the Python hosts judge it (AWorld's `resolve_asset`,
//! spec `aworld.md` §4.5; protoAgent's `$ref` check, `protoagent.md` §2.4):
//! `(root / target).resolve()` must be the root or below it. Resolution is
//! Python's non-strict `Path.resolve()`: symlinks are followed component by
//! component, `..` applies *after* a symlink (physically), missing components are
//! kept as written, and an absolute target replaces the root.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::ffi::OsStr;
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
    resolve_from(
        PathBuf::from("/"),
        &root.join(target),
        &mut Lookups::default(),
    )
    .map(|r| r.path)
}

/// [`resolve`] for a `root` known to be canonical (what `canonicalize`
/// returned): its own components hold no symlink, so only the target's are
/// looked up, one `readlink` each, instead of every component from `/`.
pub fn resolve_below(canonical_root: &Path, target: &str) -> Result<PathBuf, ResolveError> {
    resolve_below_in(&mut Lookups::default(), canonical_root, target).map(|r| r.path)
}

/// A target resolved by [`resolve_below_in`].
#[derive(Debug, PartialEq, Eq)]
pub struct Resolved {
    pub path: PathBuf,
    /// Whether the target exists as the kernel finds `root/target` (`stat`, following
    /// links), where the lookups tell it: `None` once a `..` was applied, since a
    /// `readlink` does not tell a directory from a file, or for a target ending in `/` or
    /// `/.`.
    pub exists: Option<bool>,
}

/// How many lookups [`Lookups`] keeps (each path at most `PATH_MAX` long: a kernel lookup of a
/// longer one fails, and nothing below a failed component is looked up).
const MAX_KEPT: usize = 4096;

/// What a component's `readlink` answered, kept for the next target below the same root:
/// a manifest's targets share their directories (`hooks/a.py`, `hooks/b.py`).
#[derive(Default)]
pub struct Lookups(HashMap<PathBuf, Lookup>);

#[derive(Clone)]
enum Lookup {
    /// A symlink, and its text.
    Link(PathBuf),
    /// There, and not a symlink.
    Plain,
    /// Not there: missing, or below a file.
    Missing,
    /// Any other error (permission, a name too long).
    Failed,
}

impl Lookups {
    fn get(&mut self, path: &Path) -> Lookup {
        if let Some(known) = self.0.get(path) {
            return known.clone();
        }
        // Only the error's kind is read, so it need not name the path (fs_err's would).
        #[allow(clippy::disallowed_methods)]
        let found = match path.read_link() {
            Ok(link) => Lookup::Link(link),
            // EINVAL: there, and not a symlink.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Lookup::Plain,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                Lookup::Missing
            }
            Err(_) => Lookup::Failed,
        };
        // Bounded: a hostile manifest names as many paths as it likes.
        if self.0.len() < MAX_KEPT {
            self.0.insert(path.to_path_buf(), found.clone());
        }
        found
    }
}

/// [`resolve_below`], answering each component's lookup from `lookups` when an earlier
/// target of the same root asked it, and telling whether the target exists.
pub fn resolve_below_in(
    lookups: &mut Lookups,
    canonical_root: &Path,
    target: &str,
) -> Result<Resolved, ResolveError> {
    if target.contains('\0') {
        return Err(ResolveError::Nul);
    }
    let mut resolved = if Path::new(target).has_root() || !canonical_root.is_absolute() {
        resolve_from(PathBuf::from("/"), &canonical_root.join(target), lookups)?
    } else {
        resolve_from(canonical_root.to_path_buf(), Path::new(target), lookups)?
    };
    // `file/` and `file/.` are not found, yet their components are; and elsewhere a
    // `readlink` that fails is not read for what it means.
    if target.ends_with('/') || target.ends_with("/.") || cfg!(not(unix)) {
        resolved.exists = None;
    }
    Ok(resolved)
}

/// One step of a path being resolved: a name, or `..`.
enum Part<'a> {
    Name(Cow<'a, OsStr>),
    Up,
}

/// The names and `..`s of `path` (`/`, `.` and prefixes dropped).
fn parts(path: &Path) -> impl DoubleEndedIterator<Item = Part<'_>> {
    path.components().filter_map(|c| match c {
        Component::Normal(n) => Some(Part::Name(Cow::Borrowed(n))),
        Component::ParentDir => Some(Part::Up),
        Component::RootDir | Component::Prefix(_) | Component::CurDir => None,
    })
}

/// Resolve the components of `rest` one by one, starting at `resolved` (a
/// path without symlinks). The path is built in place, and `rest`'s names are borrowed: a
/// target's resolution allocates for its result and for the links it follows.
fn resolve_from(
    mut resolved: PathBuf,
    rest: &Path,
    lookups: &mut Lookups,
) -> Result<Resolved, ResolveError> {
    let mut pending: VecDeque<Part<'_>> = parts(rest).collect();
    // How many components deep `resolved` is, counted from where the walk starts (it is
    // only compared with itself): counting a long root's components for each target cost
    // more than the target's lookups.
    let mut depth: isize = 0;
    let mut links = 0;
    // Once a component is missing (or not a directory, or cannot be looked up), nothing
    // below it is a symlink: the components after it are kept as written with no
    // `readlink`, until a `..` climbs back above it. Holds the depth of that component.
    let mut missing_at: Option<isize> = None;
    // Whether the kernel finds the whole path: every lookup answered "there".
    let mut exists = Some(true);
    while let Some(part) = pending.pop_front() {
        let name = match part {
            Part::Up => {
                exists = None;
                if resolved.pop() {
                    depth -= 1;
                }
                if missing_at.is_some_and(|at| depth < at) {
                    missing_at = None;
                }
                continue;
            }
            Part::Name(name) => name,
        };
        resolved.push(&name);
        depth += 1;
        if missing_at.is_some() {
            continue;
        }
        match lookups.get(&resolved) {
            Lookup::Link(link) => {
                links += 1;
                if links > MAX_LINKS {
                    return Err(ResolveError::Loop(resolved));
                }
                resolved.pop();
                depth -= 1;
                if link.is_absolute() {
                    resolved = PathBuf::from("/");
                    depth = 1;
                }
                for part in parts(&link).rev() {
                    pending.push_front(match part {
                        Part::Name(n) => Part::Name(Cow::Owned(n.into_owned())),
                        Part::Up => Part::Up,
                    });
                }
            }
            Lookup::Plain => {}
            // Below a component the kernel cannot look up (missing, not a directory, not
            // searchable, a name or path too long) every lookup fails the same way: the rest
            // is kept as written, with no `readlink`, until a `..` climbs back above it.
            Lookup::Missing | Lookup::Failed => {
                missing_at = Some(depth);
                exists = exists.and(Some(false));
            }
        }
    }
    Ok(Resolved {
        path: resolved,
        exists,
    })
}

/// Whether `path` is `root` or below it, component-wise.
pub fn inside(root: &Path, path: &Path) -> bool {
    // `root`'s bytes and then a separator (or nothing) is `root`'s components and more: the
    // common answer without walking both paths' components (each target of a manifest
    // asks it). Anything else (`a//b` below `a/b`, say) is asked component-wise.
    let (r, p) = (
        root.as_os_str().as_encoded_bytes(),
        path.as_os_str().as_encoded_bytes(),
    );
    if let Some(rest) = p.strip_prefix(r)
        && (rest.is_empty() || rest[0] == b'/' || r.ends_with(b"/"))
    {
        return true;
    }
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

    #[test]
    fn inside_answers_as_components_do() {
        let paths = [
            "", "/", "//", "a", "a/", "a//", "a/b", "a//b", "a/b/", "a/./b", "a/b/.", "a/b/..",
            "a/b/../c", "ab", "a/bc", "./a", ".", "/a", "/a/b", "/ab", "/a/./b/c", "/a/b/.x",
        ];
        for root in paths {
            for path in paths {
                assert_eq!(
                    inside(Path::new(root), Path::new(path)),
                    Path::new(path).starts_with(root),
                    "{path:?} below {root:?}"
                );
            }
        }
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

    /// Where the lookups tell whether a target exists, they answer as `Path::exists` on
    /// `root/target` does (the kernel's walk), with the lookups shared across targets;
    /// they tell it for every target without `..` or a trailing `/`.
    #[test]
    fn the_lookups_tell_existence_as_the_kernel_does() {
        let (dir, root) = fixture();
        let outside = fs_err::canonicalize(dir.path()).unwrap().join("outside");
        fs_err::write(root.join("file"), "").unwrap();
        fs_err::write(root.join("commands/a.md"), "").unwrap();
        symlink(&outside, root.join("out")).unwrap();
        symlink("commands", root.join("in")).unwrap();
        symlink("commands/a.md", root.join("to-file")).unwrap();
        symlink("nowhere", root.join("dangling")).unwrap();
        symlink("loop2", root.join("loop1")).unwrap();
        symlink("loop1", root.join("loop2")).unwrap();
        let targets = [
            "file",
            "file/",
            "file/.",
            "file/x",
            "file/..",
            "commands",
            "commands/",
            "commands/a.md",
            "commands/b.md",
            "commands/a.md/x",
            "commands//a.md",
            "./commands/./a.md",
            "in/a.md",
            "in/b.md",
            "to-file",
            "to-file/x",
            "dangling",
            "dangling/x",
            "out",
            "out/deep",
            "out/nothing",
            "missing",
            "missing/x",
            "missing/../file",
            "commands/../file",
            "in/../file",
            ".",
            "..",
        ];
        let mut lookups = Lookups::default();
        let mut told = 0;
        for target in targets {
            let resolved = resolve_below_in(&mut lookups, &root, target).unwrap();
            assert_eq!(resolved.path, resolve(&root, target).unwrap(), "{target}");
            let plain = !target.contains("..") && !target.ends_with('/') && !target.ends_with("/.");
            assert_eq!(resolved.exists.is_some(), plain, "{target}");
            if let Some(exists) = resolved.exists {
                assert_eq!(exists, root.join(target).exists(), "{target}");
                told += 1;
            }
        }
        assert_eq!(told, 20);
        assert!(matches!(
            resolve_below_in(&mut lookups, &root, "loop1/x"),
            Err(ResolveError::Loop(_))
        ));
        // A name longer than the kernel takes fails its lookup, and what follows it is kept
        // as written: a 1 MiB target of 300,000 components resolves at once.
        let long = format!("{}/{}z", "n".repeat(300), "a/".repeat(300_000));
        let resolved = resolve_below_in(&mut lookups, &root, &long).unwrap();
        assert_eq!(resolved.exists, Some(false));
        assert_eq!(resolved.path, root.join(&long));
        assert_eq!(resolve(&root, &long).unwrap(), resolved.path);
    }
}
