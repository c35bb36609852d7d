"""PLAYER-2, no "vegetables": who has posted nothing in his city for too long. Pure.

A resident's activity is his posts in his own city's city inbox and voting inboxes (the
discussion and the votes, which his whole city and its Tribune read): a post in a secret
inbox (the mafia's, a personal one) never counts, so the list of the inactive says
nothing about who talks where unseen. A living resident of an undecided city in a
running game is inactive once ``inactivity_hours`` (a setting; 0: never) have passed
since his last such post, or since Day 1 began if he has none. Time is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from .inboxes import Kind
from .state import GameState, Inbox, Stage

ACTIVITY_KINDS = frozenset({Kind.CITY.value, Kind.VOTING.value})
"""The inboxes whose posts count as taking part (PLAYER-2)."""


def counts_as_activity(state: GameState, inbox: Inbox, author: str) -> bool:
    """Does a post by ``author`` in ``inbox`` count as his activity?"""
    resident = state.residents.get(author)
    return (resident is not None and inbox.kind in ACTIVITY_KINDS and inbox.city is not None
            and inbox.city == resident.city)


@dataclass(frozen=True, slots=True)
class Silence:
    user: str
    city: str
    last_post: datetime | None
    """His last counted post, or None if he has posted nothing yet."""
    since: datetime
    """The moment his silence is counted from: the last post, or Day 1's start."""
    periods: int
    """How many whole ``inactivity_hours`` have passed since (at least 1)."""


def inactive(state: GameState, now: datetime, city: str | None = None) -> tuple[Silence, ...]:
    """The living residents (of ``city``, or of every city) silent for at least
    ``inactivity_hours`` at ``now``, longest silent first."""
    hours = state.settings.inactivity_hours
    first = state.plans.get(1)
    if hours <= 0 or state.stage is not Stage.RUNNING or first is None:
        return ()
    period = timedelta(hours=hours)
    found = []
    for user, r in state.residents.items():
        home = state.cities.get(r.city)
        if not r.alive or home is None or home.decided is not None or (city and r.city != city):
            continue
        last = state.last_posts.get(user)
        since = last or first.start_at
        if now - since >= period:
            found.append(Silence(user, r.city, last, since, int((now - since) / period)))
    return tuple(sorted(found, key=lambda s: (s.since, s.user)))


__all__ = ["ACTIVITY_KINDS", "Silence", "counts_as_activity", "inactive"]
