"""The store contract, identical on SQLite and PostgreSQL (the ``backend`` fixture)."""

from __future__ import annotations

import json

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import update

from lepromafia.bots.simulate import play
from lepromafia.store import codec, schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import ConcurrencyConflict, CorruptLog, EventStore, GameMeta, GameWrite
from lepromafia.store.migrate import current, head
from lepromafia.store.projection import GameClock
from tests.service.helpers import run

GAME = play(5, cities=2, population=6)


def event_rows(game_id: str, events: list, first: int = 1) -> list[dict]:
    return [{"game_id": game_id, "seq": first + i, "type": type(e).__name__, "at": e.at.isoformat(),
             "payload": codec.dumps(codec.encode_event(e)), "command_id": f"c{first + i}"}
            for i, e in enumerate(events)]


def meta(game_id: str, version: int) -> GameMeta:
    return GameMeta(game_id, "t", "2026-11-28T00:00:00+03:00", "running", version, GameClock(0.0))


async def append(store: EventStore, game_id: str, events: list, expected: int,
                 snapshot_state: object = None) -> None:
    first = max(expected, 0) + 1
    last = first + len(events) - 1
    w = GameWrite(game_id, expected, meta(game_id, last), event_rows(game_id, events, first))
    if snapshot_state is not None:
        w.snapshot = {"game_id": game_id, "seq": first + len(events) - 1,
                      "payload": codec.dumps(codec.encode_state(snapshot_state))}
    async with store.transaction() as tx:
        await tx.write([w], {})


def test_migrations_reach_head_and_match_the_table_definitions(backend: DatabaseConfig) -> None:
    async def check() -> list:
        store = EventStore.open(backend)
        async with store.engine.connect() as conn:
            diff = await conn.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), schema.metadata))
        await store.close()
        return diff

    assert run(current(backend)) == head()
    assert run(check()) == []


def test_a_game_loads_back_to_the_same_state_with_and_without_a_snapshot(backend: DatabaseConfig) -> None:
    events = GAME.table.events
    half = len(events) // 2

    async def scenario() -> None:
        store = EventStore.open(backend)
        await append(store, "g", events[:half], -1)
        from lepromafia.engine.evolve import replay
        await append(store, "g", events[half:], half, snapshot_state=GAME.table.game)
        async with store.reading() as tx:
            with_snap = await tx.load("g")
            without = await tx.load("g", use_snapshot=False)
        assert with_snap is not None and without is not None
        assert with_snap.state == without.state == GAME.table.game == replay(events).state
        assert with_snap.snapshot_seq == len(events) and with_snap.replayed == 0
        assert without.replayed == len(events)
        await store.close()

    run(scenario())


def test_the_game_seq_key_rejects_a_second_writer(backend: DatabaseConfig) -> None:
    """Two writers that both think the game is at version N: only one appends N+1."""
    events = GAME.table.events

    async def scenario() -> None:
        store = EventStore.open(backend)
        await append(store, "g", events[:10], -1)
        await append(store, "g", events[10:12], 10)
        with pytest.raises(ConcurrencyConflict):
            await append(store, "g", events[10:11], 10)  # stale version
        # the unique key is the backstop even if the version check is bypassed
        async with store.writer.begin() as conn:
            await conn.execute(update(schema.games).values(version=10))
        with pytest.raises(ConcurrencyConflict):
            await append(store, "g", events[10:11], 10)
        with pytest.raises(ConcurrencyConflict):
            await append(store, "g", events[:1], -1)  # the game exists
        assert len(await store.event_rows("g")) == 12
        await store.close()

    run(scenario())


def test_a_batch_of_three_games_moves_all_or_names_the_one_that_moved(backend: DatabaseConfig) -> None:
    """One batch writes three games (PostgreSQL: one statement moves their rows); when
    another writer moved the second meanwhile, the batch fails naming it and none of the
    three games is moved or gets an event."""
    events = GAME.table.events

    def write(game_id: str, expected: int, n: int) -> GameWrite:
        return GameWrite(game_id, expected, meta(game_id, expected + n),
                         event_rows(game_id, events[expected:expected + n], expected + 1))

    async def scenario() -> tuple[str, list[int], list[int]]:
        store = EventStore.open(backend)
        for game in ("a", "b", "c"):
            await append(store, game, events[:5], -1)
        async with store.transaction() as tx:
            await tx.write([write("a", 5, 2), write("b", 5, 1), write("c", 5, 3)], {})
        await append(store, "b", events[6:7], 6)  # another writer: b is at 7
        try:
            async with store.transaction() as tx:
                await tx.write([write("a", 7, 1), write("b", 6, 1), write("c", 8, 1)], {})
        except ConcurrencyConflict as exc:
            named = exc.game_id
        async with store.reading() as tx:
            versions = [(await tx.meta(g)).version for g in ("a", "b", "c")]  # type: ignore[union-attr]
        counts = [len(await store.event_rows(g)) for g in ("a", "b", "c")]
        await store.close()
        return named, versions, counts

    named, versions, counts = run(scenario())
    assert named == "b"
    assert versions == counts == [7, 7, 8]


@pytest.mark.parametrize("corruption", ["bad json", "unknown type", "wrong field", "does not apply"])
def test_a_corrupt_event_row_is_reported_with_the_first_bad_seq(backend: DatabaseConfig,
                                                                 corruption: str) -> None:
    events = GAME.table.events[:40]

    async def scenario() -> None:
        store = EventStore.open(backend)
        await append(store, "g", events, -1)
        good = json.loads((await store.event_rows("g"))[16]["payload"])
        payload = {
            "bad json": "{not json",
            "unknown type": codec.dumps({**good, "type": "Nope"}),
            "wrong field": codec.dumps({**good, "at": 12}),
            "does not apply": codec.dumps(codec.encode_event(events[0])),  # GameCreated twice
        }[corruption]
        e = schema.events
        async with store.writer.begin() as conn:
            await conn.execute(update(e).where(e.c.seq == 17).values(payload=payload))
        async with store.reading() as tx:
            with pytest.raises(CorruptLog) as caught:
                await tx.load("g")
        assert caught.value.seq == 17
        await store.close()

    run(scenario())


def test_overdue_deadlines_are_leased_to_one_sweeper_at_a_time(backend: DatabaseConfig) -> None:
    async def scenario() -> None:
        store = EventStore.open(backend)
        rows = {(f"g{i}", f"k{j}"): {"game_id": f"g{i}", "key": f"k{j}", "due_at": "x",
                                      "due_real": 100.0 + j, "status": "pending", "fired_at": None,
                                      "fired_seq": None} for i in range(3) for j in range(2)}
        async with store.transaction() as tx:
            await tx.write([], {"deadlines": rows})
        async with store.transaction() as tx:
            assert await tx.claim_due(100.5, 30) == ["g0", "g1", "g2"]
        async with store.transaction() as tx:
            assert await tx.claim_due(100.7, 30) == []  # every due row is leased
        async with store.transaction() as tx:
            assert sorted(await tx.claim_due(101.0, 30)) == ["g0", "g1", "g2"]  # k1 fell due
        async with store.transaction() as tx:
            assert sorted(await tx.claim_due(200.0, 30)) == ["g0", "g1", "g2"]  # leases expired
        await store.close()

    run(scenario())


def test_many_games_logs_are_read_together_each_from_its_own_point(backend: DatabaseConfig) -> None:
    """Three games' leaves, snapshots and heads; the batched reads a writer lane makes
    after a start: each game's leaves after its own seq, each game's latest snapshot at
    or before its seq that kept a frontier (not a later one without), each game's heads in
    size order."""

    async def check() -> None:
        store = EventStore.open(backend)
        events = GAME.table.events[:6]
        for game in ("a", "b", "c"):
            await append(store, game, events, -1)
        async with store.transaction() as tx:
            await tx.insert_rows(schema.event_leaves, [
                {"game_id": g, "seq": s, "salt": f"{s:032x}", "leaf": f"{g}{s}".ljust(64, "0")}
                for g in ("a", "b", "c") for s in range(1, 7)])
            await tx.insert_rows(schema.snapshots, [
                {"game_id": "a", "seq": 2, "payload": "{}", "frontier": "2:aa"},
                {"game_id": "a", "seq": 4, "payload": "{}", "frontier": "4:bb"},
                {"game_id": "a", "seq": 5, "payload": "{}", "frontier": None},
                {"game_id": "b", "seq": 3, "payload": "{}", "frontier": None}])
            await tx.insert_rows(schema.log_heads, [
                {"game_id": g, "size": n, "root": "00" * 32, "signed_at": "2026-11-28T10:00:00+03:00",
                 "reason": "day_post:1", "key_id": "k", "signature": "s"}
                for g, n in (("a", 4), ("a", 2), ("c", 6))])
        async with store.reading() as tx:
            leaves = await tx.leaves_after({"a": 4, "b": 0, "c": 6})
            frontiers = await tx.snapshot_frontiers({"a": 6, "b": 6, "c": 6})
            earlier = await tx.snapshot_frontiers({"a": 3})
            heads = await tx.heads_of(["a", "b", "c"])
        await store.close()
        assert {g: [r["seq"] for r in rows] for g, rows in leaves.items()} == \
            {"a": [5, 6], "b": [1, 2, 3, 4, 5, 6], "c": []}
        assert leaves["a"][0] == {"seq": 5, "salt": f"{5:032x}", "leaf": "a5".ljust(64, "0")}
        assert frontiers == {"a": (4, "4:bb")}
        assert earlier == {"a": (2, "2:aa")}
        assert {g: [r["size"] for r in rows] for g, rows in heads.items()} == {"a": [2, 4], "b": [], "c": [6]}

    run(check())


def test_batches_of_one_to_nine_games_lock_with_five_statement_texts(backend: DatabaseConfig, monkeypatch) -> None:
    """``lock_games`` pads its IN lists to powers of two, so batches of 1 to 9 games use the
    texts for 1, 2, 4, 8 and 16 (asyncpg prepares each text once per connection, in a cache
    of 100; SQLite's direct path compiles each once), and each batch finds exactly its games
    (the padding repeats none)."""
    from sqlalchemy import event

    from lepromafia.store import sqlite_direct

    texts: set[str] = set()
    direct = sqlite_direct.execute
    monkeypatch.setattr(sqlite_direct, "execute",
                        lambda raw, prepared, row: texts.add(prepared.sql) or direct(raw, prepared, row))

    async def scenario() -> list[tuple[list[str], dict[str, list[str]]]]:
        store = EventStore.open(backend)
        event.listen(store.writer.sync_engine, "before_cursor_execute",
                     lambda conn, cursor, sql, *rest: texts.add(sql) if "LEFT OUTER JOIN commands" in sql else None)
        games = [f"g{i}" for i in range(9)]
        for game in games:
            await append(store, game, GAME.table.events[:2], -1)
        found = []
        for n in range(1, 10):
            async with store.transaction() as tx:
                locked = await tx.lock_games(games[:n], ["c1", "c2", "nobody"])
            found.append((sorted(locked.games), {g: sorted(c) for g, c in locked.commands.items()}))
        await store.close()
        return found

    found = run(scenario())
    assert [games for games, _ in found] == [[f"g{i}" for i in range(n)] for n in range(1, 10)]
    assert all(known == {g: [] for g in games} for games, known in found)  # no command rows
    assert len(texts) == 5
