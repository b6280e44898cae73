//! aoe `release-binary` workers (spec `aoe.md` §14): pick the release, render the
//! asset name, download it (verifying size and hash), and unpack or place it.
//! Everything is written under the staged plugin tree, so an interrupted or
//! corrupt download never touches a working install.

use std::io::{Read, Write};
use std::path::Path;

/// Where the downloaded asset is kept (excluded from the source tree hash), so
/// `verify` can re-hash it.
pub const KEEP_DIR: &str = ".aoe-build/release";

/// What to download.
#[derive(Clone, Debug)]
pub struct ReleaseRequest {
    /// The GitHub API base, e.g. `https://api.github.com`.
    pub api: String,
    pub owner: String,
    pub repo: String,
    /// A release tag, or `None` for the latest release.
    pub tag: Option<String>,
    pub asset_template: String,
    pub bin: Option<String>,
    /// The manifest's `version`, for `${version}`.
    pub version: String,
    /// `sha256:<hex>` the lock pinned; a different download is refused.
    pub locked_sha256: Option<String>,
}

/// What was installed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Placed {
    pub tag: String,
    pub asset: String,
    pub sha256: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    #[error("{owner}/{repo} has no release {tag}")]
    NoRelease {
        owner: String,
        repo: String,
        tag: String,
    },
    #[error("release {tag} has no asset {name:?} for this platform; available: [{}]", .available.join(", "))]
    NoAsset {
        tag: String,
        name: String,
        available: Vec<String>,
    },
    #[error("a release-binary archive asset must set `bin`")]
    ArchiveWithoutBin,
    #[error(
        "plugin path {0:?} must be a relative path inside the plugin (no absolute path or `..`)"
    )]
    BadPath(String),
    #[error("the download of {asset} was cut short: {detail}")]
    Truncated { asset: String, detail: String },
    #[error("{asset} hashes to {got}, but {expected_from} says {expected}")]
    HashMismatch {
        asset: String,
        got: String,
        expected: String,
        expected_from: &'static str,
    },
    #[error("archive {asset} has an entry that escapes the plugin directory: {entry}")]
    Escape { asset: String, entry: String },
    #[error("archive {asset} has no `{bin}`")]
    MissingBin { asset: String, bin: String },
    #[error("the release asset name {name:?} cannot be a file name: {why}")]
    BadName {
        name: String,
        why: crate::name::NameError,
    },
    #[error("{0}")]
    Http(String),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> ReleaseError {
    let context = context.into();
    move |source| ReleaseError::Io { context, source }
}

/// The platform's words for the asset template: (os, arch, target triple).
pub fn platform() -> (&'static str, &'static str, String) {
    let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
    let target = match os {
        "macos" => format!("{arch}-apple-darwin"),
        "windows" => format!("{arch}-pc-windows-msvc"),
        _ => format!("{arch}-unknown-linux-gnu"),
    };
    (os, arch, target)
}

/// Substitute `${os}`, `${arch}`, `${version}` (as aoe does) and `${target}` (which aoe
/// documents but does not substitute; `plugins validate` lints it).
pub fn render(template: &str, version: &str) -> String {
    let (os, arch, target) = platform();
    template
        .replace("${os}", os)
        .replace("${arch}", arch)
        .replace("${version}", version)
        .replace("${target}", &target)
}

fn client() -> Result<reqwest::blocking::Client, ReleaseError> {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::blocking::Client::builder()
        .user_agent(concat!("plugins/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(std::time::Duration::from_secs(30))
        .timeout(std::time::Duration::from_secs(600))
        .build()
        .map_err(|e| ReleaseError::Http(e.to_string()))
}

/// Download and place the release asset into `plugin_dir` (the staged tree).
/// `progress(done, total)` is called as bytes arrive.
pub fn install(
    req: &ReleaseRequest,
    plugin_dir: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Placed, ReleaseError> {
    let name = render(&req.asset_template, &req.version);
    let asset_name = crate::name::Name::new(&name).map_err(|why| ReleaseError::BadName {
        name: name.clone(),
        why,
    })?;
    let archive = name.ends_with(".tar.gz") || name.ends_with(".tgz");
    if archive && req.bin.is_none() {
        return Err(ReleaseError::ArchiveWithoutBin);
    }
    if let Some(bin) = &req.bin
        && crate::name::relative_path(bin).is_none()
    {
        return Err(ReleaseError::BadPath(bin.clone()));
    }
    let client = client()?;
    let which = req
        .tag
        .as_ref()
        .map_or_else(|| "latest".to_owned(), |t| format!("tags/{t}"));
    let url = format!(
        "{}/repos/{}/{}/releases/{which}",
        req.api.trim_end_matches('/'),
        req.owner,
        req.repo
    );
    let resp = client
        .get(&url)
        .header("Accept", "application/vnd.github+json")
        .send()
        .map_err(|e| ReleaseError::Http(format!("cannot reach {url}: {e}")))?;
    if resp.status() == reqwest::StatusCode::NOT_FOUND {
        return Err(ReleaseError::NoRelease {
            owner: req.owner.clone(),
            repo: req.repo.clone(),
            tag: req.tag.clone().unwrap_or_else(|| "(latest)".into()),
        });
    }
    let body = resp
        .error_for_status()
        .and_then(reqwest::blocking::Response::text)
        .map_err(|e| ReleaseError::Http(format!("{url}: {e}")))?;
    let release: serde_json::Value = serde_json::from_str(&body)
        .map_err(|e| ReleaseError::Http(format!("{url}: not a release: {e}")))?;
    let tag = release["tag_name"].as_str().unwrap_or_default().to_owned();
    let assets = release["assets"].as_array().cloned().unwrap_or_default();
    let Some(asset) = assets.iter().find(|a| a["name"] == name.as_str()) else {
        let available = assets
            .iter()
            .filter_map(|a| a["name"].as_str().map(str::to_owned))
            .collect();
        return Err(ReleaseError::NoAsset {
            tag,
            name,
            available,
        });
    };
    let download = asset["browser_download_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let mut resp = client
        .get(&download)
        .header("Accept", "application/octet-stream")
        .send()
        .and_then(reqwest::blocking::Response::error_for_status)
        .map_err(|e| ReleaseError::Http(format!("cannot download {name}: {e}")))?;
    let total = resp.content_length().or_else(|| asset["size"].as_u64());
    let mut bytes = Vec::with_capacity(usize::try_from(total.unwrap_or(0)).unwrap_or(0));
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = resp.read(&mut buf).map_err(|e| ReleaseError::Truncated {
            asset: name.clone(),
            detail: e.to_string(),
        })?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n]);
        progress(bytes.len() as u64, total);
    }
    if let Some(total) = total
        && bytes.len() as u64 != total
    {
        return Err(ReleaseError::Truncated {
            asset: name,
            detail: format!("got {} of {total} bytes", bytes.len()),
        });
    }
    let sha256 = crate::hash::bytes(&bytes);
    if let Some(digest) = asset["digest"].as_str()
        && digest != sha256
    {
        return Err(ReleaseError::HashMismatch {
            asset: name,
            got: sha256,
            expected: digest.to_owned(),
            expected_from: "the release",
        });
    }
    if let Some(locked) = &req.locked_sha256
        && *locked != sha256
    {
        return Err(ReleaseError::HashMismatch {
            asset: name,
            got: sha256,
            expected: locked.clone(),
            expected_from: "the lock",
        });
    }
    // Keep the asset for `verify`, then unpack or place it.
    let keep = plugin_dir.join(KEEP_DIR);
    std::fs::create_dir_all(&keep).map_err(io(format!("cannot create {}", keep.display())))?;
    std::fs::write(asset_name.under(&keep), &bytes)
        .map_err(io("cannot keep the downloaded asset"))?;
    let bin_path = if archive {
        let bin = req.bin.clone().expect("checked above");
        unpack(&bytes, plugin_dir, &name)?;
        let path = plugin_dir.join(&bin);
        if !path.is_file() {
            return Err(ReleaseError::MissingBin { asset: name, bin });
        }
        path
    } else {
        let path = match req.bin.as_deref().and_then(crate::name::relative_path) {
            Some(bin) => plugin_dir.join(bin),
            None => asset_name.under(plugin_dir),
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io("cannot create the binary's directory"))?;
        }
        let mut f =
            std::fs::File::create(&path).map_err(io(format!("cannot write {}", path.display())))?;
        f.write_all(&bytes)
            .map_err(io(format!("cannot write {}", path.display())))?;
        path
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&bin_path, std::fs::Permissions::from_mode(0o755))
            .map_err(io("cannot make the binary executable"))?;
    }
    Ok(Placed {
        tag,
        asset: name,
        sha256,
    })
}

/// Unpack a `.tar.gz` into `dir`, refusing entries that would land outside it.
fn unpack(bytes: &[u8], dir: &Path, asset: &str) -> Result<(), ReleaseError> {
    let escape = |entry: String| ReleaseError::Escape {
        asset: asset.to_owned(),
        entry,
    };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(io(format!("cannot read {asset}")))?;
    for entry in entries {
        let mut entry = entry.map_err(io(format!("cannot read {asset}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_every_token() {
        let (os, arch, target) = platform();
        assert_eq!(
            render("w-${os}-${arch}-${version}.tar.gz", "1.2.0"),
            format!("w-{os}-{arch}-1.2.0.tar.gz")
        );
        assert_eq!(render("w-${target}", "1"), format!("w-{target}"));
    }
}
