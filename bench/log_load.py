"""What a writer lane pays to take a long game's verifiable log (issue 17, session 13).

A game of ``--events`` logged events (one leaf each) and a state snapshot every 500 events
is written to a fresh store (SQLite by default, or ``--postgresql``). ``load_log`` is timed
two ways in the same run, ``--reps`` times each, interleaved: from every leaf (the snapshot
without its frontier: a game snapshotted before migration 0008, the baseline) and from the
frontier kept with the latest snapshot plus the leaves after it.

    python bench/log_load.py [--events 30250] [--reps 5] [--postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sqlalchemy import update  # noqa: E402

from lepromafia.service.transparency import GameLog, load_log  # noqa: E402
from lepromafia.store import schema  # noqa: E402
from lepromafia.store.database import DatabaseConfig  # noqa: E402
from lepromafia.store.event_store import EventStore  # noqa: E402
from lepromafia.store.migrate import upgrade  # noqa: E402

GAME = "long-game"
EVERY = 500


async def fill(store: EventStore, events: int) -> None:
    """``events`` leaves and a snapshot row (with the frontier) every ``EVERY`` of them."""
    log = GameLog(GAME)
    leaves, snaps = [], []
    for seq in range(1, events + 1):
        leaves.append(log.append(seq, f'{{"n": {seq}, "pad": "{secrets.token_hex(40)}"}}'))
        if seq % EVERY == 0:
            snaps.append({"game_id": GAME, "seq": seq, "payload": "{}", "frontier": log.frontier.dumps()})
    async with store.transaction() as tx:
        await tx.insert_rows(schema.event_leaves, leaves)
        await tx.insert_rows(schema.snapshots, snaps)


async def frontiers(store: EventStore, kept: dict[int, str] | None) -> dict[int, str]:
    """Drop the snapshots' frontiers (returning them), or put ``kept`` back."""
    s = schema.snapshots
    async with store.transaction() as tx:
        if kept is None:
            rows = (await tx._conn.execute(s.select().where(s.c.game_id == GAME))).all()
            await tx._conn.execute(update(s).where(s.c.game_id == GAME).values(frontier=None))
            return {r.seq: r.frontier for r in rows}
        for seq, text in kept.items():
            await tx._conn.execute(update(s).where((s.c.game_id == GAME) & (s.c.seq == seq))
                                   .values(frontier=text))
    return kept


async def timed(store: EventStore, events: int) -> float:
    t0 = time.perf_counter()
    async with store.reading() as tx:
        log = await load_log(tx, GAME, events)
    took = time.perf_counter() - t0
    assert log.frontier.size == events
    return took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=30_250)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--postgresql", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = (DatabaseConfig("postgresql://postgres@127.0.0.1:5432/test", f"bench_log_{os.getpid()}")
                  if args.postgresql else DatabaseConfig(f"sqlite:///{tmp}/log.db"))
        await upgrade(config)
        store = EventStore.open(config)
        try:
            await fill(store, args.events)
            every, kept = [], []
            for _ in range(args.reps):
                saved = await frontiers(store, None)
                every.append(await timed(store, args.events))
                await frontiers(store, saved)
                kept.append(await timed(store, args.events))
        finally:
            if args.postgresql:
                from sqlalchemy import text
                async with store.engine.begin() as conn:
                    await conn.execute(text(f'DROP SCHEMA IF EXISTS "{config.schema}" CASCADE'))
            await store.close()
    base, new = statistics.median(every), statistics.median(kept)
    print(f"{'PostgreSQL' if args.postgresql else 'SQLite'}, {args.events} leaves, {args.reps} reps, "
          f"load1 {os.getloadavg()[0]:.1f}")
    for name, times in (("every leaf (baseline)", every), ("snapshot frontier + tail", kept)):
        low, mid, high = (x * 1e3 for x in (min(times), statistics.median(times), max(times)))
        print(f"  {name:28} {low:7.1f} / {mid:7.1f} / {high:7.1f} ms")
    print(f"  ratio (median):              {new / base:.3f}")


if __name__ == "__main__":
    asyncio.run(main())
