"""Bots for the ambush: the mafia lies in wait when it holds the right (AMBUSH-1..11), and
probes what it may not do (more than n − 1 ambushes, a judge kill on an ambush night)."""

from __future__ import annotations

from datetime import datetime

from ..engine import commands as cmd
from ..engine.rules.ambush import standing
from ..engine.state import PhaseKind
from ..engine.table import Table
from .base import MINUTE, BotBase


class AmbushMoves(BotBase):
    def ambush(self, table: Table, city: str, now: datetime) -> None:
        """Place up to n − 1 ambushes on distinct targets, sometimes the commissar himself."""
        s = table.game
        c = s.cities[city]
        tonight = s.day
        if tonight not in c.ambush_nights or c.decided is not None:
            return
        if s.phase is PhaseKind.NIGHT and s.ambush_closed:
            return
        mafia = s.living_mafia(city)
        if not mafia or not self.chance(0.8):
            return
        pool = [u for u in s.living(city)]
        self.rng.shuffle(pool)
        if c.commissar and c.commissar in pool and self.chance(0.4):  # AMBUSH-8
            pool.remove(c.commissar)
            pool.insert(0, c.commissar)
        count = self.rng.randint(1, max(1, len(mafia) - 1))
        placed = 0
        for mafioso, target in zip(mafia, pool, strict=False):
            if placed >= count:
                break
            if self.try_do(table, cmd.PlaceAmbush(actor=mafioso, target=target), now):
                placed += 1
        placed_now = table.game.cities[city].ambushes
        spare = [m for m in mafia if m not in {a for a, _ in placed_now}]
        left = [u for u in pool if u not in {t for _, t in placed_now}]
        if spare and left and self.naughty():  # AMBUSH-3, AMBUSH-6: one more would not stand
            extra = (spare[0], left[0])
            if extra not in standing(table.game, city, (*placed_now, extra)):
                self.try_illegal(table, cmd.PlaceAmbush(actor=spare[0], target=left[0]), now)
        if placed and self.chance(0.2):  # AMBUSH-4: withdrawn while the window is open
            self.try_do(table, cmd.WithdrawAmbush(actor=mafia[0]), now + 2 * MINUTE)

    def probe_judge_kill_on_ambush_night(self, table: Table, city: str, now: datetime) -> None:
        """Illegal: AMBUSH-11 — with an ambush standing the judge cannot be ordered killed."""
        s = table.game
        c = s.cities[city]
        mafia = s.living_mafia(city)
        if c.ambushes and c.judge and mafia and s.day >= 2 and self.naughty():
            self.try_illegal(table, cmd.DeclareKill(actor=c.godfather or mafia[0], target=c.judge), now)
