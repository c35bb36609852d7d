"""Games for the load benchmark: N games of 100 players (5 cities × 20), created
through ``GameService`` as the service bots do, on Day 1 after 10:00 (city inboxes open),
with one account and one session per seat written straight into the store (no argon2 per
seat: the benchmark measures serving, not sign-up).

The manifest (JSON) tells the load generator and the raw server who sits where:
``{"now": game time at which the server starts, "games": {game: {"cities": {city:
{"inbox": key, "residents": [user, ...]}}}}, "tokens": {user: token}}``.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

from lepromafia.bots.service_bots import setup_service_game
from lepromafia.bots.setup import Cast
from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.accounts import token_hash
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.store.accounts import AccountStore, UserRow
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.migrate import upgrade

CITIES = ("Лепроград", "Мафиозово", "Тихий-Дон", "Береговой", "Заречье")
POPULATION = 20
FIRST_DAY = date(2026, 12, 1)
SETUP_AT = datetime(2026, 11, 28, 12, 0, tzinfo=MOSCOW)
SERVE_FROM = datetime(2026, 12, 1, 10, 5, tzinfo=MOSCOW)
"""The game time at which the server starts: Day 1, city inboxes open."""


def cast_of(n: int) -> Cast:
    g = f"g{n:02d}"
    return Cast(f"{g}proc", f"{g}cons", f"{g}arb", tuple(f"{g}trib{c}" for c in range(len(CITIES))),
                {city: tuple(f"{g}c{c}r{i:02d}" for i in range(POPULATION)) for c, city in enumerate(CITIES)})


async def create_games(config: DatabaseConfig, games: int, seed: int = 0) -> dict[str, Any]:
    await upgrade(config)
    clock = ManualClock(SETUP_AT)
    manifest: dict[str, Any] = {"now": SERVE_FROM.timestamp(), "games": {}, "tokens": {}}
    async with GameService.running(config, clock=clock, sweep=False) as svc:
        accounts = AccountStore(svc.store)
        expires = SERVE_FROM.timestamp() + 30 * 24 * 3600
        for n in range(games):
            game, cast = f"load{n:02d}", cast_of(n)
            await setup_service_game(svc, game, cast, random.Random(seed + n), FIRST_DAY,
                                     settings={"supreme_court_mode": "never"})
            seats = [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes,
                     *(u for us in cast.cities.values() for u in us)]
            for user in seats:
                await accounts.add_user(UserRow(user, user, "-", clock.now()))
                token = f"tok-{user}-{random.Random(user).getrandbits(64):016x}"
                await accounts.add_session(token_hash(token), user, clock.now(), expires)
                manifest["tokens"][user] = token
            manifest["games"][game] = {"cities": {}}
        clock.set(SERVE_FROM)
        await svc.sweep()  # Day 1 begins: the day's inboxes open before anyone connects
        for game, spec in manifest["games"].items():
            state = await svc.state(game)
            for city, residents in cast_of(int(game[4:])).cities.items():
                inbox = state.current_inbox("city", city)
                assert inbox is not None, (game, city)
                spec["cities"][city] = {"inbox": inbox, "residents": list(residents)}
    return manifest


def serve_offset(manifest: dict[str, Any], real_now: float) -> float:
    """Seconds to add to the real clock so that the server's game time starts at the
    manifest's ``now`` and then runs at the real pace."""
    return float(manifest["now"]) - real_now


def server_command(kind: str, port: int, manifest: dict[str, Any], workdir: Path, db: Any,
                   bench: Path) -> tuple[list[str], dict[str, str]]:
    """The command and environment that start one benchmarked server: the raw ``websockets``
    baseline (``kind == "raw"``, fed the manifest) or ours on ``db`` (a ``DatabaseConfig``)."""
    env = {**os.environ, "PYTHONPATH": str(bench.parent / "src")}
    if kind == "raw":
        path = workdir / "manifest.json"
        path.write_text(json.dumps(manifest), encoding="utf-8")
        return ([sys.executable, str(bench / "load_raw.py"), "--port", str(port), "--manifest", str(path)],
                env)
    assert db is not None
    env["LEPROMAFIA_DATABASE_URL"] = db.url
    env["LEPROMAFIA_DATABASE_SCHEMA"] = db.schema or ""
    return ([sys.executable, str(bench / "load_server.py"), "--port", str(port),
             "--now", str(manifest["now"])], env)


async def until_listening(proc: subprocess.Popen[bytes], port: int, name: str, log: Path | str,
                          timeout: float = 120.0, every: float = 0.25) -> None:
    """Return once the spawned server ``proc`` accepts connections on ``port``; exit the
    benchmark if it dies first (its output is in ``log``) or is not listening in time."""
    for _ in range(int(timeout / every)):
        await asyncio.sleep(every)
        if proc.poll() is not None:
            raise SystemExit(f"{name} exited; see {log}")
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            continue
    raise SystemExit(f"{name} did not start in {timeout:.0f} s")
