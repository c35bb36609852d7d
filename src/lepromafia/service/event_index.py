"""One per-process cache of each game's events, for every read that needs events.

The pages, the JSON API and the archives read a game's events from here, never from
their own caches. It keeps, per game, every event except the kinds that have their own
read model (``UNINDEXED``, registered by class: messages and votes, which are the bulk
of a day), read once and then only the new tail up to the version the caller already
knows (``GameService.current``), so a warm read costs no SQL at all. A finished game's
archive asks for its whole log (``log``). At most ``max_games`` games are kept; the
least recently read is evicted.

Every use filters what it returns for its viewer through ``service.outbound``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import events as ev
from ..engine.events import Event
from ..store.event_store import EventStore

Indexed = Sequence[tuple[int, Event]]

UNINDEXED: tuple[type[Event], ...] = (ev.MessagePosted, ev.VoteCast, ev.JudgeVoteCast)
"""Event classes not kept: each has its own read model (``messages``) or lives in the
state (the live tally); the archives read them from the whole log."""


@dataclass
class _Entry:
    checked: int = 0
    """Every event up to this seq has been read."""
    events: list[tuple[int, Event]] = field(default_factory=list)


class EventIndex:
    def __init__(self, store: EventStore, max_games: int = 128,
                 unindexed: tuple[type[Event], ...] = UNINDEXED) -> None:
        self.store = store
        self.max_games = max_games
        self._skip = frozenset(cls.__name__ for cls in unindexed)
        self._unindexed = unindexed
        self._entries: OrderedDict[tuple[str, bool], _Entry] = OrderedDict()
        store.on_commit(self._committed)

    def _committed(self, game_id: str, before: int, events: Sequence[tuple[int, Event]]) -> None:
        """This process's lane committed ``events`` right after seq ``before``: an entry that
        has read exactly up to ``before`` takes them without a query (the writer's own
        answer, and every watcher on this worker, read no tail)."""
        for whole in (False, True):
            entry = self._entries.get((game_id, whole))
            if entry is None or entry.checked != before or not events:
                continue
            for seq, event in events:
                if whole or type(event).__name__ not in self._skip:
                    entry.events.append((seq, event))
            entry.checked = events[-1][0]

    async def events(self, game_id: str, version: int) -> Indexed:
        """The game's indexed events up to ``version`` (the caller's ``Current.version``)."""
        return await self._read(game_id, version, whole=False)

    async def log(self, game_id: str, version: int) -> Indexed:
        """Every event of the game up to ``version`` (the archives of a finished game)."""
        return await self._read(game_id, version, whole=True)

    def indexes(self, kind: type[Event]) -> bool:
        return not issubclass(kind, self._unindexed)

    async def _read(self, game_id: str, version: int, whole: bool) -> Indexed:
        key = (game_id, whole)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_games:
            self._entries.popitem(last=False)
        if entry.checked >= version:
            return [(seq, e) for seq, e in entry.events if seq <= version] \
                if entry.events and entry.events[-1][0] > version else entry.events
        async with self.store.reading() as tx:
            found = await tx.events_of(game_id, None if whole else self._skip, after=entry.checked,
                                       upto=version, exclude=True)
        for seq, event in found:
            if not entry.events or seq > entry.events[-1][0]:
                entry.events.append((seq, event))
        entry.checked = max(entry.checked, version)
        return entry.events
