#!/usr/bin/env python3
"""A smart-HTTP git server for benchmarks: HTTP/1.1 with keep-alive, ref lists answered from
memory (computed once per repository with `git upload-pack --advertise-refs`), packs from
`git upload-pack --stateless-rpc`.

    python3 bench/smart_http.py BASE PORT     # serves BASE/<name>.git on 127.0.0.1:PORT
"""
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BASE = Path(sys.argv[1])
ADS = {}


def advertisement(repo: Path) -> bytes:
    if repo not in ADS:
        refs = subprocess.run(["git", "upload-pack", "--stateless-rpc", "--advertise-refs", str(repo)],
                              capture_output=True, check=True).stdout
        ADS[repo] = b"001e# service=git-upload-pack\n0000" + refs
    return ADS[repo]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The head and the body are two writes: without TCP_NODELAY the body of a response on a
    # kept-alive connection waits for the client's delayed ACK (40 ms), as nginx avoids
    # with its default `tcp_nodelay on`.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def reply(self, kind: str, body: bytes):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path, _, query = self.path.partition("?")
        repo = BASE / path.lstrip("/").removesuffix("/info/refs")
        if not path.endswith("/info/refs") or query != "service=git-upload-pack" or not repo.is_dir():
            self.send_error(404)
            return
        self.reply("application/x-git-upload-pack-advertisement", advertisement(repo))

    def do_POST(self):
        repo = BASE / self.path.lstrip("/").removesuffix("/git-upload-pack")
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        out = subprocess.run(["git", "upload-pack", "--stateless-rpc", str(repo)], input=body,
                             capture_output=True).stdout
        self.reply("application/x-git-upload-pack-result", out)


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 256
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
