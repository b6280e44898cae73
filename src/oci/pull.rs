//! Pull a bundle artifact: resolve the reference to a digest, read its manifest (checked
//! field by field; `oci-client` reads its body, and a token response, whole), and bring each layer into the home's
//! blob cache — only the
//! layers the cache lacks, a cut download resumed with a range request, every byte checked
//! against the layer's digest and size before the file is renamed into the cache.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use serde::Deserialize;

use super::{OciError, OciRef, Transport};

/// At most this many layers (the bundle's own entry limit bounds the files inside them).
const MAX_LAYERS: usize = 10_000;
/// The config (the bundle's manifest) and the lock are read up to this size.
const MAX_SMALL: u64 = 64 << 20;
/// All layers together, at most (the bundle's own limit, 4 GiB, plus tar's framing).
const MAX_TOTAL: u64 = 5 << 30;

/// A pulled artifact: its digest and its blobs, each a file in the cache.
#[derive(Debug)]
pub struct Pulled {
    /// The reference as given, with the digest it resolved to.
    pub reference: OciRef,
    pub digest: String,
    /// The config: the bundle's manifest.
    pub config: PathBuf,
    /// The lock's layer.
    pub lock: PathBuf,
    /// The files layers, in manifest order.
    pub layers: Vec<PathBuf>,
    /// Every blob this artifact uses (for pruning the cache).
    pub blobs: Vec<String>,
    /// Blobs fetched now, and the bytes downloaded for them (less than their size when a
    /// killed pull's download was resumed); blobs found whole in the cache.
    pub fetched: usize,
    pub fetched_bytes: u64,
    pub cached: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    schema_version: u32,
    media_type: Option<String>,
    artifact_type: Option<String>,
    config: Descriptor,
    layers: Vec<Descriptor>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor {
    media_type: String,
    digest: String,
    size: u64,
}

/// The digest `reference` names now (its own digest, or what its tag resolves to); `None`
/// when the registry has no such manifest.
pub fn pulled_digest(
    reference: &OciRef,
    transport: &Transport,
) -> Result<Option<String>, OciError> {
    let client = super::client(transport);
    let creds = super::for_registry(&transport.env, &reference.registry)?;
    let r = reference.client_ref();
    super::block_on(async {
        match client.fetch_manifest_digest(&r, &creds.auth.client()).await {
            Ok(digest) => Ok(Some(digest)),
            Err(e) if missing(&e) => Ok(None),
            Err(e) => Err(super::failed(reference, "resolving the reference", &creds)(
                e,
            )),
        }
    })?
}

/// Pull `reference` into `cache` (`blobs/sha256/<hex>`; `<hex>.partial` while a download is
/// under way, kept across a kill so the next pull resumes it). `check` sees the digest the
/// reference resolved to before any layer is fetched (a moved tag is refused there).
pub fn pull(
    reference: &OciRef,
    transport: &Transport,
    cache: &Path,
    check: &dyn Fn(&str) -> Result<(), OciError>,
) -> Result<Pulled, OciError> {
    let client = super::client(transport);
    let creds = super::for_registry(&transport.env, &reference.registry)?;
    let r = reference.client_ref();
    super::block_on(async {
        let (body, digest) = manifest_bytes(&client, &r, &creds, reference).await?;
        check(&digest)?;
        let manifest = checked(&body, &reference.to_string())?;
        let blobs = cache.join("blobs/sha256");
        fs_err::create_dir_all(&blobs).map_err(|source| OciError::Io {
            context: "cannot create the registry cache".into(),
            source,
        })?;
        let mut out = Pulled {
            reference: reference.at(&digest),
            digest,
            config: PathBuf::new(),
            lock: PathBuf::new(),
            layers: Vec::new(),
            blobs: Vec::new(),
            fetched: 0,
            fetched_bytes: 0,
            cached: 0,
        };
        let all = std::iter::once(&manifest.config).chain(&manifest.layers);
        for (i, d) in all.enumerate() {
            let path = blobs.join(&d.digest["sha256:".len()..]);
            if cached(&path, d)? {
                out.cached += 1;
            } else {
                out.fetched_bytes += fetch(&client, &r, d, &path, &reference.to_string()).await?;
                out.fetched += 1;
            }
            out.blobs.push(d.digest.clone());
            match i {
                0 => out.config = path,
                1 => out.lock = path,
                _ => out.layers.push(path),
            }
        }
        Ok(out)
    })?
}

/// The manifest's bytes and digest: oci-client checks the bytes against the digest asked
/// for (or the registry's `Docker-Content-Digest`, for a tag); tried [`super::ATTEMPTS`]
/// times on a transient failure.
async fn manifest_bytes(
    client: &oci_client::Client,
    r: &oci_client::Reference,
    creds: &super::Credentials,
    reference: &OciRef,
) -> Result<(bytes::Bytes, String), OciError> {
    let failed = super::failed(reference, "reading its manifest", creds);
    let mut attempt = 1;
    let (body, digest) = loop {
        match client
            .pull_manifest_raw(r, &creds.auth.client(), &[super::MANIFEST_TYPE])
            .await
        {
            Ok(ok) => break ok,
            Err(e) if super::transient(&e) && attempt < super::ATTEMPTS => {
                tokio::time::sleep(super::pause(attempt)).await;
                attempt += 1;
            }
            Err(e) => return Err(failed(e)),
        }
    };
    let artifact = |why: String| OciError::Artifact {
        reference: reference.to_string(),
        why,
    };
    if let Some(asked) = &reference.digest
        && &digest != asked
    {
        return Err(artifact(format!(
            "its manifest hashes to {digest}, not {asked}"
        )));
    }
    if !super::valid_digest(&digest) {
        return Err(artifact(format!("its digest {digest:?} is not sha256")));
    }
    Ok((body, digest))
}

/// The manifest read and checked field by field: an OCI image manifest of plugins'
/// artifact type, config and layer media types, sha256 digests, bounded count and sizes.
fn checked(body: &[u8], shown: &str) -> Result<Manifest, OciError> {
    let artifact = |why: String| OciError::Artifact {
        reference: shown.to_owned(),
        why,
    };
    let manifest: Manifest = serde_json::from_slice(body)
        .map_err(|e| artifact(format!("its manifest is not an OCI image manifest: {e}")))?;
    if manifest.schema_version != 2
        || manifest
            .media_type
            .as_deref()
            .is_some_and(|m| m != super::MANIFEST_TYPE)
    {
        return Err(artifact(
            "its manifest is not an OCI image manifest (schemaVersion 2)".into(),
        ));
    }
    if manifest.artifact_type.as_deref() != Some(super::ARTIFACT_TYPE) {
        return Err(artifact(format!(
            "its artifactType is {:?}, not {}",
            manifest.artifact_type.clone().unwrap_or_default(),
            super::ARTIFACT_TYPE
        )));
    }
    if manifest.config.media_type != super::CONFIG_TYPE {
        return Err(artifact(format!(
            "its config is {:?}, not {}",
            manifest.config.media_type,
            super::CONFIG_TYPE
        )));
    }
    let Some((lock, files)) = manifest.layers.split_first() else {
        return Err(artifact("it has no layers".into()));
    };
    if lock.media_type != super::LOCK_TYPE {
        return Err(artifact(format!(
            "its first layer is {:?}, not the lock",
            lock.media_type
        )));
    }
    if let Some(d) = files.iter().find(|d| d.media_type != super::FILES_TYPE) {
        return Err(artifact(format!(
            "a layer is {:?}, not {}",
            d.media_type,
            super::FILES_TYPE
        )));
    }
    if manifest.layers.len() > MAX_LAYERS {
        return Err(artifact(format!("it has more than {MAX_LAYERS} layers")));
    }
    if manifest.config.size > MAX_SMALL || lock.size > MAX_SMALL {
        return Err(artifact("its config or lock is larger than 64 MiB".into()));
    }
    let mut total = 0u64;
    for d in std::iter::once(&manifest.config).chain(&manifest.layers) {
        if !super::valid_digest(&d.digest) {
            return Err(artifact(format!(
                "a layer's digest {:?} is not sha256",
                d.digest
            )));
        }
        total = total.saturating_add(d.size);
    }
    if total > MAX_TOTAL {
        return Err(artifact(
            "its layers are larger than plugins reads (5 GiB in all)".into(),
        ));
    }
    Ok(manifest)
}

/// Whether the cache holds `d` whole: a file of its size that hashes to its digest (a
/// cached blob is hashed again on every use; one that does not is removed).
fn cached(path: &Path, d: &Descriptor) -> Result<bool, OciError> {
    match fs_err::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() && m.len() == d.size => {}
        Ok(_) => {
            let _ = fs_err::remove_file(path);
            return Ok(false);
        }
        Err(_) => return Ok(false),
    }
    let hash = fs_err::File::open(path)
        .and_then(crate::hash::reader)
        .map_err(|source| OciError::Io {
            context: "cannot read the registry cache".into(),
            source,
        })?;
    if hash == d.digest {
        Ok(true)
    } else {
        let _ = fs_err::remove_file(path);
        Ok(false)
    }
}

/// Download `d` into `<path>.partial` (locked, so two pulls into one home take turns),
/// from where a killed pull left it, then check its size and digest and rename it to `path`.
/// Returns the bytes downloaded now.
async fn fetch(
    client: &oci_client::Client,
    r: &oci_client::Reference,
    d: &Descriptor,
    path: &Path,
    shown: &str,
) -> Result<u64, OciError> {
    let io = |context: &str| {
        let context = context.to_owned();
        move |source| OciError::Io { context, source }
    };
    let partial = path.with_extension("partial");
    let mut file = locked_partial(&partial).map_err(io("cannot write the registry cache"))?;
    if cached(path, d)? {
        // Another pull finished it while this one waited.
        let _ = fs_err::remove_file(&partial);
        return Ok(0);
    }
    let mut got = Got {
        have: file
            .metadata()
            .map_err(io("cannot read the registry cache"))?
            .len(),
        downloaded: 0,
        last: String::new(),
    };
    if got.have > d.size {
        got.have = 0;
        file.set_len(0)
            .map_err(io("cannot write the registry cache"))?;
    }
    for attempt in 1..=super::ATTEMPTS {
        if attempt > 1 {
            tokio::time::sleep(super::pause(attempt - 1)).await;
        }
        if got.have == d.size || !one_request(client, r, d, &mut file, &mut got, shown).await? {
            break;
        }
    }
    if got.have != d.size {
        return Err(OciError::Registry {
            reference: shown.to_owned(),
            what: "reading a layer",
            why: format!(
                "{} of {} bytes of {} after {} attempts: {}",
                got.have,
                d.size,
                d.digest,
                super::ATTEMPTS,
                got.last
            ),
        });
    }
    file.sync_all()
        .map_err(io("cannot write the registry cache"))?;
    let hash = fs_err::File::open(&partial)
        .and_then(crate::hash::reader)
        .map_err(io("cannot read the registry cache"))?;
    if hash != d.digest {
        let _ = fs_err::remove_file(&partial);
        let why = format!("hashes to {hash}: it was changed after it was pushed");
        return Err(OciError::Blob {
            reference: shown.to_owned(),
            digest: d.digest.clone(),
            why,
        });
    }
    fs_err::rename(&partial, path).map_err(io("cannot write the registry cache"))?;
    Ok(got.downloaded)
}

/// The partial download at `partial`, created if missing and locked (two pulls into one
/// home take turns).
fn locked_partial(partial: &Path) -> std::io::Result<fs_err::File> {
    let file = fs_err::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(partial)?;
    file.file().lock()?;
    Ok(file)
}

/// A download under way: the bytes in the partial file, those downloaded now, and the last
/// transient failure.
struct Got {
    have: u64,
    downloaded: u64,
    last: String,
}

/// One request for the rest of `d` (a range request past what `file` holds), appended to
/// `file`. `Ok(true)`: cut short by a transient failure, to be tried again.
async fn one_request(
    client: &oci_client::Client,
    r: &oci_client::Reference,
    d: &Descriptor,
    file: &mut fs_err::File,
    got: &mut Got,
    shown: &str,
) -> Result<bool, OciError> {
    let write = |e| OciError::Io {
        context: "cannot write the registry cache".into(),
        source: e,
    };
    let blob = |why: String| OciError::Blob {
        reference: shown.to_owned(),
        digest: d.digest.clone(),
        why,
    };
    let response = if got.have > 0 {
        client
            .pull_blob_stream_partial(r, d.digest.as_str(), got.have, None)
            .await
    } else {
        client
            .pull_blob_stream(r, d.digest.as_str())
            .await
            .map(oci_client::client::BlobResponse::Full)
    };
    let mut stream = match response {
        Ok(oci_client::client::BlobResponse::Partial(s)) => s.stream,
        Ok(oci_client::client::BlobResponse::Full(s)) => {
            // The registry sent it all again: start over.
            got.have = 0;
            file.set_len(0).map_err(write)?;
            s.stream
        }
        Err(e) if super::transient(&e) => {
            got.last = super::said(&e);
            return Ok(true);
        }
        Err(e) if missing(&e) => return Err(blob("is missing from the registry".into())),
        Err(e) => {
            return Err(OciError::Registry {
                reference: shown.to_owned(),
                what: "reading a layer",
                why: super::said(&e),
            });
        }
    };
    file.seek(std::io::SeekFrom::Start(got.have))
        .map_err(write)?;
    let mut cut = false;
    while let Some(chunk) = stream.next().await {
        let bytes = match chunk {
            Ok(bytes) => bytes,
            Err(e) => {
                got.last = crate::auth::redact(&e.to_string());
                cut = true;
                break;
            }
        };
        got.have += bytes.len() as u64;
        got.downloaded += bytes.len() as u64;
        if got.have > d.size {
            file.set_len(0).map_err(write)?;
            return Err(blob(format!("is larger than its {} bytes", d.size)));
        }
        file.write_all(&bytes).map_err(write)?;
    }
    file.flush().map_err(write)?;
    Ok(cut)
}

/// Whether the registry said it has no such blob or manifest (404, `BLOB_UNKNOWN`,
/// `MANIFEST_UNKNOWN`).
fn missing(e: &oci_client::errors::OciDistributionError) -> bool {
    use oci_client::errors::{OciDistributionError as E, OciErrorCode};
    match e {
        E::RegistryError { envelope, .. } => envelope.errors.iter().any(|x| {
            matches!(
                x.code,
                OciErrorCode::BlobUnknown | OciErrorCode::ManifestUnknown | OciErrorCode::NotFound
            )
        }),
        E::ImageManifestNotFoundError(_) => true,
        E::ServerError { code, .. } => *code == 404,
        E::RequestError(r) => r.status().is_some_and(|s| s.as_u16() == 404),
        _ => false,
    }
}
