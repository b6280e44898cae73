#!/usr/bin/env python3
"""Benchmark `plugins validate` and start-up, side by side with baselines, as ratios.

    python3 bench/validate.py            # builds release, prints a markdown report

Measures, pinned to one core (taskset -c 0) where available:
  1. per dialect, one `plugins validate -r` process over that corpus copied 25x, against
     the same files merely parsed by the host's own Python parser (tomllib for aoe,
     json for AWorld, PyYAML safe_load for protoAgent) in one process;
  2. all three corpora x25 in one `plugins validate -r` run;
  3. one `plugins validate` process per aoe plugin root, as a shell loop in CI would;
  4. `plugins --version` wall time against `/bin/true`.
Each figure is the median of several runs.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import ROOT, build_release, median_time

CORPUS = Path(os.environ.get("PLUGINS_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
COPIES = 25
PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []
DIALECTS = {
    # dialect: (manifest glob, Python parse-only baseline)
    "aoe": ("aoe-plugin.toml", "import tomllib\nparse = lambda p: tomllib.load(open(p, 'rb'))"),
    "aworld": ("plugin.json", "import json\nparse = lambda p: json.load(open(p, encoding='utf-8'))"),
    "protoagent": ("protoagent.plugin.yaml", "import yaml\nparse = lambda p: yaml.safe_load(open(p, encoding='utf-8'))"),
}
PARSE_LOOP = "\nimport sys\nfor p in sys.argv[1:]:\n    try:\n        parse(p)\n    except Exception:\n        pass\n"


def validate_all(binary, path):
    subprocess.run(PIN + [binary, "validate", "-r", "--format", "json", "--path", str(path)],
                   stdout=subprocess.DEVNULL, check=False)


def main():
    binary = build_release()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        total = 0
        for dialect, (name, parser) in DIALECTS.items():
            base = work / dialect
            for i in range(COPIES):
                shutil.copytree(CORPUS / dialect, base / f"copy-{i:02}", ignore=shutil.ignore_patterns("locks"))
            manifests = sorted(str(m) for m in base.rglob(name))
            n = len(manifests)
            total += n
            t_plugins = median_time(lambda: validate_all(binary, base), 7)
            t_python = median_time(lambda: subprocess.run(PIN + [sys.executable, "-c", parser + PARSE_LOOP] + manifests, check=True), 7)
            rows.append((dialect, n, t_plugins, t_python))
        t_all = median_time(lambda: validate_all(binary, work), 5)
        roots = sorted(m.parent for m in (work / "aoe").rglob("aoe-plugin.toml"))

        def per_root():
            for r in roots:
                subprocess.run(PIN + [binary, "validate", "-q", "--path", str(r)], stdout=subprocess.DEVNULL)

        t_loop = median_time(per_root, 3)

    runs = 200
    t_version = median_time(lambda: [subprocess.run([binary, "--version"], stdout=subprocess.DEVNULL, check=True) for _ in range(runs)], 5) / runs
    t_true = median_time(lambda: [subprocess.run(["/bin/true"], check=True) for _ in range(runs)], 5) / runs

    print(f"Corpora x{COPIES}; pinned to one core: {'yes' if PIN else 'no'}\n")
    print("| dialect | manifests | `plugins validate -r` | manifests/s | host parser only (Python) | ratio |")
    print("|---|---|---|---|---|---|")
    for dialect, n, t_p, t_py in rows:
        print(f"| {dialect} | {n} | {t_p*1000:.1f} ms | {n/t_p:,.0f} | {t_py*1000:.1f} ms | {t_py/t_p:.2f}x slower |")
    print(f"| all three, one run | {total} | {t_all*1000:.1f} ms | {total/t_all:,.0f} | | |")
    n_aoe = rows[0][1]
    print(f"\nOne process per aoe root (shell loop): {t_loop*1000:.0f} ms for {n_aoe} roots, "
          f"{t_loop/rows[0][2]:.1f}x slower than one `-r` run.\n")
    print("| start-up | mean wall time | ratio |")
    print("|---|---|---|")
    print(f"| `plugins --version` | {t_version*1000:.2f} ms | {t_version/t_true:.2f}x `/bin/true` |")
    print(f"| `/bin/true` (process spawn floor) | {t_true*1000:.2f} ms | 1.00 |")


if __name__ == "__main__":
    main()
