//! `plugins bundle` and `plugins sync --frozen --from`: one tar archive with every locked
//! tree and locked wheel of a home, the lock itself and a manifest of every file's sha256,
//! and the bounded, checked reading of such an archive (hostile input) into a temporary
//! directory that `sync` installs from with no network.
//!
//! Layout: `plugins-bundle.json` (the manifest), `plugins.lock` (the lock as it was),
//! `trees/<id>/…` (the tree at the locked commit, which hashes to the row's `tree_hash`),
//! `wheels/<id>/*.whl` (the locked wheels, as pip downloaded them against their sha256),
//! `assets/<id>/…` (an aoe release-binary worker), `builds/<id>/.aoe-build/…` (an aoe
//! plugin's build output, for the platform the manifest names: `builds.rs`).
//!
//! `write.rs` writes the archive (or the registry's layers), `open.rs` reads one back as
//! hostile input, `registry.rs` pulls one from an OCI registry and records what it pulled.

mod builds;
mod open;
mod refusal;
mod registry;
mod write;

pub use refusal::Refusal;

use write::{check_output, layers, write_file};

pub use builds::platform;
pub use open::{Opened, open};
pub use registry::{BundleSource, PullReport, open_for, record_pulled};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::context::Context;
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

/// The manifest format `plugins bundle` writes (2: `platform` and `builds/`); 1 is read too.
const FORMAT_VERSION: u32 = 2;

/// The manifest: the lock's hash, and every other file's.
#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    /// The platform the bundle was made on (`os-arch`, [`platform`]), which its builds
    /// need; `None` in a format 1 bundle (which carries none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// `sha256:` of `plugins.lock` as bundled.
    pub lock: String,
    /// Each bundled plugin: its id, commit and tree hash, as locked.
    pub plugins: Vec<Bundled>,
    /// `trees/…`, `wheels/…`, `assets/…` and `builds/…` paths with their `sha256:`.
    pub files: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Bundled {
    pub id: String,
    pub commit: Option<String>,
    pub tree_hash: String,
    pub wheels: usize,
    /// The `build_output_hash` of the build output carried in `builds/<id>/` (aoe), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
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

/// Bundled files by archive path (`trees/<id>/…`), with where each is on disk.
type Listed = Vec<(String, PathBuf)>;

/// A bundle gathered in scratch space: every file, hashed, ready to be archived or pushed.
struct Gathered {
    work: tempfile::TempDir,
    lock_bytes: Vec<u8>,
    manifest: Manifest,
    /// `trees/<id>/…`, `wheels/<id>/…`, `assets/<id>/…`, `builds/<id>/…` with their files,
    /// in path order.
    listed: Listed,
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
            // What a killed `plugins bundle -o` of this target left (a live one's is its own).
            for stale in crate::owner::stale_beside(&output) {
                if fs_err::remove_file(&stale).is_ok() {
                    printer.status(&format!(
                        "     Removed {} (the temp file of a killed `plugins bundle`)",
                        stale.display()
                    ));
                }
            }
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
    let mut unbuilt = Vec::new();
    let remembered = crate::profile::Remembered::of(home);
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
        let built = work.path().join(builds::BUILDS).join(name.as_str());
        let build = match builds::carry(home, &entry, &built, &remembered) {
            builds::Carried::Built(hash) => Some(hash),
            builds::Carried::Nothing => None,
            builds::Carried::Not(why) => {
                unbuilt.push(format!(
                    "    Bundling {} without its build output: {why}; `sync --from` runs its build steps",
                    entry.id
                ));
                None
            }
        };
        bundled.push(Bundled {
            id: entry.id.clone(),
            commit: entry.commit.clone(),
            tree_hash: entry.tree_hash.clone(),
            wheels: deps.map_or(0, |d| d.len()),
            build,
        });
    }
    drop(on_event);
    for line in unbuilt {
        printer.status(&line);
    }
    let lock_bytes = crate::file::read(home.lockfile())
        .map_err(|e| Error::io(format!("cannot read {}", home.lockfile().display()), e))?;
    let (files, mut listed) = hashed_files(work.path())?;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        platform: Some(platform()),
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

/// Every file gathered under `work` (`trees/`, `wheels/`, `assets/`, `builds/`), hashed (streamed: a
/// bundled asset may be as large as a release asset), with where it is; refused: a `.git`
/// anywhere, a symbolic link (a bundle holds regular files only).
fn hashed_files(work: &Path) -> Result<(BTreeMap<String, String>, Listed)> {
    let mut files = BTreeMap::new();
    let mut listed = Vec::new();
    for top in ["trees", "wheels", "assets", builds::BUILDS] {
        let root = work.join(top);
        if !root.is_dir() {
            continue;
        }
        let walked =
            crate::tree::walk(&root, &|_, _| false).map_err(|why| Refusal::Unwalkable { why })?;
        for e in walked {
            if e.rel
                .components()
                .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
            {
                let path = format!("{top}/{}", e.display());
                return Err(Refusal::GitDir { path }.into());
            }
            match e.kind {
                crate::tree::Kind::File => {}
                crate::tree::Kind::Dir => continue,
                // A bundle holds regular files only (its reader refuses links as hostile):
                // said here, not found out as a tree mismatch on the fleet.
                crate::tree::Kind::Symlink => {
                    let path = format!("{top}/{}", e.display());
                    return Err(Refusal::Symlink { path }.into());
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
    Ok((files, listed))
}
