//! Reading a bundle back (hostile input), from a file or from blobs pulled from a registry,
//! into scratch space of the home, every file checked against the bundle's manifest.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use super::builds::{BUILDS, check_platform};
use super::{FORMAT_VERSION, MANIFEST, MAX_ENTRIES, MAX_FILE, MAX_MANIFEST, MAX_TOTAL, Manifest};
use crate::error::{Error, Result};
use crate::install;

/// A bundle read into a temporary directory, its manifest checked.
pub struct Opened {
    pub dir: tempfile::TempDir,
    pub manifest: Manifest,
    /// Pulled from a registry: the reference, its digest and the blobs it uses.
    pub pulled: Option<crate::oci::Pulled>,
}

impl Opened {
    /// The bundled tree of `id`, if any.
    pub fn tree(&self, id: &crate::name::Name) -> Option<PathBuf> {
        Some(self.dir.path().join("trees").join(id.as_str())).filter(|p| p.is_dir())
    }

    /// The directory of `id`'s locked wheels (empty when it has none).
    pub fn wheels(&self, id: &crate::name::Name) -> PathBuf {
        self.dir.path().join("wheels").join(id.as_str())
    }

    /// The directory of `id`'s locked release asset (empty when it has none).
    pub fn assets(&self, id: &crate::name::Name) -> PathBuf {
        self.dir.path().join("assets").join(id.as_str())
    }

    /// The directory holding `id`'s bundled build output (`<dir>/.aoe-build`), if any: its
    /// [`crate::hash::build_output`] is what the lock's `build_output_hash` pins.
    pub fn build(&self, id: &crate::name::Name) -> Option<PathBuf> {
        Some(self.dir.path().join(BUILDS).join(id.as_str())).filter(|p| p.is_dir())
    }

    /// Whether the bundle was made from this lock (byte for byte).
    pub fn check_lock(&self, lockfile: &Path) -> Result<()> {
        let bytes = crate::file::read(lockfile)
            .map_err(|e| Error::io(format!("cannot read {}", lockfile.display()), e))?;
        if crate::hash::bytes(&bytes) != self.manifest.lock {
            return Err(super::Refusal::OtherLock {
                lockfile: lockfile.to_owned(),
                there: crate::hash::bytes(&bytes),
                bundled: self.manifest.lock.clone(),
            }
            .into());
        }
        Ok(())
    }
}

/// A path of the archive that may be extracted: relative, plain components only (none of
/// them `.git`), under the manifest, the lock, `trees/`, `wheels/`, `assets/` or `builds/`.
fn safe_path(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            // No `.git` (any case) anywhere: no hash covers one, and git obeys its config.
            Component::Normal(p) if p.eq_ignore_ascii_case(".git") => return None,
            Component::Normal(p) => out.push(p.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    let first = out.components().next()?.as_os_str().to_str()?.to_owned();
    match first.as_str() {
        MANIFEST | "plugins.lock" if out.components().count() == 1 => Some(out),
        "trees" | "wheels" | "assets" | BUILDS if out.components().count() > 2 => Some(out),
        _ => None,
    }
}

/// Read `file` (hostile input) into scratch space of `home` ([`install::scratch`], which
/// recovery removes after a kill): only regular files (and directories) at safe paths, each
/// at most 512 MiB and 4 GiB in all, no duplicate, and every file's sha256 as the manifest
/// lists it (and nothing the manifest lacks).
pub fn open(file: &Path, home: &crate::store::Home) -> Result<Opened> {
    let mut unpack = Unpack::new(file.display().to_string(), home)?;
    let f = fs_err::File::open(file).map_err(|e| unpack.bad(e.to_string()))?;
    unpack.tar(std::io::BufReader::new(f), false)?;
    unpack.finish(None)
}

/// Read a bundle pulled from a registry ([`crate::oci::pull`]: every blob already checked
/// against its digest) as [`open`] reads a file: the config is the manifest, the first layer
/// the lock, every other layer a tar of bundled files only, then the same checks.
pub(super) fn open_pulled(pulled: crate::oci::Pulled, home: &crate::store::Home) -> Result<Opened> {
    let mut unpack = Unpack::new(pulled.reference.to_string(), home)?;
    for (name, path) in [(MANIFEST, &pulled.config), ("plugins.lock", &pulled.lock)] {
        let f = fs_err::File::open(path).map_err(|e| Error::io("cannot read a layer", e))?;
        let size = f
            .metadata()
            .map_err(|e| Error::io("cannot read a layer", e))?
            .len();
        unpack.file(Path::new(name), name, size, f)?;
    }
    for layer in &pulled.layers {
        let f = fs_err::File::open(layer).map_err(|e| Error::io("cannot read a layer", e))?;
        unpack.tar(std::io::BufReader::new(f), true)?;
    }
    unpack.finish(Some(pulled))
}

/// A bundle being read into scratch space: what was written, with its hash.
struct Unpack {
    shown: String,
    dir: tempfile::TempDir,
    hashes: BTreeMap<String, String>,
    total: u64,
    count: usize,
}

impl Unpack {
    fn new(shown: String, home: &crate::store::Home) -> Result<Unpack> {
        Ok(Unpack {
            shown,
            dir: install::scratch(home)?,
            hashes: BTreeMap::new(),
            total: 0,
            count: 0,
        })
    }

    fn bad(&self, why: String) -> Error {
        let shown = self.shown.clone();
        super::Refusal::NotABundle { shown, why }.into()
    }

    /// Every entry of a tar archive; `files_only`: none may be the manifest or the lock
    /// (a registry layer carries bundled files only).
    fn tar(&mut self, reader: impl Read, files_only: bool) -> Result<()> {
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries().map_err(|e| self.bad(e.to_string()))? {
            let entry = entry.map_err(|e| self.bad(e.to_string()))?;
            self.count += 1;
            if self.count > MAX_ENTRIES {
                return Err(self.bad(format!("more than {MAX_ENTRIES} entries")));
            }
            let raw = entry
                .path()
                .map_err(|e| self.bad(e.to_string()))?
                .into_owned();
            let shown = raw.display().to_string();
            let kind = entry.header().entry_type();
            if kind.is_dir() {
                continue;
            }
            if !kind.is_file() {
                return Err(self.bad(format!(
                    "{shown:?} is not a regular file (a link, device or other)"
                )));
            }
            let rel = safe_path(&raw)
                .filter(|r| !files_only || r.components().count() > 2)
                .ok_or_else(|| self.bad(format!("{shown:?} is not a path a bundle holds")))?;
            let size = entry.header().size().map_err(|e| self.bad(e.to_string()))?;
            // A build output's executables (the worker aoe runs) keep their x bit, and
            // nothing else: no setuid, no other file of a bundle executable.
            let exec =
                rel.starts_with(BUILDS) && entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
            self.file(&rel, &shown, size, entry)?;
            if exec {
                set_executable(&self.dir.path().join(&rel))
                    .map_err(|e| Error::io("cannot unpack the bundle", e))?;
            }
        }
        Ok(())
    }

    /// One file at `rel` (a safe path), `size` bytes read from `data`, hashed as written.
    fn file(&mut self, rel: &Path, shown: &str, size: u64, data: impl Read) -> Result<()> {
        self.total += size;
        if size > MAX_FILE || self.total > MAX_TOTAL {
            return Err(self.bad(format!(
                "{shown:?} makes it larger than plugins reads (512 MiB a file, 4 GiB in all)"
            )));
        }
        let dest = self.dir.path().join(rel);
        fs_err::create_dir_all(dest.parent().expect("a file has a parent"))
            .map_err(|e| Error::io("cannot unpack the bundle", e))?;
        let mut out = fs_err::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dest)
            .map_err(|e| self.bad(format!("{shown:?}: {e}")))?;
        let mut hasher = crate::hash::Hasher::default();
        let mut buf = vec![0u8; 64 << 10];
        let mut limited = data.take(size);
        let mut read = 0u64;
        loop {
            let n = limited
                .read(&mut buf)
                .map_err(|e| self.bad(e.to_string()))?;
            if n == 0 {
                break;
            }
            read += n as u64;
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n])
                .map_err(|e| Error::io("cannot unpack the bundle", e))?;
        }
        if read != size {
            return Err(self.bad(format!("{shown:?} is cut short")));
        }
        self.hashes
            .insert(rel.display().to_string(), hasher.finish());
        Ok(())
    }

    /// The manifest read and every file checked against it.
    fn finish(self, pulled: Option<crate::oci::Pulled>) -> Result<Opened> {
        let text = crate::file::read_at_most(&self.dir.path().join(MANIFEST), MAX_MANIFEST)
            .map_err(|e| self.bad(format!("no readable {MANIFEST}: {e}")))?;
        let manifest: Manifest =
            serde_json::from_slice(&text).map_err(|e| self.bad(format!("{MANIFEST}: {e}")))?;
        if !(1..=FORMAT_VERSION).contains(&manifest.format_version) {
            return Err(self.bad(format!(
                "format_version {} (plugins reads 1 to {FORMAT_VERSION})",
                manifest.format_version
            )));
        }
        if self.hashes.get("plugins.lock") != Some(&manifest.lock) {
            return Err(self.bad("its plugins.lock does not hash as its manifest says".into()));
        }
        for (path, hash) in &self.hashes {
            if path == MANIFEST || path == "plugins.lock" {
                continue;
            }
            if manifest.files.get(path) != Some(hash) {
                return Err(self.bad(format!("{path:?} does not hash as its manifest says")));
            }
        }
        if let Some(missing) = manifest
            .files
            .keys()
            .find(|p| !self.hashes.contains_key(*p))
        {
            return Err(self.bad(format!("{missing:?} is listed but missing")));
        }
        // Builds for another platform are refused by name (after the hashes: what is
        // refused is what the manifest says it carries).
        check_platform(&manifest, &self.shown)?;
        Ok(Opened {
            dir: self.dir,
            manifest,
            pulled,
        })
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}
