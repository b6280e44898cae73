//! Ref listing over `git://` without libgit2, for update checks: one TCP
//! connection, the request line, the ref advertisement, a flush. Done here so
//! that a connect which gets no answer is retried at once: `git daemon`'s accept
//! queue holds 5, and a SYN it drops is only resent by the kernel after 1 s,
//! then 3 s and 7 s; and so that the connects to one server are spread out
//! ([`CONNECT_GAP`]), not sent as one burst that queue drops. A connection the server
//! closes or resets before the end of its ref advertisement (`git daemon` past its
//! `--max-connections` kills one) is tried once more, and the server held to fewer at
//! once ([`super::back_off`]). A refused or failed connect is not retried.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use super::GitError;

/// How long each of the first connects waits for an answer before a new one is tried;
/// the last waits for what is left of the transfer timeout.
const QUICK_CONNECTS: [Duration; 3] = [
    Duration::from_millis(250),
    Duration::from_millis(500),
    Duration::from_millis(1000),
];

/// The largest pkt-line (git's own limit).
const MAX_PKT: usize = 65520;

fn remote(url: &str, why: impl std::fmt::Display) -> GitError {
    GitError::Remote {
        url: url.to_owned(),
        error: git2::Error::from_str(&why.to_string()),
    }
}

fn stalled(url: &str) -> GitError {
    GitError::Stalled {
        url: url.to_owned(),
        phase: "connecting and listing refs",
        secs: crate::net::timeout().as_secs(),
    }
}

/// The host (brackets kept for IPv6), port and path of a `git://` URL.
fn split(url: &str) -> Option<(String, u16, String)> {
    let rest = url.strip_prefix("git://")?;
    let (authority, path) = rest.split_at(rest.find('/')?);
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) if !p.contains(']') => (h, p.parse().ok()?),
        _ => (authority, 9418),
    };
    if host.is_empty() || path.len() < 2 {
        return None;
    }
    Some((host.to_owned(), port, path.to_owned()))
}

/// The least time between two connects to one address. `git daemon` accepts one
/// connection at a time (a fork and an exec each) from an accept queue of 5: connects
/// started together reach it as one burst of handshakes one round trip later, and those
/// past the queue are dropped, a SYN (tried again after 250 ms, [`QUICK_CONNECTS`]) or
/// the handshake's last ACK (resent with the request after 200 ms or more, by the
/// kernel). Spread this much apart, 24 connects take 72 ms, and at a 40 ms round trip
/// the drops of a 200-remote check went from about 45 to none; once the first ones
/// answer, the checks' own finishing spreads the next ones further.
const CONNECT_GAP: Duration = Duration::from_millis(3);

/// When the next connect to each address may start ([`CONNECT_GAP`]).
static NEXT_CONNECT: std::sync::Mutex<Vec<(SocketAddr, Instant)>> =
    std::sync::Mutex::new(Vec::new());

/// Wait for `addr`'s turn to connect, and take it.
fn wait_turn(addr: &SocketAddr) {
    let wait = {
        let Ok(mut next) = NEXT_CONNECT.lock() else {
            return;
        };
        take_turn(&mut next, addr, Instant::now())
    };
    if !wait.is_zero() {
        std::thread::sleep(wait);
    }
}

/// Take `addr`'s next turn to connect in `next` at `now`: how long until it comes.
fn take_turn(next: &mut Vec<(SocketAddr, Instant)>, addr: &SocketAddr, now: Instant) -> Duration {
    let turn = match next.iter_mut().find(|(a, _)| a == addr) {
        Some((_, at)) => {
            let turn = (*at).max(now);
            *at = turn + CONNECT_GAP;
            turn
        }
        None => {
            next.push((*addr, now + CONNECT_GAP));
            now
        }
    };
    turn - now
}

/// Connect to one of `addrs`, each connect [`CONNECT_GAP`] after the last to the same
/// address, trying again at once when a connect gets no answer.
fn connect(url: &str, addrs: &[SocketAddr]) -> Result<TcpStream, GitError> {
    let limit = crate::net::timeout();
    let start = Instant::now();
    for (attempt, wait) in QUICK_CONNECTS.iter().chain([&limit]).enumerate() {
        let left = limit.saturating_sub(start.elapsed());
        if left.is_zero() {
            break;
        }
        let wait = (*wait).min(left);
        for addr in addrs {
            wait_turn(addr);
            match TcpStream::connect_timeout(addr, wait) {
                Ok(s) => {
                    if attempt > 0 {
                        log::debug!("git: {url}: connected at attempt {}", attempt + 1);
                    }
                    return Ok(s);
                }
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    log::debug!("git: {url}: no answer from {addr} within {wait:?}: trying again");
                }
                Err(e) => return Err(remote(url, format!("cannot connect to {addr}: {e}"))),
            }
        }
    }
    Err(stalled(url))
}

/// Whether the server closed or reset the connection (rather than said something).
fn dropped(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
    )
}

fn read_pkt(
    stream: &mut TcpStream,
    url: &str,
    closed: &std::cell::Cell<bool>,
) -> Result<Option<Vec<u8>>, GitError> {
    let io = |e: std::io::Error| {
        if matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ) {
            stalled(url)
        } else if dropped(&e) {
            closed.set(true);
            remote(
                url,
                "the server closed the connection (no such repository, or not exported)",
            )
        } else {
            remote(url, format!("reading the ref list: {e}"))
        }
    };
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).map_err(io)?;
    let len = std::str::from_utf8(&len)
        .ok()
        .and_then(|s| usize::from_str_radix(s, 16).ok())
        .ok_or_else(|| remote(url, "the server does not speak the git protocol"))?;
    if len == 0 {
        return Ok(None);
    }
    if !(4..=MAX_PKT).contains(&len) {
        return Err(remote(url, "the server does not speak the git protocol"));
    }
    let mut data = vec![0; len - 4];
    stream.read_exact(&mut data).map_err(io)?;
    Ok(Some(data))
}

/// How long a second try waits after the server dropped the first: `git daemon` stops
/// accepting for a second after killing a connection past its `--max-connections`.
const AFTER_A_DROP: Duration = Duration::from_millis(250);

/// The refs a `git://` remote advertises, as (name, 40-hex id) with annotated tags peeled.
pub(super) fn ls_remote(url: &str) -> Result<Vec<(String, String)>, GitError> {
    let (host, port, path) = split(url).ok_or_else(|| remote(url, "not a git:// URL"))?;
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = (bare, port)
        .to_socket_addrs()
        .map_err(|e| remote(url, format!("cannot resolve {host}: {e}")))?
        .collect();
    let closed = std::cell::Cell::new(false);
    match list(url, &addrs, &host, port, &path, &closed) {
        Err(_) if closed.get() => {
            // Dropped before the advertisement ended: the server may be past its limit
            // (or the repository is not exported, which the second try says again).
            log::debug!("git: {url}: the server closed the connection: trying once more");
            super::back_off(url);
            std::thread::sleep(AFTER_A_DROP);
            closed.set(false);
            list(url, &addrs, &host, port, &path, &closed)
        }
        listed => listed,
    }
}

/// One connection's ref listing ([`ls_remote`]); `closed` says whether the server
/// dropped it.
fn list(
    url: &str,
    addrs: &[SocketAddr],
    host: &str,
    port: u16,
    path: &str,
    closed: &std::cell::Cell<bool>,
) -> Result<Vec<(String, String)>, GitError> {
    let mut stream = connect(url, addrs)?;
    let limit = Some(crate::net::timeout());
    let _ = stream.set_read_timeout(limit);
    let _ = stream.set_write_timeout(limit);
    let _ = stream.set_nodelay(true);
    let authority = if port == 9418 {
        host.to_owned()
    } else {
        format!("{host}:{port}")
    };
    let request = format!("git-upload-pack {path}\0host={authority}\0");
    stream
        .write_all(format!("{:04x}{request}", request.len() + 4).as_bytes())
        .map_err(|e| {
            closed.set(dropped(&e) || e.kind() == std::io::ErrorKind::BrokenPipe);
            remote(url, format!("sending the request: {e}"))
        })?;
    let mut refs: Vec<(String, String)> = Vec::new();
    while let Some(line) = read_pkt(&mut stream, url, closed)? {
        let line = line.split(|b| *b == 0).next().unwrap_or_default();
        let line = String::from_utf8_lossy(line);
        let line = line.trim_end_matches('\n');
        if let Some(message) = line.strip_prefix("ERR ") {
            return Err(remote(url, format!("the server says: {message}")));
        }
        let Some((id, name)) = line.split_once(' ') else {
            continue;
        };
        if id.len() != 40 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if let Some(base) = name.strip_suffix("^{}") {
            // The peeled commit of an annotated tag replaces the tag object.
            if let Some(slot) = refs.iter_mut().find(|(n, _)| n == base) {
                slot.1 = id.to_owned();
            }
            continue;
        }
        if name == "capabilities^{}" {
            continue;
        }
        refs.push((name.to_owned(), id.to_owned()));
    }
    // A flush ends the conversation before any want.
    let _ = stream.write_all(b"0000");
    log::debug!("git: {url}: listed {} refs", refs.len());
    Ok(refs)
}

#[cfg(test)]
mod tests {
    use super::split;
    use std::time::Duration;

    /// Connects to one address are spread [`super::CONNECT_GAP`] apart; another
    /// address's first connect does not wait for them; a turn that has passed is not
    /// waited for.
    #[test]
    fn connects_to_one_server_are_spread_out() {
        let one: std::net::SocketAddr = "192.0.2.41:9418".parse().unwrap();
        let other: std::net::SocketAddr = "192.0.2.42:9418".parse().unwrap();
        let gap = super::CONNECT_GAP;
        let now = std::time::Instant::now();
        let mut next = Vec::new();
        let waits: Vec<_> = (0..5)
            .map(|_| super::take_turn(&mut next, &one, now))
            .collect();
        assert_eq!(waits, [0, 1, 2, 3, 4].map(|k| gap * k));
        assert_eq!(super::take_turn(&mut next, &other, now), Duration::ZERO);
        let later = now + gap * 10;
        assert_eq!(super::take_turn(&mut next, &one, later), Duration::ZERO);
        assert_eq!(super::take_turn(&mut next, &one, later), gap);
    }

    #[test]
    fn urls_split() {
        assert_eq!(
            split("git://127.0.0.1:9000/a/b.git"),
            Some(("127.0.0.1".into(), 9000, "/a/b.git".into()))
        );
        assert_eq!(
            split("git://example.org/x.git"),
            Some(("example.org".into(), 9418, "/x.git".into()))
        );
        assert_eq!(
            split("git://[::1]:9001/x"),
            Some(("[::1]".into(), 9001, "/x".into()))
        );
        assert_eq!(
            split("git://[::1]/x"),
            Some(("[::1]".into(), 9418, "/x".into()))
        );
        assert_eq!(split("git://host"), None);
        assert_eq!(split("https://host/x"), None);
    }
}
