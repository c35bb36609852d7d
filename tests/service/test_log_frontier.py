"""The verifiable log of a long game after a restart (issue 17, session 13). The first
command of a game a worker has not written yet used to rebuild the game's tree from every
leaf it ever logged, inside the writer lane (O(events): for a game of 30,000 events ~37 ms
of hashing plus the reading, while every other game of the lane waited). Each snapshot
now keeps the log's frontier at its seq: the lane reads the leaves after the latest one
only, and the tree it extends is the tree of every leaf. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from sqlalchemy import select, update

from lepromafia import verifier
from lepromafia.engine import commands as cmd
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.service.transparency import GameLog
from lepromafia.store import merkle, schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction

from .helpers import at, manual_clock, run, setup_game, small_cast
from .test_verifiable_log import KEY, _export


async def _kept(backend: DatabaseConfig) -> tuple[list[tuple[int, str | None]], list[Any]]:
    """Every snapshot's (seq, frontier) and every stored leaf of game-1."""
    store = EventStore.open(backend)
    s = schema.snapshots
    async with store.reading() as tx:
        snaps = [(r.seq, r.frontier) for r in await tx._conn.execute(
            select(s.c.seq, s.c.frontier).where(s.c.game_id == "game-1").order_by(s.c.seq))]
        leaves = await tx.leaf_rows("game-1")
    await store.close()
    return snaps, leaves


async def _days(backend: DatabaseConfig, clock: ManualClock, first: int, last: int) -> None:
    """A worker (snapshots every 20 events) set up game-1 (from Day 1) and sweeps each day
    from ``first`` to ``last`` at 10:01; then it stops."""
    async with GameService.running(backend, clock=clock, log_key=KEY, snapshot_every=20,
                                   sweep=False) as svc:
        if first == 1:
            await setup_game(svc, "game-1", small_cast())
        for d in range(first, last + 1):
            clock.set(at(d, "10:01"))
            await svc.sweep()


def _reads_of_leaves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The ``after`` of every read of game-1's leaves from now on (a lane reads its
    batch's games' leaves together; a gap falls back to every leaf of one game)."""
    seen: list[int] = []
    every, together = Transaction.leaf_rows, Transaction.leaves_after

    async def one(self: Transaction, game_id: str, after: int = 0) -> list[Any]:
        seen.append(after)
        return await every(self, game_id, after)

    async def many(self: Transaction, after: Mapping[str, int]) -> dict[str, list[Any]]:
        seen.extend(a for g, a in after.items() if g == "game-1")
        return await together(self, after)

    monkeypatch.setattr(Transaction, "leaf_rows", one)
    monkeypatch.setattr(Transaction, "leaves_after", many)
    return seen


def test_a_restarted_worker_extends_the_log_from_the_latest_snapshots_frontier(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """game-1 plays Days 1–3 with a snapshot every 20 events, each keeping the log's
    frontier. The worker restarts and the Day 4 sweep is its first write of the game: it
    reads only the leaves after the latest snapshot, and the tree it extends is the tree of
    every stored leaf; the export verifies."""
    clock = manual_clock()

    run(_days(backend, clock, 1, 3))
    snaps, leaves = run(_kept(backend))
    kept = [(seq, f) for seq, f in snaps if f is not None]
    assert len(kept) >= 2 and kept[-1][0] <= len(leaves), "the snapshots keep frontiers"
    for seq, text in kept:  # each kept frontier is the tree of the leaves up to its seq
        assert merkle.Frontier.loads(text).root() == \
            GameLog.from_rows("game-1", leaves[:seq], []).frontier.root()
    latest = kept[-1][0]

    reads = _reads_of_leaves(monkeypatch)
    run(_days(backend, clock, 4, 4))
    assert reads and all(after >= latest for after in reads), f"leaf reads after {reads}"
    _, leaves = run(_kept(backend))
    report = verifier.verify(run(_export(backend)), "en")
    assert report.verified, report.text()
    assert [r["seq"] for r in leaves] == list(range(1, len(leaves) + 1))


def test_a_frontier_that_does_not_read_back_is_rebuilt_from_every_leaf(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """The frontiers kept with game-1's snapshots are damaged (a cache, like a snapshot):
    the restarted worker rebuilds the tree from every leaf and the log still verifies."""
    clock = manual_clock()

    async def damage() -> None:
        store = EventStore.open(backend)
        async with store.transaction() as tx:
            await tx._conn.execute(update(schema.snapshots).where(schema.snapshots.c.frontier.is_not(None))
                                   .values(frontier="3:00ff"))
        await store.close()

    run(_days(backend, clock, 1, 2))
    run(damage())
    reads = _reads_of_leaves(monkeypatch)
    run(_days(backend, clock, 3, 3))
    assert 0 in reads, "every leaf read"
    report = verifier.verify(run(_export(backend)), "en")
    assert report.verified, report.text()


def test_a_restarted_workers_first_batch_reads_the_logs_of_all_its_games_together(
        backend: DatabaseConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three games play Day 1 (a snapshot every 20 events). The worker restarts and Ana's
    Boris's and Vera's first messages, one in each game, come at once: the lane commits
    them in one batch whose three verifiable logs are read with one read of leaves, not
    one a game (after a restart every game's first command needs its log, and with 100
    games those reads held the lane ~300 ms; issue 17). Every game's log stays whole."""
    from .test_conflict_retry import assert_whole_log

    clock = manual_clock()
    games = ("game-1", "game-2", "game-3")

    async def set_up() -> str:
        async with GameService.running(backend, clock=clock, log_key=KEY, snapshot_every=20,
                                       sweep=False) as svc:
            for game in games:
                await setup_game(svc, game, small_cast())
            clock.set(at(1, "12:00"))
            return (await svc.state("game-1")).current_inbox("city", next(iter(small_cast().cities)))

    city = run(set_up())
    batches: list[set[str]] = []
    together = Transaction.leaves_after

    async def many(self: Transaction, after: Mapping[str, int]) -> dict[str, list[Any]]:
        batches.append(set(after))
        return await together(self, after)

    monkeypatch.setattr(Transaction, "leaves_after", many)

    async def restarted() -> None:
        async with GameService.running(backend, clock=clock, log_key=KEY, snapshot_every=20,
                                       sweep=False) as svc:
            await asyncio.gather(*(svc.execute(game, cmd.PostMessage(actor=author, inbox=city, text="Утро"),
                                               f"first-{game}")
                                   for game, author in zip(games, ("p01_01", "p01_02", "p01_03"), strict=True)))
            for game in games:
                assert (await assert_whole_log(svc.store, game))[-1:] == ["Утро"]

    run(restarted())
    assert batches == [set(games)]
