"""Where a post's acknowledgement waits: the write path measured without HTTP (issue 17).

    python bench/write_path.py [--games 10,25] [--rate 2] [--window 10] [--pg URL]

N games, each offered ``--rate`` chat posts per second (open loop: a post is sent on
schedule whether or not the previous one was acknowledged), straight into ``GameService``.
Per run: commands/s per CPU-second of this process (aiosqlite's threads included), ack
p50/p99, the mean time a command waited in its writer lane, the batch size, and per batch
the statements issued and the wall time spent in them (SQLAlchemy cursor events, which
for aiosqlite include each statement's thread hop) and in COMMIT.

The same-run baseline: raw ``sqlite3`` on one thread writing the rows one post writes
(UPDATE games, INSERT events, commands, event_leaves, messages) in one transaction per
command (WAL, synchronous=FULL): the ratio carries over between machines; the absolute
milliseconds do not (record load1).
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import event
from tests.service.helpers import at, manual_clock, setup_game, small_cast

from lepromafia.engine import commands as cmd
from lepromafia.service.observer import ServiceObserver
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.migrate import upgrade


class Waits(ServiceObserver):
    def __init__(self) -> None:
        self.waits: list[float] = []

    def queue_wait(self, seconds: float) -> None:
        self.waits.append(seconds)


class Statements:
    """Statement count and wall time, and COMMIT time, on the service's engine."""

    def __init__(self, engine: object) -> None:
        self.count = 0
        self.seconds = 0.0
        self.commits = 0
        self.commit_seconds = 0.0
        self._t0 = 0.0
        sync = engine.sync_engine  # type: ignore[attr-defined]
        event.listen(sync, "before_cursor_execute", self._before)
        event.listen(sync, "after_cursor_execute", self._after)
        event.listen(sync, "commit", self._commit)

    def _before(self, *_: object) -> None:
        self._t0 = time.perf_counter()

    def _after(self, *_: object) -> None:
        self.count += 1
        self.seconds += time.perf_counter() - self._t0

    def _commit(self, *_: object) -> None:
        self.commits += 1  # the commit's own time is in the lane total less the statements


def raw_sqlite(path: str, n: int) -> float:
    """Commands/s per CPU-second of one thread writing one post's rows per transaction."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.executescript(
        "CREATE TABLE g (id TEXT PRIMARY KEY, version INT);"
        "CREATE TABLE e (gid TEXT, seq INT, type TEXT, at TEXT, payload TEXT, cid TEXT,"
        " PRIMARY KEY (gid, seq));"
        "CREATE TABLE c (gid TEXT, cid TEXT, fp TEXT, command TEXT, f INT, l INT, PRIMARY KEY (gid, cid));"
        "CREATE TABLE lv (gid TEXT, seq INT, salt TEXT, leaf TEXT, PRIMARY KEY (gid, seq));"
        "CREATE TABLE m (gid TEXT, seq INT, inbox TEXT, author TEXT, text TEXT, at TEXT,"
        " PRIMARY KEY (gid, seq));")
    db.execute("INSERT INTO g VALUES ('g', 0)")
    payload = '{"type":"MessagePosted","inbox":"city:Лепроград:0","author":"p01_01","text":"сообщение 1"}'
    cpu = time.process_time()
    for i in range(1, n + 1):
        db.execute("BEGIN IMMEDIATE")
        db.execute("SELECT * FROM g LEFT JOIN c ON c.gid = g.id AND c.cid = ? WHERE g.id = 'g'", (f"m{i}",))
        db.execute("UPDATE g SET version = ? WHERE id = 'g' AND version = ?", (i, i - 1))
        db.execute("INSERT INTO e VALUES ('g', ?, 'MessagePosted', '2026-12-01', ?, ?)",
                   (i, payload, f"m{i}"))
        db.execute("INSERT INTO c VALUES ('g', ?, ?, ?, ?, ?)", (f"m{i}", "f" * 64, payload, i, i))
        db.execute("INSERT INTO lv VALUES ('g', ?, ?, ?)", (i, "s" * 32, "l" * 64))
        db.execute("INSERT INTO m VALUES ('g', ?, 'city', 'p01_01', 'сообщение', '2026')", (i,))
        db.execute("COMMIT")
    used = time.process_time() - cpu
    db.close()
    return n / used


async def offered(config: DatabaseConfig, games: int, rate: float, window: float) -> dict[str, float]:
    clock = manual_clock()
    waits = Waits()
    async with GameService.running(config, clock=clock, sweep=False) as svc:
        svc.observer = waits
        ids = [f"w{i}" for i in range(games)]
        for game_id in ids:
            await setup_game(svc, game_id, small_cast())
        clock.set(at(1, "12:00"))
        state = await svc.state(ids[0])
        inbox = state.current_inbox("city", "Лепроград")
        users = state.living("Лепроград")
        for game_id in ids:
            await svc.execute(game_id, cmd.PostMessage(actor=users[0], inbox=inbox, text="старт"), "warm")
        waits.waits.clear()
        stats = Statements(svc.store.writer)
        latencies: list[float] = []

        async def post(game_id: str, i: int) -> None:
            command = cmd.PostMessage(actor=users[i % len(users)], inbox=inbox, text=f"сообщение {i}")
            t0 = time.perf_counter()
            await svc.execute(game_id, command, f"m{i}")
            latencies.append(time.perf_counter() - t0)

        async def game(game_id: str, k: int) -> list[asyncio.Task[None]]:
            tasks = []
            await asyncio.sleep(k / games / rate)  # spread the games' phases
            start = time.perf_counter()
            for i in range(int(window * rate)):
                due = start + i / rate
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                tasks.append(asyncio.create_task(post(game_id, i)))
            return tasks

        cpu, wall = time.process_time(), time.perf_counter()
        spawned = await asyncio.gather(*(game(g, k) for k, g in enumerate(ids)))
        await asyncio.gather(*(t for ts in spawned for t in ts))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    latencies.sort()
    n = len(latencies)
    batches = max(1, len(waits.waits) and stats.commits)
    return {"commands": n, "per_cpu_s": n / cpu, "cores": cpu / wall,
            "p50": statistics.median(latencies) * 1000, "p99": latencies[int(n * 0.99)] * 1000,
            "lane_wait_ms": statistics.fmean(waits.waits) * 1000 if waits.waits else 0.0,
            "batch": n / batches, "statements_per_batch": stats.count / batches,
            "statement_ms_per_batch": stats.seconds / batches * 1000}


async def prepared(config: DatabaseConfig, games: int, rate: float, window: float) -> dict[str, float]:
    await upgrade(config)
    return await offered(config, games, rate, window)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default="10,25")
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--pg", default=os.environ.get("BENCH_PG_URL"))
    args = parser.parse_args()
    print(f"load1 {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        raw = raw_sqlite(str(Path(tmp) / "raw.db"), 2000)
        print(f"raw sqlite3, one thread, 1 txn/command: {raw:,.0f} commands per CPU-s")
        for games in [int(g) for g in args.games.split(",")]:
            configs = [("sqlite", DatabaseConfig(f"sqlite:///{tmp}/svc{games}.db"))]
            if args.pg:
                configs.append(("postgresql", DatabaseConfig(args.pg, f"bench_w{games}_{os.getpid()}")))
            for name, config in configs:
                r = asyncio.run(prepared(config, games, args.rate, args.window))
                print(f"{name} {games} games: " + ", ".join(f"{k} {v:,.2f}" for k, v in r.items()))
    print(f"load1 {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
