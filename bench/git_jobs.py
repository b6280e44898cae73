#!/usr/bin/env python3
"""`outdated` over N `git://` remotes of one `git daemon` at a 40 ms round trip, at several
`--jobs` (against one server, `--jobs` below the per-server cap is that cap: `--jobs 4` is the
cap before issue 31), interleaved; prints each run (with the connects retried and failed
checks, from `-v`) and the medians. Needs root (bench/netem.py).

    python3 bench/git_jobs.py BINARY N JOBS[,JOBS...]      # RUNS=3, MAXC=0 (the daemon's
                                                          # --max-connections) from the env
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV
from netem import Latency
from outdated import make_repo
binary = sys.argv[1]; n = int(sys.argv[2]); jobs = sys.argv[3].split(",")
with tempfile.TemporaryDirectory() as tmp, Latency(40) as net:
    tmp = Path(tmp); served = tmp / "served"
    for i in range(n):
        make_repo(served / f"p{i}.git", i)
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()
    maxc = os.environ.get("MAXC", "0")
    d = subprocess.Popen(net.server([os.path.join(exec_path, "git-daemon"), "--reuseaddr", "--export-all", f"--max-connections={maxc}",
        f"--listen={net.server_ip}", "--port=9418", f"--base-path={served}", str(served)]), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    time.sleep(1)
    home = tmp / "home"
    for i in range(n):
        subprocess.run(net.client([binary, "install", f"git://{net.server_ip}:9418/p{i}.git", "--ref", "v1.0.0", "--yes", "--home", str(home)]), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    res = {j: [] for j in jobs}
    for r in range(int(os.environ.get("RUNS", "3"))):
        for j in jobs:
            t = time.perf_counter()
            out = subprocess.run(net.client([binary, "-v", "outdated", "--json", "--jobs", j, "--home", str(home)]), capture_output=True, env=ENV)
            dt = time.perf_counter() - t
            try:
                doc = json.loads(out.stdout)
                errs = sum(1 for x in json.dumps(doc).split('"error"')[1:])
            except Exception as e:
                errs = f"?{e} {out.stderr[-300:]}"
            res[j].append(dt)
            err=out.stderr.decode()
            print(f"jobs {j}: {dt*1000:.0f} ms errors={errs} noanswer={err.count('no answer')} attempts={err.count('connected at attempt')}", flush=True)

    for j in jobs:
        print(j, f"median {statistics.median(res[j])*1000:.0f} ms")
    d.kill()
