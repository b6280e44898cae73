//! aoe `release-binary` workers (spec `aoe.md` §14): pick the release, render the
//! asset name, download it (verifying size and hash), and unpack or place it.
//! Everything is written under the staged plugin tree, so an interrupted or
//! corrupt download never touches a working install.

use std::io::{Read, Write};
use std::path::Path;

mod github;

pub use github::get_at_most;
mod unpack;

use github::{MAX_ASSET, SHOWN_ASSETS, authorized, client, http_error, listing, status_error};
use unpack::unpack;

pub use github::{RateLimit, latest_tag, published_at, rate_limit};
pub use unpack::{kept_hash, unpack_limit};

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
    /// The server stopped sending in the middle of the asset.
    #[error(
        "the download of {asset} stalled: no progress for {secs} s after {done} of {} (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)",
        .total.map_or_else(|| "an unknown number of bytes".to_owned(), |t| format!("{t} bytes"))
    )]
    Stalled {
        asset: String,
        done: u64,
        total: Option<u64>,
        secs: u64,
    },
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
    #[error("{url} is rate limited; {when}")]
    RateLimited { url: String, when: String },
    #[error("archive {asset} is too large: {detail}")]
    TooLarge { asset: String, detail: String },
    #[error("{0}")]
    Http(String),
    #[error("{context}: {}", crate::file::reason(source))]
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

/// The asset `req` names, checked before anything is downloaded or read: one safe file
/// name, and an archive only with a `bin` that is a relative path inside the plugin.
fn asset_of(req: &ReleaseRequest) -> Result<(String, crate::name::Name), ReleaseError> {
    let name = render(&req.asset_template, &req.version);
    let asset_name = crate::name::Name::new(&name).map_err(|why| ReleaseError::BadName {
        name: name.clone(),
        why,
    })?;
    if is_archive(&name) && req.bin.is_none() {
        return Err(ReleaseError::ArchiveWithoutBin);
    }
    if let Some(bin) = &req.bin
        && crate::name::relative_path(bin).is_none()
    {
        return Err(ReleaseError::BadPath(bin.clone()));
    }
    Ok((name, asset_name))
}

/// Whether the asset is a gzipped tarball (unpacked), not the binary itself.
fn is_archive(name: &str) -> bool {
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// Download and place the release asset into `plugin_dir` (the staged tree).
/// `progress(done, total)` is called as bytes arrive. The asset streams to a
/// file while it is hashed, so memory does not grow with its size.
pub fn install(
    req: &ReleaseRequest,
    plugin_dir: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Placed, ReleaseError> {
    let (name, asset_name) = asset_of(req)?;
    let client = client()?;
    let (tag, asset) = release_asset(&client, req, &name)?;
    let download = asset["browser_download_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let resp = authorized(client.get(&download), &download)
        .header("Accept", "application/octet-stream")
        .send()
        .map_err(|e| http_error(&format!("cannot download {name}"), &e))?;
    if !resp.status().is_success() {
        return Err(status_error(&download, resp));
    }
    let declared = resp.content_length();
    let size = asset["size"].as_u64();
    if let (Some(d), Some(s)) = (declared, size)
        && d != s
    {
        return Err(ReleaseError::Truncated {
            asset: name,
            detail: format!("the server sends {d} bytes but the release says {s}"),
        });
    }
    let total = declared.or(size);
    let limit = total.unwrap_or(MAX_ASSET);
    // Keep the asset for `verify`: stream into a part file, then rename.
    let keep = plugin_dir.join(KEEP_DIR);
    fs_err::create_dir_all(&keep).map_err(io(format!("cannot create {}", keep.display())))?;
    let part = keep.join(format!(".part-{asset_name}"));
    let kept = asset_name.under(&keep);
    let mut file = fs_err::File::create(&part).map_err(io("cannot keep the downloaded asset"))?;
    let (done, hasher) = stream(resp, &mut file, (limit, total), &name, progress)?;
    file.sync_all()
        .map_err(io("cannot keep the downloaded asset"))?;
    drop(file);
    let sha256 = hasher.finish();
    check_sha256(&asset, req, &name, &sha256)?;
    fs_err::rename(&part, &kept).map_err(io("cannot keep the downloaded asset"))?;
    place(req, &kept, done, plugin_dir, &name, &asset_name)?;
    Ok(Placed {
        tag,
        asset: name,
        sha256,
    })
}

/// The release `req` names (its tag) and its asset `name`: refused when there is no such
/// release, or it has no such asset (naming some of those it has).
fn release_asset(
    client: &reqwest::blocking::Client,
    req: &ReleaseRequest,
    name: &str,
) -> Result<(String, serde_json::Value), ReleaseError> {
    let Some(release) = listing(client, &req.api, &req.owner, &req.repo, req.tag.as_deref())?
    else {
        return Err(ReleaseError::NoRelease {
            owner: req.owner.clone(),
            repo: req.repo.clone(),
            tag: req.tag.clone().unwrap_or_else(|| "(latest)".into()),
        });
    };
    let tag = release["tag_name"].as_str().unwrap_or_default().to_owned();
    let assets = release["assets"].as_array().cloned().unwrap_or_default();
    let Some(asset) = assets.iter().find(|a| a["name"] == name) else {
        let mut available: Vec<String> = assets
            .iter()
            .filter_map(|a| a["name"].as_str().map(crate::net::cap))
            .take(SHOWN_ASSETS)
            .collect();
        if assets.len() > SHOWN_ASSETS {
            available.push(format!("and {} more", assets.len() - SHOWN_ASSETS));
        }
        return Err(ReleaseError::NoAsset {
            tag,
            name: name.to_owned(),
            available,
        });
    };
    Ok((tag, asset.clone()))
}

/// Stream the asset `name` from `resp` into `file`, hashing it and reporting `progress`:
/// refused when the download stalls or breaks off, or sends more than `limit` bytes or
/// other than `total`. Returns the bytes received and their hasher.
fn stream(
    resp: reqwest::blocking::Response,
    file: &mut fs_err::File,
    (limit, total): (u64, Option<u64>),
    name: &str,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<(u64, crate::hash::Hasher), ReleaseError> {
    let mut hasher = crate::hash::Hasher::default();
    let mut done: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let mut resp = resp.take(limit + 1);
    loop {
        let n = resp.read(&mut buf).map_err(|e| {
            if stalled(&e) {
                ReleaseError::Stalled {
                    asset: name.to_owned(),
                    done,
                    total,
                    secs: crate::net::timeout().as_secs(),
                }
            } else {
                ReleaseError::Truncated {
                    asset: name.to_owned(),
                    detail: crate::net::cap(&e.to_string()),
                }
            }
        })?;
        if n == 0 {
            break;
        }
        done += n as u64;
        if done > limit {
            return Err(ReleaseError::Truncated {
                asset: name.to_owned(),
                detail: format!("more than the {limit} bytes expected"),
            });
        }
        hasher.update(&buf[..n]);
        file.write_all(&buf[..n])
            .map_err(io("cannot keep the downloaded asset"))?;
        progress(done, total);
    }
    if let Some(total) = total
        && done != total
    {
        return Err(ReleaseError::Truncated {
            asset: name.to_owned(),
            detail: format!("got {done} of {total} bytes"),
        });
    }
    Ok((done, hasher))
}

/// The downloaded asset's `sha256`, against the digest the release gives for it and the one
/// the lock pins: either differing is refused.
fn check_sha256(
    asset: &serde_json::Value,
    req: &ReleaseRequest,
    name: &str,
    sha256: &str,
) -> Result<(), ReleaseError> {
    if let Some(digest) = asset["digest"].as_str()
        && digest != sha256
    {
        return Err(ReleaseError::HashMismatch {
            asset: name.to_owned(),
            got: sha256.to_owned(),
            expected: crate::net::cap(digest),
            expected_from: "the release",
        });
    }
    if let Some(locked) = &req.locked_sha256
        && *locked != sha256
    {
        return Err(ReleaseError::HashMismatch {
            asset: name.to_owned(),
            got: sha256.to_owned(),
            expected: locked.clone(),
            expected_from: "the lock",
        });
    }
    Ok(())
}

/// Put the kept asset `kept` (`done` bytes) to work in `plugin_dir`: an archive unpacked and
/// its `bin` found, else the file copied to `bin` (or the asset's name); made executable.
fn place(
    req: &ReleaseRequest,
    kept: &Path,
    done: u64,
    plugin_dir: &Path,
    name: &str,
    asset_name: &crate::name::Name,
) -> Result<(), ReleaseError> {
    let bin_path = if is_archive(name) {
        let bin = req
            .bin
            .clone()
            .expect("asset_of checked: an archive names its bin");
        unpack(kept, done, plugin_dir, name)?;
        let path = plugin_dir
            .join(crate::name::relative_path(&bin).expect("asset_of checked: a relative path"));
        if !path.is_file() {
            return Err(ReleaseError::MissingBin {
                asset: name.to_owned(),
                bin,
            });
        }
        path
    } else {
        let path = match req.bin.as_deref().and_then(crate::name::relative_path) {
            Some(bin) => plugin_dir.join(bin),
            None => asset_name.under(plugin_dir),
        };
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent).map_err(io("cannot create the binary's directory"))?;
        }
        fs_err::copy(kept, &path).map_err(io(format!("cannot write {}", path.display())))?;
        path
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs_err::set_permissions(&bin_path, std::fs::Permissions::from_mode(0o755))
            .map_err(io("cannot make the binary executable"))?;
    }
    Ok(())
}

/// [`install`] from the directory `dir` instead of the release (`sync --frozen --from
/// BUNDLE`): the asset the lock pins, which must hash to `req.locked_sha256`; no network.
pub fn install_from(
    req: &ReleaseRequest,
    dir: &Path,
    plugin_dir: &Path,
) -> Result<Placed, ReleaseError> {
    let (name, asset_name) = asset_of(req)?;
    let file = asset_name.under(dir);
    let bytes = crate::file::read_at_most(&file, MAX_ASSET)
        .map_err(io(format!("cannot read {}", file.display())))?;
    let sha256 = crate::hash::bytes(&bytes);
    let locked = req.locked_sha256.clone().unwrap_or_default();
    if locked != sha256 {
        return Err(ReleaseError::HashMismatch {
            asset: name,
            got: sha256,
            expected: locked,
            expected_from: "the lock",
        });
    }
    let keep = plugin_dir.join(KEEP_DIR);
    fs_err::create_dir_all(&keep).map_err(io(format!("cannot create {}", keep.display())))?;
    let kept = asset_name.under(&keep);
    fs_err::write(&kept, &bytes).map_err(io("cannot keep the bundled asset"))?;
    place(
        req,
        &kept,
        bytes.len() as u64,
        plugin_dir,
        &name,
        &asset_name,
    )?;
    Ok(Placed {
        tag: req.tag.clone().unwrap_or_default(),
        asset: name,
        sha256,
    })
}

/// Whether a read of a response body failed because nothing came within the timeout
/// (reqwest says "error decoding response body" and keeps the timeout as a source).
fn stalled(e: &std::io::Error) -> bool {
    if e.kind() == std::io::ErrorKind::TimedOut {
        return true;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> =
        e.get_ref().map(|r| r as &(dyn std::error::Error + 'static));
    while let Some(s) = source {
        if s.downcast_ref::<reqwest::Error>()
            .is_some_and(reqwest::Error::is_timeout)
            || s.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return true;
        }
        source = s.source();
    }
    false
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
