//! How many transfers to one server run at once: a limit per server (ssh, `git daemon`,
//! HTTP(S), local), halved for a server seen dropping connections.

use super::{is_local, is_ssh};

/// The most transfers to one server that update checks run at once, and the server's
/// key (`scheme://host:port`). ssh: 4 (sshd starts refusing at 10 unauthenticated
/// connections). `git://`: [`GIT_DAEMON_LIMIT`], halved (down to 4) each time the server
/// is seen dropping a connection ([`back_off`]). None below the caller's jobs for
/// HTTP(S), whose servers queue hundreds of connects (nginx and Apache 511, Go's and
/// Java's the kernel's `somaxconn`), nor for a local repository.
pub fn host_limit(url: &str) -> (String, usize) {
    if is_local(url) {
        return ("local".to_owned(), usize::MAX);
    }
    let scheme = if is_ssh(url) {
        "ssh"
    } else {
        url.split_once("://").map_or("", |(s, _)| s)
    };
    let host = crate::auth::host(url).unwrap_or_default();
    let key = format!(
        "{scheme}://{host}:{}",
        crate::auth::port(url).unwrap_or_default()
    );
    let limit = match scheme {
        "https" | "http" => usize::MAX,
        "git" => GIT_DAEMON_LIMIT,
        _ => 4,
    };
    let limit = limit_now(&key, limit);
    (key, limit)
}

/// Ref listings at once against one `git daemon`: under its default `--max-connections`
/// of 32, past which it kills a connection from the same address and stops accepting for
/// a second. The 2 left are for children that have not yet exited and been reaped: a
/// listing's slot is free once its ref list has been read, and its child exits when our
/// flush reaches it, half a round trip later, while the next connect reaches the daemon
/// only one and a half round trips later. (At 40 ms, 32 at once was once seen past the
/// limit in 4 runs under load; 30 never, in 9 runs there and 9 on loopback.) A server that drops a connection is held
/// to fewer ([`back_off`]). Each listing takes three round trips (the daemon writes the
/// flush that ends the ref list after the list, and without `TCP_NODELAY` it waits for
/// our ACK of the list), so 200 remotes at 40 ms are about 7 such rounds at 30, 8.5 at 24.
/// The connects are spread out (`daemon::CONNECT_GAP`) so that the daemon's accept queue
/// of 5 does not drop them; one it drops is tried again after 250 ms, not the kernel's 1 s.
pub const GIT_DAEMON_LIMIT: usize = 30;

/// Servers seen dropping connections, and the limit each is held to since.
static BACKED_OFF: std::sync::Mutex<Vec<(String, usize)>> = std::sync::Mutex::new(Vec::new());
static ANY_BACKED_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `limit` for the server `key`, or less if it has been seen dropping connections. The
/// bounded pools ask again before each start, so a back-off takes effect at once.
pub fn limit_now(key: &str, limit: usize) -> usize {
    if !ANY_BACKED_OFF.load(std::sync::atomic::Ordering::Relaxed) {
        return limit;
    }
    BACKED_OFF
        .lock()
        .ok()
        .and_then(|b| b.iter().find(|(k, _)| k == key).map(|(_, l)| *l))
        .map_or(limit, |l| l.min(limit))
}

/// `url`'s server dropped a connection: hold it to half its limit from now on (never
/// under 4, the limit before back-off existed).
pub(crate) fn back_off(url: &str) {
    let (key, limit) = host_limit(url);
    let halved = (limit / 2).max(4).min(limit);
    if let Ok(mut b) = BACKED_OFF.lock() {
        match b.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = halved,
            None => b.push((key.clone(), halved)),
        }
        ANY_BACKED_OFF.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    log::debug!("git: {key} dropped a connection: at most {halved} at once from now on");
}
