"""What every bot mixin shares: the seeded dice and the checked way to play a command."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from ..engine import commands as cmd
from ..engine.events import Event
from ..engine.table import Table
from .invariants import StepChecker

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)


class BotBase:
    def __init__(self, rng: random.Random, activity: float = 0.8, mischief: float = 0.2,
                 checker: StepChecker | None = None) -> None:
        self.rng = rng
        self.activity = activity
        self.mischief = mischief
        """How often a bot tries an illegal move where one is at hand."""
        self.checker = checker or StepChecker()

    @property
    def rejected(self) -> int:
        return self.checker.rejected

    def try_do(self, table: Table, command: cmd.Command, now: datetime) -> list[Event]:
        return self.checker.attempt(table, command, now)

    def try_illegal(self, table: Table, command: cmd.Command, now: datetime) -> None:
        self.checker.attempt(table, command, now, illegal=True)

    def naughty(self) -> bool:
        return self.rng.random() < self.mischief

    def chance(self, p: float) -> bool:
        return self.rng.random() < p
