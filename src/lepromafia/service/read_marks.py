"""Read markers written in groups: one transaction for every marker reported meanwhile.

Each page on an inbox reports the last message it showed every few seconds (issue 17:
``POST …/read``); with a thousand readers that is hundreds of reports a second, and one
write transaction each would queue behind the writer lanes on SQLite's single write
lock. ``ReadMarks.mark`` waits at most ``delay`` for the group's transaction, like the
lanes' group commit: a reporter is answered after his marker is committed, and a marker
only ever moves forward (``Transaction.mark_read_many``: one executemany for the group), so
the order inside a group is free. ``ReadMarks.note`` (a socket's report) does not wait at
all: its marker rides with the next group, at most ``period`` (1 s) later.

A group is written in transactions of at most ``CHUNK`` markers: on SQLite each one's
statement runs on the event loop, and 900 markers in one took the loop for milliseconds
while the writer lanes' commits waited behind its lock (session 12); between chunks they
go first.

A message delivered to a page on screen (``ReadMarks.seen``) moves the reader's marker
too: at 200 games that is every reader of every thread, thousands of markers a second.
They are not written as one group per period but as a trickle: each marker about
``seen_period`` after it first moved (the moves in between ride with it), the ones due
written every ``tick`` in small transactions. One group every 5 s (10,000 markers per
worker, 50 transactions back to back) delayed every command committed meanwhile by up to
200 ms on PostgreSQL, a spike every 5 s in the servers' logs (session 19).

One group is written at a time, its markers in key order. On PostgreSQL two groups in
flight at once took the same readers' row locks in their reports' orders: they waited
on each other holding two pooled connections, a deadlock PostgreSQL broke after its
``deadlock_timeout`` (1 s) by failing one group — every reporter in it answered 500 —
and groups that piled up behind those row locks held the rest of the pool (session 6,
the 10-game load benchmark: 24 answers 500, 20 connections checked out). A group that
finds another one writing waits for it holding no connection.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable

from ..store.event_store import EventStore

log = logging.getLogger(__name__)

Key = tuple[str, str, str]
"""(game, inbox, reader)"""
CHUNK = 200
"""Markers per transaction."""
TICK = 0.1
"""Seconds between two writes of the markers ``seen`` made due (``ReadMarks.seen``)."""


class ReadMarks:
    """``mark`` (the HTTP route) waits for its group, written ``delay`` after the first
    report; ``note`` (the socket's report) does not wait and is written with the next group,
    at most ``period`` after it: with only socket reports, one transaction (one executemany,
    ``Transaction.mark_read_many``) per ``period`` per process, whatever the clients send;
    ``seen`` (a message delivered to a page that shows it on screen) likewise, each marker
    about ``seen_period`` after it first moved, written in a trickle (every ``tick``)
    rather than in one group."""

    def __init__(self, store: EventStore, delay: float = 0.2, period: float = 1.0,
                 chunk: int = CHUNK, seen_period: float = 5.0, tick: float = TICK,
                 clock: Callable[[], float] | None = None) -> None:
        self.store = store
        self.delay = delay
        self.period = period
        self.seen_period = seen_period
        self.chunk = chunk
        self.tick = tick
        self._clock = clock
        """When a ``seen`` marker moved and fell due (seconds; default: the loop's clock)."""
        self.transactions = 0
        """Transactions written so far (a test sees many reports share one)."""
        self.written = 0
        """Markers written so far (after coalescing)."""
        self._pending: dict[Key, int] = {}
        self._group: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._writing = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._later: dict[Key, tuple[int, float]] = {}
        """``seen``'s markers: key -> (seq, loop time it first moved), oldest first (a key
        keeps its place while it moves again, and is written, then dropped, when due)."""
        self._trickle: asyncio.Task[None] | None = None

    def note(self, game_id: str, inbox: str, reader: str, seq: int) -> None:
        """Move the reader's marker forward to global ``seq`` with the next group; return at
        once (the caller has checked the report: ``web.ws.reads.ReadGate``)."""
        self._pend((game_id, inbox, reader), seq)
        self._schedule(self.period)

    def seen(self, game_id: str, inbox: str, reader: str, seq: int) -> None:
        """``note`` for a message delivered to a page that shows its inbox on screen
        (``web.ws.endpoint.Connection.view``): written about ``seen_period`` after the
        marker first moved (at most once a period per marker, as often as ``live.js``
        reported it itself), in the trickle (``_trickle_forever``)."""
        self._hold((game_id, inbox, reader), seq)
        if self._trickle is None or self._trickle.done():
            # a fresh context: the trickle's transactions are nobody's request (its read scope)
            self._trickle = asyncio.get_running_loop().create_task(
                self._trickle_forever(), context=contextvars.Context())

    def _hold(self, key: Key, seq: int) -> None:
        """The key's ``seen`` marker goes to ``seq`` if that is forward; it keeps the time it
        first moved (and its place in the trickle's order)."""
        held = self._later.get(key)
        if held is None:
            self._later[key] = (seq, self._time())
        elif seq > held[0]:
            self._later[key] = (seq, held[1])

    def _time(self) -> float:
        return self._clock() if self._clock is not None else asyncio.get_running_loop().time()

    def _due(self, until: float) -> list[tuple[Key, int]]:
        """The ``seen`` markers that first moved at ``until`` or before, taken out."""
        due = []
        for key, (seq, since) in self._later.items():
            if since > until:
                break
            due.append((key, seq))
        for key, _ in due:
            del self._later[key]
        return due

    async def _trickle_forever(self) -> None:
        """Every ``tick``, write the ``seen`` markers due; end when none is left."""
        while self._later:
            await asyncio.sleep(self.tick)
            due = self._due(self._time() - self.seen_period)
            if due:
                try:
                    await self._write_marks(sorted((*key, seq) for key, seq in due))
                except asyncio.CancelledError:  # flush: it writes them itself
                    for key, seq in due:
                        self._hold(key, seq)
                    raise
                except Exception:  # a store failure: these markers stay where they were
                    log.warning("read markers not written", exc_info=True)

    async def mark(self, game_id: str, inbox: str, reader: str, seq: int) -> None:
        """Move the reader's marker of the inbox forward to global ``seq``; return once
        committed."""
        self._pend((game_id, inbox, reader), seq)
        group = self._schedule(self.delay)
        await self.store.release_reads()  # hold no snapshot while waiting for the write
        await asyncio.shield(group)

    def _pend(self, key: Key, seq: int) -> None:
        """The key's marker goes to ``seq`` with the next group, if that is forward."""
        if seq > self._pending.get(key, 0):
            self._pending[key] = seq

    def _schedule(self, within: float) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        if self._group is None:
            self._group = loop.create_future()
            self._group.add_done_callback(lambda f: f.cancelled() or f.exception())  # waiters may be none
        due = loop.time() + within
        if self._timer is None or self._timer.when() > due:
            if self._timer is not None:
                self._timer.cancel()
            # a fresh context: the group's transaction is nobody's request (its read scope)
            self._timer = loop.call_at(due, self._start, context=contextvars.Context())
        return self._group

    def _start(self) -> None:
        self._timer = None
        group, self._group = self._group, None
        pending, self._pending = self._pending, {}
        if group is not None:
            task = asyncio.ensure_future(self._write(pending, group))
            self._tasks.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:  # its waiters get it too
            log.warning("read markers not written", exc_info=task.exception())

    async def flush(self) -> None:
        """Write what is pending now and wait for every group in flight (shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._start()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        trickle, self._trickle = self._trickle, None
        if trickle is not None and not trickle.done():
            trickle.cancel()
            await asyncio.gather(trickle, return_exceptions=True)
        due = self._due(float("inf"))
        if due:
            await self._write_marks(sorted((*key, seq) for key, seq in due))

    async def _write(self, pending: dict[Key, int], group: asyncio.Future[None]) -> None:
        try:
            if pending:
                await self._write_marks([(*key, seq) for key, seq in sorted(pending.items())])
        except BaseException as exc:
            if not group.done():
                group.set_exception(exc)
            raise
        if not group.done():
            group.set_result(None)

    async def _write_marks(self, marks: list[tuple[str, str, str, int]]) -> None:
        """Markers in key order, in transactions of at most ``chunk``, one writer at a time."""
        async with self._writing:
            for at in range(0, len(marks), self.chunk):
                part = marks[at:at + self.chunk]
                async with self.store.transaction() as tx:
                    await tx.mark_read_many(part)
                self.transactions += 1
                self.written += len(part)
