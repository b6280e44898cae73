//! OCI registries as a bundle's transport (`plugins bundle --push oci://…`, `plugins sync
//! --frozen --from oci://…`), through the ORAS project's `oci-client` (the registry protocol,
//! its token dance and chunked uploads are not hand-written).
//!
//! The artifact: an OCI image manifest with `artifactType` [`ARTIFACT_TYPE`]; its config is
//! the bundle's manifest (`plugins-bundle.json`, every file's sha256); its first layer is the
//! lock; every other layer is one deterministic tar of one plugin's `trees/<id>/`,
//! `wheels/<id>/` or `assets/<id>/`, so an unchanged plugin has the same digest in the next
//! push and is neither uploaded nor pulled twice. Pulls stream each layer to a file in a
//! per-home blob cache (`<home>/.plugins/oci/blobs`), resume a cut download with a range
//! request, and check every byte against the layer's digest before anything reads it.

mod auth;
mod pull;
mod push;
mod record;
mod reference;

use std::time::Duration;

pub use auth::{Credentials, RegistryEnv, for_registry};
pub use pull::{Pulled, pull, pulled_digest};
pub use push::{Layer, Pushed, push};
pub use record::{TagPin, TagRecord, read_tags, tag_key};
pub use reference::{OciRef, valid_digest};

use crate::diagnostic::Code;

/// The manifest's `artifactType`.
pub const ARTIFACT_TYPE: &str = "application/vnd.agent-host-plugins.bundle.v1";
/// The config's media type: the bundle's manifest (`plugins-bundle.json`).
pub const CONFIG_TYPE: &str = "application/vnd.agent-host-plugins.bundle.manifest.v1+json";
/// The lock's layer.
pub const LOCK_TYPE: &str = "application/vnd.agent-host-plugins.lock.v1";
/// A layer of bundled files: a tar of `trees/<id>/…`, `wheels/<id>/…` or `assets/<id>/…`.
pub const FILES_TYPE: &str = "application/vnd.agent-host-plugins.files.v1.tar";
const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// The annotation naming a layer.
pub const TITLE: &str = "org.opencontainers.image.title";

/// How to reach a registry.
#[derive(Clone, Debug, Default)]
pub struct Transport {
    /// `--plain-http`: HTTP instead of HTTPS (TLS is verified otherwise, always).
    pub plain_http: bool,
    pub env: RegistryEnv,
}

/// Why a registry operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    #[error("{reference:?} is not an oci:// reference plugins reads: {why}")]
    Reference { reference: String, why: String },
    #[error("cannot read registry credentials from {source_name}: {why}")]
    Credentials { source_name: String, why: String },
    #[error("{reference}: {what} failed: {why}")]
    Registry {
        reference: String,
        what: &'static str,
        why: String,
    },
    #[error("{reference} is not a bundle plugins can install: {why}; nothing was changed")]
    Artifact { reference: String, why: String },
    #[error("{reference}: layer {digest} {why}; nothing was changed")]
    Blob {
        reference: String,
        digest: String,
        why: String,
    },
    #[error(
        "{reference} moved: it named {recorded} when this home last synced from it, and names {now} now; nothing was changed"
    )]
    TagMoved {
        reference: String,
        recorded: String,
        now: String,
    },
    #[error("{} is not a record plugins wrote: {why}", path.display())]
    Record {
        path: std::path::PathBuf,
        why: String,
    },
    #[error("{context}: {}", crate::file::reason(source))]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl crate::error::NamedRefusal for OciError {
    fn code(&self) -> Code {
        match self {
            OciError::Reference { .. } => Code::UsageInvalidArgument,
            OciError::Credentials { .. } | OciError::Registry { .. } => Code::OciRegistry,
            OciError::Artifact { .. } | OciError::Blob { .. } => Code::OciArtifact,
            OciError::TagMoved { .. } | OciError::Record { .. } => Code::OciTagMoved,
            OciError::Io { .. } => Code::Io,
        }
    }

    fn help(&self) -> Option<String> {
        Some(match self {
            OciError::Reference { .. } => {
                "write it as oci://REGISTRY/NAME:TAG or oci://REGISTRY/NAME@sha256:DIGEST".into()
            }
            OciError::Credentials { .. } => {
                "fix the file, or set PLUGINS_REGISTRY_TOKEN (and PLUGINS_REGISTRY_USERNAME)".into()
            }
            OciError::Registry { .. } => "check the registry's address, `--plain-http` for a registry without TLS, SSL_CERT_FILE for a private CA, and its credentials (`plugins doctor` names their source for each registry a home synced from)".into(),
            OciError::Artifact { .. } => {
                "push it with `plugins bundle --push oci://…` and pull it as pushed".into()
            }
            OciError::Blob { .. } => "the registry serves another content than was pushed: push the bundle again (`plugins bundle --push`) and pull by its digest".into(),
            OciError::TagMoved { reference, now, .. } => format!(
                "to take what the tag names now, pull it by digest: `plugins sync --frozen --from {reference}@{now}` (it is recorded as the tag's digest)"
            ),
            OciError::Record { .. } => {
                "remove it: every tag is then trusted again as first seen".into()
            }
            OciError::Io { .. } => return None,
        })
    }
}

impl From<OciError> for crate::error::Error {
    fn from(e: OciError) -> Self {
        crate::error::Error::Named(Box::new(e))
    }
}

/// A registry error in words: the status and the registry's own message, cut and with
/// any credentials in a URL redacted.
fn said(e: &oci_client::errors::OciDistributionError) -> String {
    // reqwest's own text ("error sending request") leaves the cause (a certificate, a
    // refused connection) to its sources.
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    crate::auth::redact(&crate::net::cap(&text))
}

/// Whether the registry said 401 or 403 (the credentials, or their absence).
fn unauthorized(e: &oci_client::errors::OciDistributionError) -> bool {
    use oci_client::errors::OciDistributionError as E;
    match e {
        E::UnauthorizedError { .. } | E::AuthenticationFailure(_) => true,
        E::ServerError { code, .. } => *code == 401 || *code == 403,
        E::RequestError(r) => r
            .status()
            .is_some_and(|s| s.as_u16() == 401 || s.as_u16() == 403),
        _ => false,
    }
}

/// A failed request as the command says it: what was asked, what the registry said, and
/// for a 401/403 which credentials were offered (their source, never themselves).
fn failed(
    reference: &OciRef,
    what: &'static str,
    creds: &Credentials,
) -> impl Fn(oci_client::errors::OciDistributionError) -> OciError {
    let reference = reference.to_string();
    let source = creds.source.clone();
    move |e| OciError::Registry {
        reference: reference.clone(),
        what,
        why: if unauthorized(&e) {
            format!("{} (credentials: {source})", said(&e))
        } else {
            said(&e)
        },
    }
}

/// Before a bundle is gathered: sign in for a push and ask for a blob, so that a registry
/// that cannot be reached or refuses the credentials fails the command before any fetch.
pub fn check_push(reference: &OciRef, transport: &Transport) -> Result<(), OciError> {
    let client = client(transport);
    let creds = for_registry(&transport.env, &reference.registry)?;
    let r = reference.client_ref();
    block_on(async {
        client
            .auth(
                &r,
                &creds.auth.client(),
                oci_client::RegistryOperation::Push,
            )
            .await
            .map_err(failed(reference, "signing in to push", &creds))?;
        client
            .blob_exists(&r, &crate::hash::bytes(b""))
            .await
            .map_err(failed(reference, "asking for a layer", &creds))?;
        Ok(())
    })?
}

/// One registry client: TLS verified (roots from the system, or
/// `SSL_CERT_FILE`), proxies as every other transfer takes them, the no-progress limit of
/// `PLUGINS_NET_TIMEOUT` on connects and reads, no image-index platform guessing.
fn client(transport: &Transport) -> oci_client::Client {
    static PROVIDER: std::sync::Once = std::sync::Once::new();
    PROVIDER.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    let net = crate::net::settings();
    let config = oci_client::client::ClientConfig {
        protocol: if transport.plain_http {
            oci_client::client::ClientProtocol::Http
        } else {
            oci_client::client::ClientProtocol::Https
        },
        platform_resolver: None,
        read_timeout: Some(crate::net::timeout()),
        connect_timeout: Some(crate::net::timeout()),
        user_agent: concat!("plugins/", env!("CARGO_PKG_VERSION")),
        https_proxy: net.https_proxy.clone().or_else(|| net.all_proxy.clone()),
        http_proxy: net.http_proxy.clone().or_else(|| net.all_proxy.clone()),
        no_proxy: net.no_proxy.clone(),
        max_concurrent_upload: 4,
        max_concurrent_download: 4,
        ..Default::default()
    };
    oci_client::Client::new(config)
}

/// Run `future` to completion on this thread (the rest of plugins is synchronous).
fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, OciError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| OciError::Io {
            context: "cannot start the registry client".into(),
            source,
        })?;
    Ok(rt.block_on(future))
}

/// How often a registry request is tried before its failure is the command's.
const ATTEMPTS: u32 = 3;

/// Whether an error may pass if the request is made again (a transport failure, a 5xx, a
/// 429), with a pause before the next attempt.
fn transient(e: &oci_client::errors::OciDistributionError) -> bool {
    use oci_client::errors::OciDistributionError as E;
    match e {
        E::RequestError(r) => r.is_timeout() || r.is_connect() || r.is_request() || r.is_body(),
        E::ServerError { code, .. } => *code >= 500 || *code == 429,
        _ => false,
    }
}

fn pause(attempt: u32) -> Duration {
    Duration::from_millis(200 * u64::from(attempt))
}

/// What `doctor` finds about a tag a home synced from.
#[derive(Debug)]
pub struct Probe {
    /// Where the credentials came from (never the credentials).
    pub credentials: String,
    /// Whether the recorded digest is still in the registry.
    pub pinned_there: Result<bool, OciError>,
    /// What the tag names now.
    pub tag_now: Result<String, OciError>,
}

/// Ask the registry about `reference` (a tag) and the `digest` recorded for it.
pub fn probe(reference: &OciRef, digest: &str, transport: &Transport) -> Result<Probe, OciError> {
    let creds = for_registry(&transport.env, &reference.registry)?;
    let pinned = OciRef {
        tag: None,
        ..reference.at(digest)
    };
    let tag_now = pull::pulled_digest(reference, transport).and_then(|d| {
        d.ok_or_else(|| OciError::Registry {
            reference: reference.to_string(),
            what: "resolving the reference",
            why: "the registry has no such tag".into(),
        })
    });
    Ok(Probe {
        credentials: creds.source,
        pinned_there: pull::pulled_digest(&pinned, transport).map(|d| d.is_some()),
        tag_now,
    })
}
