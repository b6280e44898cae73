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
    #[error("{url} is rate limited; {when}")]
    RateLimited { url: String, when: String },
    #[error("archive {asset} is too large: {detail}")]
    TooLarge { asset: String, detail: String },
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
    // Blocking reqwest applies `timeout` to each read: a no-progress limit.
    // Proxies come from the settings (`HTTPS_PROXY`, `NO_PROXY`, ...) like git's,
    // not from reqwest's own reading of the environment.
    let proxy = reqwest::Proxy::custom(|url| crate::net::env_proxy(url.as_str()));
    // reqwest's default policy (at most 10 redirects), with each redirect logged.
    let redirects = reqwest::redirect::Policy::custom(|attempt| {
        log::debug!(
            "http: redirected to {} (proxy: {})",
            crate::auth::redact(attempt.url().as_str()),
            via(attempt.url().as_str())
        );
        if attempt.previous().len() >= 10 {
            attempt.error("too many redirects")
        } else {
            attempt.follow()
        }
    });
    reqwest::blocking::Client::builder()
        .no_proxy()
        .proxy(proxy)
        .redirect(redirects)
        .user_agent(concat!("plugins/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(crate::net::timeout())
        .timeout(crate::net::timeout())
        .build()
        .map_err(|e| ReleaseError::Http(e.to_string()))
}

/// The proxy a request to `url` goes through, for `-v`.
fn via(url: &str) -> String {
    crate::net::env_proxy(url).map_or_else(|| "none".to_owned(), |p| crate::auth::redact(&p))
}

/// The request with `Authorization: Bearer` when `url` is on a GitHub host and a
/// token is set (reqwest drops the header on a redirect to another host).
fn authorized(
    req: reqwest::blocking::RequestBuilder,
    url: &str,
) -> reqwest::blocking::RequestBuilder {
    log::debug!(
        "http: GET {} (proxy: {})",
        crate::auth::redact(url),
        via(url)
    );
    match crate::net::github_token_for(url) {
        Some(token) => {
            log::debug!(
                "http: {}: credentials from {}",
                crate::auth::redact(url),
                crate::net::settings().github_token_from
            );
            req.bearer_auth(&token.0)
        }
        None => req,
    }
}

/// The GitHub API's core rate limit, as `GET <api>/rate_limit` reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RateLimit {
    pub limit: u64,
    pub remaining: u64,
    /// When the window resets (Unix time).
    pub reset: u64,
}

/// Read the rate limit left for this client (with the token, if any, as every API
/// call sends it). Reading it does not count against it.
pub fn rate_limit(api: &str) -> Result<RateLimit, ReleaseError> {
    let client = client()?;
    let url = format!("{}/rate_limit", api.trim_end_matches('/'));
    let resp = authorized(client.get(&url), &url)
        .header("Accept", "application/vnd.github+json")
        .send()
        .map_err(|e| http_error(&format!("cannot reach {url}"), &e))?;
    if !resp.status().is_success() {
        return Err(status_error(&url, resp));
    }
    let mut body = Vec::new();
    resp.take(1024 * 1024)
        .read_to_end(&mut body)
        .map_err(|e| ReleaseError::Http(crate::net::cap(&format!("{url}: {e}"))))?;
    let doc: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| ReleaseError::Http(format!("{url}: not a rate limit: {e}")))?;
    let core = doc
        .pointer("/resources/core")
        .or_else(|| doc.get("rate"))
        .ok_or_else(|| ReleaseError::Http(format!("{url}: not a rate limit")))?;
    let field = |k: &str| core[k].as_u64().unwrap_or_default();
    Ok(RateLimit {
        limit: field("limit"),
        remaining: field("remaining"),
        reset: field("reset"),
    })
}

/// The largest release listing read, and the most asset names shown.
const MAX_LISTING: u64 = 16 * 1024 * 1024;
const SHOWN_ASSETS: usize = 20;
/// The largest asset downloaded when the release does not give a size.
const MAX_ASSET: u64 = 1024 * 1024 * 1024;

/// A request's failure, with the phase that stalled named.
fn http_error(what: &str, e: &reqwest::Error) -> ReleaseError {
    if e.is_timeout() {
        ReleaseError::Http(format!(
            "{what}: no progress for {} s (raise the limit with PLUGINS_NET_TIMEOUT=SECONDS)",
            crate::net::timeout().as_secs()
        ))
    } else {
        ReleaseError::Http(crate::net::cap(&format!("{what}: {e}")))
    }
}

/// A non-2xx answer: rate limits say when they reset; other texts are capped.
fn status_error(url: &str, resp: reqwest::blocking::Response) -> ReleaseError {
    let status = resp.status();
    let header = |k: &str| {
        resp.headers()
            .get(k)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let remaining = header("x-ratelimit-remaining");
    if status == reqwest::StatusCode::TOO_MANY_REQUESTS
        || (status == reqwest::StatusCode::FORBIDDEN && remaining.as_deref() == Some("0"))
    {
        let when = header("retry-after")
            .map(|s| format!("retry after {s} s"))
            .or_else(|| {
                header("x-ratelimit-reset").map(|s| format!("the limit resets at {s} (Unix time)"))
            })
            .unwrap_or_else(|| "try again later".to_owned());
        return ReleaseError::RateLimited {
            url: url.to_owned(),
            when,
        };
    }
    let mut body = String::new();
    let _ = resp.take(4096).read_to_string(&mut body);
    ReleaseError::Http(crate::net::cap(&format!("{url}: {status}: {body}")))
}

/// The release listing for `tag` (else the latest release); `None` when there is none.
fn listing(
    client: &reqwest::blocking::Client,
    api: &str,
    owner: &str,
    repo: &str,
    tag: Option<&str>,
) -> Result<Option<serde_json::Value>, ReleaseError> {
    let which = tag.map_or_else(|| "latest".to_owned(), |t| format!("tags/{t}"));
    let url = format!(
        "{}/repos/{owner}/{repo}/releases/{which}",
        api.trim_end_matches('/'),
    );
    let resp = authorized(client.get(&url), &url)
        .header("Accept", "application/vnd.github+json")
        .send()
        .map_err(|e| http_error(&format!("cannot reach {url}"), &e))?;
    if resp.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !resp.status().is_success() {
        return Err(status_error(&url, resp));
    }
    let mut body = Vec::new();
    resp.take(MAX_LISTING + 1)
        .read_to_end(&mut body)
        .map_err(|e| ReleaseError::Http(crate::net::cap(&format!("{url}: {e}"))))?;
    if body.len() as u64 > MAX_LISTING {
        return Err(ReleaseError::Http(format!(
            "{url}: the release listing is larger than {} MiB",
            MAX_LISTING >> 20
        )));
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| ReleaseError::Http(format!("{url}: not a release: {e}")))
}

/// The tag of the repository's latest release (`/releases/latest`, as aoe resolves a
/// `gh:owner/repo` without a ref); `None` when it has no release.
pub fn latest_tag(api: &str, owner: &str, repo: &str) -> Result<Option<String>, ReleaseError> {
    let client = client()?;
    Ok(listing(&client, api, owner, repo, None)?
        .and_then(|r| r["tag_name"].as_str().map(str::to_owned))
        .filter(|t| !t.is_empty()))
}

/// Download and place the release asset into `plugin_dir` (the staged tree).
/// `progress(done, total)` is called as bytes arrive. The asset streams to a
/// file while it is hashed, so memory does not grow with its size.
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
    let Some(release) = listing(&client, &req.api, &req.owner, &req.repo, req.tag.as_deref())?
    else {
        return Err(ReleaseError::NoRelease {
            owner: req.owner.clone(),
            repo: req.repo.clone(),
            tag: req.tag.clone().unwrap_or_else(|| "(latest)".into()),
        });
    };
    let tag = release["tag_name"].as_str().unwrap_or_default().to_owned();
    let assets = release["assets"].as_array().cloned().unwrap_or_default();
    let Some(asset) = assets.iter().find(|a| a["name"] == name.as_str()) else {
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
            name,
            available,
        });
    };
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
    std::fs::create_dir_all(&keep).map_err(io(format!("cannot create {}", keep.display())))?;
    let part = keep.join(format!(".part-{asset_name}"));
    let kept = asset_name.under(&keep);
    let mut file = std::fs::File::create(&part).map_err(io("cannot keep the downloaded asset"))?;
    let mut hasher = crate::hash::Hasher::default();
    let mut done: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    let mut resp = resp.take(limit + 1);
    loop {
        let n = resp.read(&mut buf).map_err(|e| ReleaseError::Truncated {
            asset: name.clone(),
            detail: crate::net::cap(&e.to_string()),
        })?;
        if n == 0 {
            break;
        }
        done += n as u64;
        if done > limit {
            return Err(ReleaseError::Truncated {
                asset: name,
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
            asset: name,
            detail: format!("got {done} of {total} bytes"),
        });
    }
    file.sync_all()
        .map_err(io("cannot keep the downloaded asset"))?;
    drop(file);
    let sha256 = hasher.finish();
    if let Some(digest) = asset["digest"].as_str()
        && digest != sha256
    {
        return Err(ReleaseError::HashMismatch {
            asset: name,
            got: sha256,
            expected: crate::net::cap(digest),
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
    std::fs::rename(&part, &kept).map_err(io("cannot keep the downloaded asset"))?;
    let bin_path = if archive {
        let bin = req.bin.clone().expect("checked above");
        unpack(&kept, done, plugin_dir, &name)?;
        let path = plugin_dir.join(crate::name::relative_path(&bin).expect("checked above"));
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
        std::fs::copy(&kept, &path).map_err(io(format!("cannot write {}", path.display())))?;
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

/// The most an archive may unpack to: cargo's rule after CVE-2022-36114,
/// max(512 MiB, 20 × the compressed size).
pub fn unpack_limit(compressed: u64) -> u64 {
    (512 * 1024 * 1024).max(compressed.saturating_mul(20))
}

/// The most entries an archive may hold.
const MAX_ARCHIVE_ENTRIES: usize = 100_000;

/// Unpack a `.tar.gz` into `dir`, refusing entries that would land outside it
/// and archives that unpack to more than [`unpack_limit`].
fn unpack(archive: &Path, compressed: u64, dir: &Path, asset: &str) -> Result<(), ReleaseError> {
    let escape = |entry: String| ReleaseError::Escape {
        asset: asset.to_owned(),
        entry,
    };
    let file = std::fs::File::open(archive).map_err(io(format!("cannot read {asset}")))?;
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
