#!/usr/bin/env python3
"""The network commands at a real round trip: `outdated`, `install` and `sync` against git.

    sudo python3 bench/latency.py                       # release build, 40 ms, markdown table
    sudo python3 bench/latency.py --binary OLD --binary NEW --rtt 40

Servers run in one network namespace and `plugins` in another, joined by `bench/netem.py`'s
relay, which holds every packet half the round trip (this kernel has no netem). Served: N small
repositories (a branch and 20 tags each) over `git daemon` (git://) and over smart HTTP
(`git http-backend` behind a keep-alive HTTP/1.1 server). Measured, medians of `--runs`:

- `outdated` over N locked plugins, against the floor of two round trips (connect, then the ref
  advertisement: one handshake plus one request) and against `xargs -P 32 git ls-remote` (`-P 4`
  for git://, whose daemon resets connections beyond its accept queue);
- `install` of one plugin, against `git clone --depth 1` of the same ref;
- `sync` of 20 plugins into an empty home, against `xargs -P 8 git clone --depth 1`.

Each comparison runs interleaved (every round runs every command once, in turn); the table gives
the ratios to read, with absolute times for reference.
"""
import argparse
import http.server
import os
import shutil
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

HTTP_PORT, GIT_PORT = 8080, 9418


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


def serve_http(root: str) -> None:
    Backend.root = root
    http.server.ThreadingHTTPServer(("10.77.0.2", HTTP_PORT), Backend).serve_forever()


def start_servers(net, served: Path):
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    daemon = subprocess.Popen(net.server([os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", "--max-connections=0",
                                          f"--listen={net.server_ip}", f"--port={GIT_PORT}",
                                          f"--base-path={served}", str(served)]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    web = subprocess.Popen(net.server([sys.executable, __file__, "--serve-http", str(served)]), env=ENV)
    time.sleep(1.0)
    return [daemon, web]


def interleaved(commands: dict, runs: int) -> dict:
    samples = {name: [] for name in commands}
    for _ in range(runs):
        for name, fn in commands.items():
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) for name, s in samples.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve-http", help=argparse.SUPPRESS)
    ap.add_argument("--binary", action="append", help="a plugins binary to measure (repeat to compare)")
    ap.add_argument("--rtt", type=float, default=40.0, help="round trip in ms (default 40)")
    ap.add_argument("-n", type=int, default=200, help="remotes for outdated (default 200)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scheme", choices=["http", "git"], action="append",
                    help="measure only this transport (repeatable; default both)")
    args = ap.parse_args()
    if args.serve_http:
        serve_http(args.serve_http)
        return
    binaries = args.binary or [build_release()]
    floor = 2 * args.rtt / 1000.0
    with tempfile.TemporaryDirectory() as tmp, Latency(args.rtt) as net:
        tmp = Path(tmp)
        served = tmp / "served"
        for i in range(args.n):
            make_repo(served / f"p{i}.git", i)
        procs = start_servers(net, served)
        try:
            rows = []
            for scheme, base in (("http", f"http://{net.server_ip}:{HTTP_PORT}"),
                                 ("git", f"git://{net.server_ip}:{GIT_PORT}")):
                if args.scheme and scheme not in args.scheme:
                    continue
                urls = [f"{base}/p{i}.git" for i in range(args.n)]
                home_all, home20 = tmp / f"all-{scheme}", tmp / f"twenty-{scheme}"
                for i, url in enumerate(urls):
                    run(net.client([binaries[0], "install", url, "--ref", "v1.0.0", "--yes", "--home", str(home_all)]))
                    if i < 20:
                        run(net.client([binaries[0], "install", url, "--ref", "v1.0.0", "--yes", "--home", str(home20)]))
                homes = {b: home_all for b in binaries}
                cmds = {f"outdated {b}": (lambda b=b: run(net.client(
                    [b, "outdated", "--json", "--home", str(homes[b])]), ok_codes=None)) for b in binaries}
                listing = "\n".join(urls)
                # git daemon resets connections beyond a few at once (its accept queue holds
                # 5), so the script gets the same per-server cap as plugins' for git://.
                par = 32 if scheme == "http" else 4
                cmds[f"xargs -P {par} git ls-remote"] = lambda par=par: run(net.client(
                    ["sh", "-c", f"xargs -P {par} -n 1 git ls-remote >/dev/null"]), input=listing.encode())
                times = interleaved(cmds, args.runs)
                for name, t in times.items():
                    rows.append((f"outdated, {args.n} remotes, {scheme}://", name, t, t / floor))
                    print(rows[-1], file=sys.stderr, flush=True)
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
                # sync 20 plugins into an empty home vs xargs -P 8 shallow clones
                def sync(binary):
                    h = Path(tempfile.mkdtemp(dir=tmp))
                    shutil.copytree(home20, h, dirs_exist_ok=True)
                    shutil.rmtree(h / "plugins")
                    run(net.client([binary, "sync", "--yes", "--home", str(h)]))
                    assert len(list((h / "plugins").iterdir())) == 20
                    shutil.rmtree(h)

                def clones():
                    d = tempfile.mkdtemp(dir=tmp)
                    script = f'cd {d} && xargs -P 8 -I U sh -c \'git clone -q --depth 1 --branch v1.0.0 U "$(basename U)"\''
                    run(net.client(["sh", "-c", script]), input="\n".join(urls[:20]).encode())
                    shutil.rmtree(d)
                cmds = {f"sync 20 {b}": (lambda b=b: sync(b)) for b in binaries}
                cmds["xargs -P 8 git clone --depth 1"] = clones
                times = interleaved(cmds, args.runs)
                base_t = times["xargs -P 8 git clone --depth 1"]
                for name, t in times.items():
                    rows.append((f"sync 20, {scheme}://", name, t, t / base_t))
                    print(rows[-1], file=sys.stderr, flush=True)
        finally:
            for p in procs:
                p.kill()
    print(f"RTT {args.rtt:.0f} ms; the outdated ratio is to the two-round-trip floor ({floor * 1000:.0f} ms), "
          "install's to `git clone --depth 1`, sync's to `xargs -P 8 git clone --depth 1`.\n")
    print("| case | command | median | ratio |\n|---|---|---:|---:|")
    for case, name, t, ratio in rows:
        print(f"| {case} | `{name}` | {t * 1000:.0f} ms | {ratio:.2f}x |")


def run(cmd, ok_codes=(0,), **kw):
    """Run quietly; fail with the command's stderr unless its exit code is in `ok_codes`."""
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, **kw)
    if ok_codes is not None and res.returncode not in ok_codes:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {res.returncode}: {res.stderr.decode()[-2000:]}")


if __name__ == "__main__":
    main()
