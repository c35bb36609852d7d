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

from load_clients import BENCH_SECRET  # the servers' key: generators mint form tokens with it
from sqlalchemy import insert

from lepromafia.bots.service_bots import setup_service_game
from lepromafia.bots.setup import Cast
from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.accounts import token_hash
from lepromafia.service.clock import ManualClock
from lepromafia.service.notify.dispatcher import Dispatcher
from lepromafia.service.service import GameService
from lepromafia.store.accounts import UserRow, sessions, users
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.migrate import upgrade
from lepromafia.store.notify import NotifyStore

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


SETUP_IN_FLIGHT = 16
"""Games set up at once (PostgreSQL: each on its own writer lane and connection; SQLite
serialises the writes anyway, but the engine work between them overlaps)."""


async def create_games(config: DatabaseConfig, games: int, seed: int = 0) -> dict[str, Any]:
    await upgrade(config)
    clock = ManualClock(SETUP_AT)
    manifest: dict[str, Any] = {"now": SERVE_FROM.timestamp(), "games": {}, "tokens": {}}
    gate = asyncio.Semaphore(SETUP_IN_FLIGHT)
    async with GameService.running(config, clock=clock, sweep=False) as svc:
        expires = SERVE_FROM.timestamp() + 30 * 24 * 3600

        async def one(n: int) -> None:
            game, cast = f"load{n:02d}", cast_of(n)
            async with gate:
                await setup_service_game(svc, game, cast, random.Random(seed + n), FIRST_DAY,
                                         settings={"supreme_court_mode": "never"})
                seats = [cast.procurator, cast.consigliere, cast.arbiter, *cast.tribunes,
                         *(u for us in cast.cities.values() for u in us)]
                tokens = {user: f"tok-{user}-{random.Random(user).getrandbits(64):016x}" for user in seats}
                async with svc.store.writer.begin() as conn:  # one transaction per game's seats
                    await conn.execute(insert(users), [UserRow(u, u, "-", clock.now()).__dict__
                                                       for u in seats])
                    await conn.execute(insert(sessions), [
                        {"token_hash": token_hash(t), "user_id": u, "created_real": clock.now(),
                         "expires_real": expires} for u, t in tokens.items()])
                manifest["tokens"].update(tokens)

        await asyncio.gather(*(one(n) for n in range(games)))
        for n in range(games):
            manifest["games"][f"load{n:02d}"] = {"cities": {}}
        clock.set(SERVE_FROM)
        await svc.sweep()  # Day 1 begins: the day's inboxes open before anyone connects
        for game, spec in manifest["games"].items():
            state = await svc.state(game)
            for city, residents in cast_of(int(game[4:])).cities.items():
                inbox = state.current_inbox("city", city)
                assert inbox is not None, (game, city)
                spec["cities"][city] = {"inbox": inbox, "residents": list(residents)}
        # The set-up's notifications (each signup's host duty, Day 1's post to everyone:
        # ~220 a game) are history on the measured day: expanded here. Left to the servers,
        # a worker expanded a game's at its first post there, in the first window.
        dispatcher = Dispatcher(svc, NotifyStore(svc.store), [], lambda lang, msgid: msgid, clock=clock)
        while await dispatcher.expand_due():
            pass
    return manifest


async def copy_schema(source: DatabaseConfig, schema: str) -> DatabaseConfig:
    """A copy of a PostgreSQL schema's games in a new schema of the same database: migrated
    like any, then every table's rows copied (foreign keys unchecked while copying: the rows
    are already consistent) and every sequence moved past them. Two servers compared on
    copies never see each other's writes (one server's posts would be holes in the other's
    streams)."""
    from sqlalchemy import text

    from lepromafia.store.database import create_engine

    assert source.schema and not source.is_sqlite
    copy = DatabaseConfig(source.url, schema)
    await upgrade(copy)
    engine = create_engine(DatabaseConfig(source.url))
    try:
        async with engine.begin() as conn:
            tables = [r[0] for r in await conn.execute(text(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = :s "
                "AND table_type = 'BASE TABLE' AND table_name <> 'alembic_version'"), {"s": source.schema})]
            await conn.execute(text("SET LOCAL session_replication_role = replica"))
            for t in tables:
                await conn.execute(text(f'INSERT INTO "{schema}"."{t}" OVERRIDING SYSTEM VALUE '
                                        f'SELECT * FROM "{source.schema}"."{t}"'))
            serials = await conn.execute(text(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = :s "
                "AND (column_default LIKE 'nextval%' OR is_identity = 'YES')"), {"s": schema})
            for t, column in serials.all():
                await conn.execute(text(
                    f"SELECT setval(pg_get_serial_sequence('\"{schema}\".\"{t}\"', '{column}'), "
                    f'COALESCE((SELECT max("{column}") FROM "{schema}"."{t}"), 0) + 1, false)'))
    finally:
        await engine.dispose()
    return copy


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
    env["LEPROMAFIA_SECRET_KEY"] = BENCH_SECRET  # the generators mint the composer's tokens
    env["LEPROMAFIA_DATABASE_URL"] = db.url
    env["LEPROMAFIA_DATABASE_SCHEMA"] = db.schema or ""
    return ([sys.executable, str(bench / "load_server.py"), "--port", str(port),
             "--now", str(manifest["now"])], env)


def stop_server(proc: subprocess.Popen[bytes] | None) -> None:
    """Terminate a benchmarked server (SIGTERM: a graceful shutdown), killed after 15 s."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


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


def pyspy(pid: int, out: Path, seconds: float | None = None,
          rate: int | None = None) -> subprocess.Popen[bytes] | None:
    """With LEPROMAFIA_BENCH_PYSPY=<py-spy binary>, sample process ``pid`` into ``out`` (raw
    collapsed stacks) for ``seconds``, or until sent SIGINT; None without it. ``rate``:
    samples a second (LEPROMAFIA_BENCH_PYSPY_RATE, else 200)."""
    rate = rate or int(os.environ.get("LEPROMAFIA_BENCH_PYSPY_RATE", "200"))
    spy = os.environ.get("LEPROMAFIA_BENCH_PYSPY")
    if not spy:
        return None
    duration = ["--duration", str(int(seconds))] if seconds is not None else []
    # LEPROMAFIA_BENCH_PYSPY_BLOCKING=1: samples taken with the process paused, unbiased in
    # time (nonblocking ones credit a frame with what ran around it; session 31)
    mode = [] if os.environ.get("LEPROMAFIA_BENCH_PYSPY_BLOCKING") == "1" else ["--nonblocking"]
    return subprocess.Popen([spy, "record", "--pid", str(pid), *duration, "--rate", str(rate),
                             "--format", "raw", *mode, "-o", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

