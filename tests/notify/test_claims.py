"""The dispatcher's claims on SQLite and on the real PostgreSQL: a claim takes at most
its batch, oldest due first, and two workers claiming at once take disjoint rows. On
PostgreSQL the claim was once an ``IN (… LIMIT … FOR UPDATE SKIP LOCKED)`` subquery that
the planner re-ran per updated row: one worker took every due row, in quadratic time."""

from __future__ import annotations

import asyncio
import json
import time

from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.notify import Claim, NotifyStore, outbox

from ..service.conftest import backend  # noqa: F401  (fixture: SQLite and PostgreSQL)
from ..service.helpers import run


def test_a_claim_takes_its_batch_and_two_workers_never_share_a_row(backend: DatabaseConfig) -> None:  # noqa: F811
    async def scenario() -> tuple[list[int], list[int], list[int], int]:
        store = EventStore.open(backend)
        notify = NotifyStore(store)
        now = time.time()
        rows = [{"key": f"g:died:u{i}", "game_id": "g", "user_id": f"u{i}", "kind": "died", "seq": None,
                 "payload": json.dumps({"public": True}), "due_real": now - 1000 + i, "expires_real": None,
                 "status": "pending"} for i in range(600)]
        async with store.transaction() as tx:
            await tx.insert_rows(outbox, rows)
        first = await notify.claim_outbox(Claim("w1", now, 60, 50))
        a, b = await asyncio.gather(notify.claim_outbox(Claim("w2", now, 60, 200)),
                                    notify.claim_outbox(Claim("w3", now, 60, 200)))
        left = len(await notify.claim_outbox(Claim("w4", now, 60, 1000)))
        await store.close()
        return [r["id"] for r in first], [r["id"] for r in a], [r["id"] for r in b], left

    first, a, b, left = run(scenario())
    assert len(first) == 50 and first == sorted(first) and max(first) < min(a + b)
    assert len(a) == len(b) == 200 and not set(a) & set(b)
    assert left == 600 - 50 - 400
