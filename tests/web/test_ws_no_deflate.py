"""The server answers a browser's permessage-deflate offer without it (issue 17, memory per
client): the extension costs each socket ~50 KB of zlib state and a compression of every frame
for every reader (``bench/fanout_memory.py --deflate``: 49.6 KB per client), which the frame
encoded once per audience cannot share. Cast: a socket that offers deflate, as Chromium and
Firefox do, gets an uncompressed connection and its frames.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from websockets.sync.client import connect

from lepromafia.cli.serve_cmd import server_config


async def echo(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    assert scope["type"] == "websocket"
    await receive()  # connect
    await send({"type": "websocket.accept"})
    while (msg := await receive())["type"] == "websocket.receive":
        await send({"type": "websocket.send", "text": msg["text"]})


@pytest.fixture
def server() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = uvicorn.Server(server_config(echo, "127.0.0.1", port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield port
    srv.should_exit = True
    thread.join(10)


def test_a_browsers_deflate_offer_is_declined(server: int) -> None:
    with connect(f"ws://127.0.0.1:{server}/ws", compression="deflate") as ws:
        assert ws.request is not None and "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        assert ws.response is not None and "Sec-WebSocket-Extensions" not in ws.response.headers
        ws.send('{"type":"ping"}')
        assert ws.recv(timeout=5) == '{"type":"ping"}'
