"""Bots for a citizen's own acts: suicide and its withdrawal, observing, the Spirits'
votes, and the probes a Spirit must fail (SUICIDE, ROLE-OBS, SPIRIT)."""

from __future__ import annotations

from datetime import datetime

from ..engine import commands as cmd
from ..engine.table import Table
from .base import MINUTE, BotBase


class CitizenMoves(BotBase):
    def citizen_day(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        living = s.living(city)
        if not living:
            return
        if self.chance(0.02):  # SUICIDE-1, rare; sometimes taken back (SUICIDE-4)
            user = self.rng.choice(living)
            if self.try_do(table, cmd.DeclareSuicide(actor=user), now) and self.chance(0.4):
                self.try_do(table, cmd.WithdrawSuicide(actor=user), now + 30 * MINUTE)
        others = [n for n, c in s.cities.items() if n != city and c.decided is None]
        if others and self.chance(0.08):  # ROLE-OBS-1
            self.try_do(table, cmd.RequestObservation(actor=self.rng.choice(living),
                                                      city=self.rng.choice(others)), now)
        spirits = sorted(s.cities[city].spirits)
        if spirits and self.naughty():  # SPIRIT-4: a Spirit neither nominates nor is nominated
            self.try_illegal(table, cmd.Nominate(actor=spirits[0], candidate=self.rng.choice(living)),
                             now)
            self.try_illegal(table, cmd.Nominate(actor=self.rng.choice(living), candidate=spirits[0]),
                             now)
            if others:  # SPIRIT-7: no observing either
                self.try_illegal(table, cmd.RequestObservation(actor=spirits[0], city=others[0]), now)
