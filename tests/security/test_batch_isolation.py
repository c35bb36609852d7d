"""F6-1: one player's command that the store refuses never fails another player's.

Cast: the small game of the service tests (Лепроград p01_01..p01_06). At noon of Day 1
the six residents of Лепроград post in the city inbox at the same moment, and in the
same commit batch comes one poisoned post. Every valid post is acknowledged and stored;
the poisoned one alone is refused.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.service.errors import ServiceError, ServiceErrorCode
from lepromafia.service.service import Ack, GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction

from ..service.helpers import at, manual_clock, run, setup_game, small_cast

CAST = small_cast()
CITY = next(iter(CAST.cities))


class Poisoned(Exception):
    """What a backend raises for a value it cannot store (asyncpg's DataError for NUL)."""


def poison_writes(monkeypatch: pytest.MonkeyPatch, marker: str, exc: BaseException) -> None:
    """The store refuses any write batch holding a command whose text contains ``marker``."""
    original = Transaction.write

    async def write(self: Transaction, writes: Any, changes: Any) -> None:
        if any(marker in row["command"] for w in writes for row in w.commands):
            raise exc
        await original(self, writes, changes)

    monkeypatch.setattr(Transaction, "write", write)


async def noon_rush(svc: GameService, poison: str) -> tuple[list[Any], Any]:
    await setup_game(svc, "g", CAST)
    state = await svc.state("g")
    inbox = state.current_inbox("city", CITY)
    residents = state.living(CITY)
    posts = [svc.execute("g", cmd.PostMessage(actor=u, inbox=inbox, text=f"добрый день от {u}"),
                         f"ok-{u}") for u in residents]
    bad = svc.execute("g", cmd.PostMessage(actor=residents[0], inbox=inbox, text=poison), "bad")
    results = await asyncio.gather(*posts[:3], bad, *posts[3:], return_exceptions=True)
    return results, state


@pytest.mark.parametrize("batch", [512, 2])
def test_a_poisoned_post_in_a_batch_fails_alone_and_every_valid_one_is_acknowledged(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    """F6-1 on SQLite and PostgreSQL: the store refuses one command of the batch at commit."""
    poison_writes(monkeypatch, "POISON", Poisoned("value cannot be stored"))

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock, max_batch=batch)
        await svc.start(sweep=False)
        clock.set(at(1, "12:00"))
        results, _ = await noon_rush(svc, "POISON here")
        bad = results.pop(3)
        assert isinstance(bad, Poisoned)
        assert all(isinstance(r, Ack) for r in results), results
        texts = {r["text"] for r in (await svc.store.read_model("g"))["messages"].values()}
        assert len([t for t in texts if t.startswith("добрый день")]) == 6
        assert not any("POISON" in t for t in texts)
        await svc.close()

    run(scenario())


def test_a_nul_byte_that_postgresql_refuses_fails_only_its_own_post(backend: DatabaseConfig) -> None:
    """F6-1 without any fake: PostgreSQL cannot store ``\\x00`` in text; SQLite can. Either
    way the six other residents' posts of the same batch are acknowledged."""

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        clock.set(at(1, "12:00"))
        results, _ = await noon_rush(svc, "evil\x00nul")
        bad = results.pop(3)
        assert all(isinstance(r, Ack) for r in results), results
        assert isinstance(bad, Ack) == backend.is_sqlite
        # the game goes on: a post afterwards is accepted
        state = await svc.state("g")
        ack = await svc.execute("g", cmd.PostMessage(actor=state.living(CITY)[1],
                                                     inbox=state.current_inbox("city", CITY),
                                                     text="и снова здравствуйте"), "after")
        assert isinstance(ack, Ack)
        await svc.close()

    run(scenario())


def test_a_full_disk_fails_the_batch_with_storage_full_and_keeps_nothing(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """F5-1: the store is full: every command of the batch gets ``storage_full`` (503 on
    the web), nothing is half-written, and the same command ids succeed once there is room.
    Each backend raises its own error: SQLite's ``SQLITE_FULL``, PostgreSQL's class 53
    ``disk_full`` as asyncpg raises it (SQLSTATE 53100)."""
    import sqlite3

    import asyncpg

    full = {"on": True}
    original = Transaction.write
    refusal: Exception = sqlite3.OperationalError("database or disk is full") if backend.is_sqlite \
        else asyncpg.exceptions.DiskFullError("could not write to file \"pg_wal/xlogtemp.61\"")

    async def write(self: Transaction, writes: Any, changes: Any) -> None:
        if full["on"] and any(w.commands for w in writes):
            raise refusal
        await original(self, writes, changes)

    monkeypatch.setattr(Transaction, "write", write)

    async def scenario() -> None:
        clock = manual_clock()
        svc = GameService(EventStore.open(backend), clock)
        await svc.start(sweep=False)
        full["on"] = False
        await setup_game(svc, "g", CAST)
        full["on"] = True
        clock.set(at(1, "12:00"))
        state = await svc.state("g")
        inbox = state.current_inbox("city", CITY)
        version = len(await svc.store.event_rows("g"))
        posts = [cmd.PostMessage(actor=u, inbox=inbox, text=f"привет от {u}") for u in state.living(CITY)]
        results = await asyncio.gather(*(svc.execute("g", p, f"p-{i}") for i, p in enumerate(posts)),
                                       return_exceptions=True)
        assert all(isinstance(r, ServiceError) and r.code is ServiceErrorCode.STORAGE_FULL
                   for r in results), results
        assert len(await svc.store.event_rows("g")) == version
        full["on"] = False
        acks = [await svc.execute("g", p, f"p-{i}") for i, p in enumerate(posts)]
        assert all(isinstance(a, Ack) for a in acks)
        await svc.close()

    run(scenario())
