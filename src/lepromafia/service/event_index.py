"""One per-process cache of each game's events, for every read that needs events.

The pages, the JSON API and the archives read a game's events from here, never from
their own caches. It keeps, per game, every event except the kinds that have their own
read model (``UNINDEXED``, registered by class: messages and votes, which are the bulk
of a day), read once and then only the new tail up to the version the caller already
knows (``GameService.current``), so a warm read costs no SQL at all. A finished game's
archive asks for its whole log (``log``). At most ``max_games`` games are kept; the
least recently read is evicted.

A read must cost what it shows, not the game's age (issue 17: a page on Day 14 as on
Day 2). So the index also keeps, as each event lands, what such reads would otherwise
scan the whole history for: the events by class (``Events.of``: the Day Posts, the
deadlines, … without a walk over every event), each inbox's edits (``Events.edits``),
and each inbox's message seqs (``EventIndex.messages``: counts and unread counts by
bisection, read once from the ``messages`` read model without decoding a message).

Every use filters what it returns for its viewer through ``service.outbound``: the index
answers "which events", never "who may see them".
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar, cast, overload

from ..engine import events as ev
from ..engine.events import Event
from ..store.event_store import EventStore

Indexed = Sequence[tuple[int, Event]]

UNINDEXED: tuple[type[Event], ...] = (ev.MessagePosted, ev.VoteCast, ev.JudgeVoteCast)
"""Event classes not kept: each has its own read model (``messages``) or lives in the
state (the live tally); the archives read them from the whole log."""

T = TypeVar("T")
X = TypeVar("X")
MEMO_SIZE = 64
"""Derived results kept per game (``Events.memo``): a few per viewer class and version."""

Edits = dict[int, list[tuple[int, ev.MessageEdited]]]
"""Message number -> its edits in order, each with its global seq."""


@dataclass
class _Entry:
    checked: int = 0
    """Every event up to this seq has been read."""
    events: list[tuple[int, Event]] = field(default_factory=list)
    by_kind: dict[type[Event], list[tuple[int, Event]]] = field(default_factory=dict)
    """The same events, one list per concrete class, each in order."""
    edits: dict[str, Edits] = field(default_factory=dict)
    """Per inbox: its ``MessageEdited`` events by message number."""
    scheduled: dict[str, list[tuple[int, ev.DeadlineScheduled]]] = field(default_factory=dict)
    """Per deadline key: its ``DeadlineScheduled`` events (most keys are scheduled once)."""
    memo: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)
    """``Events.memo``: results derived from these events, by a key that determines them."""

    def add(self, seq: int, event: Event) -> None:
        self.events.append((seq, event))
        self.by_kind.setdefault(type(event), []).append((seq, event))
        if isinstance(event, ev.MessageEdited):
            self.edits.setdefault(event.inbox, {}).setdefault(event.number, []).append((seq, event))
        elif isinstance(event, ev.DeadlineScheduled):
            self.scheduled.setdefault(event.key, []).append((seq, event))


@dataclass
class _Ledger:
    """Each inbox's message seqs (global, ascending), for counts without a scan."""

    checked: int = -1
    """Every message up to this seq is counted; -1: never read."""
    seqs: dict[str, array[int]] = field(default_factory=dict)
    at_signs: dict[str, array[int]] = field(default_factory=dict)
    """Per inbox, the seqs of the messages whose text has an ``@`` (the mentions' candidates)."""

    def add(self, seq: int, inbox: str, at_sign: bool) -> None:
        for book, wanted in ((self.seqs, True), (self.at_signs, at_sign)):
            if wanted:
                found = book.get(inbox)
                if found is None:
                    found = book[inbox] = array("q")
                found.append(seq)


class Events(Sequence[tuple[int, Event]]):
    """A game's indexed events up to one version: a sequence (the old list's interface),
    plus ``of`` (by class) and ``edits`` (by inbox), each touching only what it returns.
    The entry only ever grows at its end, so a view stays what it was when taken."""

    def __init__(self, entry: _Entry, upto: int) -> None:
        self._entry, self.upto = entry, upto
        events = entry.events
        self._n = len(events) if not events or events[-1][0] <= upto \
            else bisect_right(events, upto, key=lambda item: item[0])

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> tuple[int, Event]: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[tuple[int, Event]]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, Event] | Sequence[tuple[int, Event]]:
        if isinstance(i, slice):
            return self._entry.events[:self._n][i]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._entry.events[i]

    def __iter__(self) -> Iterator[tuple[int, Event]]:
        return islice(self._entry.events, self._n)

    def __reversed__(self) -> Iterator[tuple[int, Event]]:
        events = self._entry.events
        return (events[i] for i in range(self._n - 1, -1, -1))

    def _upto(self, found: list[tuple[int, X]]) -> list[tuple[int, X]]:
        if found and found[-1][0] > self.upto:
            return found[:bisect_right(found, self.upto, key=lambda item: item[0])]
        return found

    def of(self, kinds: type[Event] | tuple[type[Event], ...]) -> list[tuple[int, Event]]:
        """The events that are instances of ``kinds``, in order (a new list)."""
        lists = [self._upto(found) for cls, found in list(self._entry.by_kind.items())
                 if issubclass(cls, kinds)]
        if len(lists) == 1:
            return list(lists[0])
        return list(heapq.merge(*lists, key=lambda item: item[0]))

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per ``key`` for this game: the key must determine the result
        (e.g. the seqs of the very events it is computed from, as the viewer may see them).
        The result is shared: it must be immutable. At most ``MEMO_SIZE`` kept per game."""
        memo = self._entry.memo
        if key in memo:
            memo.move_to_end(key)
            return cast(T, memo[key])
        found = memo[key] = compute()
        while len(memo) > MEMO_SIZE:
            memo.popitem(last=False)
        return found

    def scheduled(self, key: str) -> list[tuple[int, ev.DeadlineScheduled]]:
        """The ``DeadlineScheduled`` events of one deadline key, in order."""
        return self._upto(self._entry.scheduled.get(key, []))

    def edits(self, inbox: str) -> dict[int, list[ev.MessageEdited]]:
        """Message number -> its edits in order, for one inbox (the caller has checked that
        the viewer may read it)."""
        out: dict[int, list[ev.MessageEdited]] = {}
        for number, found in self._entry.edits.get(inbox, {}).items():
            mine = [e for seq, e in found if seq <= self.upto]
            if mine:
                out[number] = mine
        return out


class EventIndex:
    def __init__(self, store: EventStore, max_games: int = 128,
                 unindexed: tuple[type[Event], ...] = UNINDEXED) -> None:
        self.store = store
        self.max_games = max_games
        self._skip = frozenset(cls.__name__ for cls in unindexed)
        self._unindexed = unindexed
        self._entries: OrderedDict[tuple[str, bool], _Entry] = OrderedDict()
        self._ledgers: OrderedDict[str, _Ledger] = OrderedDict()
        store.on_commit(self._committed)

    def _committed(self, game_id: str, before: int, events: Sequence[tuple[int, Event]]) -> None:
        """This process's lane committed ``events`` right after seq ``before``: an entry that
        has read exactly up to ``before`` takes them without a query (the writer's own
        answer, and every watcher on this worker, read no tail)."""
        if not events:
            return
        for whole in (False, True):
            entry = self._entries.get((game_id, whole))
            if entry is None or entry.checked != before:
                continue
            for seq, event in events:
                if whole or type(event).__name__ not in self._skip:
                    entry.add(seq, event)
            entry.checked = events[-1][0]
        ledger = self._ledgers.get(game_id)
        if ledger is not None and ledger.checked == before:
            for seq, event in events:
                if isinstance(event, ev.MessagePosted):
                    ledger.add(seq, event.inbox, "@" in event.text)
            ledger.checked = events[-1][0]

    async def events(self, game_id: str, version: int) -> Events:
        """The game's indexed events up to ``version`` (the caller's ``Current.version``)."""
        return await self._read(game_id, version, whole=False)

    async def log(self, game_id: str, version: int) -> Events:
        """Every event of the game up to ``version`` (the archives of a finished game)."""
        return await self._read(game_id, version, whole=True)

    def indexes(self, kind: type[Event]) -> bool:
        return not issubclass(kind, self._unindexed)

    async def messages(self, game_id: str, version: int) -> dict[str, array[int]]:
        """Per inbox, the global seqs of its messages (ascending; may run past ``version``:
        count with ``count_upto``). Read once from the ``messages`` read model (seq and
        inbox only), then only the tail; this worker's commits extend it as they land."""
        return (await self._ledger(game_id, version)).seqs

    async def at_signs(self, game_id: str, version: int) -> dict[str, array[int]]:
        """Per inbox, the global seqs of its messages whose text has an ``@`` (as
        ``messages``): where a mention can be, without reading every message's text."""
        return (await self._ledger(game_id, version)).at_signs

    async def _ledger(self, game_id: str, version: int) -> _Ledger:
        ledger = self._ledgers.get(game_id)
        if ledger is None:
            ledger = self._ledgers[game_id] = _Ledger()
        self._ledgers.move_to_end(game_id)
        while len(self._ledgers) > self.max_games:
            self._ledgers.popitem(last=False)
        if ledger.checked >= version:
            return ledger
        async with self.store.reading() as tx:
            found = await tx.message_inboxes(game_id, after=max(0, ledger.checked), upto=version)
        for seq, inbox, at_sign in found:
            if seq > ledger.checked:  # a commit that landed meanwhile has these already
                ledger.add(seq, inbox, at_sign)
                ledger.checked = seq
        ledger.checked = max(ledger.checked, version)
        return ledger

    async def _read(self, game_id: str, version: int, whole: bool) -> Events:
        key = (game_id, whole)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_games:
            self._entries.popitem(last=False)
        if entry.checked >= version:
            return Events(entry, version)
        async with self.store.reading() as tx:
            found = await tx.events_of(game_id, None if whole else self._skip, after=entry.checked,
                                       upto=version, exclude=True)
        for seq, event in found:
            if not entry.events or seq > entry.events[-1][0]:
                entry.add(seq, event)
        entry.checked = max(entry.checked, version)
        return Events(entry, version)


def count_upto(seqs: Sequence[int], version: int, after: int = 0) -> int:
    """How many of the ascending ``seqs`` lie in ``after < seq <= version``."""
    return max(0, bisect_right(seqs, version) - bisect_right(seqs, after))
