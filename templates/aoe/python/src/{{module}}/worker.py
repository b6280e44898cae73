"""The worker process aoe launches: answers JSON-RPC requests on stdin/stdout."""

import json
import sys

from . import __version__
from .rpc import handle_line


def status(_params):
    return {"plugin": "{{id}}", "version": __version__, "ok": True}


METHODS = {
    "initialize": lambda params: {"name": "{{name}}", "version": __version__},
    "status": status,
    "shutdown": lambda params: None,
}


def serve(stdin=sys.stdin, stdout=sys.stdout):
    for line in stdin:
        if not line.strip():
            continue
        reply = handle_line(line, METHODS)
        if reply is not None:
            stdout.write(json.dumps(reply) + "\n")
            stdout.flush()


def main():
    serve()


if __name__ == "__main__":
    main()
