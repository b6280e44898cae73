//! A locked row's trust, checked again by `outdated` and `doctor`: its commit is still on
//! a branch or tag of the remote (the impostor check install, update and sync make after
//! their fetch, [`git::fetch_tree`]), and under `require_signed` its tag's or commit's
//! signature still verifies, by the key the lock recorded.
//!
//! A commit that is a branch or tag tip the remote lists costs one ref listing (none when
//! the caller's own check of the row listed the remote and saw it there); otherwise, and whenever a signature is required,
//! the commit is fetched as `sync` fetches it (with the tag it was installed from) into a
//! temp directory, removed afterwards. Nothing in a home changes.

use std::time::Duration;

use serde::Serialize;

use crate::diagnostic::Code;
use crate::git::{self, GitError, RefKind};
use crate::lock::Entry;
use crate::signing::Trust;
use crate::store::Home;

/// A locked row that fails its trust check: the code, what is wrong, the way out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub code: Code,
    pub message: String,
    pub help: String,
}

/// One locked row to check.
#[derive(Clone, Debug)]
pub struct Row {
    pub home: Home,
    pub entry: Entry,
    /// The fetchable URL of its source.
    pub url: String,
    pub userinfo: Option<crate::auth::Userinfo>,
    /// The caller saw the locked commit as the tip of a branch or tag of the remote (an
    /// up-to-date check, or the check's listing: [`super::Check::published`]): it is
    /// published, and no listing is needed.
    pub tip: bool,
    /// The caller's own check listed the remote (and, unless `tip`, did not see the locked
    /// commit as a tip): the trust check does not list it again (issue 43: one ref listing
    /// per URL per command).
    pub listed: bool,
}

/// Check `rows`, at most `jobs` remotes at a time (and [`git::host_limit`] per server),
/// each within `timeout`; the problems of each row, in the rows' order. A check that
/// does not finish in time is a problem of its own (`plugins::git::fetch`).
pub fn check_rows(rows: Vec<Row>, jobs: usize, timeout: Duration) -> Vec<Vec<Problem>> {
    let n = rows.len();
    let names: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r.entry.id.clone(), r.url.clone()))
        .collect();
    // Each home's `[trust]`, read once (not once per row).
    let mut trusts: std::collections::HashMap<
        std::path::PathBuf,
        Result<Trust, crate::store::SettingsError>,
    > = Default::default();
    for r in &rows {
        trusts
            .entry(r.home.root.clone())
            .or_insert_with(|| crate::signing::load(&r.home));
    }
    // Rows whose answer needs no remote are answered here: a thread each (which the pool
    // starts, at most the server's limit at a time) cost more than their check, and most
    // rows of an `outdated` are such, their commit seen as a tip by the check itself.
    let mut out: Vec<Vec<Problem>> = vec![Vec::new(); n];
    let mut work = Vec::new();
    // The rows of one repository at one commit (a monorepo's plugins) ask its remote the
    // same question when no signature is required: the first asks, for all of them (one
    // fetch per repository and commit, issue 43). A problem is asked again by each other
    // row, so that its words are that row's.
    let mut first: std::collections::HashMap<Shared, usize> = Default::default();
    let mut sharing: Vec<(usize, usize, Row, TrustRead)> = Vec::new();
    for (i, r) in rows.into_iter().enumerate() {
        let trust = trusts[&r.home.root].clone();
        if !needs_remote(&r, &trust) {
            out[i] = check(&r, trust);
        } else if let Some(key) = shared(&r, &trust) {
            match first.get(&key) {
                Some(&f) => sharing.push((i, f, r, trust)),
                None => {
                    first.insert(key, i);
                    work.push((i, (r, trust)));
                }
            }
        } else {
            work.push((i, (r, trust)));
        }
    }
    let mut done = in_pool(work, jobs, timeout);
    let clean: std::collections::HashSet<usize> = done
        .iter()
        .filter(|(_, p)| p.as_ref().is_some_and(Vec::is_empty))
        .map(|(i, _)| *i)
        .collect();
    let mut again = Vec::new();
    for (i, f, r, trust) in sharing {
        match clean.contains(&f) {
            true => done.push((i, Some(Vec::new()))),
            false => again.push((i, (r, trust))),
        }
    }
    done.extend(in_pool(again, jobs, timeout));
    for (i, problems) in done {
        out[i] = problems.unwrap_or_else(|| {
            let (id, url) = &names[i];
            vec![Problem {
                code: Code::GitFetch,
                message: format!(
                    "{id}: checking that its locked commit is published on {url} timed out after {} s",
                    timeout.as_secs()
                ),
                help: "PLUGINS_NET_TIMEOUT and --timeout bound each attempt".to_owned(),
            }]
        });
    }
    out
}

/// A home's `[trust]`, as read.
type TrustRead = Result<Trust, crate::store::SettingsError>;

/// What rows that ask their remote the same question have in common: the remote, the
/// credentials' user, the locked commit, the tag that comes along, and what the caller saw.
type Shared = (String, Option<String>, String, Option<String>, bool, bool);

/// The question `row` asks its remote, when it is one another row can answer for it: no
/// signature is required (whose rule and recorded key are the row's own).
fn shared(row: &Row, trust: &TrustRead) -> Option<Shared> {
    let trust = trust.as_ref().ok()?;
    if trust
        .rule(&row.entry.id, &Default::default(), &row.home.settings())
        .required
    {
        return None;
    }
    Some((
        row.url.clone(),
        row.userinfo.as_ref().map(|u| u.user.clone()),
        row.entry.commit.clone()?,
        tag_hint(&row.entry).map(str::to_owned),
        row.tip,
        row.listed,
    ))
}

/// [`check`] of each row in the bounded pool; `None` for a row that timed out.
fn in_pool(
    work: Vec<(usize, (Row, TrustRead))>,
    jobs: usize,
    timeout: Duration,
) -> Vec<(usize, Option<Vec<Problem>>)> {
    super::pool::bounded(
        work,
        &|(r, _): &(Row, TrustRead)| r.url.as_str(),
        jobs,
        timeout,
        std::sync::Arc::new(|(r, trust): (Row, TrustRead)| check(&r, trust)),
    )
}

/// The tag a row was installed from, which a fetch of its locked commit brings along.
fn tag_hint(entry: &Entry) -> Option<&str> {
    (entry.ref_kind == Some(RefKind::Tag) && !entry.requested_ref.is_empty())
        .then_some(entry.requested_ref.as_str())
}

/// Whether [`check`] of `row` reaches its remote: a listing or a fetch. Not when the
/// home's `[trust]` cannot be read, nor when no signature is required and the commit is
/// known published (a tip) or the source is local.
fn needs_remote(row: &Row, trust: &Result<Trust, crate::store::SettingsError>) -> bool {
    let Ok(trust) = trust else {
        return false;
    };
    row.entry.commit.is_some()
        && (trust
            .rule(&row.entry.id, &Default::default(), &row.home.settings())
            .required
            || !(row.tip || git::is_local(&row.url)))
}

/// The problems of one row (none when it holds), under its home's `[trust]`.
fn check(row: &Row, trust: Result<Trust, crate::store::SettingsError>) -> Vec<Problem> {
    let (id, url) = (row.entry.id.as_str(), row.url.as_str());
    let Some(commit) = row.entry.commit.as_deref() else {
        return Vec::new();
    };
    let trust = match trust {
        Ok(t) => t,
        Err(why) => {
            return vec![Problem {
                code: Code::ConfigTrust,
                message: format!("{id}: {why}"),
                help: crate::signing::FIX_TRUST.to_owned(),
            }];
        }
    };
    let rule = trust.rule(id, &Default::default(), &row.home.settings());
    if !rule.required && known_published(row, commit) {
        return Vec::new();
    }
    if let Some(why) = rule.missing_signers_file() {
        return vec![Problem {
            code: Code::ConfigTrust,
            message: format!("{id}: {why}"),
            help: crate::signing::FIX_SIGNERS_FILE.to_owned(),
        }];
    }
    let tmp = match crate::scratch::dir("trust") {
        Ok(t) => t,
        Err(e) => {
            return vec![Problem {
                code: Code::Io,
                message: format!("{id}: cannot create a temp directory to fetch into: {e}"),
                help: "free space in the temp directory (TMPDIR)".to_owned(),
            }];
        }
    };
    // As `sync` fetches a row: the locked commit, and the tag it came from while that
    // tag still names it.
    let tag_hint = tag_hint(&row.entry);
    let fetched = match git::fetch_tree(
        url,
        row.userinfo.as_ref(),
        Some(commit),
        tag_hint,
        &tmp.path().join("tree"),
        &mut |_| {},
    ) {
        Ok(f) => f,
        Err(e) => return vec![fetch_problem(id, commit, url, e)],
    };
    if !rule.required {
        return Vec::new();
    }
    signer_problems(row, &rule, &fetched.signed, tmp.path())
}

/// Whether `row`'s commit is known published without a fetch, when no signature is
/// required: its source is local, the caller saw it as a tip, or the remote's listing
/// (unless the caller's own check listed it) shows it as a branch or tag tip. A listing
/// that fails is taken as known: its failure is what the caller's check reports.
fn known_published(row: &Row, commit: &str) -> bool {
    let (id, url) = (row.entry.id.as_str(), row.url.as_str());
    // A local repository is the user's own: not checked, as install does not.
    if row.tip || git::is_local(url) {
        return true;
    }
    // The caller listed the remote and saw the commit as no tip: only a fetch tells.
    match (!row.listed).then(|| git::ls_remote(url, row.userinfo.as_ref())) {
        None => false,
        Some(Ok(refs)) if published_in(&refs, commit) => true,
        Some(Ok(_)) => false,
        // The listing's own failure is what the caller's check reports.
        Some(Err(e)) => {
            log::debug!("{id}: {url}: cannot list refs for the trust check: {e}");
            true
        }
    }
}

/// The problems of `row`'s fetched `signed` objects under `rule` (a signature required):
/// a signature git does not verify (in a repository made in `within`), or a key other
/// than the one the lock recorded.
fn signer_problems(
    row: &Row,
    rule: &crate::signing::Rule,
    signed: &git::Signed,
    within: &std::path::Path,
) -> Vec<Problem> {
    let (id, url) = (row.entry.id.as_str(), row.url.as_str());
    // As of when plugins first saw it (the lock's record), never the date it claims.
    let at = row
        .entry
        .signer_seen
        .as_deref()
        .and_then(crate::clock::parse_rfc3339)
        .unwrap_or_else(crate::clock::now_secs);
    let signer =
        match git::verify_signature(signed, url, rule.allowed_signers.as_deref(), within, at) {
            Ok(s) => s,
            Err(e) => return vec![signature_problem(id, e)],
        };
    match row.entry.signer_key.as_deref() {
        Some(recorded) if recorded != signer.fingerprint => vec![Problem {
            code: Code::GitSignerChanged,
            message: format!(
                "{id}: {} is now signed by {}, not by the key the lock recorded ({recorded})",
                signer.object, signer.fingerprint
            ),
            help: "the release was signed again with another key, or the lock was edited: check the key with the publisher; `plugins sync --yes` (or an update accepted on a terminal) records the new key".to_owned(),
        }],
        _ => Vec::new(),
    }
}

/// A branch or tag (what publishes a commit), not `HEAD` or a pull request's ref.
fn published(name: &str) -> bool {
    name.starts_with("refs/heads/") || name.starts_with("refs/tags/")
}

/// Whether `commit` is the tip of a branch or tag among a remote's `refs` (annotated tags
/// peeled): published, as the trust check asks.
pub(crate) fn published_in(refs: &[(String, String)], commit: &str) -> bool {
    refs.iter().any(|(n, c)| published(n) && c == commit)
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

/// The problem of a fetch of the locked commit that failed.
fn fetch_problem(id: &str, commit: &str, url: &str, e: GitError) -> Problem {
    match e {
        GitError::Impostor { .. } => Problem {
            code: Code::GitImpostorCommit,
            message: format!(
                "{id}: the locked commit {} is on no branch or tag of {url}: anyone's fork may have pushed it (install, update and sync refuse it)",
                short(commit)
            ),
            help: format!(
                "reinstall {id} from a branch or tag of its source, or remove it (`plugins remove {id}`); if a force-push dropped the commit from its branch, `plugins update {id}` moves to the branch's new commit"
            ),
        },
        GitError::RefNotFound { .. } => Problem {
            code: Code::GitRefNotFound,
            message: format!(
                "{id}: the locked commit {} is no longer on {url}",
                short(commit)
            ),
            help: format!(
                "`plugins sync` cannot install it again; `plugins update {id}` moves to what its branch or tag names now"
            ),
        },
        e => {
            let code = crate::install::InstallError::Git(e).code();
            Problem {
                code,
                message: format!("{id}: cannot fetch the locked commit {} from {url} to check it", short(commit)),
                help: "PLUGINS_NET_TIMEOUT and --timeout bound each attempt; `plugins -v` shows the fetch".to_owned(),
            }
        }
    }
}

/// The problem of a signature that no longer verifies.
fn signature_problem(id: &str, e: GitError) -> Problem {
    let (code, help) = match &e {
        GitError::Unsigned { .. } => (
            Code::GitUnsigned,
            "require_signed holds for this plugin: ask the publisher to sign the release, or set `require_signed = false` in [trust.\"<id>\"] of the home's plugins.toml",
        ),
        GitError::RenamedTag { .. } => (Code::GitBadSignature, crate::git::RENAMED_TAG),
        GitError::BadSignature { format, .. } => (
            Code::GitBadSignature,
            match format {
                git::SignFormat::Ssh => {
                    "check the key with the publisher; the allowed signers file (`allowed_signers` in [trust] of the home's plugins.toml) must list it"
                }
                _ => {
                    "check the key's fingerprint with the publisher; it must be in your gpg keyring (`gpg --import`), not expired or revoked"
                }
            },
        ),
        _ => (
            Code::GitFetch,
            "git must run for the signature check (`plugins -v` shows what it said)",
        ),
    };
    Problem {
        code,
        message: format!("{id}: {e}"),
        help: help.to_owned(),
    }
}
