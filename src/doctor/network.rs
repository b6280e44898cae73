//! The network checks: whether each locked git source answers a ref listing, how
//! its transfer is routed, and the GitHub API rate limit.

use super::local::age;
use super::{Check, Mark, Options, Route};
use crate::diagnostic::Code;
use crate::lock::Entry;
use crate::refusal::NamedRefusal as _;
use crate::store::Home;

/// The git URL of a locked entry, if it has one.
fn git_url(e: &Entry, gh_base: &str) -> Option<String> {
    crate::update::git_url_of(e, gh_base).ok().flatten()
}

/// How a git transfer to `url` is routed.
pub fn git_route(url: &str) -> Route {
    Route {
        url: url.to_owned(),
        proxy: crate::git::proxy_for(url),
        credentials: crate::net::credential_sources(
            url,
            false,
            crate::git::credential_helper_configured(),
        ),
    }
}

fn describe(route: &Route) -> String {
    let proxy = route.proxy.as_deref().unwrap_or("none");
    format!(
        "proxy: {proxy}; credentials if asked: {}",
        crate::net::describe_sources(&route.credentials)
    )
}

/// The code of a failed check, from its message (`update::Status::Error` carries text
/// only): credentials refused or missing (`git::GitError::Auth`), the locked ref gone
/// from the remote (`update::decide`), else the remote could not be listed.
pub(super) fn failure_code(message: &str) -> Code {
    if crate::git::needs_credentials(message) {
        Code::GitAuth
    } else if message.starts_with("the remote no longer has ")
        || message.starts_with("the remote has no branch or tag ")
    {
        Code::GitRefNotFound
    } else {
        Code::GitFetch
    }
}

/// Each locked git source answers a ref listing, through `outdated`'s checks (a
/// commit pin is listed too: reachability is the question here).
pub(super) fn sources(locked: &[(Home, Entry)], opts: &Options) -> Vec<Check> {
    let entries: Vec<Entry> = locked
        .iter()
        .map(|(_, e)| match e.ref_kind {
            Some(crate::git::RefKind::Commit) => Entry {
                ref_kind: Some(crate::git::RefKind::Default),
                ..e.clone()
            },
            _ => e.clone(),
        })
        .collect();
    let url_of = |e: &Entry| crate::update::git_url_of(e, &opts.gh_base);
    let checks = crate::update::check_all(&entries, opts.jobs, opts.timeout, opts.pre, &url_of);
    let mut out = Vec::new();
    let mut trust_rows = Vec::new();
    for ((home, entry), c) in locked.iter().zip(checks) {
        use crate::update::Status;
        let Ok(Some(url)) = url_of(entry) else {
            continue;
        };
        // The row's trust, checked where the remote answered (an up-to-date commit is
        // its ref's tip, published).
        if !matches!(c.status, Status::Error { .. })
            && let Ok(crate::source::Source::Git { url, userinfo, .. }) =
                crate::source::Source::of_entry(entry, &opts.gh_base)
        {
            trust_rows.push(crate::update::trust::Row {
                home: home.clone(),
                entry: entry.clone(),
                url,
                userinfo,
                tip: c.published || c.status == Status::UpToDate,
                // The check listed it (a commit pin is checked as its default branch).
                listed: true,
            });
        }
        if crate::git::is_local(&url) && !matches!(c.status, Status::Error { .. }) {
            out.push(
                Check::new(
                    "source",
                    Mark::Ok,
                    format!("{}: {url} is readable", entry.id),
                )
                .home(home)
                .id(&entry.id),
            );
            continue;
        }
        let route = git_route(&url);
        let mut check = answered(entry, &url, &c.status, &route)
            .home(home)
            .id(&entry.id);
        check.route = Some(route);
        out.push(check);
    }
    out.extend(trust(trust_rows, opts));
    out
}

/// What the remote `url` of `entry` answered the check (`status`), by `route`: an error,
/// or the state of the row's ref there.
fn answered(entry: &Entry, url: &str, status: &crate::update::Status, route: &Route) -> Check {
    use crate::update::Status;
    let pinned = entry.ref_kind == Some(crate::git::RefKind::Commit);
    match status {
        Status::Error { message } => {
            Check::new("source", Mark::Fail, format!("{}: {message}", entry.id))
                .code(failure_code(message))
                .help(format!(
                    "{} ({})",
                    describe(route),
                    "PLUGINS_NET_TIMEOUT and --timeout bound each attempt"
                ))
        }
        status => {
            let state = match status {
                _ if pinned => "pinned to a commit".to_owned(),
                Status::UpToDate => "up to date".to_owned(),
                Status::Behind { new_ref, commit }
                    if new_ref.is_empty() || *new_ref == entry.requested_ref =>
                {
                    format!("newer: {}", &commit[..commit.len().min(10)])
                }
                Status::Behind { new_ref, .. } => format!("newer: {new_ref}"),
                _ => "listed".to_owned(),
            };
            Check::new(
                "source",
                Mark::Ok,
                format!("{}: {url} answers ({state}); {}", entry.id, describe(route)),
            )
        }
    }
}

/// The locked rows that fail their trust check ([`crate::update::trust`]): a commit on
/// no branch or tag of the remote, a signature `require_signed` wants that no longer
/// verifies or names another key than the lock; one failed check per problem.
fn trust(rows: Vec<crate::update::trust::Row>, opts: &Options) -> Vec<Check> {
    let who: Vec<(Home, String)> = rows
        .iter()
        .map(|r| (r.home.clone(), r.entry.id.clone()))
        .collect();
    let found = crate::update::trust::check_rows(rows, opts.jobs, opts.timeout);
    who.iter()
        .zip(found)
        .flat_map(|((home, id), problems)| {
            problems.into_iter().map(move |p| {
                Check::new("source", Mark::Fail, p.message)
                    .code(p.code)
                    .help(p.help)
                    .home(home)
                    .id(id)
            })
        })
        .collect()
}

/// The GitHub API's rate limit, when a locked source is on GitHub.
pub(super) fn github_rate_limit(locked: &[(Home, Entry)], opts: &Options) -> Option<Check> {
    let on_github = locked.iter().any(|(_, e)| {
        e.source.starts_with("gh:")
            || git_url(e, &opts.gh_base).is_some_and(|u| crate::net::is_github(&u))
    });
    if !on_github {
        return None;
    }
    let api = opts.github_api.clone();
    let url = format!("{}/rate_limit", api.trim_end_matches('/'));
    let route = Route {
        url: url.clone(),
        proxy: crate::net::env_proxy(&url),
        credentials: crate::net::github_token_for(&url)
            .map(|_| vec![crate::net::settings().github_token_from.to_owned()])
            .unwrap_or_default(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(crate::release::rate_limit(&api));
    });
    let mut check = match rx.recv_timeout(opts.timeout) {
        Ok(Ok(r)) => {
            let resets = r.reset.saturating_sub(crate::clock::now_secs());
            let message = format!(
                "{url}: {} of {} requests left, resets in {}; {}",
                r.remaining,
                r.limit,
                age(resets),
                describe(&route)
            );
            if r.remaining == 0 {
                Check::new("github", Mark::Warn, message)
                    .code(Code::DoctorRateLimit)
                    .help("installs of `gh:` sources without a ref and release downloads wait until it resets; a GITHUB_TOKEN raises the limit")
            } else {
                Check::new("github", Mark::Ok, message)
            }
        }
        Ok(Err(e)) => Check::new(
            "github",
            Mark::Warn,
            format!("cannot read the rate limit: {e}"),
        )
        .code(Code::DoctorRateLimit)
        .help(describe(&route)),
        Err(_) => Check::new(
            "github",
            Mark::Warn,
            format!("{url} did not answer within {} s", opts.timeout.as_secs()),
        )
        .code(Code::DoctorRateLimit)
        .help(describe(&route)),
    };
    check.route = Some(route);
    Some(check)
}

/// Each tag a home synced a bundle from (`oci-tags.json`): the registry answers, with the
/// credentials' source named (never the credentials), the pinned digest is still there, and
/// whether the tag still names it.
pub(super) fn registries(opts: &Options) -> Vec<Check> {
    let mut out = Vec::new();
    for h in &opts.homes {
        let home = &h.home;
        let tags = match crate::oci::read_tags(&home.oci_tags_record()) {
            Ok(t) => t,
            Err(e) => {
                out.push(
                    Check::new("registry", Mark::Fail, e.to_string())
                        .code(e.code())
                        .help(e.help().unwrap_or_default())
                        .home(home),
                );
                continue;
            }
        };
        for (key, pin) in tags {
            let Ok(reference) = crate::oci::OciRef::parse(&format!("oci://{key}")) else {
                continue;
            };
            let transport = crate::oci::Transport {
                plain_http: pin.plain_http,
                env: opts.registry.clone(),
            };
            let check = match crate::oci::probe(&reference, &pin.digest, &transport) {
                Err(e) => Check::new("registry", Mark::Fail, e.to_string())
                    .code(e.code())
                    .help(e.help().unwrap_or_default()),
                Ok(probe) => {
                    let creds = format!("credentials: {}", probe.credentials);
                    match (probe.pinned_there, probe.tag_now) {
                        (Err(e), _) | (Ok(true), Err(e)) => {
                            Check::new("registry", Mark::Fail, format!("{e} ({creds})"))
                                .code(e.code())
                                .help(e.help().unwrap_or_default())
                        }
                        (Ok(false), _) => Check::new(
                            "registry",
                            Mark::Fail,
                            format!(
                                "{reference}: the pinned {} is gone from the registry ({creds})",
                                pin.digest
                            ),
                        )
                        .code(Code::OciArtifact)
                        .help("push the bundle again (`plugins bundle --push`) and sync from its digest"),
                        (Ok(true), Ok(now)) if now != pin.digest => Check::new(
                            "registry",
                            Mark::Warn,
                            format!(
                                "{reference}: pinned {} is there, but the tag names {now} now ({creds})",
                                pin.digest
                            ),
                        )
                        .code(Code::OciTagMoved)
                        .help(format!(
                            "a sync from the tag is refused; to take it: `plugins sync --frozen --from {reference}@{now}`"
                        )),
                        (Ok(true), Ok(_)) => Check::new(
                            "registry",
                            Mark::Ok,
                            format!(
                                "{reference}: pinned {} is there and the tag names it ({creds})",
                                pin.digest
                            ),
                        ),
                    }
                }
            };
            out.push(check.home(home));
        }
    }
    out
}
