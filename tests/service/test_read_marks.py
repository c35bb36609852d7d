"""Read markers reported together share one transaction and only move forward (issue 17).

Cast: twenty readers of Лепроград's city inbox (p01_01..p01_20) report the last message
their pages show at once; a late report of an older position does not move a marker back.
"""

from __future__ import annotations

import asyncio

import pytest

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


def test_a_thousand_sockets_reports_are_written_two_hundred_to_a_transaction(
        backend: DatabaseConfig) -> None:
    """A thousand readers of 50 cities report through their sockets within one period: the
    group is written in five transactions of 200 markers, so a writer lane's commit waits
    for one chunk at most, never the whole group; every marker lands."""
    async def scenario() -> tuple[int, int, dict[str, int], dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, period=0.05)
            for city in range(1, 51):
                for i in range(1, 21):
                    marks.note("g", f"city:{city}:1", f"p{city:02d}_{i:02d}", 100 + city)
            await marks.flush()
            accounts = AccountStore(store)
            return (marks.transactions, marks.written, await accounts.read_markers("g", "p01_01"),
                    await accounts.read_markers("g", "p50_20"))
        finally:
            await store.close()

    transactions, written, first, last = run(scenario())
    assert (transactions, written) == (5, 1000)
    assert first == {"city:1:1": 101} and last == {"city:50:1": 150}


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


def test_two_groups_in_flight_over_the_same_readers_both_commit(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Лепроград's p01_01 and p01_02 report; while their group is being written (a slow
    store), both report again in the other order and a second group starts. Both groups
    commit and every reporter is answered (before, on PostgreSQL: the groups took the two
    readers' row locks in opposite orders and waited on each other, each holding a pooled
    connection, until PostgreSQL broke the deadlock by failing one — its reporters
    answered 500: 24 of them in 20 s of the 10-game load benchmark)."""
    from lepromafia.store.event_store import Transaction

    real_mark = Transaction.mark_read_many

    async def slow_mark(self: Transaction, marks: list[tuple[str, str, str, int]]) -> None:
        await real_mark(self, marks)
        await asyncio.sleep(0.3)  # the row stays locked while the other group starts

    async def scenario() -> tuple[list[object], dict[str, int], dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, delay=0.05)
            monkeypatch.setattr(Transaction, "mark_read_many", slow_mark)
            first = [asyncio.create_task(marks.mark("g", INBOX, r, 10)) for r in ("p01_01", "p01_02")]
            await asyncio.sleep(0.2)  # the first group is writing p01_01's marker
            second = [asyncio.create_task(marks.mark("g", INBOX, r, 20)) for r in ("p01_02", "p01_01")]
            answers = await asyncio.wait_for(asyncio.gather(*first, *second, return_exceptions=True), 20)
            accounts = AccountStore(store)
            return (list(answers), await accounts.read_markers("g", "p01_01"),
                    await accounts.read_markers("g", "p01_02"))
        finally:
            await store.close()

    answers, first, second = run(scenario())
    assert answers == [None] * 4
    assert first == {INBOX: 20} and second == {INBOX: 20}


def test_socket_reports_do_not_wait_and_a_second_of_them_is_one_executemany(
        backend: DatabaseConfig) -> None:
    """INBOX-CITY-1: twenty readers of Лепроград's city inbox report on their sockets, each
    five times (positions rising, then one late, older report): ``note`` returns at once,
    nothing is written before the period ends, then one transaction writes the twenty
    highest markers (forward only: p01_01's marker of 40 set earlier stays)."""
    async def scenario() -> tuple[int, int, int, int, dict[str, int], dict[str, int]]:
        store = EventStore.open(backend)
        try:
            async with store.transaction() as tx:
                await tx.mark_read("g", INBOX, "p01_01", 40)
            marks = ReadMarks(store, period=0.3)
            readers = [f"p01_{i:02d}" for i in range(1, 21)]
            for step in range(5):
                for i, r in enumerate(readers):
                    marks.note("g", INBOX, r, 10 + i + step)
            for r in readers:
                marks.note("g", INBOX, r, 1)  # late and older: moves nothing
            before = marks.transactions
            await asyncio.sleep(0.6)
            accounts = AccountStore(store)
            return (before, marks.transactions, marks.written, len(marks._pending),
                    await accounts.read_markers("g", "p01_01"), await accounts.read_markers("g", "p01_20"))
        finally:
            await store.close()

    before, after, written, pending, first, last = run(scenario())
    assert (before, after, written, pending) == (0, 1, 20, 0)
    assert first == {INBOX: 40} and last == {INBOX: 33}


def test_a_failed_group_writes_none_of_its_markers(backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """The group is one transaction: a statement failing half-way (after the first rows)
    leaves every marker of the group where it was; the HTTP reporter gets the error."""
    from lepromafia.store.event_store import Transaction

    real_many = Transaction.mark_read_many

    async def half(self: Transaction, marks: list[tuple[str, str, str, int]]) -> None:
        await real_many(self, marks[:1])
        raise RuntimeError("the disk is full")

    async def scenario() -> tuple[BaseException | None, dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, delay=0.05)
            monkeypatch.setattr(Transaction, "mark_read_many", half)
            marks.note("g", INBOX, "p01_01", 5)
            failed = (await asyncio.gather(marks.mark("g", INBOX, "p01_02", 7), return_exceptions=True))[0]
            monkeypatch.setattr(Transaction, "mark_read_many", real_many)
            return (failed if isinstance(failed, BaseException) else None,
                    await AccountStore(store).read_markers("g", "p01_01"))
        finally:
            await store.close()

    failed, first = run(scenario())
    assert isinstance(failed, RuntimeError)
    assert first == {}


def test_markers_of_pages_on_screen_are_written_in_a_trickle_each_a_period_after_it_moved(
        backend: DatabaseConfig) -> None:
    """INBOX-CITY-1: a thousand readers of 50 cities see a message on screen at 0 s, another
    thousand at 3 s; the first thousand see another one at 4 s. With a 5 s period nothing is
    written before 5 s; at 5 s the first thousand markers (with their 4 s positions: the
    moves in between ride along), in transactions of 200; the second thousand only at 8 s.
    Before, one group every period wrote every marker pending at once — 10,000 per worker
    at 200 games, a 200 ms delay for every command committed meanwhile on PostgreSQL."""
    now = [0.0]

    def readers(first: int) -> list[tuple[str, str]]:
        return [(f"city:{city}:1", f"p{city:02d}_{i:02d}") for city in range(1, 51)
                for i in range(first, first + 20)]

    async def written_at(marks: ReadMarks, moment: float) -> int:
        now[0] = moment
        written = -1
        while written != marks.written or marks._writing.locked():  # what is due, all of it
            written = marks.written  # (a loaded database takes more than a few ticks)
            await asyncio.sleep(marks.tick * 5)
        return marks.written

    async def scenario() -> tuple[list[int], int, dict[str, int], dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, seen_period=5.0, tick=0.01, clock=lambda: now[0])
            for inbox, reader in readers(1):
                marks.seen("g", inbox, reader, 100)
            counts = [await written_at(marks, 3.0)]
            for inbox, reader in readers(21):
                marks.seen("g", inbox, reader, 200)
            for inbox, reader in readers(1):
                marks.seen("g", inbox, reader, 300)
            counts += [await written_at(marks, 4.9), await written_at(marks, 5.0),
                       await written_at(marks, 7.9), await written_at(marks, 8.0)]
            accounts = AccountStore(store)
            return (counts, marks.transactions, await accounts.read_markers("g", "p01_01"),
                    await accounts.read_markers("g", "p50_40"))
        finally:
            await store.close()

    counts, transactions, early, late = run(scenario())
    assert counts == [0, 0, 1000, 1000, 2000]
    assert transactions == 10
    assert early == {"city:1:1": 300} and late == {"city:50:1": 200}


def test_flush_writes_the_markers_of_pages_on_screen_not_yet_due(backend: DatabaseConfig) -> None:
    """A clean shutdown: p01_01 saw a message on screen a moment ago; the marker ``seen``
    holds for later is written at once."""
    async def scenario() -> tuple[int, dict[str, int]]:
        store = EventStore.open(backend)
        try:
            marks = ReadMarks(store, seen_period=3600)
            marks.seen("g", INBOX, "p01_01", 7)
            await marks.flush()
            return marks.written, await AccountStore(store).read_markers("g", "p01_01")
        finally:
            await store.close()

    assert run(scenario()) == (1, {INBOX: 7})

