"""Issue 16 (F4-3): the abuse limits count by address, and an index serves those counts
(migration 0006) on SQLite and PostgreSQL; the counts themselves are unchanged. Cast: one
address spraying a password over many logins, another address registering."""

from __future__ import annotations

from sqlalchemy import inspect, text

from lepromafia.store.accounts import AccountStore
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from tests.service.helpers import run

SPRAYER, NEIGHBOUR = "203.0.113.7", "198.51.100.9"


async def _indexes(backend: DatabaseConfig) -> dict[str, list[list[str]]]:
    store = EventStore.open(backend)
    try:
        async with store.engine.connect() as conn:
            return await conn.run_sync(lambda sync: {
                table: [list(ix["column_names"]) for ix in inspect(sync).get_indexes(
                    table, schema=backend.schema)] for table in ("login_attempts", "csrf_nonces")})
    finally:
        await store.close()


def test_the_per_address_counts_have_their_index(backend: DatabaseConfig) -> None:
    indexes = run(_indexes(backend))
    assert ["ip", "at_real"] in indexes["login_attempts"]
    assert ["expires_real"] in indexes["csrf_nonces"]


def test_the_per_address_counts_read_through_the_index_and_count_as_before(backend: DatabaseConfig) -> None:
    async def go() -> tuple[int, int, int, str]:
        store = EventStore.open(backend)
        accounts = AccountStore(store)
        try:
            for n in range(8):
                await accounts.record_attempt(f"victim{n}", SPRAYER, 1000.0 + n, False)
            await accounts.record_attempt("victim0", NEIGHBOUR, 1000.0, False)
            await accounts.record_registration(SPRAYER, 1001.0)
            plan = ""
            if backend.is_sqlite:
                async with store.engine.connect() as conn:
                    rows = await conn.execute(text(
                        "EXPLAIN QUERY PLAN SELECT count(*) FROM login_attempts "
                        "WHERE ip = :ip AND ok = 0 AND at_real > :since AND login != '+register'"),
                        {"ip": SPRAYER, "since": 0.0})
                    plan = " ".join(str(r[-1]) for r in rows)
            return (await accounts.failures_from_ip(SPRAYER, 999.0),
                    await accounts.failures_from_ip(SPRAYER, 1003.5),
                    await accounts.registrations_since(SPRAYER, 0.0), plan)
        finally:
            await store.close()

    all_failures, recent, registrations, plan = run(go())
    assert (all_failures, recent, registrations) == (8, 4, 1)
    if backend.is_sqlite:
        assert "ix_login_attempts_ip" in plan, plan
