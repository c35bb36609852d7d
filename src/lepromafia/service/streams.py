"""Per-viewer streams: each viewer's events are numbered by what he may see (§9.1.3).

A viewer's stream holds only the events ``service.outbound`` lets him see, numbered
1, 2, 3, … in the game's order: his *position*. Every channel that names a place in the
stream (the WebSocket, ``GET …/events``, the page's ``data-live-seq``, a region's
``X-Live-Seq``, a command's acknowledgement) uses it, never the game's global sequence,
so the count, order and timing of events he may not see reach him in no form (security
review F3-1…F3-5). A position he sends back (``since``) is an index into his own stream
and can only return his own events.

``ViewerStreams`` keeps, per game, the audience of every event (the whole log, messages
included, read once and then only its tail) and, per viewer, the global seqs he may see,
so a position maps to a seq and back without SQL. At most ``max_games`` games are kept;
the least recently read is evicted and rebuilt from the store on demand.

It also numbers each inbox's messages as the inbox shows them (``message_number``: the
``n`` of ``#m<n>``, the same for every reader of the inbox), so a message pushed in a
frame carries its place without a scan of the inbox (issue 17, pushed content).
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine.audience import Audience
from ..engine.events import Event, MessagePosted
from ..store.event_store import EventStore, decode_rows
from .outbound import admits

NOT_IN_STREAM = 0
"""``known_global_seq``: the position is not in the viewer's stream (global seqs start at 1)."""


@dataclass
class _Game:
    checked: int = 0
    """Every event up to this seq has been read."""
    seqs: array[int] = field(default_factory=lambda: array("q"))
    audiences: list[Audience] = field(default_factory=list)
    shared: dict[Audience, Audience] = field(default_factory=dict)
    """One object per distinct audience (a city inbox's is the same for many messages):
    ``audiences`` holds these, not each event's own equal copy with its own member set
    (issue 17: memory, and the references every full collection scans)."""
    viewers: dict[str | None, tuple[int, array[int]]] = field(default_factory=dict)
    """Per viewer: (events scanned, the seqs he may see)."""
    reading: asyncio.Future[None] | None = None
    """Set while one task reads the tail; the others wait on it."""
    numbers: dict[int, int] = field(default_factory=dict)
    """Per ``MessagePosted`` global seq: its number in its inbox (1, 2, 3, …)."""
    counts: dict[str, int] = field(default_factory=dict)
    """Per inbox: how many messages it has had so far."""


class ViewerStreams:
    def __init__(self, store: EventStore, max_games: int = 128) -> None:
        self.store = store
        self.max_games = max_games
        self._games: OrderedDict[str, _Game] = OrderedDict()

    async def visible_seqs(self, game_id: str, viewer: str | None, version: int) -> Sequence[int]:
        """The global seqs (up to ``version``) of the events ``viewer`` may see, in order:
        position ``n`` is ``visible_seqs(…)[n - 1]``. Server-side only, never sent."""
        return self._upto(await self._game(game_id, version), viewer, version)

    @staticmethod
    def _mine(game: _Game, viewer: str | None) -> array[int]:
        """Every seq the viewer may see that the game's cache holds (maybe past a version
        asked about: bisect it, do not copy it)."""
        scanned, mine = game.viewers.get(viewer, (0, array("q")))
        if scanned < len(game.seqs):
            for i in range(scanned, len(game.seqs)):
                if admits(game.audiences[i], viewer):
                    mine.append(game.seqs[i])
            game.viewers[viewer] = (len(game.seqs), mine)
        return mine

    async def _stream(self, game_id: str, viewer: str | None, version: int) -> array[int]:
        """``_mine`` of the game read up to at least ``version``."""
        return self._mine(await self._game(game_id, version), viewer)

    @classmethod
    def _upto(cls, game: _Game, viewer: str | None, version: int) -> Sequence[int]:
        mine = cls._mine(game, viewer)
        if mine and mine[-1] > version:
            return mine[:bisect_right(mine, version)]
        return mine

    async def span(self, game_id: str, viewer: str | None, first: int, version: int) -> tuple[int, int]:
        """A command's events in the viewer's stream: (his position at ``version``, how many
        of his events have a seq from ``first`` to ``version``). Bisected, not sliced: an
        acknowledgement costs the same however long his stream (issue 17, Day 1 and Day 14)."""
        mine = await self._stream(game_id, viewer, version)
        upto = bisect_right(mine, version)
        return upto, upto - bisect_left(mine, first, 0, upto)

    def known_global_seq(self, game_id: str, viewer: str | None, position: int, version: int) -> int | None:
        """``global_seq`` answered from memory only: the seq, ``NOT_IN_STREAM`` (0) for a
        position past his stream at ``version``, or None when the game is not cached up to
        ``version`` (ask ``global_seq``). No await: a socket's read report is checked on the
        spot (``web.ws.reads.ReadGate``)."""
        game = self._games.get(game_id)
        if game is None or game.checked < version:
            return None
        mine = self._mine(game, viewer)
        return mine[position - 1] if 0 < position <= bisect_right(mine, version) else NOT_IN_STREAM

    async def position(self, game_id: str, viewer: str | None, version: int) -> int:
        """How many events of the game up to ``version`` the viewer may see."""
        return bisect_right(await self._stream(game_id, viewer, version), version)

    def observe(self, game_id: str, events: Sequence[tuple[int, Event]]) -> None:
        """A published batch (``pubsub.Broker.observers``): a cached game that has read up
        to just before it takes it as read, so a delivery's number or position needs no
        store read (and no wait on ``reading`` by a request holding a connection). A batch
        after a hole, or a game not cached, is left to the store."""
        game = self._games.get(game_id)
        if game is None:
            return
        for seq, event in events:
            if seq != game.checked + 1 or (game.seqs and seq <= game.seqs[-1]):
                return
            self._take(game, seq, event)
            game.checked = seq

    @staticmethod
    def _take(game: _Game, seq: int, event: Event) -> None:
        game.seqs.append(seq)
        audience = event.audience
        game.audiences.append(game.shared.setdefault(audience, audience))
        if isinstance(event, MessagePosted):
            game.counts[event.inbox] = game.numbers[seq] = game.counts.get(event.inbox, 0) + 1

    def known_message_number(self, game_id: str, seq: int) -> int | None:
        """``message_number`` from memory only: None when the game is not cached up to
        ``seq`` (or the event there is no ``MessagePosted``). No await: the fan-out renders
        a published message on the spot (``web.ws.content``)."""
        game = self._games.get(game_id)
        if game is None or game.checked < seq:
            return None
        return game.numbers.get(seq)

    async def message_number(self, game_id: str, seq: int) -> int | None:
        """The number in its inbox of the message posted at global ``seq`` (None: not a
        ``MessagePosted``). Reads the log's tail at most once per game for all callers."""
        game = await self._game(game_id, seq)
        return game.numbers.get(seq)

    async def global_seq(self, game_id: str, viewer: str | None, position: int, version: int) -> int | None:
        """The global seq of the viewer's event at ``position`` (None: not in his stream)."""
        mine = await self._stream(game_id, viewer, version)
        return mine[position - 1] if 0 < position <= bisect_right(mine, version) else None

    async def _game(self, game_id: str, version: int) -> _Game:
        game = self._games.get(game_id)
        if game is None:
            game = self._games[game_id] = _Game()
        self._games.move_to_end(game_id)
        while len(self._games) > self.max_games:
            self._games.popitem(last=False)
        while game.checked < version:
            reading = game.reading
            if reading is not None:
                # Another task is reading this game's tail: wait for it holding no pooled
                # connection. Waiting with one held let 15 refreshes of one game hold the
                # whole pool while the reader waited for a connection (issue 17).
                await self.store.release_reads()
                await asyncio.shield(reading)
                continue
            game.reading = asyncio.get_running_loop().create_future()
            try:
                await self._read_tail(game_id, game, version)
            finally:
                done, game.reading = game.reading, None
                done.set_result(None)
        return game

    async def _read_tail(self, game_id: str, game: _Game, version: int) -> None:
        """Read the events after ``game.checked``: one read, whoever else is waiting (a
        reconnect storm of one game is one read, not one per socket)."""
        async with self.store.reading() as tx:
            rows = await tx.event_rows(game_id, after=game.checked)
        # decoded with the connection back in the pool (issue 17, the reconnect storm)
        for seq, event in decode_rows(rows):  # all committed, some maybe after ``version``
            if not game.seqs or seq > game.seqs[-1]:
                self._take(game, seq, event)
        game.checked = max(game.checked, version, rows[-1]["seq"] if rows else 0)
