"""One seeded game played by strategy bots, with the simulator's invariant checks.

``check`` chooses how much is verified: ``"full"`` runs the per-step checker and the
whole-log ``check_game`` (replay equality, visibility, population, the Court...);
``"cheap"`` only the per-step checker, which every command passes anyway. The lab uses
full checks on every 10th game of a big sweep and on every game of a small one.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from ...engine.state import Stage
from ...engine.table import next_deadline
from ..invariants import check_game
from ..setup import default_cast, setup_game
from ..simulate import MAX_DEADLINES, GameReport
from .players import Skills, StrategyBots

Checks = Literal["full", "cheap"]


def play(seed: int, cities: int = 5, population: int = 20, settings: dict[str, Any] | None = None,
         skills: Skills | None = None, *, tours: bool = True, ambushes: bool = True,
         check: Checks = "full") -> GameReport:
    """Play one game to its end; the same arguments always give the same game."""
    rng = random.Random(seed)
    table = setup_game(rng, default_cast(cities, population), settings)
    bots = StrategyBots(rng, skills, tours=tours, ambushes=ambushes)
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
    violations = list(bots.checker.violations)
    if s.stage is not Stage.FINISHED:
        violations.append("the game stopped without ending (no deadline left)")
    if check == "full":
        violations.extend(check_game(table))
    checker = bots.checker
    return GameReport(seed, s.result.value if s.result else None, s.day, len(table.events), table,
                      violations, checker.accepted + checker.rejected, checker.illegal_tried,
                      dict(checker.probes))
