"""Seeded full-game simulation with random bots (python-chess perft/fuzz idea).

Every game is checked: each command by the bots' ``StepChecker`` while playing, and
the whole log by ``check_game`` at the end. A game that breaks an invariant is a
failure naming its seed, so ``play(seed)`` reproduces it exactly.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..engine import events as ev
from ..engine.state import Outcome, Stage
from ..engine.table import Table, next_deadline
from .agents import RandomBots
from .hosts import CaseMoves
from .invariants import check_game
from .setup import default_cast, setup_game

MAX_DEADLINES = 5000


@dataclass
class GameReport:
    seed: int
    result: str | None
    days: int
    events: int
    table: Table = field(repr=False)
    violations: list[str] = field(default_factory=list)
    commands: int = 0
    illegal_tried: int = 0
    probes: dict[str, int] = field(default_factory=dict)
    """Illegal moves the bots tried (all rejected unless ``violations`` says so), by kind."""


HOSTS = 0.3
"""Default chance of each host move per day (bots/hosts.py: HostDecisions)."""


def play(seed: int, cities: int = 5, population: int = 20,
         settings: dict[str, Any] | None = None, check: bool = True,
         mischief: float = 0.2, hosts: float = HOSTS) -> GameReport:
    """Play one game to its end; raises if it does not end within MAX_DEADLINES.

    With ``check`` the whole log is checked at the end (``check_game``: liveness included);
    the per-step checks of the bots' and the hosts' moves always run.
    """
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(cities, population), settings)
    bots = RandomBots(rng, mischief=mischief)
    # The hosts draw from their own stream, so the players' moves do not shift with them.
    host_bots = CaseMoves(random.Random(f"hosts:{seed}"), checker=bots.checker)
    host_bots.hosts = hosts
    for _ in range(MAX_DEADLINES):
        nxt = next_deadline(table.game)
        if nxt is None or table.game.stage is Stage.FINISHED:
            break
        before = len(table.events)
        table.advance(nxt[1], seed=lambda: rng.randrange(1 << 31))
        fresh = table.events[before:]
        bots.react(table, fresh)
        for event in fresh:
            if isinstance(event, ev.DayStarted):
                host_bots.host_day(table, event.day, event.at)
    else:
        raise RuntimeError(f"game {seed} did not end")
    s = table.game
    violations = list(bots.checker.violations)
    if s.stage is not Stage.FINISHED:
        violations.append("the game stopped without ending (no deadline left)")
    if check:
        violations.extend(check_game(table))
    checker = bots.checker
    return GameReport(seed, s.result.value if s.result else None, s.day, len(table.events), table,
                      violations, checker.accepted + checker.rejected, checker.illegal_tried,
                      dict(checker.probes))


def simulate(games: int, cities: int, population: int = 20, seed: int = 0,
             settings: dict[str, Any] | None = None, check: bool = True,
             hosts: float = HOSTS,
             keep: Callable[[GameReport], None] | None = None) -> dict[str, Any]:
    """Play ``games`` seeded games; the report lists every game that broke an invariant.
    ``keep`` is given every played game (``lepromafia simulate --store`` stores them)."""
    started = time.perf_counter()
    results = {o.value: 0 for o in Outcome}
    days = events = 0
    failures: list[dict[str, Any]] = []
    for i in range(games):
        report = play(seed + i, cities, population, settings, check, hosts=hosts)
        if keep is not None:
            keep(report)
        if report.result:
            results[report.result] += 1
        days += report.days
        events += report.events
        if report.violations:
            failures.append({"seed": report.seed, "violations": len(report.violations),
                             "first": report.violations[0]})
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
        "seconds": elapsed,
        "invariants_checked": check,
        "failures": failures,
    }
