//! Unpacking a downloaded archive within its limits, and hashing the kept asset.

use std::path::Path;

use super::{KEEP_DIR, ReleaseError, io};

/// The most an archive may unpack to: cargo's rule after CVE-2022-36114,
/// max(512 MiB, 20 × the compressed size).
pub fn unpack_limit(compressed: u64) -> u64 {
    (512 * 1024 * 1024).max(compressed.saturating_mul(20))
}

/// The most entries an archive may hold.
const MAX_ARCHIVE_ENTRIES: usize = 100_000;

/// Unpack a `.tar.gz` into `dir`, refusing entries that would land outside it
/// and archives that unpack to more than [`unpack_limit`].
pub(super) fn unpack(
    archive: &Path,
    compressed: u64,
    dir: &Path,
    asset: &str,
) -> Result<(), ReleaseError> {
    let escape = |entry: String| ReleaseError::Escape {
        asset: asset.to_owned(),
        entry,
    };
    let file = fs_err::File::open(archive).map_err(io(format!("cannot read {asset}")))?;
    let mut archive =
        tar::Archive::new(flate2::read::GzDecoder::new(std::io::BufReader::new(file)));
    let limit = unpack_limit(compressed);
    let mut unpacked: u64 = 0;
    let entries = archive
        .entries()
        .map_err(io(format!("cannot read {asset}")))?;
    for (i, entry) in entries.enumerate() {
        let mut entry = entry.map_err(io(format!("cannot read {asset}")))?;
        if i >= MAX_ARCHIVE_ENTRIES {
            return Err(ReleaseError::TooLarge {
                asset: asset.to_owned(),
                detail: format!("more than {MAX_ARCHIVE_ENTRIES} entries"),
            });
        }
        unpacked = unpacked.saturating_add(entry.header().size().unwrap_or(u64::MAX));
        if unpacked > limit {
            return Err(ReleaseError::TooLarge {
                asset: asset.to_owned(),
                detail: format!("it unpacks to more than {} MiB", limit >> 20),
            });
        }
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let Some(rel) = crate::name::relative_path(&raw) else {
            return Err(escape(raw));
        };
        let kind = entry.header().entry_type();
        if kind.is_symlink() || kind.is_hard_link() {
            let target = entry
                .link_name_bytes()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let joined = rel.parent().unwrap_or(Path::new("")).join(&target);
            if Path::new(&target).is_absolute()
                || crate::name::relative_path(&joined.to_string_lossy()).is_none()
            {
                return Err(escape(format!("{raw} -> {target}")));
            }
        }
        if !entry
            .unpack_in(dir)
            .map_err(io(format!("cannot unpack {raw}")))?
        {
            return Err(escape(raw));
        }
    }
    Ok(())
}

/// `sha256:` of the kept asset, for `verify`.
/// The asset name comes from a lock, so it must be one safe file name.
pub fn kept_hash(plugin_dir: &Path, asset: &str) -> Option<String> {
    let name = crate::name::Name::new(asset).ok()?;
    let file = crate::tree::open_file(&name.under(&plugin_dir.join(KEEP_DIR))).ok()?;
    crate::hash::reader(file).ok()
}
