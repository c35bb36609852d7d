"""The WebSocket transport under uvicorn, trimmed for many idle sockets and wide fan-out.

``LeanWebSocketProtocol`` is uvicorn's own ``websockets-sansio`` protocol (what
``ws="auto"`` picks with websockets installed; the legacy ``websockets`` implementation is
deprecated and runs four tasks per socket) with two changes (issue 17):

- **Memory per socket**: the queue of received messages and the "writable" flag were an
  ``asyncio.Queue`` (four deques and an ``Event``) and an ``asyncio.Event`` (one more
  deque); here they are a deque with one waiter and a flag whose waiters list exists only
  while the transport is paused.
- **The handshake's request and response are dropped once the socket is open** (the ASGI
  scope keeps what the app reads).
- **A sent text frame is one ``transport.write``** with no await when the socket is open
  and writable: the frame header is packed here instead of going through the sans-I/O
  protocol's ``Frame`` object, its serializer and its output list for every delivery. A
  paused transport (a slow reader), a binary frame, a close, an extension (none is
  negotiated: ``ws_per_message_deflate`` is off) all take uvicorn's own path.
- **A received text frame skips the sans-I/O parser** (``data_received``): while the socket
  is open and websockets' parser waits, with nothing buffered, for the next frame, the whole,
  final, masked text frames at the start of a read (live.js's read reports and pings: small
  JSON) are unmasked and decoded here and queued for the app as uvicorn queues them, with no
  ``Frame``, no generator step and no event list per message; so are pongs (the keepalive's
  answers), handed to uvicorn's ``handle_pong``. The first other frame (another control
  frame, binary, a fragment, a partial frame, an unmasked or oversize one) and everything
  after it in that read go to websockets, which then owns the stream until its parser is
  idle again at a frame boundary: bytes are never reordered or parsed twice.
- **The keepalive runs from one timer per process** (``keepalive.py``) instead of two per
  socket, and pings only a socket that was not busy both ways since its last visit; the
  ping is written as its six bytes.
- **The app may take a received text frame synchronously** (``on_text``): while its receive
  loop waits with nothing queued, a frame the app can handle at once (a read report answered
  from memory, a ping) is handed to it as it is read, and the waiting loop is not woken: no
  coroutine, future or task step per frame, which were most of what the collector's young
  generations held with 5,000 sockets (docs/performance.md, session 9). A frame it declines
  is queued as before.
- **The app may write a text frame synchronously** (``try_send_text``), found in the ASGI
  scope's extensions under ``TRANSPORT``: the fan-out writes each subscriber's frame as an
  event is published, with no task, coroutine or ASGI ``send`` chain per delivery
  (``web/ws/endpoint.py``); it falls back to ``send`` whenever that cannot be done at once.
- **A batch's frames to one socket are one write** (``HeldFrames``): while the broker
  publishes a game's batch of several events (a lane's commit of several commands), each
  socket's frames are kept and written together when the publish ends.
- **Whether a frame may be written at once is kept, not asked** (``sendable``): recomputed
  whenever uvicorn's state attributes, the writable flag or websockets' connection state
  change, so a delivery reads one attribute of the socket instead of six on three objects.
"""

from __future__ import annotations

import asyncio
import random
import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

from ...service.pubsub import Broker, Buffer
from .keepalive import Keepalive, keepalive_for

try:  # what websockets' own parser unmasks with: its C extension, or its pure Python
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover
    from websockets.utils import apply_mask

TRANSPORT = "lepromafia.transport"
"""The scope extension that holds the socket's ``LeanWebSocketProtocol``."""

_TEXT = 0x81
"""FIN and the text opcode: every frame the server sends is one whole unmasked message."""


class _Flag:
    """What ``asyncio.Event`` did for "the transport is writable"; each change rechecks its
    socket's ``sendable``."""

    __slots__ = ("on", "owner", "waiters")

    def __init__(self, owner: LeanWebSocketProtocol | None = None) -> None:
        self.on = True
        self.owner = owner
        self.waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self.on

    def set(self) -> None:
        self.on = True
        if self.owner is not None:
            self.owner.recheck()
        waiters, self.waiters = self.waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self.on = False
        if self.owner is not None:
            self.owner.recheck()

    async def wait(self) -> None:
        while not self.on:
            waiter = asyncio.get_running_loop().create_future()
            if self.waiters is None:
                self.waiters = []
            self.waiters.append(waiter)
            await waiter


def frame_header(n: int) -> bytes:
    """The header of one unmasked, final text frame (RFC 6455 §5.2) of ``n`` bytes."""
    if n < 126:
        return bytes((_TEXT, n))
    if n < 65536:
        return _HEADER_16.pack(_TEXT, 126, n)
    return struct.pack("!BBQ", _TEXT, 127, n)


_HEADER_16 = struct.Struct("!BBH")


def text_frame(data: bytes) -> bytes:
    """One unmasked, final text frame (RFC 6455 §5.2) carrying ``data``."""
    return frame_header(len(data)) + data


_RECEIVED_TEXT = 0x81
"""FIN, no reserved bits, the text opcode: a whole text message in one frame."""
_FAST_MAX = 65535
"""The largest payload the receive path takes itself (a 16-bit length); larger frames, rare
from a browser's read reports, go to websockets."""
_FRAME_START = StreamReader.at_eof.__code__
_OPEN = State.OPEN
_PING = b"\x89\x04"
"""FIN, the ping opcode, a 4-byte payload: the keepalive ping's header."""
_RECEIVED_PONG = 0x8A
"""FIN and the pong opcode: a client's answer to the keepalive ping."""


class _Pong:
    """What uvicorn's ``handle_pong`` reads of a pong ``Frame``."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data


def parser_idle(conn: Protocol) -> bool:
    """websockets' parser holds no bytes and waits for the first byte of a frame (its
    generator is suspended in ``StreamReader.at_eof``, not inside ``Frame.parse``)."""
    if conn.reader.buffer:
        return False
    gen: Any = conn.parser
    while (inner := gen.gi_yieldfrom) is not None:
        gen = inner
    return gen.gi_code is _FRAME_START


class HeldFrames:
    """The broker's ``WriteHold`` for this process's sockets: while a game's batch of
    several events is published, each socket's frames are kept and written at the end as
    one ``transport.write`` (issue 17: a socket's write, a system call and the kernel's
    loopback, was a quarter of a saturated post's CPU, and a busy city's readers get
    several lines of one batch). The bytes and their order are those of one write per
    frame; only the system calls are fewer."""

    __slots__ = ("on", "sockets")

    def __init__(self) -> None:
        self.on = False
        self.sockets: list[LeanWebSocketProtocol] = []

    def hold(self) -> None:
        self.on = True

    def release(self) -> None:
        self.on = False
        sockets, self.sockets = self.sockets, []
        for socket in sockets:
            socket.write_held()


def held_frames(broker: Broker) -> HeldFrames:
    """The broker's hold of its sockets' writes, made on first use."""
    writes = broker.writes
    if not isinstance(writes, HeldFrames):
        writes = broker.writes = HeldFrames()
    return writes


class _WatchedConnection(ServerProtocol):
    """websockets' server protocol, telling its socket of each change of its state (the
    peer's close frame parsed, a close sent, the handshake accepted): ``recheck``."""

    socket: LeanWebSocketProtocol | None = None

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        _PROTOCOL_STATE.fset(self, state)  # websockets' own, with its debug log
        if self.socket is not None:
            self.socket.recheck()


_PROTOCOL_STATE: Any = Protocol.state


def _rechecked(name: str) -> Any:
    """One of uvicorn's attributes of a socket's state, each assignment of which rechecks
    the socket's ``sendable`` (uvicorn sets them in a dozen places)."""
    key = "_" + name

    def get(self: Any) -> Any:
        return self.__dict__[key]

    def put(self: Any, value: Any) -> None:
        self.__dict__[key] = value
        self.recheck()

    return property(get, put)


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    on_text: Callable[[str], bool] | None = None
    """Set by the app: takes a received text message at once (True), or declines it (False:
    it is queued for the app's receive loop). Called only while that loop waits with nothing
    queued, so messages are never taken out of order; it must not raise."""

    heard = False
    """Bytes came from the peer since the keepalive's last visit."""
    spoke = False
    """A message went to the peer since the keepalive's last visit (pings do not count)."""
    keepalive: Keepalive | None = None
    held: list[bytes] | None = None
    """Frames kept while a publish holds the writes (``HeldFrames``)."""
    sendable = False
    """A frame may be written at once: the socket is open (the handshake done, no close sent
    or received, not disconnected, no extension) and writable. Kept current by every change
    of what it depends on (``recheck``) instead of asked of six attributes of three objects
    for every delivery (issue 17: cold objects, not instructions, bound a saturated
    fan-out's Python)."""
    handshake_complete = _rechecked("handshake_complete")
    close_sent = _rechecked("close_sent")
    disconnected = _rechecked("disconnected")
    initial_response = _rechecked("initial_response")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Buffer[Any]()  # type: ignore[assignment]
        self.writable = _Flag(self)  # type: ignore[assignment]
        self.conn.__class__ = _WatchedConnection
        self.conn.socket = self  # type: ignore[attr-defined]
        self.recheck()

    def recheck(self) -> None:
        """``sendable`` from the state it depends on (what is not set yet, during
        ``__init__``, makes it False)."""
        mine = self.__dict__
        conn, writable = mine.get("conn"), mine.get("writable")
        self.sendable = bool(
            isinstance(writable, _Flag) and writable.on and mine.get("_handshake_complete")
            and not mine.get("_close_sent", True) and not mine.get("_disconnected", True)
            and mine.get("_initial_response") is None
            and conn is not None and conn._state is _OPEN and not conn.extensions)

    def data_received(self, data: bytes) -> None:
        self.heard = True
        conn = self.conn
        if (conn.state is not State.OPEN or self.close_sent or conn.current_size is not None
                or conn.extensions or conn.debug or not parser_idle(conn)):
            super().data_received(data)
            return
        taken = self._take_texts(data)
        if taken < len(data):
            super().data_received(data[taken:] if taken else data)

    def _take_texts(self, data: bytes) -> int:
        """Queue the whole, final, masked text frames at the start of ``data`` for the app;
        returns where the first other frame (or an incomplete one) begins. Invalid UTF-8
        fails the connection with 1007, as uvicorn does, and discards the rest of the read."""
        limit = self.conn.max_message_size
        cap = _FAST_MAX if limit is None or limit > _FAST_MAX else limit
        end = len(data)
        pos = 0
        while end - pos >= 6 and (first := data[pos]) in (_RECEIVED_TEXT, _RECEIVED_PONG):
            length = data[pos + 1] ^ 0x80  # the mask bit set: 0-127; a client's unmasked: more
            if length < 126:
                start = pos + 6
            elif length == 126 and first == _RECEIVED_TEXT and end - pos >= 8:
                length = data[pos + 2] << 8 | data[pos + 3]
                start = pos + 8
            else:  # a 64-bit length, an unmasked frame, an incomplete header
                break
            stop = start + length
            if stop > end or length > cap:
                break
            if first == _RECEIVED_PONG:  # the keepalive's answer: uvicorn's own bookkeeping
                self.handle_pong(_Pong(apply_mask(data[start:stop], data[start - 4:start])))  # type: ignore[arg-type]
                pos = stop
                continue
            try:
                text = apply_mask(data[start:stop], data[start - 4:start]).decode()
            except UnicodeDecodeError:
                self.logger.exception("Invalid UTF-8 sequence received from client.")
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return end
            pos = stop
            if self._taken(text):
                continue
            self.queue.put_nowait({"type": "websocket.receive", "text": text})
            if not self.read_paused:
                self.read_paused = True
                self.transport.pause_reading()
        return pos

    def _taken(self, text: str) -> bool:
        """The app took ``text`` at once (``on_text``), its receive loop left waiting."""
        handler = self.on_text
        queue: Buffer[Any] = self.queue  # type: ignore[assignment]
        if handler is None or not queue.awaited():
            return False
        try:
            return handler(text)
        except Exception:  # a bug of the app's: its receive loop handles the message instead
            self.logger.exception("on_text failed")
            return False

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the app's task has not run yet: it finds us there
            scope.setdefault("extensions", {})[TRANSPORT] = self

    def start_keepalive(self) -> None:
        """The socket joins its process's keepalive (``keepalive.py``): no timers of its own."""
        if self.ping_interval is not None and self.ping_interval > 0:
            self.keepalive = keepalive_for(self.loop, self.ping_interval)
            self.keepalive.join(self)

    def stop_keepalive(self) -> None:
        if self.keepalive is not None:
            self.keepalive.leave(self)
            self.keepalive = None
        super().stop_keepalive()

    def keepalive_visit(self, now: float) -> None:
        """Once per ping interval: nothing if the socket was busy both ways since the last
        visit; closed (1011) if a ping went unanswered past ``ping_timeout``; else pinged."""
        heard, spoke = self.heard, self.spoke
        self.heard = self.spoke = False
        if heard:
            self.pending_ping_payload = None  # alive: an answer to any ping is not awaited
            if spoke:
                return
        elif self.pending_ping_payload is not None:
            if self.ping_timeout is not None and now - self.ping_sent_at >= self.ping_timeout:
                self.keepalive_timeout()
            return
        self.send_keepalive_ping()

    def send_keepalive_ping(self) -> None:
        """A keepalive ping, its 6 bytes written at once (no ``Frame``, no sans-I/O output
        list), with no timer: the next visit checks the answer."""
        if self.close_sent or self.transport.is_closing():
            return
        self.pending_ping_payload = payload = struct.pack("!I", random.getrandbits(32))
        self.ping_sent_at = self.loop.time()
        if self.sendable:
            self.transport.write(_PING + payload)
        else:
            self.conn.send_ping(payload)
            self.transport.write(b"".join(self.conn.data_to_send()))

    def try_send_text(self, text: str) -> bool:
        """Write one text frame now, if the socket is open and writable; False (nothing
        written) otherwise: the caller then sends through ``send``, which waits."""
        if not self.sendable:
            return False
        self.put_frame(text_frame(text.encode()))
        return True

    def put_frame(self, frame: bytes, hold: HeldFrames | None = None) -> None:
        """Write a text frame already framed (``text_frame``, ``Frames.wire``) now, or keep
        it until ``hold`` is released while it is on; only while ``sendable``
        (nothing ran since it was read)."""
        self.spoke = True
        if hold is not None and hold.on:
            held = self.held
            if held is None:
                self.held = [frame]
                hold.sockets.append(self)
            else:
                held.append(frame)
            return
        self.transport.write(frame)

    def write_held(self) -> None:
        """Write the frames kept by a hold, as one write (nothing ran on this socket since
        they were taken: the publish that held them does not await)."""
        held, self.held = self.held, None
        if held and not self.transport.is_closing():
            self.transport.write(held[0] if len(held) == 1 else b"".join(held))

    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.send":
            self.spoke = True
        if message["type"] == "websocket.send" and self.sendable:
            text = message.get("text")
            if text is not None and message.get("bytes") is None:
                self.transport.write(text_frame(text.encode()))
                return
        await super().send(message)
        if message["type"] == "websocket.accept":
            # the handshake's request and response (their header objects: ~5 KB) are not
            # read again once the socket is open: the ASGI scope keeps what the app reads
            self.request = None  # type: ignore[assignment]
            self.response = None  # type: ignore[assignment]
