"""Durable throughput of the game service against raw inserts, in one run.

    python bench/service_bench.py [--pg URL] [--commands N] [--clients C]

1. SQLite: raw single-row inserts, each its own transaction (WAL, synchronous=FULL),
   against commands through the service (acknowledged after commit; concurrent clients
   so that group commit can batch them).
2. PostgreSQL: raw single-row inserts over 8 asyncpg connections against the service.
3. p50/p99 command latency, and the load time of a 20,000-event game with and without
   snapshots. Prints a Markdown section (for docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.service.helpers import at, manual_clock, setup_game, small_cast

from lepromafia.engine import commands as cmd
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig, create_engine
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade

PAYLOAD = '{"type":"MessagePosted","inbox":"city:Лепроград:0","author":"p01_01","text":"сообщение"}'


def raw_sqlite(path: str, n: int) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE ev (game_id TEXT, seq INTEGER, payload TEXT, PRIMARY KEY (game_id, seq))")
    started = time.perf_counter()
    for i in range(n):
        db.execute("INSERT INTO ev VALUES (?, ?, ?)", ("g", i, PAYLOAD))
    elapsed = time.perf_counter() - started
    db.close()
    return n / elapsed


async def raw_pg(url: str, n: int, connections: int = 8) -> float:
    table = f"bench_{uuid.uuid4().hex[:8]}"
    conns = [await asyncpg.connect(url) for _ in range(connections)]
    await conns[0].execute(f"CREATE TABLE {table} (game_id text, seq int, payload text, "
                           "PRIMARY KEY (game_id, seq))")
    counter = iter(range(n))

    async def worker(conn: asyncpg.Connection) -> None:
        for i in counter:
            await conn.execute(f"INSERT INTO {table} VALUES ($1, $2, $3)", "g", i, PAYLOAD)

    started = time.perf_counter()
    await asyncio.gather(*(worker(c) for c in conns))
    elapsed = time.perf_counter() - started
    await conns[0].execute(f"DROP TABLE {table}")
    for c in conns:
        await c.close()
    return n / elapsed


async def through_service(config: DatabaseConfig, n: int, clients: int, games: int) -> dict[str, float]:
    clock = manual_clock()
    async with GameService.running(config, clock=clock) as svc:
        ids = [f"bench-{i}" for i in range(games)]
        for game_id in ids:
            await setup_game(svc, game_id, small_cast())
        clock.set(at(1, "12:00"))
        state = await svc.state(ids[0])
        inbox = state.current_inbox("city", "Лепроград")
        users = state.living("Лепроград")
        for game_id in ids:  # Day 1 starts: fire its deadline before timing
            await svc.execute(game_id, cmd.PostMessage(actor=users[0], inbox=inbox, text="старт"), "warm")
        latencies: list[float] = []
        counter = iter(range(n))

        async def client(k: int) -> None:
            for i in counter:
                command = cmd.PostMessage(actor=users[i % len(users)], inbox=inbox, text=f"сообщение {i}")
                t0 = time.perf_counter()
                await svc.execute(ids[i % games], command, f"m{i}")
                latencies.append(time.perf_counter() - t0)

        started = time.perf_counter()
        await asyncio.gather(*(client(k) for k in range(clients)))
        elapsed = time.perf_counter() - started
    latencies.sort()
    return {"rate": n / elapsed, "p50": statistics.median(latencies) * 1000,
            "p99": latencies[int(len(latencies) * 0.99)] * 1000}


async def load_times(config: DatabaseConfig, events: int) -> dict[str, float]:
    clock = manual_clock()
    async with GameService.running(config, clock=clock, snapshot_every=500) as svc:
        await setup_game(svc, "long", small_cast())
        clock.set(at(1, "12:00"))
        state = await svc.state("long")
        inbox = state.current_inbox("city", "Лепроград")
        users = state.living("Лепроград")
        i = last_seq = 0
        while last_seq < events:
            batch = [svc.execute("long", cmd.PostMessage(actor=users[j % 6], inbox=inbox, text=f"№{j}"),
                                 f"l{j}") for j in range(i, i + 500)]
            last_seq = max(ack.last_seq for ack in await asyncio.gather(*batch))
            i += 500
    store = EventStore.open(config)
    result: dict[str, float] = {}
    try:
        for label, snap in (("with", True), ("without", False)):
            best = float("inf")
            for _ in range(3):
                async with store.reading() as tx:
                    t0 = time.perf_counter()
                    loaded = await tx.load("long", use_snapshot=snap)
                    best = min(best, time.perf_counter() - t0)
            assert loaded is not None
            result[label] = best * 1000
            result[f"{label}_replayed"] = loaded.replayed
        result["events"] = loaded.meta.version
    finally:
        await store.close()
    return result


async def fresh_pg(url: str) -> DatabaseConfig:
    config = DatabaseConfig(url, f"bench_{uuid.uuid4().hex[:8]}")
    await upgrade(config)
    return config


async def drop_pg(config: DatabaseConfig) -> None:
    from sqlalchemy import text

    engine = create_engine(DatabaseConfig(config.url))
    async with engine.begin() as conn:
        await conn.execute(text(f'DROP SCHEMA "{config.schema}" CASCADE'))
    await engine.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pg", default=os.environ.get("LEPROMAFIA_TEST_PG_URL",
                                                       "postgresql://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--commands", type=int, default=6000)
    parser.add_argument("--raw", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=256)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--load-events", type=int, default=20_000)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="lm-bench-")
    lines = ["| backend | raw inserts/s | service commands/s | ratio | p50 ms | p99 ms |",
             "|---|---|---|---|---|---|"]
    raw = raw_sqlite(f"{tmp}/raw.db", args.raw)
    sqlite_config = DatabaseConfig(f"sqlite:///{tmp}/service.db")
    await upgrade(sqlite_config)
    svc = await through_service(sqlite_config, args.commands, args.clients, args.games)
    lines.append(f"| SQLite (WAL, FULL) | {raw:,.0f} | {svc['rate']:,.0f} | {svc['rate'] / raw:.2f}× "
                 f"| {svc['p50']:.1f} | {svc['p99']:.1f} |")
    print(lines[-1], flush=True)
    raw_p = await raw_pg(args.pg, args.raw * 2)
    pg_config = await fresh_pg(args.pg)
    try:
        svc_p = await through_service(pg_config, args.commands, args.clients, args.games)
    finally:
        await drop_pg(pg_config)
    lines.append(f"| PostgreSQL (8 raw conns) | {raw_p:,.0f} | {svc_p['rate']:,.0f} | "
                 f"{svc_p['rate'] / raw_p:.2f}× | {svc_p['p50']:.1f} | {svc_p['p99']:.1f} |")
    print(lines[-1], flush=True)
    lines += ["", "| game load | events replayed | time ms |", "|---|---|---|"]
    for name, config in (("SQLite", DatabaseConfig(f"sqlite:///{tmp}/long.db")),
                         ("PostgreSQL", await fresh_pg(args.pg))):
        if config.is_sqlite:
            await upgrade(config)
        try:
            loads = await load_times(config, args.load_events)
        finally:
            if config.schema:
                await drop_pg(config)
        lines.append(f"| {name}, {loads['events']:,.0f} events, with snapshots | "
                     f"{loads['with_replayed']:.0f} | {loads['with']:.1f} |")
        lines.append(f"| {name}, {loads['events']:,.0f} events, without snapshots | "
                     f"{loads['without_replayed']:.0f} | {loads['without']:.1f} |")
        print(lines[-2], lines[-1], sep="\n", flush=True)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    asyncio.run(main())
