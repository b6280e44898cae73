#!/usr/bin/env python3
"""Benchmark `plugins install` against `git clone --depth 1` of the same repository.

    python3 bench/install.py        # builds release, prints a markdown table

The repository has 2,000 commits and about 5 MB of files (made with git fast-import).
Both tools fetch it over git:// from a `git-daemon` on 127.0.0.1 (where both fetch
shallow) and over file:// (where libgit2's local transport cannot fetch shallow, so
`plugins` fetches the full history). `plugins install` also validates, hashes the tree,
swaps the plugin into place and writes the lock. Medians of 7 runs.
"""
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from common import ENV, build_release, git_daemon, median_time

MANIFEST = 'id = "dev.example.bench"\nname = "Bench"\nversion = "1.0.0"\napi_version = 6\n\n[[commands]]\nid = "hello"\n'


def make_repo(path: Path) -> None:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    rng = random.Random(7)
    stream = []

    def blob(data: bytes) -> None:
        stream.append(b"data %d\n" % len(data) + data + b"\n")

    for n in range(2000):
        stream.append(b"commit refs/heads/main\n")
        stream.append(b"committer Bench <bench@example.invalid> %d +0000\n" % (1_700_000_000 + n))
        blob(b"commit %d" % n)
        if n == 0:
            stream.append(b"M 100644 inline aoe-plugin.toml\n")
            blob(MANIFEST.encode())
            for i in range(50):  # 50 x 100 KB of incompressible data = 5 MB
                stream.append(b"M 100644 inline assets/blob%02d.bin\n" % i)
                blob(rng.randbytes(100_000))
        stream.append(b"M 100644 inline CHANGELOG.md\n")
        blob(b"release %d\n" % n)
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=path, check=True, env=ENV)


def main():
    binary = build_release()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / "served"
        make_repo(base / "repo.git")
        daemon, port = git_daemon(base)
        try:
            rows = []
            for label, url in [("git:// (git-daemon, shallow for both)", f"git://127.0.0.1:{port}/repo.git"),
                               ("file://", f"file://{base / 'repo.git'}")]:
                def plugins_install():
                    home = tmp / "home"
                    shutil.rmtree(home, ignore_errors=True)
                    subprocess.run([binary, "install", url, "--yes", "--no-build", "--home", str(home)],
                                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)

                def git_clone():
                    dest = tmp / "clone"
                    shutil.rmtree(dest, ignore_errors=True)
                    subprocess.run(["git", "clone", "-q", "--depth", "1", url, str(dest)], check=True, env=ENV)

                t_plugins, t_git = median_time(plugins_install), median_time(git_clone)
                rows.append((label, t_plugins, t_git))
        finally:
            daemon.kill()
            daemon.wait()
    print("Repository: 2,000 commits, 50 x 100 KB files (5 MB), served from 127.0.0.1.\n")
    print("| transport | `plugins install` | `git clone --depth 1` | ratio |")
    print("|---|---|---|---|")
    for label, t_p, t_g in rows:
        print(f"| {label} | {t_p*1000:.0f} ms | {t_g*1000:.0f} ms | {t_p/t_g:.2f}x |")


if __name__ == "__main__":
    main()
