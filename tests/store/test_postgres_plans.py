"""Issue 17: on PostgreSQL a writer's first statement stays an index lookup as the store
grows. asyncpg prepares each statement once per connection; after five executions the
server may keep one generic plan, made from the statistics of that moment. Cast: a lane
that locks its game batch after batch while the ``commands`` table is still empty (a new
database), then again once 20,000 commands were accepted."""

from __future__ import annotations

from sqlalchemy import insert, text

from lepromafia.store import schema
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from tests.service.helpers import run

GAME = "g-nadia"


async def _lock_plans(config: DatabaseConfig) -> list[tuple[int, int]]:
    """The lock statement's (generic, custom) plan counts on the lane's connection."""
    store = EventStore.open(config)
    try:
        async with store.transaction() as tx:
            await tx._conn.execute(insert(schema.games).values(
                game_id=GAME, title="Nadia's game", created_at="2026-12-01T10:00:00+03:00",
                stage="day", version=0, time_scale=1.0, clock_epoch=0.0))
            for n in range(8):  # while commands is empty: PostgreSQL's sixth plan may be generic
                await tx.lock_games({GAME}, [f"nadia:{n}"])
            await tx._conn.execute(text(
                "INSERT INTO commands (game_id, command_id, fingerprint, command, first_seq,"
                " last_seq, accepted_real) SELECT :game, 'voter:' || n, 'f', '{}', n, n, 0"
                " FROM generate_series(1, 20000) AS n"), {"game": GAME})
            await tx.lock_games({GAME}, ["nadia:8"])
            counts = [(int(r[0]), int(r[1])) for r in await tx._conn.execute(text(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                " WHERE statement LIKE '%FOR UPDATE OF games%'"
                " AND statement NOT LIKE '%pg_prepared_statements%'"))]
        return counts
    finally:
        await store.close()


def test_a_lane_s_lock_is_planned_for_each_batch_not_once_while_the_table_was_empty(
        postgresql: DatabaseConfig) -> None:
    counts = run(_lock_plans(postgresql))
    # one prepared statement, planned afresh at each of its nine executions: the last one
    # with the statistics of 20,000 rows, not those of the empty table (with a generic
    # plan kept from then, that batch's lock scanned every row: docs/performance.md)
    assert counts == [(0, 9)], counts
