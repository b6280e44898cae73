//! Validate plugin roots: find them, read their manifests safely, run the
//! dialect's rules, and apply `--strict` / `--allow`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Code, Diagnostic, Severity};
use crate::dialect::Dialect;
use crate::manifest::Outcome;

/// Manifests larger than this are refused unread.
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;

/// Directories `--recursive` never descends into.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "venv",
    ".aoe-build",
    "__pycache__",
];

pub use crate::host::ValidateOptions;

/// The result for one plugin root.
#[derive(Clone, Debug)]
pub struct PluginReport {
    pub root: PathBuf,
    pub dialect: Option<Dialect>,
    /// The manifest path (root-relative dialect path joined to the root).
    pub manifest: PathBuf,
    /// The manifest text, when it could be read (for rendering labels).
    pub source: Option<String>,
    /// `sha256:<hex>` of the raw manifest bytes, as hosts pin grants to it.
    pub manifest_hash: Option<String>,
    pub outcome: Outcome,
}

impl PluginReport {
    pub fn errors(&self) -> usize {
        self.outcome
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .count()
    }

    pub fn warnings(&self) -> usize {
        self.outcome.diagnostics.len() - self.errors()
    }

    pub fn is_valid(&self) -> bool {
        self.errors() == 0
    }
}

/// A plugin root to validate, with the dialect found there (the first whose
/// manifest exists, else an AWorld legacy root), so it is detected once.
#[derive(Clone, Debug)]
pub struct Root {
    pub path: PathBuf,
    pub detected: Option<Dialect>,
    /// The `--path` a recursive search started from and its canonical path:
    /// the search descends only into real directories (never symlinks), so
    /// the root's canonical path is that one joined with the rest of `path`.
    base: Option<Arc<(PathBuf, PathBuf)>>,
}

impl Root {
    /// Look at `path` for a manifest.
    pub fn detect(path: PathBuf) -> Root {
        let detected = crate::host::detect_first(&path);
        Root {
            path,
            detected,
            base: None,
        }
    }

    /// The canonical path, when discovery knows it without asking the file system.
    pub fn canonical(&self) -> Option<PathBuf> {
        let (start, canonical) = self.base.as_deref()?;
        let rest = self.path.strip_prefix(start).ok()?;
        Some(if rest.as_os_str().is_empty() {
            canonical.clone()
        } else {
            canonical.join(rest)
        })
    }
}

/// Why `--path` arguments name no plugin root.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    #[error("path `{}` does not exist", .0.display())]
    PathNotFound(PathBuf),
    #[error("no plugin root found under `{}`", .0.display())]
    NoPlugins(PathBuf),
    #[error("cannot list directory: {0}")]
    List(std::io::Error),
}

type Result<T> = std::result::Result<T, DiscoverError>;

/// Expand `--path` arguments into plugin roots, in a stable order.
pub fn discover(paths: &[PathBuf], recursive: bool) -> Result<Vec<Root>> {
    let mut roots = Vec::new();
    for path in paths {
        if fs_err::symlink_metadata(path).is_err() {
            return Err(DiscoverError::PathNotFound(path.clone()));
        }
        // A path to a manifest file names its plugin root.
        if let Some(d) = crate::dialect::from_manifest_path(path) {
            roots.push(Root::detect(root_of_manifest(path, d)));
            continue;
        }
        let before = roots.len();
        if recursive {
            let base = fs_err::canonicalize(path)
                .ok()
                .map(|c| Arc::new((path.clone(), c)));
            find_roots(path, &base, &mut roots, 0, MAX_DEPTH)?;
        } else {
            roots.push(Root::detect(path.clone()));
        }
        if roots.len() == before {
            return Err(DiscoverError::NoPlugins(path.clone()));
        }
    }
    Ok(roots)
}

/// How deep `--recursive` descends (a root at this depth is found; nothing below it), and
/// an install from a tree without a root manifest looks for the plugins in it.
pub const MAX_DEPTH: usize = 33;

/// The plugin roots below `dir` (itself excluded unless it is one), at most `max_depth`
/// directories down, as `--recursive` finds them; unreadable directories end the search.
pub fn roots_below(dir: &Path, max_depth: usize) -> Vec<Root> {
    let mut roots = Vec::new();
    let _ = find_roots(dir, &None, &mut roots, 0, max_depth);
    roots
}

fn find_roots(
    dir: &Path,
    base: &Option<Arc<(PathBuf, PathBuf)>>,
    out: &mut Vec<Root>,
    depth: usize,
    max_depth: usize,
) -> Result<()> {
    if let Some(first) = crate::host::detect_first(dir) {
        out.push(Root {
            path: dir.to_path_buf(),
            detected: Some(first),
            base: base.clone(),
        });
        return Ok(());
    }
    if depth >= max_depth {
        return Ok(());
    }
    let entries = fs_err::read_dir(dir).map_err(DiscoverError::List)?;
    let mut names: Vec<std::ffi::OsString> = entries
        .filter_map(std::result::Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name())
        .filter(|name| !SKIP_DIRS.iter().any(|s| name == *s))
        .collect();
    // The children share `dir`, so their paths sort as their names do, byte by byte:
    // sorting the joined paths compared every component of `dir` again, a third of a
    // search (docs/PERFORMANCE.md, issue 43).
    names.sort_unstable();
    for name in names {
        find_roots(&dir.join(name), base, out, depth + 1, max_depth)?;
    }
    Ok(())
}

/// Validate one plugin root.
pub fn validate_root(root: &Path, opts: &ValidateOptions) -> PluginReport {
    validate_found(&Root::detect(root.to_path_buf()), opts)
}

/// Validate a root [`discover`] found.
pub fn validate_found(found: &Root, opts: &ValidateOptions) -> PluginReport {
    let root = found.path.as_path();
    let dialect = opts.dialect.or(found.detected);
    let Some(dialect) = dialect else {
        let names: Vec<&str> = crate::dialect::ALL
            .iter()
            .map(|d| d.spec().manifest)
            .collect();
        let d = Diagnostic::new(
            Code::FileMissing,
            format!("no plugin manifest at {}", root.display()),
        )
        .with_help(format!(
            "looked for {}; pass `--recursive` to search below it",
            names.join(", ")
        ));
        return report(
            root,
            None,
            root.to_path_buf(),
            None,
            None,
            Outcome::file_error(d),
        );
    };
    let manifest = root.join(dialect.spec().manifest);
    // The common case in one open and one fstat; anything unusual (missing,
    // unreadable) takes the careful path below, which
    // words the diagnostic.
    if let Some(bytes) = read_plain(&manifest) {
        let canonical = found.canonical();
        return validate_bytes_at(root, canonical.as_deref(), dialect, manifest, bytes, opts);
    }
    if !manifest.exists()
        && let Some(mut outcome) = crate::host::validate_without_manifest(dialect, root)
    {
        apply_policy(&mut outcome.diagnostics, opts);
        return report(root, Some(dialect), root.to_path_buf(), None, None, outcome);
    }
    match read_bytes(&manifest, dialect) {
        Ok(bytes) => {
            let canonical = found.canonical();
            validate_bytes_at(root, canonical.as_deref(), dialect, manifest, bytes, opts)
        }
        Err(d) => report(
            root,
            Some(dialect),
            manifest,
            None,
            None,
            Outcome::file_error(d),
        ),
    }
}

/// Validate manifest bytes that did not come from `root`'s file (an editor's
/// unsaved buffer on stdin) as if they were `manifest`, the file's path. The
/// bytes get the checks a file gets (size, UTF-8); files the manifest names
/// are still looked up under `root`.
pub fn validate_bytes(
    root: &Path,
    dialect: Dialect,
    manifest: PathBuf,
    bytes: Vec<u8>,
    opts: &ValidateOptions,
) -> PluginReport {
    validate_bytes_at(root, None, dialect, manifest, bytes, opts)
}

/// [`validate_bytes`], with `root`'s canonical path when it is known.
fn validate_bytes_at(
    root: &Path,
    canonical: Option<&Path>,
    dialect: Dialect,
    manifest: PathBuf,
    bytes: Vec<u8>,
    opts: &ValidateOptions,
) -> PluginReport {
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        let d = Diagnostic::new(
            Code::FileTooLarge,
            format!("{} is over 1 MiB", dialect.spec().manifest),
        );
        return report(
            root,
            Some(dialect),
            manifest,
            None,
            None,
            Outcome::file_error(d),
        );
    }
    let hash = crate::hash::bytes(&bytes);
    let text = match decode(bytes, dialect) {
        Ok(text) => text,
        Err((d, lossy)) => {
            return report(
                root,
                Some(dialect),
                manifest,
                lossy,
                None,
                Outcome::file_error(d),
            );
        }
    };
    let mut outcome = crate::host::validate(dialect, &text, root, canonical, opts);
    apply_policy(&mut outcome.diagnostics, opts);
    report(
        root,
        Some(dialect),
        manifest,
        Some(text),
        Some(hash),
        outcome,
    )
}

/// The plugin root a manifest path names: the path without the dialect's
/// manifest components (`.` when nothing is left).
pub fn root_of_manifest(path: &Path, dialect: Dialect) -> PathBuf {
    let mut root = path.to_path_buf();
    for _ in Path::new(dialect.spec().manifest).components() {
        root.pop();
    }
    if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    }
}

/// The plugin root for a buffer saved as `path` and validated as `dialect`
/// (`--stdin-filename`, an editor's document): the manifest's root when the
/// name is the dialect's, else the file's directory.
pub fn buffer_root(path: &Path, dialect: Dialect) -> PathBuf {
    if crate::dialect::from_manifest_path(path).is_some_and(|d| d.is(dialect)) {
        root_of_manifest(path, dialect)
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    }
}

fn report(
    root: &Path,
    dialect: Option<Dialect>,
    manifest: PathBuf,
    source: Option<String>,
    manifest_hash: Option<String>,
    outcome: Outcome,
) -> PluginReport {
    PluginReport {
        root: root.to_path_buf(),
        dialect,
        manifest,
        source,
        manifest_hash,
        outcome,
    }
}

/// `--allow` drops codes; `--strict` makes the remaining warnings errors.
/// Diagnostics end up in source order, errors before warnings at one offset.
fn apply_policy(diags: &mut Vec<Diagnostic>, opts: &ValidateOptions) {
    diags.retain(|d| !(d.severity == Severity::Warning && opts.allow.contains(&d.code)));
    if opts.strict {
        for d in diags.iter_mut() {
            d.severity = Severity::Error;
        }
    }
    diags.sort_by_key(|d| (d.offset(), std::cmp::Reverse(d.severity)));
}

/// Read a manifest, refusing what a host could not read or should not trust.
/// A refusal may carry a lossy rendering of the text to label.
pub fn read_manifest(
    path: &Path,
    dialect: Dialect,
) -> std::result::Result<String, (Diagnostic, Option<String>)> {
    read_bytes(path, dialect)
        .map_err(|d| (d, None))
        .and_then(|bytes| decode(bytes, dialect))
}

/// Manifest bytes as text; not UTF-8 is refused with a lossy rendering to label.
fn decode(
    bytes: Vec<u8>,
    dialect: Dialect,
) -> std::result::Result<String, (Diagnostic, Option<String>)> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let d = Diagnostic::new(
            Code::FileNotUtf8,
            format!("{} is not valid UTF-8", dialect.spec().manifest),
        )
        .with_label(at..at + 1, Some(format!("invalid byte at offset {at}")))
        .with_help("save the file as UTF-8");
        (d, Some(lossy))
    })
}

/// A manifest that opens, is a regular file within the size bound and reads whole: its
/// bytes.
/// `None` for anything else, which [`read_bytes`] then words. Opened
/// non-blocking, so a FIFO cannot hang the open; nothing but a regular file
/// is read.
#[cfg(unix)]
fn read_plain(path: &Path) -> Option<Vec<u8>> {
    crate::file::read_at_most(path, MAX_MANIFEST_BYTES).ok()
}

#[cfg(not(unix))]
fn read_plain(_: &Path) -> Option<Vec<u8>> {
    None
}

#[allow(clippy::disallowed_methods)] // a dangling link's message quotes the OS error alone
fn read_bytes(path: &Path, dialect: Dialect) -> std::result::Result<Vec<u8>, Diagnostic> {
    let name = dialect.spec().manifest;
    let meta = match fs_err::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(_) => {
            return Err(Diagnostic::new(
                Code::FileMissing,
                format!("no {name} at {}", path.display()),
            ));
        }
    };
    // Every host reads a manifest through a symlink; aoe's install refuses any symlink in the
    // tree, which its tree walk reports (`plugins::aoe::symlink`), the manifest included.
    let meta = if meta.file_type().is_symlink() {
        path.metadata().map_err(|e| {
            Diagnostic::new(
                Code::FileMissing,
                format!("{name} is a dangling symlink: {e}"),
            )
        })?
    } else {
        meta
    };
    if !meta.is_file() {
        return Err(Diagnostic::new(
            Code::FileNotRegular,
            format!("{name} is not a regular file"),
        )
        .with_help(format!("`{}` must be a file", path.display())));
    }
    if meta.len() > MAX_MANIFEST_BYTES {
        return Err(Diagnostic::new(
            Code::FileTooLarge,
            format!(
                "{name} is {} bytes; manifests over {MAX_MANIFEST_BYTES} bytes (1 MiB) are refused",
                meta.len()
            ),
        ));
    }
    let unreadable = |e: std::io::Error| {
        Diagnostic::new(
            Code::FileUnreadable,
            format!("cannot read {name}: {}", crate::file::reason(&e)),
        )
    };
    let file = fs_err::File::open(path).map_err(unreadable)?;
    let mut bytes = Vec::new();
    // Bound the read too: the file may grow between the stat and the read.
    file.take(MAX_MANIFEST_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(Diagnostic::new(
            Code::FileTooLarge,
            format!("{name} is over 1 MiB"),
        ));
    }
    Ok(bytes)
}
