"""F4-6 and issue 16's slow clients: slow and idle clients cannot hold the server
(slowloris), and sockets that never read cannot hold anyone else's live stream.

A real uvicorn server on a free port, configured as ``lepromafia serve`` configures it
(a 1-second header timeout and room for 10 connections for the slowloris cases; the
project's app for the stalled WebSockets).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import connect

from lepromafia.cli.serve_cmd import server_config
from lepromafia.service.clock import ManualClock

from ..server_thread import serving


async def hello(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    while (await receive()).get("more_body"):  # the whole body first, as a form's handler reads it
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def server() -> Iterator[int]:
    with serving(lambda port: server_config(hello, "127.0.0.1", port, header_timeout=1.0,
                                            body_idle=1.0, max_connections=10,
                                            log_level="warning")) as port:
        yield port


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


def test_a_client_whose_body_stops_is_dropped_but_a_slow_moving_body_is_served(server: int) -> None:
    """The slow-body variant: 4 bytes of a 100-byte body, then silence: closed after ~1 s
    (its request would wait for the rest for ever). A body sent a byte every 0.4 s —
    slow, but moving for 2.4 s, longer than the timeout — is served."""
    head = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", server)) as stalled:
        stalled.sendall(head.replace(b"6", b"100") + b'{"lo')
        assert closed_within(stalled, 3.0)
    with socket.create_connection(("127.0.0.1", server), timeout=5) as slow:
        slow.sendall(head)
        for byte in b"abcdef":
            time.sleep(0.4)
            slow.sendall(bytes([byte]))
        assert b" 200 " in slow.recv(4096)


def test_beyond_the_connection_cap_new_requests_get_503_not_a_hang(server: int) -> None:
    """F4-6: 10 idle connections fill the cap; the next request is refused at once."""
    with contextlib.ExitStack() as stack:
        idle = [stack.enter_context(socket.create_connection(("127.0.0.1", server))) for _ in range(10)]
        time.sleep(0.2)
        assert b" 503 " in request(server)
        assert len(idle) == 10
    time.sleep(1.5)  # the idle ones are gone (header timeout)
    assert b" 200 " in request(server)


POSTS = 150


def stalled_socket(port: int, token: str, game: str) -> socket.socket:
    """A WebSocket that subscribes from 0 and never reads again: a 4 KiB receive buffer,
    so the server's sends of its catch-up back up at once."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Authorization: Bearer {token}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert b" 101 " in head.split(b"\r\n", 1)[0], head
    data, mask = json.dumps({"type": "subscribe", "game": game, "since_seq": 0}).encode(), os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))
    return s


def test_sockets_that_never_read_their_catch_up_do_not_stop_anyone_else_subscribing(tmp_path: Path) -> None:
    """Issue 16 (slow clients) and issue 17's admission gate: p01_02 opens 3 × ADMITTED
    sockets that subscribe from 0 to a game whose city inbox holds ~5.5 MB and then never
    read. p01_03, reading normally, still gets ``subscribed`` and his catch-up at once
    (before the fix, the stalled sends held every place of the gate: nobody could subscribe).
    Found by ``bench/slow_clients.py`` (docs/performance.md)."""
    from lepromafia.web.app import create_app
    from lepromafia.web.ws.endpoint import ADMITTED
    from tests.web.conftest import make_api, settings_for, setup_game_via_api, small_cast

    cast = small_cast()
    city = next(iter(cast.cities))
    stalling, reader = cast.cities[city][1], cast.cities[city][2]
    for api in make_api(tmp_path):
        setup_game_via_api(api, "g", cast)
        inbox = api.state("g").current_inbox("city", city)
        for n in range(POSTS):  # ~5.5 MB for each reader: more than the kernel's send buffer
            api.ok(cast.cities[city][n % 6], "g", "PostMessage", inbox=inbox, text=f"{n} " + "длинно " * 2800)
        tokens, moment = dict(api.tokens), api.clock.now()
    app = create_app(settings_for(tmp_path), clock=ManualClock(moment))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(server_config(app, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if srv.started:
                break
            time.sleep(0.05)
        stalled = [stalled_socket(port, tokens[stalling], "g") for _ in range(3 * ADMITTED)]
        time.sleep(1.0)  # their catch-ups are on the way and stuck
        began = time.monotonic()
        with connect(f"ws://127.0.0.1:{port}/ws", compression=None, max_size=2**22,
                     additional_headers={"Authorization": f"Bearer {tokens[reader]}"}) as ws:
            ws.send(json.dumps({"type": "subscribe", "game": "g", "since_seq": 0}))
            hello = json.loads(ws.recv(timeout=10))
            assert hello["type"] == "subscribed", hello
            frames = [json.loads(ws.recv(timeout=10)) for _ in range(hello["version"])]
        assert time.monotonic() - began < 10
        assert [f["seq"] for f in frames] == list(range(1, hello["version"] + 1))
        texts = [f["payload"].get("text", "") for f in frames]
        assert sum("длинно длинно" in t for t in texts) == POSTS, [t[:40] for t in texts if t][:5]
        for sock in stalled:
            sock.close()
    finally:
        srv.should_exit = True
        thread.join(10)
