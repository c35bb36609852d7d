"""``lepromafia serve --workers N``: N worker processes on one listening socket.

The parent binds the port once and forks the workers, each building its own app (its own
event loop, database pool, Redis connection and caches) and accepting on the shared
socket; the kernel spreads the connections. A worker that dies (a crash, an OOM kill) is
replaced; SIGTERM or SIGINT stops them all (a worker still running ``STOP_GRACE`` seconds
later is killed). Nothing is shared in memory: a game's writes
are serialised across workers by the store (``Transaction.lock_games``) and its events
reach every worker's sockets through Redis, so any worker may take any request.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)
RESTART_PAUSE = 1.0
"""Seconds between replacing a dead worker and the next replacement (no crash loop storm)."""
STOP_GRACE = 10.0
"""Seconds a worker has to stop after SIGTERM (its open requests answered, its sockets
closed, its lanes' last batch committed) before it is killed: a worker that does not stop
must not keep the supervisor, and a deploy, waiting. A killed worker loses nothing that
was acknowledged (every acknowledged command is committed first)."""
POLL = 0.2
"""Seconds between the supervisor's looks at its workers."""


def listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def supervise(count: int, host: str, port: int, server: Callable[[], Any]) -> None:
    """Run ``count`` workers of ``server()`` (a ``uvicorn.Server``) on one socket until
    told to stop; replace any that exits."""
    sock = listen(host, port)
    children: dict[int, int] = {}
    stopping = False
    deadline = math.inf

    def spawn(slot: int) -> None:
        sys.stdout.flush()  # a buffered line would be written again by the child
        sys.stderr.flush()
        # No stop signal is handled between the fork and the bookkeeping on either side: the
        # supervisor's ``stop`` would miss a child not yet in ``children`` (left running,
        # the supervisor waiting for it forever), and a child would run the supervisor's
        # handler instead of stopping. A signal sent meanwhile waits, then acts.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            pid = os.fork()
            if pid == 0:  # the worker: never returns
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                try:
                    server().run(sockets=[sock])
                finally:
                    os._exit(0)
            children[pid] = slot
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping, deadline
        if not stopping:
            stopping, deadline = True, time.monotonic() + STOP_GRACE
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for slot in range(count):
        spawn(slot)
    while children:
        # Polled rather than a blocking wait: a blocking wait is resumed after the stop
        # handler runs, and would wait forever for a worker that does not stop.
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if time.monotonic() >= deadline:
                for late in list(children):
                    log.error("worker %d did not stop within %.0f s of SIGTERM; killed", late, STOP_GRACE)
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(late, signal.SIGKILL)
                deadline = math.inf
            time.sleep(POLL)
            continue
        if pid not in children:
            continue
        slot = children.pop(pid)
        if stopping:
            continue
        log.warning("worker %d exited (%d); starting another", pid, os.waitstatus_to_exitcode(status))
        time.sleep(RESTART_PAUSE)
        spawn(slot)
    sock.close()
