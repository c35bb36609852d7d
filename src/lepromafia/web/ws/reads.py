"""Read markers reported on the socket (issue 17): ``read`` {game, inbox, upto}.

A page reports the last message of an inbox it showed every few seconds; as an HTTP POST
that was a whole request each (routing, session, CSRF): at 10 games a thousand pages made
115–176 a second, a quarter of the server's busy time. On the socket the page already holds
it is one small frame, and now a few microseconds of the server's time:

- ``ReadGate`` answers the route's two questions from memory: may this viewer read the
  inbox (the engine's ``can_read`` — INBOX-GEN-1 and each inbox kind's policy — on the
  game's state, which the gate keeps current by applying every event the broker publishes
  with the engine's ``evolve``), and which global seq is his stream position
  (``ViewerStreams.known_global_seq``). Only a game the gate does not hold yet (or one
  whose published events had a hole) is read once through ``GameQueries.current``.
- The marker is handed to ``ReadMarks.note``: never awaited, coalesced per (game, inbox,
  reader), written for every socket of the process together, one executemany at most once
  a second, forward only (``Transaction.mark_read_many``).

A refused report (an inbox he may not read, a position past his stream, an unknown game)
is answered with an ``error`` frame at once and writes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...engine import evolve
from ...engine.events import Event
from ...engine.inboxes import can_read
from ...engine.state import GameState
from ...service.errors import ServiceError
from ...service.streams import NOT_IN_STREAM
from ..errors import WebError, WebErrorCode
from .protocol import ReadReport

if TYPE_CHECKING:
    from ...service.queries import GameQueries
    from .endpoint import Connection


class ReadGate:
    """The process's in-memory answers to "may this report move a marker, and to which
    seq": per game the latest published (version, state), at most ``max_games`` games."""

    __slots__ = ("_known", "_loading", "loads", "max_games", "queries")

    def __init__(self, queries: GameQueries, max_games: int = 256) -> None:
        self.queries = queries
        self.max_games = max_games
        self.loads = 0
        """Games read through ``GameQueries.current`` (a test sees the hot path read none)."""
        self._known: OrderedDict[str, tuple[int, GameState]] = OrderedDict()
        self._loading: dict[str, asyncio.Future[None]] = {}
        """A game being read for the gate: the other reports of that game wait for it."""
        queries.service.broker.observers.append(self.observe)

    def observe(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        """A published batch: a held game takes it through the engine, in order; a hole
        (or an event the engine cannot apply) forgets the game until its next report."""
        known = self._known.get(game_id)
        if known is None:
            return
        version, state = known
        try:
            for seq, event in events:
                if seq <= version:
                    continue
                if seq != version + 1:
                    raise LookupError(seq)
                state, version = evolve(state, event), seq
        except Exception:  # never the broker's problem: read it again later
            del self._known[game_id]
            return
        self._known[game_id] = (version, state)

    def answer(self, game_id: str, inbox: str, viewer: str, position: int) -> int | None:
        """From memory: the global seq the marker moves to, ``NOT_IN_STREAM`` (0) for a
        refused report, or None when the game is not held (``check`` then reads it)."""
        known = self._known.get(game_id)
        if known is None:
            return None
        version, state = known
        if not can_read(state, inbox, viewer):
            return NOT_IN_STREAM
        return self.queries.streams.known_global_seq(game_id, viewer, position, version)

    async def check(self, game_id: str, inbox: str, viewer: str, position: int) -> int:
        """``answer``, reading the game once if it is not held. Raises ``ServiceError``
        (unknown game)."""
        found = self.answer(game_id, inbox, viewer, position)
        if found is not None:
            return found
        version, state = await self._read(game_id)
        if not can_read(state, inbox, viewer):
            return NOT_IN_STREAM
        # the stream look-up may wait for another reader of this game: hold no connection
        await self.queries.service.store.release_reads()
        seq = await self.queries.streams.global_seq(game_id, viewer, position, version)
        return NOT_IN_STREAM if seq is None else seq

    async def _read(self, game_id: str) -> tuple[int, GameState]:
        """The game through ``GameQueries.current``, held from now on. The reports of a
        game that arrive while it is being read (its hundred sockets after a restart, or
        their first reports) wait for that one read and take what it left held, instead of
        each reading the game's row; after a failed read they read it themselves."""
        loading = self._loading.get(game_id)
        if loading is not None:
            await asyncio.shield(loading)
            held = self._known.get(game_id)
            if held is not None:
                return held
        mine: asyncio.Future[None] | None = None
        if game_id not in self._loading:
            mine = self._loading[game_id] = asyncio.get_running_loop().create_future()
        try:
            current = await self.queries.current(game_id)
        finally:
            if mine is not None:
                del self._loading[game_id]
                mine.set_result(None)
        self.loads += 1
        held = self._known.get(game_id)
        if held is None or held[0] < current.version:
            self._known[game_id] = (current.version, current.state)
            self._known.move_to_end(game_id)
            while len(self._known) > self.max_games:
                self._known.popitem(last=False)
        return current.version, current.state


def read_gate(web: Any) -> ReadGate:
    """The process's one gate (made on first use, like the admission gate)."""
    if web.read_gate is None:
        web.read_gate = ReadGate(web.queries)
    gate: ReadGate = web.read_gate
    return gate


_checking: set[asyncio.Task[None]] = set()
"""Reports waiting for their game's first read, kept referenced until they end."""


class SocketReads:
    """One socket's reports: checked on the spot, handed to ``ReadMarks.note``."""

    __slots__ = ("conn", "gate")

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.gate = read_gate(conn.web)

    def report(self, msg: ReadReport) -> None:
        """Take a report (raises ``WebError`` for one refused from memory). The receive loop
        never waits: a game not held yet is read in a task of its own."""
        viewer = self.conn.viewer
        if viewer is None:
            raise WebError(WebErrorCode.UNAUTHENTICATED)
        seq = self.gate.answer(msg.game, msg.inbox, viewer, msg.upto)
        if seq is None:
            task = asyncio.create_task(self._checked(msg, viewer))
            _checking.add(task)
            task.add_done_callback(_checking.discard)
            return
        self._take(msg, viewer, seq)

    def take_known(self, msg: ReadReport) -> bool:
        """Take a report that memory accepts at once (True); False for one ``report`` must
        handle (no viewer, a game not held yet, a refusal to answer): nothing taken then."""
        viewer = self.conn.viewer
        if viewer is None:
            return False
        seq = self.gate.answer(msg.game, msg.inbox, viewer, msg.upto)
        if seq is None or seq == NOT_IN_STREAM:
            return False
        self._take(msg, viewer, seq)
        return True

    def _take(self, msg: ReadReport, viewer: str, seq: int) -> None:
        if seq == NOT_IN_STREAM:
            raise WebError(WebErrorCode.NOT_FOUND, what=msg.inbox)
        self.conn.web.queries.read_marks.note(msg.game, msg.inbox, viewer, seq)

    async def _checked(self, msg: ReadReport, viewer: str) -> None:
        try:
            self._take(msg, viewer, await self.gate.check(msg.game, msg.inbox, viewer, msg.upto))
        except (WebError, ServiceError) as exc:
            with contextlib.suppress(Exception):  # the socket may be gone by now
                await self.conn.error(exc, msg.game)

    def close(self) -> None:
        """The socket closed: what it reported is already the process's (``ReadMarks``)."""
