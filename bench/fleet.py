#!/usr/bin/env python3
"""A fleet synced from one lock: `plugins sync --frozen` into N fresh homes (a) through a
mirror while the origin is down, (b) from a `plugins bundle` archive with no network, (c)
from an OCI registry through a pull-through cache (`bundle --push`, `sync --from oci://…`).

    python3 bench/fleet.py --debug            # debug binary, 20 homes, 5 plugins
    python3 bench/fleet.py --homes 20 --plugins 5
    python3 bench/fleet.py --binary target/debug/plugins

The plugins (aoe, 50 commits each, made with git fast-import) are served as `gh:bench/p<i>`
by an origin `git-daemon` on 127.0.0.1; an origin home installs them (`@v1.0.0`) and is
bundled; then the origin is stopped. The mirror is a second `git-daemon` on a copy of the
repositories, reached through a relay that counts the bytes it sends to `plugins`
(`PLUGINS_GH_BASE` points at the relay). Each home starts empty but for the lock. Prints a
markdown table: median and total wall time per home, bytes fetched (or read) per home, and
whether every home's files and lock are byte-identical to the origin's.

(c) needs Debian's `docker-registry` (the CNCF distribution registry): an origin registry on
127.0.0.1 gets the bundle pushed by tag; a second one is its pull-through cache; each home
syncs the pushed digest through the cache (reached through the counting relay), and the
origin's access log says how often it served each blob. Skipped when the registry is absent.
"""
import argparse
import hashlib
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from common import ENV, ROOT, build_release, free_port, git_daemon


def make_repo(path: Path, i: int, commits: int = 50) -> None:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    manifest = (f'id = "dev.bench.p{i}"\nname = "P{i}"\nversion = "1.0.0"\napi_version = 6\n\n'
                '[[commands]]\nid = "hello"\n').encode()
    stream = []
    for c in range(commits):
        stream.append(b"commit refs/heads/main\ncommitter B <b@example.invalid> %d +0000\ndata 4\nc%02d\n"
                      % (1700000000 + c, c % 100))
        if c == 0:
            stream.append(b"M 100644 inline aoe-plugin.toml\ndata %d\n" % len(manifest) + manifest + b"\n")
        body = (b"line %d of commit %d\n" % (c, c)) * 200
        stream.append(b"M 100644 inline src/f%d.txt\ndata %d\n" % (c % 10, len(body)) + body + b"\n")
    stream.append(b"reset refs/tags/v1.0.0\nfrom refs/heads/main\n")
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=path, check=True, env=ENV)


class Relay:
    """A TCP relay on 127.0.0.1 to `port`, counting the bytes sent back to the client."""

    def __init__(self, port: int):
        self.to = port
        self.sent = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            client, _ = self.sock.accept()
            upstream = socket.create_connection(("127.0.0.1", self.to))
            threading.Thread(target=self.pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self.pipe, args=(upstream, client, True), daemon=True).start()

    def pipe(self, src, dst, count):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if count:
                    with self.lock:
                        self.sent += len(data)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass


def digest(home: Path) -> str:
    """sha256 over every file under plugins/ (path and bytes) and the lock."""
    h = hashlib.sha256()
    for p in sorted((home / "plugins").rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(home)).encode() + b"\0" + p.read_bytes())
    h.update((home / "plugins.lock").read_bytes())
    return h.hexdigest()


def registry(dir: Path, proxy_of: str = ""):
    """The distribution registry on a free loopback port; returns (process, port, log)."""
    dir.mkdir(parents=True)
    port = free_port()
    config = (f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {dir / 'storage'}\n"
              f"http:\n  addr: 127.0.0.1:{port}\nlog:\n  level: info\n")
    if proxy_of:
        config += f"proxy:\n  remoteurl: {proxy_of}\n"
    (dir / "config.yml").write_text(config)
    log = dir / "registry.log"
    proc = subprocess.Popen(["docker-registry", "serve", str(dir / "config.yml")],
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.02)
    return proc, port, log


def blob_gets(log: Path) -> dict:
    """How often the registry's access log says it served each blob with GET."""
    counts = {}
    for line in log.read_text().splitlines():
        if '"GET /v2/' in line and "/blobs/sha256:" in line:
            digest = line.split("/blobs/")[1].split()[0]
            counts[digest] = counts.get(digest, 0) + 1
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--debug", action="store_true", help="use target/debug/plugins (built if missing)")
    ap.add_argument("--homes", type=int, default=20)
    ap.add_argument("--plugins", type=int, default=5)
    ap.add_argument("--binary", help="an already built plugins binary (nothing is built)")
    a = ap.parse_args()
    if a.binary:
        binary = a.binary
    elif a.debug:
        subprocess.run(["cargo", "build", "--locked", "-q"], cwd=ROOT, check=True)
        binary = str(ROOT / "target" / "debug" / "plugins")
    else:
        binary = build_release()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        served = tmp / "served"
        for i in range(a.plugins):
            make_repo(served / "bench" / f"p{i}.git", i)
        shutil.copytree(served, tmp / "mirror")
        origin_daemon, origin_port = git_daemon(served)
        env = dict(ENV, NO_COLOR="1", PLUGINS_GH_BASE=f"git://127.0.0.1:{origin_port}")
        env.pop("PLUGINS_HOME", None)
        origin = tmp / "origin"
        for i in range(a.plugins):
            subprocess.run([binary, "-q", "install", f"gh:bench/p{i}@v1.0.0", "--yes", "--home", str(origin)],
                           check=True, env=env, stderr=subprocess.DEVNULL)
        bundle = tmp / "plugins-bundle.tar"
        subprocess.run([binary, "-q", "bundle", "--home", str(origin), "-o", str(bundle)], check=True, env=env)
        oci = shutil.which("docker-registry") is not None
        if oci:
            reg, reg_port, reg_log = registry(tmp / "registry")
            pushed = subprocess.run(
                [binary, "bundle", "--json", "--home", str(origin), "--plain-http",
                 "--push", f"oci://127.0.0.1:{reg_port}/fleet/plugins:v1"],
                check=True, env=env, capture_output=True, text=True)
            import json
            oci_digest = json.loads(pushed.stdout)["bundle"]["pushed"]["digest"]
            cache, cache_port, _ = registry(tmp / "cache", f"http://127.0.0.1:{reg_port}")
            cache_relay = Relay(cache_port)
        origin_daemon.kill()
        origin_daemon.wait()
        lock = (origin / "plugins.lock").read_bytes()
        want = digest(origin)
        mirror_daemon, mirror_port = git_daemon(tmp / "mirror")
        relay = Relay(mirror_port)
        rows = []
        sources = [
            ("mirror (`PLUGINS_GH_BASE`, origin down)", [], f"git://127.0.0.1:{relay.port}"),
            ("bundle (`--from`, no network)", ["--from", str(bundle)], f"git://127.0.0.1:{free_port()}"),
        ]
        if oci:
            sources.append((
                "registry (`--from oci://…@digest`, pull-through cache)",
                ["--plain-http", "--from", f"oci://127.0.0.1:{cache_relay.port}/fleet/plugins@{oci_digest}"],
                f"git://127.0.0.1:{free_port()}"))
        for label, extra, base in sources:
            times, same = [], True
            counter = cache_relay if oci and label.startswith("registry") else relay
            before = counter.sent
            start_all = time.perf_counter()
            for n in range(a.homes):
                home = tmp / label.split()[0] / str(n)
                home.mkdir(parents=True)
                (home / "plugins.lock").write_bytes(lock)
                start = time.perf_counter()
                # Each home its own HOME (its own docker config, netrc, git config), as a machine.
                user = home / ".user"
                user.mkdir()
                subprocess.run([binary, "-q", "sync", "--frozen", "--yes", "--home", str(home), *extra],
                               check=True, env=dict(env, PLUGINS_GH_BASE=base, HOME=str(user)),
                               stderr=subprocess.DEVNULL)
                times.append(time.perf_counter() - start)
                same = same and digest(home) == want
            total = time.perf_counter() - start_all
            if label.startswith("bundle"):
                fetched = bundle.stat().st_size
            else:
                fetched = (counter.sent - before) / a.homes
            rows.append((label, statistics.median(times), total, fetched, same))
        mirror_daemon.kill()
        if oci:
            gets = blob_gets(reg_log)
            cache.kill()
            reg.kill()
        print(f"{a.homes} homes, {a.plugins} plugins each; bundle {bundle.stat().st_size} bytes\n")
        print("| source | median per home | all homes | bytes per home | identical |")
        print("|---|---|---|---|---|")
        for label, med, total, fetched, same in rows:
            print(f"| {label} | {med * 1000:.0f} ms | {total:.1f} s | {fetched:,.0f} | {'yes' if same else 'NO'} |")
        if oci:
            print(f"\nThe origin registry served {len(gets)} blobs, each "
                  f"{sorted(set(gets.values()))} times (all to the cache), for {a.homes} homes.")


if __name__ == "__main__":
    main()
