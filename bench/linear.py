#!/usr/bin/env python3
"""Is each read-only command linear in the plugins of a home? (issue 43)

    python3 bench/linear.py --binary target/release/plugins
    python3 bench/linear.py --binary /tmp/plugins-before --binary target/release/plugins
    python3 bench/linear.py --binary target/release/plugins --sizes 10,1000 --rounds 9

For each dialect (aoe, AWorld, protoAgent) and each size, the script generates a home:
N plugins (a manifest and two files each), a lock row per plugin (in the host's format)
whose source is its own bare git repository on this disk (`file://`, a copy of one small
repository, so `outdated` lists N remotes with no network in the way), the host's own
switch records for every plugin (aoe's `config.toml`, AWorld's `.manifest.json`,
protoAgent's `plugins.enabled`/`plugins.disabled`, a third of them switched off), and the
remembered host (`plugins.toml` `[host]`, so `info` asks no installed host). The rows are
written without hashes, as a host's own installer writes them; `verify --record` records
them (timed once per binary, each on its own copy of the home; the first binary's copy is
kept), so `verify` then checks every plugin's files.

Then `list`, `list --json`, `info <a plugin>`, `verify` and `outdated --json` run against
every home, every binary in turn in each round (interleaved), and the medians are printed.
The target of issue 43 is the per-plugin time of a 1,000-plugin home at most 1.2x that of a
10-plugin home: `ratio` below is (t[N] / N) / (t[10] / 10), the 10-plugin home's time per
plugin being the floor. That floor includes starting the process, which a 10-plugin run is
mostly made of, so the script also prints the marginal cost of a plugin between the two
largest sizes against the one between the two sizes below (`marginal`: with the default
sizes, (t[2000] - t[1000]) / 1000 against (t[1000] - t[100]) / 900), which is 1.0x for a
linear command and 2x for a quadratic one, and which a command that re-reads something per
row fails long before it fails the ratio.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import ENV

DIALECTS = ["aoe", "aworld", "protoagent"]
COMMANDS = [
    ("list", ["list"]),
    ("list --json", ["list", "--json"]),
    ("info", ["info", "{id}"]),
    ("verify", ["verify"]),
    ("outdated --json", ["outdated", "--json"]),
]


def make_remote(path: Path) -> str:
    """One small bare repository with `main` at one commit; returns the commit."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True, env=ENV)
    stream = (b"commit refs/heads/main\ncommitter B <b@example.invalid> 1700000000 +0000\ndata 3\none\n"
              b"M 100644 inline README\ndata 6\nhello\n\n")
    subprocess.run(["git", "fast-import", "--quiet"], input=stream, cwd=path, check=True, env=ENV)
    return subprocess.run(["git", "rev-parse", "main"], cwd=path, capture_output=True, text=True,
                          check=True, env=ENV).stdout.strip()


def plugin_id(dialect: str, i: int) -> str:
    return f"dev.bench.p{i:04d}" if dialect == "aoe" else f"bench_p{i:04d}"


def write_plugin(dialect: str, home: Path, pid: str) -> None:
    d = home / "plugins" / pid
    if dialect == "aoe":
        d.mkdir(parents=True)
        (d / "aoe-plugin.toml").write_text(
            f'id = "{pid}"\nname = "P"\nversion = "1.0.0"\napi_version = 15\n\n[[commands]]\nid = "hello"\n')
    elif dialect == "aworld":
        (d / ".aworld-plugin").mkdir(parents=True)
        (d / ".aworld-plugin" / "plugin.json").write_text(json.dumps({"id": pid, "version": "1.0.0"}))
    else:
        d.mkdir(parents=True)
        (d / "protoagent.plugin.yaml").write_text(f"id: {pid}\nname: P\nversion: 1.0.0\n")
        (d / "__init__.py").write_text("def register(r):\n    pass\n")
    (d / "README.md").write_text(f"{pid}\n" * 20)
    (d / "data.txt").write_text("x" * 2048)


def make_home(dialect: str, home: Path, n: int, remotes: list, commit: str) -> str:
    """A home of `n` plugins of `dialect`; returns the id `info` asks for."""
    ids = [plugin_id(dialect, i) for i in range(n)]
    (home / "plugins").mkdir(parents=True)
    for pid in ids:
        write_plugin(dialect, home, pid)
    off = {pid for k, pid in enumerate(ids) if k % 3 == 0}
    if dialect == "protoagent":
        rows = [{"id": pid, "source_url": remotes[k], "requested_ref": "main", "ref_kind": "branch",
                 "resolved_sha": commit, "version": "1.0.0", "installed_at": "2026-12-04T00:00:00+00:00",
                 "by": "cli"} for k, pid in enumerate(ids)]
        (home / "plugins.lock").write_text(json.dumps({"plugins": rows}, indent=2) + "\n")
        (home / "config").mkdir()
        (home / "config" / "langgraph-config.yaml").write_text(
            "plugins:\n  enabled:\n" + "".join(f"    - {p}\n" for p in ids)
            + "  disabled:\n" + "".join(f"    - {p}\n" for p in sorted(off)))
        (home / "plugins.toml").write_text('[host]\nversion = "0.218.0"\n')
    else:
        version = 2 if dialect == "aoe" else 1
        lock = [f"lock_version = {version}\n"]
        for k, pid in enumerate(ids):
            lock.append(f'\n[plugins."{pid}"]\nsource = "{remotes[k]}"\nrequested_ref = "main"\n'
                        f'ref_kind = "branch"\nresolved_commit = "{commit}"\nversion = "1.0.0"\n')
        (home / "plugins.lock").write_text("".join(lock))
        if dialect == "aoe":
            (home / "config.toml").write_text("".join(
                f'[plugins."{p}"]\nsource = "{remotes[k]}"\nenabled = {"false" if p in off else "true"}\n\n'
                for k, p in enumerate(ids)))
            (home / "plugins.toml").write_text("[host]\naoe_api = 15\n")
        else:
            (home / "plugins" / ".manifest.json").write_text(json.dumps(
                {p: {"name": p, "path": str(home / "plugins" / p), "enabled": p not in off} for p in ids},
                indent=2))
    return ids[len(ids) // 2]


def timed(cmd: list, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", action="append", required=True,
                    help="a built plugins binary; give two (before, after) to compare")
    ap.add_argument("--sizes", default="10,100,1000,2000", help="home sizes, smallest first")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dialects", default=",".join(DIALECTS))
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    dialects = a.dialects.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = dict(ENV, NO_COLOR="1", HOME=str(tmp / "user"))
        for k in ["PLUGINS_HOME", "XDG_CONFIG_HOME", "PROTOAGENT_HOME", "PROTOAGENT_INSTANCE"]:
            env.pop(k, None)
        template = tmp / "template.git"
        commit = make_remote(template)
        remotes = []
        for i in range(max(sizes)):
            path = tmp / "remotes" / f"r{i:04d}.git"
            shutil.copytree(template, path)
            remotes.append(f"file://{path}")
        homes = {}
        setup = {}
        for d in dialects:
            for n in sizes:
                home = tmp / f"{d}-{n}"
                asked = make_home(d, home, n, remotes, commit)
                # `verify --record` by each binary, on its own copy of the home as generated
                # (one run each); the first binary's recorded home is the one measured next.
                for k, b in enumerate(a.binary):
                    copy = tmp / f"{d}-{n}-record-{k}"
                    shutil.copytree(home, copy, symlinks=True)
                    setup[(b, d, n)] = timed([b, "-q", "verify", "--record", "--home", str(copy)], env)
                    if k == 0:
                        shutil.rmtree(home)
                        copy.rename(home)
                    else:
                        shutil.rmtree(copy)
                homes[(d, n)] = (home, asked)
                # Once untimed: the host probe remembered, the page cache warm.
                for _, args in COMMANDS:
                    for b in a.binary:
                        subprocess.run([b, *[x.format(id=asked) for x in args], "--home", str(home)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        samples = {}
        for _ in range(a.rounds):
            for (d, n), (home, asked) in homes.items():
                for label, args in COMMANDS:
                    for b in a.binary:
                        cmd = [b, *[x.format(id=asked) for x in args], "--home", str(home)]
                        samples.setdefault((b, d, n, label), []).append(timed(cmd, env))
    med = {k: statistics.median(v) for k, v in samples.items()}
    load = os.getloadavg()
    print(f"Load average at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}; "
          f"{a.rounds} rounds, medians.\n")
    lo, hi = sizes[0], sizes[-1]
    for b in a.binary:
        print(f"### `{b}`\n")
        head = " | ".join(f"{n} plugins" for n in sizes)
        ratio_at = 1000 if 1000 in sizes else hi
        print(f"| dialect | command | {head} | ratio {ratio_at} vs {lo} (target <= 1.2x) | marginal |")
        print("|---|---|" + "---:|" * len(sizes) + "---:|---:|")
        for d in dialects:
            for label, _ in COMMANDS:
                t = [med[(b, d, n, label)] for n in sizes]
                ratio = (t[sizes.index(ratio_at)] / ratio_at) / (t[0] / lo)
                marginal = "-"
                if len(sizes) >= 3:
                    small = (t[-2] - t[-3]) / (sizes[-2] - sizes[-3])
                    large = (t[-1] - t[-2]) / (sizes[-1] - sizes[-2])
                    marginal = f"{large / small:.2f}x" if small > 0 else "-"
                cells = " | ".join(f"{x * 1000:.1f} ms" for x in t)
                print(f"| {d} | `{label}` | {cells} | {ratio:.3f}x | {marginal} |")
        print()
    print("`verify --record` of every row of a home without hashes (one run each):\n")
    print("| binary | dialect | " + " | ".join(f"{n} plugins" for n in sizes) + " |")
    print("|---|---|" + "---:|" * len(sizes))
    for b in a.binary:
        for d in dialects:
            cells = " | ".join(f"{setup[(b, d, n)] * 1000:.0f} ms" for n in sizes)
            print(f"| `{b}` | {d} | {cells} |")


if __name__ == "__main__":
    main()
