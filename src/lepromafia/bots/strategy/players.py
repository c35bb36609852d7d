"""Strategy bots: every seat of a game played from what that seat may see.

``StrategyBots`` drives the whole table like ``RandomBots`` (same hooks, same checked
``try_do``), but each decision of a resident comes from his ``SeatView``: suspicions
(``beliefs``), nominations and votes on them, the commissar's checks and reveals, the
mafia's coordinated kills, tours, ambushes and Godfather, judges' pardons. The table is
used only to deliver commands and to know which seat is whose (a player knows his own
role and office); facts about *other* seats come only through ``visible_to``.

A skill level per side: 0 plays that side with the random moves, 1–3 reason with less
noise and more trust in what the evidence says (``beliefs.TEMPERS``); the mafia's
tactics grow with it (1: kills its loudest accuser; 2: also the exposed or claiming
commissar, votes late to steer the tally, ambushes the town's suspects; 3: also kills an
honest judge unanimously and counter-claims a revealing commissar). The hosts' part stays
with the random host moves, except the Procurator, who confirms real disclosures.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ...engine import commands as cmd
from ...engine import events as ev
from ...engine.events import Event
from ...engine.keywords import Keyword
from ...engine.state import NO_KILL, GameState, PhaseKind
from ...engine.table import Table
from ..agents import RandomBots
from ..base import MINUTE
from ..invariants import StepChecker
from . import claims
from .beliefs import CERTAIN, least, most, suspicions, town_view
from .knowledge import Ledger, SeatView

EXECUTE = Keyword.EXECUTE.value
GANDHI, HITLER = Keyword.GANDHI.value, Keyword.HITLER.value
LATE_VOTE = timedelta(minutes=20)
"""The mafia at skill 2+ votes this long after the polls open, when the tally shows."""


@dataclass(frozen=True)
class Skills:
    honest: int = 2
    mafia: int = 2

    def __post_init__(self) -> None:
        for side in (self.honest, self.mafia):
            if side not in (0, 1, 2, 3):
                raise ValueError("skill levels are 0 (random) to 3")

    @classmethod
    def parse(cls, text: str) -> Skills:
        """«honest=2,mafia=1» (either part may be left out)."""
        values = {"honest": 2, "mafia": 2}
        for part in filter(None, (p.strip() for p in text.split(","))):
            side, _, level = part.partition("=")
            if side.strip() not in values or not level.strip().isdigit():
                raise ValueError(f"not a skill: {part!r} (write honest=N,mafia=N)")
            values[side.strip()] = int(level)
        return cls(**values)

    def __str__(self) -> str:
        return f"honest={self.honest},mafia={self.mafia}"


class StrategyBots(RandomBots):
    """Plays every seat from its own view; see the module docstring."""

    def __init__(self, rng: random.Random, skills: Skills | None = None, *, tours: bool = True,
                 ambushes: bool = True, mischief: float = 0.0, checker: StepChecker | None = None) -> None:
        super().__init__(rng, activity=0.9, mischief=mischief, checker=checker)
        self.skills = skills or Skills()
        self.use_tours = tours
        self.use_ambushes = ambushes
        self.ledger = Ledger()
        self._exposures_seen = 0
        self._revealed: set[str] = set()

    # --- seats -----------------------------------------------------------------------

    def view(self, table: Table, seat: str) -> SeatView:
        self.ledger.sync(table)
        return SeatView(self.ledger, seat)

    def skill_of(self, s: GameState, user: str) -> int:
        """The level of the side this seat plays (every player knows his own role)."""
        return self.skills.mafia if s.is_mafia(user) else self.skills.honest

    def react(self, table: Table, events: Iterable[Event]) -> None:
        super().react(table, events)
        self.ledger.sync(table)
        exposures = self.ledger.of(ev.CommissarExposed)
        for exposed in exposures[self._exposures_seen:]:
            if table.game.phase is PhaseKind.NIGHT:
                self.kill_exposed(table, exposed, exposed.at + MINUTE)
        self._exposures_seen = len(exposures)

    # --- day: talk, nominate, vote -----------------------------------------------------

    def on_day(self, table: Table, day: int, now: datetime) -> None:
        if day >= 2:
            for name, city in table.game.cities.items():
                if city.decided is None:
                    self.talk(table, name, now)
        super().on_day(table, day, now)

    def secret_talk(self, table: Table, now: datetime) -> None:
        """Secret inboxes carry no strategy here; the random bots exercise them."""

    def maybe_restore(self, table: Table, now: datetime) -> None:
        """No leaks are simulated, so no city is ever declared destroyed."""

    def talk(self, table: Table, city: str, now: datetime) -> None:
        """Day posts in the city inbox: the commissar's reveal or hint, suspicions, a counter-claim."""
        s = table.game
        inbox = s.current_inbox("city", city)
        if inbox is None:
            return
        commissar = s.cities[city].commissar
        if commissar and self.skills.honest > 0:
            self.commissar_speaks(table, city, commissar, inbox, now)
        for user in s.living(city):
            if user == commissar or self.skill_of(s, user) == 0 or not self.chance(0.3):
                continue
            view = self.view(table, user)
            if view.is_mafia():
                target = most(town_view(view, city), [u for u in view.living(city) if u not in view.team()
                                                       and u != user])
            else:
                target = most(suspicions(view, city, self.skills.honest, self.rng))
            if target:
                self.post(table, user, inbox, claims.suspicion_text(target), now)
        if self.skills.mafia >= 3:
            self.counter_claim(table, city, inbox, now + MINUTE)

    def commissar_speaks(self, table: Table, city: str, commissar: str, inbox: str, now: datetime) -> None:
        """The commissar reveals once he has found a mafioso, naming every answer he had
        (skill 3 also once the city is small, to clear the honest he checked)."""
        view = self.view(table, commissar)
        found = {t: m for t, m in view.checks().items() if t in view.living(city)}
        if not found:
            return
        late = self.skills.honest >= 3 and len(view.living(city)) <= 8
        if not any(found.values()) and not late:
            return
        for target, is_mafia in sorted(found.items()):
            self.post(table, commissar, inbox, claims.claim_text(target, is_mafia), now)
        self._revealed.add(commissar)

    def counter_claim(self, table: Table, city: str, inbox: str, now: datetime) -> None:
        """A mafioso names a revealing commissar a mafioso, claiming the office himself."""
        s = table.game
        mafia = s.living_mafia(city)
        if not mafia:
            return
        view = self.view(table, mafia[0])
        accused = {c.author for c in view.claims(city) if c.commissar and c.mafia and c.target in view.team()}
        liars = {c.author for c in view.claims(city) if c.author in view.team()}
        for claimant in sorted(accused - liars):
            if claimant in view.living(city):
                self.post(table, mafia[-1], inbox, claims.claim_text(claimant, True), now)

    def post(self, table: Table, user: str, inbox: str, text: str, now: datetime) -> None:
        self.try_do(table, cmd.PostMessage(actor=user, inbox=inbox, text=text), now)

    def disclosures(self, table: Table, city: str, now: datetime) -> None:
        """COMM-DISCLOSE-3, MAFIA-DISCLOSE-3: the Procurator confirms what the real commissar
        published (he knows who that is); a fake claim is no disclosure."""
        s = table.game
        commissar = s.cities[city].commissar
        if commissar is None or commissar not in self._revealed:
            return
        view = SeatView(self.ledger, commissar)
        named = sorted({c.target for c in view.claims(city)
                        if c.author == commissar and c.commissar and c.mafia})
        for user in named:
            if s.residents[user].alive and s.is_mafia(user):
                self.try_do(table, cmd.ConfirmMafiosoDisclosure(
                    actor=s.procurator, user=user, reason="назван комиссаром в городе"), now)
        self.try_do(table, cmd.ConfirmCommissarDisclosure(
            actor=s.procurator, city=city, reason="раскрылся в городе"), now)
        self._revealed.discard(commissar)

    def nominate(self, table: Table, name: str, now: datetime) -> None:
        s = table.game
        living = s.living(name)
        target_of_mafia: str | None = None
        for user in living:
            skill = self.skill_of(s, user)
            if skill == 0:
                if self.chance(self.activity):
                    self.try_do(table, cmd.Nominate(actor=user, candidate=self.rng.choice(living)), now)
                continue
            view = self.view(table, user)
            if view.is_mafia():
                if target_of_mafia is None:
                    target_of_mafia = self.mafia_pick(view, name, living)
                candidate = target_of_mafia
            else:
                candidate = most(suspicions(view, name, skill, self.rng))
            if candidate:
                self.try_do(table, cmd.Nominate(actor=user, candidate=candidate), now)

    def mafia_pick(self, view: SeatView, city: str, among: Iterable[str]) -> str | None:
        """The honest resident the town already suspects most: the mafia's vote blends in."""
        honest = [u for u in among if u not in view.team() and u in view.living(city)]
        if self.skills.mafia == 1:
            return self.rng.choice(honest) if honest else None
        return most(town_view(view, city), honest)

    def on_voting(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        book = s.cities[city].voting
        if book is None:
            return
        candidates = list(book.candidates)
        late: list[str] = []
        for voter in [*s.living(city), *sorted(s.cities[city].spirits)]:
            skill = self.skill_of(s, voter)
            if skill == 0:
                self.random_vote(table, city, voter, candidates, now)
            elif s.is_mafia(voter) and self.skills.mafia >= 2:
                late.append(voter)
            else:
                view = self.view(table, voter)
                if view.is_mafia():
                    pick = self.mafia_pick(view, city, candidates)
                else:
                    pick = most(suspicions(view, city, skill, self.rng), candidates)
                self.vote(table, city, voter, pick, now)
        if late:
            self.steer(table, city, late, candidates, now + LATE_VOTE)

    def steer(self, table: Table, city: str, mafia: list[str], candidates: list[str], now: datetime) -> None:
        """Skill 2+: the mafia sees the tally and puts its votes on the honest candidate most
        likely to fall, ahead of any teammate."""
        view = self.view(table, mafia[0])
        votes = view.live_votes(city, table.game.day)
        honest = [c for c in candidates if c not in view.team()]
        if not honest:
            return
        town = town_view(view, city)
        pick = max(honest, key=lambda c: (len(votes.get(c, ())), town.get(c, 0.0), c))
        for voter in mafia:
            self.vote(table, city, voter, pick, now)

    def vote(self, table: Table, city: str, voter: str, candidate: str | None, now: datetime) -> None:
        if candidate is None:
            return
        inbox = table.game.current.get(f"voting:{city}/{candidate}")
        if inbox is not None:
            self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text=EXECUTE), now)

    def random_vote(self, table: Table, city: str, voter: str, candidates: list[str], now: datetime) -> None:
        if not candidates or not self.chance(self.activity):
            return
        for candidate in self.rng.sample(candidates, k=min(len(candidates), self.rng.randint(1, 2))):
            self.vote(table, city, voter, candidate, now)

    # --- the commissar -----------------------------------------------------------------

    def offer(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        events = self.try_do(
            table, cmd.OfferCommissar(actor=s.procurator, city=city, draw=self.rng.randrange(1 << 30)), now)
        for e in events:
            if isinstance(e, ev.CommissarOffered):
                willing = 0.6 if self.skills.honest == 0 else 0.9
                accept = not table.game.is_mafia(e.candidate) and self.chance(willing)
                answered = self.try_do(table, cmd.AnswerCommissarOffer(actor=e.candidate, accept=accept),
                                       now + 40 * MINUTE)
                if any(isinstance(a, ev.CommissarOfferResolved) and not a.accepted for a in answered):
                    self.offer(table, city, now + 41 * MINUTE)  # COMM-APPT-3: the next attempt

    def on_checks(self, table: Table, now: datetime) -> None:
        if self.skills.honest == 0:
            super().on_checks(table, now)
            return
        s = table.game
        for name, city in s.cities.items():
            if city.commissar and city.decided is None:
                view = self.view(table, city.commissar)
                scores = suspicions(view, name, self.skills.honest, self.rng)
                unchecked = [u for u, v in scores.items() if abs(v) < CERTAIN]
                target = most(scores, unchecked)
                if target:
                    self.try_do(table, cmd.CheckResident(actor=city.commissar, target=target), now)

    # --- the mafia ---------------------------------------------------------------------

    def demand_reelection(self, table: Table, name: str, now: datetime) -> None:
        if self.skills.mafia == 0:
            super().demand_reelection(table, name, now)

    def elect_godfather(self, table: Table, name: str, now: datetime) -> None:
        """The whole mafia backs the teammate the town suspects least."""
        if self.skills.mafia == 0:
            super().elect_godfather(table, name, now)
            return
        mafia = table.game.living_mafia(name)
        view = self.view(table, mafia[0])
        choice = least(town_view(view, name), mafia)
        for mafioso in mafia:
            self.try_do(table, cmd.VoteGodfather(actor=mafioso, candidate=choice or mafioso), now)

    def kill(self, table: Table, s: GameState, name: str, now: datetime) -> None:
        if self.skills.mafia == 0:
            if not self.use_tours:
                s = _without_tour(s)
            super().kill(table, s, name, now)
            return
        mafia = s.living_mafia(name)
        if not mafia:
            return
        city = s.cities[name]
        view = self.view(table, city.godfather or mafia[0])
        target = self.kill_target(table, view, name, mafia)
        self.order(table, name, target, mafia, now)
        if self.use_tours and s.touring_city == name:
            tour = self.tour_target(table, view, name)
            if tour:
                deciders = [city.godfather] if city.godfather else mafia
                for mafioso in deciders:
                    self.try_do(table, cmd.DeclareKill(actor=mafioso, target=tour, tour=True), now)

    def order(self, table: Table, name: str, target: str, mafia: list[str], now: datetime) -> None:
        """The Godfather orders; for the judge every living mafioso confirms (MAFIA-KILL-4)."""
        godfather = table.game.cities[name].godfather
        judge = table.game.cities[name].judge
        voices = mafia if target == judge or not godfather else [godfather]
        if godfather and godfather in voices:
            voices = [godfather, *[m for m in voices if m != godfather]]
        for mafioso in voices:
            self.try_do(table, cmd.DeclareKill(actor=mafioso, target=target), now)

    def kill_target(self, table: Table, view: SeatView, city: str, mafia: list[str]) -> str:
        living = view.living(city)
        team = view.team()
        judge = view.judge(city)
        honest = [u for u in living if u not in team and u != judge]
        if not honest:
            return NO_KILL
        if self.skills.mafia >= 2:
            exposed = [u for u in view.exposed_commissars() if u in honest]
            if exposed:
                return exposed[0]
            claimants = [c.author for c in view.claims(city)
                         if c.commissar and c.author in honest and (c.target in team) == c.mafia]
            if claimants:
                return claimants[-1]  # he tells the truth, so he is the commissar
        if self.skills.mafia >= 3 and judge and judge in living and judge not in team \
                and not table.game.cities[city].ambushes and len(mafia) > 1 and self.chance(0.3):
            return judge  # JUDGE-5: the whole mafia agrees, no ambush tonight (AMBUSH-11)
        if self.skills.mafia == 1:
            accusers = {c.author for c in view.claims(city) if c.target in team and c.author in honest}
            return self.rng.choice(sorted(accusers)) if accusers else self.rng.choice(honest)
        return least(town_view(view, city), honest) or honest[0]  # the one the town trusts most

    def tour_target(self, table: Table, view: SeatView, home: str) -> str | None:
        """TOUR-1, TOUR-4: a resident of the city nearest to ridding itself of its mafia, chosen
        from what is public there: who voted the dead mafiosi out."""
        best: tuple[float, str] | None = None
        for city in view.cities():
            if city == home or city in view.decided():
                continue
            deaths = view.deaths(city)
            dead_mafia = sum(1 for d in deaths.values() if d.faction == "mafia")
            left = view.mafia_count(city) - dead_mafia
            if left <= 0:
                continue
            share = left / max(1, len(view.living(city)))
            if best is None or share < best[0]:
                best = (share, city)
        if best is None:
            return None
        city = best[1]
        judge = view.judge(city)
        pool = [u for u in view.living(city) if u != judge]
        if not pool:
            return None
        return least(town_view(view, city), pool)

    def kill_exposed(self, table: Table, exposed: ev.CommissarExposed, now: datetime) -> None:
        """AMBUSH-7: the reveal is immediate, so the mafia kills him the same night."""
        s = table.game
        if self.skills.mafia < 2 or s.day < 2 or not s.residents[exposed.commissar].alive:
            return
        mafia = s.living_mafia(exposed.city)
        if mafia:
            self.order(table, exposed.city, exposed.commissar, mafia, now)

    def ambush(self, table: Table, city: str, now: datetime) -> None:
        """AMBUSH-3..8: wait where the commissar will look: the town's prime suspects."""
        if not self.use_ambushes:
            return
        if self.skills.mafia == 0:
            super().ambush(table, city, now)
            return
        s = table.game
        c = s.cities[city]
        if s.day not in c.ambush_nights or c.decided is not None or c.ambushes:
            return
        if s.phase is PhaseKind.NIGHT and s.ambush_closed:
            return
        mafia = s.living_mafia(city)
        if len(mafia) < 2:
            return
        view = self.view(table, mafia[0])
        town = town_view(view, city)
        suspects = sorted(town, key=lambda u: (-town[u], u))[: len(mafia) - 1]
        for mafioso, target in zip(mafia, suspects, strict=False):
            self.try_do(table, cmd.PlaceAmbush(actor=mafioso, target=target), now)

    # --- judges ------------------------------------------------------------------------

    def vote_pardons(self, table: Table, city: str, now: datetime) -> None:
        """A judge pardons when he believes the condemned more honest than the runner-up."""
        s = table.game
        self.ledger.sync(table)
        window = self.ledger.of(ev.PardonWindowOpened, city)
        if not window:
            return
        condemned, ranking = window[-1].candidate, window[-1].ranking
        after = [u for u in ranking if u != condemned]
        for judge in sorted(c.judge for c in s.cities.values() if c.judge and c.decided is None):
            if not s.residents[judge].alive:
                continue
            skill = self.skill_of(s, judge)
            if skill == 0:
                if self.chance(self.activity):
                    self.try_do(table, cmd.VotePardon(actor=judge, city=city, pardon=self.chance(0.3)), now)
                continue
            view = self.view(table, judge)
            if view.is_mafia():
                team = view.team() if view.home == city else frozenset()
                pardon = condemned in team and not (after and after[0] in team)
            else:
                scores = suspicions(view, city, skill, self.rng)
                mine = scores.get(condemned, 0.0)
                runner = scores.get(after[0], 0.0) if after else 0.0
                pardon = bool(after) and mine < runner - 1.0
            self.try_do(table, cmd.VotePardon(actor=judge, city=city, pardon=pardon), now)

    def propose_judges(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        if self.skills.honest == 0 and self.skills.mafia == 0:
            super().propose_judges(table, city, now)
            return
        for user in s.living(city):
            if not self.chance(0.3):
                continue
            view = self.view(table, user)
            if view.is_mafia() and self.skills.mafia > 0:
                candidate = least(town_view(view, city), sorted(view.team() & set(view.living(city))))
            elif self.skill_of(s, user) > 0:
                candidate = least(suspicions(view, city, self.skill_of(s, user), self.rng))
            else:
                candidate = self.rng.choice(s.living(city))
            if candidate:
                self.try_do(table, cmd.ProposeJudge(actor=user, candidate=candidate), now)

    def vote_judges(self, table: Table, city: str, candidates: tuple[str, ...], now: datetime) -> None:
        s = table.game
        for voter in s.living(city):
            skill = self.skill_of(s, voter)
            if skill == 0:
                if self.chance(self.activity):
                    self.judge_vote(table, city, voter, self.rng.choice(candidates),
                                    GANDHI if self.chance(0.7) else HITLER, now)
                continue
            view = self.view(table, voter)
            if view.is_mafia():
                mine = [c for c in candidates if c in view.team()]
                if mine:
                    self.judge_vote(table, city, voter, mine[0], GANDHI, now)
                continue
            scores = suspicions(view, city, skill, self.rng)
            scores[voter] = -CERTAIN  # he knows he is honest
            self.judge_vote(table, city, voter, least(scores, list(candidates)), GANDHI, now)
            worst = most(scores, list(candidates))
            if worst and len(candidates) > 1 and scores[worst] > 1.0:
                self.judge_vote(table, city, voter, worst, HITLER, now)

    def judge_vote(self, table: Table, city: str, voter: str, candidate: str | None, text: str,
                   now: datetime) -> None:
        if candidate is None:
            return
        inbox = table.game.current.get(f"polling:{city}/{candidate}")
        if inbox:
            self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text=text), now)


def _without_tour(s: GameState) -> GameState:
    """The state as the random mafia sees it when the lab switches tours off."""
    return replace(s, touring_city=None)
