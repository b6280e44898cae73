//! Where a transfer's credentials come from, in order: the URL's userinfo, git's
//! credential helpers, the GitHub token (GitHub hosts only) and `.netrc`. Each source is
//! offered once per transfer; nothing ever prompts. Used by libgit2's credentials
//! callback and by the smart-HTTP transport ([`super::http`]), which finds the current
//! transfer's sources in a thread-local [`Scope`].

use std::cell::RefCell;
use std::rc::Rc;

use git2::{Cred, CredentialType, RemoteCallbacks};

use crate::auth::Userinfo;

/// What was offered to the server during one transfer.
#[derive(Default)]
pub(super) struct AuthState {
    /// The sources whose credentials the server was given, in order.
    pub(super) offered: Vec<&'static str>,
    /// Every source was tried (or none had credentials).
    pub(super) exhausted: bool,
    /// What the server wrote on its message channel (sideband 2: progress, and the
    /// `fatal: …` of a server that aborts), its last 64 KiB.
    pub(super) said: String,
    /// The pack's objects received whole, and the bytes received when the last one was.
    objects_seen: (usize, usize),
    /// The transfer was stopped: one object took more than this many bytes
    /// ([`object_fits`]).
    pub(super) too_large: Option<u64>,
}

/// Whether the transfer may go on: `false` (and [`AuthState::too_large`] set) once the
/// object being received has taken more than the largest file a commit may hold
/// ([`super::max_file`]), with room for deflate's and the protocol's framing. libgit2's
/// indexer maps a whole object to check it once it is received (its pack windows cannot
/// be evicted while it indexes), so an object over the cap would cost its size in
/// memory before its file could be refused by name: stopping the transfer first keeps
/// the fetch bounded. Objects arrive one after the other, so the bytes since the last
/// one was received whole are the current one's.
pub(super) fn object_fits(state: &RefCell<AuthState>, progress: &git2::Progress<'_>) -> bool {
    let mut state = state.borrow_mut();
    let (objects, bytes) = (progress.received_objects(), progress.received_bytes());
    if objects != state.objects_seen.0 || bytes < state.objects_seen.1 {
        state.objects_seen = (objects, bytes);
        return true;
    }
    let limit = super::max_file();
    let slack = limit / 64 + (1 << 20);
    if (bytes - state.objects_seen.1) as u64 > limit.saturating_add(slack) {
        state.too_large = Some(limit);
        return false;
    }
    true
}

/// How much of the server's messages is kept.
const SAID_MAX: usize = 64 * 1024;

/// How many sources there are ([`credential`]'s steps are `1..=SOURCES`).
pub(super) const SOURCES: usize = 4;

/// A user name and password, with the name of the source they came from.
pub(super) struct Found {
    pub(super) source: &'static str,
    pub(super) user: String,
    pub(super) password: String,
}

/// The credentials source number `step` (1-based) has for `url`, if any. `username`
/// is the name the URL or server suggests (for credential helpers).
pub(super) fn credential(
    step: usize,
    url: &str,
    username: Option<&str>,
    userinfo: Option<&Userinfo>,
) -> Option<Found> {
    let found = |source, user: &str, password: &str| Found {
        source,
        user: user.to_owned(),
        password: password.to_owned(),
    };
    match step {
        1 => userinfo.map(|u| found("the URL's user:password@", &u.user, &u.password)),
        2 => super::user_config().and_then(|cfg| {
            let (user, password) = git2::CredentialHelper::new(url)
                .config(&cfg)
                .username(username)
                .execute()?;
            Some(found("a git credential helper", &user, &password))
        }),
        3 => crate::net::github_token_for(url)
            .map(|t| found("GITHUB_TOKEN/GH_TOKEN", "x-access-token", &t.0)),
        4 => {
            let host = crate::auth::host(url)?;
            let netrc = crate::net::settings().netrc.as_deref()?;
            let (login, password) = crate::auth::netrc_file(netrc, &host)?;
            Some(found(".netrc", &login, &password))
        }
        _ => None,
    }
}

/// Callbacks that answer the server's credential requests from [`credential`]'s
/// sources, each offered once.
pub(super) fn callbacks<'a>(
    url: &'a str,
    userinfo: Option<&'a Userinfo>,
    state: &Rc<RefCell<AuthState>>,
) -> RemoteCallbacks<'a> {
    let said = state.clone();
    let seen = state.clone();
    let state = state.clone();
    let mut step = 0;
    let mut cb = RemoteCallbacks::new();
    cb.transfer_progress(move |progress| object_fits(&seen, &progress));
    cb.sideband_progress(move |text| {
        let mut said = said.borrow_mut();
        said.said.push_str(&String::from_utf8_lossy(text));
        if said.said.len() > SAID_MAX {
            let mut cut = said.said.len() - SAID_MAX;
            while !said.said.is_char_boundary(cut) {
                cut += 1;
            }
            said.said.drain(..cut);
        }
        true
    });
    cb.credentials(move |_, username, allowed| {
        let mut state = state.borrow_mut();
        if !allowed.contains(CredentialType::USER_PASS_PLAINTEXT) {
            state.exhausted = true;
            return Err(git2::Error::from_str(
                "the server asks for a kind of credential plugins cannot give",
            ));
        }
        while step < SOURCES {
            step += 1;
            let Some(found) = credential(step, url, username, userinfo) else {
                continue;
            };
            if let Ok(cred) = Cred::userpass_plaintext(&found.user, &found.password) {
                log::debug!("git: {url}: offering credentials from {}", found.source);
                state.offered.push(found.source);
                return Ok(cred);
            }
        }
        state.exhausted = true;
        Err(git2::Error::from_str("no credentials were accepted"))
    });
    cb
}

/// The transfer the current thread runs: whose credentials may be offered, and to which
/// server. libgit2 calls the transport on the thread that started the transfer.
struct Transfer {
    url: String,
    userinfo: Option<Userinfo>,
    auth: Rc<RefCell<AuthState>>,
    /// The last source tried ([`credential`]'s step).
    step: usize,
    /// The credentials the server accepted (or that were offered last).
    current: Option<(String, String)>,
}

thread_local! {
    static TRANSFER: RefCell<Option<Transfer>> = const { RefCell::new(None) };
}

/// While this lives, the current thread's transfers to `url` take credentials from
/// `userinfo` and the other sources, recording what was offered in `auth`.
pub(super) struct Scope(());

pub(super) fn scope(
    url: &str,
    userinfo: Option<&Userinfo>,
    auth: &Rc<RefCell<AuthState>>,
) -> Scope {
    TRANSFER.with(|t| {
        *t.borrow_mut() = Some(Transfer {
            url: url.to_owned(),
            userinfo: userinfo.cloned(),
            auth: auth.clone(),
            step: 0,
            current: None,
        });
    });
    Scope(())
}

impl Drop for Scope {
    fn drop(&mut self) {
        TRANSFER.with(|t| t.borrow_mut().take());
    }
}

/// Whether two URLs name the same server (scheme, host and port).
fn same_server(a: &str, b: &str) -> bool {
    let scheme = |u: &str| u.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    scheme(a) == scheme(b)
        && crate::auth::host(a) == crate::auth::host(b)
        && crate::auth::port(a) == crate::auth::port(b)
}

/// The credentials to send to `url`: the current ones, only to the transfer's server.
pub(super) fn current_credentials(url: &str) -> Option<(String, String)> {
    TRANSFER.with(|t| {
        let t = t.borrow();
        let t = t.as_ref()?;
        same_server(&t.url, url)
            .then(|| t.current.clone())
            .flatten()
    })
}

/// After a 401 from `url`: the next source's credentials, if the transfer's server
/// asked and a source is left; else the transfer's sources are exhausted.
pub(super) fn next_credentials(url: &str) -> Option<(String, String)> {
    TRANSFER.with(|t| {
        let mut t = t.borrow_mut();
        let t = t.as_mut()?;
        if !same_server(&t.url, url) {
            t.auth.borrow_mut().exhausted = true;
            return None;
        }
        while t.step < SOURCES {
            t.step += 1;
            if let Some(found) = credential(t.step, &t.url, None, t.userinfo.as_ref()) {
                log::debug!("git: {}: offering credentials from {}", t.url, found.source);
                t.auth.borrow_mut().offered.push(found.source);
                t.current = Some((found.user, found.password));
                return t.current.clone();
            }
        }
        t.auth.borrow_mut().exhausted = true;
        t.current = None;
        None
    })
}

#[cfg(test)]
mod tests {
    use super::same_server;

    #[test]
    fn credentials_stay_on_the_sources_server() {
        assert!(same_server(
            "https://h.example/a",
            "https://H.example:443/b"
        ));
        assert!(!same_server("https://h.example/a", "http://h.example/a"));
        assert!(!same_server("http://h:1/a", "http://h:2/a"));
        assert!(!same_server(
            "https://h.example/a",
            "https://evil.example/a"
        ));
    }
}
