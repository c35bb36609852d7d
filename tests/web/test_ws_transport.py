"""The lean WebSocket transport (``web.ws.transport``, issue 17) speaks the same protocol as
uvicorn's own: its frames are byte for byte what the ``websockets`` library writes, and on a
real server (configured as ``lepromafia serve`` configures it) a client receives every
message whole and in order, also after it stopped reading long enough to pause the
server's writes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.frames import Frame, Opcode

from lepromafia.cli.serve_cmd import server_config
from lepromafia.web.ws.transport import LeanWebSocketProtocol, text_frame

from ..server_thread import serving

SIZES = (0, 1, 125, 126, 127, 65535, 65536, 200_000)
BURST = 400
"""Messages of 4 KiB the stalled client is sent: 1.6 MB, far past the transport's buffers."""


def test_a_text_frame_is_what_the_websockets_library_writes() -> None:
    for size in SIZES:
        data = ("я" * size).encode()[:size]
        expected = Frame(Opcode.TEXT, data).serialize(mask=False)
        assert text_frame(data) == expected, size


async def talker(scope: Any, receive: Any, send: Any) -> None:
    """Accepts, then on "sizes" sends one message of each size; on "burst" ``BURST``
    numbered messages of 4 KiB; echoes anything else."""
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        if message["text"] == "sizes":
            for size in SIZES:
                await send({"type": "websocket.send", "text": "ж" * size})
        elif message["text"] == "burst":
            for n in range(BURST):
                await send({"type": "websocket.send", "text": f"{n:06d}" + "x" * 4090})
        else:
            await send({"type": "websocket.send", "text": message["text"]})


@pytest.fixture
def port() -> Iterator[int]:
    def config(port: int) -> uvicorn.Config:
        config = server_config(talker, "127.0.0.1", port, log_level="warning")
        assert config.ws is LeanWebSocketProtocol
        return config

    with serving(config) as found:
        yield found


@pytest.mark.timeout(60)
def test_every_message_arrives_whole_and_in_order_also_after_a_stall(port: int) -> None:
    async def scenario() -> None:
        async with connect(f"ws://127.0.0.1:{port}/", max_size=2**24, compression=None) as ws:
            await ws.send("привет")
            assert await ws.recv() == "привет"
            await ws.send("sizes")
            for size in SIZES:
                assert await ws.recv() == "ж" * size
        async with connect(f"ws://127.0.0.1:{port}/", max_size=2**24, compression=None,
                           max_queue=1) as ws:
            await ws.send("burst")
            await asyncio.sleep(1.0)  # not reading: the server's writes pause on a full buffer
            for n in range(BURST):
                got = await asyncio.wait_for(ws.recv(), 10)
                assert isinstance(got, str) and got.startswith(f"{n:06d}") and len(got) == 4096
            await ws.send("after")
            assert await ws.recv() == "after"

    asyncio.run(scenario())
