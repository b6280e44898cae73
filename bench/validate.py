#!/usr/bin/env python3
"""Benchmark `plugins validate` and start-up, side by side with their floors, as ratios.

    python3 bench/validate.py                       # builds release, prints a markdown report
    python3 bench/validate.py --before /tmp/plugins-before   # adds a before/after column

Everything is measured in one run, interleaved (each round runs every command once, in
turn), pinned to one core (taskset -c 0) where available; figures are medians:
  1. per dialect, one `plugins validate -r --format json` process over that corpus copied
     25x (and the same with `--format human`, against the JSON run), against the floor (`examples/validate_floor.rs`: find the same manifests, read
     them and parse each once into a generic value with the same crates, nothing else: no
     hashing, no schema) and against the
     same files merely parsed by the host's own Python parser (tomllib for aoe, json for
     AWorld, PyYAML safe_load for protoAgent) in one process;
  2. all three corpora x25 in one `plugins validate -r` run;
  3. one `plugins validate` process per plugin root, as a shell loop in CI would (and one
     floor process per root beside it);
  4. `plugins --version` and `--help` wall time against `/bin/true`;
  5. peak memory (maximum RSS, /usr/bin/time -v) of `validate -r` at about 1,000 and
     10,000 roots, per output format.
With --before, the older binary is run in the same rounds and its output for every format
is compared byte for byte with the new one's. With --instructions, each `-r` run of (1) and
the floor is also counted once under valgrind's callgrind: instructions executed, which do
not drift with the machine's load as times do (valgrind's CPU has no SHA extensions, so
SHA-256 runs in software there, for the floor and for `plugins` alike).
Every binary, the floor included, is copied first and the copies are run (see bench/root.py).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT

CORPUS = Path(os.environ.get("PLUGINS_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
COPIES = 25
PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []
DIALECTS = {
    # dialect: (manifest path, Python parse-only baseline)
    "aoe": ("aoe-plugin.toml", "import tomllib\nparse = lambda p: tomllib.load(open(p, 'rb'))"),
    "aworld": (".aworld-plugin/plugin.json", "import json\nparse = lambda p: json.load(open(p, encoding='utf-8'))"),
    "protoagent": ("protoagent.plugin.yaml", "import yaml\nparse = lambda p: yaml.safe_load(open(p, encoding='utf-8'))"),
}
PARSE_LOOP = "\nimport sys\nfor p in sys.argv[1:]:\n    try:\n        parse(p)\n    except Exception:\n        pass\n"
FORMATS = ["human", "json", "github", "sarif"]


def build() -> tuple[str, str]:
    """Build `plugins` and the floor in release mode; return both paths."""
    subprocess.run(["nice", "-n", "19", "cargo", "build", "--release", "--locked", "-q",
                    "--bin", "plugins", "--example", "validate_floor"], cwd=ROOT, check=True)
    release = ROOT / "target" / "release"
    return str(release / "plugins"), str(release / "examples" / "validate_floor")


def run(cmd, pin=True):
    subprocess.run((PIN if pin else []) + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)


def interleaved(commands: dict, rounds: int) -> dict:
    """Median wall time of each named callable, run in turn `rounds` times."""
    samples = {name: [] for name in commands}
    names = list(commands)
    for i in range(rounds):
        # Rotate the order so no command always runs right after another.
        for name in names[i % len(names):] + names[:i % len(names)]:
            start = time.perf_counter()
            commands[name]()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(s) for name, s in samples.items()}


def copy_corpus(dest: Path, dialect: str, copies: int):
    for i in range(copies):
        shutil.copytree(CORPUS / dialect, dest / f"copy-{i:03}", ignore=shutil.ignore_patterns("locks"),
                        symlinks=True)


def peak_rss_kib(cmd) -> int:
    out = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=False).stderr
    return int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out).group(1))


def instructions(cmd) -> int:
    """Instructions `cmd` executes (valgrind's callgrind, one run)."""
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False).stderr
    return int(re.search(r"Collected : (\d+)", out).group(1))


def ms(t):
    return f"{t * 1000:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", help="the plugins binary to measure (default: build release)")
    ap.add_argument("--floor", help="the validate_floor binary (default: build release)")
    ap.add_argument("--before", help="an older plugins binary to measure side by side")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--instructions", action="store_true",
                    help="also count each -r run's instructions under valgrind (deterministic)")
    args = ap.parse_args()
    if args.binary and args.floor:
        binary, floor = args.binary, args.floor
    else:
        binary, floor = build()
        binary, floor = args.binary or binary, args.floor or floor
    bins = {"after": binary}
    if args.before:
        bins = {"before": args.before, "after": binary}
    label = "plugins" if len(bins) == 1 else None

    def validate(b, path, fmt="json", extra=()):
        return lambda: run([b, "validate", "-r", "--format", fmt, *extra, "--path", str(path)])

    # Fresh copies are spawned, as bench/root.py does: a binary whose file was partly
    # evicted from the page cache maps fewer of its pages per fault, which moved its peak
    # RSS by up to 0.8 MiB against a just-built one (and its start-up time with it).
    bindir = tempfile.TemporaryDirectory()
    bins = {k: str(shutil.copy2(os.path.abspath(b), Path(bindir.name) / f"plugins-{k}"))
            for k, b in bins.items()}
    floor = str(shutil.copy2(os.path.abspath(floor), Path(bindir.name) / "validate_floor"))

    rows, identical, counts = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "x25"
        total = 0
        for dialect, (name, parser) in DIALECTS.items():
            base = work / dialect
            copy_corpus(base, dialect, COPIES)
            manifests = sorted(str(m) for m in base.rglob(name.split("/")[-1]) if str(m).endswith(name))
            n = len(manifests)
            total += n
            commands = {k: validate(b, base) for k, b in bins.items()}
            commands |= {f"{k} human": validate(b, base, "human") for k, b in bins.items()}
            commands["floor"] = lambda base=base, dialect=dialect: run([floor, dialect, str(base)])
            commands["python"] = lambda parser=parser, manifests=manifests: run(
                [sys.executable, "-c", parser + PARSE_LOOP] + manifests)
            rows.append((dialect, n, interleaved(commands, args.rounds)))
            if args.instructions:
                counted = {"floor": instructions([floor, dialect, str(base)])}
                for k, b in bins.items():
                    for fmt in ("json", "human"):
                        counted[f"{k} {fmt}"] = instructions(
                            [b, "validate", "-r", "--format", fmt, "--path", str(base)])
                counts.append((dialect, counted))
        t_all = interleaved({k: validate(b, work) for k, b in bins.items()}, max(3, args.rounds // 2))

        # The same output, byte for byte, from the old and the new binary.
        if args.before:
            env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
            for fmt in FORMATS:
                outs = [subprocess.run([b, "validate", "-r", "--format", fmt, "--path", str(work)],
                                       capture_output=True, cwd=tmp, env=env)
                        for b in bins.values()]
                same = outs[0].stdout == outs[1].stdout and outs[0].returncode == outs[1].returncode
                identical.append((fmt, len(outs[1].stdout), same))

        # One process per root, for a sample of each dialect's roots.
        per_root = {}
        for dialect, (name, _) in DIALECTS.items():
            roots = sorted({Path(str(m)[: -len(name) - 1]) for m in (work / dialect / "copy-000").rglob(name.split("/")[-1])
                            if str(m).endswith(name)})

            def loop(b, roots=roots):
                return lambda: [run([b, "validate", "-q", "--path", str(r)]) for r in roots]

            looped = {k: loop(b) for k, b in bins.items()}
            looped["floor"] = lambda roots=roots, dialect=dialect: [run([floor, dialect, str(r)]) for r in roots]
            t = interleaved(looped, 5)
            per_root[dialect] = (len(roots), {k: v / len(roots) for k, v in t.items()})

        # Peak memory at about 1,000 and 10,000 roots (all three corpora, copied).
        per_copy = sum(1 for d, (name, _) in DIALECTS.items()
                       for m in (CORPUS / d).rglob(name.split("/")[-1]) if str(m).endswith(name)
                       and "locks" not in m.parts)
        memory = []
        for target in (1_000, 10_000):
            copies = -(-target // per_copy)
            mem = Path(tmp) / f"mem{target}"
            for dialect in DIALECTS:
                copy_corpus(mem / dialect, dialect, copies)
            for fmt in FORMATS:
                rss = {k: peak_rss_kib([b, "validate", "-r", "--format", fmt, "--path", str(mem)])
                       for k, b in bins.items()}
                memory.append((copies * per_copy, fmt, rss))
            shutil.rmtree(mem)

    runs = 100

    def spawn_loop(cmd):
        return lambda: [subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True) for _ in range(runs)]

    startup = {f"{k} --version": spawn_loop([b, "--version"]) for k, b in bins.items()}
    startup |= {f"{k} --help": spawn_loop([b, "--help"]) for k, b in bins.items()}
    startup["/bin/true"] = spawn_loop(["/bin/true"])
    t_start = {k: v / runs for k, v in interleaved(startup, 7).items()}

    cols = list(bins)
    print(f"Corpora x{COPIES}; pinned to one core: {'yes' if PIN else 'no'}; medians of {args.rounds} interleaved rounds\n")
    head = " | ".join(f"`{label or k}` | {label or k} / floor" for k in cols)
    print(f"| dialect | manifests | floor | {head} | host parser only (Python) | Python / {cols[-1]} |")
    print("|---|---:|---:|" + "---:|---:|" * len(cols) + "---:|---:|")
    for dialect, n, t in rows:
        cells = " | ".join(f"{ms(t[k])} | {t[k] / t['floor']:.2f}x" for k in cols)
        print(f"| {dialect} | {n} | {ms(t['floor'])} | {cells} | {ms(t['python'])} | {t['python'] / t[cols[-1]]:.2f}x |")
    cells = " | ".join(f"{ms(t_all[k])} | " for k in cols)
    print(f"| all three, one run | {total} | | {cells} | |")

    print("\nThe human renderer against the JSON one, same runs (`--format human` / `--format json`):\n")
    print("| dialect | " + " | ".join(f"{label or k} human | {label or k} human / json" for k in cols) + " |")
    print("|---|" + "---:|---:|" * len(cols))
    for dialect, n, t in rows:
        cells = " | ".join(f"{ms(t[k + ' human'])} | {t[k + ' human'] / t[k]:.2f}x" for k in cols)
        print(f"| {dialect} | {cells} |")

    if counts:
        print("\nInstructions executed (callgrind, one run each), `-r --format json` against the floor and"
              " `--format human` against `--format json`:\n")
        print("| dialect | floor | " + " | ".join(
            f"{label or k} json | / floor | {label or k} human | human / json" for k in cols) + " |")
        print("|---|---:|" + "---:|---:|---:|---:|" * len(cols))
        for dialect, c in counts:
            cells = " | ".join(
                f"{c[k + ' json'] / 1e6:.1f} M | {c[k + ' json'] / c['floor']:.2f}x | "
                f"{c[k + ' human'] / 1e6:.1f} M | {c[k + ' human'] / c[k + ' json']:.2f}x" for k in cols)
            print(f"| {dialect} | {c['floor'] / 1e6:.1f} M | {cells} |")

    if identical:
        print("\nOutput of `validate -r` over the three corpora x25, before and after:\n")
        print("| format | bytes | identical |")
        print("|---|---:|---|")
        for fmt, size, same in identical:
            print(f"| {fmt} | {size:,} | {'yes' if same else 'NO'} |")

    print("\nOne `plugins validate -q --path ROOT` process per root (mean per root):\n")
    print("| dialect | roots | floor | " + " | ".join(label or k for k in cols) + " |")
    print("|---|---:|---:|" + "---:|" * len(cols))
    for dialect, (n, t) in per_root.items():
        print(f"| {dialect} | {n} | {t['floor'] * 1000:.2f} ms | "
              + " | ".join(f"{t[k] * 1000:.2f} ms" for k in cols) + " |")

    print("\n| start-up | mean wall time | ratio to `/bin/true` |")
    print("|---|---:|---:|")
    for name, t in t_start.items():
        shown = name if label is None else name.replace("after", "plugins")
        print(f"| `{shown}` | {t * 1000:.2f} ms | {t / t_start['/bin/true']:.2f}x |")

    print("\nPeak memory of `plugins validate -r` (maximum RSS):\n")
    print("| roots | format | " + " | ".join(label or k for k in cols) + " |")
    print("|---:|---|" + "---:|" * len(cols))
    for n, fmt, rss in memory:
        print(f"| {n:,} | {fmt} | " + " | ".join(f"{rss[k] / 1024:.1f} MiB" for k in cols) + " |")


if __name__ == "__main__":
    main()
