//! Signed releases: the signed objects of a fetched commit, and their verification by git.
//!
//! A fetch keeps the raw bytes of the commit it checked out and of the annotated tag that
//! named it ([`Signed`]); nothing is verified then, since whether a signature is required
//! depends on the plugin, known only once its tree is checked. [`verify`] writes those
//! objects into a fresh repository in the caller's staging directory (their ids are
//! checked again, so these are the fetched objects) and runs git's own verification on
//! them there: `git verify-tag` for a signed tag, else `git verify-commit`, with
//! `gpg.ssh.allowedSignersFile` naming the allowed signers, and gpg with the user's
//! keyring. git never runs inside the source repository, whose config a local copy's
//! owner controls.

use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::GitError;

/// A fetched object's id and raw bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Raw {
    id: Oid,
    bytes: Vec<u8>,
}

/// What a signature of the fetched commit could be on: the commit, and the annotated tag
/// (with the name it was served under) that names it, if one did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signed {
    commit: Option<Raw>,
    /// `(refs/tags/<name>, the tag object)`.
    tag: Option<(String, Raw)>,
}

/// How a signature was made (from its armor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignFormat {
    Ssh,
    Gpg,
    X509,
}

/// A signature git verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signer {
    /// The key's fingerprint: `SHA256:…` for ssh, the primary key's hex fingerprint for
    /// gpg.
    pub fingerprint: String,
    pub format: SignFormat,
    /// Who the allowed signers file or the keyring names for the key, if git said.
    pub principal: Option<String>,
    /// What was signed: `tag v1.0.0` or `commit 1a2b3c4d5e`.
    pub object: String,
}

impl Signed {
    /// The commit the signed material is for, as 40-hex.
    pub fn commit_id(&self) -> Option<String> {
        self.commit.as_ref().map(|c| c.id.to_string())
    }
}

/// The signed objects of `commit` in `repo`: the commit, and the tag object `tag` (a
/// `refs/tags/…` name and the id it was served with) when it is an annotated tag that
/// peels to `commit`. Missing objects are left out: the verification then says so.
pub(super) fn material(repo: &Repository, commit: Oid, tag: Option<(&str, Oid)>) -> Signed {
    let raw = |id: Oid, kind: ObjectType| {
        let odb = repo.odb().ok()?;
        let object = odb.read(id).ok()?;
        (object.kind() == kind).then(|| Raw {
            id,
            bytes: object.data().to_vec(),
        })
    };
    let tag = tag.and_then(|(name, id)| {
        let peeled = repo.find_object(id, None).ok()?.peel_to_commit().ok()?;
        (peeled.id() == commit).then_some(())?;
        Some((name.to_owned(), raw(id, ObjectType::Tag)?))
    });
    Signed {
        commit: raw(commit, ObjectType::Commit),
        tag,
    }
}

/// The armor a signature starts with, and its format.
const ARMORS: [(&str, SignFormat); 4] = [
    ("-----BEGIN PGP SIGNATURE-----", SignFormat::Gpg),
    ("-----BEGIN PGP MESSAGE-----", SignFormat::Gpg),
    ("-----BEGIN SSH SIGNATURE-----", SignFormat::Ssh),
    ("-----BEGIN SIGNED MESSAGE-----", SignFormat::X509),
];

fn armor_format(line: &str) -> Option<SignFormat> {
    ARMORS
        .iter()
        .find(|(a, _)| line.trim_end() == *a)
        .map(|(_, f)| *f)
}

/// The format of a commit's signature: its `gpgsig` (or `gpgsig-sha256`) header.
fn commit_signature(bytes: &[u8]) -> Option<SignFormat> {
    let text = String::from_utf8_lossy(bytes);
    let headers = text.split("\n\n").next().unwrap_or_default();
    headers.lines().find_map(|l| {
        l.strip_prefix("gpgsig ")
            .or_else(|| l.strip_prefix("gpgsig-sha256 "))
            .and_then(armor_format)
    })
}

/// The format of a tag's signature (appended to its message, or a `gpgsig` header), and
/// the name the tag object carries (its `tag` header).
fn tag_signature(bytes: &[u8]) -> (Option<SignFormat>, Option<String>) {
    let text = String::from_utf8_lossy(bytes);
    let (headers, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    let name = headers
        .lines()
        .find_map(|l| l.strip_prefix("tag "))
        .map(str::to_owned);
    let format = message.lines().find_map(armor_format).or_else(|| {
        headers.lines().find_map(|l| {
            l.strip_prefix("gpgsig ")
                .or_else(|| l.strip_prefix("gpgsig-sha256 "))
                .and_then(armor_format)
        })
    });
    (format, name)
}

fn short(id: Oid) -> String {
    id.to_string()[..10].to_owned()
}

/// Verify the signature of what `signed` holds, from `url`: the tag's when it is a
/// signed annotated tag (its name must be the one it was served under), else the
/// commit's. `allowed_signers`: the file git checks ssh signatures against (`None`:
/// git's own `gpg.ssh.allowedSignersFile`, if the user set one); gpg signatures are
/// checked against the user's keyring. The objects are written into a repository made
/// in `within` (a staging directory), removed afterwards. An ssh signature is checked as
/// of `at` (unix seconds: when `plugins` first saw it), not the date the object claims.
pub fn verify(
    signed: &Signed,
    url: &str,
    allowed_signers: Option<&str>,
    within: &Path,
    at: u64,
) -> Result<Signer, GitError> {
    let Some(commit) = &signed.commit else {
        return Err(GitError::Unsigned {
            message: format!("the commit fetched from {url} could not be read for its signature"),
        });
    };
    let (object, format, raw, kind) = signed_object(commit, signed.tag.as_ref(), url)?;
    let scratch = written_back(within, commit, signed.tag.as_ref().map(|(_, t)| t))?;
    let ran = super::cli::verify(scratch.path(), kind, raw.id, allowed_signers, at)?;
    log::debug!(
        "git: {url}: git verify-{kind} {} (exit {}): {}",
        raw.id,
        if ran.ok { "0" } else { "non-zero" },
        ran.output.trim()
    );
    verdict(ran.ok, &ran.output, format, object, url)
}

/// What [`verify`] checks of `commit` and the annotated `tag` (served as
/// `refs/tags/<name>`) that named it: the tag when it is signed, and then its name must
/// be the one it was served under; else the commit, when it is signed. As (what it is in
/// words, the signature's format, the object, and `tag` or `commit` for git's
/// `verify-…`); neither signed is [`GitError::Unsigned`].
fn signed_object<'a>(
    commit: &'a Raw,
    tag: Option<&'a (String, Raw)>,
    url: &str,
) -> Result<(String, SignFormat, &'a Raw, &'static str), GitError> {
    let commit_format = commit_signature(&commit.bytes);
    Ok(match tag {
        Some((refname, tag)) => {
            let served = refname.strip_prefix("refs/tags/").unwrap_or(refname);
            match tag_signature(&tag.bytes) {
                (Some(format), name) => {
                    let what = format!("tag {served}");
                    if name.as_deref() != Some(served) {
                        return Err(GitError::RenamedTag {
                            what: format!("{what} of {url}"),
                            named: name.unwrap_or_else(|| "nothing".to_owned()),
                            served: served.to_owned(),
                        });
                    }
                    (what, format, tag, "tag")
                }
                (None, _) => match commit_format {
                    Some(format) => (
                        format!("commit {} (tag {served} is unsigned)", short(commit.id)),
                        format,
                        commit,
                        "commit",
                    ),
                    None => {
                        return Err(GitError::Unsigned {
                            message: format!(
                                "tag {served} of {url} is not signed, and neither is its commit {}",
                                short(commit.id)
                            ),
                        });
                    }
                },
            }
        }
        None => match commit_format {
            Some(format) => (
                format!("commit {}", short(commit.id)),
                format,
                commit,
                "commit",
            ),
            None => {
                return Err(GitError::Unsigned {
                    message: format!("commit {} of {url} is not signed", short(commit.id)),
                });
            }
        },
    })
}

/// A fresh bare repository in `within` (removed when the returned directory is dropped)
/// holding `commit` and `tag` written back from their bytes: each must hash to the id it
/// was fetched as.
fn written_back(
    within: &Path,
    commit: &Raw,
    tag: Option<&Raw>,
) -> Result<tempfile::TempDir, GitError> {
    let scratch = tempfile::Builder::new()
        .prefix(".verify-")
        .tempdir_in(within)
        .map_err(|e| {
            git2::Error::from_str(&format!(
                "cannot create a repository to verify in {}: {e}",
                within.display()
            ))
        })?;
    let repo = Repository::init_bare(scratch.path())?;
    let odb = repo.odb()?;
    // Written back from their bytes, the objects must hash to the ids they were fetched as.
    let tag = tag.map(|t| (t, ObjectType::Tag));
    for (r, kind) in std::iter::once((commit, ObjectType::Commit)).chain(tag) {
        let written = odb.write(kind, &r.bytes)?;
        if written != r.id {
            return Err(git2::Error::from_str(&format!(
                "the object {} hashes to {written} when written back",
                r.id
            ))
            .into());
        }
    }
    drop(odb);
    drop(repo);
    Ok(scratch)
}

/// What git's verification of `object` (signed in `format`) came to, from whether it
/// passed (`ok`) and what it said (`output`): the signer it named, or why the signature
/// is refused (git refused it, or accepted it but named no key).
fn verdict(
    ok: bool,
    output: &str,
    format: SignFormat,
    object: String,
    url: &str,
) -> Result<Signer, GitError> {
    let parsed = parse(output, format);
    match (ok, parsed) {
        (true, Some((fingerprint, principal))) => Ok(Signer {
            fingerprint,
            format,
            principal,
            object,
        }),
        (true, None) => Err(GitError::BadSignature {
            what: format!("{object} of {url}"),
            why: format!("git accepted it but named no key ({})", summary(output)),
            format,
        }),
        (false, _) => Err(GitError::BadSignature {
            what: format!("{object} of {url}"),
            why: why_bad(output, format),
            format,
        }),
    }
}

/// The key fingerprint (and principal) git's raw verification output names for a good
/// signature: ssh-keygen's `Good "git" signature for P with ALGO key FP`, gpg's
/// `[GNUPG:] VALIDSIG … PRIMARY-FPR` (the primary key's, so that a new subkey is not a new
/// signer).
fn parse(output: &str, format: SignFormat) -> Option<(String, Option<String>)> {
    match format {
        SignFormat::Ssh => output.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("Good \"git\" signature")?;
            let (who, key) = rest.rsplit_once(" key ")?;
            let principal = who
                .strip_prefix(" for ")
                .and_then(|w| w.rsplit_once(" with "))
                .map(|(p, _)| p.to_owned());
            let fp = key.split_whitespace().next()?;
            Some((fp.to_owned(), principal))
        }),
        SignFormat::Gpg | SignFormat::X509 => {
            let principal = output.lines().find_map(|l| {
                let rest = l.trim().strip_prefix("[GNUPG:] GOODSIG ")?;
                rest.split_once(' ').map(|(_, uid)| uid.to_owned())
            });
            output.lines().find_map(|l| {
                let args: Vec<&str> = l
                    .trim()
                    .strip_prefix("[GNUPG:] VALIDSIG ")?
                    .split_whitespace()
                    .collect();
                let fp = args.get(9).or_else(|| args.first())?;
                Some(((*fp).to_owned(), principal.clone()))
            })
        }
    }
}

/// Why git refused a signature, in words (the key named where git names it).
fn why_bad(output: &str, format: SignFormat) -> String {
    let has = |s: &str| output.contains(s);
    let key = output.lines().find_map(|l| {
        let (_, key) = l.trim().rsplit_once(" key ")?;
        l.contains("signature").then(|| key.trim().to_owned())
    });
    match format {
        SignFormat::Ssh if has("allowedSignersFile needs to be configured") => {
            "an ssh signature is checked against an allowed signers file, and none is set or it does not exist".to_owned()
        }
        // ssh-keygen says the same for a key the file lacks and for one it lists outside its
        // `valid-after`/`valid-before` (a retired key): name both.
        SignFormat::Ssh if has("No principal matched") => match key {
            Some(k) => format!("signed with the key {k}, which the allowed signers file does not list as valid for this signature (not listed, or outside its valid-after/valid-before)"),
            None => "signed with a key the allowed signers file does not list as valid for this signature (not listed, or outside its valid-after/valid-before)".to_owned(),
        },
        SignFormat::Gpg | SignFormat::X509 => {
            let status = |word: &str| {
                output.lines().find_map(|l| {
                    l.trim()
                        .strip_prefix(&format!("[GNUPG:] {word} "))
                        .map(|r| r.split_whitespace().next().unwrap_or_default().to_owned())
                })
            };
            if let Some(k) = status("NO_PUBKEY") {
                format!("signed with the gpg key {k}, which is not in your keyring")
            } else if let Some(k) = status("BADSIG") {
                format!("the signature by the key {k} does not match what it signs")
            } else if let Some(k) = status("EXPKEYSIG") {
                format!("the key {k} has expired")
            } else if let Some(k) = status("REVKEYSIG") {
                format!("the key {k} was revoked")
            } else {
                summary(output)
            }
        }
        SignFormat::Ssh => summary(output),
    }
}

/// git's output, on one line: the lines that are not gpg's status lines, redacted, capped.
fn summary(output: &str) -> String {
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("[GNUPG:]"))
        .collect();
    let shown = lines[lines.len().saturating_sub(4)..].join("; ");
    if shown.is_empty() {
        "git gave no reason".to_owned()
    } else {
        crate::net::cap(&crate::auth::redact(&shown))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_found_in_commits_and_tags() {
        let commit = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@x> 0 +0000\ncommitter a <a@x> 0 +0000\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n\nmessage\n";
        assert_eq!(commit_signature(commit), Some(SignFormat::Ssh));
        let unsigned = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@x> 0 +0000\n\nmessage\n-----BEGIN PGP SIGNATURE-----\n";
        assert_eq!(
            commit_signature(unsigned),
            None,
            "armor in the message is no signature"
        );
        let tag = b"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger t <t@x> 0 +0000\n\nv1\n-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n";
        assert_eq!(
            tag_signature(tag),
            (Some(SignFormat::Gpg), Some("v1".to_owned()))
        );
        let plain = b"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v2\n\nv2\n";
        assert_eq!(tag_signature(plain), (None, Some("v2".to_owned())));
    }

    #[test]
    fn good_signatures_name_their_key() {
        let ssh = "Good \"git\" signature for dev@example.com with ED25519 key SHA256:U/G6c8w/9JV+RbJG1gjbh2EhcxSHXlb1j6uiV8+sHGo\n";
        assert_eq!(
            parse(ssh, SignFormat::Ssh),
            Some((
                "SHA256:U/G6c8w/9JV+RbJG1gjbh2EhcxSHXlb1j6uiV8+sHGo".to_owned(),
                Some("dev@example.com".to_owned())
            ))
        );
        // gpg 2.2's raw status lines (`git verify-tag --raw`): the primary key's fingerprint.
        let gpg = "[GNUPG:] NEWSIG g@x\n[GNUPG:] GOODSIG BEA43B7B35F42DC7 G <g@x>\n[GNUPG:] VALIDSIG 1111111111111111111111111111111111111111 2026-12-03 1796320127 0 4 0 22 8 00 D0F4E5F551911963FFAA1072BEA43B7B35F42DC7\n[GNUPG:] TRUST_ULTIMATE 0 pgp\n";
        assert_eq!(
            parse(gpg, SignFormat::Gpg),
            Some((
                "D0F4E5F551911963FFAA1072BEA43B7B35F42DC7".to_owned(),
                Some("G <g@x>".to_owned())
            ))
        );
        assert_eq!(parse("No principal matched.\n", SignFormat::Ssh), None);
    }

    #[test]
    fn refusals_say_why() {
        let unknown =
            "Good \"git\" signature with ED25519 key SHA256:iY0YQjpvW3vu\nNo principal matched.\n";
        assert_eq!(
            why_bad(unknown, SignFormat::Ssh),
            "signed with the key SHA256:iY0YQjpvW3vu, which the allowed signers file does not list as valid for this signature (not listed, or outside its valid-after/valid-before)"
        );
        let unset = "error: gpg.ssh.allowedSignersFile needs to be configured and exist for ssh signature verification\n";
        assert!(why_bad(unset, SignFormat::Ssh).contains("no"));
        let gpg = "[GNUPG:] NEWSIG g@x\n[GNUPG:] ERRSIG BEA43B7B35F42DC7 22 8 00 1796320127 9 D0F4\n[GNUPG:] NO_PUBKEY BEA43B7B35F42DC7\n";
        assert_eq!(
            why_bad(gpg, SignFormat::Gpg),
            "signed with the gpg key BEA43B7B35F42DC7, which is not in your keyring"
        );
        assert_eq!(why_bad("", SignFormat::Ssh), "git gave no reason");
    }
}
