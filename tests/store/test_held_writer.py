"""SQLite's write transactions on one held connection (``event_store._HeldWriter``, issue
17): no pool checkout per transaction, yet every writer's transaction is its own, a failed
one leaves nothing behind, and another event loop gets a connection of its own."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from lepromafia.store.accounts import AccountStore, UserRow
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.schema import games
from lepromafia.store.sqlite_inline import InlineConnection
from tests.service.helpers import sqlite_config


def _store(tmp_path: Path) -> EventStore:
    return EventStore.open(DatabaseConfig(f"sqlite:///{tmp_path}/held.db"))


async def _counter(store: EventStore) -> int:
    async with store.engine.connect() as conn:
        return int((await conn.execute(text("SELECT n FROM counter"))).scalar_one())


async def _with_counter(store: EventStore) -> None:
    async with store.write_connection() as conn:
        await conn.execute(text("CREATE TABLE counter (n INTEGER NOT NULL)"))
        await conn.execute(text("INSERT INTO counter VALUES (0)"))


def _checkouts(store: EventStore) -> list[int]:
    seen = [0]

    @event.listens_for(store.engine.sync_engine.pool, "checkout")
    def _out(*_: object) -> None:
        seen[0] += 1

    return seen


def test_forty_writers_each_add_one_on_one_connection_taken_once(tmp_path: Path) -> None:
    """Forty lanes' worth of writers each read the counter, yield to the loop and write it
    plus one: every increment survives (the writers take the held connection in turn), and
    the pool handed out a connection once for all forty transactions."""

    async def main() -> tuple[int, int]:
        store = _store(tmp_path)
        await _with_counter(store)
        checkouts = _checkouts(store)

        async def add_one() -> None:
            async with store.write_connection() as conn:
                n = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
                await asyncio.sleep(0)
                await conn.execute(text("UPDATE counter SET n = :n"), {"n": n + 1})

        await asyncio.gather(*(add_one() for _ in range(40)))
        total = await _counter(store)
        writer_checkouts = checkouts[0] - 1  # the count's own read
        await store.close()
        return total, writer_checkouts

    total, writer_checkouts = asyncio.run(main())
    assert total == 40
    assert writer_checkouts == 0, "the write transactions reused the connection held since the table's"


def test_a_failed_transaction_writes_nothing_and_the_next_one_commits(tmp_path: Path) -> None:
    """A writer adds one and then fails (a bug, a refused value): its addition is rolled back,
    its connection dropped, and the next writer commits on a fresh one."""

    async def main() -> tuple[int, int]:
        store = _store(tmp_path)
        await _with_counter(store)
        with pytest.raises(RuntimeError):
            async with store.write_connection() as conn:
                await conn.execute(text("UPDATE counter SET n = n + 1"))
                raise RuntimeError("the command failed after its first statement")
        after_failure = await _counter(store)
        async with store.write_connection() as conn:
            await conn.execute(text("UPDATE counter SET n = n + 5"))
        total = await _counter(store)
        await store.close()
        return after_failure, total

    assert asyncio.run(main()) == (0, 5)


def test_a_cancelled_writer_leaves_the_lock_to_the_next(tmp_path: Path) -> None:
    """A writer cancelled inside its transaction (a client gone, a shutdown) rolls back and
    releases the held connection: the writer queued behind it commits."""

    async def main() -> int:
        store = _store(tmp_path)
        await _with_counter(store)
        inside = asyncio.Event()

        async def stuck() -> None:
            async with store.write_connection() as conn:
                await conn.execute(text("UPDATE counter SET n = n + 100"))
                inside.set()
                await asyncio.sleep(3600)

        async def next_writer() -> None:
            async with store.write_connection() as conn:
                await conn.execute(text("UPDATE counter SET n = n + 1"))

        first = asyncio.create_task(stuck())
        await inside.wait()
        second = asyncio.create_task(next_writer())
        await asyncio.sleep(0.01)
        first.cancel()
        await asyncio.wait_for(second, 5)
        total = await _counter(store)
        await store.close()
        return total

    assert asyncio.run(main()) == 1


def test_each_event_loop_writes_on_a_connection_of_its_own(tmp_path: Path) -> None:
    """Tests (and a CLI command) run one store in several loops in turn: each loop's writes
    commit, and the connection of the loop before is closed, not leaked from the pool."""
    store = _store(tmp_path)

    async def add(n: int) -> None:
        async with store.write_connection() as conn:
            await conn.execute(text("UPDATE counter SET n = n + :n"), {"n": n})

    asyncio.run(_with_counter(store))
    for n in (1, 2, 3):
        asyncio.run(add(n))
    assert asyncio.run(_counter(store)) == 6
    assert store.engine.sync_engine.pool.checkedout() == 1, "only the last loop's is held"
    asyncio.run(store.close())
    assert store.engine.sync_engine.pool.checkedout() == 0


def test_a_taken_login_and_a_lane_s_commit_share_the_held_connection(tmp_path: Path) -> None:
    """The accounts' writes go through the same held connection (``write_connection``):
    Vera registers, Oleg's registration under her login is refused (the insert fails, the
    connection is dropped), and the lane's transaction queued behind it commits."""
    config = sqlite_config(tmp_path)
    asyncio.run(upgrade(config))

    async def main() -> tuple[bool, bool, int]:
        store = EventStore.open(config)
        accounts = AccountStore(store)
        vera = await accounts.add_user(UserRow("vera", "Vera", "hash", 1.0))
        oleg, _ = await asyncio.gather(accounts.add_user(UserRow("vera", "Oleg", "hash", 2.0)),
                                       _lane_writes_a_game_row(store))
        async with store.engine.connect() as conn:
            games = int((await conn.execute(text("SELECT count(*) FROM games"))).scalar_one())
        await store.close()
        return vera, oleg, games

    assert asyncio.run(main()) == (True, False, 1)


async def _lane_writes_a_game_row(store: EventStore) -> None:
    async with store.transaction() as tx:  # the writer lane's
        await tx.insert_rows(games, [{"game_id": "g1", "title": "Lepra", "created_at": "2026-12-06",
                                      "stage": "setup", "version": 0, "time_scale": 1.0,
                                      "clock_epoch": 0.0}])


def test_a_write_is_unseen_by_readers_until_its_transaction_commits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The held connection's SQLite transactions are begun and committed by the store itself,
    beside SQLAlchemy's (session 34): an update made through SQLAlchemy inside one is still
    inside SQLite's transaction — a reader sees the old count until the commit, and the new
    one after it — and every transaction takes the file's write lock (``BEGIN IMMEDIATE``)."""
    begun: list[str] = []
    real = InlineConnection.begin_write

    async def spy(self: InlineConnection, sql: str, parameters: Sequence[Any]) -> None:
        begun.append(sql)
        await real(self, sql, parameters)

    monkeypatch.setattr(InlineConnection, "begin_write", spy)

    async def main() -> tuple[int, int, int]:
        store = _store(tmp_path)
        await _with_counter(store)
        async with store.write_connection() as conn:
            await conn.execute(text("UPDATE counter SET n = n + 7"))
            inside = (await conn.execute(text("SELECT n FROM counter"))).scalar_one()
            unseen = await _counter(store)
        seen = await _counter(store)
        await store.close()
        return inside, unseen, seen

    assert asyncio.run(main()) == (7, 0, 7)
    assert begun == ["BEGIN IMMEDIATE"] * 2  # the table's transaction, then this one
