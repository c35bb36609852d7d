"""A finished game as a story (issue 11, M7): day by day and city by city, the vote with
its tallies and voters, the condemned, the Court's verdict and the deaths; the deal's check
with its sealed lists; each city's outcome. Typed values, built from the public record
(``outbound.visible``), which the archive page renders without a dict or an event name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..engine import events as ev
from ..engine.deal import commitment, verify
from ..engine.events import Event
from .outbound import may_see


@dataclass(frozen=True)
class TallyLine:
    """One candidate of a closed vote, as published (EXEC-9, EXEC-14)."""

    candidate: str
    votes: int
    voters: tuple[str, ...]
    changed_minds: tuple[str, ...]
    condemned: bool


@dataclass(frozen=True)
class VoteLine:
    """One «казнить» / «не казнить» with its time (INBOX-VOTE: published with the results)."""

    at: datetime
    voter: str
    keyword: str
    candidate: str
    proxy: bool


@dataclass(frozen=True)
class Verdict:
    """The Court's decision on a condemned resident (COURT-3, COURT-7)."""

    candidate: str
    pardoned: bool
    pardon_votes: int
    no_pardon_votes: int


@dataclass(frozen=True)
class Death:
    user: str
    city: str
    faction: str
    cause: str
    """execution, night_kill, suicide…: a key ``term('cause', …)`` translates."""
    at: datetime


@dataclass(frozen=True)
class CityDay:
    """One city on one day: its vote, the condemned, the verdict, its deaths."""

    city: str
    day: int
    tallies: tuple[TallyLine, ...] = ()
    votes: tuple[VoteLine, ...] = ()
    condemned: str | None = None
    lot: tuple[str, ...] = ()
    no_execution: bool = False
    verdict: Verdict | None = None
    deaths: tuple[Death, ...] = ()
    judge_elected: str | None = None


@dataclass(frozen=True)
class Day:
    number: int
    cities: tuple[CityDay, ...]
    night_deaths: tuple[Death, ...] = ()
    """Deaths of the night that followed this day."""


@dataclass(frozen=True)
class SealedList:
    """One city's sealed list, in the sealed order, with the mafia's positions marked."""

    city: str
    residents: tuple[tuple[int, str, bool], ...]
    """(position, resident, was dealt the mafia)."""


@dataclass(frozen=True)
class DealCheck:
    """RANDOM-5: the sealed lists and salt recomputed against the published commitment."""

    commitment: str
    recomputed: str
    salt: str
    verified: bool
    lists: tuple[SealedList, ...]


@dataclass(frozen=True)
class Story:
    days: tuple[Day, ...]
    outcomes: tuple[tuple[str, str], ...]
    """(city, outcome) in the order the cities were decided."""
    deal: DealCheck | None
    result: str | None
    factions: tuple[tuple[str, str], ...] = field(default=())


@dataclass
class _Draft:
    """A city-day being collected from the record."""

    tallies: tuple[TallyLine, ...] = ()
    votes: list[VoteLine] = field(default_factory=list)
    condemned: str | None = None
    lot: tuple[str, ...] = ()
    no_execution: bool = False
    verdict: Verdict | None = None
    deaths: list[Death] = field(default_factory=list)
    judge_elected: str | None = None


def story(events: Iterable[tuple[int, Event]], viewer: str | None) -> Story:
    """The finished game's public record for ``viewer``, day by day. Every vote is in it:
    the voting inboxes' full logs are published with the results (INBOX-VOTE)."""
    record = list(events)
    drafts: dict[tuple[int, str], _Draft] = {}
    nights: dict[int, list[Death]] = {}
    day, night = 0, False
    for _, e in record:
        if isinstance(e, ev.VoteCast):
            drafts.setdefault((day, e.city), _Draft()).votes.append(
                VoteLine(e.at, e.voter, e.keyword, e.candidate, bool(e.proxy)))
        if not may_see(e, viewer):
            continue
        if isinstance(e, ev.DayStarted):
            day, night = e.day, False
        elif isinstance(e, ev.NightStarted):
            night = True
        elif isinstance(e, ev.VotingClosed):
            d = drafts.setdefault((e.day, e.city), _Draft())
            d.tallies = tuple(TallyLine(t.candidate, t.votes, t.voters, t.changed_minds,
                                        t.candidate == e.condemned) for t in e.tallies)
            d.condemned, d.lot = e.condemned, e.lot
        elif isinstance(e, ev.NoExecution):
            drafts.setdefault((e.day, e.city), _Draft()).no_execution = True
        elif isinstance(e, ev.VerdictReached):
            drafts.setdefault((e.day, e.city), _Draft()).verdict = Verdict(
                e.candidate, e.pardoned, e.pardon_votes, e.no_pardon_votes)
        elif isinstance(e, ev.JudgeElectionClosed) and e.elected:
            drafts.setdefault((day, e.city), _Draft()).judge_elected = e.elected
        elif isinstance(e, ev.ResidentDied):
            death = Death(e.user, e.city, e.faction, e.cause, e.at)
            if night or e.cause == "night_kill":
                nights.setdefault(day, []).append(death)
            else:
                drafts.setdefault((day, e.city), _Draft()).deaths.append(death)
    numbers = sorted({n for n, _ in drafts} | set(nights))
    days = tuple(Day(n, tuple(_city_day(n, city, d) for (m, city), d in sorted(drafts.items()) if m == n),
                     tuple(nights.get(n, ()))) for n in numbers)
    shown = [e for _, e in record if may_see(e, viewer)]
    outcomes = tuple((e.city, e.outcome) for e in shown if isinstance(e, ev.CityDecided))
    ended = next((e for e in reversed(shown) if isinstance(e, ev.GameEnded)), None)
    return Story(days, outcomes, deal_check(ended, record),
                 ended.result if ended else None, ended.factions if ended else ())


def _city_day(day: int, city: str, d: _Draft) -> CityDay:
    return CityDay(city, day, d.tallies, tuple(d.votes), d.condemned, d.lot, d.no_execution,
                   d.verdict, tuple(d.deaths), d.judge_elected)


def deal_check(ended: ev.GameEnded | None,
               record: Iterable[tuple[int, Event]] = ()) -> DealCheck | None:
    """RANDOM-5: recompute the commitment from the opened lists and salt."""
    if ended is None or ended.commitment is None:
        return None
    lists = {city: list(users) for city, users in ended.deal_lists}
    dealt = {u for _, e in record if isinstance(e, ev.MafiaDealt) for u in e.mafiosi}
    sealed = tuple(SealedList(city, tuple((i, u, u in dealt) for i, u in enumerate(users, 1)))
                   for city, users in ended.deal_lists)
    return DealCheck(ended.commitment, commitment(lists, ended.deal_salt), ended.deal_salt,
                     verify(lists, ended.deal_salt, ended.commitment), sealed)
