"""Games for the capacity benchmarks (issue 17's targets measured in session 5): the load
benchmark's games (``load_setup``: 100 players, 5 cities × 20, default rules without the
Supreme Court) created concurrently through ``GameService``, then played on through whole
days by hand-stepped deadlines so that the store holds games *in progress*:

- every hour of game time the clock moves on, the deadlines fire (``sweep``), and residents
  chat in their city's inbox (``posts_per_city_hour``, spread over random residents);
- nobody is nominated and the mafia declares no kill, so every day ends without an
  execution (EXEC-2) and every night without a death (MAFIA-KILL-5): the same 100 players
  stay alive and only the game's history grows, which is what "Day 1 vs Day 14" compares;
- ``open_votes`` nominates three candidates per city in a day's morning and moves the
  clock past the day's vote opening (20:00, EXEC-4), so each city has three voting inboxes.

The built database and its manifest are cached under ``var/capacity/`` (a build of 50
games takes minutes); ``--rebuild`` on each benchmark drops the cache.

The manifest is ``load_setup``'s: ``{"now", "games": {game: {"cities": {city: {"inbox",
"residents"}}}}, "tokens"}``, plus, after ``open_votes``, ``"votes": {game: {city:
{candidate: voting inbox}}}``.
"""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from load_setup import CITIES, FIRST_DAY, SERVE_FROM, SETUP_AT, cast_of
from sqlalchemy import insert

from lepromafia.bots.service_bots import setup_service_game
from lepromafia.engine import commands as cmd
from lepromafia.engine.calendar import at_local
from lepromafia.engine.errors import RuleViolation
from lepromafia.engine.rules.execution import voting_inbox
from lepromafia.service.accounts import token_hash
from lepromafia.service.clock import ManualClock
from lepromafia.service.errors import ServiceError
from lepromafia.service.service import GameService
from lepromafia.store.accounts import sessions, users
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.migrate import upgrade

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "var" / "capacity"


def day_at(day: int, hhmm: str) -> datetime:
    """Day ``day``'s local time ``hhmm`` (Day 1 is ``load_setup.FIRST_DAY``; one day each)."""
    return at_local(FIRST_DAY + timedelta(days=day - 1), hhmm)


class Builder:
    """Creates ``games`` games in one running service and plays them on by the hour."""

    def __init__(self, svc: GameService, clock: ManualClock, games: int, seed: int) -> None:
        self.svc, self.clock, self.rng = svc, clock, random.Random(seed)
        self.games = [f"load{n:02d}" for n in range(games)]
        self.seed = seed
        self.ids = 0

    def next_id(self) -> str:
        self.ids += 1
        return f"cap-{self.seed}-{self.ids}"

    async def do(self, game: str, command: cmd.Command) -> bool:
        try:
            await self.svc.execute(game, command, self.next_id())
        except (RuleViolation, ServiceError):
            return False
        return True

    async def create(self) -> dict[str, Any]:
        manifest: dict[str, Any] = {"now": SERVE_FROM.timestamp(), "games": {}, "tokens": {}}
        expires = SERVE_FROM.timestamp() + 60 * 24 * 3600
        user_rows, session_rows = [], []

        async def one(n: int, game: str) -> None:
            cast = cast_of(n)
            await setup_service_game(self.svc, game, cast, random.Random(self.seed + n), FIRST_DAY,
                                     settings={"supreme_court_mode": "never"})
            for user in [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes,
                         *(u for us in cast.cities.values() for u in us)]:
                token = f"tok-{user}-{random.Random(user).getrandbits(64):016x}"
                user_rows.append({"user_id": user, "display_name": user, "password_hash": "-",
                                  "created_real": self.clock.now()})
                session_rows.append({"token_hash": token_hash(token), "user_id": user,
                                     "created_real": self.clock.now(), "expires_real": expires})
                manifest["tokens"][user] = token
            manifest["games"][game] = {"cities": {}}

        await asyncio.gather(*(one(n, g) for n, g in enumerate(self.games)))
        async with self.svc.store.engine.begin() as conn:
            await conn.execute(insert(users), user_rows)
            await conn.execute(insert(sessions), session_rows)
        return manifest

    async def hour(self, posts_per_city_hour: float) -> None:
        """One hour of game time: deadlines fire, then the cities chat."""
        self.clock.advance(timedelta(hours=1))
        while await self.svc.sweep():
            pass

        posts: list[Any] = []

        async def chat(game: str) -> None:
            s = await self.svc.state(game)
            for n, (city, residents) in enumerate(cast_of(int(game[4:])).cities.items()):
                inbox = s.current_inbox("city", city)
                if inbox is None:
                    continue
                count = int(posts_per_city_hour) + (self.rng.random() < posts_per_city_hour % 1)
                posts.extend(self.do(game, cmd.PostMessage(
                    actor=self.rng.choice(residents), inbox=inbox,
                    text=f"Подозреваю {n}-{i}: {self.rng.random():.6f}")) for i in range(count))

        await asyncio.gather(*(chat(g) for g in self.games))
        await asyncio.gather(*posts)  # concurrently: the lanes commit them in batches

    async def play_until(self, moment: datetime, posts_per_city_hour: float) -> None:
        while self.clock.now() + 3600 <= moment.timestamp():
            await self.hour(posts_per_city_hour)
        self.clock.set(moment)
        while await self.svc.sweep():
            pass

    async def open_votes(self, day: int) -> dict[str, Any]:
        """Three nominations per city on the morning of ``day``, then past 20:00 of it."""
        await self.play_until(day_at(day, "10:05"), 0)

        async def nominate(game: str) -> None:
            s = await self.svc.state(game)
            for city in cast_of(int(game[4:])).cities:
                living = sorted(s.living(city))
                for nominator, candidate in zip(living[:3], living[-3:], strict=True):
                    ok = await self.do(game, cmd.Nominate(actor=nominator, candidate=candidate))
                    assert ok, (game, city, nominator)

        await asyncio.gather(*(nominate(g) for g in self.games))
        await self.play_until(day_at(day, "20:01"), 0)
        votes: dict[str, Any] = {}
        for game in self.games:
            s = await self.svc.state(game)
            votes[game] = {}
            for city in cast_of(int(game[4:])).cities:
                boxes = {c: voting_inbox(s, city, c) for c in sorted(s.living(city))[-3:]}
                assert all(boxes.values()), (game, city, boxes)
                votes[game][city] = boxes
        return votes

    async def manifest_now(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """The manifest at the clock's moment: each city's inbox of the current day."""
        for game in self.games:
            s = await self.svc.state(game)
            assert s.day >= 1, game
            for city, residents in cast_of(int(game[4:])).cities.items():
                inbox = s.current_inbox("city", city)
                manifest["games"][game]["cities"][city] = {"inbox": inbox, "residents": list(residents),
                                                           "living": sorted(s.living(city))}
            manifest["games"][game]["day"] = s.day
            manifest["games"][game]["version"] = (await self.svc.current(game)).meta.version
        manifest["now"] = self.clock.now()
        return manifest


async def build(path: Path, games: int, *, play_to: datetime | None = None, vote_day: int | None = None,
                posts_per_city_hour: float = 2.0, seed: int = 0,
                snapshots: dict[int, Path] | None = None) -> dict[str, Any]:
    """Create ``games`` games in the SQLite file ``path``, play them to ``play_to`` (or to
    the vote of ``vote_day``), and return the manifest. ``snapshots``: day -> file, a copy
    of the database taken when that day's votes are open (for "the same game on Day N")."""
    config = DatabaseConfig(f"sqlite:///{path}")
    await upgrade(config)
    clock = ManualClock(SETUP_AT)
    async with GameService.running(config, clock=clock, sweep=False) as svc:
        b = Builder(svc, clock, games, seed)
        manifest = await b.create()
        clock.set(SERVE_FROM)
        while await svc.sweep():
            pass
        for day, copy in sorted((snapshots or {}).items()):
            await b.play_until(day_at(day, "09:00"), posts_per_city_hour)
            manifest["votes"] = await b.open_votes(day)
            await b.manifest_now(manifest)
            await backup(path, copy)
            copy.with_suffix(".json").write_text(json.dumps(manifest), encoding="utf-8")
        if vote_day is not None:
            await b.play_until(day_at(vote_day, "09:00"), posts_per_city_hour)
            manifest["votes"] = await b.open_votes(vote_day)
        elif play_to is not None:
            await b.play_until(play_to, posts_per_city_hour)
        await b.manifest_now(manifest)
    return manifest


async def backup(path: Path, target: Path) -> None:
    """A consistent copy of the SQLite database ``path`` (sqlite3's online backup), taken
    between commands: the service's own connections stay open."""
    def copy() -> None:
        target.unlink(missing_ok=True)
        source, dest = sqlite3.connect(path), sqlite3.connect(target)
        with dest:
            source.backup(dest)
        source.close()
        dest.close()

    await asyncio.to_thread(copy)


async def cached(name: str, games: int, rebuild: bool, **options: Any) -> tuple[Path, dict[str, Any]]:
    """The cached database ``var/capacity/<name>.db`` and its manifest, built if missing."""
    CACHE.mkdir(parents=True, exist_ok=True)
    db, meta = CACHE / f"{name}.db", CACHE / f"{name}.json"
    if rebuild or not (db.exists() and meta.exists()):
        for p in (db, meta, db.with_suffix(".db-wal"), db.with_suffix(".db-shm")):
            p.unlink(missing_ok=True)
        tmp = CACHE / f"{name}.building.db"
        for p in CACHE.glob(f"{name}.building.db*"):
            p.unlink()
        manifest = await build(tmp, games, **options)
        shutil.move(tmp, db)
        for suffix in ("-wal", "-shm"):
            side = Path(f"{tmp}{suffix}")
            if side.exists():
                shutil.move(side, Path(f"{db}{suffix}"))
        meta.write_text(json.dumps(manifest), encoding="utf-8")
    return db, json.loads(meta.read_text(encoding="utf-8"))


async def positions(name: str, server: Any, manifest: dict[str, Any]) -> dict[str, int]:
    """Each player's position in his own event stream (``game/user`` -> seq; the streams are
    numbered per viewer), learned once from ``server`` (``reconnect.positions``: one ramped
    connection each) and cached beside the database."""
    import aiohttp
    from reconnect import positions as learn

    path = CACHE / f"{name}.positions.json"
    if path.exists() and path.stat().st_mtime >= (CACHE / f"{name}.db").stat().st_mtime:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        found = await learn(server, manifest, http)
    path.write_text(json.dumps(found), encoding="utf-8")
    return found


def working_copy(db: Path, workdir: Path, name: str = "run.db") -> DatabaseConfig:
    """A fresh copy of a cached database for one run (the cache stays untouched)."""
    target = workdir / name
    shutil.copy(db, target)
    for suffix in ("-wal", "-shm"):
        side = Path(f"{db}{suffix}")
        if side.exists():
            shutil.copy(side, Path(f"{target}{suffix}"))
    return DatabaseConfig(f"sqlite:///{target}")


__all__ = ["CITIES", "Builder", "build", "cached", "day_at", "working_copy"]


def append_rows(path: str, rows: list[dict[str, Any]]) -> None:
    """Add a run's rows to its JSON-lines file (one object per line, kept across runs)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
