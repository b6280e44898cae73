#!/usr/bin/env python3
"""The CPU `plugins outdated` spends per remote, at 200 and at 1,000 remotes, on loopback.

    python3 bench/check_cpu.py --binary OLD --binary NEW [--n 200,1000] [--runs 5] [--scheme http]

N small repositories (a branch and 20 tags each, `bench/outdated.py`'s) are served on 127.0.0.1
(`--scheme http`: `bench/latency.py`'s keep-alive smart-HTTP server, ref lists cached as a forge
serves them; `--scheme git`: `git daemon`) and locked at `v1.0.0` in one home per N (rows written
directly: `write_lock`), so every row is newer (`v1.19.0`). Then every binary runs `outdated --json` over each home,
interleaved, and the CPU of the `plugins` process (user + system, from `wait4`) and its wall
time are taken; medians of `--runs`. No round trip is added: the server answers at once, so
what is left is `plugins`' own work (and the server's, on the same cores: read the CPU column).
Prints a markdown table with the CPU per remote and the load average.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, free_port, git_daemon  # noqa: E402
from latency import Backend, Server  # noqa: E402
from outdated import make_repo  # noqa: E402


def write_lock(home: Path, served: Path, base: str, n: int) -> None:
    """An aoe home locking N plugins at `v1.0.0`, its rows written as `install` writes them
    (installing 1,000 plugins one process at a time takes minutes). `outdated` reads the
    source, ref and commit of a row; the hashes are one plugin's, copied (never read here)."""
    home.mkdir(parents=True)
    rows = ["lock_version = 2\n"]
    for i in range(n):
        commit = subprocess.run(["git", "-C", str(served / f"p{i}.git"), "rev-parse", "v1.0.0^{commit}"],
                                capture_output=True, text=True, check=True, env=ENV).stdout.strip()
        rows.append(f"""
[plugins."dev.bench.p{i}"]
installed_tree_hash = "sha256:{'e8' * 32}"
manifest_hash = "sha256:{'3f' * 32}"
ref_kind = "tag"
requested_ref = "v1.0.0"
resolved_commit = "{commit}"
source = "{base}/p{i}.git"
tree_hash = "sha256:{'e8' * 32}"
trust = "community"
version = "1.0.0"
""")
    (home / "plugins.lock").write_text("".join(rows))


def timed(cmd):
    """Wall seconds and CPU seconds (user + system) of one run of `cmd`; fails on an error."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", action="append", required=True)
    ap.add_argument("--n", default="200,1000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scheme", choices=["http", "git"], default="http")
    args = ap.parse_args()
    sizes = [int(n) for n in args.n.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        served = tmp / "served"
        for i in range(max(sizes)):
            make_repo(served / f"p{i}.git", i)
        if args.scheme == "http":
            Backend.root = str(served)
            port = free_port()
            server = Server(("127.0.0.1", port), Backend)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            base, daemon = f"http://127.0.0.1:{port}", None
        else:
            daemon, port = git_daemon(served)
            base = f"git://127.0.0.1:{port}"
        try:
            homes = {}
            for n in sizes:
                homes[n] = tmp / f"home{n}"
                write_lock(homes[n], served, base, n)
            samples = {(b, n): [] for b in args.binary for n in sizes}
            for _ in range(args.runs):
                for n in sizes:
                    for b in args.binary:
                        samples[(b, n)].append(timed([b, "outdated", "--json", "--home", str(homes[n])]))
        finally:
            if daemon:
                daemon.kill()
                daemon.wait()
    print(f"`outdated --json` over {args.scheme}:// on 127.0.0.1, medians of {args.runs}; "
          f"load average {os.getloadavg()[0]:.1f} at the end.\n")
    print("| binary | remotes | wall | CPU (user + sys) | CPU per remote |\n|---|---:|---:|---:|---:|")
    for b in args.binary:
        for n in sizes:
            wall = statistics.median(w for w, _ in samples[(b, n)])
            cpu = statistics.median(c for _, c in samples[(b, n)])
            print(f"| {b} | {n} | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms | {cpu / n * 1000:.2f} ms |")


if __name__ == "__main__":
    main()
