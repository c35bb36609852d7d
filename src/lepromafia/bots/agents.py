"""Random legal players and hosts. They act only through engine commands.

Every hook reacts to the events just produced and acts shortly afterwards, using
only what its own user may know: a bot never reads another seat's secrets except
through the state fields its office entitles it to (a simplification noted in
docs/decisions.md: bots are test drivers, not a security boundary).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta

from ..engine import commands as cmd
from ..engine import events as ev
from ..engine.errors import RuleViolation
from ..engine.events import Event
from ..engine.state import NO_KILL, Faction, GameState
from ..engine.table import Table

MINUTE = timedelta(minutes=1)


class RandomBots:
    """Plays every seat of a game with random legal moves."""

    def __init__(self, rng: random.Random, activity: float = 0.8) -> None:
        self.rng = rng
        self.activity = activity
        self.rejected = 0

    def try_do(self, table: Table, command: cmd.Command, now: datetime) -> list[Event]:
        try:
            return table.do(command, now)
        except RuleViolation:
            self.rejected += 1
            return []

    def react(self, table: Table, events: Iterable[Event]) -> None:
        for event in list(events):
            now = event.at + MINUTE
            if isinstance(event, ev.DayStarted):
                self.on_day(table, event.day, now)
            elif isinstance(event, ev.VotingOpened):
                self.on_voting(table, event.city, now)
            elif isinstance(event, ev.NightStarted):
                self.on_night(table, now)
            elif isinstance(event, ev.ChecksOpened):
                self.on_checks(table, now)
            elif isinstance(event, ev.CommissarOfferResolved) and not event.accepted:
                self.offer(table, event.city, now)
            elif isinstance(event, ev.GodfatherElectionFailed):
                self.appoint_godfather(table, event.city, now)
            elif isinstance(event, ev.JudgeElectionScheduled):
                self.propose_judges(table, event.city, now)
            elif isinstance(event, ev.PollingOpened):
                self.vote_judges(table, event.city, event.candidates, now)
            elif isinstance(event, ev.PardonWindowOpened):
                self.vote_pardons(table, event.city, now)

    # --- day ------------------------------------------------------------------------

    def on_day(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        if day == 1:
            for name in s.cities:
                self.offer(table, name, now)
            return
        for name in s.cities:
            if s.cities[name].decided is not None:
                continue
            living = s.living(name)
            for user in living:
                if self.rng.random() < self.activity:
                    self.try_do(table, cmd.Nominate(actor=user, candidate=self.rng.choice(living)), now)

    def offer(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        events = self.try_do(
            table, cmd.OfferCommissar(actor=s.procurator, city=city, draw=self.rng.randrange(1 << 30)), now
        )
        for e in events:
            if isinstance(e, ev.CommissarOffered):
                mafia = table.game.is_mafia(e.candidate)
                accept = not mafia and self.rng.random() < 0.6
                self.try_do(table, cmd.AnswerCommissarOffer(actor=e.candidate, accept=accept),
                            now + 40 * MINUTE)

    def on_voting(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        book = s.cities[city].voting
        if book is None:
            return
        voters = s.living(city)
        for voter in voters:
            if self.rng.random() > self.activity:
                continue
            picks = self.rng.sample(book.candidates, k=min(len(book.candidates), self.rng.randint(1, 2)))
            for candidate in picks:
                inbox = s.current.get(f"voting:{city}/{candidate}")
                if inbox is None:
                    continue
                self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text="казнить"), now)
                if self.rng.random() < 0.1:
                    self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text="не казнить"),
                                now + MINUTE)

    # --- night ----------------------------------------------------------------------

    def on_night(self, table: Table, now: datetime) -> None:
        s = table.game
        for name, city in s.cities.items():
            if city.decided is not None:
                continue
            mafia = s.living_mafia(name)
            if not mafia:
                continue
            inbox = s.current_inbox("mafia", name)
            if inbox and self.rng.random() < 0.9:
                self.try_do(table, cmd.PostMessage(actor=mafia[0], inbox=inbox, text="Кого?"), now)
            if city.godfather_election_open:
                choice = self.rng.choice(mafia)
                for m in mafia:
                    self.try_do(table, cmd.VoteGodfather(actor=m, candidate=choice), now)
            if s.day >= 2:
                self.kill(table, s, name, now)

    def kill(self, table: Table, s: GameState, name: str, now: datetime) -> None:
        city = s.cities[name]
        honest = [u for u in s.living(name) if s.residents[u].faction is Faction.HONEST]
        deciders = [city.godfather] if city.godfather else s.living_mafia(name)
        target = self.rng.choice(honest) if honest and self.rng.random() < 0.95 else NO_KILL
        for mafioso in deciders:
            if mafioso:
                self.try_do(table, cmd.DeclareKill(actor=mafioso, target=target), now)
        if s.touring_city == name:
            others = [u for n, c in s.cities.items() if n != name and c.decided is None
                      for u in s.living(n) if u != c.judge]
            if others:
                tour = self.rng.choice(others)
                for mafioso in deciders:
                    if mafioso:
                        self.try_do(table, cmd.DeclareKill(actor=mafioso, target=tour, tour=True), now)

    def on_checks(self, table: Table, now: datetime) -> None:
        s = table.game
        for name, city in s.cities.items():
            if city.commissar and city.decided is None:
                targets = [u for u in s.living(name) if u != city.commissar]
                if targets:
                    self.try_do(table, cmd.CheckResident(actor=city.commissar,
                                                         target=self.rng.choice(targets)), now)

    def appoint_godfather(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        mafia = s.living_mafia(city)
        if mafia and s.consigliere:
            self.try_do(table, cmd.AppointGodfather(actor=s.consigliere, city=city,
                                                    godfather=self.rng.choice(mafia)), now)

    # --- judges and the Court -----------------------------------------------------

    def propose_judges(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        living = s.living(city)
        for user in living:
            if self.rng.random() < 0.3:
                self.try_do(table, cmd.ProposeJudge(actor=user, candidate=self.rng.choice(living)), now)

    def vote_judges(self, table: Table, city: str, candidates: tuple[str, ...], now: datetime) -> None:
        s = table.game
        for voter in s.living(city):
            if self.rng.random() > self.activity:
                continue
            candidate = self.rng.choice(candidates)
            inbox = s.current.get(f"polling:{city}/{candidate}")
            if inbox:
                text = "Он — Ганди!" if self.rng.random() < 0.7 else "Он — Гитлер!"
                self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text=text), now)

    def vote_pardons(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        judges = sorted(c.judge for c in s.cities.values() if c.judge and c.decided is None)
        for judge in judges:
            if s.residents[judge].alive and self.rng.random() < self.activity:
                self.try_do(table, cmd.VotePardon(actor=judge, city=city, pardon=self.rng.random() < 0.3),
                            now)
