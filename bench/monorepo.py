#!/usr/bin/env python3
"""Bytes a monorepo plugin install moves: a repository shaped like AWorld's builtin plugins
(about 70 MB of incompressible files in about 2,340 files; plugin directories of about
70 KB), served by `git daemon` (with `uploadpack.allowFilter`, as GitHub and GitLab allow
partial clones) behind a loopback TCP relay that counts the bytes the server sends.

    python3 bench/monorepo.py --before OLD_BINARY [--after NEW_BINARY] [--work DIR]

For each binary: one `install --subdir` of one plugin into a fresh home (libgit2 mode and,
with PLUGINS_GIT_FETCH_WITH_CLI=1, the git command mode), then `update --all` of three
plugins of the repository after a commit that changes all three. Reported: the bytes the
server sent and the connections it served, against the size of the plugin's own objects
(a `git pack-objects` of its subtree). Byte counts are deterministic up to git's progress
messages; times are wall times of one run on whatever machine this is.
"""
import argparse
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, ROOT, free_port, git_daemon  # noqa: E402

ASSET_FILES = 2100
ASSET_SIZE = 33 * 1024
PLUGINS = 30
PLUGIN_FILES = 7
PLUGIN_FILE_SIZE = 10 * 1024


def git(cwd, *args, **kw):
    env = dict(ENV, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.invalid",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.invalid",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, **kw).stdout


def generate(work: Path) -> Path:
    """The working repository: `assets/dNN/*.bin` and `aworld/plugins/pNN/`."""
    src = work / "src"
    rng = random.Random(31)
    for i in range(ASSET_FILES):
        path = src / "assets" / f"d{i % 60:02}" / f"{i}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.randbytes(ASSET_SIZE))
    for p in range(1, PLUGINS + 1):
        root = src / "aworld" / "plugins" / f"p{p:02}"
        (root / ".aworld-plugin").mkdir(parents=True)
        (root / ".aworld-plugin" / "plugin.json").write_text(f'{{"id": "p{p:02}", "version": "1.0.0"}}')
        for f in range(PLUGIN_FILES):
            (root / f"{f}.bin").write_bytes(rng.randbytes(PLUGIN_FILE_SIZE))
    git(work, "init", "-q", "-b", "main", str(src))
    git(src, "add", "-A")
    git(src, "commit", "-q", "-m", "v1")
    return src


class Relay:
    """127.0.0.1:port -> upstream, counting the bytes upstream sends and the connections."""

    def __init__(self, upstream: int):
        self.upstream = upstream
        self.sent = 0
        self.connections = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def reset(self):
        with self.lock:
            self.sent, self.connections = 0, 0

    def accept(self):
        while True:
            client, _ = self.sock.accept()
            with self.lock:
                self.connections += 1
            server = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self.pipe, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, True), daemon=True).start()

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
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def plugins(binary, args, home, cli=False):
    env = dict(os.environ, NO_COLOR="1")
    env.pop("PLUGINS_HOME", None)
    if cli:
        env["PLUGINS_GIT_FETCH_WITH_CLI"] = "1"
    else:
        env.pop("PLUGINS_GIT_FETCH_WITH_CLI", None)
    start = time.perf_counter()
    out = subprocess.run([binary, *args, "--home", str(home)], env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)}: {out.returncode}\n{out.stdout}{out.stderr}")
    return took


def own_objects(src: Path, rev: str) -> int:
    objects = git(src, "rev-list", "--objects", rev, text=True)
    ids = "".join(line.split(" ")[0] + "\n" for line in objects.splitlines())
    return len(git(src, "pack-objects", "--stdout", "-q", input=ids.encode()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", default=str(ROOT / "target" / "debug" / "plugins"))
    ap.add_argument("--work")
    a = ap.parse_args()
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="plugins-monorepo-"))
    src = generate(work)
    served = work / "served"
    git(work, "clone", "-q", "--bare", str(src), str(served / "mono.git"))
    git(served / "mono.git", "config", "uploadpack.allowFilter", "true")
    files = sum(1 for p in src.rglob("*") if p.is_file() and ".git" not in p.parts)
    size = sum(p.stat().st_size for p in src.rglob("*") if p.is_file() and ".git" not in p.parts)
    plugin = "aworld/plugins/p07"
    own = own_objects(src, f"HEAD:{plugin}")
    daemon, port = git_daemon(served)
    relay = Relay(port)
    url = f"git://127.0.0.1:{relay.port}/mono.git"
    print(f"repository: {files} files, {size / 1e6:.1f} MB; {plugin}: "
          f"{sum(p.stat().st_size for p in (src / plugin).rglob('*') if p.is_file()) / 1e3:.1f} KB of files, "
          f"its own objects packed: {own} bytes")
    rows = []
    try:
        for label, binary in (("before", a.before), ("after", a.after)):
            for cli in (False, True):
                home = work / f"home-{label}-{int(cli)}"
                relay.reset()
                took = plugins(binary, ["install", url, "--subdir", plugin, "--yes"], home, cli)
                rows.append((label, "git command" if cli else "libgit2", "install --subdir (1 plugin)",
                             relay.sent, relay.connections, took))
        # update --all of three plugins of the repository, after a commit changing all three.
        homes = {}
        for label, binary in (("before", a.before), ("after", a.after)):
            home = work / f"home-update-{label}"
            for p in ("p01", "p02", "p03"):
                plugins(binary, ["install", url, "--subdir", f"aworld/plugins/{p}", "--yes"], home)
            homes[label] = home
        for p in ("p01", "p02", "p03"):
            (src / "aworld" / "plugins" / p / "NEWS").write_text("2\n")
        git(src, "add", "-A")
        git(src, "commit", "-q", "-m", "v2")
        git(src, "push", "-q", str(served / "mono.git"), "main:main")
        for label, binary in (("before", a.before), ("after", a.after)):
            relay.reset()
            took = plugins(binary, ["update", "--all", "--yes"], homes[label])
            rows.append((label, "libgit2", "update --all (3 plugins)", relay.sent, relay.connections, took))
    finally:
        daemon.kill()
    print()
    print("| binary | fetch mode | command | bytes sent by the server | x own objects | connections | wall |")
    print("|---|---|---|---:|---:|---:|---:|")
    for label, mode, what, sent, conns, took in rows:
        print(f"| {label} | {mode} | {what} | {sent:,} | {sent / own:.2f}x | {conns} | {took:.2f} s |")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
