#!/usr/bin/env python3
"""Benchmark `plugins validate` and start-up, side by side with baselines, as ratios.

    python3 bench/validate.py            # builds release, prints a markdown report

Measures, pinned to one core (taskset -c 0) where available:
  1. one `plugins validate -r` process over the aoe corpus copied 25x (~1,000 plugin roots);
  2. the same files parsed (not validated) by Python's tomllib in one process, a lower bound
     for any script-based checker;
  3. one `plugins validate` process per plugin root, as a shell loop in CI would run it;
  4. `plugins --version` wall time against `/bin/true`.
Each figure is the median of several runs.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PLUGINS_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
COPIES = 25
PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []


def median_time(fn, runs):
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main():
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    binary = str(ROOT / "target" / "release" / "plugins")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i in range(COPIES):
            shutil.copytree(CORPUS / "aoe", work / f"aoe-{i:02}")
        manifests = sorted(work.rglob("aoe-plugin.toml"))
        roots = [m.parent for m in manifests]
        n = len(manifests)

        def one_process():
            r = subprocess.run(PIN + [binary, "validate", "-r", "--format", "json", "--path", str(work)],
                               stdout=subprocess.DEVNULL)
            assert r.returncode == 1, r.returncode  # the corpus holds invalid manifests

        tomllib_script = (
            "import sys, tomllib\n"
            "for p in sys.argv[1:]:\n"
            "    try:\n        tomllib.load(open(p, 'rb'))\n"
            "    except tomllib.TOMLDecodeError:\n        pass\n"
        )

        def python_parse():
            subprocess.run(PIN + [sys.executable, "-c", tomllib_script] + [str(m) for m in manifests], check=True)

        def per_root():
            for r in roots:
                subprocess.run(PIN + [binary, "validate", "-q", "--path", str(r)], stdout=subprocess.DEVNULL)

        t_one = median_time(one_process, 7)
        t_py = median_time(python_parse, 7)
        t_loop = median_time(per_root, 3)

    version_runs = 200

    def versions():
        for _ in range(version_runs):
            subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True)

    def trues():
        for _ in range(version_runs):
            subprocess.run(["/bin/true"], check=True)

    t_version = median_time(versions, 5) / version_runs
    t_true = median_time(trues, 5) / version_runs

    print(f"Corpus: {n} aoe manifests ({n // COPIES} x {COPIES} copies); pinned: {'yes' if PIN else 'no'}\n")
    print("| measurement | wall time | manifests/s | ratio |")
    print("|---|---|---|---|")
    print(f"| `plugins validate -r` (one process, full validation) | {t_one*1000:.1f} ms | {n/t_one:,.0f} | 1.00 |")
    print(f"| Python `tomllib` parse only (one process) | {t_py*1000:.1f} ms | {n/t_py:,.0f} | {t_py/t_one:.2f}x slower |")
    print(f"| `plugins validate` once per root (shell loop) | {t_loop*1000:.0f} ms | {n/t_loop:,.0f} | {t_loop/t_one:.1f}x slower |")
    print()
    print("| start-up | mean wall time | ratio |")
    print("|---|---|---|")
    print(f"| `plugins --version` | {t_version*1000:.2f} ms | {t_version/t_true:.2f}x `/bin/true` |")
    print(f"| `/bin/true` (process spawn floor) | {t_true*1000:.2f} ms | 1.00 |")


if __name__ == "__main__":
    main()
