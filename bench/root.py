#!/usr/bin/env python3
"""One `plugins validate --path ROOT` process against its spawn+read+parse floor, as ratios.

    python3 bench/root.py --binary target/release/plugins --floor target/release/examples/root_floor
    python3 bench/root.py --binary OLD --binary NEW --floor FLOOR --spawns 300

The floor is `examples/root_floor.rs` (build it with `cargo build --release --example
root_floor`): a process that starts, reads ROOT's manifest and parses it once into a generic
value with the crates `plugins` uses, and prints its key count. No spans, no host rules, no
schema, no hashing, no report.

The roots are written by the first binary's `plugins new` (one per dialect), plus the same
with one error each: aoe `name = 5` (the host's typed parse rejects it), AWorld `version = 3`
and an unknown `activation_scope` (schema lints), protoAgent without `name`. Each command is
spawned `--spawns` times, interleaved (every round spawns every command once, in an order
shuffled anew each round from a fixed seed), with `os.posix_spawn` and `waitpid`: the parent's own cost is the same small part of
every figure. Figures are medians of wall time per spawn, and each ratio is against the floor
spawned in the same rounds on the same root. Load average is printed before and after: figures
taken above about 1.5 on this 2-core machine are not worth comparing.

Every binary, the floor included, is copied into the scratch directory and the copies are
spawned: a binary whose file was partly evicted from the page cache and read back measured up
to 0.2 ms slower per spawn than a fresh copy of the same bytes (more page faults on the same
pages), which made an older build look slower than it is.
"""
import argparse
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

MANIFEST = {
    "aoe": "aoe-plugin.toml",
    "aworld": ".aworld-plugin/plugin.json",
    "protoagent": "protoagent.plugin.yaml",
}


def break_manifest(dialect: str, root: Path) -> None:
    path = root / MANIFEST[dialect]
    text = path.read_text()
    if dialect == "aoe":
        lines = [("name = 5" if line.startswith("name =") else line) for line in text.splitlines()]
        text = "\n".join(lines) + "\n"
    elif dialect == "aworld":
        text = text.replace('"version": "0.1.0"', '"version": 3, "activation_scope": "x"')
    else:
        text = "\n".join(line for line in text.splitlines() if not line.startswith("name:")) + "\n"
    path.write_text(text)


def make_roots(binary: str, base: Path) -> dict:
    roots = {}
    for dialect in MANIFEST:
        for kind in ("valid", "invalid"):
            root = base / f"{dialect}-{kind}"
            subprocess.run([binary, "new", "bench", "--dialect", dialect, "--dir", str(root),
                            "--yes", "--no-git"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if kind == "invalid":
                break_manifest(dialect, root)
            roots[f"{dialect}, {kind}"] = root
    return roots


def spawn(argv: list) -> float:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                           (os.POSIX_SPAWN_DUP2, devnull, 2)])
        os.waitpid(pid, 0)
        return time.perf_counter() - start
    finally:
        os.close(devnull)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", action="append", required=True, help="a plugins binary (repeatable)")
    p.add_argument("--floor", required=True, help="examples/root_floor, release build")
    p.add_argument("--spawns", type=int, default=300)
    args = p.parse_args()
    named = [os.path.abspath(b) for b in args.binary]
    print(f"Load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        copies = Path(tmp) / "bin"
        copies.mkdir()
        binaries = [str(shutil.copy2(b, copies / f"plugins-{i}")) for i, b in enumerate(named)]
        floor = str(shutil.copy2(os.path.abspath(args.floor), copies / "root_floor"))
        roots = make_roots(binaries[0], Path(tmp))
        commands = {}
        for name, root in roots.items():
            commands[(name, "floor")] = [floor, str(root)]
            for i, b in enumerate(binaries):
                for fmt in ("human", "json"):
                    commands[(name, f"{i}:{fmt}")] = [b, "validate", "--path", str(root), "--format", fmt]
        samples = {k: [] for k in commands}
        keys = list(commands)
        # A new order each round (seeded, so runs repeat): rotating one fixed order ran each
        # root's `json` right after the same binary's `human`, every round, and `human`
        # after another executable; that measured human output about 0.1 ms slower than
        # JSON on every root, protoAgent's included, which spawning them alone does not.
        rng = random.Random(43)
        for _ in range(args.spawns):
            rng.shuffle(keys)
            for k in keys:
                samples[k].append(spawn(commands[k]))
    med = {k: statistics.median(v) for k, v in samples.items()}
    head = "| root | floor |" + "".join(f" binary {i + 1} human / json | ratio human / json |"
                                        for i in range(len(binaries)))
    print()
    print(head)
    print("|" + "---|" * (2 + 2 * len(binaries)))
    for name in roots:
        f = med[(name, "floor")]
        row = f"| {name} | {f * 1e3:.3f} ms |"
        for i in range(len(binaries)):
            h, j = med[(name, f"{i}:human")], med[(name, f"{i}:json")]
            row += f" {h * 1e3:.3f} / {j * 1e3:.3f} ms | {h / f:.2f}x / {j / f:.2f}x |"
        print(row)
    print()
    for i, b in enumerate(named):
        print(f"binary {i + 1}: {b}")
    print(f"{args.spawns} interleaved spawns of each command, medians of wall time.")
    print(f"Load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
