//! git's smart HTTP(S) for libgit2, on reqwest and rustls: registered for `http://` and
//! `https://` at start-up ([`register`]), in place of libgit2's own transport (which
//! needs OpenSSL, writes a request in pieces without `TCP_NODELAY`, and opens a
//! connection per request).
//!
//! * One client per scheme for the whole process, so the checks of one run reuse
//!   keep-alive connections per server; a request is written whole (`Content-Length`
//!   body, `TCP_NODELAY`). The TLS client, and with it the system's CA certificates, is
//!   only built when an `https://` remote is reached.
//! * An `http://` connect that gets no answer within [`QUICK_CONNECT`] is tried again at
//!   once (a dropped SYN would otherwise wait 1 s, then 3 s), then once with the full
//!   limit. An `https://` connect waits the full limit: reqwest's connect timeout covers
//!   the TLS handshake too, so a handshake a busy server was still working on would be
//!   dropped and begun again (at a 40 ms round trip, 200 at once against a 2-core server
//!   under load, 27 to 31 of them a run), costing both sides another handshake.
//! * Proxies as [`super::proxy_for`] chooses them (git's `http.proxy`, the environment,
//!   `NO_PROXY`); credentials from [`super::credentials`], asked for only when the
//!   server answers 401 and sent only to the source's own server.
//! * Each read waits at most the transfer timeout ([`crate::net::timeout`]); a ref
//!   advertisement over [`MAX_ADVERTISEMENT`] or a pack over [`MAX_PACK`] is refused.

use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use git2::transport::{Service, SmartSubtransport, SmartSubtransportStream, Transport};
use git2::{ErrorClass, ErrorCode};
use reqwest::blocking::{Client, Response};

use super::credentials::{current_credentials, next_credentials};

/// How long a first connect waits for an answer before it is tried again.
const QUICK_CONNECT: Duration = Duration::from_millis(400);
/// The largest ref advertisement read.
pub(crate) const MAX_ADVERTISEMENT: u64 = 64 << 20;
/// The largest upload-pack response read.
pub(crate) const MAX_PACK: u64 = 4 << 30;
/// The most redirects followed by the first request of a transfer.
const MAX_REDIRECTS: usize = 5;

/// Register the transport for `http://` and `https://`. Called at start-up, before any
/// thread starts (libgit2's registry is not synchronized).
pub(crate) fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for scheme in ["http", "https"] {
            // SAFETY: called once, from `set_timeout` at start-up, before any thread
            // that could create a transport exists.
            let registered = unsafe {
                git2::transport::register(scheme, |remote| {
                    Transport::smart(remote, true, Http::default())
                })
            };
            if let Err(e) = registered {
                log::debug!("git: cannot register the {scheme} transport: {e}");
            }
        }
    });
}

/// A client for one scheme, with a quick or a patient connect.
struct Clients {
    quick: OnceLock<Result<Client, ClientError>>,
    patient: OnceLock<Result<Client, ClientError>>,
}

/// The HTTP client could not be built (TLS settings, the system's certificates): the
/// error and its causes, redacted and capped ([`chain`]). Kept per client, so every
/// transfer that needs it fails the same way.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
struct ClientError(String);

static PLAIN: Clients = Clients {
    quick: OnceLock::new(),
    patient: OnceLock::new(),
};
static TLS: Clients = Clients {
    quick: OnceLock::new(),
    patient: OnceLock::new(),
};

/// A rustls configuration with no roots, for the `http://` client (which never speaks
/// TLS): building it reads no certificate.
fn no_roots() -> Result<rustls::ClientConfig, ClientError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError(chain(&e)))?
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth())
}

fn build(tls: bool, connect: Duration) -> Result<Client, ClientError> {
    let proxy = reqwest::Proxy::custom(|url| super::proxy_for(url.as_str()));
    let mut builder = Client::builder()
        .no_proxy()
        .proxy(proxy)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("git/2.0 (plugins ", env!("CARGO_PKG_VERSION"), ")"))
        .connect_timeout(connect)
        .timeout(crate::net::timeout())
        .tcp_nodelay(true)
        .pool_idle_timeout(Duration::from_secs(30))
        .http1_only();
    if tls {
        static PROVIDER: std::sync::Once = std::sync::Once::new();
        PROVIDER.call_once(|| {
            let _ = rustls::crypto::ring::default_provider().install_default();
        });
        log::trace!("git: http: loading the system's CA certificates");
    } else {
        builder = builder.tls_backend_preconfigured(no_roots()?);
    }
    builder.build().map_err(|e| ClientError(chain(&e)))
}

fn client(url: &str, patient: bool) -> Result<&'static Client, ClientError> {
    let tls = url.starts_with("https://");
    let clients = if tls { &TLS } else { &PLAIN };
    let (cell, connect) = if patient {
        (&clients.patient, crate::net::timeout())
    } else {
        (&clients.quick, QUICK_CONNECT.min(crate::net::timeout()))
    };
    cell.get_or_init(|| build(tls, connect))
        .as_ref()
        .map_err(Clone::clone)
}

/// An error and its causes, `: `-joined, with secrets redacted and capped.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    crate::net::cap(&crate::auth::redact(&text))
}

/// The OS error under a reqwest error, if any.
fn io_cause(e: &reqwest::Error) -> Option<&io::Error> {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<io::Error>() {
            return Some(io);
        }
        source = s.source();
    }
    None
}

/// A failed request, worded as libgit2 words it (the messages callers match on).
fn request_error(url: &str, e: &reqwest::Error) -> git2::Error {
    if e.is_timeout() {
        return git2::Error::new(
            ErrorCode::GenericError,
            ErrorClass::Net,
            "the server timed out",
        );
    }
    if e.is_connect()
        && let Some(io) = io_cause(e)
    {
        let text = io.to_string();
        let text = text.split(" (os error").next().unwrap_or(&text);
        let host = crate::auth::host(url).unwrap_or_default();
        return git2::Error::new(
            ErrorCode::GenericError,
            ErrorClass::Net,
            format!("failed to connect to {host}: {text}"),
        );
    }
    git2::Error::new(ErrorCode::GenericError, ErrorClass::Net, chain(e))
}

fn auth_error() -> git2::Error {
    git2::Error::new(
        ErrorCode::Auth,
        ErrorClass::Http,
        "authentication required: no credentials were accepted",
    )
}

/// Send one request, trying an `http://` connect that gets no answer again at once, then
/// with the full limit (an `https://` one waits the full limit at once: see the module's
/// comment); and, on a 401 from the transfer's server, again with each credentials source
/// in turn.
fn send(
    method: reqwest::Method,
    url: &str,
    body: Option<&[u8]>,
    service: &str,
    post: bool,
) -> Result<Response, git2::Error> {
    let mut credentials = current_credentials(url);
    let quick_tries = if url.starts_with("https://") { 0 } else { 2 };
    loop {
        let mut attempt = 0;
        let resp = loop {
            attempt += 1;
            let client = client(url, attempt > quick_tries).map_err(|e| {
                git2::Error::new(ErrorCode::GenericError, ErrorClass::Net, e.to_string())
            })?;
            let mut req = client.request(method.clone(), url);
            if post {
                req = req
                    .header(
                        "Content-Type",
                        format!("application/x-git-{service}-request"),
                    )
                    .header("Accept", format!("application/x-git-{service}-result"));
            }
            if let Some(body) = body {
                req = req.body(body.to_vec());
            }
            if let Some((user, password)) = &credentials {
                req = req.basic_auth(user, Some(password));
            }
            log::trace!(
                "git: http: {method} {} (proxy: {}{})",
                crate::auth::redact(url),
                super::proxy_for(url)
                    .map_or_else(|| "none".to_owned(), |p| crate::auth::redact(&p)),
                if credentials.is_some() {
                    ", with credentials"
                } else {
                    ""
                }
            );
            match req.send() {
                Err(e) if e.is_connect() && e.is_timeout() && attempt <= quick_tries => {
                    log::debug!("git: {url}: no answer to connect: trying again");
                }
                Err(e) => return Err(request_error(url, &e)),
                Ok(resp) => break resp,
            }
        };
        if resp.status() != reqwest::StatusCode::UNAUTHORIZED {
            return Ok(resp);
        }
        credentials = next_credentials(url);
        if credentials.is_none() {
            return Err(auth_error());
        }
    }
}

/// The subtransport of one remote connection: the base URL, once a redirect moved it.
#[derive(Default)]
struct Http {
    base: Arc<Mutex<Option<String>>>,
}

impl SmartSubtransport for Http {
    fn action(
        &self,
        url: &str,
        action: Service,
    ) -> Result<Box<dyn SmartSubtransportStream>, git2::Error> {
        let base = self
            .base
            .lock()
            .ok()
            .and_then(|b| b.clone())
            .unwrap_or_else(|| url.trim_end_matches('/').to_owned());
        match action {
            Service::UploadPackLs => {
                let resp = advertisement(&base, &self.base)?;
                Ok(Box::new(Stream {
                    post: None,
                    resp: Some(Bounded::new(resp, MAX_ADVERTISEMENT)),
                }))
            }
            Service::UploadPack => Ok(Box::new(Stream {
                post: Some((format!("{base}/git-upload-pack"), Vec::new())),
                resp: None,
            })),
            Service::ReceivePackLs | Service::ReceivePack => Err(git2::Error::from_str(
                "plugins never pushes: receive-pack is not supported",
            )),
        }
    }

    fn close(&self) -> Result<(), git2::Error> {
        Ok(())
    }
}

/// `GET <base>/info/refs?service=git-upload-pack`, following at most [`MAX_REDIRECTS`]
/// redirects (never from https to http); `moved` gets the base a redirect leads to.
fn advertisement(base: &str, moved: &Mutex<Option<String>>) -> Result<Response, git2::Error> {
    const SUFFIX: &str = "/info/refs?service=git-upload-pack";
    let mut url = format!("{base}{SUFFIX}");
    for _ in 0..=MAX_REDIRECTS {
        let resp = send(reqwest::Method::GET, &url, None, "upload-pack", false)?;
        let status = resp.status();
        if status.is_redirection() {
            let location = resp
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| git2::Error::from_str("a redirect without a location"))?;
            let next = resp
                .url()
                .join(location)
                .map_err(|e| git2::Error::from_str(&format!("a bad redirect: {e}")))?;
            if url.starts_with("https://") && next.scheme() != "https" {
                return Err(git2::Error::from_str(
                    "the server redirects from https to an unencrypted URL",
                ));
            }
            let next = next.to_string();
            let Some(new_base) = next.strip_suffix(SUFFIX) else {
                return Err(git2::Error::from_str(&format!(
                    "the server redirects to {} (not a git repository's ref list)",
                    crate::auth::redact(&next)
                )));
            };
            log::trace!("git: http: redirected to {}", crate::auth::redact(&next));
            if let Ok(mut m) = moved.lock() {
                *m = Some(new_base.to_owned());
            }
            url = next;
            continue;
        }
        if !status.is_success() {
            return Err(git2::Error::new(
                ErrorCode::GenericError,
                ErrorClass::Http,
                format!("unexpected http status code: {}", status.as_u16()),
            ));
        }
        let kind = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if kind.split(';').next().map(str::trim)
            != Some("application/x-git-upload-pack-advertisement")
        {
            return Err(git2::Error::new(
                ErrorCode::GenericError,
                ErrorClass::Http,
                format!(
                    "not a smart git HTTP server (content type `{}`)",
                    crate::net::cap(kind)
                ),
            ));
        }
        return Ok(resp);
    }
    Err(git2::Error::from_str("too many redirects"))
}

/// A response read up to a limit, each read within the transfer timeout.
struct Bounded {
    resp: Response,
    left: u64,
    limit: u64,
    /// A read failed (or went over the limit): the connection is not worth keeping.
    broken: bool,
}

impl Bounded {
    fn new(resp: Response, limit: u64) -> Bounded {
        Bounded {
            resp,
            left: limit,
            limit,
            broken: false,
        }
    }
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.read_within(buf);
        self.broken |= read.is_err();
        read
    }
}

impl Bounded {
    fn read_within(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            // One more byte means the response is over the limit.
            let mut probe = [0u8; 1];
            return match self.resp.read(&mut probe) {
                Ok(0) => Ok(0),
                Ok(_) => Err(io::Error::other(format!(
                    "the server sent more than {} MiB",
                    self.limit >> 20
                ))),
                Err(e) => Err(read_error(e)),
            };
        }
        let max = usize::try_from(self.left)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = self.resp.read(&mut buf[..max]).map_err(read_error)?;
        self.left -= n as u64;
        Ok(n)
    }
}

fn read_error(e: io::Error) -> io::Error {
    let timed_out = e.kind() == io::ErrorKind::TimedOut
        || e.to_string().to_ascii_lowercase().contains("timed out");
    if timed_out {
        io::Error::new(io::ErrorKind::TimedOut, "the server timed out")
    } else {
        io::Error::other(crate::net::cap(&crate::auth::redact(&chain(&e))))
    }
}

/// One request's stream: a ref advertisement to read, or an upload-pack request whose
/// body is gathered from libgit2's writes and sent whole at the first read.
struct Stream {
    post: Option<(String, Vec<u8>)>,
    resp: Option<Bounded>,
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.resp.is_none() {
            let (url, body) = self
                .post
                .take()
                .ok_or_else(|| io::Error::other("nothing was requested"))?;
            let resp = send(
                reqwest::Method::POST,
                &url,
                Some(&body),
                "upload-pack",
                true,
            )
            .map_err(|e| {
                let kind = if e.message().contains("timed out") {
                    io::ErrorKind::TimedOut
                } else {
                    io::ErrorKind::Other
                };
                io::Error::new(kind, e.message().to_owned())
            })?;
            if !resp.status().is_success() {
                return Err(io::Error::other(format!(
                    "unexpected http status code: {}",
                    resp.status().as_u16()
                )));
            }
            self.resp = Some(Bounded::new(resp, MAX_PACK));
        }
        self.resp.as_mut().map_or(Ok(0), |r| r.read(buf))
    }
}

/// At most this much of a response libgit2 did not read to its end is read on drop,
/// so that its connection goes back to the pool.
const DRAIN: u64 = 64 << 10;

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(resp) = self.resp.as_mut().filter(|r| !r.broken) {
            let _ = io::copy(&mut (&mut resp.resp).take(DRAIN), &mut io::sink());
        }
    }
}

impl Write for Stream {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match &mut self.post {
            Some((_, body)) if self.resp.is_none() => {
                body.extend_from_slice(data);
                Ok(data.len())
            }
            _ => Err(io::Error::other("this request takes no more data")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
