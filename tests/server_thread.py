"""A real uvicorn server on a free loopback port, in a thread of the test process."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def serving(config_for: Callable[[int], uvicorn.Config]) -> Iterator[int]:
    """Serve ``config_for(port)`` until the block ends; yields the port once it listens."""
    port = free_port()
    srv = uvicorn.Server(config_for(port))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    try:
        yield port
    finally:
        srv.should_exit = True
        thread.join(5)
