"""Read markers reported on the socket (issue 17): ``read`` {game, inbox, upto}.

A page reports the last message of an inbox it showed every few seconds; as an HTTP POST
that was a whole request each (routing, session, CSRF): at 10 games a thousand pages made
115–176 a second, a quarter of the server's busy time. On the socket the page already holds
it is one small frame. A report takes exactly the route's path and checks
(``GameQueries.mark_read_upto``: the viewer may read the inbox, the position is in his own
stream, the marker only moves forward, many readers' markers share one transaction).

The receive loop never waits for a write: reports are kept in memory, the latest per inbox,
and written by one task per socket at most once every ``FLUSH_AFTER`` seconds, so a client
sending reports as fast as it can causes at most ``MAX_INBOXES`` marker writes per period.
What is still pending when the socket closes is written then.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from ...service.errors import ServiceError
from ..errors import WebError, WebErrorCode
from .protocol import ReadReport

if TYPE_CHECKING:
    from .endpoint import Connection

FLUSH_AFTER = 1.0
"""Seconds between a socket's marker writes (its reports meanwhile are merged)."""
MAX_INBOXES = 32
"""Inboxes one socket may have pending at once (a page shows a few)."""

_closing: set[asyncio.Task[None]] = set()
"""Last writes of closed sockets, kept referenced until they end."""


class SocketReads:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.pending: dict[tuple[str, str], int] = {}
        self.task: asyncio.Task[None] | None = None

    def report(self, msg: ReadReport) -> None:
        """Take a report (raises ``WebError`` for one that can never be written)."""
        if self.conn.viewer is None:
            raise WebError(WebErrorCode.UNAUTHENTICATED)
        key = (msg.game, msg.inbox)
        if key not in self.pending and len(self.pending) >= MAX_INBOXES:
            raise WebError(WebErrorCode.BAD_REQUEST, detail=f"more than {MAX_INBOXES} inboxes")
        self.pending[key] = max(msg.upto, self.pending.get(key, 0))
        if self.task is None:
            self.task = asyncio.create_task(self._later())

    async def _later(self) -> None:
        await asyncio.sleep(FLUSH_AFTER)
        self.task = None
        await self.flush()

    async def flush(self) -> None:
        batch, self.pending = self.pending, {}
        if batch:
            await asyncio.gather(*(self._write(game, inbox, upto) for (game, inbox), upto in batch.items()))

    async def _write(self, game: str, inbox: str, upto: int) -> None:
        viewer = self.conn.viewer
        assert viewer is not None  # ``report`` takes none from an anonymous socket
        refusal: Exception | None = None
        try:
            if not await self.conn.web.queries.mark_read_upto(game, inbox, viewer, upto):
                refusal = WebError(WebErrorCode.NOT_FOUND, what=inbox)
        except ServiceError as exc:  # no such game
            refusal = exc
        if refusal is not None:
            with contextlib.suppress(Exception):  # the socket may be gone by now
                await self.conn.error(refusal, game)

    def close(self) -> None:
        """The socket closed: write what it reported last (nothing is answered any more)."""
        if self.task is not None:
            self.task.cancel()
            self.task = None
        if self.pending:
            task = asyncio.create_task(self.flush())
            _closing.add(task)
            task.add_done_callback(_closing.discard)
