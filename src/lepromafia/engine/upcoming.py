"""When a duty the viewer's seat has will next be possible: ``upcoming(state, viewer, now)``. Pure.

``duties`` answers "what can I do now"; this answers "not now — when?" for the few
recurring acts a player looks for and does not find (the review's M5, M11): a nomination
(EXEC-3, none on Day 1: START-1), the mafia's kill (START-2: from Night 2), the
commissar's check (COMM-4: from Night 2, once checks open) and the day's vote (its
scheduled opening). An act that is possible now is listed by ``duties``, never here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from .duties import DutyKind, duties
from .rules.pause import paused
from .state import City, Faction, GameState, PhaseKind, Stage


class Soon(StrEnum):
    """Stable names: pages translate them (``soon:<kind>``)."""

    NOMINATE = "nominate"
    VOTE = "vote"
    STRIKE = "strike"
    CHECK = "check"


@dataclass(frozen=True, slots=True)
class Upcoming:
    kind: Soon
    rule: str
    day: int
    """The day (for a day act) or night (for a night act) it becomes possible on."""
    night: bool
    at: datetime | None = None
    """The moment, where a deadline fixes it already (a scheduled vote, checks opening)."""


def _home(s: GameState, viewer: str) -> City | None:
    r = s.residents.get(viewer)
    if r is None or not r.alive or s.stage is not Stage.RUNNING:
        return None
    city = s.cities[r.city]
    return city if city.decided is None and not paused(city) else None


def upcoming(state: GameState | None, viewer: str | None, now: datetime) -> tuple[Upcoming, ...]:
    if state is None or viewer is None:
        return ()
    city = _home(state, viewer)
    if city is None:
        return ()
    s = state
    now_kinds = {d.kind for d in duties(s, viewer, now)}
    out: list[Upcoming] = []
    night_now = s.phase is PhaseKind.NIGHT
    if DutyKind.NOMINATE not in now_kinds:  # EXEC-3, START-1: from Day 2, before the vote
        out.append(Upcoming(Soon.NOMINATE, "EXEC-3", 2 if s.day < 2 else s.day + 1, night=False))
    if DutyKind.VOTE not in now_kinds and s.phase is PhaseKind.DAY and city.voting is None \
            and city.vote_opens_at is not None and city.vote_opens_at > now:
        out.append(Upcoming(Soon.VOTE, "EXEC-5", s.day, night=False, at=city.vote_opens_at))
    if s.residents[viewer].faction is Faction.MAFIA and not now_kinds & _STRIKES:  # START-2
        out.append(Upcoming(Soon.STRIKE, "START-2", s.day + 1 if night_now else max(2, s.day),
                            night=True))
    if city.commissar == viewer and DutyKind.CHECK not in now_kinds:  # COMM-4
        if night_now and s.day >= 2 and not s.checks_open and city.checked_tonight is None:
            out.append(Upcoming(Soon.CHECK, "COMM-4", s.day, night=True,
                                at=s.deadlines.get(f"checks_open:{s.day}")))
        else:
            out.append(Upcoming(Soon.CHECK, "COMM-4", s.day + 1 if night_now else max(2, s.day),
                                night=True))
    return tuple(out)


_STRIKES = {DutyKind.ORDER_KILL, DutyKind.DECLARE_KILL, DutyKind.ORDER_TOUR, DutyKind.DECLARE_TOUR}

__all__ = ["Soon", "Upcoming", "upcoming"]
