//! Where a transfer's credentials come from, in order: the URL's userinfo, git's
//! credential helpers, the GitHub token (GitHub hosts only) and `.netrc`. Each source is
//! offered once per transfer; nothing ever prompts. Used by libgit2's credentials
//! callback and by the smart-HTTP transport ([`super::http`]).

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
}

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
    let state = state.clone();
    let mut step = 0;
    let mut cb = RemoteCallbacks::new();
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
