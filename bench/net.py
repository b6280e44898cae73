#!/usr/bin/env python3
"""The network layer, two builds side by side: start-up, and `outdated` over many remotes on
127.0.0.1 over git:// (git-daemon) and smart HTTP (bench/smart_http.py: keep-alive, ref lists
from memory).

    python3 bench/net.py --before OLD_BINARY --after NEW_BINARY [--n 200] [--rounds 7]

Rounds are interleaved (each round runs every command once, in turn) and medians reported:
on a shared machine absolute times drift, the ratios measured in the same rounds are the point.
Start-up is `perf stat -r 200` task-clock (CPU time per process) when perf works, else wall time.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, free_port, git_daemon
from outdated import make_repo  # the same repositories as bench/outdated.py


def task_clock_ms(cmd) -> float:
    """CPU time per run of `cmd` (ms), from `perf stat -r 200`; wall time if perf fails."""
    r = subprocess.run(["perf", "stat", "-r", "200", "-x", ",", "-e", "task-clock", *cmd],
                       capture_output=True, text=True)
    for line in r.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("task-clock"):
            return float(fields[0])
    start = time.perf_counter()
    for _ in range(200):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) / 200 * 1000


def wall(cmd) -> float:
    start = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    took = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {r.stderr.decode()[-2000:]}")
    return took


def links_openssl(binary: str) -> bool:
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return "libssl" in out or "libcrypto" in out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.after}

    print("## Start-up (`--version`, CPU ms per process, perf stat -r 200)\n")
    startup = {k: [] for k in [*builds, "/bin/true"]}
    for _ in range(3):
        for name, binary in builds.items():
            startup[name].append(task_clock_ms([binary, "--version"]))
        startup["/bin/true"].append(task_clock_ms(["/bin/true"]))
    true_ms = statistics.median(startup["/bin/true"])
    print("| binary | links OpenSSL | --version | ratio to /bin/true |\n|---|---|---:|---:|")
    for name, binary in builds.items():
        ms = statistics.median(startup[name])
        print(f"| {name} | {'yes' if links_openssl(binary) else 'no'} | {ms:.2f} ms | {ms / true_ms:.1f}x |")
    print(f"| /bin/true | | {true_ms:.2f} ms | 1.0x |")
    b, a = statistics.median(startup["before"]), statistics.median(startup["after"])
    print(f"\nafter / before: {a / b:.2f}\n")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        served, home = tmp / "served", tmp / "home"
        for i in range(args.n):
            make_repo(served / f"p{i}.git", i)
        daemon, port = git_daemon(served)
        http_port = free_port()
        server = subprocess.Popen([sys.executable, str(Path(__file__).with_name("smart_http.py")), str(served),
                                   str(http_port)], env=ENV)
        time.sleep(0.5)
        try:
            for i in range(args.n):
                subprocess.run([args.after, "install", f"git://127.0.0.1:{port}/p{i}.git", "--ref", "v1.0.0",
                                "--yes", "--home", str(home)],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
            http_home = tmp / "http-home"
            subprocess.run(["cp", "-a", str(home), str(http_home)], check=True)
            lock = http_home / "plugins.lock"
            lock.write_text(lock.read_text().replace(f"git://127.0.0.1:{port}/", f"http://127.0.0.1:{http_port}/"))
            cases = []
            for transport, h in [("git://", home), ("http://", http_home)]:
                for jobs in [None, "8"]:
                    for name, binary in builds.items():
                        cmd = [binary, "outdated", "--json", "--home", str(h)]
                        if jobs:
                            cmd[3:3] = ["--jobs", jobs]
                        cases.append(((transport, jobs or "default", name), cmd))
            # Install of one small plugin over http://, and the shallow clone of it.
            url = f"http://127.0.0.1:{http_port}/p0.git"
            for name, binary in builds.items():
                cases.append((("install", "", name), ["sh", "-c", f'h=$(mktemp -d) && "{binary}" install {url} '
                                                      f'--ref v1.0.0 --yes --home "$h" && rm -rf "$h"']))
            cases.append((("install", "", "git clone --depth 1"),
                          ["sh", "-c", f'd=$(mktemp -d) && git clone -q --depth 1 {url} "$d/c" && rm -rf "$d"']))
            samples = {key: [] for key, _ in cases}
            for key, cmd in cases:  # warm-up
                wall(cmd)
            for _ in range(args.rounds):
                for key, cmd in cases:
                    samples[key].append(wall(cmd))
        finally:
            daemon.kill()
            server.kill()
            daemon.wait()
            server.wait()
    print(f"## `outdated` over {args.n} remotes on 127.0.0.1 (wall ms, median of {args.rounds} interleaved rounds)\n")
    print("| transport | jobs | before | after | after / before |\n|---|---|---:|---:|---:|")
    for transport in ["git://", "http://"]:
        for jobs in ["default", "8"]:
            b = statistics.median(samples[(transport, jobs, "before")]) * 1000
            a = statistics.median(samples[(transport, jobs, "after")]) * 1000
            print(f"| {transport} | {jobs} | {b:.0f} ms | {a:.0f} ms | {a / b:.2f} |")
    print(f"\n## `install` of one small plugin over http:// (wall ms, median of {args.rounds})\n")
    clone = statistics.median(samples[("install", "", "git clone --depth 1")]) * 1000
    print("| command | wall time | ratio to the clone |\n|---|---:|---:|")
    for name in [*builds, "git clone --depth 1"]:
        ms = statistics.median(samples[("install", "", name)]) * 1000
        print(f"| {name} | {ms:.0f} ms | {ms / clone:.2f} |")


if __name__ == "__main__":
    main()
