"""The lean transport's receive path (``LeanWebSocketProtocol.data_received``, issue 17) is
indistinguishable from uvicorn's stock ``websockets-sansio`` protocol: the app receives the
same messages in the same order and the client the same frames back (pongs, close frames,
close codes), however the client's bytes are split into reads.

Two ways to compare: a real uvicorn server per protocol and a raw socket (each scenario run
against both, byte for byte), and the two protocol classes fed the same random frame
streams split at random points, read by read, through a recording transport (hypothesis)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode

from lepromafia.cli.serve_cmd import server_config
from lepromafia.web.ws.transport import LeanWebSocketProtocol

from ..server_thread import serving

MAX_SIZE = 100_000
"""The servers' ``ws_max_size`` here: a 100 KB message is the largest a client may send."""
HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
PROTOCOLS = {"stock": WebSocketsSansIOProtocol, "lean": LeanWebSocketProtocol}

HEARD: dict[str, list[Any]] = {"stock": [], "lean": []}
"""What the echo app of each server received: texts, bytes, and a disconnect's close code."""


def masked(opcode: Opcode, data: bytes, fin: bool = True, mask: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=mask)


def zero_masked(opcode: Opcode, data: bytes) -> bytes:
    """A final frame masked with the key 0: its payload travels as is, so a binary message
    can carry bytes that look like the next frame's header (to catch a parser that starts
    reading frames in the middle of one websockets is still parsing)."""
    assert len(data) < 126
    return bytes((0x80 | opcode, 0x80 | len(data))) + b"\0\0\0\0" + data


def text(value: str) -> bytes:
    return masked(Opcode.TEXT, value.encode())


def close(code: int, reason: str = "") -> bytes:
    return masked(Opcode.CLOSE, struct.pack("!H", code) + reason.encode())


def echo(kind: str) -> Any:
    """Accepts, then sends back every message as received (while the socket is open) and
    records it in ``HEARD``."""
    async def app(scope: Any, receive: Any, send: Any) -> None:
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
                HEARD[kind].append(message["code"])
                return
            data = message.get("text")
            reply = {"type": "websocket.send", "text": data}
            if data is None:
                data = message["bytes"]
                reply = {"type": "websocket.send", "bytes": data}
            HEARD[kind].append(data)
            with contextlib.suppress(ClientDisconnected):  # a close in the same read
                await send(reply)
    return app


@pytest.fixture(scope="module")
def ports() -> Iterator[dict[str, int]]:
    def config(kind: str) -> Any:
        def make(port: int) -> uvicorn.Config:
            made: uvicorn.Config = server_config(echo(kind), "127.0.0.1", port,
                                                 log_level="critical", ws=PROTOCOLS[kind],
                                                 ws_max_size=MAX_SIZE, ws_ping_interval=None)
            return made
        return make

    with serving(config("stock")) as stock, serving(config("lean")) as lean:
        yield {"stock": stock, "lean": lean}


def transcript(port: int, reads: list[bytes], pause: float = 0.02, echoed: bool = False) -> bytes:
    """Opens a socket, sends each of ``reads`` as its own TCP write (``pause`` apart, so
    the server reads them separately), and returns every byte the server sent after the
    handshake, until it closes the connection. ``echoed``: each read but the last is sent
    only once the server has answered the one before (the app's echo written, however
    loaded the machine), so that a bad frame after a good one finds its echo sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(HANDSHAKE)
        got = b""
        while b"\r\n\r\n" not in got:
            got += sock.recv(65536)
        assert got.startswith(b"HTTP/1.1 101"), got
        received = got.partition(b"\r\n\r\n")[2]
        for n, chunk in enumerate(reads):
            sock.sendall(chunk)
            time.sleep(pause)
            if echoed and n < len(reads) - 1:
                before = len(received)
                sock.settimeout(20)  # a loaded machine lags
                while len(received) == before:
                    received += sock.recv(65536)
                sock.settimeout(5)
        deadline = time.monotonic() + 20  # ends at the server's close; a loaded machine lags
        while time.monotonic() < deadline:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            received += data
        return received


def both(ports: dict[str, int], reads: list[bytes], pause: float = 0.02,
         echoed: bool = False) -> tuple[bytes, list[Any]]:
    """The scenario against both servers: what the client received and what the app heard,
    ending with the disconnect's close code (the same from both)."""
    results = {}
    for kind, port in ports.items():
        HEARD[kind].clear()
        received = transcript(port, reads, pause, echoed)
        for _ in range(500):
            if HEARD[kind] and isinstance(HEARD[kind][-1], int):
                break
            time.sleep(0.01)
        results[kind] = (received, HEARD[kind][:])
    assert results["lean"] == results["stock"]
    return results["lean"]


def frames_of(data: bytes) -> list[tuple[Opcode, bytes]]:
    """The server's (unmasked) frames in ``data``."""
    out = []
    while data:
        n = data[1] & 0x7F
        start = 2
        if n == 126:
            n, start = struct.unpack("!H", data[2:4])[0], 4
        elif n == 127:
            n, start = struct.unpack("!Q", data[2:10])[0], 10
        out.append((Opcode(data[0] & 0x0F), data[start:start + n]))
        data = data[start + n:]
    return out


def close_code(payload: bytes) -> int:
    code: int = struct.unpack("!H", payload[:2])[0]
    return code


BYE = close(1000, "bye")


@pytest.mark.timeout(120)
def test_a_read_report_split_at_every_byte_arrives_whole(ports: dict[str, int]) -> None:
    """A masked text frame split into two reads at every byte boundary (a short one, and
    one with a 16-bit length at every 7th) reaches the app whole, once each, in order."""
    report = '{"type":"read","game":"g1","inbox":"c1:general","upto":7}'
    long = "ж" * 100  # 200 bytes: the 16-bit length
    reads, sent = [], []
    for value, step in ((report, 1), (long, 7)):
        frame = text(value)
        for k in range(1, len(frame), step):
            reads += [frame[:k], frame[k:]]
            sent.append(value)
    received, heard = both(ports, [*reads, BYE], pause=0.005)
    assert heard == [*sent, 1000]
    assert frames_of(received) == [(Opcode.TEXT, v.encode()) for v in sent] + [
        (Opcode.CLOSE, struct.pack("!H", 1000) + b"bye")]


def test_several_frames_and_a_ping_in_one_read_are_handled_in_order(
        ports: dict[str, int]) -> None:
    """Five read reports, a ping and a binary message in one TCP write: the app hears the
    messages in the order sent; the pong is written while the read is parsed, before the
    app's echoes."""
    burst = (b"".join(text(f"report {n}") for n in range(3)) + masked(Opcode.PING, b"are you there")
             + text("report 3") + masked(Opcode.BINARY, b"\x00\x01") + text("report 4"))
    received, heard = both(ports, [burst, BYE])
    assert heard == ["report 0", "report 1", "report 2", "report 3", b"\x00\x01", "report 4", 1000]
    assert frames_of(received) == [
        (Opcode.PONG, b"are you there"), (Opcode.TEXT, b"report 0"), (Opcode.TEXT, b"report 1"),
        (Opcode.TEXT, b"report 2"), (Opcode.TEXT, b"report 3"), (Opcode.BINARY, b"\x00\x01"),
        (Opcode.TEXT, b"report 4"), (Opcode.CLOSE, struct.pack("!H", 1000) + b"bye")]


def test_a_fragmented_message_with_a_ping_inside_is_one_message(ports: dict[str, int]) -> None:
    """A text message in three fragments with a ping between them, then a whole frame in the
    same read as the last fragment: the pong first, then the message, then the next."""
    first = masked(Opcode.TEXT, "при".encode(), fin=False)
    middle = masked(Opcode.CONT, "в".encode(), fin=False)
    last = masked(Opcode.CONT, "ет".encode())
    received, heard = both(ports, [first, middle + masked(Opcode.PING, b"p"), last + text("next"), BYE])
    assert heard == ["привет", "next", 1000]
    assert frames_of(received) == [
        (Opcode.PONG, b"p"), (Opcode.TEXT, "привет".encode()), (Opcode.TEXT, b"next"),
        (Opcode.CLOSE, struct.pack("!H", 1000) + b"bye")]


def test_invalid_utf8_closes_with_1007(ports: dict[str, int]) -> None:
    """A report, then a text frame that is not UTF-8 (with a report after it in the same
    read): the first is heard and echoed, then the server closes with 1007, and the app
    hears 1007 and not the report after it."""
    received, heard = both(ports, [text("fine"), masked(Opcode.TEXT, b"\xd0caf\xff") + text("lost")], echoed=True)
    assert heard == ["fine", 1007]
    got = frames_of(received)
    assert got[0] == (Opcode.TEXT, b"fine")
    assert got[1][0] is Opcode.CLOSE and close_code(got[1][1]) == 1007
    assert len(got) == 2


def test_an_unmasked_client_frame_is_a_protocol_error(ports: dict[str, int]) -> None:
    """RFC 6455 §5.1: a client's frame must be masked; an unmasked one closes with 1002."""
    received, heard = both(ports, [text("fine"), masked(Opcode.TEXT, b"naked", mask=False)], echoed=True)
    assert heard == ["fine", 1002]
    got = frames_of(received)
    assert got[0] == (Opcode.TEXT, b"fine")
    assert got[1][0] is Opcode.CLOSE and close_code(got[1][1]) == 1002


@pytest.mark.parametrize("size", [MAX_SIZE + 1, 2**20])
def test_a_message_over_the_size_limit_closes_with_1009(ports: dict[str, int], size: int) -> None:
    """A frame over ``ws_max_size`` closes with 1009 as soon as its header arrives (only its
    first 14 bytes are sent); a message at the limit passes."""
    at_limit = "x" * MAX_SIZE
    received, heard = both(ports, [text(at_limit), masked(Opcode.TEXT, b"y" * size)[:14]], echoed=True)
    assert heard == [at_limit, 1009]
    got = frames_of(received)
    assert got[0] == (Opcode.TEXT, at_limit.encode())
    assert got[1][0] is Opcode.CLOSE and close_code(got[1][1]) == 1009


def test_the_close_handshake(ports: dict[str, int]) -> None:
    """The client's close (1001 "going away") in the same read as a last report and one
    after it: the last report is heard, the close echoed (the app's echo comes too late),
    the app hears 1001, and nothing after the close."""
    received, heard = both(ports, [text("last") + close(1001, "going away") + text("after")])
    assert heard == ["last", 1001]
    assert frames_of(received) == [(Opcode.CLOSE, struct.pack("!H", 1001) + b"going away")]


# --- the same stream, split at random, fed to both protocol classes -------------------

class RecordingTransport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.paused = False
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: Any) -> None:
        if not self.closed:
            self.written += data

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


PARSED: list[int] = []
"""The reads the last ``feed`` handed to websockets' parser after the handshake."""


async def feed(kind: str, reads: list[bytes], early: bytes = b"") -> tuple[list[Any], bytes]:
    """Every read into a fresh protocol of ``kind`` (the next only once the app has emptied
    the queue and reading resumed, as the event loop would), ``early`` in the handshake's
    read; returns what the app received and what the server wrote."""
    received: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            received.append(message)
            if message["type"] == "websocket.disconnect":
                return

    config = uvicorn.Config(app, ws_ping_interval=None, ws_per_message_deflate=False,
                            ws_max_size=MAX_SIZE, log_level="critical", lifespan="off")
    config.load()
    protocol = PROTOCOLS[kind](config, ServerState(), {})
    transport = RecordingTransport()
    protocol.connection_made(transport)
    protocol.data_received(HANDSHAKE + early)
    for _ in range(5):
        await asyncio.sleep(0)
    handshake = transport.written.index(b"\r\n\r\n") + 4
    parse = protocol.conn.receive_data
    PARSED.clear()

    def counted(data: bytes | bytearray) -> None:
        PARSED.append(len(data))
        parse(data)

    protocol.conn.receive_data = counted  # type: ignore[method-assign]
    for chunk in reads:
        if transport.closed:
            break
        for _ in range(20):
            if not transport.paused:
                break
            await asyncio.sleep(0)
        assert not transport.paused
        protocol.data_received(chunk)
    for _ in range(5):
        await asyncio.sleep(0)
    protocol.connection_lost(None)
    for _ in range(5):
        await asyncio.sleep(0)
    return received, bytes(transport.written[handshake:])


def message_frames() -> st.SearchStrategy[list[bytes]]:
    texts = st.text(max_size=40) | st.text(min_size=120, max_size=300)
    whole = texts.map(text)
    binary = st.binary(max_size=200).map(lambda b: masked(Opcode.BINARY, b))
    nested = st.text(max_size=20).map(lambda t: zero_masked(Opcode.BINARY, text(t)))
    ping = st.binary(max_size=20).map(lambda b: masked(Opcode.PING, b))
    pong = st.binary(max_size=20).map(lambda b: masked(Opcode.PONG, b))

    def fragmented(parts: list[str]) -> list[bytes]:
        frames = [masked(Opcode.TEXT if i == 0 else Opcode.CONT, p.encode(), fin=i == len(parts) - 1)
                  for i, p in enumerate(parts)]
        return frames

    one = st.one_of(whole.map(lambda f: [f]), binary.map(lambda f: [f]), nested.map(lambda f: [f]),
                    ping.map(lambda f: [f]),
                    pong.map(lambda f: [f]), st.lists(st.text(max_size=10), min_size=2,
                                                      max_size=4).map(fragmented))
    return st.lists(one, max_size=12).map(lambda groups: [f for g in groups for f in g])


FAULTS = {
    "none": b"",
    "unmasked": masked(Opcode.TEXT, b"naked", mask=False),  # 1002
    "oversize": masked(Opcode.TEXT, b"y" * (MAX_SIZE + 1))[:14],  # 1009 on the header
    "not utf-8": masked(Opcode.TEXT, b"\xff\xfe"),  # 1007
    "reserved bit": bytes((0xC1, 0x80)) + b"\0\0\0\0",  # RSV1 without deflate: 1002
    "bad opcode": bytes((0x83, 0x80)) + b"\0\0\0\0",  # 1002
    "stray continuation": masked(Opcode.CONT, b"x"),  # 1002
    "bad close code": close(999),  # 1002
}
"""What a broken client may send last (in a read of its own: see docs/decisions/recv8.md
for the one difference when good frames share its read)."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames=message_frames(), ending=st.sampled_from([b"", BYE, close(1001)]),
       fault=st.sampled_from(sorted(FAULTS)), cuts=st.lists(st.integers(min_value=0), max_size=12))
def test_random_streams_split_at_random_reach_the_app_as_with_the_stock_protocol(
        frames: list[bytes], ending: bytes, fault: str, cuts: list[int]) -> None:
    """Any sequence of reports, binary messages, pings, pongs and fragmented messages,
    optionally closed or followed by a broken frame, cut into reads anywhere: the app
    receives the same messages in the same order, then the same disconnect code, and the
    server writes the same bytes (pongs, the close frame)."""
    stream = b"".join(frames) + ending
    points = sorted({c % (len(stream) + 1) for c in cuts})
    reads = [stream[a:b] for a, b in zip([0, *points], [*points, len(stream)], strict=True) if b > a]
    if FAULTS[fault]:
        reads.append(FAULTS[fault])
    stock = asyncio.run(feed("stock", reads))
    lean = asyncio.run(feed("lean", reads))
    assert lean == stock
    messages = [f for f in frames if f[0] & 0x80 and f[0] & 0x0F in (Opcode.TEXT, Opcode.BINARY,
                                                                      Opcode.CONT)]
    assert sum(m["type"] == "websocket.receive" for m in lean[0]) == len(messages)
    assert lean[0][-1]["type"] == "websocket.disconnect"


def test_a_random_masked_report_decodes_as_websockets_decodes_it() -> None:
    """Random masks and lengths around the fast path's bounds (125, 126, 65535, 65536)."""
    for size in (0, 1, 3, 4, 5, 125, 126, 127, 65535, 65536):
        payload = os.urandom(size).hex()[:size]
        reads = [text(payload)]
        lean, stock = asyncio.run(feed("lean", reads)), asyncio.run(feed("stock", reads))
        assert lean == stock
        assert lean[0][0] == {"type": "websocket.receive", "text": payload}


def test_whole_reports_never_reach_the_websockets_parser() -> None:
    """Reads of whole masked text frames, one or several, are taken by the lean protocol
    itself; a ping among them hands websockets only the bytes from the ping on, and the
    next read of whole frames is the lean protocol's again."""
    reports = [text(f'{{"type":"read","game":"g1","inbox":"c1:general","upto":{n}}}')
               for n in range(1, 6)]
    ping = masked(Opcode.PING, b"p")
    reads = [reports[0], reports[1] + reports[2], reports[3] + ping + reports[4], reports[0]]
    lean = asyncio.run(feed("lean", reads))
    assert [len(ping + reports[4])] == PARSED
    stock = asyncio.run(feed("stock", reads))
    assert [len(r) for r in reads] == PARSED
    assert lean == stock
    assert [m.get("text", "")[-2:] for m in lean[0]] == ["1}", "2}", "3}", "4}", "5}", "1}", ""]


def test_a_binary_message_carrying_a_frame_split_before_it_is_one_message() -> None:
    """A binary message whose payload is a whole text frame, split where that inner frame
    begins: websockets is in the middle of the binary frame, so the second read is its
    payload, not a text message."""
    inner = text("not a message")
    outer = zero_masked(Opcode.BINARY, inner)
    reads = [outer[:6], outer[6:] + text("a message")]
    lean = asyncio.run(feed("lean", reads))
    assert lean == asyncio.run(feed("stock", reads))
    assert lean[0][:2] == [{"type": "websocket.receive", "bytes": inner},
                           {"type": "websocket.receive", "text": "a message"}]


def test_an_app_that_does_not_read_pauses_the_socket_as_with_the_stock_protocol() -> None:
    """Three reports in one read to an app that reads nothing: all three wait in the queue
    and the transport stops reading, as uvicorn's own protocol does; reading resumes once
    the app has taken the last."""
    async def scenario(kind: str) -> list[Any]:
        seen: list[Any] = []
        go = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            await go.wait()
            for _ in range(3):
                seen.append((await receive())["text"])
            seen.append(transport.paused)

        config = uvicorn.Config(app, ws_ping_interval=None, log_level="critical", lifespan="off")
        config.load()
        protocol = PROTOCOLS[kind](config, ServerState(), {})
        transport = RecordingTransport()
        protocol.connection_made(transport)
        protocol.data_received(HANDSHAKE)
        for _ in range(5):
            await asyncio.sleep(0)
        protocol.data_received(text("one") + text("two") + text("three"))
        seen += [transport.paused, protocol.queue.qsize()]
        go.set()
        for _ in range(5):
            await asyncio.sleep(0)
        protocol.connection_lost(None)
        return seen

    stock = asyncio.run(scenario("stock"))
    assert asyncio.run(scenario("lean")) == stock == [True, 3, "one", "two", "three", False]


def test_reports_right_behind_the_handshake_wait_in_websockets_then_the_fast_path_resumes() -> None:
    """A client that sends two reports and half of a third in the handshake's own read
    (before the app accepted): websockets holds those bytes, so the next read goes to it
    too; once its parser is idle the lean protocol takes whole reports again."""
    third = text("three")
    early = text("one") + text("two") + third[:4]
    reads = [third[4:], text("four"), text("five") + masked(Opcode.PING, b"p")]
    lean = asyncio.run(feed("lean", reads, early))
    assert [len(third) - 4] == PARSED[:1]
    assert PARSED[1:] == [len(masked(Opcode.PING, b"p"))]
    assert lean == asyncio.run(feed("stock", reads, early))
    assert [m.get("text") for m in lean[0]] == ["one", "two", "three", "four", "five", None]


def test_after_the_app_closes_later_reports_are_dropped_until_the_close_reply() -> None:
    """The app closes the socket (4000) after its first report; the client's reports sent
    before it saw the close are dropped, its close reply ends the handshake — as with the
    stock protocol."""
    async def scenario(kind: str) -> tuple[list[Any], bytes, bool]:
        seen: list[Any] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            seen.append((await receive())["text"])
            await send({"type": "websocket.close", "code": 4000})
            seen.append(await receive())

        config = uvicorn.Config(app, ws_ping_interval=None, log_level="critical", lifespan="off")
        config.load()
        protocol = PROTOCOLS[kind](config, ServerState(), {})
        transport = RecordingTransport()
        protocol.connection_made(transport)
        protocol.data_received(HANDSHAKE)
        for _ in range(5):
            await asyncio.sleep(0)
        start = len(transport.written)
        protocol.data_received(text("first"))
        for _ in range(5):
            await asyncio.sleep(0)
        protocol.data_received(text("late") + text("later"))
        protocol.data_received(close(4000))
        for _ in range(5):
            await asyncio.sleep(0)
        closed = transport.closed
        protocol.connection_lost(None)
        return seen, bytes(transport.written[start:]), closed

    lean = asyncio.run(scenario("lean"))
    assert lean == asyncio.run(scenario("stock"))
    seen, written, closed = lean
    assert seen == ["first", {"type": "websocket.disconnect", "code": 4000, "reason": ""}]
    assert frames_of(written) == [(Opcode.CLOSE, struct.pack("!H", 4000))]
    assert closed


# --- the keepalive: pings written as six bytes, pongs taken on the fast path -------------

@pytest.fixture(scope="module")
def pinging() -> Iterator[dict[str, int]]:
    """Both protocols pinging every 0.2 s, giving up after 0.6 s without the pong."""
    def config(kind: str) -> Any:
        def make(port: int) -> uvicorn.Config:
            made: uvicorn.Config = server_config(echo(kind), "127.0.0.1", port, log_level="critical",
                                                 ws=PROTOCOLS[kind], ws_max_size=MAX_SIZE,
                                                 ws_ping_interval=0.2, ws_ping_timeout=0.6)
            return made
        return make

    with serving(config("stock")) as stock, serving(config("lean")) as lean:
        yield {"stock": stock, "lean": lean}


def keepalive(port: int, client: str, seconds: float) -> tuple[list[tuple[Opcode, bytes]], bool]:
    """A raw client for ``seconds``: "answering" each ping with its pong and nothing else,
    "silent" (never a byte), or "busy" (a read report every 50 ms, each echoed back, and
    the pongs): the frames the server sent, and whether it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(HANDSHAKE)
        got = b""
        while b"\r\n\r\n" not in got:
            got += sock.recv(65536)
        pending, frames, closed = got.partition(b"\r\n\r\n")[2], [], False
        sock.settimeout(0.05)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not closed:
            if client == "busy":
                sock.sendall(text("still here"))
            with contextlib.suppress(TimeoutError):
                data = sock.recv(65536)
                closed = not data
                pending += data
            while len(pending) >= 2 and len(pending) >= 2 + (pending[1] & 0x7F):
                (frame,) = frames_of(pending[:2 + (pending[1] & 0x7F)])
                pending = pending[2 + (pending[1] & 0x7F):]
                frames.append(frame)
                if frame[0] is Opcode.PING and client != "silent":
                    sock.sendall(masked(Opcode.PONG, frame[1]))
                closed = closed or frame[0] is Opcode.CLOSE
        return frames, closed


@pytest.mark.timeout(60)
@pytest.mark.parametrize("client", ["answering", "silent"])
def test_the_keepalive_pings_and_gives_up_as_the_stock_protocol_does(
        pinging: dict[str, int], client: str) -> None:
    """A quiet client that answers every ping stays connected, pinged again and again, each
    ping a 4-byte payload; one that never answers is closed with 1011 once the pong is
    overdue, by both protocols alike."""
    runs = {kind: keepalive(port, client, 1.5) for kind, port in pinging.items()}
    for kind, (frames, closed) in runs.items():
        pings = [data for op, data in frames if op is Opcode.PING]
        if client == "answering":
            assert not closed and len(pings) >= 4, kind
            assert all(len(p) == 4 for p in pings) and len(set(pings)) == len(pings)
        else:
            assert closed and len(pings) == 1, kind
            assert [close_code(d) for op, d in frames if op is Opcode.CLOSE] == [1011]


@pytest.mark.timeout(60)
def test_a_socket_busy_both_ways_is_not_pinged(pinging: dict[str, int]) -> None:
    """A client whose reports come and go all the time shows it is there: the lean
    protocol does not ping it (uvicorn's pings it every interval regardless), and it stays
    connected with every report echoed."""
    runs = {kind: keepalive(port, "busy", 1.5) for kind, port in pinging.items()}
    stock, lean = runs["stock"], runs["lean"]
    assert not lean[1] and not stock[1]
    assert [op for op, _ in lean[0] if op is not Opcode.TEXT] == []
    assert sum(op is Opcode.TEXT for op, _ in lean[0]) >= 20
    assert sum(op is Opcode.PING for op, _ in stock[0]) >= 2  # ~7 on an idle machine


def test_a_pong_and_the_reports_around_it_never_reach_the_websockets_parser() -> None:
    """The keepalive's answer between two reports is taken by the lean protocol itself, as
    are the reports: websockets' parser sees none of that read."""
    reads = [text("before") + masked(Opcode.PONG, b"\x01\x02\x03\x04") + text("after")]
    lean = asyncio.run(feed("lean", reads))
    assert PARSED == []
    assert lean == asyncio.run(feed("stock", reads))
    assert [m.get("text") for m in lean[0]] == ["before", "after", None]
