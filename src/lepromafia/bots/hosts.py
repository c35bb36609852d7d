"""Bots for the hosts' rarer decisions: disclosures confirmed by the Procurator
(MAFIA-DISCLOSE, COMM-DISCLOSE) and a city's restoration (RESTORE-T2, RESTORE-1..7)."""

from __future__ import annotations

from datetime import datetime

from ..engine import commands as cmd
from ..engine import events as ev
from ..engine.table import Table
from .base import MINUTE, BotBase


class HostMoves(BotBase):
    def disclosures(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        mafia = s.living_mafia(city)
        if mafia and self.chance(0.01):
            self.try_do(table, cmd.ConfirmMafiosoDisclosure(
                actor=s.procurator, user=self.rng.choice(mafia), reason="раскрылся в городе"), now)
        if s.cities[city].commissar and self.chance(0.01):
            self.try_do(table, cmd.ConfirmCommissarDisclosure(
                actor=s.procurator, city=city, reason="раскрыт в посте"), now)

    def maybe_restore(self, table: Table, now: datetime) -> None:
        """Rarely a city is declared destroyed: three signatures, a sealed list, numbers."""
        s = table.game
        if not s.consigliere or not self.chance(0.012):
            return
        open_cities = [n for n, c in s.cities.items()
                       if c.decided is None and c.restoration is None and len(s.living(n)) >= 3]
        if not open_cities:
            return
        city = self.rng.choice(open_cities)
        c = s.cities[city]
        name = f"Ново-{c.display_name or c.name}"
        if not self.try_do(table, cmd.ProposeRestoration(actor=s.procurator, city=city, new_name=name,
                                                         reason="утечка"), now):
            return
        signers = [s.consigliere, c.tribune]
        self.rng.shuffle(signers)
        for i, host in enumerate(signers):
            self.try_do(table, cmd.SignRestoration(actor=host, city=city), now + (i + 1) * MINUTE)
        s = table.game
        order = s.living(city)
        self.rng.shuffle(order)
        salt = f"{self.rng.getrandbits(128):032x}"
        seal = cmd.SealRestorationList(actor=s.consigliere or "", city=city, order=tuple(order), salt=salt)
        sealed = [e for e in self.try_do(table, seal, now + 10 * MINUTE)
                  if isinstance(e, ev.RestorationListSealed)]
        if not sealed:
            return
        numbers = tuple(self.rng.sample(range(1, len(order) + 1), sealed[0].mafia_count))
        self.try_do(table, cmd.NameRestorationNumbers(actor=s.procurator, city=city, numbers=numbers),
                    now + 20 * MINUTE)
