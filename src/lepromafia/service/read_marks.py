"""Read markers written in groups: one transaction for every marker reported meanwhile.

Each page on an inbox reports the last message it showed every few seconds (issue 17:
``POST …/read``); with a thousand readers that is hundreds of reports a second, and one
write transaction each would queue behind the writer lanes on SQLite's single write
lock. ``ReadMarks.mark`` waits at most ``delay`` for the group's transaction, like the
lanes' group commit: a reporter is answered after his marker is committed, and a marker
only ever moves forward (``Transaction.mark_read``), so the order inside a group is free.

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

from ..store.event_store import EventStore

Key = tuple[str, str, str]
"""(game, inbox, reader)"""


class ReadMarks:
    def __init__(self, store: EventStore, delay: float = 0.2) -> None:
        self.store = store
        self.delay = delay
        self.transactions = 0
        """Groups written so far (a test sees many reports share one)."""
        self._pending: dict[Key, int] = {}
        self._group: asyncio.Future[None] | None = None
        self._writing = asyncio.Lock()

    async def mark(self, game_id: str, inbox: str, reader: str, seq: int) -> None:
        """Move the reader's marker of the inbox forward to global ``seq``; return once
        committed."""
        key = (game_id, inbox, reader)
        self._pending[key] = max(seq, self._pending.get(key, 0))
        if self._group is None:
            loop = asyncio.get_running_loop()
            self._group = loop.create_future()
            # a fresh context: the group's transaction is nobody's request (its read scope)
            loop.call_later(self.delay, self._start, context=contextvars.Context())
        group = self._group
        await self.store.release_reads()  # hold no snapshot while waiting for the write
        await asyncio.shield(group)

    def _start(self) -> None:
        group, self._group = self._group, None
        pending, self._pending = self._pending, {}
        if group is not None:
            task = asyncio.ensure_future(self._write(pending, group))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    async def _write(self, pending: dict[Key, int], group: asyncio.Future[None]) -> None:
        try:
            async with self._writing, self.store.transaction() as tx:
                for (game_id, inbox, reader), seq in sorted(pending.items()):
                    await tx.mark_read(game_id, inbox, reader, seq)
            self.transactions += 1
        except BaseException as exc:
            if not group.done():
                group.set_exception(exc)
            raise
        if not group.done():
            group.set_result(None)
