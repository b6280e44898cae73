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
    let client = super::client(reference, transport);
    let creds = super::for_registry(&transport.env, &reference.registry)?;
    let registry = |what: &'static str| super::failed(reference, what, &creds);
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
    let body = serde_json::to_vec(&manifest).map_err(|e| OciError::Io {
        context: "cannot write the manifest".into(),
        source: std::io::Error::other(e),
    })?;
    let digest = crate::hash::bytes(&body);
    // Without a tag the manifest is put by its digest: nothing is tagged `latest`.
    let r = match &reference.tag {
        Some(_) => reference.client_ref(),
        None => reference.at(&digest).client_ref(),
    };
    super::block_on(async {
        client
            .auth(
                &r,
                &creds.auth.client(),
                oci_client::RegistryOperation::Push,
            )
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
                continue;
            }
            let mut last = None;
            for attempt in 1..=super::ATTEMPTS {
                let file = fs_err::File::open(&l.path).map_err(|source| OciError::Io {
                    context: "cannot read a layer".into(),
                    source,
                })?;
                let stream = chunks(file.into_parts().0);
                match client
                    .push_blob_stream(&r, stream, &l.digest, Some(l.size))
                    .await
                {
                    Ok(_) => {
                        last = None;
                        break;
                    }
                    Err(e) if super::transient(&e) && attempt < super::ATTEMPTS => {
                        tokio::time::sleep(super::pause(attempt)).await;
                        last = Some(e);
                    }
                    Err(e) => {
                        last = Some(e);
                        break;
                    }
                }
            }
            if let Some(e) = last {
                return Err(registry("uploading a layer")(e));
            }
            out.uploaded += 1;
            out.uploaded_bytes += l.size;
        }
        client
            .push_manifest_raw(
                &r,
                body,
                super::MANIFEST_TYPE.parse().expect("a valid header value"),
            )
            .await
            .map_err(registry("uploading the manifest"))?;
        Ok(out)
    })?
}

/// A file as a stream of 1 MiB chunks, read as the upload asks for them (bounded memory).
fn chunks(
    file: std::fs::File,
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
