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
    /// Where the bundle goes: a file, or a registry.
    pub to: BundleTarget<'a>,
    /// Replace `output` when it is a regular file (nothing else is ever replaced).
    pub force: bool,
    pub python: Option<&'a Path>,
}

/// `-o FILE` or `--push oci://…`.
pub enum BundleTarget<'a> {
    File(&'a Path),
    Registry(crate::oci::OciRef, crate::oci::Transport),
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
    /// The file written (`-o`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<PathBuf>,
    /// The archive's bytes, or (`--push`) the bytes of every layer.
    pub bytes: u64,
    /// `--push`: the digest pushed, and what was uploaded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushed: Option<crate::oci::Pushed>,
    pub plugins: Vec<Bundled>,
}

/// A bundle gathered in scratch space: every file, hashed, ready to be archived or pushed.
struct Gathered {
    work: tempfile::TempDir,
    lock_bytes: Vec<u8>,
    manifest: Manifest,
    /// `trees/<id>/…`, `wheels/<id>/…`, `assets/<id>/…` with their files, in path order.
    listed: Vec<(String, PathBuf)>,
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
    match &opts.to {
        BundleTarget::File(output) => {
            let output = cx.absolute(output);
            check_output(&output, home, opts.force)?;
            let gathered = gather(opts, cx, printer, home, lock)?;
            let bytes = write_file(&gathered, &output, home, opts.force)?;
            Ok(BundleReport {
                output: Some(output),
                bytes,
                pushed: None,
                plugins: gathered.manifest.plugins,
            })
        }
        BundleTarget::Registry(reference, transport) => {
            crate::oci::check_push(reference, transport)?;
            let gathered = gather(opts, cx, printer, home, lock)?;
            let (config, layers) = layers(&gathered)?;
            let bytes = layers.iter().map(|l| l.size).sum::<u64>() + config.size;
            let pushed = crate::oci::push(reference, transport, &config, &layers)?;
            Ok(BundleReport {
                output: None,
                bytes,
                pushed: Some(pushed),
                plugins: gathered.manifest.plugins,
            })
        }
    }
}

/// Fetch every row of `lock` at its pin into scratch space of `home` and hash every file.
fn gather(
    opts: &BundleOptions,
    cx: &Context,
    printer: &Printer,
    home: &crate::store::Home,
    lock: &crate::lock::Lock,
) -> Result<Gathered> {
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
    listed.sort();
    Ok(Gathered {
        work,
        lock_bytes,
        manifest,
        listed,
    })
}

/// The registry's blobs of a gathered bundle: the config (its manifest), the lock, and one
/// deterministic tar per plugin and kind (`trees/<id>`, `wheels/<id>`, `assets/<id>`: the same
/// files make the same digest, so an unchanged plugin is not uploaded again).
fn layers(g: &Gathered) -> Result<(crate::oci::Layer, Vec<crate::oci::Layer>)> {
    let dir = g.work.path().join("oci");
    let io = |e| Error::io("cannot write a layer", e);
    fs_err::create_dir_all(&dir).map_err(io)?;
    let blob = |name: &str, bytes: &[u8], media_type, title: Option<&str>| -> Result<_> {
        let path = dir.join(name);
        fs_err::write(&path, bytes).map_err(io)?;
        Ok(crate::oci::Layer {
            path,
            media_type,
            digest: crate::hash::bytes(bytes),
            size: bytes.len() as u64,
            title: title.map(str::to_owned),
        })
    };
    let text = serde_json::to_vec_pretty(&g.manifest).map_err(|e| io(std::io::Error::other(e)))?;
    let config = blob(MANIFEST, &text, crate::oci::CONFIG_TYPE, None)?;
    let mut out = vec![blob(
        "plugins.lock",
        &g.lock_bytes,
        crate::oci::LOCK_TYPE,
        Some("plugins.lock"),
    )?];
    let mut groups: BTreeMap<String, Vec<&(String, PathBuf)>> = BTreeMap::new();
    for entry in &g.listed {
        let group: Vec<&str> = entry.0.splitn(3, '/').take(2).collect();
        groups.entry(group.join("/")).or_default().push(entry);
    }
    for (n, (title, files)) in groups.iter().enumerate() {
        let path = dir.join(format!("{n}.tar"));
        let file = fs_err::File::create(&path).map_err(io)?;
        let mut tar = tar::Builder::new(std::io::BufWriter::new(file));
        for (rel, from) in files {
            append(&mut tar, rel, from).map_err(io)?;
        }
        let mut inner = tar.into_inner().map_err(io)?;
        inner.flush().map_err(io)?;
        drop(inner);
        let digest = fs_err::File::open(&path)
            .and_then(crate::hash::reader)
            .map_err(io)?;
        let size = fs_err::metadata(&path).map_err(io)?.len();
        out.push(crate::oci::Layer {
            path,
            media_type: crate::oci::FILES_TYPE,
            digest,
            size,
            title: Some(title.clone()),
        });
    }
    Ok((config, out))
}

/// One regular file of a bundle, as every bundle writes it: mode 0644, no owner, time 0.
fn append(tar: &mut tar::Builder<impl Write>, rel: &str, path: &Path) -> std::io::Result<()> {
    let file = fs_err::File::open(path)?;
    let size = file.metadata()?.len();
    append_data(tar, rel, size, file)
}

/// `size` bytes of `data` at `rel` (at most the size the header promised, should a file
/// grow meanwhile).
fn append_data(
    tar: &mut tar::Builder<impl Write>,
    rel: &str,
    size: u64,
    data: impl Read,
) -> std::io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(0o644);
    header.set_entry_type(tar::EntryType::Regular);
    tar.append_data(&mut header, rel, &mut data.take(size))
}

/// Write `g` as one tar archive to a temporary file beside `output`, renamed over it.
fn write_file(g: &Gathered, output: &Path, home: &crate::store::Home, force: bool) -> Result<u64> {
    let (lock_bytes, manifest, listed) = (&g.lock_bytes, &g.manifest, &g.listed);
    let dir = output.parent().unwrap_or(Path::new("."));
    let written = (|| -> std::io::Result<u64> {
        let name = output.file_name().unwrap_or_default().to_string_lossy();
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(dir)?;
        let mut tar = tar::Builder::new(std::io::BufWriter::new(tmp.as_file()));
        tar.mode(tar::HeaderMode::Deterministic);
        let text = serde_json::to_vec_pretty(manifest).map_err(std::io::Error::other)?;
        append_data(&mut tar, MANIFEST, text.len() as u64, text.as_slice())?;
        append_data(
            &mut tar,
            "plugins.lock",
            lock_bytes.len() as u64,
            lock_bytes.as_slice(),
        )?;
        for (rel, path) in listed {
            append(&mut tar, rel, path)?;
        }
        let mut inner = tar.into_inner()?;
        inner.flush()?;
        drop(inner);
        tmp.as_file().sync_all()?;
        let bytes = tmp.as_file().metadata()?.len();
        // Without --force nothing is replaced, also not a file that appeared meanwhile (a
        // link, which fails when the name exists); with it, only a regular file is.
        if force {
            check_output(output, home, true).map_err(std::io::Error::other)?;
            tmp.persist(output).map_err(|e| e.error)?;
        } else {
            tmp.persist_noclobber(output).map_err(|e| e.error)?;
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
    Ok(written)
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
    let mut unpack = Unpack::new(file.display().to_string(), home)?;
    let f = fs_err::File::open(file).map_err(|e| unpack.bad(e.to_string()))?;
    unpack.tar(std::io::BufReader::new(f), false)?;
    unpack.finish(None)
}

/// Read a bundle pulled from a registry ([`crate::oci::pull`]: every blob already checked
/// against its digest) as [`open`] reads a file: the config is the manifest, the first layer
/// the lock, every other layer a tar of bundled files only, then the same checks.
pub fn open_pulled(pulled: crate::oci::Pulled, home: &crate::store::Home) -> Result<Opened> {
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
        bundle_error(
            format!(
                "{} is not a bundle plugins can install: {why}; nothing was changed",
                self.shown
            ),
            "use an archive `plugins bundle` wrote, as it wrote it",
        )
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
            self.file(&rel, &shown, size, entry)?;
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
        if manifest.format_version != 1 {
            return Err(self.bad(format!(
                "format_version {} (plugins reads 1)",
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
        Ok(Opened {
            dir: self.dir,
            manifest,
            pulled,
        })
    }
}

/// Where `sync --from` reads a bundle: a file, or an artifact in a registry.
pub enum BundleSource {
    File(PathBuf),
    Registry(crate::oci::OciRef, crate::oci::Transport),
}

/// Pull `reference` into the first home's cache, refusing a tag that names another digest
/// than any home recorded for it (unless the digest is given beside the tag), then read it
/// as a bundle.
pub fn open_registry(
    reference: &crate::oci::OciRef,
    transport: &crate::oci::Transport,
    homes: &[crate::store::Home],
) -> Result<Opened> {
    let first = homes.first().expect("open_bundle checked");
    let mut recorded = Vec::new();
    if let (Some(key), None) = (crate::oci::tag_key(reference), &reference.digest) {
        for home in homes {
            if let Some(pin) = crate::oci::read_tags(&home.oci_tags_record())?.get(&key) {
                recorded.push(pin.digest.clone());
            }
        }
    }
    let check = |digest: &str| match recorded.iter().find(|r| *r != digest) {
        Some(r) => Err(crate::oci::OciError::TagMoved {
            reference: reference.to_string(),
            recorded: r.clone(),
            now: digest.to_owned(),
        }),
        None => Ok(()),
    };
    let pulled = crate::oci::pull(reference, transport, &first.oci_cache(), &check)?;
    open_pulled(pulled, first)
}

/// After a sync from `pulled`: record the digest its tag named, and keep only its blobs in
/// the home's cache (a later pull of an unchanged plugin finds its layer there).
pub fn record_pulled(
    home: &crate::store::Home,
    pulled: &crate::oci::Pulled,
    transport: &crate::oci::Transport,
) -> Result<()> {
    if let Some(key) = crate::oci::tag_key(&pulled.reference) {
        let mut tags = crate::oci::read_tags(&home.oci_tags_record())?;
        let pin = crate::oci::TagPin {
            digest: pulled.digest.clone(),
            plain_http: transport.plain_http,
        };
        if tags.get(&key) != Some(&pin) {
            tags.insert(key, pin);
            let text = serde_json::to_vec_pretty(&tags)
                .map_err(|e| Error::io("cannot write the tag record", std::io::Error::other(e)))?;
            crate::lock::write_atomic(&home.oci_tags_record(), &text)?;
        }
    }
    let blobs = home.oci_cache().join("blobs/sha256");
    let Ok(entries) = fs_err::read_dir(&blobs) else {
        return Ok(());
    };
    let keep: std::collections::BTreeSet<&str> = pulled
        .blobs
        .iter()
        .map(|d| d.trim_start_matches("sha256:"))
        .collect();
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !keep.contains(name.to_string_lossy().as_ref()) {
            let _ = fs_err::remove_file(entry.path());
        }
    }
    Ok(())
}
