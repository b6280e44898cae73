#!/usr/bin/env python3
"""Is `validate` linear in the findings of one manifest? (issue 43)

    python3 bench/findings.py --binary target/release/plugins
    python3 bench/findings.py --binary /tmp/plugins-before --binary target/release/plugins --rounds 5

A hostile manifest can hold a hundred thousand unknown keys, each a finding that is labelled
on its bytes. For each dialect the script writes one manifest with N findings
(aoe: `kN = 1` lines, which the host's typed parse rejects, so every key is an error; AWorld,
which takes unknown keys silently: N numbers in `dependencies`, each a schema lint; protoAgent:
YAML, unknown-key lints) for each size, runs
`validate --format FORMAT` on it (every binary in turn in each round, interleaved) and prints
the medians, and `ratio`: the time per key at the largest size against the time per key at
the size below it, which is 1.0x for a linear command and grows with the size for a quadratic
one (the process's start, a few milliseconds, is in both).
"""
import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import ENV

FORMATS = ["human", "json"]


def write(root: Path, dialect: str, n: int) -> Path:
    """A plugin root of `dialect` with `n` unknown top-level keys in its manifest."""
    d = root / f"{dialect}-{n}"
    if dialect == "aoe":
        d.mkdir(parents=True)
        keys = "".join(f"k{i} = 1\n" for i in range(n))
        (d / "aoe-plugin.toml").write_text(
            'id = "dev.example.q"\nname = "Q"\nversion = "1.0.0"\napi_version = 6\n'
            f"{keys}\n[[commands]]\nid = \"hello\"\n")
    elif dialect == "aworld":
        (d / ".aworld-plugin").mkdir(parents=True)
        # The host accepts unknown keys silently; each number in `dependencies` (strings,
        # per plugin.schema.json) is a schema lint.
        doc = {"id": "q", "name": "q", "version": "1.0.0", "dependencies": list(range(n))}
        (d / ".aworld-plugin" / "plugin.json").write_text(json.dumps(doc, indent=1))
    else:
        d.mkdir(parents=True)
        keys = "".join(f"k{i}: 1\n" for i in range(n))
        (d / "protoagent.plugin.yaml").write_text(
            f"id: q\nname: Q\nversion: 1.0.0\ndescription: q\n{keys}")
    return d


def timed(binary: str, root: Path, fmt: str) -> float:
    start = time.perf_counter()
    subprocess.run([binary, "validate", "-p", str(root), "--format", fmt, "--color", "never"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", action="append", required=True)
    ap.add_argument("--sizes", default="4000,16000,64000")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        roots = {(d, n): write(Path(tmp), d, n) for d in ["aoe", "aworld", "protoagent"]
                 for n in sizes}
        times: dict = {}
        for _ in range(args.rounds):
            for (d, n), root in roots.items():
                for fmt in FORMATS:
                    for b in args.binary:
                        times.setdefault((b, d, fmt, n), []).append(timed(b, root, fmt))
        print(f"{'binary':<40} {'dialect':<11} {'format':<6} "
              + " ".join(f"{n:>9}" for n in sizes) + "    ratio")
        for b in args.binary:
            for d in ["aoe", "aworld", "protoagent"]:
                for fmt in FORMATS:
                    med = [statistics.median(times[(b, d, fmt, n)]) for n in sizes]
                    ratio = (med[-1] / sizes[-1]) / (med[-2] / sizes[-2])
                    print(f"{b[-40:]:<40} {d:<11} {fmt:<6} "
                          + " ".join(f"{m * 1000:>7.0f}ms" for m in med) + f"   {ratio:.2f}x")


if __name__ == "__main__":
    main()
