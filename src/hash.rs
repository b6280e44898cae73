//! Content hashes hosts pin to (spec `aoe.md` §17): the raw manifest bytes, and
//! a whole plugin tree.

use std::path::Path;

use sha2::{Digest, Sha256};

fn hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(7 + digest.len() * 2);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// `sha256:<hex>` of raw bytes (aoe's `hash_bytes`).
pub fn bytes(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// Why a tree cannot be hashed.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("plugin tree contains a symlink ({0}); symlinks are not allowed in a hashed tree")]
    Symlink(String),
    #[error("plugin tree contains a path that is not UTF-8: {0}")]
    NotUtf8(String),
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// aoe's tree hash: `aoe-plugin-tree-hash-v1\0`, then per regular file sorted by
/// `/`-separated path, `file\0<path>\0<u64 le len><bytes>`. `.git` is skipped at
/// every level and `.aoe-build` at the root; a symlink is an error.
pub fn tree(root: &Path) -> Result<String, TreeError> {
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    files.sort();
    let mut h = Sha256::new();
    h.update(b"aoe-plugin-tree-hash-v1\0");
    for rel in files {
        let path = root.join(&rel);
        let data = std::fs::read(&path).map_err(|source| TreeError::Io {
            path: rel.clone(),
            source,
        })?;
        h.update(b"file\0");
        h.update(rel.as_bytes());
        h.update(b"\0");
        h.update((data.len() as u64).to_le_bytes());
        h.update(&data);
    }
    Ok(hex(&h.finalize()))
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), TreeError> {
    let io = |path: &Path, source| TreeError::Io {
        path: path.display().to_string(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name();
        if name == ".git" || (dir == root && name == ".aoe-build") {
            continue;
        }
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let rel = rel
            .to_str()
            .ok_or_else(|| TreeError::NotUtf8(rel.to_string_lossy().into_owned()))?
            .replace('\\', "/");
        let ft = entry.file_type().map_err(|e| io(&path, e))?;
        if ft.is_symlink() {
            return Err(TreeError::Symlink(rel));
        } else if ft.is_dir() {
            collect(root, &path, out)?;
        } else if ft.is_file() {
            out.push(rel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        let base = tree(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join(".aoe-build")).unwrap();
        std::fs::write(dir.path().join(".aoe-build/bin"), "x").unwrap();
        assert_eq!(tree(dir.path()).unwrap(), base);
        std::fs::create_dir_all(dir.path().join("sub/.aoe-build")).unwrap();
        std::fs::write(dir.path().join("sub/.aoe-build/x"), "x").unwrap();
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
        std::fs::write(dir.path().join("f"), "hi").unwrap();
        let mut h = Sha256::new();
        h.update(b"aoe-plugin-tree-hash-v1\0file\0f\0");
        h.update(2u64.to_le_bytes());
        h.update(b"hi");
        assert_eq!(tree(dir.path()).unwrap(), hex(&h.finalize()));
    }
}
