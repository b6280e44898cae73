"""Shared pieces of the benchmark scripts: paths, a clean git environment, timing."""
import os
import socket
import statistics
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# git without the user's or the system's configuration.
ENV = dict(os.environ, GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")


def build_release() -> str:
    """Build `plugins` in release mode and return the binary's path."""
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "release" / "plugins")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median_time(fn, runs=7):
    """Median wall time of `runs` calls of `fn`, in seconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def git_daemon(base: Path):
    """Serve every repository under `base` over git:// on 127.0.0.1; returns (process, port)."""
    port = free_port()
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    daemon = subprocess.Popen(
        [os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", "--listen=127.0.0.1",
         f"--port={port}", f"--base-path={base}", str(base)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return daemon, port
