"""Notifications that no event causes, only time passing: a prod to a resident silent in
his city for ``inactivity_hours`` (PLAYER-2), and a host duty past its deadline.

Pure. The dispatcher sweeps every running game now and then and writes these rows to
the outbox under keys that name the moment (the silence's start and how many periods
have passed; the duty and its deadline), so each is written once however many workers
sweep and however often: a prod once per period of silence, an overdue notice once per
duty and deadline. ``still_true`` answers, when a row is expanded, whether it still
holds (he has posted since; the duty was done): if not, it is dropped.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ...engine.activity import inactive
from ...engine.duties import Duty, duties
from ...engine.state import GameState
from ...store.projection import GameClock
from .causes import Causes, Row, duty_key, hosts
from .kinds import HOST_SEATS, NotifyKind


def watch_rows(game_id: str, clock: GameClock, state: GameState, now: datetime) -> list[Row]:
    """The outbox rows time has made due in one game at ``now`` (game time)."""
    out = Causes(game_id, clock)
    hours = state.settings.inactivity_hours
    for s in inactive(state, now):
        ends = s.since + timedelta(hours=hours) * (s.periods + 1)
        out.add(NotifyKind.INACTIVE, f"{s.since.isoformat()}#{s.periods}", user=s.user, due=now,
                expires=ends, hours=hours * s.periods, since=s.since.isoformat())
    for host in hosts(state):
        for d in overdue(state, host, now):
            assert d.deadline is not None
            out.add(NotifyKind.HOST_DUTY_OVERDUE, f"{duty_key(d)}@{d.deadline.isoformat()}", user=host,
                    due=now, duty=d.kind.value, overdue=f"{duty_key(d)}@{d.deadline.isoformat()}")
    return out.rows


def overdue(state: GameState, host: str, now: datetime) -> list[Duty]:
    """The required host duties of ``host`` whose deadline has passed."""
    return [d for d in duties(state, host, now) if d.seat in HOST_SEATS and d.required
            and d.deadline is not None and d.deadline <= now]


def still_true(kind: NotifyKind, state: GameState, user: str, payload: dict[str, Any],
               now: datetime) -> bool:
    """Whether a swept row still holds when it is expanded."""
    if kind is NotifyKind.INACTIVE:
        return any(s.user == user and s.since.isoformat() == payload.get("since")
                   for s in inactive(state, now))
    if kind is NotifyKind.HOST_DUTY_OVERDUE:
        return any(f"{duty_key(d)}@{d.deadline.isoformat()}" == payload.get("overdue")
                   for d in overdue(state, user, now) if d.deadline is not None)
    return True
