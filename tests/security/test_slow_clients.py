"""F4-6: slow and idle clients cannot hold the server (slowloris).

A real uvicorn server on a free port, configured as ``lepromafia serve`` configures it,
with a 1-second header timeout and room for 10 connections.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from lepromafia.cli.serve_cmd import server_config


async def hello(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def server() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = server_config(hello, "127.0.0.1", port, header_timeout=1.0, max_connections=10,
                           log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    yield port
    srv.should_exit = True
    thread.join(5)


def request(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return s.recv(4096)


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_a_client_trickling_its_headers_is_dropped_after_the_header_timeout(server: int) -> None:
    """F4-6: half a request line, then silence: closed after ~1 s; a real request is served."""
    with socket.create_connection(("127.0.0.1", server)) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        time.sleep(0.5)
        slow.sendall(b"a")  # a trickle does not reset the clock
        assert closed_within(slow, 3.0)
    with socket.create_connection(("127.0.0.1", server)) as silent:
        assert closed_within(silent, 3.0)  # never sent a byte
    assert b" 200 " in request(server)


def test_beyond_the_connection_cap_new_requests_get_503_not_a_hang(server: int) -> None:
    """F4-6: 10 idle connections fill the cap; the next request is refused at once."""
    with contextlib.ExitStack() as stack:
        idle = [stack.enter_context(socket.create_connection(("127.0.0.1", server))) for _ in range(10)]
        time.sleep(0.2)
        assert b" 503 " in request(server)
        assert len(idle) == 10
    time.sleep(1.5)  # the idle ones are gone (header timeout)
    assert b" 200 " in request(server)
