"""The writer lane's optimistic backstop: a version conflict on commit is retried on a copy
of the game read afresh, state and verifiable log alike (issue 9, docs/decisions/sql.md).

Cast: the small game of ``helpers.small_cast``; in Лепроград p01_01 writes through worker A,
p01_02 through worker B, both in the city chat on Day 1 at noon. The row lock
(``Transaction.lock_games``) normally keeps one writer per game, so each scenario takes it
away for B's first attempt, as a backend without it (or a bug) would, and lets A commit
between B's read of the game and B's commit. Before the fix, B's retry appended to a tree
read after A's commit onto a state read before it and failed with "leaf N appended after
N" (a 500 ``internal`` at the API) — seen with two workers on PostgreSQL, docs/performance.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from contextlib import asynccontextmanager
from typing import Any

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.service.errors import ServiceError, ServiceErrorCode
from lepromafia.service.replay import check_game
from lepromafia.service.service import Ack, GameService
from lepromafia.service.transparency import LogKey, commitment
from lepromafia.store import merkle
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import ConcurrencyConflict, EventStore, Locked, Transaction, decode_rows

from .helpers import at, manual_clock, run, setup_game, small_cast

CAST = small_cast()
LEPROGRAD = next(iter(CAST.cities))
KEY = LogKey.generate()


Hook = Callable[[Transaction], None]


def first_transaction(store: EventStore, hook: Hook) -> list[int]:
    """Run ``hook`` on the store's first write transaction only; the number of write
    transactions begun so far is the returned list's length (so a retry is visible)."""
    real = store.transaction
    begun: list[int] = []

    @asynccontextmanager
    async def transaction() -> AsyncIterator[Transaction]:
        async with real() as tx:
            begun.append(1)
            if len(begun) == 1:
                hook(tx)
            yield tx

    store.transaction = transaction  # type: ignore[method-assign]
    return begun


async def two_workers(backend: DatabaseConfig) -> tuple[GameService, GameService, Any, str]:
    clock = manual_clock()
    a = GameService(EventStore.open(backend), clock, log_key=KEY)
    b = GameService(EventStore.open(backend), clock, log_key=KEY)
    await a.start(sweep=False)
    await b.start(sweep=False)
    await setup_game(a, "g", CAST)
    clock.set(at(1, "12:00"))
    city = (await a.state("g")).current_inbox("city", LEPROGRAD)
    return a, b, clock, city


async def assert_whole_log(store: EventStore, game_id: str) -> list[str]:
    """Every event has its one salted leaf, committing to that event's payload, and every
    signed head the root of the leaves it covers; the replay checks pass. The chat texts."""
    async with store.reading() as tx:
        events, leaves, heads = (await tx.event_rows(game_id), await tx.leaf_rows(game_id),
                                 await tx.head_rows(game_id))
    assert [r["seq"] for r in events] == list(range(1, len(events) + 1))
    assert [r["seq"] for r in leaves] == [r["seq"] for r in events]
    for event, leaf in zip(events, leaves, strict=True):
        assert commitment(game_id, event["seq"], bytes.fromhex(leaf["salt"]), event["payload"]).hex() \
            == leaf["leaf"], f"leaf {leaf['seq']} commits to another event"
    entries = [bytes.fromhex(r["leaf"]) for r in leaves]
    for head in heads:
        assert bytes.fromhex(head["root"]) == merkle.root(entries[:head["size"]])
    report = await check_game(store, game_id)
    assert report.ok, report
    return [e.text for _, e in decode_rows(events) if type(e).__name__ == "MessagePosted"]


def test_a_commit_after_the_lanes_read_is_a_conflict_retried_on_a_fresh_copy(backend: DatabaseConfig) -> None:
    """B has played once and keeps its copy of the game. A commits p01_01's «A1». B's next
    batch reads the games row as it was before A's commit (no row lock), decides p01_02's
    «B2» on its old copy and conflicts on commit; the retry reads the game afresh and
    commits «B2» after «A1», every event with its leaf, and no error reaches p01_02."""

    async def scenario() -> None:
        a, b, _, city = await two_workers(backend)
        await b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B1"), "b1")
        async with b.store.reading() as tx:
            read_before = await tx.meta("g")  # the lane's read, before A's commit
        assert read_before is not None
        await a.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="A1"), "a1")

        def unlocked(tx: Transaction) -> None:
            real_lock = tx.lock_games

            async def stale_lock(game_ids: Collection[str], command_ids: Collection[str] = ()) -> Locked:
                locked = await real_lock(game_ids, command_ids)
                locked.games["g"] = read_before
                return locked

            tx.lock_games = stale_lock  # type: ignore[method-assign]

        begun = first_transaction(b.store, unlocked)
        ack = await b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B2"), "b2")

        assert len(begun) == 2, "the first attempt conflicted on commit and was retried once"
        assert await assert_whole_log(a.store, "g") == ["B1", "A1", "B2"]
        assert ack.last_seq == (await a.current("g")).version
        # the retried copy is B's handle now: its next command follows on without a conflict
        begun.clear()
        await b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B3"), "b3")
        assert await assert_whole_log(b.store, "g") == ["B1", "A1", "B2", "B3"]
        await a.close()
        await b.close()

    run(scenario())


def test_a_commit_between_the_lanes_state_read_and_its_log_read_is_retried_not_a_500(
        postgresql: DatabaseConfig) -> None:
    """PostgreSQL only (SQLite's ``BEGIN IMMEDIATE`` holds the whole database, so no commit
    can land inside the lane's transaction). Worker B has nothing cached. Its first
    transaction takes no row lock and reads the game's state; then A commits p01_01's «A1»;
    then B reads the verifiable log, which READ COMMITTED shows with A's leaf. B must not
    append p01_02's «B2» to that tree ("leaf N appended after N", a 500): it conflicts, the
    retry reads state and tree afresh, and «B2» lands after «A1» with a whole log."""

    async def scenario() -> None:
        a, b, _, city = await two_workers(postgresql)
        a_commits: list[int] = []

        def race(tx: Transaction) -> None:
            real_leaves = tx.leaves_after

            async def plain_read(game_ids: Collection[str], command_ids: Collection[str] = ()) -> Locked:
                found = {g: await tx.meta(g) for g in game_ids}
                return Locked({g: m for g, m in found.items() if m is not None})

            async def leaves_after_a_commit(after: Mapping[str, int]) -> dict[str, list[Any]]:
                if not a_commits:
                    ack = await a.execute("g", cmd.PostMessage(actor="p01_01", inbox=city, text="A1"), "a1")
                    a_commits.append(ack.last_seq)
                return await real_leaves(after)

            tx.lock_games = plain_read  # type: ignore[method-assign]
            tx.leaves_after = leaves_after_a_commit  # type: ignore[method-assign]

        begun = first_transaction(b.store, race)
        ack = await b.execute("g", cmd.PostMessage(actor="p01_02", inbox=city, text="B2"), "b2")

        assert a_commits, "A committed inside B's first transaction"
        assert len(begun) == 2, "B's first attempt was abandoned and retried once"
        assert ack.first_seq == a_commits[0] + 1
        assert await assert_whole_log(b.store, "g") == ["A1", "B2"]
        await a.close()
        await b.close()

    run(scenario())


def test_a_game_that_keeps_moving_fails_only_its_own_commands(backend: DatabaseConfig,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Two games share the writer lane's batch; «busy» is moved by another writer at every
    commit (its version check always fails). p01_01's message in «quiet» is committed and
    acknowledged; only p01_02's in «busy» is refused, with ``concurrency_conflict``."""

    async def scenario() -> tuple[list[object], list[set[str]], list[str]]:
        clock = manual_clock()
        async with GameService.running(backend, clock=clock, sweep=False) as svc:
            for game in ("quiet", "busy"):
                await setup_game(svc, game, CAST)
            clock.set(at(1, "12:00"))
            city = (await svc.state("quiet")).current_inbox("city", LEPROGRAD)
            assert city is not None
            batches: list[set[str]] = []
            real_write = Transaction.write

            async def write(self: Transaction, writes: Any, changes: Any) -> None:
                games = {w.game_id for w in writes}
                batches.append(games)
                if "busy" in games:
                    raise ConcurrencyConflict("busy")
                await real_write(self, writes, changes)

            monkeypatch.setattr(Transaction, "write", write)
            outcomes = await asyncio.gather(
                svc.execute("quiet", cmd.PostMessage(actor="p01_01", inbox=city, text="Тихо."), "q1"),
                svc.execute("busy", cmd.PostMessage(actor="p01_02", inbox=city, text="Шумно."), "b1"),
                return_exceptions=True)
            monkeypatch.undo()
            async with svc.store.reading() as tx:
                rows = await tx.event_rows("quiet")
            texts = [e.text for _, e in decode_rows(rows) if type(e).__name__ == "MessagePosted"]
        return list(outcomes), batches, texts

    outcomes, batches, texts = run(scenario())
    assert {"quiet", "busy"} in batches  # they did share a batch
    assert isinstance(outcomes[0], Ack)
    assert isinstance(outcomes[1], ServiceError) and outcomes[1].code is ServiceErrorCode.CONCURRENCY_CONFLICT
    assert texts == ["Тихо."]
