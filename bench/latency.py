#!/usr/bin/env python3
"""The network commands at a real round trip: `outdated`, `install` and `sync` against git.

    sudo python3 bench/latency.py                       # release build, 40 ms, markdown table
    sudo python3 bench/latency.py --binary OLD --binary NEW --rtt 40

Servers run in one network namespace and `plugins` in another, joined by `bench/netem.py`'s
relay, which holds every packet half the round trip (this kernel has no netem). Served: N small
repositories (a branch and 20 tags each) over `git daemon` (git://), over smart HTTP
(`git http-backend` behind a keep-alive HTTP/1.1 server, http://) and over the same server behind
TLS (https://, TLS 1.3 with a certificate for 10.77.0.2 from a throwaway CA made with `openssl` at
start-up; the client trusts it through `SSL_CERT_FILE` and `GIT_SSL_CAINFO`, verification on).
`--scheme` picks transports (default all three). Measured, medians of `--runs`:

- `outdated` over N locked plugins, against the floor of the round trips one remote needs (two for
  http:// and git://, the TCP connect then the ref advertisement; three for https://, whose TLS 1.3
  handshake adds one) and against `xargs -P 32 git ls-remote` (`-P 4` for git://, whose daemon
  resets connections beyond its accept queue);
- `install` of one plugin, against `git clone --depth 1` of the same ref;
- `sync` of 20 plugins (N if fewer) into an empty home, against `xargs -P 8 git clone --depth 1`;
- with `--python PY` (the hosts venv's, where protoAgent is installed), `install` of one small
  protoAgent plugin with host detection on (`--python PY`): into an empty home, where the host's
  Python is asked which host it holds, and into a home that has installed before (a copy of one),
  where the answer is remembered (`<home>/.plugins/host-probe.json`); against the same clone.

Each comparison runs interleaved (every round runs every command once, in turn); the table gives
the ratios to read, with absolute times for reference.
"""
import argparse
import http.server
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, build_release  # noqa: E402
from netem import Latency  # noqa: E402
from outdated import make_repo  # noqa: E402

HTTP_PORT, HTTPS_PORT, GIT_PORT = 8080, 8443, 9418
# Every command in the client namespace; main() adds the throwaway CA for https://.
CLIENT_ENV = dict(ENV)


class Backend(http.server.BaseHTTPRequestHandler):
    """Smart HTTP through `git http-backend`, HTTP/1.1 with keep-alive."""

    protocol_version = "HTTP/1.1"
    # Head and body are two writes: without TCP_NODELAY a kept-alive connection's body waits
    # for the client's delayed ACK (40 ms), which nginx avoids with `tcp_nodelay on`.
    disable_nagle_algorithm = True
    root = "/"
    # Ref advertisements do not change during a run: computed once per URL, as a forge
    # serves them from memory, so the server's fork of `git http-backend` is not measured.
    cache = {}

    def log_message(self, *args):
        pass

    def _cgi(self):
        key = (self.path, self.headers.get("Git-Protocol", ""))
        if self.command == "GET" and key in self.cache:
            return self._send(*self.cache[key])
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        env = dict(ENV, GIT_PROJECT_ROOT=self.root, GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command,
                   CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                   REMOTE_ADDR="10.77.0.1", GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        if self.headers.get("Content-Encoding") == "gzip":
            env["HTTP_CONTENT_ENCODING"] = "gzip"
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            name, _, value = line.decode().partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        if self.command == "GET" and status == 200:
            self.cache[key] = (status, headers, payload)
        self._send(status, headers, payload)

    def _send(self, status, headers, payload):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _cgi


class Server(http.server.ThreadingHTTPServer):
    # Python listens with an accept queue of 5, which drops the SYNs (and handshakes) of a
    # burst of connects as `git daemon` does; HTTP servers that host git queue hundreds
    # (nginx and Apache 511, Go's and Java's the kernel's somaxconn).
    request_queue_size = 511


class TlsServer(Server):
    """`Server` behind TLS: the accept loop only wraps each socket (no I/O); the handshake runs in
    the connection's own thread, so a slow one does not hold up the accepts behind it."""

    context = None

    def get_request(self):
        sock, addr = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def finish_request(self, request, client_address):
        # Before the handshake, not only in the handler's setup: the server's last flight is
        # small writes (Finished, then session tickets) that Nagle would hold for an ACK.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        request.do_handshake()
        super().finish_request(request, client_address)


def serve_http(root: str) -> None:
    Backend.root = root
    Server(("10.77.0.2", HTTP_PORT), Backend).serve_forever()


def serve_https(root: str, cert: str, key: str) -> None:
    Backend.root = root
    TlsServer.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    TlsServer.context.load_cert_chain(cert, key)
    TlsServer(("10.77.0.2", HTTPS_PORT), Backend).serve_forever()


def make_certificate(tls: Path, ip: str) -> Path:
    """A throwaway CA and a certificate for `ip` signed by it, in `tls`; returns the CA's PEM."""
    tls.mkdir()

    def openssl(*args):
        res = subprocess.run(["openssl", *args], cwd=tls, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if res.returncode:
            raise SystemExit(f"openssl {' '.join(args)} exited {res.returncode}: {res.stderr.decode()}")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=plugins bench CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-new", *ec, "-keyout", "key.pem", "-out", "server.csr", "-subj", f"/CN={ip}")
    (tls / "server.ext").write_text(f"subjectAltName=IP:{ip}\nbasicConstraints=critical,CA:FALSE\n"
                                    "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "server.ext", "-out", "cert.pem")
    return tls / "ca.pem"


def start_servers(net, served: Path, tls: Path):
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    daemon = subprocess.Popen(net.server([os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", "--max-connections=0",
                                          f"--listen={net.server_ip}", f"--port={GIT_PORT}",
                                          f"--base-path={served}", str(served)]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    web = subprocess.Popen(net.server([sys.executable, __file__, "--serve-http", str(served)]), env=ENV)
    tls_web = subprocess.Popen(net.server([sys.executable, __file__, "--serve-https", str(served),
                                           str(tls / "cert.pem"), str(tls / "key.pem")]), env=ENV)
    time.sleep(1.0)
    return [daemon, web, tls_web]


def interleaved(commands: dict, runs: int) -> dict:
    """Median time of each command over `runs` rounds. Each round starts one command later
    (the first round runs them in the given order, the next from the second, and so on): the
    command that ran right after another against the same server was seen up to 10% slower
    (the server still closing the last one's 200 connections), which favoured whichever
    binary came first. (A pause before each command instead made every command slower.)"""
    samples = {name: [] for name in commands}
    names = list(commands)
    for r in range(runs):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            start = time.perf_counter()
            commands[name]()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) for name, s in samples.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve-http", help=argparse.SUPPRESS)
    ap.add_argument("--serve-https", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--binary", action="append", help="a plugins binary to measure (repeat to compare)")
    ap.add_argument("--rtt", type=float, default=40.0, help="round trip in ms (default 40)")
    ap.add_argument("-n", type=int, default=200, help="remotes for outdated (default 200)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scheme", choices=["http", "https", "git"], action="append",
                    help="measure only this transport (repeatable; default all three)")
    ap.add_argument("--python", help="the host's Python (protoAgent installed): measure a protoAgent install")
    ap.add_argument("--only", choices=["outdated", "install", "sync"], action="append",
                    help="measure only this command (repeatable; default all)")
    args = ap.parse_args()
    if args.serve_http:
        serve_http(args.serve_http)
        return
    if args.serve_https:
        serve_https(*args.serve_https)
        return
    binaries = args.binary or [build_release()]
    few = min(20, args.n)  # plugins for sync
    # Round trips one remote's ref advertisement needs: TCP connect and the request, plus the
    # TLS 1.3 handshake for https://.
    floors = {scheme: k * args.rtt / 1000.0 for scheme, k in (("http", 2), ("https", 3), ("git", 2))}
    with tempfile.TemporaryDirectory() as tmp, Latency(args.rtt) as net:
        tmp = Path(tmp)
        served = tmp / "served"
        for i in range(args.n):
            make_repo(served / f"p{i}.git", i)
        if args.python:
            make_protoagent_repo(served / "proto.git")
        ca = make_certificate(tmp / "tls", net.server_ip)
        CLIENT_ENV.update(SSL_CERT_FILE=str(ca), GIT_SSL_CAINFO=str(ca))
        procs = start_servers(net, served, tmp / "tls")
        try:
            rows = []
            for scheme, base in (("http", f"http://{net.server_ip}:{HTTP_PORT}"),
                                 ("https", f"https://{net.server_ip}:{HTTPS_PORT}"),
                                 ("git", f"git://{net.server_ip}:{GIT_PORT}")):
                if args.scheme and scheme not in args.scheme:
                    continue
                urls = [f"{base}/p{i}.git" for i in range(args.n)]
                home_all, home20 = tmp / f"all-{scheme}", tmp / f"twenty-{scheme}"
                wanted = lambda what: not args.only or what in args.only  # noqa: E731
                for i, url in enumerate(urls):
                    if wanted("outdated"):
                        run(net.client([binaries[0], "install", url, "--ref", "v1.0.0", "--yes", "--home", str(home_all)]))
                    if i < few and wanted("sync"):
                        run(net.client([binaries[0], "install", url, "--ref", "v1.0.0", "--yes", "--home", str(home20)]))
                if wanted("outdated"):
                    rows += outdated_rows(args, net, binaries, scheme, urls, home_all, floors)
                if wanted("install"):
                    rows += install_rows(args, net, binaries, scheme, urls, base, tmp)
                if wanted("sync"):
                    rows += sync_rows(args, net, binaries, scheme, urls, home20, few, tmp)
        finally:
            for p in procs:
                p.kill()
                p.wait()
    print(f"RTT {args.rtt:.0f} ms; the outdated ratio is to the floor of two round trips for http:// and "
          f"git:// ({floors['http'] * 1000:.0f} ms: TCP connect, then the request) and three for https:// "
          f"({floors['https'] * 1000:.0f} ms: TCP connect, TLS 1.3 handshake, the request), "
          "install's to `git clone --depth 1`, sync's to `xargs -P 8 git clone --depth 1`.\n")
    print("| case | command | median | ratio |\n|---|---|---:|---:|")
    for case, name, t, ratio in rows:
        print(f"| {case} | `{name}` | {t * 1000:.0f} ms | {ratio:.2f}x |")


def outdated_rows(args, net, binaries, scheme, urls, home_all, floors):
    rows = []
    homes = {b: home_all for b in binaries}
    cmds = {f"outdated {b}": (lambda b=b: run(net.client(
        [b, "outdated", "--json", "--home", str(homes[b])]))) for b in binaries}
    listing = "\n".join(urls)
    # git daemon resets connections beyond a few at once (its accept queue holds
    # 5), so the script gets the same per-server cap as plugins' for git://.
    par = 4 if scheme == "git" else 32
    cmds[f"xargs -P {par} git ls-remote"] = lambda par=par: run(net.client(
        ["sh", "-c", f"xargs -P {par} -n 1 git ls-remote >/dev/null"]), input=listing.encode())
    times = interleaved(cmds, args.runs)
    for name, t in times.items():
        rows.append((f"outdated, {args.n} remotes, {scheme}://", name, t, t / floors[scheme]))
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def install_rows(args, net, binaries, scheme, urls, base, tmp):
    rows = []
    # install one plugin vs a shallow clone
    def install(binary, url=urls[0]):
        with tempfile.TemporaryDirectory() as h:
            run(net.client([binary, "install", url, "--ref", "v1.3.0", "--yes", "--home", h]))

    def clone(url=urls[0]):
        with tempfile.TemporaryDirectory() as d:
            run(net.client(["git", "clone", "-q", "--depth", "1", "--branch", "v1.3.0", url, d + "/c"]))
    cmds = {f"install {b}": (lambda b=b: install(b)) for b in binaries}
    cmds["git clone --depth 1"] = clone
    times = interleaved(cmds, args.runs)
    base_t = times["git clone --depth 1"]
    for name, t in times.items():
        rows.append((f"install, {scheme}://", name, t, t / base_t))
        print(rows[-1], file=sys.stderr, flush=True)
    if args.python:
        rows += protoagent_install_rows(args, net, binaries, scheme, f"{base}/proto.git", tmp)
    return rows


def protoagent_install_rows(args, net, binaries, scheme, url, tmp):
    """A small protoAgent plugin installed with host detection, into an empty home and into a
    copy of a home that has installed before, against `git clone --depth 1`."""
    rows = []
    warm = {}
    for b in binaries:
        # A home that has installed (another copy of the plugin, then removed it): what the
        # host's Python answered is in its record, if this build keeps one.
        warm[b] = Path(tempfile.mkdtemp(dir=tmp))
        run(net.client([b, "install", url, "--yes", "--python", args.python, "--home", str(warm[b])]))
        run(net.client([b, "remove", "benchnotes", "--yes", "--home", str(warm[b])]), ok_codes=None)

    def install(binary, home_from=None):
        h = Path(tempfile.mkdtemp(dir=tmp))
        if home_from:
            shutil.copytree(home_from, h, dirs_exist_ok=True)
        run(net.client([binary, "install", url, "--yes", "--force", "--python", args.python, "--home", str(h)]))
        shutil.rmtree(h)

    def clone():
        with tempfile.TemporaryDirectory() as d:
            run(net.client(["git", "clone", "-q", "--depth", "1", url, d + "/c"]))
    cmds = {}
    for b in binaries:
        cmds[f"install (empty home) {b}"] = lambda b=b: install(b)
        cmds[f"install (home that installed before) {b}"] = lambda b=b: install(b, warm[b])
    cmds["git clone --depth 1"] = clone
    times = interleaved(cmds, args.runs)
    base_t = times["git clone --depth 1"]
    for name, t in times.items():
        rows.append((f"install protoAgent, {scheme}://", name, t, t / base_t))
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def make_protoagent_repo(path: Path) -> None:
    """A small protoAgent plugin (a manifest and an `__init__.py`) at one commit on `main`."""
    manifest = "id: benchnotes\nname: Bench notes\nversion: 0.1.0\n"
    init = "def register(r):\n    pass\n"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    stream = [b"commit refs/heads/main\ncommitter B <b@example.invalid> 1700000000 +0000\ndata 3\none\n"]
    for name, text in (("protoagent.plugin.yaml", manifest), ("__init__.py", init)):
        stream.append(b"M 100644 inline %s\n" % name.encode())
        stream.append(b"data %d\n" % len(text) + text.encode() + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=path, check=True, env=ENV)


def sync_rows(args, net, binaries, scheme, urls, home20, few, tmp):
    rows = []
    # sync `few` plugins into an empty home vs xargs -P 8 shallow clones
    def sync(binary):
        h = Path(tempfile.mkdtemp(dir=tmp))
        shutil.copytree(home20, h, dirs_exist_ok=True)
        shutil.rmtree(h / "plugins")
        run(net.client([binary, "sync", "--yes", "--home", str(h)]))
        assert len(list((h / "plugins").iterdir())) == few
        shutil.rmtree(h)

    def clones():
        d = tempfile.mkdtemp(dir=tmp)
        script = f'cd {d} && xargs -P 8 -I U sh -c \'git clone -q --depth 1 --branch v1.0.0 U "$(basename U)"\''
        run(net.client(["sh", "-c", script]), input="\n".join(urls[:few]).encode())
        shutil.rmtree(d)
    cmds = {f"sync {few} {b}": (lambda b=b: sync(b)) for b in binaries}
    cmds["xargs -P 8 git clone --depth 1"] = clones
    times = interleaved(cmds, args.runs)
    base_t = times["xargs -P 8 git clone --depth 1"]
    for name, t in times.items():
        rows.append((f"sync {few}, {scheme}://", name, t, t / base_t))
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def run(cmd, ok_codes=(0,), **kw):
    """Run quietly; fail with the command's stderr unless its exit code is in `ok_codes`."""
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CLIENT_ENV, **kw)
    if ok_codes is not None and res.returncode not in ok_codes:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {res.returncode}: {res.stderr.decode()[-2000:]}")


if __name__ == "__main__":
    main()
