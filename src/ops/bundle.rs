//! `plugins bundle` and `plugins sync --frozen --from`: one tar archive with every locked
//! tree and locked wheel of a home, the lock itself and a manifest of every file's sha256,
//! and the bounded, checked reading of such an archive (hostile input) into a temporary
//! directory that `sync` installs from with no network.
//!
//! Layout: `plugins-bundle.json` (the manifest), `plugins.lock` (the lock as it was),
//! `trees/<id>/…` (the tree at the locked commit, which hashes to the row's `tree_hash`),
//! `wheels/<id>/*.whl` (the locked wheels, as pip downloaded them against their sha256).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::diagnostic::Code;
use crate::error::{Error, Result};
use crate::install::{self, InstallOptions};
use crate::printer::Printer;

/// The manifest's name in the archive.
const MANIFEST: &str = "plugins-bundle.json";
/// At most this many bytes per file of an archive, and in all.
const MAX_FILE: u64 = 512 << 20;
const MAX_TOTAL: u64 = 4 << 30;
/// At most this many entries.
const MAX_ENTRIES: usize = 200_000;
/// The manifest is read up to this size.
const MAX_MANIFEST: u64 = 64 << 20;

/// What `plugins bundle` writes, and how.
pub struct BundleOptions<'a> {
    pub home: Option<&'a PathBuf>,
    pub output: &'a Path,
    /// Replace `output` when it is a regular file (nothing else is ever replaced).
    pub force: bool,
    pub python: Option<&'a Path>,
}

/// The manifest: the lock's hash, and every other file's.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    /// `sha256:` of `plugins.lock` as bundled.
    pub lock: String,
    /// Each bundled plugin: its id, commit and tree hash, as locked.
    pub plugins: Vec<Bundled>,
    /// `trees/…` and `wheels/…` paths with their `sha256:`.
    pub files: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Bundled {
    pub id: String,
    pub commit: Option<String>,
    pub tree_hash: String,
    pub wheels: usize,
}

/// What `plugins bundle` wrote, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct BundleReport {
    pub output: PathBuf,
    pub bytes: u64,
    pub plugins: Vec<Bundled>,
}

fn bundle_error(message: String, help: &str) -> Error {
    Error::Refused {
        code: Code::SyncBundle,
        message,
        help: Some(help.to_owned()),
    }
}

/// Write the archive of the one locked home `opts.home` names: each row fetched at its
/// locked commit (as `sync` fetches it) and checked against its tree hash, its wheels
/// downloaded as pinned. Written to a temporary file renamed over `opts.output`.
pub fn bundle(opts: &BundleOptions, cx: &Context, printer: &Printer) -> Result<BundleReport> {
    let homes = cx.locked_homes(opts.home)?;
    let [(home, lock)] = homes.as_slice() else {
        return Err(Error::InvalidArgument(format!(
            "plugins bundle archives one lock; {} homes have one: pass --home",
            homes.len()
        )));
    };
    let output = cx.absolute(opts.output);
    check_output(&output, home, opts.force)?;
    // What a killed `plugins bundle -o` of this target left (a live one's is its own).
    for stale in crate::owner::stale_beside(&output) {
        if fs_err::remove_file(&stale).is_ok() {
            printer.status(&format!(
                "     Removed {} (the temp file of a killed `plugins bundle`)",
                stale.display()
            ));
        }
    }
    let work = install::scratch(home)?;
    let mut on_event = crate::reporter::progress(printer);
    let mut bundled = Vec::new();
    for entry in lock.entries() {
        let name = home.locked_name(&entry)?;
        let source = crate::source::Source::of_entry(&entry, &cx.gh_base())?;
        let mut install = InstallOptions::new(
            source,
            Some(home.root.clone()),
            cx.default_homes(),
            &cx.github_api,
            "bundle",
        );
        install.pin = Some(entry.clone());
        install.python = opts.python.map(|p| cx.python_arg(p));
        install.profile = entry.profile.clone().unwrap_or_default();
        let deps = lock.deps(&entry.id);
        let wheels = work.path().join("wheels").join(name.as_str());
        install::bundle_entry(
            &install,
            deps.as_deref(),
            &work.path().join("trees").join(name.as_str()),
            &wheels,
            &work.path().join("assets").join(name.as_str()),
            &mut on_event,
        )?;
        bundled.push(Bundled {
            id: entry.id.clone(),
            commit: entry.commit.clone(),
            tree_hash: entry.tree_hash.clone(),
            wheels: deps.map_or(0, |d| d.len()),
        });
    }
    drop(on_event);
    let lock_bytes = crate::file::read(home.lockfile())
        .map_err(|e| Error::io(format!("cannot read {}", home.lockfile().display()), e))?;
    let mut files = BTreeMap::new();
    let mut listed = Vec::new();
    for top in ["trees", "wheels", "assets"] {
        let root = work.path().join(top);
        if !root.is_dir() {
            continue;
        }
        let walked = crate::tree::walk(&root, &|_, _| false).map_err(|e| {
            bundle_error(e.to_string(), "bundle a lock whose trees are plain files")
        })?;
        for e in walked {
            if e.rel
                .components()
                .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
            {
                return Err(bundle_error(
                    format!(
                        "{top}/{} is inside a .git directory, which no hash covers and a bundle never carries; nothing was written",
                        e.display()
                    ),
                    "remove it from the installed plugin (`plugins sync --repair`)",
                ));
            }
            match e.kind {
                crate::tree::Kind::File => {}
                crate::tree::Kind::Dir => continue,
                // A bundle holds regular files only (its reader refuses links as hostile):
                // said here, not found out as a tree mismatch on the fleet.
                crate::tree::Kind::Symlink => {
                    return Err(bundle_error(
                        format!(
                            "{top}/{} is a symbolic link, which a bundle cannot carry; nothing was written",
                            e.display()
                        ),
                        "sync such a plugin online (`plugins sync --frozen` through a mirror)",
                    ));
                }
            }
            let rel = format!("{top}/{}", e.display());
            // Streamed: a bundled asset may be as large as a release asset (1 GiB).
            let hash = fs_err::File::open(&e.path)
                .and_then(crate::hash::reader)
                .map_err(|err| Error::io("cannot read a bundled file", err))?;
            files.insert(rel.clone(), hash);
            listed.push((rel, e.path.clone()));
        }
    }
    let manifest = Manifest {
        format_version: 1,
        lock: crate::hash::bytes(&lock_bytes),
        plugins: bundled,
        files,
    };
    let dir = output.parent().unwrap_or(Path::new("."));
    let written = (|| -> std::io::Result<u64> {
        let name = output.file_name().unwrap_or_default().to_string_lossy();
        // `.<name>.<owner>.<random>.tmp`: a rerun removes it once its owner is gone.
        let tmp = tempfile::Builder::new()
            .prefix(&crate::owner::beside_prefix(&name))
            .rand_bytes(crate::owner::BESIDE_RANDOM)
            .suffix(".tmp")
            .tempfile_in(dir)?;
        let mut tar = tar::Builder::new(std::io::BufWriter::new(tmp.as_file()));
        tar.mode(tar::HeaderMode::Deterministic);
        let mut add = |path: &str, size: u64, data: &mut dyn Read| -> std::io::Result<()> {
            let mut header = tar::Header::new_gnu();
            header.set_size(size);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            tar.append_data(&mut header, path, data)
        };
        let text = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
        add(MANIFEST, text.len() as u64, &mut text.as_slice())?;
        add(
            "plugins.lock",
            lock_bytes.len() as u64,
            &mut lock_bytes.as_slice(),
        )?;
        for (rel, path) in &listed {
            let file = fs_err::File::open(path)?;
            let size = file.metadata()?.len();
            // At most the size the header promised, should the file grow meanwhile.
            add(rel, size, &mut file.take(size))?;
        }
        let mut inner = tar.into_inner()?;
        inner.flush()?;
        drop(inner);
        tmp.as_file().sync_all()?;
        let bytes = tmp.as_file().metadata()?.len();
        // Without --force nothing is replaced, also not a file that appeared meanwhile (a
        // link, which fails when the name exists); with it, only a regular file is.
        if opts.force {
            check_output(&output, home, true).map_err(std::io::Error::other)?;
            tmp.persist(&output).map_err(|e| e.error)?;
        } else {
            tmp.persist_noclobber(&output).map_err(|e| e.error)?;
        }
        Ok(bytes)
    })()
    .map_err(|e| {
        bundle_error(
            format!(
                "cannot write {}: {e}; nothing was written",
                output.display()
            ),
            "choose a writable -o path that does not exist (or a regular file, with --force)",
        )
    })?;
    Ok(BundleReport {
        output,
        bytes: written,
        plugins: manifest.plugins,
    })
}

/// Where `plugins bundle` may write: a name that does not exist, or with `force` a regular
/// file; never a FIFO, a device, a directory or a symbolic link, and never inside the home
/// (its lock, its plugins, its records are `plugins`' own and the host's).
fn check_output(output: &Path, home: &crate::store::Home, force: bool) -> Result<()> {
    let refuse = |why: String, help: &str| {
        bundle_error(
            format!("{}: {why}; nothing was written", output.display()),
            help,
        )
    };
    let parent = output.parent().unwrap_or(Path::new("."));
    if let (Ok(dir), Ok(root)) = (
        fs_err::canonicalize(parent),
        fs_err::canonicalize(&home.root),
    ) && dir.starts_with(&root)
    {
        return Err(refuse(
            format!(
                "it is inside the home {} being bundled",
                home.root.display()
            ),
            "write the bundle outside the home (`-o ../plugins-bundle.tar`)",
        ));
    }
    match fs_err::symlink_metadata(output) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Ok(m) if m.file_type().is_file() && force => Ok(()),
        Ok(m) if m.file_type().is_file() => Err(refuse(
            "it exists".into(),
            "pass --force to replace it, or choose another -o path",
        )),
        Ok(m) => Err(refuse(
            format!(
                "it is a {} (not a regular file), which is never replaced",
                crate::file::kind(&m)
            ),
            "choose another -o path",
        )),
        Err(e) => Err(refuse(
            crate::file::reason(&e).into_owned(),
            "choose another -o path",
        )),
    }
}

/// A bundle read into a temporary directory, its manifest checked.
pub struct Opened {
    pub dir: tempfile::TempDir,
    pub manifest: Manifest,
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

    /// Whether the bundle was made from this lock (byte for byte).
    pub fn check_lock(&self, lockfile: &Path) -> Result<()> {
        let bytes = crate::file::read(lockfile)
            .map_err(|e| Error::io(format!("cannot read {}", lockfile.display()), e))?;
        if crate::hash::bytes(&bytes) != self.manifest.lock {
            return Err(bundle_error(
                format!(
                    "the bundle was made from another lock than {} ({} there, {} bundled); nothing was changed",
                    lockfile.display(),
                    crate::hash::bytes(&bytes),
                    self.manifest.lock
                ),
                "make the bundle from the lock this home has (`plugins bundle --home H -o FILE`), or put the bundled plugins.lock in the home",
            ));
        }
        Ok(())
    }
}

/// A path of the archive that may be extracted: relative, plain components only (none of
/// them `.git`), under the manifest, the lock, `trees/`, `wheels/` or `assets/`.
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
        "trees" | "wheels" | "assets" if out.components().count() > 2 => Some(out),
        _ => None,
    }
}

/// Read `file` (hostile input) into scratch space of `home` ([`install::scratch`], which
/// recovery removes after a kill): only regular files (and directories) at safe paths, each
/// at most 512 MiB and 4 GiB in all, no duplicate, and every file's sha256 as the manifest
/// lists it (and nothing the manifest lacks).
pub fn open(file: &Path, home: &crate::store::Home) -> Result<Opened> {
    let bad = |why: String| {
        bundle_error(
            format!(
                "{} is not a bundle plugins can install: {why}; nothing was changed",
                file.display()
            ),
            "use an archive `plugins bundle` wrote, as it wrote it",
        )
    };
    let f = fs_err::File::open(file).map_err(|e| bad(e.to_string()))?;
    let dir = install::scratch(home)?;
    let mut archive = tar::Archive::new(std::io::BufReader::new(f));
    let mut hashes = BTreeMap::new();
    let (mut total, mut count) = (0u64, 0usize);
    for entry in archive.entries().map_err(|e| bad(e.to_string()))? {
        let mut entry = entry.map_err(|e| bad(e.to_string()))?;
        count += 1;
        if count > MAX_ENTRIES {
            return Err(bad(format!("more than {MAX_ENTRIES} entries")));
        }
        let raw = entry.path().map_err(|e| bad(e.to_string()))?.into_owned();
        let shown = raw.display().to_string();
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            continue;
        }
        if !kind.is_file() {
            return Err(bad(format!(
                "{shown:?} is not a regular file (a link, device or other)"
            )));
        }
        let rel = safe_path(&raw)
            .ok_or_else(|| bad(format!("{shown:?} is not a path a bundle holds")))?;
        let size = entry.header().size().map_err(|e| bad(e.to_string()))?;
        total += size;
        if size > MAX_FILE || total > MAX_TOTAL {
            return Err(bad(format!(
                "{shown:?} makes it larger than plugins reads (512 MiB a file, 4 GiB in all)"
            )));
        }
        let dest = dir.path().join(&rel);
        fs_err::create_dir_all(dest.parent().expect("a file has a parent"))
            .map_err(|e| Error::io("cannot unpack the bundle", e))?;
        let mut out = fs_err::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dest)
            .map_err(|e| bad(format!("{shown:?}: {e}")))?;
        let mut hasher = crate::hash::Hasher::default();
        let mut buf = vec![0u8; 64 << 10];
        let mut limited = (&mut entry).take(size);
        let mut read = 0u64;
        loop {
            let n = limited.read(&mut buf).map_err(|e| bad(e.to_string()))?;
            if n == 0 {
                break;
            }
            read += n as u64;
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n])
                .map_err(|e| Error::io("cannot unpack the bundle", e))?;
        }
        if read != size {
            return Err(bad(format!("{shown:?} is cut short")));
        }
        hashes.insert(rel.display().to_string(), hasher.finish());
    }
    let text = crate::file::read_at_most(&dir.path().join(MANIFEST), MAX_MANIFEST)
        .map_err(|e| bad(format!("no readable {MANIFEST}: {e}")))?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| bad(format!("{MANIFEST}: {e}")))?;
    if manifest.format_version != 1 {
        return Err(bad(format!(
            "format_version {} (plugins reads 1)",
            manifest.format_version
        )));
    }
    if hashes.get("plugins.lock") != Some(&manifest.lock) {
        return Err(bad(
            "its plugins.lock does not hash as its manifest says".into()
        ));
    }
    for (path, hash) in &hashes {
        if path == MANIFEST || path == "plugins.lock" {
            continue;
        }
        if manifest.files.get(path) != Some(hash) {
            return Err(bad(format!("{path:?} does not hash as its manifest says")));
        }
    }
    if let Some(missing) = manifest.files.keys().find(|p| !hashes.contains_key(*p)) {
        return Err(bad(format!("{missing:?} is listed but missing")));
    }
    Ok(Opened { dir, manifest })
}
