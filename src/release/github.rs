//! The GitHub releases API: the HTTP client, the rate limit, a release's listing
//! and the latest tag.

use std::io::Read;

use super::ReleaseError;

pub(super) fn client() -> Result<reqwest::blocking::Client, ReleaseError> {
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
pub(super) fn authorized(
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
pub(super) const SHOWN_ASSETS: usize = 20;
/// The largest asset downloaded when the release does not give a size.
pub(super) const MAX_ASSET: u64 = 1024 * 1024 * 1024;

/// A request's failure, with the phase that stalled named.
pub(super) fn http_error(what: &str, e: &reqwest::Error) -> ReleaseError {
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
pub(super) fn status_error(url: &str, resp: reqwest::blocking::Response) -> ReleaseError {
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

/// The body of `url` (a GET, the GitHub token only to GitHub hosts), up to `max` bytes:
/// a larger body is an error, never read whole.
pub fn get_at_most(url: &str, max: u64) -> Result<Vec<u8>, ReleaseError> {
    let client = client()?;
    let resp = authorized(client.get(url), url)
        .send()
        .map_err(|e| http_error(&format!("cannot reach {}", crate::auth::redact(url)), &e))?;
    if !resp.status().is_success() {
        return Err(status_error(&crate::auth::redact(url), resp));
    }
    let mut body = Vec::new();
    resp.take(max + 1).read_to_end(&mut body).map_err(|e| {
        ReleaseError::Http(crate::net::cap(&format!(
            "{}: {e}",
            crate::auth::redact(url)
        )))
    })?;
    if body.len() as u64 > max {
        return Err(ReleaseError::Http(format!(
            "{}: larger than {} MiB",
            crate::auth::redact(url),
            max >> 20
        )));
    }
    Ok(body)
}

/// The release listing for `tag` (else the latest release); `None` when there is none.
pub(super) fn listing(
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

/// When GitHub published the release of `tag` (`published_at`, Unix seconds): set by
/// GitHub when the release is published, not by the publisher's git. `None` when the tag
/// has no release, or it is a draft.
pub fn published_at(
    api: &str,
    owner: &str,
    repo: &str,
    tag: &str,
) -> Result<Option<u64>, ReleaseError> {
    let client = client()?;
    Ok(
        listing(&client, api, owner, repo, Some(tag))?.and_then(|r| {
            r["published_at"]
                .as_str()
                .and_then(crate::clock::parse_rfc3339)
        }),
    )
}
