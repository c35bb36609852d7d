"""Simulated games kept in a store and exported, for the verification tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lepromafia.bots.simulate import play
from lepromafia.service.stored_games import store_table
from lepromafia.service.transparency import LogKey
from lepromafia.service.transparency_export import dumps, export_game
from lepromafia.store.database import DatabaseConfig
from lepromafia.store.event_store import EventStore
from lepromafia.store.migrate import upgrade
from lepromafia.store.projection import GameClock

KEY = LogKey.generate()


def exported_games(path: Path, seeds: range, cities: int = 1, population: int = 5,
                   settings: dict[str, Any] | None = None) -> list[bytes]:
    """Play each seed with the bots, store it, export it: the export texts."""

    async def go() -> list[bytes]:
        config = DatabaseConfig(f"sqlite+aiosqlite:///{path}")
        await upgrade(config)
        store = EventStore.open(config)
        out = []
        try:
            for seed in seeds:
                report = play(seed, cities, population, settings)
                assert not report.violations, report.violations[:3]
                await store_table(store, f"sim-{seed}", report.table, KEY, GameClock(0.0, 1.0))
                out.append(dumps(await export_game(store, f"sim-{seed}", KEY)).encode())
        finally:
            await store.close()
        return out

    return asyncio.run(go())
