#!/usr/bin/env python3
"""Peak memory of `plugins install`, `update` and `verify` against one large committed file.

    python3 bench/memory.py [MIB ...] [--bin PATH]    # default: 96 200 1024; builds release

The file is `head -c N /dev/urandom` (incompressible: a file of one repeated byte deflates to
almost nothing and measures nothing). For each size, one repository whose first commit is a
small aoe plugin and whose second adds the big file, committed with the git CLI and packed
(`git gc`), served three ways:

- git:// from `git daemon` on 127.0.0.1 (a packed fetch, as every network fetch is), with
  libgit2 and with the git command (`PLUGINS_GIT_FETCH_WITH_CLI=1`, as ssh sources are),
- smart HTTP from bench/smart_http.py on 127.0.0.1 (packed too),
- file:// (read in place): the packed bare repository, and the work repository (a loose object).

Measured per source, from outside with GNU time (`/usr/bin/time -f %M`, max RSS in KiB):
`install` of the big commit into an empty home, `update` from the small commit to the big one,
then `verify` of that home. The table gives MiB, the exit code, and the error code when the
command refused.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, build_release, free_port, git_daemon

MANIFEST = 'id = "dev.example.big"\nname = "Big"\nversion = "{v}"\napi_version = 6\n\n[[commands]]\nid = "hello"\n'
HERE = Path(__file__).resolve().parent


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def rev(ref, cwd) -> str:
    return subprocess.run(["git", "rev-parse", ref], cwd=cwd, env=ENV, capture_output=True,
                          text=True, check=True).stdout.strip()


def make_repos(work: Path, base: Path, mib: int) -> None:
    """A plugin repository `work` (loose objects): commit v1 without the big file, then v2
    with it, on main. Two packed bare copies under `base`: big.git (main at v2), grow.git
    (main at v1 until `grow` moves it)."""
    work.mkdir()
    git("init", "-q", "-b", "main", cwd=work)
    git("config", "user.email", "bench@example.invalid", cwd=work)
    git("config", "user.name", "Bench", cwd=work)
    (work / "aoe-plugin.toml").write_text(MANIFEST.format(v="1.0.0"))
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "small", cwd=work)
    git("tag", "v1", cwd=work)
    with open(work / "data.bin", "wb") as out:
        subprocess.run(["head", "-c", str(mib * 1024 * 1024), "/dev/urandom"], stdout=out, check=True)
    (work / "aoe-plugin.toml").write_text(MANIFEST.format(v="2.0.0"))
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "big", cwd=work)
    git("tag", "v2", cwd=work)
    for name in ["big.git", "grow.git"]:
        git("clone", "-q", "--bare", "--no-local", str(work), str(base / name), cwd=base)
        git("gc", "-q", cwd=base / name)
    git("update-ref", "refs/heads/main", rev("v1", work), cwd=base / "grow.git")


class Http:
    """bench/smart_http.py on a fixed port (it keeps ref lists: restarted when a ref moves)."""

    def __init__(self, base: Path):
        self.base, self.port, self.proc = base, free_port(), None
        self.restart()

    def restart(self):
        self.stop()
        self.proc = subprocess.Popen([sys.executable, str(HERE / "smart_http.py"), str(self.base),
                                      str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()


def peak(cmd, env) -> tuple[int, int, str]:
    """(exit code, max RSS in KiB, the first error code printed, if any)."""
    with tempfile.NamedTemporaryFile() as report:
        ran = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *cmd], env=env,
                             capture_output=True, text=True)
        kib = int(Path(report.name).read_text().strip().splitlines()[-1])
    codes = [c for c in re.findall(r"plugins::[a-z_]+::[a-z_]+", ran.stdout + ran.stderr)
             if c != "plugins::git::cleartext"]
    return ran.returncode, kib, codes[-1] if codes and ran.returncode else ""


def measure(binary, urls, tmp: Path, env, moved) -> list[tuple[str, int, int, str]]:
    """install of `urls[0]` (the big commit on main), update of `urls[1]` from the small
    commit after `moved()` puts the big one on main, verify of that home."""
    rows = []
    home = tmp / "home-install"
    shutil.rmtree(home, ignore_errors=True)
    code, kib, err = peak([binary, "install", urls[0], "--yes", "--home", str(home)], env)
    rows.append(("install", code, kib, err))
    if urls[1] is None:
        return rows
    home = tmp / "home-update"
    shutil.rmtree(home, ignore_errors=True)
    grow = tmp / "srv" / "grow.git"
    git("update-ref", "refs/heads/main", rev("v1", grow), cwd=grow)
    moved()
    ran = subprocess.run([binary, "install", urls[1], "--yes", "--home", str(home)], env=env,
                         capture_output=True, text=True)
    if ran.returncode != 0:
        sys.exit(f"install of the small commit failed: {ran.stderr}")
    git("update-ref", "refs/heads/main", rev("v2", grow), cwd=grow)
    moved()
    code, kib, err = peak([binary, "update", "--yes", "--home", str(home), "dev.example.big"], env)
    rows.append(("update", code, kib, err))
    code, kib, err = peak([binary, "verify", "--home", str(home)], env)
    rows.append(("verify", code, kib, err))
    return rows


def main() -> None:
    args = sys.argv[1:]
    binary = None
    if "--bin" in args:
        i = args.index("--bin")
        binary = args[i + 1]
        del args[i:i + 2]
    sizes = [int(a) for a in args] or [96, 200, 1024]
    binary = binary or build_release()
    env = dict(ENV, NO_COLOR="1")
    print("| file | source | command | peak RSS | exit | code |")
    print("|---|---|---|---|---|---|")
    for mib in sizes:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as t:
            tmp = Path(t)
            base = tmp / "srv"
            base.mkdir()
            make_repos(tmp / "work", base, mib)
            daemon, port = git_daemon(base)
            http = Http(base)
            try:
                sources = [
                    ("git://", [f"git://127.0.0.1:{port}/big.git", f"git://127.0.0.1:{port}/grow.git"],
                     lambda: None),
                    ("git:// (git command)", [f"git://127.0.0.1:{port}/big.git",
                                             f"git://127.0.0.1:{port}/grow.git"], lambda: None),
                    ("smart HTTP", [f"http://127.0.0.1:{http.port}/big.git",
                                    f"http://127.0.0.1:{http.port}/grow.git"], http.restart),
                    ("file:// (packed)", [f"file://{base}/big.git", f"file://{base}/grow.git"], lambda: None),
                    ("file:// (loose)", [f"file://{tmp}/work", None], lambda: None),
                ]
                for name, urls, moved in sources:
                    with_cli = dict(env, PLUGINS_GIT_FETCH_WITH_CLI="1") if "git command" in name else env
                    for command, code, kib, err in measure(binary, urls, tmp, with_cli, moved):
                        print(f"| {mib} MiB | {name} | {command} | {kib / 1024:.0f} MiB | {code} | {err} |",
                              flush=True)
            finally:
                daemon.kill()
                http.stop()


if __name__ == "__main__":
    main()
