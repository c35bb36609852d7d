"""A writer lane's batch on PostgreSQL is one statement (store/postgres_batch.py) and writes
exactly what a statement per table writes: the same seeded games both ways leave the same
rows in every table (the cast and play of ``test_sqlite_direct``: two games set up, Day 2's
vote in Лепроград of one, votes and chat lines in both, VOTE-1 and CHAT-1)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from lepromafia.engine import commands as cmd
from lepromafia.service.service import GameService
from lepromafia.store import postgres_batch
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction
from lepromafia.store.migrate import upgrade
from tests.service.conftest import _drop_schema
from tests.service.helpers import at, manual_clock, pg_config, run, setup_game, small_cast
from tests.store.test_sqlite_direct import _play, _seeded


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement the stores opened from now on run, by their first words."""
    ran: list[str] = []
    opened = EventStore.open

    def listened(config: DatabaseConfig, *args: Any, **kwargs: Any) -> EventStore:
        store = opened(config, *args, **kwargs)
        event.listen(store.writer.sync_engine, "before_cursor_execute",
                     lambda conn, cursor, sql, *rest: ran.append(" ".join(sql.split()[:3])))
        return store

    monkeypatch.setattr(EventStore, "open", staticmethod(listened))
    return ran


@pytest.fixture
def two_schemas() -> Any:
    configs = pg_config(), pg_config()
    yield configs
    for config in configs:
        run(_drop_schema(config))


def test_a_batch_written_in_one_statement_leaves_the_rows_a_statement_per_table_would(
        two_schemas: tuple[DatabaseConfig, DatabaseConfig], monkeypatch: pytest.MonkeyPatch) -> None:
    at_once, one_by_one = two_schemas
    ran = _statements(monkeypatch)
    _seeded(monkeypatch)
    batched = run(_play(at_once))
    assert any(s.startswith("WITH w0 AS") for s in ran)
    assert not any(s.startswith(("INSERT INTO events", "INSERT INTO messages", "UPDATE games SET"))
                   for s in ran)

    async def never(self: Transaction, writes: Any, changes: Any) -> bool:
        return False

    monkeypatch.setattr(Transaction, "_write_at_once", never)
    _seeded(monkeypatch)
    ran.clear()
    statement_per_table = run(_play(one_by_one))
    assert not any(s.startswith("WITH") for s in ran)
    assert batched.keys() == statement_per_table.keys()
    for name in batched:
        assert batched[name] == statement_per_table[name], name
    assert len(batched["events"]) > 100 and batched["messages"] and batched["deadlines"]


def test_a_chat_line_is_begun_locked_written_and_committed_in_four_round_trips(
        two_schemas: tuple[DatabaseConfig, DatabaseConfig], monkeypatch: pytest.MonkeyPatch) -> None:
    """Anna's line in her city's chat (CHAT-1): the lane's transaction is BEGIN, the games'
    lock, one write and COMMIT (nine round trips before: a statement per table)."""
    config = two_schemas[0]
    trips: list[str] = []

    async def scenario() -> None:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        cast = small_cast()
        await setup_game(svc, "g", cast)
        clock.set(at(1, "12:00"))
        city = next(iter(cast.cities))
        chat = (await svc.state("g")).current_inbox("city", city)
        engine = svc.store.writer.sync_engine
        event.listen(engine, "begin", lambda conn: trips.append("BEGIN"))
        event.listen(engine, "before_cursor_execute",
                     lambda conn, cursor, sql, *rest: trips.append(sql.split()[0]))
        event.listen(engine, "commit", lambda conn: trips.append("COMMIT"))
        await svc.execute("g", cmd.PostMessage(actor=cast.cities[city][0], inbox=chat, text="Доброе утро"),
                          "anna-1")
        await svc.close()

    run(scenario())
    assert trips == ["BEGIN", "SELECT", "WITH", "COMMIT"]


def test_rows_that_differ_in_their_columns_are_written_a_statement_at_a_time() -> None:
    """What one statement of arrays cannot carry sends the batch the old way, whole."""
    mixed = postgres_batch.Batch()
    mixed.rows("insert", "events", [{"game_id": "g", "seq": 1}, {"game_id": "g", "seq": 2, "type": "X"}])
    assert not mixed.expressible
    defaulted = postgres_batch.Batch()  # games.time_scale has a Python-side default
    defaulted.rows("insert", "games", [{"game_id": "g", "title": "t"}])
    assert not defaulted.expressible
    outbox = postgres_batch.Batch()  # a key twice: the first stays, as row by row
    outbox.rows("ignore", "notify_outbox", [{"key": "k", "kind": "a"}, {"key": "k", "kind": "b"}])
    assert outbox.params == {"p0_key": ["k"], "p0_kind": ["a"]}
