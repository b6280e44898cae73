//! Content hashes hosts pin to (spec `aoe.md` §17): the raw manifest bytes, and
//! a whole plugin tree.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

fn hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(7 + digest.len() * 2);
    out.push_str("sha256:");
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in digest {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// `sha256:<hex>` of raw bytes (aoe's `hash_bytes`).
pub fn bytes(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// Feeds what is written to a hasher, so files stream through `io::copy`.
struct Writer<'a>(&'a mut Sha256);

impl std::io::Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An incremental `sha256:` hash.
#[derive(Default)]
pub struct Hasher(Sha256);

impl Hasher {
    pub fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    /// `sha256:<hex>`.
    pub fn finish(self) -> String {
        hex(&self.0.finalize())
    }
}

/// `sha256:<hex>` of everything a reader yields, streamed.
pub fn reader(mut r: impl Read) -> std::io::Result<String> {
    let mut h = Sha256::new();
    std::io::copy(&mut r, &mut Writer(&mut h))?;
    Ok(hex(&h.finalize()))
}

/// Why a tree cannot be hashed.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("plugin tree contains a symlink ({0}); symlinks are not allowed in a hashed tree")]
    Symlink(String),
    #[error("plugin tree contains a path that is not UTF-8: {0}")]
    NotUtf8(String),
    #[error(transparent)]
    Walk(#[from] crate::tree::WalkError),
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// aoe's tree hash: `aoe-plugin-tree-hash-v1\0`, then per regular file sorted by
/// `/`-separated path, `file\0<path>\0<u64 le len><bytes>`. `.git` is skipped at
/// every level and `.aoe-build` at the root; a symlink is an error. Each file is
/// read from where the walk found it and streamed, so memory does not grow with
/// file sizes; names with `\` (which aoe would convert) are refused by the walk.
pub fn tree(root: &Path) -> Result<String, TreeError> {
    digest(root, false)
}

/// The hash `verify` compares for any installed tree: aoe's tree hash, except
/// that a symlink counts by its link text (`link\0<path>\0<target>`) and a
/// name that is not UTF-8 by its bytes. On a tree aoe can hash, both agree.
pub fn installed(root: &Path) -> Result<String, TreeError> {
    digest(root, true)
}

/// aoe's build output directory, at a plugin's root: aoe's tree hash skips it.
pub const AOE_BUILD_DIR: &str = ".aoe-build";

/// The hash of what a build left in [`AOE_BUILD_DIR`] (`None` when there is no such
/// directory), which aoe's tree hash and [`installed`] skip: `plugins` records it after the
/// build, so that `verify` sees a replaced `.aoe-build/bin/worker` (the program aoe runs).
/// Its entries are hashed as [`installed`] hashes a tree, links by their text.
pub fn build_output(root: &Path) -> Result<Option<String>, TreeError> {
    let dir = root.join(AOE_BUILD_DIR);
    match fs_err::symlink_metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(TreeError::Io {
                path: AOE_BUILD_DIR.to_owned(),
                source,
            });
        }
        Ok(m) if !m.is_dir() => {
            // A file or link where the build output belongs: hashed as its own one-entry
            // tree, so that replacing the directory with it is a change too.
            return Ok(Some(bytes(
                format!("not a directory: {}", crate::file::kind(&m)).as_bytes(),
            )));
        }
        Ok(_) => {}
    }
    let entries = crate::tree::walk(&dir, &|_, _| false)?;
    digest_entries(entries, true, b"plugins-build-output-v1\0").map(Some)
}

/// [`installed`] (`lenient`) or [`tree`] of `root`, and every `.git` (in any case: `.GIT` is
/// the same directory on a case-insensitive file system) the same walk passed: what no hash
/// covers (both skip `.git`) and git obeys (its `config` can name a program for
/// `core.fsmonitor` or a hook that `git status` in the plugin directory runs). `plugins`
/// never installs one; `verify` reports each.
pub fn hash_noting_git(root: &Path, lenient: bool) -> (Result<String, TreeError>, Vec<String>) {
    let found = std::cell::RefCell::new(Vec::new());
    let hash = walk_hashed(root, Some(&found))
        .map_err(TreeError::from)
        .and_then(|entries| digest_entries(entries, lenient, TREE_DOMAIN));
    (hash, found.into_inner())
}

enum Item {
    File(std::path::PathBuf),
    Link(Vec<u8>),
}

/// The entries aoe's tree hash covers: `.git` is skipped at every level and
/// `.aoe-build` at the root.
fn hashed_entries(root: &Path) -> Result<Vec<crate::tree::Entry>, crate::tree::WalkError> {
    walk_hashed(root, None)
}

/// [`hashed_entries`], noting in `git` every entry named `.git` in any case.
fn walk_hashed(
    root: &Path,
    git: Option<&std::cell::RefCell<Vec<String>>>,
) -> Result<Vec<crate::tree::Entry>, crate::tree::WalkError> {
    crate::tree::walk(root, &|rel, depth| {
        let name = rel.file_name();
        if let Some(found) = git
            && name.is_some_and(|n| n.eq_ignore_ascii_case(".git"))
        {
            found
                .borrow_mut()
                .push(String::from_utf8_lossy(&rel_bytes(rel)).into_owned());
        }
        name.is_some_and(|n| n == ".git") || (depth == 0 && rel == Path::new(AOE_BUILD_DIR))
    })
}

/// The domain of aoe's tree hash, which [`installed`] shares.
const TREE_DOMAIN: &[u8] = b"aoe-plugin-tree-hash-v1\0";

fn digest(root: &Path, lenient: bool) -> Result<String, TreeError> {
    digest_entries(hashed_entries(root)?, lenient, TREE_DOMAIN)
}

fn digest_entries(
    entries: Vec<crate::tree::Entry>,
    lenient: bool,
    domain: &[u8],
) -> Result<String, TreeError> {
    let mut items: Vec<(Vec<u8>, Item)> = Vec::new();
    for e in entries {
        let rel = match e.rel_str() {
            Some(rel) => rel.into_bytes(),
            None if lenient => rel_bytes(&e.rel),
            None => return Err(TreeError::NotUtf8(e.display())),
        };
        match e.kind {
            crate::tree::Kind::Symlink if lenient => {
                let target = fs_err::read_link(&e.path).map_err(|source| TreeError::Io {
                    path: e.display(),
                    source,
                })?;
                items.push((rel, Item::Link(rel_bytes(&target))));
            }
            crate::tree::Kind::Symlink => return Err(TreeError::Symlink(e.display())),
            crate::tree::Kind::Dir => {}
            crate::tree::Kind::File => items.push((rel, Item::File(e.path))),
        }
    }
    // Byte-wise order of the `/`-separated path (the walk sorts by components).
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let mut h = Sha256::new();
    h.update(domain);
    for (rel, item) in items {
        let path = String::from_utf8_lossy(&rel).into_owned();
        let io = |source| TreeError::Io {
            path: path.clone(),
            source,
        };
        match item {
            Item::Link(target) => {
                h.update(b"link\0");
                h.update(&rel);
                h.update(b"\0");
                h.update(&target);
            }
            Item::File(disk) => {
                let mut file = crate::tree::open_file(&disk).map_err(io)?;
                let len = file.metadata().map_err(io)?.len();
                h.update(b"file\0");
                h.update(&rel);
                h.update(b"\0");
                h.update(len.to_le_bytes());
                let copied =
                    std::io::copy(&mut (&mut file).take(len), &mut Writer(&mut h)).map_err(io)?;
                if copied != len {
                    return Err(io(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the file changed while it was hashed",
                    )));
                }
            }
        }
    }
    Ok(hex(&h.finalize()))
}

/// [`files`] gives up on trees with more regular files and symlinks than this.
pub const FILES_MAX: usize = 20_000;

/// Per file of the tree [`installed`] hashes: its `/`-separated path (lossy where not
/// UTF-8) and `sha256:` of its bytes (of its link text for a symlink, prefixed `link:`).
/// `None` when the tree holds more than [`FILES_MAX`] of them.
pub fn files(root: &Path) -> Result<Option<std::collections::BTreeMap<String, String>>, TreeError> {
    let entries = hashed_entries(root)?;
    if entries
        .iter()
        .filter(|e| e.kind != crate::tree::Kind::Dir)
        .count()
        > FILES_MAX
    {
        return Ok(None);
    }
    let mut out = std::collections::BTreeMap::new();
    for e in entries {
        let rel = String::from_utf8_lossy(&rel_bytes(&e.rel)).into_owned();
        let io = |source| TreeError::Io {
            path: e.display(),
            source,
        };
        let hash = match e.kind {
            crate::tree::Kind::Dir => continue,
            crate::tree::Kind::Symlink => {
                let target = fs_err::read_link(&e.path).map_err(io)?;
                format!("link:{}", bytes(&rel_bytes(&target)))
            }
            crate::tree::Kind::File => {
                reader(crate::tree::open_file(&e.path).map_err(io)?).map_err(io)?
            }
        };
        out.insert(rel, hash);
    }
    Ok(Some(out))
}

/// A path's bytes with `/` between components.
fn rel_bytes(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, part) in path.iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(part.as_encoded_bytes());
    }
    out
}

/// Whether `text` is `sha256:` and 64 lower-case hex digits: the only digest form `plugins`
/// reads or writes (lock rows, OCI references and layers).
pub fn is_sha256_digest(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_maps_paths_to_hashes_and_gives_up_on_huge_trees() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(dir.path().join("sub/.git")).unwrap();
        fs_err::write(dir.path().join("sub/a.txt"), "a").unwrap();
        fs_err::write(dir.path().join("sub/.git/HEAD"), "x").unwrap();
        std::os::unix::fs::symlink("sub/a.txt", dir.path().join("link")).unwrap();
        let map = files(dir.path()).unwrap().unwrap();
        assert_eq!(
            map.into_iter().collect::<Vec<_>>(),
            [
                ("link".to_owned(), format!("link:{}", bytes(b"sub/a.txt"))),
                ("sub/a.txt".to_owned(), bytes(b"a")),
            ]
        );
        for i in 0..FILES_MAX {
            fs_err::write(dir.path().join(format!("f{i}")), "").unwrap();
        }
        assert!(
            files(dir.path()).unwrap().is_none(),
            "{} files",
            FILES_MAX + 2
        );
    }

    #[test]
    fn manifest_hash_is_sha256_of_raw_bytes() {
        assert_eq!(
            bytes(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn tree_hash_skips_git_and_root_build_dir_only() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("a.txt"), "a").unwrap();
        let base = tree(dir.path()).unwrap();
        fs_err::create_dir_all(dir.path().join(".git")).unwrap();
        fs_err::write(dir.path().join(".git/HEAD"), "x").unwrap();
        fs_err::create_dir_all(dir.path().join(".aoe-build")).unwrap();
        fs_err::write(dir.path().join(".aoe-build/bin"), "x").unwrap();
        assert_eq!(tree(dir.path()).unwrap(), base);
        fs_err::create_dir_all(dir.path().join("sub/.aoe-build")).unwrap();
        fs_err::write(dir.path().join("sub/.aoe-build/x"), "x").unwrap();
        assert_ne!(
            tree(dir.path()).unwrap(),
            base,
            "a nested .aoe-build is hashed"
        );
        std::os::unix::fs::symlink("a.txt", dir.path().join("link")).unwrap();
        assert!(matches!(tree(dir.path()), Err(TreeError::Symlink(p)) if p == "link"));
    }

    #[test]
    fn tree_hash_format() {
        let dir = tempfile::tempdir().unwrap();
        fs_err::write(dir.path().join("f"), "hi").unwrap();
        let mut h = Sha256::new();
        h.update(b"aoe-plugin-tree-hash-v1\0file\0f\0");
        h.update(2u64.to_le_bytes());
        h.update(b"hi");
        assert_eq!(tree(dir.path()).unwrap(), hex(&h.finalize()));
    }
}
