"""What each viewer may know (RULES.md §9). Every byte about a game passes through here.

Audiences are fixed when an event is created (lila's Event.only/owner). A viewer who
may not see an event gets only a bare version marker, so streams stay gapless.
"""

from __future__ import annotations

from dataclasses import dataclass

from .events import Event
from .inboxes import can_read
from .state import GameState


def visible_to(event: Event, viewer: str | None) -> bool:
    """True iff ``viewer`` (a user id, or None for an anonymous visitor) may see ``event``."""
    return event.audience.public or (viewer is not None and viewer in event.audience.users)


def readers(event: Event) -> frozenset[str] | None:
    """``visible_to`` as a set: None if every viewer may see ``event`` (an anonymous one
    too), else exactly the users who may — so a fan-out can look at them alone."""
    return None if event.audience.public else event.audience.users


@dataclass(frozen=True, slots=True)
class Marker:
    """What a viewer receives in place of an event he may not see: only its position."""

    seq: int


def view(event: Event, seq: int, viewer: str | None) -> Event | Marker:
    return event if visible_to(event, viewer) else Marker(seq)


def inbox_readable(state: GameState, inbox: str, viewer: str | None) -> bool:
    """Inbox history is readable by current and former (banned) members only (INBOX-GEN-1)."""
    return can_read(state, inbox, viewer)


def public_faction(state: GameState, user: str) -> str | None:
    """A resident's faction as everyone may know it during the game: announced at his death
    (AMB-15, SEC-9); None while he lives (the end of the game reveals all in ``GameEnded``)."""
    resident = state.residents.get(user)
    if resident is None or resident.faction is None or resident.alive:
        return None
    return resident.faction.value
