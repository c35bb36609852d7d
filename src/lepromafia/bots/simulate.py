"""Seeded full-game simulation with random bots (python-chess perft/fuzz idea)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from ..engine.state import Outcome, Stage
from ..engine.table import Table, next_deadline
from .agents import RandomBots
from .setup import default_cast, setup_game

MAX_DEADLINES = 5000


@dataclass
class GameReport:
    seed: int
    result: str | None
    days: int
    events: int
    table: Table = field(repr=False)


def play(seed: int, cities: int = 5, population: int = 20,
         settings: dict[str, Any] | None = None) -> GameReport:
    """Play one game to its end; raises if it does not end within MAX_DEADLINES."""
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(cities, population), settings)
    bots = RandomBots(rng)
    for _ in range(MAX_DEADLINES):
        nxt = next_deadline(table.game)
        if nxt is None or table.game.stage is Stage.FINISHED:
            break
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        bots.react(table, table.events[before:])
    else:
        raise RuntimeError(f"game {seed} did not end")
    s = table.game
    return GameReport(seed, s.result.value if s.result else None, s.day, len(table.events), table)


def simulate(games: int, cities: int, population: int = 20, seed: int = 0) -> dict[str, Any]:
    started = time.perf_counter()
    results = {o.value: 0 for o in Outcome}
    days = events = 0
    for i in range(games):
        report = play(seed + i, cities, population)
        if report.result:
            results[report.result] += 1
        days += report.days
        events += report.events
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "cities": cities,
        "population": population,
        "mafia_wins": results["mafia"],
        "citizen_wins": results["honest"],
        "draws": results["draw"],
        "mean_days": days / games if games else 0,
        "mean_events": events / games if games else 0,
        "events_per_second": events / elapsed if elapsed else 0,
        "games_per_second": games / elapsed if elapsed else 0,
    }
