"""Drive an interactive shell under a pseudo-terminal, as a user at a keyboard would.

Usage: drive.py KEYS ARGV...
KEYS is typed in pieces split at each TAB; after each TAB the driver waits until the
terminal is quiet. The line is then entered and the driver waits for a line starting
with `ARGS:` (printed by the test's `plugins` wrapper), prints it and exits. Everything
the terminal showed is printed to stderr when it never comes (for the test's message),
or always with DRIVE_DEBUG=1.
"""
import os
import re
import pty
import select
import sys
import time

keys, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)

seen = bytearray()


def pump(quiet, deadline, until=None):
    """Read until `quiet` seconds pass without output, `until` appears, or the deadline."""
    end = time.monotonic() + deadline
    last = time.monotonic()
    while time.monotonic() < end:
        if until is not None and until(bytes(seen)):
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            seen.extend(data)
            last = time.monotonic()
        elif until is None and time.monotonic() - last >= quiet:
            return True
    return False


pump(0.5, 10)  # the prompt
pieces = keys.split("\t")
for i, piece in enumerate(pieces):
    os.write(fd, piece.encode())
    if i < len(pieces) - 1:
        os.write(fd, b"\t")
    pump(0.5, 10)
os.write(fd, b"\r")
pump(0, 20, until=lambda b: re.search(rb"[\r\n]ARGS:[^\r\n]*\r?\n", b) is not None)
text = seen.decode("utf-8", "replace")
if os.environ.get("DRIVE_DEBUG"):
    sys.stderr.write(repr(text))
for line in text.splitlines():
    if line.startswith("ARGS:"):
        print(line.rstrip("\r"))
        break
else:
    sys.stderr.write(repr(text))
try:
    os.write(fd, b"exit\r")
    time.sleep(0.2)
    os.kill(pid, 9)
except OSError:
    pass
os.waitpid(pid, 0)
