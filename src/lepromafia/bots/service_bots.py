"""Bots that play seats of a durable game through the ``GameService``.

``setup_service_game`` staffs, deals and starts a game the way ``bots.setup.setup_game``
does a Table. ``ServiceBots.step`` looks at the game once and makes a few plausible
moves for its seats; ``run`` repeats that forever (the demo). Like ``RandomBots``,
they read the whole state: bots are drivers, not a security boundary. Rejected moves
are expected and ignored (the engine changes nothing).
"""

from __future__ import annotations

import asyncio
import logging
import random
import uuid
from collections.abc import Awaitable, Callable, Iterable
from datetime import date
from typing import Any

from ..engine import commands as cmd
from ..engine.commands import REQUIREMENTS
from ..engine.errors import RuleViolation
from ..engine.inboxes import Kind, live_inbox
from ..engine.state import NO_KILL, Faction, GameState, PhaseKind, Stage
from ..service.errors import ServiceError
from ..service.service import GameService
from .setup import Cast

log = logging.getLogger(__name__)

CHATTER = ("Доброе утро, город!", "Кто что думает?", "Я честный, клянусь.", "Подозрительно тихо…",
           "Голосую по совести.", "Мафия, сдавайтесь!")


class Rejected(Exception):
    """An executor's way to say the command was refused (e.g. an HTTP 4xx)."""


Executor = Callable[[str, cmd.Command, str], Awaitable[Any]]


class Ids:
    """Client command ids: unique within a run, readable."""

    def __init__(self, prefix: str = "c") -> None:
        self.prefix = prefix
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"{self.prefix}{self.n}"


async def setup_service_game(svc: GameService, game_id: str, cast: Cast, rng: random.Random,
                             first_day: date | None, settings: dict[str, Any] | None = None,
                             title: str = "Лепромафия", time_scale: float = 1.0,
                             start: bool = True, ids: Callable[[], str] | None = None) -> None:
    """Create, staff, deal and (if ``start``) start a game; its Day 1 is ``first_day``."""
    ids = ids or Ids(f"setup-{uuid.uuid4().hex[:6]}-")
    opts = {"city_count": len(cast.cities), **(settings or {})}
    await svc.create_game(game_id, cmd.CreateGame(actor=cast.procurator, title=title, settings=opts),
                          ids(), time_scale=time_scale)

    async def do(command: cmd.Command) -> None:
        await svc.execute(game_id, command, ids())

    await do(cmd.AppointHost(actor=cast.procurator, office="consigliere", user=cast.consigliere))
    await do(cmd.AppointHost(actor=cast.procurator, office="arbiter", user=cast.arbiter))
    for users in cast.cities.values():
        for user in users:
            await do(cmd.SignUp(actor=user, accepted=REQUIREMENTS, has_contact=True))
    if not start or first_day is None:
        return
    plans = tuple(cmd.CityPlan(name=name, tribune=cast.tribunes[i], residents=users)
                  for i, (name, users) in enumerate(cast.cities.items()))
    await do(cmd.FormCities(actor=cast.procurator, cities=plans))
    lists = []
    for name, users in cast.cities.items():
        order = list(users)
        rng.shuffle(order)
        lists.append((name, tuple(order)))
    await do(cmd.SealDeal(actor=cast.consigliere, lists=tuple(lists), salt=f"{rng.getrandbits(128):032x}"))
    state = await svc.state(game_id)
    for name, city in state.cities.items():
        numbers = tuple(rng.sample(range(1, len(city.residents) + 1), city.mafia_count))
        await do(cmd.NameMafiaNumbers(actor=cast.procurator, city=name, numbers=numbers))
    state = await svc.state(game_id)
    for user in state.residents:
        if state.is_mafia(user):
            await do(cmd.AcknowledgeRole(actor=user))
    await do(cmd.StartGame(actor=cast.procurator, first_day=first_day))


class ServiceBots:
    """Plays ``seats`` (None: every participant) of one game through the service."""

    def __init__(self, svc: GameService, game_id: str, rng: random.Random,
                 seats: Iterable[str] | None = None, humans: Iterable[str] = (),
                 activity: float = 0.5, execute: Executor | None = None) -> None:
        self.svc = svc
        self.execute: Executor = execute or svc.execute
        """How a command is sent: the service directly, or e.g. the HTTP API."""
        self.game_id = game_id
        self.rng = rng
        self.seats = set(seats) if seats is not None else None
        self.humans = set(humans)
        self.activity = activity
        self.ids = Ids(f"bot-{uuid.uuid4().hex[:8]}-")
        self.done: set[tuple[Any, ...]] = set()
        """Moves already made once (per day/night)."""
        self.accepted = 0
        self.rejected = 0

    def plays(self, user: str | None) -> bool:
        if user is None or user in self.humans:
            return False
        return self.seats is None or user in self.seats

    async def do(self, command: cmd.Command) -> bool:
        try:
            await self.execute(self.game_id, command, self.ids())
        except (RuleViolation, ServiceError, Rejected):
            self.rejected += 1
            return False
        self.accepted += 1
        return True

    def once(self, *key: Any) -> bool:
        if key in self.done:
            return False
        self.done.add(key)
        return True

    def chance(self) -> bool:
        return self.rng.random() < self.activity

    async def run(self, interval: float) -> None:
        while True:
            try:
                s = await self.svc.state(self.game_id)
                if s.stage is Stage.FINISHED:
                    return
                await self.step(s)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot step failed")
            await asyncio.sleep(interval)

    async def step(self, s: GameState) -> None:
        if s.stage is not Stage.RUNNING:
            return
        await self.observe()
        if s.phase is PhaseKind.DAY:
            await self.day(s)
        elif s.phase is PhaseKind.NIGHT:
            await self.night(s)

    # --- choices (random here; ``bots.strategy.service`` reasons instead) --------------

    async def observe(self) -> None:
        """Called before each step; a subclass may read the game's new events here."""

    def chatter(self, s: GameState, user: str) -> str:
        return self.rng.choice(CHATTER)

    def nominee(self, s: GameState, user: str, living: list[str]) -> str:
        return self.rng.choice(living)

    def ballot(self, s: GameState, user: str, candidates: list[str]) -> str:
        return self.rng.choice(candidates)

    def pardon(self, s: GameState, judge: str, city: str) -> bool:
        return self.rng.random() < 0.3

    def victim(self, s: GameState, city: str, honest: list[str]) -> str:
        return self.rng.choice(honest)

    def suspect(self, s: GameState, commissar: str, targets: list[str]) -> str:
        return self.rng.choice(targets)

    # --- day ------------------------------------------------------------------------

    async def day(self, s: GameState) -> None:
        d = s.day
        for name, city in s.cities.items():
            if city.decided is not None:
                continue
            if self.plays(s.procurator) and city.appointment_open and city.offer is None \
                    and city.commissar is None:
                await self.do(cmd.OfferCommissar(actor=s.procurator, city=name,
                                                 draw=self.rng.randrange(1 << 30)))
            offer = city.offer
            if offer and offer.accepted is None and not offer.lapsed and self.plays(offer.candidate) \
                    and self.once("offer", name, offer.attempt):
                accept = not s.is_mafia(offer.candidate) and self.rng.random() < 0.7
                await self.do(cmd.AnswerCommissarOffer(actor=offer.candidate, accept=accept))
            living = s.living(name)
            city_inbox = s.current_inbox("city", name)
            for user in living:
                if not self.plays(user):
                    continue
                if city_inbox and self.rng.random() < self.activity * 0.1:
                    text = self.chatter(s, user)
                    await self.do(cmd.PostMessage(actor=user, inbox=city_inbox, text=text))
                if d >= 2 and city.voting is None and self.chance() and self.once("nominate", d, user):
                    await self.do(cmd.Nominate(actor=user, candidate=self.nominee(s, user, living)))
                book = city.voting
                if book is not None and not book.closed and self.chance() and self.once("vote", d, user):
                    candidate = self.ballot(s, user, list(book.candidates))
                    box = live_inbox(s, Kind.VOTING, name, candidate)
                    if box:
                        await self.do(cmd.PostMessage(actor=user, inbox=box, text="казнить"))
            election = city.election
            if election is not None:
                for user in living:
                    if self.plays(user) and self.rng.random() < 0.2 and self.once("propose", name, user):
                        await self.do(cmd.ProposeJudge(actor=user, candidate=self.rng.choice(living)))
                    if election.opened and self.chance() and self.plays(user) \
                            and self.once("poll", name, election.number, user) and election.candidates:
                        candidate = self.rng.choice(election.candidates)
                        box = live_inbox(s, Kind.POLLING, name, candidate)
                        if box:
                            await self.do(cmd.PostMessage(actor=user, inbox=box, text="Он — Ганди!"))
        for name, city in s.cities.items():
            verdict = city.verdict
            if verdict is None:
                continue
            for other in s.cities.values():
                judge = other.judge
                if judge and self.plays(judge) and judge not in verdict.votes and s.residents[judge].alive \
                        and self.once("pardon", name, d, judge):
                    await self.do(cmd.VotePardon(actor=judge, city=name, pardon=self.pardon(s, judge, name)))

    # --- night ----------------------------------------------------------------------

    async def night(self, s: GameState) -> None:
        n = s.day
        for name, city in s.cities.items():
            if city.decided is not None:
                continue
            mafia = s.living_mafia(name)
            if not mafia:
                continue
            if city.godfather_election_open:
                pick = self.rng.choice(mafia)
                for m in mafia:
                    if self.plays(m) and self.once("godfather", name, n, m):
                        await self.do(cmd.VoteGodfather(actor=m, candidate=pick))
                if s.consigliere and self.plays(s.consigliere) and self.once("appoint", name, n):
                    await self.do(cmd.AppointGodfather(actor=s.consigliere, city=name,
                                                       godfather=self.rng.choice(mafia)))
            if n >= 2 and not s.decisions_closed:
                honest = [u for u in s.living(name) if s.residents[u].faction is Faction.HONEST]
                target = self.victim(s, name, honest) if honest else NO_KILL
                deciders = [city.godfather] if city.godfather else mafia
                for m in deciders:
                    if m and self.plays(m) and self.once("kill", name, n, m):
                        await self.do(cmd.DeclareKill(actor=m, target=target))
                if s.touring_city == name:
                    others = [u for o, c in s.cities.items() if o != name and c.decided is None
                              for u in s.living(o) if u != c.judge]
                    if others:
                        tour = self.rng.choice(others)
                        for m in deciders:
                            if m and self.plays(m) and self.once("tour", name, n, m):
                                await self.do(cmd.DeclareKill(actor=m, target=tour, tour=True))
            mafia_inbox = s.current_inbox("mafia", name)
            if mafia_inbox and self.rng.random() < 0.2:
                speaker = self.rng.choice(mafia)
                if self.plays(speaker):
                    await self.do(cmd.PostMessage(actor=speaker, inbox=mafia_inbox, text="Кого?"))
            commissar = city.commissar
            if commissar and s.checks_open and city.checked_tonight is None and self.plays(commissar) \
                    and self.once("check", name, n):
                targets = [u for u in s.living(name) if u != commissar]
                if targets:
                    target = self.suspect(s, commissar, targets)
                    await self.do(cmd.CheckResident(actor=commissar, target=target))
