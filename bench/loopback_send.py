"""What one loopback TCP send costs its sender, user and kernel time (issue 17, session 26).

A reader process holds 100 sockets and drains them; this process writes one frame of
``--size`` bytes to each in turn for ``--seconds``, pausing briefly after every round so
the reader keeps up. The per-send CPU of this process (``os.times``) is the floor of a
fan-out's delivery on this machine: every server, ours and the raw relay, pays it per
socket written.

    python bench/loopback_send.py [--size 1100] [--seconds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import selectors
import socket
import time

SOCKETS = 100


def reader(port: int, seconds: float) -> None:
    sel = selectors.DefaultSelector()
    for _ in range(SOCKETS):
        conn = socket.create_connection(("127.0.0.1", port))
        conn.setblocking(False)
        sel.register(conn, selectors.EVENT_READ)
    end = time.time() + seconds
    while time.time() < end:
        for key, _ in sel.select(0.1):
            with contextlib.suppress(BlockingIOError):
                key.fileobj.recv(1 << 16)  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1100, help="bytes per frame")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(SOCKETS * 2)
    port = server.getsockname()[1]
    child = os.fork()
    if child == 0:
        reader(port, args.seconds + 5)
        os._exit(0)
    conns = [server.accept()[0] for _ in range(SOCKETS)]
    for conn in conns:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = b"x" * args.size
    sent = 0
    before, start = os.times(), time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        for conn in conns:
            conn.send(data)
            sent += 1
        time.sleep(0.0005)
    after = os.times()
    print(f"{args.size} bytes: {(after.user - before.user) / sent * 1e6:.1f} µs user, "
          f"{(after.system - before.system) / sent * 1e6:.1f} µs kernel per send ({sent} sends)")
    os.waitpid(child, 0)


if __name__ == "__main__":
    main()
