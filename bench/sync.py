#!/usr/bin/env python3
"""Benchmark `plugins sync` of N locked plugins against `xargs -P8 git clone --depth 1`.

    python3 bench/sync.py              # builds release, 20 plugins, prints a markdown table
    python3 bench/sync.py --debug      # the debug binary (no release build), same table
    python3 bench/sync.py --n 8 --runs 3

N repositories, each with 200 commits of history (made with git fast-import), are served by
a `git-daemon` on 127.0.0.1, twice: one base path whose repositories allow wanting a commit
by id (`uploadpack.allowReachableSHA1InWant`, as GitHub does) and one that does not (git's
default: `plugins` then fetches every branch and tag in full). A lock of the N plugins is
made once by `plugins install`; each run syncs it into an empty home. The baseline clones
the same N URLs shallow, 8 at a time. All in one run, medians of `--runs` (default 5).
There is no added latency here (loopback); see docs/PERFORMANCE.md for what that changes.
"""
import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from common import ENV, ROOT, build_release, git_daemon, median_time


def make_repo(path: Path, i: int, commits: int = 200) -> None:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    manifest = (f'id = "dev.bench.s{i}"\nname = "S{i}"\nversion = "1.0.0"\napi_version = 6\n\n'
                '[[commands]]\nid = "hello"\n').encode()
    stream = []
    for c in range(commits):
        stream.append(b"commit refs/heads/main\ncommitter B <b@example.invalid> %d +0000\ndata 4\nc%02d\n"
                      % (1700000000 + c, c % 100))
        if c == 0:
            stream.append(b"M 100644 inline aoe-plugin.toml\ndata %d\n" % len(manifest) + manifest + b"\n")
        body = (b"line %d of commit %d\n" % (c, c)) * 200
        stream.append(b"M 100644 inline src/f%d.txt\ndata %d\n" % (c % 20, len(body)) + body + b"\n")
    stream.append(b"reset refs/tags/v1.0.0\nfrom refs/heads/main\n")
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=path, check=True, env=ENV)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--debug", action="store_true", help="use target/debug/plugins (built if missing)")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if a.debug:
        subprocess.run(["cargo", "build", "--locked", "-q"], cwd=ROOT, check=True)
        binary = str(ROOT / "target" / "debug" / "plugins")
    else:
        binary = build_release()
    n = a.n
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        allow, plain = tmp / "allow", tmp / "plain"
        for i in range(n):
            make_repo(allow / f"s{i}.git", i)
            subprocess.run(["git", "config", "uploadpack.allowReachableSHA1InWant", "true"],
                           cwd=allow / f"s{i}.git", check=True, env=ENV)
        shutil.copytree(allow, plain)
        for i in range(n):
            subprocess.run(["git", "config", "--unset", "uploadpack.allowReachableSHA1InWant"],
                           cwd=plain / f"s{i}.git", check=True, env=ENV)
        d_allow, p_allow = git_daemon(allow)
        d_plain, p_plain = git_daemon(plain)
        try:
            locks = {}
            for name, port in (("allow", p_allow), ("plain", p_plain)):
                home = tmp / f"lock-{name}"
                for i in range(n):
                    subprocess.run([binary, "install", f"git://127.0.0.1:{port}/s{i}.git", "--ref", "v1.0.0",
                                    "--yes", "--home", str(home)],
                                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
                locks[name] = home / "plugins.lock"

            def sync(name, jobs):
                home = tmp / "sync-home"
                shutil.rmtree(home, ignore_errors=True)
                home.mkdir()
                shutil.copy(locks[name], home / "plugins.lock")
                subprocess.run([binary, "sync", "--yes", "--jobs", str(jobs), "--home", str(home)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)

            def clones():
                out = tmp / "clones"
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                urls = "\n".join(f"git://127.0.0.1:{p_allow}/s{i}.git" for i in range(n))
                subprocess.run(["sh", "-c", 'xargs -P8 -I{} sh -c \'git clone -q --depth 1 "$1" "$(mktemp -d -p .)"\' _ {}'],
                               input=urls.encode(), cwd=out, check=True, env=ENV)

            t_clone = median_time(clones, a.runs)
            rows = [
                ("`plugins sync` (8 jobs), server allows a commit by id", median_time(lambda: sync("allow", 8), a.runs)),
                ("`plugins sync --jobs 1`, server allows a commit by id", median_time(lambda: sync("allow", 1), a.runs)),
                ("`plugins sync` (8 jobs), server refuses a commit by id", median_time(lambda: sync("plain", 8), a.runs)),
                ("`plugins sync --jobs 1`, server refuses a commit by id", median_time(lambda: sync("plain", 1), a.runs)),
            ]
        finally:
            for d in (d_allow, d_plain):
                d.kill()
                d.wait()
    build = "debug" if a.debug else "release"
    print(f"{n} locked plugins, each 200 commits deep, git-daemon on 127.0.0.1, {build} build, medians of {a.runs}.\n")
    print("| command | wall time | ratio to the clones |")
    print("|---|---|---|")
    print(f"| `xargs -P8 git clone --depth 1` | {t_clone*1000:.0f} ms | 1.00 |")
    for label, t in rows:
        print(f"| {label} | {t*1000:.0f} ms | {t/t_clone:.2f}x |")


if __name__ == "__main__":
    main()
