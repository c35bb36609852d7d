"""The writer lane's hot statements on SQLite's own connection (store/sqlite_direct.py)
write exactly what SQLAlchemy writes: the same game through both ways leaves the same
rows in every table, and ``lock_games`` reads the same, whatever the batch's size."""

from __future__ import annotations

import random
import secrets
from typing import Any

from sqlalchemy import select

from lepromafia.bots.service_bots import Ids
from lepromafia.engine import commands as cmd
from lepromafia.service.service import GameService
from lepromafia.store import schema, sqlite_direct
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore, Transaction
from lepromafia.store.migrate import upgrade
from tests.service.helpers import at, manual_clock, open_day2_vote, run, setup_game, small_cast, voting_inbox


async def _play(config: DatabaseConfig) -> dict[str, list[tuple[Any, ...]]]:
    """Two games set up, Day 2's vote opened in one, chat lines and votes in both; then
    every table's rows, sorted."""
    await upgrade(config)
    clock = manual_clock()
    svc = GameService(EventStore.open(config), clock)
    await svc.start(sweep=False)
    ids = Ids("c-")
    for game in ("alpha", "beta"):
        await setup_game(svc, game, small_cast(), ids=ids)
    state = await svc.state("alpha")
    city = next(iter(state.cities))
    a, _b = await open_day2_vote(svc, "alpha", clock, city, ids)
    state = await svc.state("alpha")
    living = state.living(city)
    chat = state.current_inbox("city", city)
    assert chat is not None
    for voter in living[2:5]:
        await svc.execute("alpha", cmd.PostMessage(actor=voter, inbox=voting_inbox(state, city, a),
                                                   text="казнить"), ids())
    clock.set(at(2, "20:30"))
    for author in living[:3]:
        await svc.execute("alpha", cmd.PostMessage(actor=author, inbox=chat,
                                                   text=f"**{author}** votes early"), ids())
    beta = await svc.state("beta")
    beta_city = next(iter(beta.cities))
    beta_chat = beta.current_inbox("city", beta_city)
    assert beta_chat is not None
    await svc.execute("beta", cmd.PostMessage(actor=beta.living(beta_city)[0], inbox=beta_chat,
                                              text="hi"), ids())
    await svc.sweep()
    tables: dict[str, list[tuple[Any, ...]]] = {}
    async with svc.store.reading() as tx:
        for name, table in schema.metadata.tables.items():
            rows = (await tx._conn.execute(select(table))).all()
            tables[name] = sorted((tuple(r) for r in rows), key=repr)
    await svc.close()
    return tables


def _seeded(monkeypatch) -> None:
    """The service's seeds, tokens and the verifiable log's salts from one fixed stream."""
    rng = random.Random(23)
    monkeypatch.setattr(secrets, "randbits", rng.getrandbits)
    monkeypatch.setattr(secrets, "token_hex", lambda n: rng.randbytes(n).hex())
    monkeypatch.setattr(secrets, "token_bytes", rng.randbytes)


def _counted(monkeypatch) -> list[str]:
    """The direct statements run from now on, by the SQL's first word."""
    ran: list[str] = []
    execute, execute_many = sqlite_direct.execute, sqlite_direct.execute_many

    def counted_execute(raw, prepared, row):  # type: ignore[no-untyped-def]
        ran.append(prepared.sql.split()[0])
        return execute(raw, prepared, row)

    def counted_execute_many(raw, prepared, rows):  # type: ignore[no-untyped-def]
        ran.append(prepared.sql.split()[0])
        execute_many(raw, prepared, rows)

    monkeypatch.setattr(sqlite_direct, "execute", counted_execute)
    monkeypatch.setattr(sqlite_direct, "execute_many", counted_execute_many)
    return ran


def test_a_game_written_directly_leaves_the_rows_sqlalchemy_would(tmp_path, monkeypatch) -> None:
    _seeded(monkeypatch)
    ran = _counted(monkeypatch)
    direct = run(_play(DatabaseConfig(f"sqlite:///{tmp_path}/direct.db")))
    assert {"SELECT", "UPDATE", "INSERT"} <= set(ran)
    monkeypatch.setattr(sqlite_direct, "connection", lambda conn: None)
    _seeded(monkeypatch)
    ran.clear()
    through_sqlalchemy = run(_play(DatabaseConfig(f"sqlite:///{tmp_path}/sqlalchemy.db")))
    assert ran == []
    assert direct.keys() == through_sqlalchemy.keys()
    for name in direct:
        assert direct[name] == through_sqlalchemy[name], name
    assert len(direct["events"]) > 100 and direct["messages"] and direct["deadlines"]


def test_lock_games_reads_the_same_for_every_batch_size(tmp_path, monkeypatch) -> None:
    """One to five games, none to seven command ids (some known, some not, one of another
    game): the padded direct statement finds what SQLAlchemy's finds."""
    config = DatabaseConfig(f"sqlite:///{tmp_path}/locks.db")
    ran = _counted(monkeypatch)

    async def scenario() -> None:
        await upgrade(config)
        clock = manual_clock()
        svc = GameService(EventStore.open(config), clock)
        await svc.start(sweep=False)
        games = [f"g{i}" for i in range(5)]
        for game in games:
            await setup_game(svc, game, small_cast(), ids=Ids(f"{game}-"))
        known = ["g0-1", "g0-2", "g3-5", "g4-1", "nobody-1", "g1-9999", "g2-3"]
        for n in range(1, 6):
            for m in range(0, 8):
                async with svc.store.transaction() as tx:
                    direct = await tx.lock_games(games[:n], known[:m])
                    raw, tx._raw = tx._raw, None
                    assert raw is not None
                    plain = await Transaction.lock_games(tx, games[:n], known[:m])
                    tx._raw = raw
                assert direct == plain, (n, m)
                assert len(direct.games) == n
        await svc.close()

    run(scenario())
    assert ran.count("SELECT") >= 40
