#!/usr/bin/env python3
"""A round trip of real latency without netem: two network namespaces joined by a relay.

    with Latency(rtt_ms=40) as net:
        subprocess.Popen(net.server(["git", "daemon", f"--listen={net.server_ip}", ...]))
        subprocess.run(net.client(["plugins", "outdated", ...]))

This kernel has no `sch_netem`, so the delay is made in user space: each namespace gets a TUN
device (`plc`: 10.77.0.1, `pls`: 10.77.0.2) and one relay process, joined to both namespaces with
`setns(2)`, reads every IP packet from one device and writes it to the other after holding it for
half the round trip. TCP, DNS-free addressing and the kernel's own retransmission and Nagle
behaviour are all real; only the wire is replaced. Needs root (namespaces, TUN). Nothing leaves
the machine: the two devices exist only inside the two namespaces.

Run `python3 bench/netem.py --check` to see the measured TCP round trip.
"""
import argparse
import contextlib
import ctypes
import fcntl
import heapq
import os
import select
import struct
import subprocess
import sys
import time

CLIENT_NS, SERVER_NS = "plc", "pls"
CLIENT_IP, SERVER_IP = "10.77.0.1", "10.77.0.2"
CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000


def ip(*args, ns=None):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip", *args]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _setns(name: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
    finally:
        os.close(fd)


def _tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def relay(one_way_s: float) -> None:
    """Attach to both TUN devices and forward packets between them, each held `one_way_s`."""
    _setns(CLIENT_NS)
    a = _tun("tunc")
    _setns(SERVER_NS)
    b = _tun("tuns")
    other = {a: b, b: a}
    queue = []  # (due, seq, fd to write, packet)
    seq = 0
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        now = time.monotonic()
        while queue and queue[0][0] <= now:
            _, _, fd, packet = heapq.heappop(queue)
            with contextlib.suppress(OSError):
                os.write(fd, packet)
        timeout = max(0.0, queue[0][0] - time.monotonic()) if queue else None
        ready, _, _ = select.select([a, b], [], [], timeout)
        arrived = time.monotonic()
        for fd in ready:
            packet = os.read(fd, 65536)
            seq += 1
            heapq.heappush(queue, (arrived + one_way_s, seq, other[fd], packet))


class Latency:
    """Two namespaces and the relay; `client(cmd)`/`server(cmd)` run a command in either."""

    client_ip, server_ip = CLIENT_IP, SERVER_IP

    def __init__(self, rtt_ms: float = 40.0):
        self.rtt_ms = rtt_ms
        self.proc = None

    def __enter__(self):
        self._teardown()
        for ns, dev, addr in ((CLIENT_NS, "tunc", CLIENT_IP), (SERVER_NS, "tuns", SERVER_IP)):
            ip("netns", "add", ns)
            ip("link", "set", "lo", "up", ns=ns)
            ip("tuntap", "add", "dev", dev, "mode", "tun", ns=ns)
            ip("addr", "add", f"{addr}/24", "dev", dev, ns=ns)
            ip("link", "set", dev, "up", ns=ns)
        self.proc = subprocess.Popen([sys.executable, __file__, "--relay", str(self.rtt_ms / 2000.0)],
                                     stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the relay did not start")
        return self

    def __exit__(self, *exc):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
        self._teardown()

    @staticmethod
    def _teardown():
        for ns in (CLIENT_NS, SERVER_NS):
            subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @staticmethod
    def client(cmd):
        return ["ip", "netns", "exec", CLIENT_NS, *cmd]

    @staticmethod
    def server(cmd):
        return ["ip", "netns", "exec", SERVER_NS, *cmd]


ECHO = """
import socket, sys
s = socket.create_server((sys.argv[1], 7777))
while True:
    c, _ = s.accept()
    while (d := c.recv(100)):
        c.sendall(d)
    c.close()
"""
PROBE = """
import socket, sys, time
t = time.perf_counter(); c = socket.create_connection((sys.argv[1], 7777)); connect = time.perf_counter() - t
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
rtts = []
for _ in range(5):
    t = time.perf_counter(); c.sendall(b"x"); c.recv(1); rtts.append(time.perf_counter() - t)
print(f"connect {connect*1000:.1f} ms; echo round trips " + ", ".join(f"{r*1000:.1f}" for r in rtts) + " ms")
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--relay", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--check", action="store_true", help="set up 40 ms and time TCP round trips across it")
    args = ap.parse_args()
    if args.relay is not None:
        relay(args.relay)
    elif args.check:
        with Latency(40) as net:
            server = subprocess.Popen(net.server([sys.executable, "-c", ECHO, SERVER_IP]))
            time.sleep(0.5)
            out = subprocess.run(net.client([sys.executable, "-c", PROBE, SERVER_IP]),
                                 capture_output=True, text=True)
            server.kill()
            print(out.stdout or out.stderr, end="")
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
