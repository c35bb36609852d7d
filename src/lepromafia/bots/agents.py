"""Random players and hosts. They act only through engine commands.

Every hook reacts to the events just produced and acts shortly afterwards, using
only what its own user may know: a bot never reads another seat's secrets except
through the state fields its office entitles it to (a simplification noted in
docs/decisions.md: bots are test drivers, not a security boundary).

Bots also *try* moves they know to be illegal (a dead resident voting, a vote at
night, the Consigliere invited to a secret inbox...). Every command goes through a
``StepChecker``, which demands that illegal moves are rejected and change nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta

from ..engine import commands as cmd
from ..engine import events as ev
from ..engine.events import Event
from ..engine.inboxes import Kind, live_inbox
from ..engine.state import NO_KILL, Faction, GameState, PhaseKind
from ..engine.table import Table
from .ambush import AmbushMoves
from .base import HOUR, MINUTE
from .citizens import CitizenMoves
from .hosts import HostMoves
from .invariants import StepChecker
from .judges import JudgeMoves


class RandomBots(JudgeMoves, CitizenMoves, AmbushMoves, HostMoves):
    """Plays every seat of a game with random moves, mostly legal."""

    def __init__(self, rng: random.Random, activity: float = 0.8, mischief: float = 0.2,
                 checker: StepChecker | None = None) -> None:
        super().__init__(rng, activity, mischief, checker)
        self.secret_inboxes: dict[str, str] = {}
        """Open secret inboxes the bots made: inbox -> organizer."""
        self.rescheduled = set()
        self.keys_drawn = 0

    def inbox_key(self) -> str:
        """A fresh secret inbox key (F3-6); counted, so the bots' random draws stay as they were."""
        self.keys_drawn += 1
        return f"{self.keys_drawn:016x}"

    def react(self, table: Table, events: Iterable[Event]) -> None:
        for event in list(events):
            now = event.at + MINUTE
            if isinstance(event, ev.DayStarted):
                self.on_day(table, event.day, now)
            elif isinstance(event, ev.VotingOpened):
                self.on_voting(table, event.city, now)
            elif isinstance(event, ev.VotingClosed):
                self.after_voting(table, event, now)
            elif isinstance(event, ev.NightStarted):
                self.on_night(table, now)
            elif isinstance(event, ev.ChecksOpened):
                self.on_checks(table, now)
            elif isinstance(event, ev.CommissarOfferResolved) and not event.accepted:
                self.offer(table, event.city, now)
            elif isinstance(event, ev.CommissarVacated) and event.replace \
                    and table.game.phase is PhaseKind.DAY:
                self.offer(table, event.city, now + 10 * MINUTE)  # COMM-9, AMBUSH-1
            elif isinstance(event, ev.GodfatherElectionFailed):
                self.appoint_godfather(table, event.city, now)
            elif isinstance(event, ev.JudgeElectionScheduled):
                self.on_election_scheduled(table, event, now)
            elif isinstance(event, ev.PollingOpened):
                self.vote_judges(table, event.city, event.candidates, now)
            elif isinstance(event, ev.PardonWindowOpened):
                self.vote_pardons(table, event.city, now)
            elif isinstance(event, ev.AmbushRightGranted) and table.game.phase is PhaseKind.DAY:
                self.ambush(table, event.city, now)

    # --- day ------------------------------------------------------------------------

    def on_day(self, table: Table, day: int, now: datetime) -> None:
        s = table.game
        self.secret_talk(table, now + 5 * MINUTE)
        if day == 1:
            for name in s.cities:
                self.offer(table, name, now)
            self.choose_preset(table, now)
            return
        for name in s.cities:
            c = table.game.cities[name]
            if c.decided is not None:
                continue
            if c.appointment_open and c.commissar is None and c.offer is None:
                self.offer(table, name, now + 30 * MINUTE)  # a replacement (COMM-9, RESTORE-5)
            self.schedule_vote(table, name, now)
            self.judge_day(table, name, now + MINUTE)
            self.citizen_day(table, name, now + MINUTE)
            self.nominate(table, name, now + 2 * MINUTE)
            self.request_proxies(table, name, now + 3 * MINUTE)
            self.disclosures(table, name, now + 4 * MINUTE)
            self.ambush(table, name, now + 5 * MINUTE)
        self.maybe_restore(table, now + 2 * HOUR)
        if self.naughty():
            self.night_move_by_day(table, now + 4 * MINUTE)

    def schedule_vote(self, table: Table, city: str, now: datetime) -> None:
        """TIME-7, EXEC-4: sometimes the Tribune sets his own vote window."""
        if self.rng.random() > 0.4:
            return
        s = table.game
        plan = s.plans[s.day]
        opens = plan.start_at + timedelta(minutes=self.rng.randrange(6 * 60, 11 * 60))
        closes = min(opens + timedelta(minutes=self.rng.randrange(60, 180)), plan.scheduled_end)
        nominations = opens - timedelta(minutes=self.rng.choice((0, 30, 90)))
        self.try_do(table, cmd.ScheduleExecutionVote(
            actor=s.cities[city].tribune, city=city, opens_at=opens, closes_at=closes,
            nominations_close_at=max(nominations, now + HOUR)), now)

    def nominate(self, table: Table, name: str, now: datetime) -> None:
        s = table.game
        living = s.living(name)
        for user in living:
            if self.rng.random() < self.activity:
                self.try_do(table, cmd.Nominate(actor=user, candidate=self.rng.choice(living)), now)
        dead = [u for u in s.cities[name].residents if not s.residents[u].alive]
        if dead and living and self.naughty():
            self.try_illegal(table, cmd.Nominate(actor=self.rng.choice(dead),
                                                 candidate=self.rng.choice(living)), now)

    def request_proxies(self, table: Table, name: str, now: datetime) -> None:
        """EXEC-11: a few residents ask their Tribune to vote for them."""
        s = table.game
        living = s.living(name)
        for user in living:
            if self.rng.random() < 0.1:
                wanted = tuple(self.rng.sample(living, k=min(len(living), self.rng.randint(1, 2))))
                self.try_do(table, cmd.RequestProxyVote(actor=user, candidates=wanted), now)

    def night_move_by_day(self, table: Table, now: datetime) -> None:
        """Illegal: night commands in daytime (TIME-10)."""
        s = table.game
        for name in s.cities:
            mafia = s.living_mafia(name)
            honest = [u for u in s.living(name) if u not in mafia]
            if mafia and honest:
                self.try_illegal(table, cmd.DeclareKill(actor=mafia[0], target=honest[0]), now)
            commissar = s.cities[name].commissar
            if commissar and honest:
                self.try_illegal(table, cmd.CheckResident(actor=commissar, target=honest[-1]), now)

    def offer(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        events = self.try_do(
            table, cmd.OfferCommissar(actor=s.procurator, city=city, draw=self.rng.randrange(1 << 30)), now
        )
        for e in events:
            if isinstance(e, ev.CommissarOffered):
                mafia = table.game.is_mafia(e.candidate)
                accept = not mafia and self.rng.random() < 0.6
                answered = self.try_do(table, cmd.AnswerCommissarOffer(actor=e.candidate, accept=accept),
                                       now + 40 * MINUTE)
                if any(isinstance(a, ev.CommissarOfferResolved) and not a.accepted for a in answered):
                    self.offer(table, city, now + 41 * MINUTE)  # COMM-APPT-3: the next attempt

    def on_voting(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        book = s.cities[city].voting
        if book is None:
            return
        for voter in s.living(city):
            if self.rng.random() > self.activity:
                continue
            picks = self.rng.sample(book.candidates, k=min(len(book.candidates), self.rng.randint(1, 2)))
            for candidate in picks:
                inbox = live_inbox(s, Kind.VOTING, city, candidate)
                if inbox is None:
                    continue
                if self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text="казнить"), now):
                    if self.naughty():  # EXEC-8: one active vote per candidate
                        self.try_illegal(table, cmd.PostMessage(actor=voter, inbox=inbox, text="Казнить!"),
                                         now + MINUTE)
                    if self.rng.random() < 0.15:  # EXEC-8: «не казнить» withdraws it
                        self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text="не казнить"),
                                    now + 2 * MINUTE)
                        if self.rng.random() < 0.5:
                            self.try_do(table, cmd.PostMessage(actor=voter, inbox=inbox, text="казнить"),
                                        now + 3 * MINUTE)
        for spirit in sorted(s.cities[city].spirits):  # SPIRIT-5: the day's Spirits vote
            inbox = live_inbox(s, Kind.VOTING, city, self.rng.choice(book.candidates))
            if inbox and self.rng.random() < self.activity:
                self.try_do(table, cmd.PostMessage(actor=spirit, inbox=inbox, text="казнить"), now)
        spirits = s.cities[city].spirits
        dead = [u for u in s.cities[city].residents if not s.residents[u].alive and u not in spirits]
        inbox = live_inbox(s, Kind.VOTING, city, book.candidates[0])
        if dead and inbox and self.naughty():  # ROLE-DEAD-3: the other dead do not vote
            self.try_illegal(table, cmd.PostMessage(actor=self.rng.choice(dead), inbox=inbox,
                                                    text="казнить"), now)

    def after_voting(self, table: Table, closed: ev.VotingClosed, now: datetime) -> None:
        """INBOX-VOTE-3: a vote after the close is rejected."""
        s = table.game
        living = s.living(closed.city) if closed.city in s.cities else []
        book = s.cities[closed.city].voting
        if not living or book is None or not self.naughty():
            return
        inbox = live_inbox(s, Kind.VOTING, closed.city, book.candidates[0])
        if inbox:
            self.try_illegal(table, cmd.PostMessage(actor=living[0], inbox=inbox, text="казнить"), now)

    def secret_talk(self, table: Table, now: datetime) -> None:
        """INBOX-SECRET-1/2: residents open, use and close secret inboxes."""
        s = table.game
        people = sorted(s.residents) + sorted(s.tribunes())
        if self.rng.random() < 0.3:
            organizer = self.rng.choice(people)
            members = tuple(self.rng.sample(people, k=self.rng.randint(1, 3)))
            events = self.try_do(table, cmd.CreateSecretInbox(actor=organizer, title="Тайник",
                                                              members=members, key=self.inbox_key()), now)
            for e in events:
                if isinstance(e, ev.InboxOpened):
                    self.secret_inboxes[e.inbox] = organizer
        for inbox, organizer in list(self.secret_inboxes.items()):
            talkers = sorted(table.game.inboxes[inbox].members)
            self.try_do(table, cmd.PostMessage(actor=self.rng.choice(talkers), inbox=inbox,
                                               text="Между нами…"), now)
            if self.rng.random() < 0.2:
                self.try_do(table, cmd.CloseSecretInbox(actor=organizer, inbox=inbox), now)
                del self.secret_inboxes[inbox]
        if s.consigliere and self.naughty():  # HOST-CONS-6: never with the Consigliere
            self.try_illegal(table, cmd.CreateSecretInbox(actor=self.rng.choice(people), title="Х",
                                                          members=(s.consigliere,),
                                                          key=self.inbox_key()), now)

    # --- night ----------------------------------------------------------------------

    def on_night(self, table: Table, now: datetime) -> None:
        s = table.game
        for name, city in s.cities.items():
            if city.decided is not None:
                continue
            mafia = s.living_mafia(name)
            if not mafia:
                continue
            self.mafia_chat(table, name, now)
            if city.godfather and self.rng.random() < 0.15:
                self.demand_reelection(table, name, now)
            if table.game.cities[name].godfather_election_open:
                self.elect_godfather(table, name, now + MINUTE)
            self.ambush(table, name, now + MINUTE)
            self.probe_judge_kill_on_ambush_night(table, name, now + 2 * MINUTE)
            if s.day >= 2:
                self.kill(table, table.game, name, now + 2 * MINUTE)
            if self.naughty():
                self.day_move_by_night(table, name, now)

    def mafia_chat(self, table: Table, name: str, now: datetime) -> None:
        """INBOX-MAFIA-2/3: the living talk; the dead may still post."""
        s = table.game
        inbox = s.current_inbox("mafia", name)
        if not inbox:
            return
        mafia = s.living_mafia(name)
        if self.rng.random() < 0.9:
            self.try_do(table, cmd.PostMessage(actor=self.rng.choice(mafia), inbox=inbox, text="Кого?"), now)
        dead = [u for u in s.mafiosi(name) if u not in mafia]
        if dead and self.rng.random() < 0.3:
            self.try_do(table, cmd.PostMessage(actor=dead[0], inbox=inbox, text="Я бы взял…"), now)
        honest = [u for u in s.living(name) if u not in mafia]
        if honest and self.naughty():  # an honest resident cannot find the mafia inbox
            self.try_illegal(table, cmd.PostMessage(actor=honest[0], inbox=inbox, text="Кто тут?"), now)

    def demand_reelection(self, table: Table, name: str, now: datetime) -> None:
        """GODFATHER-4: some mafiosi demand a new election tonight."""
        for mafioso in table.game.living_mafia(name):
            if self.rng.random() < 0.6:
                self.try_do(table, cmd.DemandGodfatherReelection(actor=mafioso), now)

    def elect_godfather(self, table: Table, name: str, now: datetime) -> None:
        mafia = table.game.living_mafia(name)
        choice = self.rng.choice(mafia)
        for m in mafia:
            pick = choice if self.rng.random() < 0.8 else self.rng.choice(mafia)
            self.try_do(table, cmd.VoteGodfather(actor=m, candidate=pick), now)

    def day_move_by_night(self, table: Table, name: str, now: datetime) -> None:
        """Illegal: day commands at night, and the dead acting at night."""
        s = table.game
        living = s.living(name)
        if living:
            self.try_illegal(table, cmd.Nominate(actor=living[0], candidate=living[-1]), now)
            self.try_illegal(table, cmd.RequestProxyVote(actor=living[-1], candidates=(living[0],)), now)
        dead_mafia = [u for u in s.mafiosi(name) if not s.residents[u].alive]
        honest = [u for u in living if not s.is_mafia(u)]
        if dead_mafia and honest:
            self.try_illegal(table, cmd.DeclareKill(actor=dead_mafia[0], target=honest[0]), now)
        if honest and s.day >= 2:
            self.try_illegal(table, cmd.DeclareKill(actor=honest[0], target=honest[-1]), now)

    def kill(self, table: Table, s: GameState, name: str, now: datetime) -> None:
        city = s.cities[name]
        honest = [u for u in s.living(name) if s.residents[u].faction is Faction.HONEST]
        deciders = [city.godfather] if city.godfather else s.living_mafia(name)
        target = self.rng.choice(honest) if honest and self.rng.random() < 0.95 else NO_KILL
        if s.day == 2 and city.commissar in honest and self.chance(0.3):
            target = city.commissar  # a lucky guess: an early death brings the ambush (AMBUSH-1)
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
            judges = [c.judge for n, c in s.cities.items() if n != name and c.judge and c.decided is None]
            if judges and deciders[0] and self.naughty():  # TOUR-4: never another city's judge
                self.try_illegal(table, cmd.DeclareKill(actor=deciders[0], target=judges[0], tour=True), now)

    def on_checks(self, table: Table, now: datetime) -> None:
        s = table.game
        for name, city in s.cities.items():
            if city.commissar and city.decided is None:
                targets = [u for u in s.living(name) if u != city.commissar]
                if targets:
                    self.try_do(table, cmd.CheckResident(actor=city.commissar,
                                                         target=self.rng.choice(targets)), now)
                    if self.naughty():  # COMM-4: one check a night
                        self.try_illegal(table, cmd.CheckResident(actor=city.commissar,
                                                                  target=targets[0]), now)

    def appoint_godfather(self, table: Table, city: str, now: datetime) -> None:
        s = table.game
        mafia = s.living_mafia(city)
        if mafia and s.consigliere:
            self.try_do(table, cmd.AppointGodfather(actor=s.consigliere, city=city,
                                                    godfather=self.rng.choice(mafia)), now)
