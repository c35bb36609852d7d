"""The cost of a page early and late in a game (issue 17: a request should cost the same on
Day 1 and Day 14), through the real web app, in one process.

    python bench/capacity_page_cost.py [--blocks 5] [--per-block 30] [--rebuild] [--out FILE]

The Day 2 and Day 14 copies of one 100-player game are ``capacity_command_cost``'s (built
and cached under ``var/capacity/`` on first use; ``--rebuild`` drops them): each at 20:01
of its day, three voting inboxes per city open. Each copy is served by its own app
(``web.app.create_app``, the whole middleware stack, a manual clock at the copy's moment),
driven in-process through httpx's ``ASGITransport`` with the residents' bearer tokens.
Requests, one at a time (the cost, not the latency), by residents of every city in turn:

- ``city``: the city inbox's live region, ``GET …/inboxes/{city inbox}/part`` (at 20:01
  the renewed inbox, still empty on both days);
- ``thread``: the same region on the day's discussion, the city inbox the renewal closed
  (its ~440 messages, the heaviest inbox a resident opens);
- ``voting``: a voting inbox's live region (its keyword log and tally), ``…/part``;
- ``tally``: the tally region alone, ``GET …/inboxes/{voting inbox}/tally``;
- ``game``: the game page, ``GET /games/{g}``;
- ``inboxes``: the inbox list region, ``GET /games/{g}/part/inbox-list`` (every readable
  inbox with its unread and message counts);
- ``unread``: the unread badge region, ``GET /games/{g}/part/unread``;
- ``today``: the today panel region, ``GET /games/{g}/part/today``;
- ``mentions``: the viewer's mentions page, ``GET /games/{g}/mentions`` (every message that
  names him in an inbox he may read; none in these games);
- ``catchup``: a socket's subscribe catch-up (``web.ws.endpoint``'s store reads: the
  viewer's stream, then the last 20 of his events as deliveries), service calls only.

Every resident has read every inbox of his city (``read_by_everyone``: the read markers of
a long game). Warm first (every reader through every request once: the game loaded, read
markers set), then ``--blocks`` blocks; in each block every kind runs ``--per-block`` requests on Day 2,
then on Day 14 (interleaved, so a busy machine inflates both alike). Per request: CPU ms
(``time.process_time``: the process, aiosqlite's thread included), SQL statements
(SQLAlchemy cursor events), wall ms. Reported: min / median / max over the blocks of each
day's figure and of the Day 14 ÷ Day 2 ratio; the load average.

Bounded: a fixed number of requests; nothing leaves the process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from sqlalchemy import event

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from capacity_games import CACHE, append_rows, build, working_copy  # noqa: E402

from lepromafia.service.clock import ManualClock  # noqa: E402
from lepromafia.web.app import create_app  # noqa: E402
from lepromafia.web.deps import Web  # noqa: E402
from lepromafia.web.observability import configure_logging  # noqa: E402
from lepromafia.web.settings import WebSettings  # noqa: E402

GAME = "load00"
DAYS = (2, 14)
KINDS = ("city", "thread", "voting", "tally", "game", "inboxes", "unread", "today", "mentions", "catchup")
READERS_PER_CITY = 4
CATCH_UP = 20


class Site:
    """One copy of the game behind its own app, counting its SQL statements."""

    def __init__(self, day: int, manifest: dict[str, Any], app: Any, client: httpx.AsyncClient,
                 discussions: dict[str, str]) -> None:
        self.day, self.manifest, self.app, self.client = day, manifest, app, client
        self.statements = 0
        web: Web = app.state.web
        self.web = web
        event.listen(web.service.store.engine.sync_engine, "before_cursor_execute", self._statement)
        cities = manifest["games"][GAME]["cities"]
        votes = manifest["votes"][GAME]
        self.readers: list[tuple[str, str, str, str]] = []
        """(resident, his city inbox, the day's discussion, a voting inbox of his city)"""
        for city in sorted(cities):
            candidates = sorted(votes[city])
            living = [u for u in cities[city]["living"] if u not in candidates]
            for n, user in enumerate(living[:READERS_PER_CITY]):
                voting = votes[city][candidates[n % len(candidates)]]
                self.readers.append((user, cities[city]["inbox"], discussions[city], voting))
        self.turn = 0

    def _statement(self, *_: Any) -> None:
        self.statements += 1

    async def get(self, user: str, path: str) -> None:
        token = self.manifest["tokens"][user]
        r = await self.client.get(path, headers={"authorization": f"Bearer {token}"})
        if r.status_code != 200:
            raise SystemExit(f"Day {self.day}: GET {path} as {user}: {r.status_code} {r.text[:300]}")

    async def catch_up(self, user: str) -> None:
        """What a subscribe with a 20-event gap reads (``web.ws.endpoint._prepare``)."""
        q = self.web.queries
        await q.state(GAME)
        version = await q.version(GAME)
        seqs = await q.streams.visible_seqs(GAME, user, version)
        since = max(0, len(seqs) - CATCH_UP)
        last = seqs[since - 1] if since else 0
        found = await q.deliveries(GAME, user, last, version)
        assert found, (self.day, user)

    def request(self, kind: str) -> Callable[[], Awaitable[None]]:
        user, city_inbox, thread, voting_inbox = self.readers[self.turn % len(self.readers)]
        self.turn += 1
        g = f"/games/{GAME}"
        paths = {"city": f"{g}/inboxes/{quote(city_inbox)}/part",
                 "thread": f"{g}/inboxes/{quote(thread)}/part",
                 "voting": f"{g}/inboxes/{quote(voting_inbox)}/part",
                 "tally": f"{g}/inboxes/{quote(voting_inbox)}/tally",
                 "game": g, "inboxes": f"{g}/part/inbox-list", "unread": f"{g}/part/unread",
                 "today": f"{g}/part/today", "mentions": f"{g}/mentions"}
        if kind == "catchup":
            return lambda: self.catch_up(user)
        path = paths[kind]
        return lambda: self.get(user, path)

    async def block(self, kind: str, n: int) -> dict[str, float]:
        calls = [self.request(kind) for _ in range(n)]
        s0 = self.statements
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for call in calls:
            await call()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        return {"cpu_ms": 1000 * cpu / n, "wall_ms": 1000 * wall / n,
                "statements": (self.statements - s0) / n}


def discussions(db: Path, manifest: dict[str, Any]) -> dict[str, str]:
    """Each city's latest city inbox with messages: the day's discussion."""
    with sqlite3.connect(db) as conn:
        return {city: conn.execute("SELECT inbox FROM messages WHERE game_id = ? AND inbox LIKE ? "
                                   "GROUP BY inbox ORDER BY max(seq) DESC LIMIT 1",
                                   (GAME, f"city:{city}:%")).fetchone()[0]
                for city in manifest["games"][GAME]["cities"]}


def read_by_everyone(path: Path, manifest: dict[str, Any]) -> int:
    """Every resident has read his city's inboxes up to their last message, as players do
    day after day (the copies are built without reads): the read markers a long game holds."""
    rows = []
    with sqlite3.connect(path) as conn:
        for city, spec in manifest["games"][GAME]["cities"].items():
            found = conn.execute("SELECT inbox, max(seq) FROM messages WHERE game_id = ? AND "
                                 "(inbox LIKE ? OR inbox LIKE ?) GROUP BY inbox",
                                 (GAME, f"city:{city}:%", f"voting:{city}/%")).fetchall()
            rows += [(GAME, inbox, user, last) for inbox, last in found for user in spec["residents"]]
        conn.executemany("INSERT OR REPLACE INTO inbox_reads (game_id, inbox, user_id, last_seq) "
                         "VALUES (?, ?, ?, ?)", rows)
    return len(rows)


def settings_for(db_url: str) -> WebSettings:
    return WebSettings(database_url=db_url, auto_migrate=False, warm_up=False, gc_freeze=False,
                       sweep_interval=24 * 3600.0, notify_dispatch=False, log_level="warning",
                       session_idle_hours=24 * 365, session_ttl_hours=24 * 365,
                       session_cache_seconds=24 * 3600.0)


async def measure(args: argparse.Namespace, copies: dict[int, tuple[Path, dict[str, Any]]],
                  workdir: Path) -> list[dict[str, Any]]:
    async with AsyncExitStack() as stack:
        sites: dict[int, Site] = {}
        for day, (db, manifest) in copies.items():
            config = working_copy(db, workdir, f"day{day}.db")
            marks = read_by_everyone(workdir / f"day{day}.db", manifest)
            print(f"Day {day}: {marks} read markers", flush=True)
            app = create_app(settings_for(config.url), clock=ManualClock(float(manifest["now"])))
            await stack.enter_async_context(app.router.lifespan_context(app))
            client = await stack.enter_async_context(httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1"))
            sites[day] = Site(day, manifest, app, client, discussions(db, manifest))
        for site in sites.values():  # warm: every reader through every request once
            for kind in KINDS:
                for _ in site.readers:
                    await site.request(kind)()
        rows = []
        for block in range(args.blocks):
            for kind in KINDS:
                row: dict[str, Any] = {"block": block, "request": kind}
                for day, site in sites.items():
                    row[f"day{day}"] = await site.block(kind, args.per_block)
                first, last = (row[f"day{d}"] for d in DAYS)
                row["ratio"] = {k: round(last[k] / first[k], 3) if first[k] else None for k in first}
                row["load1"] = round(os.getloadavg()[0], 2)
                rows.append(row)
                print(json.dumps(row), flush=True)
        return rows


def summary(rows: list[dict[str, Any]], copies: dict[int, tuple[Path, dict[str, Any]]]) -> str:
    def mmm(values: list[float], digits: int = 2) -> str:
        if not values:
            return "–"
        return " / ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))

    events = {day: m["games"][GAME]["version"] for day, (_, m) in copies.items()}
    lines = [f"events in the game: Day {DAYS[0]} {events[DAYS[0]]}, Day {DAYS[1]} {events[DAYS[1]]}",
             "| request | measure | Day 2 | Day 14 | Day 14 ÷ Day 2 |", "|---|---|---|---|---|"]
    for kind in KINDS:
        mine = [r for r in rows if r["request"] == kind]
        for key in ("cpu_ms", "statements", "wall_ms"):
            lines.append(f"| {kind} | {key} | {mmm([r['day2'][key] for r in mine])} | "
                         f"{mmm([r['day14'][key] for r in mine])} | "
                         f"**{mmm([r['ratio'][key] for r in mine if r['ratio'][key] is not None])}** |")
    lines.append(f"load1 {mmm([r['load1'] for r in rows], 1)}")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--per-block", type=int, default=30)
    parser.add_argument("--posts-per-hour", type=float, default=20.0)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--out", default=str(ROOT / "var" / "bench-capacity-page-cost.jsonl"))
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
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
    configure_logging(settings_for("sqlite://"))  # warnings only: no line per request
    copies = {day: (p, json.loads(p.with_suffix(".json").read_text(encoding="utf-8")))
              for day, p in paths.items()}
    print(f"load {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="lm-page-cost-") as tmp:
        rows = await measure(args, copies, Path(tmp))
    append_rows(args.out, rows)
    print(summary(rows, copies))


if __name__ == "__main__":
    asyncio.run(main())
