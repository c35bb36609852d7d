"""Shared set-up for store and service tests: databases, a cast, a game driven through
the service exactly as ``bots.setup.setup_game`` drives a Table."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from lepromafia.bots.service_bots import Ids, setup_service_game
from lepromafia.bots.setup import Cast, default_cast
from lepromafia.engine import commands as cmd
from lepromafia.engine.calendar import MOSCOW
from lepromafia.service.clock import ManualClock
from lepromafia.service.service import GameService
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore

T = TypeVar("T")

PG_URL = os.environ.get("LEPROMAFIA_TEST_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
FIRST_DAY = date(2026, 12, 1)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def at(day: int, hhmm: str) -> datetime:
    """Moscow wall-clock time on game day ``day`` (Day 1 = FIRST_DAY)."""
    h, m = map(int, hhmm.split(":"))
    d = FIRST_DAY + timedelta(days=day - 1)
    return datetime(d.year, d.month, d.day, h, m, tzinfo=MOSCOW)


def small_cast() -> Cast:
    return default_cast(2, 6)


async def setup_game(svc: GameService, game_id: str, cast: Cast, seed: int = 1,
                     settings: dict[str, Any] | None = None, ids: Ids | None = None,
                     time_scale: float = 1.0) -> None:
    """Create, staff, deal and start a game (its Day 1 starts at FIRST_DAY 10:00)."""
    await setup_service_game(svc, game_id, cast, random.Random(seed), FIRST_DAY, settings,
                             time_scale=time_scale, ids=ids or Ids("setup-"))


def sqlite_config(tmp_path: Any) -> DatabaseConfig:
    return DatabaseConfig(f"sqlite:///{tmp_path}/game.db")


def pg_config() -> DatabaseConfig:
    return DatabaseConfig(PG_URL, f"lm_test_{os.getpid()}_{uuid.uuid4().hex[:8]}")


def manual_clock() -> ManualClock:
    return ManualClock(datetime.combine(FIRST_DAY - timedelta(days=3), datetime.min.time(), MOSCOW))


async def open_day2_vote(svc: GameService, game_id: str, clock: ManualClock, city: str,
                         ids: Ids) -> tuple[str, str]:
    """Day 2 of a set-up game: two living residents of ``city`` are nominated and the
    vote opens at 20:00. Returns the two candidates."""
    clock.set(at(2, "12:00"))
    await svc.sweep()
    state = await svc.state(game_id)
    living = state.living(city)
    a, b = living[0], living[1]
    await svc.execute(game_id, cmd.Nominate(actor=living[2], candidate=a), ids())
    await svc.execute(game_id, cmd.Nominate(actor=living[3], candidate=b), ids())
    clock.set(at(2, "20:01"))
    await svc.sweep()
    return a, b


def voting_inbox(state: Any, city: str, candidate: str) -> str:
    inbox: str = state.current[f"voting:{city}/{candidate}"]
    return inbox


@asynccontextmanager
async def two_workers(config: DatabaseConfig, clock: ManualClock) -> AsyncIterator[tuple[GameService, GameService]]:
    """Workers A and B: two services on one database, as two processes would be (their
    own stores and caches), started without sweepers and closed at the end."""
    a, b = GameService(EventStore.open(config), clock), GameService(EventStore.open(config), clock)
    await a.start(sweep=False)
    await b.start(sweep=False)
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()
