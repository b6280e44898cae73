#!/usr/bin/env python3
"""Benchmark `plugins outdated` over 50 locked plugins against a shell loop of `git ls-remote`.

    python3 bench/outdated.py           # builds release, prints a markdown table
    python3 bench/outdated.py --debug   # the debug binary (no release build)

50 small repositories (a branch and 20 tags each) are served by a `git-daemon` on 127.0.0.1
and installed into one home. Then, in one run: `plugins outdated` (default 8 jobs) versus
`for url in ...; do git ls-remote "$url"; done`, which is what a script without `plugins`
does. The default is 64 jobs, at most 4 per `git://` server; `--jobs 8` is the old default,
which overflowed git-daemon's accept queue before the per-server cap. Medians of 7 runs.
"""
import argparse
import subprocess
import tempfile
from pathlib import Path

from common import ENV, ROOT, build_release, git_daemon, median_time

N = 50


def make_repo(path: Path, i: int) -> None:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    manifest = f'id = "dev.bench.p{i}"\nname = "P{i}"\nversion = "1.0.0"\napi_version = 6\n\n[[commands]]\nid = "hello"\n'
    stream = [b"commit refs/heads/main\ncommitter B <b@example.invalid> 1700000000 +0000\ndata 3\none\n",
              b"M 100644 inline aoe-plugin.toml\n", b"data %d\n" % len(manifest) + manifest.encode() + b"\n"]
    for t in range(20):
        stream.append(b"reset refs/tags/v1.%d.0\nfrom refs/heads/main\n" % t)
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=path, check=True, env=ENV)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--debug", action="store_true", help="use target/debug/plugins (built if missing)")
    ap.add_argument("--binary", help="measure this plugins binary (an older build, to compare)")
    args = ap.parse_args()
    if args.binary:
        binary = args.binary
    elif args.debug:
        subprocess.run(["cargo", "build", "--locked", "-q"], cwd=ROOT, check=True)
        binary = str(ROOT / "target" / "debug" / "plugins")
    else:
        binary = build_release()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        served, home = tmp / "served", tmp / "home"
        for i in range(N):
            make_repo(served / f"p{i}.git", i)
        daemon, port = git_daemon(served)
        try:
            urls = [f"git://127.0.0.1:{port}/p{i}.git" for i in range(N)]
            for url in urls:
                subprocess.run([binary, "install", url, "--ref", "v1.0.0", "--yes", "--home", str(home)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
            t_plugins = median_time(lambda: subprocess.run([binary, "outdated", "--json", "--home", str(home)],
                                                           stdout=subprocess.DEVNULL, check=True, env=ENV))
            loop = "for u in " + " ".join(urls) + '; do git ls-remote "$u" >/dev/null; done'
            t_loop = median_time(lambda: subprocess.run(["sh", "-c", loop], check=True, env=ENV))
            t_serial = median_time(lambda: subprocess.run([binary, "outdated", "--json", "--jobs", "1", "--home", str(home)],
                                                          stdout=subprocess.DEVNULL, check=True, env=ENV))
            t_four = median_time(lambda: subprocess.run([binary, "outdated", "--json", "--jobs", "4", "--home", str(home)],
                                                        stdout=subprocess.DEVNULL, check=True, env=ENV))
            t_eight = median_time(lambda: subprocess.run([binary, "outdated", "--json", "--jobs", "8", "--home", str(home)],
                                                         stdout=subprocess.DEVNULL, check=True, env=ENV))
        finally:
            daemon.kill()
            daemon.wait()
    print(f"{N} locked plugins, each a repository with 20 tags, served by git-daemon on 127.0.0.1.\n")
    print("| command | wall time | ratio to the loop |")
    print("|---|---|---|")
    print(f"| shell loop of `git ls-remote` | {t_loop*1000:.0f} ms | 1.00 |")
    print(f"| `plugins outdated` (default: 64 jobs, 4 per server) | {t_plugins*1000:.0f} ms | {t_loop/t_plugins:.1f}x faster |")
    print(f"| `plugins outdated --jobs 8` | {t_eight*1000:.0f} ms | {t_loop/t_eight:.1f}x faster |")
    print(f"| `plugins outdated --jobs 4` | {t_four*1000:.0f} ms | {t_loop/t_four:.1f}x faster |")
    print(f"| `plugins outdated --jobs 1` | {t_serial*1000:.0f} ms | {t_loop/t_serial:.1f}x faster |")


if __name__ == "__main__":
    main()
