"""Strategy bots for a durable game (the web demo): ``ServiceBots`` whose choices come
from each seat's ``SeatView`` instead of dice.

Before every step the bots read the game's new events from the store into their
``Ledger``; each choice then reasons only from what the choosing seat may see
(``visible_to``), at skill 2 against 2: residents nominate and vote their suspects and
post them in the city inbox, the mafia agrees on the honest resident the town trusts
most, the commissar checks his prime suspect, judges pardon by their beliefs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from ...engine.state import GameState
from ...service.service import GameService
from ...store import codec
from ..service_bots import Executor, ServiceBots
from . import claims
from .beliefs import CERTAIN, least, most, suspicions, town_view
from .knowledge import Ledger, SeatView

SKILL = 2


class StrategyServiceBots(ServiceBots):
    def __init__(self, svc: GameService, game_id: str, rng: random.Random,
                 seats: Iterable[str] | None = None, humans: Iterable[str] = (),
                 activity: float = 0.8, execute: Executor | None = None) -> None:
        super().__init__(svc, game_id, rng, seats, humans, activity, execute)
        self.ledger = Ledger()
        self.seq = 0

    async def observe(self) -> None:
        async with self.svc.store.reading() as tx:
            rows = await tx.event_rows(self.game_id, after=self.seq)
        for row in rows:
            self.ledger.feed([codec.decode_event(codec.loads(row["payload"]))])
            self.seq = row["seq"]

    def view(self, user: str) -> SeatView:
        return SeatView(self.ledger, user)

    def chatter(self, s: GameState, user: str) -> str:
        view = self.view(user)
        city = view.home
        if city is None:
            return super().chatter(s, user)
        if view.is_mafia():
            target = most(town_view(view, city), [u for u in view.living(city) if u not in view.team()])
        else:
            target = most(suspicions(view, city, SKILL, self.rng))
        return claims.suspicion_text(target) if target else super().chatter(s, user)

    def nominee(self, s: GameState, user: str, living: list[str]) -> str:
        return self.ballot(s, user, [u for u in living if u != user]) if len(living) > 1 else living[0]

    def ballot(self, s: GameState, user: str, candidates: list[str]) -> str:
        view = self.view(user)
        city = view.home
        if city is None:
            return super().ballot(s, user, candidates)
        if view.is_mafia():
            honest = [c for c in candidates if c not in view.team()]
            pick = most(town_view(view, city), honest)
        else:
            pick = most(suspicions(view, city, SKILL, self.rng), candidates)
        return pick or super().ballot(s, user, candidates)

    def pardon(self, s: GameState, judge: str, city: str) -> bool:
        verdict = s.cities[city].verdict
        if verdict is None:
            return False
        view = self.view(judge)
        condemned = verdict.candidate
        if view.is_mafia():
            return condemned in view.team()
        scores = suspicions(view, city, SKILL, self.rng)
        return scores.get(condemned, 0.0) < -1.0

    def victim(self, s: GameState, city: str, honest: list[str]) -> str:
        mafia = s.living_mafia(city)
        view = self.view(s.cities[city].godfather or mafia[0])
        exposed = [u for u in view.exposed_commissars() if u in honest]
        if exposed:
            return exposed[0]
        pool = [u for u in view.living(city) if u not in view.team() and u != view.judge(city)]
        return least(town_view(view, city), pool) or super().victim(s, city, honest)

    def suspect(self, s: GameState, commissar: str, targets: list[str]) -> str:
        view = self.view(commissar)
        city = view.home
        if city is None:
            return super().suspect(s, commissar, targets)
        scores = suspicions(view, city, SKILL, self.rng)
        return most(scores, [t for t in targets if abs(scores.get(t, 0.0)) < CERTAIN]) \
            or super().suspect(s, commissar, targets)
