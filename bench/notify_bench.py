"""Notifications through the outbox (issue 13): per second, on SQLite and PostgreSQL.

For N personal notifications (a 'Day Post is out' to N residents, each with a verified
e-mail address), the same run measures:

* raw: inserting N notification rows in one transaction (the floor);
* outbox: the lane's outbox rows inserted, then the dispatcher claiming, expanding
  (in-app row + e-mail delivery each, preferences and profiles read) and marking them
  done — everything but the SMTP send.

Usage: python bench/notify_bench.py [--n 2000] [--pg postgresql://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid

from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore, notifications, outbox


async def one(config: DatabaseConfig, n: int) -> tuple[float, float]:
    import sys
    sys.path.insert(0, ".")
    from tests.notify.helpers import dispatcher, profile
    from tests.service.helpers import setup_game, small_cast

    await upgrade(config)
    svc = GameService(EventStore.open(config))
    await svc.start(sweep=False)
    await setup_game(svc, "g", small_cast())
    store = NotifyStore(svc.store)
    users = [f"u{i}" for i in range(n)]
    for u in users[:200]:
        await profile(store, u, email=f"{u}@example.org")
    raw = [{"key": f"raw:{u}", "game_id": "g", "user_id": u, "kind": "died", "payload": "{}",
            "secret": False, "created_real": 0.0} for u in users]
    t = time.perf_counter()
    async with svc.store.transaction() as tx:
        await tx.insert_rows(notifications, raw)
    raw_rate = n / (time.perf_counter() - t)
    rows = [{"key": f"g:died:{u}", "game_id": "g", "user_id": u, "kind": "died", "seq": None,
             "payload": json.dumps({"public": True}), "due_real": time.time() - 1, "expires_real": None,
             "status": "pending"} for u in users]
    t = time.perf_counter()
    async with svc.store.transaction() as tx:
        await tx.insert_rows(outbox, rows)
    d = dispatcher(svc, store, [type("Null", (), {"name": "email", "send": None})()], batch=500)
    while await d.expand_due():
        pass
    outbox_rate = n / (time.perf_counter() - t)
    await svc.close()
    return raw_rate, outbox_rate


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--pg", default=os.environ.get("LEPROMAFIA_TEST_PG_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in (("sqlite", DatabaseConfig(f"sqlite:///{tmp}/bench.db")),
                             ("postgresql", DatabaseConfig(args.pg, f"bench_{uuid.uuid4().hex[:8]}"))):
            raw, through = asyncio.run(one(config, args.n))
            print(f"{name:>10}: raw insert {raw:,.0f} rows/s; outbox→notification {through:,.0f}/s "
                  f"(ratio {through / raw:.3f})")


if __name__ == "__main__":
    main()
