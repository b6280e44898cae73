//! Push a bundle artifact: each layer a file already on disk with its digest, uploaded only
//! when the registry lacks it (a HEAD first), streamed in chunks; then the manifest, by tag
//! or by its own digest.

use std::path::PathBuf;

use futures_util::StreamExt;
use serde_json::json;

use super::{OciError, OciRef, Transport};

/// One blob to push.
#[derive(Clone, Debug)]
pub struct Layer {
    pub path: PathBuf,
    pub media_type: &'static str,
    pub digest: String,
    pub size: u64,
    /// Its `org.opencontainers.image.title` (`plugins.lock`, `trees/<id>`, …).
    pub title: Option<String>,
}

/// What a push did.
#[derive(Debug, serde::Serialize)]
pub struct Pushed {
    /// `oci://REGISTRY/NAME[:TAG]@sha256:…`
    pub reference: String,
    pub digest: String,
    /// Blobs uploaded now, and their bytes; blobs the registry already had.
    pub uploaded: usize,
    pub uploaded_bytes: u64,
    pub reused: usize,
}

/// Push `config` (the bundle's manifest) and `layers` (the lock first) to `reference`.
pub fn push(
    reference: &OciRef,
    transport: &Transport,
    config: &Layer,
    layers: &[Layer],
) -> Result<Pushed, OciError> {
    if reference.digest.is_some() {
        return Err(OciError::Reference {
            reference: reference.to_string(),
            why: "a push names a tag (or nothing), never a digest: the digest is what the push prints".into(),
        });
    }
    let client = super::client(transport);
    let creds = super::for_registry(&transport.env, &reference.registry)?;
    let registry = |what: &'static str| super::failed(reference, what, &creds);
    let body = manifest(config, layers)?;
    let digest = crate::hash::bytes(&body);
    // Without a tag the manifest is put by its digest: nothing is tagged `latest`.
    let r = match &reference.tag {
        Some(_) => reference.client_ref(),
        None => reference.at(&digest).client_ref(),
    };
    super::block_on(async {
        let auth = creds.auth.client();
        client
            .auth(&r, &auth, oci_client::RegistryOperation::Push)
            .await
            .map_err(registry("signing in to push"))?;
        let mut out = Pushed {
            reference: reference.at(&digest).to_string(),
            digest: digest.clone(),
            uploaded: 0,
            uploaded_bytes: 0,
            reused: 0,
        };
        let mut seen = std::collections::BTreeSet::new();
        for l in std::iter::once(config).chain(layers) {
            if !seen.insert(l.digest.clone()) {
                continue;
            }
            let exists = client
                .blob_exists(&r, &l.digest)
                .await
                .map_err(registry("asking for a layer"))?;
            if exists {
                out.reused += 1;
            } else {
                upload(&client, &r, l)
                    .await
                    .map_err(registry("uploading a layer"))?;
                out.uploaded += 1;
                out.uploaded_bytes += l.size;
            }
        }
        let content_type = super::MANIFEST_TYPE.parse().expect("a valid header value");
        client
            .push_manifest_raw(&r, body, content_type)
            .await
            .map_err(registry("uploading the manifest"))?;
        Ok(out)
    })?
}

/// The artifact's image manifest, as bytes (their sha256 is the digest pushed).
fn manifest(config: &Layer, layers: &[Layer]) -> Result<Vec<u8>, OciError> {
    let descriptor = |l: &Layer| {
        let mut d = json!({"mediaType": l.media_type, "digest": l.digest, "size": l.size});
        if let Some(t) = &l.title {
            d["annotations"] = json!({ super::TITLE: t });
        }
        d
    };
    let manifest = json!({
        "schemaVersion": 2,
        "mediaType": super::MANIFEST_TYPE,
        "artifactType": super::ARTIFACT_TYPE,
        "config": descriptor(config),
        "layers": layers.iter().map(descriptor).collect::<Vec<_>>(),
    });
    serde_json::to_vec(&manifest).map_err(|e| OciError::Io {
        context: "cannot write the manifest".into(),
        source: std::io::Error::other(e),
    })
}

/// Upload one blob from its file, streamed; tried again on a transient failure.
async fn upload(
    client: &oci_client::Client,
    r: &oci_client::Reference,
    l: &Layer,
) -> Result<(), oci_client::errors::OciDistributionError> {
    let mut attempt = 1;
    loop {
        let file = fs_err::File::open(&l.path)?;
        match client
            .push_blob_stream(r, chunks(file), &l.digest, Some(l.size))
            .await
        {
            Ok(_) => return Ok(()),
            Err(e) if super::transient(&e) && attempt < super::ATTEMPTS => {
                tokio::time::sleep(super::pause(attempt)).await;
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// A file as a stream of 1 MiB chunks, read as the upload asks for them (bounded memory).
fn chunks(
    file: fs_err::File,
) -> impl futures_util::Stream<Item = oci_client::errors::Result<bytes::Bytes>> + Send + 'static {
    futures_util::stream::unfold(Some(file), |state| async move {
        let mut file = state?;
        let mut buf = vec![0u8; 1 << 20];
        match std::io::Read::read(&mut file, &mut buf) {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(bytes::Bytes::from(buf)), Some(file)))
            }
            Err(e) => Some((Err(e.into()), None)),
        }
    })
    .boxed()
}
