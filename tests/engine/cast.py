"""A named cast and a tiny DSL for rule tests that read like game transcripts.

    g = Game({"Лепроград": "alice bob carol dave erin"}, mafia={"Лепроград": "alice"})
    g.start()                       # Day 1 begins at 10:00 on 2026-12-01 (Moscow)
    g.to(day=2, hhmm="10:00")       # fire every deadline due by then
    g.do(Nominate(actor="bob", candidate="carol"), day=2, hhmm="12:00")
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from lepromafia.engine import commands as cmd
from lepromafia.engine.calendar import MOSCOW, at_local
from lepromafia.engine.errors import ErrorCode, RuleViolation
from lepromafia.engine.events import Event
from lepromafia.engine.inboxes import Kind, live_inbox
from lepromafia.engine.table import Table
from lepromafia.engine.visibility import visible_to

PROCURATOR = "pavel"
CONSIGLIERE = "kostya"
ARBITER = "artur"
TRIBUNES = ("tanya", "tolya", "timur", "taras", "toma", "tikhon")
FIRST_DAY = date(2026, 12, 1)

STANDARD_TOWN = "alice bob carol dave erin frank gina hugo ivan jane"


def when(day: int, hhmm: str, first_day: date = FIRST_DAY) -> datetime:
    """Moscow wall-clock time on Day N's calendar date (N=1 is ``first_day``)."""
    return at_local(first_day + timedelta(days=day - 1), hhmm)


def night_time(night: int, hhmm: str) -> datetime:
    """A moment of Night N: before noon means the calendar date after Day N."""
    hour = int(hhmm.split(":")[0])
    return when(night + 1 if hour < 12 else night, hhmm)


class Game:
    def __init__(
        self,
        cities: dict[str, str] | None = None,
        mafia: dict[str, str] | None = None,
        settings: dict[str, Any] | None = None,
    ) -> None:
        self.cities = {k: tuple(v.split()) for k, v in (cities or {"Лепроград": STANDARD_TOWN}).items()}
        self.mafia_of = {k: tuple(v.split()) for k, v in (mafia or {}).items()}
        self.settings = {"city_count": len(self.cities), **(settings or {})}
        self.table = Table()
        self.pregame = datetime(2026, 11, 28, 12, 0, tzinfo=MOSCOW)

    # --- set-up -------------------------------------------------------------------

    def create(self) -> Game:
        self.act(cmd.CreateGame(actor=PROCURATOR, title="Тест", settings=self.settings))
        self.act(cmd.AppointHost(actor=PROCURATOR, office="consigliere", user=CONSIGLIERE))
        self.act(cmd.AppointHost(actor=PROCURATOR, office="arbiter", user=ARBITER))
        return self

    def recruit(self) -> Game:
        self.create()
        for users in self.cities.values():
            for user in users:
                self.act(cmd.SignUp(actor=user, accepted=cmd.REQUIREMENTS, has_contact=True))
        return self

    def form(self) -> Game:
        self.recruit()
        plans = tuple(
            cmd.CityPlan(name=name, tribune=TRIBUNES[i], residents=users)
            for i, (name, users) in enumerate(self.cities.items())
        )
        self.act(cmd.FormCities(actor=PROCURATOR, cities=plans))
        return self

    def seal(self) -> Game:
        """The Consigliere's lists put the chosen mafiosi first (RANDOM-3)."""
        self.form()
        lists = []
        for name, users in self.cities.items():
            chosen = self.mafia_of.get(name, ())
            count = self.state.cities[name].mafia_count
            assert len(chosen) in (0, count), f"{name} needs {count} mafiosi, cast names {chosen}"
            rest = [u for u in users if u not in chosen]
            lists.append((name, tuple(chosen) + tuple(rest)))
        self.act(cmd.SealDeal(actor=CONSIGLIERE, lists=tuple(lists), salt="s" * 32))
        return self

    def deal(self) -> Game:
        self.seal()
        for name in self.cities:
            count = self.state.cities[name].mafia_count
            self.act(cmd.NameMafiaNumbers(actor=PROCURATOR, city=name,
                                          numbers=tuple(range(1, count + 1))))
        return self

    def acknowledge(self) -> Game:
        """DIST-3: every mafioso acknowledges his role (the game cannot start before)."""
        for name in self.cities:
            for user in self.state.mafiosi(name):
                self.act(cmd.AcknowledgeRole(actor=user))
        return self

    def start(self) -> Game:
        self.deal().acknowledge()
        self.act(cmd.StartGame(actor=PROCURATOR, first_day=FIRST_DAY))
        self.to(1, "10:00")
        return self

    # --- play ---------------------------------------------------------------------

    @property
    def state(self):
        return self.table.game

    def act(self, command: cmd.Command, at: datetime | None = None) -> list[Event]:
        return self.table.do(command, at or self.pregame)

    def do(self, command: cmd.Command, day: int, hhmm: str) -> list[Event]:
        return self.table.do(command, when(day, hhmm))

    def at_night(self, command: cmd.Command, night: int, hhmm: str) -> list[Event]:
        return self.table.do(command, night_time(night, hhmm))

    def reject(self, command: cmd.Command, at: datetime, code: ErrorCode) -> RuleViolation:
        before_state, before_len = self.table.state, len(self.table.events)
        with pytest.raises(RuleViolation) as caught:
            self.table.do(command, at)
        assert caught.value.code is code, f"expected {code}, got {caught.value.code}"
        assert self.table.state is before_state and len(self.table.events) == before_len
        assert caught.value.message()  # every code has an English message (its msgid)
        return caught.value

    def to(self, day: int, hhmm: str, seed: int = 0) -> list[Event]:
        return self.table.advance(when(day, hhmm), seed=lambda: seed)

    def to_night(self, night: int, hhmm: str, seed: int = 0) -> list[Event]:
        return self.table.advance(night_time(night, hhmm), seed=lambda: seed)

    # --- reading ------------------------------------------------------------------

    def events_of(self, kind: type, seen_by: str | None = "*") -> list[Any]:
        found = [e for e in self.table.events if isinstance(e, kind)]
        if seen_by != "*":
            found = [e for e in found if visible_to(e, seen_by)]
        return found

    @property
    def now(self) -> datetime:
        """The moment of the last event: what a rights question asks about (HOST-ARB-3)."""
        return self.table.events[-1].at

    def alive(self, user: str) -> bool:
        return self.state.residents[user].alive

    def inbox(self, kind: str, scope: str = "") -> str:
        found = self.state.current_inbox(kind, scope)
        assert found, f"no {kind} inbox for {scope!r}"
        return found

    def voting_inbox(self, city: str, candidate: str) -> str:
        found = live_inbox(self.state, Kind.VOTING, city, candidate)
        assert found, f"no voting inbox for {candidate}"
        return found

    def vote(self, voter: str, candidate: str, text: str, day: int, hhmm: str,
             city: str | None = None) -> list[Event]:
        city = city or self.state.residents[voter].city
        return self.do(cmd.PostMessage(actor=voter, inbox=self.voting_inbox(city, candidate), text=text),
                       day, hhmm)

    def nominate_all(self, pairs: Iterable[tuple[str, str]], day: int, hhmm: str = "12:00") -> None:
        for nominator, candidate in pairs:
            self.do(cmd.Nominate(actor=nominator, candidate=candidate), day, hhmm)
