"""Read markers reported together share one transaction and only move forward (issue 17).

Cast: twenty readers of Лепроград's city inbox (p01_01..p01_20) report the last message
their pages show at once; a late report of an older position does not move a marker back.
"""

from __future__ import annotations

import asyncio

from lepromafia.service.read_marks import ReadMarks
from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

from .helpers import run

INBOX = "city:Лепроград:1"


def test_twenty_readers_reports_are_one_transaction_and_a_marker_never_moves_back(
        backend: DatabaseConfig) -> None:
    async def scenario() -> tuple[int, dict[str, int], dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, delay=0.05)
            readers = [f"p01_{i:02d}" for i in range(1, 21)]
            await asyncio.gather(*(marks.mark("g", INBOX, r, 10 + i) for i, r in enumerate(readers)))
            together = marks.transactions
            await marks.mark("g", INBOX, "p01_01", 3)  # a late report of an older position
            accounts = AccountStore(store)
            return (together, await accounts.read_markers("g", "p01_01"),
                    await accounts.read_markers("g", "p01_20"))
        finally:
            await store.close()

    together, first, last = run(scenario())
    assert together == 1
    assert first == {INBOX: 10} and last == {INBOX: 29}


def test_the_viewer_streams_number_a_published_message_without_reading_the_store() -> None:
    """INBOX-CITY-1: Лепроград's city inbox has had two messages; a third is published. The
    streams, current up to just before it, take it from the broker's batch: its number is
    3 with no read (the store here refuses every read), and a batch after a hole is left to
    the store."""
    from datetime import UTC, datetime

    from lepromafia.engine import events as ev
    from lepromafia.engine.audience import PUBLIC
    from lepromafia.service.streams import ViewerStreams, _Game

    class NoStore:
        def reading(self) -> None:
            raise AssertionError("read the store")

        async def release_reads(self) -> None:
            return None

    def post(text: str) -> ev.MessagePosted:
        return ev.MessagePosted(at=datetime(2026, 12, 1, 7, 5, tzinfo=UTC), audience=PUBLIC,
                                inbox=INBOX, author="p01_02", text=text)

    streams = ViewerStreams(NoStore())  # type: ignore[arg-type]
    streams._games["g"] = _Game(checked=10, counts={INBOX: 2})
    streams.observe("g", [(11, post("третье"))])
    assert run(streams.message_number("g", 11)) == 3
    streams.observe("g", [(13, post("после дыры"))])  # 12 was never offered
    assert streams._games["g"].checked == 11 and 13 not in streams._games["g"].numbers
