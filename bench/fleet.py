#!/usr/bin/env python3
"""A fleet synced from one lock: `plugins sync --frozen` into N fresh homes (a) through a
mirror while the origin is down, (b) from a `plugins bundle` archive with no network.

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
        origin_daemon.kill()
        origin_daemon.wait()
        lock = (origin / "plugins.lock").read_bytes()
        want = digest(origin)
        mirror_daemon, mirror_port = git_daemon(tmp / "mirror")
        relay = Relay(mirror_port)
        rows = []
        for label, extra, base in [
            ("mirror (`PLUGINS_GH_BASE`, origin down)", [], f"git://127.0.0.1:{relay.port}"),
            ("bundle (`--from`, no network)", ["--from", str(bundle)], f"git://127.0.0.1:{free_port()}"),
        ]:
            times, same = [], True
            before = relay.sent
            start_all = time.perf_counter()
            for n in range(a.homes):
                home = tmp / label.split()[0] / str(n)
                home.mkdir(parents=True)
                (home / "plugins.lock").write_bytes(lock)
                start = time.perf_counter()
                subprocess.run([binary, "-q", "sync", "--frozen", "--yes", "--home", str(home), *extra],
                               check=True, env=dict(env, PLUGINS_GH_BASE=base), stderr=subprocess.DEVNULL)
                times.append(time.perf_counter() - start)
                same = same and digest(home) == want
            total = time.perf_counter() - start_all
            fetched = (relay.sent - before) / a.homes if not extra else bundle.stat().st_size
            rows.append((label, statistics.median(times), total, fetched, same))
        mirror_daemon.kill()
        print(f"{a.homes} homes, {a.plugins} plugins each; bundle {bundle.stat().st_size} bytes\n")
        print("| source | median per home | all homes | bytes per home | identical |")
        print("|---|---|---|---|---|")
        for label, med, total, fetched, same in rows:
            print(f"| {label} | {med * 1000:.0f} ms | {total:.1f} s | {fetched:,.0f} | {'yes' if same else 'NO'} |")


if __name__ == "__main__":
    main()
