//! Loopback servers for transfer tests: `git-daemon`, a smart-HTTP git server (git's own
//! `git http-backend` as CGI) that demands Basic auth, and a forwarding HTTP
//! proxy (CONNECT and absolute-URI requests) that logs what passes through it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One request as a server or proxy saw it.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) line: String,
    pub(crate) authorization: Option<String>,
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The `Authorization` value for Basic `user:password`.
pub(crate) fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
}

/// A request's head (request line and headers, names lowercased) and body.
struct Request {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn read_head(reader: &mut impl BufRead) -> std::io::Result<(String, Vec<(String, String)>)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    Ok((line.trim_end().to_owned(), headers))
}

fn read_request(reader: &mut impl BufRead) -> std::io::Result<Request> {
    let (line, headers) = read_head(reader)?;
    let get = |k: &str| headers.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut body = Vec::new();
    if let Some(len) = get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body)?;
    } else if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    Ok(Request {
        line,
        headers,
        body,
    })
}

/// A smart-HTTP git server over the bare repositories under `root`, answering
/// 401 to any request without Basic credentials whose password is `secret`.
pub(crate) struct GitServer {
    pub(crate) base: String,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
}

impl GitServer {
    pub(crate) fn start(root: &Path, secret: &str) -> GitServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let (log, root, secret) = (seen.clone(), root.to_path_buf(), secret.to_owned());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, root, secret) = (log.clone(), root.clone(), secret.clone());
                std::thread::spawn(move || {
                    let _ = serve_git(stream, &root, &secret, &log);
                });
            }
        });
        GitServer { base, seen }
    }
}

/// Whether `authorization` is Basic credentials with password `secret`.
fn authorized(authorization: Option<&str>, secret: &str) -> bool {
    let Some(value) = authorization.and_then(|a| a.strip_prefix("Basic ")) else {
        return false;
    };
    // Any user name, as GitHub accepts for a token.
    [
        "",
        "me",
        "x-access-token",
        "helper-user",
        "netrc-user",
        "git",
    ]
    .iter()
    .any(|user| basic(user, secret) == format!("Basic {value}"))
}

fn git_exec_path() -> PathBuf {
    let out = std::process::Command::new("git")
        .arg("--exec-path")
        .output()
        .unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn serve_git(
    mut stream: TcpStream,
    root: &Path,
    secret: &str,
    log: &Mutex<Vec<Seen>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let req = read_request(&mut reader)?;
    log.lock().unwrap().push(Seen {
        line: req.line.clone(),
        authorization: req.header("authorization").map(str::to_owned),
    });
    if !authorized(req.header("authorization"), secret) {
        write!(
            stream,
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?;
        return stream.flush();
    }
    let (status, headers, body) = cgi(root, req)?;
    let body = &body[..];
    write!(
        stream,
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

/// Run `git http-backend` on one request: the status, the other headers (CRLF-ended)
/// and the body.
fn cgi(root: &Path, req: Request) -> std::io::Result<(String, String, Vec<u8>)> {
    cgi_with(root, req, false)
}

/// [`cgi`]; `v2`: the protocol the client asks for (`Git-Protocol`) reaches git, as on a
/// forge (protocol v2 for git, v0 for libgit2).
fn cgi_with(root: &Path, req: Request, v2: bool) -> std::io::Result<(String, String, Vec<u8>)> {
    let mut parts = req.line.split_whitespace();
    let method = parts.next().unwrap_or("GET").to_owned();
    let target = parts.next().unwrap_or("/").to_owned();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut cgi = std::process::Command::new(git_exec_path().join("git-http-backend"))
        .env_clear()
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", req.header("content-type").unwrap_or(""))
        .env("CONTENT_LENGTH", req.body.len().to_string())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("REMOTE_USER", "test")
        .env("REMOTE_ADDR", "127.0.0.1")
        .env(
            "GIT_PROTOCOL",
            req.header("git-protocol").filter(|_| v2).unwrap_or(""),
        )
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let mut stdin = cgi.stdin.take().unwrap();
    let body = req.body;
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let out = cgi.wait_with_output()?;
    let _ = writer.join();
    let text = out.stdout;
    let split = text
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| text.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let (head, body) = match split {
        Some((i, n)) => (
            String::from_utf8_lossy(&text[..i]).into_owned(),
            text[i + n..].to_vec(),
        ),
        None => (String::new(), text.clone()),
    };
    let mut status = "200 OK".to_owned();
    let mut headers = String::new();
    for h in head.lines() {
        match h.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_owned(),
            Some(_) => headers.push_str(&format!("{h}\r\n")),
            None => {}
        }
    }
    Ok((status, headers, body))
}

/// A smart-HTTP git server over the bare repositories under `root` (no credentials
/// asked) that keeps connections alive, as forges do, and counts the connections and
/// requests it served. `/huge.git` answers its ref list with an endless advertisement.
pub(crate) struct KeepAliveServer {
    pub(crate) base: String,
    pub(crate) connections: Arc<Mutex<usize>>,
    pub(crate) requests: Arc<Mutex<usize>>,
}

impl KeepAliveServer {
    pub(crate) fn start(root: &Path) -> KeepAliveServer {
        Self::start_on(TcpListener::bind("127.0.0.1:0").unwrap(), root, None)
    }

    /// The same on `listener`, which starts accepting only after `wait` (when given).
    pub(crate) fn start_on(
        listener: TcpListener,
        root: &Path,
        wait: Option<std::time::Duration>,
    ) -> KeepAliveServer {
        let base = format!("http://{}", listener.local_addr().unwrap());
        let connections: Arc<Mutex<usize>> = Arc::default();
        let requests: Arc<Mutex<usize>> = Arc::default();
        let (conns, reqs, root) = (connections.clone(), requests.clone(), root.to_path_buf());
        std::thread::spawn(move || {
            if let Some(wait) = wait {
                std::thread::sleep(wait);
            }
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                *conns.lock().unwrap() += 1;
                let (reqs, root) = (reqs.clone(), root.clone());
                std::thread::spawn(move || {
                    let _ = serve_kept(stream, &root, &reqs);
                });
            }
        });
        KeepAliveServer {
            base,
            connections,
            requests,
        }
    }
}

fn serve_kept(mut stream: TcpStream, root: &Path, requests: &Mutex<usize>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        if reader.fill_buf()?.is_empty() {
            return Ok(());
        }
        let req = read_request(&mut reader)?;
        *requests.lock().unwrap() += 1;
        if req.line.contains("/huge.git/info/refs") {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nTransfer-Encoding: chunked\r\n\r\n"
            )?;
            let line = format!("{:04x}# service=git-upload-pack\n0000", 4 + 26);
            let chunk = format!("{:x}\r\n{line}\r\n", line.len());
            stream.write_all(chunk.as_bytes())?;
            // Ref lines without end, 1 MiB at a time, until the client hangs up.
            let pkt = format!("{:04x}{} refs/heads/b\n", 4 + 41 + 13, "1".repeat(40));
            let block = pkt.repeat((1 << 20) / pkt.len());
            loop {
                stream.write_all(format!("{:x}\r\n", block.len()).as_bytes())?;
                stream.write_all(block.as_bytes())?;
                stream.write_all(b"\r\n")?;
            }
        }
        let (status, headers, body) = cgi(root, req)?;
        write!(
            stream,
            "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n",
            body.len()
        )?;
        stream.write_all(&body)?;
        stream.flush()?;
    }
}

/// One upload-pack request a [`CountingServer`] answered.
#[derive(Clone, Debug)]
pub(crate) struct Served {
    /// The repository's path (`/acme/mono.git`).
    pub(crate) repo: String,
    /// It asked for objects (a fetch), not for the ref list.
    pub(crate) fetch: bool,
    /// It listed the refs: a v2 `ls-refs`, or a v0 client's ref advertisement (`GET
    /// info/refs` without `Git-Protocol: version=2`, whose answer is the ref list; a v2
    /// client's is only the capabilities).
    pub(crate) listing: bool,
    /// The bytes of the answer's body (the pack, in a fetch).
    pub(crate) bytes: usize,
}

/// A smart-HTTP git server over the bare repositories under `root` (no credentials, kept
/// connections, protocol v2 for the clients that ask) that logs every upload-pack request
/// it answered: which repository, whether it fetched objects, and how many bytes it sent.
pub(crate) struct CountingServer {
    pub(crate) base: String,
    pub(crate) served: Arc<Mutex<Vec<Served>>>,
}

impl CountingServer {
    pub(crate) fn start(root: &Path) -> CountingServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let served: Arc<Mutex<Vec<Served>>> = Arc::default();
        let (log, root) = (served.clone(), root.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, root) = (log.clone(), root.clone());
                std::thread::spawn(move || {
                    let _ = serve_counted(stream, &root, &log);
                });
            }
        });
        CountingServer { base, served }
    }

    /// The fetches (object requests) of `repo` answered so far, and their bytes.
    pub(crate) fn fetches(&self, repo: &str) -> (usize, usize) {
        let served = self.served.lock().unwrap();
        let fetches = served.iter().filter(|s| s.fetch && s.repo == repo);
        fetches.fold((0, 0), |(n, b), s| (n + 1, b + s.bytes))
    }

    /// The ref listings and the fetches of `repo` answered so far.
    pub(crate) fn requests(&self, repo: &str) -> (usize, usize) {
        let served = self.served.lock().unwrap();
        let of = served.iter().filter(|s| s.repo == repo);
        of.fold((0, 0), |(l, f), s| {
            (l + usize::from(s.listing), f + usize::from(s.fetch))
        })
    }

    /// Forget what was served.
    pub(crate) fn reset(&self) {
        self.served.lock().unwrap().clear();
    }
}

fn serve_counted(
    mut stream: TcpStream,
    root: &Path,
    log: &Mutex<Vec<Served>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        if reader.fill_buf()?.is_empty() {
            return Ok(());
        }
        let req = read_request(&mut reader)?;
        let target = req.line.split_whitespace().nth(1).unwrap_or("").to_owned();
        let upload = req.line.starts_with("POST ") && target.ends_with("/git-upload-pack");
        // v2 names its command; v0 fetches send `want` lines.
        let has = |needle: &[u8]| req.body.windows(needle.len()).any(|w| w == needle);
        let fetch = upload && (has(b"command=fetch") || (!has(b"command=") && has(b"want ")));
        let advertised = req.line.starts_with("GET ")
            && target.contains("/info/refs?service=git-upload-pack")
            && !req
                .header("git-protocol")
                .is_some_and(|p| p.contains("version=2"));
        let listing = advertised || (upload && has(b"command=ls-refs"));
        let repo = target
            .split("/info/refs")
            .next()
            .unwrap_or_default()
            .trim_end_matches("/git-upload-pack")
            .to_owned();
        let (status, headers, body) = cgi_with(root, req, true)?;
        if upload || advertised {
            log.lock().unwrap().push(Served {
                repo,
                fetch,
                listing,
                bytes: body.len(),
            });
        }
        write!(
            stream,
            "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n",
            body.len()
        )?;
        stream.write_all(&body)?;
        stream.flush()?;
    }
}

/// A listener on 127.0.0.1 whose accept queue is full: it holds one connection (made
/// here, never accepted) and drops the SYNs of every further connect until something
/// accepts, as a busy `git daemon` or web server does.
#[cfg(target_os = "linux")]
pub(crate) fn full_listener() -> TcpListener {
    use std::os::fd::FromRawFd;
    // SAFETY: plain socket calls on a descriptor owned here, then by the listener.
    let listener = unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0);
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        assert_eq!(libc::bind(fd, (&raw const addr).cast(), len), 0);
        assert_eq!(libc::listen(fd, 0), 0);
        TcpListener::from_raw_fd(fd)
    };
    let addr = listener.local_addr().unwrap();
    let held = TcpStream::connect(addr).unwrap();
    // The queue is full once a second connect gets no answer.
    let probe = TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(300));
    assert!(probe.is_err(), "the accept queue of {addr} is not full");
    std::mem::forget(held);
    listener
}

/// A server that answers every request with a redirect to the same path on `to`.
pub(crate) struct Redirector {
    pub(crate) base: String,
}

impl Redirector {
    pub(crate) fn start(to: &str) -> Redirector {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let to = to.to_owned();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let Ok(mut reader) = stream.try_clone().map(BufReader::new) else {
                    continue;
                };
                let Ok(req) = read_request(&mut reader) else {
                    continue;
                };
                let target = req.line.split_whitespace().nth(1).unwrap_or("/");
                let _ = write!(
                    stream,
                    "HTTP/1.1 302 Found\r\nLocation: {to}{target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        Redirector { base }
    }
}

/// A forwarding proxy: CONNECT tunnels and absolute-URI requests, each logged.
pub(crate) struct Proxy {
    pub(crate) url: String,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
}

impl Proxy {
    pub(crate) fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let log = log.clone();
                std::thread::spawn(move || {
                    let _ = forward(stream, &log);
                });
            }
        });
        Proxy { url, seen }
    }

    /// The request lines the proxy has seen.
    pub(crate) fn lines(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.line.clone())
            .collect()
    }
}

fn pipe(mut from: impl Read, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(std::net::Shutdown::Write);
}

fn forward(mut client: TcpStream, log: &Mutex<Vec<Seen>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(client.try_clone()?);
    let (line, headers) = read_head(&mut reader)?;
    log.lock().unwrap().push(Seen {
        line: line.clone(),
        authorization: None,
    });
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method == "CONNECT" {
        let upstream = TcpStream::connect(target)?;
        client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
        let up2 = upstream.try_clone()?;
        let c2 = client.try_clone()?;
        let t = std::thread::spawn(move || pipe(reader, up2));
        pipe(upstream, c2);
        let _ = t.join();
        return Ok(());
    }
    // An absolute URI: connect to its host and send the request with a path.
    let rest = target.strip_prefix("http://").unwrap_or(target);
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut upstream = TcpStream::connect(authority)?;
    let path = if path.is_empty() { "/" } else { path };
    let version = parts.next().unwrap_or("HTTP/1.1");
    let mut head = format!("{method} {path} {version}\r\n");
    for (k, v) in &headers {
        if !k.starts_with("proxy-") && k != "connection" {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("Connection: close\r\n\r\n");
    upstream.write_all(head.as_bytes())?;
    let up2 = upstream.try_clone()?;
    let t = std::thread::spawn(move || pipe(reader, up2));
    pipe(upstream, client);
    let _ = t.join();
    Ok(())
}

/// A `git-daemon` serving `base` on 127.0.0.1, killed on drop. Spawned directly:
/// killing the `git daemon` wrapper would leave the real daemon running.
pub(crate) struct Daemon {
    child: std::process::Child,
    pub(crate) port: u16,
}

impl Daemon {
    pub(crate) fn serve(base: &Path) -> Daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let exec = crate::support::git::git(base, &["--exec-path"]);
        let child = std::process::Command::new(Path::new(&exec).join("git-daemon"))
            .args([
                "--reuseaddr",
                "--export-all",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
            ])
            .arg(format!("--base-path={}", base.display()))
            .arg(base)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("git-daemon starts");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Daemon { child, port }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What [`FlakyServer`] did with the requests it was sent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Faults {
    pub(crate) served: usize,
    pub(crate) errors: usize,
    pub(crate) resets: usize,
    pub(crate) stalls: usize,
    pub(crate) truncated: usize,
}

/// A smart-HTTP git server over the bare repositories under `root` that fails at random
/// (seeded): a 500, a connection reset before any answer, a stall (no answer for `stall`,
/// then the connection closes) or a pack cut off half-way (the full `Content-Length`
/// announced). `calm` turns the faults off.
pub(crate) struct FlakyServer {
    pub(crate) base: String,
    pub(crate) calm: Arc<std::sync::atomic::AtomicBool>,
    pub(crate) faults: Arc<Mutex<Faults>>,
}

impl FlakyServer {
    pub(crate) fn start(root: &Path, seed: u64, stall: std::time::Duration) -> FlakyServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let calm = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let faults: Arc<Mutex<Faults>> = Arc::default();
        let rng = Arc::new(Mutex::new(seed | 1));
        let (quiet, log, root) = (calm.clone(), faults.clone(), root.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (quiet, log, root, rng) =
                    (quiet.clone(), log.clone(), root.clone(), rng.clone());
                std::thread::spawn(move || {
                    let roll = if quiet.load(std::sync::atomic::Ordering::SeqCst) {
                        0
                    } else {
                        xorshift(&mut rng.lock().unwrap()) % 100
                    };
                    let _ = serve_flaky(stream, &root, roll, stall, &log);
                });
            }
        });
        FlakyServer { base, calm, faults }
    }
}

/// The next number of a xorshift64 generator.
pub(crate) fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// One request, failed by `roll` (0..100): 70 and over fails (500, reset, stall; a pack
/// request cut off half-way from 93).
fn serve_flaky(
    mut stream: TcpStream,
    root: &Path,
    roll: u64,
    stall: std::time::Duration,
    log: &Mutex<Faults>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let req = read_request(&mut reader)?;
    if req.line.is_empty() {
        return Ok(()); // a client that hung up without asking
    }
    let is_pack = req.line.starts_with("POST");
    match roll {
        70..=77 => {
            log.lock().unwrap().errors += 1;
            write!(
                stream,
                "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )?;
            return stream.flush();
        }
        78..=85 => {
            log.lock().unwrap().resets += 1;
            // SO_LINGER 0: the close sends a reset.
            use std::os::fd::AsRawFd;
            let linger = libc::linger {
                l_onoff: 1,
                l_linger: 0,
            };
            // SAFETY: a valid socket and a linger struct of the size given.
            unsafe {
                libc::setsockopt(
                    stream.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_LINGER,
                    std::ptr::from_ref(&linger).cast(),
                    std::mem::size_of::<libc::linger>() as libc::socklen_t,
                );
            }
            return Ok(());
        }
        86..=92 => {
            log.lock().unwrap().stalls += 1;
            std::thread::sleep(stall);
            return Ok(());
        }
        _ => {}
    }
    let (status, headers, body) = cgi(root, req)?;
    let cut = roll >= 93 && is_pack;
    write!(
        stream,
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if cut {
        log.lock().unwrap().truncated += 1;
        stream.write_all(&body[..body.len() / 2])?;
    } else {
        log.lock().unwrap().served += 1;
        stream.write_all(&body)?;
    }
    stream.flush()
}

/// A TCP relay on 127.0.0.1 to `target` that passes what the client sends at once and what
/// the server answers in 64 KiB pieces 20 ms apart: a transfer of a few MiB then lasts long
/// enough for a terminal's progress to be drawn mid-way, however fast the machine is.
pub(crate) struct Trickle {
    pub(crate) port: u16,
}

impl Trickle {
    pub(crate) fn to(target: u16) -> Trickle {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                let (mut up_from, mut up_to) =
                    (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut up_from, &mut up_to);
                    let _ = up_to.shutdown(std::net::Shutdown::Write);
                });
                let (mut down_from, mut down_to) = (server, client);
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 64 * 1024];
                    while let Ok(n) = down_from.read(&mut buf) {
                        if n == 0 || down_to.write_all(&buf[..n]).is_err() {
                            break;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(20));
                    }
                    let _ = down_to.shutdown(std::net::Shutdown::Write);
                });
            }
        });
        Trickle { port }
    }
}

/// A plain HTTP server of the files under `root` (GET only, one request a connection; a
/// path ending in `/` is its directory's `index.html`) that
/// logs every request line it is sent, answered or not: a package index an attack points
/// pip at, whose log says whether anything asked it.
pub(crate) struct FileServer {
    pub(crate) base: String,
    pub(crate) seen: Arc<Mutex<Vec<String>>>,
}

impl FileServer {
    pub(crate) fn start(root: &Path) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let (log, root) = (seen.clone(), root.to_path_buf());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let Ok(req) = read_request(&mut reader) else {
                    continue;
                };
                log.lock().unwrap().push(req.line.clone());
                let path = req.line.split_whitespace().nth(1).unwrap_or("/");
                let mut file = root.join(path.trim_start_matches('/'));
                if path.ends_with('/') {
                    file = file.join("index.html");
                }
                let _ = match std::fs::read(&file).ok().filter(|_| !path.contains("..")) {
                    Some(body) => write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        if file.extension().is_some_and(|x| x == "html") {
                            "text/html"
                        } else {
                            "application/octet-stream"
                        },
                        body.len()
                    )
                    .and_then(|()| stream.write_all(&body)),
                    None => stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    ),
                };
            }
        });
        FileServer { base, seen }
    }

    /// Every request line sent so far.
    pub(crate) fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}
