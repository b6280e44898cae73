//! `<home>/.plugins/oci-tags.json`: the digest each `oci://…:TAG` named when the home last
//! synced from it, so that a tag pushed over later is refused by name (and `doctor` can ask
//! whether the pinned digest is still there).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{OciError, OciRef};

/// Keyed `REGISTRY/NAME:TAG`.
pub type TagRecord = BTreeMap<String, TagPin>;

/// One tag's record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagPin {
    pub digest: String,
    /// Pulled over plain HTTP (`--plain-http`), so `doctor` asks the same way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain_http: bool,
}

/// The key of `reference`'s tag, if it names one.
pub fn tag_key(reference: &OciRef) -> Option<String> {
    reference
        .tag
        .as_ref()
        .map(|t| format!("{}:{t}", reference.name()))
}

/// A home's tag record (empty when there is none); an unreadable one is an error naming it
/// (it guards against a moved tag, so it is never silently taken as empty). Every key and
/// digest is checked.
pub fn read_tags(path: &Path) -> Result<TagRecord, OciError> {
    let bad = |why: String| OciError::Record {
        path: path.to_path_buf(),
        why,
    };
    let tags: TagRecord = match crate::file::read_at_most(path, 1 << 20) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TagRecord::new()),
        Err(e) => return Err(bad(crate::file::reason(&e).into_owned())),
    };
    for (key, pin) in &tags {
        let parsed = OciRef::parse(&format!("oci://{key}"));
        if !parsed.is_ok_and(|r| r.tag.is_some() && r.digest.is_none())
            || !super::valid_digest(&pin.digest)
        {
            return Err(bad(format!(
                "{key:?} is not REGISTRY/NAME:TAG with a sha256 digest"
            )));
        }
    }
    Ok(tags)
}
