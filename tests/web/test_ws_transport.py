"""The lean WebSocket transport (``web.ws.transport``, issue 17) speaks the same protocol as
uvicorn's own: its frames are byte for byte what the ``websockets`` library writes, and on a
real server (configured as ``lepromafia serve`` configures it) a client receives every
message whole and in order, also after it stopped reading long enough to pause the
server's writes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
import uvicorn
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from lepromafia.cli.serve_cmd import server_config
from lepromafia.web.ws.transport import LeanWebSocketProtocol, text_frame

from ..server_thread import serving

SIZES = (0, 1, 125, 126, 127, 65535, 65536, 200_000)
BURST = 400
"""Messages of 4 KiB the stalled client is sent: 1.6 MB, far past the transport's buffers."""
BURSTS = 8
"""Bursts a client asks for at once: 13 MB, past the kernel's socket buffers too."""


def test_a_text_frame_is_what_the_websockets_library_writes() -> None:
    for size in SIZES:
        data = ("я" * size).encode()[:size]
        expected = Frame(Opcode.TEXT, data).serialize(mask=False)
        assert text_frame(data) == expected, size


async def talker(scope: Any, receive: Any, send: Any) -> None:
    """Accepts, then on "sizes" sends one message of each size; on "burst" ``BURST``
    numbered messages of 4 KiB; on "close" closes; echoes anything else."""
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
        elif message["text"] == "close":
            await send({"type": "websocket.close", "code": 1000})
            return
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


class _Checked(LeanWebSocketProtocol):
    """The lean protocol, checking after each of its callbacks that the ``sendable`` it
    keeps is what the socket's state says (``seen`` records each answer)."""

    seen: ClassVar[list[tuple[str, bool, bool]]] = []

    def _check(self, where: str) -> None:
        conn = self.conn
        truth = bool(self.writable.on and self.handshake_complete and not self.close_sent
                     and not self.disconnected and self.initial_response is None
                     and conn.state is State.OPEN and not conn.extensions)
        _Checked.seen.append((where, self.sendable, truth))

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._check("data_received")

    def pause_writing(self) -> None:
        super().pause_writing()
        self._check("pause_writing")

    def resume_writing(self) -> None:
        super().resume_writing()
        self._check("resume_writing")

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._check("connection_lost")

    async def send(self, message: Any) -> None:
        self._check("before send")
        await super().send(message)
        self._check("after send")


@pytest.mark.timeout(60)
def test_a_socket_is_sendable_exactly_while_open_and_writable_through_its_life() -> None:
    """Every way a socket's state changes (accepted, its writes paused by a client that
    stopped reading and resumed, closed by the server, by the client, or dropped without a
    close) keeps ``sendable`` — what a delivery written as it is published checks — equal to
    the state it stands for: a frame is never written after a close, nor held back from an
    open socket (issue 17)."""
    _Checked.seen = []

    def config(port: int) -> uvicorn.Config:
        config = server_config(talker, "127.0.0.1", port, log_level="warning")
        config.ws = _Checked
        return config

    async def scenario(port: int) -> None:
        url = f"ws://127.0.0.1:{port}/"
        async with connect(url, max_size=2**24, compression=None, max_queue=1) as ws:
            for _ in range(BURSTS):
                await ws.send("burst")
            await asyncio.sleep(1.0)  # not reading: the server's writes pause
            for _ in range(BURSTS * BURST):
                await asyncio.wait_for(ws.recv(), 10)
            await ws.send("close")  # the server closes
            with pytest.raises(ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 10)
        async with connect(url, compression=None) as ws:  # the client closes
            await ws.send("hello")
            assert await ws.recv() == "hello"
        ws = await connect(url, compression=None)  # the client drops the connection
        await ws.send("hello")
        assert await ws.recv() == "hello"
        ws.transport.abort()
        await asyncio.sleep(0.5)

    with serving(config) as port:
        asyncio.run(scenario(port))
    wrong = [(where, kept, truth) for where, kept, truth in _Checked.seen if kept != truth]
    assert not wrong, wrong[:5]
    moments = {(where, kept) for where, kept, _ in _Checked.seen}
    assert {("pause_writing", False), ("resume_writing", True), ("after send", True),
            ("connection_lost", False)} <= moments, moments
    assert ("data_received", False) in moments  # the client's close frame, or its reply
