"""The cost of a command early and late in a game (issue 17: "the cost of a command the
same on Day 1 and Day 14"), service level, in one process.

    python bench/capacity_command_cost.py [--blocks 5] [--per-block 40] [--posts-per-hour 20]
                                          [--rebuild] [--out FILE]

One game of 100 players (``capacity_games``: 5 cities × 20, every resident alive, the
cities chatting ``--posts-per-hour`` messages per city per open hour) is played from Day 1
to Day 14; on Day 2 (the first day with an execution vote, EXEC-1) and on Day 14 a copy of
the store is taken at 20:01 with three candidates' voting inboxes open in every city. The
benchmark opens both copies in two ``GameService``s side by side and takes ``--blocks``
interleaved blocks (Day 2, Day 14, Day 2, …); a block is ``--per-block`` ``PostMessage``s
into the city inboxes and as many votes («казнить», then «не казнить» to withdraw it,
EXEC-5..8), one command after another, each awaited. Per command: server CPU ms (the
process's CPU time, aiosqlite's thread included), SQL statements and transactions
(SQLAlchemy's cursor events), wall ms. Reported: min / median / max over the blocks of the
Day 14 ÷ Day 2 ratio; the games' event counts; the load average.

Bounded: a fixed number of commands; nothing leaves the process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import event

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from capacity_games import CACHE, append_rows, build, working_copy  # noqa: E402

from lepromafia.engine import commands as cmd  # noqa: E402
from lepromafia.engine.errors import RuleViolation  # noqa: E402
from lepromafia.service.clock import ManualClock  # noqa: E402
from lepromafia.service.service import GameService  # noqa: E402
from lepromafia.store import sqlite_inline  # noqa: E402
from lepromafia.store.event_store import EventStore  # noqa: E402

GAME = "load00"
DAYS = (2, 14)
UNCOUNTED = ("BEGIN", "COMMIT", "ROLLBACK", "PRAGMA")
"""What the statement count leaves out: the transaction's own statements, counted apart."""
TRACED: dict[str, Counted] = {}
"""Database file -> the service counting its statements."""


def _trace_statements() -> None:
    """Count every statement SQLite runs on a connection of a counted file: the lane's hot
    statements go straight to ``sqlite3`` (``store/sqlite_direct.py``), past SQLAlchemy's
    cursor events, which counted none of them."""
    connect = sqlite_inline.connect

    async def traced(path: str) -> sqlite_inline.InlineConnection:
        conn = await connect(path)

        def statement(sql: str) -> None:
            counted = TRACED.get(path)
            if counted is not None:
                counted._statement(sql)
        conn.raw.set_trace_callback(statement)
        return conn
    sqlite_inline.connect = traced  # type: ignore[assignment]


class Counted:
    """A service on one copy of the store, counting its SQL statements and transactions."""

    def __init__(self, day: int, manifest: dict[str, Any], svc: GameService, clock: ManualClock) -> None:
        self.day, self.manifest, self.svc, self.clock = day, manifest, svc, clock
        self.statements = 0
        self.transactions = 0
        self.active: dict[str, str] = {}
        """voter -> the candidate he has an active vote for"""
        self.rng = random.Random(day)
        self.ids = 0
        sync = svc.store.engine.sync_engine
        event.listen(sync, "begin", self._begin)
        TRACED[svc.store.engine.url.database or ""] = self

    def _statement(self, sql: str) -> None:
        if not sql.lstrip().upper().startswith(UNCOUNTED):
            self.statements += 1

    def _begin(self, *_: Any) -> None:
        self.transactions += 1

    async def do(self, command: cmd.Command) -> None:
        self.ids += 1
        try:
            await self.svc.execute(GAME, command, f"cost-{self.day}-{self.ids}")
        except RuleViolation as exc:
            raise SystemExit(f"Day {self.day}: {type(command).__name__} refused: {exc} ({command})") from exc

    def post(self) -> cmd.Command:
        cities = self.manifest["games"][GAME]["cities"]
        city = self.rng.choice(sorted(cities))
        author = self.rng.choice(cities[city]["living"])
        return cmd.PostMessage(actor=author, inbox=cities[city]["inbox"], text="Подозреваю всех")

    def vote(self) -> cmd.Command:
        votes = self.manifest["votes"][GAME]
        city = self.rng.choice(sorted(votes))
        candidates = votes[city]
        residents = [u for u in self.manifest["games"][GAME]["cities"][city]["living"]
                     if u not in candidates]
        voter = self.rng.choice(residents)
        if voter in self.active:
            return cmd.PostMessage(actor=voter, inbox=candidates[self.active.pop(voter)], text="не казнить")
        candidate = self.rng.choice(sorted(candidates))
        self.active[voter] = candidate
        return cmd.PostMessage(actor=voter, inbox=candidates[candidate], text="казнить")

    async def block(self, kind: str, n: int) -> dict[str, float]:
        make = self.post if kind == "post" else self.vote
        commands = [make() for _ in range(n)]
        s0, t0 = self.statements, self.transactions
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for c in commands:
            await self.do(c)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        return {"cpu_ms": 1000 * cpu / n, "wall_ms": 1000 * wall / n,
                "statements": (self.statements - s0) / n, "transactions": (self.transactions - t0) / n}


async def measure(args: argparse.Namespace, copies: dict[int, tuple[Path, dict[str, Any]]],
                  workdir: Path) -> list[dict[str, Any]]:
    services: dict[int, Counted] = {}
    _trace_statements()
    try:
        for day, (db, manifest) in copies.items():
            clock = ManualClock(float(manifest["now"]))
            svc = GameService(EventStore.open(working_copy(db, workdir, f"day{day}.db")), clock)
            await svc.start(sweep=False)
            services[day] = Counted(day, manifest, svc, clock)
        for c in services.values():  # warm: the game loaded (snapshot + tail), the lanes hot
            await c.svc.state(GAME)
            for _ in range(5):
                await c.do(c.post())
                await c.do(c.vote())
        rows = []
        for block in range(args.blocks):
            for kind in ("post", "vote"):
                row: dict[str, Any] = {"block": block, "command": kind}
                for day, c in services.items():
                    row[f"day{day}"] = await c.block(kind, args.per_block)
                first, last = (row[f"day{d}"] for d in DAYS)
                row["ratio"] = {k: round(last[k] / first[k], 3) if first[k] else None for k in first}
                row["load1"] = round(os.getloadavg()[0], 2)
                rows.append(row)
                print(json.dumps(row), flush=True)
        return rows
    finally:
        for c in services.values():
            await c.svc.close()


def summary(rows: list[dict[str, Any]], copies: dict[int, tuple[Path, dict[str, Any]]]) -> str:
    def mmm(values: list[float], digits: int = 2) -> str:
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    events = {day: m["games"][GAME]["version"] for day, (_, m) in copies.items()}
    lines = [f"events in the game: Day {DAYS[0]} {events[DAYS[0]]}, Day {DAYS[1]} {events[DAYS[1]]}",
             "| command | measure | Day 2 | Day 14 | Day 14 ÷ Day 2 |", "|---|---|---|---|---|"]
    for kind in ("post", "vote"):
        mine = [r for r in rows if r["command"] == kind]
        for key in ("cpu_ms", "statements", "transactions", "wall_ms"):
            lines.append(f"| {kind} | {key} | {mmm([r['day2'][key] for r in mine])} | "
                         f"{mmm([r['day14'][key] for r in mine])} | "
                         f"**{mmm([r['ratio'][key] for r in mine if r['ratio'][key] is not None])}** |")
    lines.append(f"load1 {mmm([r['load1'] for r in rows], 1)}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--per-block", type=int, default=40)
    parser.add_argument("--posts-per-hour", type=float, default=20.0)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-capacity-command-cost.jsonl"))
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    copies: dict[int, tuple[Path, dict[str, Any]]] = {}
    paths = {day: CACHE / f"days-day{day:02d}.db" for day in DAYS}
    if args.rebuild or not all(p.exists() and p.with_suffix(".json").exists() for p in paths.values()):
        t0 = time.monotonic()
        scratch = CACHE / "days-building.db"
        for p in CACHE.glob("days-building.db*"):
            p.unlink()
        await build(scratch, 1, posts_per_city_hour=args.posts_per_hour, snapshots=paths)
        for p in CACHE.glob("days-building.db*"):
            p.unlink()
        print(f"built the Day 2 and Day 14 copies in {time.monotonic() - t0:.0f} s", flush=True)
    for day, p in paths.items():
        copies[day] = (p, json.loads(p.with_suffix(".json").read_text(encoding="utf-8")))
    print(f"load {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="lm-cost-") as tmp:
        rows = await measure(args, copies, Path(tmp))
    append_rows(args.out, rows)
    print(summary(rows, copies))


if __name__ == "__main__":
    asyncio.run(main())
