"""``/ws``: per-viewer, gapless streams of any number of games.

Each viewer's stream holds only the events he may see, numbered by his own position
(``service.streams``); the client's ``since_seq`` is such a position. On ``subscribe``
the socket first joins the broker (bounded queue), maps the position to the global seq
of the viewer's last event (server-side only), replays the store after it, then forwards
live deliveries, skipping what the replay already sent. A delivery says after which seq
nothing was missed (``Delivery.after``); the feed fills a hole from the store, and sends
the client only visible events, each numbered one past the previous: nothing of an
invisible event leaves the server. A client that falls
``ws_buffer`` events behind is dropped from that game with ``resync`` and resumes. At most
``ADMITTED`` sockets read the store (their session, a subscribe) at once: a reconnect storm
waits in memory, not in the connection pool's queue.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, TypeAdapter, ValidationError

from ...service.accounts import SessionExpired
from ...service.errors import ServiceError
from ...service.pubsub import Delivery, Sink, Subscription
from ..deps import SESSION_COOKIE, Web
from ..errors import WebError, WebErrorCode, describe
from ..i18n import normalize
from ..security import frame_ok, ticket_parts
from . import commands
from .content import NOT_READY, PUSHED, PushedContent, pushed_content
from .protocol import (
    COMMAND_REF,
    GAME_REF,
    Command,
    ErrorMessage,
    Ping,
    Pong,
    ReadReport,
    Resync,
    Subscribe,
    Subscribed,
    Unread,
    Unsubscribe,
    View,
    client_message,
)
from .reads import SocketReads
from .transport import TRANSPORT, HeldFrames, held_frames

router = APIRouter()

MAX_BACKLOG = 20000
MAX_MESSAGE = 4096
"""Characters in a frame; a ``command`` (a long chat message) may be as large as an HTTP
body (``WebSettings.max_body_bytes``)."""
MAX_VIEWS = 8
"""Games a socket's ``view`` may name at once (a page shows one): more are ignored, so a
client cannot make the server keep views without bound."""
ADMITTED = 8
"""Sockets that may read the store for their session or a subscribe at the same time. A
reconnect storm after a restart (thousands of sockets within seconds) waits here, in
memory and in arrival order, instead of in the connection pool's queue, whose 30 s
timeout turned the wait into errors and retries (issue 17); the pool keeps room for the
pages and the writer lanes."""


def admission(web: Web) -> asyncio.Semaphore:
    if web.ws_admission is None:
        web.ws_admission = asyncio.Semaphore(ADMITTED)
    return web.ws_admission


@dataclass(slots=True)
class _Feed:
    game: str
    sub: Subscription
    last: int
    """The global seq of the last event handled (server-side only)."""
    position: int
    """The viewer's position: how many events he has been sent."""
    task: asyncio.Task[None] | None = None
    idle: bool = False
    """The pump waits on an empty queue: a delivery may be written at once (``direct``)."""
    conn: Connection | None = None
    """The socket's connection, once the feed takes deliveries as they are published
    (``Connection.sink``); what ``direct`` reads of it and of its transport is kept here
    beside it, so that a delivery touches this object and the socket's protocol and
    transport, not the connection's and the web app's (issue 17: cold objects, not
    instructions, bound the fan-out's Python at saturation)."""
    socket: Any = None
    """The connection's ``LeanWebSocketProtocol``."""
    viewer: str | None = None
    lang: str = ""
    pushed: PushedContent | None = None
    hold: HeldFrames | None = None
    metrics: Any = None

    def direct(self, seq: int, event: Any, after: int | None) -> bool:
        """``Connection._forward`` done at once, as the event is published, when nothing is
        to be read or awaited: the pump idle on an empty queue, no hole, the content
        rendered, the socket writable. True: sent (or nothing to send); False: nothing
        done, the delivery goes through the queue and the pump (issue 17: no task,
        coroutine, ASGI send chain or ``Delivery`` per delivery; a game's publish writes
        every reader's frame). The broker's ``Sink``."""
        if not self.idle:
            return False
        last = self.last
        if seq <= last:
            return True
        if after is None or after > last:
            return False
        socket = self.socket
        if not socket.sendable:
            return False
        pushed = self.pushed
        assert pushed is not None  # set with the sink
        html = None
        if isinstance(event, PUSHED):
            html = pushed.rendered.get((self.game, seq, self.lang), NOT_READY)
            if html is NOT_READY:
                return False
        frame = pushed.frames.wire(self.game, seq, event, self.viewer, self.position + 1, html)
        if frame is not None:
            socket.put_frame(frame, self.hold)
            self.position += 1
            conn = self.conn
            if conn is not None and conn.reading:
                conn._seen(self.game, seq, event)
            if self.metrics is not None:
                self.metrics.delivered += 1
        self.last = seq
        return True


@dataclass(slots=True)
class Connection:
    ws: WebSocket
    web: Web
    viewer: str | None
    lang: str
    feeds: dict[str, _Feed] = field(default_factory=dict)
    token: str | None = None
    """The session token the socket opened with (cookie or bearer), resolved again for
    every command (``web.ws.commands``); None for a ticket or a visitor."""
    transport: Any = None
    """The socket's ``LeanWebSocketProtocol`` (``web.ws.transport``) when the server runs
    it: deliveries are then written as they are published (``_Feed.direct``)."""
    reading: dict[str, frozenset[str]] = field(default_factory=dict)
    """game -> the inboxes whose threads the page shows on screen (``view``): a message of
    one delivered on the socket is read."""
    commanding: asyncio.Task[None] | None = None
    """The command taken as it was read (``taken_at_once``), while it runs: until it is
    answered every later frame waits in the receive loop, which handles it only then (one
    command at a time, every frame in the order sent)."""

    def take_command(self, msg: Command) -> None:
        """Run ``msg`` now, in a task of its own (no command of the socket runs)."""
        assert self.commanding is None
        self.commanding = asyncio.create_task(self._answer(msg))

    async def _answer(self, msg: Command) -> None:
        """A command taken at once, answered as the receive loop answers one (``commands.run``
        answers every refusal and failure); a socket closed under its answer leaves the
        command's effect, as a closed HTTP request does."""
        try:
            await commands.run(self, msg)
        except (WebSocketDisconnect, RuntimeError, OSError):  # the answer found it closed
            pass
        finally:
            self.commanding = None

    async def after_command(self) -> None:
        """The receive loop's wait for a command taken at once, before its next frame (the
        loop cancelled meanwhile leaves the command to run and be answered)."""
        if self.commanding is not None:
            await asyncio.shield(self.commanding)

    async def send(self, message: BaseModel) -> None:
        # No lock: uvicorn writes each frame whole, synchronously, and senders that wait for
        # a full socket to drain resume in the order they came (issue 17, the fan-out).
        await self.send_text(message.model_dump_json())

    async def send_text(self, text: str) -> None:
        """Written at once when the socket is writable (no ASGI send chain per frame), else
        sent the ASGI way, waiting for the socket to drain: every frame of the socket."""
        if self.transport is None or not self.transport.try_send_text(text):
            await self.ws.send_text(text)

    def view(self, msg: View) -> None:
        """What the page shows, and whether on screen: from now on each message of those
        inboxes this socket is sent moves the viewer's read marker (``ReadMarks.seen``),
        as the page's own report would; none while it is hidden (the page reports what
        it showed then when it is shown again). A visitor has no marker."""
        if self.viewer is None or not msg.visible or not msg.inboxes:
            self.reading.pop(msg.game, None)
        elif msg.game in self.reading or len(self.reading) < MAX_VIEWS:
            self.reading[msg.game] = frozenset(msg.inboxes)

    def _seen(self, game: str, seq: int, event: Any) -> None:
        """A frame of ``event`` (global ``seq``) was just sent: read, if its inbox is shown."""
        inboxes = self.reading.get(game)
        inbox = event.inbox if isinstance(event, PUSHED) else None
        if inboxes is not None and inbox in inboxes and self.viewer is not None:
            self.web.queries.read_marks.seen(game, inbox, self.viewer, seq)

    async def error(self, exc: BaseException, game: str | None = None, command: str | None = None) -> None:
        info = describe(exc, self.lang)
        if info is None:
            raise exc
        await self.refuse(ErrorMessage(code=info.code, message=info.message, game=game, id=command))

    async def refuse(self, message: ErrorMessage) -> None:
        """An ``error`` frame, without the keys it leaves empty."""
        await self.send_text(message.model_dump_json(exclude_none=True))

    async def subscribe(self, msg: Subscribe) -> None:
        """Read what the subscribe needs from the store behind the ``admission`` gate, then
        send the catch-up outside it: a client that does not read (its sends wait on a
        full socket) holds only itself, never the gate every other socket needs."""
        async with admission(self.web):
            ready = await self._prepare(msg)
        if ready is not None:
            await self._begin(*ready)

    async def _prepare(self, msg: Subscribe) -> tuple[_Feed, int, list[Delivery]] | None:
        self.unsubscribe(msg.game)
        web = self.web
        await web.queries.state(msg.game)  # ServiceError(unknown_game) if there is none
        web.service.hold(msg.game)  # several workers: its commands will come here too
        sub = web.service.broker.subscribe(msg.game, self.viewer, maxsize=web.settings.ws_buffer)
        version = await web.queries.version(msg.game)
        seqs = await web.queries.streams.visible_seqs(msg.game, self.viewer, version)
        if msg.since_seq > len(seqs):
            sub.close()
            await self.send(Resync(game=msg.game, since_seq=0, reason="ahead_of_server"))
            return None
        if len(seqs) - msg.since_seq > MAX_BACKLOG:
            sub.close()
            await self.send(Resync(game=msg.game, since_seq=len(seqs), reason="too_far_behind"))
            return None
        if msg.since_seq == len(seqs):
            # He has seen everything of his up to ``version``: nothing to read or send (a
            # reconnect storm after a restart is mostly such sockets: issue 17).
            last, backlog = version, []
        else:
            last = seqs[msg.since_seq - 1] if msg.since_seq else 0
            try:  # the catch-up is read before "subscribed": a failed read subscribes nothing
                backlog = await web.queries.deliveries(msg.game, self.viewer, last, version)
            except BaseException:
                sub.close()
                raise
        feed = _Feed(msg.game, sub, last, msg.since_seq)
        self.feeds[msg.game] = feed
        return feed, len(seqs), backlog

    async def _begin(self, feed: _Feed, version: int, backlog: list[Delivery]) -> None:
        await self.send(Subscribed(game=feed.game, version=version))
        for early in backlog:  # a catch-up pushes no content: one re-fetch draws it all
            await self._forward(feed, early, push=False)
        feed.task = asyncio.create_task(self._pump(feed))
        if self.transport is not None:
            feed.sub.sink = self.sink(feed)

    def sink(self, feed: _Feed) -> Sink:
        """The feed's ``Subscription.sink``: ``_Feed.direct`` as the broker publishes."""
        feed.conn, feed.socket, feed.viewer, feed.lang = self, self.transport, self.viewer, self.lang
        feed.pushed, feed.metrics = pushed_content(self.web), self.web.metrics
        feed.hold = held_frames(self.web.service.broker)
        return feed.direct

    async def _forward(self, feed: _Feed, item: Delivery, push: bool = True) -> None:
        """Send one delivery (``push``: with its page content, ``web.ws.content``)."""
        if item.seq <= feed.last:
            return
        if item.after is None or item.after > feed.last:  # a hole (a lost relay): the store
            for early in await self.web.queries.deliveries(feed.game, self.viewer, feed.last,
                                                           item.seq - 1):
                await self._forward(feed, early, push=False)
        event = item.event
        if event is not None:
            pushed = pushed_content(self.web)
            html = None
            if push and isinstance(event, PUSHED):
                done, html = pushed.ready(feed.game, item.seq, self.lang)
                if not done:
                    html = await pushed.fragment(self.web, feed.game, item.seq, event, self.lang)
            # encoded once per event and content, his position spliced in (web.ws.content.Frames);
            # None: the audience filter does not admit him (the broker already asked)
            text = pushed.frames.frame(feed.game, item.seq, event, self.viewer, feed.position + 1, html)
            if text is not None:
                feed.position += 1
                await self.send_text(text)
                if self.reading:
                    self._seen(feed.game, item.seq, event)
                if self.web.metrics is not None:
                    self.web.metrics.delivered += 1
        feed.last = item.seq

    async def _pump(self, feed: _Feed) -> None:
        queue = feed.sub.queue
        while True:
            while queue.empty():
                feed.idle = True
                try:
                    await queue.wait()
                finally:
                    feed.idle = False
            item = queue.get_nowait()
            if feed.sub.overflowed:
                self.feeds.pop(feed.game, None)
                await self.send(Resync(game=feed.game, since_seq=feed.position, reason="slow_client"))
                return
            await self._forward(feed, item)

    def unsubscribe(self, game: str) -> None:
        feed = self.feeds.pop(game, None)
        if feed is not None:
            feed.sub.sink = None
            feed.conn = None  # the feed no longer holds the connection
            feed.sub.close()
            if feed.task is not None:
                feed.task.cancel()

    def close(self) -> None:
        for game in list(self.feeds):
            self.unsubscribe(game)


async def _viewer(ws: WebSocket, web: Web) -> tuple[str | None, str | None]:
    """The viewer and his session token: the session cookie, a bearer header, or a one-time
    ``?ticket=`` (never the session token itself in the URL: F4-5; no token then); read
    behind the ``admission`` gate."""
    async with admission(web):
        return await _resolve_viewer(ws, web)


async def _resolve_viewer(ws: WebSocket, web: Web) -> tuple[str | None, str | None]:
    ticket = ws.query_params.get("ticket")
    if ticket:
        found = ticket_parts(web.settings.signing_key(), ticket, web.now())
        if found is None or not await web.accounts.consume_nonce("ws:" + found[1], found[2]):
            return None, None
        user = await web.accounts.user(found[0])
        return (user.user_id if user else None), None
    header = ws.headers.get("authorization", "")
    token = header[7:].strip() if header.lower().startswith("bearer ") else ws.cookies.get(SESSION_COOKIE)
    try:
        found_user = await web.accounts.resolve(token)
    except SessionExpired:
        return None, None
    return (found_user.user_id, token) if found_user else (None, None)


def origin_allowed(ws: WebSocket, extra: list[str]) -> bool:
    """Cross-site WebSocket hijacking guard: a browser always sends ``Origin``; it must be
    this site (same host and port as the request's ``Host``) or a configured origin. A client
    without ``Origin`` (the CLI, bots) is not a browser and carries no ambient cookie risk."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    if origin.rstrip("/") in {o.rstrip("/") for o in extra}:
        return True
    parsed = urlsplit(origin)
    host = ws.headers.get("host", "")
    return parsed.scheme in ("http", "https") and bool(host) and parsed.netloc.lower() == host.lower()


def _named(decoded: Any) -> tuple[str | None, str | None]:
    """The game and command id of a refused ``command`` frame, where it names them validly:
    its refusal carries them, so the client that waits for that command hears of it."""
    if type(decoded) is not dict or decoded.get("type") != "command":
        return None, None
    return _valid(GAME_REF, decoded.get("game")), _valid(COMMAND_REF, decoded.get("id"))


def _valid(ref: TypeAdapter[str], value: Any) -> str | None:
    try:
        return ref.validate_python(value, strict=True)
    except ValidationError:
        return None


PONG = Pong().model_dump_json()


def taken_at_once(text: str, conn: Connection, reads: SocketReads) -> bool:
    """A received frame handled as the transport reads it (``LeanWebSocketProtocol.on_text``),
    without waking the receive loop: a read report answered from memory, a page's ``view``,
    a ping whose pong is written at once, or a valid ``command``, run in a task of its own
    (issue 17). Anything else, anything that needs an answer that cannot be written now (a
    refusal), and every frame while a command still runs is declined: the receive loop then
    takes it, validating it again, exactly as if this did not exist."""
    if conn.commanding is not None or len(text) > conn.web.settings.max_body_bytes:
        return False
    try:
        decoded = json.loads(text)
    except ValueError:
        return False
    if type(decoded) is not dict:
        return False
    kind = decoded.get("type")
    if kind == "command":
        return _command(text, decoded, conn)
    if len(text) > MAX_MESSAGE:  # only a command (a long chat line) may be as long
        return False
    if kind == "read" and frame_ok(text, decoded):
        try:
            report = ReadReport.model_validate(decoded)
        except ValidationError:
            return False
        return reads.take_known(report)
    if kind == "view" and frame_ok(text, decoded):
        try:
            conn.view(View.model_validate(decoded))
        except ValidationError:
            return False
        return True
    if kind == "ping" and len(decoded) == 1 and conn.transport is not None:
        return bool(conn.transport.try_send_text(PONG))
    return False


def _command(text: str, decoded: dict[str, Any], conn: Connection) -> bool:
    """A valid ``command`` frame run at once (``Connection.take_command``); an invalid one is
    the receive loop's to refuse, by its id where it names one."""
    if not frame_ok(text, decoded):
        return False
    try:
        msg = Command.model_validate(decoded)
    except ValidationError:
        return False
    conn.take_command(msg)
    return True


async def _take(conn: Connection, reads: SocketReads, text: str) -> None:
    """One frame the receive loop was woken for. Its own coroutine, so that the frame, its
    JSON and the validated message go when it is handled: the loop then waits for the
    next frame holding none of them (issue 17: one posted chat line left a command, its
    JSON and their sets alive per socket until the sender's next frame, for the
    collector's full collections to scan, docs/performance.md session 22)."""
    web = conn.web
    decoded = None
    try:
        if len(text) > web.settings.max_body_bytes:
            raise WebError(WebErrorCode.TOO_LARGE, limit=web.settings.max_body_bytes)
        decoded = json.loads(text)
        is_command = type(decoded) is dict and decoded.get("type") == "command"
        if len(text) > MAX_MESSAGE and not is_command:
            raise WebError(WebErrorCode.TOO_LARGE, limit=MAX_MESSAGE)
        if not frame_ok(text, decoded):  # F6-2: NUL or a lone surrogate
            raise WebError(WebErrorCode.TEXT_INVALID, field="message")
        msg = client_message.validate_python(decoded)
    except (ValueError, ValidationError) as exc:
        await conn.error(WebError(WebErrorCode.BAD_JSON, detail=str(exc)[:200]), *_named(decoded))
        return
    except WebError as exc:
        await conn.error(exc, *_named(decoded))
        return
    if isinstance(msg, Ping):
        await conn.send(Pong())
    elif isinstance(msg, Unsubscribe):
        conn.unsubscribe(msg.game)
    elif isinstance(msg, Subscribe):
        try:
            await conn.subscribe(msg)
        except ServiceError as exc:
            await conn.error(exc, msg.game)
    elif isinstance(msg, ReadReport):
        try:
            reads.report(msg)
        except WebError as exc:
            await conn.error(exc, msg.game)
    elif isinstance(msg, View):
        conn.view(msg)
    elif isinstance(msg, Command):
        await commands.run(conn, msg)


@router.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    web: Web = ws.app.state.web
    if not origin_allowed(ws, web.settings.allowed_origins):
        await ws.close(code=1008, reason="origin")  # before accept: the handshake gets 403
        return
    await ws.accept()
    lang = normalize(ws.query_params.get("lang") or ws.cookies.get("lang"))
    viewer, token = await _viewer(ws, web)
    conn = Connection(ws, web, viewer, lang, token=token,
                      transport=ws.scope.get("extensions", {}).get(TRANSPORT))
    pushed = pushed_content(web)
    pushed.joined(lang)
    reads = SocketReads(conn)
    if conn.transport is not None:
        conn.transport.on_text = lambda text: taken_at_once(text, conn, reads)
    quiet = None  # issue 13: the viewer's unread count, live, for a client that asks (?unread=1)
    if conn.viewer and web.notify is not None and ws.query_params.get("unread") == "1":
        quiet = web.notify.bells.listen(conn.viewer, lambda n: conn.send(Unread(count=n)))
    if web.metrics is not None:
        web.metrics.clients.inc()
    try:
        while True:
            text = await ws.receive_text()
            await conn.after_command()
            await _take(conn, reads, text)
    except WebSocketDisconnect:
        pass
    finally:
        if conn.transport is not None:
            conn.transport.on_text = None  # the closure holds the connection: no cycle left
        pushed.left(lang)
        reads.close()
        conn.close()
        if quiet is not None:
            quiet()
        if web.metrics is not None:
            web.metrics.clients.dec()
        with contextlib.suppress(Exception):
            await asyncio.sleep(0)
